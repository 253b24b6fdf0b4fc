/* vision/grid_dense.c: grid hypotheses for crowded boards, whose lines show
 * only in short stretches between the stones (a finished game).
 *
 *  1. Line maps (line_maps): a pixel lies on a thin dark line of the
 *     vertical-ish family when it is darker than both its neighbours 2-4 px
 *     to the left and right by a few percent of their brightness, those two
 *     are alike (a dip, not the edge of a stone or of its shadow), they are
 *     bright enough to be board (not the texture of a black stone), and the
 *     dip goes on above and below; likewise across for the horizontal-ish
 *     family.  Unlike the black-hat response of vision/grid_lines.c, the
 *     seams and shadow rims round the stones do not pass: one side of them
 *     is a stone.
 *  2. The grid is where both maps are present near each other; stripes of
 *     one family only (table grain, a book's edge) are dropped.
 *  3. Vanishing points: RANSAC over the straight pieces of the maps
 *     (vision/grid_lines.c), each then made exact by the sharpness of the
 *     projection of its map's pixels along the lines through it (the right
 *     point stacks every pixel of a line into one place), see vp_refine.
 *  4. Rectified (both points at infinity), each family's lines are equally
 *     spaced: a Fourier comb over the projected pixels gives spacing and
 *     phase, and the extent of the pixels along the lines bounds the board.
 *  5. Windows of 9, 13 and 19 comb lines by the pixels each line gathers:
 *     lines inside the window seen, those just outside not.  The best window
 *     of each size is a hypothesis for refinement and scoring
 *     (vision/grid_find.c), which also tries its neighbours; so is a 19x19
 *     window far from the best one that ties with it.
 * Every level is relative to the photo: dips to their own sides, counts to
 * the typical well-seen line, extents to the pixels found. */
#include "vision/vision_internal.h"
#include "cvshim/cvshim.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef GRID_DEBUG
#include <stdio.h>
#endif

/* (A dip must be dip_min darker than the darker of its two sides, and
 * the sides at least side_min of the photo's bright level, its 90th
 * percentile: darker is a black stone or its shadow.) */

/* The 90th percentile of a subsample of grey: the value at that rank of
 * the subsample sorted, counted on its histogram (sorting the bytes was
 * about a sixth of the line maps' instructions). */
static int bright_level(const gs_image *g)
{
    int n = 0, W = g->width, H = g->height;
    long hist[256] = {0};
    for (int y = 0; y < H; y += 4)
        for (int x = 0; x < W; x += 4, n++) hist[g->buf[(size_t)y * g->stride + x]]++;
    long rank = (int)(0.9 * (n - 1)), below = 0;
    int v = 0;
    while (v < 255 && below + hist[v] <= rank) below += hist[v++];
    return v;
}

/* Relative depth of the dip at p across step st (1 = along x, stride =
 * along y), 0 when it is not a symmetric dip between board-bright sides. */
static inline double dip_depth(const uint8_t *p, ptrdiff_t st, int side_min, double dip_min)
{
    int c = p[0];
    if (c > p[-st] || c > p[st]) return 0;
    double best = 0;
    for (int d = 2; d <= 4; d++) {
        int a = p[-d * st], b = p[d * st], m = a < b ? a : b, D = m - c;
        if (D <= 0 || 2 * abs(a - b) > D || m < side_min) continue;
        double r = (double)D / m;
        if (r > best) best = r;
    }
    return best > dip_min ? best : 0;
}

