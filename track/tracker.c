/* track/tracker.c: frames -> settled positions (see track/track.h).
 *
 * Per frame only a tiny signature is taken (mean colour of a few pixels
 * around each intersection), so following a video costs little more than
 * decoding it; the full reader runs only when a still view differs from the
 * last settled one.  On calm frames, four corner patches measured against
 * a reference keep the grid on a slowly drifting board (see track/track.h). */
#include "track/track.h"
#include "cvshim/cvshim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TR_NPTS (GS_MAX_SIZE * GS_MAX_SIZE)
/* sample spots per point, each a 2x2 pixel block */
#define TR_SAMPLES 4
/* margin sample spots (track/track.h) follow the points in signatures */
#define TR_MARG (4 * (2 * GS_MAX_SIZE + 1))
#define TR_NSIG (TR_NPTS + TR_MARG)
/* A point "moved" when its mean colour changed by more than this (sum of
 * the three channel differences, 0..765): well above video noise, well
 * below a hand or a stone appearing. */
#define TR_MOVE_DIFF 45
/* A settled reading that changes more points than a move with a modest
 * capture makes the tracker look for the board again. */
#define TR_REFIND_DIFF 5
/* Without a board, it is looked for at most this often (frame time, ms):
 * the search is costly, and a few times a second finds it before the first
 * hand reaches in whatever the frame rate */
#define TR_SEARCH_EVERY_MS 300
/* A still view with stones on its margin is looked at again (the margin
 * only, the same position) this often, at most TR_RELOOK_MAX times */
#define TR_RELOOK_MS 1000
#define TR_RELOOK_MAX 6
/* Drift following: four patches of TR_PATCH x TR_PATCH grey pixels, each
 * image pixel block of the patch about TR_PATCH_CELLS / TR_PATCH cell wide,
 * centred on the four outer intersections (wood, edge, table and the
 * lines' corner: texture in both directions). */
#define TR_PATCH 64
#define TR_PATCH_CELLS 4.0
/* A corner's match counts when its phase-correlation peak reaches this
 * (the same picture moved gives 0.8..1, one with some stones added near
 * the corner 0.4..0.7, a patch a hand mostly covers or another picture
 * well under 0.2). */
#define TR_PEAK_MIN 0.2
/* Below this the reference is renewed at the next settled view (stones
 * put near a corner change its patch for good, and a much changed corner
 * may match a whole cell off on the lines) */
#define TR_PEAK_REFRESH 0.6
/* Measures at most this often (frame time, ms) while the grid has moved
 * in the last TR_DRIFT_ACTIVE_MS, else at most every TR_DRIFT_IDLE_MS:
 * drifts are slow, and most cameras do not drift at all */
#define TR_DRIFT_EVERY_MS 90
#define TR_DRIFT_IDLE_MS 400
#define TR_DRIFT_ACTIVE_MS 3000
/* The grid moves when a corner has drifted this far (cells) ... */
#define TR_DRIFT_APPLY 0.015
/* ... unless one corner's move differs from the others' by more than
 * this (cells): not a drift of the whole picture */
#define TR_DRIFT_SPREAD 0.2
/* ... or the move since the grid was last placed exceeds this (cells): a
 * knock, left to the board search */
#define TR_DRIFT_MAX 0.6
/* ... or it disagrees with the previous measure by more than this (cells) */
#define TR_DRIFT_STEADY 0.08
/* Frames in a row without motion before the first reference is taken */
#define TR_CALM_REF 3
/* Failed measures in a row after which a settled view renews it */
#define TR_LOST_REF 10
/* A note when the board has drifted this far (cells) since it was found,
 * then at twice, four times ... that */
#define TR_DRIFT_NOTE 0.25
/* The followed grid keeps the small error of each measure and of each
 * renewed reference, and over a long game they add up (on a 19x19 render
 * the grid fell 0.17 cell behind a slow pan by move 84, half a cell after
 * ten minutes).  The first sign is a stone played on an edge point, read
 * surely (at least TR_EDGE_SURE), that the margin test puts off its line;
 * then the board is searched for in the still view (at most every
 * TR_RESCUE_MS of frame time), and its grid taken when it is the same
 * lattice moved a little (every corner within TR_RESCUE_MAX cell), reads
 * the view no worse and puts fewer such stones off their lines. */
#define TR_EDGE_SURE 0.9f
#define TR_RESCUE_MS 5000
#define TR_RESCUE_MAX 0.5

struct track {
    track_options opt;
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
    double last_search_ms;      /* frame time of the last board search */
    vision_detector *vd;        /* finds and reads the board in a frame */
    vision_result *seen;        /* the detector's answer: scratch, big */
    /* drift following (see track/track.h) */
    double pitch;               /* pixels per cell near the board centre */
    bool have_ref;              /* reference patches taken for this grid */
    int calm;                   /* frames in a row without motion */
    int patch_k;                /* image pixels per patch pixel */
    int ref_ox[4], ref_oy[4];   /* image origin of each reference patch */
    double ref_c[4][2];         /* outer intersections at the reference */
    vision_grid ref_grid;       /* the grid at the reference */
    uint8_t ref_px[4 * TR_PATCH * TR_PATCH], cur_px[4 * TR_PATCH * TR_PATCH];
    bool have_last;             /* last_disp holds the previous good measure */
    bool in_sync;               /* the last measure found the grid in place */
    bool weak;                  /* ... with a corner matching poorly: take a
                                   new reference at the next settled view */
    double last_est_ms;         /* frame time of the last measure */
    double last_move_ms;        /* ... of the last grid move */
    double last_rescue_ms;      /* ... of the last search for an edge stone
                                   put off its line (TR_RESCUE_MS) */
    int lost;                   /* measures in a row with two corners or
                                   more unmatched (a reference spoilt by a
                                   hand, or much changed) */
    double last_disp[4][2];
    double found_c[4][2];       /* outer intersections when the grid was found */
    double next_note;           /* drift (cells) worth the next note */
    /* looks again at a still view with stones on its margin (a signal is
     * a stone held there for several settled views) */
    uint8_t last_unc[TR_NPTS];  /* the last read's unreadable points ... */
    float last_conf[TR_NPTS];   /* ... and confidences */
    int last_nu;
    double last_mean_conf;
    double last_settled_ms;     /* frame time of the last settled view */
    int relooks;                /* looks again in this still period */
    int margin_n;               /* margin stones at the last look */
    /* the margin's reference: the first settled view (owned), with its
     * grid; dropped when the frame size changes */
    gs_image *margin_ref;
    vision_grid margin_ref_grid;
    int reach[4];               /* frames with motion on each side's margin
                                   since the last settled view */
    track_looks looks;          /* each point's look when its value was set */
};

