/* rules/rules.h: the Chinese-rules engine (../shared/RULES.md).
 *
 * Three layers, all exact (this is a recorder's judge, not a playout toy):
 *  1. rules_board: a lean, fast board for playouts and for everything else.
 *     One-point border, exact liberty counts per group (liberty bitsets),
 *     captures (both-sides-without-liberties: the opponent's go, Art. 4),
 *     suicide rejected (Art. 5), positional superko over the whole history
 *     kept by the board (two independent 64-bit Zobrist keys per position,
 *     i.e. 128-bit identity, so a false "repetition" needs a 2^-128 fluke;
 *     Art. 6, Art. 20).  Points on this layer are board indices (int) for
 *     speed: rules_board_index(b, x, y), RULES_PASS for a pass.
 *  2. rules_game: a game (history, side to move, komi, handicap, warnings,
 *     ko policy) built on a board, with full positions kept per move so a
 *     repetition is confirmed by comparing whole boards, never by hash alone.
 *  3. The referee: rules_classify() explains how a newly observed position
 *     follows from the confirmed game (legal moves, or irregular events with
 *     the article of the rules), and rules_count_position() counts a finished
 *     board by area in stones (Art. 9, 11) with the result in words and SGF.
 *
 * Ownership: every create/clone returns an object the caller destroys with
 * the matching destroy(); destroy(NULL) is safe.  Result structs are plain
 * data filled by the callee into caller storage (no pointers to free).
 * Objects are not thread-safe; separate objects may be used from separate
 * threads (there are no globals: Zobrist keys are seeded inside each board).
 *
 * Coordinates: gs_point x = column from the left, y = row from the top,
 * 0-based (SGF "aa" = top-left).  Human coordinates ("Q16") use columns
 * A..T skipping I and rows counted from the bottom.
 *
 * Komi is given in SGF points (KM); one stone = two points.  Default 7.5
 * (3 3/4 stones, current rules); 5.5 (2 3/4 stones, 1988 rules) is the
 * option.
 */
#ifndef GS_RULES_H
#define GS_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/gs.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RULES_MIN_SIZE 5
#define RULES_MAX_SIZE GS_MAX_SIZE
#define RULES_MAX_POINTS (GS_MAX_SIZE * GS_MAX_SIZE)
#define RULES_PASS (-1)
#define RULES_DEFAULT_KOMI 7.5

/* Why a move is (il)legal. */
typedef enum rules_legality {
    RULES_LEGAL = 0,
    RULES_ILLEGAL_OFFBOARD,  /* not a point of this board / bad colour */
    RULES_ILLEGAL_OCCUPIED,  /* a stone is already there (Art. 2) */
    RULES_ILLEGAL_SUICIDE,   /* forbidden point (Art. 5, Art. 19) */
    RULES_ILLEGAL_KO,        /* immediate ko recapture: recreates the position
                                before the opponent's last move (Art. 20.1) */
    RULES_ILLEGAL_SUPERKO    /* recreates any other earlier position (Art. 6;
                                triple ko, eternal life... Art. 20.3) */
} rules_legality;

/* Short English name ("legal", "suicide", "ko", ...), static storage. */
const char *rules_legality_name(rules_legality l);

/* ================================================================ board */

typedef struct rules_board rules_board;

/* New empty board of size 5..25 (NULL if out of range or out of memory).
 * Its history holds the empty position. */
rules_board *rules_board_create(int size);
void rules_board_destroy(rules_board *b);
/* Deep copy (position, groups, history set, hashes). NULL on OOM. */
rules_board *rules_board_clone(const rules_board *b);
/* Copies src into dst without allocating when dst is already big enough
 * (same size and history capacity >= src's): the fast path for playouts.
 * GS_ERR_NOMEM if growing failed (dst unchanged then). */
gs_status rules_board_copy(rules_board *dst, const rules_board *src);
/* Empties the board and its history. */
void rules_board_clear(rules_board *b);

int rules_board_size(const rules_board *b);
/* Index of (x, y), or RULES_PASS if off the board. */
int rules_board_index(const rules_board *b, int x, int y);
/* Inverse of rules_board_index (idx must be a board point). */
gs_point rules_board_point(const rules_board *b, int idx);
/* Colour at idx (GS_EMPTY for an empty point; idx must be a board point). */
gs_color rules_board_at(const rules_board *b, int idx);
/* Number of stones captured so far by each colour (prisoners taken). */
int rules_board_captures(const rules_board *b, gs_color by);

