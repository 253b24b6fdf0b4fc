/* rules/board.c: the lean exact board (see rules.h, layer 1).
 *
 * Layout: a (size+2)^2 grid with a one-point border of sentinels, so the
 * four neighbours of any board point are always valid indices.  Every group
 * is a circular list of stones (next[]) whose head index is its id; the
 * head owns a liberty bitset over all indices plus an exact liberty count,
 * a stone count and the XOR of its stones' Zobrist keys, so a move's legality
 * and the hash of the position it would create are known in O(1), and the
 * superko check costs one probe of an open-addressing set of 128-bit keys.
 */
#include "rules/rules.h"

#include <stdlib.h>
#include <string.h>

enum { BORDER = 3 };

typedef struct { uint64_t a, b; } key128;

struct rules_board {
    int size, W, np, nw;          /* side, stride, points incl. border, bitset words */
    bool superko;
    /* ---- state (copied) ---- */
    uint64_t h1, h2;              /* current position */
    uint64_t prev1, prev2;        /* position before the last move or pass */
    int nempty;
    int ncaptured;
    int prisoners[3];
    /* ---- per-point arrays, one block (copied as a whole) ---- */
    uint8_t *color;               /* np */
    int16_t *group;               /* np: head of the stone's group, 0 if none */
    int16_t *next;                /* np: circular stone list */
    int16_t *empties;             /* np: list of empty points */
    int16_t *epos;                /* np: index of a point in empties */
    int16_t *captured;            /* np: last capture list */
    uint16_t *nlibs;              /* np (by head) */
    uint16_t *nstones;            /* np (by head) */
    uint64_t *gh1, *gh2;          /* np (by head): XOR of stone keys */
    uint64_t *libs;               /* np * nw (by head) */
    size_t state_bytes;
    void *block;
    /* ---- keys (deterministic per size, not copied between same sizes) ---- */
    uint64_t *z1, *z2;            /* np * 2 (colour 1, 2) */
    /* ---- history set ---- */
    key128 *set;
    size_t set_cap, set_count;
};

/* splitmix64: deterministic key generator, seeded per board. */
static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline uint64_t *LIBS(const rules_board *b, int g) { return b->libs + (size_t)g * b->nw; }
static inline bool lib_has(const rules_board *b, int g, int p) { return (LIBS(b, g)[p >> 6] >> (p & 63)) & 1; }

/* --------------------------------------------------------- history set */

static size_t set_slot(size_t cap, uint64_t h1) { return (size_t)(h1 ^ (h1 >> 29)) & (cap - 1); }

static bool set_has(const rules_board *b, uint64_t h1, uint64_t h2)
{
    size_t i = set_slot(b->set_cap, h1);
    for (;;) {
        const key128 *k = &b->set[i];
        if (k->a == 0 && k->b == 0) return false;
        if (k->a == h1 && k->b == h2) return true;
        i = (i + 1) & (b->set_cap - 1);
    }
}

static void set_put_raw(key128 *set, size_t cap, uint64_t h1, uint64_t h2, size_t *count)
{
    size_t i = set_slot(cap, h1);
    for (;;) {
        key128 *k = &set[i];
        if (k->a == 0 && k->b == 0) {
            k->a = h1;
            k->b = h2;
            (*count)++;
            return;
        }
        if (k->a == h1 && k->b == h2) return;
        i = (i + 1) & (cap - 1);
    }
}

static bool set_grow(rules_board *b, size_t cap)
{
    key128 *ns = calloc(cap, sizeof *ns);
    if (!ns) return false;
    size_t n = 0;
    for (size_t i = 0; i < b->set_cap; i++)
        if (b->set[i].a || b->set[i].b) set_put_raw(ns, cap, b->set[i].a, b->set[i].b, &n);
    free(b->set);
    b->set = ns;
    b->set_cap = cap;
    b->set_count = n;
    return true;
}

/* Keeps the load under 1/2.  If growing fails the set stays correct (just
 * fuller); at 15/16 we stop inserting rather than loop forever. */