void track_options_init(track_options *o)
{
    memset(o, 0, sizeof *o);
    o->settle_ms = 500;
    o->min_confidence = 0.35;
}

track *track_create(const track_options *opt, gs_error *err)
{
    track *t = calloc(1, sizeof *t);
    if (!t || !(t->seen = malloc(sizeof *t->seen)) || !(t->vd = vision_detector_create(NULL))) {
        if (t) free(t->seen);
        free(t);
        gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    track_options_init(&t->opt);
    if (opt) t->opt = *opt;
    if (!(t->opt.settle_ms > 0)) t->opt.settle_ms = 500;
    if (!(t->opt.min_confidence > 0)) t->opt.min_confidence = 0.35;
    t->last_rescue_ms = -1e18;
    return t;
}

void track_destroy(track *t)
{
    if (!t) return;
    gs_image_destroy(t->margin_ref);
    vision_detector_destroy(t->vd);
    free(t->seen);
    free(t);
}

const vision_grid *track_grid(const track *t) { return t->have_grid ? &t->grid : NULL; }

void track_reset_settle(track *t)
{
    t->have_last = false;
    t->calm = 0;
    t->have_prev = false;
    t->reported_this_still = false;
    t->have_settled_sig = false;
}

/* Image positions of the four outer intersections, in vision_grid order. */
static void outer_corners(const vision_grid *g, double c[4][2])
{
    int n = g->size - 1;
    const double cu[4] = {0, n, n, 0}, cv[4] = {0, 0, n, n};
    for (int i = 0; i < 4; i++) vision_grid_map(g, cu[i], cv[i], &c[i][0], &c[i][1]);
}

/* Precomputes the pixel of every point and the sample pattern; the settle
 * state is kept (a grid that followed a drift still samples the same spots
 * of the board). */
static void place_grid(track *t, const vision_grid *g, int w, int h)
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
static void set_grid(track *t, const vision_grid *g, int w, int h)
{
    place_grid(t, g, w, h);
    t->have_prev = false;
    t->have_settled_sig = false;
    t->reported_this_still = false;
    t->have_ref = false;
    t->have_last = false;
    t->in_sync = false;
    t->calm = 0;
    t->next_note = TR_DRIFT_NOTE;
    outer_corners(g, t->found_c);
}

static void signature(const track *t, const gs_image *img, int16_t sig[][3])
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
static int sig_changed_ex(const track *t, int16_t a[][3], int16_t b[][3], int *big)
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

static int sig_changed(const track *t, int16_t a[][3], int16_t b[][3]) { return sig_changed_ex(t, a, b, NULL); }

/* ------------------------------------------------------ drift following */

/* Top-left pixel of the patch centred on (x, y).  It may stick out of the
 * picture (a corner near the frame's edge): the patch stays centred on the
 * corner, since phase correlation under a window underestimates shifts
 * that are not small. */
static void patch_origin(const track *t, double x, double y, int *ox, int *oy)
{
    int span = TR_PATCH * t->patch_k;
    double cx = fmin(fmax(x, -1e6), 1e6), cy = fmin(fmax(y, -1e6), 1e6);
    *ox = (int)lround(cx - span / 2.0);
    *oy = (int)lround(cy - span / 2.0);
}

/* Grey patch (k x k pixel blocks averaged) with its top-left at (ox, oy);
 * outside the picture the nearest edge pixel stands in. */
static void patch_cut(const gs_image *img, int ox, int oy, int k, uint8_t *dst)
{
    int ch = img->channels, kk = k * k * (ch == 3 ? 4 : 1), span = TR_PATCH * k;
    bool inside = ox >= 0 && oy >= 0 && ox + span <= img->width && oy + span <= img->height;
    for (int b = 0; b < TR_PATCH; b++)
        for (int a = 0; a < TR_PATCH; a++) {
            int sum = 0;
            for (int y = 0; y < k; y++) {
                int yy = oy + b * k + y;
                if (!inside) yy = yy < 0 ? 0 : yy >= img->height ? img->height - 1 : yy;
                const uint8_t *row = img->buf + (size_t)yy * (size_t)img->stride;
                for (int x = 0; x < k; x++) {
                    int xx = ox + a * k + x;
                    if (!inside) xx = xx < 0 ? 0 : xx >= img->width ? img->width - 1 : xx;
                    const uint8_t *p = row + (size_t)xx * (size_t)ch;
                    sum += ch == 3 ? p[0] + 2 * p[1] + p[2] : p[0];
                }
            }
            dst[b * TR_PATCH + a] = (uint8_t)(sum / kk);
        }
}

/* Takes the drift reference from a still view with the current grid. */
static void drift_take_ref(track *t, const gs_image *img)
{
    if (t->opt.no_follow || t->pitch <= 0) return;
    int k = (int)lround(TR_PATCH_CELLS * t->pitch / TR_PATCH);
    if (k < 1) k = 1;
    if (TR_PATCH * k > img->width || TR_PATCH * k > img->height) return;   /* too small a picture */
    t->patch_k = k;
    t->ref_grid = t->grid;
    outer_corners(&t->grid, t->ref_c);
    for (int i = 0; i < 4; i++) {
        patch_origin(t, t->ref_c[i][0], t->ref_c[i][1], &t->ref_ox[i], &t->ref_oy[i]);
        patch_cut(img, t->ref_ox[i], t->ref_oy[i], k, t->ref_px + i * TR_PATCH * TR_PATCH);
    }
    t->have_ref = true;
    t->have_last = false;
    t->in_sync = true;
    t->weak = false;
    t->lost = 0;
}

/* True (and remembered) when a drift measure is due at frame time t_ms. */
static bool drift_due(track *t, double t_ms)
{
    bool active = t_ms >= t->last_move_ms && t_ms - t->last_move_ms < TR_DRIFT_ACTIVE_MS;
    double every = active ? TR_DRIFT_EVERY_MS : TR_DRIFT_IDLE_MS;
    if (t_ms >= t->last_est_ms && t_ms - t->last_est_ms < every) return false;
    t->last_est_ms = t_ms;
    return true;
}

/* Displacement at corner j of an affine field through the other three
 * corners' displacements (for a corner a hand or new stones spoil). */
static void affine_fill(const double c[4][2], double d[4][2], int j)
{
    int a = (j + 1) % 4, b = (j + 2) % 4, e = (j + 3) % 4;
    /* c_j = c_a + s (c_b - c_a) + u (c_e - c_a): solve s, u, then
     * d_j = d_a + s (d_b - d_a) + u (d_e - d_a) */
    double px = c[b][0] - c[a][0], py = c[b][1] - c[a][1], qx = c[e][0] - c[a][0], qy = c[e][1] - c[a][1];
    double rx = c[j][0] - c[a][0], ry = c[j][1] - c[a][1], det = px * qy - py * qx;
    if (fabs(det) < 1e-9) return;
    double sv = (rx * qy - ry * qx) / det, uv = (px * ry - py * rx) / det;
    for (int k = 0; k < 2; k++) d[j][k] = d[a][k] + sv * (d[b][k] - d[a][k]) + uv * (d[e][k] - d[a][k]);
}

/* Which corner to leave out of a drift measure: -1 none (all four good and
 * agreeing within tol px), 0..3 the one corner not good or going its own
 * way while the other three agree, -2 when no three corners agree. */
static int drift_odd_one(const double res[4][2], const bool good[4], double tol)
{
    int nbad = 0, bad = -1;
    for (int i = 0; i < 4; i++)
        if (!good[i]) { nbad++; bad = i; }
    if (nbad > 1) return -2;
    for (int pass = 0; pass < 2; pass++) {
        /* do the corners in play agree (each within tol of their mean)? */
        double m[2] = {0, 0};
        int n = 0;
        for (int i = 0; i < 4; i++)
            if (i != bad) { m[0] += res[i][0]; m[1] += res[i][1]; n++; }
        m[0] /= n;
        m[1] /= n;
        int worst = -1;
        double wd = 0;
        for (int i = 0; i < 4; i++) {
            if (i == bad) continue;
            double d = hypot(res[i][0] - m[0], res[i][1] - m[1]);
            if (d > wd) { wd = d; worst = i; }
        }
        if (wd <= tol) return bad;
        if (bad >= 0) return -2;
        /* all four good but one off: try without the farthest */
        bad = worst;
    }
    return -2;
}

/* How far each corner's reference content moved (disp) and how far the
 * grid has to move there (res), from patches cut around the current
 * corners (cur); good[i] when the match at corner i is clear and no jump.
 * False when the patches cannot be matched. */
static bool drift_measure(track *t, const gs_image *img, double cur[4][2], double disp[4][2], double res[4][2],
                          bool good[4])
{
    double peak[4], sh[4][2];
    int ox[4], oy[4], k = t->patch_k;
    outer_corners(&t->grid, cur);
    for (int i = 0; i < 4; i++) {
        patch_origin(t, cur[i][0], cur[i][1], &ox[i], &oy[i]);
        patch_cut(img, ox[i], oy[i], k, t->cur_px + i * TR_PATCH * TR_PATCH);
    }
    gs_image ref = {TR_PATCH, 4 * TR_PATCH, TR_PATCH, 1, t->ref_px};
    gs_image now = {TR_PATCH, 4 * TR_PATCH, TR_PATCH, 1, t->cur_px};
    t->in_sync = false;
    if (cvshim_patch_shifts(&ref, &now, TR_PATCH, 4, sh, peak, NULL) != GS_OK) return false;
    double cell = t->pitch;
    t->weak = false;
    for (int i = 0; i < 4; i++) {
        /* how far the reference's content has moved in the picture, and
         * how far the grid has to move at this corner */
        disp[i][0] = ox[i] - t->ref_ox[i] + sh[i][0] * k;
        disp[i][1] = oy[i] - t->ref_oy[i] + sh[i][1] * k;
        res[i][0] = t->ref_c[i][0] + disp[i][0] - cur[i][0];
        res[i][1] = t->ref_c[i][1] + disp[i][1] - cur[i][1];
        /* a faint match, or a jump (a knock, or the match a whole cell off
         * on the lines once stones have changed the corner) */
        good[i] = peak[i] >= TR_PEAK_MIN && hypot(res[i][0], res[i][1]) <= TR_DRIFT_MAX * cell;
        if (!(peak[i] >= TR_PEAK_REFRESH)) t->weak = true;
    }
    return true;
}

/* Moves the grid through the four corners displaced by disp, with the
 * reference grid's lens; notes the drift (in cells of the pitch before the
 * move, `cell`) when it passes the next mark.  False when those corners
 * make no grid. */
static bool drift_move_grid(track *t, const gs_image *img, const double disp[4][2], double cell, track_update *out)
{
    double uc[4][2], dc[4][2];
    for (int i = 0; i < 4; i++) {
        dc[i][0] = uc[i][0] = t->ref_c[i][0] + disp[i][0];
        dc[i][1] = uc[i][1] = t->ref_c[i][1] + disp[i][1];
        gs_lens_undistort(t->ref_grid.k1, t->ref_grid.cx, t->ref_grid.cy, t->ref_grid.norm, &uc[i][0], &uc[i][1]);
    }
    vision_grid g;
    gs_error e;
    if (vision_grid_from_corners(&g, t->grid.size, (const double(*)[2])uc, &e) != GS_OK) return false;
    g.k1 = t->ref_grid.k1;
    g.cx = t->ref_grid.cx;
    g.cy = t->ref_grid.cy;
    g.norm = t->ref_grid.norm;
    g.cell_aspect = t->ref_grid.cell_aspect;
    g.confidence = t->ref_grid.confidence;
    memcpy(g.corners, dc, sizeof dc);
    place_grid(t, &g, img->width, img->height);
    t->in_sync = true;
    double moved = 0;
    for (int i = 0; i < 4; i++) moved = fmax(moved, hypot(dc[i][0] - t->found_c[i][0], dc[i][1] - t->found_c[i][1]) / cell);
    if (moved >= t->next_note) {
        while (moved >= t->next_note) t->next_note *= 2;
        snprintf(out->note, sizeof out->note, "board drifted %.2f cell since it was found: grid follows", moved);
    }
    return true;
}

/* Measures the drift of the four corners since the reference and moves the
 * grid when it is clear (see track/track.h).  Returns true when it moved. */
static bool drift_follow(track *t, const gs_image *img, track_update *out)
{
    double cur[4][2], disp[4][2], res[4][2];
    bool good[4];
    if (!drift_measure(t, img, cur, disp, res, good)) return false;
    double cell = t->pitch;
    int bad = drift_odd_one(res, good, TR_DRIFT_SPREAD * cell);
    if (bad == -2) {
        /* two corners or more hidden, changed or in disagreement: not a
         * drift of the whole picture, or not measurable now */
        t->have_last = false;
        t->lost++;
        return false;
    }
    t->lost = 0;
    if (bad >= 0) {
        /* one corner (a hand, stones put there) is carried by the others;
         * a still view will renew its reference */
        affine_fill(t->ref_c, disp, bad);
        t->weak = true;
        res[bad][0] = t->ref_c[bad][0] + disp[bad][0] - cur[bad][0];
        res[bad][1] = t->ref_c[bad][1] + disp[bad][1] - cur[bad][1];
    }
    bool steady = t->have_last, due = false;
    for (int i = 0; i < 4; i++) {
        double r = hypot(res[i][0], res[i][1]);
        if (r > TR_DRIFT_MAX * cell) { t->have_last = false; return false; }
        if (r > TR_DRIFT_APPLY * cell) due = true;
        if (steady && hypot(disp[i][0] - t->last_disp[i][0], disp[i][1] - t->last_disp[i][1]) > TR_DRIFT_STEADY * cell)
            steady = false;
    }
    memcpy(t->last_disp, disp, sizeof disp);
    t->have_last = true;
    if (!due) t->in_sync = true;
    if (!due || !steady) return false;
    return drift_move_grid(t, img, disp, cell, out);
}

/* The board found in img (size_hint 0 = 9/13/19) into *g; false with the
 * reason in e when there is none. */
static bool find_grid(track *t, const gs_image *img, int size_hint, vision_grid *g, gs_error *e)
{
    const vision_request rq = {.size_hint = size_hint, .find_only = 1};
    if (vision_detect_frame(t->vd, img, &rq, t->seen, e) != GS_OK) return false;
    *g = t->seen->grid;
    return true;
}

/* Reads img with grid g; fills the position (uncertain points kept from the
 * last settled position) and returns the number of points that differ from
 * it (all stones when there is none). */
static int view_of_reading(const track *t, const vision_reading *r, gs_position *pos, uint8_t *unc, float *conf,
                           int *n_unc, double *mean_conf);

static int read_with(track *t, const gs_image *img, const vision_grid *g, gs_position *pos, uint8_t *unc,
                     float *conf, int *n_unc, double *mean_conf, gs_error *err)
{
    const vision_request rq = {.grid = g};
    if (vision_detect_frame(t->vd, img, &rq, t->seen, err) != GS_OK) return -1;
    return view_of_reading(t, &t->seen->reading, pos, unc, conf, n_unc, mean_conf);
}

/* A reading as the tracker keeps it (see read_with). */
static int view_of_reading(const track *t, const vision_reading *r, gs_position *pos, uint8_t *unc, float *conf,
                           int *n_unc, double *mean_conf)
{
    *pos = r->pos;
    int n = r->pos.size * r->pos.size, diff = 0, nu = 0;
    double cs = 0;
    for (int i = 0; i < n; i++) {
        cs += r->confidence[i];
        conf[i] = r->confidence[i];
        unc[i] = r->confidence[i] < t->opt.min_confidence;
        if (unc[i]) {
            nu++;
            if (t->have_pos && t->pos.size == r->pos.size) pos->cell[i] = t->pos.cell[i];
        }
        if (t->have_pos && t->pos.size == r->pos.size) diff += pos->cell[i] != t->pos.cell[i];
        else diff += pos->cell[i] != GS_EMPTY;
    }
    *n_unc = nu;
    *mean_conf = n ? cs / n : 0;
    return diff;
}

/* A board found again may be named from another corner (a board seen
 * nearly corner-on: a small knock changes which edge looks like the top).
 * Of the 8 symmetries of the board, g takes the one that puts its corners
 * nearest the old grid's, so the same point keeps its name: H' = H S, the
 * lens model unchanged. */
static void grid_keep_orientation(vision_grid *g, const vision_grid *old)
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

/* The margin of this view, against the first settled view. */
static void margin_scan(const track *t, const gs_image *img, track_margin_view *out)
{
    track_margin_ref ref = {t->margin_ref, t->margin_ref_grid};
    track_margin_scan(img, &t->grid, t->margin_ref ? &ref : NULL, out);
}

/* What the next look again at this view needs (the margin is scanned by
 * the caller first): its reading, and where arms crossed the margin since
 * the last settled view (into the view, then counted afresh). */
static void keep_look(track *t, track_update *out, int nu, double mean_conf)
{
    int n = t->grid.size * t->grid.size;
    memcpy(t->last_unc, out->uncertain, (size_t)n);
    memcpy(t->last_conf, out->conf, sizeof(float) * (size_t)n);
    t->last_nu = nu;
    t->last_mean_conf = mean_conf;
    t->last_settled_ms = out->t_ms;
    t->margin_n = out->margin.n;
    memcpy(out->margin.reach, t->reach, sizeof t->reach);
    memset(t->reach, 0, sizeof t->reach);
}

/* A still view already reported, with stones on its margin: every
 * TR_RELOOK_MS it is reported again (the same position, no new read) with
 * the margin looked at again, so a stone put there can be seen held. */
static void relook(track *t, const gs_image *frame, double t_ms, track_update *out)
{
    if (!t->have_pos || t->margin_n == 0 || t->relooks >= TR_RELOOK_MAX || t_ms - t->last_settled_ms < TR_RELOOK_MS)
        return;
    int n = t->pos.size * t->pos.size;
    margin_scan(t, frame, &out->margin);
    out->settled = true;
    out->relook = true;
    out->pos = t->pos;
    memcpy(out->uncertain, t->last_unc, (size_t)n);
    memcpy(out->conf, t->last_conf, sizeof(float) * (size_t)n);
    out->n_uncertain = t->last_nu;
    out->confidence = t->last_mean_conf;
    t->relooks++;
    t->last_settled_ms = t_ms;
    t->margin_n = out->margin.n;
    memcpy(out->margin.reach, t->reach, sizeof t->reach);
    memset(t->reach, 0, sizeof t->reach);
}

/* Counts, per side, whether something moved over its margin spots in this
 * frame (an arm reaching in from that side). */
static void count_reach(track *t, int16_t sig[][3])
{
    int m = (t->nsig - t->npts) / 4;
    for (int side = 0; side < 4 && m > 0; side++) {
        bool moved = false;
        for (int k = 0; k < m && !moved; k++) {
            int i = t->npts + side * m + k;
            int d = abs(sig[i][0] - t->sig_prev[i][0]) + abs(sig[i][1] - t->sig_prev[i][1]) +
                    abs(sig[i][2] - t->sig_prev[i][2]);
            moved = d > 2 * TR_MOVE_DIFF;
        }
        t->reach[side] += moved;
    }
}

/* True when g reads a stone on the outer line at i (x, y) that is new
 * since the last settled view and that the margin test puts off its line
 * (track_margin_on_line): one lying on the margin beside the point, or a
 * fingertip's shadow there, is no stone on it. */
static bool new_edge_stone_off(const track *t, const gs_image *img, const vision_grid *g, const gs_position *pos,
                               const uint8_t *unc, int x, int y)
{
    int n = g->size, i = y * n + x;
    if (x != 0 && y != 0 && x != n - 1 && y != n - 1) return false;
    gs_color c = pos->cell[i], before = t->have_pos && t->pos.size == n ? t->pos.cell[i] : GS_EMPTY;
    if (c == GS_EMPTY || c == before || unc[i]) return false;
    return !track_margin_on_line(img, g, x, y, c);
}

/* Such a point is not read (it keeps the last settled value, as a point
 * read unsure does). */
static void edge_check(track *t, const gs_image *img, gs_position *pos, track_update *out, int *nu)
{
    int n = t->grid.size;
    for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++) {
            if (!new_edge_stone_off(t, img, &t->grid, pos, out->uncertain, x, y)) continue;
            int i = y * n + x;
            pos->cell[i] = t->have_pos && t->pos.size == n ? t->pos.cell[i] : GS_EMPTY;
            out->uncertain[i] = 1;
            out->conf[i] = fminf(out->conf[i], (float)(t->opt.min_confidence / 2));
            (*nu)++;
        }
}

