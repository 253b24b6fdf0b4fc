/* vision/grid_find.c: finds the board in a photo and fits its grid.
 *
 * Pipeline (all on a working copy whose longest side is GRID_WORK_SIDE):
 *  1. thin-dark-line response + line pieces (cv_shim: black-hat + Hough);
 *  2. two vanishing points by RANSAC over the pieces: the two line families
 *     of the board (a point at infinity when lines are parallel);
 *  3. sending the line through both vanishing points to infinity makes the
 *     families parallel, where the board's lines are equally spaced: a
 *     Fourier comb search over the pieces gives spacing and phase per
 *     family, made exact on a dense profile of the line pixels (the pieces
 *     of a crowded board are too few to pin the spacing);
 *  4. the board size and which lines are the outer ones: the window of
 *     9/13/19 comb lines whose dark-line pixel evidence is high inside and
 *     low just outside, and whose strips just outside are crossed by none
 *     of the other family's lines (a board edge about a cell beyond the
 *     outer line looks like one more line, but no line crosses the margin);
 *     lines outside the frame count as unknown, so a board cut by the frame
 *     still fits;
 *  5. refinement on the line response: each grid line is re-fitted to the
 *     dark-line pixels near it, and the homography to all intersections;
 *     the radial distortion k1 is the one that makes those lines
 *     straightest, kept only when it clearly helps;
 *  6. orientation to the vision_grid convention (edge 0-1 = the edge whose
 *     midpoint is highest, corners clockwise on screen), cell aspect from
 *     the homography.
 * Nothing is kept between calls. */
#include "vision/vision_internal.h"
#include "cvshim/cvshim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef GRID_DEBUG
#include <stdio.h>
#include <time.h>
static double dbg_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
#define DBG_T(name) fprintf(stderr, "T %-10s %.2f\n", name, dbg_ms() - dbg_t0)
#else
#define DBG_T(name) ((void)0)
#endif

#define GRID_WORK_SIDE 800

typedef struct seg {
    double m[2];      /* midpoint, normalised coordinates */
    double d[2];      /* unit direction */
    double l[3];      /* homogeneous line, (l0,l1) unit */
    double len;       /* length in working pixels */
    int fam;          /* 0 = none, 1 or 2 */
} seg;

/* Tiny deterministic RNG (no global state): xorshift32. */
static unsigned rng_next(unsigned *s)
{
    unsigned x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *s = x;
}

static void cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* Sine of the angle between a piece and the direction from its midpoint to
 * the (homogeneous) point v. */
static double vp_dev(const seg *s, const double v[3])
{
    double dx = v[0] - s->m[0] * v[2], dy = v[1] - s->m[1] * v[2];
    double n = sqrt(dx * dx + dy * dy);
    if (n < 1e-12) return 1;
    return fabs(s->d[0] * dy - s->d[1] * dx) / n;
}

/* Smallest-eigenvalue eigenvector of a symmetric 3x3 matrix by Jacobi. */
static void eig3_min(double A[3][3], double out[3])
{
    double V[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int sweep = 0; sweep < 30; sweep++) {
        double off = fabs(A[0][1]) + fabs(A[0][2]) + fabs(A[1][2]);
        if (off < 1e-15) break;
        for (int p = 0; p < 2; p++)
            for (int q = p + 1; q < 3; q++) {
                if (fabs(A[p][q]) < 1e-18) continue;
                double th = 0.5 * atan2(2 * A[p][q], A[q][q] - A[p][p]);
                double c = cos(th), s = sin(th);
                for (int k = 0; k < 3; k++) {
                    double akp = A[k][p], akq = A[k][q];
                    A[k][p] = c * akp - s * akq;
                    A[k][q] = s * akp + c * akq;
                }
                for (int k = 0; k < 3; k++) {
                    double apk = A[p][k], aqk = A[q][k];
                    A[p][k] = c * apk - s * aqk;
                    A[q][k] = s * apk + c * aqk;
                }
                for (int k = 0; k < 3; k++) {
                    double vkp = V[k][p], vkq = V[k][q];
                    V[k][p] = c * vkp - s * vkq;
                    V[k][q] = s * vkp + c * vkq;
                }
            }
    }
    int best = 0;
    for (int i = 1; i < 3; i++)
        if (A[i][i] < A[best][best]) best = i;
    for (int k = 0; k < 3; k++) out[k] = V[k][best];
}

#define VP_TOL 0.03 /* sin of ~1.7 degrees */

/* Finds the vanishing point best supported by the pieces with fam == 0 and
 * marks its inliers with fam = id. Returns the supporting length. */
static double find_vp(seg *s, int n, int id, unsigned *rng, double v[3])
{
    int *idx = malloc(sizeof(int) * (size_t)n);
    int m = 0;
    if (!idx) return 0;
    for (int i = 0; i < n; i++)
        if (s[i].fam == 0) idx[m++] = i;
    double best = 0, bv[3] = {0, 0, 0};
    if (m >= 2) {
        for (int it = 0; it < 400; it++) {
            const seg *a = &s[idx[rng_next(rng) % (unsigned)m]];
            const seg *b = &s[idx[rng_next(rng) % (unsigned)m]];
            if (a == b) continue;
            double c[3];
            cross3(a->l, b->l, c);
            double nc = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
            if (nc < 1e-12) continue;
            for (int k = 0; k < 3; k++) c[k] /= nc;
            double sc = 0;
            for (int j = 0; j < m; j++)
                if (vp_dev(&s[idx[j]], c) < VP_TOL) sc += s[idx[j]].len;
            if (sc > best) { best = sc; memcpy(bv, c, sizeof bv); }
        }
    }
    /* Least-squares refinement over the inliers, twice. */
    for (int pass = 0; pass < 2 && best > 0; pass++) {
        double A[3][3] = {{0}};
        for (int j = 0; j < m; j++) {
            const seg *q = &s[idx[j]];
            if (vp_dev(q, bv) >= VP_TOL) continue;
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 3; c++) A[r][c] += q->len * q->l[r] * q->l[c];
        }
        double nv[3];
        eig3_min(A, nv);
        double sc = 0;
        for (int j = 0; j < m; j++)
            if (vp_dev(&s[idx[j]], nv) < VP_TOL) sc += s[idx[j]].len;
        if (sc >= best * 0.95) { memcpy(bv, nv, sizeof bv); best = sc; }
    }
    for (int j = 0; j < m; j++)
        if (vp_dev(&s[idx[j]], bv) < VP_TOL) s[idx[j]].fam = id;
    memcpy(v, bv, sizeof bv);
    free(idx);
    return best;
}

/* 3x3 helpers (row-major). */
static void mat3_mul(const double A[9], const double B[9], double C[9])
{
    double T[9];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) T[r * 3 + c] = A[r * 3] * B[c] + A[r * 3 + 1] * B[3 + c] + A[r * 3 + 2] * B[6 + c];
    memcpy(C, T, sizeof T);
}

static int mat3_inv(const double A[9], double B[9])
{
    double d = A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) + A[2] * (A[3] * A[7] - A[4] * A[6]);
    if (fabs(d) < 1e-300) return -1;
    double T[9] = {A[4] * A[8] - A[5] * A[7], A[2] * A[7] - A[1] * A[8], A[1] * A[5] - A[2] * A[4],
                   A[5] * A[6] - A[3] * A[8], A[0] * A[8] - A[2] * A[6], A[2] * A[3] - A[0] * A[5],
                   A[3] * A[7] - A[4] * A[6], A[1] * A[6] - A[0] * A[7], A[0] * A[4] - A[1] * A[3]};
    for (int i = 0; i < 9; i++) B[i] = T[i] / d;
    return 0;
}

