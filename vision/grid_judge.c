/* vision/grid_judge.c: stage 6 of board finding by the point model: which
 * hypothesis is the board, or none, judged by what its points look like
 * rather than by how much of its lines show (a finished game hides most of
 * them).
 *
 * Each distinct lattice among the leading hypotheses is viewed over every
 * line of it that the photo shows (up to a board's size past its own
 * lines), and the model gives at each lattice point the probability that
 * no intersection is there (p_none).  The board is the window of the
 * lattice whose points are intersections and whose surrounding lines are
 * not: its evidence is the sum over its points in the photo of
 * log((1 - p_none) / 0.5), plus over the points of the line just past each
 * side of log(p_none / 0.5) (a point the photo does not show says nothing
 * either way).  So a lattice a line off, a window of a bigger board, and a
 * grid over the table all pay for the points they get wrong, while a board
 * cut off by the photo's edge is still found, with the sides it loses
 * said.  A photo is refused when no window's points look like a board's.
 * Every number here is named and says what it separates. */
#include "vision/vision_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef GRID_DEBUG
#include <stdio.h>
#endif

/* Distinct lattices judged, best ranked first: the line stages' rank puts
 * the board's lattice among its first few (the visible photos: first or
 * second); each judgement costs a view and a run of the model. */
#define JUDGE_MAX 4
/* A point's probability is held this far from 0 and 1: one point alone
 * cannot outweigh about five that agree (a stone set off its point, a
 * hand). */
#define JUDGE_FLOOR 0.02
/* A board shows at least this many of its points (a 5 x 5 corner). */
#define JUDGE_MIN_SEEN 25
/* ...and its points look like intersections: mean p_none over them under
 * this (boards: 0.005 on the visible photos' points; a lattice half a cell
 * off 0.65-0.9, random lattices on ordinary photos 0.8 and more). */
#define JUDGE_NONE_MAX 0.35
/* Two windows whose evidence differs by less than this (nats) are a tie:
 * the photo does not show which (a corner of a board whose far sides are
 * off the photo: a 13x13 or a 19x19) and the larger is taken. */
#define JUDGE_TIE 1.0

/* Two windows of one size whose corners lie less than a line from each
 * other's are the same board placed a little differently.  The model was
 * taught points within a third of a cell as the point and half a cell off
 * as none, so it scores such lattices nearly alike (goban-watcher game 2:
 * 285.9 and 288.3 nats, the second half a cell off at one corner).  The
 * line stages' rank (the order judged) then decides, unless the later one
 * wins by more than one point's worth: a point read sure as an
 * intersection rather than sure as none (JUDGE_POINT, about 3.9 nats). */
#define JUDGE_SAME 1.0
#define JUDGE_POINT (log((1 - JUDGE_FLOOR) / 0.5) - log(JUDGE_FLOOR / 0.5))

static const int board_sizes[] = {19, 13, 9};

/* One lattice as the model saw it: the view's range and p_none at its
 * points (-1 where the point's cell is not in the photo). */
typedef struct seen_lattice {
    vision_grid g;       /* the hypothesis' grid (its board coordinates) */
    int u0, v0, nu, nv;  /* the viewed lattice points */
    float *none;         /* nu * nv, row-major */
    vision_probs pr;
    vision_view vw;
} seen_lattice;

static void seen_free(seen_lattice *s)
{
    free(s->none);
    vision_probs_free(&s->pr);
    vision_view_free(&s->vw);
    memset(s, 0, sizeof *s);
}

/* How far past a hypothesis' own lines its lattice is looked at: enough
 * for its windows to reach a 19x19 (a 9x9 window of one: 10 lines), and
 * JUDGE_SHIFT lines for a 19x19 a line or two off. */
#define JUDGE_SHIFT 3
static int reach_of(const vision_grid *g)
{
    int grow = 19 + 1 - g->size;
    return grow > JUDGE_SHIFT ? grow : JUDGE_SHIFT;
}

