/* vision/read.c: stage 2 of the vision pipeline: photo + grid -> every
 * intersection as empty, black or white with a confidence.
 *
 * Method (all relative to the photo itself, no fixed colours):
 *  1. Wood model (vision/read_wood.c): small patches at the cell centres
 *     (between four points, where even a crowded board shows wood) give
 *     the board colour; a robust quadratic surface per channel over the
 *     board follows lighting gradients and ignores patches covered by
 *     stones.
 *  2. Camera model: a focal length and pose estimated from the homography
 *     tell where the top of a stone (about 0.4 cell high) appears, so the
 *     sampled disc follows the stone, not its base, in oblique views.
 *  3. Features per point (vision/read_features.c): a disc of radius ~0.3 cell, brightness relative
 *     to the local wood, fraction of dark pixels, fraction of bright
 *     colourless pixels, median "wood hue" strength.
 *     Line evidence: the contrast of the two grid lines through the point
 *     (at the board surface) as the deepest dip across each line - darker
 *     than both sides, so the edge of a stone or of its shadow is no line -
 *     relative to the typical empty point AROUND it (focus and light vary
 *     over the board).
 *  4. Classification (here): black = much darker than the wood; white = the grid
 *     lines are hidden (a white stone covers them; bright wood, glare or a
 *     pale grey board shows them) and the disc is brighter than the wood,
 *     or, on a pale board where a white stone is hardly brighter, clearly
 *     colourless while not dark.  Every boundary is relative to the photo's
 *     own wood or typical empty point, so dim or tinted light and the
 *     resolution move them with the data.  Confidence = margin to the
 *     nearest boundary.
 *  5. Occlusion (vision/read_edges.c): a white reading on an edge point whose colour carries on
 *     well beyond the board edge, unlike the table beside the board, is a
 *     hand or sleeve reaching in, not a stone: read as empty, unsure.
 *  (Between 4 and 5, vision/read_near.c compares each point's image patch
 *  with the sure points round it, and vision/read_self.c reads the points
 *  still unsure with a classifier fitted to the photo's sure points: see
 *  there.)
 */
#include "vision/vision_internal.h"

#include <math.h>
#include <stddef.h>
#ifdef GRID_DEBUG
#include <stdio.h>
#endif
#include <stdlib.h>
#include <string.h>

/* ----------------------------------------------------------- classification */

static float clampf(float x, float lo, float hi) { return x < lo ? lo : x > hi ? hi : x; }

/* Decision boundaries, all relative to the photo's own wood (lum, woodlike)
 * or to its own typical empty point (lines / typical line contrast), so
 * that brightness, tint and resolution of the photo cancel out. */
#define LOCAL_R 3          /* neighbourhood (points) for the typical line contrast */

/* ------------------------------------------------------ the populations */

/* The empty points and the light stones as this photo shows them: the
 * median and robust spread of brightness and wood-hue strength, so that
 * coloured lamps, flash and unusual stones (pale green, shell, yunzi) are
 * told apart by what this board's own wood and stones look like. */
typedef struct population { float lum, wood, cross, s_lum, s_wood, s_cross, ring; int n; } population;

/* Floor of the spread of cross (about 1.5 of its 1/16 bins: what the
 * measure resolves). */
/* Lines under this share of their usual contrast: a stone hides them. */
/* A light stone's ring is darker than its disc by this much or more
 * (wood and glare: about 1). */
/* The two populations tell apart by colour from this many spreads
 * between their middles (real boards 1.9-17, but pale green stones under
 * violet light 0.3)... */
/* ...or by the ring: the light points' median ring this much darker than
 * the wood's (real boards 0.19-0.55; ruled paper 0) */
/* Lines at this share of their usual contrast or more: no light stone
 * there (white stones on the visible photos: 97% under 0.7). */
/* A disc whose brightness spreads this much (interquartile, over the
 * wood's) is half one thing, half another. */
/* Within this many spreads of the light stones' middle: looks like one. */
/* Within this many spreads of the light stones' middle, and this many
 * from the wood's: a light stone's colour, clearly. */
