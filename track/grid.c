/* track/grid.c: the grid in place (placed, set, named as before when
 * found again, dropped when the frame size changes; the board searched for)
 * and the frame signatures that tell motion. */
#include "track/tracker_internal.h"
#include "cvshim/cvshim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Image positions of the four outer intersections, in vision_grid order. */
void tr_outer_corners(const vision_grid *g, double c[4][2])
{
    int n = g->size - 1;
    const double cu[4] = {0, n, n, 0}, cv[4] = {0, 0, n, n};
    for (int i = 0; i < 4; i++) vision_grid_map(g, cu[i], cv[i], &c[i][0], &c[i][1]);
}

/* Precomputes the pixel of every point and the sample pattern; the settle
 * state is kept (a grid that followed a drift still samples the same spots
 * of the board). */
void tr_place_grid(track *t, const vision_grid *g, int w, int h)
{
    t->grid = *g;
    t->have_grid = true;
    t->npts = g->size * g->size;
    t->width = w;
    t->height = h;
    double x0, y0, x1, y1, x2, y2;
    double mid = (g->size - 1) / 2.0;
    vision_grid_map(g, mid, mid, &x0, &y0);
    vision_grid_map(g, mid + 1, mid, &x1, &y1);
    vision_grid_map(g, mid, mid + 1, &x2, &y2);
    double pitch = fmin(hypot(x1 - x0, y1 - y0), hypot(x2 - x0, y2 - y0));
    /* the four quarter-diagonals a fifth of a cell out along the board's
     * own axes: inside a stone, off the lines, so a drift of a pixel or
     * two (before the grid follows it) changes no signature */
    int k = 0;
    for (int sy = -1; sy <= 1; sy += 2)
        for (int sx = -1; sx <= 1; sx += 2) {
            t->sample_dx[k] = (int)lround(0.2 * (sx * (x1 - x0) + sy * (x2 - x0)) - 0.5);
            t->sample_dy[k] = (int)lround(0.2 * (sx * (y1 - y0) + sy * (y2 - y0)) - 0.5);
            k++;
        }
    for (int v = 0; v < g->size; v++)
        for (int u = 0; u < g->size; u++) {
            double x, y;
            vision_grid_map(g, u, v, &x, &y);
            int i = v * g->size + u;
            t->px[i] = (int)lround(x);
            t->py[i] = (int)lround(y);
        }
    /* the margin too: a stone put outside the lines (an end-of-game
     * signal) changes no point but must make a settled view */
    int nm = track_margin_spot_count(g->size);
    double mu[TR_MARG], mv[TR_MARG];
    track_margin_spots(g->size, mu, mv);
    for (int k = 0; k < nm; k++) {
        double x, y;
        vision_grid_map(g, mu[k], mv[k], &x, &y);
        t->px[t->npts + k] = (int)lround(x);
        t->py[t->npts + k] = (int)lround(y);
    }
    t->nsig = t->npts + nm;
    t->pitch = pitch;
}

/* Precomputes everything for a grid found anew: the settle state and the
 * drift reference start over. */
void tr_set_grid(track *t, const vision_grid *g, int w, int h)
{
    tr_place_grid(t, g, w, h);
    t->have_prev = false;
    t->have_settled_sig = t->have_mref = false;
    t->reported_this_still = false;
    t->have_ref = false;
    t->have_last = false;
    t->in_sync = false;
    t->calm = 0;
    t->next_note = TR_DRIFT_NOTE;
    tr_outer_corners(g, t->found_c);
}

void tr_signature(const track *t, const gs_image *img, int16_t sig[][3])
{
    int ch = img->channels;
    for (int i = 0; i < t->nsig; i++) {
        int s[3] = {0, 0, 0}, n = 0;
        for (int k = 0; k < TR_SAMPLES; k++) {
            int x = t->px[i] + t->sample_dx[k], y = t->py[i] + t->sample_dy[k];
            if (x < 0 || y < 0 || x + 1 >= img->width || y + 1 >= img->height) continue;
            const uint8_t *p = img->buf + (size_t)y * (size_t)img->stride + (size_t)x * (size_t)ch;
            const uint8_t *q = p + img->stride;
            for (int c = 0; c < 3; c++) {
                int o = ch == 3 ? c : 0;
                s[c] += p[o] + p[o + ch] + q[o] + q[o + ch];
            }
            n += 4;
        }
        for (int c = 0; c < 3; c++) sig[i][c] = (int16_t)(n ? s[c] / n : 0);
    }
}

