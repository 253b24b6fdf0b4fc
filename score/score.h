/* score/score.h: a finished board counted and a recorded game checked:
 * `goscribe count` (a photo or an SGF file), `goscribe check`, the
 * recorder's final count and RE, and the JSON words every command and page
 * shares.  Below the recorder (record/ asks it for its final count), above
 * the rules (counting, dead stones, replay), the SGF reader and writer and
 * the reading of a photo (vision_detect_photo).
 *
 * Ownership: results are plain data in caller storage (large: allocate
 * them); nothing is kept between calls.
 */
#ifndef SCORE_SCORE_H
#define SCORE_SCORE_H

#include <stdbool.h>
#include <stdint.h>
#include "core/gs.h"
#include "rules/rules.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A warning a side received (a referee's ruling, GSRL in the SGF): each
 * costs that side one stone at the count (RULES.md, Art. 25). */
typedef struct score_warning {
    gs_color color;
    int move_number;          /* moves played when it was given */
    int64_t unix_ms;          /* when, -1 unknown */
    char ruling[16];          /* the ruling that gave it: "warn", "void", ... */
} score_warning;

#define SCORE_MAX_WARNINGS 16
#define SCORE_MAX_NOTES 128

/* What an SGF file gives the count: its final position (the main line
 * replayed through the rules as score_check_tree does), komi, handicap,
 * result, the final TB/TW marks if any and the warnings.  Plain data. */
typedef struct score_count_sgf {
    gs_position pos;
    double komi;          /* points: KM, else 7.5 (0 with a handicap) */
    bool has_komi;        /* always true (kept for older callers) */
    int handicap;
    char result[64];      /* RE, "" if absent */
    bool has_marks;       /* the last node has TB/TW marks ... */
    uint8_t marks_dead[RULES_MAX_POINTS]; /* ... and these stones stand on
                                 the other side's mark: dead (row-major) */
    int nwarnings;        /* the warnings of its rulings (GSRL) */
    score_warning warnings[SCORE_MAX_WARNINGS];
    int warnings_black, warnings_white;
} score_count_sgf;

/* Reads path and replays its main line with score_check_tree
 * (repetitions are played and flagged, not refused).  GS_ERR_IO /
 * GS_ERR_FORMAT (an illegal move: its line, number and point, since a
 * count of a position no legal play reaches would be a guess) /
 * GS_ERR_NOBOARD (no game, or a size outside 5..25). */
gs_status score_count_load_sgf(const char *path, score_count_sgf *out, gs_error *err);

/* Where the dead stones of a count come from. */
typedef enum score_count_dead {
    SCORE_COUNT_DEAD_AUTO = 0, /* estimated (rules_estimate_dead): an
                                   ESTIMATE for the players to confirm */
    SCORE_COUNT_DEAD_NONE,     /* every stone on the board is alive */
    SCORE_COUNT_DEAD_MARKS,    /* implied by the SGF's final TB/TW marks */
    SCORE_COUNT_DEAD_POINTS,   /* the players' list: dead_points */
    SCORE_COUNT_DEAD_DEFAULT   /* an SGF that has marks: MARKS; one that
                                   records a counted result (RE B+n, W+n,
                                   0) without marks: NONE (so `count` and
                                   `check` agree); else AUTO */
} score_count_dead;

/* "auto", "none", "marks", "points", "default". */
const char *score_count_dead_name(score_count_dead d);

typedef struct score_count_options {
    const char *input;        /* a photo, GAME.sgf or GRID.txt (by suffix) */
    score_count_dead dead;
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
    const char *overlay_path; /* PNG of each side's area, the dead stones
                                 and the points to check: drawn over the
                                 photo, or a diagram of the board for a
                                 grid or SGF input */
    const char *sgf_path;     /* SGF of the position with TB/TW, KM and RE */
    long long max_pixels;     /* photo: pixel budget (0 = cvshim_max_pixels(0)) */
    const char *model_file;   /* photo: the point model read from this ONNX
                                 file (NULL: the built-in one) */
    double plausible;         /* photo: a point read with doubt enters the
                                 range only when its next likeliest colour
                                 is this probable (vision_reading.second_p);
                                 0 = every one; default SCORE_PLAUSIBLE */
    bool has_corners;         /* photo: the board's outer intersections are
                                 given (corners, the loaded photo's pixels,
                                 in vision_grid.corners order): no search */
    double corners[4][2];
} score_count_options;