/* Evidence this strong on both sides (in spreads): the point is unsure. */
/* Darker than this and the lines hidden: a dark stone under a lamp that
 * makes it look less dark (dark green under blue light). */
/* ...over this share: the point shows its lines (wood). */
/* The intersection itself this bright against the wood, and its lines at
 * this share of their usual contrast: wood shows at the point. */
/* An intersection this much brighter than the wood: a light stone there. */
/* ...this much, under a disc of the wood's colour: a light stone set off
 * towards the camera. */
/* A ring this bright against its disc or more: no stone's ring (the
 * light stones' median ring 0.65-0.72 on the visible photos). */
/* A margin disc nearly as bright as its edge point's disc (photo noise and
 * the fall-off of a lamp's light apart): the light goes on past the board. */
/* A margin disc this dark against the wood lies past the board's edge. */
/* An intersection this dark against the wood (a black stone's body: 0.01-0.02
 * where the disc missed it; drawn lines darken it to 0.10 at the least)
 * with a ring this much brighter than its disc (dark stones 1.27 and more,
 * empty points about 1): a black stone stands there. */

static float median_of(float *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, vision_cmp_float);
    return v[n / 2];
}

/* The values of one float field (at byte offset off) of the points with
 * sel[i], into v; returns how many. */
static int selected(const vision_point_features *F, const unsigned char *sel, int NN, size_t off, float *v)
{
    int n = 0;
    for (int i = 0; i < NN; i++)
        if (sel[i]) v[n++] = *(const float *)((const char *)&F[i] + off);
    return n;
}

/* Median of the n values of v and, into *spread, 1.48 times their median
 * absolute deviation (v is overwritten). */
static float median_spread(float *v, int n, float *spread)
{
    float m = median_of(v, n);
    for (int i = 0; i < n; i++) v[i] = fabsf(v[i] - m);
    *spread = 1.48f * median_of(v, n);
    return m;
}

/* Median and spread (at least the floors) of lum and woodlike, and the
 * median ring, over the points with sel[i]. */
static void population_of(const vision_params *P, const vision_point_features *F, const unsigned char *sel, int NN, float fl, float fw,
                          float *tmp, population *p)
{
    int n = selected(F, sel, NN, offsetof(vision_point_features, lum), tmp);
    p->n = n;
    if (n < 4) return;
    float s;
    p->lum = median_spread(tmp, n, &s);
    p->s_lum = fmaxf(fl, s);
    selected(F, sel, NN, offsetof(vision_point_features, woodlike), tmp);
    p->wood = median_spread(tmp, n, &s);
    p->s_wood = fmaxf(fw, s);
    selected(F, sel, NN, offsetof(vision_point_features, cross), tmp);
    p->cross = median_spread(tmp, n, &s);
    p->s_cross = fmaxf(P->cross_floor, s);
    selected(F, sel, NN, offsetof(vision_point_features, ring), tmp);
    p->ring = median_of(tmp, n);
}

/* A point that may be a light stone: its lines hidden (Cl: its usual
 * line contrast), its disc not dark. */
static int hides_lines_not_dark(const vision_params *P, const vision_point_features *f, float Cl)
{
    return f->lines / Cl < P->light_lines && f->lum >= P->darkish_lum;
}

/* The two populations: 2 when both are seen and their colours differ, 1
 * when only their rings do, -1 when both are seen but look alike, 0 when
 * too few points show either (then the fixed rules of vision_read
 * decide). */
