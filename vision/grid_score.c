/* vision/grid_score.c: how well one grid hypothesis explains the whole
 * image.
 *
 * On a board, wherever a stretch of line between two intersections is not
 * covered by a stone it shows as a thin dark dip across it; half a cell
 * off the lines there is none; and beyond the outer lines the wood margin
 * shows neither lines nor their continuation.  So for a hypothesis (size
 * n, model board -> working pixels) the score measures, at the board
 * surface:
 *   lines    the fraction of the line stretches (midpoints between
 *            neighbouring intersections) that show a dip;
 *   anti     the same fraction half a cell off, between the lines;
 *   outside  per side of the board, the fraction of stretches of a line
 *            one cell beyond the outer line, or of the lines continuing
 *            past it, that show a dip (the strongest side counts most);
 * total = lines - anti - outside terms.  A dip counts when it is deeper
 * than a level taken from this image (a fraction of the clearly seen
 * lines of the hypothesis itself), so dim, blurred or tinted photos and
 * resolution move the level with the data.  A hypothesis one line short
 * sees a line beyond its edge; one line too many sees no line on its last
 * one; half a cell off sees its anti more than its lines. */
#include "vision/vision_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Profile across a line: from -REACH to +REACH cells in NP steps; the dip
 * must lie within +-CORE cells of the nominal line; averaged over +-ALONG
 * cells along the line (short, so a stretch between two stones still
 * counts). */
#define REACH 0.32
#define CORE 0.12
#define ALONG 0.14
enum { NPROF = 13, NALONG = 3 };

/* The dips of one model (see dips_make below), and what every dip_at
 * of it shares: the profile's sample offsets across and along the line
 * (cells) and the image's bounds, worked out once. */
typedef struct dips {
    const vision_work *w;
    const vision_gmodel *m;
    double across[NPROF], along[NALONG];
    double xmax, ymax; /* a sample lies at x < xmax, y < ymax */
    int lo, hi, nk;
    double *a[4]; /* DIP_H .. DIP_AV */
    double dip_level_min; /* vision_params */
} dips;

static void dip_frame(dips *d, const vision_work *w, const vision_gmodel *m)
{
    d->w = w;
    d->m = m;
    for (int i = 0; i < NPROF; i++) d->across[i] = -REACH + 2 * REACH * i / (NPROF - 1);
    for (int k = 0; k < NALONG; k++) d->along[k] = ALONG * (2.0 * k / (NALONG - 1) - 1);
    d->xmax = w->W - 2;
    d->ymax = w->H - 2;
}

/* Relative depth of the dip at board point (u,v) across a line running
 * along board direction (lu, lv): (brightest within REACH on the darker
 * side - darkest within CORE) / that side's level; -1 when off the image. */
static double dip_at(const dips *f, double u, double v, int along_u)
{
    double prof[NPROF];
    const double xmax = f->xmax, ymax = f->ymax; /* (locals: the map's outputs could alias f's) */
    for (int i = 0; i < NPROF; i++) {
        double d = f->across[i], sum = 0;
        int cnt = 0;
        for (int k = 0; k < NALONG; k++) {
            double t = f->along[k], bu = along_u ? u + t : u + d, bv = along_u ? v + d : v + t;
            double x, y;
            vision_model_map(f->m, bu, bv, &x, &y);
            if (x < 1 || y < 1 || x >= xmax || y >= ymax) return -1;
            sum += gs_sample_grey(f->w->grey, x, y);
            cnt++;
        }
        prof[i] = sum / cnt;
    }
    int c0 = (int)floor((REACH - CORE) / (2 * REACH) * (NPROF - 1)), c1 = NPROF - 1 - c0;
    /* the brightest before and after each sample, once */
    double before[NPROF + 1], after[NPROF + 1];
    before[0] = 0;
    after[NPROF] = 0;
    for (int j = 0; j < NPROF; j++) before[j + 1] = fmax(before[j], prof[j]);
    for (int j = NPROF - 1; j >= 0; j--) after[j] = fmax(after[j + 1], prof[j]);
    double best = 0;
    for (int i = c0; i <= c1; i++) {
        double l = before[i], r = after[i + 1];
        double side = fmin(l, r);
        if (side > 1 && (side - prof[i]) / side > best) best = (side - prof[i]) / side;
    }
    return best;
}

/* The dips of every stretch of a model's extended lattice, line indices
 * lo..hi on both axes: h[k][t] on the line v = k between u = t and t + 1,
 * v[k][t] on the line u = k between v = t and t + 1, ah / av the same half a
 * cell off (v = k + 0.5, u = k + 0.5).  -1 where off the image.  Each is
 * measured when first asked for (DIP_UNSET until then): the score reads
 * only some of them (not the lines past the window's ends), and a dip is
 * the costliest thing here. */
enum { DIP_H, DIP_V, DIP_AH, DIP_AV };
#define DIP_UNSET -2.0

