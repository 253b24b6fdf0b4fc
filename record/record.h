/* record/record.h: the game record: settled views (track/) -> moves,
 * referee events and the SGF on disk.  Its output goes to the SGF file, the
 * event lines (stdout), and through record_hooks to whoever follows the
 * game live (broadcast/, plugged in by cli/).
 *
 *   record       the recorder: reconciles each settled view with the game
 *                (rules_classify), commits moves, flags events, keeps
 *                evidence, saves the SGF atomically after every move
 *   record_run   the recording loop: capture source -> track -> record,
 *                with operator commands and hooks (record_hooks) for
 *                whoever watches: the broadcast plugs in there from cli/
 */
#ifndef RECORD_RECORD_H
#define RECORD_RECORD_H

#include <signal.h>
#include <stdio.h>
#include "core/gs.h"
#include "capture/capture.h"
#include "vision/vision.h"
#include "track/track.h"
#include "rules/rules.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================== */
/* record: keeps the record of a game from settled positions.
 *
 * The recorder takes the settled board positions the tracker sees, asks the
 * rules engine's referee (rules_classify) how each follows from the game so
 * far, commits the legal moves, and flags everything else (double move,
 * wrong/missed capture, moved stone, ko retake, ...).  Every event is
 *   - printed live as one readable line (or one JSON object per line),
 *   - written into the SGF (GSEV + comment on the move's node),
 *   - kept as evidence: the frames before and after as PNG, in a folder
 *     next to the SGF (game.sgf -> game.evidence/).
 * The SGF file is rewritten atomically (temp + fsync + rename) after every
 * committed move, so killing the process at any moment leaves a valid file
 * holding every committed move.
 *
 * Start anywhere: stones already on the first settled view become setup
 * stones (only black stones, 2..9 of them: handicap HA), and the side to
 * move is inferred from the counts unless given.  A capturing move whose
 * captured stones are lifted one by one over several views is one move; a
 * capture still on the board when the opponent plays is a missed capture.
 *
 * Ownership: record_create returns an object freed by record_destroy
 * (NULL safe).  Frames passed in are copied when kept.  Event structs are
 * plain data owned by the recorder (valid until destroy).
 */

typedef struct record record;

typedef struct record_options {
    int size;                 /* board size; 0 = from the first position */
    double komi;              /* SGF points; used when has_komi */
    bool has_komi;            /* false: 7.5, or 0 with handicap */
    gs_color to_move;         /* side to move at the start; GS_EMPTY = infer */
    const char *sgf_path;     /* file rewritten after every move; NULL = none */
    const char *evidence_dir; /* NULL = next to sgf_path (X.sgf -> X.evidence);
                                 "" = keep no evidence */
    bool resume;              /* continue the game already in sgf_path */
    bool json;                /* event lines as JSON objects */
    FILE *out;                /* where event lines go; NULL = nowhere */
    const char *black, *white;/* player names (PB/PW), may be NULL */
} record_options;

void record_options_init(record_options *o);

typedef enum record_event_kind {
    RECORD_EV_START = 0,   /* first position taken (setup / handicap) */
    RECORD_EV_MOVE,        /* a move committed */
    RECORD_EV_PASS,
    RECORD_EV_RESIGN,
    RECORD_EV_REFEREE,     /* an irregularity flagged (see code) */
    RECORD_EV_SIGNAL,      /* an end-of-game signal seen off the board */
    RECORD_EV_NOTE,        /* camera lost/back, board found again, ... */
    RECORD_EV_END,         /* game ended (how in text) */
    RECORD_EV_COUNT,       /* final count, result in text */
    RECORD_EV_RULING       /* a referee ruling applied (record_apply_ruling) */
} record_event_kind;

typedef struct record_event {
    record_event_kind kind;
    char code[32];        /* "move", "pass", "double_move", "missed_capture", ... */
    int move_number;      /* the move it belongs to (0 = before the first) */
    gs_color color;
    gs_point point;       /* the move / first point concerned; {-1,-1} if none */
    double t_ms;          /* frame time */
    char text[300];       /* one readable line */
    char evidence[64];    /* evidence file prefix ("" when none kept) */
} record_event;

