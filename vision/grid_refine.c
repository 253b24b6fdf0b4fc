/* vision/grid_refine.c: stage 5 of board finding: a grid hypothesis made
 * exact on the thin-dark-line response.  Each grid line is re-fitted to the
 * dark-line pixels near it and the homography to all intersections; the
 * radial distortion k1 is the one that makes those lines straightest, kept
 * only when it clearly helps. */
#include "vision/vision_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
static double collect_points(const gs_image *const resp2[2], double thr, int n, const vision_gmodel *m, double search,
                             linepts *lp)
{
    int maxs = (n - 1) * SUB + 1, total = 0, found = 0;
    lp->n = 0;
    if (n < 2 || n > GS_MAX_SIZE) return 0;
    lp->n = n;
    for (int li = 0; li < 2 * n; li++) {
        int vert = li < n, k = vert ? li : li - n, np_ = 0;
        const gs_image *resp = resp2[vert ? 0 : 1];
        for (int si = 0; si < maxs; si++) {
            double t = (double)si / SUB, u = vert ? k : t, v = vert ? t : k;
            double x, y, xa, ya, xb, yb, tx, ty;
            vision_model_map(m, u, v, &x, &y);
            vision_model_map(m, vert ? u + 0.5 : u, vert ? v : v + 0.5, &xa, &ya);
            vision_model_map(m, vert ? u - 0.5 : u, vert ? v : v - 0.5, &xb, &yb);
            double dx = xa - xb, dy = ya - yb, cell = hypot(dx, dy);
            if (cell < 2) continue;
            /* search along the line's true normal, oriented like the
             * neighbouring lines' offset */
            vision_model_map(m, vert ? u : u + 0.05, vert ? v + 0.05 : v, &tx, &ty);
            tx -= x; ty -= y;
            double tn = hypot(tx, ty);
            if (tn <= 0) continue;
            double nx = -ty / tn, ny = tx / tn;
            if (nx * dx + ny * dy < 0) { nx = -nx; ny = -ny; }
            double proj = fabs(nx * dx + ny * dy);
            int half = (int)ceil(search * proj);
            if (half > 64) continue; /* a degenerate model: no cell is that big */
            double bestv = 0, bo = 0;
            total++;
            for (int o = -half; o <= half; o++) {
                double val = gs_sample_grey(resp, x + nx * o, y + ny * o);
                if (val > bestv) { bestv = val; bo = o; }
            }
            if (bestv < thr) continue;
            /* sub-pixel: parabola through the neighbours */
            double vm = gs_sample_grey(resp, x + nx * (bo - 1), y + ny * (bo - 1));
            double vp = gs_sample_grey(resp, x + nx * (bo + 1), y + ny * (bo + 1));
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

/* Straight lines fitted to the points of a linepts undistorted with one
 * k1: each line (ok where fitted) and the robust squared distances of the
 * points to their lines, summed. */
typedef struct line_fit {
    double L[2 * GS_MAX_SIZE][3];
    int ok[2 * GS_MAX_SIZE];
    double cost;
    int ncost;
} line_fit;

/* The lines of lp undistorted with m's k1 (m->H is not read). */
static void fit_lines(const linepts *lp, const vision_gmodel *m, line_fit *f)
{
    int n = lp->n;
    static const double cap2 = 4.0; /* robust cap: 2 px */
    double cost = 0;
    int ncost = 0;
    double (*L)[3] = f->L;
    int *ok = f->ok;
    for (int li = 0; li < 2 * n; li++) {
        int np_ = lp->cnt[li];
        ok[li] = 0;
        if (np_ < 4 || np_ < (n - 1) * SUB / 6) continue;
        double pts[MAXS][2];
        char keep[MAXS];
        for (int i = 0; i < np_; i++) {
            vision_undistort(m->k1, m->cx, m->cy, m->norm, lp->p[li][i][0], lp->p[li][i][1], &pts[i][0], &pts[i][1]);
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
    f->cost = cost;
    f->ncost = ncost;
}

/* The mean robust squared distance of the points to their lines (px^2),
 * -1 when too little was seen. */
static double lines_cost(const line_fit *f) { return f->ncost < 20 ? -1 : f->cost / f->ncost; }

/* The homography to the intersections of lines f of lp into m->H.
 * Returns lines_cost, or -1 when too little was seen. */
static double fit_h(const linepts *lp, const line_fit *f, vision_gmodel *m)
{
    int n = lp->n, ncost = f->ncost;
    const double (*L)[3] = f->L;
    const int *ok = f->ok;
    double bs[GS_MAX_SIZE * GS_MAX_SIZE][2], is[GS_MAX_SIZE * GS_MAX_SIZE][2];
    int mcount = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            if (!ok[i] || !ok[n + j]) continue;
            double p[3];
            vision_cross3(L[i], L[n + j], p);
            if (fabs(p[2]) < 1e-12) continue;
            bs[mcount][0] = i; bs[mcount][1] = j;
            is[mcount][0] = p[0] / p[2]; is[mcount][1] = p[1] / p[2];
            mcount++;
        }
    if (mcount < 8 || ncost < 20) return -1;
    double Hn[9];
    if (vision_fit_homography((const double(*)[2])bs, (const double(*)[2])is, mcount, Hn) != 0) return -1;
    memcpy(m->H, Hn, sizeof Hn);
    return f->cost / ncost;
}

/* Fits straight lines to the points (undistorted with k1) and the
 * homography to their intersections.  Returns the mean robust squared
 * distance of the points to their lines (px^2), or -1 when too little was
 * seen; m->H gets the fit. */
static double fit_model(const linepts *lp, vision_gmodel *m, int want_h)
{
    line_fit f;
    fit_lines(lp, m, &f);
    return want_h ? fit_h(lp, &f, m) : lines_cost(&f);
}

/* One refinement round: collect dark-line points near the model, then fit
 * H, and (when fit_k1) the distortion k1 that makes the lines straightest.
 * Returns the fraction of samples on a dark line. */
static double refine_round(const vision_params *P, const gs_image *const resp[2], double thr, int n,
                           vision_gmodel *m, double search, int fit_k1, linepts *lp)
{
    double frac = collect_points(resp, thr, n, m, search, lp);
    vision_gmodel base = *m;
    line_fit f0; /* the lines under m's own k1 */
    fit_lines(lp, &base, &f0);
    double c0 = fit_h(lp, &f0, &base);
    if (c0 < 0) return frac;
    if (!fit_k1) { *m = base; return frac; }
    /* 1-D search of k1 on the straightness of the lines alone (H is fitted
     * once, for the winner); k1 = 0 is kept unless a distortion explains
     * the lines clearly better (crowded boards give noisy points).  The
     * lines under m's k1 are f0's (a fit reads k1, not H), and the second
     * pass's centre was costed in the first (bc): neither is fitted again. */
    vision_gmodel t = *m;
    t.k1 = 0;
    double cz = m->k1 == 0 ? lines_cost(&f0) : fit_model(lp, &t, 0), bc = cz, bk = 0;
    double center = m->k1;
    for (int pass = 0; pass < 2 && cz >= 0; pass++) {
        double step = pass == 0 ? 0.02 : 0.004;
        for (int i = -5; i <= 5; i++) {
            t.k1 = center + i * step;
            if (fabs(t.k1) > 0.25 || t.k1 == 0 || (pass == 1 && i == 0)) continue;
            double c = pass == 0 && i == 0 ? lines_cost(&f0) : fit_model(lp, &t, 0);
            if (c >= 0 && c < bc) { bc = c; bk = t.k1; }
        }
        center = bk;
    }
    if (cz < 0 || bc > P->k1_gain * cz) bk = 0; /* not worth a distortion */
    vision_gmodel best = *m;
    best.k1 = bk;
    if (bk == m->k1) memcpy(best.H, base.H, sizeof best.H); /* base's fit, under the same k1 */
    else if (fit_model(lp, &best, 1) < 0) best = base;
    *m = best;
    return frac;
}


double vision_refine_grid(const vision_params *P, const gs_image *resp, double thr, int n, vision_gmodel *m,
                          double search, int fit_k1)
{
    linepts *lp = malloc(sizeof *lp);
    if (!lp) return -1;
    const gs_image *const r2[2] = {resp, resp};
    double frac = refine_round(P, r2, thr, n, m, search, fit_k1, lp);
    free(lp);
    return frac;
}

double vision_refine_grid_maps(const vision_work *w, int n, vision_gmodel *m, double search, int fit_k1)
{
    linepts *lp = malloc(sizeof *lp);
    if (!lp) return -1;
    /* the lines u = k run across the board axis u; when u runs along image
     * x they are the vertical-ish family, seen on map 0 */
    double x0, y0, x1, y1, x2, y2;
    vision_model_map(m, 0, 0, &x0, &y0);
    vision_model_map(m, 1, 0, &x1, &y1);
    vision_model_map(m, 0, 1, &x2, &y2);
    int u_along_x = fabs(x1 - x0) * hypot(x2 - x0, y2 - y0) >= fabs(x2 - x0) * hypot(x1 - x0, y1 - y0);
    const gs_image *const r2[2] = {w->lm.map[u_along_x ? 0 : 1], w->lm.map[u_along_x ? 1 : 0]};
    double frac = refine_round(w->P, r2, 0.5, n, m, search, fit_k1, lp);
    free(lp);
    return frac;
}

/* How well the model H (board -> working pixels) sits on the dark lines:
 * for samples along every grid line, the offset (in cells) to the darkest
 * line pixel within +-0.3 cell.  *p90 = 90th percentile of |offset|,
 * *worst = the largest per-line median |offset|. */
void vision_grid_residual(const gs_image *resp, double thr, int n, const vision_gmodel *M, double *p90, double *worst)
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
            vision_model_map(M, u, v, &x, &y);
            vision_model_map(M, vert ? u + 0.5 : u, vert ? v : v + 0.5, &xa, &ya);
            vision_model_map(M, vert ? u - 0.5 : u, vert ? v : v - 0.5, &xb, &yb);
            double dx = xa - xb, dy = ya - yb, cell = hypot(dx, dy);
            if (cell < 2) continue;
            dx /= cell; dy /= cell;
            int half = (int)ceil(0.3 * cell);
            if (half > 64) continue;
            double bv = 0, bo = 0;
            for (int o = -half; o <= half; o++) {
                double val = gs_sample_grey(resp, x + dx * o, y + dy * o);
                if (val > bv) { bv = val; bo = o; }
            }
            if (bv < thr) continue;
            line[m++] = fabs(bo) / cell;
            all[cnt++] = fabs(bo) / cell;
        }
        if (m >= 4) {
            qsort(line, (size_t)m, sizeof line[0], vision_cmp_double);
            if (line[m / 2] > w) w = line[m / 2];
        }
    }
    if (cnt > 0) {
        qsort(all, (size_t)cnt, sizeof all[0], vision_cmp_double);
        *p90 = all[(int)(0.9 * (cnt - 1))];
        *worst = w;
    }
    free(all);
}