/* Positional superko is on by default.  Off, only the immediate ko
 * recapture is rejected (for callers that want raw speed). */
void rules_board_set_superko(rules_board *b, bool on);

/* Would `c` playing at idx be legal?  Does not change the board. */
rules_legality rules_board_check(const rules_board *b, int idx, gs_color c);
/* Plays c at idx if legal (returns RULES_LEGAL) and removes captures;
 * otherwise returns why and leaves the board unchanged.  Colour order is
 * not enforced here (rules_game does that). */
rules_legality rules_board_play(rules_board *b, int idx, gs_color c);
/* Stones removed by the last successful rules_board_play (indices; valid
 * until the next change of the board). */
int rules_board_last_captured(const rules_board *b, const int16_t **idx);
/* A pass: the position is unchanged and stays in the history. */
void rules_board_pass(rules_board *b);

/* Liberties / stones of the group at idx (0 for an empty point). */
int rules_board_liberties(const rules_board *b, int idx);
int rules_board_group_stones(const rules_board *b, int idx);
/* A representative point of the group at idx (same for every stone of the
 * group until the board changes); -1 for an empty point. */
int rules_board_group_id(const rules_board *b, int idx);

/* Position hash (first Zobrist key) of the current position. */
uint64_t rules_board_hash(const rules_board *b);
/* True when the current position (both keys) occurred before the last
 * change, i.e. the history holds it at least twice. */
bool rules_board_in_history(const rules_board *b, uint64_t h1, uint64_t h2);

void rules_board_get_position(const rules_board *b, gs_position *out);
/* Replaces the position (and restarts the history with it).  GS_ERR_FORMAT
 * if pos has a different size, a bad cell, or a group without liberties. */
gs_status rules_board_set_position(rules_board *b, const gs_position *pos, gs_error *err);
/* Takes every group without liberties off pos, all judged on pos as
 * given (so the order of the points does not choose which of two touching
 * groups goes); what is left any board accepts.  Returns the stones taken
 * off.  For views, which may hold what no board can (a misread stone). */
int rules_position_drop_airless(gs_position *pos);

/* A true single-point eye of c at idx: empty, all neighbours c or edge,
 * and not a false eye (at most one diagonal of the opponent, none on the
 * edge).  Used by playouts to avoid filling their own eyes. */
bool rules_board_is_eye(const rules_board *b, int idx, gs_color c);

/* Uniformly random move among the legal moves of c that do not fill c's own
 * eye (RULES_PASS if none).  *rng is a caller-owned xorshift state (any
 * non-zero seed).  Does not play it. */
int rules_board_random_move(rules_board *b, gs_color c, uint64_t *rng);
/* Plays random moves (rules_board_random_move) starting with `to_move`
 * until two passes in a row or max_moves moves; returns the number of moves
 * (passes included) played.  *last_to_move (if not NULL) gets the side to
 * move at the end. */
int rules_board_playout(rules_board *b, gs_color to_move, int max_moves, uint64_t *rng,
                        gs_color *last_to_move);

/* ================================================================= game */

typedef enum rules_ko_policy {
    RULES_KO_FORBID = 0,  /* every repetition is illegal (default, Art. 6) */
    RULES_KO_FLAG_CYCLE   /* immediate ko recapture stays illegal; a longer
                             cycle (triple ko, eternal life...) is played
                             and flagged so the event can declare no result
                             / draw (Art. 20.3) */
} rules_ko_policy;

typedef struct rules_game rules_game;

/* What happened when a move was tried. */
typedef struct rules_move_result {
    rules_legality legality;  /* RULES_LEGAL if played (also a flagged cycle) */
    bool out_of_turn;         /* colour was not the side to move */
    bool cycle;               /* legal under FLAG_CYCLE but repeats a position */
    int repeats_move;         /* ko/superko/cycle: the move number after which
                                 the repeated position stood (0 = the start) */
    int move_number;          /* 1-based number given to the move, 0 if not played */
    int ncaptured;
    gs_point captured[RULES_MAX_POINTS];
} rules_move_result;

