/* vision/grid_lines.c: stages 2-4 of board finding, from straight pieces
 * of thin dark line to a first grid hypothesis:
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
 *     still fits.
 * The hypothesis is then refined and scored against the whole image by
 * vision/grid_find.c. */
#include "vision/vision_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
void vision_piece_set(vision_piece *p, const vision_work *w, double x1, double y1, double x2, double y2)
{
    double ax = (x1 - w->cx) / w->sn, ay = (y1 - w->cy) / w->sn;
    double bx = (x2 - w->cx) / w->sn, by = (y2 - w->cy) / w->sn;
    double dx = bx - ax, dy = by - ay, len = hypot(dx, dy);
    if (len <= 0) len = 1e-9;
    p->m[0] = (ax + bx) / 2;
    p->m[1] = (ay + by) / 2;
    p->d[0] = dx / len;
    p->d[1] = dy / len;
    p->l[0] = -p->d[1];
    p->l[1] = p->d[0];
    p->l[2] = -(p->l[0] * p->m[0] + p->l[1] * p->m[1]);
    p->len = len * w->sn;
    p->fam = 0;
}

/* Tiny deterministic RNG (no global state): xorshift32. */
static unsigned rng_next(unsigned *s)
{
    unsigned x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *s = x;
}


/* Sine of the angle between a piece and the direction from its midpoint to
 * the (homogeneous) point v. */
static double vp_dev(const vision_piece *s, const double v[3])
{
    double dx = v[0] - s->m[0] * v[2], dy = v[1] - s->m[1] * v[2];
    double n = sqrt(dx * dx + dy * dy);
    if (n < 1e-12) return 1;
    return fabs(s->d[0] * dy - s->d[1] * dx) / n;
}



/* Finds the vanishing point best supported by the pieces with fam == 0 and
 * marks its inliers with fam = id. Returns the supporting length. */
static double find_vp(vision_piece *s, int n, int id, double tol, unsigned *rng, double v[3])
{
    int *idx = malloc(sizeof(int) * (size_t)n);
    int m = 0;
    if (!idx) return 0;
    for (int i = 0; i < n; i++)
        if (s[i].fam == 0) idx[m++] = i;
    double best = 0, bv[3] = {0, 0, 0};
    if (m >= 2) {
        for (int it = 0; it < 400; it++) {
            const vision_piece *a = &s[idx[rng_next(rng) % (unsigned)m]];
            const vision_piece *b = &s[idx[rng_next(rng) % (unsigned)m]];
            if (a == b) continue;
            double c[3];
            vision_cross3(a->l, b->l, c);
            double nc = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
            if (nc < 1e-12) continue;
            for (int k = 0; k < 3; k++) c[k] /= nc;
            double sc = 0;
            for (int j = 0; j < m; j++)
                if (vp_dev(&s[idx[j]], c) < tol) sc += s[idx[j]].len;
            if (sc > best) { best = sc; memcpy(bv, c, sizeof bv); }
        }
    }
    /* Least-squares refinement over the inliers, twice. */
    for (int pass = 0; pass < 2 && best > 0; pass++) {
        double A[3][3] = {{0}};
        for (int j = 0; j < m; j++) {
            const vision_piece *q = &s[idx[j]];
            if (vp_dev(q, bv) >= tol) continue;
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 3; c++) A[r][c] += q->len * q->l[r] * q->l[c];
        }
        double nv[3];
        vision_eig3_min(A, nv);
        double sc = 0;
        for (int j = 0; j < m; j++)
            if (vp_dev(&s[idx[j]], nv) < tol) sc += s[idx[j]].len;
        if (sc >= best * 0.95) { memcpy(bv, nv, sizeof bv); best = sc; }
    }
    for (int j = 0; j < m; j++)
        if (vp_dev(&s[idx[j]], bv) < tol) s[idx[j]].fam = id;
    memcpy(v, bv, sizeof bv);
    free(idx);
    return best;
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
static int fit_comb(const vision_params *P, const double *val, const double *w, int n, comb *c)
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
    if (best < P->comb_min) return -1;
    int pick = -1;
    for (int k = NP - 1; k >= 0; k--)
        if (mags[k] >= P->comb_pick * best && (k == 0 || mags[k] >= mags[k - 1]) && (k == NP - 1 || mags[k] >= mags[k + 1])) {
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
static int fit_comb_profile(const vision_params *P, const double *h, int nb, double lo, double bw, double hint,
                            double *period, double *phase)
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
    if (pick <= 0 || pick >= NP - 1 || mags[pick] < P->profile_min) return -1;
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
static int comb_evidence(const vision_params *P, const double *raw, const int *inside, int nv, double *ev, int *known)
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
    if (ref <= P->evidence_min) return -1;
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
static double comb_window(const vision_params *P, const comb *c, int n, int *k0)
{
    double sev[64];
    int sknown[64];
    int strips = c->nk > 1 && comb_evidence(P, c->strip, NULL, c->nk - 1, sev, sknown) == 0;
    /* Evidence per line: the dark-line pixel fraction along it. */
    double ev[64];
    int known[64];
    if (comb_evidence(P, c->pix, c->inside, c->nk, ev, known) != 0) return -1e9;
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
            if (gs_sample_grey(resp, x + nrm[i][0] * o, y + nrm[i][1] * o) > thr) { hit++; break; }
    }
    return valid ? (double)hit / valid : -1;
}