record *record_create(const record_options *opt, gs_error *err);
void record_destroy(record *r);

/* Takes one settled position seen at t_ms.  frame (may be NULL) is the
 * settled view, kept for evidence.  uncertain (may be NULL) marks points
 * that could not be read (size*size bytes, non-zero = unknown: they are
 * taken from the current record).  GS_ERR_IO when the SGF cannot be
 * written (the game state is kept). */
gs_status record_observe(record *r, const gs_position *pos, const uint8_t *uncertain,
                           double t_ms, const gs_image *frame, gs_error *err);

/* Commands from the operator (stdin): a pass / resignation by c
 * (GS_EMPTY = the side to move), end of game. */
gs_status record_pass(record *r, gs_color c, double t_ms, gs_error *err);
gs_status record_resign(record *r, gs_color c, double t_ms, gs_error *err);

/* A remark worth a line and an SGF comment (camera lost, board re-found). */
gs_status record_note(record *r, const char *code, const char *text, double t_ms, gs_error *err);

/* Ends the game: flags captures still pending, and unless it ended by
 * resignation counts the last settled position (area, Chinese rules) and
 * writes RE and TB/TW.  Safe to call twice (second call does nothing). */
gs_status record_finish(record *r, double t_ms, gs_error *err);

/* The game is over (stdin `end`, a confirmation signal): later views are
 * the dead stones being lifted; the count is taken by record_finish. */
gs_status record_end_game(record *r, double t_ms, gs_error *err);

/* Stops recording without counting (q, SIGINT mid-game): the SGF holds
 * every committed move and no result.  Counts like record_finish if the
 * game had already ended. */
gs_status record_stop(record *r, double t_ms, gs_error *err);

/* A referee's ruling (made in the live referee console of broadcast/,
 * handed in through record_hooks.poll_ruling).  The one ruling enum of the
 * program: broadcast/ uses it as it is. */
typedef enum record_ruling_kind {
    RECORD_RULING_VOID = 0,     /* the move is void: its stone(s) come off */
    RECORD_RULING_RESTORE,      /* stones put back where they were */
    RECORD_RULING_REMOVE_DEAD,  /* dead stones left on the board are removed */
    RECORD_RULING_WARN,         /* a warning only */
    RECORD_RULING_ACCEPT,       /* the move stands */
    RECORD_RULING_PASS,         /* the move is void and counts as a pass */
    RECORD_RULING_END,          /* game over (the count follows) */
    RECORD_RULING_RESIGN,       /* `color` resigns */
    RECORD_RULING_COUNT_
} record_ruling_kind;

/* "void", "restore", "remove_dead", "warn", "accept", "pass", "end",
 * "resign" (static storage); NULL for an unknown kind. */
const char *record_ruling_name(record_ruling_kind k);
/* Reverse of the above; false if unknown. */
bool record_ruling_parse_kind(const char *name, record_ruling_kind *out);

typedef struct record_ruling {
    record_ruling_kind kind;
    gs_color color;            /* side concerned; GS_EMPTY = none / side to move */
    bool warning;              /* gives `color` a warning */
    int npoints;               /* points the ruling concerns */
    const gs_point *points;
    const gs_position *before; /* RESTORE: colours to put back (NULL = none) */
    const char *words;         /* plain words for the SGF comment, may be NULL */
    int64_t unix_ms;           /* when it was made (wall clock) */
} record_ruling;