/* New game on an empty size x size board, Black to move, komi 7.5, no
 * handicap.  NULL on bad size (err says why) or OOM. */
rules_game *rules_game_create(int size, gs_error *err);
void rules_game_destroy(rules_game *g);
rules_game *rules_game_clone(const rules_game *g);

int rules_game_size(const rules_game *g);
void rules_game_set_komi(rules_game *g, double komi_points);
double rules_game_komi(const rules_game *g);
void rules_game_set_ko_policy(rules_game *g, rules_ko_policy p);
rules_ko_policy rules_game_ko_policy(const rules_game *g);
/* Warnings received (each costs one stone at the count, Art. 25). */
void rules_game_add_warning(rules_game *g, gs_color c);
int rules_game_warnings(const rules_game *g, gs_color c);

/* Setup before the first move: put a stone (AB/AW).  GS_ERR_USAGE after a
 * move was played, off-board point or an occupied point. */
gs_status rules_game_setup(rules_game *g, gs_color c, gs_point p, gs_error *err);
/* Places n (2..9) handicap stones on the standard star points and gives
 * White the move; records the handicap for the count.  Boards of 7x7 and
 * more.  For stones placed freely use rules_game_setup + set_handicap. */
gs_status rules_game_place_handicap(rules_game *g, int n, gs_error *err);
void rules_game_set_handicap(rules_game *g, int n);
int rules_game_handicap(const rules_game *g);
/* Whose turn it is (after setup with handicap: White). */
void rules_game_set_to_move(rules_game *g, gs_color c);
gs_color rules_game_to_move(const rules_game *g);

/* Starts a game from a record's set-up: every stone of setup (NULL =
 * none; its size must be the game's) at once, so the board checks the whole
 * of it for groups without liberties, then the handicap count and the side
 * to move (first = the record's first mover; GS_EMPTY = White after a
 * handicap of 2 or more, else Black).  The one set-up path of every replay
 * (rules_replay, the recorder's resume, the count of an SGF).
 * GS_ERR_FORMAT for a size mismatch or an impossible set-up. */
gs_status rules_game_start(rules_game *g, const gs_position *setup, int handicap, gs_color first, gs_error *err);
/* Plays or passes m (a pass when m->pass); returns the legality as
 * rules_game_play does (RULES_LEGAL for a pass). */
rules_legality rules_game_apply(rules_game *g, const gs_move *m, rules_move_result *res);

/* Plays a stone.  On an illegal move the game is unchanged (the result
 * says why).  res may be NULL.  Colour need not be the side to move (SGF
 * files may do that); res->out_of_turn says so. */
rules_legality rules_game_play(rules_game *g, gs_color c, gs_point p, rules_move_result *res);
void rules_game_pass(rules_game *g, gs_color c);
void rules_game_resign(rules_game *g, gs_color c);
/* Colour that resigned, GS_EMPTY if none. */
gs_color rules_game_resigned(const rules_game *g);
/* Takes back the last move or pass (replays the history). false if none. */
bool rules_game_undo(rules_game *g);
/* Checks a move without playing it. */
rules_legality rules_game_check(const rules_game *g, gs_color c, gs_point p);

/* Number of moves and passes played; move i (0-based). */
int rules_game_move_count(const rules_game *g);
gs_move rules_game_move(const rules_game *g, int i);
/* Two consecutive passes ended the game. */
bool rules_game_two_passes(const rules_game *g);
/* A cycle was played under RULES_KO_FLAG_CYCLE. */
bool rules_game_has_cycle(const rules_game *g);
void rules_game_position(const rules_game *g, gs_position *out);
/* Position after move i (0 = before the first move, i.e. the setup). */
void rules_game_position_at(const rules_game *g, int i, gs_position *out);
/* The board (read-only view; clone it to play on). */
const rules_board *rules_game_board(const rules_game *g);

/* ============================================================== referee */

