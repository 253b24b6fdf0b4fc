/* track/hands.c: points covered from outside the board (see
 * track/track.h). */
#include "track/track.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define OC_STEP 0.25      /* lattice step, cells */
#define OC_OUT 1.5        /* the lattice starts this far outside the lines */
/* a sample changed: sum of the three channel differences of 3x3 means;
 * above sensor and compression noise, below most of what a hand changes
 * (skin over wood is close in colour, but the lines vanish under it and
 * its shading and shadow are darker) */
#define OC_DIFF 40
/* more of the board than this changed: light or camera, not a hand */
#define OC_GLOBAL 0.35
/* the grid moved by more than this (cells) since the reference: a jump */
#define OC_JUMP 0.3
/* most of the board changed before the exposure compensation (an exposure
 * step) and more than this after it: the gain does not explain the step,
 * and only strong changes are looked at */
#define OC_EXPLAINED 0.08
/* after an exposure step, what is left of glare (clipped, not scaled) is a
 * faint change; a hand over the table or the wood changes much more: a
 * hand's region must hold this many samples changed by OC_STRONG */
#define OC_STRONG 120
#define OC_STRONG_AREA 6
/* ... and this share of its changed area: what the gain leaves of the
 * look of the table, the bowls and the board is faint over wide parts (a
 * stone put down meanwhile is strong, but no arm); a hand resting over
 * points, 0.18 or more on the renders */
#define OC_STRONG_SHARE 0.15
/* a hand's changed area, in samples (16 per cell): two and a half cells */
#define OC_MIN_AREA 40
/* ... with a body that comes in from outside: this many samples in solid
 * 2x2 blocks, joined to the lattice's outer rings (a cell and a quarter;
 * an arm resting over points has 30 or more).  A camera drift or a slow
 * light change creeps along the board's edge as a thread of samples, and
 * a stone put down beside it is no hand */
#define OC_BODY 20
/* a changed sample this close to a margin stone's centre (cells) is that
 * stone: its radius (0.48) with its lean and shadow in the picture */
#define OC_STONE_R 0.8
/* changed samples on the board that no margin stone explains, at most, in
 * a region taken for margin stones: a fingertip in the band is more */
#define OC_STONE_LEFT 2
/* ... and at least this many on them (a quarter of a stone) */
#define OC_STONE_MIN 4
#define OC_MAXN (4 * (GS_MAX_SIZE + 3) + 1)

struct track_hands {
    gs_image *ref, *prev;            /* the clear view, and the one before it */
    vision_grid ref_grid, prev_grid; /* the grids when they were taken */
};

track_hands *track_hands_create(void) { return calloc(1, sizeof(track_hands)); }

void track_hands_destroy(track_hands *o)
{
    if (!o) return;
    gs_image_destroy(o->ref);
    gs_image_destroy(o->prev);
    free(o);
}

/* The k-th smallest of r[0..n-1] (0-based; r is reordered): what r[k]
 * holds once r is sorted, found without sorting (Wirth's selection: a
 * settled view takes three medians over thousands of samples). */
static double kth_smallest(double *r, int n, int k)
{
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        double x = r[k];
        int i = lo, j = hi;
        do {
            while (r[i] < x) i++;
            while (x < r[j]) j--;
            if (i <= j) {
                double tmp = r[i];
                r[i++] = r[j];
                r[j--] = tmp;
            }
        } while (i <= j);
        if (j < k) lo = i;
        if (k < i) hi = j;
    }
    return r[k];
}

/* median of cur/ref in channel c over the samples on the image (1 when
 * too few are bright enough to tell) */
static double median_ratio(int16_t (*cur)[3], int16_t (*ref)[3], const uint8_t *st, int n, int c)
{
    double *r = malloc(sizeof(double) * (size_t)n);
    if (!r) return 1;
    int k = 0;
    for (int i = 0; i < n; i++)
        if (st[i] != 2 && ref[i][c] >= 24) r[k++] = (double)cur[i][c] / ref[i][c];
    double g = 1;
    if (k >= 16) g = kth_smallest(r, k, k / 2);
    free(r);
    return g;
}

