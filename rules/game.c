/* rules/game.c: a game on top of the lean board (rules.h, layer 2).
 *
 * Keeps every position of the game (setup = position 0) so that a
 * repetition reported by the board's hash set is confirmed by comparing
 * whole boards, and so the referee can say which move's position came back.
 */
#include "rules/rules.h"

#include <stdlib.h>
#include <string.h>

struct rules_game {
    int size;
    rules_board *board;
    double komi;
    int handicap;
    int warnings[3];
    rules_ko_policy ko_policy;
    gs_color to_move;
    gs_color resigned;
    bool cycle;
    gs_position setup;
    gs_move *moves;
    gs_position *pos;     /* pos[i] = position after move i (pos[0] = setup) */
    int nmoves, cap;
};

static bool reserve(rules_game *g, int n)
{
    if (n <= g->cap) return true;
    int cap = g->cap ? g->cap : 64;
    while (cap < n) cap *= 2;
    gs_move *m = realloc(g->moves, (size_t)cap * sizeof *m);
    if (!m) return false;
    g->moves = m;
    gs_position *p = realloc(g->pos, (size_t)(cap + 1) * sizeof *p);
    if (!p) return false;
    g->pos = p;
    g->cap = cap;
    return true;
}

rules_game *rules_game_create(int size, gs_error *err)
{
    if (size < RULES_MIN_SIZE || size > RULES_MAX_SIZE) {
        gs_error_set(err, GS_ERR_USAGE, "board size %d not supported (5..25)", size);
        return NULL;
    }
    rules_game *g = calloc(1, sizeof *g);
    if (!g) goto oom;
    g->size = size;
    g->board = rules_board_create(size);
    if (!g->board || !reserve(g, 64)) goto oom;
    g->komi = RULES_DEFAULT_KOMI;
    g->to_move = GS_BLACK;
    gs_position_clear(&g->setup, size);
    g->pos[0] = g->setup;
    return g;
oom:
    rules_game_destroy(g);
    gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    return NULL;
}

void rules_game_destroy(rules_game *g)
{
    if (!g) return;
    rules_board_destroy(g->board);
    free(g->moves);
    free(g->pos);
    free(g);
}

rules_game *rules_game_clone(const rules_game *src)
{
    if (!src) return NULL;
    rules_game *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    *g = *src;
    g->moves = NULL;
    g->pos = NULL;
    g->cap = 0;
    g->board = rules_board_clone(src->board);
    if (!g->board || !reserve(g, src->cap)) {
        rules_game_destroy(g);
        return NULL;
    }
    if (src->nmoves) memcpy(g->moves, src->moves, (size_t)src->nmoves * sizeof *g->moves);
    memcpy(g->pos, src->pos, (size_t)(src->nmoves + 1) * sizeof *g->pos);
    return g;
}

int rules_game_size(const rules_game *g) { return g->size; }
void rules_game_set_komi(rules_game *g, double k) { g->komi = k; }
double rules_game_komi(const rules_game *g) { return g->komi; }
void rules_game_set_ko_policy(rules_game *g, rules_ko_policy p) { g->ko_policy = p; }
rules_ko_policy rules_game_ko_policy(const rules_game *g) { return g->ko_policy; }
void rules_game_add_warning(rules_game *g, gs_color c)
{
    if (c == GS_BLACK || c == GS_WHITE) g->warnings[c]++;
}
int rules_game_warnings(const rules_game *g, gs_color c)
{
    return (c == GS_BLACK || c == GS_WHITE) ? g->warnings[c] : 0;
}
void rules_game_set_handicap(rules_game *g, int n) { g->handicap = n < 0 ? 0 : n; }
int rules_game_handicap(const rules_game *g) { return g->handicap; }
void rules_game_set_to_move(rules_game *g, gs_color c)
{
    if (c == GS_BLACK || c == GS_WHITE) g->to_move = c;
}
gs_color rules_game_to_move(const rules_game *g) { return g->to_move; }
int rules_game_move_count(const rules_game *g) { return g->nmoves; }
bool rules_game_has_cycle(const rules_game *g) { return g->cycle; }
gs_color rules_game_resigned(const rules_game *g) { return g->resigned; }
const rules_board *rules_game_board(const rules_game *g) { return g->board; }
void rules_game_resign(rules_game *g, gs_color c) { g->resigned = c; }

gs_move rules_game_move(const rules_game *g, int i)
{
    gs_move m = {GS_EMPTY, {-1, -1}, true};
    if (i >= 0 && i < g->nmoves) m = g->moves[i];
    return m;
}

bool rules_game_two_passes(const rules_game *g)
{
    return g->nmoves >= 2 && g->moves[g->nmoves - 1].pass && g->moves[g->nmoves - 2].pass;
}

void rules_game_position(const rules_game *g, gs_position *out) { *out = g->pos[g->nmoves]; }

void rules_game_position_at(const rules_game *g, int i, gs_position *out)
{
    if (i < 0) i = 0;
    if (i > g->nmoves) i = g->nmoves;
    *out = g->pos[i];
}

