/* vision/grid_decide.c: stage 6 of board finding: which hypothesis is the
 * board, or none.  The best ranked is taken when it is clearly better than
 * the best different grid and its lines show it clearly (or, on a crowded
 * board whose stones hide its lines, when the stones read on it look like
 * a game: vision_contacts_same, runs of one colour, a game going on past
 * a side); windows of a bigger board and grids spilling over the board's
 * side are set aside first, and the runners-up of its size kept as rivals.
 * Every threshold is a field of vision_params. */
#include "vision/vision_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef GRID_DEBUG
#include <stdio.h>
#endif

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
 * a line of a board of line_run_size or more, while a grid that spills
 * over the board's side onto the table, or its dark edge, reads a column
 * of "stones" there.  A 9x9's wall of 6 may be a game. */

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
static int stone_view_read(const vision_params *P, const gs_image *img, const vision_grid *g, stone_view *v,
                           vision_reading *r)
{
    gs_error e;
    int ok = vision_read(P, img, g, r, &e) == GS_OK;
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
 * its n points (corners apart), each colour on beyond_each or more, in
 * beyond_runs runs or more (a game's stones alternate); -1 when the
 * reading fails (out of memory). */
static int game_goes_on(const vision_params *P, const gs_image *img, const vision_grid *g)
{
    vision_grid ext;
    int n = g->size, N = n + 2;
    vision_grid_moved(g, -1, -1, N, &ext); /* the same mapping, one line out on every side */
    vision_reading *r = malloc(sizeof *r);
    vision_point_features *F = malloc(sizeof *F * (size_t)(N * N));
    gs_error e;
    int ok = r && F && vision_read_keep(P, img, &ext, r, F, &e) == GS_OK;
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
            int k = r->pos.cell[at] == GS_WHITE && f->ring <= P->beyond_ring_light   ? 1
                    : r->pos.cell[at] == GS_BLACK && f->ring >= P->beyond_ring_dark ? 2
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
        goes_on |= light[s] >= P->beyond_each && dark[s] >= P->beyond_each && changes[s] >= P->beyond_runs - 1 &&
                   2 * (light[s] + dark[s]) >= n;
    }
    free(F);
    free(r);
    return ok ? goes_on : -1;
}

/* The crowded-board ways past the line test (above): 1 when the grid g
 * of hypothesis c passes one, 0 when not, -1 when out of memory. */
static int crowded_board(const vision_params *P, const gs_image *img, const vision_grid *g, const vision_cand *c,
                         const stone_view *v)
{
    if (g->size >= P->line_run_size && v->line_run * 3 >= 2 * g->size) return 0;
    if (c->map >= P->map_crowded && v->share >= P->stones_min && c->clear + v->share >= P->clear_or_stones) return 1;
    int full = v->share >= P->full_stones && v->same >= P->contact_same_min && v->same <= P->contact_same_max;
    if (!full || c->map < P->map_stones) return 0;
    if (c->map >= P->map_full) return 1;
    if (v->unsure > P->stones_unsure || v->edge_run * 3 >= 2 * g->size) return 0;
    int on = game_goes_on(P, img, g);
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
static int seen_read(const vision_params *P, const gs_image *img, const vision_grid *g, seen_view *seen)
{
    seen->have = stone_view_read(P, img, g, &seen->v, &seen->reading);
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
 * line of stones no game makes (line_run_size): 1 yes, 0 no, -1 out of
 * memory.  The reading is left in *seen. */
static int spills(const vision_params *P, const gs_image *img, const vision_grid *g, const vision_cand *c,
                  seen_view *seen)
{
    seen->have = 0;
    if (c->clear >= P->grid_lines_min || g->size < P->line_run_size) return 0;
    if (!seen_read(P, img, g, seen)) return -1;
    return seen->v.line_run * 3 >= 2 * g->size;
}

/* Before the ranking decides: a leading 9x9 or 13x13 whose game goes on
 * past a side is a window of a bigger board, and a leading grid that
 * spills over the board's side (spills) reads stones where there are
 * none; either drops out, until the leading hypothesis is neither; the
 * next is then judged as any other (a runner-up window within
 * rank_margin of it still makes the photo ambiguous).  *dropped_n is the size of the last window dropped
 * (0 when none), *spilled how many grids spilled. */
static gs_status drop_windows_and_spills(const vision_work *w, const gs_image *img, vision_cand_list *L, int *best,
                                         int *second, int *dropped_n, int *spilled, seen_view *seen)
{
    *dropped_n = 0;
    *spilled = 0;
    seen->have = 0;
    for (;;) {
        *best = vision_cands_pick(L, second);
        if (*best < 0) return GS_OK;
        vision_grid g;
        vision_cand_grid(w, img, &L->c[*best], &g);
        int on = L->c[*best].n < 19 ? game_goes_on(w->P, img, &g) : 0;
        int sp = on == 0 ? spills(w->P, img, &g, &L->c[*best], seen) : 0;
        if (on < 0 || sp < 0) return GS_ERR_NOMEM;
        if (!on && !sp) return GS_OK;
        if (on) *dropped_n = L->c[*best].n;
        *spilled += sp;
        L->c[*best] = L->c[--L->n];
    }
}

/* The runners-up of the best grid's size within rival_gap of it, each
 * unlike the best and the ones kept before it, best first.  (The
 * stretched variants that did not rank clearly better than the grid they
 * came from are not among them: as runners-up they marked many right
 * points for few wrong ones.) */
static void keep_rivals(const vision_work *w, const gs_image *img, const vision_cand_list *L, int best, double confidence,
                        vision_grid_find_info *info)
{
    const vision_cand *c = &L->c[best], *kept[VISION_RIVALS];
    info->nrivals = 0;
    while (info->nrivals < VISION_RIVALS) {
        const vision_cand *next = NULL;
        for (int i = 0; i < L->n; i++) {
            const vision_cand *r = &L->c[i];
            if (r == c || r->n != c->n || c->score - r->score >= w->P->rival_gap || vision_cands_same(r, c)) continue;
            int dup = 0;
            for (int k = 0; k < info->nrivals && !dup; k++) dup = vision_cands_same(r, kept[k]);
            if (!dup && (!next || r->score > next->score)) next = r;
        }
        if (!next) break;
        int k = info->nrivals++;
        kept[k] = next;
        vision_cand_grid(w, img, next, &info->rival[k]);
        info->rival[k].confidence = confidence;
        info->rival_gap[k] = c->score - next->score;
    }
}

/* Two grids that rank about as well leave the photo undecided when they
 * are of different sizes, or when they read rival_whole of the points or
 * more otherwise (a lattice a line off: every point in doubt).  A
 * runner-up of the same size that reads fewer points otherwise (a side
 * moved, the lattice a fraction of a cell over) is kept among the rivals
 * instead, and the points it reads otherwise are marked (detect.c), as
 * for any runner-up within rival_gap.  1 undecided, 0 not, -1 out of
 * memory. */
static int tie_undecided(const vision_work *w, const gs_image *img, const vision_cand *a, const vision_cand *b)
{
    if (a->n != b->n) return 1;
    vision_grid ga, gb;
    vision_cand_grid(w, img, a, &ga);
    vision_cand_grid(w, img, b, &gb);
    vision_reading *ra = malloc(sizeof *ra), *rb = malloc(sizeof *rb);
    gs_error e;
    int ok = ra && rb && vision_read(w->P, img, &ga, ra, &e) == GS_OK && vision_read(w->P, img, &gb, rb, &e) == GS_OK;
    int differ = 0;
    for (int i = 0; ok && i < a->n * a->n; i++) differ += ra->pos.cell[i] != rb->pos.cell[i];
    free(ra);
    free(rb);
    return !ok ? -1 : differ >= w->P->rival_whole * a->n * a->n;
}

/* Stage 6: the best hypothesis becomes the grid, or the photo is refused:
 * when a different grid ranks about as well, or when its lines do not
 * show on its open stretches clearly more than half a cell off (ruled
 * paper, tiles, facades and chessboards show dips both on and between the
 * lines) or not as thin dark lines (a blurred texture) - unless it
 * explains the line pixels well and the board is crowded with stones (a
 * finished game hides most of its lines; a sudoku has no stones on its
 * crossings). */
static gs_status decide(const vision_work *w, const gs_image *img, const vision_cand_list *L, int best, int second,
                        seen_view *seen, vision_grid *out, vision_grid_find_info *info, gs_error *err)
{
    const vision_params *P = w->P;
    const vision_cand *c = &L->c[best];
    /* the share of line samples on the dark-line response (the figure the
     * line stages always gave), measured on a copy */
    vision_gmodel mm = c->m;
    double frac = vision_refine_grid(w->P, w->resp, w->thr, c->n, &mm, 0.2, 0);
    info->found_frac = frac;
    info->line_map = c->map;
    info->line_clear = c->clear;
    vision_grid_residual(w->resp, w->thr, c->n, &c->m, &info->resid_p90, &info->resid_worst_line);
    vision_cand_grid(w, img, c, out);
    out->confidence = fmin(1.0, fmax(0.0, fmax(frac, c->map)));
#ifdef GRID_DEBUG
    fprintf(stderr, "DECIDE n %d rank %.3f second %.3f map %.3f clear %.3f frac %.3f stones %.3f\n", c->n, c->score,
            second >= 0 ? L->c[second].score : -9, c->map, c->clear, frac, -1.0);
#endif
    info->crowded = 0;
    info->rank_gap = second >= 0 ? c->score - L->c[second].score : 1;
    if (second >= 0 && c->score - L->c[second].score < P->rank_margin) {
        int tie = tie_undecided(w, img, c, &L->c[second]);
        if (tie < 0) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        if (tie)
            return gs_error_set(err, GS_ERR_NOBOARD, "no board found (a %dx%d and a %dx%d grid fit about equally well)",
                                c->n, c->n, L->c[second].n, L->c[second].n);
    }
    keep_rivals(w, img, L, best, out->confidence, info);
    /* a 9x9 or 13x13 whose lattice goes on past a side is a part of a
     * bigger board (right grids show at most about 0.5 there, their board
     * edge looking like a line) */
    if (c->n < 19 && c->outside >= P->window_out)
        return gs_error_set(err, GS_ERR_NOBOARD, "no board found (the lines go on past the %dx%d grid found: part of a bigger board?)", c->n, c->n);
    if (c->clear >= P->grid_lines_min && frac >= P->found_frac_min && c->map >= P->map_lines) return GS_OK;
    if (c->map >= P->map_stones) {
        if (!seen->have && !seen_read(P, img, out, seen)) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        const stone_view *v = &seen->v;
        int crowded = crowded_board(P, img, out, c, v);
#ifdef GRID_DEBUG
        fprintf(stderr, "VIEW share %.3f same %.3f unsure %.3f edge_run %d line_run %d crowded %d\n", v->share, v->same,
                v->unsure, v->edge_run, v->line_run, crowded);
#endif
        if (crowded < 0) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        info->crowded = crowded;
        if (crowded) return GS_OK;
    }
    vision_score sc;
    vision_grid_score(w, c->n, &c->m, &sc);
    if (c->clear >= P->grid_lines_min) return gs_error_set(err, GS_ERR_NOBOARD, "no board found (grid lines not confirmed)");
    return gs_error_set(err, GS_ERR_NOBOARD, "no board found (lines on %.0f%% of the grid's stretches, %.0f%% half a cell off)",
                        100 * sc.lines, 100 * sc.anti);
}

gs_status vision_choose(const vision_work *w, const gs_image *img, vision_cand_list *L, const gs_error *e_lines,
                        const gs_error *e_dense, vision_grid *out, vision_grid_find_info *info, gs_error *err)
{
    int second = -1, best = vision_cands_pick(L, &second);
#ifdef GRID_DEBUG
    for (int i = 0; i < L->n; i++) {
        vision_score sc;
        vision_mapscore ms;
        double t = vision_grid_score(w, L->c[i].n, &L->c[i].m, &sc);
        vision_linemap_score(w, L->c[i].n, &L->c[i].m, &ms);
        fprintf(stderr, "CAND %d score %.3f src %d n %d margin %.2f map %.3f (on %.2f %.2f bey %.2f %.2f seen %.2f %.2f) dips %.3f frac %.3f lines %.3f anti %.3f out %.3f%s%s\n", i, L->c[i].score, L->c[i].source,
                L->c[i].n, vision_margin_score(w, L->c[i].n, &L->c[i].m), L->c[i].map, ms.on[0], ms.on[1], ms.beyond[0], ms.beyond[1], ms.seen[0], ms.seen[1], t, L->c[i].frac, sc.lines, sc.anti, sc.outside, i == best ? " BEST" : "", i == second ? " SECOND" : "");
    }
    if (e_dense->msg[0]) fprintf(stderr, "dense: %s\n", e_dense->msg);
    for (int i = 0; i < L->n && getenv("GRID_DUMP"); i++) {
        char path[300];
        snprintf(path, sizeof path, "%s%d.png", getenv("GRID_DUMP"), i);
        vision_grid g;
        vision_cand_grid(w, img, &L->c[i], &g);
        gs_image *o = gs_image_copy(img);
        gs_error e2;
        if (o) { vision_draw_overlay(o, &g, NULL); gs_image_write_png(o, path, &e2); gs_image_destroy(o); }
    }
#endif
    int window_n = 0, spilled = 0;
    seen_view seen = {0};
    gs_status st = GS_OK;
    if (best >= 0 && drop_windows_and_spills(w, img, L, &best, &second, &window_n, &spilled, &seen) != GS_OK)
        st = gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    if (st == GS_OK && best < 0 && spilled)
        st = gs_error_set(err, GS_ERR_NOBOARD,
                          "no board found (the grids found read a line of stones of one colour that no game has: past the board's side?)");
    if (st == GS_OK && best < 0 && window_n)
        st = gs_error_set(err, GS_ERR_NOBOARD, "no board found (stones go on past the %dx%d grid found: part of a bigger board?)",
                          window_n, window_n);
    if (st == GS_OK && best < 0) {
        const gs_error *e = e_lines->msg[0] ? e_lines : e_dense;
        st = gs_error_set(err, GS_ERR_NOBOARD, "%s", e->msg[0] ? e->msg : "no board found");
    }
    int decided = st == GS_OK;
    if (st == GS_OK) st = decide(w, img, L, best, second, &seen, out, info, err);
    if (st == GS_OK) hand_over_reading(&seen, out, info);
    if (decided && st == GS_ERR_NOBOARD && window_n && err && strlen(err->msg) + 60 < sizeof err->msg) {
        /* say what was set aside before the next grid was refused */
        gs_error why = *err;
        gs_error_set(err, GS_ERR_NOBOARD, "%s; a %dx%d window of a bigger board set aside", why.msg, window_n, window_n);
    }
#ifdef GRID_DEBUG
    if (st == GS_ERR_NOBOARD && best >= 0 && getenv("GRID_NOGATE")) st = GS_OK;
#endif
    return st;
}
