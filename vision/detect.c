/* vision/detect.c: the detector and its entry points: the grid found (or
 * given), the points read, and the looks of vision_looks around them. */
#include "vision/vision.h"
#include "cvshim/cvshim.h"
#include "vision/vision_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Point i of r marked unsure (counted once). */
static void mark_unsure(const vision_params *P, vision_reading *r, int i)
{
    if (r->unsure[i]) {
        /* a point the model doubted, now doubted for its place too: its
         * other colour is as likely as a place in doubt makes it, however
         * unlikely the model found it on this lattice */
        float place = 1.0f - vision_doubted(P, 1.0f);
        if (r->second_p[i] < place) r->second_p[i] = place;
        return;
    }
    r->confidence[i] = vision_doubted(P, r->confidence[i]);
    r->second_p[i] = 1.0f - r->confidence[i];
    r->unsure[i] = 1;
    r->uncertain++;
}

/* Where another grid (the lines' own, placed otherwise) reads a point
 * otherwise, the point is unsure: the photo does not say which of the
 * lattices it is.  differ[i] is set for each such point. */
static gs_status other_grid_doubt(const vision_params *P, const gs_image *img, const vision_grid *other,
                                  vision_reading *r, unsigned char *differ, gs_error *err)
{
    vision_reading *o = malloc(sizeof *o);
    if (!o) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    gs_status st = vision_read(P, img, other, o, err);
    int N = r->pos.size;
    for (int i = 0; st == GS_OK && i < N * N; i++) {
        if (o->pos.cell[i] == r->pos.cell[i]) continue;
        differ[i] = 1;
        mark_unsure(P, r, i);
        vision_second_set(r, i, (gs_color)o->pos.cell[i]); /* what the other lattice reads */
    }
    free(o);
    return st;
}

static void mark_all_unsure(const vision_params *P, vision_reading *r)
{
    for (int i = 0; i < r->pos.size * r->pos.size; i++) mark_unsure(P, r, i);
}

/* Another grid that reads rival_whole of the points or more otherwise is
 * the lattice a line off: the photo does not say where the board's lines
 * are, so no point is sure, not even those both lattices read alike (a
 * line off, many of them are wrong under both). */
static void whole_doubt(const vision_params *P, vision_reading *r, int differ_n)
{
    if (differ_n >= P->rival_whole * r->pos.size * r->pos.size) mark_all_unsure(P, r);
}

/* Exposure: a camera's exposure scales every pixel, which should change
 * nothing; but an underexposed photo brings the thin dips of the lines
 * down to a few grey levels, near the fixed floors and the rounding of
 * the stages after.  So the photo is brightened until its bright level
 * (the 99th percentile of the brightest channel, what a white stone or a
 * lit wood shows) reaches expose_level, by at most expose_max_gain
 * (deeper than that the noise is brightened as much as the board).  A
 * gain up to expose_skip is not worth a copy of the photo. */

/* The gain to bring img's bright level to expose_level (>= 1). */
static double exposure_gain(const vision_params *P, const gs_image *img)
{
    long hist[256] = {0}, n = 0;
    int step = img->width * img->height > 1000000 ? 4 : 2;
    for (int y = 0; y < img->height; y += step) {
        const uint8_t *row = img->buf + (size_t)y * (size_t)img->stride;
        for (int x = 0; x < img->width; x += step) {
            const uint8_t *p = row + (size_t)x * (size_t)img->channels;
            int m = p[0];
            for (int c = 1; c < img->channels; c++) m = p[c] > m ? p[c] : m;
            hist[m]++;
            n++;
        }
    }
    long above = 0;
    int level = 255;
    while (level > 0 && (above += hist[level]) < n / 100) level--;
    double gain = P->expose_level / (level > 1 ? level : 1);
    return gain < 1 ? 1 : gain > P->expose_max_gain ? P->expose_max_gain : gain;
}

/* A brightened copy of img when it is underexposed (*gain > expose_skip),
 * else NULL with *gain 1; NULL with *gain 0 when out of memory. */
static gs_image *exposed_copy(const vision_params *P, const gs_image *img, double *gain)
{
    *gain = exposure_gain(P, img);
    if (*gain <= P->expose_skip) { *gain = 1; return NULL; }
    gs_image *c = cvshim_image_scaled(img, *gain);
    if (!c) *gain = 0;
    return c;
}