/* Points whose reading changed while their look did not are misreads
 * (track_looks): they keep their value, unreadable.  A grid set anew in
 * this view (found again, or put right by the edge-stone search) samples
 * the looks elsewhere: the references are taken anew then. */
static void looks_check(track *t, const gs_image *img, gs_position *pos, track_update *out, int *nu,
                        const vision_grid *grid_before)
{
    int16_t look[TR_NSIG][3];
    signature(t, img, look);
    int n = t->grid.size;
    bool same_grid = !out->regrid && !memcmp(grid_before->H, t->grid.H, sizeof t->grid.H);
    if (!t->have_pos || t->pos.size != n || !same_grid) {
        track_looks_reset(&t->looks, n, (const int16_t(*)[3])look);
        return;
    }
    *nu += track_looks_check(&t->looks, (const int16_t(*)[3])look, &t->pos, pos, out->uncertain, out->conf,
                             (float)t->opt.min_confidence);
}

/* A still view read with another grid than the one in place (the board
 * found again): what settle keeps of a reading.  Big: on the heap. */
typedef struct other_read {
    vision_grid grid;
    gs_position pos;
    uint8_t unc[TR_NPTS];
    float conf[TR_NPTS];
    int nu, diff;     /* unreadable points; points that differ (read_with) */
    double mean;      /* mean confidence */
} other_read;

