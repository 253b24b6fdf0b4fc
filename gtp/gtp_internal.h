/* gtp/gtp_internal.h: what the files of gtp/ share; private to gtp/ (the
 * interface is gtp/gtp.h).
 *
 *   board.c    the board shared with the recording loop: hooks, snapshot,
 *              command queue, latest frame
 *   input.c    lines from a file descriptor, bounded, without blocking
 *   common.c   what the command files share: colours, vertices, the log
 *              line, waiting for the board
 *   engine.c   the engine: lines parsed, the command table, responses,
 *              the protocol's own commands
 *   play.c     the game: boardsize, clear_board, komi, play, genmove, undo,
 *              loadsgf (and the waiting they do)
 *   score.c    the position at the cursor: showboard, final_score,
 *              final_status_list
 *   gogui.c    GoGui's analyze commands: status, camera view, frame, events
 *   serve.c    gtp_serve: the loop's thread, stdin, the operator file
 */
#ifndef GTP_GTP_INTERNAL_H
#define GTP_GTP_INTERNAL_H

#include "gtp/gtp.h"
#include "rules/rules.h"
#include "vision/vision.h"

#include <pthread.h>

/* ----------------------------------------------------------- board.c */

#define GTP_EVENT_LINES 24

/* What the record holds, as the engine reads it: plain data (moves
 * malloc'd, owned by whoever holds the view: free with gtp_view_free). */
typedef struct gtp_view {
    uint64_t version;          /* grows with every change */
    bool started;              /* the board was seen: the record has a game */
    bool ended;                /* the game is over (end, two passes, resignation) */
    bool finished;             /* ... and closed (counted unless resigned or stopped) */
    bool loop_done;            /* the recording loop returned: nothing more will come */
    char loop_why[320];        /* ... why ("end of input", an error) */
    int size;
    double komi;               /* the record's KM, points */
    int handicap;
    gs_position setup;         /* the record's set-up stones (root AB/AW) */
    gs_color first;            /* the record's first mover (GS_EMPTY = by the rules) */
    gs_move *moves;            /* the record's main line, passes included */
    int nmoves, cap;
    gs_position pos;           /* the record's board now */
    gs_color to_move;
    gs_color resigned;         /* who resigned in the record; GS_EMPTY = nobody */
    int resign_signal[3];      /* by colour: the record's move count when
                                  that colour's resignation signal was seen
                                  on the margin; -1 = none */
    int warnings[3];           /* by colour */
    char result[64];           /* RE, "" before the end */
    bool has_marks;            /* the count's TB/TW on the last node */
    gs_position marks;
} gtp_view;

void gtp_view_free(gtp_view *v);
/* Copies b's view into *out when it changed since out->version (out's
 * moves array reused).  false when out of memory (out unchanged). */
bool gtp_board_snapshot(gtp_board *b, gtp_view *out);
/* Waits up to ms for b's view to change from version; true when it did. */
bool gtp_board_wait(gtp_board *b, uint64_t version, double ms);
/* The latest camera frame (a copy the caller frees; NULL when none yet)
 * and its grid (*have_grid false while no board is found). */
gs_image *gtp_board_frame(gtp_board *b, vision_grid *grid, bool *have_grid);
/* The last referee events and notes, one line each, oldest first. */
void gtp_board_events(gtp_board *b, gs_buf *out);

/* ----------------------------------------------------------- input.c */

#define GTP_INPUT_BYTES 65536

/* Lines from a file descriptor: what is read waits in buf until a whole
 * line is there; a line longer than GTP_MAX_LINE is cut (too_long) and
 * the rest of it dropped, so memory stays bounded whatever comes in. */
typedef struct gtp_input {
    int fd;
    char buf[GTP_INPUT_BYTES];
    size_t len;
    bool eof;                  /* end of file (or a read error) */
    bool dropping;             /* the rest of a cut line is being dropped */
} gtp_input;

void gtp_input_init(gtp_input *in, int fd);
/* Reads what is waiting, waiting up to wait_ms for it (0 = not at all,
 * < 0 = until something comes).  Keeps reading while there is room. */
void gtp_input_fill(gtp_input *in, int wait_ms);
/* The next line (without its newline) into out[GTP_MAX_LINE + 1]: 1 when
 * there is one, 0 when no whole line waits, -1 at the end of input. */
int gtp_input_line(gtp_input *in, char *out, bool *too_long);
/* Removes a waiting "# interrupt" line (GoGui's interrupt) from the whole
 * lines read; true if one was there. */
bool gtp_input_interrupt(gtp_input *in);

/* ---------------------------------------------------------- engine.c */

#define GTP_MAX_ARGS 8

/* One command: its id (digits, "" if none), its name, its arguments. */
typedef struct gtp_command {
    char id[24];
    const char *name;
    int argc;
    const char *argv[GTP_MAX_ARGS];
    char text[GTP_MAX_LINE + 1];   /* the preprocessed line the pointers point into */
} gtp_command;