static void set_put(rules_board *b, uint64_t h1, uint64_t h2)
{
    if ((b->set_count + 1) * 2 > b->set_cap) {
        if (!set_grow(b, b->set_cap * 2) && (b->set_count + 1) * 16 > b->set_cap * 15) return;
    }
    set_put_raw(b->set, b->set_cap, h1, h2, &b->set_count);
}

static void set_reset(rules_board *b)
{
    memset(b->set, 0, b->set_cap * sizeof *b->set);
    b->set_count = 0;
}

/* --------------------------------------------------------------- create */

static size_t align8(size_t n) { return (n + 7) & ~(size_t)7; }

rules_board *rules_board_create(int size)
{
    if (size < RULES_MIN_SIZE || size > RULES_MAX_SIZE) return NULL;
    rules_board *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    b->size = size;
    b->W = size + 2;
    b->np = b->W * b->W;
    b->nw = (b->np + 63) / 64;
    b->superko = true;
    size_t np = (size_t)b->np, off = 0;
    size_t o_color = off; off = align8(off + np);
    size_t o_group = off; off = align8(off + np * 2);
    size_t o_next = off; off = align8(off + np * 2);
    size_t o_emp = off; off = align8(off + np * 2);
    size_t o_epos = off; off = align8(off + np * 2);
    size_t o_cap = off; off = align8(off + np * 2);
    size_t o_nl = off; off = align8(off + np * 2);
    size_t o_ns = off; off = align8(off + np * 2);
    size_t o_g1 = off; off += np * 8;
    size_t o_g2 = off; off += np * 8;
    size_t o_libs = off; off += np * (size_t)b->nw * 8;
    b->state_bytes = off;
    size_t o_z1 = off; off += np * 2 * 8;
    size_t o_z2 = off; off += np * 2 * 8;
    b->block = calloc(1, off);
    /* Room for a long game without growing: a playout of 3*N*N moves
     * stays near half load. */
    b->set_cap = 1024;
    while (b->set_cap < (size_t)b->np * 4) b->set_cap *= 2;
    b->set = calloc(b->set_cap, sizeof *b->set);
    if (!b->block || !b->set) {
        rules_board_destroy(b);
        return NULL;
    }
    char *m = b->block;
    b->color = (uint8_t *)(m + o_color);
    b->group = (int16_t *)(m + o_group);
    b->next = (int16_t *)(m + o_next);
    b->empties = (int16_t *)(m + o_emp);
    b->epos = (int16_t *)(m + o_epos);
    b->captured = (int16_t *)(m + o_cap);
    b->nlibs = (uint16_t *)(m + o_nl);
    b->nstones = (uint16_t *)(m + o_ns);
    b->gh1 = (uint64_t *)(m + o_g1);
    b->gh2 = (uint64_t *)(m + o_g2);
    b->libs = (uint64_t *)(m + o_libs);
    b->z1 = (uint64_t *)(m + o_z1);
    b->z2 = (uint64_t *)(m + o_z2);
    /* Keys depend only on the board size, so equal-size boards (and their
     * copies) agree on hashes. */
    uint64_t s = 0x676F7363726962ull ^ (uint64_t)size;
    for (size_t i = 0; i < np * 2; i++) {
        b->z1[i] = splitmix(&s);
        b->z2[i] = splitmix(&s);
    }
    rules_board_clear(b);
    return b;
}

void rules_board_destroy(rules_board *b)
{
    if (!b) return;
    free(b->block);
    free(b->set);
    free(b);
}

/* The empty board's keys: non-zero so a set slot of zeros means "free". */
static const uint64_t EMPTY_H1 = 0x5A17C0DEB0A4D001ull, EMPTY_H2 = 0x1CEB00DA7E57F00Dull;

