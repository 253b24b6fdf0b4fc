/* vision/read.h: extras of the point-reading stage (vision_read in
 * vision/vision.h is the main entry): the overlay drawing used by
 * `goscribe scan --overlay` and per-point features for tests and tuning.
 * Everything here is stateless; results are plain data owned by the caller. */
#ifndef VISION_READ_H
#define VISION_READ_H

#include "core/gs.h"
#include "vision/vision.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What vision_read measured at one intersection, relative to the board's
 * own wood colour at that place (so 1.0 means "like the wood"). */
typedef struct vision_point_features {
    float lum;       /* median brightness of the stone-sized disc / wood brightness */
    float dark;      /* fraction of the disc much darker than the wood */
    float neutral;   /* fraction of the disc bright and colourless (white-stone-like) */
    float woodlike;  /* median "wood hue" strength of the disc: 1 wood, ~0 grey */
    float spread;    /* interquartile range of brightness / wood brightness */
    float lines;     /* contrast of the two grid lines through the point (at the
                        board surface): depth of the deepest dip across each
                        line (darker than both sides, so a stone's or a
                        shadow's edge does not count) / wood brightness;
                        high when empty */
} vision_point_features;

/* Measures every intersection of g in img (row-major, size*size entries
 * written to feat, which the caller provides). */
gs_status vision_read_features(const gs_image *img, const vision_grid *g, vision_point_features *feat, gs_error *err);

/* Draws the grid and every reading onto img (3-channel, modified in place):
 * grid lines in green, black readings as a filled dark disc with a white
 * ring, white readings as a white disc with a black ring, low-confidence
 * points (< 0.6) marked with a red square.  reading may be NULL (grid only). */
void vision_draw_overlay(gs_image *img, const vision_grid *g, const vision_reading *reading);

#ifdef __cplusplus
}
#endif
#endif
