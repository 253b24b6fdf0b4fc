/* vision/grid_find.c: finds the board in a photo and fits its grid.
 *
 * Pipeline (all on a working copy whose longest side is work_side):
 *  1. the photo prepared once (work_prepare): grey image, thin-dark-line
 *     response and its pieces (cvshim: black-hat + Hough);
 *  2-4. grid hypotheses: from the straight pieces of drawn line
 *     (vision/grid_lines.c), and, for crowded boards whose lines show only
 *     in short stretches between the stones, from the line maps
 *     (vision/grid_dense.c);
 *  5. each hypothesis refined on the line response (vision/grid_refine.c),
 *     with its neighbours (one line more or less on a side, the other
 *     sizes) as further hypotheses (vision/grid_cands.c);
 *  6. every hypothesis scored against the whole image
 *     (vision/grid_score.c); the best is kept when it is clearly better
 *     than the best different grid, else the photo is refused
 *     (vision/grid_decide.c);
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

/* A level of the line response that thin dark lines exceed. */
static double response_threshold(const vision_params *P, const gs_image *resp)
{
    double sum = 0, sum2 = 0;
    long cnt = 0;
    for (int y = 0; y < resp->height; y += 2)
        for (int x = 0; x < resp->width; x += 2) {
            double v = resp->buf[(size_t)y * resp->stride + x];
            sum += v; sum2 += v * v; cnt++;
        }
    double mean = sum / cnt, sd = sqrt(fmax(0, sum2 / cnt - mean * mean));
    return fmax(P->line_floor, mean + P->line_sd * sd);
}

/* Stage 1: the working images and the line pieces (*pieces malloc'd). */
static gs_status work_prepare(const vision_params *P, const gs_image *img, int side, vision_work *w,
                              vision_piece **pieces, int *np, gs_error *err)
{
    memset(w, 0, sizeof *w);
    w->P = P;
    w->img = img;
    *pieces = NULL;
    *np = 0;
    cvshim_segment *raw = NULL;
    int nraw = 0;
    gs_error e2;
    if (cvshim_board_lines(img, side, &w->scale, &w->resp, &w->grey, &raw, &nraw, &e2) != GS_OK)
        return gs_error_set(err, GS_ERR_INTERNAL, "line detection failed: %s", e2.msg);
    w->W = w->resp->width;
    w->H = w->resp->height;
    w->cx = w->W / 2.0;
    w->cy = w->H / 2.0;
    w->sn = (w->W > w->H ? w->W : w->H) / 2.0;
    w->thr = response_threshold(P, w->resp);
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

/* A hypothesis that needs no other: it explains most line pixels and its
 * lines show on most open stretches and not half a cell off. */
static int lines_clear(const vision_params *P, const vision_cand *c)
{
    return c->map >= P->lines_clear && c->clear >= P->lines_clear;
}

/* The line hypothesis of the first stages (drawn lines seen well): refined
 * and scored; 0 when there is none (err then says why). */
static gs_status lines_hypothesis(const vision_work *w, vision_piece *pieces, int np, int size_hint, vision_cand_list *L,
                                  vision_grid_find_info *info, gs_error *err)
{
    vision_cand c;
    gs_status st = vision_lines_candidate(w, pieces, np, size_hint, &c, info, err);
    if (st != GS_OK) return st;
    c.source = VISION_SRC_LINES;
    c.frac = vision_cand_refine(w, &c);
    if (c.frac < 0) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    vision_cand_rate(w, &c);
    vision_cands_add(L, &c);
    return GS_OK;
}

/* The hypotheses of the crowded-board stages, each with its neighbours. */
static gs_status dense_hypotheses(const vision_work *w, int size_hint, vision_cand_list *L, gs_error *err)
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
        vision_cand_grid(w, w->img, &dc[i], &g);
        gs_image *o = gs_image_copy(w->img);
        gs_error e2;
        if (o) { vision_draw_overlay(o, &g, NULL); gs_image_write_png(o, path, &e2); gs_image_destroy(o); }
    }
#endif
    for (int i = 0; i < nd && st == GS_OK; i++)
        if (vision_cands_dense(w, dc[i], size_hint, L) != GS_OK) st = gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    /* the two leading hypotheses, those that are crowded-board ones, with
     * a side moved (only those: each variant costs a refinement) */
    int second = -1, best = st == GS_OK ? vision_cands_pick(L, &second) : -1;
    vision_cand lead[2];
    int nl = 0;
    if (best >= 0 && L->c[best].source == VISION_SRC_DENSE) lead[nl++] = L->c[best];
    if (second >= 0 && L->c[second].source == VISION_SRC_DENSE) lead[nl++] = L->c[second];
    for (int i = 0; i < nl && st == GS_OK; i++)
        if (vision_cands_stretch(w, &lead[i], L) != GS_OK) st = gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    return st;
}

