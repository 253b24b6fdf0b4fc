/* track/track.h: frames over time -> settled views.
 *
 * The stage between one image (vision/) and the game (record/): it follows
 * the board across frames and hands on only views worth reading.
 *   track        the tracker: settle window, drift following, re-finding the
 *                board after a bump; a settled view is read once (vision_detect_frame)
 *   track_hands  what reaches in from outside the board in a settled view
 *                (a hand resting on the edge): those points are unreadable
 *   track_margin stones on the margin outside the lines (end-of-game signals)
 * Next: record/ turns settled views into moves and referee events.
 */
#ifndef TRACK_TRACK_H
#define TRACK_TRACK_H

#include "core/gs.h"
#include "vision/vision.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================== */
/* track_margin: stones put on the board's margin, outside the lines:
 * the end-of-game signals of the Chinese rules (RULES.md, "End of game"):
 *   - confirmation: one stone of the other colour at a player's own
 *     lower-right corner (first the side to move, then the opponent);
 *   - resignation: two of a player's own stones on the margin.
 * The margin is the band between the outer line and the board's edge.  On
 * each side the edge is found first: the margin's wood just outside the
 * line followed outwards until the colour turns to something else (the
 * table, a bowl) for good, the median over the side.  In the band, samples
 * much darker than that side's wood (black) or brighter and less yellow
 * (white) make a stone when they form a blob the size of a stone along the
 * edge (half a cell to 1.4 cells: longer is a sleeve, a cable, a paper)
 * that does not go on beyond the edge (an object on the table leaning over
 * the margin in the picture does); stones put side by side (two, to
 * resign) make one blob up to three stones long, thinner across the band
 * where round stones touch, and it is cut there (a sleeve or a cable is
 * about as thick all along).  Anything beyond the edge is never a
 * margin stone.  Which player a corner belongs to needs the players'
 * sides: right_corner gives, for a player sitting at each side, which
 * corner is their lower-right one (from the picture: the board seen from
 * above is not mirrored); reach says where arms crossed the margin (the
 * tracker fills it: a player reaches in from their own side).
 *
 * Plain data, no allocation.
 */

#define TRACK_MARGIN_MAX 16

typedef enum track_margin_side { TRACK_MARGIN_TOP = 0, TRACK_MARGIN_RIGHT, TRACK_MARGIN_BOTTOM, TRACK_MARGIN_LEFT } track_margin_side;

typedef struct track_margin_stone {
    gs_color color;
    track_margin_side side;
    double u, v;          /* board coordinates of its centre (outside 0..size-1) */
    bool corner;          /* within 1.5 cells of a corner along its edge */
    int corner_index;     /* nearest corner, vision_grid.corners order (0..3) */
} track_margin_stone;

typedef struct track_margin_view {
    bool valid;           /* some of the margin was in the picture */
    int n;
    track_margin_stone stones[TRACK_MARGIN_MAX];
    double edge[4];       /* per side (track_margin_side): the board's edge,
                             cells outside the outer line (0: not seen) */
    int right_corner[4];  /* per side: the lower-right corner (vision_grid
                             corners order) of a player sitting there */
    int reach[4];         /* per side: frames since the previous settled
                             view in which something crossed the margin
                             there (filled by the tracker; 0 otherwise) */
} track_margin_view;

/* Number of sample spots track_margin_spots fills for a board of `size`. */
int track_margin_spot_count(int size);
/* Board coordinates (u, v) of every margin sample spot (arrays of
 * track_margin_spot_count entries); used by the tracker to see margin changes. */
void track_margin_spots(int size, double *u, double *v);

/* A reference view for the margin scan: the first clear view of the
 * board, with its own grid (the camera may have moved since).  Borrowed:
 * the caller owns img. */
typedef struct track_margin_ref {
    const gs_image *img;
    vision_grid grid;
} track_margin_ref;

/* Looks for stones on the margin of img under grid g, telling a stone on
 * the margin from something beyond the board's edge by the reference (may
 * be NULL): what lies beyond the edge next to a blob and lay there
 * already, unchanged, beside bare wood in the reference is not part of the
 * blob (a stone on a narrow margin next to a paper, a bowl's shadow or the
 * board's dark side face); and a blob the reference already showed there,
 * in its colour, is an object lying there from the start, not a stone. */
void track_margin_scan(const gs_image *img, const vision_grid *g, const track_margin_ref *ref,
                       track_margin_view *out);

