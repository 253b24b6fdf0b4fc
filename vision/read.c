/* vision/read.c: stage 2 of the vision pipeline: photo + grid -> every
 * intersection as empty, black or white with a confidence.
 *
 * Method (all relative to the photo itself, no fixed colours):
 *  1. Wood model: small patches at the cell centres (between four points,
 *     where even a crowded board shows wood) give the board colour; a
 *     robust quadratic surface per channel over the board follows lighting
 *     gradients and ignores patches covered by stones.
 *  2. Camera model: a focal length and pose estimated from the homography
 *     tell where the top of a stone (about 0.4 cell high) appears, so the
 *     sampled disc follows the stone, not its base, in oblique views.
 *  3. Features per point: a disc of radius ~0.3 cell, brightness relative
 *     to the local wood, fraction of dark pixels, fraction of bright
 *     colourless pixels, median "wood hue" strength.
 *     Line evidence: the contrast of the two grid lines through the point
 *     (at the board surface) as the deepest dip across each line - darker
 *     than both sides, so the edge of a stone or of its shadow is no line -
 *     relative to the typical empty point AROUND it (focus and light vary
 *     over the board).
 *  4. Classification: black = much darker than the wood; white = the grid
 *     lines are hidden (a white stone covers them; bright wood, glare or a
 *     pale grey board shows them) and the disc is brighter than the wood,
 *     or, on a pale board where a white stone is hardly brighter, clearly
 *     colourless while not dark.  Every boundary is relative to the photo's
 *     own wood or typical empty point, so dim or tinted light and the
 *     resolution move them with the data.  Confidence = margin to the
 *     nearest boundary.
 *  5. Occlusion: a white reading on an edge point whose colour carries on
 *     well beyond the board edge, unlike the table beside the board, is a
 *     hand or sleeve reaching in, not a stone: read as empty, unsure.
 *  (Between 4 and 5, vision/read_near.c compares each point's image patch
 *  with the sure points round it, and vision/read_self.c reads the points
 *  still unsure with a classifier fitted to the photo's sure points: see
 *  there.)
 */
#include "vision/vision_internal.h"

#include <math.h>
#include <stddef.h>
#ifdef GRID_DEBUG
#include <stdio.h>
#endif
#include <stdlib.h>
#include <string.h>

/* --------------------------------------------------------------- sampling */

#define HIST_BINS 256   /* relative brightness histogram, 0..HIST_MAX */
#define HIST_MAX 2.56

typedef struct pix { int b, g, r; } pix;

/* The pixel nearest (x, y): x + 0.5 truncated is lround(x) wherever the
 * pixel is in the image, without a call to libm for each of the ~1500
 * samples a point takes (NaN falls outside). */
static inline int get_pix(const gs_image *img, double x, double y, pix *p)
{
    double xr = x + 0.5, yr = y + 0.5;
    if (!(xr > 0 && yr > 0 && xr < img->width && yr < img->height)) return 0;
    int ix = (int)xr, iy = (int)yr;
    const uint8_t *q = img->buf + (size_t)iy * img->stride + (size_t)ix * img->channels;
    if (img->channels == 1) { p->b = p->g = p->r = q[0]; }
    else { p->b = q[0]; p->g = q[1]; p->r = q[2]; }
    return 1;
}

static inline double luma(double b, double g, double r) { return (b + 2 * g + r) / 4; }

/* Local affine map of the grid at (u,v): d(x,y)/d(u,v). */
static void grid_jacobian(const vision_grid *g, double u, double v, double J[4])
{
    double x0, y0, x1, y1, x2, y2, x3, y3;
    vision_grid_map(g, u - 0.5, v, &x0, &y0);
    vision_grid_map(g, u + 0.5, v, &x1, &y1);
    vision_grid_map(g, u, v - 0.5, &x2, &y2);
    vision_grid_map(g, u, v + 0.5, &x3, &y3);
    J[0] = x1 - x0; J[1] = x3 - x2;
    J[2] = y1 - y0; J[3] = y3 - y2;
}

/* Median colour of a small disc (radius rad cells) round image point
 * (cx, cy), where the grid's local map is J; returns the number of pixels
 * seen (0 when outside the image). */
static int patch_median_at(const gs_image *img, double cx, double cy, const double J[4], double rad, double out[3])
{
    double cell = sqrt(fabs(J[0] * J[3] - J[1] * J[2]));
    int n = (int)(cell * rad * 2 / 1.5) + 1; /* ~1.5 px steps */
    if (n < 3) n = 3;
    if (n > 9) n = 9;
    int hb[256] = {0}, hg[256] = {0}, hr[256] = {0};
    int cnt = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double a = rad * (2.0 * i / (n - 1) - 1), b = rad * (2.0 * j / (n - 1) - 1);
            if (a * a + b * b > rad * rad * 1.0001) continue;
            pix p;
            if (!get_pix(img, cx + J[0] * a + J[1] * b, cy + J[2] * a + J[3] * b, &p)) continue;
            hb[p.b]++; hg[p.g]++; hr[p.r]++;
            cnt++;
        }
    if (!cnt) return 0;
    int *hs[3] = {hb, hg, hr};
    for (int c = 0; c < 3; c++) {
        int acc = 0, k = 0;
        while (k < 255 && (acc += hs[c][k]) * 2 < cnt) k++;
        out[c] = k;
    }
    return cnt;
}

/* The same round board point (u, v). */
static int patch_median(const gs_image *img, const vision_grid *g, double u, double v, double rad, double out[3])
{
    double cx, cy, J[4];
    vision_grid_map(g, u, v, &cx, &cy);
    grid_jacobian(g, u, v, J);
    return patch_median_at(img, cx, cy, J, rad, out);
}

/* ------------------------------------------------------------- wood model */

/* Quadratic surface per channel: c0 + c1 u + c2 v + c3 u^2 + c4 v^2 + c5 uv,
 * with u, v scaled to about -1..1 (vision_wood in vision_internal.h). */
typedef vision_wood wood_model;

static void wood_terms(const wood_model *w, double u, double v, double t[6])
{
    double a = u * w->scale - 1, b = v * w->scale - 1;
    t[0] = 1; t[1] = a; t[2] = b; t[3] = a * a; t[4] = b * b; t[5] = a * b;
}

void vision_wood_at(const vision_wood *w, double u, double v, double out[3])
{
    double t[6];
    wood_terms(w, u, v, t);
    for (int c = 0; c < 3; c++) {
        double s = 0;
        for (int i = 0; i < 6; i++) s += w->k[c][i] * t[i];
        out[c] = s < 1 ? 1 : s;
    }
}

