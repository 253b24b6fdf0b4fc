/* track/looks.c: a point's reading may change only where its look changed
 * (see track_looks in track/track.h). */
#include "track/track.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A look channel darker than this says too little of the light's change
 * (a black stone's body): left out of the median. */
#define LOOK_DARK 24

void track_looks_reset(track_looks *l, int size, const int16_t (*look)[3])
{
    l->have = true;
    l->size = size;
    for (int i = 0; i < size * size; i++)
        for (int c = 0; c < 3; c++) l->ref[i][c] = l->prev[i][c] = look[i][c];
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* The references follow the light: each channel scaled by the median
 * change of the points' looks since the last check. */
static void follow_light(track_looks *l, const int16_t (*look)[3])
{
    int n = l->size * l->size;
    float ratio[GS_MAX_SIZE * GS_MAX_SIZE];
    for (int c = 0; c < 3; c++) {
        int m = 0;
        for (int i = 0; i < n; i++)
            if (l->prev[i][c] >= LOOK_DARK && look[i][c] >= LOOK_DARK) ratio[m++] = look[i][c] / l->prev[i][c];
        if (m < n / 4) continue; /* (most points dark: nothing to tell the light by) */
        qsort(ratio, (size_t)m, sizeof ratio[0], cmp_float);
        float gain = ratio[m / 2];
        for (int i = 0; i < n; i++) l->ref[i][c] *= gain;
    }
}

static float look_change(const int16_t a[3], const float b[3])
{
    return fabsf(a[0] - b[0]) + fabsf(a[1] - b[1]) + fabsf(a[2] - b[2]);
}

int track_looks_check(track_looks *l, const int16_t (*look)[3], const gs_position *before, gs_position *pos,
                      uint8_t *uncertain, float *conf, float min_confidence)
{
    int n = pos->size;
    if (!l->have || l->size != n || before->size != n) {
        track_looks_reset(l, n, look);
        return 0;
    }
    follow_light(l, look);
    int kept = 0;
    for (int i = 0; i < n * n; i++) {
        for (int c = 0; c < 3; c++) l->prev[i][c] = look[i][c];
        if (pos->cell[i] == before->cell[i]) continue;
        float d = look_change(look[i], l->ref[i]);
        if (d > TRACK_LOOK_SAME) {
            for (int c = 0; c < 3; c++) l->ref[i][c] = look[i][c];
            continue;
        }
        pos->cell[i] = before->cell[i];
        uncertain[i] = 1;
        if (conf[i] >= min_confidence) conf[i] = min_confidence * 0.5f;
        kept++;
    }
    return kept;
}

int track_looks_take(track_looks *l, const int16_t (*look)[3], const gs_position *before, const gs_position *reading,
                     gs_position *pos, uint8_t *uncertain)
{
    int n = pos->size;
    if (!l->have || l->size != n || before->size != n || reading->size != n) {
        track_looks_reset(l, n, look);
        return 0;
    }
    follow_light(l, look);
    int taken = 0;
    for (int i = 0; i < n * n; i++) {
        for (int c = 0; c < 3; c++) l->prev[i][c] = look[i][c];
        bool changed_look = look_change(look[i], l->ref[i]) > TRACK_LOOK_SAME;
        if (uncertain[i] && reading->cell[i] != pos->cell[i] && changed_look) {
            pos->cell[i] = reading->cell[i];
            uncertain[i] = 0;
            taken++;
        }
        /* a value set now: its look is the point's reference */
        if (pos->cell[i] != before->cell[i])
            for (int c = 0; c < 3; c++) l->ref[i][c] = look[i][c];
    }
    return taken;
}