/* Drops the margin stones that lie beside a stone of their colour on the
 * outer line of `board` (the settled reading of the same view): a stone
 * seen obliquely leans out of its point by its height, and its side in the
 * margin band is no signal.  A real signal stone put right beside an edge
 * stone of its colour is dropped too (the price of no false signals), but
 * for a stone in a corner square by a corner stone that `before` (the
 * previous clear view; may be NULL) already had: whoever follows the margin
 * from view to view saw that corner stone's lean then. */
void track_margin_view_drop_beside(track_margin_view *m, const gs_position *board, const gs_position *before);

/* Whether margin stone s, which track_margin_view_drop_beside drops, is a
 * stone put there beside old ones: every outer-line stone of its colour
 * beside it was already in `before` (the previous clear view), and `prev`
 * (that view's margin, before any drop) had no stone of its colour where s
 * is: those stones' leans were seen then, s is new; and s covers the band
 * out towards the edge (a lean covers its inner half).  False when any
 * argument is missing. */
bool track_margin_stone_new_beside(const track_margin_stone *s, const gs_position *board, const gs_position *before,
                                   const track_margin_view *prev);

/* Whether a stone of colour c read at point (x, y) of the outer line of
 * img under g is one on that point: a stone on the line is centred on it,
 * half of it over the board inside the line; a stone lying on the margin
 * band beside the point (a signal stone put close to the line) or a
 * fingertip's shadow there can reach the point's reading but not inside
 * the line.  True for points not on the outer line and when it cannot
 * tell (the inside out of the picture). */
bool track_margin_on_line(const gs_image *img, const vision_grid *g, int x, int y, gs_color c);

/* "top edge", "bottom-right corner", ... for messages. */
const char *track_margin_place_name(const track_margin_stone *s);


/* ================================================================== */
/* track_hands: points covered by something reaching in from outside
 * the board (a hand resting on the edge, an arm, a sleeve).
 *
 * A settled view may hold a hand that stayed still for the settle time, so
 * stillness alone cannot keep hands out of the record.  A hand always
 * comes from outside the board; a stone never touches the outside.  So the
 * view is compared, on a lattice of board coordinates every quarter cell
 * from 1.5 cells outside the outer lines inwards, with a reference view
 * known to be clear, and the changed samples connected to the outer ring
 * of the lattice are what reached in.  Every intersection within about
 * half a cell of them is "covered": the recorder takes the record's value
 * there, and the view after the hand has left reads it.
 * A change over most of the board (light, camera moved) says nothing about
 * hands: no point is covered then.  An exposure step (auto exposure as an
 * arm comes in) that one gain per channel explains is no such change: a
 * hand is looked for then among the strong changes (faint ones are what
 * the gain leaves of glare), and its region must be strongly changed over
 * a good share of it.
 *
 * The reference is a picture, and the same pixels are compared; after the
 * grid jumped (a bump, the board found again elsewhere) it is looked up
 * where the board was in it.  A grid found again keeps it (a hand on the
 * board often makes the view differ enough for that, and that view is no
 * reference); a view in which most of the board changed starts a new one.
 *
 * Ownership: track_hands_create returns an object freed by track_hands_destroy
 * (NULL safe); it keeps a copy of the reference view.
 */

typedef struct track_hands track_hands;

track_hands *track_hands_create(void);
void track_hands_destroy(track_hands *o);

/* Marks in covered[size*size] (1 = covered) the points of view `img`
 * under grid g that something from outside covers, and returns how many.
 * *reaching (may be NULL) tells whether anything from outside crosses the
 * outer lines at all, even too small to cover a point (fingers at the
 * edge): the margin is not to be trusted then.  margin (may be NULL) is
 * the same view's track_margin_scan: a change from outside that is only
 * stones it found on the margin (every changed sample inside the board's
 * edge on one of them, the rest beyond the edge: a stone put out to the
 * edge, its shadow or lean over the side face) is those stones, not a
 * hand; such a view is no reference either (the stones' place would look
 * changed for good once they are lifted).  Otherwise, when nothing
 * reaches in the view becomes the new reference; the first view (no
 * reference yet) is taken as clear.  On a copy failure (out of memory)
 * nothing is marked. */
int track_hands_mark(track_hands *o, const gs_image *img, const vision_grid *g, const track_margin_view *margin,
                     uint8_t *covered, bool *reaching);