/* ------------------------------------------------------------ the stages */

/* What the line stages pass on: the two vanishing points, the
 * rectification (working pixels -> (a, b), where family 1 lines have
 * constant b and family 2 constant a), the piece values per family
 * (val[off[f]] .. val[off[f] + cnt[f] - 1]) and the two combs. */
typedef struct lines_state {
    double v1[3], v2[3];
    double Rect[9], Rinv[9];
    double *val, *wt;
    int off[2], cnt[2];
    double span[2][2];
    comb cb[2];
} lines_state;

/* Stage 2: two vanishing points; the second is tried again when it lands
 * too close in direction to the first (a second bunch of the same family). */
gs_status vision_find_families(const vision_params *P, vision_piece *s, int n, double v1[3], double v2[3],
                               double support[2], gs_error *err)
{
    unsigned rng = 0x9e3779b9u;
    double tol = P->family_tol;
    double sup1 = find_vp(s, n, 1, tol, &rng, v1), sup2 = 0;
    for (int tries = 0; tries < 3; tries++) {
        sup2 = find_vp(s, n, 2, tol, &rng, v2);
        /* angle between the directions to v1 and v2 seen from the centre */
        double a = fabs(v1[0] * v2[1] - v1[1] * v2[0]) / (hypot(v1[0], v1[1]) * hypot(v2[0], v2[1]) + 1e-300);
        if (a > P->family_apart) break;
        for (int i = 0; i < n; i++)
            if (s[i].fam == 2) s[i].fam = 3; /* set aside, try again */
        sup2 = 0;
    }
    support[0] = sup1;
    support[1] = sup2;
    if (sup1 <= 0 || sup2 <= 0) return gs_error_set(err, GS_ERR_NOBOARD, "no board found (no two families of lines)");
    return GS_OK;
}

/* Stage 3a: sending the line through both vanishing points to infinity
 * makes the families parallel, where the board's lines are equally spaced. */
gs_status vision_rectify(const vision_work *w, const double v1[3], const double v2[3], double Rect[9], double Rinv[9],
                         gs_error *err)
{
    double linf[3];
    vision_cross3(v1, v2, linf);
    if (fabs(linf[2]) < 1e-9) return gs_error_set(err, GS_ERR_NOBOARD, "no board found (degenerate perspective)");
    double Hp[9] = {1, 0, 0, 0, 1, 0, linf[0] / linf[2], linf[1] / linf[2], 1};
    double n1 = hypot(v1[0], v1[1]), n2 = hypot(v2[0], v2[1]);
    double d1[2] = {v1[0] / n1, v1[1] / n1}, d2[2] = {v2[0] / n2, v2[1] / n2};
    /* rectified (a, b): q = a d1 + b d2; Minv = [d1 d2]^-1 */
    double det = d1[0] * d2[1] - d2[0] * d1[1];
    if (fabs(det) < w->P->family_det) return gs_error_set(err, GS_ERR_NOBOARD, "no board found (line families nearly parallel)");
    double R[9] = {d2[1] / det, -d2[0] / det, 0, -d1[1] / det, d1[0] / det, 0, 0, 0, 1};
    double Tn[9] = {1 / w->sn, 0, -w->cx / w->sn, 0, 1 / w->sn, -w->cy / w->sn, 0, 0, 1};
    vision_mat3_mul(Hp, Tn, Rect);
    vision_mat3_mul(R, Rect, Rect);
    if (vision_mat3_inv(Rect, Rinv) != 0) return gs_error_set(err, GS_ERR_NOBOARD, "no board found (degenerate grid)");
    return GS_OK;
}