/* Stage 1: the two maps (255 = on a line of that family), caller frees. */
static gs_status line_maps(const vision_params *P, const gs_image *g, gs_image *m[2], gs_error *err)
{
    int W = g->width, H = g->height;
    gs_image *raw[2] = {gs_image_create(W, H, 1), gs_image_create(W, H, 1)};
    m[0] = gs_image_create(W, H, 1);
    m[1] = gs_image_create(W, H, 1);
    if (!raw[0] || !raw[1] || !m[0] || !m[1]) {
        for (int k = 0; k < 2; k++) { gs_image_destroy(raw[k]); gs_image_destroy(m[k]); m[k] = NULL; }
        return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    }
    int side_min = (int)(P->side_min * bright_level(g));
    ptrdiff_t S = g->stride, R = raw[0]->stride;
    /* the map holds the dip's depth (a relative depth of 0.5 or more at
     * 255), so refinement can take the deepest dip near a line */
    for (int y = 4; y < H - 4; y++) {
        const uint8_t *p = g->buf + (size_t)y * S;
        for (int x = 4; x < W - 4; x++) {
            double a = dip_depth(p + x, 1, side_min, P->dip_min), b = dip_depth(p + x, S, side_min, P->dip_min);
            if (a > 0) raw[0]->buf[y * R + x] = (uint8_t)fmin(255, 1 + 510 * a);
            if (b > 0) raw[1]->buf[y * R + x] = (uint8_t)fmin(255, 1 + 510 * b);
        }
    }
    /* a line goes on: keep pixels with neighbours on the map one and two
     * steps along the line on both sides (above and below for the
     * vertical-ish family); the seam between two round stones is shorter */
    for (int k = 0; k < 2; k++)
        for (int y = 3; y < H - 3; y++)
            for (int x = 3; x < W - 3; x++) {
                const uint8_t *q = raw[k]->buf + y * R + x;
                if (!q[0]) continue;
                ptrdiff_t al = k == 0 ? R : 1, ac = k == 0 ? 1 : R; /* along, across */
                int ok = 1;
                /* within one step across per step along: lines up to 45
                 * degrees off the family's axis */
                for (int s = -2; s <= 2 && ok; s++) {
                    if (s == 0) continue;
                    const uint8_t *r = q + s * al;
                    ok = (r[-ac] | r[0] | r[ac]) != 0 || (abs(s) == 2 && (r[-2 * ac] | r[2 * ac]) != 0);
                }
                if (ok) m[k]->buf[y * R + x] = q[0];
            }
    gs_image_destroy(raw[0]);
    gs_image_destroy(raw[1]);
    return GS_OK;
}

/* Stage 2: clears map pixels with fewer than crossed_min pixels of the
 * other map within r (a box); the grid has both families everywhere. */
static gs_status keep_crossed(gs_image *m[2], int r, int crossed_min, gs_error *err)
{
    int W = m[0]->width, H = m[0]->height;
    size_t n1 = (size_t)(W + 1) * (size_t)(H + 1);
    int *I = calloc(2 * n1, sizeof *I);
    if (!I) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    for (int k = 0; k < 2; k++) {
        int *J = I + k * n1;
        for (int y = 0; y < H; y++) {
            int row = 0;
            for (int x = 0; x < W; x++) {
                row += m[k]->buf[(size_t)y * m[k]->stride + x] != 0;
                J[(size_t)(y + 1) * (W + 1) + x + 1] = J[(size_t)y * (W + 1) + x + 1] + row;
            }
        }
    }
    for (int y = 0; y < H; y++) {
        int y0 = y - r < 0 ? 0 : y - r, y1 = y + r + 1 > H ? H : y + r + 1;
        for (int x = 0; x < W; x++) {
            int x0 = x - r < 0 ? 0 : x - r, x1 = x + r + 1 > W ? W : x + r + 1;
            for (int k = 0; k < 2; k++) {
                uint8_t *q = m[k]->buf + (size_t)y * m[k]->stride + x;
                if (!*q) continue;
                const int *J = I + (1 - k) * n1;
                int c = J[(size_t)y1 * (W + 1) + x1] - J[(size_t)y0 * (W + 1) + x1] - J[(size_t)y1 * (W + 1) + x0] +
                        J[(size_t)y0 * (W + 1) + x0];
                if (c < crossed_min) *q = 0;
            }
        }
    }
    free(I);
    return GS_OK;
}

/* The direction of the line through set pixel (x, y) of map k: towards
 * the nearest set pixel two steps along the line on either side (rows
 * above and below for the vertical-ish map); 0 when the run does not
 * reach that far. */
static int run_direction(const gs_image *m, int k, int x, int y, float *dx, float *dy)
{
    int end[2], ok = 1;
    for (int s = 0; s < 2 && ok; s++) {
        int a = s ? 2 : -2, best = 99;
        for (int c = -2; c <= 2; c++) {
            int px = k == 0 ? x + c : x + a, py = k == 0 ? y + a : y + c;
            if (px < 0 || py < 0 || px >= m->width || py >= m->height) continue;
            if (m->buf[(size_t)py * m->stride + px] && abs(c) < abs(best)) best = c;
        }
        end[s] = best;
        ok = best != 99;
    }
    if (!ok) return 0;
    double ax = k == 0 ? end[1] - end[0] : 4, ay = k == 0 ? 4 : end[1] - end[0], n = hypot(ax, ay);
    *dx = (float)(ax / n);
    *dy = (float)(ay / n);
    return 1;
}

