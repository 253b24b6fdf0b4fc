/* vision/read_features.c: stages 2-3 of the reader (vision/read.c): what
 * it measures at every point, relative to the wood there: a disc that
 * follows the stone's body in oblique views (the camera fitted to the
 * grid), its brightness, darkness, colourlessness and wood hue, the
 * contrast of the two grid lines through the point at the board surface,
 * the ring round the disc, the intersection itself, and the margin just
 * beyond an edge point. */
#include "vision/vision_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HIST_BINS 256   /* relative brightness histogram, 0..HIST_MAX */
#define HIST_MAX 2.56

/* Contrast of one grid line through board point (u,v) at the board surface:
 * the line direction is (lu,lv) (unit board vector), the profile runs across
 * it.  Samples along the line stay on the board (an edge point has its line
 * on one side only).  Returns the depth of the deepest dip of the profile
 * across the line / Yw. */
static double line_contrast(const gs_image *img, double bx, double by, const double J[4], int N, double u, double v,
                            double lu, double lv, double cell, double Yw)
{
    const double half = 0.2, reach = 0.42;
    int nd = (int)(2 * half * cell) + 1; /* about one profile step per pixel */
    if (nd < 9) nd = 9;
    if (nd > 41) nd = 41;
    double prof[41];
    double pu = lv, pv = lu; /* across the line */
    for (int i = 0; i < nd; i++) {
        double d = -half + 2 * half * i / (nd - 1);
        double sum = 0;
        int cnt = 0;
        for (int k = -6; k <= 6; k++) {
            double t = reach * k / 6.0;
            double bu = u + t * lu + d * pu, bv = v + t * lv + d * pv;
            if (bu < -0.01 - (lu == 0 ? half : 0) || bv < -0.01 - (lv == 0 ? half : 0)) continue;
            if (bu > N - 0.99 + (lu == 0 ? half : 0) || bv > N - 0.99 + (lv == 0 ? half : 0)) continue;
            double a = bu - u, b = bv - v;
            gs_pix p;
            if (!gs_pixel_nearest(img, bx + J[0] * a + J[1] * b, by + J[2] * a + J[3] * b, &p)) continue;
            sum += gs_luma(p.b, p.g, p.r);
            cnt++;
        }
        prof[i] = cnt ? sum / cnt : -1;
    }
    /* A line is a dip: darker than something on BOTH sides of it.  The
     * deepest dip anywhere in the profile counts, so a line a little off
     * the fitted position is still found, while a step (the edge of a stone
     * or of its shadow) gives no dip at all. */
    double lmax[41], rmax[41];
    double run = -1;
    for (int i = 0; i < nd; i++) { lmax[i] = run; if (prof[i] > run) run = prof[i]; }
    run = -1;
    for (int i = nd - 1; i >= 0; i--) { rmax[i] = run; if (prof[i] > run) run = prof[i]; }
    double best = 0;
    int seen = 0;
    for (int i = 0; i < nd; i++) {
        if (prof[i] < 0) continue;
        seen = 1;
        if (lmax[i] < 0 || rmax[i] < 0) continue;
        double side = fmin(lmax[i], rmax[i]);
        if (side - prof[i] > best) best = side - prof[i];
    }
    if (!seen) return 0;
    return best / Yw;
}

/* Median brightness of the ring between 0.5 and 0.62 cell round image
 * point (cx, cy) (J: the local grid Jacobian) over disc_y; 1 when unseen. */
static float ring_ratio(const gs_image *img, double cx, double cy, const double J[4], double disc_y)
{
    int hist[256] = {0}, cnt = 0;
    for (int k = 0; k < 48; k++) {
        double a = 2 * M_PI * k / 48;
        for (int r = 0; r < 3; r++) {
            double rad = 0.5 + 0.06 * r, du = rad * cos(a), dv = rad * sin(a);
            gs_pix p;
            if (!gs_pixel_nearest(img, cx + J[0] * du + J[1] * dv, cy + J[2] * du + J[3] * dv, &p)) continue;
            int Y = (int)gs_luma(p.b, p.g, p.r);
            hist[Y > 255 ? 255 : Y]++;
            cnt++;
        }
    }
    if (cnt < 24 || disc_y < 1) return 1;
    int acc = 0, k = 0;
    while (k < 255 && (acc += hist[k]) * 2 < cnt) k++;
    return (float)(k / disc_y);
}

/* the disc follows the middle of a stone's body (VISION_STONE_H) */
#define STONE_H VISION_STONE_H
#define DISC_R 0.30

/* The four halves of a stone's ring (vision_stone_halves): SIDE_ANGLES x
 * SIDE_RADII samples each, within 45 degrees either side of its axis. */
#define SIDE_IN 0.14
#define SIDE_OUT 0.42
enum { SIDE_ANGLES = 5, SIDE_RADII = 3, SIDE_N = SIDE_ANGLES * SIDE_RADII };