/* The point model's reading of every point of g beside the rules' one
 * in r.  The rules reader's colour stays: on the visible photos it was
 * wrong on 24 of 41,765 points and the model on 59, every one of which the
 * rules reader had right.  A point is marked unsure where the two readers
 * differ (they err in different ways: on those photos no point was misread
 * alike by both), where the model gives the colour read less than
 * point_sure (it sees no intersection there), where the rules reader
 * doubts it and the model gives it less than model_clears, where the
 * model gives another colour other_colour or more (the two readers agree
 * on a white stone on a pale board read empty, the model half sure of the
 * stone), or where the point's cell is not wholly in the photo.  The
 * model's probabilities count "none": its colours over their sum alone
 * (the colour given an intersection) left wrong points unmarked on turned
 * copies of the goban-watcher photos, where the model half saw no
 * intersection.  The
 * second colour of a point in doubt is the other reader's, or else the
 * model's next likeliest (either other colour there made the count's
 * ranges of the 46 goban-watcher photos twice as wide, median 7 -> 13
 * points, and held the truth no more often); of a point off the photo,
 * either. */
static void take_model(const vision_params *P, const vision_probs *pr, const vision_view *vw, vision_reading *r)
{
    int N = r->pos.size;
    r->uncertain = 0; /* counted again below, r->unsure[] read first */
    r->outside = 0;
    memset(r->off_photo, 0, sizeof r->off_photo);
    r->have_prob = 1;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) {
            int at = j * N + i, m = 0;
            float p[VISION_CLASSES];
            for (int c = 0; c < VISION_CLASSES; c++) p[c] = vision_prob_point(pr, c, i, j);
            memcpy(r->prob[at], p, sizeof p);
            for (int c = 1; c < 3; c++) m = p[c] > p[m] ? c : m;
            int second = m == 0 ? 1 : 0;
            for (int c = 0; c < 3; c++) second = c != m && p[c] > p[second] ? c : second;
            if (!vw->inside[at]) { /* off the photo: nothing to read */
                r->off_photo[at] = 1;
                r->outside++;
                r->pos.cell[at] = GS_EMPTY;
                r->confidence[at] = 0;
                r->unsure[at] = 1;
                r->uncertain++;
                r->second[at] = VISION_SECOND_ANY;
                r->second_p[at] = 1;
                continue;
            }
            int rules = r->pos.cell[at] % 3;
            float other = 0; /* the likeliest colour other than the one read */
            for (int c = 0; c < 3; c++) other = c != rules && p[c] > other ? p[c] : other;
            int doubt = rules != m || p[rules] < P->point_sure || other >= P->other_colour ||
                        (r->unsure[at] && p[rules] < P->model_clears);
            if (rules != m) second = m;
            r->confidence[at] = doubt ? vision_doubted(P, p[rules]) : p[rules];
            r->unsure[at] = (unsigned char)doubt;
            r->uncertain += doubt;
            r->second[at] = (gs_color)second;
            r->second_p[at] = p[second];
        }
}

/* The model look: the view of the grid (from the shrunk copies of img
 * the finder's views kept), the model over it, its reading taken into r. */
static gs_status model_look(const vision_detector *d, const gs_image *img, const vision_grid *g,
                            vision_shrunk *shrunk, vision_reading *r, gs_error *err)
{
    vision_view vw;
    vision_probs pr = {0};
    gs_status st = vision_view_make_with(img, g, 0, 0, g->size, g->size, shrunk, &vw, err);
    if (st == GS_OK) st = vision_model_read(d->net, &vw, d->P.model_mirror, &pr, err);
    if (st == GS_OK) take_model(&d->P, &pr, &vw, r);
    vision_probs_free(&pr);
    vision_view_free(&vw);
    return st;
}

/* The grid taken by the model but not by the lines (place_doubt): the
 * points the lines' grid reads otherwise are marked, and every point when
 * that is rival_whole of them (a lattice a line off) or when the lines
 * refused the photo or saw a bigger board (the grid may not fit it). */
static gs_status place_doubt_marks(const vision_params *P, const gs_image *img, vision_result *out, gs_error *err)
{
    const vision_grid_find_info *info = &out->info;
    int NN = out->grid.size * out->grid.size, differ_n = NN;
    gs_status st = GS_OK;
    if (info->have_lines_grid && info->lines_grid.size == out->grid.size) {
        unsigned char differ[GS_MAX_SIZE * GS_MAX_SIZE] = {0};
        st = other_grid_doubt(P, img, &info->lines_grid, &out->reading, differ, err);
        differ_n = 0;
        for (int i = 0; i < NN; i++) differ_n += differ[i];
    }
    out->lines_points = differ_n < NN ? differ_n : 0;
    if (st == GS_OK) whole_doubt(P, &out->reading, differ_n);
    return st;
}

