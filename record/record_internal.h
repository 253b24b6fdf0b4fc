/* record/record_internal.h: the recorder's state and the pieces its files
 * share; private to record/ (the interface is record/record.h).
 *
 * The recorder's files, one job each:
 *   recorder.c    the object, record_observe and the operator's commands
 *   events.c      the event log, its printed lines, referee flags
 *   evidence.c    the frames and text kept beside each flag
 *   sgf_record.c  the game and its SGF tree: start, resume, moves, set-up
 *                 nodes
 *   store.c       the saves: the SGF first, the fallback copy when its
 *                 file cannot be written
 *   reconcile.c   how a settled view follows from the record (named stages)
 *   absence.c     stones missing from a view: a misread until confirmed
 *   rulings.c     referee rulings and their names
 *   correct.c     corrections of a misread move or a result
 *   corrected.c   irregular changes undone by the next view: corrected
 *                 violations (seen surely) or misreads
 *   undone.c      ... named by what the undone view showed beyond the next
 *   signals.c     end-of-game signals on the margin
 *   play_on.c     new stones after a game-over by passes or `end`: play went on
 *   catch_up.c    a resumed record and a source showing the game's past
 *   run.c         the recording loop and its hooks
 */
#ifndef RECORD_RECORD_INTERNAL_H
#define RECORD_RECORD_INTERNAL_H

#include "record/record.h"
#include "track/track.h"
#include "vision/vision.h"
#include "rules/rules.h"
#include "sgf/sgf.h"

#define REC_NPTS (GS_MAX_SIZE * GS_MAX_SIZE)

/* The SGF tree of the game and where it is saved. */
typedef struct rec_sgf {
    char *path;              /* NULL = no file */
    sgf_tree *tree;
    sgf_node *root, *last;   /* last = node new events attach to */
    /* node of each committed move (index = move number), for late flags */
    sgf_node **move_node;
    int n_move_node, cap_move_node;
} rec_sgf;

/* Where the SGF goes when its own file cannot be written (a full disk):
 * the game stays in memory, each save tries the file again and writes the
 * fallback copy meanwhile. */
typedef struct rec_store {
    char *fallback_dir;      /* the folder of the copy */
    char *fallback_path;     /* the copy, named at the first failure; NULL = none yet */
    bool failing;            /* the last save did not reach sgf.path */
    bool fallback_ok;        /* ... and the copy holds the game (last save) */
    gs_error why, fallback_why; /* the last failures */
    const char *label;       /* "disk full", ... of why */
    size_t sgf_bytes;        /* size of the last SGF text (the room it needs) */
    bool disk_known, same_disk; /* the evidence is on the SGF's disk */
} rec_store;

/* The event log: every event, how many were printed already. */
typedef struct rec_log {
    record_event *ev;
    size_t n, cap, n_printed;
    int n_referee;
} rec_log;

/* Evidence of the flags: the settled views before and after. */
typedef struct rec_evidence {
    char *dir;               /* NULL = none */
    bool ready;              /* directory created */
    char dropped[240];       /* why the last evidence was not kept (a note
                                for the log, added after its event) */
    gs_image *prev_frame, *cur_frame;
    /* where the record's points are in the frames (record_set_view) */
    bool have_grid;
    vision_grid grid;
    record_black_side side;
} rec_evidence;

/* Captured stones still on the board: cell colour and the move number that
 * captured them (0 = none). */
typedef struct rec_ghosts {
    uint8_t color[REC_NPTS];
    int move[REC_NPTS];
    bool flagged[REC_NPTS];
    /* seen still there in a hand-free view after the capturing move */
    bool seen_clear[REC_NPTS];
    /* gone in the current view (forgotten at the next): when that view
     * brings the opponent's next move too, the capture was not finished
     * before it (a missed capture, if it was seen_clear) */
    bool lifted[REC_NPTS];
} rec_ghosts;

/* A settled view kept as the evidence of a later flag (a change undone by
 * the next view is flagged then): the view before it and the view itself,
 * owned copies (NULL = none), their times, and the view as seen. */
typedef struct rec_kept_view {
    gs_image *before, *view;
    double t_before, t;
    gs_position seen;
} rec_kept_view;

/* How the current view was seen (record_observe_view): hand-free or not,
 * and each point's reading confidence when known. */