void vision_stone_halves(const gs_image *img, const vision_grid *g, const vision_cam *cam, const vision_wood *w, int u,
                         int v, float side[4])
{
    static const double axis[4] = {0, M_PI, M_PI / 2, -M_PI / 2};
    double cx, cy, J[4], ox, oy, wc[3];
    vision_wood_at(w, u, v, wc);
    double Yw = gs_luma(wc[0], wc[1], wc[2]);
    vision_grid_map(g, u, v, &cx, &cy);
    vision_grid_jacobian(g, u, v, J);
    vision_cam_offset(cam, u, v, STONE_H, &ox, &oy);
    for (int d = 0; d < 4; d++) {
        float y[SIDE_N];
        int n = 0;
        for (int k = 0; k < SIDE_ANGLES; k++)
            for (int j = 0; j < SIDE_RADII; j++) {
                double a = axis[d] + (k - SIDE_ANGLES / 2) * (M_PI / 4) / (SIDE_ANGLES / 2);
                double rad = SIDE_IN + (SIDE_OUT - SIDE_IN) * j / (SIDE_RADII - 1), du = rad * cos(a), dv = rad * sin(a);
                gs_pix p;
                if (!gs_pixel_nearest(img, cx + ox + J[0] * du + J[1] * dv, cy + oy + J[2] * du + J[3] * dv, &p)) continue;
                /* (sorted as they come: a few values) */
                float val = (float)gs_luma(p.b, p.g, p.r);
                int at = n++;
                for (; at > 0 && y[at - 1] > val; at--) y[at] = y[at - 1];
                y[at] = val;
            }
        side[d] = Yw < 1 ? 1 : n ? (float)(y[n / 2] / Yw) : 0;
    }
}

/* Just outside an edge point, in the margin (a disc of 0.2 cell at 0.4
 * cell out, followed up to a stone's middle as the point's own disc is):
 * brightness and wood hue of its median colour, relative to the wood
 * there.  A stone set off its edge point towards the board's edge lies
 * there; the margin's wood does not look like a stone. */
#define MARGIN_OUT 0.4
static void margin_disc(const gs_image *img, const vision_grid *g, const vision_cam *cam, const vision_wood *w,
                        double u, double v, float *lum, float *wood)
{
    double wc[3], c[3], cw[2], ch[2], cx, cy, J[4], ox, oy;
    *lum = 1;
    *wood = 1;
    vision_wood_at(w, u, v, wc);
    double Yw = gs_luma(wc[0], wc[1], wc[2]);
    vision_grid_map(g, u, v, &cx, &cy);
    vision_grid_jacobian(g, u, v, J);
    vision_cam_offset(cam, u, v, STONE_H, &ox, &oy);
    if (Yw < 1 || !vision_patch_median_at(img, cx + ox, cy + oy, J, 0.2, c)) return;
    double cw2 = vision_wood_hue_ref(wc, cw);
    vision_chroma(c[0], c[1], c[2], ch);
    *lum = (float)(gs_luma(c[0], c[1], c[2]) / Yw);
    *wood = (float)((ch[0] * cw[0] + ch[1] * cw[1]) / cw2);
}

/* The margin disc of every edge point (the brighter one at a corner, a
 * light stone being what is looked for, and the darker one's brightness
 * apart); 1, 1 (the wood) elsewhere. */
static void margin_discs(const gs_image *img, const vision_grid *g, const vision_cam *cam, const vision_wood *w,
                         vision_point_features *feat)
{
    int N = g->size;
    for (int v = 0; v < N; v++)
        for (int u = 0; u < N; u++) {
            vision_point_features *F = &feat[v * N + u];
            F->margin_lum = F->margin_wood = F->margin_dark = 1;
            int du = u == 0 ? -1 : u == N - 1 ? 1 : 0, dv = v == 0 ? -1 : v == N - 1 ? 1 : 0, got = 0;
            for (int k = 0; k < 2; k++) {
                int a = k == 0 ? du : 0, b = k == 0 ? 0 : dv;
                if (!a && !b) continue;
                float l, wd;
                margin_disc(img, g, cam, w, u + MARGIN_OUT * a, v + MARGIN_OUT * b, &l, &wd);
                if (!got || l > F->margin_lum) { F->margin_lum = l; F->margin_wood = wd; }
                if (!got || l < F->margin_dark) F->margin_dark = l;
                got = 1;
            }
        }
}

/* The hue histograms of a disc: 64 bins of 1/16 from lo. */
static int hue_bin(double x, double lo)
{
    int b = (int)((x - lo) * 16);
    return b < 0 ? 0 : b > 63 ? 63 : b;
}

/* The middle of the bin holding the median of the n samples of h. */
static float hue_median(const int h[64], int n, double lo)
{
    int k = 0, acc = 0;
    while (k < 63 && (acc += h[k]) * 2 < n) k++;
    return (float)((k + 0.5) / 16.0 + lo);
}

/* long because: one pass over each point's disc fills the brightness and
 * hue histograms every feature is read from; split, it would walk the
 * disc several times. */