/* A command's handler: the response text in res (no '=' or '?'); true for
 * success, false for an error whose message is res. */
typedef bool (*gtp_handler)(gtp_engine *e, const gtp_command *c, gs_buf *res);

struct gtp_engine {
    gtp_board *board;
    gtp_engine_options opt;
    gtp_view v;                /* the record as last looked at */
    int cursor;                /* moves of the record the controller knows */
    int want_size;             /* boardsize asked; 0 = none */
    double komi;               /* the controller's komi, when has_komi */
    bool has_komi;
    bool quit;
    /* the note of a misplaced stone is written once per move and vertex */
    int noted_move;
    gs_move noted;
    /* the record's move count when `play C pass` handed it a pass, and
     * when C's resignation signal was handed to it as C's resignation,
     * by colour (-1 none) */
    int pushed_pass;
    int pushed_resign[3];
    /* the whole record replayed (score.c), kept while it does not change */
    rules_game *game;
    uint64_t game_version;
    /* the dead-stone estimate of the position at the cursor (score.c) */
    rules_estimate_result *est;
    bool have_est;
    uint64_t est_version;
    int est_cursor;
};

/* ---------------------------------------------------------- common.c */

/* Reads the board's view into e->v (when it changed). */
void gtp_refresh(gtp_engine *e);
/* "b", "black", "w", "white" (any case); false otherwise. */
bool gtp_parse_color(const char *s, gs_color *c);
/* The board size vertices are read on: the record's, else boardsize's,
 * else --size, else 19. */
int gtp_size(const gtp_engine *e);
/* A vertex ("D4", "pass") on a board of size; false if malformed or off
 * the board. */
bool gtp_parse_vertex(const char *s, int size, gs_move *m);
/* "D4" / "pass" into buf[8]. */
void gtp_vertex_name(const gs_move *m, int size, char buf[8]);
/* A line for the person at the board (opt.log), prefixed "goscribe gtp: ". */
void gtp_say(const gtp_engine *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* How a wait for the board ended. */
typedef enum gtp_wait {
    GTP_WAIT_CHANGED = 0,      /* the record changed: look again */
    GTP_WAIT_TIMEOUT,          /* --move-timeout passed */
    GTP_WAIT_INTERRUPTED       /* the controller interrupted */
} gtp_wait;
/* Waits until the record changes, deadline_ms (gs_now_ms clock; 0 = none)
 * passes or the controller interrupts. */
gtp_wait gtp_wait_board(gtp_engine *e, double deadline_ms);
/* The deadline of a wait starting now (0 = none). */
double gtp_deadline(const gtp_engine *e);

/* ------------------------------------------------------------ play.c */
bool gtp_cmd_boardsize(gtp_engine *e, const gtp_command *c, gs_buf *res);
bool gtp_cmd_clear_board(gtp_engine *e, const gtp_command *c, gs_buf *res);
bool gtp_cmd_komi(gtp_engine *e, const gtp_command *c, gs_buf *res);
bool gtp_cmd_play(gtp_engine *e, const gtp_command *c, gs_buf *res);
bool gtp_cmd_genmove(gtp_engine *e, const gtp_command *c, gs_buf *res);
bool gtp_cmd_undo(gtp_engine *e, const gtp_command *c, gs_buf *res);
bool gtp_cmd_loadsgf(gtp_engine *e, const gtp_command *c, gs_buf *res);
/* A wrong board size, the board not seen yet, ...: false with the error in
 * res when the record cannot be followed at all. */
bool gtp_check_size(gtp_engine *e, gs_buf *res);

/* ----------------------------------------------------------- score.c */
bool gtp_cmd_showboard(gtp_engine *e, const gtp_command *c, gs_buf *res);
bool gtp_cmd_final_score(gtp_engine *e, const gtp_command *c, gs_buf *res);
bool gtp_cmd_final_status_list(gtp_engine *e, const gtp_command *c, gs_buf *res);
/* The position after the first k moves of the record (k = nmoves: the
 * record's board itself); false when it cannot be replayed (out of memory,
 * a set-up the rules refuse). */
bool gtp_position_at(gtp_engine *e, int k, gs_position *out);
/* A new game replayed through the first k moves of the record (the caller
 * destroys it); NULL when it cannot be (out of memory, a refused set-up). */
rules_game *gtp_game_at(gtp_engine *e, int k);
/* The record is counted and the controller is at its end: its count holds. */
bool gtp_counted(const gtp_engine *e);

/* ----------------------------------------------------------- gogui.c */
bool gtp_cmd_analyze_commands(gtp_engine *e, const gtp_command *c, gs_buf *res);
bool gtp_cmd_status(gtp_engine *e, const gtp_command *c, gs_buf *res);
bool gtp_cmd_view(gtp_engine *e, const gtp_command *c, gs_buf *res);
bool gtp_cmd_frame(gtp_engine *e, const gtp_command *c, gs_buf *res);
bool gtp_cmd_events(gtp_engine *e, const gtp_command *c, gs_buf *res);

#endif
