/* vision/read_edges.c: stage 5 of the reader (vision/read.c): a hand,
 * sleeve or arm reaching over the board's edge, read as white stones at
 * the edge points it covers, set apart from stones. */
#include "vision/vision_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Colour likeness for the occlusion test: brightness within 20% and
 * chromaticity within P->occ_chroma. */
static int same_colour(const vision_params *P, const double a[3], const double b[3])
{
    double ya = gs_luma(a[0], a[1], a[2]), yb = gs_luma(b[0], b[1], b[2]);
    if (ya < 1 || yb < 1 || fabs(ya / yb - 1) > P->occ_lum) return 0;
    double ca[2], cb[2];
    vision_chroma(a[0], a[1], a[2], ca);
    vision_chroma(b[0], b[1], b[2], cb);
    return hypot(ca[0] - cb[0], ca[1] - cb[1]) < P->occ_chroma;
}

/* A hand, sleeve or arm reaching over the board edge looks like a white
 * stone at the edge points it covers, but unlike a stone (at most half a
 * cell across, on a board whose wood margin or edge stops it) it goes on
 * beyond the board: its colour carries on without a boundary (each step of
 * 0.3 cell like the one before) from the point to well outside the board,
 * and there it is unlike the table seen beside the board along that edge.  Such white readings at edge points become
 * empty (the truth under a hand is unknown; empty is the likely case) with
 * a low confidence.  Returns how many were cleared. */
int vision_clear_occluded_edges(const vision_params *P, const gs_image *img, const vision_grid *g, vision_reading *out)
{
    static const double outs[] = {0.3, 0.6, 0.9, 1.2, 1.5, 1.8};
    const int nout = (int)(sizeof outs / sizeof outs[0]);
    int N = g->size, cleared = 0;
    double *bg = malloc(sizeof *bg * (size_t)N * 3);
    if (!bg) return 0;
    for (int side = 0; side < 4; side++) {
        /* side 0 top (v=0, outward -v), 1 right, 2 bottom, 3 left */
        double ou = side == 1 ? 1 : side == 3 ? -1 : 0, ov = side == 0 ? -1 : side == 2 ? 1 : 0;
        int any = 0;
        for (int k = 0; k < N && !any; k++) {
            int u, v;
            vision_edge_point(side, k, N, &u, &v);
            any = out->pos.cell[v * N + u] == GS_WHITE;
        }
        if (!any) continue;
        /* The table beside the board: median colour 1.5 cells out along the edge. */
        double tab[3] = {-1, -1, -1};
        int nb = 0;
        for (int k = 0; k < N; k++) {
            int u, v;
            vision_edge_point(side, k, N, &u, &v);
            double c[3];
            if (vision_patch_median(img, g, u + 1.5 * ou, v + 1.5 * ov, 0.15, c)) { memcpy(bg + 3 * nb, c, sizeof c); nb++; }
        }
        if (nb >= 3) {
            double *col = malloc(sizeof *col * (size_t)nb);
            if (col) {
                for (int c = 0; c < 3; c++) {
                    for (int s = 0; s < nb; s++) col[s] = bg[3 * s + c];
                    qsort(col, (size_t)nb, sizeof *col, vision_cmp_double);
                    tab[c] = col[nb / 2];
                }
                free(col);
            }
        }
        for (int k = 0; k < N; k++) {
            int u, v;
            vision_edge_point(side, k, N, &u, &v);
            int i = v * N + u;
            if (out->pos.cell[i] != GS_WHITE) continue;
            double disc[3];
            if (!vision_patch_median(img, g, u, v, 0.25, disc)) continue;
            /* Straight out, and out at 45 degrees either way (an arm comes
             * in at any angle). */
            int hand = 0;
            for (int ray = -1; ray <= 1 && !hand; ray++) {
                double du = ou + ray * (ou == 0 ? 1 : 0), dv = ov + ray * (ov == 0 ? 1 : 0);
                double len = hypot(du, dv);
                du /= len;
                dv /= len;
                int cont = 1, unlike_table = 0;
                double prev[3];
                memcpy(prev, disc, sizeof prev);
                for (int s = 0; s < nout && cont; s++) {
                    double c[3];
                    /* distances are measured across the edge */
                    double d = outs[s] * len;
                    if (!vision_patch_median(img, g, u + d * du, v + d * dv, 0.12, c)) { cont = 0; break; }
                    /* no boundary on the way: each step like the one before
                     * (skin shades off gradually; a stone ends at an edge) */
                    cont = same_colour(P, c, prev);
                    memcpy(prev, c, sizeof prev);
                    if (outs[s] >= P->occ_table_from && (tab[0] < 0 || !same_colour(P, c, tab))) unlike_table = 1;
                }
                hand = cont && unlike_table;
            }
            if (hand) {
                out->pos.cell[i] = GS_EMPTY;
                out->confidence[i] = 0.3f;
                cleared++;
            }
        }
    }
    free(bg);
    return cleared;
}

/* A point by the fixed rules, relative to the wood (pops: as
 * populations_fit returned). */