typedef struct rec_seen {
    bool known;              /* confidences given */
    bool clear;              /* nothing reached in from outside */
    float conf[REC_NPTS];
    bool doubt_known;        /* the reader's doubt given (record_view.unsure) */
    uint8_t unsure[REC_NPTS];
    gs_color second[REC_NPTS];
    float second_p[REC_NPTS]; /* ... how likely each second is (1 when not given) */
} rec_seen;

/* Stones of the record seen empty with no capture explaining it: a misread
 * or a hand/shadow until confirmed (settled views in a row it has been
 * missing, time and move number when it was first missed). */
typedef struct rec_absences {
    int views[REC_NPTS];
    double t0[REC_NPTS];
    int move[REC_NPTS];
    bool flagged[REC_NPTS];  /* already flagged by another event */
    /* first missed in a sure view (hand-free, the point read empty with
     * RECORD_SURE confidence): a stone lifted, not a misread, even if it
     * comes back; kept = that view, the evidence when it is put back */
    bool sure[REC_NPTS];
    float conf[REC_NPTS];
    rec_kept_view kept;
} rec_absences;

/* Irregular views: the last one flagged (not flagged twice), and one
 * waiting for the next view to confirm it (two in a row: the record
 * follows the board). */
typedef struct rec_irregular {
    bool have_flagged;
    gs_position flagged_obs;
    bool have_pending;
    gs_position pending_obs;
    /* the pending view was seen surely (see record_view), its lowest
     * confidence among the changed points (-1 unknown), and the view kept:
     * flagged as corrected when the next view undoes it */
    bool pending_sure;
    float pending_conf;
    rec_kept_view pending_kept;
    /* an illegal move (ko retake, suicide) seen unsurely: flagged only when
     * the next view shows the same (the views agree), else a misread */
    bool have_doubted;
    gs_position doubted_obs;
    /* while a confirmed view is followed: what it rests on, for the flags
     * ("seen at 01:26.6 with lowest confidence 0.95, and in the next
     * view"); "" otherwise */
    char basis[96];
} rec_irregular;

/* Stones seen on the margin (record_margin), followed from clear view to
 * clear view: a signal is a stone that appeared during play (not there in
 * the previous clear view, nor at the first) and was held for several
 * settled views. */
typedef struct rec_margin_blob {
    track_margin_stone s;
    int views;               /* clear views in a row it was seen in */
    int move;                /* moves recorded when it appeared */
    double t0;               /* when it appeared */
    bool baseline;           /* there at the first clear view: an object */
    bool flagged;            /* part of a signal already flagged */
} rec_margin_blob;

typedef struct rec_margin {
    bool started;            /* the first clear view was seen */
    int n;
    rec_margin_blob b[TRACK_MARGIN_MAX];
    /* the players' sides: votes per colour (index gs_color) and side, one
     * per stone played from a view in which arms crossed the margin on one
     * side (a player reaches in from their own side) */
    int votes[3][4];
    int moves_seen;          /* moves recorded at the last clear view */
    gs_position board;       /* the board seen then (when started) */
    track_margin_view raw;   /* that view's margin as seen, before any drop */
} rec_margin;

