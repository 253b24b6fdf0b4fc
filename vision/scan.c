/* vision/scan.c: the whole single-photo pipeline (grid, then points). */
#include "vision/vision.h"
#include "cvshim/cvshim.h"
#include "vision/vision_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Point i of r marked unsure (counted once). */
static void mark_unsure(vision_reading *r, int i)
{
    if (r->unsure[i]) return;
    r->confidence[i] = vision_doubted(r->confidence[i]);
    r->unsure[i] = 1;
    r->uncertain++;
}

/* Where another grid (a runner-up, or the grid found moved a little)
 * reads a point otherwise, the point is unsure: the photo does not say
 * which of the lattices it is.  differ[i] is set for each such point. */
static gs_status other_grid_doubt(const gs_image *img, const vision_grid *other, vision_reading *r,
                                  unsigned char *differ, gs_error *err)
{
    vision_reading *o = malloc(sizeof *o);
    if (!o) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    gs_status st = vision_read(img, other, o, err);
    int N = r->pos.size;
    for (int i = 0; st == GS_OK && i < N * N; i++) {
        if (o->pos.cell[i] == r->pos.cell[i]) continue;
        differ[i] = 1;
        mark_unsure(r, i);
    }
    free(o);
    return st;
}

/* A rival that reads a quarter of the points or more otherwise is the
 * lattice a line off (on the visible photos and their smaller, darker and
 * recompressed copies every rival read 148 to 288 of 361 otherwise): the
 * photo does not say where the board's lines are, so no point is sure,
 * not even those both lattices read alike (a line off, many of them are
 * wrong under both: 16 to 34 wrong points per such photo were left
 * unmarked). */
#define RIVAL_WHOLE 0.25
static void whole_doubt(vision_reading *r, int rival_points)
{
    int NN = r->pos.size * r->pos.size;
    if (rival_points < RIVAL_WHOLE * NN) return;
    for (int i = 0; i < NN; i++) mark_unsure(r, i);
}

/* Exposure: a camera's exposure scales every pixel, which should change
 * nothing; but an underexposed photo brings the thin dips of the lines
 * down to a few grey levels, near the fixed floors and the rounding of
 * the stages after (a copy of the goban-watcher photos at 60 % brightness
 * lost 8 of 46 boards, found again at full brightness).  So the photo is
 * brightened until its bright level (the 99th percentile of the
 * brightest channel, what a white stone or a lit wood shows) reaches
 * EXPOSE_LEVEL, by at most EXPOSE_MAX_GAIN (deeper than that the noise
 * is brightened as much as the board).  A gain up to EXPOSE_SKIP is
 * not worth a copy of the photo (a median photo's scan took 8 ms more
 * with it): the visible photos that would take one (imago t1, 1.15-1.19)
 * read point for point alike with and without. */
#define EXPOSE_LEVEL 240.0
#define EXPOSE_MAX_GAIN 4.0
#define EXPOSE_SKIP 1.25

/* The gain to bring img's bright level to EXPOSE_LEVEL (>= 1). */
static double exposure_gain(const gs_image *img)
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
    double gain = EXPOSE_LEVEL / (level > 1 ? level : 1);
    return gain < 1 ? 1 : gain > EXPOSE_MAX_GAIN ? EXPOSE_MAX_GAIN : gain;
}

/* A brightened copy of img when it is underexposed (*gain > EXPOSE_SKIP),
 * else NULL with *gain 1; NULL with *gain 0 when out of memory. */
static gs_image *exposed_copy(const gs_image *img, double *gain)
{
    *gain = exposure_gain(img);
    if (*gain <= EXPOSE_SKIP) { *gain = 1; return NULL; }
    gs_image *c = cvshim_image_scaled(img, *gain);
    if (!c) *gain = 0;
    return c;
}

