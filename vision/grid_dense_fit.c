/* vision/grid_dense_fit.c: how well a crowded-board hypothesis (see
 * vision/grid_dense.c) explains the photo, and its final fit: the line
 * pixels of the two maps it puts on its lines (map score), the wood round
 * it ending where its margin does (board margin), and the whole lattice
 * fitted to every line pixel near it (lattice fit). */
#include "vision/vision_internal.h"
#include "cvshim/cvshim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef GRID_DEBUG
#include <stdio.h>
#endif

/* ---------------------------------------------------------- map score */

struct vision_mapproj {
    const vision_params *P;
    float *c[2], *t[2];  /* per family: board coordinate across its lines and along them */
    float *cs[2];        /* cos(2 pi c): the same for every whole-line shift of a window */
    int n[2];
    int across_u[2];     /* 1 when family f's lines have constant u */
    int ntot;            /* line pixels in the photo */
};

vision_mapproj *vision_mapproj_make(const vision_work *w, const vision_gmodel *m)
{
    double Hi[9];
    if (vision_mat3_inv(m->H, Hi) != 0) return NULL;
    vision_mapproj *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->P = w->P;
    int ntot = w->lm.npix[0] + w->lm.npix[1];
    for (int f = 0; f < 2; f++) {
        /* family 0: the lines u = const (across them runs u), family 1: v */
        p->across_u[f] = f == 0;
        p->c[f] = malloc(sizeof(float) * (size_t)(3 * ntot + 3));
        if (!p->c[f]) { vision_mapproj_free(p); return NULL; }
        p->t[f] = p->c[f] + ntot + 1;
        p->cs[f] = p->t[f] + ntot + 1;
    }
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < w->lm.npix[k]; i++) {
            const vision_pt *q = &w->lm.pix[k][i];
            double ux, uy;
            vision_undistort(m->k1, m->cx, m->cy, m->norm, q->x, q->y, &ux, &uy);
            double den = Hi[6] * ux + Hi[7] * uy + Hi[8];
            if (fabs(den) < 1e-12) continue;
            double u = (Hi[0] * ux + Hi[1] * uy + Hi[2]) / den, v = (Hi[3] * ux + Hi[4] * uy + Hi[5]) / den;
            if (!(fabs(u) < 1e4 && fabs(v) < 1e4)) continue;
            /* the pixel's line runs along the board direction its own
             * direction maps to: mostly along v (a line u = const) or u */
            double x2, y2, u2, v2;
            x2 = ux + 2 * q->dx;
            y2 = uy + 2 * q->dy;
            den = Hi[6] * x2 + Hi[7] * y2 + Hi[8];
            if (fabs(den) < 1e-12) continue;
            u2 = (Hi[0] * x2 + Hi[1] * y2 + Hi[2]) / den - u;
            v2 = (Hi[3] * x2 + Hi[4] * y2 + Hi[5]) / den - v;
            int f = fabs(v2) >= fabs(u2) ? 0 : 1;
            int j = p->n[f]++;
            p->c[f][j] = (float)(f == 0 ? u : v);
            p->t[f][j] = (float)(f == 0 ? v : u);
            p->cs[f][j] = (float)cos(2 * M_PI * p->c[f][j]);
        }
    p->ntot = ntot;
    return p;
}

void vision_mapproj_free(vision_mapproj *p)
{
    if (!p) return;
    free(p->c[0]);
    free(p->c[1]);
    free(p);
}

/* (The lines run from along = 0 to n - 1; a pixel up to map_end past the
 * outer perpendicular line still belongs to it.  The pixels on lines
 * beyond the grid weigh map_beyond: a window one line short on a side
 * leaves a whole line there, which must cost more than anything the
 * window gains inside.) */

/* The share of a window's n lines that gather some of the family's
 * pixels (a line hidden under stones still shows a few; a line of the
 * window off the board shows none). */
static double lines_seen(const int *cnt, int n)
{
    int srt[GS_MAX_SIZE];
    memcpy(srt, cnt, sizeof *srt * (size_t)n);
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && srt[j] < srt[j - 1]; j--) { int t = srt[j]; srt[j] = srt[j - 1]; srt[j - 1] = t; }
    double need = fmax(2, 0.15 * srt[(3 * n) / 4]);
    int seen = 0;
    for (int k = 0; k < n; k++) seen += cnt[k] >= need;
    return (double)seen / n;
}