/* The set pixels of map k with their directions, at most `cap` (an even
 * subsample beyond). */
static int map_pixels(const gs_image *m, int k, int cap, vision_pt **out)
{
    int n = 0;
    for (int y = 0; y < m->height; y++)
        for (int x = 0; x < m->width; x++) n += m->buf[(size_t)y * m->stride + x] != 0;
    int step = n > cap ? (n + cap - 1) / cap : 1, j = 0, i = 0;
    vision_pt *p = malloc(sizeof *p * (size_t)(n / step + 1));
    if (!p) { *out = NULL; return -1; }
    for (int y = 0; y < m->height; y++)
        for (int x = 0; x < m->width; x++) {
            float dx, dy;
            if (!m->buf[(size_t)y * m->stride + x] || i++ % step) continue;
            if (run_direction(m, k, x, y, &dx, &dy)) p[j++] = (vision_pt){(float)x, (float)y, dx, dy};
        }
    *out = p;
    return j;
}

/* ---------------------------------------------------- vanishing points */

/* A vanishing point as (theta, kappa): homogeneous (cos t, sin t, kappa)
 * in the normalised working coordinates ((x - cx) / sn, ...), so kappa = 0
 * is a point at infinity in direction theta.  The lines through it are
 * told apart by s = (q . u_perp) / (1 - kappa q . u), u = (cos t, sin t):
 * where each crosses the line through the centre across u. */
typedef struct vp_param { double th, ka; } vp_param;

/* Sharpness of the projection of P (n pixels) along the lines through vp:
 * sum of squares of a [1 2 1]-smoothed histogram of s in bins of bw,
 * over the squared count. */
static double vp_sharpness(const double (*Q)[2], int n, vp_param vp, double bw, double *hist, int nb)
{
    double ux = cos(vp.th), uy = sin(vp.th), tot = 0;
    memset(hist, 0, sizeof *hist * (size_t)nb);
    for (int i = 0; i < n; i++) {
        double qx = Q[i][0], qy = Q[i][1];
        double den = 1 - vp.ka * (qx * ux + qy * uy);
        if (den <= 0.05) continue;
        int b = (int)floor(((-qx * uy + qy * ux) / den + 2) / bw);
        if (b < 1 || b >= nb - 1) continue;
        hist[b] += 1;
        tot += 1;
    }
    double s2 = 0;
    for (int b = 1; b < nb - 1; b++) {
        double v = hist[b - 1] + 2 * hist[b] + hist[b + 1];
        s2 += v * v;
    }
    return tot > 0 ? s2 / (tot * tot) : 0;
}

/* Stage 3b: the point made exact by the sharpness of its family's pixels,
 * in three passes of a 9 x 9 search, each finer, bins of one pixel. */
static gs_status vp_refine(const vision_work *w, const vision_pt *P, int n, vp_param *vp, gs_error *err)
{
    int nb = (int)(4 * w->sn) + 4;
    double *hist = malloc(sizeof *hist * (size_t)nb);
    /* the pixels in normalised coordinates, once for the 243 trials */
    double (*Q)[2] = malloc(sizeof *Q * (size_t)(n + 1));
    if (!hist || !Q) {
        free(hist);
        free(Q);
        return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i < n; i++) {
        Q[i][0] = (P[i].x - w->cx) / w->sn;
        Q[i][1] = (P[i].y - w->cy) / w->sn;
    }
    static const double dth[3] = {0.008, 0.002, 0.0005}, dka[3] = {0.03, 0.008, 0.002};
    for (int pass = 0; pass < 3; pass++) {
        vp_param c = *vp, best = c;
        double bs = -1;
        for (int i = -4; i <= 4; i++)
            for (int j = -4; j <= 4; j++) {
                vp_param t = {c.th + i * dth[pass], c.ka + j * dka[pass]};
                double s = vp_sharpness((const double(*)[2])Q, n, t, 1.0 / w->sn, hist, nb);
                if (s > bs) { bs = s; best = t; }
            }
        *vp = best;
    }
    free(hist);
    free(Q);
    return GS_OK;
}

