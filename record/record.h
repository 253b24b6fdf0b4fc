/* record/record.h: the game record: settled views (track/) -> moves,
 * referee events and the SGF on disk.  The recorder reconciles each settled
 * view with the game (rules_classify), commits moves, flags events, keeps
 * evidence and saves the SGF atomically after every move; its output goes
 * to the SGF file and the event lines (stdout).  The recording loop that
 * feeds it and the hooks of whoever follows the game live are a stage
 * above (session/session.h); the count of its last position is a stage
 * below (score/score.h).
 */
#ifndef RECORD_RECORD_H
#define RECORD_RECORD_H

#include <signal.h>
#include <stdio.h>
#include "core/gs.h"
#include "rules/rules.h"
#include "score/score.h"

#ifdef __cplusplus
extern "C" {
#endif

/* the board's grid in the frames (vision/) and the stones seen on the
 * margin (track/): the recorder only passes them on */
struct vision_grid;
struct track_margin_view;

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
 * holding every committed move.  A save that fails (a full disk) does not
 * stop the recording: the game stays in memory, an event line says "not
 * saved" after every move, every later save tries the file again, and a
 * copy goes to the fallback folder meanwhile; evidence is not written
 * while the SGF cannot be, nor when it would leave the SGF too little
 * room.  record_finish and record_stop fail (GS_ERR_IO, naming the
 * fallback copy) when the last save did not reach the file.
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

/* Where Black sits in the camera's picture: at its bottom edge (near the
 * camera, the default: the picture is the record), at its top edge (far),
 * at its left or right edge. */
typedef enum record_black_side {
    RECORD_BLACK_NEAR = 0,
    RECORD_BLACK_FAR,
    RECORD_BLACK_LEFT,
    RECORD_BLACK_RIGHT
} record_black_side;


typedef struct record_options {
    int size;                 /* board size; 0 = from the first position */
    double komi;              /* SGF points; used when has_komi */
    bool has_komi;            /* false: 7.5, or 0 with handicap */
    gs_color to_move;         /* side to move at the start; GS_EMPTY = infer */
    const char *sgf_path;     /* file rewritten after every move; NULL = none */
    const char *evidence_dir; /* NULL = next to sgf_path (X.sgf -> X.evidence);
                                 "" = keep no evidence */
    const char *fallback_dir; /* where the SGF goes while sgf_path cannot be
                                 written (a full disk): NULL = the evidence
                                 folder's parent when it is on another file
                                 system than the SGF, else $TMPDIR or /tmp */
    /* How the recorder writes its files (the SGF, the fallback copy, the
     * evidence): replace path with data atomically, or fail with
     * GS_ERR_IO and errno set to the cause (ENOSPC: disk full).  NULL =
     * gs_file_write_atomic; tests inject a full disk here. */
    gs_status (*write_file)(void *user, const char *path, const void *data, size_t len, gs_error *err);
    void *write_file_user;
    bool resume;              /* continue the game already in sgf_path */
    bool json;                /* event lines as JSON objects */
    FILE *out;                /* where event lines go; NULL = nowhere */
    /* game information for the SGF root (copied at record_create; NULL or
     * "" = not given): PB/BR, PW/WR, EV, RO, PC, and the table as GN */
    const char *black, *white;
    const char *black_rank, *white_rank;
    const char *event, *round, *place, *table;
    bool count_anyway;        /* count the last view even when the game did
                                 not end (no two passes, resignation, end
                                 command or ruling, end signals): by
                                 default such a record gets no RE */
    bool reopen;              /* resume: a file that already has RE is
                                 reopened (RE, TB/TW and the count words
                                 removed); without it such a file is
                                 refused */
    /* Where Black sat in the camera's picture and whether someone said so
     * (--black-side) or it is the default: the record states it (a line
     * at the start, the root's GSBS[SIDE:given|default] and a line of its
     * comment).  session_run sets it from its own black_side. */
    record_black_side black_side;
    bool black_side_given;
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
    int64_t unix_ms;      /* time of play by the source's clock (Unix ms) */
    char text[640];       /* one readable line (a count with its doubt is the longest) */
    char evidence[64];    /* evidence file prefix ("" when none kept) */
    /* a flag's view as it was seen (for a violation corrected since, the
     * view that showed it, not the corrected one) */
    bool have_seen;
    gs_position seen;
} record_event;

record *record_create(const record_options *opt, gs_error *err);
void record_destroy(record *r);

/* The time of play of the views that follow, by the source's own clock
 * (Unix ms; < 0 = unknown, then the wall clock is taken): GSTM of the moves
 * committed from them, the date of the game. */
void record_set_clock(record *r, int64_t unix_ms);

/* Where the board is in the frames that follow (the tracker's grid) and
 * how the picture is turned to the record (see record_black_side): the
 * evidence frames then ring the point an event concerns.  grid NULL: not
 * known (no ring). */
void record_set_view(record *r, const struct vision_grid *grid, record_black_side side);

/* Takes one settled position seen at t_ms.  frame (may be NULL) is the
 * settled view, kept for evidence.  uncertain (may be NULL) marks points
 * that could not be read (size*size bytes, non-zero = unknown: they are
 * taken from the current record).  GS_ERR_IO when the SGF cannot be
 * written (the game state is kept). */
gs_status record_observe(record *r, const gs_position *pos, const uint8_t *uncertain,
                           double t_ms, const gs_image *frame, gs_error *err);

/* A settled view with what the tracker knows of how it was seen.  A view
 * that shows an irregular change (a stone out of turn, stones lifted that
 * were not captured, a stone moved) and is undone by the next view is a
 * real event when it was seen surely: hand-free (`clear`) and every point
 * that differs from the record read with a confidence of at least
 * RECORD_SURE.  Then it is flagged even though the board is back, with the
 * frames of the view that showed it as evidence; the flag says it was
 * corrected and after how long, and the record keeps the game as played.
 * A change seen less surely and undone is taken as a misread (a note
 * names its lowest confidence).  record_observe is this with no
 * confidences: every undone change is taken as a misread. */
/* (on the renders of scripts/eval-record.sh, 25 games: corrected
 * violations were seen with 0.73 or more, undone misreads with 0.57 at
 * most; between them) */
#define RECORD_SURE 0.65
typedef struct record_view {
    const gs_position *pos;     /* the view as read */
    const uint8_t *uncertain;   /* as record_observe's (NULL = every point read) */
    const float *confidence;    /* size*size reading confidences 0..1
                                   (vision_detect_frame); NULL = unknown */
    bool clear;                 /* nothing reached in from outside the board
                                   (track_hands): a hand-free view */
    const uint8_t *unsure;      /* the reader's doubt (vision_reading.unsure:
                                   1 = read with doubt); NULL = none known */
    const uint8_t *second;      /* ... and each point's next likeliest colour
                                   (gs_color values): a count of the last
                                   view (--count-anyway) gives the range of
                                   its result over them, as `count` does */
    const float *second_p;      /* ... and how likely each is: one under
                                   SCORE_PLAUSIBLE is left out of that range,
                                   as `count` leaves it; NULL = none */
} record_view;

gs_status record_observe_view(record *r, const record_view *v, double t_ms, const gs_image *frame, gs_error *err);

/* Commands from the operator (stdin): a pass / resignation by c
 * (GS_EMPTY = the side to move), end of game.  A pass of the side not to
 * move is said before the other side's last stone was seen settled (a
 * player passes right after the opponent's move): it is kept (a note
 * says so) and committed as that side's next move, when it is its turn,
 * or as the pass that a view showing the other side's stones in a row
 * then needs (no double move: the pass was announced). */
gs_status record_pass(record *r, gs_color c, double t_ms, gs_error *err);
gs_status record_resign(record *r, gs_color c, double t_ms, gs_error *err);

/* A remark for the log only (camera lost, board found again, the clock):
 * a line, never the SGF (internal diagnostics stay out of the record). */
gs_status record_note(record *r, const char *code, const char *text, double t_ms, gs_error *err);
/* Words someone means for the record (the operator's `note TEXT`, a GTP
 * controller's remark): a note line as above and a comment on the SGF's
 * last node, saved.  GS_ERR_IO when the save fails. */
gs_status record_comment(record *r, const char *text, double t_ms, gs_error *err);

/* The source gave no picture from from_ms to to_ms (Unix ms by the
 * source's clock; -1 unknown; to_ms -1 also when it had not come back by
 * the end): a camera unplugged, a network camera's stream dropped.  Moves
 * played meanwhile are read from the board when it is back (a double move
 * flagged as ever).  Noted where a reader of the game looks: a line (code
 * "gap") and, once the game has started, on the SGF's last node (the last
 * move before the gap, or the root) the private property
 * GSGP[FROM/TO] (ISO 8601 times, ".." for one unknown or not come back,
 * doc/sgf.md) and a comment in words, saved.  why: what the source said
 * (shown as it is: it must hold no credentials).  GS_ERR_IO when the save
 * fails. */
gs_status record_gap(record *r, int64_t from_ms, int64_t to_ms, const char *why, double t_ms, gs_error *err);

/* Closes the record at the end of the input: flags captures still
 * pending; a game that ended (two passes, end command or ruling, both
 * players' confirmation signals after the last move) is counted: the
 * stones of the record that the last settled view no longer shows are
 * dead (lifted after the end), TB/TW mark each side's territory and RE
 * and the count in words come from score_check_tree on the record
 * itself, so `goscribe check` of the file says the same.  A resignation or
 * a forfeit keeps its RE; a game that did not end gets no RE (an END
 * event says why) unless count_anyway.  Safe to call twice (the second
 * call does nothing). */
gs_status record_finish(record *r, double t_ms, gs_error *err);

/* The game is over (stdin `end`, a confirmation signal): later views are
 * the dead stones being lifted; the count is taken by record_finish. */
gs_status record_end_game(record *r, double t_ms, gs_error *err);

/* Stops recording without counting (q, SIGINT mid-game): the SGF holds
 * every committed move and no result.  Counts like record_finish if the
 * game had already ended. */
gs_status record_stop(record *r, double t_ms, gs_error *err);

/* A referee's ruling (made in the live referee console of broadcast/,
 * handed in through session_hooks.poll_ruling).  The one ruling enum of the
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
    RECORD_RULING_MOVE,         /* a correction: move `move_number` was at
                                   points[0] (a pass when npoints is 0) */
    RECORD_RULING_RESULT,       /* a correction: the result is `result` */
    RECORD_RULING_COUNT_
} record_ruling_kind;

