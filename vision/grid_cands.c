/* vision/grid_cands.c: stage 5 of board finding: the hypotheses, each
 * refined on the line response (vision/grid_refine.c) or the line maps,
 * rated (map score, clarity, the evidence past its sides), kept once per
 * grid, and spread to their neighbours: the windows of a crowded-board
 * lattice, and its sides moved a line.  The list and the rank are what
 * stage 6 (vision/grid_decide.c) chooses from. */
#include "vision/vision_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef GRID_DEBUG
#include <stdio.h>
#endif
/* Stage 5: refinement rounds on the line response, search narrowing from
 * 0.35 to 0.2 cell, k1 from the second round on.  Returns the fraction of
 * line samples on a dark line (-1 out of memory). */
double vision_cand_refine(const vision_work *w, vision_cand *c)
{
    double frac = vision_refine_grid(w->P, w->resp, w->thr, c->n, &c->m, 0.35, 0);
    if (frac >= 0) frac = vision_refine_grid(w->P, w->resp, w->thr, c->n, &c->m, 0.25, 1);
    if (frac >= 0) frac = vision_refine_grid(w->P, w->resp, w->thr, c->n, &c->m, 0.2, 1);
    return frac;
}

/* The same on the line maps (crowded boards). */
static double refine_cand_maps(const vision_work *w, vision_cand *c)
{
    double frac = vision_refine_grid_maps(w, c->n, &c->m, 0.35, 0);
    if (frac >= 0) frac = vision_refine_grid_maps(w, c->n, &c->m, 0.25, 1);
    if (frac >= 0) frac = vision_refine_grid_maps(w, c->n, &c->m, 0.2, 1);
    /* then the whole lattice on all the line pixels (where it fails the
     * line-by-line result stands) */
    if (frac >= 0) (void)vision_dense_fit(w, c->n, &c->m);
    return frac;
}

/* Fills c's map score, clarity and rank: the line pixels it explains,
 * plus its lines' clarity on the open stretches (which decides between
 * grids the line pixels explain about equally; a crowded board's
 * stretches are mostly covered, so there the line pixels decide), less
 * the line evidence beyond its strongest side (a window of a bigger board
 * sees its lattice go on there). */
void vision_cand_rate(const vision_work *w, vision_cand *c)
{
    vision_score sc;
    vision_grid_score(w, c->n, &c->m, &sc);
    c->map = vision_linemap_score(w, c->n, &c->m, NULL);
    c->clear = sc.lines - sc.anti;
    c->outside = sc.outside;
    c->score = c->map + w->P->rank_clear * c->clear - w->P->rank_outside * sc.outside;
}

/* Stage 7: the model (working pixels) as a vision_grid of the original
 * photo: top edge = the edge whose midpoint is highest, corners clockwise
 * on screen from its left end. */