static int populations_fit(const vision_params *P, const vision_point_features *F, const float *Cl, int NN, population *wood, population *light)
{
    unsigned char *sel = malloc((size_t)NN);
    float *tmp = malloc(sizeof *tmp * (size_t)NN);
    memset(wood, 0, sizeof *wood);
    memset(light, 0, sizeof *light);
    if (!sel || !tmp) { free(sel); free(tmp); return 0; }
    /* wood: shows its lines, brightness like the wood model's */
    for (int i = 0; i < NN; i++) sel[i] = F[i].lines / Cl[i] > P->wood_lines && F[i].lum > P->wood_lum_lo && F[i].lum < P->wood_lum_hi;
    population_of(P, F, sel, NN, 0.06f, 0.2f, tmp, wood);
    /* light stones: hide their lines and are not dark (under a lamp of one
     * colour pale green stones may look just like the wood: then the
     * populations coincide and the lines decide) */
    for (int i = 0; i < NN; i++) sel[i] = hides_lines_not_dark(P, &F[i], Cl[i]);
    population_of(P, F, sel, NN, 0.08f, 0.2f, tmp, light);
    free(sel);
    free(tmp);
    if (wood->n < 4 || light->n < 4) return 0;
    /* different when their colours lie apart by a few spreads, or when the
     * light points stand out from their rings and the wood does not (pale
     * stones under a lamp of their own colour); ruled paper, where the
     * "light stones" are paper between the lines, is neither */
    float dl = (light->lum - wood->lum) / fmaxf(wood->s_lum, light->s_lum);
    float dw = (light->wood - wood->wood) / fmaxf(wood->s_wood, light->s_wood);
    float dx = (light->cross - wood->cross) / fmaxf(wood->s_cross, light->s_cross);
    if (sqrtf(dl * dl + dw * dw + dx * dx) >= P->pop_apart) return 2;
    return wood->ring - light->ring >= P->ring_apart ? 1 : -1;
}

/* The terms a light point was judged by (classify_light): colour (q, a
 * log-likelihood ratio, > 0 light stone), lines hidden (l), ring darker
 * (r), their sum (t), the lines' share of their usual contrast (ln) and
 * the colour across the wood's hue alone (xq, as q). */
typedef struct light_terms { float q, l, r, t, ln, xq; } light_terms;

/* 1 when the evidence for a light point's reading disagrees too much for
 * it to be sure (colour_apart: the two populations differ in colour). */
static int light_doubt(const vision_params *P, const light_terms *k, int colour_apart)
{
    float q = k->q, l = k->l, r = k->r, t = k->t, ln = k->ln, xq = k->xq;
    /* the colour against both the lines and the ring, or against lines
     * clearly hidden or clearly shown: unsure whichever wins (bleached
     * wood at a lit edge looks like a light stone, a pale stone under a
     * lamp of its own colour like the wood) */
    float body = l + r;
    /* (but a light stone whose ring says so as clearly as its colour, or
     * whose colour says so clearly and its ring not against, is not
     * doubted for its lines alone: a stone set off its point leaves the
     * lines beside it in the disc) */
    int ring_backs = t > 0 && q > 0 && (r >= P->disagree || (q >= 3 * P->disagree && r > -P->disagree));
    /* (nor is a disc clearly of the wood's colour whose lines are not
     * clearly gone, for its ring alone: a dark ring round it is its
     * neighbours' stones and their shadows) */
    int wood_clear = t <= 0 && q <= -3 * P->disagree && l < 2 * P->disagree;
    if (!ring_backs && !wood_clear && ((q * body < 0 && fabsf(body) >= P->disagree && fabsf(q) >= P->disagree) ||
                        (q * l < 0 && fabsf(l) >= 2 * P->disagree && fabsf(q) >= P->disagree)))
        return 1;
    /* an empty reading whose colour decides nothing while the ring round
     * it is darker, as round a stone: only its lines say wood */
    if (t <= 0 && fabsf(q) < P->disagree && r > 0) return 1;
    /* where the colours do not tell the stones from the wood (pale stones
     * under a lamp of their colour), a point is sure only when its lines
     * and its ring agree clearly: a stone when both say so and together
     * by two spreads, the wood only when its lines clearly show (the
     * seams between crowded pale stones look like lines) */
    int agree = l * r > 0 && (t > 0 ? l + r >= 2 * P->disagree : fabsf(l) >= 2 * P->disagree);
    if (!colour_apart && !agree) return 1;
    /* a light stone without the darker ring round it whose lines are not
     * clearly hidden may be bright wood (the lit bevel at the board's
     * edge): unsure */
    if (t > 0 && r <= -P->disagree && l < 2 * P->disagree) return 1;
    /* an empty reading whose colour does not clearly say wood, while its
     * lines are hidden (a pale stone of nearly the wood's colour: a crowd
     * of them bends the wood surface towards them) or its colour across
     * the wood's hue alone says light stone (white stones under a violet
     * lamp whose disc also takes in the wood beside them) */
    if (t <= 0 && q > -3 * P->disagree && (ln < P->light_lines || xq >= P->disagree)) return 1;
    return 0;
}

