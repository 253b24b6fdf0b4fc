/* gtp/gtp.h: goscribe as a GTP 2 engine (the Go Text Protocol every Go
 * program speaks: Sabaki, GoGui, GNU Go, ...) whose moves are the ones the
 * camera sees on the board.
 *
 * The recording loop (session_run: capture -> track -> record, the SGF kept
 * as `goscribe record` keeps it) runs in a thread of its own; the GTP
 * commands are read and answered in the caller's thread, so protocol_version
 * or showboard are answered at once while the camera keeps running.  The
 * two meet in a gtp_board: the loop's hooks copy what the record holds into
 * it (moves, position, events, the latest frame) and the engine reads it.
 *
 * What the controller sees: the game the record holds, as far as the
 * controller has followed it (its cursor):
 *   - genmove C  answers the record's next move when it is C's (at once if
 *                the board is already ahead, else when C's stone settles);
 *                `pass` for a pass (an operator's `pass C`, or `play C pass`
 *                of the other side), `resign` for C's resignation (the
 *                operator's, or C's resignation signal on the margin);
 *   - play C V   is the controller's move that a person must place: answered
 *                when that stone is on the board; a different stone there
 *                instead is answered with an error saying what the board
 *                shows, and kept as a line and an SGF comment ("note");
 *   - undo       takes the controller's cursor back (the board and the
 *                record are untouched: a stone taken back on the board is
 *                the recorder's and the referee's matter);
 *   - final_score, final_status_list: the record's count once the game is
 *                counted, else goscribe's dead-stone estimate of the board
 *                (rules_estimate_dead), Chinese area rules, the record's
 *                komi (KM: --komi, default 7.5 = 3 3/4 stones).
 * Coordinates are as the camera sees the board: column A at the left of
 * the picture, row 1 at its bottom.
 *
 * Ownership: gtp_board_create / gtp_engine_create return objects freed by
 * their destroy (NULL safe); the engine does not own its board.  Strings
 * and images handed in are copied.  gtp_serve owns nothing it is given.
 * Threads: a gtp_board may be used from two threads (its hooks from the
 * recording loop's, everything else from the engine's); a gtp_engine from
 * one thread only.
 */
#ifndef GTP_GTP_H
#define GTP_GTP_H

#include <signal.h>
#include <stdio.h>
#include "core/gs.h"
#include "capture/capture.h"
#include "record/record.h"
#include "session/session.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------- the board */

/* What the engine knows of the board, filled by the recording loop. */
typedef struct gtp_board gtp_board;

gtp_board *gtp_board_create(gs_error *err);
void gtp_board_destroy(gtp_board *b);

/* The hooks to give session_run (hooks_user = the board): they copy the
 * record's moves, position and events and the latest camera frame into b.
 * Static storage. */
const session_hooks *gtp_board_hooks(void);

/* Operator commands for the record ("pass B", "resign W", "note TEXT",
 * "q": see session_run), queued by the engine and taken by the loop's poll
 * callback: gtp_board_take returns 1 and the next line in buf, 0 when none
 * waits.  gtp_board_push is false when the queue is full (64 lines). */
bool gtp_board_push(gtp_board *b, const char *line);
int gtp_board_take(gtp_board *b, char *buf, size_t len);

/* The recording loop returned (with st, and err when st failed): no more
 * moves will come.  Wakes a waiting genmove or play. */
void gtp_board_loop_ended(gtp_board *b, gs_status st, const session_stats *stats, const gs_error *err);

/* ------------------------------------------------------------ the engine */

typedef struct gtp_engine_options {
    double move_timeout_s;    /* genmove / play / loadsgf wait at most this
                                 long for the board; 0 = no limit */
    int size;                 /* board size expected before the board is seen
                                 (--size; 0 = 19 until boardsize says) */
    double komi;              /* the recorder's komi (for the note when the
                                 controller asks another); used when has_komi */
    bool has_komi;
    const char *frame_path;   /* PNG written by goscribe-frame; NULL =
                                 "goscribe-frame.png" */
    const char *sgf_path;     /* the record's file, named by goscribe-status */
    FILE *log;                /* notes for the person at the board (stderr);
                                 NULL = none */
    /* Asked about every 100 ms while genmove / play / loadsgf wait: true
     * ends the wait with an error (the controller interrupted: GoGui's
     * "# interrupt", a quit already sent, end of input).  NULL = never. */
    bool (*interrupted)(void *user);
    void *interrupt_user;
} gtp_engine_options;

void gtp_engine_options_init(gtp_engine_options *o);

typedef struct gtp_engine gtp_engine;

gtp_engine *gtp_engine_create(gtp_board *b, const gtp_engine_options *o, gs_error *err);
void gtp_engine_destroy(gtp_engine *e);

/* Runs one line of GTP input and appends its response to out: "=ID text"
 * or "?ID message", each ended by an empty line; nothing for a line that is
 * empty or a comment.  A line longer than GTP_MAX_LINE is cut there by the
 * reader (too_long): it gets "? command too long".  Returns true when the
 * controller asked to quit (the response to quit is in out). */
#define GTP_MAX_LINE 4096
bool gtp_engine_handle(gtp_engine *e, const char *line, bool too_long, gs_buf *out);

/* ------------------------------------------------------ the whole engine */

typedef struct gtp_options {
    /* The recording (recorder, tracker, frame delay, max frames); its
     * poll, hooks and stop are gtp_serve's own. */
    session_options run;
    gtp_engine_options engine;       /* interrupted is gtp_serve's own */
    const char *operator_path;       /* operator commands (q, end, pass B|W,
                                        resign B|W, note TEXT), one a line,
                                        from this file, FIFO or terminal:
                                        how a person passes or resigns while
                                        stdin speaks GTP.  NULL = none */
    volatile sig_atomic_t *stop;     /* set (SIGINT) to stop at once */
} gtp_options;

void gtp_options_init(gtp_options *o);

typedef struct gtp_stats {
    session_stats run;            /* the recording */
    gs_status run_status;            /* session_run's status */
    gs_error run_error;              /* ... its error when it failed */
    long commands;                   /* GTP commands answered */
    long errors;                     /* ... with an error response */
    const char *end;                 /* "quit", "end of input", "SIGINT",
                                        "output closed" */
} gtp_stats;

/* Serves GTP on in_fd / out until quit, end of input or *stop, while the
 * recording loop runs on src in a thread; then stops the loop (an
 * unfinished game is stopped, not counted: session_run's q) and returns.
 * GS_OK when the conversation ended normally, whatever the recording did
 * (its outcome is in stats: a board never seen is run_status
 * GS_ERR_NOBOARD); GS_ERR_IO when the operator file cannot be opened or
 * the thread cannot start. */
gs_status gtp_serve(capture_source *src, const gtp_options *o, int in_fd, FILE *out, gtp_stats *stats,
                    gs_error *err);

#ifdef __cplusplus
}
#endif
#endif