/* Whether grid b is grid a or a window of it: each of b's outer
 * intersections within PLACE_SAME of a cell of a point of a's board.  The
 * lines often take a 13x13 window of a crowded 19x19 board the model
 * takes whole (4 of 32 stone-boxes photos): not a doubt on the place. */
#define PLACE_SAME 0.3
#define GS_MAX_BOARD_SEEN 19 /* the largest size the finder looks for */
static bool window_of(const vision_grid *a, const vision_grid *b)
{
    return b->size <= a->size && vision_grid_on_lattice(a, b, PLACE_SAME, true);
}

/* The stages of lines and stones asked beside the model: where they would
 * refuse the photo or take another grid, the model's grid stands but its
 * place is in doubt (info->place_doubt).  On copies of the goban-watcher
 * photos seen by a camera lower and to one side, the model took lattices
 * bent off the board that the lines refused or placed otherwise (16 of 46
 * boards read with wrong points unmarked); on the 117 visible photos the
 * two agree. */
static gs_status place_check(const vision_work *w, const gs_image *img, vision_cand_list *L, const gs_error *e_lines,
                             const gs_error *e_dense, const vision_grid *model, vision_grid_find_info *info,
                             gs_error *err)
{
    vision_grid_find_info *li = calloc(1, sizeof *li);
    if (!li) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    vision_grid lines;
    gs_error e;
    gs_status st = vision_choose(w, img, L, e_lines, e_dense, &lines, li, &e);
    if (st == GS_ERR_NOMEM) { free(li); return gs_error_set(err, GS_ERR_NOMEM, "out of memory"); }
    info->place_doubt = st != GS_OK || !window_of(model, &lines);
    info->have_lines_grid = st == GS_OK;
    if (st == GS_OK) info->lines_grid = lines;
    /* the reading the lines made of their grid (to judge a crowded
     * board): the grid found's when that is their grid (lines_reading) */
    info->have_reading = st == GS_OK && li->have_reading;
    if (info->have_reading) info->reading = li->reading;
    free(li);
    return GS_OK;
}

/* Whether grids a and b map every board point alike: what a reading of
 * one reads on the other (vision_read reads neither confidence nor
 * cell_aspect). */
static bool same_mapping(const vision_grid *a, const vision_grid *b)
{
    return a->size == b->size && !memcmp(a->H, b->H, sizeof a->H) && !memcmp(a->corners, b->corners, sizeof a->corners) &&
           !memcmp(&a->k1, &b->k1, sizeof a->k1) && !memcmp(&a->cx, &b->cx, sizeof a->cx) &&
           !memcmp(&a->cy, &b->cy, sizeof a->cy) && !memcmp(&a->norm, &b->norm, sizeof a->norm);
}

/* The lines' reading (place_check) handed on as the reading of grid g,
 * the grid found, only when g is the lines' grid: the detector then does
 * not read it again. */
static void lines_reading(gs_status st, const vision_grid *g, vision_grid_find_info *info)
{
    if (!info->have_reading || (st == GS_OK && same_mapping(g, &info->lines_grid))) return;
    info->have_reading = 0;
    memset(&info->reading, 0, sizeof info->reading);
}

/* The whole search on a working copy whose longest side is at most
 * `side`. */