/* Stage 3b: per family, the values of its pieces across the family (b for
 * family 1, a for family 2), their span, and the comb they show. */
static gs_status family_combs(const vision_work *w, const vision_piece *s, int n, lines_state *L, gs_error *err)
{
    for (int f = 0; f < 2; f++) {
        L->span[f][0] = 1e300;
        L->span[f][1] = -1e300;
        int m = 0;
        L->off[f] = f == 0 ? 0 : L->cnt[0];
        for (int i = 0; i < n; i++) {
            if (s[i].fam != f + 1) continue;
            double a, b;
            vision_mat3_apply(L->Rect, s[i].m[0] * w->sn + w->cx, s[i].m[1] * w->sn + w->cy, &a, &b);
            double x = f == 0 ? b : a;
            L->val[L->off[f] + m] = x;
            L->wt[L->off[f] + m] = s[i].len;
            L->span[f][0] = fmin(L->span[f][0], x);
            L->span[f][1] = fmax(L->span[f][1], x);
            m++;
        }
        L->cnt[f] = m;
        if (fit_comb(w->P, L->val + L->off[f], L->wt + L->off[f], m, &L->cb[f]) != 0)
            return gs_error_set(err, GS_ERR_NOBOARD, "no board found (no evenly spaced lines)");
    }
    return GS_OK;
}

/* Stage 3c: the spacing made exact on dense profiles of the line pixels
 * that run on along a family's direction for 0.3 cell each way (the lines,
 * not the rims of white stones nor the other family's lines); see
 * fit_comb_profile.  Keeps the pieces' combs where no profile stands out. */
enum { NBIN = 256 };
static void profile_accumulate(const vision_work *w, const lines_state *L, const double Lf[2], double *prof)
{
    const double *Rect = L->Rect, *Rinv = L->Rinv;
    double bx0 = w->W, by0 = w->H, bx1 = 0, by1 = 0;
    for (int k = 0; k < 4; k++) {
        double x, y;
        vision_mat3_apply(Rinv, L->span[1][k & 1], L->span[0][k >> 1], &x, &y);
        bx0 = fmin(bx0, x); by0 = fmin(by0, y); bx1 = fmax(bx1, x); by1 = fmax(by1, y);
    }
    const gs_image *resp = w->resp;
    int W = w->W, Hh = w->H;
    int xs = (int)fmax(0, bx0) & ~1, ys = (int)fmax(0, by0) & ~1;
    int xe = (int)fmin(W - 1, bx1), ye = (int)fmin(Hh - 1, by1);
    double bw[2] = {(L->span[0][1] - L->span[0][0]) / NBIN, (L->span[1][1] - L->span[1][0]) / NBIN};
    for (int y = ys; y <= ye; y += 2)
        for (int x = xs; x <= xe; x += 2) {
            if (resp->buf[(size_t)y * resp->stride + x] <= w->thr) continue;
            double ab[2];
            vision_mat3_apply(Rect, x, y, &ab[0], &ab[1]);
            if (ab[0] < L->span[1][0] || ab[0] > L->span[1][1] || ab[1] < L->span[0][0] || ab[1] > L->span[0][1]) continue;
            for (int f = 0; f < 2; f++) {
                const double *v = f == 0 ? L->v1 : L->v2;
                double dx = v[0] - (x - w->cx) / w->sn * v[2], dy = v[1] - (y - w->cy) / w->sn * v[2], dn = hypot(dx, dy);
                if (dn < 1e-12) continue;
                dx *= Lf[f] / dn;
                dy *= Lf[f] / dn;
                int xa = (int)lround(x + dx), ya = (int)lround(y + dy), xb = (int)lround(x - dx), yb = (int)lround(y - dy);
                if (xa < 0 || xb < 0 || ya < 0 || yb < 0 || xa >= W || xb >= W || ya >= Hh || yb >= Hh) continue;
                if (resp->buf[(size_t)ya * resp->stride + xa] <= w->thr || resp->buf[(size_t)yb * resp->stride + xb] <= w->thr)
                    continue;
                double av = f == 0 ? ab[1] : ab[0];
                int ib = (int)((av - L->span[f][0]) / bw[f]);
                if (ib >= 0 && ib < NBIN) prof[f * NBIN + ib] += 1;
            }
        }
}