/* The range of g's lattice points in the photo, within its reach; false
 * when none is. */
static bool photo_range(const gs_image *img, const vision_grid *g, int *u0, int *v0, int *u1, int *v1)
{
    int lo = -reach_of(g), hi = g->size - 1 + reach_of(g);
    *u0 = *v0 = hi + 1;
    *u1 = *v1 = lo - 1;
    for (int v = lo; v <= hi; v++)
        for (int u = lo; u <= hi; u++) {
            if (!vision_point_in_photo(img, g, u, v)) continue;
            if (u < *u0) *u0 = u;
            if (u > *u1) *u1 = u;
            if (v < *v0) *v0 = v;
            if (v > *v1) *v1 = v;
        }
    return *u1 >= *u0 && *v1 >= *v0;
}

/* The model over every lattice point of g in the photo. */
static gs_status see_lattice(cvshim_net *net, const gs_image *img, const vision_grid *g, vision_shrunk *shrunk,
                             seen_lattice *s, gs_error *err)
{
    memset(s, 0, sizeof *s);
    s->g = *g;
    int u1, v1;
    if (!photo_range(img, g, &s->u0, &s->v0, &u1, &v1)) return GS_ERR_NOBOARD;
    s->nu = u1 - s->u0 + 1;
    s->nv = v1 - s->v0 + 1;
    gs_status st = vision_view_make_with(img, g, s->u0, s->v0, s->nu, s->nv, shrunk, &s->vw, err);
    if (st == GS_OK) st = vision_model_read(net, &s->vw, 0, &s->pr, err);
    if (st == GS_OK && !(s->none = malloc(sizeof *s->none * (size_t)(s->nu * s->nv))))
        st = gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    for (int j = 0; st == GS_OK && j < s->nv; j++)
        for (int i = 0; i < s->nu; i++)
            s->none[j * s->nu + i] = s->vw.inside[j * s->nu + i] ? vision_prob_point(&s->pr, VISION_P_NONE, i, j) : -1;
    if (st != GS_OK) seen_free(s);
    return st;
}

/* A window of a lattice and what the model says of it. */
typedef struct window {
    int a, b, n;      /* lattice points a..a+n-1 across, b..b+n-1 down */
    double evidence;  /* nats, see the top */
    int seen;         /* its points in the photo */
    double none_mean; /* mean p_none over them */
    int cut[4];       /* top, right, bottom, left: points of that side's line are off the photo */
} window;

static double clampp(double p) { return p < JUDGE_FLOOR ? JUDGE_FLOOR : p > 1 - JUDGE_FLOOR ? 1 - JUDGE_FLOOR : p; }

/* Sums over rectangles of the lattice within reach of s (every point
 * there either viewed or off the photo), by 2-D prefix sums: [0] the
 * board term, [1] the ring term, [2] p_none, [3] points in the photo. */
#define SUMS 4
typedef struct reach_sums {
    int lo, side; /* lattice coordinate of the first row/column, rows a side */
    double *t;    /* SUMS tables of (side + 1)^2 */
} reach_sums;

static double *sum_table(const reach_sums *r, int k) { return r->t + (size_t)k * (r->side + 1) * (r->side + 1); }

static gs_status sums_make(const seen_lattice *s, reach_sums *r, gs_error *err)
{
    r->lo = -reach_of(&s->g);
    r->side = s->g.size + 2 * reach_of(&s->g);
    int S = r->side + 1;
    if (!(r->t = calloc((size_t)SUMS * S * S, sizeof *r->t))) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    for (int y = 0; y < r->side; y++)
        for (int x = 0; x < r->side; x++) {
            int i = x + r->lo - s->u0, j = y + r->lo - s->v0;
            float p = i >= 0 && j >= 0 && i < s->nu && j < s->nv ? s->none[j * s->nu + i] : -1;
            double val[SUMS] = {0, 0, 0, 0};
            if (p >= 0) {
                val[0] = log(clampp(1 - p) / 0.5);
                val[1] = log(clampp(p) / 0.5);
                val[2] = p;
                val[3] = 1;
            }
            for (int k = 0; k < SUMS; k++) {
                double *t = sum_table(r, k);
                t[(y + 1) * S + x + 1] = val[k] + t[y * S + x + 1] + t[(y + 1) * S + x] - t[y * S + x];
            }
        }
    return GS_OK;
}