void rules_board_clear(rules_board *b)
{
    memset(b->block, 0, b->state_bytes);
    b->nempty = 0;
    for (int y = 0; y < b->W; y++)
        for (int x = 0; x < b->W; x++) {
            int i = y * b->W + x;
            if (x == 0 || y == 0 || x == b->W - 1 || y == b->W - 1) {
                b->color[i] = BORDER;
            } else {
                b->color[i] = GS_EMPTY;
                b->epos[i] = (int16_t)b->nempty;
                b->empties[b->nempty++] = (int16_t)i;
            }
        }
    b->h1 = b->prev1 = EMPTY_H1;
    b->h2 = b->prev2 = EMPTY_H2;
    b->ncaptured = 0;
    b->prisoners[0] = b->prisoners[1] = b->prisoners[2] = 0;
    set_reset(b);
    set_put(b, b->h1, b->h2);
}

rules_board *rules_board_clone(const rules_board *src)
{
    if (!src) return NULL;
    rules_board *b = rules_board_create(src->size);
    if (!b) return NULL;
    if (rules_board_copy(b, src) != GS_OK) {
        rules_board_destroy(b);
        return NULL;
    }
    return b;
}

gs_status rules_board_copy(rules_board *dst, const rules_board *src)
{
    if (dst == src) return GS_OK;
    if (dst->size != src->size) {
        rules_board *t = rules_board_create(src->size);
        if (!t) return GS_ERR_NOMEM;
        /* swap contents so dst keeps its address */
        rules_board tmp = *dst;
        *dst = *t;
        *t = tmp;
        rules_board_destroy(t);
    }
    if (dst->set_cap > src->set_cap) {
        /* Keep the bigger table (a playout board grew it): re-insert. */
        memset(dst->set, 0, dst->set_cap * sizeof *dst->set);
        dst->set_count = 0;
        for (size_t i = 0; i < src->set_cap; i++)
            if (src->set[i].a || src->set[i].b)
                set_put_raw(dst->set, dst->set_cap, src->set[i].a, src->set[i].b, &dst->set_count);
    } else {
        if (dst->set_cap < src->set_cap) {
            key128 *ns = malloc(src->set_cap * sizeof *ns);
            if (!ns) return GS_ERR_NOMEM;
            free(dst->set);
            dst->set = ns;
            dst->set_cap = src->set_cap;
        }
        memcpy(dst->set, src->set, src->set_cap * sizeof *src->set);
        dst->set_count = src->set_count;
    }
    memcpy(dst->block, src->block, src->state_bytes);
    dst->superko = src->superko;
    dst->h1 = src->h1;
    dst->h2 = src->h2;
    dst->prev1 = src->prev1;
    dst->prev2 = src->prev2;
    dst->nempty = src->nempty;
    dst->ncaptured = src->ncaptured;
    memcpy(dst->prisoners, src->prisoners, sizeof dst->prisoners);
    return GS_OK;
}

/* ------------------------------------------------------------- queries */

int rules_board_size(const rules_board *b) { return b->size; }

int rules_board_index(const rules_board *b, int x, int y)
{
    if (x < 0 || y < 0 || x >= b->size || y >= b->size) return RULES_PASS;
    return (y + 1) * b->W + x + 1;
}

gs_point rules_board_point(const rules_board *b, int idx)
{
    gs_point p = {-1, -1};
    if (idx < 0 || idx >= b->np || b->color[idx] == BORDER) return p;
    p.x = (int8_t)(idx % b->W - 1);
    p.y = (int8_t)(idx / b->W - 1);
    return p;
}

gs_color rules_board_at(const rules_board *b, int idx)
{
    if (idx < 0 || idx >= b->np || b->color[idx] == BORDER) return GS_EMPTY;
    return (gs_color)b->color[idx];
}

int rules_board_captures(const rules_board *b, gs_color by)
{
    return (by == GS_BLACK || by == GS_WHITE) ? b->prisoners[by] : 0;
}

void rules_board_set_superko(rules_board *b, bool on) { b->superko = on; }

static bool is_stone(const rules_board *b, int idx)
{
    return idx > 0 && idx < b->np && (b->color[idx] == GS_BLACK || b->color[idx] == GS_WHITE);
}

int rules_board_liberties(const rules_board *b, int idx)
{
    return is_stone(b, idx) ? b->nlibs[b->group[idx]] : 0;
}