static void mat3_apply(const double H[9], double x, double y, double *ox, double *oy)
{
    double w = H[6] * x + H[7] * y + H[8];
    *ox = (H[0] * x + H[1] * y + H[2]) / w;
    *oy = (H[3] * x + H[4] * y + H[5]) / w;
}

/* One family's comb: lines at phase + k * period (rectified coordinate). */
typedef struct comb {
    double period, phase;
    double support[64]; /* per line index k - kmin */
    int inside[64];     /* 1 when that line lies mostly inside the image */
    double pix[64];     /* fraction of the line on dark-line pixels */
    double strip[64];   /* fraction of the other family's lines seen in
                           the strip between lines j and j+1 (-1 unknown) */
    int kmin, nk;
} comb;

/* The comb's index range (the values' span and two lines beyond each end)
 * and per-line support: the weight of the values within 0.2 period of each
 * line.  -1 when the range is too long. */
static int comb_support(comb *c, const double *val, const double *w, int n)
{
    double lo = 1e300, hi = -1e300, p = c->period, ph = c->phase;
    for (int i = 0; i < n; i++) {
        if (val[i] < lo) lo = val[i];
        if (val[i] > hi) hi = val[i];
    }
    c->kmin = (int)floor((lo - ph) / p) - 2;
    int kmax = (int)ceil((hi - ph) / p) + 2;
    c->nk = kmax - c->kmin + 1;
    if (c->nk > 64 || c->nk < 1) return -1;
    memset(c->support, 0, sizeof c->support);
    for (int i = 0; i < n; i++) {
        double kf = (val[i] - ph) / p, k = floor(kf + 0.5);
        if (fabs(kf - k) > 0.2) continue;
        int j = (int)k - c->kmin;
        if (j >= 0 && j < c->nk) c->support[j] += w[i];
    }
    return 0;
}

/* Refines period *p and phase *ph of a comb by weighted regression
 * x = ph + k p over the values within 0.2 period of a comb line (3 rounds);
 * a new period outside lo_ratio..hi_ratio times the old one stops it. */
static void refine_comb(const double *x, const double *w, int n, double lo_ratio, double hi_ratio, double *p,
                        double *ph)
{
    for (int it = 0; it < 3; it++) {
        double sw = 0, sk = 0, sv = 0, skk = 0, skv = 0;
        for (int i = 0; i < n; i++) {
            double kf = (x[i] - *ph) / *p, k = floor(kf + 0.5);
            if (fabs(kf - k) > 0.2) continue;
            sw += w[i]; sk += w[i] * k; sv += w[i] * x[i]; skk += w[i] * k * k; skv += w[i] * k * x[i];
        }
        double den = sw * skk - sk * sk;
        if (sw <= 0 || fabs(den) < 1e-12) break;
        double np_ = (sw * skv - sk * sv) / den;
        double nph = (sv - np_ * sk) / sw;
        if (!(np_ > lo_ratio * *p && np_ < hi_ratio * *p)) break;
        *p = np_;
        *ph = nph;
    }
}

/* Finds the dominant spacing of the values val (weights w) by a Fourier
 * comb: for each trial period the weighted resultant of the phases; the
 * largest period whose resultant is near the best is the fundamental
 * (halving the period keeps a comb aligned; doubling it does not). */
static int fit_comb(const double *val, const double *w, int n, comb *c)
{
    if (n < 6) return -1;
    double lo = 1e300, hi = -1e300, wsum = 0;
    for (int i = 0; i < n; i++) {
        if (val[i] < lo) lo = val[i];
        if (val[i] > hi) hi = val[i];
        wsum += w[i];
    }
    double R = hi - lo;
    if (R <= 0 || wsum <= 0) return -1;
    enum { NP = 500 };
    double mags[NP], pers[NP], best = 0;
    double pmin = R / 40, pmax = R / 5;
    for (int k = 0; k < NP; k++) {
        double p = pmin * pow(pmax / pmin, (double)k / (NP - 1));
        double C = 0, S = 0;
        for (int i = 0; i < n; i++) {
            double t = 2 * M_PI * val[i] / p;
            C += w[i] * cos(t);
            S += w[i] * sin(t);
        }
        pers[k] = p;
        mags[k] = sqrt(C * C + S * S) / wsum;
        if (mags[k] > best) best = mags[k];
    }
    if (best < 0.1) return -1;
    int pick = -1;
    for (int k = NP - 1; k >= 0; k--)
        if (mags[k] >= 0.8 * best && (k == 0 || mags[k] >= mags[k - 1]) && (k == NP - 1 || mags[k] >= mags[k + 1])) {
            pick = k;
            break;
        }
    if (pick < 0) return -1;
    double p = pers[pick], C = 0, S = 0;
    for (int i = 0; i < n; i++) {
        double t = 2 * M_PI * val[i] / p;
        C += w[i] * cos(t);
        S += w[i] * sin(t);
    }
    double ph = atan2(S, C) / (2 * M_PI) * p;
    /* Refine period and phase by weighted regression val = ph + k p over
     * the values near a comb line. */
    refine_comb(val, w, n, 0.5, 2, &p, &ph);
    c->period = p;
    c->phase = ph;
    return comb_support(c, val, w, n);
}

/* The spacing and phase of the lines of one family from a dense profile:
 * h[i] = dark-line pixels whose rectified coordinate falls in bin i (bins of
 * width bw from lo).  Unlike the Hough pieces, which a crowded board cuts
 * into a few scattered bits that spacings some 10% off explain as well,
 * every visible stretch of every line adds to the profile.  The same
 * period search as fit_comb on the profile less its mean (the other
 * family's lines add a flat floor), but the pieces' spacing (hint) sets the
 * scale: the strongest peak within -25%..+33% of it wins, which leaves out
 * the comb of half the spacing that the dark seams between rows of stones
 * make on a crowded board (it can outweigh the few lines still seen) and
 * the double.  It must be a clear peak inside that range.  Then the phase,
 * and the period refined by regression of the bins near the comb lines.
 * Returns 0, or -1 when no spacing stands out. */
static int fit_comb_profile(const double *h, int nb, double lo, double bw, double hint, double *period, double *phase)
{
    if (nb < 16) return -1;
    double mean = 0, asum = 0;
    for (int i = 0; i < nb; i++) mean += h[i] / nb;
    for (int i = 0; i < nb; i++) asum += fabs(h[i] - mean);
    if (asum <= 0) return -1;
    /* periods from 0.75 to 1.33 times the hint, as finely as fit_comb's */
    enum { NP = 140 };
    double mags[NP], pers[NP];
    int pick = -1;
    for (int k = 0; k < NP; k++) {
        double p = hint * 0.75 * pow(1.33 / 0.75, (double)k / (NP - 1));
        /* sum of (h - mean) e^(2 pi i x / p) over the bin centres x, by
         * rotating one phasor a bin at a time */
        double t0 = 2 * M_PI * (lo + 0.5 * bw) / p, dt = 2 * M_PI * bw / p;
        double zr = cos(t0), zi = sin(t0), rr = cos(dt), ri = sin(dt), C = 0, S = 0;
        for (int i = 0; i < nb; i++) {
            double v = h[i] - mean;
            C += v * zr;
            S += v * zi;
            double nr = zr * rr - zi * ri;
            zi = zr * ri + zi * rr;
            zr = nr;
        }
        pers[k] = p;
        mags[k] = sqrt(C * C + S * S) / asum;
        if (pick < 0 || mags[k] > mags[pick]) pick = k;
    }
    /* a peak inside the range, and a clear one */
    if (pick <= 0 || pick >= NP - 1 || mags[pick] < 0.1) return -1;
#ifdef GRID_DEBUG
    fprintf(stderr, "  profile peak p %.5f mag %.3f\n", pers[pick], mags[pick]);
#endif
    double p = pers[pick], C = 0, S = 0;
    for (int i = 0; i < nb; i++) {
        double t = 2 * M_PI * (lo + (i + 0.5) * bw) / p;
        C += (h[i] - mean) * cos(t);
        S += (h[i] - mean) * sin(t);
    }
    double ph = atan2(S, C) / (2 * M_PI) * p;
    double *x = malloc(sizeof(double) * (size_t)nb * 2);
    if (x) {
        double *wt = x + nb;
        int m = 0;
        for (int i = 0; i < nb; i++)
            if (h[i] > mean) {
                x[m] = lo + (i + 0.5) * bw;
                wt[m++] = h[i] - mean;
            }
        refine_comb(x, wt, m, 0.8, 1.25, &p, &ph);
        free(x);
    }
    *period = p;
    *phase = ph;
    return 0;
}

