/* vision/vision_internal.h: what vision's own files share; not a public API
 * (vision/vision.h is the folder's header). */
#ifndef VISION_INTERNAL_H
#define VISION_INTERNAL_H

#include "vision/vision.h"

/* Solves the 8 unknowns of A (8 rows of 8 coefficients + right-hand side)
 * by Gaussian elimination with partial pivoting, destroying A; 0 on success,
 * -1 when singular. Shared by the homography fits of vision/. */
int vision_solve8(double A[8][9], double x[8]);


#endif
