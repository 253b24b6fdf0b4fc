/* vision/grid_stones.c: evidence of the grid from the stones themselves,
 * for finished boards whose lines are mostly hidden.
 *
 * Stones are discs of about one cell centred on the intersections, black
 * ones darker and white ones brighter than what surrounds them, so a blob
 * detector tuned to the cell size finds their centres; two stones that are
 * nearest neighbours lie on one grid line, one cell apart.  The step
 * between them is a piece of that line, and the pieces feed the same
 * family / comb / window stages as pieces of drawn line
 * (vision/grid_lines.c).  The centre of a stone's image lies a little
 * above its intersection in an oblique view (the stone's height); the
 * refinement on the line response that follows takes that out.
 * Only relative cues: blob strength against the photo's own spread,
 * distances against each blob's own nearest neighbour. */
#include "vision/vision_internal.h"
#include "cvshim/cvshim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Blobs weaker than this (in units of the image's DoG spread) are more
 * likely wood between lines or texture than stones. */
#define BLOB_MIN 1.5
/* Neighbours along a line: within this factor of the nearest neighbour
 * (a diagonal neighbour is sqrt(2) away). */
#define NEAR_FACTOR 1.2

static int cmp_blob_x(const void *a, const void *b)
{
    float x = ((const vision_blob *)a)->x, y = ((const vision_blob *)b)->x;
    return (x > y) - (x < y);
}

gs_status vision_find_blobs(vision_work *w, gs_error *err)
{
    double side = w->W > w->H ? w->W : w->H;
    for (int i = 0; i < VISION_BLOB_SCALES; i++) {
        /* a cell of 1/60 to 1/15 of the working image, steps of 1.4 */
        double cell = side / 60 * pow(1.4, i);
        cvshim_blob *raw = NULL;
        int nraw = 0;
        char msg[200];
        if (cvshim_stone_blobs(w->grey, cell, &raw, &nraw, msg, sizeof msg) != 0)
            return gs_error_set(err, GS_ERR_INTERNAL, "stone detection failed: %s", msg);
        vision_blob *b = malloc(sizeof *b * (size_t)(nraw + 1));
        if (!b) { free(raw); return gs_error_set(err, GS_ERR_NOMEM, "out of memory"); }
        int n = 0;
        for (int k = 0; k < nraw; k++)
            if (fabs(raw[k].strength) >= BLOB_MIN) {
                b[n].x = raw[k].x; b[n].y = raw[k].y; b[n].strength = raw[k].strength;
                n++;
            }
        free(raw);
        qsort(b, (size_t)n, sizeof *b, cmp_blob_x);
        w->blob_cell[i] = cell;
        w->blobs[i] = b;
        w->nblobs[i] = n;
    }
    return GS_OK;
}

/* Nearest-neighbour distance of blob i within [lo, hi] (0 when none);
 * blobs sorted by x. */
static double nearest(const vision_blob *b, int n, int i, double lo, double hi)
{
    double best = 0;
    for (int j = i + 1; j < n && b[j].x - b[i].x <= hi; j++) {
        double d = hypot(b[j].x - b[i].x, b[j].y - b[i].y);
        if (d >= lo && d <= hi && (best == 0 || d < best)) best = d;
    }
    for (int j = i - 1; j >= 0 && b[i].x - b[j].x <= hi; j--) {
        double d = hypot(b[j].x - b[i].x, b[j].y - b[i].y);
        if (d >= lo && d <= hi && (best == 0 || d < best)) best = d;
    }
    return best;
}

gs_status vision_stone_pieces(const vision_work *w, int scale, vision_piece **out, int *np, gs_error *err)
{
    *out = NULL;
    *np = 0;
    const vision_blob *b = w->blobs[scale];
    int n = w->nblobs[scale];
    double cell = w->blob_cell[scale], lo = 0.6 * cell, hi = 1.6 * cell;
    double *nn = malloc(sizeof *nn * (size_t)(n + 1));
    vision_piece *p = malloc(sizeof *p * (size_t)(4 * n + 1));
    if (!nn || !p) {
        free(nn); free(p);
        return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i < n; i++) nn[i] = nearest(b, n, i, lo, hi);
    int m = 0;
    for (int i = 0; i < n && m < 4 * n; i++) {
        if (nn[i] == 0) continue;
        for (int j = i + 1; j < n && b[j].x - b[i].x <= hi && m < 4 * n; j++) {
            if (nn[j] == 0) continue;
            double d = hypot(b[j].x - b[i].x, b[j].y - b[i].y);
            /* one step along a line for both of them */
            if (d < lo || d > NEAR_FACTOR * nn[i] || d > NEAR_FACTOR * nn[j]) continue;
            vision_piece_set(&p[m++], w, b[i].x, b[i].y, b[j].x, b[j].y);
        }
    }
    free(nn);
    *out = p;
    *np = m;
    return GS_OK;
}
