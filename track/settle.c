/* track/settle.c: a still view read: with the grid in place (a video
 * frame) or as a photo, checked against the board found again, the edge
 * stones and the looks; the margin scanned; the view reported. */
#include "track/tracker_internal.h"
#include "cvshim/cvshim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct other_read {
    vision_grid grid;
    gs_position pos;
    uint8_t unc[TR_NPTS];
    float conf[TR_NPTS];
    uint8_t unsure[TR_NPTS], second[TR_NPTS]; /* the reader's doubt and next colours */
    float second_p[TR_NPTS];                  /* ... and how likely each next colour is */
    int nu, diff;     /* unreadable points; points that differ (read_with) */
    double mean;      /* mean confidence */
} other_read;

/* Where a view's doubt goes (arrays of TR_NPTS, track_update's): the
 * reader's doubt, each point's next colour and how likely that is. */
typedef struct doubt_out {
    uint8_t *unsure, *second;
    float *second_p;
} doubt_out;

/* The reader's doubt of r and each point's next colour into d: what a
 * count of the view takes as its doubt.  A point the view keeps from
 * before (pos otherwise than r) has the reading as its next, as likely as
 * can be (1: a count always weighs it). */
static void doubt_of_reading(const vision_reading *r, const gs_position *pos, doubt_out d)
{
    for (int i = 0; i < r->pos.size * r->pos.size; i++) {
        bool kept = pos->cell[i] != r->pos.cell[i];
        d.unsure[i] = r->unsure[i] != 0;
        d.second[i] = (uint8_t)(kept ? r->pos.cell[i] : r->second[i]);
        d.second_p[i] = kept ? 1.0f : r->second_p[i];
    }
}

/* The doubt arrays of a view reported. */
static doubt_out doubt_of_update(track_update *out) { return (doubt_out){out->unsure, out->second, out->second_p}; }

/* A reading as the tracker keeps it (see read_with), with its doubt. */
static int view_of_reading(const track *t, const vision_reading *r, gs_position *pos, uint8_t *unc, float *conf,
                           doubt_out d, int *n_unc, double *mean_conf)
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
    doubt_of_reading(r, pos, d);
    return diff;
}

static int read_with(track *t, const gs_image *img, const vision_grid *g, gs_position *pos, uint8_t *unc,
                     float *conf, doubt_out d, int *n_unc, double *mean_conf, gs_error *err)
{
    const vision_request rq = {.grid = g};
    if (vision_detect_frame(t->vd, img, &rq, t->seen, err) != GS_OK) return -1;
    return view_of_reading(t, &t->seen->reading, pos, unc, conf, d, n_unc, mean_conf);
}

/* The margin of this view, against the first settled view. */
void tr_margin_scan(const track *t, const gs_image *img, track_margin_view *out)
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
    tr_signature(t, img, look);
    int n = t->grid.size;
    bool same_grid = !out->regrid && !memcmp(grid_before->H, t->grid.H, sizeof t->grid.H);
    if (!t->have_pos || t->pos.size != n || !same_grid) {
        track_looks_reset(&t->looks, n, (const int16_t(*)[3])look);
        return;
    }
    *nu += track_looks_check(&t->looks, (const int16_t(*)[3])look, &t->pos, pos, out->uncertain, out->conf,
                             (float)t->opt.min_confidence);
}

/* Reads img with the board found again, named as the grid in place is
 * (grid_keep_orientation); false when no board of the size is found. */
static bool read_found(track *t, const gs_image *img, track_update *out, other_read *o)
{
    gs_error e;
    if (!tr_find_grid(t, img, t->grid.size, &o->grid, &e) || o->grid.size != t->grid.size) return false;
    tr_grid_keep_orientation(&o->grid, &t->grid);
    o->diff = read_with(t, img, &o->grid, &o->pos, o->unc, o->conf, (doubt_out){o->unsure, o->second, o->second_p},
                        &o->nu, &o->mean, &e);
    out->reads++;
    return o->diff >= 0;
}

