/* vision/read_near.c: the reading's second look, point against point.
 *
 * The rules of read.c judge each point by measures relative to the photo's
 * wood and stones as a whole; where they are unsure, the photo itself often
 * still shows what the point is: the sure points round it look, as small
 * image patches, like the stones and the empty wood of that part of the
 * board under that light, seen at that angle (a pale stone under a lamp of
 * its own colour, a white stone set off its point, the far side of an
 * oblique view).  So each point's patch is compared with those of the sure
 * points within NEAR_R points, class by class, and
 *  - an unsure point much nearer another class than the one read takes
 *    that class, and stays unsure;
 *  - a sure point much nearer another class than the one read becomes
 *    unsure.
 * A point whose own class has no sure neighbour (an edge point next to a
 * corner has few empty ones of its kind) is judged by the classes that
 * have, when it looks like one of them as much as its members look alike.
 * Empty points are compared only with empty points of the same kind
 * (inside, or on the same side or corner: the board's edge and what lies
 * beyond it are in the patch); stones with stones anywhere near, as a stone
 * covers its point wherever it stands. */
#include "vision/vision_internal.h"

#include <math.h>
#include <stdlib.h>
#ifdef GRID_DEBUG
#include <stdio.h>
#endif

#define NEAR_R 3        /* neighbourhood, in points either way */
#define NEAR_K 2        /* a class's distance: the mean of its K nearest */
/* Another class nearer than the one read by this factor (the next class's
 * distance over the nearest's): an unsure point takes it; a sure point is
 * doubted.  In a first trial on the 117 visible photos (patches through
 * the corners' homography), 1.1-1.5 and radius 2-4 all corrected 26-32
 * unsure points and spoiled 0-6: no sharp optimum. */
/* ...and, to take it, no farther from that class than this many times the
 * photo's typical distance between two points of one class (the classes
 * taken on the visible photos: 0.9-2.3 times). */
/* (the typical distance is at least what noise alone gives, in grey
 * levels: a clean render's patches of one class coincide) */

static float patch_distance(const float *a, const float *b)
{
    float s = 0;
    for (int k = 0; k < VISION_PATCH_N; k++) s += fabsf(a[k] - b[k]);
    return s / VISION_PATCH_N;
}

/* Which kind of point i is: inside, or which side(s) of the board. */
static int point_kind(int i, int N)
{
    int u = i % N, v = i / N;
    return (u == 0) | (u == N - 1) << 1 | (v == 0) << 2 | (v == N - 1) << 3;
}

/* Inserts d into the K smallest of a class (best[0..K-1], n of them). */
static void keep_nearest(float *best, int *n, float d)
{
    int k;
    if (*n < NEAR_K) k = (*n)++;
    else if (d < best[NEAR_K - 1]) k = NEAR_K - 1;
    else return;
    best[k] = d;
    for (; k > 0 && best[k] < best[k - 1]; k--) {
        float t = best[k];
        best[k] = best[k - 1];
        best[k - 1] = t;
    }
}

/* What point i's patch is nearest among its sure neighbours: the class
 * (GS_EMPTY, GS_BLACK, GS_WHITE; -1 unless two classes have neighbours),
 * how much nearer than the next class (ratio), and the distances to that
 * class and to its own (-1 when its own has no neighbour: an edge point
 * next to a corner has few empty ones of its kind). */
typedef struct near_verdict { int nearest; float ratio, d_nearest, d_own; } near_verdict;

/* The distance between points i and j = i + offset o of the window,
 * measured once for both (D: WIN entries per point, < 0 until measured). */
enum { WIN_SIDE = 2 * NEAR_R + 1, WIN = WIN_SIDE * WIN_SIDE };
static float pair_distance(const float *const *Q, float *D, int i, int j, int o)
{
    float *d = &D[(size_t)i * WIN + o];
    if (*d < 0) *d = D[(size_t)j * WIN + (WIN - 1 - o)] = patch_distance(Q[i], Q[j]);
    return *d;
}