/* A point's squared colour distances to the wood and to the light
 * stones, in units of one spread per measure for both (the larger: the
 * boundary is then straight, halfway between the two, and a point between
 * them is left to its lines and ring to decide), and half the difference of
 * the cross terms alone into *xq. */
static void colour_distances(const vision_point_features *f, const population *wood, const population *light,
                             float *to_wood, float *to_light, float *xq)
{
    float s_l = fmaxf(wood->s_lum, light->s_lum), s_w = fmaxf(wood->s_wood, light->s_wood);
    float s_x = fmaxf(wood->s_cross, light->s_cross);
    float dw_l = (f->lum - wood->lum) / s_l, dw_w = (f->woodlike - wood->wood) / s_w;
    float dl_l = (f->lum - light->lum) / s_l, dl_w = (f->woodlike - light->wood) / s_w;
    float dw_x = (f->cross - wood->cross) / s_x, dl_x = (f->cross - light->cross) / s_x;
    *to_wood = dw_l * dw_l + dw_w * dw_w + dw_x * dw_x;
    *to_light = dl_l * dl_l + dl_w * dl_w + dl_x * dl_x;
    *xq = 0.5f * (dw_x * dw_x - dl_x * dl_x);
}

/* A point that is not dark: light stone or empty, by how much closer its
 * colour is to the light stones' than to the wood's (half the difference
 * of the squared normalised distances, a log-likelihood ratio), how
 * hidden its lines are and how much it stands out from the ring round it;
 * the confidence from the sum's size. */
static void classify_light(const vision_params *P, const vision_point_features *f, float ln, const population *wood, const population *light,
                           int colour_apart, uint8_t *cell, float *conf)
{
    float to_wood, to_light, xq;
    colour_distances(f, wood, light, &to_wood, &to_light, &xq);
    float q = clampf(0.5f * (to_wood - to_light), -4, 4);
    float l = clampf((P->lines_hidden - ln) / 0.2f, -3, 3);
    /* a stone stands out from the ring round it; glare and wood do not */
    float r = clampf((P->ring_stone - f->ring) / 0.06f, -3, 3);
    /* (at an edge beyond which lies no wood, the ring is partly the table
     * or the board's side: dark round a stone or not, it cannot say one
     * is there) */
    if (f->margin_dark < P->margin_off) r = fminf(r, 0);
    /* an intersection brighter than the wood (lines darken it) backs a
     * light colour: the lines seen there are seams between stones */
    float bl = q > 0 ? clampf((f->base - P->base_light) / 0.05f, 0, 2) : 0;
    float t = q + l + r + bl, mb = (f->lum - P->black_lum) / 0.25f;
    /* a point whose lines clearly show is no stone unless it looks just
     * like this photo's light stones (a stone set off its point, or seen
     * obliquely, leaves the lines beside it in the disc): glare on empty
     * wood only half looks like them and keeps its lines */
    if (to_light > P->light_like * P->light_like) t = fminf(t, (P->lines_show - ln) / 0.1f);
    /* a colour within a spread of this photo's light stones and well
     * away from its wood is a light stone, whatever its lines and ring
     * say (under a lamp of one colour the seams between crowded white
     * stones look like lines, and their ring is their neighbours): on
     * the visible photos all 17 such points read empty were white), but
     * unsure: the evidence is split */
    int split = t <= 0 && to_light <= P->light_same * P->light_same && to_wood >= P->wood_away * P->wood_away;
    if (split) t = 0.5f * q;
    /* an intersection much brighter than the wood under a disc of the
     * wood's colour: a light stone set off towards the camera, its body
     * on the point and its top nearer than a stone's on its point (glare
     * brightens both alike); light, and unsure (10 of 10 such points on
     * the visible photos were white) */
    if (t <= 0 && q < 0 && f->base >= P->base_set_off) {
        split = 1;
        t = fmaxf(0.5f, 0.5f * l);
    }
    /* darkish with its lines hidden: a dark stone */
    float md = fminf((P->darkish_lum - f->lum) / 0.1f, (P->light_lines - ln) / 0.2f);
    if (md > 0) {
        *cell = GS_BLACK;
        *conf = clampf(0.5f + 0.5f * md, 0, 1);
        return;
    }
    *cell = (uint8_t)(t > 0 ? GS_WHITE : GS_EMPTY);
    *conf = clampf(0.5f + 0.5f * fminf(fminf(fabsf(t) / 3, mb), -md), 0, 1);
    light_terms k = {q, l, r, t, ln, xq};
    if (split || light_doubt(P, &k, colour_apart)) *conf = vision_doubted(P, *conf);
}