/* ================================================================== */
/* track_looks: a point's reading may change only where its look changed.
 *
 * The reader judges each point against the photo's own populations, so
 * a point's reading can flip while nothing on it changed: the board fills,
 * the light drifts, and a corner point beside a crowd of white stones reads
 * white in one view and empty in the next.  A stone put on a point, or
 * lifted from it, always changes the point's look (its colour sample, the
 * tracker's signature: stone body against wood).  So each point keeps the
 * look it had when its settled value was last set (reference), and a
 * reading that gives it another value while its look is still within
 * TRACK_LOOK_SAME of that reference is a misread: the point keeps its
 * value and is marked unreadable in that view.  The light changes every
 * look alike: from one settled view to the next the references follow the
 * median change of all the points' looks, channel by channel (a few
 * stones put or lifted do not move a median of the board's points), and
 * nothing else: a reference moves to the point's own look only when a
 * change is taken (or all at once after the grid was set anew: the looks
 * are sampled elsewhere then), so a stone misread empty when it was put is
 * still taken later, when it reads as the stone it is: its look differs
 * from the empty point's.
 *
 * Plain data, no allocation.  A look is the tracker's colour sample of a
 * point: mean B, G, R of a few pixels on the stone's body, off the lines. */

/* Largest change of a point's look (sum of the three channel differences,
 * 0..765, the light followed) that shows nothing put on it or lifted from
 * it: on composite videos of three real games (real stones on a real
 * board, light drifting) the corner misreads changed 2-8, the stones put
 * 70 and more (white on the light wood; black 300 and more). */
#define TRACK_LOOK_SAME 35

typedef struct track_looks {
    bool have;                 /* references taken (for size) */
    int size;
    float ref[GS_MAX_SIZE * GS_MAX_SIZE][3];   /* the looks when the values were set */
    float prev[GS_MAX_SIZE * GS_MAX_SIZE][3];  /* the looks at the last check */
} track_looks;

/* Every point's reference becomes its look now (look: size*size). */
void track_looks_reset(track_looks *l, int size, const int16_t (*look)[3]);

/* Checks a settled reading pos against the values held before (before,
 * same size) and the looks now: each point that reads another value with
 * its look within TRACK_LOOK_SAME of its reference is put back to its value
 * before, marked in uncertain (and its conf lowered to under
 * min_confidence); the references of the changes taken move to their look
 * now.  Without references (or of another size) they are taken now and
 * nothing is checked.  Returns the number of points put back. */
int track_looks_check(track_looks *l, const int16_t (*look)[3], const gs_position *before, gs_position *pos,
                      uint8_t *uncertain, float *conf, float min_confidence);

/* The same looks for a photo (track_options.photos), the other way: a
 * photo is a settled view, and a point it reads as changed (reading, its
 * values before any point was kept) with too little confidence to take,
 * kept at its value before (pos, marked in uncertain), is taken after all
 * when its look changed (a stone put on it, or lifted, changes it): the
 * photo plainly shows a change there, the reader only doubts which.  The
 * references of the values set in pos move to their looks now.  Returns
 * the number of points taken. */
int track_looks_take(track_looks *l, const int16_t (*look)[3], const gs_position *before, const gs_position *reading,
                     gs_position *pos, uint8_t *uncertain);

/* ================================================================== */
/* track: from a stream of frames to settled board positions.
 *
 * The tracker finds the board once (vision_detect_frame, or a grid given by
 * --calibration / --corners), then for every frame samples a small colour
 * signature at each intersection (cheap: a few pixels per point) to decide
 * whether the view is still moving (hands, arms, sleeves) or has settled.
 * Only when the whole view has been still for the settle window does it run
 * the full reader (vision_detect_frame) and report a settled position; points read
 * with low confidence keep their previous value (an occluded point never
 * commits).  A sudden change of the whole view that then stays (camera or
 * board bumped) makes it find the board again and carry on.
 *
 * Between those, it follows small drifts (a sagging camera, a board pushed
 * gently): once the view has been calm for a few frames after the board was
 * found, it keeps four small grey patches around the board's corners as a
 * reference, and on calm frames (at most every 90 ms of video) measures how
 * far each has moved (phase correlation, cvshim/cvshim.h).  When at least
 * three corners match clearly, all agree and the grid is off by more than
 * 3 % of a cell, the grid is moved with them (a new homography through the
 * four moved corners, same lens) without losing the settle state; a note
 * says so when the board has drifted 0.25, 0.5, 1, 2 ... cells since it was
 * found.  A hand over a corner spoils that corner's match (two spoilt
 * corners: nothing moves); a jump of more than 0.6 cell is left to the new
 * board search.  The reference is renewed at a settled view when a corner
 * no longer matches well (stones put near it).  Each measure and each new
 * reference leaves a small error in the grid, and over a long game they can
 * add up; the first sign is a stone played on an edge point, read surely,
 * that the margin test puts off its line: then the board is searched for in
 * that still view (at most every 5 s) and the grid found is taken when it
 * is the same lattice moved by under half a cell, reads the view no worse
 * and puts fewer such stones off their lines.  (A calibration a little off,
 * the board pushed since, is put right the same way.)  The per-point signature
 * samples four 2x2 pixel blocks on the quarter-diagonals of each point, off
 * the lines, so a drift of a pixel or two does not look like motion.
 *
 * For the margin signals (a stone held on the margin for several settled
 * views) a still view whose margin holds stones is looked at again once a
 * second, a few times: reported as settled with `relook` set, the same
 * position and reading, its margin scanned anew.  And every frame with
 * motion counts, per side, whether something moved over that side's margin
 * spots (an arm reaching in from there): handed on with the next settled
 * view in margin.reach.
 *
 * Ownership: track_create returns an object freed by track_destroy
 * (NULL safe).  track_update is plain data filled by track_feed.
 */