/* Reads img with the board found again, named as the grid in place is
 * (grid_keep_orientation); false when no board of the size is found. */
static bool read_found(track *t, const gs_image *img, track_update *out, other_read *o)
{
    gs_error e;
    if (!find_grid(t, img, t->grid.size, &o->grid, &e) || o->grid.size != t->grid.size) return false;
    grid_keep_orientation(&o->grid, &t->grid);
    o->diff = read_with(t, img, &o->grid, &o->pos, o->unc, o->conf, &o->nu, &o->mean, &e);
    out->reads++;
    return o->diff >= 0;
}

/* settle's reading becomes o's. */
static void take_read(const other_read *o, track_update *out, gs_position *pos, int *nu, double *conf)
{
    *pos = o->pos;
    memcpy(out->uncertain, o->unc, sizeof o->unc);
    memcpy(out->conf, o->conf, sizeof o->conf);
    *nu = o->nu;
    *conf = o->mean;
}

/* Edge points g reads as a new stone, surely, that the margin test puts
 * off their line (see edge_check). */
static int sure_off_line(const track *t, const gs_image *img, const vision_grid *g, const gs_position *pos,
                         const uint8_t *unc, const float *conf)
{
    int n = g->size, off = 0;
    for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++)
            off += conf[y * n + x] >= TR_EDGE_SURE && new_edge_stone_off(t, img, g, pos, unc, x, y);
    return off;
}