gs_status rules_game_setup(rules_game *g, gs_color c, gs_point p, gs_error *err)
{
    if (g->nmoves) return gs_error_set(err, GS_ERR_USAGE, "setup stones only before the first move");
    if ((c != GS_BLACK && c != GS_WHITE) || p.x < 0 || p.y < 0 || p.x >= g->size || p.y >= g->size)
        return gs_error_set(err, GS_ERR_USAGE, "setup stone off the board");
    if (gs_position_get(&g->setup, p.x, p.y) != GS_EMPTY) {
        char h[8];
        rules_point_human(p, g->size, h);
        return gs_error_set(err, GS_ERR_USAGE, "setup stone on occupied point %s", h);
    }
    gs_position next = g->setup;
    gs_position_set(&next, p.x, p.y, c);
    gs_status s = rules_board_set_position(g->board, &next, err);
    if (s != GS_OK) {
        gs_error err2;
        /* back to the set-up that was accepted before: it cannot fail */
        (void)rules_board_set_position(g->board, &g->setup, &err2);
        return s;
    }
    g->setup = next;
    g->pos[0] = next;
    return GS_OK;
}

gs_status rules_game_place_handicap(rules_game *g, int n, gs_error *err)
{
    if (n < 2 || n > 9 || g->size < 7)
        return gs_error_set(err, GS_ERR_USAGE, "handicap %d not possible on %dx%d", n, g->size, g->size);
    int e = g->size >= 13 ? 3 : 2, lo = e, hi = g->size - 1 - e, mid = g->size / 2;
    bool odd = g->size % 2 == 1;
    if (!odd && n > 4) return gs_error_set(err, GS_ERR_USAGE, "handicap over 4 needs an odd board size");
    if (g->size < 9 && n > 4) return gs_error_set(err, GS_ERR_USAGE, "handicap over 4 needs a 9x9 board or larger");
    /* Standard order: the four corners, then the sides, then tengen for odd
     * counts (5, 7, 9). */
    gs_point pts[9];
    int k = 0;
    pts[k++] = (gs_point){(int8_t)hi, (int8_t)lo};
    pts[k++] = (gs_point){(int8_t)lo, (int8_t)hi};
    if (n >= 3) pts[k++] = (gs_point){(int8_t)hi, (int8_t)hi};
    if (n >= 4) pts[k++] = (gs_point){(int8_t)lo, (int8_t)lo};
    if (n >= 6) {
        pts[k++] = (gs_point){(int8_t)lo, (int8_t)mid};
        pts[k++] = (gs_point){(int8_t)hi, (int8_t)mid};
    }
    if (n >= 8) {
        pts[k++] = (gs_point){(int8_t)mid, (int8_t)lo};
        pts[k++] = (gs_point){(int8_t)mid, (int8_t)hi};
    }
    if (n % 2 == 1 && n >= 5) pts[k++] = (gs_point){(int8_t)mid, (int8_t)mid};
    for (int i = 0; i < k; i++) {
        gs_status s = rules_game_setup(g, GS_BLACK, pts[i], err);
        if (s != GS_OK) return s;
    }
    g->handicap = n;
    g->to_move = GS_WHITE;
    return GS_OK;
}

static int find_position(const rules_game *g, const gs_position *p)
{
    for (int i = g->nmoves; i >= 0; i--)
        if (!memcmp(g->pos[i].cell, p->cell, (size_t)g->size * (size_t)g->size)) return i;
    return -1;
}

/* Shared by play and check: legality with the repetition confirmed on full
 * positions, and the position it would lead to (on `scratch`). */
static rules_legality judge(const rules_game *g, gs_color c, gs_point p, rules_board **scratch, int *repeats)
{
    *repeats = -1;
    int idx = rules_board_index(g->board, p.x, p.y);
    if (idx == RULES_PASS || (c != GS_BLACK && c != GS_WHITE)) return RULES_ILLEGAL_OFFBOARD;
    rules_legality l = rules_board_check(g->board, idx, c);
    if (l != RULES_ILLEGAL_KO && l != RULES_ILLEGAL_SUPERKO) return l;
    /* Confirm on whole positions and find which one came back. */
    rules_board *t = rules_board_clone(g->board);
    if (!t) return l;  /* no memory: trust the 128-bit keys */
    rules_board_set_superko(t, false);
    /* A ko hit must capture, and the board's own ko test already passed on
     * both keys; play it regardless of the ko rule to see the result. */
    gs_position np;
    gs_position cur = g->pos[g->nmoves];
    if (l == RULES_ILLEGAL_KO) {
        /* rules_board_play would refuse the ko; rebuild it by hand on a
         * board set to the current position (prev keys reset). */
        gs_error e;
        /* the game's own current position: always a valid one */
        (void)rules_board_set_position(t, &cur, &e);
    }
    rules_legality l2 = rules_board_play(t, idx, c);
    if (l2 != RULES_LEGAL) {
        rules_board_destroy(t);
        return l;
    }
    rules_board_get_position(t, &np);
    int r = find_position(g, &np);
    if (scratch) *scratch = t;
    else rules_board_destroy(t);
    if (r < 0) return RULES_LEGAL;  /* a hash fluke: not a real repetition */
    *repeats = r;
    return l;
}

