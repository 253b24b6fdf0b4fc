/* vision/grid_find.c: finds the board in a photo and fits its grid.
 *
 * Pipeline (all on a working copy whose longest side is VISION_WORK_SIDE):
 *  1. the photo prepared once (work_prepare): grey image, thin-dark-line
 *     response and its pieces (cvshim: black-hat + Hough);
 *  2-4. grid hypotheses: from the straight pieces of drawn line
 *     (vision/grid_lines.c), and, for crowded boards whose lines show only
 *     in short stretches between the stones, from the line maps
 *     (vision/grid_dense.c);
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
static gs_status work_prepare(const gs_image *img, int side, vision_work *w, vision_piece **pieces, int *np, gs_error *err)
{
    memset(w, 0, sizeof *w);
    w->img = img;
    *pieces = NULL;
    *np = 0;
    cvshim_segment *raw = NULL;
    int nraw = 0;
    char msg[200];
    if (cvshim_board_lines(img, side, &w->scale, &w->resp, &w->grey, &raw, &nraw, msg, sizeof msg) != 0)
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
    return vision_linemap_make(w, err);
}

static void work_free(vision_work *w)
{
    vision_linemap_free(&w->lm);
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

/* Weight of the lines' clarity on the open stretches in the ranking of
 * hypotheses: it decides between grids the line pixels explain about
 * equally (a crowded board's stretches are mostly covered, so there the
 * line pixels decide). */
#define RANK_CLEAR 0.25
/* Weight of the line evidence beyond the grid's strongest side: a window
 * of a bigger board (a 13x13 inside a 19x19) sees its lattice go on there
 * (0.74 and more on the visible photos, 0.47 at most on the right grids,
 * whose board edge may look like a line), so it ranks below the whole. */
#define RANK_OUTSIDE 0.15

/* Fills c's map score, clarity and rank. */
static void rate_cand(const vision_work *w, vision_cand *c)
{
    vision_score sc;
    vision_grid_score(w, c->n, &c->m, &sc);
    c->map = vision_linemap_score(w, c->n, &c->m, NULL);
    c->clear = sc.lines - sc.anti;
    c->outside = sc.outside;
    c->score = c->map + RANK_CLEAR * c->clear - RANK_OUTSIDE * sc.outside;
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

/* The best must beat the best different grid by this much in rank. */
#define RANK_MARGIN 0.015

/* The variants of a leading crowded-board hypothesis with one side moved
 * one line in or out, the other three kept: in an oblique view the rectification
 * may misjudge the foreshortening, so that the far side of the lattice
 * lands a line off while the near side is right; each variant is refined
 * and ranked like any other hypothesis; it is kept only when it ranks
 * clearly above the lattice it came from. */
static gs_status stretch_variants(const vision_work *w, const vision_cand *c, cand_list *out)
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
            rate_cand(w, &v);
#ifdef GRID_DEBUG
            fprintf(stderr, "stretch side %d d %d: rank %.3f (base %.3f)\n", side, d, v.score, c->score);
#endif
            /* the comb measured the spacing on the whole photo: a
             * stretched lattice must rank clearly better to stand */
            if (v.score > c->score + RANK_MARGIN) add_cand(out, &v);
        }
    return GS_OK;
}

/* Stages 5-6 for a crowded-board hypothesis: the windows of its lattice
 * (every size, up to three lines beyond its own edges) scored on the line
 * pixels at once, the best few refined and scored again. */
static gs_status expand_dense(const vision_work *w, vision_cand base, int size_hint, cand_list *out)
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
        rate_cand(w, &c);
        add_cand(out, &c);
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

static gs_status find_at_side(const gs_image *img, int side, int size_hint, vision_grid *out, vision_grid_find_info *info,
                              gs_error *err);

gs_status vision_grid_find_frame(const gs_image *img, int size_hint, vision_grid *out, gs_error *err)
{
    vision_grid_find_info info;
    gs_status st = check_input(img, size_hint, err);
    return st != GS_OK ? st : find_at_side(img, VISION_WORK_SIDE, size_hint, out, &info, err);
}