/* The default of score_count_options.plausible: a doubtful point whose
 * other colour the point model gives less than one chance in 20 is
 * counted as read.  The model's probabilities are calibrated on sources it
 * did not see (vision/points.md).  On the 46 goban-watcher photos the
 * range still held the true count on 46 (the median range 7 -> 0 points),
 * and read by models that never saw the photo's game or source on 46
 * each; no wrong point of those photos, nor of imago's and Gomrade's, had
 * its true colour below 0.3.  A point whose place is in doubt keeps a
 * second colour of 0.45 (vision/detect.c mark_unsure) and stays in. */
#define SCORE_PLAUSIBLE 0.05

/* Defaults: dead stones DEFAULT (an SGF's marks, else estimated), no komi
 * or handicap given, no output files, doubt below SCORE_PLAUSIBLE left out
 * of the range. */
void score_count_options_init(score_count_options *o);

/* The range of a count over the readings its doubt allows (record/
 * count_range.c): the board as read and counted, then each point read with
 * doubt, and each chain of them (doubtful points of one read colour that
 * touch), read as its next likeliest colour and counted again, the
 * dead-stone estimate rerun where the change reaches (the chains touching
 * it or the empty region round it; elsewhere its verdicts stand); and each
 * chain whose life the estimate could not settle counted both ways, in the
 * reading as read and in each other reading.  Not a worst-case bound: the
 * readings one doubt away from the one read.  Plain data in, plain data
 * out. */
/* The next likeliest colour of a point read with doubt when it is not
 * known (a '?' of `goscribe scan`'s text): either other colour. */
#define SCORE_SECOND_ANY ((gs_color)3)

typedef struct score_range_input {
    const gs_position *pos;           /* the board as read */
    const uint8_t *dead;              /* its dead stones as counted (NULL: none) */
    const rules_estimate_result *est; /* the estimate they came from; NULL:
                                         they are given (the players', the
                                         marks, none) and stay so */
    const rules_estimate_options *eo; /* the estimate's options (NULL: defaults) */
    const uint8_t *doubt;             /* 1 = point read with doubt (NULL: none) */
    const gs_color *second;           /* each point's next likeliest colour
                                         (needed with doubt), or
                                         SCORE_SECOND_ANY: each other colour
                                         in turn */
    const uint8_t *life_given;        /* 1 = a stone whose life someone set
                                         (the count page): it keeps its
                                         dead value in every reading and
                                         is never counted both ways (NULL:
                                         none) */
    rules_count_opts count;           /* komi, handicap, warnings */
} score_range_input;

typedef struct score_count_range {
    double base, low, high;   /* Black's margin in stones: as read, the
                                 lowest and the highest over the readings */
    char low_sgf[24], high_sgf[24]; /* low and high in SGF RE form */
    bool sure;                /* no reading changes the result */
    bool winner_sure;         /* every reading gives the same winner */
    bool unbounded;           /* every point is in doubt (the board's lines
                                 are): low and high are the whole board
                                 White's and Black's */
    int readings;             /* readings counted, the one read included */
    int reruns;               /* of which the estimate was rerun (playouts) */
    uint8_t check[RULES_MAX_POINTS];  /* 1 = a point of a reading that
                                 changes the result (row-major) */
    uint8_t winner[RULES_MAX_POINTS]; /* 1 = ... that changes the winner */
    int ncheck, nwinner;
    double ms, cpu_ms;        /* time taken: wall, and CPU of the thread */
} score_count_range;

/* The range of in's count (score_range_input).  GS_ERR_USAGE for a bad
 * size or doubt without second choices, GS_ERR_NOMEM. */
gs_status score_count_range_run(const score_range_input *in, score_count_range *out, gs_error *err);