/* A settled view kept as the reference of the next ones: a copy, since the
 * capture source reuses the frame's buffer. */
static void keep_ref(track_hands *o, const gs_image *img, const vision_grid *g)
{
    /* the view dropped (prev) lends its buffer when it fits: no new pages */
    gs_image *copy = o->prev;
    bool reuse = copy && copy->width == img->width && copy->height == img->height && copy->channels == img->channels;
    if (!reuse) copy = gs_image_create(img->width, img->height, img->channels);
    if (!copy) return; /* out of memory: keep the old one */
    for (int y = 0; y < img->height; y++)
        memcpy(copy->buf + (size_t)y * copy->stride, img->buf + (size_t)y * img->stride,
               (size_t)img->width * (size_t)img->channels);
    if (!reuse) gs_image_destroy(o->prev);
    o->prev = o->ref;
    o->prev_grid = o->ref_grid;
    o->ref = copy;
    o->ref_grid = *g;
}

/* Whether grid g has jumped since the reference (a bump, the board found
 * again elsewhere): a corner moved by more than OC_JUMP cells.  The
 * reference is then looked up where the board was in it; otherwise at the
 * same pixels (the grid's own small corrections are no motion of the
 * picture). */
static bool grid_jumped(const vision_grid *ref, const vision_grid *g)
{
    if (ref->size != g->size) return false;
    double side = hypot(g->corners[1][0] - g->corners[0][0], g->corners[1][1] - g->corners[0][1]);
    double cell = side / (g->size - 1);
    for (int c = 0; c < 4; c++)
        if (hypot(g->corners[c][0] - ref->corners[c][0], g->corners[c][1] - ref->corners[c][1]) > OC_JUMP * cell)
            return true;
    return false;
}

/* The sample lattice over the board and a margin around it (OC_STEP cells
 * apart, OC_OUT cells outside the lines), m x m samples row-major. */
typedef struct lattice {
    int m, n;                             /* samples per side, board size */
    uint8_t st[OC_MAXN * OC_MAXN];        /* 0 unchanged, 1 changed, 2 off the image */
    uint8_t ch[OC_MAXN * OC_MAXN];        /* changed (1) or bridged (2) */
    uint8_t reach[OC_MAXN * OC_MAXN];     /* part of something reaching in */
    uint8_t strong[OC_MAXN * OC_MAXN];    /* changed by more than OC_STRONG */
    bool exposure_step;                   /* the view's exposure stepped */
    const track_margin_view *margin;      /* this view's margin stones (may be NULL) */
    bool excused;                         /* a region was taken for margin stones */
    int16_t cur[OC_MAXN * OC_MAXN][3], ref[OC_MAXN * OC_MAXN][3]; /* 3x3 means */
} lattice;

static const int dx4[4] = {1, -1, 0, 0}, dy4[4] = {0, 0, 1, -1};

/* The 3x3 means of the view (under g) and of the reference (under rg) at
 * every sample. */
static void sample(const gs_image *img, const gs_image *refimg, const vision_grid *g, const vision_grid *rg,
                   lattice *L)
{
    int m = L->m;
    for (int j = 0; j < m; j++)
        for (int i = 0; i < m; i++) {
            double u = -OC_OUT + i * OC_STEP, v = -OC_OUT + j * OC_STEP, x, y, rx, ry;
            vision_grid_map(g, u, v, &x, &y);
            if (rg == g) rx = x, ry = y; /* (no jump: the same pixels) */
            else vision_grid_map(rg, u, v, &rx, &ry);
            int a[3], b[3];
            int k = j * m + i;
            L->st[k] = 0;
            if (!gs_box_mean3(img, (int)lround(x), (int)lround(y), a) || !gs_box_mean3(refimg, (int)lround(rx), (int)lround(ry), b)) {
                L->st[k] = 2;
                continue;
            }
            for (int c = 0; c < 3; c++) {
                L->cur[k][c] = (int16_t)a[c];
                L->ref[k][c] = (int16_t)b[c];
            }
        }
}