/* Least squares of nt terms (nt <= 6) by normal equations. */
static int lsq(int nt, int n, const double (*T)[6], const double *y, const int *use, double *k)
{
    double A[6][7] = {{0}};
    for (int s = 0; s < n; s++) {
        if (!use[s]) continue;
        for (int i = 0; i < nt; i++) {
            for (int j = 0; j < nt; j++) A[i][j] += T[s][i] * T[s][j];
            A[i][nt] += T[s][i] * y[s];
        }
    }
    for (int c = 0; c < nt; c++) {
        int piv = c;
        for (int r = c + 1; r < nt; r++)
            if (fabs(A[r][c]) > fabs(A[piv][c])) piv = r;
        if (fabs(A[piv][c]) < 1e-9) return -1;
        if (piv != c)
            for (int j = 0; j <= nt; j++) { double x = A[c][j]; A[c][j] = A[piv][j]; A[piv][j] = x; }
        for (int r = 0; r < nt; r++) {
            if (r == c) continue;
            double f = A[r][c] / A[c][c];
            for (int j = c; j <= nt; j++) A[r][j] -= f * A[c][j];
        }
    }
    for (int i = 0; i < nt; i++) k[i] = A[i][nt] / A[i][i];
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Chromaticity of a colour: (R-G, G-B) over its brightness. */
static void chroma(double b, double g, double r, double out[2])
{
    double y = luma(b, g, r);
    if (y < 1) y = 1;
    out[0] = (r - g) / y;
    out[1] = (g - b) / y;
}

/* The wood's chromaticity (into cw) and its squared size, floored (on a
 * grey board hue says little): a colour's wood hue is its chromaticity
 * projected on cw over that. */
static double wood_hue_ref(const double wc[3], double cw[2])
{
    chroma(wc[0], wc[1], wc[2], cw);
    double cw2 = cw[0] * cw[0] + cw[1] * cw[1];
    return cw2 < 0.0025 ? 0.0025 : cw2;
}

/* Samples of one wood fit: cell-centre patches (and those of the margin
 * ring beyond the outer lines) with their terms and colours. */
typedef struct wood_samples {
    int n;
    double (*T)[6], (*col)[3], *y;
    int *use;
} wood_samples;

/* Whether sample s looks like surface w there: brightness and
 * chromaticity close, loose (the start may be off) or tight (pale stones
 * of another hue, green or shell, must not pass for wood where they crowd
 * a region). */
static int wood_like(const wood_samples *S, int s, const vision_wood *w, int loose)
{
    double pred[3] = {0, 0, 0};
    for (int c = 0; c < 3; c++)
        for (int i = 0; i < 6; i++) pred[c] += w->k[c][i] * S->T[s][i];
    double Yp = luma(pred[0], pred[1], pred[2]), Ys = luma(S->col[s][0], S->col[s][1], S->col[s][2]);
    double cp[2], cs[2];
    chroma(pred[0], pred[1], pred[2], cp);
    chroma(S->col[s][0], S->col[s][1], S->col[s][2], cs);
    double dc = hypot(cp[0] - cs[0], cp[1] - cs[1]), cw = hypot(cp[0], cp[1]);
    return Yp > 1 && fabs(Ys / Yp - 1) < (loose ? 0.25 : 0.15) && dc < (loose ? 0.5 : 0.25) * cw + (loose ? 0.04 : 0.03);
}

/* Keeps the samples like w, fits, and repeats with the fitted surface;
 * returns how many samples the final surface explains (tight). */
static int wood_iterate(const wood_samples *S, vision_wood *w)
{
    for (int iter = 0; iter < 4 && S->n >= 12; iter++) {
        int inl = 0;
        for (int s = 0; s < S->n; s++) inl += S->use[s] = wood_like(S, s, w, iter == 0);
        int nt = inl >= 30 ? 6 : inl >= 12 ? 3 : 0;
        if (!nt) break;
        double k[6], knew[3][6] = {{0}};
        int ok = 1;
        for (int c = 0; c < 3 && ok; c++) {
            for (int s = 0; s < S->n; s++) S->y[s] = S->col[s][c];
            if (lsq(nt, S->n, (const double (*)[6])S->T, S->y, S->use, k) != 0) ok = 0;
            else for (int i = 0; i < nt; i++) knew[c][i] = k[i];
        }
        if (!ok) break;
        memcpy(w->k, knew, sizeof knew);
    }
    int inl = 0;
    for (int s = 0; s < S->n; s++) inl += wood_like(S, s, w, 0);
    return inl;
}

/* Flat start: the median colour of the samples with sel[s] (all when sel
 * is NULL) whose brightness lies within lo..hi times medY. */
static void wood_start(const wood_samples *S, const unsigned char *sel, double medY, double lo, double hi, double *tmp,
                       vision_wood *w)
{
    for (int c = 0; c < 3; c++) {
        int m = 0;
        for (int s = 0; s < S->n; s++) {
            double Y = luma(S->col[s][0], S->col[s][1], S->col[s][2]);
            if ((!sel || sel[s]) && Y > lo * medY && Y < hi * medY) tmp[m++] = S->col[s][c];
        }
        if (m) { qsort(tmp, (size_t)m, sizeof *tmp, cmp_double); w->k[c][0] = tmp[m / 2]; }
    }
}

gs_status vision_wood_fit(const gs_image *img, const vision_grid *g, vision_wood *w, gs_error *err)
{
    int N = g->size, maxs = (N + 1) * (N + 1);
    wood_samples S = {0, malloc(sizeof *S.T * (size_t)maxs), malloc(sizeof *S.col * (size_t)maxs),
                      malloc(sizeof *S.y * (size_t)maxs), malloc(sizeof *S.use * (size_t)maxs)};
    double *tmp = malloc(sizeof *tmp * (size_t)maxs);
    unsigned char *margin = malloc((size_t)maxs);
    gs_status st = GS_OK;
    if (!S.T || !S.col || !S.y || !S.use || !tmp || !margin) {
        st = gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        goto done;
    }
    memset(w, 0, sizeof *w);
    w->scale = 2.0 / (N - 1);
    int nm = 0;
    for (int v = -1; v < N; v++)
        for (int u = -1; u < N; u++) {
            double c[3];
            if (!patch_median(img, g, u + 0.5, v + 0.5, 0.12, c)) continue;
            wood_terms(w, u + 0.5, v + 0.5, S.T[S.n]);
            memcpy(S.col[S.n], c, sizeof c);
            margin[S.n] = u == -1 || v == -1 || u == N - 1 || v == N - 1;
            nm += margin[S.n];
            S.n++;
        }
    double medY = 128;
    if (S.n > 0) {
        for (int s = 0; s < S.n; s++) tmp[s] = luma(S.col[s][0], S.col[s][1], S.col[s][2]);
        qsort(tmp, (size_t)S.n, sizeof *tmp, cmp_double);
        medY = tmp[S.n / 2];
    }
    for (int c = 0; c < 3; c++) w->k[c][0] = medY; /* fallback: flat grey-ish */
    /* Two starts: the median colour of the wood-like samples (most cells
     * of most games show wood), and that of the margin ring between the
     * outer lines and the board's edge (stones seldom cover it, while a
     * crowded board's cells may show more stones than wood).  The surface
     * that explains more samples is the wood. */
    vision_wood wm = *w;
    wood_start(&S, NULL, medY, 0.7, 1.4, tmp, w);
    int inl = wood_iterate(&S, w);
    if (nm >= N) {
        wood_start(&S, margin, medY, 0, 1e9, tmp, &wm);
        if (wood_iterate(&S, &wm) > inl) *w = wm;
    }
done:
    free(S.T); free(S.col); free(S.y); free(S.use); free(tmp); free(margin);
    return st;
}

/* ---------------------------------------------------------------- features */

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
            pix p;
            if (!get_pix(img, bx + J[0] * a + J[1] * b, by + J[2] * a + J[3] * b, &p)) continue;
            sum += luma(p.b, p.g, p.r);
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
            pix p;
            if (!get_pix(img, cx + J[0] * du + J[1] * dv, cy + J[2] * du + J[3] * dv, &p)) continue;
            int Y = (int)luma(p.b, p.g, p.r);
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
    double Yw = luma(wc[0], wc[1], wc[2]);
    vision_grid_map(g, u, v, &cx, &cy);
    grid_jacobian(g, u, v, J);
    vision_cam_offset(cam, u, v, STONE_H, &ox, &oy);
    for (int d = 0; d < 4; d++) {
        float y[SIDE_N];
        int n = 0;
        for (int k = 0; k < SIDE_ANGLES; k++)
            for (int j = 0; j < SIDE_RADII; j++) {
                double a = axis[d] + (k - SIDE_ANGLES / 2) * (M_PI / 4) / (SIDE_ANGLES / 2);
                double rad = SIDE_IN + (SIDE_OUT - SIDE_IN) * j / (SIDE_RADII - 1), du = rad * cos(a), dv = rad * sin(a);
                pix p;
                if (!get_pix(img, cx + ox + J[0] * du + J[1] * dv, cy + oy + J[2] * du + J[3] * dv, &p)) continue;
                /* (sorted as they come: a few values) */
                float val = (float)luma(p.b, p.g, p.r);
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
    double Yw = luma(wc[0], wc[1], wc[2]);
    vision_grid_map(g, u, v, &cx, &cy);
    grid_jacobian(g, u, v, J);
    vision_cam_offset(cam, u, v, STONE_H, &ox, &oy);
    if (Yw < 1 || !patch_median_at(img, cx + ox, cy + oy, J, 0.2, c)) return;
    double cw2 = wood_hue_ref(wc, cw);
    chroma(c[0], c[1], c[2], ch);
    *lum = (float)(luma(c[0], c[1], c[2]) / Yw);
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
gs_status vision_read_features(const gs_image *img, const vision_grid *g, vision_point_features *feat, gs_error *err)
{
    if (!img || !img->buf || img->width <= 0 || img->height <= 0)
        return gs_error_set(err, GS_ERR_USAGE, "empty image");
    if (!g || g->size < 5 || g->size > GS_MAX_SIZE)
        return gs_error_set(err, GS_ERR_USAGE, "bad grid");
    wood_model w;
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
            double Yw = luma(wc[0], wc[1], wc[2]);
            double cw[2], cw2 = wood_hue_ref(wc, cw);
            double cx, cy, J[4], ox, oy;
            vision_grid_map(g, u, v, &cx, &cy);
            grid_jacobian(g, u, v, J);
            double cell0 = sqrt(fabs(J[0] * J[3] - J[1] * J[2]));
            F->lines = (float)(0.5 * (line_contrast(img, cx, cy, J, N, u, v, 1, 0, cell0, Yw) +
                                      line_contrast(img, cx, cy, J, N, u, v, 0, 1, cell0, Yw)));
            double bc[3];
            F->base = patch_median_at(img, cx, cy, J, 0.12, bc) ? (float)(luma(bc[0], bc[1], bc[2]) / Yw) : 1;
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
                    pix p;
                    if (!get_pix(img, cx + J[0] * a + J[1] * b, cy + J[2] * a + J[3] * b, &p)) continue;
                    double Y = luma(p.b, p.g, p.r);
                    double yr = Y / Yw;
                    int bin = (int)(yr / HIST_MAX * HIST_BINS);
                    if (bin >= HIST_BINS) bin = HIST_BINS - 1;
                    hist[bin]++;
                    cnt++;
                    if (yr < 0.5) ndark++;
                    if (yr >= 0.45) {
                        double ch[2];
                        chroma(p.b, p.g, p.r, ch);
                        double s = (ch[0] * cw[0] + ch[1] * cw[1]) / cw2;
                        if (yr > 0.75 && s < 0.45) nneu++;
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

/* ----------------------------------------------------------- classification */

static float clampf(float x, float lo, float hi) { return x < lo ? lo : x > hi ? hi : x; }

/* Decision boundaries, all relative to the photo's own wood (lum, woodlike)
 * or to its own typical empty point (lines / typical line contrast), so
 * that brightness, tint and resolution of the photo cancel out. */
#define BLACK_LUM 0.60f    /* darker than 60% of the wood: a black stone */
#define WHITE_LUM 1.12f    /* brighter than the wood by 12%: white evidence */
#define LINES_GONE 0.40f   /* grid lines at < 40% of their usual contrast */
#define LINES_HIDDEN 0.50f /* under half their usual contrast: hidden by a stone */
#define GREY_HUE 0.30f     /* under 30% of the wood's hue: colourless */
#define LOCAL_R 3          /* neighbourhood (points) for the typical line contrast */

/* ------------------------------------------------------ the populations */

/* The empty points and the light stones as this photo shows them: the
 * median and robust spread of brightness and wood-hue strength, so that
 * coloured lamps, flash and unusual stones (pale green, shell, yunzi) are
 * told apart by what this board's own wood and stones look like. */
typedef struct population { float lum, wood, cross, s_lum, s_wood, s_cross, ring; int n; } population;

/* Floor of the spread of cross (about 1.5 of its 1/16 bins: what the
 * measure resolves). */
#define CROSS_FLOOR 0.1f
/* Lines under this share of their usual contrast: a stone hides them. */
#define LIGHT_LINES 0.3f
/* A light stone's ring is darker than its disc by this much or more
 * (wood and glare: about 1). */
#define RING_STONE 0.9f
/* The two populations tell apart by colour from this many spreads
 * between their middles (real boards 1.9-17, but pale green stones under
 * violet light 0.3)... */
#define POP_APART 1.5f
/* ...or by the ring: the light points' median ring this much darker than
 * the wood's (real boards 0.19-0.55; ruled paper 0) */
#define RING_APART 0.12f
/* Lines at this share of their usual contrast or more: no light stone
 * there (white stones on the visible photos: 97% under 0.7). */
#define LINES_SHOW 0.85f
/* A disc whose brightness spreads this much (interquartile, over the
 * wood's) is half one thing, half another. */
#define EDGE_SPREAD 0.6f
/* Within this many spreads of the light stones' middle: looks like one. */
#define LIGHT_LIKE 2.0f
/* Within this many spreads of the light stones' middle, and this many
 * from the wood's: a light stone's colour, clearly. */
#define LIGHT_SAME 1.0f
#define WOOD_AWAY 1.7f
/* Evidence this strong on both sides (in spreads): the point is unsure. */
#define DISAGREE 1.0f
/* Darker than this and the lines hidden: a dark stone under a lamp that
 * makes it look less dark (dark green under blue light). */
#define DARKISH_LUM 0.8f
/* ...over this share: the point shows its lines (wood). */
#define WOOD_LINES 0.7f
/* The intersection itself this bright against the wood, and its lines at
 * this share of their usual contrast: wood shows at the point. */
#define BASE_WOOD 0.8f
#define BASE_LINES 0.6f
/* An intersection this much brighter than the wood: a light stone there. */
#define BASE_LIGHT 1.15f
/* ...this much, under a disc of the wood's colour: a light stone set off
 * towards the camera. */
#define BASE_SET_OFF 1.2f
/* A ring this bright against its disc or more: no stone's ring (the
 * light stones' median ring 0.65-0.72 on the visible photos). */
#define RING_NONE 0.95f
/* A margin disc nearly as bright as its edge point's disc (photo noise and
 * the fall-off of a lamp's light apart): the light goes on past the board. */
#define MARGIN_LIT 0.95f
/* A margin disc this dark against the wood lies past the board's edge. */
#define MARGIN_OFF 0.6f
/* An intersection this dark against the wood (a black stone's body: 0.01-0.02
 * where the disc missed it; drawn lines darken it to 0.10 at the least)
 * with a ring this much brighter than its disc (dark stones 1.27 and more,
 * empty points about 1): a black stone stands there. */
#define BASE_DARK 0.06f
#define RING_DARK 1.15f

static float median_of(float *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, vision_cmp_float);
    return v[n / 2];
}

/* The values of one float field (at byte offset off) of the points with
 * sel[i], into v; returns how many. */
static int selected(const vision_point_features *F, const unsigned char *sel, int NN, size_t off, float *v)
{
    int n = 0;
    for (int i = 0; i < NN; i++)
        if (sel[i]) v[n++] = *(const float *)((const char *)&F[i] + off);
    return n;
}

/* Median of the n values of v and, into *spread, 1.48 times their median
 * absolute deviation (v is overwritten). */
static float median_spread(float *v, int n, float *spread)
{
    float m = median_of(v, n);
    for (int i = 0; i < n; i++) v[i] = fabsf(v[i] - m);
    *spread = 1.48f * median_of(v, n);
    return m;
}

/* Median and spread (at least the floors) of lum and woodlike, and the
 * median ring, over the points with sel[i]. */
static void population_of(const vision_point_features *F, const unsigned char *sel, int NN, float fl, float fw,
                          float *tmp, population *p)
{
    int n = selected(F, sel, NN, offsetof(vision_point_features, lum), tmp);
    p->n = n;
    if (n < 4) return;
    float s;
    p->lum = median_spread(tmp, n, &s);
    p->s_lum = fmaxf(fl, s);
    selected(F, sel, NN, offsetof(vision_point_features, woodlike), tmp);
    p->wood = median_spread(tmp, n, &s);
    p->s_wood = fmaxf(fw, s);
    selected(F, sel, NN, offsetof(vision_point_features, cross), tmp);
    p->cross = median_spread(tmp, n, &s);
    p->s_cross = fmaxf(CROSS_FLOOR, s);
    selected(F, sel, NN, offsetof(vision_point_features, ring), tmp);
    p->ring = median_of(tmp, n);
}

/* A point that may be a light stone: its lines hidden (Cl: its usual
 * line contrast), its disc not dark. */
static int hides_lines_not_dark(const vision_point_features *f, float Cl)
{
    return f->lines / Cl < LIGHT_LINES && f->lum >= DARKISH_LUM;
}

/* The two populations: 2 when both are seen and their colours differ, 1
 * when only their rings do, -1 when both are seen but look alike, 0 when
 * too few points show either (then the fixed rules of vision_read
 * decide). */
static int populations_fit(const vision_point_features *F, const float *Cl, int NN, population *wood, population *light)
{
    unsigned char *sel = malloc((size_t)NN);
    float *tmp = malloc(sizeof *tmp * (size_t)NN);
    memset(wood, 0, sizeof *wood);
    memset(light, 0, sizeof *light);
    if (!sel || !tmp) { free(sel); free(tmp); return 0; }
    /* wood: shows its lines, brightness like the wood model's */
    for (int i = 0; i < NN; i++) sel[i] = F[i].lines / Cl[i] > WOOD_LINES && F[i].lum > 0.85f && F[i].lum < 1.15f;
    population_of(F, sel, NN, 0.06f, 0.2f, tmp, wood);
    /* light stones: hide their lines and are not dark (under a lamp of one
     * colour pale green stones may look just like the wood: then the
     * populations coincide and the lines decide) */
    for (int i = 0; i < NN; i++) sel[i] = hides_lines_not_dark(&F[i], Cl[i]);
    population_of(F, sel, NN, 0.08f, 0.2f, tmp, light);
    free(sel);
    free(tmp);
    if (wood->n < 4 || light->n < 4) return 0;
    /* different when their colours lie apart by a few spreads, or when the
     * light points stand out from their rings and the wood does not (pale
     * stones under a lamp of their own colour); ruled paper, where the
     * "light stones" are paper between the lines, is neither */
    float dl = (light->lum - wood->lum) / fmaxf(wood->s_lum, light->s_lum);
    float dw = (light->wood - wood->wood) / fmaxf(wood->s_wood, light->s_wood);
    float dx = (light->cross - wood->cross) / fmaxf(wood->s_cross, light->s_cross);
    if (sqrtf(dl * dl + dw * dw + dx * dx) >= POP_APART) return 2;
    return wood->ring - light->ring >= RING_APART ? 1 : -1;
}

/* The terms a light point was judged by (classify_light): colour (q, a
 * log-likelihood ratio, > 0 light stone), lines hidden (l), ring darker
 * (r), their sum (t), the lines' share of their usual contrast (ln) and
 * the colour across the wood's hue alone (xq, as q). */
typedef struct light_terms { float q, l, r, t, ln, xq; } light_terms;

/* 1 when the evidence for a light point's reading disagrees too much for
 * it to be sure (colour_apart: the two populations differ in colour). */
static int light_doubt(const light_terms *k, int colour_apart)
{
    float q = k->q, l = k->l, r = k->r, t = k->t, ln = k->ln, xq = k->xq;
    /* the colour against both the lines and the ring, or against lines
     * clearly hidden or clearly shown: unsure whichever wins (bleached
     * wood at a lit edge looks like a light stone, a pale stone under a
     * lamp of its own colour like the wood) */
    float body = l + r;
    /* (but a light stone whose ring says so as clearly as its colour, or
     * whose colour says so clearly and its ring not against, is not
     * doubted for its lines alone: a stone set off its point leaves the
     * lines beside it in the disc) */
    int ring_backs = t > 0 && q > 0 && (r >= DISAGREE || (q >= 3 * DISAGREE && r > -DISAGREE));
    /* (nor is a disc clearly of the wood's colour whose lines are not
     * clearly gone, for its ring alone: a dark ring round it is its
     * neighbours' stones and their shadows) */
    int wood_clear = t <= 0 && q <= -3 * DISAGREE && l < 2 * DISAGREE;
    if (!ring_backs && !wood_clear && ((q * body < 0 && fabsf(body) >= DISAGREE && fabsf(q) >= DISAGREE) ||
                        (q * l < 0 && fabsf(l) >= 2 * DISAGREE && fabsf(q) >= DISAGREE)))
        return 1;
    /* an empty reading whose colour decides nothing while the ring round
     * it is darker, as round a stone: only its lines say wood */
    if (t <= 0 && fabsf(q) < DISAGREE && r > 0) return 1;
    /* where the colours do not tell the stones from the wood (pale stones
     * under a lamp of their colour), a point is sure only when its lines
     * and its ring agree clearly: a stone when both say so and together
     * by two spreads, the wood only when its lines clearly show (the
     * seams between crowded pale stones look like lines) */
    int agree = l * r > 0 && (t > 0 ? l + r >= 2 * DISAGREE : fabsf(l) >= 2 * DISAGREE);
    if (!colour_apart && !agree) return 1;
    /* a light stone without the darker ring round it whose lines are not
     * clearly hidden may be bright wood (the lit bevel at the board's
     * edge): unsure */
    if (t > 0 && r <= -DISAGREE && l < 2 * DISAGREE) return 1;
    /* an empty reading whose colour does not clearly say wood, while its
     * lines are hidden (a pale stone of nearly the wood's colour: a crowd
     * of them bends the wood surface towards them) or its colour across
     * the wood's hue alone says light stone (white stones under a violet
     * lamp whose disc also takes in the wood beside them) */
    if (t <= 0 && q > -3 * DISAGREE && (ln < LIGHT_LINES || xq >= DISAGREE)) return 1;
    return 0;
}

/* A point's squared colour distances to the wood and to the light
 * stones, in units of one spread per measure for both (the larger: the
 * boundary is then straight, halfway between the two, and a point between
 * them is left to its lines and ring to decide), and half the difference of
 * the cross terms alone into *xq. */
static void colour_distances(const vision_point_features *f, const population *wood, const population *light,
                             float *to_wood, float *to_light, float *xq)
{
    float s_l = fmaxf(wood->s_lum, light->s_lum), s_w = fmaxf(wood->s_wood, light->s_wood);
    float s_x = fmaxf(wood->s_cross, light->s_cross);
    float dw_l = (f->lum - wood->lum) / s_l, dw_w = (f->woodlike - wood->wood) / s_w;
    float dl_l = (f->lum - light->lum) / s_l, dl_w = (f->woodlike - light->wood) / s_w;
    float dw_x = (f->cross - wood->cross) / s_x, dl_x = (f->cross - light->cross) / s_x;
    *to_wood = dw_l * dw_l + dw_w * dw_w + dw_x * dw_x;
    *to_light = dl_l * dl_l + dl_w * dl_w + dl_x * dl_x;
    *xq = 0.5f * (dw_x * dw_x - dl_x * dl_x);
}

/* A point that is not dark: light stone or empty, by how much closer its
 * colour is to the light stones' than to the wood's (half the difference
 * of the squared normalised distances, a log-likelihood ratio), how
 * hidden its lines are and how much it stands out from the ring round it;
 * the confidence from the sum's size. */
static void classify_light(const vision_point_features *f, float ln, const population *wood, const population *light,
                           int colour_apart, uint8_t *cell, float *conf)
{
    float to_wood, to_light, xq;
    colour_distances(f, wood, light, &to_wood, &to_light, &xq);
    float q = clampf(0.5f * (to_wood - to_light), -4, 4);
    float l = clampf((LINES_HIDDEN - ln) / 0.2f, -3, 3);
    /* a stone stands out from the ring round it; glare and wood do not */
    float r = clampf((RING_STONE - f->ring) / 0.06f, -3, 3);
    /* (at an edge beyond which lies no wood, the ring is partly the table
     * or the board's side: dark round a stone or not, it cannot say one
     * is there) */
    if (f->margin_dark < MARGIN_OFF) r = fminf(r, 0);
    /* an intersection brighter than the wood (lines darken it) backs a
     * light colour: the lines seen there are seams between stones */
    float bl = q > 0 ? clampf((f->base - BASE_LIGHT) / 0.05f, 0, 2) : 0;
    float t = q + l + r + bl, mb = (f->lum - BLACK_LUM) / 0.25f;
    /* a point whose lines clearly show is no stone unless it looks just
     * like this photo's light stones (a stone set off its point, or seen
     * obliquely, leaves the lines beside it in the disc): glare on empty
     * wood only half looks like them and keeps its lines */
    if (to_light > LIGHT_LIKE * LIGHT_LIKE) t = fminf(t, (LINES_SHOW - ln) / 0.1f);
    /* a colour within a spread of this photo's light stones and well
     * away from its wood is a light stone, whatever its lines and ring
     * say (under a lamp of one colour the seams between crowded white
     * stones look like lines, and their ring is their neighbours): on
     * the visible photos all 17 such points read empty were white), but
     * unsure: the evidence is split */
    int split = t <= 0 && to_light <= LIGHT_SAME * LIGHT_SAME && to_wood >= WOOD_AWAY * WOOD_AWAY;
    if (split) t = 0.5f * q;
    /* an intersection much brighter than the wood under a disc of the
     * wood's colour: a light stone set off towards the camera, its body
     * on the point and its top nearer than a stone's on its point (glare
     * brightens both alike); light, and unsure (10 of 10 such points on
     * the visible photos were white) */
    if (t <= 0 && q < 0 && f->base >= BASE_SET_OFF) {
        split = 1;
        t = fmaxf(0.5f, 0.5f * l);
    }
    /* darkish with its lines hidden: a dark stone */
    float md = fminf((DARKISH_LUM - f->lum) / 0.1f, (LIGHT_LINES - ln) / 0.2f);
    if (md > 0) {
        *cell = GS_BLACK;
        *conf = clampf(0.5f + 0.5f * md, 0, 1);
        return;
    }
    *cell = (uint8_t)(t > 0 ? GS_WHITE : GS_EMPTY);
    *conf = clampf(0.5f + 0.5f * fminf(fminf(fabsf(t) / 3, mb), -md), 0, 1);
    light_terms k = {q, l, r, t, ln, xq};
    if (split || light_doubt(&k, colour_apart)) *conf = vision_doubted(*conf);
}

/* ------------------------------------------------------------- track_hands */

/* Colour likeness for the occlusion test: brightness within 20% and
 * chromaticity within OCC_CHROMA. */
#define OCC_CHROMA 0.12
static int same_colour(const double a[3], const double b[3])
{
    double ya = luma(a[0], a[1], a[2]), yb = luma(b[0], b[1], b[2]);
    if (ya < 1 || yb < 1 || fabs(ya / yb - 1) > 0.2) return 0;
    double ca[2], cb[2];
    chroma(a[0], a[1], a[2], ca);
    chroma(b[0], b[1], b[2], cb);
    return hypot(ca[0] - cb[0], ca[1] - cb[1]) < OCC_CHROMA;
}

/* A hand, sleeve or arm reaching over the board edge looks like a white
 * stone at the edge points it covers, but unlike a stone (at most half a
 * cell across, on a board whose wood margin or edge stops it) it goes on
 * beyond the board: its colour carries on without a boundary (each step of
 * 0.3 cell like the one before) from the point to well outside the board,
 * and there it is unlike the table seen beside the board along that edge.  Such white readings at edge points become
 * empty (the truth under a hand is unknown; empty is the likely case) with
 * a low confidence.  Returns how many were cleared. */
static int clear_occluded_edges(const gs_image *img, const vision_grid *g, vision_reading *out)
{
    static const double outs[] = {0.3, 0.6, 0.9, 1.2, 1.5, 1.8};
    const int nout = (int)(sizeof outs / sizeof outs[0]);
    int N = g->size, cleared = 0;
    double *bg = malloc(sizeof *bg * (size_t)N * 3);
    if (!bg) return 0;
    for (int side = 0; side < 4; side++) {
        /* side 0 top (v=0, outward -v), 1 right, 2 bottom, 3 left */
        double ou = side == 1 ? 1 : side == 3 ? -1 : 0, ov = side == 0 ? -1 : side == 2 ? 1 : 0;
        int any = 0;
        for (int k = 0; k < N && !any; k++) {
            int u, v;
            vision_edge_point(side, k, N, &u, &v);
            any = out->pos.cell[v * N + u] == GS_WHITE;
        }
        if (!any) continue;
        /* The table beside the board: median colour 1.5 cells out along the edge. */
        double tab[3] = {-1, -1, -1};
        int nb = 0;
        for (int k = 0; k < N; k++) {
            int u, v;
            vision_edge_point(side, k, N, &u, &v);
            double c[3];
            if (patch_median(img, g, u + 1.5 * ou, v + 1.5 * ov, 0.15, c)) { memcpy(bg + 3 * nb, c, sizeof c); nb++; }
        }
        if (nb >= 3) {
            double *col = malloc(sizeof *col * (size_t)nb);
            if (col) {
                for (int c = 0; c < 3; c++) {
                    for (int s = 0; s < nb; s++) col[s] = bg[3 * s + c];
                    qsort(col, (size_t)nb, sizeof *col, cmp_double);
                    tab[c] = col[nb / 2];
                }
                free(col);
            }
        }
        for (int k = 0; k < N; k++) {
            int u, v;
            vision_edge_point(side, k, N, &u, &v);
            int i = v * N + u;
            if (out->pos.cell[i] != GS_WHITE) continue;
            double disc[3];
            if (!patch_median(img, g, u, v, 0.25, disc)) continue;
            /* Straight out, and out at 45 degrees either way (an arm comes
             * in at any angle). */
            int hand = 0;
            for (int ray = -1; ray <= 1 && !hand; ray++) {
                double du = ou + ray * (ou == 0 ? 1 : 0), dv = ov + ray * (ov == 0 ? 1 : 0);
                double len = hypot(du, dv);
                du /= len;
                dv /= len;
                int cont = 1, unlike_table = 0;
                double prev[3];
                memcpy(prev, disc, sizeof prev);
                for (int s = 0; s < nout && cont; s++) {
                    double c[3];
                    /* distances are measured across the edge */
                    double d = outs[s] * len;
                    if (!patch_median(img, g, u + d * du, v + d * dv, 0.12, c)) { cont = 0; break; }
                    /* no boundary on the way: each step like the one before
                     * (skin shades off gradually; a stone ends at an edge) */
                    cont = same_colour(c, prev);
                    memcpy(prev, c, sizeof prev);
                    if (outs[s] >= 1.2 && (tab[0] < 0 || !same_colour(c, tab))) unlike_table = 1;
                }
                hand = cont && unlike_table;
            }
            if (hand) {
                out->pos.cell[i] = GS_EMPTY;
                out->confidence[i] = 0.3f;
                cleared++;
            }
        }
    }
    free(bg);
    return cleared;
}

/* A point by the fixed rules, relative to the wood (pops: as
 * populations_fit returned). */
static void classify_fixed(const vision_point_features *f, float ln, int pops, uint8_t *cell, float *conf)
{
    /* Margins (> 0 means "on that side"), each scaled to about one
     * typical spread so they can be compared for the confidence. */
    float mb = (BLACK_LUM - f->lum) / 0.25f;
    float m_lum = (f->lum - WHITE_LUM) / 0.15f;
    float m_nolines = (LINES_GONE - ln) / 0.3f;
    /* White: the stone hides the grid lines at its point (on every
     * photo a white stone leaves well under half the usual line
     * contrast, while wood - however bright, grey or glared - shows its
     * lines), and it is brighter than the wood; or, on a pale board
     * where a white stone is hardly brighter, the lines are gone and
     * the disc is clearly colourless while not dark. */
    float m_hidden = (LINES_HIDDEN - ln) / 0.3f;
    float m_greyer = (GREY_HUE - f->woodlike) / 0.5f;
    /* (the pale-board case needs light points that look unlike the
     * board: on ruled paper the paper between the lines looks alike) */
    float m_pale = pops < 0 ? -1 : fminf(fminf(m_nolines, m_greyer), (f->lum - 0.7f) / 0.2f);
    float mw = fminf(m_hidden, fmaxf(m_lum, m_pale));
    /* a disc nearly as dark as a black stone that hides its lines is one
     * (as in classify_light: a dark stone under a bright lamp) */
    if (pops > 0) mb = fmaxf(mb, fminf((DARKISH_LUM - f->lum) / 0.1f, (LIGHT_LINES - ln) / 0.2f));
    gs_color c;
    float margin;
    if (mb > 0) { c = GS_BLACK; margin = mb; }
    else if (mw > 0) { c = GS_WHITE; margin = fminf(mw, -mb); }
    else { c = GS_EMPTY; margin = fminf(-mb, -mw); }
    *cell = (uint8_t)c;
    *conf = clampf(0.5f + 0.5f * margin, 0, 1);
    /* a dark reading whose lines clearly show and whose disc is half
     * dark, half bright sees the edge of something dark (a neighbour's
     * stone, a shadow), not a stone on the point: unsure */
    if (c == GS_BLACK && ln >= LINES_SHOW && f->spread >= EDGE_SPREAD)
        *conf = vision_doubted(*conf);
}

static int on_edge(int i, int N)
{
    int u = i % N, v = i / N;
    return u == 0 || v == 0 || u == N - 1 || v == N - 1;
}

/* An edge point read empty beside whose margin lies something brighter
 * than the rest of that side's margin by several spreads, and closer in
 * colour to this photo's light stones than to its wood: a stone set off
 * its point towards the edge (or one lying outside the lines); the point
 * may be that stone's.  Unsure. */
#define MARGIN_APART 4.0f
static void margin_stone_doubt(const vision_point_features *F, int N, const population *wood,
                               const population *light, vision_reading *out)
{
    float m[GS_MAX_SIZE], tmp[GS_MAX_SIZE];
    float s_l = fmaxf(wood->s_lum, light->s_lum), s_w = fmaxf(wood->s_wood, light->s_wood);
    for (int side = 0; side < 4; side++) {
        int idx[GS_MAX_SIZE], n = 0;
        /* the side's points without its corners (whose disc is the
         * brighter of two sides) */
        for (int k = 1; k < N - 1; k++) {
            int u, v;
            vision_edge_point(side, k, N, &u, &v);
            idx[n++] = v * N + u;
        }
        for (int k = 0; k < n; k++) m[k] = tmp[k] = F[idx[k]].margin_lum;
        float spread, med = median_spread(tmp, n, &spread);
        spread += 0.03f; /* an even margin: photo noise still */
        for (int k = 0; k < n; k++) {
            const vision_point_features *f = &F[idx[k]];
            if (out->pos.cell[idx[k]] != GS_EMPTY || (m[k] - med) / spread < MARGIN_APART) continue;
            float dw_l = (f->margin_lum - wood->lum) / s_l, dw_w = (f->margin_wood - wood->wood) / s_w;
            float dl_l = (f->margin_lum - light->lum) / s_l, dl_w = (f->margin_wood - light->wood) / s_w;
            if ((dw_l * dw_l + dw_w * dw_w) - (dl_l * dl_l + dl_w * dl_w) >= 0)
                out->confidence[idx[k]] = vision_doubted(out->confidence[idx[k]]);
        }
    }
}

/* Each point's usual line contrast (into Cl): line contrast varies over
 * the board (focus, blur, light falling off), so each point is compared
 * with the plain-wood points around it; the photo's median over plain-wood
 * points (most points of any game) stands in where too few are near.
 * tmp holds NN floats. */
static void local_line_contrast(const vision_point_features *F, int N, float *tmp, float *Cl)
{
    int NN = N * N, m = 0;
    for (int i = 0; i < NN; i++)
        if (F[i].lum > 0.85f && F[i].lum < 1.15f) tmp[m++] = F[i].lines;
    float Ce = 0.3f;
    if (m >= 8) {
        qsort(tmp, (size_t)m, sizeof *tmp, vision_cmp_float);
        Ce = tmp[m / 2];
    }
    if (Ce < 0.05f) Ce = 0.05f; /* a blurred photo: lines barely show anywhere */
    for (int i = 0; i < NN; i++) {
        int u0 = i % N, v0 = i / N, k = 0;
        for (int v = v0 - LOCAL_R; v <= v0 + LOCAL_R; v++)
            for (int u = u0 - LOCAL_R; u <= u0 + LOCAL_R; u++) {
                if (u < 0 || v < 0 || u >= N || v >= N) continue;
                const vision_point_features *q = &F[v * N + u];
                if (q->lum > 0.85f && q->lum < 1.15f) tmp[k++] = q->lines;
            }
        float c = Ce;
        if (k >= 12) {
            qsort(tmp, (size_t)k, sizeof *tmp, vision_cmp_float);
            c = tmp[k / 2];
        }
        Cl[i] = c < 0.05f ? 0.05f : c;
    }
}

/* The light stones round point i (within LIGHT_R points: lines hidden,
 * not dark, darker round them, as empty wood whose lines fade in dim
 * light is not): the middle of their brightness, wood hue and cross where
 * at least LIGHT_NEAR of them are there, into p (its spreads stay the
 * photo's).  The lamp's light falls off over the board and the view turns,
 * and glossy white stones change with them unlike the matt wood, whose
 * own surface follows the light (under a blue lamp the far whites are 10%
 * less bright against the wood than the near ones).  Radius 3 to 7 gain
 * alike on the goban-watcher photos. */
#define LIGHT_R 4
#define LIGHT_NEAR 8
static void local_light(const vision_point_features *F, const float *Cl, int N, int i, population *p)
{
    enum { AREA = (2 * LIGHT_R + 1) * (2 * LIGHT_R + 1) };
    float l[AREA], w[AREA], x[AREA];
    int u0 = i % N, v0 = i / N, k = 0;
    for (int v = v0 - LIGHT_R; v <= v0 + LIGHT_R; v++)
        for (int u = u0 - LIGHT_R; u <= u0 + LIGHT_R; u++) {
            if (u < 0 || v < 0 || u >= N || v >= N) continue;
            const vision_point_features *q = &F[v * N + u];
            if (hides_lines_not_dark(q, Cl[v * N + u]) && q->ring < RING_STONE) {
                l[k] = q->lum; w[k] = q->woodlike; x[k] = q->cross;
                k++;
            }
        }
    if (k < LIGHT_NEAR) return;
    p->lum = median_of(l, k);
    p->wood = median_of(w, k);
    p->cross = median_of(x, k);
}

/* The checks of a point's reading against its intersection and, at the
 * board's edge, what lies beyond it (edge: the point is on the outer
 * line): they overrule or doubt what the disc said. */
static void intersection_checks(const vision_point_features *f, float ln, int edge, uint8_t *cell, float *conf)
{
    /* a point whose intersection shows a black stone's body, the ring
     * round it brighter as round a dark stone, holds one, however light
     * the disc above it (its top seen obliquely takes in a light
     * neighbour, or glare): black, and unsure */
    if (*cell != GS_BLACK && f->base < BASE_DARK && f->ring >= RING_DARK) {
        *cell = GS_BLACK;
        *conf = vision_doubted(*conf);
    }
    /* a point that shows its own wood and its lines has no stone on
     * it, however dark the disc above it (seen obliquely, or a
     * neighbour's stone set off its point, or its shadow): empty, and
     * unsure (on the visible photos all 13 such points are empty) */
    if (*cell == GS_BLACK && f->base >= BASE_WOOD && ln >= BASE_LINES) {
        *cell = GS_EMPTY;
        *conf = vision_doubted(*conf);
    }
    /* nor is an empty reading sure whose intersection is brighter than
     * the wood (crossed by its lines, wood is not): a light stone's
     * body there, the stone set off towards the camera */
    if (*cell == GS_EMPTY && f->base >= BASE_LIGHT)
        *conf = vision_doubted(*conf);
    /* an edge point read white beyond which lies no wood (the table
     * or the board's side: the margin disc far darker than the wood)
     * while its lines still show: the dark ring round it is partly
     * that beyond, not the shadow round a stone */
    if (*cell == GS_WHITE && f->margin_lum < MARGIN_OFF && ln >= LINES_GONE)
        *conf = vision_doubted(*conf);
    /* an edge point read white with no darker ring round it, its
     * lines not hidden, beyond which the light goes on past the board
     * (its margin about as bright as its disc): the board's lit bevel, as a
     * stone, which ends at its ring, is not; empty, and unsure */
    if (*cell == GS_WHITE && edge && f->margin_lum >= MARGIN_LIT * f->lum && f->ring >= RING_NONE &&
        ln >= LIGHT_LINES) {
        *cell = GS_EMPTY;
        *conf = vision_doubted(*conf);
    }
}

/* Each point's next likeliest colour (vision_reading.second), from the
 * brightness of its disc: a stone read is otherwise empty, unless its disc
 * lies on the other colour's side of DARKISH_LUM (a black reading of a
 * light disc, whose intersection showed dark; a white reading of a dark
 * one); an empty reading is otherwise a dark stone when its disc is darker
 * than DARKISH_LUM, a light one when not (on the 46 goban-watcher photos
 * that is the true colour of each of the 24 points read wrong with doubt).
 * A stand-in until the reader gives each colour a calibrated probability:
 * second_p is 1 - confidence, the reader's own margin. */
static void second_choices(const vision_point_features *F, vision_reading *out)
{
    int NN = out->pos.size * out->pos.size;
    for (int i = 0; i < NN; i++) {
        bool dark = F[i].lum < DARKISH_LUM;
        gs_color c = (gs_color)out->pos.cell[i];
        gs_color s = c == GS_EMPTY   ? (dark ? GS_BLACK : GS_WHITE)
                     : c == GS_BLACK ? (dark ? GS_EMPTY : GS_WHITE)
                                     : (dark ? GS_BLACK : GS_EMPTY);
        vision_second_set(out, i, s);
    }
}

gs_status vision_read(const gs_image *img, const vision_grid *g, vision_reading *out, gs_error *err)
{
    if (!out) return gs_error_set(err, GS_ERR_USAGE, "no output");
    if (!g || g->size < 5 || g->size > GS_MAX_SIZE)
        return gs_error_set(err, GS_ERR_USAGE, "bad grid");
    vision_point_features *F = malloc(sizeof *F * (size_t)(g->size * g->size));
    if (!F) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    gs_status st = vision_read_keep(img, g, out, F, err);
    free(F);
    return st;
}

gs_status vision_read_keep(const gs_image *img, const vision_grid *g, vision_reading *out, vision_point_features *F,
                           gs_error *err)
{
    if (!out) return gs_error_set(err, GS_ERR_USAGE, "no output");
    if (!g || g->size < 5 || g->size > GS_MAX_SIZE)
        return gs_error_set(err, GS_ERR_USAGE, "bad grid");
    int N = g->size, NN = N * N;
    float *tmp = malloc(sizeof *tmp * (size_t)NN), *Cl = malloc(sizeof *Cl * (size_t)NN);
    if (!tmp || !Cl) { free(tmp); free(Cl); return gs_error_set(err, GS_ERR_NOMEM, "out of memory"); }
    gs_status st = vision_read_features(img, g, F, err);
    if (st != GS_OK) { free(tmp); free(Cl); return st; }
    local_line_contrast(F, N, tmp, Cl);
    /* each point's lines over their usual contrast round it, for the rules
     * and the third look */
    float *ln = tmp;
    for (int i = 0; i < NN; i++) ln[i] = F[i].lines / Cl[i];
    gs_position_clear(&out->pos, N);
    population wood, light;
    int pops = populations_fit(F, Cl, NN, &wood, &light);
    for (int i = 0; i < NN; i++) {
        const vision_point_features *f = &F[i];
        if (pops > 0 && f->lum >= BLACK_LUM) {
            population here = light;
            local_light(F, Cl, N, i, &here);
            classify_light(f, ln[i], &wood, &here, pops == 2, &out->pos.cell[i], &out->confidence[i]);
        }
        else
            classify_fixed(f, ln[i], pops, &out->pos.cell[i], &out->confidence[i]);
        intersection_checks(f, ln[i], on_edge(i, N), &out->pos.cell[i], &out->confidence[i]);
        /* a point the photo does not show (its disc off the frame) is a
         * guess: empty, and said so */
        if (!f->seen) out->confidence[i] = 0;
    }
    if (pops > 0) margin_stone_doubt(F, N, &wood, &light, out);
#ifdef GRID_DEBUG
    if (getenv("READ_DUMP")) {
        fprintf(stderr, "pops %d wood %.2f %.2f %.2f s %.2f %.2f %.2f ring %.2f light %.2f %.2f %.2f s %.2f %.2f %.2f ring %.2f\n", pops, wood.lum, wood.wood, wood.cross, wood.s_lum, wood.s_wood, wood.s_cross, wood.ring, light.lum, light.wood, light.cross, light.s_lum, light.s_wood, light.s_cross, light.ring);
        for (int i = 0; i < NN; i++)
            fprintf(stderr, "PT %d,%d c %d conf %.2f lum %.2f wood %.2f x %.2f ln %.2f ring %.2f spread %.2f base %.2f mlum %.2f mwood %.2f\n", i / N, i % N, out->pos.cell[i], out->confidence[i], F[i].lum, F[i].woodlike, F[i].cross, ln[i], F[i].ring, F[i].spread, F[i].base, F[i].margin_lum, F[i].margin_wood);
    }
#endif
    free(Cl);
    /* the second and third looks, on the points' image patches (without
     * memory for them the reading stays as the rules left it) */
    vision_patches patches;
    if (vision_patches_make(&patches, img, g) == 0) {
        vision_read_near(&patches, out);
        vision_read_self(&patches, F, ln, out);
        vision_patches_free(&patches);
    }
    free(ln);
    clear_occluded_edges(img, g, out);
    out->uncertain = 0;
    memset(out->unsure, 0, sizeof out->unsure);
    for (int i = 0; i < NN; i++) {
        out->unsure[i] = out->confidence[i] < VISION_UNSURE;
        out->uncertain += out->unsure[i];
    }
    second_choices(F, out);
    return GS_OK;
}