int rules_board_group_stones(const rules_board *b, int idx)
{
    return is_stone(b, idx) ? b->nstones[b->group[idx]] : 0;
}

int rules_board_group_id(const rules_board *b, int idx)
{
    return is_stone(b, idx) ? b->group[idx] : -1;
}

uint64_t rules_board_hash(const rules_board *b) { return b->h1; }

bool rules_board_in_history(const rules_board *b, uint64_t h1, uint64_t h2) { return set_has(b, h1, h2); }

/* ------------------------------------------------------------ legality */

static inline uint64_t Z1(const rules_board *b, int p, gs_color c) { return b->z1[p * 2 + (c - 1)]; }
static inline uint64_t Z2(const rules_board *b, int p, gs_color c) { return b->z2[p * 2 + (c - 1)]; }

/* Legality of c at p and, when legal, the keys of the position it makes. */
static rules_legality check_move(const rules_board *b, int p, gs_color c, uint64_t *n1, uint64_t *n2)
{
    if (p <= 0 || p >= b->np || b->color[p] == BORDER || (c != GS_BLACK && c != GS_WHITE))
        return RULES_ILLEGAL_OFFBOARD;
    if (b->color[p] != GS_EMPTY) return RULES_ILLEGAL_OCCUPIED;
    const int nb[4] = {p - b->W, p - 1, p + 1, p + b->W};
    gs_color o = gs_color_other(c);
    bool lib = false;
    int caps[4], ncap = 0;
    for (int k = 0; k < 4; k++) {
        int q = nb[k];
        uint8_t col = b->color[q];
        if (col == GS_EMPTY) {
            lib = true;
        } else if (col == c) {
            if (b->nlibs[b->group[q]] > 1) lib = true;
        } else if (col == o) {
            int g = b->group[q];
            if (b->nlibs[g] == 1) {
                bool dup = false;
                for (int j = 0; j < ncap; j++) dup |= caps[j] == g;
                if (!dup) caps[ncap++] = g;
            }
        }
    }
    if (!lib && ncap == 0) return RULES_ILLEGAL_SUICIDE;
    uint64_t h1 = b->h1 ^ Z1(b, p, c), h2 = b->h2 ^ Z2(b, p, c);
    for (int j = 0; j < ncap; j++) {
        h1 ^= b->gh1[caps[j]];
        h2 ^= b->gh2[caps[j]];
    }
    *n1 = h1;
    *n2 = h2;
    /* Only a capture can bring back the position before the opponent's
     * last move; any other repeat is a longer cycle. */
    if (ncap && h1 == b->prev1 && h2 == b->prev2) return RULES_ILLEGAL_KO;
    if (b->superko && set_has(b, h1, h2)) return RULES_ILLEGAL_SUPERKO;
    return RULES_LEGAL;
}

rules_legality rules_board_check(const rules_board *b, int idx, gs_color c)
{
    uint64_t a, d;
    return check_move(b, idx, c, &a, &d);
}

/* ---------------------------------------------------------------- play */

static inline void lib_add(rules_board *b, int g, int p)
{
    uint64_t *w = &LIBS(b, g)[p >> 6], m = 1ull << (p & 63);
    if (!(*w & m)) {
        *w |= m;
        b->nlibs[g]++;
    }
}

static inline void lib_del(rules_board *b, int g, int p)
{
    uint64_t *w = &LIBS(b, g)[p >> 6], m = 1ull << (p & 63);
    if (*w & m) {
        *w &= ~m;
        b->nlibs[g]--;
    }
}

static inline void empty_remove(rules_board *b, int p)
{
    int i = b->epos[p], last = b->empties[--b->nempty];
    b->empties[i] = (int16_t)last;
    b->epos[last] = (int16_t)i;
}

static inline void empty_add(rules_board *b, int p)
{
    b->epos[p] = (int16_t)b->nempty;
    b->empties[b->nempty++] = (int16_t)p;
}