/* The sum of table k over lattice points u0..u1 x v0..v1 (clipped to the reach). */
static double rect(const reach_sums *r, int k, int u0, int v0, int u1, int v1)
{
    int x0 = u0 - r->lo, y0 = v0 - r->lo, x1 = u1 - r->lo + 1, y1 = v1 - r->lo + 1, S = r->side + 1;
    x0 = x0 < 0 ? 0 : x0; y0 = y0 < 0 ? 0 : y0;
    x1 = x1 > r->side ? r->side : x1; y1 = y1 > r->side ? r->side : y1;
    if (x1 <= x0 || y1 <= y0) return 0;
    const double *t = sum_table(r, k);
    return t[y1 * S + x1] - t[y0 * S + x1] - t[y1 * S + x0] + t[y0 * S + x0];
}

static void judge_window(const reach_sums *r, window *w)
{
    int a = w->a, b = w->b, e = w->a + w->n - 1, f = w->b + w->n - 1;
    w->seen = (int)lround(rect(r, 3, a, b, e, f));
    w->none_mean = w->seen ? rect(r, 2, a, b, e, f) / w->seen : 1;
    w->evidence = rect(r, 0, a, b, e, f);
    /* the ring: top, right, bottom, left */
    const int ring[4][4] = {{a, b - 1, e, b - 1}, {e + 1, b, e + 1, f}, {a, f + 1, e, f + 1}, {a - 1, b, a - 1, f}};
    for (int k = 0; k < 4; k++) w->evidence += rect(r, 1, ring[k][0], ring[k][1], ring[k][2], ring[k][3]);
}

/* Whether lattice point (u, v) of s is in the photo. */
static bool seen_at(const seen_lattice *s, int u, int v)
{
    int i = u - s->u0, j = v - s->v0;
    return i >= 0 && j >= 0 && i < s->nu && j < s->nv && s->none[j * s->nu + i] >= 0;
}

/* Points off the photo from window w's side k (top, right, bottom, left)
 * inwards, starting at point (u, v) of that side's line. */
static int off_run(const seen_lattice *s, const window *w, int k, int u, int v)
{
    static const int step[4][2] = {{0, 1}, {-1, 0}, {0, -1}, {1, 0}};
    int n = 0;
    while (n < w->n && !seen_at(s, u + n * step[k][0], v + n * step[k][1])) n++;
    return n;
}

/* The sides the photo's edge cuts off window w.  A point of a side's line
 * off the photo is that side's loss when fewer points lie off inwards
 * from it across that side than along the line from the sides at its
 * ends: a board cut at the right loses the right ends of its top and
 * bottom lines, which are whole columns off, not a cut top. */
static void window_cut(const seen_lattice *s, window *w)
{
    int a = w->a, b = w->b, e = w->a + w->n - 1, f = w->b + w->n - 1;
    for (int k = 0; k < 4; k++) {
        w->cut[k] = 0;
        for (int t = 0; t < w->n && !w->cut[k]; t++) {
            int u = k == 0 || k == 2 ? a + t : k == 1 ? e : a, v = k == 1 || k == 3 ? b + t : k == 0 ? b : f;
            int here = off_run(s, w, k, u, v);
            if (here == 0) continue;
            int across = k == 0 || k == 2 ? off_run(s, w, 1, e, v) : off_run(s, w, 0, u, b);
            int across2 = k == 0 || k == 2 ? off_run(s, w, 3, a, v) : off_run(s, w, 2, u, f);
            /* the runs from the line's two ends, if they reach this point */
            bool end1 = across > (k == 0 || k == 2 ? e - u : v - b);
            bool end2 = across2 > (k == 0 || k == 2 ? u - a : f - v);
            int side = end1 && end2 ? (across < across2 ? across : across2) : end1 ? across : end2 ? across2 : 0;
            w->cut[k] = side == 0 || here <= side;
        }
    }
}