/* A board whose lines are clearly seen on its open stretches must also
 * show them as thin dark lines (the line maps, map score): the photos
 * 0.8 and up, as shot and on copies changed as eval-perturb.sh changes
 * them, rendered video frames 0.2 (a scene round the board); a blurred
 * periodic texture (opencv-doc's pic4.png at 60 % brightness, lines 0.45
 * clear) has no thin lines at all (-1). */
#define MAP_LINES 0.05
/* A board whose lines are not clearly seen on its open stretches (a
 * crowded finished game, glare) must explain at least this much of the
 * line pixels (ordinary photos: 0.13 and less but for a sudoku, 0.6)... */
#define MAP_CROWDED 0.25
/* ...show stones on at least this share of its points (a sudoku has
 * none on its crossings: 0.02 read)... */
#define STONES_MIN 0.2
/* ...and the lines it does show plus the stones must make up for each
 * other: the share of stones plus (lines - anti) at least this.  The
 * sudoku makes 0.42; a game with a third of its points taken, under a
 * pink or cyan lamp, 0.63 and up as shot, 0.52-0.60 on copies made
 * smaller or recompressed: those are refused, since a bar of 0.5 let
 * through a grid half a cell off on one of them (game 3 under pink light
 * at JPEG quality 30). */
#define CLEAR_OR_STONES 0.6
/* A board so full of stones that they hide most of the line pixels
 * (coloured light on a finished game: 0.19-0.25 explained) is still one
 * when it explains at least MAP_FULL of them (wrong grids on darkened or
 * recompressed copies of those photos explain 0.03-0.14), stones stand on
 * at least FULL_STONES of its points, and they touch as a finished game's
 * do: black against white along borders, neither in colour patches nor
 * alternating point by point as a chessboard's squares
 * (vision_contacts_same). */
#define MAP_FULL 0.15
#define FULL_STONES 0.6
/* Below MAP_FULL, down to MAP_STONES, the stones alone must show the
 * board (its lines hidden under them and a lamp's colour: 0.085-0.11 on
 * a finished game under a blue lamp): the reading sure on all but
 * STONES_UNSURE of the points, no stones of both colours lining up one
 * line past a side, as they do when the grid covers only part of the
 * board, and no outer line that is one colour over two thirds of its
 * length, as the table or the board's edge reads when the grid's side
 * lies on it (finished games: runs of 4-10 stones along an edge, 5 on the
 * photos).  The wrong grids in this band, on darkened or recompressed
 * copies, failed one of these: 0.21 of their points unsure, a game going
 * on past a side, a side of 16 or 19 "black stones". */
#define MAP_STONES 0.06
#define STONES_UNSURE 0.15
/* The line evidence beyond a grid's strongest side above which a grid
 * smaller than 19x19 is taken for a window of a bigger board. */
#define WINDOW_OUT 0.6

double vision_contacts_same(const gs_position *p)
{
    int N = p->size, pairs = 0, same = 0;
    const uint8_t *c = p->cell;
    for (int i = 0; i < N * N; i++) {
        if (c[i] == GS_EMPTY) continue;
        if (i % N + 1 < N && c[i + 1] != GS_EMPTY) { pairs++; same += c[i + 1] == c[i]; }
        if (i / N + 1 < N && c[i + N] != GS_EMPTY) { pairs++; same += c[i + N] == c[i]; }
    }
    return pairs ? (double)same / pairs : 1;
}

/* What vision_read sees on a grid: the share of its points taken for
 * stones and of those marked unsure, of the pairs of neighbouring stones
 * the share of one colour, and the longest run of stones of one colour
 * along an outer line and along any line. */
typedef struct stone_view {
    double share, same, unsure;
    int edge_run, line_run;
} stone_view;

/* A finished game never lines up stones of one colour over two thirds of
 * a line of a 13x13 or 19x19 (the boards with truth: 7 at most), while a
 * grid that spills over the board's side onto the table, or its dark
 * edge, reads a column of "stones" there (darkened copies of photos under
 * a pink lamp: 18 and 19 in a column).  A 9x9's wall of 6 may be a game. */
#define LINE_RUN_SIZE 13