typedef struct track track;

typedef struct track_options {
    int size_hint;            /* 0 = detect 9/13/19 */
    double settle_ms;         /* how long the view must stay still; 0 = 500 */
    double min_confidence;    /* below this a point keeps its old value; 0 = 0.35 */
    bool have_grid;           /* true: use `grid` (no board search at start) */
    vision_grid grid;
    bool no_follow;           /* true: do not follow small drifts (the grid
                                 moves only when the board is found again) */
    bool photos;              /* the settled frames are photos (a folder, a
                                 photo file): each is read as `goscribe scan`
                                 reads a photo (vision_detect_photo: the photo's own
                                 board search, exposure, shade look, rival
                                 and moved grids' doubt), the grid in place
                                 kept when the search finds the same
                                 lattice; video frames keep the fast read */
} track_options;

void track_options_init(track_options *o);

typedef struct track_update {
    bool have_grid;           /* the board has been found */
    bool settled;             /* a new settled view this frame: pos is valid */
    bool moving;              /* the view is changing (hand over the board) */
    bool refound;             /* the board was searched for again this frame */
    bool regrid;              /* ... and the grid changed (found, or found
                                 again elsewhere): views compared with ones
                                 under the old grid no longer compare */
    bool relook;              /* settled: the still view of the last settled
                                 one looked at again (same position, no new
                                 read): its margin holds stones, and a signal
                                 is a stone held for several settled views */
    gs_position pos;          /* settled position (when settled) */
    int n_uncertain;          /* points that kept their old value */
    double confidence;        /* mean reading confidence of the settled view */
    double t_ms;              /* frame time */
    char note[160];           /* why the grid was (re)found / lost, "" if nothing */
    uint8_t uncertain[GS_MAX_SIZE * GS_MAX_SIZE]; /* when settled: non-zero =
                              point not readable (kept from before) */
    float conf[GS_MAX_SIZE * GS_MAX_SIZE]; /* when settled: each point's
                              reading confidence (vision_reading) */
    uint8_t unsure[GS_MAX_SIZE * GS_MAX_SIZE]; /* ... the reader's doubt
                              (vision_reading.unsure: 1 = read with doubt) */
    uint8_t second[GS_MAX_SIZE * GS_MAX_SIZE]; /* ... each point's next
                              likeliest colour (vision_reading.second) */
    float second_p[GS_MAX_SIZE * GS_MAX_SIZE]; /* ... and how likely it is
                              (vision_reading.second_p) */
    int reads;                /* full reads (vision_detect_frame) run for this frame */
    track_margin_view margin;       /* when settled: stones on the margin outside
                                 the lines (end-of-game signals) */
} track_update;

track *track_create(const track_options *opt, gs_error *err);
void track_destroy(track *t);

/* Feeds one frame taken at t_ms.  settled_hint: the source knows the frame
 * is a settled view (a photo of a folder): it is read at once (as a photo
 * with track_options.photos).
 * Returns GS_OK (check out->settled), or an error for a broken frame. */
gs_status track_feed(track *t, const gs_image *frame, double t_ms, bool settled_hint,
                       track_update *out, gs_error *err);

/* The current grid, NULL before the board was found. */
const vision_grid *track_grid(const track *t);

/* Forgets the settled state so the next still view is reported again (used
 * after a camera was lost and came back). */
void track_reset_settle(track *t);

#ifdef __cplusplus
}
#endif
#endif
