/* vision/read_wood.c: the board's wood as the photo shows it, stage 1 of
 * the reader (vision/read.c): small patches at the cell centres (between
 * four points, where even a crowded board shows wood) and in the margin
 * ring give the board colour; a robust quadratic surface per channel over
 * the board follows lighting gradients and ignores patches covered by
 * stones. */
#include "vision/vision_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Quadratic surface per channel: c0 + c1 u + c2 v + c3 u^2 + c4 v^2 + c5 uv,
 * with u, v scaled to about -1..1 (vision_wood in vision_internal.h). */
typedef vision_wood wood_model;

static void wood_terms(const wood_model *w, double u, double v, double t[6])
{
    double a = u * w->scale - 1, b = v * w->scale - 1;
    t[0] = 1; t[1] = a; t[2] = b; t[3] = a * a; t[4] = b * b; t[5] = a * b;
}

void vision_wood_at(const vision_wood *w, double u, double v, double out[3])
{
    double t[6];
    wood_terms(w, u, v, t);
    for (int c = 0; c < 3; c++) {
        double s = 0;
        for (int i = 0; i < 6; i++) s += w->k[c][i] * t[i];
        out[c] = s < 1 ? 1 : s;
    }
}

/* Least squares of nt terms (nt <= 6) by normal equations. */
static int lsq(int nt, int n, const double (*T)[6], const double *y, const int *use, double *k)
{
    double A[6][7] = {{0}};
    for (int s = 0; s < n; s++) {
        if (!use[s]) continue;
        for (int i = 0; i < nt; i++) {
            for (int j = 0; j < nt; j++) A[i][j] += T[s][i] * T[s][j];
            A[i][nt] += T[s][i] * y[s];
        }
    }
    return gs_solve(&A[0][0], 7, nt, k, 1e-9);
}

/* Samples of one wood fit: cell-centre patches (and those of the margin
 * ring beyond the outer lines) with their terms and colours. */
typedef struct wood_samples {
    int n;
    double (*T)[6], (*col)[3], *y;
    int *use;
} wood_samples;

/* Whether sample s looks like surface w there: brightness and
 * chromaticity close, loose (the start may be off) or tight (pale stones
 * of another hue, green or shell, must not pass for wood where they crowd
 * a region). */
static int wood_like(const wood_samples *S, int s, const vision_wood *w, int loose)
{
    double pred[3] = {0, 0, 0};
    for (int c = 0; c < 3; c++)
        for (int i = 0; i < 6; i++) pred[c] += w->k[c][i] * S->T[s][i];
    double Yp = gs_luma(pred[0], pred[1], pred[2]), Ys = gs_luma(S->col[s][0], S->col[s][1], S->col[s][2]);
    double cp[2], cs[2];
    vision_chroma(pred[0], pred[1], pred[2], cp);
    vision_chroma(S->col[s][0], S->col[s][1], S->col[s][2], cs);
    double dc = hypot(cp[0] - cs[0], cp[1] - cs[1]), cw = hypot(cp[0], cp[1]);
    return Yp > 1 && fabs(Ys / Yp - 1) < (loose ? 0.25 : 0.15) && dc < (loose ? 0.5 : 0.25) * cw + (loose ? 0.04 : 0.03);
}

/* Keeps the samples like w, fits, and repeats with the fitted surface;
 * returns how many samples the final surface explains (tight). */
static int wood_iterate(const wood_samples *S, vision_wood *w)
{
    for (int iter = 0; iter < 4 && S->n >= 12; iter++) {
        int inl = 0;
        for (int s = 0; s < S->n; s++) inl += S->use[s] = wood_like(S, s, w, iter == 0);
        int nt = inl >= 30 ? 6 : inl >= 12 ? 3 : 0;
        if (!nt) break;
        double k[6], knew[3][6] = {{0}};
        int ok = 1;
        for (int c = 0; c < 3 && ok; c++) {
            for (int s = 0; s < S->n; s++) S->y[s] = S->col[s][c];
            if (lsq(nt, S->n, (const double (*)[6])S->T, S->y, S->use, k) != 0) ok = 0;
            else for (int i = 0; i < nt; i++) knew[c][i] = k[i];
        }
        if (!ok) break;
        memcpy(w->k, knew, sizeof knew);
    }
    int inl = 0;
    for (int s = 0; s < S->n; s++) inl += wood_like(S, s, w, 0);
    return inl;
}

/* Flat start: the median colour of the samples with sel[s] (all when sel
 * is NULL) whose brightness lies within lo..hi times medY. */
static void wood_start(const wood_samples *S, const unsigned char *sel, double medY, double lo, double hi, double *tmp,
                       vision_wood *w)
{
    for (int c = 0; c < 3; c++) {
        int m = 0;
        for (int s = 0; s < S->n; s++) {
            double Y = gs_luma(S->col[s][0], S->col[s][1], S->col[s][2]);
            if ((!sel || sel[s]) && Y > lo * medY && Y < hi * medY) tmp[m++] = S->col[s][c];
        }
        if (m) { qsort(tmp, (size_t)m, sizeof *tmp, vision_cmp_double); w->k[c][0] = tmp[m / 2]; }
    }
}

gs_status vision_wood_fit(const gs_image *img, const vision_grid *g, vision_wood *w, gs_error *err)
{
    int N = g->size, maxs = (N + 1) * (N + 1);
    wood_samples S = {0, malloc(sizeof *S.T * (size_t)maxs), malloc(sizeof *S.col * (size_t)maxs),
                      malloc(sizeof *S.y * (size_t)maxs), malloc(sizeof *S.use * (size_t)maxs)};
    double *tmp = malloc(sizeof *tmp * (size_t)maxs);
    unsigned char *margin = malloc((size_t)maxs);
    gs_status st = GS_OK;
    if (!S.T || !S.col || !S.y || !S.use || !tmp || !margin) {
        st = gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        goto done;
    }
    memset(w, 0, sizeof *w);
    w->scale = 2.0 / (N - 1);
    int nm = 0;
    for (int v = -1; v < N; v++)
        for (int u = -1; u < N; u++) {
            double c[3];
            if (!vision_patch_median(img, g, u + 0.5, v + 0.5, 0.12, c)) continue;
            wood_terms(w, u + 0.5, v + 0.5, S.T[S.n]);
            memcpy(S.col[S.n], c, sizeof c);
            margin[S.n] = u == -1 || v == -1 || u == N - 1 || v == N - 1;
            nm += margin[S.n];
            S.n++;
        }
    double medY = 128;
    if (S.n > 0) {
        for (int s = 0; s < S.n; s++) tmp[s] = gs_luma(S.col[s][0], S.col[s][1], S.col[s][2]);
        qsort(tmp, (size_t)S.n, sizeof *tmp, vision_cmp_double);
        medY = tmp[S.n / 2];
    }
    for (int c = 0; c < 3; c++) w->k[c][0] = medY; /* fallback: flat grey-ish */
    /* Two starts: the median colour of the wood-like samples (most cells
     * of most games show wood), and that of the margin ring between the
     * outer lines and the board's edge (stones seldom cover it, while a
     * crowded board's cells may show more stones than wood).  The surface
     * that explains more samples is the wood. */
    vision_wood wm = *w;
    wood_start(&S, NULL, medY, 0.7, 1.4, tmp, w);
    int inl = wood_iterate(&S, w);
    if (nm >= N) {
        wood_start(&S, margin, medY, 0, 1e9, tmp, &wm);
        if (wood_iterate(&S, &wm) > inl) *w = wm;
    }
done:
    free(S.T); free(S.col); free(S.y); free(S.use); free(tmp); free(margin);
    return st;
}
