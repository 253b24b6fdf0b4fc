/* track/drift.c: the grid followed on a slowly drifting board: four
 * corner patches measured against a reference by phase correlation. */
#include "track/tracker_internal.h"
#include "cvshim/cvshim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Column x of img, the nearest edge column outside it. */
static inline int clamp_x(const gs_image *img, int x) { return x < 0 ? 0 : x >= img->width ? img->width - 1 : x; }

/* One row of a BGR patch's block sums, its columns all inside the
 * picture: k pixels a block, read in a run. */
static void patch_row_inside(const uint8_t *p, int k, int sums[TR_PATCH])
{
    for (int a = 0; a < TR_PATCH; a++) {
        int s = 0;
        for (int x = 0; x < k; x++, p += 3) s += p[0] + 2 * p[1] + p[2];
        sums[a] += s;
    }
}

/* Grey patch (k x k pixel blocks averaged) with its top-left at (ox, oy);
 * outside the picture the nearest edge pixel stands in.  A measure runs a
 * few times a second: rows inside read in a run, other columns clamped
 * once per patch, not per pixel (but in a patch wider than MAX_SPAN, from
 * a huge frame). */

static void patch_cut(const gs_image *img, int ox, int oy, int k, uint8_t *dst)
{
    enum { MAX_SPAN = 4096 };
    int ch = img->channels, kk = k * k * (ch == 3 ? 4 : 1), span = TR_PATCH * k;
    bool inside = ch == 3 && ox >= 0 && ox + span <= img->width;
    int col[MAX_SPAN];
    bool table = !inside && span <= MAX_SPAN;
    for (int i = 0; table && i < span; i++) col[i] = clamp_x(img, ox + i) * ch;
    for (int b = 0; b < TR_PATCH; b++) {
        int sums[TR_PATCH] = {0};
        for (int y = 0; y < k; y++) {
            int yy = oy + b * k + y;
            yy = yy < 0 ? 0 : yy >= img->height ? img->height - 1 : yy;
            const uint8_t *row = img->buf + (size_t)yy * (size_t)img->stride;
            if (inside) {
                patch_row_inside(row + (size_t)ox * 3, k, sums);
                continue;
            }
            for (int a = 0, i = 0; a < TR_PATCH; a++)
                for (int x = 0; x < k; x++, i++) {
                    const uint8_t *p = row + (table ? col[i] : clamp_x(img, ox + i) * ch);
                    sums[a] += ch == 3 ? p[0] + 2 * p[1] + p[2] : p[0];
                }
        }
        for (int a = 0; a < TR_PATCH; a++) dst[b * TR_PATCH + a] = (uint8_t)(sums[a] / kk);
    }
}

/* Takes the drift reference from a still view with the current grid. */
void tr_drift_take_ref(track *t, const gs_image *img)
{
    if (t->opt.no_follow || t->pitch <= 0) return;
    int k = (int)lround(TR_PATCH_CELLS * t->pitch / TR_PATCH);
    if (k < 1) k = 1;
    if (TR_PATCH * k > img->width || TR_PATCH * k > img->height) return;   /* too small a picture */
    t->patch_k = k;
    t->ref_grid = t->grid;
    tr_outer_corners(&t->grid, t->ref_c);
    for (int i = 0; i < 4; i++) {
        patch_origin(t, t->ref_c[i][0], t->ref_c[i][1], &t->ref_ox[i], &t->ref_oy[i]);
        patch_cut(img, t->ref_ox[i], t->ref_oy[i], k, t->ref_px + i * TR_PATCH * TR_PATCH);
    }
    t->have_ref = true;
    memset(t->have_shift, 0, sizeof t->have_shift);
    t->have_last = false;
    t->in_sync = true;
    t->weak = false;
    t->lost = 0;
}

/* True (and remembered) when a drift measure is due at frame time t_ms. */
bool tr_drift_due(track *t, double t_ms)
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

/* The shifts and peaks of the current patches against the reference
 * (cvshim_patch_shifts, patch by patch).  A patch the same to the pixel as
 * at the last measure gives that measure's answer: a still view of
 * compressed video repeats its corners exactly for seconds, and the phase
 * correlation is most of a measure's cost. */
static bool patch_shifts(track *t, double sh[4][2], double peak[4])
{
    enum { P = TR_PATCH * TR_PATCH };
    uint8_t ref_px[4 * P], cur_px[4 * P];
    double new_sh[4][2], new_peak[4];
    int todo[4], n = 0;
    for (int i = 0; i < 4; i++)
        if (!t->have_shift[i] || memcmp(t->shifts_px + i * P, t->cur_px + i * P, P)) {
            memcpy(ref_px + n * P, t->ref_px + i * P, P);
            memcpy(cur_px + n * P, t->cur_px + i * P, P);
            todo[n++] = i;
        }
    if (n > 0) {
        gs_image ref = {TR_PATCH, n * TR_PATCH, TR_PATCH, 1, ref_px};
        gs_image now = {TR_PATCH, n * TR_PATCH, TR_PATCH, 1, cur_px};
        if (cvshim_patch_shifts(&ref, &now, TR_PATCH, n, new_sh, new_peak, NULL) != GS_OK) return false;
    }
    for (int j = 0; j < n; j++) {
        int i = todo[j];
        memcpy(t->shifts_px + i * P, t->cur_px + i * P, P);
        memcpy(t->shifts[i], new_sh[j], sizeof new_sh[j]);
        t->shifts_peak[i] = new_peak[j];
        t->have_shift[i] = true;
    }
    memcpy(sh, t->shifts, sizeof t->shifts);
    memcpy(peak, t->shifts_peak, sizeof t->shifts_peak);
    return true;
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
    tr_outer_corners(&t->grid, cur);
    for (int i = 0; i < 4; i++) {
        patch_origin(t, cur[i][0], cur[i][1], &ox[i], &oy[i]);
        patch_cut(img, ox[i], oy[i], k, t->cur_px + i * TR_PATCH * TR_PATCH);
    }
    t->in_sync = false;
    if (!patch_shifts(t, sh, peak)) return false;
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
    tr_place_grid(t, &g, img->width, img->height);
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
bool tr_drift_follow(track *t, const gs_image *img, track_update *out)
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
