/* record/tracker.h: from a stream of frames to settled board positions.
 *
 * The tracker finds the board once (vision_grid_find, or a grid given by
 * --calibration / --corners), then for every frame samples a small colour
 * signature at each intersection (cheap: a few pixels per point) to decide
 * whether the view is still moving (hands, arms, sleeves) or has settled.
 * Only when the whole view has been still for the settle window does it run
 * the full reader (vision_read) and report a settled position; points read
 * with low confidence keep their previous value (an occluded point never
 * commits).  A sudden change of the whole view that then stays (camera or
 * board bumped) makes it find the board again and carry on.
 *
 * Between those, it follows small drifts (a sagging camera, a board pushed
 * gently): once the view has been calm for a few frames after the board was
 * found, it keeps four small grey patches around the board's corners as a
 * reference, and on calm frames (at most every 90 ms of video) measures how
 * far each has moved (phase correlation, vision/cv_shim.h).  When at least
 * three corners match clearly, all agree and the grid is off by more than
 * 3 % of a cell, the grid is moved with them (a new homography through the
 * four moved corners, same lens) without losing the settle state; a note
 * says so when the board has drifted 0.25, 0.5, 1, 2 ... cells since it was
 * found.  A hand over a corner spoils that corner's match (two spoilt
 * corners: nothing moves); a jump of more than 0.6 cell is left to the new
 * board search.  The reference is renewed at a settled view when a corner
 * no longer matches well (stones put near it).  The per-point signature
 * samples four 2x2 pixel blocks on the quarter-diagonals of each point, off
 * the lines, so a drift of a pixel or two does not look like motion.
 *
 * Ownership: tracker_create returns an object freed by tracker_destroy
 * (NULL safe).  tracker_update is plain data filled by tracker_feed.
 */
#ifndef RECORD_TRACKER_H
#define RECORD_TRACKER_H

#include "core/gs.h"
#include "record/margin.h"
#include "vision/vision.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tracker tracker;

typedef struct tracker_options {
    int size_hint;            /* 0 = detect 9/13/19 */
    double settle_ms;         /* how long the view must stay still; 0 = 500 */
    double min_confidence;    /* below this a point keeps its old value; 0 = 0.35 */
    bool have_grid;           /* true: use `grid` (no board search at start) */
    vision_grid grid;
    bool no_follow;           /* true: do not follow small drifts (the grid
                                 moves only when the board is found again) */
} tracker_options;

void tracker_options_init(tracker_options *o);

typedef struct tracker_update {
    bool have_grid;           /* the board has been found */
    bool settled;             /* a new settled view this frame: pos is valid */
    bool moving;              /* the view is changing (hand over the board) */
    bool refound;             /* the board was searched for again this frame */
    gs_position pos;          /* settled position (when settled) */
    int n_uncertain;          /* points that kept their old value */
    double confidence;        /* mean reading confidence of the settled view */
    double t_ms;              /* frame time */
    char note[160];           /* why the grid was (re)found / lost, "" if nothing */
    uint8_t uncertain[GS_MAX_SIZE * GS_MAX_SIZE]; /* when settled: non-zero =
                              point not readable (kept from before) */
    int reads;                /* full reads (vision_read) run for this frame */
    margin_view margin;       /* when settled: stones on the margin outside
                                 the lines (end-of-game signals) */
} tracker_update;

tracker *tracker_create(const tracker_options *opt, gs_error *err);
void tracker_destroy(tracker *t);

/* Feeds one frame taken at t_ms.  settled_hint: the source knows the frame
 * is a settled view (a photo of a folder): it is read at once.
 * Returns GS_OK (check out->settled), or an error for a broken frame. */
gs_status tracker_feed(tracker *t, const gs_image *frame, double t_ms, bool settled_hint,
                       tracker_update *out, gs_error *err);

/* The current grid, NULL before the board was found. */
const vision_grid *tracker_grid(const tracker *t);

/* Forgets the settled state so the next still view is reported again (used
 * after a camera was lost and came back). */
void tracker_reset_settle(tracker *t);

#ifdef __cplusplus
}
#endif
#endif
