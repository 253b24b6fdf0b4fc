/* track/margin.c: stones on the margin outside the lines (see track.h).
 *
 * Per side of the board: first where the board's edge is (the margin's
 * wood, just outside the outer line, followed outwards until the colour
 * turns to something else for good, the median over the side), then
 * stones in the band between the outer line and that edge: samples much
 * darker than the side's wood (black) or brighter and greyer (white),
 * grouped into blobs that must be the size of a stone along the edge and
 * must not go on beyond the edge (an object on the table seen leaning over
 * the margin does). */
#include "track/track.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the tracker's change-detection spots: half a cell outside the outer
 * line, every half cell, from half a cell before the first line to half a
 * cell after the last */
#define MG_OUT 0.5
static int per_side(int size) { return 2 * size + 1; }

int track_margin_spot_count(int size) { return 4 * per_side(size); }

/* Board point (u, v) at position t along side `side` (0 at the side's
 * first corner in vision_grid order, growing clockwise) and d cells
 * outside its outer line. */
static void side_point(int size, int side, double t, double d, double *u, double *v)
{
    double lo = -d, hi = size - 1 + d;
    switch (side) {
    case TRACK_MARGIN_TOP: *u = t; *v = lo; break;
    case TRACK_MARGIN_RIGHT: *u = hi; *v = t; break;
    case TRACK_MARGIN_BOTTOM: *u = size - 1 - t; *v = hi; break;
    default: *u = lo; *v = size - 1 - t; break;
    }
}

void track_margin_spots(int size, double *u, double *v)
{
    int m = per_side(size);
    for (int s = 0; s < 4; s++)
        for (int k = 0; k < m; k++) side_point(size, s, -0.5 + 0.5 * k, MG_OUT, &u[s * m + k], &v[s * m + k]);
}

/* mean BGR of a small patch (a fifth of a cell) around board point (u, v),
 * moved by (ox, oy) pixels (see band_lift); false when it leaves the
 * picture */
static bool patch_at(const gs_image *img, const vision_grid *g, double u, double v, double ox, double oy, double rgb[3])
{
    double s[3] = {0, 0, 0};
    int n = 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            double x, y;
            vision_grid_map(g, u + dx * 0.07, v + dy * 0.07, &x, &y);
            x += ox;
            y += oy;
            gs_pix p;
            if (!gs_pixel_nearest(img, x, y, &p)) return false;
            s[0] += p.b;
            s[1] += p.g;
            s[2] += p.r;
            n++;
        }
    for (int c = 0; c < 3; c++) s[c] /= n;
    memcpy(rgb, s, sizeof s); /* B, G, R */
    return true;
}

static bool patch(const gs_image *img, const vision_grid *g, double u, double v, double rgb[3])
{
    return patch_at(img, g, u, v, 0, 0, rgb);
}

/* Where a stone standing at depth d (cells out) of position t along a
 * side is seen, as pixels from the board point: the middle of its body
 * (VISION_STONE_H), which in an oblique view stands over the point towards
 * the far side, so that a stone's lit body is read and not its shaded
 * foot.  The move outwards stops at depth cap (the board's edge): what
 * is seen beyond the edge is the table unless a stone is there. */
static void band_lift(const vision_grid *g, const vision_cam *cam, int side, double t, double d, double cap,
                      double *ox, double *oy)
{
    *ox = *oy = 0;
    if (!cam || !cam->ok) return;
    double u, v, u1, v1, x0, y0, x1, y1, lx, ly;
    side_point(g->size, side, t, d, &u, &v);
    side_point(g->size, side, t, d + 0.1, &u1, &v1);
    vision_cam_offset(cam, u, v, VISION_STONE_H, &lx, &ly);
    vision_grid_map(g, u, v, &x0, &y0);
    vision_grid_map(g, u1, v1, &x1, &y1);
    double ex = (x1 - x0) / 0.1, ey = (y1 - y0) / 0.1, e2 = ex * ex + ey * ey;
    double out = e2 > 1e-9 ? (lx * ex + ly * ey) / e2 : 0; /* cells outwards */
    double s = out > 0 && d + out > cap ? fmax(0, cap - d) / out : 1;
    *ox = lx * s;
    *oy = ly * s;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *a, int n)
{
    if (n <= 0) return 0;
    qsort(a, (size_t)n, sizeof a[0], cmp_double);
    return a[n / 2];
}

/* ------------------------------------------------------------ the edge */

/* Offsets (cells outside the outer line) the edge is looked for at: from
 * MG_D0 every MG_DSTEP, MG_ND of them (to 2 cells: a margin is about one
 * cell, RULES.md) */