struct record {
    record_options opt;
    int size;
    /* the game */
    rules_game *game;
    bool started, finished;
    bool ended;              /* end / two passes / resign: no more moves */
    bool to_move_guessed;
    gs_color resigned;
    bool forfeit;            /* lost on a second warning: no count */
    bool result_ruled;       /* RE set by a correction: no count either */
    char result[24];
    int move_offset;         /* moves recorded before the last resync */
    int last_capture_move;   /* number of the last move that captured */
    /* the views */
    gs_position last_obs;    /* last settled view, as seen */
    bool have_last_obs;
    double prev_t, cur_t;    /* time of the view before, and of now */
    /* points a referee ruling corrected in the record and the board has not
     * followed yet: read as the record says until it does */
    bool fix_pending[REC_NPTS];
    rules_classification *cls;  /* big: kept on the heap */
    /* the first failure that could not be returned where it happened (an
     * SGF edit or the event log out of memory, a count that failed): the
     * record lacks something; every save reports it (GS_OK = none) */
    gs_error fail;
    rec_sgf sgf;
    rec_store store;
    rec_log log;
    rec_evidence evid;
    rec_ghosts ghost;
    rec_absences absent;
    rec_irregular irr;
    rec_seen seen;
    /* end-of-game signals already flagged, by colour (index gs_color) */
    bool confirm_seen[3], resign_seen[3];
    rec_margin margin;
    /* the game information of the options, copied (the caller's strings
     * need not outlive record_create) */
    char black[128], white[128], black_rank[32], white_rank[32];
    char event[128], round[64], place[128], table[64];
    /* the source's clock: time of play of the current view (Unix ms, -1
     * unknown: the wall clock is taken) */
    int64_t clock_ms;
    /* stones captured in games the record restarted from (set-up nodes) */
    int captures_before[3];
    /* the final count (score_check_tree of the record), for the JSON of
     * its event */
    bool have_count;
    rules_count count;
    int count_handicap, count_warnings[3];
    /* a count of the last view as the end (count_anyway) that is not
     * sure: its doubt said (record_count_sure) */
    bool count_unsure;
    /* passes announced (record_pass) by a side whose turn it was not yet:
     * the other side's last stone not yet seen settled; each is that
     * side's next move (rec_announced_passes, or a pass a view's stones
     * out of alternation need: commit_plan), by colour */
    int announced_pass[3];
    /* passes the players said (announced, typed, ruled) in a row at the
     * record's end: two end the game; a pass inferred from the board (a
     * colour's second stone in a row) is no player's word and ends nothing */
    int said_passes;
    /* the game ended by two passes or the operator's `end`, not by a
     * result: a view showing new stones after it means play went on
     * (rec_play_went_on); the first such view waits for the next one */
    bool may_go_on;
    bool have_went_on;
    gs_position went_on_obs;
    int ended_at;            /* moves recorded when the game ended */
    /* resumed: the record's positions after each of its moves and set-up
     * nodes (past[0] the start, past[npast-1] now), while the source may
     * still be showing the game as it was (a video replayed from its
     * start): views of the past are skipped (catch_up.c) */
    bool catching_up;
    struct rec_past *past;   /* (catch_up.c) */
    int npast, cap_past;
    bool said_catching_up;   /* the first view of the past was noted */
    /* the last move or pass committed */
    bool have_last_move;
    gs_move last_move;
    int64_t last_move_ms;
};

/* The time of play now: the source's clock, else the wall clock. */
int64_t rec_now_ms(const record *r);

/* ---------------------------------------------------------- small tools */
/* "B", "W", "-" */
const char *rec_color_letter(gs_color c);
/* "MM:SS.d" of a frame time */
void rec_fmt_time(double t_ms, char buf[24]);
/* moves + passes recorded, across resyncs */
int rec_game_moves(const record *r);
bool rec_pos_equal(const gs_position *a, const gs_position *b);
/* "aa bb cc": the SGF points of a list, as long as it fits len */
void rec_points_text(const gs_point *pts, int n, char *buf, size_t len);
/* "2 black stones (D17, D15)", "2 stones (black D17, white O17)": the
 * stones at pts as the record rec holds them, each named. */
void rec_stones_words(const record *r, const gs_position *rec, const gs_point *pts, int n, char *buf, size_t len);
/* Keeps e as r->fail when st failed and nothing was kept yet. */
void rec_check(record *r, gs_status st, const gs_error *e);

/* ------------------------------------------------------------ events.c */
/* Appends an event (time r->cur_t), keeps evidence for referee events and
 * signals; printed later by rec_events_print.  NULL when out of memory
 * (the failure is kept in r->fail and reported by the next save). */
record_event *rec_event_add(record *r, record_event_kind kind, const char *code, int move_number, gs_color color,
                            gs_point pt, const char *fmt, ...) __attribute__((format(printf, 7, 8)));
/* Prints the events not printed yet (after the save: a printed move is
 * always in the file). */
void rec_events_print(record *r);
/* A referee event: line, evidence, SGF GSEV + comment on the node of the
 * move concerned; one irregularity seen in several views is flagged once. */
/* A flag or a signal appended with its evidence (flag.c): the frames kept,
 * or a note saying why not. */
record_event *rec_event_kept(record *r, record_event_kind kind, const char *code, int move_number, gs_color color,
                             gs_point pt, const char *text);
void rec_flag(record *r, const char *code, int move_number, gs_color c, gs_point pt, const char *words,
              const char *detail);

/* ---------------------------------------------------------- evidence.c */
/* Saves the before/after frames of an event, its point pt (if on the
 * board and the grid is known) ringed on both; fills prefix ("" if none). */
void rec_evidence_keep(record *r, int move_number, const char *code, gs_point pt, size_t index, char prefix[64]);

