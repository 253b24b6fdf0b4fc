/* record/margin.h: stones put on the board's margin, outside the lines:
 * the end-of-game signals of the Chinese rules (RULES.md, "End of game"):
 *   - confirmation: one stone of the other colour at a player's own
 *     lower-right corner (first the side to move, then the opponent);
 *   - resignation: two of a player's own stones on the margin.
 * A camera cannot know which side each player sits on, so a single stone
 * near a corner is read as a confirmation by the player of the other
 * colour, and two or more stones of one colour as that colour resigning.
 *
 * The margin is sampled in a band 0.4..0.6 cells outside the outer lines
 * (the rules give a margin of about one cell), every half cell along each
 * edge.  A sample is a stone when it is much darker than the side's wood
 * (black) or brighter and less yellow than the wood (white); a run of such
 * samples longer than 1.5 cells is a sleeve or a bowl, not a stone.
 *
 * Plain data, no allocation.
 */
#ifndef RECORD_MARGIN_H
#define RECORD_MARGIN_H

#include "core/gs.h"
#include "vision/vision.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MARGIN_MAX_STONES 16

typedef enum margin_side { MARGIN_TOP = 0, MARGIN_RIGHT, MARGIN_BOTTOM, MARGIN_LEFT } margin_side;

typedef struct margin_stone {
    gs_color color;
    margin_side side;
    double u, v;          /* board coordinates of its centre (outside 0..size-1) */
    bool corner;          /* within 1.5 cells of a corner along its edge */
    int corner_index;     /* nearest corner, vision_grid.corners order (0..3) */
} margin_stone;

typedef struct margin_view {
    bool valid;           /* the margin was in the picture */
    int n;
    margin_stone stones[MARGIN_MAX_STONES];
} margin_view;

/* Number of sample spots margin_spots fills for a board of `size`. */
int margin_spot_count(int size);
/* Board coordinates (u, v) of every margin sample spot (arrays of
 * margin_spot_count entries); used by the tracker to see margin changes. */
void margin_spots(int size, double *u, double *v);

/* Looks for stones on the margin of img under grid g. */
void margin_scan(const gs_image *img, const vision_grid *g, margin_view *out);

/* Drops the margin stones that lie beside a stone of their colour on the
 * outer line of `board` (the settled reading of the same view): a stone
 * seen obliquely leans out of its point by its height, and its side in the
 * margin band is no signal.  A real signal stone put right beside an edge
 * stone of its colour is dropped too: the price of no false signals. */
void margin_view_drop_beside(margin_view *m, const gs_position *board);

/* "top edge", "bottom-right corner", ... for messages. */
const char *margin_place_name(const margin_stone *s);

#ifdef __cplusplus
}
#endif
#endif
