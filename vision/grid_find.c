/* vision/grid_find.c: finds the board in a photo and fits its grid.
 *
 * Pipeline (all on a working copy whose longest side is VISION_WORK_SIDE):
 *  1. the photo prepared once (work_prepare): grey image, thin-dark-line
 *     response and its pieces (cvshim: black-hat + Hough);
 *  2-4. grid hypotheses from straight pieces of evidence
 *     (vision/grid_lines.c): pieces of line, and, for boards whose lines
 *     are mostly hidden, steps between neighbouring stones
 *     (vision/grid_stones.c) at a few stone sizes;
 *  5. each hypothesis refined on the line response (vision/grid_refine.c),
 *     with its neighbours (one line more or less on a side, the other
 *     sizes) as further hypotheses;
 *  6. every hypothesis scored against the whole image
 *     (vision/grid_score.c); the best is kept when it is clearly better
 *     than the best different grid, else the photo is refused;
 *  7. orientation to the vision_grid convention (edge 0-1 = the edge whose
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
#endif

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

/* Stage 1: the working images and the line pieces (*pieces malloc'd). */
static gs_status work_prepare(const gs_image *img, vision_work *w, vision_piece **pieces, int *np, gs_error *err)
{
    memset(w, 0, sizeof *w);
    *pieces = NULL;
    *np = 0;
    cvshim_segment *raw = NULL;
    int nraw = 0;
    char msg[200];
    if (cvshim_board_lines(img, VISION_WORK_SIDE, &w->scale, &w->resp, &w->grey, &raw, &nraw, msg, sizeof msg) != 0)
        return gs_error_set(err, GS_ERR_INTERNAL, "line detection failed: %s", msg);
    w->W = w->resp->width;
    w->H = w->resp->height;
    w->cx = w->W / 2.0;
    w->cy = w->H / 2.0;
    w->sn = (w->W > w->H ? w->W : w->H) / 2.0;
    w->thr = response_threshold(w->resp);
    vision_piece *p = malloc(sizeof *p * (size_t)(nraw + 1));
    if (!p) { free(raw); return gs_error_set(err, GS_ERR_NOMEM, "out of memory"); }
    for (int i = 0; i < nraw; i++) vision_piece_set(&p[i], w, raw[i].x1, raw[i].y1, raw[i].x2, raw[i].y2);
    free(raw);
    *pieces = p;
    *np = nraw;
    return GS_OK;
}

static void work_free(vision_work *w)
{
    gs_image_destroy(w->resp);
    gs_image_destroy(w->grey);
    w->resp = w->grey = NULL;
    for (int i = 0; i < VISION_BLOB_SCALES; i++) {
        free(w->blobs[i]);
        w->blobs[i] = NULL;
    }
}

/* Stage 5: refinement rounds on the line response, search narrowing from
 * 0.35 to 0.2 cell, k1 from the second round on.  Returns the fraction of
 * line samples on a dark line (-1 out of memory). */
static double refine_cand(const vision_work *w, vision_cand *c)
{
    double frac = vision_refine_grid(w->resp, w->thr, c->n, &c->m, 0.35, 0);
    if (frac >= 0) frac = vision_refine_grid(w->resp, w->thr, c->n, &c->m, 0.25, 1);
    if (frac >= 0) frac = vision_refine_grid(w->resp, w->thr, c->n, &c->m, 0.2, 1);
    return frac;
}

/* Stage 7: the model (working pixels) as a vision_grid of the original
 * photo: top edge = the edge whose midpoint is highest, corners clockwise
 * on screen from its left end. */
static void grid_from_model(const vision_work *w, const gs_image *img, const vision_cand *c, vision_grid *out)
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

static gs_status check_input(const gs_image *img, int size_hint, gs_error *err)
{
    if (!img || !img->buf || img->width < 32 || img->height < 32)
        return gs_error_set(err, GS_ERR_USAGE, "image too small to hold a board");
    if (img->channels != 1 && img->channels != 3)
        return gs_error_set(err, GS_ERR_USAGE, "image must be grey or BGR (%d channels given)", img->channels);
    if (size_hint != 0 && (size_hint < 5 || size_hint > GS_MAX_SIZE))
        return gs_error_set(err, GS_ERR_USAGE, "board size %d out of range", size_hint);
    return GS_OK;
}

/* The least margin of line stretches seen on the grid over those seen
 * half a cell off (vision/grid_score.c) for a board: real boards of the
 * test photos show 0.6 or more, ordinary photos (sudoku, ruled notes,
 * chessboards, facades) 0.3 or less. */
#define GRID_LINES_MIN 0.45

/* ------------------------------------------------------- the hypotheses */