/* The dip of kind `which` at line k, stretch t, measured now. */
static double dip_measure(const dips *d, int which, int k, int t)
{
    double s = t + 0.5;
    if (t == d->hi) return -1; /* no stretch beyond the last index */
    switch (which) {
    case DIP_H: return dip_at(d, s, k, 1);
    case DIP_V: return dip_at(d, k, s, 0);
    case DIP_AH: return k == d->hi ? -1 : dip_at(d, s, k + 0.5, 1);
    default: return k == d->hi ? -1 : dip_at(d, k + 0.5, s, 0);
    }
}

static double dip_get(dips *d, int which, int k, int t)
{
    double *p = &d->a[which][(k - d->lo) * d->nk + (t - d->lo)];
    if (*p == DIP_UNSET) *p = dip_measure(d, which, k, t);
    return *p;
}

#define AT(arr, k, t) dip_get(d, arr, k, t)

static dips *dips_make(const vision_work *w, const vision_gmodel *m, int lo, int hi)
{
    if (hi - lo < 2 || hi - lo > 3 * GS_MAX_SIZE) return NULL;
    dips *d = malloc(sizeof *d);
    int nk = hi - lo + 1;
    double *buf = malloc(sizeof *buf * (size_t)(4 * nk * nk));
    if (!d || !buf) { free(d); free(buf); return NULL; }
    dip_frame(d, w, m);
    d->lo = lo; d->hi = hi; d->nk = nk;
    d->dip_level_min = w->P->dip_level_min;
    for (int i = 0; i < 4 * nk * nk; i++) buf[i] = DIP_UNSET;
    for (int k = 0; k < 4; k++) d->a[k] = buf + k * nk * nk;
    return d;
}

static void dips_free(dips *d)
{
    if (!d) return;
    free(d->a[0]);
    free(d);
}

typedef struct tally { int seen, known; } tally;

static void count(tally *c, double x, double level)
{
    if (x < 0) return;
    c->known++;
    c->seen += x > level;
}

static double tally_frac(const tally *c) { return c->known ? (double)c->seen / c->known : 0; }

/* Line evidence beyond one side of the window (n, a, b): side 0 v < b,
 * 1 u > a+n-1, 2 v > b+n-1, 3 u < a: the line one cell out and the n lines
 * continuing past the edge.  -1 when too little of it is in the image. */
static double side_evidence(dips *d, int n, int a, int b, int side, double level)
{
    tally c = {0, 0};
    for (int i = 0; i < n; i++) {
        if (side == 0) count(&c, AT(DIP_V, a + i, b - 1), level);
        if (side == 2) count(&c, AT(DIP_V, a + i, b + n - 1), level);
        if (side == 3) count(&c, AT(DIP_H, b + i, a - 1), level);
        if (side == 1) count(&c, AT(DIP_H, b + i, a + n - 1), level);
    }
    return c.known * 3 < n ? -1 : tally_frac(&c);
}

static double dips_score(dips *d, int n, int a, int b, vision_score *detail)
{
    vision_score sc;
    memset(&sc, 0, sizeof sc);
    sc.total = -1;
    if (detail) *detail = sc;
    if (!d || n < 2 || a - 1 < d->lo || b - 1 < d->lo || a + n > d->hi || b + n > d->hi) return -1;
    double tmp[2 * GS_MAX_SIZE * GS_MAX_SIZE];
    int k = 0;
    for (int i = 0; i < n; i++)
        for (int t = 0; t < n - 1; t++) {
            double x = AT(DIP_H, b + i, a + t), y = AT(DIP_V, a + i, b + t);
            if (x >= 0) tmp[k++] = x;
            if (y >= 0) tmp[k++] = y;
        }
    if (k < 2 * (n - 1)) return -1; /* the board is mostly off the image */
    qsort(tmp, (size_t)k, sizeof *tmp, vision_cmp_double);
    /* a third of the typical clearly seen stretch, never below a faint 3% */
    double level = fmax(d->dip_level_min, tmp[(int)(0.8 * (k - 1))] / 3);
    tally in = {0, 0}, anti = {0, 0};
    for (int i = 0; i < n; i++)
        for (int t = 0; t < n - 1; t++) {
            count(&in, AT(DIP_H, b + i, a + t), level);
            count(&in, AT(DIP_V, a + i, b + t), level);
            if (i < n - 1) {
                count(&anti, AT(DIP_AH, b + i, a + t), level);
                count(&anti, AT(DIP_AV, a + i, b + t), level);
            }
        }
    sc.lines = tally_frac(&in);
    sc.anti = tally_frac(&anti);
    double osum = 0, omax = 0;
    for (int s = 0; s < 4; s++) {
        double o = side_evidence(d, n, a, b, s, level);
        if (o < 0) continue; /* outside the frame: neither confirmed nor refuted */
        osum += o;
        omax = fmax(omax, o);
    }
    sc.outside = omax;
    sc.total = sc.lines - sc.anti - 0.5 * omax - 0.25 * osum;
    if (detail) *detail = sc;
    return sc.total;
}

double vision_grid_score(const vision_work *w, int n, const vision_gmodel *m, vision_score *detail)
{
    dips *d = dips_make(w, m, -1, n);
    double s = dips_score(d, n, 0, 0, detail);
    dips_free(d);
    return s;
}