#define MG_D0 0.2
#define MG_DSTEP 0.05
#define MG_ND 37
/* the far end (the last MG_NFAR offsets) is what lies beyond the board */
#define MG_NFAR 6
/* when wood and what lies beyond differ by less than this, the edge cannot
 * be seen: taken a cell out (a margin of the rules' size) */
#define MG_CONTRAST_MIN 30.0
#define MG_EDGE_UNSEEN 1.0

/* Colour difference: the channels, and the yellowness (red minus blue)
 * counted once more: a pale board on a beige table differs mostly there. */
static double colour_dist(const double a[3], const double b[3])
{
    return fabs(a[0] - b[0]) + fabs(a[1] - b[1]) + fabs(a[2] - b[2]) + fabs((a[2] - a[0]) - (b[2] - b[0]));
}

/* The side's median colour at each offset (over the points along it but
 * the corner ones: a few stones or objects do not move a median), as far
 * out as most of the side is in the picture; returns how many offsets. */
static int side_profile(const gs_image *img, const vision_grid *g, int side, double prof[MG_ND][3])
{
    int n = g->size;
    for (int j = 0; j < MG_ND; j++) {
        double w[3][GS_MAX_SIZE];
        int nw = 0;
        for (int k = 1; k < n - 1; k++) {
            double u, v, c[3];
            side_point(n, side, k, MG_D0 + MG_DSTEP * j, &u, &v);
            if (!patch(img, g, u, v, c)) continue;
            for (int ch = 0; ch < 3; ch++) w[ch][nw] = c[ch];
            nw++;
        }
        if (nw == 0 || nw < (n - 2) / 2) return j;
        for (int ch = 0; ch < 3; ch++) prof[j][ch] = median(w[ch], nw);
    }
    return MG_ND;
}

/* The wood of a side: the median colour of the centres of its two outer
 * rows of cells (stones lie on the points, not there), at positions
 * [k0, k1) along it, into wood; false when too few are in the picture. */
static bool inside_wood(const gs_image *img, const vision_grid *g, int side, int k0, int k1, double wood[3])
{
    int n = g->size, nw = 0;
    double w[3][2 * GS_MAX_SIZE];
    for (int k = k0 < 0 ? 0 : k0; k < k1 && k < n - 1; k++)
        for (int row = 0; row < 2; row++) {
            double u, v, c[3];
            side_point(n, side, k + 0.5, -0.5 - row, &u, &v);
            if (!patch(img, g, u, v, c)) continue;
            for (int ch = 0; ch < 3; ch++) w[ch][nw] = c[ch];
            nw++;
        }
    if (nw < 4) return false;
    for (int ch = 0; ch < 3; ch++) wood[ch] = median(w[ch], nw);
    return true;
}

/* The side's wood and where the board's edge is: what lies beyond is the
 * side's colour at the far offsets; the edge lies just beyond the outermost
 * offset still like the wood (two in a row): stones on the first line
 * leaning out over the margin come before it, the board's side face and
 * the table after.  Returns the edge (cells outside the outer line), 0 when
 * the side is not in the picture; where the picture ends before the edge
 * shows, the band ends there. */
static double find_edge(const gs_image *img, const vision_grid *g, int side, double wood[3], double far[3])
{
    double prof[MG_ND][3];
    int nd = side_profile(img, g, side, prof);
    if (nd < 4 || !inside_wood(img, g, side, 0, g->size, wood)) return 0;
    int nfar = nd / 3 < MG_NFAR ? nd / 3 : MG_NFAR;
    for (int ch = 0; ch < 3; ch++) {
        double f[MG_NFAR];
        for (int j = 0; j < nfar; j++) f[j] = prof[nd - 1 - j][ch];
        far[ch] = median(f, nfar);
    }
    double last = MG_D0 + MG_DSTEP * (nd - 1);
    double contrast = colour_dist(wood, far);
    if (contrast < MG_CONTRAST_MIN) return fmin(MG_EDGE_UNSEEN, last);
    for (int j = nd - 1; j >= 1; j--)
        if (colour_dist(prof[j], wood) < contrast / 2 && colour_dist(prof[j - 1], wood) < contrast / 2)
            return j == nd - 1 ? last : MG_D0 + MG_DSTEP * (j + 0.5); /* half way to the first sample beyond */
    return MG_D0;
}

/* ----------------------------------------------------------- the stones */

/* Sample grid of a side's band: along every quarter cell, across at
 * MG_NB depths from MG_B0 to the edge, plus MG_NBEYOND depths beyond it. */