/* Applies a ruling to the game and writes it into the SGF, then saves.
 *  - VOID / REMOVE_DEAD / PASS take the stones at `points` off the record
 *    and RESTORE puts them back (a setup node AB/AW/AE after the last node,
 *    the game continuing from it with the same side to move); the board
 *    is then expected to follow: until the camera sees each corrected point
 *    as the record says, the view there is read as the record (no flag);
 *    PASS then records a pass by `color`;
 *  - a warning is counted (rules_game_add_warning: one stone at the count);
 *    a second warning loses the game: RE[W+F] / RE[B+F] (forfeit) with a
 *    comment, and the game is over;
 *  - END ends the game like the `end` command, RESIGN resigns `color`.
 * Every ruling adds, on the node it concerns (the setup node, else the last
 * node), `words` to C[] and the private property
 *   GSRL[KIND:COLOR:WARNINGS_B:WARNINGS_W:TIME]
 * (KIND as record_ruling_name, COLOR B/W/-, warnings after the ruling, TIME
 * the GSTM form YYYY-MM-DDTHH:MM:SS.mmmZ), and a RECORD_EV_RULING event.
 * Before the first settled view there is no game: the ruling is ignored
 * (a note says so).  GS_ERR_IO when the SGF cannot be written. */
gs_status record_apply_ruling(record *r, const record_ruling *ru, double t_ms, gs_error *err);

/* Stones seen on the margin outside the lines in a settled view (see
 * track/track.h): end-of-game signals are flagged, each once, as
 * RECORD_EV_SIGNAL events (printed line, SGF GSEV + comment, evidence):
 * code "confirm_signal" (color = the player confirming: a stone of the other
 * colour near a corner) or "resign_signal" (color = the player resigning:
 * two of their own stones).  The recorder only flags them: ending the game
 * or recording a resignation stays with the operator or the referee.
 * A stone taken off the margin again re-arms its signal. */
gs_status record_margin(record *r, const track_margin_view *m, double t_ms, gs_error *err);

/* Queries. */
int record_move_count(const record *r);          /* moves + passes */
bool record_started(const record *r);
bool record_finished(const record *r);
gs_color record_to_move(const record *r);
void record_position(const record *r, gs_position *out); /* the record's board */
/* Every event so far; *ev valid until the next call that adds events. */
size_t record_events(const record *r, const record_event **ev);
/* Number of referee events (irregularities) flagged. */
int record_referee_count(const record *r);
/* Final result ("B+1.5", "W+R", "W+F", "" before the end). */
const char *record_result(const record *r);
/* Warnings given to c so far (referee rulings). */
int record_warnings(const record *r, gs_color c);
/* The game is over (end, two passes, resignation, forfeit) but may not be
 * finished (counted) yet. */
bool record_ended(const record *r);
/* The settled views kept as evidence of the latest events: the one before
 * the last and the last (NULL when none).  Valid until the next observe. */
void record_frames(const record *r, const gs_image **before, const gs_image **after);
/* The record as SGF text (malloc'd, NUL-terminated; caller frees).
 * GS_ERR_USAGE before the game started. */
gs_status record_sgf_text(const record *r, char **out, size_t *len, gs_error *err);


/* ================================================================== */
/* record_run: the recording loop: capture source -> tracker ->
 * recorder, with operator commands and stop requests between frames.
 * Used by `goscribe record`, `goscribe bench record` and the tests.
 *
 * Operator commands (one per line, from the poll callback): q | quit
 * (stop), end (game over: the next settled view after the dead stones are
 * lifted is counted), pass [B|W], resign B|W.
 * Whoever follows the recording live (the broadcast, plugged in by cli/)
 * does it through record_hooks: the loop does not know who it is.
 * Ownership: the caller owns the source and the hooks' user data; nothing
 * here keeps them.
 */

/* The hooks of the recording loop, a small table of callbacks; each may be
 * NULL.  They are called from the loop's thread, between frames, and must
 * not block (a broadcast copies and returns).  The record and the events
 * passed in are valid for the call only. */
typedef struct record_hooks {
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
} record_hooks;

