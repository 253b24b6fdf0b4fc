/* record/tracker.c: frames -> settled positions (see tracker.h).
 *
 * Per frame only a tiny signature is taken (mean colour of a few pixels
 * around each intersection), so following a video costs little more than
 * decoding it; the full reader runs only when a still view differs from the
 * last settled one. */
#include "record/tracker.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TR_NPTS (GS_MAX_SIZE * GS_MAX_SIZE)
#define TR_SAMPLES 9
/* margin sample spots (record/margin.h) follow the points in signatures */
#define TR_MARG (4 * (2 * GS_MAX_SIZE + 1))
#define TR_NSIG (TR_NPTS + TR_MARG)
/* A point "moved" when its mean colour changed by more than this (sum of
 * the three channel differences, 0..765): well above video noise, well
 * below a hand or a stone appearing. */
#define TR_MOVE_DIFF 45
/* A settled reading that changes more points than a move with a modest
 * capture makes the tracker look for the board again. */
#define TR_REFIND_DIFF 5

struct tracker {
    tracker_options opt;
    bool have_grid;
    vision_grid grid;
    int npts;
    int sample_dx[TR_SAMPLES], sample_dy[TR_SAMPLES]; /* offsets around a point */
    int nsig;                                         /* npts + margin spots */
    int px[TR_NSIG], py[TR_NSIG];                     /* point centres, pixels */
    int width, height;                                /* frame size the grid is for */
    /* signatures: previous frame, anchor of the current still period, and
     * the last settled view */
    int16_t sig_prev[TR_NSIG][3], sig_anchor[TR_NSIG][3], sig_settled[TR_NSIG][3];
    bool have_prev, have_settled_sig;
    double still_since;
    bool reported_this_still;   /* the current still period was handled */
    bool have_pos;
    gs_position pos;            /* last settled position */
    long frames_without_grid;
    vision_reading *reading;    /* scratch, big */
};

void tracker_options_init(tracker_options *o)
{
    memset(o, 0, sizeof *o);
    o->settle_ms = 500;
    o->min_confidence = 0.35;
}

tracker *tracker_create(const tracker_options *opt, gs_error *err)
{
    tracker *t = calloc(1, sizeof *t);
    if (!t || !(t->reading = malloc(sizeof *t->reading))) {
        if (t) free(t);
        gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    tracker_options_init(&t->opt);
    if (opt) t->opt = *opt;
    if (!(t->opt.settle_ms > 0)) t->opt.settle_ms = 500;
    if (!(t->opt.min_confidence > 0)) t->opt.min_confidence = 0.35;
    return t;
}

void tracker_destroy(tracker *t)
{
    if (!t) return;
    free(t->reading);
    free(t);
}

const vision_grid *tracker_grid(const tracker *t) { return t->have_grid ? &t->grid : NULL; }

void tracker_reset_settle(tracker *t)
{
    t->have_prev = false;
    t->reported_this_still = false;
    t->have_settled_sig = false;
}

/* Precomputes the pixel of every point and the sample pattern (a 3x3
 * lattice at a fifth of the cell pitch: inside a stone, off the lines). */
static void set_grid(tracker *t, const vision_grid *g, int w, int h)
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
    int d = (int)(pitch * 0.2 + 0.5);
    if (d < 1) d = 1;
    int k = 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            t->sample_dx[k] = dx * d;
            t->sample_dy[k] = dy * d;
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
    int nm = margin_spot_count(g->size);
    double mu[TR_MARG], mv[TR_MARG];
    margin_spots(g->size, mu, mv);
    for (int k = 0; k < nm; k++) {
        double x, y;
        vision_grid_map(g, mu[k], mv[k], &x, &y);
        t->px[t->npts + k] = (int)lround(x);
        t->py[t->npts + k] = (int)lround(y);
    }
    t->nsig = t->npts + nm;
    t->have_prev = false;
    t->have_settled_sig = false;
    t->reported_this_still = false;
}

static void signature(const tracker *t, const gs_image *img, int16_t sig[][3])
{
    int ch = img->channels;
    for (int i = 0; i < t->nsig; i++) {
        int s[3] = {0, 0, 0}, n = 0;
        for (int k = 0; k < TR_SAMPLES; k++) {
            int x = t->px[i] + t->sample_dx[k], y = t->py[i] + t->sample_dy[k];
            if (x < 0 || y < 0 || x >= img->width || y >= img->height) continue;
            const uint8_t *p = img->buf + (size_t)y * (size_t)img->stride + (size_t)x * (size_t)ch;
            for (int c = 0; c < 3; c++) s[c] += p[ch == 3 ? c : 0];
            n++;
        }
        for (int c = 0; c < 3; c++) sig[i][c] = (int16_t)(n ? s[c] / n : 0);
    }
}

/* Number of points whose signature differs by more than TR_MOVE_DIFF. */
static int sig_changed(const tracker *t, int16_t a[][3], int16_t b[][3])
{
    int n = 0;
    for (int i = 0; i < t->nsig; i++) {
        int d = abs(a[i][0] - b[i][0]) + abs(a[i][1] - b[i][1]) + abs(a[i][2] - b[i][2]);
        n += d > TR_MOVE_DIFF;
    }
    return n;
}

/* Reads img with grid g; fills the position (uncertain points kept from the
 * last settled position) and returns the number of points that differ from
 * it (all stones when there is none). */