/* Marks the changed samples (st 1); true when so much of the board changed
 * that it is light or the camera, not a hand. */
static bool mark_changed(lattice *L)
{
    int m = L->m, n = L->n;
    /* an exposure or white-balance step between the views (photos, auto
     * exposure) scales every channel: compensated with the median ratio */
    double gain[3];
    for (int c = 0; c < 3; c++) gain[c] = median_ratio(L->cur, L->ref, L->st, m * m, c);
    int inside = 0, inside_changed = 0, inside_raw = 0;
    for (int j = 0; j < m; j++)
        for (int i = 0; i < m; i++) {
            int k = j * m + i;
            L->strong[k] = 0;
            if (L->st[k] == 2) continue;
            double d = 0, d_raw = 0;
            for (int c = 0; c < 3; c++) {
                d += fabs(L->cur[k][c] - gain[c] * L->ref[k][c]);
                d_raw += abs(L->cur[k][c] - L->ref[k][c]);
            }
            L->st[k] = d > OC_DIFF;
            L->strong[k] = d > OC_STRONG;
            double u = -OC_OUT + i * OC_STEP, v = -OC_OUT + j * OC_STEP;
            if (u >= -0.01 && v >= -0.01 && u <= n - 1 + 0.01 && v <= n - 1 + 0.01) {
                inside++;
                inside_changed += L->st[k];
                inside_raw += d_raw > OC_DIFF;
            }
        }
    /* (an exposure step changes most of the board before compensation:
     * auto exposure as an arm comes in, or the light.  What the gain leaves
     * of it is faint where it explains the step, and where it does not
     * (clipped highlights, the table's own response) often over a fifth of
     * the board: a hand is still looked for then, by its strong changes
     * alone) */
    L->exposure_step = inside_raw > 2 * OC_GLOBAL * inside;
    if (inside == 0 || inside_changed > OC_GLOBAL * inside) return true;
    if (L->exposure_step && inside_changed > OC_EXPLAINED * inside)
        for (int k = 0; k < m * m; k++)
            if (L->st[k] == 1 && !L->strong[k]) L->st[k] = 0;
    return false;
}

/* Closes small gaps (skin over wood changes little in places): an
 * unchanged sample beside a changed one is bridged (ch 2). */
static void bridge_gaps(lattice *L)
{
    int m = L->m;
    for (int k = 0; k < m * m; k++) {
        L->ch[k] = L->st[k] == 1;
        if (L->ch[k] || L->st[k] == 2) continue;
        int i = k % m, j = k / m;
        for (int d = 0; d < 4 && !L->ch[k]; d++) {
            int ai = i + dx4[d], aj = j + dy4[d];
            if (ai >= 0 && aj >= 0 && ai < m && aj < m && L->st[aj * m + ai] == 1) L->ch[k] = 2; /* bridged */
        }
    }
}

/* Whether changed sample k is part of a changed 2x2 block: a thread of
 * samples one wide (light creeping along an edge) is not. */
static bool thick(const lattice *L, int k)
{
    int m = L->m, i = k % m, j = k / m;
    if (L->st[k] != 1) return false;
    for (int dj = -1; dj <= 0; dj++)
        for (int di = -1; di <= 0; di++) {
            int i0 = i + di, j0 = j + dj;
            if (i0 < 0 || j0 < 0 || i0 + 1 >= m || j0 + 1 >= m) continue;
            int k0 = j0 * m + i0;
            if (L->st[k0] == 1 && L->st[k0 + 1] == 1 && L->st[k0 + m] == 1 && L->st[k0 + m + 1] == 1) return true;
        }
    return false;
}