typedef struct record_run_options {
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
    /* Called about once a second of processing with frames done / total
     * (-1 unknown). NULL = none. */
    void (*progress)(void *user, long frame, long total);
    void *progress_user;
    /* Sleep this long after each frame (a slow source for demos and the
     * kill test). 0 = none. */
    int frame_delay_ms;
    /* Optional: only decode, no tracking (bench baseline). */
    bool decode_only;
    /* Whoever follows the recording live (see record_hooks); NULL = none. */
    const record_hooks *hooks;
    void *hooks_user;
} record_run_options;

void record_run_options_init(record_run_options *o);

typedef struct record_run_stats {
    long frames;
    double ms_total;            /* wall time of the loop */
    int settled_views;          /* settled views handed to the record */
    int covered_views;          /* ... of which something reached in from outside */
    int full_reads;             /* vision_read calls */
    int moves;                  /* moves + passes in the record */
    int referee_events;
    long skipped_frames;        /* video frames that could not be decoded (skipped, each gap noted) */
    bool have_final;
    gs_position final_pos;      /* the record's last position */
    char result[24];            /* RE ("" if none) */
    const char *stop_reason;    /* "end of input", "q", "SIGINT", ... */
} record_run_stats;

/* Runs the loop until the end of input, a stop command, *stop, or
 * max_frames.  The SGF is final when it returns GS_OK.  GS_ERR_NOBOARD if
 * the board was never seen. */
gs_status record_run(capture_source *src, const record_run_options *o, record_run_stats *stats,
                       gs_error *err);


/* ================================================================== */
/* record_count, record_check: a finished board counted and a recorded game
 * checked, for `goscribe count`, `goscribe check` and `goscribe bench
 * count`.  They sit here, on top of the rules (rules_count_position,
 * rules_estimate_dead, rules_replay), the SGF reader and writer and the
 * reading of a photo (vision_scan), because they are the record's last
 * step: the count of the final position and its RE.
 *
 * Ownership: results are plain data in caller storage (large: allocate
 * them); nothing is kept between calls.
 */

/* What an SGF file gives the count: its final position (the main line
 * replayed through the rules), komi, handicap, result and the final TB/TW
 * marks if any.  Plain data. */
typedef struct record_count_sgf {
    gs_position pos;
    double komi;          /* points; valid when has_komi */
    bool has_komi;
    int handicap;
    char result[64];      /* RE, "" if absent */
    bool has_marks;
    gs_position marks;    /* TB -> GS_BLACK, TW -> GS_WHITE */
} record_count_sgf;

/* Reads path and replays its main line (rules_game_start, then
 * rules_game_apply move by move; repetitions are played and flagged, not
 * refused).  GS_ERR_IO / GS_ERR_FORMAT (an illegal move: its line, number
 * and point) / GS_ERR_NOBOARD (no game, or a size outside 5..25). */
gs_status record_count_load_sgf(const char *path, record_count_sgf *out, gs_error *err);

/* Where the dead stones of a count come from. */
typedef enum record_count_dead {
    RECORD_COUNT_DEAD_AUTO = 0, /* estimated (rules_estimate_dead): an
                                   ESTIMATE for the players to confirm */
    RECORD_COUNT_DEAD_NONE,     /* every stone on the board is alive */
    RECORD_COUNT_DEAD_MARKS,    /* implied by the SGF's final TB/TW marks */
    RECORD_COUNT_DEAD_POINTS    /* the players' list: dead_points */
} record_count_dead;

/* "auto", "none", "marks", "points". */
const char *record_count_dead_name(record_count_dead d);

typedef struct record_count_options {
    const char *input;        /* a photo, GAME.sgf or GRID.txt (by suffix) */
    record_count_dead dead;
    const char *dead_points;  /* DEAD_POINTS: "pd,qd" / "Q16 D4": each names
                                 one stone, its whole chain is dead */
    double komi;              /* points, used when has_komi; else the SGF's
                                 KM, else 7.5 (0 with a handicap) */
    bool has_komi;
    int handicap;             /* < 0: the SGF's HA (0 for other inputs) */
    int size_hint;            /* photo: board size hint, 0 = detect */
    int playouts;             /* DEAD_AUTO: 0 = default (with the time
                                 budget); else run exactly this many */
    uint64_t seed;            /* DEAD_AUTO: 0 = the default fixed seed */
    const char *overlay_path; /* photo only: PNG of the photo with each
                                 side's area and the dead stones drawn */
    const char *sgf_path;     /* SGF of the position with TB/TW, KM and RE */
    long long max_pixels;     /* photo: pixel budget (0 = cvshim_max_pixels(0)) */
} record_count_options;