/* settle's reading becomes o's. */
static void take_read(const other_read *o, track_update *out, gs_position *pos, int *nu, double *conf)
{
    *pos = o->pos;
    memcpy(out->uncertain, o->unc, sizeof o->unc);
    memcpy(out->conf, o->conf, sizeof o->conf);
    memcpy(out->unsure, o->unsure, sizeof o->unsure);
    memcpy(out->second, o->second, sizeof o->second);
    memcpy(out->second_p, o->second_p, sizeof o->second_p);
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
        tr_outer_corners(&t->grid, a);
        tr_outer_corners(&o->grid, b);
        for (int i = 0; i < 4; i++) worst = fmax(worst, hypot(a[i][0] - b[i][0], a[i][1] - b[i][1]));
    }
    if (worst < TR_DRIFT_APPLY * t->pitch || worst > TR_RESCUE_MAX * t->pitch || o->diff > diff ||
        sure_off_line(t, img, &o->grid, &o->pos, o->unc, o->conf) >= off) {
        free(o);
        return;
    }
    /* the view did not move: the settle state stays, sampled at the new
     * spots, and the drift reference is taken anew from this view */
    tr_place_grid(t, &o->grid, img->width, img->height);
    tr_signature(t, img, t->sig_prev);
    memcpy(t->sig_anchor, t->sig_prev, sizeof(int16_t) * 3 * (size_t)t->nsig);
    t->have_ref = false;
    take_read(o, out, pos, nu, conf);
    free(o);
    snprintf(out->note, sizeof out->note,
             "board found again in a still view: an edge stone lay off the followed grid's line (grid moved %.2f cell)",
             worst / t->pitch);
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
    tr_margin_scan(t, img, &out->margin);
    keep_look(t, out, nu, conf);
    /* a still view read with the grid in place: the reference for the
     * drift (again, when a corner's patch no longer matches well, or when
     * the reference has stopped matching at all) */
    if (!t->have_ref || (!out->refound && ((t->weak && t->in_sync) || t->lost >= TR_LOST_REF))) tr_drift_take_ref(t, img);
    t->pos = *pos;
    t->have_pos = true;
    out->settled = true;
    out->pos = *pos;
    out->n_uncertain = nu;
    out->confidence = conf;
}

gs_status tr_settle(track *t, const gs_image *img, track_update *out, gs_error *err)
{
    vision_grid grid_before = t->grid;
    gs_position pos;
    int nu = 0;
    double conf = 0;
    int diff = read_with(t, img, &t->grid, &pos, out->uncertain, out->conf, doubt_of_update(out), &nu, &conf, err);
    out->reads++;
    if (diff < 0) return err ? err->status : GS_ERR_INTERNAL;
    if (t->have_pos && (diff >= TR_REFIND_DIFF || conf < 0.5)) {
        other_read *o = malloc(sizeof *o);
        /* (without memory for the search the grid stays: the next view tries again) */
        if (o && read_found(t, img, out, o)) {
            out->refound = true;
            if (o->diff < diff || (o->diff == diff && o->mean > conf)) {
                tr_set_grid(t, &o->grid, img->width, img->height);
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
    tr_outer_corners(a, ca);
    tr_outer_corners(b, cb);
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
        tr_grid_keep_orientation(&named, &t->grid);
        if (memcmp(named.H, res->grid.H, sizeof named.H)) {
            /* found from another corner: read as the grid in place names it */
            rq.grid = &named;
            st = vision_detect_photo(t->vd, img, &rq, res, err);
        }
        if (st == GS_OK && same_lattice(t, &res->grid, &t->grid)) return GS_OK;
    }
    return photo_or_kept(t, img, st, res, moved, err);
}

/* A photo's points read unsure, kept at their value before, that its
 * looks show changed: taken (track_looks_take); returns how many. */
static int photo_looks(track *t, const gs_image *img, const gs_position *reading, gs_position *pos, track_update *out)
{
    int16_t look[TR_NSIG][3];
    tr_signature(t, img, look);
    int n = t->grid.size;
    if (!t->have_pos || t->pos.size != n) {
        track_looks_reset(&t->looks, n, (const int16_t(*)[3])look);
        return 0;
    }
    return track_looks_take(&t->looks, (const int16_t(*)[3])look, &t->pos, reading, pos, out->uncertain);
}

/* A settled photo (track_options.photos): read by photo_scan, the grid it
 * was read on put in place, then as every settled view. */
gs_status tr_settle_photo(track *t, const gs_image *img, track_update *out, gs_error *err)
{
    tr_grid_for_frame(t, img, out);
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
        tr_set_grid(t, &res->grid, img->width, img->height);
        out->refound = out->regrid = true;
        if (had) snprintf(out->note, sizeof out->note, "board found again in this photo");
    } else {
        tr_place_grid(t, &res->grid, img->width, img->height);
    }
    out->have_grid = true;
    gs_position pos;
    int nu = 0;
    double conf = 0;
    (void)view_of_reading(t, &res->reading, &pos, out->uncertain, out->conf, doubt_of_update(out), &nu, &conf);
    nu -= photo_looks(t, img, &res->reading.pos, &pos, out);
    free(res);
    settle_tail(t, img, out, &pos, nu, conf);
    return GS_OK;
}
