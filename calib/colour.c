/* calib/colour.c: the colour model saved in a calibration file, measured
 * from a photo, its grid and its reading. */
#include "calib/calib.h"

#include <math.h>

/* sRGB component 0..255 -> linear 0..1 */
static double lin(double c)
{
    c /= 255.0;
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

static double lab_f(double t)
{
    return t > 0.008856 ? cbrt(t) : 7.787 * t + 16.0 / 116.0;
}

/* Mean B,G,R -> Lab on OpenCV's 8-bit scale (L*255/100, a+128, b+128). */
static void bgr_to_lab8(const double bgr[3], double lab[3])
{
    double r = lin(bgr[2]), g = lin(bgr[1]), b = lin(bgr[0]);
    double x = (0.412453 * r + 0.357580 * g + 0.180423 * b) / 0.950456;
    double y = 0.212671 * r + 0.715160 * g + 0.072169 * b;
    double z = (0.019334 * r + 0.119193 * g + 0.950227 * b) / 1.088754;
    double fx = lab_f(x), fy = lab_f(y), fz = lab_f(z);
    double L = y > 0.008856 ? 116.0 * fy - 16.0 : 903.3 * y;
    lab[0] = L * 255.0 / 100.0;
    lab[1] = 500.0 * (fx - fy) + 128.0;
    lab[2] = 200.0 * (fy - fz) + 128.0;
}

/* Adds the pixels of a disc of radius r around (x, y) to sum[3] and n. */
static void disc_sum(const gs_image *img, double x, double y, double r, double sum[3], long *n)
{
    /* clamped before the casts: a point off the picture adds nothing */
    if (!(x > -r - 1 && x < img->width + r + 1 && y > -r - 1 && y < img->height + r + 1 && r >= 0 && r < 1e4)) return;
    int x0 = (int)floor(x - r), x1 = (int)ceil(x + r), y0 = (int)floor(y - r), y1 = (int)ceil(y + r);
    for (int yy = y0; yy <= y1; yy++) {
        if (yy < 0 || yy >= img->height) continue;
        for (int xx = x0; xx <= x1; xx++) {
            if (xx < 0 || xx >= img->width || (xx - x) * (xx - x) + (yy - y) * (yy - y) > r * r) continue;
            const uint8_t *p = img->buf + (size_t)yy * img->stride + (size_t)xx * img->channels;
            for (int k = 0; k < 3; k++) sum[k] += p[img->channels == 3 ? k : 0];
            (*n)++;
        }
    }
}

gs_status calib_colour_measure(const gs_image *img, const vision_grid *g, const vision_reading *rd,
                               calib_colour *out, gs_error *err)
{
    out->valid = 0;
    int n = g->size;
    if (n < 2 || n > GS_MAX_SIZE || rd->pos.size != n)
        return gs_error_set(err, GS_ERR_USAGE, "the reading does not match the grid");
    /* sums[0] wood (cell centres between four empty points), [1] black, [2] white */
    double sum[3][3] = {{0}};
    long cnt[3] = {0};
    for (int v = 0; v < n; v++)
        for (int u = 0; u < n; u++) {
            double x, y, xr, yr;
            vision_grid_map(g, u, v, &x, &y);
            vision_grid_map(g, u + (u + 1 < n ? 1 : -1), v, &xr, &yr);
            double r = 0.25 * hypot(xr - x, yr - y); /* well inside a stone, off its rim */
            gs_color c = gs_position_get(&rd->pos, u, v);
            if (c != GS_EMPTY && rd->confidence[v * n + u] >= 0.6f) disc_sum(img, x, y, r, sum[c], &cnt[c]);
            if (u + 1 < n && v + 1 < n && c == GS_EMPTY && gs_position_get(&rd->pos, u + 1, v) == GS_EMPTY &&
                gs_position_get(&rd->pos, u, v + 1) == GS_EMPTY && gs_position_get(&rd->pos, u + 1, v + 1) == GS_EMPTY) {
                double cx, cy;
                vision_grid_map(g, u + 0.5, v + 0.5, &cx, &cy);
                disc_sum(img, cx, cy, r, sum[0], &cnt[0]);
            }
        }
    for (int k = 0; k < 3; k++)
        if (cnt[k] == 0)
            return gs_error_set(err, GS_ERR_NOBOARD, "no %s seen",
                                k == 0 ? "empty wood" : k == 1 ? "black stone" : "white stone");
    double *dst[3] = {out->board, out->black, out->white};
    for (int k = 0; k < 3; k++) {
        double mean[3] = {sum[k][0] / cnt[k], sum[k][1] / cnt[k], sum[k][2] / cnt[k]};
        bgr_to_lab8(mean, dst[k]);
    }
    /* Lightness midway between the wood and each stone colour. */
    out->threshold[0] = (out->board[0] + out->black[0]) / 2;
    out->threshold[1] = (out->board[0] + out->white[0]) / 2;
    out->valid = 1;
    return GS_OK;
}