/* "void", "restore", "remove_dead", "warn", "accept", "pass", "end",
 * "resign", "move", "result" (static storage); NULL for an unknown kind. */
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
    int move_number;           /* MOVE: the move corrected (1..) */
    const char *result;        /* RESULT: an SGF RE value ("B+R", "W+3.5",
                                  "0", "B+T", "W+F", "Void", "?"), "" = none */
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

/* The corrections of a misread move or of a result (MOVE, RESULT rulings),
 * applied by record_apply_ruling while recording and by
 * record_correct_file to a record closed on disk:
 *  - MOVE rewrites move `move_number` in place (its B[]/W[] value, the
 *    colour kept) when every later move stays legal (GS_ERR_USAGE
 *    otherwise, nothing changed); the game goes on from the corrected
 *    record, and until the camera sees the changed points as the record
 *    says they are read as the record (as for VOID).  A count already on
 *    the record (TB/TW, its words and RE) is removed: it counted another
 *    position;
 *  - RESULT sets RE (a result "" removes it); the game is over, and the
 *    end of the recording does not count it again.
 * Both add `words` (who made it and when, as the console writes them) and
 * what the record said before to C[] of the node concerned (the move's,
 * else the last) with GSRL[move|result:COLOR:WB:WW:TIME]. */
gs_status record_correct_file(const char *path, const record_ruling *ru, gs_error *err);

