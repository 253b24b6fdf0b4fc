/* record/recorder.h: keeps the record of a game from settled positions.
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
 * Ownership: recorder_create returns an object freed by recorder_destroy
 * (NULL safe).  Frames passed in are copied when kept.  Event structs are
 * plain data owned by the recorder (valid until destroy).
 */
#ifndef RECORD_RECORDER_H
#define RECORD_RECORDER_H

#include <stdio.h>

#include "core/gs.h"
#include "record/margin.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct recorder recorder;

typedef struct recorder_options {
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
} recorder_options;

void recorder_options_init(recorder_options *o);

typedef enum recorder_event_kind {
    REC_EV_START = 0,   /* first position taken (setup / handicap) */
    REC_EV_MOVE,        /* a move committed */
    REC_EV_PASS,
    REC_EV_RESIGN,
    REC_EV_REFEREE,     /* an irregularity flagged (see code) */
    REC_EV_SIGNAL,      /* an end-of-game signal seen off the board */
    REC_EV_NOTE,        /* camera lost/back, board found again, ... */
    REC_EV_END,         /* game ended (how in text) */
    REC_EV_COUNT,       /* final count, result in text */
    REC_EV_RULING       /* a referee ruling applied (recorder_apply_ruling) */
} recorder_event_kind;

typedef struct recorder_event {
    recorder_event_kind kind;
    char code[32];        /* "move", "pass", "double_move", "missed_capture", ... */
    int move_number;      /* the move it belongs to (0 = before the first) */
    gs_color color;
    gs_point point;       /* the move / first point concerned; {-1,-1} if none */
    double t_ms;          /* frame time */
    char text[300];       /* one readable line */
    char evidence[64];    /* evidence file prefix ("" when none kept) */
} recorder_event;

recorder *recorder_create(const recorder_options *opt, gs_error *err);
void recorder_destroy(recorder *r);

/* Takes one settled position seen at t_ms.  frame (may be NULL) is the
 * settled view, kept for evidence.  uncertain (may be NULL) marks points
 * that could not be read (size*size bytes, non-zero = unknown: they are
 * taken from the current record).  GS_ERR_IO when the SGF cannot be
 * written (the game state is kept). */
gs_status recorder_observe(recorder *r, const gs_position *pos, const uint8_t *uncertain,
                           double t_ms, const gs_image *frame, gs_error *err);

/* Commands from the operator (stdin): a pass / resignation by c
 * (GS_EMPTY = the side to move), end of game. */
gs_status recorder_pass(recorder *r, gs_color c, double t_ms, gs_error *err);
gs_status recorder_resign(recorder *r, gs_color c, double t_ms, gs_error *err);

/* A remark worth a line and an SGF comment (camera lost, board re-found). */
gs_status recorder_note(recorder *r, const char *code, const char *text, double t_ms, gs_error *err);

/* Ends the game: flags captures still pending, and unless it ended by
 * resignation counts the last settled position (area, Chinese rules) and
 * writes RE and TB/TW.  Safe to call twice (second call does nothing). */
gs_status recorder_finish(recorder *r, double t_ms, gs_error *err);

/* The game is over (stdin `end`, a confirmation signal): later views are
 * the dead stones being lifted; the count is taken by recorder_finish. */
gs_status recorder_end_game(recorder *r, double t_ms, gs_error *err);

/* Stops recording without counting (q, SIGINT mid-game): the SGF holds
 * every committed move and no result.  Counts like recorder_finish if the
 * game had already ended. */
gs_status recorder_stop(recorder *r, double t_ms, gs_error *err);

/* A referee's ruling (from the live referee console, record/serve.h; the
 * kinds are in the same order as serve_ruling_kind). */
typedef enum recorder_ruling_kind {
    REC_RULING_VOID = 0,     /* the move is void: its stone(s) come off */
    REC_RULING_RESTORE,      /* stones put back where they were */
    REC_RULING_REMOVE_DEAD,  /* dead stones left on the board are removed */
    REC_RULING_WARN,         /* a warning only */
    REC_RULING_ACCEPT,       /* the move stands */
    REC_RULING_PASS,         /* the move is void and counts as a pass */
    REC_RULING_END,          /* game over (the count follows) */
    REC_RULING_RESIGN        /* `color` resigns */
} recorder_ruling_kind;

typedef struct recorder_ruling {
    recorder_ruling_kind kind;
    gs_color color;            /* side concerned; GS_EMPTY = none / side to move */
    bool warning;              /* gives `color` a warning */
    int npoints;               /* points the ruling concerns */
    const gs_point *points;
    const gs_position *before; /* RESTORE: colours to put back (NULL = none) */
    const char *words;         /* plain words for the SGF comment, may be NULL */
    int64_t unix_ms;           /* when it was made (wall clock) */
} recorder_ruling;

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
 * (KIND as serve_ruling_name, COLOR B/W/-, warnings after the ruling, TIME
 * the GSTM form YYYY-MM-DDTHH:MM:SS.mmmZ), and a REC_EV_RULING event.
 * Before the first settled view there is no game: the ruling is ignored
 * (a note says so).  GS_ERR_IO when the SGF cannot be written. */
gs_status recorder_apply_ruling(recorder *r, const recorder_ruling *ru, double t_ms, gs_error *err);

/* Stones seen on the margin outside the lines in a settled view (see
 * record/margin.h): end-of-game signals are flagged, each once, as
 * REC_EV_SIGNAL events (printed line, SGF GSEV + comment, evidence):
 * code "confirm_signal" (color = the player confirming: a stone of the other
 * colour near a corner) or "resign_signal" (color = the player resigning:
 * two of their own stones).  The recorder only flags them: ending the game
 * or recording a resignation stays with the operator or the referee.
 * A stone taken off the margin again re-arms its signal. */
gs_status recorder_margin(recorder *r, const margin_view *m, double t_ms, gs_error *err);

/* Queries. */
int recorder_move_count(const recorder *r);          /* moves + passes */
bool recorder_started(const recorder *r);
bool recorder_finished(const recorder *r);
gs_color recorder_to_move(const recorder *r);
void recorder_position(const recorder *r, gs_position *out); /* the record's board */
/* Every event so far; *ev valid until the next call that adds events. */
size_t recorder_events(const recorder *r, const recorder_event **ev);
/* Number of referee events (irregularities) flagged. */
int recorder_referee_count(const recorder *r);
/* Final result ("B+1.5", "W+R", "W+F", "" before the end). */
const char *recorder_result(const recorder *r);
/* Warnings given to c so far (referee rulings). */
int recorder_warnings(const recorder *r, gs_color c);
/* The game is over (end, two passes, resignation, forfeit) but may not be
 * finished (counted) yet. */
bool recorder_ended(const recorder *r);
/* The settled views kept as evidence of the latest events: the one before
 * the last and the last (NULL when none).  Valid until the next observe. */
void recorder_frames(const recorder *r, const gs_image **before, const gs_image **after);
/* The record as SGF text (malloc'd, NUL-terminated; caller frees).
 * GS_ERR_USAGE before the game started. */
gs_status recorder_sgf_text(const recorder *r, char **out, size_t *len, gs_error *err);

#ifdef __cplusplus
}
#endif
#endif