/* The longest run of stones of one colour along the n points at[] of p
 * (in order; an empty point ends a run). */
static int run_along(const gs_position *p, const int *at, int n)
{
    int best = 0, run = 0, prev = GS_EMPTY;
    for (int t = 0; t < n; t++) {
        int c = p->cell[at[t]];
        run = c == GS_EMPTY ? 0 : c == prev ? run + 1 : 1;
        prev = c;
        if (run > best) best = run;
    }
    return best;
}

/* The longest run of stones of one colour along the outer lines of p. */
static int edge_run(const gs_position *p)
{
    int N = p->size, best = 0, at[GS_MAX_SIZE];
    for (int s = 0; s < 4; s++) {
        for (int t = 0; t < N; t++) {
            int u, v;
            vision_edge_point(s, t, N, &u, &v);
            at[t] = v * N + u;
        }
        int r = run_along(p, at, N);
        if (r > best) best = r;
    }
    return best;
}

/* The longest run of stones of one colour along any row or column of p. */
static int line_run(const gs_position *p)
{
    int N = p->size, best = 0, at[GS_MAX_SIZE];
    for (int dir = 0; dir < 2; dir++)
        for (int k = 0; k < N; k++) {
            for (int t = 0; t < N; t++) at[t] = dir ? t * N + k : k * N + t;
            int r = run_along(p, at, N);
            if (r > best) best = r;
        }
    return best;
}

/* 0 when the reading fails (out of memory); the reading itself is left
 * in *r. */
static int stone_view_read(const gs_image *img, const vision_grid *g, stone_view *v, vision_reading *r)
{
    gs_error e;
    int ok = vision_read(img, g, r, &e) == GS_OK;
    if (ok) {
        int st = 0, N = g->size;
        for (int i = 0; i < N * N; i++) st += r->pos.cell[i] != GS_EMPTY;
        v->share = (double)st / (N * N);
        v->unsure = (double)r->uncertain / (N * N);
        v->edge_run = edge_run(&r->pos);
        v->line_run = line_run(&r->pos);
        v->same = vision_contacts_same(&r->pos);
    }
    return ok;
}

/* A window of a bigger board (a 13x13 inside a finished 19x19) has the
 * game going on past a side, where the lines may no longer show (a
 * crowded board, a blurred or heavily compressed photo): one line out lie
 * stones of both colours, each standing out from the ring round it (a
 * light one darker round it, a dark one brighter), as on the board's own
 * points.  Beyond a board's own outer line lie its margin, its edge and
 * the table: read as one colour where they are uniform, or as objects
 * or a stray stone.  1 when a side shows such stones on at least half of
 * its n points (corners apart), each colour on BEYOND_EACH or more, in
 * BEYOND_RUNS runs or more; -1 when the reading fails (out of memory). */
#define BEYOND_RING_LIGHT 0.9f /* a light stone's ring this much darker (read.c RING_STONE) */
#define BEYOND_RING_DARK 1.3f  /* a dark stone's ring this much brighter */
#define BEYOND_EACH 2
/* ...in this many runs of one colour along the side or more: a game's
 * stones alternate, while a bowl beside a paper makes two runs (a bowl
 * and papers at a 13x13's side: 6 dark, then 2 light) */
