/* vision/grid_find.h: diagnostics of the board finder (vision_grid_find in
 * vision.h is the main entry).  For tests, the calibrate command and
 * evaluation tools that want to know why a photo failed. Plain data. */
#ifndef VISION_GRID_FIND_H
#define VISION_GRID_FIND_H

#include "vision/vision.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vision_grid_find_info {
    int nsegs;            /* line pieces found in the working image */
    double support[2];    /* length of the pieces of each line family */
    double window_score;  /* 0..1 how clearly the outer lines stand out */
    double found_frac;    /* fraction of grid-line samples on a dark line */
    double resid_p90;     /* 90th percentile distance (cells) from the fitted
                             grid lines to the dark line pixels near them */
    double resid_worst_line; /* largest per-line median of that distance */
} vision_grid_find_info;

/* vision_grid_find with diagnostics; info is always filled (zeros when the
 * stage that sets a field was not reached). */
gs_status vision_grid_find_ex(const gs_image *img, int size_hint, vision_grid *out, vision_grid_find_info *info,
                              gs_error *err);

/* Solves the 8 unknowns of A (8 rows of 8 coefficients + right-hand side)
 * by Gaussian elimination with partial pivoting, destroying A; 0 on success,
 * -1 when singular. Shared by the homography fits of vision/. */
int vision_solve8(double A[8][9], double x[8]);

#ifdef __cplusplus
}
#endif
#endif