/* Defaults: dead stones estimated, no komi or handicap given, no output
 * files. */
void record_count_options_init(record_count_options *o);

typedef struct record_count_result {
    const char *source;       /* "sgf", "grid" or "photo" (static) */
    gs_position pos;          /* the board counted */
    uint8_t dead[RULES_MAX_POINTS];  /* row-major, 1 = dead */
    uint8_t seki[RULES_MAX_POINTS];  /* DEAD_AUTO: 1 = alive in seki */
    bool estimate;            /* the dead stones are an estimate */
    rules_estimate_result est;/* valid when estimate */
    rules_count count;
    int handicap;             /* the handicap counted */
    char file_result[64];     /* the SGF's RE, "" if none */
    double ms;                /* reading + dead stones + count (wall) */
    const char *error_file;   /* on failure: the file err is about (to
                                 print before it), or NULL */
} record_count_result;

/* Counts the board of o->input under the Chinese rules (area, in stones)
 * with the dead stones o->dead says, then writes the overlay and the SGF
 * when asked.  GS_ERR_NOBOARD: no board in the photo, no game in the SGF,
 * or a size outside 5..25; GS_ERR_USAGE: an option the input cannot serve
 * (--dead marks without marks, a bad dead point, an overlay without a
 * photo); GS_ERR_IO / GS_ERR_FORMAT / GS_ERR_NOMEM otherwise. */
gs_status record_count_run(const record_count_options *o, record_count_result *out, gs_error *err);

/* The dead-stone estimate of pos (eo NULL = defaults) and then its area
 * count with those stones dead (co NULL = defaults): `count --dead auto`
 * without the reading, the work `goscribe bench count` times. */
gs_status record_count_estimate(const gs_position *pos, const rules_estimate_options *eo,
                                const rules_count_opts *co, rules_estimate_result *est, rules_count *cnt,
                                gs_error *err);

/* Stones in quarters, as the count prints them: 184.5 -> "184 1/2",
 * 0.75 -> "3/4", 12 -> "12", -0.25 -> "-1/4". */
void record_count_stones_format(double stones, char *buf, size_t len);

typedef struct record_check_options {
    double komi;              /* points, used when has_komi; else the file's
                                 KM, else 7.5 */
    bool has_komi;
    rules_ko_policy ko_policy;/* FORBID: every repetition is illegal */
} record_check_options;

typedef struct record_check_result {
    int size;
    size_t moves;             /* main-line moves in the file */
    double komi;              /* the komi counted */
    int handicap;             /* the file's HA */
    char recorded_result[64]; /* the file's RE, "" if none */
    bool recorded_numeric;    /* RE holds a margin (rules_parse_result_points) */
    bool matches_record;      /* ... and the count gives the same margin */
    rules_replay_report report; /* illegal moves, events, the count */
} record_check_result;

/* Replays the main line of the SGF at path under the Chinese rules
 * (rules_replay: illegal moves listed and void) and counts the final
 * position with the dead stones of the last node's TB/TW marks.  Illegal
 * moves are findings, not errors.  GS_ERR_NOBOARD for no game, a size
 * outside 5..25 or a set-up that cannot be replayed; GS_ERR_IO /
 * GS_ERR_FORMAT for the file, GS_ERR_NOMEM. */
gs_status record_check_file(const char *path, const record_check_options *o, record_check_result *out,
                            gs_error *err);

#ifdef __cplusplus
}
#endif
#endif