#define MG_ALONG(size) (4 * (size) + 5)
/* the first sample along: a cell before the side's first line (the corner
 * square outside both lines, where a confirmation stone is put) */
#define MG_T0 (-1.0)
#define MG_B0 0.3
#define MG_NB 6
#define MG_NBEYOND 2
#define MG_MAXA (4 * GS_MAX_SIZE + 5)
/* a run along the band this long (cells) is a stone: a stone is about
 * 0.95 cell across, a sleeve or a bowl much more */
#define MG_STONE_MIN 0.5
#define MG_STONE_MAX 1.4
/* a run longer than a stone is looked at as stones side by side up to
 * this length (cells): three stones */
#define MG_SPLIT_MAX 3.0
/* ... cut where it is thinner across the band by this many depths (of
 * MG_NB) than on either side: where two round stones touch */
#define MG_WAIST 2

/* band.ref_col of a position the reference view did not show */
#define MG_REF_UNSEEN 0xff

/* A side's samples classified: stone colour (GS_EMPTY: wood or else);
 * beyond the edge, a stone colour only where it is unlike the table just
 * beyond the edge and more like the band there (like_band). */
typedef struct band {
    int na;                               /* along */
    double depth[MG_NB + MG_NBEYOND];     /* cells outside the line */
    int nd;                               /* depths in the band */
    uint8_t cls[MG_NB + MG_NBEYOND][MG_MAXA];
    int kfirst, klast;                    /* the positions along sampled
                                             first and last (the board ends
                                             there, in the corner squares) */
    /* against the reference view (the first clear one), when given: the
     * band's colour there at each position, and whether each sample
     * beyond the edge shows what it showed then */
    bool have_ref;
    uint8_t ref_col[MG_MAXA]; /* a gs_color, or MG_REF_UNSEEN */
    bool ref_same[MG_NBEYOND][MG_MAXA];
} band;

/* beyond the edge, a colour this far from the table's is something on it */
#define MG_TABLE_DIFF 40.0

/* Black: much darker than the wood; white: clearly brighter and greyer
 * (wood is much redder than blue for its brightness; stones are grey,
 * under warm light too). */
static gs_color stone_colour(const double c[3], const double wood[3])
{
    double lum = 0.114 * c[0] + 0.587 * c[1] + 0.299 * c[2];
    double wl = 0.114 * wood[0] + 0.587 * wood[1] + 0.299 * wood[2];
    double yel = c[2] - c[0], wy = wood[2] - wood[0];
    if (lum < 0.55 * wl && lum < 110) return GS_BLACK;
    if (lum > 1.15 * wl && wy > 15 && yel / lum < 0.6 * wy / wl) return GS_WHITE;
    return GS_EMPTY;
}

/* The wood along the side, position by position: the wood of the cells
 * within three cells either way (light falls off along a side). */
#define MG_WOOD_HALF 3
static void local_wood(const gs_image *img, const vision_grid *g, int side, int na, const double side_wood[3],
                       double (*wood)[3])
{
    for (int k = 0; k < na; k++) {
        int t = (int)floor(MG_T0 + 0.25 * k);
        if (!inside_wood(img, g, side, t - MG_WOOD_HALF, t + MG_WOOD_HALF + 1, wood[k]))
            memcpy(wood[k], side_wood, sizeof wood[k]);
    }
}

/* What lies just beyond the edge at one of the beyond depths: the median
 * along the side (a stone or two do not move it), else the far colour.
 * Not the far colour alone: a paper or a bowl a little further out, or the
 * board's own shaded side face, is not what a stone there would lean over. */
static void beyond_table(const band *b, const double (*col)[3], const bool *ok, const double far[3], double out[3])
{
    double w[3][MG_MAXA];
    int nw = 0;
    /* positions along the side proper: 4 per cell from MG_T0 */
    for (int k = 4; k < b->na - 4; k++) {
        if (!ok[k]) continue;
        for (int ch = 0; ch < 3; ch++) w[ch][nw] = col[k][ch];
        nw++;
    }
    if (nw < (b->na - 8) / 2) {
        memcpy(out, far, 3 * sizeof out[0]);
        return;
    }
    for (int ch = 0; ch < 3; ch++) out[ch] = median(w[ch], nw);
}

/* Whether the sample at beyond depth j of position k (classed a stone's
 * colour) goes on from the band: unlike what lies beyond there, and
 * nearer the colour the band shows at k in that class than that (a dark
 * table beside a black stone, or a stone's light rim, is the table). */