/* The board found again in the still view when the grid followed so far
 * puts surely read edge stones off their lines (see TR_RESCUE_MS); a grid
 * that does not follow stays as it is. */
static void rescue_grid(track *t, const gs_image *img, track_update *out, gs_position *pos, int *nu, double *conf,
                        int diff)
{
    if (t->opt.no_follow || out->refound) return;
    int off = sure_off_line(t, img, &t->grid, pos, out->uncertain, out->conf);
    if (off == 0 || out->t_ms - t->last_rescue_ms < TR_RESCUE_MS) return;
    t->last_rescue_ms = out->t_ms;
    other_read *o = malloc(sizeof *o);
    if (!o) return; /* no memory for the search: the grid stays (the next view tries again) */
    double worst = 0;
    if (read_found(t, img, out, o)) {
        double a[4][2], b[4][2];
        outer_corners(&t->grid, a);
        outer_corners(&o->grid, b);
        for (int i = 0; i < 4; i++) worst = fmax(worst, hypot(a[i][0] - b[i][0], a[i][1] - b[i][1]));
    }
    if (worst < TR_DRIFT_APPLY * t->pitch || worst > TR_RESCUE_MAX * t->pitch || o->diff > diff ||
        sure_off_line(t, img, &o->grid, &o->pos, o->unc, o->conf) >= off) {
        free(o);
        return;
    }
    /* the view did not move: the settle state stays, sampled at the new
     * spots, and the drift reference is taken anew from this view */
    place_grid(t, &o->grid, img->width, img->height);
    signature(t, img, t->sig_prev);
    memcpy(t->sig_anchor, t->sig_prev, sizeof(int16_t) * 3 * (size_t)t->nsig);
    t->have_ref = false;
    take_read(o, out, pos, nu, conf);
    free(o);
    snprintf(out->note, sizeof out->note,
             "board found again in a still view: an edge stone lay off the followed grid's line (grid moved %.2f cell)",
             worst / t->pitch);
}