/* Along which axes window w's place cannot be told (1: up and down, 2:
 * across, 3: both; 0: it can): no point of either of that axis' edge
 * lines (top and bottom, or left and right) is in the photo.  The unseen
 * lines weigh nothing in the evidence, so the window slides along that
 * axis for free: a tight crop shows some middle lines of the board, and
 * which ones it does not say (a render cropped to its middle, read so,
 * left 42 wrong points unmarked). */
static int place_unknown(const seen_lattice *s, const window *w)
{
    int seen[4] = {0, 0, 0, 0}; /* top, right, bottom, left */
    int a = w->a, b = w->b, e = w->a + w->n - 1, f = w->b + w->n - 1;
    for (int t = 0; t < w->n; t++) {
        seen[0] += seen_at(s, a + t, b);
        seen[1] += seen_at(s, e, b + t);
        seen[2] += seen_at(s, a + t, f);
        seen[3] += seen_at(s, a, b + t);
    }
    return (seen[0] == 0 && seen[2] == 0) | ((seen[1] == 0 && seen[3] == 0) << 1);
}

/* The best window of lattice s (sizes of size_hint, else 19, 13, 9),
 * wholly within its reach. */
static gs_status best_window(const seen_lattice *s, int size_hint, window *best, gs_error *err)
{
    reach_sums r;
    gs_status st = sums_make(s, &r, err);
    if (st != GS_OK) return st;
    memset(best, 0, sizeof *best);
    best->evidence = -1e300;
    for (int k = 0; k < 3; k++) {
        int n = size_hint ? size_hint : board_sizes[k];
        for (int b = r.lo + 1; b + n <= r.lo + r.side - 1; b++)
            for (int a = r.lo + 1; a + n <= r.lo + r.side - 1; a++) {
                window w = {.a = a, .b = b, .n = n};
                judge_window(&r, &w);
                if (w.seen < JUDGE_MIN_SEEN) continue;
                /* sizes are tried largest first: a smaller one must win clearly */
                if (w.evidence > best->evidence + (best->n > n ? JUDGE_TIE : 0)) *best = w;
            }
        if (size_hint) break;
    }
    free(r.t);
    return GS_OK;
}

/* The grid of window w of lattice s, in the photo's board coordinates. */
static void window_grid(const seen_lattice *s, const window *w, vision_grid *out)
{
    vision_grid_moved(&s->g, w->a, w->b, w->n, out);
}

/* Whether grids a and b are the same board to the model: each of b's
 * corners within JUDGE_SAME of one of a's. */
static bool same_board(const vision_grid *a, const vision_grid *b)
{
    double uv[4][2];
    if (a->size != b->size || !vision_grid_corners_in(a, b, uv)) return false;
    int n = a->size - 1;
    for (int i = 0; i < 4; i++) {
        double near = 1e300;
        for (int k = 0; k < 4; k++) /* corner k of a: (k & 1, k >> 1) * n */
            near = fmin(near, fmax(fabs(uv[i][0] - (k & 1) * n), fabs(uv[i][1] - (k >> 1) * n)));
        if (!(near < JUDGE_SAME)) return false;
    }
    return true;
}

/* Distinct lattices among the hypotheses of L, best ranked first: their
 * indices into *idx, their grids into g. */