static bool like_band(const band *b, const double (*col)[MG_MAXA][3], int k, int j, const double near[3])
{
    const double *c = col[j][k];
    double dn = colour_dist(c, near);
    if (dn < MG_TABLE_DIFF) return false;
    double in[3] = {0, 0, 0};
    int n = 0;
    for (int d = 0; d < b->nd; d++) {
        if (b->cls[d][k] != b->cls[j][k]) continue;
        for (int ch = 0; ch < 3; ch++) in[ch] += col[d][k][ch];
        n++;
    }
    if (n == 0) return true; /* no band colour to compare with: unlike the table is enough */
    for (int ch = 0; ch < 3; ch++) in[ch] /= n;
    return colour_dist(c, in) < dn;
}

/* The band in the reference view at the same board points: its colour
 * at each position along (by the reference's own wood), and whether each
 * sample beyond the edge looks as it did then. */
static void sample_ref(const track_margin_ref *ref, int side, const double (*col)[MG_MAXA][3],
                       const bool (*ok)[MG_MAXA], band *b)
{
    const vision_grid *g = &ref->grid;
    int n = g->size;
    double wood[MG_MAXA][3], side_wood[3];
    vision_cam cam;
    vision_cam_fit(&cam, g->H, ref->img->width, ref->img->height);
    if (!inside_wood(ref->img, g, side, 0, n, side_wood)) {
        b->have_ref = false;
        return;
    }
    local_wood(ref->img, g, side, b->na, side_wood, wood);
    for (int k = 0; k < b->na; k++) {
        double t = MG_T0 + 0.25 * k, u, v, c[3];
        int cnt[3] = {0, 0, 0}, seen = 0;
        for (int j = 0; j < b->nd; j++) {
            side_point(n, side, t, b->depth[j], &u, &v);
            double ox, oy;
            band_lift(g, &cam, side, t, b->depth[j], b->depth[b->nd - 1], &ox, &oy);
            if (!patch_at(ref->img, g, u, v, ox, oy, c)) continue;
            cnt[stone_colour(c, wood[k])]++;
            seen++;
        }
        /* unseen then: no claim made (MG_REF_UNSEEN); a colour at half
         * the depths or more, as column_colour counts a stone's column */
        b->ref_col[k] = seen == 0                   ? MG_REF_UNSEEN
                        : cnt[GS_BLACK] * 2 >= seen ? GS_BLACK
                        : cnt[GS_WHITE] * 2 >= seen ? GS_WHITE
                                                    : GS_EMPTY;
        for (int j = 0; j < MG_NBEYOND; j++) {
            int jj = b->nd + j;
            side_point(n, side, t, b->depth[jj], &u, &v);
            b->ref_same[j][k] = ok[jj][k] && patch(ref->img, g, u, v, c) && colour_dist(col[jj][k], c) < MG_TABLE_DIFF;
        }
    }
}

/* Classifies the band of one side (edge: cells from the line to the
 * board's edge). */
static void sample_band(const gs_image *img, const vision_grid *g, const vision_cam *cam, const track_margin_ref *ref,
                        int side, const double edges[4], const double side_wood[3], const double table[3], band *b)
{
    double edge = edges[side];
    /* along: into the corner squares only as far as the sides before and
     * after have board (beyond is the table) */
    double tlo = -edges[(side + 3) % 4] + 0.1, thi = g->size - 1 + edges[(side + 1) % 4] - 0.1;
    int n = g->size;
    b->na = MG_ALONG(n);
    double hi = edge - 0.05;
    b->nd = hi <= MG_B0 ? 1 : MG_NB;
    for (int j = 0; j < b->nd; j++) b->depth[j] = b->nd == 1 ? fmin(MG_B0, edge) : MG_B0 + (hi - MG_B0) * j / (MG_NB - 1);
    /* beyond the edge: a stone lying on the margin may overhang it by a
     * quarter cell, and lean out by its height seen obliquely (up to half a
     * cell); an object on the table goes on much further */
    for (int j = 0; j < MG_NBEYOND; j++) b->depth[b->nd + j] = edge + 0.8 + 0.2 * j;
    static const int nall = MG_NB + MG_NBEYOND;
    double col[MG_NB + MG_NBEYOND][MG_MAXA][3], wood[MG_MAXA][3];
    bool ok[MG_NB + MG_NBEYOND][MG_MAXA];
    for (int j = 0; j < b->nd + MG_NBEYOND && j < nall; j++)
        for (int k = 0; k < b->na; k++) {
            double u, v;
            double t = MG_T0 + 0.25 * k;
            side_point(n, side, t, b->depth[j], &u, &v);
            double ox = 0, oy = 0;
            if (j < b->nd) band_lift(g, cam, side, t, b->depth[j], hi, &ox, &oy);
            ok[j][k] = t >= tlo && t <= thi && patch_at(img, g, u, v, ox, oy, col[j][k]);
        }
    b->kfirst = (int)ceil((tlo - MG_T0) / 0.25);
    b->klast = (int)floor((thi - MG_T0) / 0.25);
    local_wood(img, g, side, b->na, side_wood, wood);
    double near[MG_NBEYOND][3];
    for (int j = 0; j < MG_NBEYOND; j++) beyond_table(b, col[b->nd + j], ok[b->nd + j], table, near[j]);
    for (int j = 0; j < b->nd + MG_NBEYOND; j++)
        for (int k = 0; k < b->na; k++) {
            b->cls[j][k] = ok[j][k] ? (uint8_t)stone_colour(col[j][k], wood[k]) : GS_EMPTY;
        }
    for (int k = 0; k < b->na; k++)
        for (int j = b->nd; j < b->nd + MG_NBEYOND; j++)
            if (b->cls[j][k] != GS_EMPTY && !like_band(b, col, k, j, near[j - b->nd])) b->cls[j][k] = GS_EMPTY;
    b->have_ref = ref && ref->img && ref->img->buf && ref->grid.size == n;
    if (b->have_ref) sample_ref(ref, side, (const double(*)[MG_MAXA][3])col, ok, b);
}