static vp_param vp_from_h(const double v[3])
{
    double n2 = hypot(v[0], v[1]);
    vp_param p = {atan2(v[1], v[0]), n2 > 1e-12 ? v[2] / n2 : 0};
    /* the same point with theta in -90..90 degrees */
    if (p.th > M_PI / 2) { p.th -= M_PI; p.ka = -p.ka; }
    if (p.th < -M_PI / 2) { p.th += M_PI; p.ka = -p.ka; }
    return p;
}

/* ------------------------------------------------------------- combs */

/* One family in the rectified frame: its pixels' coordinate across the
 * lines (val) and along them (along), the comb, and the pixels per line. */
typedef struct dfam {
    double *val, *along;
    int n;
    double lo, hi;          /* extent of val */
    double period, phase;
    int k0, nk;             /* comb lines k0 .. k0 + nk - 1 cover lo..hi */
    int count[64];
} dfam;

/* The histogram less its running mean over w bins (the longest period
 * tried): how the pixels spread over the box (line pixels of the table
 * beside the board, a side where fewer lines are seen) would otherwise
 * rise towards the longest periods. */
static void detrend(double *h, int nb, int w)
{
    if (w < 3 || w >= nb) return;
    double *c = malloc(sizeof *c * (size_t)(nb + 1));
    if (!c) return; /* the comb is then read on the raw histogram */
    c[0] = 0;
    for (int b = 0; b < nb; b++) c[b + 1] = c[b] + h[b];
    for (int b = 0; b < nb; b++) {
        int lo = b - w / 2 < 0 ? 0 : b - w / 2, hi = b + w / 2 + 1 > nb ? nb : b + w / 2 + 1;
        h[b] -= (c[hi] - c[lo]) / (hi - lo);
    }
    free(c);
}

/* The phase of the comb of period p over the values: where its lines lie. */
static double comb_phase(const dfam *f, double p)
{
    double C = 0, S = 0;
    for (int i = 0; i < f->n; i++) {
        double t = 2 * M_PI * f->val[i] / p;
        C += cos(t);
        S += sin(t);
    }
    return atan2(S, C) / (2 * M_PI) * p;
}

/* Whether a comb of period p leaves its midway positions nearly empty:
 * the values within 0.15 period of its lines against those within 0.15
 * of the midpoints (a comb of double the spacing has lines there).  A
 * quarter at most: on a crowded board every other line can show half as
 * much as its neighbours (stones hide more of it), and a comb of the
 * double spacing must not take it for a gap (a mirrored goban-watcher
 * photo, 0.35: its grid was then sought with half the lines). */
static int midway_empty(const dfam *f, double p)
{
    double ph = comb_phase(f, p);
    int on = 0, mid = 0;
    for (int i = 0; i < f->n; i++) {
        double x = (f->val[i] - ph) / p, d = fabs(x - floor(x + 0.5));
        on += d < 0.15;
        mid += d > 0.35;
    }
    return mid * 4 < on;
}

/* Fourier comb over the values: for periods from pmin to pmax the
 * resultant of the phases; the strongest is the fundamental unless a
 * multiple of it is nearly as strong and leaves its midway positions
 * empty (sharp lines make half the spacing strong too); then period and
 * phase by regression on the values near a line.  -1 when nothing
 * periodic stands out. */
