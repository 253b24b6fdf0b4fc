/* record/recorder_run.h: the recording loop: capture source -> tracker ->
 * recorder, with operator commands and stop requests between frames.
 * Used by `goscribe record`, `goscribe bench record` and the tests.
 *
 * Operator commands (one per line, from the poll callback): q | quit
 * (stop), end (game over: the next settled view after the dead stones are
 * lifted is counted), pass [B|W], resign B|W.
 * Ownership: the caller owns the source; nothing here keeps it.
 */
#ifndef RECORD_RECORDER_RUN_H
#define RECORD_RECORDER_RUN_H

#include <signal.h>

#include "capture/capture.h"
#include "record/recorder.h"
#include "record/serve.h"
#include "record/tracker.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct recorder_run_options {
    tracker_options tracker;
    recorder_options recorder;
    long max_frames;            /* 0 = until the end of input */
    /* Command source, polled between frames without blocking: returns 1
     * and a NUL-terminated line in buf, 0 when nothing is waiting, -1 at
     * end of input (EOF ends a camera recording; for files it only stops
     * the polling).  NULL = no commands. */
    int (*poll)(void *user, char *buf, size_t len);
    void *poll_user;
    /* Set asynchronously (SIGINT) to stop cleanly. NULL = none. */
    volatile sig_atomic_t *stop;
    /* Called about once a second of processing with frames done / total
     * (-1 unknown). NULL = none. */
    void (*progress)(void *user, long frame, long total);
    void *progress_user;
    /* Sleep this long after each frame (a slow source for demos and the
     * kill test). 0 = none. */
    int frame_delay_ms;
    /* Optional: only decode, no tracking (bench baseline). */
    bool decode_only;
    /* Live broadcast (record/serve.h), NULL = none; the caller starts and
     * stops it.  Every frame: the frame with the grid is published and the
     * referee's rulings are applied (recorder_apply_ruling); after every
     * change of the record: the state, each flagged event (positions and
     * frames before/after) and the SGF text.  None of it waits on the
     * network (serve's publish calls copy and return). */
    serve_board *serve;
} recorder_run_options;

void recorder_run_options_init(recorder_run_options *o);

typedef struct recorder_run_stats {
    long frames;
    double ms_total;            /* wall time of the loop */
    int settled_views;          /* settled views handed to the recorder */
    int covered_views;          /* ... of which something reached in from outside */
    int full_reads;             /* vision_read calls */
    int moves;                  /* moves + passes in the record */
    int referee_events;
    bool have_final;
    gs_position final_pos;      /* the record's last position */
    char result[24];            /* RE ("" if none) */
    const char *stop_reason;    /* "end of input", "q", "SIGINT", ... */
} recorder_run_stats;

/* Runs the loop until the end of input, a stop command, *stop, or
 * max_frames.  The SGF is final when it returns GS_OK.  GS_ERR_NOBOARD if
 * the board was never seen. */
gs_status recorder_run(capture_source *src, const recorder_run_options *o, recorder_run_stats *stats,
                       gs_error *err);

#ifdef __cplusplus
}
#endif
#endif