/* The colour of position k across the band: the colour most of its band
 * depths show (GS_EMPTY when none does). */
static gs_color column_colour(const band *b, int k)
{
    int cnt[3] = {0, 0, 0};
    for (int j = 0; j < b->nd; j++) cnt[b->cls[j][k]]++;
    int need = b->nd == 1 ? 1 : (b->nd + 1) / 2;
    return cnt[GS_BLACK] >= need ? GS_BLACK : cnt[GS_WHITE] >= need ? GS_WHITE : GS_EMPTY;
}

/* A blob of positions k0..k1 of colour c that goes on beyond the edge over
 * most of its length: something on the table, not a stone on the margin. */
static bool goes_beyond(const band *b, int k0, int k1, gs_color c)
{
    int beyond = 0;
    for (int k = k0; k <= k1; k++)
        for (int j = b->nd; j < b->nd + MG_NBEYOND; j++) {
            /* what lies there lay there already beside bare wood in the
             * reference view: not part of this blob (a paper's shadow, the
             * board's side face, a dark table) */
            bool was_there = b->have_ref && b->ref_col[k] == GS_EMPTY && b->ref_same[j - b->nd][k];
            beyond += b->cls[j][k] == c && !was_there;
        }
    return beyond * 2 > (k1 - k0 + 1);
}

/* A run k0..k1 of colour c that the reference view showed there already
 * over most of its length: an object lying there from the start (a stone
 * on the table that the band takes in where the edge is found too far
 * out), not a stone put on the margin since. */
static bool in_reference(const band *b, int k0, int k1, gs_color c)
{
    if (!b->have_ref) return false;
    int same = 0;
    for (int k = k0; k <= k1; k++) same += b->ref_col[k] == c;
    return same * 2 > (k1 - k0 + 1);
}

static void add_stone(track_margin_view *out, int size, int side, gs_color c, double t, double depth)
{
    if (out->n >= TRACK_MARGIN_MAX) return;
    track_margin_stone *s = &out->stones[out->n++];
    s->color = c;
    s->side = (track_margin_side)side;
    side_point(size, side, t, depth, &s->u, &s->v);
    s->corner = t <= 1.0 || t >= size - 2.0;
    /* corners in vision_grid order: 0 (0,0), 1 (n-1,0), 2 (n-1,n-1), 3 (0,n-1) */
    s->corner_index = t < (size - 1) / 2.0 ? side : (side + 1) % 4;
}

/* How many of position k's band depths show colour c: a stone is round,
 * thickest across the band at its centre. */
static int column_count(const band *b, int k, gs_color c)
{
    int cnt = 0;
    for (int j = 0; j < b->nd; j++) cnt += b->cls[j][k] == c;
    return cnt;
}

/* A run too short for a stone where a side's band ends in a corner square
 * (the board's corner cuts a stone lying there): a stone there when the
 * other side's band shows one of its colour there too. */
typedef struct corner_cut {
    bool have;
    gs_color color;
    double t, depth;
} corner_cut;

/* how far beyond the outer lines along (cells) a run lies in a corner
 * square (past a stone on the corner point leaning out: its centre is on
 * the line), unless it reaches the end of the band there */