/* Spots whose signature differs by more than TR_MOVE_DIFF; *big (may be
 * NULL) gets those differing by more than twice that. */
int tr_sig_changed_ex(const track *t, int16_t a[][3], int16_t b[][3], int *big)
{
    int n = 0, nb = 0;
    for (int i = 0; i < t->nsig; i++) {
        int d = abs(a[i][0] - b[i][0]) + abs(a[i][1] - b[i][1]) + abs(a[i][2] - b[i][2]);
        n += d > TR_MOVE_DIFF;
        nb += d > 2 * TR_MOVE_DIFF;
    }
    if (big) *big = nb;
    return n;
}

int tr_sig_changed(const track *t, int16_t a[][3], int16_t b[][3]) { return tr_sig_changed_ex(t, a, b, NULL); }

/* The board found in img (size_hint 0 = 9/13/19) into *g; false with the
 * reason in e when there is none. */
bool tr_find_grid(track *t, const gs_image *img, int size_hint, vision_grid *g, gs_error *e)
{
    const vision_request rq = {.size_hint = size_hint, .find_only = 1};
    if (vision_detect_frame(t->vd, img, &rq, t->seen, e) != GS_OK) return false;
    *g = t->seen->grid;
    return true;
}

/* A board found again may be named from another corner (a board seen
 * nearly corner-on: a small knock changes which edge looks like the top).
 * Of the 8 symmetries of the board, g takes the one that puts its corners
 * nearest the old grid's, so the same point keeps its name: H' = H S, the
 * lens model unchanged. */
void tr_grid_keep_orientation(vision_grid *g, const vision_grid *old)
{
    double N = g->size - 1;
    static const double S[8][6] = {
        {1, 0, 0, 0, 1, 0},   {0, -1, 1, 1, 0, 0},  {-1, 0, 1, 0, -1, 1}, {0, 1, 0, -1, 0, 1},
        {-1, 0, 1, 0, 1, 0},  {1, 0, 0, 0, -1, 1},  {0, 1, 0, 1, 0, 0},   {0, -1, 1, -1, 0, 1}};
    static const double cu[4] = {0, 1, 1, 0}, cv[4] = {0, 0, 1, 1};
    int best = 0;
    double best_d = 0;
    for (int k = 0; k < 8; k++) {
        double d = 0;
        for (int i = 0; i < 4; i++) {
            /* (u', v') = S (u, v, 1), the constant terms scaled by N */
            double u = S[k][0] * cu[i] * N + S[k][1] * cv[i] * N + S[k][2] * N;
            double v = S[k][3] * cu[i] * N + S[k][4] * cv[i] * N + S[k][5] * N;
            double x, y;
            vision_grid_map(g, u, v, &x, &y);
            d += hypot(x - old->corners[i][0], y - old->corners[i][1]);
        }
        if (k == 0 || d < best_d) {
            best_d = d;
            best = k;
        }
    }
    if (best == 0) return;
    double M[9] = {S[best][0], S[best][1], S[best][2] * N, S[best][3], S[best][4], S[best][5] * N, 0, 0, 1}, H[9];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) H[r * 3 + c] = g->H[r * 3] * M[c] + g->H[r * 3 + 1] * M[3 + c] + g->H[r * 3 + 2] * M[6 + c];
    memcpy(g->H, H, sizeof H);
    for (int i = 0; i < 4; i++) vision_grid_map(g, cu[i] * N, cv[i] * N, &g->corners[i][0], &g->corners[i][1]);
    if (S[best][0] == 0 && g->cell_aspect > 0) g->cell_aspect = 1 / g->cell_aspect; /* axes swapped */
}

/* The given grid at the start; the grid in place dropped when the frame
 * size changes. */
void tr_grid_for_frame(track *t, const gs_image *frame, track_update *out)
{
    if (!t->have_grid && t->opt.have_grid) tr_set_grid(t, &t->opt.grid, frame->width, frame->height);
    if (t->have_grid && (frame->width != t->width || frame->height != t->height)) {
        /* the source changed resolution: the grid no longer applies */
        t->have_grid = false;
        gs_image_destroy(t->margin_ref);
        t->margin_ref = NULL;
        snprintf(out->note, sizeof out->note, "frame size changed: looking for the board again");
    }
}