typedef enum rules_event_type {
    RULES_EV_NONE = 0,
    RULES_EV_DOUBLE_MOVE,      /* same colour twice: double move or unannounced pass */
    RULES_EV_MISSED_CAPTURE,   /* captured stones left on the board (all or some) */
    RULES_EV_WRONG_CAPTURE,    /* stones removed that were not captured */
    RULES_EV_SUICIDE,          /* stone on a forbidden point */
    RULES_EV_KO,               /* immediate ko recapture */
    RULES_EV_SUPERKO,          /* other whole-board repetition */
    RULES_EV_CYCLE,            /* repetition allowed by FLAG_CYCLE: the event
                                  may declare no result / draw */
    RULES_EV_MOVED_STONE,      /* a stone vanished, one of its colour appeared elsewhere */
    RULES_EV_TAKE_BACK,        /* the last stone lifted and put down elsewhere */
    RULES_EV_OUT_OF_TURN,      /* stone of the side not to move (not a double move) */
    RULES_EV_STONE_REMOVED,    /* stone(s) removed for no reason */
    RULES_EV_BOARD_DISTURBED,  /* many changes at once: replay from the record */
    RULES_EV_AMBIGUOUS_ORDER,  /* several moves at once fit more than one order */
    RULES_EV_COLOR_CHANGED,    /* a stone turned into the other colour */
    RULES_EV_COUNT_
} rules_event_type;

/* Lower-case code for SGF GSEV / JSON ("double_move", "missed_capture",
 * "wrong_capture", "suicide", "ko", "superko", "cycle", "moved_stone",
 * "take_back", "out_of_turn", "stone_removed", "scattered",
 * "ambiguous_order", "color_changed"), static storage. */
const char *rules_event_code(rules_event_type t);

typedef struct rules_event {
    rules_event_type type;
    gs_color color;             /* the colour concerned (GS_EMPTY if mixed) */
    int move_number;            /* number the offending move would have had */
    int npoints;                /* points concerned (stones, move point first) */
    gs_point points[RULES_MAX_POINTS];
    char text[240];             /* one line for the referee, cites the rule */
    const char *article;        /* "Art. 5", "Art. 17.1", ... static storage */
} rules_event;

#define RULES_CLASSIFY_MAX_MOVES 8
#define RULES_CLASSIFY_MAX_EVENTS 8

typedef struct rules_classified_move {
    gs_move move;
    int ncaptured;
    gs_point captured[RULES_MAX_POINTS];
} rules_classified_move;

typedef struct rules_classification {
    bool unchanged;             /* observed == confirmed position */
    /* Legal moves explaining the change, in playing order (empty when the
     * change is irregular).  Playing them on the game gives the observed
     * position except for stones named by MISSED_CAPTURE events. */
    int nmoves;
    rules_classified_move moves[RULES_CLASSIFY_MAX_MOVES];
    int norders;                /* orders that fit (>1: AMBIGUOUS_ORDER event) */
    int nevents;
    rules_event events[RULES_CLASSIFY_MAX_EVENTS];
} rules_classification;

/* The classification (of `observed` against g) names a stone removed with
 * no capture (wrong capture, stone removed) that has a new stone of its own
 * colour on a neighbouring point: the shape of a stone pushed aside, more
 * likely than a player lifting his own stone. */
bool rules_classification_push_shape(const rules_game *g, const gs_position *observed,
                                     const rules_classification *cls);

/* Compares the observed position with the game's current position and
 * explains the difference.  Never changes the game.  GS_ERR_USAGE if the
 * sizes differ.  `out` is large (tens of KB): allocate it, don't put it
 * on a small stack. */
gs_status rules_classify(const rules_game *g, const gs_position *observed,
                         rules_classification *out, gs_error *err);

/* ============================================================== counting */

typedef struct rules_count_opts {
    double komi;          /* SGF points; 7.5 = 3 3/4 stones */
    int handicap;         /* Black gives back handicap/2 stones */
    int warnings_black;   /* one stone each */
    int warnings_white;
} rules_count_opts;

/* Defaults: komi 7.5, no handicap, no warnings. */
void rules_count_opts_init(rules_count_opts *o);

typedef struct rules_count {
    int size;
    int black_stones, white_stones;       /* living stones */
    int black_territory, white_territory; /* empty points surrounded */
    int dame;                             /* empty points touching both (or none) */
    int dead_black, dead_white;           /* stones removed as dead */
    double black, white;                  /* area in stones, dame split half each */
    double komi;                          /* points, as given */
    double margin_stones;                 /* Black's result: >0 Black wins */
    gs_color winner;                      /* GS_EMPTY = draw */
    char sgf[24];                         /* "B+1.5", "W+0.5", "0" */
    char text[96];                        /* "Black wins by 3/4 stone" */
    gs_position owner;                    /* area: B, W, or empty for dame */
} rules_count;