/* The full read of a still view, with a new board search when the reading
 * looks like the camera or the board moved. */
static void settle_tail(track *t, const gs_image *img, track_update *out, const gs_position *pos, int nu, double conf);

static gs_status settle(track *t, const gs_image *img, track_update *out, gs_error *err)
{
    vision_grid grid_before = t->grid;
    gs_position pos;
    int nu = 0;
    double conf = 0;
    int diff = read_with(t, img, &t->grid, &pos, out->uncertain, out->conf, &nu, &conf, err);
    out->reads++;
    if (diff < 0) return err ? err->status : GS_ERR_INTERNAL;
    if (t->have_pos && (diff >= TR_REFIND_DIFF || conf < 0.5)) {
        other_read *o = malloc(sizeof *o);
        /* (without memory for the search the grid stays: the next view tries again) */
        if (o && read_found(t, img, out, o)) {
            out->refound = true;
            if (o->diff < diff || (o->diff == diff && o->mean > conf)) {
                set_grid(t, &o->grid, img->width, img->height);
                out->regrid = true;
                take_read(o, out, &pos, &nu, &conf);
                snprintf(out->note, sizeof out->note, "board found again (%d points differed with the old grid, %d now)",
                         diff, o->diff);
            }
        }
        free(o);
    }
    rescue_grid(t, img, out, &pos, &nu, &conf, diff);
    edge_check(t, img, &pos, out, &nu);
    looks_check(t, img, &pos, out, &nu, &grid_before);
    settle_tail(t, img, out, &pos, nu, conf);
    return GS_OK;
}

/* What every settled view ends with, its reading in pos (nu points kept
 * from before, mean confidence conf): the margin's reference and scan, the
 * look kept for relooks, the drift reference, the position reported. */
static void settle_tail(track *t, const gs_image *img, track_update *out, const gs_position *pos, int nu, double conf)
{
    if (!t->margin_ref) {
        /* the first settled view, kept past its frame (a capture source
         * reuses its buffer: the copy is the reference's own); without
         * memory for the copy the scan goes without it (its stricter test)
         * and the next view tries again */
        t->margin_ref = gs_image_copy(img);
        t->margin_ref_grid = t->grid;
    }
    margin_scan(t, img, &out->margin);
    keep_look(t, out, nu, conf);
    /* a still view read with the grid in place: the reference for the
     * drift (again, when a corner's patch no longer matches well, or when
     * the reference has stopped matching at all) */
    if (!t->have_ref || (!out->refound && ((t->weak && t->in_sync) || t->lost >= TR_LOST_REF))) drift_take_ref(t, img);
    t->pos = *pos;
    t->have_pos = true;
    out->settled = true;
    out->pos = *pos;
    out->n_uncertain = nu;
    out->confidence = conf;
}