#define BEYOND_RUNS 3
static int game_goes_on(const gs_image *img, const vision_grid *g)
{
    vision_grid ext;
    int n = g->size, N = n + 2;
    vision_grid_moved(g, -1, -1, N, &ext); /* the same mapping, one line out on every side */
    vision_reading *r = malloc(sizeof *r);
    vision_point_features *F = malloc(sizeof *F * (size_t)(N * N));
    gs_error e;
    int ok = r && F && vision_read_keep(img, &ext, r, F, &e) == GS_OK;
    int light[4] = {0, 0, 0, 0}, dark[4] = {0, 0, 0, 0}, goes_on = 0, last[4] = {0, 0, 0, 0}, changes[4] = {0, 0, 0, 0};
#ifdef GRID_DEBUG
    char seq[4][GS_MAX_SIZE + 1];
    memset(seq, '-', sizeof seq);
    for (int s = 0; s < 4; s++) seq[s][n] = 0;
#endif
    for (int t = 1; ok && t <= n; t++) {
        for (int s = 0; s < 4; s++) {
            int u, v;
            vision_edge_point(s, t, N, &u, &v);
            const int at = v * N + u;
            const vision_point_features *f = &F[at];
            if (!f->seen || r->unsure[at]) continue;
            int k = r->pos.cell[at] == GS_WHITE && f->ring <= BEYOND_RING_LIGHT   ? 1
                    : r->pos.cell[at] == GS_BLACK && f->ring >= BEYOND_RING_DARK ? 2
                                                                                     : 0;
            light[s] += k == 1;
            dark[s] += k == 2;
            if (k && last[s] && k != last[s]) changes[s]++;
            if (k) last[s] = k;
#ifdef GRID_DEBUG
            seq[s][t - 1] = ".WB"[k];
#endif
        }
    }
    for (int s = 0; s < 4; s++) {
#ifdef GRID_DEBUG
        fprintf(stderr, "BEYOND side %d light %d dark %d changes %d %s\n", s, light[s], dark[s], changes[s], seq[s]);
#endif
        goes_on |= light[s] >= BEYOND_EACH && dark[s] >= BEYOND_EACH && changes[s] >= BEYOND_RUNS - 1 &&
                   2 * (light[s] + dark[s]) >= n;
    }
    free(F);
    free(r);
    return ok ? goes_on : -1;
}

/* The crowded-board ways past the line test (above): 1 when the grid g
 * of hypothesis c passes one, 0 when not, -1 when out of memory. */
static int crowded_board(const gs_image *img, const vision_grid *g, const vision_cand *c, const stone_view *v)
{
    if (g->size >= LINE_RUN_SIZE && v->line_run * 3 >= 2 * g->size) return 0;
    if (c->map >= MAP_CROWDED && v->share >= STONES_MIN && c->clear + v->share >= CLEAR_OR_STONES) return 1;
    int full = v->share >= FULL_STONES && v->same >= VISION_CONTACT_SAME_MIN && v->same <= VISION_CONTACT_SAME;
    if (!full || c->map < MAP_STONES) return 0;
    if (c->map >= MAP_FULL) return 1;
    if (v->unsure > STONES_UNSURE || v->edge_run * 3 >= 2 * g->size) return 0;
    int on = game_goes_on(img, g);
    return on < 0 ? -1 : !on;
}

/* What vision_read saw on the leading grid, kept for decide and handed
 * to the caller (vision_grid_find_info.reading): a reading of a
 * 12-megapixel photo takes about 16 ms. */
typedef struct seen_view {
    int have;
    stone_view v;
    vision_grid grid;
    vision_reading reading;
} seen_view;

/* Reads grid g into *seen; 0 when out of memory. */
static int seen_read(const gs_image *img, const vision_grid *g, seen_view *seen)
{
    seen->have = stone_view_read(img, g, &seen->v, &seen->reading);
    seen->grid = *g;
    return seen->have;
}

/* The reading kept in seen, to the caller when it is of the grid found
 * out: decide judged the best hypothesis, the grid found, whose
 * confidence alone was set since. */
static void hand_over_reading(const seen_view *seen, const vision_grid *out, vision_grid_find_info *info)
{
    if (!seen->have || memcmp(seen->grid.H, out->H, sizeof out->H) ||
        memcmp(seen->grid.corners, out->corners, sizeof out->corners) || seen->grid.k1 != out->k1)
        return;
    info->have_reading = 1;
    info->reading = seen->reading;
}

/* Whether grid g, of a hypothesis not confirmed by its lines, reads a
 * line of stones no game makes (LINE_RUN_SIZE): 1 yes, 0 no, -1 out of
 * memory.  The reading is left in *seen. */
static int spills(const gs_image *img, const vision_grid *g, const vision_cand *c, seen_view *seen)
{
    seen->have = 0;
    if (c->clear >= GRID_LINES_MIN || g->size < LINE_RUN_SIZE) return 0;
    if (!seen_read(img, g, seen)) return -1;
    return seen->v.line_run * 3 >= 2 * g->size;
}