#define MAX_CANDS 48
typedef struct cand_list {
    vision_cand c[MAX_CANDS];
    int n;
} cand_list;

/* Two hypotheses are the same grid when they have one size and their
 * corners lie within half a cell of each other. */
static int same_grid(const vision_cand *a, const vision_cand *b)
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
static void add_cand(cand_list *L, const vision_cand *c)
{
    for (int i = 0; i < L->n; i++)
        if (same_grid(&L->c[i], c)) {
            if (c->score > L->c[i].score) L->c[i] = *c;
            return;
        }
    if (L->n < MAX_CANDS) L->c[L->n++] = *c;
}

/* A model worth refining: the lattice from two lines before to two after
 * the board stays on one side of the vanishing line (no point at
 * infinity), and its cells are between 4 px and a third of the image. */
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
        if (a < 4 || b < 4 || a > side / 3 || b > side / 3) return 0;
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

/* Stages 5-6 for one generated hypothesis: refined, then the windows of
 * its lattice (every size, up to two lines beyond its own edges) scored
 * at once on one table of dips; the best few refined and scored again. */
enum { KEEP = 3 };
static gs_status expand_windows(const vision_work *w, vision_cand base, int size_hint, cand_list *out)
{
#ifdef GRID_DEBUG
    fprintf(stderr, "BASE n %d src %d H %g %g %g %g %g %g %g %g %g scale %g\n", base.n, base.source, base.m.H[0], base.m.H[1], base.m.H[2], base.m.H[3], base.m.H[4], base.m.H[5], base.m.H[6], base.m.H[7], base.m.H[8], w->scale);
#endif
    if (!model_sane(w, base.n, &base.m)) return GS_OK;
    if (refine_cand(w, &base) < 0) return GS_ERR_NOMEM;
    if (!model_sane(w, base.n, &base.m)) return GS_OK;
#ifdef GRID_DEBUG
    fprintf(stderr, "REF n %d src %d H %g %g %g %g %g %g %g %g %g scale %g\n", base.n, base.source, base.m.H[0], base.m.H[1], base.m.H[2], base.m.H[3], base.m.H[4], base.m.H[5], base.m.H[6], base.m.H[7], base.m.H[8], w->scale);
#endif
    static const int sizes[] = {9, 13, 19};
    vision_dips *d = vision_dips_make(w, &base.m, -3, base.n + 2);
    if (!d) return GS_ERR_NOMEM;
    struct { double s; int n, a, b; } top[KEEP];
    int nt = 0;
    for (int si = 0; si < 3; si++) {
        int n = size_hint ? size_hint : sizes[si];
        if (size_hint && si > 0) break;
        for (int a = -2; a <= base.n - n + 2; a++)
            for (int b = -2; b <= base.n - n + 2; b++) {
                vision_score ds;
                double s = vision_dips_score(d, n, a, b, &ds);
#ifdef GRID_DEBUG
                if (getenv("GD2")) fprintf(stderr, "  win n %d a %d b %d: %.3f (l %.2f a %.2f o %.2f st %.2f %.2f %.2f)\n", n, a, b, s, ds.lines, ds.anti, ds.outside, ds.stone_on, ds.stone_off, ds.stone_out);
#endif
                if (s <= 0) continue;
                int j = nt < KEEP ? nt++ : KEEP - 1;
                if (j == KEEP - 1 && nt == KEEP && s <= top[j].s) continue;
                top[j].s = s; top[j].n = n; top[j].a = a; top[j].b = b;
                for (; j > 0 && top[j].s > top[j - 1].s; j--) {
                    __typeof__(top[0]) t = top[j]; top[j] = top[j - 1]; top[j - 1] = t;
                }
            }
    }
    vision_dips_free(d);
    for (int i = 0; i < nt; i++) {
        vision_cand c = base;
        c.n = top[i].n;
        shift_model(&base.m, top[i].a, top[i].b, &c.m);
        if (!model_sane(w, c.n, &c.m)) continue;
        if (refine_cand(w, &c) < 0) return GS_ERR_NOMEM;
        if (!model_sane(w, c.n, &c.m)) continue;
        c.score = vision_grid_score(w, c.n, &c.m, NULL);
        add_cand(out, &c);
    }
    return GS_OK;
}

/* Stages 2-4 for every source of pieces: the drawn lines, then the stones
 * at a few sizes (a cell of 1/60 to 1/14 of the working image). */