typedef struct score_count_result {
    const char *source;       /* "sgf", "grid" or "photo" (static) */
    gs_position pos;          /* the board counted */
    uint8_t dead[RULES_MAX_POINTS];  /* row-major, 1 = dead */
    uint8_t seki[RULES_MAX_POINTS];  /* DEAD_AUTO: 1 = alive in seki */
    bool estimate;            /* the dead stones are an estimate */
    rules_estimate_result est;/* valid when estimate */
    rules_count count;
    int handicap;             /* the handicap counted */
    score_count_dead dead_used; /* where the dead stones came from (never
                                 DEFAULT) */
    char file_result[64];     /* the SGF's RE, "" if none */
    int nwarnings;            /* an SGF's warnings, counted */
    score_warning warnings[SCORE_MAX_WARNINGS];
    bool looks_finished;      /* score_count_looks_finished */
    char not_finished[160];   /* ... its reason ("" when it does) */
    int read_black, read_white; /* a photo: stones read */
    uint8_t read_unsure[RULES_MAX_POINTS]; /* a photo (or a grid's '?', scan's
                                 JSON): 1 = read with doubt */
    int read_uncertain;       /* ... how many */
    gs_color read_second[RULES_MAX_POINTS]; /* ... each one's next likeliest
                                 colour (SCORE_SECOND_ANY: not known) */
    uint8_t left_out[RULES_MAX_POINTS]; /* points read with doubt that
                                 --plausible leaves out of the range */
    int nleft_out;            /* ... how many */
    double plausible;         /* ... the level they are under (count's
                                 --plausible, the recorder's default) */
    /* what someone set on the count page (score_fix), all zero otherwise */
    uint8_t fixed[RULES_MAX_POINTS]; /* 1 = its colour set by hand, other
                                 than read */
    int nfixed;
    uint8_t life_given[RULES_MAX_POINTS]; /* SCORE_LIFE_DEAD / _ALIVE: the
                                 life of the stone's chain set by hand */
    bool confirmed;           /* the board and its dead stones confirmed as
                                 they stand: nothing is in doubt any more */
    char confirmed_by[48];    /* who ("" = not said) */
    int64_t confirmed_ms;     /* when (Unix ms) */
    score_count_range range; /* the result over the readings the doubt
                                 allows: the points read with doubt and
                                 the chains the estimate could not settle */
    double ms;                /* reading + dead stones + count (wall) */
    const char *error_file;   /* on failure: the file err is about (to
                                 print before it), or NULL */
} score_count_result;

/* The points r->read_unsure marks whose next likeliest colour is less
 * likely than plausible (second_p: one a point, row-major) into
 * r->left_out and r->nleft_out: out of the range, counted as read. */
void score_count_leave_out(score_count_result *r, const float *second_p, double plausible);

/* The range of r's count (score_count_range_run) over its doubt: the
 * points r->read_unsure marks but r->left_out does not, as their
 * r->read_second; the lives r->life_given holds kept; eo the estimate's
 * options when r->estimate (NULL otherwise). */
gs_status score_count_range_of(score_count_result *r, const rules_estimate_options *eo, const rules_count_opts *co,
                               gs_error *err);

/* Counts the board of o->input under the Chinese rules (area, in stones)
 * with the dead stones o->dead says, then writes the overlay and the SGF
 * when asked.  GS_ERR_NOBOARD: no board in the photo, no game in the SGF,
 * or a size outside 5..25; GS_ERR_USAGE: an option the input cannot serve
 * (--dead marks without marks, a bad dead point, an overlay without a
 * photo); GS_ERR_IO / GS_ERR_FORMAT / GS_ERR_NOMEM otherwise. */
gs_status score_count_run(const score_count_options *o, score_count_result *out, gs_error *err);

/* The count of a board read from a photo (vision_detect_photo's result,
 * the caller's reading: a grid it was given, a photo it keeps): as
 * score_count_run counts a photo, o's input, overlay and SGF aside. */
struct vision_result;
gs_status score_count_reading(const struct vision_result *scan, const score_count_options *o,
                              score_count_result *out, gs_error *err);

/* The count as SGF at path: the position (AB/AW), TB/TW, KM, RE and the
 * count in words on the root; a count not sure adds its Score line, one
 * confirmed by hand who confirmed it and when, the points set by hand
 * (also as the private property GSFX, one point a value) and the lives
 * set by hand. */
gs_status score_count_write_sgf(const char *path, const score_count_result *r, gs_error *err);

/* The Score line of a count, "Score: ..." (what `count` prints, the page
 * shows and the JSON's score_line holds): "B+8.5 (sure)", "B+8.5, between
 * B+6.5 and B+10.5: Black wins either way; points that move it: D4", "W+0.5
 * to B+1.5: check points D4 E5", "B+353.5 (not sure: the game does not look
 * finished)", "B+8.5 (confirmed by hand)". */
void score_count_score_line(gs_buf *b, const score_count_result *r);
/* A range in the order it is said: one winner, from the smaller win to
 * the larger ("W+2.5 to W+5.5"); else from White's end to Black's ("W+0.5
 * to B+1.5"). */
void score_count_range_text(const score_count_range *g, char *buf, size_t len);

/* The dead-stone estimate of pos (eo NULL = defaults) and then its area
 * count with those stones dead (co NULL = defaults): `count --dead auto`
 * without the reading, the work `goscribe bench count` times. */
gs_status score_count_estimate(const gs_position *pos, const rules_estimate_options *eo,
                                const rules_count_opts *co, rules_estimate_result *est, rules_count *cnt,
                                gs_error *err);