/* Before the ranking decides: a leading 9x9 or 13x13 whose game goes on
 * past a side is a window of a bigger board, and a leading grid that
 * spills over the board's side (spills) reads stones where there are
 * none; either drops out, until the leading hypothesis is neither; the
 * next is then judged as any other (a runner-up window within
 * RANK_MARGIN of it still makes the photo ambiguous: dropping those too
 * took a 19x19 several lines off on an underexposed photo, 91 points
 * wrong and unmarked).  *dropped_n is the size of the last window dropped
 * (0 when none), *spilled how many grids spilled. */
static gs_status drop_windows_and_spills(const vision_work *w, const gs_image *img, cand_list *L, int *best,
                                         int *second, int *dropped_n, int *spilled, seen_view *seen)
{
    *dropped_n = 0;
    *spilled = 0;
    seen->have = 0;
    for (;;) {
        *best = pick(L, second);
        if (*best < 0) return GS_OK;
        vision_grid g;
        grid_from_model(w, img, &L->c[*best], &g);
        int on = L->c[*best].n < 19 ? game_goes_on(img, &g) : 0;
        int sp = on == 0 ? spills(img, &g, &L->c[*best], seen) : 0;
        if (on < 0 || sp < 0) return GS_ERR_NOMEM;
        if (!on && !sp) return GS_OK;
        if (on) *dropped_n = L->c[*best].n;
        *spilled += sp;
        L->c[*best] = L->c[--L->n];
    }
}

/* The runners-up of the best grid's size within VISION_RIVAL_GAP of it,
 * each unlike the best and the ones kept before it, best first.  (The
 * stretched variants that did not rank clearly better than the grid they
 * came from are not among them: as runners-up they marked 419 right
 * points of the goban-watcher photos for 2 wrong ones.) */
static void keep_rivals(const vision_work *w, const gs_image *img, const cand_list *L, int best, double confidence,
                        vision_grid_find_info *info)
{
    const vision_cand *c = &L->c[best], *kept[VISION_RIVALS];
    info->nrivals = 0;
    while (info->nrivals < VISION_RIVALS) {
        const vision_cand *next = NULL;
        for (int i = 0; i < L->n; i++) {
            const vision_cand *r = &L->c[i];
            if (r == c || r->n != c->n || c->score - r->score >= VISION_RIVAL_GAP || same_grid(r, c)) continue;
            int dup = 0;
            for (int k = 0; k < info->nrivals && !dup; k++) dup = same_grid(r, kept[k]);
            if (!dup && (!next || r->score > next->score)) next = r;
        }
        if (!next) break;
        int k = info->nrivals++;
        kept[k] = next;
        grid_from_model(w, img, next, &info->rival[k]);
        info->rival[k].confidence = confidence;
        info->rival_gap[k] = c->score - next->score;
    }
}

/* Stage 6: the best hypothesis becomes the grid, or the photo is refused:
 * when a different grid ranks about as well, or when its lines do not
 * show on its open stretches clearly more than half a cell off (ruled
 * paper, tiles, facades and chessboards show dips both on and between the
 * lines) or not as thin dark lines (a blurred texture) - unless it
 * explains the line pixels well and the board is crowded with stones (a
 * finished game hides most of its lines; a sudoku has no stones on its
 * crossings). */