/* Counts pos by area after removing the stones marked in dead (NULL = all
 * alive; else size*size bytes row-major, non-zero = dead).  opts NULL =
 * defaults.  GS_ERR_USAGE on a bad size. */
gs_status rules_count_position(const gs_position *pos, const uint8_t *dead,
                               const rules_count_opts *opts, rules_count *out, gs_error *err);

/* Result from a margin: margin_stones > 0 means Black wins.  Fills sgf
 * ("B+1.5") and text ("Black wins by 3/4 stone"); buffers as in
 * rules_count. */
void rules_result_format(double margin_stones, char sgf[24], char text[96]);

/* Dead-stone mask from final TB/TW marks (gs_position with GS_BLACK for TB,
 * GS_WHITE for TW): a stone standing on the other side's mark is dead.
 * dead gets size*size bytes. */
void rules_dead_from_marks(const gs_position *pos, const gs_position *marks, uint8_t *dead);

/* ================================================================ replay */

/* Replaying a recorded game (the core of `goscribe check`): plain inputs so
 * the rules module does not depend on the SGF reader. */
typedef struct rules_replay_input {
    int size;
    double komi;                  /* points */
    int handicap;
    const gs_position *setup;     /* AB/AW, NULL = empty board */
    const gs_move *moves;      /* main line, passes included */
    int nmoves;
    const gs_position *final_marks; /* TB (GS_BLACK) / TW (GS_WHITE), NULL = none:
                                       all stones alive */
    rules_ko_policy ko_policy;
    int move_offset;              /* moves before these in the record (a
                                     part replayed after a set-up node):
                                     issues are numbered from it */
} rules_replay_input;

#define RULES_REPLAY_MAX_ITEMS 64

typedef struct rules_replay_issue {
    int move_number;              /* 1-based */
    gs_move move;
    rules_legality why;           /* illegal: the rule broken */
    rules_event_type event;       /* RULES_EV_SUICIDE, KO, SUPERKO, CYCLE, OUT_OF_TURN, ... */
    const char *article;          /* static storage */
    char text[160];
} rules_replay_issue;

typedef struct rules_replay_report {
    int moves_played;             /* moves and passes accepted */
    int nillegal;                 /* total (the array keeps the first 64) */
    rules_replay_issue illegal[RULES_REPLAY_MAX_ITEMS];
    int nevents;                  /* other findings: out of turn, cycles */
    rules_replay_issue events[RULES_REPLAY_MAX_ITEMS];
    bool dead_from_marks;
    gs_position final_position;
    rules_count count;
} rules_replay_report;

/* Replays the moves (an illegal move is listed and skipped, as the rules
 * make it void) and counts the final position, dead stones from the final
 * marks.  GS_ERR_USAGE for a bad size; GS_ERR_FORMAT if the setup has a
 * group without liberties.  `out` is large: allocate it. */
gs_status rules_replay(const rules_replay_input *in, rules_replay_report *out, gs_error *err);

/* Parses an SGF RE value's margin: "B+7.5" -> +7.5, "W+0.5" -> -0.5,
 * "0"/"Draw"/"Jigo" -> 0.  false for resignations, time, unknown text. */
bool rules_parse_result_points(const char *re, double *points);

/* ================================================================ points */

/* "pd" (two letters + NUL, a..z then A..Z for 0..51); "" for a pass /
 * off-board point.  The one SGF point writer (sgf_point_format calls it). */
void rules_point_sgf(gs_point p, char buf[3]);
/* "Q16": column letter skipping I, row from the bottom; "pass" when p is
 * off the board.  buf >= 8. */
void rules_point_human(gs_point p, int size, char buf[8]);
/* Parses "Q16" / "q16" (and "pass"); false if malformed or off the board. */
bool rules_point_parse_human(const char *s, int size, gs_point *p, bool *pass);
/* "Black" / "White" / "Empty". */
const char *rules_color_name(gs_color c);


