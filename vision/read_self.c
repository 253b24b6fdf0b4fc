/* vision/read_self.c: the reading's third look, a classifier of the
 * photo's own.
 *
 * The rules of read.c and the second look of read_near.c leave some points
 * unsure: a pale stone under a lamp of its own colour, white stones far
 * off in an oblique view, a dark stone on the blurred far side.  The
 * photo's sure points are labelled examples of what its stones and its
 * wood look like under its light, from its angle: a linear discriminant
 * fitted to them (Fisher's, one covariance shared by the classes) reads
 * each unsure point again and gives it the class it is near certain of.
 * The point stays marked: the class is the better guess, not a sure one.
 *
 * The features are coarse on purpose: the mean B, G, R of the 3 x 3 blocks
 * of the point's patch (where the stone's body, its shadow and the lines
 * lie, not the grain or the noise), the point's place on the board (a
 * lamp's light falls off over it) and its lines' share of their usual
 * contrast (the rules' first evidence of bare wood, weighed here as this
 * photo's sure points show it: glare on empty wood is as bright as a
 * white stone, but its lines show).  Fitted per photo, nothing here is a
 * colour or a brightness fixed in advance.  Against the reading without
 * it, on the 117 visible photos it took the right class at 28 points and
 * a wrong one at 3; on changed copies of the 46 goban-watcher photos
 * (scripts/eval-perturb.sh: mirrored 42 against 10, at 75 % size 64
 * against 10, darker 20 against 2, recompressed 70 against 9).  A finer
 * patch (5 x 5 samples, or all 9 x 9 through 20 principal components)
 * gained less and spoiled more; the posterior asked (0.9 to 0.999) made
 * a point or two of difference.
 */
#include "vision/vision_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef GRID_DEBUG
#include <stdio.h>
#endif

/* A point this sure is an example of its class. */
/* The posterior probability at which an unsure point takes the class
 * (0.9 to 0.999 gave within a point or two of the same). */
/* A class with fewer examples is left out (its covariance says nothing). */
/* Each variance is raised by this share of itself, so that a grey photo
 * (B = G = R: the covariance singular) still solves; as the features'
 * scales differ (grey levels, the board's place), the ridge follows each. */

enum {
    SELF_BLOCK = 3,                             /* samples per block side */
    SELF_NB = VISION_PATCH_SIDE / SELF_BLOCK,   /* blocks per patch side */
    SELF_D = SELF_NB * SELF_NB * 3 + 3          /* features per point */
};

/* Lines at this many times their usual contrast count as that many (a
 * point where two lines cross a shadow's edge shows far more). */

/* Point i's features: its blocks' mean colours, u and v in -1..1, its
 * lines' share of their usual contrast. */
static void features(const vision_params *P, const float *patch, float lines, int i, int N, double x[SELF_D])
{
    int k = 0;
    for (int bi = 0; bi < SELF_NB; bi++)
        for (int bj = 0; bj < SELF_NB; bj++)
            for (int c = 0; c < 3; c++) {
                double s = 0;
                for (int a = 0; a < SELF_BLOCK; a++)
                    for (int b = 0; b < SELF_BLOCK; b++)
                        s += patch[3 * ((bi * SELF_BLOCK + a) * VISION_PATCH_SIDE + bj * SELF_BLOCK + b) + c];
                x[k++] = s / (SELF_BLOCK * SELF_BLOCK);
            }
    x[k++] = 2.0 * (i % N) / (N - 1) - 1;
    x[k++] = 2.0 * (i / N) / (N - 1) - 1;
    x[k] = lines < P->self_lines_max ? lines : P->self_lines_max;
}

/* The discriminant: per class, its weights w (the shared covariance's
 * inverse times the class mean) and constant; present[c] 0 for a class
 * left out. */
typedef struct self_model {
    int present[3];
    double w[3][SELF_D], b[3];
} self_model;

/* Fits m to the sure points (X: SELF_D features per point, use[i] the
 * point's class or -1); -1 when fewer than two classes have examples
 * enough, or the covariance does not solve. */