/* -------------------------------------------------------- sgf_record.c */
/* Saves the SGF (when there is a file) and prints the pending lines.  A
 * file that cannot be written does not fail it (the game is kept, a note
 * says so, the fallback copy is written): r->fail if any, else GS_OK. */
gs_status rec_save(record *r, gs_error *err);
/* The last save of the record: rec_save, then GS_ERR_IO naming the
 * fallback copy when the file could not be written. */
gs_status rec_save_final(record *r, gs_error *err);
/* Writes a file of the record (opt.write_file or gs_file_write_atomic);
 * on failure *cause is errno's reason (0 unknown). */
gs_status rec_write_file(const record *r, const char *path, const void *data, size_t len, int *cause,
                         gs_error *err);
/* On a resume: a note when a fallback copy of this game (by name) holds
 * more moves than the file resumed. */
void rec_store_check_fallback(record *r);
/* True when dir is on the file system of sgf_path's folder (unknown: true). */
bool rec_same_disk(const char *sgf_path, const char *dir);
/* The default fallback folder for a record (see record_options); NULL when
 * out of memory. */
char *rec_fallback_dir_default(const char *sgf_path, const char *evidence_dir);
sgf_node *rec_node_of_move(record *r, int move_number);
/* A fresh rules game from a playable position (the recorder's own set-up:
 * the first view, a resync). */
gs_status rec_new_game_from(record *r, const gs_position *pos, gs_color to_move, int handicap, gs_error *err);
/* view without its groups without liberties (a misread can show one):
 * what both the game and the SGF's set-up take.  Returns the stones left
 * out. */
int rec_playable(const gs_position *view, gs_position *out);
/* The stones of view left out of playable (no liberties there) still lie
 * on the board: ghosts, already told of, read as the empty points they are
 * in the game until they are lifted (else each later view would show them
 * as new stones); moves: the move they count from. */
void rec_keep_left_out(record *r, const gs_position *view, const gs_position *playable, int moves);
gs_status rec_start_game(record *r, const gs_position *pos, gs_error *err);
gs_status rec_resume_game(record *r, gs_error *err);
/* The game rebuilt from the record's own tree (after a correction changed
 * a move in it): moves, set-up nodes, each move's node, the warnings. */
gs_status rec_replay_tree(record *r, gs_error *err);
/* Commits one move (already checked legal) to the game and the SGF. */
gs_status rec_commit_move(record *r, gs_color c, gs_point p, bool pass, bool announced, gs_error *err);
/* The record follows obs: a setup node (AB/AW/AE), the game restarted from
 * it with the same side to move.  irregular: a note says why (else a
 * referee's correction: the ruling says why). */
gs_status rec_resync_to(record *r, const gs_position *obs, bool irregular, gs_error *err);
/* r->result as RE on the root. */
void rec_set_result(record *r);

/* ---------------------------------------------------------- recorder.c */
/* A pass by c (GS_EMPTY = the side to move); a pass of the side not to
 * move: the other side passed first. */
gs_status rec_commit_pass(record *r, gs_color c, gs_error *err);
/* The passes announced before their turn whose side is now to move,
 * committed (and saved when any was). */
gs_status rec_announced_passes(record *r, gs_error *err);
/* c resigns / the game is over (how: "" or " (referee)", in the line). */
void rec_resign(record *r, gs_color c, const char *how);
void rec_end(record *r, const char *how);

/* ---------------------------------------------------------- catch_up.c */
/* The record's position now, kept as one of the resumed game's past
 * (false when out of memory: the catch-up is then given up). */
bool rec_past_keep(record *r);
/* While catching up on a resume: true when the view (pos, its unread
 * points uncertain, may be NULL) shows the game as it was before the
 * record's last move, nearer to it than to the record now: skipped.  The
 * first view that does not ends the catch-up (a note says so). */
bool rec_catch_up(record *r, const gs_position *pos, const uint8_t *uncertain);

/* ----------------------------------------------------------- play_on.c */
/* After a game-over that may be undone (two passes, `end`): *on when obs,
 * with the view before it, shows new stones (play went on: the game is
 * open again, a note says so, obs is to be judged as any view). */
gs_status rec_play_went_on(record *r, const gs_position *obs, bool *on, gs_error *err);
/* At the end: new stones seen after the game-over in the last view only
 * are said, not taken. */
void rec_play_on_unconfirmed(record *r);

/* --------------------------------------------------------- reconcile.c */
/* How obs follows from the record: commit, flag, hold or follow (see the
 * file).  at_end: no later view will come, so confirm now. */