/* The given grid at the start; the grid in place dropped when the frame
 * size changes. */
static void grid_for_frame(track *t, const gs_image *frame, track_update *out)
{
    if (!t->have_grid && t->opt.have_grid) set_grid(t, &t->opt.grid, frame->width, frame->height);
    if (t->have_grid && (frame->width != t->width || frame->height != t->height)) {
        /* the source changed resolution: the grid no longer applies */
        t->have_grid = false;
        gs_image_destroy(t->margin_ref);
        t->margin_ref = NULL;
        snprintf(out->note, sizeof out->note, "frame size changed: looking for the board again");
    }
}

/* ---------------------------------------------------------------- photos */

/* Points of r that differ from the last settled position (all stones
 * before the first). */
static int photo_diff(const track *t, const vision_reading *r)
{
    int n = r->pos.size * r->pos.size, d = 0;
    bool have = t->have_pos && t->pos.size == r->pos.size;
    for (int i = 0; i < n; i++) d += r->pos.cell[i] != (have ? t->pos.cell[i] : GS_EMPTY);
    return d;
}

static double photo_mean_conf(const vision_reading *r)
{
    int n = r->pos.size * r->pos.size;
    double s = 0;
    for (int i = 0; i < n; i++) s += r->confidence[i];
    return n ? s / n : 0;
}

/* Whether a and b are the same lattice: every outer corner within half a
 * cell (TR_RESCUE_MAX) of the other's. */
static bool same_lattice(const track *t, const vision_grid *a, const vision_grid *b)
{
    if (a->size != b->size) return false;
    double ca[4][2], cb[4][2];
    outer_corners(a, ca);
    outer_corners(b, cb);
    for (int i = 0; i < 4; i++)
        if (hypot(ca[i][0] - cb[i][0], ca[i][1] - cb[i][1]) > TR_RESCUE_MAX * t->pitch) return false;
    return true;
}

/* The search's reading of a photo (res, GS_OK) against the one on the grid
 * in place: res becomes the latter when the search found no board, or one
 * that reads the photo further from the last position (fewer points that
 * differ win, then the surer reading: as settle chooses).  *moved: the
 * search's board was taken. */
static gs_status photo_or_kept(track *t, const gs_image *img, gs_status found, vision_result *res, bool *moved,
                               gs_error *err)
{
    vision_result *kept = malloc(sizeof *kept);
    if (!kept) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    const vision_request rq = {.size_hint = t->grid.size, .grid = &t->grid};
    gs_status st = vision_detect_photo(t->vd, img, &rq, kept, err);
    *moved = false;
    if (st == GS_OK && found == GS_OK) {
        int dk = photo_diff(t, &kept->reading), dr = photo_diff(t, &res->reading);
        *moved = dr < dk || (dr == dk && photo_mean_conf(&res->reading) > photo_mean_conf(&kept->reading));
    }
    if (st == GS_OK && !*moved) *res = *kept;
    free(kept);
    return st;
}

/* A photo read as `goscribe scan` reads one (vision_detect_photo): its own search
 * for the board with the runner-up grids' doubt, its exposure, the shade
 * look of a low lamp, the moved grids' doubt; not as a frame of a video,
 * whose neighbours say where the board is and whose reading must be fast.
 * On a grid given (a calibration, --corners) only the reading; with a
 * board in place from an earlier photo the search's board, named as the
 * one in place, is taken when it is the same lattice, else the photo_or_kept
 * choice.  GS_ERR_NOBOARD when there is no board at all. */
static gs_status photo_scan(track *t, const gs_image *img, vision_result *res, bool *moved, gs_error *err)
{
    vision_request rq = {.size_hint = t->have_grid ? t->grid.size : t->opt.size_hint};
    *moved = !t->have_grid;
    if (t->opt.have_grid && t->have_grid) rq.grid = &t->grid;
    gs_status st = vision_detect_photo(t->vd, img, &rq, res, err);
    if (!t->have_grid || rq.grid || st == GS_ERR_NOMEM) return st;
    if (st == GS_OK && res->grid.size == t->grid.size) {
        vision_grid named = res->grid;
        grid_keep_orientation(&named, &t->grid);
        if (memcmp(named.H, res->grid.H, sizeof named.H)) {
            /* found from another corner: read as the grid in place names it */
            rq.grid = &named;
            st = vision_detect_photo(t->vd, img, &rq, res, err);
        }
        if (st == GS_OK && same_lattice(t, &res->grid, &t->grid)) return GS_OK;
    }
    return photo_or_kept(t, img, st, res, moved, err);
}

/* A settled photo (track_options.photos): read by photo_scan, the grid it
 * was read on put in place, then as every settled view. */
static gs_status settle_photo(track *t, const gs_image *img, track_update *out, gs_error *err)
{
    grid_for_frame(t, img, out);
    vision_result *res = malloc(sizeof *res);
    if (!res) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    bool had = t->have_grid, moved = false;
    gs_error e = {0};
    gs_status st = photo_scan(t, img, res, &moved, &e);
    out->reads++;
    if (st != GS_OK) {
        free(res);
        if (st != GS_ERR_NOBOARD) return err ? (*err = e).status : st;
        snprintf(out->note, sizeof out->note, "no board yet: %.140s", e.msg);
        return GS_OK;
    }
    if (moved) {
        set_grid(t, &res->grid, img->width, img->height);
        out->refound = out->regrid = true;
        if (had) snprintf(out->note, sizeof out->note, "board found again in this photo");
    } else {
        place_grid(t, &res->grid, img->width, img->height);
    }
    out->have_grid = true;
    gs_position pos;
    int nu = 0;
    double conf = 0;
    (void)view_of_reading(t, &res->reading, &pos, out->uncertain, out->conf, &nu, &conf);
    free(res);
    settle_tail(t, img, out, &pos, nu, conf);
    return GS_OK;
}