/* Where the grid lies is known to a fraction of a cell (on the
 * goban-watcher photos the corners found lie 0.1 to 0.36 cell from those
 * of a grid read right at every point: tests/test_vision_crowded.c).  A
 * point read otherwise on the grid moved SHIFT_CELLS along either axis,
 * either way, hangs on where exactly the lines are, and is not sure: on
 * the visible photos this marks every wrong point of the goban-watcher
 * ones (7 were unmarked: far white stones of game 1 blue 2 that read like
 * the wood), and on their mirrored, smaller, darker and recompressed
 * copies every one (1 to 8 per set were unmarked), for about 1 % of the
 * right points.  Four more readings cost about 38 ms on a median photo,
 * so a reading with no doubt at all is taken as it is (on the visible
 * photos the only wrong points of such readings are two stones Gomrade
 * 2's .txt lacks). */
#define SHIFT_CELLS 0.1

/* Marks the points of r (read on g) that one of the four moved grids reads
 * otherwise; *moved is how many it marked that were not marked before. */
static gs_status shift_doubt(const gs_image *img, const vision_grid *g, vision_reading *r, int *moved, gs_error *err)
{
    static const double dirs[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
    unsigned char differ[GS_MAX_SIZE * GS_MAX_SIZE] = {0};
    int before = r->uncertain;
    gs_status st = GS_OK;
    for (int k = 0; k < 4 && st == GS_OK; k++) {
        vision_grid m;
        vision_grid_moved(g, SHIFT_CELLS * dirs[k][0], SHIFT_CELLS * dirs[k][1], g->size, &m);
        st = other_grid_doubt(img, &m, r, differ, err);
    }
    *moved = r->uncertain - before;
    return st;
}

/* The points on the grid found (the finder's reading of it when it made
 * one) with a photo's look for a low lamp (vision_read_shade), doubted
 * where a runner-up reads them otherwise, or the grid moved a little
 * (shift_doubt). */
static gs_status read_all(const gs_image *img, const vision_grid_find_info *info, vision_scan_result *out,
                          gs_error *err)
{
    gs_status st = GS_OK;
    if (info->have_reading) out->reading = info->reading;
    else st = vision_read(img, &out->grid, &out->reading, err);
    if (st == GS_OK) st = vision_read_shade(img, &out->grid, &out->reading, err);
    unsigned char differ[GS_MAX_SIZE * GS_MAX_SIZE] = {0};
    for (int k = 0; st == GS_OK && k < info->nrivals; k++) /* of the same size (vision_grid_find_info) */
        st = other_grid_doubt(img, &info->rival[k], &out->reading, differ, err);
    for (int i = 0; i < GS_MAX_SIZE * GS_MAX_SIZE; i++) out->rival_points += differ[i];
    if (st == GS_OK) whole_doubt(&out->reading, out->rival_points);
    int NN = out->grid.size * out->grid.size;
    if (st == GS_OK && out->reading.uncertain > 0 && out->reading.uncertain < NN)
        st = shift_doubt(img, &out->grid, &out->reading, &out->moved_points, err);
    return st;
}

gs_status vision_scan(const gs_image *img, const vision_scan_options *opt, vision_scan_result *out, gs_error *err)
{
    if (!img || !img->buf || img->width <= 0 || img->height <= 0)
        return gs_error_set(err, GS_ERR_USAGE, "empty image");
    if (!out) return gs_error_set(err, GS_ERR_USAGE, "no output");
    memset(out, 0, sizeof *out);
    int hint = opt ? opt->size_hint : 0;
    double t0 = gs_now_ms();
    gs_image *bright = exposed_copy(img, &out->gain);
    if (out->gain == 0) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    if (bright) img = bright;
    vision_grid_find_info info;
    memset(&info, 0, sizeof info);
    gs_status st;
    if (opt && opt->grid) {
        out->grid = *opt->grid;
        st = GS_OK;
    } else if (opt && opt->corners) {
        double c[4][2];
        memcpy(c, opt->corners, sizeof c);
        st = vision_grid_from_corners(&out->grid, hint ? hint : 19, (const double (*)[2])c, err);
    } else {
        st = vision_grid_find_ex(img, hint, &out->grid, &info, err);
    }
    double t1 = gs_now_ms();
    out->ms_grid = t1 - t0;
    if (st == GS_OK) st = read_all(img, &info, out, err);
    gs_image_destroy(bright);
    out->ms_read = gs_now_ms() - t1;
    return st;
}