static gs_status decide(const vision_work *w, const gs_image *img, const cand_list *L, int best, int second,
                        seen_view *seen, vision_grid *out, vision_grid_find_info *info, gs_error *err)
{
    const vision_cand *c = &L->c[best];
    /* the share of line samples on the dark-line response (the figure the
     * line stages always gave), measured on a copy */
    vision_gmodel mm = c->m;
    double frac = vision_refine_grid(w->resp, w->thr, c->n, &mm, 0.2, 0);
    info->found_frac = frac;
    info->line_map = c->map;
    info->line_clear = c->clear;
    vision_grid_residual(w->resp, w->thr, c->n, &c->m, &info->resid_p90, &info->resid_worst_line);
    grid_from_model(w, img, c, out);
    out->confidence = fmin(1.0, fmax(0.0, fmax(frac, c->map)));
#ifdef GRID_DEBUG
    fprintf(stderr, "DECIDE n %d rank %.3f second %.3f map %.3f clear %.3f frac %.3f stones %.3f\n", c->n, c->score,
            second >= 0 ? L->c[second].score : -9, c->map, c->clear, frac, -1.0);
#endif
    if (second >= 0 && c->score - L->c[second].score < RANK_MARGIN)
        return gs_error_set(err, GS_ERR_NOBOARD, "no board found (a %dx%d and a %dx%d grid fit about equally well)", c->n,
                            c->n, L->c[second].n, L->c[second].n);
    keep_rivals(w, img, L, best, out->confidence, info);
    /* a 9x9 or 13x13 whose lattice goes on past a side is a part of a
     * bigger board (right grids show at most about 0.5 there, their board
     * edge looking like a line; windows of a 19x19 0.55 and more) */
    if (c->n < 19 && c->outside >= WINDOW_OUT)
        return gs_error_set(err, GS_ERR_NOBOARD, "no board found (the lines go on past the %dx%d grid found: part of a bigger board?)", c->n, c->n);
    if (c->clear >= GRID_LINES_MIN && frac >= 0.25 && c->map >= MAP_LINES) return GS_OK;
    if (c->map >= MAP_STONES) {
        if (!seen->have && !seen_read(img, out, seen)) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        const stone_view *v = &seen->v;
        int crowded = crowded_board(img, out, c, v);
#ifdef GRID_DEBUG
        fprintf(stderr, "VIEW share %.3f same %.3f unsure %.3f edge_run %d line_run %d crowded %d\n", v->share, v->same,
                v->unsure, v->edge_run, v->line_run, crowded);
#endif
        if (crowded < 0) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        if (crowded) return GS_OK;
    }
    vision_score sc;
    vision_grid_score(w, c->n, &c->m, &sc);
    if (c->clear >= GRID_LINES_MIN) return gs_error_set(err, GS_ERR_NOBOARD, "no board found (grid lines not confirmed)");
    return gs_error_set(err, GS_ERR_NOBOARD, "no board found (lines on %.0f%% of the grid's stretches, %.0f%% half a cell off)",
                        100 * sc.lines, 100 * sc.anti);
}

/* A hypothesis that needs no other: it explains most line pixels and its
 * lines show on most open stretches and not half a cell off. */
static int lines_clear(const vision_cand *c)
{
    return c->map >= 0.6 && c->clear >= 0.6;
}

/* The line hypothesis of the first stages (drawn lines seen well): refined
 * and scored; 0 when there is none (err then says why). */
static gs_status lines_hypothesis(const vision_work *w, vision_piece *pieces, int np, int size_hint, cand_list *L,
                                  vision_grid_find_info *info, gs_error *err)
{
    vision_cand c;
    gs_status st = vision_lines_candidate(w, pieces, np, size_hint, &c, info, err);
    if (st != GS_OK) return st;
    c.source = VISION_SRC_LINES;
    c.frac = refine_cand(w, &c);
    if (c.frac < 0) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    rate_cand(w, &c);
    add_cand(L, &c);
    return GS_OK;
}

