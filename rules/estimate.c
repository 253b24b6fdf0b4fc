/* rules/estimate.c: dead-stone estimate (see rules/rules.h).
 *
 * Benson first (certain life and certain death), then Monte-Carlo ownership
 * on the rules engine's lean board (rules_board): each playout copies the
 * position and plays uniformly random moves that are legal, fill no own eye
 * and are no self-atari of a chain of two or more stones (that keeps seki
 * alive and stops random play from throwing big groups away), until both
 * sides pass.  The area owner of every point is then tallied; chains are
 * judged as units from the share of playouts in which the opponent owns
 * their points. */
#include "rules/rules.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { NP = RULES_ESTIMATE_POINTS };

void rules_estimate_default_options(rules_estimate_options *o)
{
    memset(o, 0, sizeof *o);
    o->playouts = 1000;
    o->time_budget_ms = 500;
    o->dead_threshold = 0.5;
    o->seed = 0x9e3779b97f4a7c15ull;
    o->to_move = GS_EMPTY;
}

/* CPU time of the calling thread in ms: the time budget counts the work
 * done, not the wall clock, so the answer does not change with the load of
 * the machine (only a machine several times slower reaches the budget). */
static double thread_cpu_ms(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return gs_now_ms();
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static uint64_t rng_next(uint64_t *s)
{
    /* xorshift64* */
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

/* The playout state: the rules board plus the map between board indices
 * and row-major points, neighbour lists in board indices and the list of
 * empty points (kept up to date from the captures the board reports). */
typedef struct playout_ctx {
    int size, n, maxidx;
    int *pt2idx;        /* n entries */
    int *idx2pt;        /* maxidx entries, -1 off the board */
    int (*nb)[4];       /* maxidx entries: neighbour board indices, -1 none */
    int *empty;         /* up to n empty board indices */
    int *where;         /* maxidx: position in empty[], -1 if not empty */
    int nempty;
    int *mark;          /* maxidx: flood-fill stamp */
    int stamp;
    int *stack;         /* maxidx */
} playout_ctx;

static void ctx_free(playout_ctx *c)
{
    free(c->pt2idx);
    free(c->idx2pt);
    free(c->nb);
    free(c->empty);
    free(c->where);
    free(c->mark);
    free(c->stack);
}

static bool ctx_init(playout_ctx *c, const rules_board *b)
{
    memset(c, 0, sizeof *c);
    c->size = rules_board_size(b);
    c->n = c->size * c->size;
    c->maxidx = 0;
    for (int y = 0; y < c->size; y++)
        for (int x = 0; x < c->size; x++) {
            int idx = rules_board_index(b, x, y);
            if (idx + 1 > c->maxidx) c->maxidx = idx + 1;
        }
    size_t m = (size_t)c->maxidx;
    c->pt2idx = malloc(sizeof(int) * (size_t)c->n);
    c->idx2pt = malloc(sizeof(int) * m);
    c->nb = malloc(sizeof(int[4]) * m);
    c->empty = malloc(sizeof(int) * (size_t)c->n);
    c->where = malloc(sizeof(int) * m);
    c->mark = calloc(m, sizeof(int));
    c->stack = malloc(sizeof(int) * m);
    if (!c->pt2idx || !c->idx2pt || !c->nb || !c->empty || !c->where || !c->mark || !c->stack) {
        ctx_free(c);
        return false;
    }
    for (size_t i = 0; i < m; i++) {
        c->idx2pt[i] = -1;
        for (int k = 0; k < 4; k++) c->nb[i][k] = -1;
    }
    static const int dx[4] = {-1, 1, 0, 0}, dy[4] = {0, 0, -1, 1};
    for (int y = 0; y < c->size; y++)
        for (int x = 0; x < c->size; x++) {
            int idx = rules_board_index(b, x, y);
            c->pt2idx[y * c->size + x] = idx;
            c->idx2pt[idx] = y * c->size + x;
            for (int k = 0; k < 4; k++) {
                int xx = x + dx[k], yy = y + dy[k];
                c->nb[idx][k] = (xx >= 0 && yy >= 0 && xx < c->size && yy < c->size)
                                    ? rules_board_index(b, xx, yy) : -1;
            }
        }
    return true;
}

static void ctx_load_empty(playout_ctx *c, const rules_board *b)
{
    c->nempty = 0;
    for (int i = 0; i < c->maxidx; i++) c->where[i] = -1;
    for (int p = 0; p < c->n; p++) {
        int idx = c->pt2idx[p];
        if (rules_board_at(b, idx) == GS_EMPTY) {
            c->where[idx] = c->nempty;
            c->empty[c->nempty++] = idx;
        }
    }
}

static void empty_remove(playout_ctx *c, int idx)
{
    int w = c->where[idx];
    if (w < 0) return;
    int last = c->empty[--c->nempty];
    c->empty[w] = last;
    c->where[last] = w;
    c->where[idx] = -1;
}

static void empty_add(playout_ctx *c, int idx)
{
    if (c->where[idx] >= 0) return;
    c->where[idx] = c->nempty;
    c->empty[c->nempty++] = idx;
}

/* Collects the liberties (other than `skip`) of the group at `start` into
 * libs (distinct, at most `want`); returns how many were found. */
static int group_libs(playout_ctx *c, const rules_board *b, int start, int skip, int *libs,
                      int nlibs, int want)
{
    gs_color col = rules_board_at(b, start);
    c->stamp++;
    int sp = 0;
    c->stack[sp++] = start;
    c->mark[start] = c->stamp;
    while (sp) {
        int p = c->stack[--sp];
        for (int k = 0; k < 4; k++) {
            int q = c->nb[p][k];
            if (q < 0 || c->mark[q] == c->stamp) continue;
            gs_color qc = rules_board_at(b, q);
            if (qc == col) {
                c->mark[q] = c->stamp;
                c->stack[sp++] = q;
            } else if (qc == GS_EMPTY && q != skip) {
                int j;
                for (j = 0; j < nlibs && libs[j] != q; j++) {}
                if (j == nlibs) {
                    libs[nlibs++] = q;
                    if (nlibs >= want) return nlibs;
                }
            }
        }
    }
    return nlibs;
}

/* True when c at idx would leave a chain of two or more stones with a
 * single liberty and capture nothing (single-stone throw-ins stay allowed:
 * they are how dead shapes get killed). */
static bool bad_self_atari(playout_ctx *c, const rules_board *b, int idx, gs_color col)
{
    int libs[4], nlibs = 0, friends[4], nfriends = 0;
    gs_color opp = gs_color_other(col);
    for (int k = 0; k < 4; k++) {
        int q = c->nb[idx][k];
        if (q < 0) continue;
        gs_color qc = rules_board_at(b, q);
        if (qc == GS_EMPTY) {
            libs[nlibs++] = q;
        } else if (qc == opp) {
            if (rules_board_liberties(b, q) == 1) return false; /* captures */
        } else {
            if (rules_board_liberties(b, q) >= 3) return false;
            friends[nfriends++] = q;
        }
    }
    if (nlibs >= 2 || nfriends == 0) return false;
    int all[8];
    int na = 0;
    for (int j = 0; j < nlibs; j++) all[na++] = libs[j];
    for (int f = 0; f < nfriends && na < 2; f++) na = group_libs(c, b, friends[f], idx, all, na, 2);
    return na < 2;
}

/* Plays col at idx if legal, keeping the empty list; true if played. */
static bool play_at(playout_ctx *c, rules_board *b, int idx, gs_color col)
{
    if (rules_board_play(b, idx, col) != RULES_LEGAL) return false;
    empty_remove(c, idx);
    const int16_t *cap;
    int ncap = rules_board_last_captured(b, &cap);
    for (int k = 0; k < ncap; k++) empty_add(c, cap[k]);
    return true;
}

/* The answer to the opponent's last move, as a player would give it: take
 * a chain the move left in atari (its own chain included), else save a chain
 * of ours it put in atari.  Without this, random play lets invaders of a
 * large territory live too often.  Returns the move played or RULES_PASS. */
static int play_reply(playout_ctx *c, rules_board *b, gs_color col, int last)
{
    if (last < 0 || rules_board_at(b, last) == GS_EMPTY) return RULES_PASS;
    gs_color opp = gs_color_other(col);
    int cand[5], nc = 0;
    /* captures first: the last move's chain and its neighbours */
    int chains[5] = {last, c->nb[last][0], c->nb[last][1], c->nb[last][2], c->nb[last][3]};
    for (int pass = 0; pass < 2; pass++)
        for (int k = 0; k < 5; k++) {
            int q = chains[k];
            if (q < 0) continue;
            gs_color qc = rules_board_at(b, q);
            if (qc != (pass == 0 ? opp : col) || rules_board_liberties(b, q) != 1) continue;
            int lib;
            if (group_libs(c, b, q, -1, &lib, 0, 1) != 1) continue;
            if (pass == 1 && bad_self_atari(c, b, lib, col)) continue;
            if (pass == 1 && rules_board_is_eye(b, lib, col)) continue;
            cand[nc++] = lib;
        }
    for (int k = 0; k < nc; k++)
        if (play_at(c, b, cand[k], col)) return cand[k];
    return RULES_PASS;
}

/* Half the time a move next to the opponent's last move (the 8 points
 * around it), as a player answers locally; RULES_PASS if none was played. */
static int play_local(playout_ctx *c, rules_board *b, gs_color col, int last, uint64_t *rng)
{
    if (last < 0 || (rng_next(rng) & 1)) return RULES_PASS;
    int cand[8], nc = 0;
    for (int k = 0; k < 4; k++) {
        int q = c->nb[last][k];
        if (q < 0) continue;
        if (rules_board_at(b, q) == GS_EMPTY) cand[nc++] = q;
        /* diagonals: the neighbours' neighbours across the other axis */
        for (int j = (k < 2 ? 2 : 0); j < (k < 2 ? 4 : 2); j++) {
            int d = c->nb[q][j];
            if (d < 0 || rules_board_at(b, d) != GS_EMPTY) continue;
            int m;
            for (m = 0; m < nc && cand[m] != d; m++) {}
            if (m == nc) cand[nc++] = d;
        }
    }
    while (nc > 0) {
        int j = (int)(rng_next(rng) % (uint64_t)nc);
        int idx = cand[j];
        cand[j] = cand[--nc];
        if (rules_board_is_eye(b, idx, col) || bad_self_atari(c, b, idx, col)) continue;
        if (play_at(c, b, idx, col)) return idx;
    }
    return RULES_PASS;
}

/* One random move for col (board index), RULES_PASS if none; plays it. */
static int play_random(playout_ctx *c, rules_board *b, gs_color col, uint64_t *rng)
{
    int left = c->nempty;
    while (left > 0) {
        int j = (int)(rng_next(rng) % (uint64_t)left);
        int idx = c->empty[j];
        /* move the candidate out of the way: swap it to position left-1 */
        int other = c->empty[left - 1];
        c->empty[left - 1] = idx;
        c->where[idx] = left - 1;
        c->empty[j] = other;
        c->where[other] = j;
        left--;
        if (rules_board_is_eye(b, idx, col)) continue;
        if (bad_self_atari(c, b, idx, col)) continue;
        if (!play_at(c, b, idx, col)) continue;
        return idx;
    }
    return RULES_PASS;
}

/* Area owner of every point at the end of a playout: stones own their
 * point, an empty region belongs to the only colour bordering it. */
static void tally(playout_ctx *c, const rules_board *b, int *own_b, int *own_w)
{
    c->stamp++;
    for (int p = 0; p < c->n; p++) {
        int idx = c->pt2idx[p];
        gs_color col = rules_board_at(b, idx);
        if (col == GS_BLACK) {
            own_b[p]++;
            continue;
        }
        if (col == GS_WHITE) {
            own_w[p]++;
            continue;
        }
        if (c->mark[idx] == c->stamp) continue;
        /* flood the empty region, note the colours around it */
        int sp = 0, bor = 0, nreg = 0;
        int *reg = c->empty; /* the empty list is rebuilt before the next playout */
        c->stack[sp++] = idx;
        c->mark[idx] = c->stamp;
        while (sp) {
            int q = c->stack[--sp];
            reg[nreg++] = q;
            for (int k = 0; k < 4; k++) {
                int r = c->nb[q][k];
                if (r < 0) continue;
                gs_color rc = rules_board_at(b, r);
                if (rc == GS_EMPTY) {
                    if (c->mark[r] != c->stamp) {
                        c->mark[r] = c->stamp;
                        c->stack[sp++] = r;
                    }
                } else {
                    bor |= rc;
                }
            }
        }
        if (bor == GS_BLACK || bor == GS_WHITE)
            for (int k = 0; k < nreg; k++) {
                int pp = c->idx2pt[reg[k]];
                if (bor == GS_BLACK) own_b[pp]++;
                else own_w[pp]++;
            }
    }
}

/* Row-major chain labels of pos; returns the number of chains. */
static int chains_of(const gs_position *pos, int *lab)
{
    int size = pos->size, n = size * size, count = 0;
    int stack[NP];
    for (int i = 0; i < n; i++) lab[i] = -1;
    for (int i = 0; i < n; i++) {
        if (pos->cell[i] == GS_EMPTY || lab[i] >= 0) continue;
        int sp = 0;
        stack[sp++] = i;
        lab[i] = count;
        while (sp) {
            int p = stack[--sp], x = p % size, y = p / size;
            int q[4] = {x > 0 ? p - 1 : -1, x < size - 1 ? p + 1 : -1, y > 0 ? p - size : -1,
                        y < size - 1 ? p + size : -1};
            for (int k = 0; k < 4; k++)
                if (q[k] >= 0 && lab[q[k]] < 0 && pos->cell[q[k]] == pos->cell[i]) {
                    lab[q[k]] = count;
                    stack[sp++] = q[k];
                }
        }
        count++;
    }
    return count;
}

/* Copies pos into clean without the chains that have no liberty (stones a
 * capture left on the board, or a misread photo), marking them in gone. */
static int remove_captured(const gs_position *pos, gs_position *clean, uint8_t *gone)
{
    int n = pos->size * pos->size;
    *clean = *pos;
    int removed = rules_position_drop_airless(clean);
    for (int p = 0; p < n; p++) gone[p] = pos->cell[p] != GS_EMPTY && clean->cell[p] == GS_EMPTY;
    return removed;
}

/* The options in force: the defaults, with what opt sets over them. */
static rules_estimate_options merge_options(const rules_estimate_options *opt)
{
    rules_estimate_options o;
    rules_estimate_default_options(&o);
    if (opt) {
        if (opt->playouts > 0) o.playouts = opt->playouts;
        if (opt->time_budget_ms != 0) o.time_budget_ms = opt->time_budget_ms;
        if (opt->dead_threshold > 0 && opt->dead_threshold < 1) o.dead_threshold = opt->dead_threshold;
        if (opt->seed) o.seed = opt->seed;
        o.to_move = opt->to_move;
    }
    return o;
}

/* One playout on work (a copy of base): reply, local answer or random
 * move, side after side, until two passes in a row; the area owners
 * tallied into own_b / own_w. */
static gs_status one_playout(playout_ctx *ctx, const rules_board *base, rules_board *work, gs_color col,
                             uint64_t *rng, int *own_b, int *own_w, gs_error *err)
{
    if (rules_board_copy(work, base) != GS_OK) return gs_error_set(err, GS_ERR_NOMEM, "estimate: out of memory");
    rules_board_set_superko(work, false);
    ctx_load_empty(ctx, work);
    int max_moves = 3 * ctx->n + 100;
    int passes = 0, last = -1;
    for (int m = 0; m < max_moves && passes < 2; m++) {
        int mv = play_reply(ctx, work, col, last);
        if (mv == RULES_PASS) mv = play_local(ctx, work, col, last, rng);
        if (mv == RULES_PASS) mv = play_random(ctx, work, col, rng);
        if (mv == RULES_PASS) {
            rules_board_pass(work);
            passes++;
        } else {
            passes = 0;
        }
        last = mv;
        col = gs_color_other(col);
    }
    tally(ctx, work, own_b, own_w);
    return GS_OK;
}

/* Runs up to o->playouts playouts from pos (stopping past the CPU time
 * budget, counted from c0, after at least 16); the area owner counts in
 * own_b / own_w, the number run in *played. */
static gs_status run_playouts(const gs_position *pos, const rules_estimate_options *o, double c0, int *own_b,
                              int *own_w, int *played, gs_error *err)
{
    *played = 0;
    rules_board *base = rules_board_create(pos->size);
    rules_board *work = rules_board_create(pos->size);
    playout_ctx ctx;
    bool ctx_ok = false;
    gs_status st = GS_OK;
    if (!base || !work) st = gs_error_set(err, GS_ERR_NOMEM, "estimate: out of memory");
    if (st == GS_OK) st = rules_board_set_position(base, pos, err);
    if (st == GS_OK) {
        rules_board_set_superko(base, false); /* playouts need no history */
        if (!(ctx_ok = ctx_init(&ctx, base))) st = gs_error_set(err, GS_ERR_NOMEM, "estimate: out of memory");
    }
    uint64_t rng = o->seed ? o->seed : 1;
    for (int k = 0; st == GS_OK && k < o->playouts; k++) {
        if (o->time_budget_ms > 0 && k >= 16 && thread_cpu_ms() - c0 > o->time_budget_ms) break;
        gs_color col = o->to_move != GS_EMPTY ? o->to_move : (k & 1) ? GS_WHITE : GS_BLACK;
        st = one_playout(&ctx, base, work, col, &rng, own_b, own_w, err);
        if (st == GS_OK) (*played)++;
    }
    if (ctx_ok) ctx_free(&ctx);
    rules_board_destroy(base);
    rules_board_destroy(work);
    return st;
}

/* What the playouts and Benson say of each chain (arrays of nch + 1). */
typedef struct chain_verdicts {
    int nch;
    int lab[NP];          /* chain of each point, -1 for empty */
    double *opp_share;    /* summed share of the opponent owning each point */
    int *stones;
    uint8_t *safe;        /* Benson: unconditionally alive */
    uint8_t *certain_dead;/* Benson: inside a region vital to the enemy */
    uint8_t *dead;
    uint8_t *unsure;      /* share within 0.15 of the threshold */
} chain_verdicts;

static void verdicts_free(chain_verdicts *v)
{
    free(v->opp_share), free(v->stones), free(v->safe), free(v->certain_dead), free(v->dead), free(v->unsure);
}

/* Judges every chain of pos: safe (Benson) stays alive, certainly dead
 * (Benson) is dead, else dead when the opponent owned its points in more
 * than the threshold share of the playouts; marks out->dead / status. */
static gs_status judge_chains(const gs_position *pos, uint8_t ben[2][NP], const int *own_b, const int *own_w,
                              int played, const rules_estimate_options *o, chain_verdicts *v,
                              rules_estimate_result *out, gs_error *err)
{
    int n = pos->size * pos->size;
    v->nch = chains_of(pos, v->lab);
    size_t m = (size_t)v->nch + 1;
    v->opp_share = calloc(m, sizeof(double));
    v->stones = calloc(m, sizeof(int));
    v->safe = calloc(m, 1), v->certain_dead = calloc(m, 1), v->dead = calloc(m, 1), v->unsure = calloc(m, 1);
    if (!v->opp_share || !v->stones || !v->safe || !v->certain_dead || !v->dead || !v->unsure)
        return gs_error_set(err, GS_ERR_NOMEM, "estimate: out of memory");
    for (int p = 0; p < n; p++) {
        int ch = v->lab[p];
        if (ch < 0) continue;
        gs_color col = (gs_color)pos->cell[p];
        int ci = col == GS_BLACK ? 0 : 1;
        v->stones[ch]++;
        v->opp_share[ch] += played ? (double)(col == GS_BLACK ? own_w[p] : own_b[p]) / played : 0;
        if (ben[ci][p] == 1) v->safe[ch] = 1;
        if (ben[1 - ci][p] == 2) v->certain_dead[ch] = 1;
    }
    for (int ch = 0; ch < v->nch; ch++) {
        double share = v->stones[ch] ? v->opp_share[ch] / v->stones[ch] : 0;
        if (v->safe[ch]) v->dead[ch] = 0;
        else if (v->certain_dead[ch]) v->dead[ch] = 1;
        else {
            v->dead[ch] = share > o->dead_threshold;
            if (share > o->dead_threshold - 0.15 && share < o->dead_threshold + 0.15) {
                out->uncertain_chains++;
                v->unsure[ch] = 1;
            }
        }
    }
    for (int p = 0; p < n; p++) {
        int ch = v->lab[p];
        if (ch < 0) continue;
        if (v->dead[ch]) {
            out->dead[p] = 1;
            out->status[p] = RULES_ESTIMATE_DEAD;
            if (pos->cell[p] == GS_BLACK) out->dead_black++;
            else out->dead_white++;
        } else if (v->safe[ch]) {
            out->status[p] = RULES_ESTIMATE_SAFE;
        }
    }
    return GS_OK;
}

/* Seki: two living chains of opposite colours sharing an empty point that
 * the playouts leave to neither side (dame) in most of them. */
static void mark_seki(const gs_position *pos, const chain_verdicts *v, const int *own_b, const int *own_w,
                      int played, rules_estimate_result *out)
{
    int size = pos->size, n = size * size;
    uint8_t *seki = calloc((size_t)v->nch + 1, 1);
    if (!seki) return; /* no memory: no seki reported, the chains stay alive */
    for (int p = 0; p < n; p++) {
        if (pos->cell[p] != GS_EMPTY || !played) continue;
        double dame_share = 1.0 - (double)(own_b[p] + own_w[p]) / played;
        if (dame_share < 0.5) continue;
        int x = p % size, y = p / size;
        int q[4] = {x > 0 ? p - 1 : -1, x < size - 1 ? p + 1 : -1, y > 0 ? p - size : -1,
                    y < size - 1 ? p + size : -1};
        int bch = -1, wch = -1;
        for (int k = 0; k < 4; k++) {
            if (q[k] < 0 || v->lab[q[k]] < 0 || v->dead[v->lab[q[k]]]) continue;
            if (pos->cell[q[k]] == GS_BLACK) bch = v->lab[q[k]];
            else wch = v->lab[q[k]];
        }
        if (bch >= 0 && wch >= 0 && !v->safe[bch] && !v->safe[wch]) seki[bch] = seki[wch] = 1;
    }
    for (int p = 0; p < n; p++)
        if (v->lab[p] >= 0 && seki[v->lab[p]]) {
            out->status[p] = RULES_ESTIMATE_SEKI;
            out->seki_stones++;
        }
    free(seki);
}

gs_status rules_estimate_dead(const gs_position *pos_in, const rules_estimate_options *opt,
                              rules_estimate_result *out, gs_error *err)
{
    if (!pos_in || !out || pos_in->size < RULES_MIN_SIZE || pos_in->size > GS_MAX_SIZE)
        return gs_error_set(err, GS_ERR_USAGE, "estimate: board size must be %d..%d", RULES_MIN_SIZE,
                            GS_MAX_SIZE);
    double t0 = gs_now_ms(), c0 = thread_cpu_ms();
    rules_estimate_options o = merge_options(opt);
    memset(out, 0, sizeof *out);
    int size = pos_in->size, n = size * size;
    out->size = size;
    gs_position clean;
    uint8_t gone[NP];
    out->captured_stones = remove_captured(pos_in, &clean, gone);
    const gs_position *pos = &clean;

    /* 1. Benson, both colours. */
    uint8_t ben[2][NP];
    rules_estimate_benson(pos, GS_BLACK, ben[0]);
    rules_estimate_benson(pos, GS_WHITE, ben[1]);

    /* 2. Playouts. */
    int *own_b = calloc((size_t)n, sizeof(int)), *own_w = calloc((size_t)n, sizeof(int));
    int played = 0;
    gs_status st = own_b && own_w ? run_playouts(pos, &o, c0, own_b, own_w, &played, err)
                                  : gs_error_set(err, GS_ERR_NOMEM, "estimate: out of memory");
    if (st == GS_OK) {
        out->playouts = played;
        for (int p = 0; p < n; p++)
            out->ownership[p] = played ? (float)(own_b[p] - own_w[p]) / (float)played : 0.0f;
    }

    /* 3. Decide chain by chain, then seki. */
    chain_verdicts *v = st == GS_OK ? calloc(1, sizeof *v) : NULL;
    if (st == GS_OK && !v) st = gs_error_set(err, GS_ERR_NOMEM, "estimate: out of memory");
    if (st == GS_OK) st = judge_chains(pos, ben, own_b, own_w, played, &o, v, out, err);
    if (st == GS_OK) {
        mark_seki(pos, v, own_b, own_w, played, out);
        for (int p = 0; p < n; p++) out->uncertain[p] = v->lab[p] >= 0 && v->unsure[v->lab[p]];
        /* Chains without a liberty were taken off before: dead too. */
        for (int p = 0; p < n; p++)
            if (gone[p]) {
                out->dead[p] = 1;
                out->status[p] = RULES_ESTIMATE_DEAD;
                if (pos_in->cell[p] == GS_BLACK) out->dead_black++;
                else out->dead_white++;
            }
    }
    if (v) verdicts_free(v);
    free(v);
    free(own_b);
    free(own_w);
    out->ms = gs_now_ms() - t0;
    return st;
}