static int dense_comb(const vision_params *P, dfam *f, double pmin, double pmax)
{
    enum { NP = 300, NB = 2048 };
    double mags[NP], pers[NP], best = 0;
    int kb = 0; /* the strongest period */
    if (f->n < P->map_pixels_min || !(pmax > pmin) || pmin <= 0 || !(f->hi > f->lo)) return -1;
    /* the values binned finely (a fifth of a pixel), so each trial period
     * costs one pass over the bins with a rotating phasor */
    double *h = calloc(NB, sizeof *h), bw = (f->hi - f->lo) / NB;
    if (!h) return -1;
    for (int i = 0; i < f->n; i++) {
        int b = (int)((f->val[i] - f->lo) / bw);
        h[b < 0 ? 0 : b >= NB ? NB - 1 : b] += 1;
    }
    detrend(h, NB, (int)(pmax / bw));
    for (int k = 0; k < NP; k++) {
        double p = pmin * pow(pmax / pmin, (double)k / (NP - 1)), C = 0, S = 0;
        double t0 = 2 * M_PI * (f->lo + 0.5 * bw) / p, dt = 2 * M_PI * bw / p;
        double zr = cos(t0), zi = sin(t0), rr = cos(dt), ri = sin(dt);
        for (int b = 0; b < NB; b++) {
            C += h[b] * zr;
            S += h[b] * zi;
            double nr = zr * rr - zi * ri;
            zi = zr * ri + zi * rr;
            zr = nr;
        }
        pers[k] = p;
        mags[k] = sqrt(C * C + S * S) / f->n;
        if (mags[k] > best) { best = mags[k]; kb = k; }
    }
    free(h);
    /* a rise to the longest period tried is no peak (the board's extent,
     * not its lines): only a maximum inside the range is a period */
    int pick = -1;
    for (int k = NP - 2; k >= 0 && pick < 0; k--) {
        if (!(mags[k] >= P->dense_pick * best && (k == 0 || mags[k] >= mags[k - 1]) && mags[k] >= mags[k + 1])) continue;
        /* a longer period than the strongest stands only as its multiple
         * whose midway positions are empty: then the strongest was a
         * harmonic of the lines (each line seen sharply); otherwise it is
         * how the pixels lie in clumps (stone rows, the table) */
        double r = pers[k] / pers[kb], m = floor(r + 0.5);
        if (k > kb && kb < NP - 1 && (m < 2 || fabs(r / m - 1) > 0.06 || !midway_empty(f, pers[k]))) continue;
        pick = k;
    }
#ifdef GRID_DEBUG
    fprintf(stderr, "dense comb: n %d best %.3f pick %d (%.4f, mag %.3f) range %.4f..%.4f\n", f->n, best, pick,
            pick >= 0 ? pers[pick] : 0, pick >= 0 ? mags[pick] : 0, pmin, pmax);
#endif
    if (pick < 0 || best < P->dense_comb_min) return -1;
    double p = pers[pick], ph = comb_phase(f, p);
    for (int it = 0; it < 3; it++) {
        double sw = 0, sk = 0, sv = 0, skk = 0, skv = 0;
        for (int i = 0; i < f->n; i++) {
            double kf = (f->val[i] - ph) / p, k = floor(kf + 0.5);
            if (fabs(kf - k) > 0.15) continue;
            sw++; sk += k; sv += f->val[i]; skk += k * k; skv += k * f->val[i];
        }
        double den = sw * skk - sk * sk;
        if (sw <= 0 || fabs(den) < 1e-12) break;
        double np_ = (sw * skv - sk * sv) / den, nph = (sv - np_ * sk) / sw;
        if (!(np_ > 0.8 * p && np_ < 1.25 * p)) break;
        p = np_;
        ph = nph;
    }
    f->period = p;
    f->phase = ph;
    return 0;
}

/* Pixels per comb line (within a quarter of the spacing of it). */
static int comb_counts(dfam *f)
{
    f->k0 = (int)floor((f->lo - f->phase) / f->period);
    f->nk = (int)ceil((f->hi - f->phase) / f->period) - f->k0 + 1;
    if (f->nk < 5 || f->nk > 64) return -1;
    memset(f->count, 0, sizeof f->count);
    for (int i = 0; i < f->n; i++) {
        double kf = (f->val[i] - f->phase) / f->period, k = floor(kf + 0.5);
        int j = (int)k - f->k0;
        if (fabs(kf - k) < 0.25 && j >= 0 && j < f->nk) f->count[j]++;
    }
    return 0;
}

/* Best window of N comb lines: mean evidence inside (each line's count
 * over the typical well-seen one, capped at 1) less the stronger of the
 * two lines just outside.  *k gets the window's first comb index.  Windows
 * starting within 3 lines of `avoid` are passed over (INT_MIN: none). */
