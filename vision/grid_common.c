/* vision/grid_common.c: the grid mapping shared by every stage. */
#include "vision/vision.h"
#include "vision/vision_internal.h"

#include <math.h>
#include <string.h>

void vision_grid_map(const vision_grid *g, double u, double v, double *x, double *y)
{
    const double *H = g->H;
    double w = H[6] * u + H[7] * v + H[8];
    double px = (H[0] * u + H[1] * v + H[2]) / w;
    double py = (H[3] * u + H[4] * v + H[5]) / w;
    if (g->k1 != 0 && g->norm > 0) {
        double dx = px - g->cx, dy = py - g->cy;
        double r2 = (dx * dx + dy * dy) / (g->norm * g->norm);
        double s = 1 + g->k1 * r2;
        px = g->cx + dx * s;
        py = g->cy + dy * s;
    }
    *x = px;
    *y = py;
}

/* The exact homography through four point pairs. */
static int homography_4pt(const double src[4][2], const double dst[4][2], double H[9])
{
    double A[8][9];
    for (int i = 0; i < 4; i++) {
        double u = src[i][0], v = src[i][1], x = dst[i][0], y = dst[i][1];
        double r1[9] = {u, v, 1, 0, 0, 0, -u * x, -v * x, x};
        double r2[9] = {0, 0, 0, u, v, 1, -u * y, -v * y, y};
        memcpy(A[2 * i], r1, sizeof r1);
        memcpy(A[2 * i + 1], r2, sizeof r2);
    }
    if (gs_solve(&A[0][0], 9, 8, H, 1e-12) != 0) return -1;
    H[8] = 1;
    return 0;
}

gs_status vision_grid_from_corners(vision_grid *g, int size, const double corners[4][2], gs_error *err)
{
    if (size < 5 || size > GS_MAX_SIZE)
        return gs_error_set(err, GS_ERR_USAGE, "board size %d out of range (5 to %d)", size, GS_MAX_SIZE);
    /* The quad must be convex and not tiny: signed areas of all four corner
     * triangles share a sign. */
    double sgn = 0;
    for (int i = 0; i < 4; i++) {
        const double *a = corners[i], *b = corners[(i + 1) % 4], *c = corners[(i + 2) % 4];
        double cr = (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]);
        if (fabs(cr) < 16.0 || (sgn != 0 && (cr > 0) != (sgn > 0)))
            return gs_error_set(err, GS_ERR_USAGE, "the four corners do not form a convex board outline");
        sgn = cr;
    }
    double n = size - 1;
    const double src[4][2] = {{0, 0}, {n, 0}, {n, n}, {0, n}};
    memset(g, 0, sizeof *g);
    g->size = size;
    memcpy(g->corners, corners, sizeof g->corners);
    if (homography_4pt(src, corners, g->H) != 0)
        return gs_error_set(err, GS_ERR_USAGE, "the four corners do not define a board plane");
    g->cell_aspect = 1.0;
    g->confidence = 1.0;
    return GS_OK;
}