/* Ring of sample k: how many samples it lies inside the lattice's edge. */
static int ring_of(int m, int k)
{
    int i = k % m, j = k / m, r = i < j ? i : j;
    if (m - 1 - i < r) r = m - 1 - i;
    if (m - 1 - j < r) r = m - 1 - j;
    return r;
}

/* Whether sample k lies where a hand comes in: the lattice's two outer
 * rings, or beside the picture's edge near them. */
static bool at_root(const lattice *L, int k)
{
    int m = L->m, i = k % m, j = k / m, r = ring_of(m, k);
    if (r <= 1) return true;
    if (r > 3) return false;
    for (int d = 0; d < 4; d++) {
        int ai = i + dx4[d], aj = j + dy4[d];
        if (ai >= 0 && aj >= 0 && ai < m && aj < m && L->st[aj * m + ai] == 2) return true;
    }
    return false;
}

/* A region's body that comes in from outside: its thick samples joined
 * (8-connected, thick all the way) to thick ones where a hand comes in.
 * An arm is solid from the outside in; a thread of light change along
 * the board's edge, with a few blobs where it is wider, and a stone put
 * down near it, are not. */
static int rooted_body(const lattice *L, const int *queue, int qt, int *stack)
{
    int m = L->m, top = 0, body = 0;
    uint8_t mark[OC_MAXN * OC_MAXN]; /* 0 in the region, unvisited */
    memset(mark, 1, (size_t)(m * m));
    for (int q = 0; q < qt; q++) mark[queue[q]] = !thick(L, queue[q]);
    for (int q = 0; q < qt; q++)
        if (!mark[queue[q]] && at_root(L, queue[q])) {
            mark[queue[q]] = 1;
            stack[top++] = queue[q];
        }
    while (top > 0) {
        int k = stack[--top], i = k % m, j = k / m;
        body++;
        for (int dj = -1; dj <= 1; dj++)
            for (int di = -1; di <= 1; di++) {
                int ai = i + di, aj = j + dj;
                if (ai < 0 || aj < 0 || ai >= m || aj >= m || mark[aj * m + ai]) continue;
                mark[aj * m + ai] = 1;
                stack[top++] = aj * m + ai;
            }
    }
    return body;
}

/* One connected changed region from k0 (into queue, *qt samples): its
 * changed area, and whether it touches the outer ring of the lattice (or
 * the picture's edge within two rings of it). */
static int flood_region(const lattice *L, int k0, uint8_t *seen, int *queue, int *qt, bool *seeded)
{
    int m = L->m, qh = 0, area = 0;
    *qt = 0;
    *seeded = false;
    seen[k0] = 1;
    queue[(*qt)++] = k0;
    while (qh < *qt) {
        int k = queue[qh++], i = k % m, j = k / m, ring = ring_of(m, k);
        if (L->ch[k] == 1) {
            area++;
            if (ring == 0) *seeded = true;
        }
        for (int d = 0; d < 4; d++) {
            int ai = i + dx4[d], aj = j + dy4[d];
            if (ai < 0 || aj < 0 || ai >= m || aj >= m) continue;
            int a = aj * m + ai;
            if (L->st[a] == 2 && L->ch[k] == 1 && ring <= 2) *seeded = true;
            if (seen[a] || !L->ch[a]) continue;
            seen[a] = 1;
            queue[(*qt)++] = a;
        }
    }
    return area;
}

/* Whether sample (u, v) lies on the board, inside its edge (the edge the
 * margin scan found on each side; on a side whose edge it did not see,
 * anything is taken to be on the board: nothing is excused there). */
static bool on_board(const track_margin_view *m, int n, double u, double v)
{
    double out[4] = {-v, u - (n - 1), v - (n - 1), -u}; /* cells outside each outer line */
    for (int s = 0; s < 4; s++)
        if (out[s] > 0 && m->edge[s] > 0 && out[s] > m->edge[s]) return false;
    return true;
}

