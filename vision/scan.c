/* vision/scan.c: the whole single-photo pipeline (grid, then points). */
#include "vision/vision.h"

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

/* Where a runner-up grid reads a point otherwise, the point is unsure:
 * the photo does not say which of the lattices it is.  differ[i] is set
 * for each such point. */
static gs_status rival_doubt(const gs_image *img, const vision_grid *rival, vision_reading *r, unsigned char *differ,
                             gs_error *err)
{
    vision_reading *o = malloc(sizeof *o);
    if (!o) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    gs_status st = vision_read(img, rival, o, err);
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

gs_status vision_scan(const gs_image *img, const vision_scan_options *opt, vision_scan_result *out, gs_error *err)
{
    if (!img || !img->buf || img->width <= 0 || img->height <= 0)
        return gs_error_set(err, GS_ERR_USAGE, "empty image");
    if (!out) return gs_error_set(err, GS_ERR_USAGE, "no output");
    memset(out, 0, sizeof *out);
    int hint = opt ? opt->size_hint : 0;
    double t0 = gs_now_ms();
    vision_grid_find_info info;
    memset(&info, 0, sizeof info);
    gs_status st;
    if (opt && opt->corners) {
        double c[4][2];
        memcpy(c, opt->corners, sizeof c);
        st = vision_grid_from_corners(&out->grid, hint ? hint : 19, (const double (*)[2])c, err);
    } else {
        st = vision_grid_find_ex(img, hint, &out->grid, &info, err);
    }
    double t1 = gs_now_ms();
    out->ms_grid = t1 - t0;
    if (st != GS_OK) return st;
    st = vision_read(img, &out->grid, &out->reading, err);
    unsigned char differ[GS_MAX_SIZE * GS_MAX_SIZE] = {0};
    for (int k = 0; st == GS_OK && k < info.nrivals; k++) /* of the same size (vision_grid_find_info) */
        st = rival_doubt(img, &info.rival[k], &out->reading, differ, err);
    for (int i = 0; i < GS_MAX_SIZE * GS_MAX_SIZE; i++) out->rival_points += differ[i];
    if (st == GS_OK) whole_doubt(&out->reading, out->rival_points);
    out->ms_read = gs_now_ms() - t1;
    return st;
}