static void classify_fixed(const vision_params *P, const vision_point_features *f, float ln, int pops, uint8_t *cell, float *conf)
{
    /* Margins (> 0 means "on that side"), each scaled to about one
     * typical spread so they can be compared for the confidence. */
    float mb = (P->black_lum - f->lum) / 0.25f;
    float m_lum = (f->lum - P->white_lum) / 0.15f;
    float m_nolines = (P->lines_gone - ln) / 0.3f;
    /* White: the stone hides the grid lines at its point (on every
     * photo a white stone leaves well under half the usual line
     * contrast, while wood - however bright, grey or glared - shows its
     * lines), and it is brighter than the wood; or, on a pale board
     * where a white stone is hardly brighter, the lines are gone and
     * the disc is clearly colourless while not dark. */
    float m_hidden = (P->lines_hidden - ln) / 0.3f;
    float m_greyer = (P->grey_hue - f->woodlike) / 0.5f;
    /* (the pale-board case needs light points that look unlike the
     * board: on ruled paper the paper between the lines looks alike) */
    float m_pale = pops < 0 ? -1 : fminf(fminf(m_nolines, m_greyer), (f->lum - P->pale_lum) / 0.2f);
    float mw = fminf(m_hidden, fmaxf(m_lum, m_pale));
    /* a disc nearly as dark as a black stone that hides its lines is one
     * (as in classify_light: a dark stone under a bright lamp) */
    if (pops > 0) mb = fmaxf(mb, fminf((P->darkish_lum - f->lum) / 0.1f, (P->light_lines - ln) / 0.2f));
    gs_color c;
    float margin;
    if (mb > 0) { c = GS_BLACK; margin = mb; }
    else if (mw > 0) { c = GS_WHITE; margin = fminf(mw, -mb); }
    else { c = GS_EMPTY; margin = fminf(-mb, -mw); }
    *cell = (uint8_t)c;
    *conf = clampf(0.5f + 0.5f * margin, 0, 1);
    /* a dark reading whose lines clearly show and whose disc is half
     * dark, half bright sees the edge of something dark (a neighbour's
     * stone, a shadow), not a stone on the point: unsure */
    if (c == GS_BLACK && ln >= P->lines_show && f->spread >= P->edge_spread)
        *conf = vision_doubted(P, *conf);
}

static int on_edge(int i, int N)
{
    int u = i % N, v = i / N;
    return u == 0 || v == 0 || u == N - 1 || v == N - 1;
}

/* An edge point read empty beside whose margin lies something brighter
 * than the rest of that side's margin by several spreads, and closer in
 * colour to this photo's light stones than to its wood: a stone set off
 * its point towards the edge (or one lying outside the lines); the point
 * may be that stone's.  Unsure. */