double vision_mapproj_score(const vision_mapproj *p, int n, const int off[2], vision_mapscore *d)
{
    vision_mapscore sc;
    memset(&sc, 0, sizeof sc);
    sc.total = -1;
    if (!p || n < 2 || n > GS_MAX_SIZE) { if (d) *d = sc; return -1; }
    double tot = 0, map_end = p->P->map_end;
    int ok = 1;
    for (int f = 0; f < 2; f++) {
        /* off[0] shifts the grid along u, off[1] along v; family f's
         * across coordinate is u or v as vision_mapproj_make decided */
        double on = 0;
        int cnt = 0, bey = 0, per_line[GS_MAX_SIZE] = {0};
        for (int i = 0; i < p->n[f]; i++) {
            double cc = p->c[f][i] - off[p->across_u[f] ? 0 : 1], tt = p->t[f][i] - off[p->across_u[f] ? 1 : 0];
            if (cc < -1.5 || cc > n + 0.5 || tt < -1 - map_end || tt > n + map_end) continue;
            double cs = p->cs[f][i];
            int in_c = cc >= -0.5 && cc <= n - 0.5, in_t = tt >= -map_end && tt <= n - 1 + map_end;
            cnt++;
            if (in_c && in_t) {
                on += cs;
                int k = (int)(cc + 0.5); /* floor: cc + 0.5 >= 0 here */
                if (fabs(cc - k) < 0.25 && k >= 0 && k < n) per_line[k]++;
            } else if ((in_c || in_t) && cs > 0.5) {
                bey++;
            }
        }
        sc.count[f] = cnt;
        if (cnt < p->P->map_count_min) { ok = 0; continue; }
        /* over all the family's pixels in the photo, not those near the
         * window: a small window in a clean corner of the board must not
         * beat the board's own grid for having less clutter in it */
        sc.on[f] = on / (0.5 * p->ntot);
        sc.beyond[f] = (double)bey / (0.5 * p->ntot);
        sc.seen[f] = lines_seen(per_line, n);
        tot += 0.5 * (sc.on[f] - p->P->map_beyond * sc.beyond[f] - (1 - sc.seen[f]));
    }
    sc.total = ok ? tot : -1;
    if (d) *d = sc;
    return sc.total;
}

double vision_linemap_score(const vision_work *w, int n, const vision_gmodel *m, vision_mapscore *detail)
{
    vision_mapproj *p = vision_mapproj_make(w, m);
    static const int zero[2] = {0, 0};
    double s = vision_mapproj_score(p, n, zero, detail);
    vision_mapproj_free(p);
    return s;
}

/* ------------------------------------------------------- board margin */

/* Median colour (B, G, R) of the 3 x 3 pixels of the photo round working
 * point (x, y); 0 when off the photo. */
int vision_photo_colour(const vision_work *w, double x, double y, double out[3])
{
    const gs_image *im = w->img;
    int cx = (int)lround(x / w->scale), cy = (int)lround(y / w->scale);
    if (cx < 1 || cy < 1 || cx >= im->width - 1 || cy >= im->height - 1) return 0;
    for (int c = 0; c < 3; c++) {
        int v[9], k = 0;
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                const uint8_t *p = im->buf + (size_t)(cy + dy) * im->stride + (size_t)(cx + dx) * im->channels;
                v[k++] = im->channels == 1 ? p[0] : p[c];
            }
        for (int i = 1; i < 9; i++)
            for (int j = i; j > 0 && v[j] < v[j - 1]; j--) { int t = v[j]; v[j] = v[j - 1]; v[j - 1] = t; }
        out[c] = v[4];
    }
    return 1;
}

/* Two colours look like the same surface: brightness within surface_lum
 * and chromaticity ((R-G, G-B) over brightness) within the root of
 * surface_chroma2 (squared: without a call to hypot). */
static int same_surface(const vision_params *P, const double a[3], const double b[3])
{
    double ya = gs_luma(a[0], a[1], a[2]), yb = gs_luma(b[0], b[1], b[2]);
    if (ya < 4 || yb < 4 || ya > P->surface_lum * yb || yb > P->surface_lum * ya) return 0;
    double d0 = (a[2] - a[1]) / ya - (b[2] - b[1]) / yb, d1 = (a[1] - a[0]) / ya - (b[1] - b[0]) / yb;
    return d0 * d0 + d1 * d1 < P->surface_chroma2;
}

static int cmp_col(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A board's outer lines lie inside its margin: a third of a cell beyond
 * them is still the board's surface.  Per side, the share of points there
 * that look like the margin's typical colour (the median over all four
 * sides) or like the cell just inside them; the sides that are in the
 * photo averaged.  Near 1 for the board's own grid; a grid whose outer
 * line is the board's edge (one line too far) sees the table there. */