rules_legality rules_game_check(const rules_game *g, gs_color c, gs_point p)
{
    int r;
    return judge(g, c, p, NULL, &r);
}

static void record(rules_game *g, gs_color c, bool pass, gs_point p)
{
    if (!reserve(g, g->nmoves + 1)) return;  /* the board moved on; history keeps what it can */
    g->moves[g->nmoves].color = c;
    g->moves[g->nmoves].pass = pass;
    g->moves[g->nmoves].pt = pass ? (gs_point){-1, -1} : p;
    g->nmoves++;
    rules_board_get_position(g->board, &g->pos[g->nmoves]);
    g->to_move = gs_color_other(c);
}

rules_legality rules_game_play(rules_game *g, gs_color c, gs_point p, rules_move_result *res)
{
    if (res) {
        memset(res, 0, offsetof(rules_move_result, captured));
        res->repeats_move = -1;
    }
    bool out_of_turn = c != g->to_move;
    rules_board *scratch = NULL;
    int rep;
    rules_legality l = judge(g, c, p, &scratch, &rep);
    bool cycle = false;
    if (l == RULES_ILLEGAL_SUPERKO && g->ko_policy == RULES_KO_FLAG_CYCLE) cycle = true;
    if (res) {
        res->legality = cycle ? RULES_LEGAL : l;
        res->out_of_turn = out_of_turn;
        res->repeats_move = rep;
        res->cycle = cycle;
    }
    if (l != RULES_LEGAL && !cycle) {
        rules_board_destroy(scratch);
        return l;
    }
    int idx = rules_board_index(g->board, p.x, p.y);
    if (l != RULES_LEGAL || scratch) {
        /* Either a flagged cycle or a hash fluke: play without the
         * repetition test, then restore it. */
        rules_board_set_superko(g->board, false);
        (void)rules_board_play(g->board, idx, c); /* judged legal (or a flagged cycle) above */
        rules_board_set_superko(g->board, true);
    } else {
        (void)rules_board_play(g->board, idx, c); /* judged legal (or a flagged cycle) above */
    }
    rules_board_destroy(scratch);
    if (cycle) g->cycle = true;
    const int16_t *cap;
    int nc = rules_board_last_captured(g->board, &cap);
    if (res) {
        res->ncaptured = nc;
        for (int i = 0; i < nc; i++) res->captured[i] = rules_board_point(g->board, cap[i]);
    }
    record(g, c, false, p);
    if (res) res->move_number = g->nmoves;
    return res ? res->legality : RULES_LEGAL;
}

void rules_game_pass(rules_game *g, gs_color c)
{
    if (c != GS_BLACK && c != GS_WHITE) c = g->to_move;
    rules_board_pass(g->board);
    record(g, c, true, (gs_point){-1, -1});
}

bool rules_game_undo(rules_game *g)
{
    if (g->nmoves == 0) return false;
    int n = g->nmoves - 1;
    rules_board *b = rules_board_create(g->size);
    if (!b) return false;
    gs_error e;
    /* the set-up and the moves were all accepted once: replaying them
     * cannot fail, their statuses are not looked at */
    (void)rules_board_set_position(b, &g->setup, &e);
    rules_board_set_superko(b, false);  /* the recorded moves were accepted */
    for (int i = 0; i < n; i++) {
        if (g->moves[i].pass) rules_board_pass(b);
        else (void)rules_board_play(b, rules_board_index(b, g->moves[i].pt.x, g->moves[i].pt.y), g->moves[i].color);
    }
    rules_board_set_superko(b, true);
    rules_board_destroy(g->board);
    g->board = b;
    g->nmoves = n;
    g->to_move = n ? gs_color_other(g->moves[n - 1].color) : (g->handicap >= 2 ? GS_WHITE : GS_BLACK);
    g->resigned = GS_EMPTY;
    return true;
}

gs_status rules_game_start(rules_game *g, const gs_position *setup, int handicap, gs_color first, gs_error *err)
{
    int size = rules_game_size(g);
    if (setup && setup->size != size)
        return gs_error_set(err, GS_ERR_FORMAT, "setup size %d differs from board size %d", setup->size, size);
    for (int y = 0; setup && y < size; y++)
        for (int x = 0; x < size; x++) {
            gs_color c = gs_position_get(setup, x, y);
            if (c == GS_EMPTY) continue;
            gs_status s = rules_game_setup(g, c, (gs_point){(int8_t)x, (int8_t)y}, err);
            if (s != GS_OK) return s == GS_ERR_USAGE ? GS_ERR_FORMAT : s;
        }
    rules_game_set_handicap(g, handicap);
    if (first == GS_BLACK || first == GS_WHITE) rules_game_set_to_move(g, first);
    else if (handicap >= 2) rules_game_set_to_move(g, GS_WHITE);
    return GS_OK;
}

rules_legality rules_game_apply(rules_game *g, const gs_move *m, rules_move_result *res)
{
    if (!m->pass) return rules_game_play(g, m->color, m->pt, res);
    rules_game_pass(g, m->color);
    if (res) memset(res, 0, sizeof *res);
    return RULES_LEGAL;
}