static double comb_window_counts(const dfam *f, int N, int avoid, int *k)
{
    int srt[64];
    memcpy(srt, f->count, sizeof srt);
    for (int i = 1; i < f->nk; i++)
        for (int j = i; j > 0 && srt[j] > srt[j - 1]; j--) { int t = srt[j]; srt[j] = srt[j - 1]; srt[j - 1] = t; }
    double ref = srt[f->nk > 4 ? 4 : f->nk - 1];
    if (ref < 1) ref = 1;
    double best = -1e9;
    *k = f->k0;
    /* the window may reach up to two lines beyond the comb (a board edge
     * cut by the frame or lines hidden under stones there) */
    for (int s = -2; s + N <= f->nk + 2; s++) {
        if (avoid != INT_MIN && abs(s + f->k0 - avoid) <= 3) continue;
        double in = 0;
        for (int j = s; j < s + N; j++) in += j >= 0 && j < f->nk ? fmin(f->count[j] / ref, 1) : 0.5;
        in /= N;
        double l = s > 0 ? f->count[s - 1] / ref : 0, r = s + N < f->nk ? f->count[s + N] / ref : 0;
        double sc = in - fmin(1, fmax(l, r));
        if (sc > best) { best = sc; *k = s + f->k0; }
    }
    return best;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Robust extent (2nd to 98th percentile) of n values (v is reordered). */
static void extent(double *v, int n, double *lo, double *hi)
{
    qsort(v, (size_t)n, sizeof *v, cmp_dbl);
    *lo = v[n / 50];
    *hi = v[n - 1 - n / 50];
}

/* ------------------------------------------------------------ the stage */

/* What the dense stages share. */
typedef struct dense_state {
    const vision_linemap *lm;
    double v[2][3];     /* vanishing points of family 1 and 2 */
    int fam_map[2];     /* which map family f uses */
    double Rect[9], Rinv[9];
    dfam fam[2];        /* family 1: lines of constant b; 2: constant a */
} dense_state;

static void dense_free(dense_state *d)
{
    for (int k = 0; k < 2; k++) free(d->fam[k].val);
}

/* Stage 3: vanishing points from the maps' pieces, made exact. */
static gs_status dense_vps(const vision_work *w, dense_state *d, gs_error *err)
{
    cvshim_segment *seg[2] = {NULL, NULL};
    int ns[2] = {0, 0};
    gs_error e2;
    for (int k = 0; k < 2; k++)
        if (cvshim_map_segments(d->lm->map[k], 10, 2, &seg[k], &ns[k], &e2) != GS_OK) {
            free(seg[0]);
            return gs_error_set(err, GS_ERR_INTERNAL, "line pieces: %s", e2.msg);
        }
    int np = ns[0] + ns[1];
    vision_piece *p = malloc(sizeof *p * (size_t)(np + 1));
    if (!p) { free(seg[0]); free(seg[1]); return gs_error_set(err, GS_ERR_NOMEM, "out of memory"); }
    for (int k = 0, i = 0; k < 2; k++)
        for (int j = 0; j < ns[k]; j++, i++) vision_piece_set(&p[i], w, seg[k][j].x1, seg[k][j].y1, seg[k][j].x2, seg[k][j].y2);
    free(seg[0]);
    free(seg[1]);
    double sup[2];
    gs_status st = np < w->P->map_pieces_min ? gs_error_set(err, GS_ERR_NOBOARD, "no board found (too few line pieces)")
                                             : vision_find_families(w->P, p, np, d->v[0], d->v[1], sup, err);
    free(p);
    if (st != GS_OK) return st;
    for (int f = 0; f < 2 && st == GS_OK; f++) {
        vp_param vp = vp_from_h(d->v[f]);
        /* the more vertical family is seen on the map of dips along x */
        d->fam_map[f] = fabs(sin(vp.th)) > 0.7071 ? 0 : 1;
        st = vp_refine(w, d->lm->pix[d->fam_map[f]], d->lm->npix[d->fam_map[f]], &vp, err);
#ifdef GRID_DEBUG
        fprintf(stderr, "dense vp %d: map %d th %.2f ka %.3f\n", f, d->fam_map[f], vp.th * 180 / M_PI, vp.ka);
#endif
        d->v[f][0] = cos(vp.th);
        d->v[f][1] = sin(vp.th);
        d->v[f][2] = vp.ka;
    }
    if (st == GS_OK && d->fam_map[0] == d->fam_map[1])
        st = gs_error_set(err, GS_ERR_NOBOARD, "no board found (one family of lines only)");
    return st;
}

/* Stage 4: rectified coordinates of each family's pixels inside the box
 * that both families' extents along their lines span, and the combs. */
static gs_status dense_combs(const vision_params *prm, dense_state *d, gs_error *err)
{
    double ext[2][2]; /* ext[0]: extent in a (along family 1), ext[1]: in b */
    for (int f = 0; f < 2; f++) {
        const vision_pt *P = d->lm->pix[d->fam_map[f]];
        int n = d->lm->npix[d->fam_map[f]];
        dfam *F = &d->fam[f];
        F->val = malloc(sizeof(double) * (size_t)(2 * n + 2));
        if (!F->val) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        F->along = F->val + n + 1;
        for (int i = 0; i < n; i++) {
            double a, b;
            vision_mat3_apply(d->Rect, P[i].x, P[i].y, &a, &b);
            F->val[i] = f == 0 ? b : a;
            F->along[i] = f == 0 ? a : b;
        }
        F->n = n;
        if (n < prm->map_pixels_min) return gs_error_set(err, GS_ERR_NOBOARD, "no board found (too few line pixels)");
        double *tmp = malloc(sizeof *tmp * (size_t)n);
        if (!tmp) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        memcpy(tmp, F->along, sizeof *tmp * (size_t)n);
        extent(tmp, n, &ext[f][0], &ext[f][1]);
        free(tmp);
    }
    for (int f = 0; f < 2; f++) {
        dfam *F = &d->fam[f];
        /* the box: this family's values within the other's extent along */
        double lo = ext[1 - f][0], hi = ext[1 - f][1], mv = 0.05 * (hi - lo);
        double alo = ext[f][0], ahi = ext[f][1], ma = 0.05 * (ahi - alo);
        int m = 0;
        for (int i = 0; i < F->n; i++)
            if (F->val[i] > lo - mv && F->val[i] < hi + mv && F->along[i] > alo - ma && F->along[i] < ahi + ma) {
                F->val[m] = F->val[i];
                F->along[m] = F->along[i];
                m++;
            }
        F->n = m;
        F->lo = lo - mv;
        F->hi = hi + mv;
        double span = F->hi - F->lo;
#ifdef GRID_DEBUG
        fprintf(stderr, "dense fam %d: %d pixels in box, span %.3f (%.3f..%.3f)\n", f, m, span, F->lo, F->hi);
#endif
        if (dense_comb(prm, F, span / 26, span / 6) != 0 || comb_counts(F) != 0)
            return gs_error_set(err, GS_ERR_NOBOARD, "no board found (no evenly spaced lines)");
    }
    return GS_OK;
}

/* One window of N lines, starting at comb indices k, as a hypothesis. */
static void window_cand(const vision_work *w, const dense_state *d, int N, const int k[2], double s, vision_cand *c)
{
    memset(c, 0, sizeof *c);
    c->n = N;
    c->source = VISION_SRC_DENSE;
    c->m.cx = w->W / 2.0;
    c->m.cy = w->H / 2.0;
    c->m.norm = w->sn;
    /* board index (i along a, j along b) -> rectified -> working px */
    const dfam *fa = &d->fam[1], *fb = &d->fam[0];
    double G[9] = {fa->period, 0, fa->phase + k[1] * fa->period, 0, fb->period, fb->phase + k[0] * fb->period, 0, 0, 1};
    vision_mat3_mul(d->Rinv, G, c->m.H);
    c->score = s;
}

/* (A window within alt_window_drop of the best one's evidence is a tie
 * the comb cannot settle: which one wins then follows the order the
 * windows were tried in.  It becomes a hypothesis too.) */

/* Stage 5: the best window of each size as a hypothesis; for the largest
 * size also the best one at least four lines away along one family when
 * its evidence is nearly as good: strong lines beside the board (a table's
 * pattern, a bowl's rim) can make a window that takes them in win by a
 * hair, and the later stages only shift a window by up to three lines. */
static int dense_windows(const vision_work *w, const dense_state *d, int size_hint, vision_cand *out, int max)
{
    static const int sizes[] = {9, 13, 19};
    int nc = 0, N = 0, k[2];
    double s = 0;
    for (int si = 0; si < 3 && nc < max; si++) {
        N = size_hint ? size_hint : sizes[si];
        if (size_hint && si > 0) break;
        s = comb_window_counts(&d->fam[0], N, INT_MIN, &k[0]) + comb_window_counts(&d->fam[1], N, INT_MIN, &k[1]);
#ifdef GRID_DEBUG
        fprintf(stderr, "dense window %d: %.3f at %d %d\n", N, s, k[0], k[1]);
#endif
        if (s >= w->P->dense_window_min) window_cand(w, d, N, k, s, &out[nc++]);
    }
    if (nc == 0 || nc >= max || out[nc - 1].n != N) return nc;
    double best_alt = -1e9;
    int ka[2] = {k[0], k[1]};
    for (int f = 0; f < 2; f++) {
        int kk[2] = {k[0], k[1]};
        double sa = comb_window_counts(&d->fam[f], N, k[f], &kk[f]) + comb_window_counts(&d->fam[1 - f], N, INT_MIN, &kk[1 - f]);
        if (sa > best_alt) { best_alt = sa; ka[0] = kk[0]; ka[1] = kk[1]; }
    }
#ifdef GRID_DEBUG
    fprintf(stderr, "dense alt window %d: %.3f at %d %d (best %.3f)\n", N, best_alt, ka[0], ka[1], s);
#endif
    if (best_alt >= w->P->dense_window_min && best_alt >= s - w->P->alt_window_drop) window_cand(w, d, N, ka, best_alt, &out[nc++]);
    return nc;
}


/* The side colours of every line pixel (vision_linemap.side). */
static gs_status side_colours(const vision_work *w, vision_linemap *lm, int k, gs_error *err)
{
    lm->side[k] = malloc(sizeof *lm->side[k] * (size_t)(lm->npix[k] + 1));
    if (!lm->side[k]) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    for (int i = 0; i < lm->npix[k]; i++) {
        const vision_pt *q = &lm->pix[k][i];
        double nx = -q->dy * 3, ny = q->dx * 3, a[3], b[3];
        int ok = vision_photo_colour(w, q->x + nx, q->y + ny, a) && vision_photo_colour(w, q->x - nx, q->y - ny, b);
        for (int c = 0; c < 3; c++) {
            lm->side[k][i][0][c] = ok ? (float)a[c] : -1;
            lm->side[k][i][1][c] = ok ? (float)b[c] : -1;
        }
    }
    return GS_OK;
}

gs_status vision_linemap_sides(vision_work *w, gs_error *err)
{
    gs_status st = GS_OK;
    for (int k = 0; k < 2 && st == GS_OK; k++)
        if (!w->lm.side[k]) st = side_colours(w, &w->lm, k, err);
    return st;
}

gs_status vision_linemap_make(vision_work *w, gs_error *err)
{
    vision_linemap *lm = &w->lm;
    memset(lm, 0, sizeof *lm);
    gs_status st = line_maps(w->P, w->grey, lm->map, err);
    if (st == GS_OK) st = keep_crossed(lm->map, (w->W > w->H ? w->W : w->H) / 40 + 4, w->P->crossed_min, err);
    for (int k = 0; k < 2 && st == GS_OK; k++)
        if ((lm->npix[k] = map_pixels(lm->map[k], k, 12000, &lm->pix[k])) < 0)
            st = gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    return st;
}

void vision_linemap_free(vision_linemap *lm)
{
    for (int k = 0; k < 2; k++) {
        gs_image_destroy(lm->map[k]);
        free(lm->pix[k]);
        free(lm->side[k]);
        lm->map[k] = NULL;
        lm->pix[k] = NULL;
        lm->side[k] = NULL;
        lm->npix[k] = 0;
    }
}

gs_status vision_dense_candidates(const vision_work *w, int size_hint, vision_cand *out, int max, int *nout,
                                  gs_error *err)
{
    dense_state d;
    memset(&d, 0, sizeof d);
    d.lm = &w->lm;
    *nout = 0;
    gs_status st = dense_vps(w, &d, err);
    if (st == GS_OK) st = vision_rectify(w, d.v[0], d.v[1], d.Rect, d.Rinv, err);
    if (st == GS_OK) st = dense_combs(w->P, &d, err);
    if (st == GS_OK) {
        *nout = dense_windows(w, &d, size_hint, out, max);
        if (*nout == 0) st = gs_error_set(err, GS_ERR_NOBOARD, "no board found (no window of 9, 13 or 19 lines)");
    }
    dense_free(&d);
    return st;
}