static void margin_stone_doubt(const vision_params *P, const vision_point_features *F, int N, const population *wood,
                               const population *light, vision_reading *out)
{
    float m[GS_MAX_SIZE], tmp[GS_MAX_SIZE];
    float s_l = fmaxf(wood->s_lum, light->s_lum), s_w = fmaxf(wood->s_wood, light->s_wood);
    for (int side = 0; side < 4; side++) {
        int idx[GS_MAX_SIZE], n = 0;
        /* the side's points without its corners (whose disc is the
         * brighter of two sides) */
        for (int k = 1; k < N - 1; k++) {
            int u, v;
            vision_edge_point(side, k, N, &u, &v);
            idx[n++] = v * N + u;
        }
        for (int k = 0; k < n; k++) m[k] = tmp[k] = F[idx[k]].margin_lum;
        float spread, med = median_spread(tmp, n, &spread);
        spread += 0.03f; /* an even margin: photo noise still */
        for (int k = 0; k < n; k++) {
            const vision_point_features *f = &F[idx[k]];
            if (out->pos.cell[idx[k]] != GS_EMPTY || (m[k] - med) / spread < P->margin_apart) continue;
            float dw_l = (f->margin_lum - wood->lum) / s_l, dw_w = (f->margin_wood - wood->wood) / s_w;
            float dl_l = (f->margin_lum - light->lum) / s_l, dl_w = (f->margin_wood - light->wood) / s_w;
            if ((dw_l * dw_l + dw_w * dw_w) - (dl_l * dl_l + dl_w * dl_w) >= 0)
                out->confidence[idx[k]] = vision_doubted(P, out->confidence[idx[k]]);
        }
    }
}

/* Each point's usual line contrast (into Cl): line contrast varies over
 * the board (focus, blur, light falling off), so each point is compared
 * with the plain-wood points around it; the photo's median over plain-wood
 * points (most points of any game) stands in where too few are near.
 * tmp holds NN floats. */
static void local_line_contrast(const vision_params *P, const vision_point_features *F, int N, float *tmp, float *Cl)
{
    int NN = N * N, m = 0;
    for (int i = 0; i < NN; i++)
        if (F[i].lum > P->wood_lum_lo && F[i].lum < P->wood_lum_hi) tmp[m++] = F[i].lines;
    float Ce = 0.3f;
    if (m >= 8) {
        qsort(tmp, (size_t)m, sizeof *tmp, vision_cmp_float);
        Ce = tmp[m / 2];
    }
    if (Ce < 0.05f) Ce = 0.05f; /* a blurred photo: lines barely show anywhere */
    for (int i = 0; i < NN; i++) {
        int u0 = i % N, v0 = i / N, k = 0;
        for (int v = v0 - LOCAL_R; v <= v0 + LOCAL_R; v++)
            for (int u = u0 - LOCAL_R; u <= u0 + LOCAL_R; u++) {
                if (u < 0 || v < 0 || u >= N || v >= N) continue;
                const vision_point_features *q = &F[v * N + u];
                if (q->lum > P->wood_lum_lo && q->lum < P->wood_lum_hi) tmp[k++] = q->lines;
            }
        float c = Ce;
        if (k >= 12) {
            qsort(tmp, (size_t)k, sizeof *tmp, vision_cmp_float);
            c = tmp[k / 2];
        }
        Cl[i] = c < 0.05f ? 0.05f : c;
    }
}

/* The light stones round point i (within LIGHT_R points: lines hidden,
 * not dark, darker round them, as empty wood whose lines fade in dim
 * light is not): the middle of their brightness, wood hue and cross where
 * at least P->light_near of them are there, into p (its spreads stay the
 * photo's).  The lamp's light falls off over the board and the view turns,
 * and glossy white stones change with them unlike the matt wood, whose
 * own surface follows the light (under a blue lamp the far whites are 10%
 * less bright against the wood than the near ones).  Radius 3 to 7 gain
 * alike on the goban-watcher photos. */
#define LIGHT_R 4
static void local_light(const vision_params *P, const vision_point_features *F, const float *Cl, int N, int i, population *p)
{
    enum { AREA = (2 * LIGHT_R + 1) * (2 * LIGHT_R + 1) };
    float l[AREA], w[AREA], x[AREA];
    int u0 = i % N, v0 = i / N, k = 0;
    for (int v = v0 - LIGHT_R; v <= v0 + LIGHT_R; v++)
        for (int u = u0 - LIGHT_R; u <= u0 + LIGHT_R; u++) {
            if (u < 0 || v < 0 || u >= N || v >= N) continue;
            const vision_point_features *q = &F[v * N + u];
            if (hides_lines_not_dark(P, q, Cl[v * N + u]) && q->ring < P->ring_stone) {
                l[k] = q->lum; w[k] = q->woodlike; x[k] = q->cross;
                k++;
            }
        }
    if (k < P->light_near) return;
    p->lum = median_of(l, k);
    p->wood = median_of(w, k);
    p->cross = median_of(x, k);
}