/* Evidence per comb entry (raw[i] < 0: not measured; inside[i] == 0: not
 * in the frame, when inside is given) relative to the typical well-seen one
 * (the 5th best, or the median of few), capped at 1; known[i] = 0 where
 * nothing could be measured.  Returns 0, or -1 when too little was seen. */
static int comb_evidence(const double *raw, const int *inside, int nv, double *ev, int *known)
{
    double sorted[64];
    int m = 0;
    for (int i = 0; i < nv; i++) {
        known[i] = (!inside || inside[i]) && raw[i] >= 0;
        if (known[i]) sorted[m++] = raw[i];
    }
    for (int i = 1; i < m; i++)
        for (int j = i; j > 0 && sorted[j] > sorted[j - 1]; j--) {
            double t = sorted[j]; sorted[j] = sorted[j - 1]; sorted[j - 1] = t;
        }
    if (m < 3) return -1;
    double ref = sorted[m < 9 ? m / 2 : 4];
    if (ref <= 0.05) return -1;
    for (int i = 0; i < nv; i++) ev[i] = known[i] ? fmin(raw[i] / ref, 1.0) : 0;
    return 0;
}

/* Best window of n lines in a comb.  Two cues, averaged:
 *  - the lines themselves: mean normalised evidence inside minus the
 *    stronger of the two lines just outside;
 *  - the strips between them: the other family's lines cross every strip
 *    inside the board and stop at the outer lines, so the strips just
 *    outside must be empty.  This tells the outer line from a board edge,
 *    a shadow or a grain streak lying about a cell beyond it, which look
 *    like one more line to the first cue.
 * *k0 gets the window's first index (absolute k). */
static double comb_window(const comb *c, int n, int *k0)
{
    double sev[64];
    int sknown[64];
    int strips = c->nk > 1 && comb_evidence(c->strip, NULL, c->nk - 1, sev, sknown) == 0;
    /* Evidence per line: the dark-line pixel fraction along it. */
    double ev[64];
    int known[64];
    if (comb_evidence(c->pix, c->inside, c->nk, ev, known) != 0) return -1e9;
    double best = -1e9;
    for (int s = 0; s + n <= c->nk; s++) {
        double in = 0;
        /* A line outside the frame can be neither confirmed nor refuted:
         * inside the window it counts as likely, outside as absent. */
        for (int j = s; j < s + n; j++) in += known[j] ? ev[j] : 0.8;
        in /= n;
        double out = 0;
        if (s > 0 && known[s - 1]) out = fmax(out, ev[s - 1]);
        if (s + n < c->nk && known[s + n]) out = fmax(out, ev[s + n]);
        double sc = in - out;
        if (strips) {
            double sin_ = 0, sout = 0;
            for (int j = s; j < s + n - 1; j++) sin_ += sknown[j] ? sev[j] : 0.8;
            sin_ /= n - 1;
            if (s > 0 && sknown[s - 1]) sout = fmax(sout, sev[s - 1]);
            if (s + n - 1 < c->nk - 1 && sknown[s + n - 1]) sout = fmax(sout, sev[s + n - 1]);
            sc = 0.5 * (sc + sin_ - sout);
        }
        if (sc > best) { best = sc; *k0 = s + c->kmin; }
    }
    return best;
}

/* Bilinear sample of a 1-channel image (0 outside). */
static double sample(const gs_image *im, double x, double y)
{
    if (x < 0 || y < 0 || x >= im->width - 1 || y >= im->height - 1) return 0;
    int ix = (int)x, iy = (int)y;
    double fx = x - ix, fy = y - iy;
    const uint8_t *p = im->buf + (size_t)iy * im->stride + ix;
    return (1 - fy) * ((1 - fx) * p[0] + fx * p[1]) + fy * ((1 - fx) * p[im->stride] + fx * p[im->stride + 1]);
}

/* A level of the line response that thin dark lines exceed. */
static double response_threshold(const gs_image *resp)
{
    double sum = 0, sum2 = 0;
    long cnt = 0;
    for (int y = 0; y < resp->height; y += 2)
        for (int x = 0; x < resp->width; x += 2) {
            double v = resp->buf[(size_t)y * resp->stride + x];
            sum += v; sum2 += v * v; cnt++;
        }
    double mean = sum / cnt, sd = sqrt(fmax(0, sum2 / cnt - mean * mean));
    return fmax(6, mean + 1.0 * sd);
}

/* Fraction of points along the image line through a and b (n samples) that
 * have a dark-line response above thr within +-tol pixels across the line;
 * samples outside the image are not counted. -1 when none is inside. */
static double line_evidence(const gs_image *resp, double thr, const double (*pts)[2], int n, const double (*nrm)[2],
                            const double *tol)
{
    int valid = 0, hit = 0;
    for (int i = 0; i < n; i++) {
        double x = pts[i][0], y = pts[i][1];
        if (x < 2 || y < 2 || x >= resp->width - 3 || y >= resp->height - 3) continue;
        valid++;
        int h = (int)ceil(tol[i]);
        for (int o = -h; o <= h; o++)
            if (sample(resp, x + nrm[i][0] * o, y + nrm[i][1] * o) > thr) { hit++; break; }
    }
    return valid ? (double)hit / valid : -1;
}

/* Least-squares homography (board -> image) from point pairs, h8 = 1,
 * with both sides normalised for conditioning. Returns 0 on success. */
