/* calib/validate.c: is a grid one a camera can have produced (calib.h,
 * calib_grid_check)?  A calibration file is input like any other: an
 * all-zero or 1e300 homography, corners that do not belong to it, or a lens
 * model that folds the board would otherwise reach the reading stage as
 * NaN and infinities, and come out as an empty board read with confidence.
 * Everything checked here bounds what vision_grid_map can return over the
 * board and the margin the tracker samples around it, so the float-to-int
 * conversions downstream stay in range. */
#include "calib/calib.h"

#include <math.h>
#include <stdio.h>

/* How far outside the lines the board is checked (cells): the tracker's
 * hand detection samples 1.5 cells out, the margin signals about 1. */
#define CHECK_MARGIN 2.0
/* Image coordinates any point of that region may reach (pixels). */
#define COORD_MAX 1e6

/* (u, v) of the board through H alone; false when not finite or in range,
 * or w has not the sign `sign` (0 = any, set to the one found). */
static bool project(const vision_grid *g, double u, double v, double *sign, double p[2])
{
    const double *H = g->H;
    double w = H[6] * u + H[7] * v + H[8];
    if (!isfinite(w) || w == 0) return false;
    if (*sign == 0) *sign = w > 0 ? 1 : -1;
    if ((w > 0) != (*sign > 0)) return false;
    p[0] = (H[0] * u + H[1] * v + H[2]) / w;
    p[1] = (H[3] * u + H[4] * v + H[5]) / w;
    return isfinite(p[0]) && isfinite(p[1]) && fabs(p[0]) <= COORD_MAX && fabs(p[1]) <= COORD_MAX;
}

/* The homography over the board and its margin: one side of the horizon
 * (w keeps its sign at the four outer corners of the region, so over all
 * of it, w being linear), every point in range (the region's image is the
 * convex hull of its corners' images).  The farthest point from the lens
 * centre, in units of the lens model's radius, in r2[0] for the board with
 * its margin, r2[1] for the board alone. */
static gs_status check_plane(const vision_grid *g, double r2[2], gs_error *err)
{
    for (int i = 0; i < 9; i++)
        if (!isfinite(g->H[i])) return gs_error_set(err, GS_ERR_FORMAT, "the homography holds a number out of range");
    double sign = 0;
    r2[0] = r2[1] = 0;
    for (int k = 0; k < 8; k++) {
        double m = k < 4 ? CHECK_MARGIN : 0, lo = -m, hi = g->size - 1 + m, p[2];
        double u = (k % 4 == 1 || k % 4 == 2) ? hi : lo, v = k % 4 >= 2 ? hi : lo;
        if (!project(g, u, v, &sign, p))
            return gs_error_set(err, GS_ERR_FORMAT,
                                "the homography does not map the board to a plane seen by a camera "
                                "(all zero, out of range, or folding it over the horizon)");
        if (g->norm > 0) {
            double dx = p[0] - g->cx, dy = p[1] - g->cy, d2 = (dx * dx + dy * dy) / (g->norm * g->norm);
            if (d2 > r2[k / 4]) r2[k / 4] = d2;
        }
    }
    return GS_OK;
}

/* The lens model: centre in range, a radius of at least a pixel, and its
 * scale 1 + k1 r^2 positive over the board (a negative one turns it
 * inside out) and bounded over its margin too. */
static gs_status check_lens(const vision_grid *g, const double r2[2], gs_error *err)
{
    if (!isfinite(g->k1) || !isfinite(g->cx) || !isfinite(g->cy) || !isfinite(g->norm) || fabs(g->cx) > COORD_MAX ||
        fabs(g->cy) > COORD_MAX || g->norm < 0 || g->norm > COORD_MAX)
        return gs_error_set(err, GS_ERR_FORMAT, "the lens distortion holds a number out of range");
    if (g->k1 == 0) return GS_OK;
    if (g->norm < 1) return gs_error_set(err, GS_ERR_FORMAT, "the lens distortion's radius is under a pixel");
    double s_margin = 1 + g->k1 * r2[0], s_board = 1 + g->k1 * r2[1];
    if (!(s_board > 0.05 && fabs(s_margin) < 20))
        return gs_error_set(err, GS_ERR_FORMAT, "the lens distortion (k1 %g) blows the board up or folds it", g->k1);
    return GS_OK;
}

/* The stored corners: in range, inside the image (with half its size of
 * slack: a board can be cut by the frame's edge) and where the grid puts
 * the outer intersections, within a tenth of a cell. */
static gs_status check_corners(const vision_grid *g, int width, int height, bool match, gs_error *err)
{
    double n = g->size - 1, perim = 0;
    for (int i = 0; i < 4; i++) {
        const double *a = g->corners[i], *b = g->corners[(i + 1) % 4];
        if (!isfinite(a[0]) || !isfinite(a[1]) || fabs(a[0]) > COORD_MAX || fabs(a[1]) > COORD_MAX)
            return gs_error_set(err, GS_ERR_FORMAT, "corner %d is out of range", i);
        if (width > 0 && (a[0] < -0.5 * width || a[0] > 1.5 * width || a[1] < -0.5 * height || a[1] > 1.5 * height))
            return gs_error_set(err, GS_ERR_FORMAT, "corner %d (%.1f, %.1f) is far outside the %d x %d image", i, a[0],
                                a[1], width, height);
        perim += hypot(b[0] - a[0], b[1] - a[1]);
    }
    double cell = perim / (4 * n);
    if (!(cell >= 2)) return gs_error_set(err, GS_ERR_FORMAT, "the board's cells are %.2f pixels: too small to read", cell);
    if (!match) return GS_OK;
    const double cu[4] = {0, n, n, 0}, cv[4] = {0, 0, n, n};
    for (int i = 0; i < 4; i++) {
        double x, y;
        vision_grid_map(g, cu[i], cv[i], &x, &y);
        double d = hypot(x - g->corners[i][0], y - g->corners[i][1]);
        if (!(d <= 0.1 * cell + 0.5))
            return gs_error_set(err, GS_ERR_FORMAT,
                                "the homography does not map the corners to the grid (corner %d is %.1f pixels off, "
                                "more than a tenth of a cell); without a 'homography' line it is computed from the corners",
                                i, isfinite(d) ? d : INFINITY);
    }
    return GS_OK;
}

gs_status calib_grid_check(const vision_grid *g, int width, int height, bool check_corner_match, gs_error *err)
{
    if (g->size < 5 || g->size > GS_MAX_SIZE)
        return gs_error_set(err, GS_ERR_FORMAT, "board size %d out of range (5 to %d)", g->size, GS_MAX_SIZE);
    if (width < 0 || height < 0 || (width == 0) != (height == 0))
        return gs_error_set(err, GS_ERR_FORMAT, "image size %d x %d makes no sense", width, height);
    double r2[2];
    gs_status st = check_plane(g, r2, err);
    if (st == GS_OK) st = check_lens(g, r2, err);
    if (st == GS_OK) st = check_corners(g, width, height, check_corner_match, err);
    if (st == GS_OK && !(g->cell_aspect > 0.2 && g->cell_aspect <= 5))
        st = gs_error_set(err, GS_ERR_FORMAT, "cell aspect %g out of range (0.2 to 5)", g->cell_aspect);
    if (st == GS_OK && !(g->confidence >= 0 && g->confidence <= 1))
        st = gs_error_set(err, GS_ERR_FORMAT, "confidence %g out of range (0 to 1)", g->confidence);
    return st;
}