/* Stones seen on the margin outside the lines in a settled view (see
 * track/track.h): end-of-game signals are flagged, each once, as
 * RECORD_EV_SIGNAL events (printed line, SGF GSEV + comment, evidence):
 * code "confirm_signal" (color = the player confirming: a stone of the other
 * colour near a corner) or "resign_signal" (color = the player resigning:
 * two of their own stones).  The recorder only flags them: ending the game
 * or recording a resignation stays with the operator or the referee.
 * A stone taken off the margin again re-arms its signal. */
gs_status record_margin(record *r, const struct track_margin_view *m, double t_ms, gs_error *err);

/* Queries. */
int record_move_count(const record *r);          /* moves + passes */
bool record_started(const record *r);
bool record_finished(const record *r);
gs_color record_to_move(const record *r);
void record_position(const record *r, gs_position *out); /* the record's board */
/* Every event so far; *ev valid until the next call that adds events. */
size_t record_events(const record *r, const record_event **ev);
/* Number of referee events (irregularities) flagged, and of end-of-game
 * signals seen: both are GSEV in the SGF, told apart by their code
 * (record_event_is_signal), so `check` of the file counts them alike. */
int record_referee_count(const record *r);
int record_signal_count(const record *r);
/* Whether an event code (GSEV) is an end-of-game signal
 * ("confirm_signal", "resign_signal"), not a referee event. */
bool record_event_is_signal(const char *code);
/* Final result ("B+1.5", "W+R", "W+F", "" before the end or when the
 * game did not end). */
const char *record_result(const record *r);
/* False when the record was counted with doubt: a game that did not end,
 * counted anyway (count_anyway), whose result a reading of the last view's
 * doubtful points, a chain of unsettled life or its unfinished look can
 * change (its event line and SGF comment give the range: "NOT SURE:
 * Score: ..."); true otherwise. */
bool record_count_sure(const record *r);
/* Whether the last save reached the SGF file: "" when it did, else in a
 * few words what failed and where the game is meanwhile ("disk full: the
 * game is in /tmp/game.fallback.sgf", "... in memory only"), written to buf
 * (len bytes), which is returned. */
const char *record_not_saved(const record *r, char *buf, size_t len);
/* Stones each side has captured so far (over the whole record, across
 * set-up nodes). */
int record_captures(const record *r, gs_color by);
/* The last move or pass committed (false before the first). */
bool record_last_move(const record *r, gs_move *m, int64_t *unix_ms);
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


/* "near", "far", "left", "right"; parse: false if unknown. */
const char *record_black_side_name(record_black_side s);
/* "the bottom edge of the picture (near the camera)", "the top edge ...
 * (far)", "the left edge ...", "the right edge ..." (static). */
const char *record_black_side_words(record_black_side s);
bool record_black_side_parse(const char *name, record_black_side *out);
/* The same turn of a point (u, v) in cells of a board whose last line is
 * m (size - 1), for points off the lines (margin stones). */
void record_orient_uv(record_black_side s, double m, double u, double v, double *ou, double *ov);
/* The record's point for the picture's point (u, v) of a board of `size`
 * (and back): the turn the recording loop applies to every view. */
gs_point record_orient_point(record_black_side s, int size, gs_point picture);
gs_point record_orient_point_back(record_black_side s, int size, gs_point record_pt);


#ifdef __cplusplus
}
#endif
#endif