static int read_with(tracker *t, const gs_image *img, const vision_grid *g, gs_position *pos, uint8_t *unc,
                     int *n_unc, double *mean_conf, gs_error *err)
{
    if (vision_read(img, g, t->reading, err) != GS_OK) return -1;
    *pos = t->reading->pos;
    int n = g->size * g->size, diff = 0, nu = 0;
    double cs = 0;
    for (int i = 0; i < n; i++) {
        cs += t->reading->confidence[i];
        unc[i] = t->reading->confidence[i] < t->opt.min_confidence;
        if (unc[i]) {
            nu++;
            if (t->have_pos && t->pos.size == g->size) pos->cell[i] = t->pos.cell[i];
        }
        if (t->have_pos && t->pos.size == g->size) diff += pos->cell[i] != t->pos.cell[i];
        else diff += pos->cell[i] != GS_EMPTY;
    }
    *n_unc = nu;
    *mean_conf = n ? cs / n : 0;
    return diff;
}

/* The full read of a still view, with a new board search when the reading
 * looks like the camera or the board moved. */
static gs_status settle(tracker *t, const gs_image *img, tracker_update *out, gs_error *err)
{
    gs_position pos;
    int nu = 0;
    double conf = 0;
    int diff = read_with(t, img, &t->grid, &pos, out->uncertain, &nu, &conf, err);
    out->reads++;
    if (diff < 0) return err ? err->status : GS_ERR_INTERNAL;
    if (t->have_pos && (diff >= TR_REFIND_DIFF || conf < 0.5)) {
        vision_grid g2;
        gs_error e2;
        if (vision_grid_find(img, t->grid.size, &g2, &e2) == GS_OK && g2.size == t->grid.size) {
            gs_position pos2;
            uint8_t unc2[TR_NPTS];
            int nu2 = 0;
            double conf2 = 0;
            int diff2 = read_with(t, img, &g2, &pos2, unc2, &nu2, &conf2, &e2);
            out->reads++;
            out->refound = true;
            if (diff2 >= 0 && (diff2 < diff || (diff2 == diff && conf2 > conf))) {
                set_grid(t, &g2, img->width, img->height);
                pos = pos2;
                memcpy(out->uncertain, unc2, sizeof unc2);
                nu = nu2;
                conf = conf2;
                snprintf(out->note, sizeof out->note, "board found again (%d points differed with the old grid, %d now)",
                         diff, diff2);
            }
        }
    }
    margin_scan(img, &t->grid, &out->margin);
    t->pos = pos;
    t->have_pos = true;
    out->settled = true;
    out->pos = pos;
    out->n_uncertain = nu;
    out->confidence = conf;
    return GS_OK;
}

gs_status tracker_feed(tracker *t, const gs_image *frame, double t_ms, bool settled_hint, tracker_update *out,
                       gs_error *err)
{
    memset(out, 0, offsetof(tracker_update, uncertain));
    out->reads = 0;
    out->margin.valid = false;
    out->margin.n = 0;
    out->t_ms = t_ms;
    if (!frame || !frame->buf || frame->width < 8 || frame->height < 8 || (frame->channels != 3 && frame->channels != 1))
        return gs_error_set(err, GS_ERR_FORMAT, "broken frame");
    if (!t->have_grid && t->opt.have_grid) set_grid(t, &t->opt.grid, frame->width, frame->height);
    if (t->have_grid && (frame->width != t->width || frame->height != t->height)) {
        /* the source changed resolution: the grid no longer applies */
        t->have_grid = false;
        snprintf(out->note, sizeof out->note, "frame size changed: looking for the board again");
    }
    if (!t->have_grid) {
        /* looking for the board is costly: on video, try a few times a second */
        if (!settled_hint && t->frames_without_grid++ % 10 != 0) return GS_OK;
        vision_grid g;
        gs_error e;
        if (vision_grid_find(frame, t->opt.size_hint, &g, &e) != GS_OK) {
            snprintf(out->note, sizeof out->note, "no board yet: %.140s", e.msg);
            return GS_OK;
        }
        set_grid(t, &g, frame->width, frame->height);
        out->refound = true;
        t->frames_without_grid = 0;
    }
    out->have_grid = true;
    if (settled_hint) {
        gs_status st = settle(t, frame, out, err);
        signature(t, frame, t->sig_settled);
        t->have_settled_sig = true;
        return st;
    }
    int16_t sig[TR_NSIG][3];
    signature(t, frame, sig);
    bool moved = !t->have_prev || sig_changed(t, sig, t->sig_prev) > 0 || sig_changed(t, sig, t->sig_anchor) > 0;
    memcpy(t->sig_prev, sig, sizeof(int16_t) * 3 * (size_t)t->nsig);
    t->have_prev = true;
    if (moved) {
        memcpy(t->sig_anchor, sig, sizeof(int16_t) * 3 * (size_t)t->nsig);
        t->still_since = t_ms;
        t->reported_this_still = false;
        out->moving = true;
        return GS_OK;
    }
    if (t->reported_this_still || t_ms - t->still_since < t->opt.settle_ms) return GS_OK;
    t->reported_this_still = true;
    /* still long enough: only a view that differs from the last settled one
     * is worth a full read */
    if (t->have_settled_sig && t->have_pos && sig_changed(t, sig, t->sig_settled) == 0) return GS_OK;
    gs_status st = settle(t, frame, out, err);
    signature(t, frame, t->sig_settled);
    t->have_settled_sig = true;
    return st;
}