#define MG_CORNER_IN 0.35

/* One run k0..k1 of colour c the size of a stone, not going on beyond the
 * edge: a stone there; one too short for a stone in the corner square at
 * the start or the end of the side goes to cut[0] or cut[1]. */
static void run_stone(const band *b, int size, int side, gs_color c, int k0, int k1, track_margin_view *out,
                      corner_cut cut[2])
{
    double len = 0.25 * (k1 - k0 + 1);
    if (len > MG_STONE_MAX || goes_beyond(b, k0, k1, c) || in_reference(b, k0, k1, c)) return;
    /* its depth: the middle of the band depths that show it */
    double dsum = 0;
    int dn = 0;
    for (int j = 0; j < b->nd; j++)
        if (b->cls[j][(k0 + k1) / 2] == c) {
            dsum += b->depth[j];
            dn++;
        }
    double t = MG_T0 + 0.25 * (k0 + k1) / 2.0, depth = dn ? dsum / dn : b->depth[0];
    if (len >= MG_STONE_MIN) add_stone(out, size, side, c, t, depth);
    else if (t <= -MG_CORNER_IN || k0 <= b->kfirst) cut[0] = (corner_cut){true, c, t, depth};
    else if (t >= size - 1 + MG_CORNER_IN || k1 >= b->klast) cut[1] = (corner_cut){true, c, t, depth};
}

/* The most central position strictly inside k0..k1 where the run is
 * thinnest across the band, when it is thinner there by MG_WAIST depths
 * than the thickest position on either side of it (two round stones
 * touching); -1 when none is. */
static int run_waist(const band *b, int k0, int k1, gs_color c)
{
    int cnt[MG_MAXA], best = -1;
    for (int q = k0; q <= k1; q++) cnt[q - k0] = column_count(b, q, c);
    for (int q = k0 + 1; q < k1; q++)
        if (best < 0 || cnt[q - k0] < cnt[best - k0] ||
            (cnt[q - k0] == cnt[best - k0] && abs(2 * q - k0 - k1) < abs(2 * best - k0 - k1)))
            best = q;
    if (best < 0) return -1;
    int left = 0, right = 0;
    for (int q = k0; q < best; q++) left = cnt[q - k0] > left ? cnt[q - k0] : left;
    for (int q = best + 1; q <= k1; q++) right = cnt[q - k0] > right ? cnt[q - k0] : right;
    return cnt[best - k0] + MG_WAIST <= left && cnt[best - k0] + MG_WAIST <= right ? best : -1;
}

/* The stones of run k0..k1 of colour c: one when it is the size of a
 * stone; stones put side by side (two resigning) make one longer run with
 * a waist where they touch: a run of up to three stones' length that does
 * not go on beyond the edge is cut there (a sleeve or a cable is about as
 * thick all along). */
static void run_stones(const band *b, int size, int side, gs_color c, int k0, int k1, track_margin_view *out,
                       corner_cut cut[2])
{
    double len = 0.25 * (k1 - k0 + 1);
    int w = len > MG_STONE_MAX && len <= MG_SPLIT_MAX && !goes_beyond(b, k0, k1, c) ? run_waist(b, k0, k1, c) : -1;
    if (w < 0) {
        run_stone(b, size, side, c, k0, k1, out, cut);
        return;
    }
    run_stones(b, size, side, c, k0, w - 1, out, cut);
    run_stones(b, size, side, c, w + 1, k1, out, cut);
}

/* The stones of one side's band: runs along the edge of one colour the
 * size of a stone (half a cell to 1.4 cells: a stone is about 0.95 cell
 * across, a sleeve or a bowl much more), not going on beyond the edge. */
static void side_stones(const band *b, int size, int side, track_margin_view *out, corner_cut cut[2])
{
    for (int k = 0; k < b->na;) {
        gs_color c = column_colour(b, k);
        if (c == GS_EMPTY) { k++; continue; }
        int e = k;
        while (e + 1 < b->na && column_colour(b, e + 1) == c) e++;
        run_stones(b, size, side, c, k, e, out, cut);
        k = e + 1;
    }
}

/* The stones in the corner squares that both sides' bands show cut short
 * there: corner c is at the start of side c and the end of side c - 1. */
static void corner_stones(int size, corner_cut cut[4][2], track_margin_view *out)
{
    for (int c = 0; c < 4; c++) {
        const corner_cut *a = &cut[c][0], *p = &cut[(c + 3) % 4][1];
        if (a->have && p->have && a->color == p->color) add_stone(out, size, c, a->color, a->t, a->depth);
    }
}