/* Stones in quarters, as the count prints them: 184.5 -> "184 1/2",
 * 0.75 -> "3/4", 12 -> "12", -0.25 -> "-1/4". */
void score_count_stones_format(double stones, char *buf, size_t len);

/* The count in words, the one text of the recorder's final comment, of
 * `count --sgf` and of `check`: "Count (area, Chinese rules): Black 184
 * 1/2 stones (...), White 176 1/2 (...), dame 3; komi 3 3/4 stones;
 * warnings: Black at move 23 (12:03:22 UTC, ruling void): 1 stone; White
 * wins by 1 1/4 stones (W+2.5)." (starts with SGF_COUNT_WORDS_PREFIX).
 * w: the warnings counted (n of them, NULL = none); estimate: the dead
 * stones are an estimate for the players to confirm.  Returns buf. */
char *score_count_words(const rules_count *c, int handicap, const score_warning *w, int n, bool estimate,
                         char *buf, size_t len);

/* The TB/TW marks of a count (GS_BLACK / GS_WHITE per point): each side's
 * territory, i.e. its area without its living stones (empty points and
 * dead stones), as KGS and most viewers mark it; a dead stone on a dame
 * point gets the other side's mark so that every reader finds it dead
 * (rules_dead_from_marks).  dead NULL = all alive. */
void score_count_marks(const gs_position *pos, const uint8_t *dead, const rules_count *c, gs_position *marks);

/* Does the counted board pos look like the end of a game?  False, with
 * the reason in why (one line, "" when it does), when stones cover less
 * than 40 % of its points, an empty region holds more than 40 % of them
 * (words.c says why these), many points are dame (more than the board's
 * side: players fill them before counting) or the dead-stone estimate
 * (est, NULL = none) left chains it could not settle.  pos NULL: the
 * first two are not looked at. */
bool score_count_looks_finished(const gs_position *pos, const rules_count *c, const rules_estimate_result *est,
                                char *why, size_t len);

/* ================================================================== */
/* A count put right by hand (score/fix.c): the count page's work.  Someone
 * sets a point's colour or a chain's life, one change at a time, and each
 * change is counted again at once with the code above: after a point
 * changed the dead-stone estimate is rerun (256 playouts, fixed work) and
 * its verdicts taken on the chains the change reaches (those touching the
 * point or the empty region round it; elsewhere they stand, so playout
 * noise far away moves nothing); a life set by hand holds in the count and
 * in every reading of its range; a point set is no longer in doubt.
 * Plain data (large: allocate it). */

#define SCORE_LIFE_DEAD 1   /* score_count_result.life_given: set dead */
#define SCORE_LIFE_ALIVE 2  /* ... set alive */

typedef struct score_fix {
    score_count_result r;        /* the count as it stands: r.pos the board now */
    gs_position read;            /* the board as it was read */
    rules_count_opts co;         /* komi, handicap, warnings */
    rules_estimate_options eo;   /* the estimate's reruns */
    uint8_t given_dead[RULES_MAX_POINTS]; /* without an estimate: the dead
                                    stones given (none, --dead, marks) */
    double ms, cpu_ms;           /* the last change's recount: wall, and CPU
                                    of the thread */
} score_fix;

/* Starts from a count (score_count_run, score_count_reading; r may be
 * &f->r).
 * GS_ERR_USAGE when r holds no board. */
gs_status score_fix_init(score_fix *f, const score_count_result *r, gs_error *err);
/* Point p is colour c (GS_EMPTY, GS_BLACK, GS_WHITE); recounted.
 * GS_ERR_USAGE for a point off the board or a confirmed count. */
gs_status score_fix_point(score_fix *f, gs_point p, gs_color c, gs_error *err);
/* The chain of the stone at p is dead (SCORE_LIFE_DEAD), alive
 * (SCORE_LIFE_ALIVE) or as the estimate says (0); recounted.
 * GS_ERR_USAGE for no stone there or a confirmed count. */
gs_status score_fix_life(score_fix *f, gs_point p, int life, gs_error *err);
/* The board and its lives confirmed as they stand by `by` (NULL = not
 * said) at unix_ms: nothing is in doubt any more, the count is sure. */
void score_fix_confirm(score_fix *f, const char *by, int64_t unix_ms);

typedef struct score_check_options {
    double komi;              /* points, used when has_komi; else the file's
                                 KM, else 7.5 */
    bool has_komi;
    rules_ko_policy ko_policy;/* FORBID: every repetition is illegal */
} score_check_options;