static int fit(const vision_params *P, const double *X, const int *use, int NN, self_model *m)
{
    double mu[3][SELF_D] = {{0}}, S[SELF_D * SELF_D] = {0};
    int n[3] = {0, 0, 0}, total = 0, classes = 0;
    for (int i = 0; i < NN; i++) {
        if (use[i] < 0) continue;
        n[use[i]]++;
        for (int k = 0; k < SELF_D; k++) mu[use[i]][k] += X[(size_t)i * SELF_D + k];
    }
    for (int c = 0; c < 3; c++) {
        m->present[c] = n[c] >= P->self_min;
        if (!m->present[c]) continue;
        classes++;
        total += n[c];
        for (int k = 0; k < SELF_D; k++) mu[c][k] /= n[c];
    }
    /* (a model of as many features as examples would fit noise) */
    if (classes < 2 || total < 2 * SELF_D) return -1;
    for (int i = 0; i < NN; i++) {
        if (use[i] < 0 || !m->present[use[i]]) continue;
        double d[SELF_D];
        for (int k = 0; k < SELF_D; k++) d[k] = X[(size_t)i * SELF_D + k] - mu[use[i]][k];
        for (int a = 0; a < SELF_D; a++)
            for (int b = 0; b <= a; b++) S[a * SELF_D + b] += d[a] * d[b];
    }
    for (int a = 0; a < SELF_D; a++) {
        for (int b = 0; b <= a; b++) S[b * SELF_D + a] = S[a * SELF_D + b] /= total - classes;
        S[a * SELF_D + a] *= 1 + P->self_ridge;
    }
    if (gs_cholesky(S, SELF_D) != 0) return -1;
    for (int c = 0; c < 3; c++) {
        if (!m->present[c]) continue;
        memcpy(m->w[c], mu[c], sizeof mu[c]);
        gs_cholesky_solve(S, SELF_D, m->w[c]);
        double q = 0;
        for (int k = 0; k < SELF_D; k++) q += m->w[c][k] * mu[c][k];
        m->b[c] = -0.5 * q + log((double)n[c] / total);
    }
    return 0;
}

/* The class of features x the model is surest of (one of the present
 * ones: a fitted model has two or more), and how sure (posterior
 * probability) into *p. */
static int classify(const self_model *m, const double *x, double *p)
{
    double s[3], best = -INFINITY;
    int cls = -1;
    for (int c = 0; c < 3; c++) {
        if (!m->present[c]) continue;
        s[c] = m->b[c];
        for (int k = 0; k < SELF_D; k++) s[c] += m->w[c][k] * x[k];
        if (s[c] > best) { best = s[c]; cls = c; }
    }
    double z = 0;
    for (int c = 0; c < 3; c++)
        if (m->present[c]) z += exp(s[c] - best);
    *p = 1 / z;
    return cls;
}

void vision_read_self(const vision_params *P, const vision_patches *p, const vision_point_features *F, const float *lines, vision_reading *r)
{
    int N = p->size, NN = N * N, unsure = 0;
    for (int i = 0; i < NN; i++) unsure += p->at[i] && r->confidence[i] > 0 && r->confidence[i] < P->unsure;
    if (!unsure) return;
    double *X = malloc(sizeof *X * (size_t)NN * SELF_D);
    int *use = malloc(sizeof *use * (size_t)NN);
    if (!X || !use) {
        /* (without memory the reading stays as the other looks left it) */
        free(X); free(use);
        return;
    }
    for (int i = 0; i < NN; i++) {
        use[i] = -1;
        if (!p->at[i]) continue;
        features(P, p->at[i], lines[i], i, N, X + (size_t)i * SELF_D);
        if (r->confidence[i] >= P->self_sure) use[i] = r->pos.cell[i];
    }
    self_model m;
    if (fit(P, X, use, NN, &m) == 0)
        for (int i = 0; i < NN; i++) {
            if (!p->at[i] || r->confidence[i] <= 0 || r->confidence[i] >= P->unsure) continue;
            double prob;
            int c = classify(&m, X + (size_t)i * SELF_D, &prob);
#ifdef GRID_DEBUG
            if (getenv("SELF_DUMP"))
                fprintf(stderr, "SELF %d,%d read %d conf %.2f -> %d p %.4f lines %.2f\n", i / N, i % N, r->pos.cell[i],
                        r->confidence[i], c, prob, lines[i]);
#endif
            /* (a black stone is darker than the wood round it, whatever the
             * lamp: a brighter point outside every class, as the board's
             * lit bevel, must not pass for one) */
            if (c == GS_BLACK && F[i].lum >= 1) continue;
            if (prob >= P->self_take) r->pos.cell[i] = (uint8_t)c;
        }
    free(X);
    free(use);
}