/* The grid for this frame: the given one at the start, dropped when the
 * frame size changes, else looked for (on video a few times a second).
 * False while there is none (out->note says why). */
static bool ensure_grid(track *t, const gs_image *frame, bool settled_hint, track_update *out)
{
    grid_for_frame(t, frame, out);
    double frame_t = out->t_ms;
    if (!t->have_grid) {
        /* looking for the board is costly: on video, try a few times a second */
        if (!settled_hint && t->frames_without_grid++ > 0 && frame_t >= t->last_search_ms &&
            frame_t - t->last_search_ms < TR_SEARCH_EVERY_MS)
            return false;
        t->last_search_ms = frame_t;
        vision_grid g;
        gs_error e;
        if (!find_grid(t, frame, t->opt.size_hint, &g, &e)) {
            snprintf(out->note, sizeof out->note, "no board yet: %.140s", e.msg);
            return false;
        }
        set_grid(t, &g, frame->width, frame->height);
        out->refound = out->regrid = true;
        t->frames_without_grid = 0;
    }
    out->have_grid = true;
    return true;
}

/* Reads the settled view (a photo as a photo) and keeps its signature for
 * the next one. */
static gs_status settle_view(track *t, const gs_image *frame, bool photo, track_update *out, gs_error *err)
{
    gs_status st = photo ? settle_photo(t, frame, out, err) : settle(t, frame, out, err);
    if (!t->have_grid) return st;
    signature(t, frame, t->sig_settled);
    t->have_settled_sig = true;
    return st;
}

/* Only a view without motion tells a drift from a hand: the drift
 * reference is taken once the view has been calm for a few frames (a
 * drifting camera may never look still long enough to settle before it),
 * and the grid follows the drift when it is due.  sig is the frame's
 * signature, renewed when the grid moved. */
static void follow_drift(track *t, const gs_image *frame, double t_ms, bool moved, int16_t (*sig)[3],
                         track_update *out)
{
    if (!t->have_ref && t->calm >= TR_CALM_REF) {
        drift_take_ref(t, frame);
        return;
    }
    if (!(t->calm > 0 && t->have_ref && drift_due(t, t_ms) && drift_follow(t, frame, out))) return;
    t->last_move_ms = t_ms;
    /* the grid moved: the view did not.  Stillness was judged on the
     * old spots; from now on the new spots are the reference (the last
     * settled view's too when this view still matches it, else the
     * next still view is read again) */
    int16_t moved_sig[TR_NSIG][3];
    signature(t, frame, moved_sig);
    if (t->have_settled_sig) {
        if (sig_changed(t, sig, t->sig_settled) == 0)
            memcpy(t->sig_settled, moved_sig, sizeof(int16_t) * 3 * (size_t)t->nsig);
        else
            t->have_settled_sig = false;
    }
    memcpy(sig, moved_sig, sizeof(int16_t) * 3 * (size_t)t->nsig);
    if (!moved) memcpy(t->sig_anchor, sig, sizeof(int16_t) * 3 * (size_t)t->nsig);
}

gs_status track_feed(track *t, const gs_image *frame, double t_ms, bool settled_hint, track_update *out,
                       gs_error *err)
{
    memset(out, 0, offsetof(track_update, uncertain));
    out->reads = 0;
    out->margin.valid = false;
    out->margin.n = 0;
    out->t_ms = t_ms;
    if (!frame || !frame->buf || frame->width < 8 || frame->height < 8 || (frame->channels != 3 && frame->channels != 1))
        return gs_error_set(err, GS_ERR_FORMAT, "broken frame");
    if (settled_hint && t->opt.photos) return settle_view(t, frame, true, out, err);
    if (!ensure_grid(t, frame, settled_hint, out)) return GS_OK;
    if (settled_hint) return settle_view(t, frame, false, out, err);
    int16_t sig[TR_NSIG][3];
    signature(t, frame, sig);
    /* Motion since the previous frame: one spot changed a lot, or two or
     * more changed (a lone spot that changed a little is sensor or
     * compression noise, an H.264 frame refining after a hand left, and
     * taking it for motion can cost a short still view its settle time).
     * Against the start of the still period only a big change counts (a
     * hand creeping slowly); small ones there are light and the encoder. */
    int big_prev = 0, big_anchor = 0;
    int n_prev = t->have_prev ? sig_changed_ex(t, sig, t->sig_prev, &big_prev) : t->nsig;
    if (t->have_prev) (void)sig_changed_ex(t, sig, t->sig_anchor, &big_anchor); /* only the big changes count here */
    bool moved = !t->have_prev || big_prev > 0 || n_prev >= 2 || big_anchor > 0;
    if (t->have_prev && moved) count_reach(t, sig);
    t->calm = n_prev == 0 ? t->calm + 1 : 0;
    follow_drift(t, frame, t_ms, moved, sig, out);
    memcpy(t->sig_prev, sig, sizeof(int16_t) * 3 * (size_t)t->nsig);
    t->have_prev = true;
    if (moved) {
        memcpy(t->sig_anchor, sig, sizeof(int16_t) * 3 * (size_t)t->nsig);
        t->still_since = t_ms;
        t->reported_this_still = false;
        t->relooks = 0;
        out->moving = true;
        return GS_OK;
    }
    if (t->reported_this_still) {
        relook(t, frame, t_ms, out);
        return GS_OK;
    }
    if (t_ms - t->still_since < t->opt.settle_ms) return GS_OK;
    t->reported_this_still = true;
    /* still long enough: only a view that differs from the last settled one
     * is worth a full read */
    if (t->have_settled_sig && t->have_pos && sig_changed(t, sig, t->sig_settled) == 0) return GS_OK;
    return settle_view(t, frame, false, out, err);
}