/* A referee event (GSEV) or ruling (GSRL) the file records. */
typedef struct score_check_note {
    bool ruling;
    int move_number;          /* moves played up to its node */
    char code[32];            /* event code / ruling kind */
    char detail[96];          /* the event's detail */
    gs_color color;           /* ruling: the side concerned */
    bool warned;              /* ruling: it gave color a warning */
} score_check_note;

typedef struct score_check_result {
    int size;
    size_t moves;             /* main-line moves in the file */
    double komi;              /* the komi counted */
    int handicap;             /* the file's HA */
    char recorded_result[64]; /* the file's RE, "" if none */
    bool recorded_numeric;    /* RE holds a margin (rules_parse_result_points) */
    bool matches_record;      /* ... and the count gives the same margin */
    int setup_steps;          /* set-up nodes after the root, replayed in
                                 order with the moves */
    rules_replay_report report; /* illegal moves and notes over the whole
                                 main line, the final position and its
                                 count: dead stones from the last node's
                                 TB/TW marks, the warnings counted */
    uint8_t dead[RULES_MAX_POINTS]; /* the dead stones counted, row-major */
    int nwarnings;            /* warnings (the first SCORE_MAX_WARNINGS kept) */
    score_warning warnings[SCORE_MAX_WARNINGS];
    int warnings_black, warnings_white;
    int nnotes;               /* GSEV / GSRL values (first SCORE_MAX_NOTES kept) */
    score_check_note notes[SCORE_MAX_NOTES];
    bool looks_finished;      /* score_count_looks_finished of the count */
    char not_finished[160];   /* ... its reason */
    char words[600];          /* score_count_words of the count */
} score_check_result;

/* The one count of a recorded game (the recorder's own at its end, `check`,
 * `count` of an SGF): replays the main line of game 0 under the Chinese
 * rules (rules_replay: illegal moves listed and void; each set-up node
 * after the root applied in order, the replay going on from it as the
 * recorder did), takes the dead stones from the last node's TB/TW marks (a
 * stone on the other side's mark is dead; no marks: all alive) and the
 * warnings from the GSRL rulings, and counts the final position with the
 * komi and handicap.  Illegal moves are findings, not errors.
 * GS_ERR_NOBOARD for no game, a size outside 5..25 or a set-up that cannot
 * be replayed; GS_ERR_FORMAT for a malformed game, GS_ERR_NOMEM.  o NULL =
 * defaults. */
struct sgf_tree;
gs_status score_check_tree(const struct sgf_tree *t, const score_check_options *o, score_check_result *out,
                            gs_error *err);
/* score_check_tree of the file at path (GS_ERR_IO / GS_ERR_FORMAT for the
 * file itself; "not an SGF file" when it holds no SGF at all). */
gs_status score_check_file(const char *path, const score_check_options *o, score_check_result *out,
                            gs_error *err);

/* ================================================================== */
/* The JSON of goscribe, one vocabulary for every command and page (doc/json.md,
 * "JSON: one vocabulary"): a point is its SGF letters "pd" under "point"
 * (with "point_human" "Q16"; "" and "pass" for a pass), a colour "B", "W"
 * or "" under "color", a number per side an object {"B":..,"W":..}, moves
 * are counted by "move_number", a result is "result" in SGF RE form
 * ("B+1.5", "W+R", "0") with "result_text" in words.  These helpers write
 * members into an object the caller opened, each starting with a comma. */

/* "B", "W", "" (static). */
const char *score_json_color(gs_color c);
/* ,"point":"pd","point_human":"Q16" (a pass or a point off the board:
 * "" and "pass"). */
void score_json_point(gs_buf *b, gs_point p, bool pass, int size);
/* ,"KEY":["pd",...]: the points of pos whose mask is set (mask NULL: every
 * stone), colour c only unless GS_EMPTY. */
void score_json_points(gs_buf *b, const char *key, const gs_position *pos, const uint8_t *mask, gs_color c);
/* ,"KEY":{"B":black,"W":white} */
void score_json_sides(gs_buf *b, const char *key, double black, double white);
/* The members of a count's JSON (`count --json`, the count page): the
 * count (score_json_count), where its dead stones came from, whether it
 * looks finished, what was read with doubt, its range and Score line, the
 * estimate's figures, what was set by hand and its confirmation; each
 * starting with a comma (doc/json.md lists them). */
void score_json_count_result(gs_buf *b, const score_count_result *r);
/* The members of a count: ,"result","result_text","margin_stones",
 * "area","stones","territory","dead" (per side),"dame","komi","handicap",
 * "warnings" (per side). */
void score_json_count(gs_buf *b, const rules_count *c, int handicap, int warnings_black, int warnings_white);

#ifdef __cplusplus
}
#endif
#endif