double vision_margin_score(const vision_work *w, int n, const vision_gmodel *m)
{
    enum { MAXS = 4 * GS_MAX_SIZE };
    double mcol[MAXS][3], icol[MAXS][3], all[3][MAXS];
    int side_of[MAXS], ns = 0, inner_ok[MAXS];
    for (int s = 0; s < 4; s++)
        for (int k = 0; k < n; k++) {
            /* side 0 v < 0, 1 u > n-1, 2 v > n-1, 3 u < 0 */
            double u = s == 1 ? n - 1 + 0.35 : s == 3 ? -0.35 : k, v = s == 0 ? -0.35 : s == 2 ? n - 1 + 0.35 : k;
            double ui = s == 1 ? n - 1.5 : s == 3 ? 0.5 : k, vi = s == 0 ? 0.5 : s == 2 ? n - 1.5 : k;
            double x, y, xi, yi;
            vision_model_map(m, u, v, &x, &y);
            vision_model_map(m, ui, vi, &xi, &yi);
            if (!vision_photo_colour(w, x, y, mcol[ns])) continue;
            inner_ok[ns] = vision_photo_colour(w, xi, yi, icol[ns]);
            for (int c = 0; c < 3; c++) all[c][ns] = mcol[ns][c];
            side_of[ns++] = s;
        }
    if (ns < n) return -1;
    double med[3];
    for (int c = 0; c < 3; c++) {
        qsort(all[c], (size_t)ns, sizeof(double), cmp_col);
        med[c] = all[c][ns / 2];
    }
    int cnt[4] = {0, 0, 0, 0}, good[4] = {0, 0, 0, 0};
    for (int i = 0; i < ns; i++) {
        cnt[side_of[i]]++;
        good[side_of[i]] += same_surface(w->P, mcol[i], med) || (inner_ok[i] && same_surface(w->P, mcol[i], icol[i]));
    }
    double sum = 0;
    int sides = 0;
#ifdef GRID_DEBUG
    if (getenv("MARGIN_DEBUG")) {
        fprintf(stderr, "margin med %.0f %.0f %.0f:", med[0], med[1], med[2]);
        for (int s = 0; s < 4; s++) fprintf(stderr, " side %d %d/%d", s, good[s], cnt[s]);
        fprintf(stderr, "\n");
        for (int i = 0; i < ns; i++) fprintf(stderr, "  s%d m %.0f %.0f %.0f i %.0f %.0f %.0f\n", side_of[i], mcol[i][0], mcol[i][1], mcol[i][2], icol[i][0], icol[i][1], icol[i][2]);
    }
#endif
    for (int s = 0; s < 4; s++)
        if (cnt[s] * 2 >= n) { sum += (double)good[s] / cnt[s]; sides++; }
    return sides ? sum / sides : -1;
}

/* ---------------------------------------------------- lattice fit */

/* The grid made exact on all the line pixels at once: with G = H^-1 in
 * normalised working coordinates (board = G q), each pixel on the grid
 * belongs to the nearest line of its family (by its direction, decided
 * once), and Gauss-Newton with a Tukey weight (pixels more than `reach`
 * cells off a line count for nothing) moves G's eight entries so the
 * pixels' board coordinates across their lines come out whole.  Where
 * refinement line by line fails on a crowded board (each line shows only
 * a few short stretches, and one line's error spoils the homography), the
 * lattice as a whole is still pinned by thousands of pixels. */
typedef struct fit_px { double qx, qy; int f; } fit_px;

/* Normal equations of one Gauss-Newton step; returns the pixels used. */
static int fit_step(const fit_px *P, int np, const double G[9], int n, double reach, double A[8][9])
{
    memset(A, 0, sizeof(double) * 8 * 9);
    int used = 0;
    for (int i = 0; i < np; i++) {
        double q[3] = {P[i].qx, P[i].qy, 1};
        double D = G[6] * q[0] + G[7] * q[1] + G[8];
        if (fabs(D) < 1e-9) continue;
        double u = (G[0] * q[0] + G[1] * q[1] + G[2]) / D, v = (G[3] * q[0] + G[4] * q[1] + G[5]) / D;
        double c = P[i].f == 0 ? u : v, t = P[i].f == 0 ? v : u;
        if (c < -0.5 || c > n - 0.5 || t < -0.3 || t > n - 0.7) continue;
        double r = c - floor(c + 0.5);
        if (fabs(r) >= reach) continue;
        double wt = (1 - (r / reach) * (r / reach));
        wt *= wt;
        /* the residual depends on five of G's entries (the family's row
         * and the perspective terms): the others' rows of A stay zero.
         * (The columns written out: indexed through a table, this loop
         * was a thirtieth of a scan's instructions.) */
        int o = P[i].f == 0 ? 0 : 3;
        double J[5] = {q[0] / D, q[1] / D, q[2] / D, -c * q[0] / D, -c * q[1] / D};
        double *row[5] = {A[o], A[o + 1], A[o + 2], A[6], A[7]};
        for (int a = 0; a < 5; a++) {
            double wa = wt * J[a], *Ra = row[a];
            Ra[o] += wa * J[0];
            Ra[o + 1] += wa * J[1];
            Ra[o + 2] += wa * J[2];
            Ra[6] += wa * J[3];
            Ra[7] += wa * J[4];
            Ra[8] -= wa * r;
        }
        used++;
    }
    return used;
}