/* Whether a region from outside (queue, qt samples) is only stones put on
 * the margin: every changed sample of it on the board lies on a margin
 * stone this view's scan found (stone-shaped, a stone's colour against
 * that side's wood, not going on beyond the edge), what is left lies
 * beyond the edge (the stone's shadow on the board's side face, the table
 * changing with the light).  An arm or fingers reaching in cross the band
 * somewhere no stone explains. */
static bool margin_stones_only(const lattice *L, const int *queue, int qt)
{
    const track_margin_view *mg = L->margin;
    if (!mg || !mg->valid || mg->n == 0) return false;
    int m = L->m, left = 0, on = 0;
    for (int q = 0; q < qt; q++) {
        int k = queue[q];
        if (L->ch[k] != 1) continue;
        double u = -OC_OUT + (k % m) * OC_STEP, v = -OC_OUT + (k / m) * OC_STEP;
        if (!on_board(mg, L->n, u, v)) continue;
        bool on_stone = false;
        for (int s = 0; s < mg->n && !on_stone; s++)
            on_stone = hypot(u - mg->stones[s].u, v - mg->stones[s].v) <= OC_STONE_R;
        left += !on_stone;
        on += on_stone;
    }
    return on >= OC_STONE_MIN && left <= OC_STONE_LEFT;
}

/* What reaches in: connected changed regions that touch the outer ring of
 * the lattice (or the picture's edge a cell or more outside the lines) and
 * are big enough for a hand, into L->reach: a stone near the far edge,
 * seen obliquely with its shadow, can stretch a cell outside the lines,
 * but not over two cells of area.  *reaching (if given) for a smaller one
 * that crosses the outer line.  False on no memory. */
static bool find_reaching(lattice *L, bool *reaching)
{
    int m = L->m, n = L->n;
    int *queue = malloc(sizeof(int) * (size_t)(m * m) * 2), *stack = queue + m * m; /* (and the body's) */
    uint8_t seen[OC_MAXN * OC_MAXN];
    if (!queue) return false;
    memset(L->reach, 0, (size_t)(m * m));
    memset(seen, 0, (size_t)(m * m));
    for (int k0 = 0; k0 < m * m; k0++) {
        if (!L->ch[k0] || seen[k0]) continue;
        int qt;
        bool seeded;
        int area = flood_region(L, k0, seen, queue, &qt, &seeded);
        /* after an exposure step, only a region with a strong core */
        int strong = 0;
        for (int q = 0; q < qt; q++) strong += L->strong[queue[q]];
        seeded = seeded && (!L->exposure_step || (strong >= OC_STRONG_AREA && strong >= OC_STRONG_SHARE * area));
        /* (one too small to count either way is left as it was) */
        if (seeded && area >= OC_MIN_AREA / 3 && margin_stones_only(L, queue, qt)) {
            L->excused = true;
            seeded = false;
        }
        if (seeded && area >= OC_MIN_AREA && rooted_body(L, queue, qt, stack) >= OC_BODY)
            for (int q = 0; q < qt; q++) L->reach[queue[q]] = 1;
        /* smaller, but from outside across the outer line: something at
         * the edge (fingers), enough to distrust the margin */
        if (seeded && area >= OC_MIN_AREA / 3 && reaching)
            for (int q = 0; q < qt && !*reaching; q++) {
                if (L->ch[queue[q]] != 1) continue; /* (a bridged gap is no evidence of anything there) */
                int i = queue[q] % m, j = queue[q] / m;
                double u = -OC_OUT + i * OC_STEP, v = -OC_OUT + j * OC_STEP;
                *reaching = u >= -0.25 && v >= -0.25 && u <= n - 1 + 0.25 && v <= n - 1 + 0.25;
            }
    }
    free(queue);
    return true;
}

/* Points within half a cell (two samples) of what reached in; returns how
 * many. */