/* The lower-right corner of a player sitting at each side, from the
 * picture: facing the board from side s, the corner of that side to the
 * right (the picture is the board seen from above: not mirrored). */
static void right_corners(const vision_grid *g, int right[4])
{
    double c[4][2], m[2] = {0, 0};
    int n = g->size - 1;
    const double cu[4] = {0, n, n, 0}, cv[4] = {0, 0, n, n};
    for (int i = 0; i < 4; i++) {
        vision_grid_map(g, cu[i], cv[i], &c[i][0], &c[i][1]);
        m[0] += c[i][0] / 4;
        m[1] += c[i][1] / 4;
    }
    for (int s = 0; s < 4; s++) {
        int a = s, b = (s + 1) % 4; /* the side's corners */
        double mx = (c[a][0] + c[b][0]) / 2, my = (c[a][1] + c[b][1]) / 2;
        double fx = m[0] - mx, fy = m[1] - my;     /* facing the board */
        double rx = -fy, ry = fx;                  /* to the right (image y down) */
        double da = (c[a][0] - mx) * rx + (c[a][1] - my) * ry;
        right[s] = da > 0 ? a : b;
    }
}

void track_margin_scan(const gs_image *img, const vision_grid *g, const track_margin_ref *ref,
                       track_margin_view *out)
{
    memset(out, 0, sizeof *out);
    if (!img || !img->buf || !g || g->size < 2 || g->size > GS_MAX_SIZE) return;
    int size = g->size;
    right_corners(g, out->right_corner);
    vision_cam cam;
    vision_cam_fit(&cam, g->H, img->width, img->height);
    double wood[4][3], table[4][3];
    corner_cut cut[4][2];
    memset(cut, 0, sizeof cut);
    for (int side = 0; side < 4; side++) out->edge[side] = find_edge(img, g, side, wood[side], table[side]);
    for (int side = 0; side < 4; side++) {
        if (out->edge[side] <= 0) continue; /* that side is not in the picture */
        out->valid = true;
        band b;
        sample_band(img, g, &cam, ref, side, out->edge, wood[side], table[side], &b);
        side_stones(&b, size, side, out, cut[side]);
    }
    corner_stones(size, cut, out);
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

/* The edge point beside margin stone s (along its side, within 0.6 cell)
 * holding a stone of its colour, -1 when none; *corner_only when the only
 * such point is the corner point and s lies in the corner square. */
static int beside_point(const track_margin_stone *s, const gs_position *board, bool *corner_only)
{
    int n = board->size, found = -1, nfound = 0;
    bool horiz = s->side == TRACK_MARGIN_TOP || s->side == TRACK_MARGIN_BOTTOM;
    double along = horiz ? s->u : s->v;
    int fixed = s->side == TRACK_MARGIN_TOP || s->side == TRACK_MARGIN_LEFT ? 0 : n - 1;
    for (int k = (int)ceil(along - 0.6); k <= (int)floor(along + 0.6); k++) {
        if (k < 0 || k >= n) continue;
        int x = horiz ? k : fixed, y = horiz ? fixed : k;
        if (gs_position_get(board, x, y) != s->color) continue;
        if (found < 0) found = y * n + x;
        nfound++;
    }
    bool in_square = along < -0.2 || along > n - 1 + 0.2;
    int fx = found % n, fy = found / n;
    *corner_only = found >= 0 && nfound == 1 && in_square && (fx == 0 || fx == n - 1) && (fy == 0 || fy == n - 1);
    return found;
}

void track_margin_view_drop_beside(track_margin_view *m, const gs_position *board, const gs_position *before)
{
    if (!m || !board || board->size < 2) return;
    int w = 0;
    for (int i = 0; i < m->n; i++) {
        const track_margin_stone *s = &m->stones[i];
        bool corner_only;
        int p = beside_point(s, board, &corner_only);
        /* a stone in the corner square by a corner stone that was already
         * there: that stone's lean was seen then, this one is new */
        bool keep = p < 0 || (corner_only && before && before->size == board->size && before->cell[p] == s->color);
        if (keep) m->stones[w++] = *s;
    }
    m->n = w;
}

/* A lean seen again lies where it was within this (cells: the scan's
 * quarter-cell steps along, some jitter across); a stone put down beside
 * it makes one blob with it, centred elsewhere. */
#define MG_LEAN_SAME 0.3
/* A stone on the outer line leans out over the band's inner half only (by
 * its height seen obliquely: the blob's middle under half a cell out); a
 * stone lying on the margin covers the band out to the edge (its middle
 * past this, cells outside the line) */
#define MG_LEAN_DEPTH 0.55

bool track_margin_stone_new_beside(const track_margin_stone *s, const gs_position *board, const gs_position *before,
                                   const track_margin_view *prev)
{
    if (!s || !board || !before || !prev || before->size != board->size || board->size < 2) return false;
    int n = board->size;
    bool horiz = s->side == TRACK_MARGIN_TOP || s->side == TRACK_MARGIN_BOTTOM;
    double along = horiz ? s->u : s->v;
    int fixed = s->side == TRACK_MARGIN_TOP || s->side == TRACK_MARGIN_LEFT ? 0 : n - 1;
    int old = 0;
    for (int k = (int)ceil(along - 0.6); k <= (int)floor(along + 0.6); k++) {
        if (k < 0 || k >= n) continue;
        int p = (horiz ? fixed : k) * n + (horiz ? k : fixed);
        if (board->cell[p] != s->color) continue;
        if (before->cell[p] != s->color) return false; /* a stone new on the line: this may be its lean */
        old++;
    }
    if (old == 0) return false;
    double depth = s->side == TRACK_MARGIN_TOP ? -s->v : s->side == TRACK_MARGIN_RIGHT ? s->u - (n - 1)
                 : s->side == TRACK_MARGIN_BOTTOM ? s->v - (n - 1) : -s->u;
    if (depth < MG_LEAN_DEPTH) return false;
    for (int i = 0; i < prev->n; i++)
        if (prev->stones[i].color == s->color && hypot(prev->stones[i].u - s->u, prev->stones[i].v - s->v) < MG_LEAN_SAME)
            return false; /* seen there before: the old stone's lean */
    return true;
}

/* ---------------------------------------------- stones on the outer line */

static double luma(const double c[3]) { return gs_luma601(c[0], c[1], c[2]); }

/* Wood, or wood in a shadow: not much darker, and as yellow for its
 * brightness (a shadow darkens every channel alike); a stone is black, or
 * grey (a white one's side in the shade too). */
static bool wood_like(const double c[3], const double wood[3])
{
    double lum = luma(c), wl = luma(wood);
    if (lum < 0.55 * wl) return false;
    return (c[2] - c[0]) / fmax(lum, 1) >= 0.7 * (wood[2] - wood[0]) / wl;
}

/* A stone on the outer line is centred on it: half of it lies inside the
 * line, over the board.  Something in the margin band (a stone put there,
 * a fingertip's shadow) can reach the edge point's reading but not the
 * board inside the line: looked at a sixth and a quarter of a cell inside,
 * a fifth of a cell either side of the line through the point (off the
 * grid lines), on the top face of a stone on the point even when it leans
 * out by its height; a stone lying more than half a cell out, leaning in,
 * does not reach there. */
static bool inside_half_is(const gs_image *img, const vision_grid *g, int side, int t)
{
    double wood[3];
    if (!inside_wood(img, g, side, t - MG_WOOD_HALF, t + MG_WOOD_HALF + 1, wood)) return true; /* cannot tell */
    if (wood[2] - wood[0] < 15 || luma(wood) < 1) return true; /* a grey board: cannot tell */
    static const double depth[2] = {-0.15, -0.25}, lateral[2] = {-0.2, 0.2};
    int seen = 0, like = 0;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            double u, v, col[3];
            side_point(g->size, side, t + lateral[j], depth[i], &u, &v);
            if (!patch(img, g, u, v, col)) continue;
            seen++;
            like += !wood_like(col, wood);
        }
    return seen < 2 || 2 * like >= seen;
}

bool track_margin_on_line(const gs_image *img, const vision_grid *g, int x, int y, gs_color c)
{
    if (!img || !img->buf || !g || c == GS_EMPTY) return true;
    int n = g->size;
    /* the sides the point lies on, and its position along each */
    const bool on[4] = {y == 0, x == n - 1, y == n - 1, x == 0};
    const int along[4] = {x, y, n - 1 - x, n - 1 - y};
    for (int side = 0; side < 4; side++)
        if (on[side] && !inside_half_is(img, g, side, along[side])) return false;
    return true;
}

const char *track_margin_place_name(const track_margin_stone *s)
{
    static const char *const sides[] = {"top edge", "right edge", "bottom edge", "left edge"};
    static const char *const corners[] = {"top-left corner", "top-right corner", "bottom-right corner",
                                          "bottom-left corner"};
    if (s->corner) return corners[s->corner_index & 3];
    return sides[s->side & 3];
}