/* Merges group gb into ga (ga the bigger); returns the surviving head. */
static int merge(rules_board *b, int ga, int gb)
{
    if (b->nstones[ga] < b->nstones[gb]) {
        int t = ga;
        ga = gb;
        gb = t;
    }
    int s = gb;
    do {
        b->group[s] = (int16_t)ga;
        s = b->next[s];
    } while (s != gb);
    int t = b->next[ga];
    b->next[ga] = b->next[gb];
    b->next[gb] = (int16_t)t;
    uint64_t *la = LIBS(b, ga), *lb = LIBS(b, gb);
    int n = 0;
    for (int w = 0; w < b->nw; w++) {
        la[w] |= lb[w];
        n += __builtin_popcountll(la[w]);
    }
    b->nlibs[ga] = (uint16_t)n;
    b->nstones[ga] = (uint16_t)(b->nstones[ga] + b->nstones[gb]);
    b->gh1[ga] ^= b->gh1[gb];
    b->gh2[ga] ^= b->gh2[gb];
    return ga;
}

static void remove_group(rules_board *b, int g, gs_color by)
{
    int s = g;
    do {
        int nx = b->next[s];
        b->color[s] = GS_EMPTY;
        b->group[s] = 0;
        empty_add(b, s);
        b->captured[b->ncaptured++] = (int16_t)s;
        const int nb[4] = {s - b->W, s - 1, s + 1, s + b->W};
        for (int k = 0; k < 4; k++)
            if (b->color[nb[k]] == by) lib_add(b, b->group[nb[k]], s);
        s = nx;
    } while (s != g);
    b->prisoners[by] += b->nstones[g];
}

/* Places the stone; legality already established. */
static void do_play(rules_board *b, int p, gs_color c, uint64_t n1, uint64_t n2)
{
    gs_color o = gs_color_other(c);
    b->ncaptured = 0;
    b->color[p] = (uint8_t)c;
    empty_remove(b, p);
    b->group[p] = (int16_t)p;
    b->next[p] = (int16_t)p;
    b->nstones[p] = 1;
    b->nlibs[p] = 0;
    memset(LIBS(b, p), 0, (size_t)b->nw * 8);
    b->gh1[p] = Z1(b, p, c);
    b->gh2[p] = Z2(b, p, c);
    int g = p;
    const int nb[4] = {p - b->W, p - 1, p + 1, p + b->W};
    for (int k = 0; k < 4; k++) {
        int q = nb[k];
        uint8_t col = b->color[q];
        if (col == GS_EMPTY) {
            lib_add(b, g, q);
        } else if (col == c) {
            int h = b->group[q];
            lib_del(b, h, p);
            if (h != g) g = merge(b, g, h);
        } else if (col == o) {
            lib_del(b, b->group[q], p);
        }
    }
    for (int k = 0; k < 4; k++) {
        int q = nb[k];
        if (b->color[q] == o && b->nlibs[b->group[q]] == 0) remove_group(b, b->group[q], c);
    }
    b->prev1 = b->h1;
    b->prev2 = b->h2;
    b->h1 = n1;
    b->h2 = n2;
    set_put(b, n1, n2);
}

rules_legality rules_board_play(rules_board *b, int idx, gs_color c)
{
    uint64_t n1, n2;
    rules_legality l = check_move(b, idx, c, &n1, &n2);
    if (l == RULES_LEGAL) do_play(b, idx, c, n1, n2);
    return l;
}

int rules_board_last_captured(const rules_board *b, const int16_t **idx)
{
    if (idx) *idx = b->captured;
    return b->ncaptured;
}

void rules_board_pass(rules_board *b)
{
    b->ncaptured = 0;
    b->prev1 = b->h1;
    b->prev2 = b->h2;
}

/* ------------------------------------------------------------ position */

void rules_board_get_position(const rules_board *b, gs_position *out)
{
    gs_position_clear(out, b->size);
    for (int y = 0; y < b->size; y++)
        for (int x = 0; x < b->size; x++) out->cell[y * b->size + x] = b->color[(y + 1) * b->W + x + 1];
}