/* The hypotheses of the crowded-board stages, each with its neighbours. */
static gs_status dense_hypotheses(const vision_work *w, int size_hint, cand_list *L, gs_error *err)
{
    vision_cand dc[4];
    int nd = 0;
    gs_status st = vision_dense_candidates(w, size_hint, dc, 4, &nd, err);
#ifdef GRID_DEBUG
    if (getenv("GRID_DUMP")) {
        char path[300];
        gs_error e2;
        snprintf(path, sizeof path, "%smap0.png", getenv("GRID_DUMP"));
        gs_image_write_png(w->lm.map[0], path, &e2);
        snprintf(path, sizeof path, "%smap1.png", getenv("GRID_DUMP"));
        gs_image_write_png(w->lm.map[1], path, &e2);
    }
    for (int i = 0; i < nd && getenv("GRID_DUMP"); i++) {
        char path[300];
        snprintf(path, sizeof path, "%sd%d.png", getenv("GRID_DUMP"), i);
        vision_grid g;
        grid_from_model(w, w->img, &dc[i], &g);
        gs_image *o = gs_image_copy(w->img);
        gs_error e2;
        if (o) { vision_draw_overlay(o, &g, NULL); gs_image_write_png(o, path, &e2); gs_image_destroy(o); }
    }
#endif
    for (int i = 0; i < nd && st == GS_OK; i++)
        if (expand_dense(w, dc[i], size_hint, L) != GS_OK) st = gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    /* the two leading hypotheses, those that are crowded-board ones, with
     * a side moved (only those: each variant costs a refinement) */
    int second = -1, best = st == GS_OK ? pick(L, &second) : -1;
    vision_cand lead[2];
    int nl = 0;
    if (best >= 0 && L->c[best].source == VISION_SRC_DENSE) lead[nl++] = L->c[best];
    if (second >= 0 && L->c[second].source == VISION_SRC_DENSE) lead[nl++] = L->c[second];
    for (int i = 0; i < nl && st == GS_OK; i++)
        if (stretch_variants(w, &lead[i], L) != GS_OK) st = gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    return st;
}

/* The whole search on a working copy whose longest side is at most
 * `side`. */
static gs_status find_at_side(const gs_image *img, int side, int size_hint, vision_grid *out, vision_grid_find_info *info,
                              gs_error *err)
{
    memset(info, 0, sizeof *info);
    vision_work w;
    vision_piece *pieces = NULL;
    int np = 0;
    gs_status st = work_prepare(img, side, &w, &pieces, &np, err);
    info->nsegs = np;
    cand_list L;
    L.n = 0;
    gs_error e_lines, e_dense;
    memset(&e_lines, 0, sizeof e_lines);
    memset(&e_dense, 0, sizeof e_dense);
    if (st == GS_OK) {
        gs_status s1 = lines_hypothesis(&w, pieces, np, size_hint, &L, info, &e_lines), s2 = GS_OK;
        /* the crowded-board stages only when the drawn lines do not
         * already show a board clearly */
        if (s1 != GS_ERR_NOMEM && !(L.n > 0 && lines_clear(&L.c[0]))) {
            s2 = vision_linemap_sides(&w, &e_dense);
            if (s2 == GS_OK) s2 = dense_hypotheses(&w, size_hint, &L, &e_dense);
        }
        if (s1 == GS_ERR_NOMEM || s2 == GS_ERR_NOMEM) st = gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    }
    int second = -1, best = st == GS_OK ? pick(&L, &second) : -1;
#ifdef GRID_DEBUG
    for (int i = 0; i < L.n; i++) {
        vision_score sc;
        vision_mapscore ms;
        double t = vision_grid_score(&w, L.c[i].n, &L.c[i].m, &sc);
        vision_linemap_score(&w, L.c[i].n, &L.c[i].m, &ms);
        fprintf(stderr, "CAND %d score %.3f src %d n %d margin %.2f map %.3f (on %.2f %.2f bey %.2f %.2f seen %.2f %.2f) dips %.3f frac %.3f lines %.3f anti %.3f out %.3f%s%s\n", i, L.c[i].score, L.c[i].source,
                L.c[i].n, vision_margin_score(&w, L.c[i].n, &L.c[i].m), L.c[i].map, ms.on[0], ms.on[1], ms.beyond[0], ms.beyond[1], ms.seen[0], ms.seen[1], t, L.c[i].frac, sc.lines, sc.anti, sc.outside, i == best ? " BEST" : "", i == second ? " SECOND" : "");
    }
    if (e_dense.msg[0]) fprintf(stderr, "dense: %s\n", e_dense.msg);
    for (int i = 0; i < L.n && getenv("GRID_DUMP"); i++) {
        char path[300];
        snprintf(path, sizeof path, "%s%d.png", getenv("GRID_DUMP"), i);
        vision_grid g;
        grid_from_model(&w, img, &L.c[i], &g);
        gs_image *o = gs_image_copy(img);
        gs_error e2;
        if (o) { vision_draw_overlay(o, &g, NULL); gs_image_write_png(o, path, &e2); gs_image_destroy(o); }
    }
#endif
    int window_n = 0, spilled = 0;
    seen_view seen = {0};
    if (st == GS_OK && best >= 0 &&
        drop_windows_and_spills(&w, img, &L, &best, &second, &window_n, &spilled, &seen) != GS_OK)
        st = gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    if (st == GS_OK && best < 0 && spilled)
        st = gs_error_set(err, GS_ERR_NOBOARD,
                          "no board found (the grids found read a line of stones of one colour that no game has: past the board's side?)");
    if (st == GS_OK && best < 0 && window_n)
        st = gs_error_set(err, GS_ERR_NOBOARD, "no board found (stones go on past the %dx%d grid found: part of a bigger board?)",
                          window_n, window_n);
    if (st == GS_OK && best < 0) {
        const gs_error *e = e_lines.msg[0] ? &e_lines : &e_dense;
        st = gs_error_set(err, GS_ERR_NOBOARD, "%s", e->msg[0] ? e->msg : "no board found");
    }
    int decided = st == GS_OK;
    if (st == GS_OK) st = decide(&w, img, &L, best, second, &seen, out, info, err);
    if (st == GS_OK) hand_over_reading(&seen, out, info);
    if (decided && st == GS_ERR_NOBOARD && window_n && err && strlen(err->msg) + 60 < sizeof err->msg) {
        /* say what was set aside before the next grid was refused */
        gs_error why = *err;
        gs_error_set(err, GS_ERR_NOBOARD, "%s; a %dx%d window of a bigger board set aside", why.msg, window_n, window_n);
    }
#ifdef GRID_DEBUG
    if (st == GS_ERR_NOBOARD && best >= 0 && getenv("GRID_NOGATE")) st = GS_OK;
#endif
    free(pieces);
    work_free(&w);
    return st;
}