/* The model as a grid of the photo, board axes as they are (no
 * reorientation), for the wood model. */
static void model_as_grid(const vision_work *w, int n, const vision_gmodel *m, vision_grid *g)
{
    double S[9] = {1 / w->scale, 0, 0, 0, 1 / w->scale, 0, 0, 0, 1};
    memset(g, 0, sizeof *g);
    g->size = n;
    vision_mat3_mul(S, m->H, g->H);
    g->k1 = m->k1;
    g->cx = m->cx / w->scale;
    g->cy = m->cy / w->scale;
    g->norm = m->norm / w->scale;
}

/* A line pixel lies on the board's surface when the photo 3 working
 * pixels either side across its line looks like the wood there (the seams
 * between two stones, which look like lines, have stones either side). */
static int on_wood(const vision_params *P, const vision_wood *wood, const float side[2][3], double u, double v)
{
    if (side[0][0] < 0) return 0;
    double wc[3], a[3] = {side[0][0], side[0][1], side[0][2]}, b[3] = {side[1][0], side[1][1], side[1][2]};
    vision_wood_at(wood, u, v, wc);
    return same_surface(P, a, wc) && same_surface(P, b, wc);
}

int vision_dense_fit(const vision_work *w, int n, vision_gmodel *m)
{
    vision_grid g0;
    vision_wood wood;
    gs_error e;
    model_as_grid(w, n, m, &g0);
    int have_wood = vision_wood_fit(w->img, &g0, &wood, &e) == GS_OK;
    double T[9] = {1 / w->sn, 0, -w->cx / w->sn, 0, 1 / w->sn, -w->cy / w->sn, 0, 0, 1}, Ti[9], Hi[9], G[9];
    if (vision_mat3_inv(T, Ti) != 0 || vision_mat3_inv(m->H, Hi) != 0) return -1;
    vision_mat3_mul(Hi, Ti, G);
    if (fabs(G[8]) < 1e-12) return -1;
    for (int i = 0; i < 9; i++) G[i] /= G[8];
    int ntot = w->lm.npix[0] + w->lm.npix[1], np = 0;
    fit_px *P = malloc(sizeof *P * (size_t)(ntot + 1));
    if (!P) return -1;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < w->lm.npix[k]; i++) {
            const vision_pt *q = &w->lm.pix[k][i];
            double ux, uy, u0, v0, u1, v1;
            vision_undistort(m->k1, m->cx, m->cy, m->norm, q->x, q->y, &ux, &uy);
            double qx = (ux - w->cx) / w->sn, qy = (uy - w->cy) / w->sn;
            double qx2 = qx + 2 * q->dx / w->sn, qy2 = qy + 2 * q->dy / w->sn;
            double d0 = G[6] * qx + G[7] * qy + G[8], d1 = G[6] * qx2 + G[7] * qy2 + G[8];
            if (fabs(d0) < 1e-9 || fabs(d1) < 1e-9) continue;
            u0 = (G[0] * qx + G[1] * qy + G[2]) / d0;
            v0 = (G[3] * qx + G[4] * qy + G[5]) / d0;
            u1 = (G[0] * qx2 + G[1] * qy2 + G[2]) / d1;
            v1 = (G[3] * qx2 + G[4] * qy2 + G[5]) / d1;
            if (have_wood && w->lm.side[k] && !on_wood(w->P, &wood, w->lm.side[k][i], u0, v0)) continue;
            /* a line along v has constant u: family 0 */
            P[np++] = (fit_px){qx, qy, fabs(v1 - v0) >= fabs(u1 - u0) ? 0 : 1};
        }
    static const double reach[] = {0.35, 0.3, 0.25, 0.25, 0.2, 0.2};
    int ok = 0;
    for (int it = 0; it < 6; it++) {
        double A[8][9], d[8];
        if (fit_step(P, np, G, n, reach[it], A) < w->P->fit_pixels_min) break;
        for (int a = 0; a < 8; a++) A[a][a] *= 1.05; /* a little damping */
        if (gs_solve(&A[0][0], 9, 8, d, 1e-12) != 0) break;
        double step = 0;
        for (int a = 0; a < 8; a++) { G[a] += d[a]; step += fabs(d[a]); }
        ok = 1;
        if (step < 1e-6) break;
    }
    free(P);
    if (!ok) return -1;
    double Gi[9], GT[9];
    vision_mat3_mul(G, T, GT);
    if (vision_mat3_inv(GT, Gi) != 0) return -1;
    memcpy(m->H, Gi, sizeof Gi);
    return 0;
}
