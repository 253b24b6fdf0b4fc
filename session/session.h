/* session/session.h: a recording session: the loop that takes frames from
 * a capture source through the tracker (track/) to the recorder
 * (record/), with the operator's commands and stop requests between
 * frames, and the hooks of whoever follows the game live (the broadcast,
 * gtp/): they plug in here, the loop does not know who they are.
 */
#ifndef SESSION_SESSION_H
#define SESSION_SESSION_H

#include <signal.h>
#include "core/gs.h"
#include "capture/capture.h"
#include "track/track.h"
#include "record/record.h"

#ifdef __cplusplus
extern "C" {
#endif

/* session_run: the recording loop: capture source -> tracker ->
 * recorder, with operator commands and stop requests between frames.
 * Used by `goscribe record`, `goscribe bench record` and the tests.
 *
 * Operator commands (one per line, from the poll callback): q | quit
 * (stop), end (game over: the next settled view after the dead stones are
 * lifted is counted), pass [B|W], resign B|W, note TEXT (a line and an SGF
 * comment, record_note with code "note": what the operator or a program
 * driving the recording, such as gtp/, wants kept with the game).
 * Whoever follows the recording live (the broadcast, plugged in by cli/)
 * does it through session_hooks: the loop does not know who it is.
 * Ownership: the caller owns the source and the hooks' user data; nothing
 * here keeps them.
 */

/* The hooks of the recording loop, a small table of callbacks; each may be
 * NULL.  They are called from the loop's thread, between frames, and must
 * not block (a broadcast copies and returns).  The record and the events
 * passed in are valid for the call only. */
typedef struct session_hooks {
    /* Every frame read (not in decode_only), with the board's grid (NULL
     * while no board was found). */
    void (*frame)(void *user, const gs_image *frame, const vision_grid *grid);
    /* After each change of the record, each new event in order: */
    /* a move or a pass committed (RECORD_EV_MOVE, RECORD_EV_PASS); */
    void (*move)(void *user, const record *r, const record_event *ev);
    /* a flagged event (RECORD_EV_REFEREE, RECORD_EV_SIGNAL): before = the
     * record before the last settled view, seen = that view as seen (NULL
     * before the first); the evidence frames are record_frames(r); */
    void (*event)(void *user, const record *r, const record_event *ev, const gs_position *before,
                  const gs_position *seen);
    /* then once: the record changed (its state, result, SGF text). */
    void (*changed)(void *user, const record *r);
    /* Polled before every frame while it returns true: the next ruling
     * waiting in *out, applied with record_apply_ruling.  The pointers in
     * *out stay valid until the next call of any hook. */
    bool (*poll_ruling)(void *user, record_ruling *out);
    /* Once, when the input has ended and before the record is closed:
     * rulings from now on cannot reach the record and must be refused
     * (why says so); the ones already waiting are polled once more and
     * applied before the record closes. */
    void (*closing)(void *user, const char *why);
} session_hooks;

/* A pass announced at a time of the source (session_options.passes). */
typedef struct session_pass {
    double t_ms;                /* the source's frame time (a video's position) */
    gs_color color;             /* GS_BLACK or GS_WHITE */
} session_pass;

/* What the progress callback is told. */
typedef struct session_progress {
    long frames;                /* frames read so far */
    long total;                 /* frames of the source, -1 unknown */
    double t_ms;                /* source time of the last frame */
    int moves;                  /* moves + passes recorded so far */
    int flags;                  /* referee events so far */
    double elapsed_ms;          /* wall time since the start */
} session_progress;

typedef struct session_options {
    track_options tracker;
    record_options recorder;
    long max_frames;            /* 0 = until the end of input */
    /* Command source, polled between frames without blocking: returns 1
     * and a NUL-terminated line in buf, 0 when nothing is waiting, -1 at
     * end of input (EOF ends a camera recording; for files it only stops
     * the polling).  NULL = no commands. */
    int (*poll)(void *user, char *buf, size_t len);
    void *poll_user;
    /* Set asynchronously (SIGINT) to stop cleanly. NULL = none. */
    volatile sig_atomic_t *stop;
    /* Called about once a second of processing (see session_progress).
     * NULL = none. */
    void (*progress)(void *user, const struct session_progress *p);
    void *progress_user;
    /* A live source (a camera, a network camera) lost, and back: the line
     * said (also an event line of the record), for whoever watches the
     * recorder's stderr (a hall).  NULL = none. */
    void (*source_state)(void *user, const char *line);
    void *source_user;
    /* Passes announced by the source's clock, in time order: each is
     * record_pass'ed at the first frame at or after its time (once the
     * game has started), as an operator's `pass C` said then (`record
     * --pass-at`: a recorded video's announcements).  NULL = none. */
    const session_pass *passes;
    int npasses;
    /* Where Black sits as the camera sees the board: the record is turned
     * so that Black's side is the bottom of the SGF board (row 19 on
     * 19x19; White's side the top), as game records are printed. */
    record_black_side black_side;
    bool black_side_given;      /* said (--black-side), not the default */
    /* Sleep this long after each frame (a slow source for demos and the
     * kill test). 0 = none. */
    int frame_delay_ms;
    /* Optional: only decode, no tracking (bench baseline). */
    bool decode_only;
    /* Whoever follows the recording live (see session_hooks); NULL = none. */
    const session_hooks *hooks;
    void *hooks_user;
} session_options;

void session_options_init(session_options *o);

typedef struct session_stats {
    long frames;
    double ms_total;            /* wall time of the loop */
    int settled_views;          /* settled views handed to the record */
    int covered_views;          /* ... of which something reached in from outside */
    int full_reads;             /* full readings of a frame (vision_detect_frame) */
    int moves;                  /* moves + passes in the record */
    int referee_events;
    int signals;                /* end-of-game signals seen */
    /* Where Black sat and how that was decided, in words ("Black at the
     * left edge of the picture (given by --black-side)"); and, when the
     * arms that placed Black's stones say otherwise than the side used or
     * the side was not given, a warning in words ("" when none). */
    char orientation[160];
    char orientation_warning[320];
    long skipped_frames;        /* video frames that could not be decoded (skipped, each gap noted) */
    bool have_final;
    gs_position final_pos;      /* the record's last position */
    char result[24];            /* RE ("" if none) */
    bool count_sure;            /* false: counted with doubt (record_count_sure) */
    const char *stop_reason;    /* "end of input", "q", "SIGINT", ... */
} session_stats;

/* Runs the loop until the end of input, a stop command, *stop, or
 * max_frames.  The SGF is final when it returns GS_OK.  GS_ERR_NOBOARD if
 * the board was never seen. */
gs_status session_run(capture_source *src, const session_options *o, session_stats *stats,
                       gs_error *err);


#ifdef __cplusplus
}
#endif
#endif