/* The checks of a point's reading against its intersection and, at the
 * board's edge, what lies beyond it (edge: the point is on the outer
 * line): they overrule or doubt what the disc said. */
static void intersection_checks(const vision_params *P, const vision_point_features *f, float ln, int edge, uint8_t *cell, float *conf)
{
    /* a point whose intersection shows a black stone's body, the ring
     * round it brighter as round a dark stone, holds one, however light
     * the disc above it (its top seen obliquely takes in a light
     * neighbour, or glare): black, and unsure */
    if (*cell != GS_BLACK && f->base < P->base_dark && f->ring >= P->ring_dark) {
        *cell = GS_BLACK;
        *conf = vision_doubted(P, *conf);
    }
    /* a point that shows its own wood and its lines has no stone on
     * it, however dark the disc above it (seen obliquely, or a
     * neighbour's stone set off its point, or its shadow): empty, and
     * unsure (on the visible photos all 13 such points are empty) */
    if (*cell == GS_BLACK && f->base >= P->base_wood && ln >= P->base_lines) {
        *cell = GS_EMPTY;
        *conf = vision_doubted(P, *conf);
    }
    /* nor is an empty reading sure whose intersection is brighter than
     * the wood (crossed by its lines, wood is not): a light stone's
     * body there, the stone set off towards the camera */
    if (*cell == GS_EMPTY && f->base >= P->base_light)
        *conf = vision_doubted(P, *conf);
    /* an edge point read white beyond which lies no wood (the table
     * or the board's side: the margin disc far darker than the wood)
     * while its lines still show: the dark ring round it is partly
     * that beyond, not the shadow round a stone */
    if (*cell == GS_WHITE && f->margin_lum < P->margin_off && ln >= P->lines_gone)
        *conf = vision_doubted(P, *conf);
    /* an edge point read white with no darker ring round it, its
     * lines not hidden, beyond which the light goes on past the board
     * (its margin about as bright as its disc): the board's lit bevel, as a
     * stone, which ends at its ring, is not; empty, and unsure */
    if (*cell == GS_WHITE && edge && f->margin_lum >= P->margin_lit * f->lum && f->ring >= P->ring_none &&
        ln >= P->light_lines) {
        *cell = GS_EMPTY;
        *conf = vision_doubted(P, *conf);
    }
}

/* Each point's next likeliest colour (vision_reading.second), from the
 * brightness of its disc: a stone read is otherwise empty, unless its disc
 * lies on the other colour's side of P->darkish_lum (a black reading of a
 * light disc, whose intersection showed dark; a white reading of a dark
 * one); an empty reading is otherwise a dark stone when its disc is darker
 * than P->darkish_lum, a light one when not (on the 46 goban-watcher photos
 * that is the true colour of each of the 24 points read wrong with doubt).
 * A stand-in until the reader gives each colour a calibrated probability:
 * second_p is 1 - confidence, the reader's own margin. */
static void second_choices(const vision_params *P, const vision_point_features *F, vision_reading *out)
{
    int NN = out->pos.size * out->pos.size;
    for (int i = 0; i < NN; i++) {
        bool dark = F[i].lum < P->darkish_lum;
        gs_color c = (gs_color)out->pos.cell[i];
        gs_color s = c == GS_EMPTY   ? (dark ? GS_BLACK : GS_WHITE)
                     : c == GS_BLACK ? (dark ? GS_EMPTY : GS_WHITE)
                                     : (dark ? GS_BLACK : GS_EMPTY);
        vision_second_set(out, i, s);
    }
}

gs_status vision_read(const vision_params *P, const gs_image *img, const vision_grid *g, vision_reading *out, gs_error *err)
{
    if (!out) return gs_error_set(err, GS_ERR_USAGE, "no output");
    if (!g || g->size < 5 || g->size > GS_MAX_SIZE)
        return gs_error_set(err, GS_ERR_USAGE, "bad grid");
    vision_point_features *F = malloc(sizeof *F * (size_t)(g->size * g->size));
    if (!F) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    gs_status st = vision_read_keep(P, img, g, out, F, err);
    free(F);
    return st;
}