static gs_status profile_combs(const vision_work *w, lines_state *L, gs_error *err)
{
    if (!(L->span[0][1] > L->span[0][0] && L->span[1][1] > L->span[1][0])) return GS_OK;
    double *prof = calloc(2 * NBIN, sizeof *prof);
    if (!prof) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    double ac = 0.5 * (L->span[1][0] + L->span[1][1]), bc = 0.5 * (L->span[0][0] + L->span[0][1]), x0, y0, x1, y1, Lf[2];
    vision_mat3_apply(L->Rinv, ac, bc, &x0, &y0);
    for (int f = 0; f < 2; f++) {
        if (f == 0) vision_mat3_apply(L->Rinv, ac, bc + L->cb[f].period, &x1, &y1);
        else vision_mat3_apply(L->Rinv, ac + L->cb[f].period, bc, &x1, &y1);
        Lf[f] = fmax(2, 0.3 * hypot(x1 - x0, y1 - y0));
    }
    profile_accumulate(w, L, Lf, prof);
    for (int f = 0; f < 2; f++) {
        double pp, pph, bw = (L->span[f][1] - L->span[f][0]) / NBIN;
        if (fit_comb_profile(w->P, prof + f * NBIN, NBIN, L->span[f][0], bw, L->cb[f].period, &pp, &pph) != 0) continue;
        comb d = L->cb[f];
        d.period = pp;
        d.phase = pph;
        if (comb_support(&d, L->val + L->off[f], L->wt + L->off[f], L->cnt[f]) == 0) L->cb[f] = d;
    }
    free(prof);
    return GS_OK;
}

/* The image point of comb line `pos` of family f at position `other`
 * along it (rectified coordinates). */
static void comb_point(const lines_state *L, int f, double pos, double other, double *x, double *y)
{
    if (f == 0) vision_mat3_apply(L->Rinv, other, pos, x, y); /* family 1: b = pos */
    else vision_mat3_apply(L->Rinv, pos, other, x, y);
}

/* Stage 4a: which comb lines lie inside the frame, and the dark-line
 * evidence along each whole line (independent of the pieces, which miss
 * faint or slightly bent lines), over the span of the other family's
 * supported lines. */
static void comb_line_evidence(const vision_work *w, lines_state *L)
{
    for (int f = 0; f < 2; f++) {
        const comb *o = &L->cb[1 - f];
        comb *c = &L->cb[f];
        double omax = 0;
        for (int j = 0; j < o->nk; j++) omax = fmax(omax, o->support[j]);
        int jlo = o->nk, jhi = -1;
        for (int j = 0; j < o->nk; j++)
            if (o->support[j] > 0.25 * omax) { if (j < jlo) jlo = j; jhi = j; }
        double lo = o->phase + (o->kmin + jlo) * o->period, hi = o->phase + (o->kmin + jhi) * o->period;
        for (int j = 0; j < c->nk; j++) {
            double pos = c->phase + (c->kmin + j) * c->period;
            int in = 0;
            for (int t = 0; t <= 10; t++) {
                double x, y;
                comb_point(L, f, pos, lo + (hi - lo) * t / 10.0, &x, &y);
                in += x >= 0 && y >= 0 && x < w->W && y < w->H;
            }
            c->inside[j] = in >= 6;
            enum { NS = 48 };
            double pts[NS][2], nrm[NS][2], tol[NS];
            for (int t = 0; t < NS; t++) {
                double other = lo + (hi - lo) * t / (NS - 1.0), x, y, xa, ya;
                comb_point(L, f, pos, other, &x, &y);
                comb_point(L, f, pos + 0.5 * c->period, other, &xa, &ya);
                double dx = xa - x, dy = ya - y, dn = hypot(dx, dy) + 1e-9;
                pts[t][0] = x; pts[t][1] = y;
                nrm[t][0] = dx / dn; nrm[t][1] = dy / dn;
                tol[t] = 0.4 * dn; /* 0.2 cell */
            }
            c->pix[j] = line_evidence(w->resp, w->thr, (const double(*)[2])pts, NS, (const double(*)[2])nrm, tol);
        }
    }
}

/* Stage 4b: the strips between neighbouring lines of a family: how much of
 * the other family's well-seen lines runs through each (see comb_window),
 * sampled in the middle of the strip, away from the crossings. */