static int cover_points(const lattice *L, uint8_t *covered)
{
    int m = L->m, n = L->n;
    int off = (int)lround(OC_OUT / OC_STEP), ncov = 0;
    for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++) {
            int ci = off + 4 * x, cj = off + 4 * y;
            bool c = false;
            for (int dj = -2; dj <= 2 && !c; dj++)
                for (int di = -2; di <= 2 && !c; di++) {
                    if (abs(di) + abs(dj) > 3) continue;
                    int i = ci + di, j = cj + dj;
                    if (i >= 0 && j >= 0 && i < m && j < m) c = L->reach[j * m + i];
                }
            covered[y * n + x] = c;
            ncov += c;
        }
    return ncov;
}

/* Whether reference ref exists and has view img's size and channels. */
static bool same_shape(const gs_image *ref, const gs_image *img)
{
    return ref && ref->width == img->width && ref->height == img->height && ref->channels == img->channels;
}

/* View img under g against reference ref (taken under rg): the points
 * covered by what reaches in (returns how many), or -1 when most of the
 * board changed (a new look: no hand can be told), -2 on no memory. */
static int compare_with(const gs_image *ref, const vision_grid *rg, const gs_image *img, const vision_grid *g,
                        lattice *L, uint8_t *covered, bool *reaching)
{
    if (reaching) *reaching = false;
    memset(covered, 0, (size_t)L->n * (size_t)L->n);
    L->excused = false;
    sample(img, ref, g, grid_jumped(rg, g) ? rg : g, L);
    if (mark_changed(L)) return -1;
    bridge_gaps(L);
    if (!find_reaching(L, reaching)) return -2;
    return cover_points(L, covered);
}

/* Whether what reached in, against the reference, was in the reference
 * and not in this view: a hand just too small to count, over the edge as
 * the reference was taken, leaves its place changed once it has gone,
 * for good.  Against the clear view before it, nothing reaches in then;
 * a hand still there reaches in against both. */
static bool gone_since(const track_hands *o, const gs_image *img, const vision_grid *g, lattice *L,
                       bool *reaching)
{
    if (!same_shape(o->prev, img)) return false;
    uint8_t cov[GS_MAX_SIZE * GS_MAX_SIZE];
    bool r = false;
    if (compare_with(o->prev, &o->prev_grid, img, g, L, cov, &r) != 0) return false;
    if (reaching) *reaching = r;
    return true;
}

int track_hands_mark(track_hands *o, const gs_image *img, const vision_grid *g, const track_margin_view *margin,
                     uint8_t *covered, bool *reaching)
{
    if (reaching) *reaching = false;
    if (!o || !img || !img->buf || !g || g->size < 2 || g->size > GS_MAX_SIZE || !covered) return 0;
    int n = g->size;
    memset(covered, 0, (size_t)n * (size_t)n);
    if (!same_shape(o->ref, img)) {
        keep_ref(o, img, g);
        return 0;
    }
    int m = (int)lround((n - 1 + 2 * OC_OUT) / OC_STEP) + 1;
    if (m > OC_MAXN) return 0;
    lattice lat, *L = &lat; /* about 200 KB, on the stack as before: no allocation per frame */
    L->m = m;
    L->n = n;
    L->margin = margin;
    int ncov = compare_with(o->ref, &o->ref_grid, img, g, L, covered, reaching);
    if (ncov == -1) {
        keep_ref(o, img, g); /* a new look of the whole board: start from it */
        return 0;
    }
    if (ncov < 0) return 0;
    if (ncov > 0 && gone_since(o, img, g, L, reaching)) {
        memset(covered, 0, (size_t)n * (size_t)n);
        ncov = 0;
    }
    /* a view with stones on the margin is no reference: when they are
     * lifted again, their place would look changed for good; one with
     * something small at the edge is (a stone put on the outer line with
     * its shadow beyond: kept out, it would stay changed and grow with the
     * next stones there into a hand) */
    if (ncov == 0 && !L->excused) keep_ref(o, img, g);
    return ncov;
}