static near_verdict nearest_class(const vision_params *P, const vision_reading *r, int N, const float *const *Q, float *D,
                                  int i)
{
    near_verdict out = {-1, 0, 0, 0};
    float best[3][NEAR_K];
    int n[3] = {0, 0, 0};
    int u0 = i % N, v0 = i / N, kind = point_kind(i, N);
    for (int v = v0 - NEAR_R; v <= v0 + NEAR_R; v++)
        for (int u = u0 - NEAR_R; u <= u0 + NEAR_R; u++) {
            int j = v * N + u;
            if (u < 0 || v < 0 || u >= N || v >= N || j == i || !Q[j] || r->confidence[j] < P->near_sure) continue;
            int c = r->pos.cell[j];
            if (c == GS_EMPTY && point_kind(j, N) != kind) continue;
            int o = (v - v0 + NEAR_R) * WIN_SIDE + (u - u0 + NEAR_R);
            keep_nearest(best[c], &n[c], pair_distance(Q, D, i, j, o));
        }
    float d[3];
    int first = -1, second = -1, own = r->pos.cell[i];
    for (int c = 0; c < 3; c++) {
        if (!n[c]) continue;
        d[c] = 0;
        for (int k = 0; k < n[c]; k++) d[c] += best[c][k] / (float)n[c];
        if (first < 0 || d[c] < d[first]) { second = first; first = c; }
        else if (second < 0 || d[c] < d[second]) second = c;
    }
    if (second < 0) return out;
    out.nearest = first;
    out.ratio = d[second] / fmaxf(d[first], 1e-3f);
    out.d_nearest = d[first];
    out.d_own = n[own] ? d[own] : -1;
    return out;
}

/* How far apart two patches of one class typically lie in this photo: the
 * median of the sure points' distances to their own class (0 when there
 * are none). */
static float typical_distance(const vision_params *P, const vision_reading *r, const near_verdict *V, int NN, float *tmp)
{
    int m = 0;
    for (int i = 0; i < NN; i++)
        if (V[i].nearest >= 0 && V[i].d_own >= 0 && r->confidence[i] >= P->near_sure) tmp[m++] = V[i].d_own;
    if (!m) return 0;
    qsort(tmp, (size_t)m, sizeof *tmp, vision_cmp_float);
    return tmp[m / 2];
}

void vision_read_near(const vision_params *P, const vision_patches *p, vision_reading *r)
{
    int N = p->size, NN = N * N;
    const float *const *Q = p->at;
    float *tmp = malloc(sizeof *tmp * (size_t)NN), *D = malloc(sizeof *D * (size_t)NN * WIN);
    near_verdict *V = malloc(sizeof *V * (size_t)NN);
    if (!tmp || !D || !V) {
        /* (without memory the reading stays as the rules left it) */
        free(tmp); free(D); free(V);
        return;
    }
    for (size_t k = 0; k < (size_t)NN * WIN; k++) D[k] = -1;
    /* every point judged on the rules' reading, then the changes applied */
    for (int i = 0; i < NN; i++) {
        near_verdict none = {-1, 0, 0, 0};
        V[i] = Q[i] && r->confidence[i] > 0 ? nearest_class(P, r, N, Q, D, i) : none;
    }
    /* (a class is taken only when the point looks like its members as
     * much as they look like one another: nearer another class than its
     * own, a lit patch of wood is still none of them) */
    float alike = P->near_alike * fmaxf(P->near_noise, typical_distance(P, r, V, NN, tmp));
    for (int i = 0; i < NN; i++) {
        const near_verdict *v = &V[i];
#ifdef GRID_DEBUG
        if (getenv("NEAR_DUMP") && (r->confidence[i] < P->unsure || getenv("NEAR_DUMP")[0] == '2'))
            fprintf(stderr, "NEAR %d,%d read %d conf %.2f nearest %d ratio %.2f d %.1f own %.1f alike %.1f\n", i / N,
                    i % N, r->pos.cell[i], r->confidence[i], v->nearest, v->ratio, v->d_nearest, v->d_own, alike);
#endif
        if (v->nearest < 0 || v->nearest == r->pos.cell[i]) continue;
        if (r->confidence[i] < P->unsure && v->ratio >= P->near_take && v->d_nearest <= alike) {
            r->pos.cell[i] = (uint8_t)v->nearest;
        }
        else if (r->confidence[i] >= P->unsure && v->ratio >= P->near_doubt && (v->d_own >= 0 || v->d_nearest <= alike)) {
            r->confidence[i] = vision_doubted(P, r->confidence[i]);
        }
    }
    free(tmp);
    free(D);
    free(V);
}