/* ---- dead-stone estimate: estimate which stones are dead on a finished board,
 * without a neural network, so that the players can confirm a count.
 *
 * Two stages, both on a plain gs_position:
 *   1. Benson's unconditional life (rules_estimate_benson): chains that no
 *      sequence of moves can capture, and the small regions they enclose;
 *      enemy stones inside such a region are certainly dead.
 *   2. Monte-Carlo ownership: many random playouts from the position, both
 *      sides playing random legal moves that fill no own eye and (for
 *      chains of more than one stone) make no self-atari, to the end (with
 *      two answers a player would give to the last move first: take a chain
 *      it left in atari or save one of ours, and half the time play next to
 *      it, so that territory owners answer invasions); then
 *      the area owner of every point.  A whole chain is dead when its points
 *      end owned by the opponent in more than `dead_threshold` of the
 *      playouts.  Seki comes out of the same playouts: both chains survive
 *      and their shared liberties stay empty; such chains are reported in
 *      `seki` and live, their shared liberties are dame in the count.
 *
 * The result is an ESTIMATE for the players to confirm, never a verdict
 * (RULES.md Art. 8: dead and alive are what both players agree on).
 * Deterministic: the same position, options and seed give the same answer.
 * Everything is plain data owned by the caller; nothing is kept between
 * calls.
 */

#define RULES_ESTIMATE_POINTS (GS_MAX_SIZE * GS_MAX_SIZE)

typedef struct rules_estimate_options {
    int playouts;           /* playouts to run at most; 0 = default (1000) */
    double time_budget_ms;  /* stop early past this much CPU time of the
                               calling thread (not wall time, so the load of
                               the machine does not change the answer);
                               0 = default (500 ms), < 0 = no limit */
    double dead_threshold;  /* 0 = default (0.5): a chain is dead when the
                               opponent owns its points in more than this
                               share of the playouts (its likelier owner) */
    uint64_t seed;          /* 0 = default fixed seed */
    gs_color to_move;       /* side to move first in the playouts; GS_EMPTY =
                               alternate (half the playouts each side) */
} rules_estimate_options;

/* Per-point marks in rules_estimate_result.status. */
enum {
    RULES_ESTIMATE_ALIVE = 0,  /* stone alive, or empty point */
    RULES_ESTIMATE_DEAD = 1,   /* stone estimated dead */
    RULES_ESTIMATE_SEKI = 2,   /* stone alive in seki */
    RULES_ESTIMATE_SAFE = 3    /* stone unconditionally alive (Benson) */
};

typedef struct rules_estimate_result {
    int size;
    uint8_t status[RULES_ESTIMATE_POINTS];   /* RULES_ESTIMATE_* per point,
                                                row-major as gs_position */
    uint8_t dead[RULES_ESTIMATE_POINTS];     /* 1 = stone estimated dead (the
                                                mask a count takes) */
    float ownership[RULES_ESTIMATE_POINTS];  /* mean area owner over the
                                                playouts: +1 black .. -1 white */
    int playouts;                            /* playouts actually run */
    int dead_black, dead_white;              /* dead stones of each colour */
    int seki_stones;                         /* stones marked seki */
    int uncertain_chains;                    /* chains whose share was within
                                                0.15 of the threshold */
    uint8_t uncertain[RULES_ESTIMATE_POINTS]; /* 1 = stone of such a chain:
                                                the players should look at
                                                these first */
    int captured_stones;                     /* stones of chains without any
                                                liberty (left on the board
                                                after a capture, or misread):
                                                counted dead, included in
                                                dead_black / dead_white */
    double ms;                               /* wall time taken */
} rules_estimate_result;

/* Fills o with the defaults above. */
void rules_estimate_default_options(rules_estimate_options *o);

/* Benson's unconditional life for colour c: alive[i] = 1 for every stone of
 * an unconditionally alive chain of c, and 2 for every point (empty or enemy
 * stone) of a region that is vital to such a chain, where the enemy can never
 * live.  Other points 0.  alive has size*size entries. */
void rules_estimate_benson(const gs_position *pos, gs_color c, uint8_t *alive);

/* Estimates the dead stones of pos (opt NULL = defaults).  GS_ERR_USAGE for
 * a bad size.  out is filled completely. */
gs_status rules_estimate_dead(const gs_position *pos, const rules_estimate_options *opt,
                              rules_estimate_result *out, gs_error *err);

#ifdef __cplusplus
}
#endif
#endif