gs_status vision_read_keep(const vision_params *P, const gs_image *img, const vision_grid *g, vision_reading *out, vision_point_features *F,
                           gs_error *err)
{
    if (!out) return gs_error_set(err, GS_ERR_USAGE, "no output");
    if (!g || g->size < 5 || g->size > GS_MAX_SIZE)
        return gs_error_set(err, GS_ERR_USAGE, "bad grid");
    int N = g->size, NN = N * N;
    float *tmp = malloc(sizeof *tmp * (size_t)NN), *Cl = malloc(sizeof *Cl * (size_t)NN);
    if (!tmp || !Cl) { free(tmp); free(Cl); return gs_error_set(err, GS_ERR_NOMEM, "out of memory"); }
    gs_status st = vision_read_features(P, img, g, F, err);
    if (st != GS_OK) { free(tmp); free(Cl); return st; }
    local_line_contrast(P, F, N, tmp, Cl);
    /* each point's lines over their usual contrast round it, for the rules
     * and the third look */
    float *ln = tmp;
    for (int i = 0; i < NN; i++) ln[i] = F[i].lines / Cl[i];
    gs_position_clear(&out->pos, N);
    population wood, light;
    int pops = populations_fit(P, F, Cl, NN, &wood, &light);
    for (int i = 0; i < NN; i++) {
        const vision_point_features *f = &F[i];
        if (pops > 0 && f->lum >= P->black_lum) {
            population here = light;
            local_light(P, F, Cl, N, i, &here);
            classify_light(P, f, ln[i], &wood, &here, pops == 2, &out->pos.cell[i], &out->confidence[i]);
        }
        else
            classify_fixed(P, f, ln[i], pops, &out->pos.cell[i], &out->confidence[i]);
        intersection_checks(P, f, ln[i], on_edge(i, N), &out->pos.cell[i], &out->confidence[i]);
        /* a point the photo does not show (its disc off the frame) is a
         * guess: empty, and said so */
        if (!f->seen) out->confidence[i] = 0;
    }
    if (pops > 0) margin_stone_doubt(P, F, N, &wood, &light, out);
#ifdef GRID_DEBUG
    if (getenv("READ_DUMP")) {
        fprintf(stderr, "pops %d wood %.2f %.2f %.2f s %.2f %.2f %.2f ring %.2f light %.2f %.2f %.2f s %.2f %.2f %.2f ring %.2f\n", pops, wood.lum, wood.wood, wood.cross, wood.s_lum, wood.s_wood, wood.s_cross, wood.ring, light.lum, light.wood, light.cross, light.s_lum, light.s_wood, light.s_cross, light.ring);
        for (int i = 0; i < NN; i++)
            fprintf(stderr, "PT %d,%d c %d conf %.2f lum %.2f wood %.2f x %.2f ln %.2f ring %.2f spread %.2f base %.2f mlum %.2f mwood %.2f\n", i / N, i % N, out->pos.cell[i], out->confidence[i], F[i].lum, F[i].woodlike, F[i].cross, ln[i], F[i].ring, F[i].spread, F[i].base, F[i].margin_lum, F[i].margin_wood);
    }
#endif
    free(Cl);
    /* the second and third looks, on the points' image patches (without
     * memory for them the reading stays as the rules left it) */
    vision_patches patches;
    if (vision_patches_make(&patches, img, g) == 0) {
        vision_read_near(P, &patches, out);
        vision_read_self(P, &patches, F, ln, out);
        vision_patches_free(&patches);
    }
    free(ln);
    vision_clear_occluded_edges(P, img, g, out);
    out->uncertain = 0;
    memset(out->unsure, 0, sizeof out->unsure);
    for (int i = 0; i < NN; i++) {
        out->unsure[i] = out->confidence[i] < P->unsure;
        out->uncertain += out->unsure[i];
    }
    second_choices(P, F, out);
    return GS_OK;
}