static int leading(const vision_work *w, const gs_image *img, const vision_cand_list *L, int *idx, vision_grid *g,
                   int max)
{
    int n = 0;
    bool used[VISION_MAX_CANDS] = {false};
    while (n < max) {
        int best = -1;
        for (int i = 0; i < L->n; i++) {
            if (used[i]) continue;
            vision_grid gi;
            vision_cand_grid(w, img, &L->c[i], &gi);
            bool dup = false;
            /* one lattice within a quarter of a cell: judging one judges the other's windows */
            for (int k = 0; k < n && !dup; k++)
                dup = vision_grid_on_lattice(&g[k], &gi, 0.25, false) || vision_grid_on_lattice(&gi, &g[k], 0.25, false);
            if (dup) { used[i] = true; continue; }
            if (best < 0 || L->c[i].score > L->c[best].score) best = i;
        }
        if (best < 0) break;
        used[best] = true;
        vision_cand_grid(w, img, &L->c[best], &g[n]);
        idx[n++] = best;
    }
    return n;
}

/* Why nothing was taken, said in the error. */
static gs_status refuse(const window *w, int judged, gs_error *err)
{
    if (judged == 0) return gs_error_set(err, GS_ERR_NOBOARD, "no board found (no grid of lines to judge)");
    if (w->seen == 0)
        return gs_error_set(err, GS_ERR_NOBOARD, "no board found (the grids found lie mostly off the photo)");
    if (w->seen < JUDGE_MIN_SEEN)
        return gs_error_set(err, GS_ERR_NOBOARD, "no board found (too little of a board in the photo: %d points)", w->seen);
    return gs_error_set(err, GS_ERR_NOBOARD,
                        "no board found (the points of the best grid found do not look like a board's: %.0f%% of "
                        "them look like no intersection)",
                        100 * w->none_mean);
}

gs_status vision_choose_model(const vision_work *w, const gs_image *img, const vision_cand_list *L, int size_hint,
                              cvshim_net *net, vision_shrunk *shrunk, vision_grid *out, vision_grid_find_info *info,
                              gs_error *err)
{
    int idx[JUDGE_MAX];
    vision_grid lead[JUDGE_MAX];
    int n = leading(w, img, L, idx, lead, JUDGE_MAX), judged = 0;
    window best = {0};
    best.evidence = -1e300;
    seen_lattice keep = {0};
    vision_grid g_best = {0};
    for (int k = 0; k < n; k++) {
        seen_lattice s;
        gs_status st = see_lattice(net, img, &lead[k], shrunk, &s, err);
        if (st == GS_ERR_NOBOARD) continue;
        if (st != GS_OK) { seen_free(&keep); return st; }
        judged++;
        window win;
        st = best_window(&s, size_hint, &win, err);
        if (st != GS_OK) { seen_free(&s); seen_free(&keep); return st; }
#ifdef GRID_DEBUG
        fprintf(stderr, "JUDGE cand %d n %d rank %.3f: window %d,%d n %d evidence %.1f seen %d none %.3f cut %d%d%d%d\n",
                idx[k], L->c[idx[k]].n, L->c[idx[k]].score, win.a, win.b, win.n, win.evidence, win.seen, win.none_mean,
                win.cut[0], win.cut[1], win.cut[2], win.cut[3]);
#endif
        vision_grid g_win;
        window_grid(&s, &win, &g_win);
        /* lattices come best ranked first: a later one the same board must win by a point */
        double margin = keep.none && same_board(&g_best, &g_win) ? JUDGE_POINT : 0;
        if (win.seen >= JUDGE_MIN_SEEN && win.evidence > best.evidence + margin) {
            best = win;
            g_best = g_win;
            seen_free(&keep);
            keep = s;
        } else {
            seen_free(&s);
        }
    }
    gs_status st = GS_OK;
    if (!keep.none || best.seen < JUDGE_MIN_SEEN || best.none_mean > JUDGE_NONE_MAX || best.evidence <= 0) {
        st = refuse(&best, judged, err);
    } else {
        window_cut(&keep, &best);
        window_grid(&keep, &best, out);
        out->confidence = 1 - best.none_mean;
        memcpy(info->cut, best.cut, sizeof info->cut);
        info->place_unknown = place_unknown(&keep, &best);
        info->model_evidence = best.evidence;
    }
    seen_free(&keep);
    return st;
}
