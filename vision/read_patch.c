/* vision/read_patch.c: each point's image patch, for the reading's looks
 * point against point (vision/read_near.c) and over the whole photo
 * (vision/read_self.c).  A patch is sampled on the board's own grid, so
 * that the patches of one neighbourhood line up whatever the perspective. */
#include "vision/vision_internal.h"

#include <stdlib.h>

/* The patch round board point (u, v); 0 when part of it lies outside the
 * photo. */
static int patch_at(const gs_image *img, const vision_grid *g, int u, int v, float *out)
{
    for (int a = 0; a < VISION_PATCH_SIDE; a++)
        for (int b = 0; b < VISION_PATCH_SIDE; b++) {
            double du = VISION_PATCH_HALF * (2.0 * b / (VISION_PATCH_SIDE - 1) - 1);
            double dv = VISION_PATCH_HALF * (2.0 * a / (VISION_PATCH_SIDE - 1) - 1);
            double x, y;
            vision_grid_map(g, u + du, v + dv, &x, &y);
            if (!gs_sample_bgr(img, x, y, out + 3 * (a * VISION_PATCH_SIDE + b))) return 0;
        }
    return 1;
}

int vision_patches_make(vision_patches *p, const gs_image *img, const vision_grid *g)
{
    int N = g->size, NN = N * N;
    p->size = N;
    p->buf = malloc(sizeof *p->buf * (size_t)NN * VISION_PATCH_N);
    p->at = calloc((size_t)NN, sizeof *p->at);
    if (!p->buf || !p->at) {
        vision_patches_free(p);
        return -1;
    }
    for (int i = 0; i < NN; i++) {
        float *q = p->buf + (size_t)i * VISION_PATCH_N;
        if (patch_at(img, g, i % N, i / N, q)) p->at[i] = q;
    }
    return 0;
}

void vision_patches_free(vision_patches *p)
{
    if (!p) return;
    free(p->buf);
    free((void *)p->at);
    p->buf = NULL;
    p->at = NULL;
}