static int fit_homography(const double (*src)[2], const double (*dst)[2], int n, double H[9])
{
    if (n < 4) return -1;
    double ms[2] = {0, 0}, md[2] = {0, 0}, ss = 0, sd = 0;
    for (int i = 0; i < n; i++) {
        ms[0] += src[i][0]; ms[1] += src[i][1]; md[0] += dst[i][0]; md[1] += dst[i][1];
    }
    for (int k = 0; k < 2; k++) { ms[k] /= n; md[k] /= n; }
    for (int i = 0; i < n; i++) {
        ss += hypot(src[i][0] - ms[0], src[i][1] - ms[1]);
        sd += hypot(dst[i][0] - md[0], dst[i][1] - md[1]);
    }
    ss = ss > 0 ? n / ss : 1;
    sd = sd > 0 ? n / sd : 1;
    double A[8][9];
    memset(A, 0, sizeof A);
    for (int i = 0; i < n; i++) {
        double u = (src[i][0] - ms[0]) * ss, v = (src[i][1] - ms[1]) * ss;
        double x = (dst[i][0] - md[0]) * sd, y = (dst[i][1] - md[1]) * sd;
        double r[2][9] = {{u, v, 1, 0, 0, 0, -u * x, -v * x, x}, {0, 0, 0, u, v, 1, -u * y, -v * y, y}};
        for (int k = 0; k < 2; k++)
            for (int a = 0; a < 8; a++)
                for (int b = 0; b < 9; b++) A[a][b] += r[k][a] * r[k][b];
    }
    double Hn[9];
    if (vision_solve8(A, Hn) != 0) return -1;
    Hn[8] = 1;
    /* Undo the normalisation: H = Td^-1 Hn Ts. */
    double Ts[9] = {ss, 0, -ss * ms[0], 0, ss, -ss * ms[1], 0, 0, 1};
    double Tdi[9] = {1 / sd, 0, md[0], 0, 1 / sd, md[1], 0, 0, 1};
    mat3_mul(Hn, Ts, H);
    mat3_mul(Tdi, H, H);
    return 0;
}

/* The grid model in working pixels: homography then radial distortion
 * about (cx, cy), as vision_grid_map does. */
typedef struct gmodel {
    double H[9];
    double k1, cx, cy, norm;
} gmodel;

static void model_map(const gmodel *m, double u, double v, double *x, double *y)
{
    mat3_apply(m->H, u, v, x, y);
    if (m->k1 != 0) {
        double dx = *x - m->cx, dy = *y - m->cy;
        double s = 1 + m->k1 * (dx * dx + dy * dy) / (m->norm * m->norm);
        *x = m->cx + dx * s;
        *y = m->cy + dy * s;
    }
}

/* Inverse of the distortion (fixed-point iteration). */
static void undistort(double k1, double cx, double cy, double norm, double x, double y, double *ux, double *uy)
{
    double dx = x - cx, dy = y - cy, px = dx, py = dy;
    for (int it = 0; it < 6 && k1 != 0; it++) {
        double s = 1 + k1 * (px * px + py * py) / (norm * norm);
        px = dx / s;
        py = dy / s;
    }
    *ux = cx + px;
    *uy = cy + py;
}

enum { SUB = 4 };                       /* samples per cell along a line */
#define MAXS ((GS_MAX_SIZE - 1) * SUB + 1) /* samples per line */

/* Dark-line points found near each model line: line li < n is u = li,
 * else v = li - n. */
typedef struct linepts {
    int n;
    int cnt[2 * GS_MAX_SIZE];
    float p[2 * GS_MAX_SIZE][MAXS][2];
} linepts;

/* Looks, at SUB samples per cell along every line of the model, for the
 * strongest dark-line pixel within +-search cells across the line.
 * Returns the fraction of samples that found one. */
static double collect_points(const gs_image *resp, double thr, int n, const gmodel *m, double search, linepts *lp)
{
    int maxs = (n - 1) * SUB + 1, total = 0, found = 0;
    lp->n = n;
    for (int li = 0; li < 2 * n; li++) {
        int vert = li < n, k = vert ? li : li - n, np_ = 0;
        for (int si = 0; si < maxs; si++) {
            double t = (double)si / SUB, u = vert ? k : t, v = vert ? t : k;
            double x, y, xa, ya, xb, yb, tx, ty;
            model_map(m, u, v, &x, &y);
            model_map(m, vert ? u + 0.5 : u, vert ? v : v + 0.5, &xa, &ya);
            model_map(m, vert ? u - 0.5 : u, vert ? v : v - 0.5, &xb, &yb);
            double dx = xa - xb, dy = ya - yb, cell = hypot(dx, dy);
            if (cell < 2) continue;
            /* search along the line's true normal, oriented like the
             * neighbouring lines' offset */
            model_map(m, vert ? u : u + 0.05, vert ? v + 0.05 : v, &tx, &ty);
            tx -= x; ty -= y;
            double tn = hypot(tx, ty);
            if (tn <= 0) continue;
            double nx = -ty / tn, ny = tx / tn;
            if (nx * dx + ny * dy < 0) { nx = -nx; ny = -ny; }
            double proj = fabs(nx * dx + ny * dy);
            int half = (int)ceil(search * proj);
            double bestv = 0, bo = 0;
            total++;
            for (int o = -half; o <= half; o++) {
                double val = sample(resp, x + nx * o, y + ny * o);
                if (val > bestv) { bestv = val; bo = o; }
            }
            if (bestv < thr) continue;
            /* sub-pixel: parabola through the neighbours */
            double vm = sample(resp, x + nx * (bo - 1), y + ny * (bo - 1));
            double vp = sample(resp, x + nx * (bo + 1), y + ny * (bo + 1));
            double den = vm - 2 * bestv + vp;
            double sub = den < 0 ? 0.5 * (vm - vp) / den : 0;
            if (fabs(sub) > 1) sub = 0;
            lp->p[li][np_][0] = (float)(x + nx * (bo + sub));
            lp->p[li][np_][1] = (float)(y + ny * (bo + sub));
            np_++;
            found++;
        }
        lp->cnt[li] = np_;
    }
    return total ? (double)found / total : 0;
}

/* Fits straight lines to the points (undistorted with k1) and the
 * homography to their intersections.  Returns the mean robust squared
 * distance of the points to their lines (px^2), or -1 when too little was
 * seen; m->H gets the fit. */
static double fit_model(const linepts *lp, gmodel *m, int want_h)
{
    int n = lp->n;
    double L[2 * GS_MAX_SIZE][3];
    int ok[2 * GS_MAX_SIZE];
    static const double cap2 = 4.0; /* robust cap: 2 px */
    double cost = 0;
    int ncost = 0;
    for (int li = 0; li < 2 * n; li++) {
        int np_ = lp->cnt[li];
        ok[li] = 0;
        if (np_ < 4 || np_ < (n - 1) * SUB / 6) continue;
        double pts[MAXS][2];
        char keep[MAXS];
        for (int i = 0; i < np_; i++) {
            undistort(m->k1, m->cx, m->cy, m->norm, lp->p[li][i][0], lp->p[li][i][1], &pts[i][0], &pts[i][1]);
            keep[i] = 1;
        }
        /* total least squares with two rounds of outlier rejection */
        double line[3] = {0, 0, 0};
        int use = np_;
        for (int round = 0; round < 3 && use >= 4; round++) {
            double mx = 0, my = 0, sw = 0;
            for (int i = 0; i < np_; i++)
                if (keep[i]) { mx += pts[i][0]; my += pts[i][1]; sw++; }
            mx /= sw; my /= sw;
            double sxx = 0, sxy = 0, syy = 0;
            for (int i = 0; i < np_; i++)
                if (keep[i]) {
                    double ax = pts[i][0] - mx, ay = pts[i][1] - my;
                    sxx += ax * ax; sxy += ax * ay; syy += ay * ay;
                }
            double th = 0.5 * atan2(2 * sxy, sxx - syy); /* direction of most spread */
            double a = -sin(th), b = cos(th);
            line[0] = a; line[1] = b; line[2] = -(a * mx + b * my);
            use = 0;
            for (int i = 0; i < np_; i++) {
                double r = fabs(a * pts[i][0] + b * pts[i][1] + line[2]);
                keep[i] = r < (round == 0 ? 3.0 : 1.5);
                use += keep[i];
            }
        }
        if (use < 4) continue;
        for (int i = 0; i < np_; i++) {
            /* measured in image pixels: undistortion rescales the plane,
             * which must not pass for straighter lines */
            double dx = pts[i][0] - m->cx, dy = pts[i][1] - m->cy;
            double mag = 1 + 2 * m->k1 * (dx * dx + dy * dy) / (m->norm * m->norm);
            double r = (line[0] * pts[i][0] + line[1] * pts[i][1] + line[2]) * mag;
            cost += fmin(r * r, cap2);
            ncost++;
        }
        memcpy(L[li], line, sizeof line);
        ok[li] = 1;
    }
    if (!want_h) return ncost < 20 ? -1 : cost / ncost;
    double bs[GS_MAX_SIZE * GS_MAX_SIZE][2], is[GS_MAX_SIZE * GS_MAX_SIZE][2];
    int mcount = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            if (!ok[i] || !ok[n + j]) continue;
            double p[3];
            cross3(L[i], L[n + j], p);
            if (fabs(p[2]) < 1e-12) continue;
            bs[mcount][0] = i; bs[mcount][1] = j;
            is[mcount][0] = p[0] / p[2]; is[mcount][1] = p[1] / p[2];
            mcount++;
        }
    if (mcount < 8 || ncost < 20) return -1;
    double Hn[9];
    if (fit_homography((const double(*)[2])bs, (const double(*)[2])is, mcount, Hn) != 0) return -1;
    memcpy(m->H, Hn, sizeof Hn);
    return cost / ncost;
}