/* The points on the grid found (the finder's reading of it when it made
 * one) with the looks asked: a low lamp's, the point model's, and the
 * doubt where the lines placed the board otherwise (place_doubt_marks). */
static gs_status read_all(const vision_detector *d, const vision_looks *lk, const gs_image *img,
                          vision_shrunk *shrunk, vision_result *out, gs_error *err)
{
    const vision_params *P = &d->P;
    const vision_grid_find_info *info = &out->info;
    gs_status st = GS_OK;
    if (info->have_reading) out->reading = info->reading;
    else st = vision_read(P, img, &out->grid, &out->reading, err);
    if (st == GS_OK && lk->shade) st = vision_read_shade(P, img, &out->grid, &out->reading, err);
    if (st == GS_OK && lk->model) st = model_look(d, img, &out->grid, shrunk, &out->reading, err);
    if (st == GS_OK && info->place_doubt) st = place_doubt_marks(P, img, out, err);
    if (st == GS_OK && info->place_unknown) mark_all_unsure(P, &out->reading); /* a close-up: no lattice is sure */
    return st;
}

/* The whole detection, with the looks lk. */
static gs_status detect(const vision_detector *d, const gs_image *img, const vision_request *rq,
                        const vision_looks *lk, vision_result *out, gs_error *err)
{
    if (!d) return gs_error_set(err, GS_ERR_USAGE, "no detector");
    if (!out) return gs_error_set(err, GS_ERR_USAGE, "no output");
    memset(out, 0, sizeof *out);
    const vision_params *P = &d->P;
    if (rq && rq->looks) lk = rq->looks;
    /* (the stages check the image themselves; brightening reads it first) */
    if (!img || (lk->brighten && (!img->buf || img->width <= 0 || img->height <= 0)))
        return gs_error_set(err, GS_ERR_USAGE, "empty image");
    int hint = rq ? rq->size_hint : 0;
    double t0 = gs_now_ms();
    gs_image *bright = NULL;
    if (lk->brighten) {
        bright = exposed_copy(P, img, &out->gain);
        if (out->gain == 0) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        if (bright) img = bright;
    }
    gs_status st = GS_OK;
    vision_shrunk shrunk = {0}; /* the copies of img the views shrink it to, for this detection */
    if (rq && rq->grid) out->grid = *rq->grid;
    else
        st = vision_grid_find(P, img, hint, lk->wider, lk->model ? d->net : NULL, &shrunk, &out->grid, &out->info, err);
    double t1 = gs_now_ms();
    out->ms_grid = t1 - t0;
    if (st == GS_OK && !(rq && rq->find_only)) st = read_all(d, lk, img, &shrunk, out, err);
    vision_shrunk_free(&shrunk);
    gs_image_destroy(bright);
    out->ms_read = gs_now_ms() - t1;
    return st;
}

gs_status vision_detect_photo(const vision_detector *d, const gs_image *img, const vision_request *rq,
                              vision_result *out, gs_error *err)
{
    return detect(d, img, rq, d ? &d->P.photo : NULL, out, err);
}

gs_status vision_detect_frame(const vision_detector *d, const gs_image *img, const vision_request *rq,
                              vision_result *out, gs_error *err)
{
    return detect(d, img, rq, d ? &d->P.frame : NULL, out, err);
}

vision_detector *vision_detector_open(const vision_params *p, const char *model_file, gs_error *err)
{
    vision_detector *d = malloc(sizeof *d);
    if (!d) {
        gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (p) d->P = *p;
    else vision_params_init(&d->P);
    if (!(d->net = model_file ? vision_model_load_file(model_file, err) : vision_model_load(err))) {
        free(d);
        return NULL;
    }
    return d;
}

vision_detector *vision_detector_create(const vision_params *p)
{
    gs_error e;
    return vision_detector_open(p, NULL, &e);
}

void vision_detector_destroy(vision_detector *d)
{
    if (!d) return;
    cvshim_net_free(d->net);
    free(d);
}

const vision_params *vision_detector_params(const vision_detector *d) { return &d->P; }