gs_status rules_board_set_position(rules_board *b, const gs_position *pos, gs_error *err)
{
    if (!pos || pos->size != b->size)
        return gs_error_set(err, GS_ERR_FORMAT, "position size %d does not match board size %d",
                            pos ? pos->size : 0, b->size);
    for (int i = 0; i < b->size * b->size; i++)
        if (pos->cell[i] > GS_WHITE) return gs_error_set(err, GS_ERR_FORMAT, "bad cell value %d", pos->cell[i]);
    rules_board *t = rules_board_create(b->size);
    if (!t) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    t->superko = false;
    /* Build by placing stones one by one on a scratch board; a stone whose
     * placement captures or is suicide means the position has a group
     * without liberties (checked at the end instead, once all are down). */
    for (int y = 0; y < b->size; y++)
        for (int x = 0; x < b->size; x++) {
            gs_color c = (gs_color)pos->cell[y * b->size + x];
            if (c == GS_EMPTY) continue;
            int p = rules_board_index(t, x, y);
            /* Direct placement without capture logic. */
            t->color[p] = (uint8_t)c;
            empty_remove(t, p);
            t->group[p] = (int16_t)p;
            t->next[p] = (int16_t)p;
            t->nstones[p] = 1;
            t->nlibs[p] = 0;
            memset(LIBS(t, p), 0, (size_t)t->nw * 8);
            t->gh1[p] = Z1(t, p, c);
            t->gh2[p] = Z2(t, p, c);
            t->h1 ^= t->gh1[p];
            t->h2 ^= t->gh2[p];
        }
    /* Liberties and merges once every stone stands. */
    for (int p = 0; p < t->np; p++) {
        uint8_t c = t->color[p];
        if (c != GS_BLACK && c != GS_WHITE) continue;
        const int nb[4] = {p - t->W, p - 1, p + 1, p + t->W};
        for (int k = 0; k < 4; k++) {
            int q = nb[k];
            if (t->color[q] == GS_EMPTY) lib_add(t, t->group[p], q);
            else if (t->color[q] == c && t->group[q] != t->group[p]) merge(t, t->group[p], t->group[q]);
        }
    }
    for (int p = 0; p < t->np; p++) {
        if ((t->color[p] == GS_BLACK || t->color[p] == GS_WHITE) && t->nlibs[t->group[p]] == 0) {
            gs_point pt = rules_board_point(t, p);
            char h[8];
            rules_point_human(pt, b->size, h);
            rules_board_destroy(t);
            return gs_error_set(err, GS_ERR_FORMAT, "the group at %s has no liberties", h);
        }
    }
    t->prev1 = t->h1;
    t->prev2 = t->h2;
    set_reset(t);
    set_put(t, t->h1, t->h2);
    t->superko = b->superko;
    gs_status s = rules_board_copy(b, t);
    rules_board_destroy(t);
    if (s != GS_OK) return gs_error_set(err, s, "out of memory");
    return GS_OK;
}

/* ------------------------------------------------------------ playouts */

bool rules_board_is_eye(const rules_board *b, int p, gs_color c)
{
    if (p <= 0 || p >= b->np || b->color[p] != GS_EMPTY) return false;
    const int W = b->W;
    const int nb[4] = {p - W, p - 1, p + 1, p + W};
    for (int k = 0; k < 4; k++) {
        uint8_t col = b->color[nb[k]];
        if (col != c && col != BORDER) return false;
    }
    const int dg[4] = {p - W - 1, p - W + 1, p + W - 1, p + W + 1};
    int bad = 0, edge = 0;
    gs_color o = gs_color_other(c);
    for (int k = 0; k < 4; k++) {
        uint8_t col = b->color[dg[k]];
        if (col == BORDER) edge = 1;
        else if (col == o) bad++;
    }
    return bad + edge < 2;
}

static inline uint32_t rng_below(uint64_t *s, uint32_t n)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    uint64_t r = x * 0x2545F4914F6CDD1Dull;
    return (uint32_t)(((r >> 32) * (uint64_t)n) >> 32);
}