static gs_status generate(const vision_work *w, vision_piece *lines, int nlines, int size_hint, cand_list *out,
                          vision_grid_find_info *info, gs_error *err)
{
    vision_cand c;
    gs_error e2;
    gs_status st = vision_find_blobs((vision_work *)w, err);
    if (st != GS_OK) return st;
    if (vision_lines_candidate(w, lines, nlines, size_hint, 1, &c, info, &e2) == GS_OK) {
        c.source = VISION_SRC_LINES;
        if ((st = expand_windows(w, c, size_hint, out)) != GS_OK) return gs_error_set(err, st, "out of memory");
    }
    for (int sc = 0; sc < VISION_BLOB_SCALES; sc++) {
        vision_piece *p = NULL;
        int np = 0;
        if ((st = vision_stone_pieces(w, sc, &p, &np, err)) != GS_OK) return st;
        vision_grid_find_info i2;
        memset(&i2, 0, sizeof i2);
#ifdef GRID_DEBUG
        for (int i = 0; i < np; i++) fprintf(stderr, "PIECE %d %g %g %g %g %g\n", sc, p[i].m[0] * w->sn + w->cx, p[i].m[1] * w->sn + w->cy, p[i].d[0], p[i].d[1], p[i].len);
        for (int i = 0; i < w->nblobs[sc]; i++) fprintf(stderr, "BLOB %d %g %g %g\n", sc, w->blobs[sc][i].x, w->blobs[sc][i].y, w->blobs[sc][i].strength);
#endif
        gs_status s2 = vision_lines_candidate(w, p, np, size_hint, 0, &c, &i2, &e2);
#ifdef GRID_DEBUG
        fprintf(stderr, "stones cell %.1f: %d pieces: %s\n", w->blob_cell[sc], np, s2 == GS_OK ? "ok" : e2.msg);
#endif
        if (s2 == GS_OK) {
            c.source = VISION_SRC_STONES;
            if ((st = expand_windows(w, c, size_hint, out)) != GS_OK) { free(p); return gs_error_set(err, st, "out of memory"); }
        }
        free(p);
    }
    return GS_OK;
}

/* The best hypothesis and the best one that is a different grid. */
static int pick(const cand_list *L, int *second)
{
    int best = -1;
    *second = -1;
    for (int i = 0; i < L->n; i++)
        if (best < 0 || L->c[i].score > L->c[best].score) best = i;
    for (int i = 0; i < L->n; i++)
        if (i != best && !same_grid(&L->c[i], &L->c[best]) && (*second < 0 || L->c[i].score > L->c[*second].score))
            *second = i;
    return best;
}

gs_status vision_grid_find(const gs_image *img, int size_hint, vision_grid *out, gs_error *err)
{
    vision_grid_find_info info;
    return vision_grid_find_ex(img, size_hint, out, &info, err);
}

gs_status vision_grid_find_ex(const gs_image *img, int size_hint, vision_grid *out, vision_grid_find_info *info,
                              gs_error *err)
{
    memset(info, 0, sizeof *info);
    (void)generate;
    (void)pick;
    gs_status st = check_input(img, size_hint, err);
    if (st != GS_OK) return st;
    vision_work w;
    vision_piece *pieces = NULL;
    int np = 0;
    st = work_prepare(img, &w, &pieces, &np, err);
    info->nsegs = np;
    vision_cand c;
    if (st == GS_OK) st = vision_lines_candidate(&w, pieces, np, size_hint, 1, &c, info, err);
    if (st == GS_OK) {
        double frac = refine_cand(&w, &c);
        if (frac < 0) st = gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        info->found_frac = frac;
        vision_grid_residual(w.resp, w.thr, c.n, &c.m, &info->resid_p90, &info->resid_worst_line);
        grid_from_model(&w, img, &c, out);
        out->confidence = fmin(1.0, fmax(0.0, frac));
        vision_score sc;
        c.score = vision_grid_score(&w, c.n, &c.m, &sc);
#ifdef GRID_DEBUG
        fprintf(stderr, "SCORE n %d frac %.3f total %.3f lines %.3f anti %.3f out %.3f st %.2f %.2f %.2f\n", c.n, frac, c.score,
                sc.lines, sc.anti, sc.outside, sc.stone_on, sc.stone_off, sc.stone_out);
#endif
        if (st == GS_OK && frac < 0.25) st = gs_error_set(err, GS_ERR_NOBOARD, "no board found (grid lines not confirmed)");
        /* a board's lines show on its open stretches and not half a cell
         * off; ruled paper, tiles, facades and chessboards show dips both
         * on and between the hypothesised lines, or few on them */
        if (st == GS_OK && sc.lines - sc.anti < GRID_LINES_MIN)
            st = gs_error_set(err, GS_ERR_NOBOARD,
                              "no board found (lines on %.0f%% of the grid's stretches, %.0f%% half a cell off)",
                              100 * sc.lines, 100 * sc.anti);
    }
    free(pieces);
    work_free(&w);
    return st;
}