static void comb_strip_evidence(const vision_work *w, lines_state *L)
{
    for (int f = 0; f < 2; f++) {
        const comb *o = &L->cb[1 - f];
        comb *c = &L->cb[f];
        double oev[64];
        int oknown[64];
        for (int j = 0; j < 64; j++) c->strip[j] = -1;
        if (comb_evidence(w->P, o->pix, o->inside, o->nk, oev, oknown) != 0) continue;
        enum { NT = 3, NL = 64 * NT };
        for (int j = 0; j + 1 < c->nk; j++) {
            double pts[NL][2], nrm[NL][2], tol[NL];
            int np_ = 0;
            for (int i = 0; i < o->nk; i++) {
                if (!oknown[i] || oev[i] < 0.5) continue;
                double q = o->phase + (o->kmin + i) * o->period, qa = q + 0.5 * o->period;
                for (int t = 0; t < NT; t++) {
                    double pos = c->phase + (c->kmin + j + 0.3 + 0.2 * t) * c->period, x, y, xa, ya;
                    comb_point(L, 1 - f, q, pos, &x, &y);
                    comb_point(L, 1 - f, qa, pos, &xa, &ya);
                    double dx = xa - x, dy = ya - y, dn = hypot(dx, dy) + 1e-9;
                    pts[np_][0] = x; pts[np_][1] = y;
                    nrm[np_][0] = dx / dn; nrm[np_][1] = dy / dn;
                    tol[np_] = 0.4 * dn; /* 0.2 cell */
                    np_++;
                }
            }
            if (np_ > 0) c->strip[j] = line_evidence(w->resp, w->thr, (const double(*)[2])pts, np_, (const double(*)[2])nrm, tol);
        }
    }
}

/* Stage 4c: the board size and which lines are the outer ones (see
 * comb_window), as a model board index -> working pixels. */
static gs_status choose_window(const vision_params *P, const lines_state *L, int size_hint, vision_cand *out,
                               vision_grid_find_info *info,
                               gs_error *err)
{
    static const int sizes[] = {9, 13, 19};
    int bestn = 0, bk[2] = {0, 0};
    double bests = -1e9;
    for (int si = 0; si < 3; si++) {
        int n = size_hint ? size_hint : sizes[si], k[2] = {0, 0};
        double sc = comb_window(P, &L->cb[0], n, &k[0]) + comb_window(P, &L->cb[1], n, &k[1]);
        if (sc > bests) { bests = sc; bestn = n; bk[0] = k[0]; bk[1] = k[1]; }
        if (size_hint) break;
    }
    info->window_score = bests;
    if (bestn == 0 || bests < P->window_min) return gs_error_set(err, GS_ERR_NOBOARD, "no board found (no grid of 9, 13 or 19 lines)");
    const comb *c0 = &L->cb[0], *c1 = &L->cb[1];
    /* board index (i along a, j along b) -> rectified -> working pixels */
    double G[9] = {c1->period, 0, c1->phase + bk[1] * c1->period, 0, c0->period, c0->phase + bk[0] * c0->period, 0, 0, 1};
    vision_mat3_mul(L->Rinv, G, out->m.H);
    out->n = bestn;
    return GS_OK;
}

gs_status vision_lines_candidate(const vision_work *w, vision_piece *p, int np, int size_hint, vision_cand *out,
                                 vision_grid_find_info *info, gs_error *err)
{
    memset(out, 0, sizeof *out);
    out->m.cx = w->W / 2.0;
    out->m.cy = w->H / 2.0;
    out->m.norm = w->sn;
    if (np < w->P->pieces_min) return gs_error_set(err, GS_ERR_NOBOARD, "no board found (too few straight lines)");
    for (int i = 0; i < np; i++) p[i].fam = 0;
    lines_state L;
    memset(&L, 0, sizeof L);
    L.val = malloc(sizeof(double) * (size_t)np * 2);
    if (!L.val) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    L.wt = L.val + np;
    gs_status st = vision_find_families(w->P, p, np, L.v1, L.v2, info->support, err);
    if (st == GS_OK) st = vision_rectify(w, L.v1, L.v2, L.Rect, L.Rinv, err);
    if (st == GS_OK) st = family_combs(w, p, np, &L, err);
    if (st == GS_OK) st = profile_combs(w, &L, err);
    if (st == GS_OK) {
        comb_line_evidence(w, &L);
        comb_strip_evidence(w, &L);
        st = choose_window(w->P, &L, size_hint, out, info, err);
    }
    free(L.val);
    return st;
}