/* A board small in a wide photo (a 9x9 a sixth of a 1920x1080 scene:
 * cells of 30 px, lines of 1.5) keeps its lines under a working pixel
 * wide at VISION_WORK_SIDE, and none is found; the search then runs again
 * on larger working copies, each one the photo is big enough for.  What
 * is looked for there is a small board whose lines now show, so a grid
 * found there counts only when it lies in the photo (ruled notes enlarged
 * to 1700 px gave a 19x19 mostly beyond the image) and its lines are
 * clearly seen (a 19x19 reaching three lines past a 13x13 onto the table
 * explained 0.36 of the line pixels).  When they fail too, the first
 * reason stands. */
static const int wider_sides[] = {1200, 1600};
#define WIDER_CLEAR 0.6

static int wider_grid_ok(const gs_image *img, const vision_grid *g, const vision_grid_find_info *info)
{
    if (info->line_map < WIDER_CLEAR || info->line_clear < WIDER_CLEAR) return 0;
    for (int i = 0; i < 4; i++)
        if (g->corners[i][0] < 0 || g->corners[i][1] < 0 || g->corners[i][0] > img->width - 1 ||
            g->corners[i][1] > img->height - 1)
            return 0;
    return 1;
}

gs_status vision_grid_find_ex(const gs_image *img, int size_hint, vision_grid *out, vision_grid_find_info *info,
                              gs_error *err)
{
    gs_status st = check_input(img, size_hint, err);
    if (st != GS_OK) return st;
    st = find_at_side(img, VISION_WORK_SIDE, size_hint, out, info, err);
    int longest = img->width > img->height ? img->width : img->height;
    gs_error first;
    memset(&first, 0, sizeof first);
    if (err) first = *err;
    for (size_t k = 0; st == GS_ERR_NOBOARD && k < sizeof wider_sides / sizeof wider_sides[0]; k++) {
        if (longest < wider_sides[k]) break;
        st = find_at_side(img, wider_sides[k], size_hint, out, info, err);
        if (st == GS_OK && !wider_grid_ok(img, out, info)) st = GS_ERR_NOBOARD;
    }
    if (st == GS_ERR_NOBOARD && err) *err = first;
    return st;
}
