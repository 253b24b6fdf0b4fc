/* track/margin.c: stones on the margin outside the lines (see margin.h). */
#include "track/track.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* how far outside the outer line the band's centre lies, in cells */
#define MG_OUT 0.5
/* samples every half cell, from half a cell before the first line to half a
 * cell after the last */
static int per_side(int size) { return 2 * size + 1; }

int track_margin_spot_count(int size) { return 4 * per_side(size); }

/* spot k of side s: position t along the edge and the board point */
static void spot(int size, int side, int k, double *u, double *v, double *t)
{
    double tt = -0.5 + 0.5 * k, lo = -MG_OUT, hi = size - 1 + MG_OUT;
    *t = tt;
    switch (side) {
    case TRACK_MARGIN_TOP: *u = tt; *v = lo; break;
    case TRACK_MARGIN_RIGHT: *u = hi; *v = tt; break;
    case TRACK_MARGIN_BOTTOM: *u = size - 1 - tt; *v = hi; break;
    default: *u = lo; *v = size - 1 - tt; break;
    }
}

void track_margin_spots(int size, double *u, double *v)
{
    int m = per_side(size);
    for (int s = 0; s < 4; s++)
        for (int k = 0; k < m; k++) {
            double t;
            spot(size, s, k, &u[s * m + k], &v[s * m + k], &t);
        }
}

/* mean BGR of a small patch (a fifth of a cell) around board point (u, v);
 * false when it leaves the picture */
static bool patch(const gs_image *img, const vision_grid *g, double u, double v, double rgb[3])
{
    double s[3] = {0, 0, 0};
    int n = 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            double x, y;
            vision_grid_map(g, u + dx * 0.1, v + dy * 0.1, &x, &y);
            int ix = (int)lround(x), iy = (int)lround(y);
            if (ix < 0 || iy < 0 || ix >= img->width || iy >= img->height) return false;
            const uint8_t *p = img->buf + (size_t)iy * (size_t)img->stride + (size_t)ix * (size_t)img->channels;
            for (int c = 0; c < 3; c++) s[c] += p[img->channels == 3 ? c : 0];
            n++;
        }
    for (int c = 0; c < 3; c++) rgb[c] = s[c] / n; /* B, G, R */
    return true;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void track_margin_scan(const gs_image *img, const vision_grid *g, track_margin_view *out)
{
    memset(out, 0, sizeof *out);
    if (!img || !img->buf || !g || g->size < 2) return;
    int size = g->size, m = per_side(size);
    out->valid = true;
    for (int side = 0; side < 4; side++) {
        double lum[2 * GS_MAX_SIZE + 1], yel[2 * GS_MAX_SIZE + 1], t[2 * GS_MAX_SIZE + 1], u[2 * GS_MAX_SIZE + 1],
            v[2 * GS_MAX_SIZE + 1];
        bool ok[2 * GS_MAX_SIZE + 1];
        double sl[2 * GS_MAX_SIZE + 1], sy[2 * GS_MAX_SIZE + 1];
        int nok = 0;
        for (int k = 0; k < m; k++) {
            double rgb[3];
            spot(size, side, k, &u[k], &v[k], &t[k]);
            ok[k] = patch(img, g, u[k], v[k], rgb);
            if (!ok[k]) continue;
            lum[k] = 0.114 * rgb[0] + 0.587 * rgb[1] + 0.299 * rgb[2];
            yel[k] = rgb[2] - rgb[0]; /* wood is much redder than blue; stones are grey */
            sl[nok] = lum[k];
            sy[nok] = yel[k];
            nok++;
        }
        if (nok < m / 2) { out->valid = false; continue; }
        /* the side's wood: the median (most of the margin is bare) */
        qsort(sl, (size_t)nok, sizeof sl[0], cmp_double);
        qsort(sy, (size_t)nok, sizeof sy[0], cmp_double);
        double wl = sl[nok / 2], wy = sy[nok / 2];
        gs_color cls[2 * GS_MAX_SIZE + 1];
        for (int k = 0; k < m; k++) {
            cls[k] = GS_EMPTY;
            if (!ok[k]) continue;
            if (lum[k] < 0.55 * wl && lum[k] < 110) cls[k] = GS_BLACK;
            else if (lum[k] > 1.08 * wl && yel[k] < 0.45 * wy && wy > 15) cls[k] = GS_WHITE;
        }
        /* runs of one colour: a stone covers one to three half-cell spots */
        for (int k = 0; k < m;) {
            if (cls[k] == GS_EMPTY) { k++; continue; }
            int e = k;
            while (e + 1 < m && cls[e + 1] == cls[k]) e++;
            int len = e - k + 1;
            if (len <= 3 && out->n < TRACK_MARGIN_MAX) {
                track_margin_stone *s = &out->stones[out->n++];
                int c = (k + e) / 2;
                s->color = cls[k];
                s->side = (track_margin_side)side;
                s->u = (u[k] + u[e]) / 2;
                s->v = (v[k] + v[e]) / 2;
                double tc = (t[k] + t[e]) / 2;
                s->corner = tc <= 1.0 || tc >= size - 2.0;
                (void)c;
                /* corners in vision_grid order: 0 (0,0), 1 (n-1,0), 2 (n-1,n-1), 3 (0,n-1) */
                bool near_start = tc < (size - 1) / 2.0;
                s->corner_index = near_start ? side : (side + 1) % 4;
            }
            k = e + 1;
        }
    }
    /* a stone by a corner is seen from both of its edges: keep it once */
    int w = 0;
    for (int i = 0; i < out->n; i++) {
        bool dup = false;
        for (int j = 0; j < w && !dup; j++)
            dup = out->stones[j].color == out->stones[i].color &&
                  hypot(out->stones[j].u - out->stones[i].u, out->stones[j].v - out->stones[i].v) < 1.0;
        if (!dup) out->stones[w++] = out->stones[i];
    }
    out->n = w;
}

void track_margin_view_drop_beside(track_margin_view *m, const gs_position *board)
{
    if (!m || !board || board->size < 2) return;
    int n = board->size, w = 0;
    for (int i = 0; i < m->n; i++) {
        const track_margin_stone *s = &m->stones[i];
        /* the edge points within 0.6 cell along the edge of its centre */
        bool horiz = s->side == TRACK_MARGIN_TOP || s->side == TRACK_MARGIN_BOTTOM;
        double along = horiz ? s->u : s->v;
        int fixed = s->side == TRACK_MARGIN_TOP || s->side == TRACK_MARGIN_LEFT ? 0 : n - 1;
        bool beside = false;
        for (int k = (int)ceil(along - 0.6); k <= (int)floor(along + 0.6) && !beside; k++) {
            if (k < 0 || k >= n) continue;
            gs_color c = horiz ? gs_position_get(board, k, fixed) : gs_position_get(board, fixed, k);
            beside = c == s->color;
        }
        if (!beside) m->stones[w++] = *s;
    }
    m->n = w;
}

const char *track_margin_place_name(const track_margin_stone *s)
{
    static const char *const sides[] = {"top edge", "right edge", "bottom edge", "left edge"};
    static const char *const corners[] = {"top-left corner", "top-right corner", "bottom-right corner",
                                          "bottom-left corner"};
    if (s->corner) return corners[s->corner_index & 3];
    return sides[s->side & 3];
}