gs_status vision_read_features(const vision_params *P, const gs_image *img, const vision_grid *g, vision_point_features *feat, gs_error *err)
{
    if (!img || !img->buf || img->width <= 0 || img->height <= 0)
        return gs_error_set(err, GS_ERR_USAGE, "empty image");
    if (!g || g->size < 5 || g->size > GS_MAX_SIZE)
        return gs_error_set(err, GS_ERR_USAGE, "bad grid");
    vision_wood w;
    gs_status st = vision_wood_fit(img, g, &w, err);
    if (st != GS_OK) return st;
    vision_cam cam;
    vision_cam_fit(&cam, g->H, img->width, img->height);
    int N = g->size;
    for (int v = 0; v < N; v++)
        for (int u = 0; u < N; u++) {
            vision_point_features *F = &feat[v * N + u];
            double wc[3];
            vision_wood_at(&w, u, v, wc);
            double Yw = gs_luma(wc[0], wc[1], wc[2]);
            double cw[2], cw2 = vision_wood_hue_ref(wc, cw);
            double cx, cy, J[4], ox, oy;
            vision_grid_map(g, u, v, &cx, &cy);
            vision_grid_jacobian(g, u, v, J);
            double cell0 = sqrt(fabs(J[0] * J[3] - J[1] * J[2]));
            F->lines = (float)(0.5 * (line_contrast(img, cx, cy, J, N, u, v, 1, 0, cell0, Yw) +
                                      line_contrast(img, cx, cy, J, N, u, v, 0, 1, cell0, Yw)));
            double bc[3];
            F->base = vision_patch_median_at(img, cx, cy, J, 0.12, bc) ? (float)(gs_luma(bc[0], bc[1], bc[2]) / Yw) : 1;
            vision_cam_offset(&cam, u, v, STONE_H, &ox, &oy);
            cx += ox;
            cy += oy;
            double cell = sqrt(fabs(J[0] * J[3] - J[1] * J[2]));
            int n = (int)(cell * DISC_R * 2) + 1; /* about one sample per pixel */
            if (n < 5) n = 5;
            if (n > 17) n = 17;
            int hist[HIST_BINS] = {0};
            int whist[64] = {0}, xhist[64] = {0};
            int cnt = 0, ndark = 0, nneu = 0, nw = 0;
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++) {
                    double a = DISC_R * (2.0 * i / (n - 1) - 1), b = DISC_R * (2.0 * j / (n - 1) - 1);
                    if (a * a + b * b > DISC_R * DISC_R * 1.0001) continue;
                    gs_pix p;
                    if (!gs_pixel_nearest(img, cx + J[0] * a + J[1] * b, cy + J[2] * a + J[3] * b, &p)) continue;
                    double Y = gs_luma(p.b, p.g, p.r);
                    double yr = Y / Yw;
                    int bin = (int)(yr / HIST_MAX * HIST_BINS);
                    if (bin >= HIST_BINS) bin = HIST_BINS - 1;
                    hist[bin]++;
                    cnt++;
                    if (yr < P->dark_pixel) ndark++;
                    if (yr >= 0.45) {
                        double ch[2];
                        vision_chroma(p.b, p.g, p.r, ch);
                        double s = (ch[0] * cw[0] + ch[1] * cw[1]) / cw2;
                        if (yr > P->neutral_lum && s < P->neutral_hue) nneu++;
                        whist[hue_bin(s, -1)]++;                                 /* -1..3 */
                        xhist[hue_bin((ch[0] * cw[1] - ch[1] * cw[0]) / cw2, -2)]++; /* -2..2 */
                        nw++;
                    }
                }
            if (!cnt) {
                /* Off the image (edge cut by the frame): nothing seen. */
                F->lum = 1; F->dark = 0; F->neutral = 0; F->woodlike = 1; F->cross = 0; F->spread = 0; F->lines = 0; F->ring = 1; F->base = 1;
                F->seen = 0;
                continue;
            }
            int acc = 0, q1 = -1, q2 = -1, q3 = -1;
            for (int k = 0; k < HIST_BINS; k++) {
                acc += hist[k];
                if (q1 < 0 && acc * 4 >= cnt) q1 = k;
                if (q2 < 0 && acc * 2 >= cnt) q2 = k;
                if (q3 < 0 && acc * 4 >= 3 * cnt) { q3 = k; break; }
            }
            F->lum = (float)((q2 + 0.5) * HIST_MAX / HIST_BINS);
            F->spread = (float)((q3 - q1) * HIST_MAX / HIST_BINS);
            F->dark = (float)ndark / cnt;
            F->neutral = (float)nneu / cnt;
            if (nw) {
                F->woodlike = hue_median(whist, nw, -1);
                F->cross = hue_median(xhist, nw, -2);
            } else {
                F->woodlike = 0;
                F->cross = 0;
            }
            F->ring = ring_ratio(img, cx, cy, J, F->lum * Yw);
            F->seen = 1;
        }
    margin_discs(img, g, &cam, &w, feat);
    return GS_OK;
}