/* One refinement round: collect dark-line points near the model, then fit
 * H, and (when fit_k1) the distortion k1 that makes the lines straightest.
 * Returns the fraction of samples on a dark line. */
static double refine_grid(const gs_image *resp, double thr, int n, gmodel *m, double search, int fit_k1,
                          linepts *lp)
{
    double frac = collect_points(resp, thr, n, m, search, lp);
    gmodel base = *m;
    double c0 = fit_model(lp, &base, 1);
    if (c0 < 0) return frac;
    if (!fit_k1) { *m = base; return frac; }
    /* 1-D search of k1 on the straightness of the lines alone (H is fitted
     * once, for the winner); k1 = 0 is kept unless a distortion explains
     * the lines clearly better (crowded boards give noisy points) */
    gmodel t = *m;
    t.k1 = 0;
    double cz = fit_model(lp, &t, 0), bc = cz, bk = 0;
    double center = m->k1;
    for (int pass = 0; pass < 2 && cz >= 0; pass++) {
        double step = pass == 0 ? 0.02 : 0.004;
        for (int i = -5; i <= 5; i++) {
            t.k1 = center + i * step;
            if (fabs(t.k1) > 0.25 || t.k1 == 0) continue;
            double c = fit_model(lp, &t, 0);
            if (c >= 0 && c < bc) { bc = c; bk = t.k1; }
        }
        center = bk;
    }
#ifdef GRID_DEBUG
    fprintf(stderr, "k1 %.4f cost %.4f vs k1=0 cost %.4f\n", bk, bc, cz);
#endif
    if (cz < 0 || bc > 0.9 * cz) bk = 0; /* not worth a distortion */
    gmodel best = *m;
    best.k1 = bk;
    if (fit_model(lp, &best, 1) < 0) best = base;
    *m = best;
    return frac;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Cell height / width on the board from the homography (board cells ->
 * pixels, origin moved to the image centre), for a camera with square
 * pixels and its principal point at the centre: the two board axes must be
 * perpendicular in space, which gives the focal length, and then the ratio
 * of the axes' lengths.  1 when the view is too frontal to tell. */
static double estimate_aspect(const double H[9], double cx, double cy)
{
    /* T = translate(-cx, -cy) * H */
    double h1[3] = {H[0] - cx * H[6], H[3] - cy * H[6], H[6]};
    double h2[3] = {H[1] - cx * H[7], H[4] - cy * H[7], H[7]};
    double ww = h1[2] * h2[2];
    double f2 = ww != 0 ? -(h1[0] * h2[0] + h1[1] * h2[1]) / ww : -1;
    if (!(f2 > 0)) return 1.0;
    double f = sqrt(f2);
    double l1 = sqrt(h1[0] * h1[0] / f2 + h1[1] * h1[1] / f2 + h1[2] * h1[2]);
    double l2 = sqrt(h2[0] * h2[0] / f2 + h2[1] * h2[1] / f2 + h2[2] * h2[2]);
    double a = l2 / l1;
    /* a focal length far outside what cameras have means a frontal view
     * where this is ill-conditioned */
    if (f < 0.3 * cx || f > 20 * cx || !(a > 0.8 && a < 1.25)) return 1.0;
    return a;
}

/* How well the model H (board -> working pixels) sits on the dark lines:
 * for samples along every grid line, the offset (in cells) to the darkest
 * line pixel within +-0.3 cell.  *p90 = 90th percentile of |offset|,
 * *worst = the largest per-line median |offset|. */
static void grid_residual(const gs_image *resp, double thr, int n, const gmodel *M, double *p90, double *worst)
{
    int maxs = (n - 1) * SUB + 1, cnt = 0;
    double *all = malloc(sizeof(double) * (size_t)(2 * n * maxs)), line[(GS_MAX_SIZE - 1) * SUB + 1];
    *p90 = 1;
    *worst = 1;
    if (!all) return;
    double w = 0;
    for (int li = 0; li < 2 * n; li++) {
        int vert = li < n, k = vert ? li : li - n, m = 0;
        for (int si = 0; si < maxs; si++) {
            double t = (double)si / SUB, u = vert ? k : t, v = vert ? t : k, x, y, xa, ya, xb, yb;
            model_map(M, u, v, &x, &y);
            model_map(M, vert ? u + 0.5 : u, vert ? v : v + 0.5, &xa, &ya);
            model_map(M, vert ? u - 0.5 : u, vert ? v : v - 0.5, &xb, &yb);
            double dx = xa - xb, dy = ya - yb, cell = hypot(dx, dy);
            if (cell < 2) continue;
            dx /= cell; dy /= cell;
            int half = (int)ceil(0.3 * cell);
            double bv = 0, bo = 0;
            for (int o = -half; o <= half; o++) {
                double val = sample(resp, x + dx * o, y + dy * o);
                if (val > bv) { bv = val; bo = o; }
            }
            if (bv < thr) continue;
            line[m++] = fabs(bo) / cell;
            all[cnt++] = fabs(bo) / cell;
        }
        if (m >= 4) {
            qsort(line, (size_t)m, sizeof line[0], cmp_double);
            if (line[m / 2] > w) w = line[m / 2];
        }
    }
    if (cnt > 0) {
        qsort(all, (size_t)cnt, sizeof all[0], cmp_double);
        *p90 = all[(int)(0.9 * (cnt - 1))];
        *worst = w;
    }
    free(all);
}

gs_status vision_grid_find(const gs_image *img, int size_hint, vision_grid *out, gs_error *err)
{
    vision_grid_find_info info;
    return vision_grid_find_ex(img, size_hint, out, &info, err);
}

gs_status vision_grid_find_ex(const gs_image *img, int size_hint, vision_grid *out, vision_grid_find_info *info, gs_error *err)
{
    memset(info, 0, sizeof *info);
    if (!img || !img->buf || img->width < 32 || img->height < 32)
        return gs_error_set(err, GS_ERR_USAGE, "image too small to hold a board");
    if (img->channels != 1 && img->channels != 3)
        return gs_error_set(err, GS_ERR_USAGE, "image must be grey or BGR (%d channels given)", img->channels);
    if (size_hint != 0 && (size_hint < 5 || size_hint > GS_MAX_SIZE))
        return gs_error_set(err, GS_ERR_USAGE, "board size %d out of range", size_hint);
    double scale;
    gs_image *resp = NULL, *grey = NULL;
    cvshim_segment *raw = NULL;
    int nraw = 0;
    char msg[200];
#ifdef GRID_DEBUG
    double dbg_t0 = dbg_ms();
#endif
    if (cvshim_board_lines(img, GRID_WORK_SIDE, &scale, &resp, &grey, &raw, &nraw, msg, sizeof msg) != 0)
        return gs_error_set(err, GS_ERR_INTERNAL, "line detection failed: %s", msg);
    gs_status st = GS_OK;
    seg *s = NULL;
    double *val = NULL, *wt = NULL, *prof = NULL;
    linepts *lp = NULL;
    info->nsegs = nraw;
    DBG_T("lines");
#ifdef GRID_DEBUG
    if (getenv("GRID_DEBUG_RESP")) gs_image_write_png(resp, getenv("GRID_DEBUG_RESP"), NULL);
#endif
    if (nraw < 20) {
        st = gs_error_set(err, GS_ERR_NOBOARD, "no board found (too few straight lines)");
        goto out;
    }
    s = calloc((size_t)nraw, sizeof *s);
    val = malloc(sizeof(double) * (size_t)nraw);
    wt = malloc(sizeof(double) * (size_t)nraw);
    if (!s || !val || !wt) { st = gs_error_set(err, GS_ERR_NOMEM, "out of memory"); goto out; }
    /* Normalised coordinates: centre of the working image, half its longest
     * side = 1, so homogeneous arithmetic stays well conditioned. */
    int W = resp->width, Hh = resp->height;
    double cx = W / 2.0, cy = Hh / 2.0, sn = (W > Hh ? W : Hh) / 2.0;
    for (int i = 0; i < nraw; i++) {
        double x1 = (raw[i].x1 - cx) / sn, y1 = (raw[i].y1 - cy) / sn;
        double x2 = (raw[i].x2 - cx) / sn, y2 = (raw[i].y2 - cy) / sn;
        double dx = x2 - x1, dy = y2 - y1, len = hypot(dx, dy);
        s[i].m[0] = (x1 + x2) / 2; s[i].m[1] = (y1 + y2) / 2;
        s[i].d[0] = dx / len; s[i].d[1] = dy / len;
        s[i].l[0] = -s[i].d[1]; s[i].l[1] = s[i].d[0];
        s[i].l[2] = -(s[i].l[0] * s[i].m[0] + s[i].l[1] * s[i].m[1]);
        s[i].len = len * sn;
    }
    /* Two vanishing points; retry the second when it lands too close in
     * direction to the first (a second bunch of the same family). */
    unsigned rng = 0x9e3779b9u;
    double v1[3], v2[3];
    double sup1 = find_vp(s, nraw, 1, &rng, v1);
    double sup2 = 0;
    for (int tries = 0; tries < 3; tries++) {
        sup2 = find_vp(s, nraw, 2, &rng, v2);
        /* angle between the directions to v1 and v2 seen from the centre */
        double d1x = v1[0], d1y = v1[1], d2x = v2[0], d2y = v2[1];
        double a = fabs(d1x * d2y - d1y * d2x) / (hypot(d1x, d1y) * hypot(d2x, d2y) + 1e-300);
        if (a > 0.34) break; /* > 20 degrees apart */
        for (int i = 0; i < nraw; i++)
            if (s[i].fam == 2) s[i].fam = 3; /* set aside, try again */
        sup2 = 0;
    }
    DBG_T("vp");
    info->support[0] = sup1;
    info->support[1] = sup2;
    if (sup1 <= 0 || sup2 <= 0) {
        st = gs_error_set(err, GS_ERR_NOBOARD, "no board found (no two families of lines)");
        goto out;
    }
    /* Affine rectification: send the line through v1 and v2 to infinity. */
    double linf[3];
    cross3(v1, v2, linf);
    if (fabs(linf[2]) < 1e-9) {
        st = gs_error_set(err, GS_ERR_NOBOARD, "no board found (degenerate perspective)");
        goto out;
    }
    double Hp[9] = {1, 0, 0, 0, 1, 0, linf[0] / linf[2], linf[1] / linf[2], 1};
    double d1[2], d2[2];
    {
        double w1 = Hp[6] * v1[0] + Hp[7] * v1[1] + v1[2], w2 = Hp[6] * v2[0] + Hp[7] * v2[1] + v2[2];
        (void)w1; (void)w2; /* both ~0: the points went to infinity */
        double n1 = hypot(v1[0], v1[1]), n2 = hypot(v2[0], v2[1]);
        d1[0] = v1[0] / n1; d1[1] = v1[1] / n1;
        d2[0] = v2[0] / n2; d2[1] = v2[1] / n2;
    }
    /* rectified (a, b): q = a d1 + b d2; Minv = [d1 d2]^-1 */
    double det = d1[0] * d2[1] - d2[0] * d1[1];
    if (fabs(det) < 0.2) {
        st = gs_error_set(err, GS_ERR_NOBOARD, "no board found (line families nearly parallel)");
        goto out;
    }
    double R[9] = {d2[1] / det, -d2[0] / det, 0, -d1[1] / det, d1[0] / det, 0, 0, 0, 1};
    double Tn[9] = {1 / sn, 0, -cx / sn, 0, 1 / sn, -cy / sn, 0, 0, 1};
    double Rect[9]; /* working pixels -> rectified (a, b) */
    mat3_mul(Hp, Tn, Rect);
    mat3_mul(R, Rect, Rect);
    double thr = response_threshold(resp);
    /* The dense profiles (see fit_comb_profile) over the region the pieces
     * span: span[f] = range of family f's coordinate (b for family 1, a
     * for family 2). */
    enum { NBIN = 256 };
    double span[2][2] = {{1e300, -1e300}, {1e300, -1e300}};
    for (int i = 0; i < nraw; i++) {
        if (s[i].fam != 1 && s[i].fam != 2) continue;
        double ab[2];
        mat3_apply(Rect, s[i].m[0] * sn + cx, s[i].m[1] * sn + cy, &ab[0], &ab[1]);
        int f = s[i].fam - 1;
        double x = f == 0 ? ab[1] : ab[0];
        span[f][0] = fmin(span[f][0], x);
        span[f][1] = fmax(span[f][1], x);
    }
    prof = calloc(2 * NBIN, sizeof *prof);
    if (!prof) { st = gs_error_set(err, GS_ERR_NOMEM, "out of memory"); goto out; }
    /* The combs: family 1 lines have constant b, family 2 constant a;
     * family f's values are val[off[f]] .. val[off[f] + cnt[f] - 1]. */
    comb cb[2];
    int off[2] = {0, 0}, cnt[2] = {0, 0};
    for (int f = 0; f < 2; f++) {
        int m = 0;
        off[f] = f == 0 ? 0 : cnt[0];
        for (int i = 0; i < nraw; i++) {
            if (s[i].fam != f + 1) continue;
            double a, b;
            mat3_apply(Rect, s[i].m[0] * sn + cx, s[i].m[1] * sn + cy, &a, &b);
            val[off[f] + m] = f == 0 ? b : a;
            wt[off[f] + m] = s[i].len;
            m++;
        }
        cnt[f] = m;
        if (fit_comb(val + off[f], wt + off[f], m, &cb[f]) != 0) {
            st = gs_error_set(err, GS_ERR_NOBOARD, "no board found (no evenly spaced lines)");
            goto out;
        }
    }
    /* The profiles of the line pixels that run on along a family's
     * direction for 0.3 cell (by the pieces' spacing) each way: the lines,
     * not the rims of the white stones (rings centred on the points, which
     * add a comb of half the spacing) nor the other family's lines. */
    double Rinv0[9];
    if (span[0][1] > span[0][0] && span[1][1] > span[1][0] && mat3_inv(Rect, Rinv0) == 0) {
        double ac = 0.5 * (span[1][0] + span[1][1]), bc = 0.5 * (span[0][0] + span[0][1]), x0, y0, x1, y1, L[2];
        mat3_apply(Rinv0, ac, bc, &x0, &y0);
        for (int f = 0; f < 2; f++) {
            if (f == 0) mat3_apply(Rinv0, ac, bc + cb[f].period, &x1, &y1);
            else mat3_apply(Rinv0, ac + cb[f].period, bc, &x1, &y1);
            L[f] = fmax(2, 0.3 * hypot(x1 - x0, y1 - y0));
        }
        /* only the pixels of the region (its bounding box) */
        double bx0 = W, by0 = Hh, bx1 = 0, by1 = 0;
        for (int k = 0; k < 4; k++) {
            double x, y;
            mat3_apply(Rinv0, span[1][k & 1], span[0][k >> 1], &x, &y);
            bx0 = fmin(bx0, x); by0 = fmin(by0, y); bx1 = fmax(bx1, x); by1 = fmax(by1, y);
        }
        int xs = (int)fmax(0, bx0) & ~1, ys = (int)fmax(0, by0) & ~1;
        int xe = (int)fmin(W - 1, bx1), ye = (int)fmin(Hh - 1, by1);
        double bw[2] = {(span[0][1] - span[0][0]) / NBIN, (span[1][1] - span[1][0]) / NBIN};
        for (int y = ys; y <= ye; y += 2)
            for (int x = xs; x <= xe; x += 2) {
                if (resp->buf[(size_t)y * resp->stride + x] <= thr) continue;
                double ab[2];
                mat3_apply(Rect, x, y, &ab[0], &ab[1]);
                if (ab[0] < span[1][0] || ab[0] > span[1][1] || ab[1] < span[0][0] || ab[1] > span[0][1]) continue;
                for (int f = 0; f < 2; f++) {
                    const double *v = f == 0 ? v1 : v2;
                    double dx = v[0] - (x - cx) / sn * v[2], dy = v[1] - (y - cy) / sn * v[2], dn = hypot(dx, dy);
                    if (dn < 1e-12) continue;
                    dx *= L[f] / dn;
                    dy *= L[f] / dn;
                    int xa = (int)lround(x + dx), ya = (int)lround(y + dy), xb = (int)lround(x - dx), yb = (int)lround(y - dy);
                    if (xa < 0 || xb < 0 || ya < 0 || yb < 0 || xa >= W || xb >= W || ya >= Hh || yb >= Hh) continue;
                    if (resp->buf[(size_t)ya * resp->stride + xa] <= thr || resp->buf[(size_t)yb * resp->stride + xb] <= thr)
                        continue;
                    double av = f == 0 ? ab[1] : ab[0];
                    int ib = (int)((av - span[f][0]) / bw[f]);
                    if (ib >= 0 && ib < NBIN) prof[f * NBIN + ib] += 1;
                }
            }
        DBG_T("profile");
        /* The profile's spacing, with the pieces' support per line. */
        for (int f = 0; f < 2; f++) {
            double pp, pph;
            if (fit_comb_profile(prof + f * NBIN, NBIN, span[f][0], bw[f], cb[f].period, &pp, &pph) != 0) continue;
#ifdef GRID_DEBUG
            fprintf(stderr, "fam %d pieces period %.5f phase %.5f, profile %.5f %.5f\n", f, cb[f].period, cb[f].phase, pp, pph);
#endif
            comb d = cb[f];
            d.period = pp;
            d.phase = pph;
            if (comb_support(&d, val + off[f], wt + off[f], cnt[f]) == 0) cb[f] = d;
        }
    }
    /* Which comb lines lie inside the frame: sample each along the span of
     * the other family's supported lines. */
    {
        if (mat3_inv(Rect, Rinv0) != 0) {
            st = gs_error_set(err, GS_ERR_NOBOARD, "no board found (degenerate grid)");
            goto out;
        }
        for (int f = 0; f < 2; f++) {
            const comb *o = &cb[1 - f];
            double omax = 0;
            for (int j = 0; j < o->nk; j++) omax = fmax(omax, o->support[j]);
            int jlo = o->nk, jhi = -1;
            for (int j = 0; j < o->nk; j++)
                if (o->support[j] > 0.25 * omax) { if (j < jlo) jlo = j; jhi = j; }
            double lo = o->phase + (o->kmin + jlo) * o->period, hi = o->phase + (o->kmin + jhi) * o->period;
            for (int j = 0; j < cb[f].nk; j++) {
                double pos = cb[f].phase + (cb[f].kmin + j) * cb[f].period;
                int in = 0;
                for (int t = 0; t <= 10; t++) {
                    double other = lo + (hi - lo) * t / 10.0, x, y;
                    if (f == 0) mat3_apply(Rinv0, other, pos, &x, &y); /* family 1: b = pos */
                    else mat3_apply(Rinv0, pos, other, &x, &y);
                    in += x >= 0 && y >= 0 && x < W && y < Hh;
                }
                cb[f].inside[j] = in >= 6;
                /* dark-line evidence along the whole line, independent of
                 * the Hough pieces (which miss faint or slightly bent lines) */
                enum { NS = 48 };
                double pts[NS][2], nrm[NS][2], tol[NS];
                for (int t = 0; t < NS; t++) {
                    double other = lo + (hi - lo) * t / (NS - 1.0), x, y, xa, ya;
                    double pa = pos + 0.5 * cb[f].period;
                    if (f == 0) { mat3_apply(Rinv0, other, pos, &x, &y); mat3_apply(Rinv0, other, pa, &xa, &ya); }
                    else { mat3_apply(Rinv0, pos, other, &x, &y); mat3_apply(Rinv0, pa, other, &xa, &ya); }
                    double dx = xa - x, dy = ya - y, dn = hypot(dx, dy) + 1e-9;
                    pts[t][0] = x; pts[t][1] = y;
                    nrm[t][0] = dx / dn; nrm[t][1] = dy / dn;
                    tol[t] = 0.4 * dn; /* 0.2 cell */
                }
                cb[f].pix[j] = line_evidence(resp, thr, (const double(*)[2])pts, NS, (const double(*)[2])nrm, tol);
#ifdef GRID_DEBUG
                { double x, y, other = (lo + hi) / 2;
                  if (f == 0) mat3_apply(Rinv0, other, pos, &x, &y); else mat3_apply(Rinv0, pos, other, &x, &y);
                  fprintf(stderr, "f%d k%d (%.0f,%.0f) in %d sup %.0f pix %.2f\n", f, cb[f].kmin + j, x, y, in, cb[f].support[j], cb[f].pix[j]); }
#endif
            }
        }
        /* The strips between neighbouring lines of a family: how much of
         * the other family's well-seen lines runs through each (see
         * comb_window), sampled in the middle of the strip, away from the
         * crossings. */
        for (int f = 0; f < 2; f++) {
            const comb *o = &cb[1 - f];
            double oev[64];
            int oknown[64];
            for (int j = 0; j < 64; j++) cb[f].strip[j] = -1;
            if (comb_evidence(o->pix, o->inside, o->nk, oev, oknown) != 0) continue;
            enum { NT = 3, NL = 64 * NT };
            for (int j = 0; j + 1 < cb[f].nk; j++) {
                double pts[NL][2], nrm[NL][2], tol[NL];
                int np_ = 0;
                for (int i = 0; i < o->nk; i++) {
                    if (!oknown[i] || oev[i] < 0.5) continue;
                    double q = o->phase + (o->kmin + i) * o->period, qa = q + 0.5 * o->period;
                    for (int t = 0; t < NT; t++) {
                        double pos = cb[f].phase + (cb[f].kmin + j + 0.3 + 0.2 * t) * cb[f].period, x, y, xa, ya;
                        if (f == 0) { mat3_apply(Rinv0, q, pos, &x, &y); mat3_apply(Rinv0, qa, pos, &xa, &ya); }
                        else { mat3_apply(Rinv0, pos, q, &x, &y); mat3_apply(Rinv0, pos, qa, &xa, &ya); }
                        double dx = xa - x, dy = ya - y, dn = hypot(dx, dy) + 1e-9;
                        pts[np_][0] = x; pts[np_][1] = y;
                        nrm[np_][0] = dx / dn; nrm[np_][1] = dy / dn;
                        tol[np_] = 0.4 * dn; /* 0.2 cell */
                        np_++;
                    }
                }
                if (np_ > 0)
                    cb[f].strip[j] = line_evidence(resp, thr, (const double(*)[2])pts, np_, (const double(*)[2])nrm, tol);
            }
#ifdef GRID_DEBUG
            fprintf(stderr, "strips f%d:", f);
            for (int j = 0; j + 1 < cb[f].nk; j++) fprintf(stderr, " %.2f", cb[f].strip[j]);
            fprintf(stderr, "\n");
#endif
        }
    }
    DBG_T("combs");
    /* Size and window. */
    static const int sizes[] = {9, 13, 19};
    int bestn = 0, bk[2] = {0, 0};
    double bests = -1e9;
    for (int si = 0; si < 3 || (size_hint && si == 0); si++) {
        int n = size_hint ? size_hint : sizes[si];
        int k[2];
        double sc = comb_window(&cb[0], n, &k[0]) + comb_window(&cb[1], n, &k[1]);
        if (sc > bests) { bests = sc; bestn = n; bk[0] = k[0]; bk[1] = k[1]; }
        if (size_hint) break;
    }
    info->window_score = bests;
#ifdef GRID_DEBUG
    for (int f = 0; f < 2; f++) {
        fprintf(stderr, "fam %d period %.4f phase %.4f kmin %d win %d:", f, cb[f].period, cb[f].phase, cb[f].kmin, bk[f]);
        for (int j = 0; j < cb[f].nk; j++) fprintf(stderr, " %.0f%s", cb[f].support[j], cb[f].inside[j] ? "" : "o");
        fprintf(stderr, "\n");
    }
#endif
    if (bestn == 0 || bests < 0.5) {
        st = gs_error_set(err, GS_ERR_NOBOARD, "no board found (no grid of 9, 13 or 19 lines)");
        goto out;
    }
    /* Board index (i along a, j along b) -> rectified -> working pixels. */
    double G[9] = {cb[1].period, 0, cb[1].phase + bk[1] * cb[1].period,
                   0, cb[0].period, cb[0].phase + bk[0] * cb[0].period, 0, 0, 1};
    double Rinv[9], H[9];
    if (mat3_inv(Rect, Rinv) != 0) {
        st = gs_error_set(err, GS_ERR_NOBOARD, "no board found (degenerate grid)");
        goto out;
    }
    mat3_mul(Rinv, G, H);
    /* Refinement on the line response. */
    gmodel M;
    memcpy(M.H, H, sizeof M.H);
    M.k1 = 0;
    M.cx = W / 2.0;
    M.cy = Hh / 2.0;
    M.norm = sn;
    lp = malloc(sizeof *lp);
    if (!lp) { st = gs_error_set(err, GS_ERR_NOMEM, "out of memory"); goto out; }
    double frac = 0;
    frac = refine_grid(resp, thr, bestn, &M, 0.35, 0, lp);
    frac = refine_grid(resp, thr, bestn, &M, 0.25, 1, lp);
    frac = refine_grid(resp, thr, bestn, &M, 0.2, 1, lp);
    DBG_T("refine");
    info->found_frac = frac;
    grid_residual(resp, thr, bestn, &M, &info->resid_p90, &info->resid_worst_line);
    memcpy(H, M.H, sizeof H);
    DBG_T("resid");
    /* Back to original pixels. */
    double Sback[9] = {1 / scale, 0, 0, 0, 1 / scale, 0, 0, 0, 1};
    mat3_mul(Sback, H, H);
    /* Orientation: top edge = the edge whose midpoint is highest; corners
     * clockwise on screen from its left end. */
    double nn = bestn - 1;
    const double bc[4][2] = {{0, 0}, {nn, 0}, {nn, nn}, {0, nn}};
    double ic[4][2], ang[4], mx = 0, my = 0;
    for (int i = 0; i < 4; i++) {
        mat3_apply(H, bc[i][0], bc[i][1], &ic[i][0], &ic[i][1]);
        mx += ic[i][0] / 4; my += ic[i][1] / 4;
    }
    int ord[4] = {0, 1, 2, 3};
    for (int i = 0; i < 4; i++) ang[i] = atan2(ic[i][1] - my, ic[i][0] - mx);
    for (int i = 1; i < 4; i++)
        for (int j = i; j > 0 && ang[ord[j]] < ang[ord[j - 1]]; j--) { int t = ord[j]; ord[j] = ord[j - 1]; ord[j - 1] = t; }
    int top = 0;
    double topy = 1e300;
    for (int i = 0; i < 4; i++) {
        double ey = ic[ord[i]][1] + ic[ord[(i + 1) % 4]][1];
        if (ey < topy) { topy = ey; top = i; }
    }
    int a0 = ord[top], a1 = ord[(top + 1) % 4], a3 = ord[(top + 3) % 4];
    /* D: final (u,v) -> internal index coordinates. */
    double D[9] = {(bc[a1][0] - bc[a0][0]) / nn, (bc[a3][0] - bc[a0][0]) / nn, bc[a0][0],
                   (bc[a1][1] - bc[a0][1]) / nn, (bc[a3][1] - bc[a0][1]) / nn, bc[a0][1], 0, 0, 1};
    double Hf[9];
    mat3_mul(H, D, Hf);
    for (int i = 0; i < 9; i++) Hf[i] /= Hf[8];
    memset(out, 0, sizeof *out);
    out->size = bestn;
    memcpy(out->H, Hf, sizeof Hf);
    out->k1 = M.k1;
    out->cx = M.cx / scale;
    out->cy = M.cy / scale;
    out->norm = M.norm / scale;
    for (int i = 0; i < 4; i++) vision_grid_map(out, bc[i][0], bc[i][1], &out->corners[i][0], &out->corners[i][1]);
    out->cell_aspect = estimate_aspect(Hf, img->width / 2.0, img->height / 2.0);
    out->confidence = fmin(1.0, fmax(0.0, frac));
    if (frac < 0.25) {
        st = gs_error_set(err, GS_ERR_NOBOARD, "no board found (grid lines not confirmed)");
        goto out;
    }
out:
    free(s); free(val); free(wt); free(prof); free(raw); free(lp);
    gs_image_destroy(resp);
    gs_image_destroy(grey);
    return st;
}