/* Picks among the empties by rejection: a rejected point is swapped to the
 * end of the (unordered) empty list and the range shrinks, so every
 * acceptable point is equally likely. */
static int pick_move(rules_board *b, gs_color c, uint64_t *rng, uint64_t *n1, uint64_t *n2)
{
    if (*rng == 0) *rng = 0x9E3779B97F4A7C15ull;
    int n = b->nempty;
    while (n > 0) {
        int i = (int)rng_below(rng, (uint32_t)n);
        int p = b->empties[i];
        if (!rules_board_is_eye(b, p, c) && check_move(b, p, c, n1, n2) == RULES_LEGAL) return p;
        int last = b->empties[n - 1];
        b->empties[i] = (int16_t)last;
        b->epos[last] = (int16_t)i;
        b->empties[n - 1] = (int16_t)p;
        b->epos[p] = (int16_t)(n - 1);
        n--;
    }
    return RULES_PASS;
}

int rules_board_random_move(rules_board *b, gs_color c, uint64_t *rng)
{
    uint64_t a, d;
    return pick_move(b, c, rng, &a, &d);
}

int rules_board_playout(rules_board *b, gs_color to_move, int max_moves, uint64_t *rng, gs_color *last_to_move)
{
    int passes = 0, n = 0;
    gs_color c = to_move;
    while (n < max_moves && passes < 2) {
        uint64_t n1, n2;
        int p = pick_move(b, c, rng, &n1, &n2);
        if (p == RULES_PASS) {
            rules_board_pass(b);
            passes++;
        } else {
            do_play(b, p, c, n1, n2);
            passes = 0;
        }
        n++;
        c = gs_color_other(c);
    }
    if (last_to_move) *last_to_move = c;
    return n;
}

/* The group of pos at i into stones[*len] (marked in seen); true when it
 * touches an empty point.  stones doubles as the search's queue. */
static bool group_breathes(const gs_position *pos, int i, uint8_t *seen, int16_t *stones, int *len)
{
    int n = pos->size, head = 0;
    uint8_t c = pos->cell[i];
    bool air = false;
    *len = 0;
    stones[(*len)++] = (int16_t)i;
    seen[i] = 1;
    while (head < *len) {
        int p = stones[head++], x = p % n, y = p / n;
        const int nb[4] = {x > 0 ? p - 1 : -1, x < n - 1 ? p + 1 : -1, y > 0 ? p - n : -1, y < n - 1 ? p + n : -1};
        for (int k = 0; k < 4; k++) {
            int q = nb[k];
            if (q < 0) continue;
            if (pos->cell[q] == GS_EMPTY) air = true;
            else if (pos->cell[q] == c && !seen[q]) {
                seen[q] = 1;
                stones[(*len)++] = (int16_t)q;
            }
        }
    }
    return air;
}

int rules_position_drop_airless(gs_position *pos)
{
    int n = pos->size, cells = n * n, dropped = 0;
    uint8_t seen[GS_MAX_SIZE * GS_MAX_SIZE] = {0}, drop[GS_MAX_SIZE * GS_MAX_SIZE] = {0};
    int16_t stones[GS_MAX_SIZE * GS_MAX_SIZE];
    for (int i = 0; i < cells; i++) {
        if (pos->cell[i] == GS_EMPTY || seen[i]) continue;
        int len;
        if (group_breathes(pos, i, seen, stones, &len)) continue;
        for (int k = 0; k < len; k++) drop[stones[k]] = 1;
        dropped += len;
    }
    for (int i = 0; i < cells; i++)
        if (drop[i]) pos->cell[i] = GS_EMPTY;
    return dropped;
}

const char *rules_legality_name(rules_legality l)
{
    switch (l) {
    case RULES_LEGAL: return "legal";
    case RULES_ILLEGAL_OFFBOARD: return "off the board";
    case RULES_ILLEGAL_OCCUPIED: return "occupied point";
    case RULES_ILLEGAL_SUICIDE: return "suicide";
    case RULES_ILLEGAL_KO: return "ko";
    case RULES_ILLEGAL_SUPERKO: return "superko";
    }
    return "?";
}
