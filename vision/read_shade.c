/* vision/read_shade.c: the reading's look for a low lamp.
 *
 * A lamp low beside the board lights one side of every stone and throws
 * each stone's shadow across the board away from it; long enough, the
 * shadow covers the near half of the next point as darkly as a black stone
 * does (a lamp low on the left of gomrade/1: eleven empty points just
 * right of a stone read as black, nine of them surely).  The photo shows
 * both:
 *  - the light: its white stones are brighter on the side facing the
 *    lamp.  The median over its sure white stones of the log ratio of
 *    their opposite halves, per axis of the board, says from which side
 *    and how low.  A lamp above the board lights both halves nearly
 *    alike: on the other 116 visible photos the ratio is at most 1.5,
 *    under gomrade/1's lamp 3.6 (3.4-3.8 on its changed copies).
 *  - the shadow: a point read black whose neighbour on the lamp's side is
 *    a stone (the shadow's caster) and whose half away from the lamp is
 *    lighter than the half towards it.  A black stone is dark all round,
 *    its glare on the lamp's side; a shadow lies only on the side of the
 *    stone that casts it, the wood beyond it in half light.
 * Such a point is read empty, and marked: the wood in half light beyond
 * the shadow says no stone stands there (a black stone standing in the
 * shadow would be dark all round), but a stone set off its point towards
 * the caster looks the same.  Only a photo's reading gets this
 * look (vision_scan): the readings a scan compares it with, and the
 * recorder's of every frame, do not need it. */
#include "vision/vision_internal.h"

#include <math.h>
#include <stdlib.h>

/* A white stone this sure shows the light. */
/* Fewer sure white stones than this say nothing about the light. */
/* Raking light: the lit half of the white stones at least this many times
 * as bright as the other (the photos measured: 1.5 at most under lamps
 * above, 3.6 under a low one). */
/* A shadow's far half lighter than its near half by at least this share
 * of the wood's brightness (gomrade/1's shadows 0.43-0.61, its black
 * stones 0 or less: their glare is on the lamp's side). */
/* (halves darker than this share of the wood count as this dark, so that
 * the log ratio of two black halves stays finite) */

enum { SIDE_PU, SIDE_MU, SIDE_PV, SIDE_MV }; /* vision_stone_halves' order */

static void mark(const vision_params *P, vision_reading *r, int i)
{
    r->confidence[i] = vision_doubted(P, r->confidence[i]);
    r->second_p[i] = 1.0f - r->confidence[i];
    if (!r->unsure[i]) r->uncertain++;
    r->unsure[i] = 1;
}

/* The median over the sure white stones of log(lit half / other half),
 * along u (lu: the -u half over the +u one) and along v (lv); 0, 0 when
 * there are too few of them. */
static void white_light(const vision_params *P, vision_halves_fn halves, void *ctx, const vision_reading *r, int NN, double *lu, double *lv)
{
    float tu[GS_MAX_SIZE * GS_MAX_SIZE], tv[GS_MAX_SIZE * GS_MAX_SIZE];
    int n = 0;
    *lu = *lv = 0;
    for (int i = 0; i < NN; i++) {
        if (r->pos.cell[i] != GS_WHITE || r->confidence[i] < P->shade_sure) continue;
        float s[4];
        halves(ctx, i, s);
        for (int d = 0; d < 4; d++) s[d] = fmaxf(s[d], P->shade_floor);
        tu[n] = logf(s[SIDE_MU] / s[SIDE_PU]);
        tv[n++] = logf(s[SIDE_MV] / s[SIDE_PV]);
    }
    if (n < P->shade_min_whites) return;
    qsort(tu, (size_t)n, sizeof *tu, vision_cmp_float);
    qsort(tv, (size_t)n, sizeof *tv, vision_cmp_float);
    *lu = tu[n / 2];
    *lv = tv[n / 2];
}

/* Sets hit[i] for every black point whose neighbour at (-du, -dv), towards
 * the lamp, is a stone and whose half away from the lamp (far) is lighter
 * than its half towards it (near) by P->shade_step.  (One loop over the
 * points: as two nested loops over v and u, GCC 12.2 at -O2 turned a store's
 * address into a null base plus offsets, then took the function for pure
 * and dropped every call to it.) */
static void find_shadows(const vision_params *P, vision_halves_fn halves, void *ctx, const vision_reading *r, int du, int dv, int near,
                         int far, unsigned char *hit)
{
    int N = r->pos.size;
    for (int i = 0; i < N * N; i++) {
        int cu = i % N - du, cv = i / N - dv;
        if (r->pos.cell[i] != GS_BLACK) continue;
        if (cu < 0 || cv < 0 || cu >= N || cv >= N || r->pos.cell[cv * N + cu] == GS_EMPTY) continue;
        float s[4];
        halves(ctx, i, s);
        if (s[far] - s[near] >= P->shade_step) hit[i] = 1;
    }
}

int vision_shadows_clear(const vision_params *P, vision_halves_fn halves, void *ctx, int N, vision_reading *r)
{
    int NN = N * N;
    unsigned char hit[GS_MAX_SIZE * GS_MAX_SIZE] = {0};
    double lu, lv, raking = log(P->shade_raking);
    white_light(P, halves, ctx, r, NN, &lu, &lv);
    /* along each axis of the board: the lamp on the -u (-v) side, casting
     * towards +u (+v), or the other way round; every point judged on the
     * reading as it came (a shadow's caster may be a shadow read black) */
    if (lu >= raking) find_shadows(P, halves, ctx, r, 1, 0, SIDE_MU, SIDE_PU, hit);
    if (lu <= -raking) find_shadows(P, halves, ctx, r, -1, 0, SIDE_PU, SIDE_MU, hit);
    if (lv >= raking) find_shadows(P, halves, ctx, r, 0, 1, SIDE_MV, SIDE_PV, hit);
    if (lv <= -raking) find_shadows(P, halves, ctx, r, 0, -1, SIDE_PV, SIDE_MV, hit);
    /* wood in half light on the far side: no stone stands on the point */
    int cleared = 0;
    for (int i = 0; i < NN; i++) {
        if (!hit[i]) continue;
        r->pos.cell[i] = GS_EMPTY;
        mark(P, r, i);
        vision_second_set(r, i, GS_BLACK); /* (the reading it replaced) */
        cleared++;
    }
    return cleared;
}

/* The photo behind vision_read_shade's halves. */
typedef struct shade_photo {
    const gs_image *img;
    const vision_grid *g;
    vision_cam cam;
    vision_wood wood;
} shade_photo;

static void photo_halves(void *ctx, int i, float side[4])
{
    const shade_photo *p = ctx;
    int N = p->g->size;
    vision_stone_halves(p->img, p->g, &p->cam, &p->wood, i % N, i / N, side);
}

gs_status vision_read_shade(const vision_params *P, const gs_image *img, const vision_grid *g, vision_reading *r, gs_error *err)
{
    if (!img || !img->buf || !g || !r || g->size != r->pos.size)
        return gs_error_set(err, GS_ERR_USAGE, "shade look: no photo, grid or reading");
    shade_photo p = {.img = img, .g = g};
    vision_cam_fit(&p.cam, g->H, img->width, img->height);
    gs_status st = vision_wood_fit(img, g, &p.wood, err);
    if (st == GS_OK) vision_shadows_clear(P, photo_halves, &p, g->size, r); /* (how many: for the tests) */
    return st;
}
