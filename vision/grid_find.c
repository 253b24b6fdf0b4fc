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

gs_status vision_grid_find(const gs_image *img, int size_hint, vision_grid *out, gs_error *err)
{
    vision_grid_find_info info;
    return vision_grid_find_ex(img, size_hint, out, &info, err);
}

gs_status vision_grid_find_ex(const gs_image *img, int size_hint, vision_grid *out, vision_grid_find_info *info,
                              gs_error *err)
{
    memset(info, 0, sizeof *info);
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
        if (st == GS_OK && frac < 0.25) st = gs_error_set(err, GS_ERR_NOBOARD, "no board found (grid lines not confirmed)");
    }
    free(pieces);
    work_free(&w);
    return st;
}