void vision_cand_grid(const vision_work *w, const gs_image *img, const vision_cand *c, vision_grid *out)
{
    double H[9], Sback[9] = {1 / w->scale, 0, 0, 0, 1 / w->scale, 0, 0, 0, 1};
    vision_mat3_mul(Sback, c->m.H, H);
    double nn = c->n - 1;
    const double bc[4][2] = {{0, 0}, {nn, 0}, {nn, nn}, {0, nn}};
    double ic[4][2], ang[4], mx = 0, my = 0;
    for (int i = 0; i < 4; i++) {
        vision_mat3_apply(H, bc[i][0], bc[i][1], &ic[i][0], &ic[i][1]);
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
    /* D: final (u,v) -> internal index coordinates */
    double D[9] = {(bc[a1][0] - bc[a0][0]) / nn, (bc[a3][0] - bc[a0][0]) / nn, bc[a0][0],
                   (bc[a1][1] - bc[a0][1]) / nn, (bc[a3][1] - bc[a0][1]) / nn, bc[a0][1], 0, 0, 1};
    double Hf[9];
    vision_mat3_mul(H, D, Hf);
    for (int i = 0; i < 9; i++) Hf[i] /= Hf[8];
    memset(out, 0, sizeof *out);
    out->size = c->n;
    memcpy(out->H, Hf, sizeof Hf);
    out->k1 = c->m.k1;
    out->cx = c->m.cx / w->scale;
    out->cy = c->m.cy / w->scale;
    out->norm = c->m.norm / w->scale;
    for (int i = 0; i < 4; i++) vision_grid_map(out, bc[i][0], bc[i][1], &out->corners[i][0], &out->corners[i][1]);
    out->cell_aspect = vision_estimate_aspect(Hf, img->width / 2.0, img->height / 2.0);
}


/* Two hypotheses are the same grid when they have one size and their
 * corners lie within half a cell of each other. */
int vision_cands_same(const vision_cand *a, const vision_cand *b)
{
    if (a->n != b->n) return 0;
    double nn = a->n - 1, x0, y0, x1, y1, cell;
    vision_model_map(&a->m, 0, 0, &x0, &y0);
    vision_model_map(&a->m, nn, nn, &x1, &y1);
    cell = hypot(x1 - x0, y1 - y0) / (nn * 1.414);
    for (int i = 0; i < 4; i++) {
        double u = (i == 1 || i == 2) ? nn : 0, v = i >= 2 ? nn : 0;
        vision_model_map(&a->m, u, v, &x0, &y0);
        vision_model_map(&b->m, u, v, &x1, &y1);
        /* the same quad may be labelled from another corner */
        double best = 1e300;
        for (int j = 0; j < 4; j++) {
            double uu = (j == 1 || j == 2) ? nn : 0, vv = j >= 2 ? nn : 0, x2, y2;
            vision_model_map(&b->m, uu, vv, &x2, &y2);
            best = fmin(best, hypot(x2 - x0, y2 - y0));
        }
        if (best > 0.5 * cell) return 0;
    }
    return 1;
}

/* Keeps the better of two hypotheses of the same grid. */
void vision_cands_add(vision_cand_list *L, const vision_cand *c)
{
    for (int i = 0; i < L->n; i++)
        if (vision_cands_same(&L->c[i], c)) {
            if (c->score > L->c[i].score) L->c[i] = *c;
            return;
        }
    if (L->n < VISION_MAX_CANDS) L->c[L->n++] = *c;
}

/* A model worth refining: the lattice from two lines before to two after
 * the board stays on one side of the vanishing line (no point at
 * infinity), and its cells are between cell_min_px and a third of the
 * image. */
static int model_sane(const vision_work *w, int n, const vision_gmodel *m)
{
    const double *H = m->H;
    double s0 = H[6] * -2 + H[7] * -2 + H[8];
    for (int i = 0; i < 4; i++) {
        double u = (i & 1) ? n + 1 : -2, v = (i & 2) ? n + 1 : -2, q = H[6] * u + H[7] * v + H[8];
        if (q * s0 <= 0 || fabs(q) < 1e-9 * fabs(s0)) return 0;
    }
    double side = w->W > w->H ? w->W : w->H;
    for (int i = 0; i < 4; i++) {
        double u = (i & 1) ? n - 2 : 0, v = (i & 2) ? n - 2 : 0, x0, y0, x1, y1, x2, y2;
        vision_model_map(m, u, v, &x0, &y0);
        vision_model_map(m, u + 1, v, &x1, &y1);
        vision_model_map(m, u, v + 1, &x2, &y2);
        double a = hypot(x1 - x0, y1 - y0), b = hypot(x2 - x0, y2 - y0);
        if (a < w->P->cell_min_px || b < w->P->cell_min_px || a > side / 3 || b > side / 3) return 0;
    }
    return 1;
}

/* The model of the window of n lines from column a, row b of m's lattice. */
static void shift_model(const vision_gmodel *m, int a, int b, vision_gmodel *out)
{
    double T[9] = {1, 0, a, 0, 1, b, 0, 0, 1};
    *out = *m;
    vision_mat3_mul(m->H, T, out->H);
}

enum { KEEP = 3 };
/* The best KEEP windows so far, best first. */
typedef struct win_top { double s; int n, a, b; } win_top;
static void top_insert(win_top *top, int *nt, double s, int n, int a, int b)
{
    int j;
    if (*nt < KEEP) j = (*nt)++;
    else if (s > top[KEEP - 1].s) j = KEEP - 1;
    else return;
    top[j] = (win_top){s, n, a, b};
    for (; j > 0 && top[j].s > top[j - 1].s; j--) {
        win_top t = top[j];
        top[j] = top[j - 1];
        top[j - 1] = t;
    }
}

/* The variants of a leading crowded-board hypothesis with one side moved
 * one line in or out, the other three kept: in an oblique view the rectification
 * may misjudge the foreshortening, so that the far side of the lattice
 * lands a line off while the near side is right; each variant is refined
 * and ranked like any other hypothesis; it is kept only when it ranks
 * clearly above the lattice it came from. */
gs_status vision_cands_stretch(const vision_work *w, const vision_cand *c, vision_cand_list *out)
{
    double nn = c->n - 1;
    for (int side = 0; side < 4; side++)
        for (int d = -1; d <= 1; d += 2) {
            /* lattice coordinates of the old model along the moved axis:
             * old = t + s * new, so that the moved side lands d lines off */
            double s = (nn - d) / nn, t = side & 1 ? 0 : d;
            if (side & 1) s = (nn + d) / nn;
            double T[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
            if (side < 2) { T[4] = s; T[5] = t; } else { T[0] = s; T[2] = t; }
            vision_cand v = *c;
            vision_mat3_mul(c->m.H, T, v.m.H);
            if (!model_sane(w, v.n, &v.m)) continue;
            /* one narrow round and the whole-lattice fit: the variant
             * starts within a fraction of a cell of its lines where it is
             * right (the full rounds cost as much as all the rest) */
            if ((v.frac = vision_refine_grid_maps(w, v.n, &v.m, 0.25, 1)) < 0) return GS_ERR_NOMEM;
            (void)vision_dense_fit(w, v.n, &v.m); /* where it fails the round's result stands */
            if (!model_sane(w, v.n, &v.m)) continue;
            vision_cand_rate(w, &v);
#ifdef GRID_DEBUG
            fprintf(stderr, "stretch side %d d %d: rank %.3f (base %.3f)\n", side, d, v.score, c->score);
#endif
            /* the comb measured the spacing on the whole photo: a
             * stretched lattice must rank clearly better to stand */
            if (v.score > c->score + w->P->rank_margin) vision_cands_add(out, &v);
        }
    return GS_OK;
}

/* Stages 5-6 for a crowded-board hypothesis: the windows of its lattice
 * (every size, up to three lines beyond its own edges) scored on the line
 * pixels at once, the best few refined and scored again. */
gs_status vision_cands_dense(const vision_work *w, vision_cand base, int size_hint, vision_cand_list *out)
{
    static const int sizes[] = {9, 13, 19};
    vision_mapproj *p = vision_mapproj_make(w, &base.m);
    if (!p) return GS_ERR_NOMEM;
    win_top top[KEEP];
    int nt = 0;
    for (int si = 0; si < 3; si++) {
        int n = size_hint ? size_hint : sizes[si];
        if (size_hint && si > 0) break;
        for (int a = -3; a <= base.n - n + 3; a++)
            for (int b = -3; b <= base.n - n + 3; b++) {
                int off[2] = {a, b};
                double s = vision_mapproj_score(p, n, off, NULL);
                if (s == -1) continue;
                top_insert(top, &nt, s, n, a, b);
            }
    }
    vision_mapproj_free(p);
    for (int i = 0; i < nt; i++) {
#ifdef GRID_DEBUG
        fprintf(stderr, "dense top %d: n %d a %d b %d map %.3f\n", i, top[i].n, top[i].a, top[i].b, top[i].s);
#endif
        vision_cand c = base;
        c.n = top[i].n;
        shift_model(&base.m, top[i].a, top[i].b, &c.m);
        if (!model_sane(w, c.n, &c.m)) continue;
        if ((c.frac = refine_cand_maps(w, &c)) < 0) return GS_ERR_NOMEM;
        if (!model_sane(w, c.n, &c.m)) continue;
        vision_cand_rate(w, &c);
        vision_cands_add(out, &c);
    }
    return GS_OK;
}

/* The best hypothesis and the best one that is a different grid. */
int vision_cands_pick(const vision_cand_list *L, int *second)
{
    int best = -1;
    *second = -1;
    for (int i = 0; i < L->n; i++)
        if (best < 0 || L->c[i].score > L->c[best].score) best = i;
    for (int i = 0; i < L->n; i++)
        if (i != best && !vision_cands_same(&L->c[i], &L->c[best]) && (*second < 0 || L->c[i].score > L->c[*second].score))
            *second = i;
    return best;
}