static gs_status find_at_side(const vision_params *P, const gs_image *img, int side, int size_hint, cvshim_net *net,
                              vision_shrunk *shrunk, vision_grid *out, vision_grid_find_info *info, gs_error *err)
{
    memset(info, 0, sizeof *info);
    vision_work w;
    vision_piece *pieces = NULL;
    int np = 0;
    gs_status st = work_prepare(P, img, side, &w, &pieces, &np, err);
    info->nsegs = np;
    vision_cand_list L;
    L.n = 0;
    gs_error e_lines, e_dense;
    memset(&e_lines, 0, sizeof e_lines);
    memset(&e_dense, 0, sizeof e_dense);
    if (st == GS_OK) {
        gs_status s1 = lines_hypothesis(&w, pieces, np, size_hint, &L, info, &e_lines), s2 = GS_OK;
        /* the crowded-board stages only when the drawn lines do not
         * already show a board clearly */
        if (s1 != GS_ERR_NOMEM && !(L.n > 0 && lines_clear(P, &L.c[0]))) {
            s2 = vision_linemap_sides(&w, &e_dense);
            if (s2 == GS_OK) s2 = dense_hypotheses(&w, size_hint, &L, &e_dense);
        }
        if (s1 == GS_ERR_NOMEM || s2 == GS_ERR_NOMEM) st = gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    }
    if (st == GS_OK && net) {
        st = vision_choose_model(&w, img, &L, size_hint, net, shrunk, out, info, err);
        if (st == GS_OK) {
            st = place_check(&w, img, &L, &e_lines, &e_dense, out, info, err);
            /* a window smaller than a 19x19 that the lines do not see at
             * all: its size rests on the ring past its sides alone, which
             * under a lamp the model has not learned reads a bigger
             * board's far rows as no intersection (game 1 under the deep
             * blue lamp, turned or seen lower: read 13x13 and 9x9); a small
             * board whose lines show is confirmed by them */
            if (st == GS_OK && !info->have_lines_grid && out->size < GS_MAX_BOARD_SEEN)
                st = gs_error_set(err, GS_ERR_NOBOARD,
                                  "no board found (the point model sees a %dx%d board the lines do not confirm: part "
                                  "of a bigger one?)", out->size, out->size);
            /* ...and a window smaller than the board the lines show is
             * part of it: the lines' board, as before the model (a model
             * that never saw goban-watcher took 9x9 windows of its boards
             * under the cyan and blue lamps, every point marked) */
            if (st == GS_OK && info->have_lines_grid && info->lines_grid.size > out->size) {
                *out = info->lines_grid;
                info->place_doubt = 0;
            }
            lines_reading(st, out, info);
        } else if (st == GS_ERR_NOBOARD) {
            /* points the model has not learned to see (green stones
             * mirrored: a third of them read as no intersection) on a
             * board the lines show: the lines' grid, as before the model;
             * when they refuse too, the model's reason stands */
            gs_error e_model = *err;
            st = vision_choose(&w, img, &L, &e_lines, &e_dense, out, info, err);
            if (st == GS_ERR_NOBOARD) *err = e_model;
        }
    } else if (st == GS_OK) {
        st = vision_choose(&w, img, &L, &e_lines, &e_dense, out, info, err);
    }
    free(pieces);
    work_free(&w);
    return st;
}

/* A board small in a wide photo (a 9x9 a sixth of a 1920x1080 scene:
 * cells of 30 px, lines of 1.5) keeps its lines under a working pixel
 * wide at work_side, and none is found; the search then runs again
 * on larger working copies, each one the photo is big enough for.  What
 * is looked for there is a small board whose lines now show, so a grid
 * found there counts only when it lies in the photo (ruled notes enlarged
 * gave a 19x19 mostly beyond the image) and either its lines are clearly
 * seen (wider_clear) or it was taken as a crowded board by its stones (a
 * crowded board seen obliquely or through a flash, whose far lines thin to
 * nothing) and no different grid ranks within rival_gap of it (the wider
 * look then saw one lattice, not a choice of several).  When they fail
 * too, the first reason stands. */
static int wider_grid_ok(const vision_params *P, const gs_image *img, const vision_grid *g,
                         const vision_grid_find_info *info)
{
    int clear = info->line_map >= P->wider_clear && info->line_clear >= P->wider_clear;
    if (!clear && !(info->crowded && info->rank_gap >= P->rival_gap)) return 0;
    for (int i = 0; i < 4; i++)
        if (g->corners[i][0] < 0 || g->corners[i][1] < 0 || g->corners[i][0] > img->width - 1 ||
            g->corners[i][1] > img->height - 1)
            return 0;
    return 1;
}

gs_status vision_grid_find(const vision_params *P, const gs_image *img, int size_hint, int wider, cvshim_net *net,
                           vision_shrunk *shrunk, vision_grid *out, vision_grid_find_info *info, gs_error *err)
{
    memset(info, 0, sizeof *info);
    gs_status st = check_input(img, size_hint, err);
    if (st != GS_OK) return st;
    st = find_at_side(P, img, P->work_side, size_hint, net, shrunk, out, info, err);
    if (!wider) return st;
    int longest = img->width > img->height ? img->width : img->height;
    gs_error first;
    memset(&first, 0, sizeof first);
    if (err) first = *err;
    for (int k = 0; st == GS_ERR_NOBOARD && k < 2; k++) {
        if (longest < P->wider_side[k]) break;
        st = find_at_side(P, img, P->wider_side[k], size_hint, net, shrunk, out, info, err);
        /* the model judged the grid as it judges any (no line test) */
        if (st == GS_OK && !net && !wider_grid_ok(P, img, out, info)) st = GS_ERR_NOBOARD;
    }
    if (st == GS_ERR_NOBOARD && err) *err = first;
    return st;
}