gs_status rec_classify_and_commit(record *r, const gs_position *obs_in, bool at_end, gs_error *err);
/* The move an event of the referee belongs to (base_move: the number of
 * the view's first new move). */
int rec_event_move(const record *r, const rules_event *ev, int base_move);
/* No pending view any more (its kept frames freed). */
void rec_clear_pending(record *r);
/* Ghosts (captured stones still seen) in out read as the empty points
 * they are in rec while they are lifted; lifted ones are forgotten (not
 * those on points not read: uncertain, may be NULL). */
void rec_ghosts_clean(record *r, const gs_position *rec, const uint8_t *uncertain, gs_position *out);
/* Flags the ghosts not flagged yet as missed captures ("... still on the
 * board <why>"); not those lifted in the current view. */
void rec_ghosts_flag(record *r, const char *why);
/* The current view brings move next_move: the ghosts lifted only in this
 * view, after a hand-free view had shown them still there, were lifted
 * with it, not before it: flagged as missed captures. */
void rec_ghosts_flag_lifted(record *r, int next_move);

/* ------------------------------------------------------------ correct.c */
/* record_apply_ruling of a MOVE or RESULT ruling (record.h). */
gs_status rec_apply_correction(record *r, const record_ruling *ru, gs_error *err);

/* ----------------------------------------------------------- absence.c */
/* Holds stones missing from obs (obs is changed to hold them in place when
 * that makes a plain view), confirms the ones gone long enough. */
gs_status rec_hold_absences(record *r, gs_position *obs, double t_ms, gs_error *err);
gs_status rec_confirm_absences(record *r, const gs_position *obs, bool force, double t_ms, gs_error *err);
bool rec_any_absent(const record *r);

/* ---------------------------------------------------------- corrected.c */
/* A view changing more points than this at once shows a disturbance (a
 * hand the hand finder missed, a board knocked), not a stone or two put or
 * lifted: never sure. */
#define REC_SURE_MAX_CHANGES 4
/* Whether the changes of obs from the record were seen surely (the current
 * view hand-free, at most REC_SURE_MAX_CHANGES points changed, each read
 * with RECORD_SURE confidence);
 * *minconf (may be NULL) gets the lowest confidence among them (1 when no
 * point changed, -1 when confidences are unknown). */
bool rec_view_sure(const record *r, const gs_position *obs, float *minconf);
/* The current view (frames, times, last_obs) into k / k freed (NULL safe
 * for its frames). */
void rec_kept_take(record *r, rec_kept_view *k);
void rec_kept_free(rec_kept_view *k);
/* A referee flag whose evidence and time are those of the kept view. */
void rec_flag_kept(record *r, const rec_kept_view *k, const char *code, int move_number, gs_color c, gs_point pt,
                   const char *words, const char *detail);
/* The pending irregular view was undone by the current one: flagged as a
 * corrected violation when it was seen surely, else a note says it was
 * taken as a misread.  The record is not changed. */
void rec_pending_undone(record *r);
/* ------------------------------------------------------------ undone.c */
/* A pending view undone by the next one, named by what it showed beyond
 * that view (double move, wrong capture, stone removed, moved stone): the
 * flag waits in here until the view's moves are committed (it may belong
 * to one of them). */
typedef struct rec_undone {
    bool ready;              /* a flag to give */
    char code[24];
    int move;
    gs_color color;
    gs_point pt;
    double after_s;          /* undone this long after it was seen */
    char words[480], detail[80];
    rec_kept_view kept;      /* the pending view's frames (owned) */
    /* the stones of the record it showed lifted: named by this flag, not
     * flagged again when their absence ends (absence.c) */
    int nlift;
    gs_point lift[REC_SURE_MAX_CHANGES];
} rec_undone;
/* Judges the pending view against obs (r->cls: obs's classification, not
 * committed yet): true when it was seen surely and its shape names the
 * violation (u filled, the pending view's frames moved into it). */
bool rec_undone_judge(record *r, const gs_position *obs, rec_undone *u);
/* Gives u's flag (if any) and frees its frames. */
void rec_undone_flag(record *r, rec_undone *u);

/* Stones held as absent and seen back in place (idx, n): those first missed
 * surely were lifted and put back: flagged (wrong capture beside the last
 * move of the other colour, else a stone removed), corrected. */
void rec_absences_undone(record *r, const int *idx, int n);

#endif
