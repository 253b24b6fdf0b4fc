/* score/count_range.c: the range of a count over the readings its doubt
 * allows (record.h, score_count_range_run).
 *
 * The board as read is counted; then each other reading one doubt away:
 * a point read with doubt as its next likeliest colour, a chain of such
 * points (touching, of one read colour) all at once, and each chain whose
 * life the dead-stone estimate could not settle counted both ways.  The
 * estimate is rerun for the other readings, but its verdict is taken only
 * where the change reaches: the chains that hold or touch the changed
 * points or the empty regions round them; every other chain keeps the one
 * of the board as read (so playout noise far from the change moves
 * nothing).  That locality also lets one rerun serve several readings
 * whose reach does not meet (a batch), and where Benson's unconditional
 * life settles every chain a change reaches no playout is run at all.
 * The work is fixed by the input (playouts, not time): the same range on
 * every machine.
 */
#include "score/score_internal.h"

#include "rules/rules.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { NP = RULES_MAX_POINTS };

/* Playouts of each rerun of the estimate (the count's own takes up to
 * 1000).  Fewer playouts put a split chain within 0.15 of even odds more
 * often, so counted both ways: the range widens.  On the 46 goban-watcher
 * photos, 64 against 1000: median width 21 against 18 points, the truth
 * inside on 45 alike, 23 ms of one core against 350 (median). */
#define RANGE_PLAYOUTS 64
/* ...and at most this many over all the reruns of one range (down to
 * RANGE_PLAYOUTS_MIN each): a photo with dozens of doubtful points in
 * dozens of places then costs what 16 places do (under 100 ms of one core
 * on each goban-watcher photo), its range judged with noisier playouts. */
#define RANGE_PLAYOUT_BUDGET 1024
#define RANGE_PLAYOUTS_MIN 16
/* A playout lasts about as long as the board has empty points to fill: the
 * budget holds for boards with up to this many (finished 19x19 games have
 * 60-100), and shrinks in proportion on emptier ones (an early position). */
#define RANGE_BUDGET_EMPTY 100

/* The work of one range: its input, the margin as read, the answer so
 * far and scratch space (an estimate result is a few KB). */
typedef struct range_work {
    const score_range_input *in;
    int size, n;
    rules_estimate_options eo;   /* of the reruns */
    score_count_range *out;
    rules_estimate_result *est;  /* a rerun's */
} range_work;

/* Same sign of two margins in stones (a draw is its own winner). */
static int winner_of(double m) { return m > 1e-9 ? 1 : m < -1e-9 ? -1 : 0; }

/* The orthogonal neighbours of p on a size x size board into q; how many. */
static int neighbours(int p, int size, int q[4])
{
    int x = p % size, y = p / size, k = 0;
    if (x > 0) q[k++] = p - 1;
    if (x < size - 1) q[k++] = p + 1;
    if (y > 0) q[k++] = p - size;
    if (y < size - 1) q[k++] = p + size;
    return k;
}

/* The points joined to start through points of its colour (with allow[p],
 * allow NULL = all) into list, each marked in seen; returns how many. */
static int flood(const gs_position *pos, int start, const uint8_t *allow, uint8_t *seen, int *list)
{
    int n = 0, sp = 0, stack[NP], q[4];
    uint8_t c = pos->cell[start];
    seen[start] = 1;
    stack[sp++] = start;
    while (sp) {
        int p = stack[--sp];
        list[n++] = p;
        for (int k = neighbours(p, pos->size, q) - 1; k >= 0; k--)
            if (!seen[q[k]] && pos->cell[q[k]] == c && (!allow || allow[q[k]])) {
                seen[q[k]] = 1;
                stack[sp++] = q[k];
            }
    }
    return n;
}

/* Whether the life of the stone at p was set by hand (score_range_input
 * life_given): every reading keeps it. */
static bool life_given(const range_work *w, int p) { return w->in->life_given && w->in->life_given[p]; }

/* Black's margin in stones of pos with dead removed. */
static gs_status margin_of(const range_work *w, const gs_position *pos, const uint8_t *dead, double *m, gs_error *err)
{
    rules_count c;
    gs_status st = rules_count_position(pos, dead, &w->in->count, &c, err);
    *m = c.margin_stones;
    return st;
}

/* One more reading counted: margin m, made of the points a (na) and b
 * (nb) read or judged otherwise than on the board as read. */
static void consider(range_work *w, double m, const int *a, int na, const int *b, int nb)
{
    score_count_range *r = w->out;
    r->readings++;
    r->low = fmin(r->low, m);
    r->high = fmax(r->high, m);
    bool moves = fabs(m - r->base) > 1e-9, turns = winner_of(m) != winner_of(r->base);
    for (int k = 0; k < na + nb; k++) {
        int p = k < na ? a[k] : b[k - na];
        r->check[p] |= moves;
        r->winner[p] |= turns;
    }
}

/* Each chain of pos with uncertain[p] (and near[p], near NULL = all)
 * counted with its life the other way, in the reading made of the
 * points changed (nchanged of them). */
static gs_status life_doubt(range_work *w, const gs_position *pos, const uint8_t *dead, const uint8_t *uncertain,
                            const uint8_t *near, const int *changed, int nchanged, gs_error *err)
{
    uint8_t seen[NP] = {0}, flip[NP];
    int chain[NP];
    gs_status st = GS_OK;
    for (int p = 0; p < w->n && st == GS_OK; p++) {
        if (!uncertain[p] || seen[p] || pos->cell[p] == GS_EMPTY || (near && !near[p]) || life_given(w, p)) continue;
        int k = flood(pos, p, NULL, seen, chain);
        memcpy(flip, dead, (size_t)w->n);
        for (int j = 0; j < k; j++) flip[chain[j]] = !dead[chain[j]];
        double m;
        st = margin_of(w, pos, flip, &m, err);
        /* the points to check: the chain, or in another reading the
         * points read otherwise (the life follows from them) */
        if (st == GS_OK) consider(w, m, changed, nchanged, chain, nchanged ? 0 : k);
    }
    return st;
}

void score_near_chains(const gs_position *pos, const int *changed, int nchanged, uint8_t *near)
{
    int n = pos->size * pos->size, list[NP], around[NP], q[5], r[4]; /* q: the neighbours and the point */
    uint8_t seen[NP] = {0};
    memset(near, 0, (size_t)n);
    for (int c = 0; c < nchanged; c++) {
        int k = neighbours(changed[c], pos->size, q);
        q[k++] = changed[c];
        for (int j = 0; j < k; j++) {
            if (seen[q[j]]) continue;
            int m = flood(pos, q[j], NULL, seen, list);
            if (pos->cell[q[j]] != GS_EMPTY) {
                for (int i = 0; i < m; i++) near[list[i]] = 1;
                continue;
            }
            /* an empty region: the chains round it */
            for (int i = 0; i < m; i++)
                for (int e = neighbours(list[i], pos->size, r) - 1; e >= 0; e--)
                    if (pos->cell[r[e]] != GS_EMPTY && !near[r[e]]) {
                        uint8_t mark[NP] = {0};
                        int t = flood(pos, r[e], NULL, mark, around);
                        for (int a = 0; a < t; a++) near[around[a]] = 1;
                    }
        }
    }
}

/* Benson's verdict on every stone with near[p] of pos (those whose life
 * was given, given[p], aside): true when each is unconditionally alive or
 * certainly dead (or without a liberty: taken off), the dead ones then
 * marked in dead. */
static bool benson_settles(const gs_position *pos, const uint8_t *near, const uint8_t *given, uint8_t *dead)
{
    int n = pos->size * pos->size;
    gs_position clean = *pos;
    rules_position_drop_airless(&clean);
    uint8_t ben[2][NP];
    rules_estimate_benson(&clean, GS_BLACK, ben[0]);
    rules_estimate_benson(&clean, GS_WHITE, ben[1]);
    for (int p = 0; p < n; p++) {
        if (!near[p] || pos->cell[p] == GS_EMPTY || (given && given[p])) continue;
        int ci = pos->cell[p] == GS_BLACK ? 0 : 1;
        bool gone = clean.cell[p] == GS_EMPTY, killed = gone || ben[1 - ci][p] == 2;
        if (!killed && ben[ci][p] != 1) return false;
        dead[p] = killed;
    }
    return true;
}

/* The other readings of the doubtful points: each one's points changed
 * (first, n into changed), the chains its change reaches (near), its dead
 * stones and the chains still in doubt (uncertain) where it reaches, and
 * the batch of the estimate's reruns that judges them (-1: none needed). */
typedef struct other_reading {
    int first, n, batch;
    uint8_t *near, *dead, *uncertain;
} other_reading;

typedef struct reading_set {
    int count, nbatch;
    int *changed;         /* every reading's points, one after the other */
    gs_color *colour;     /* ... and the colour each is read as */
    other_reading *r;
    uint8_t *buf;         /* 3 n bytes a reading */
} reading_set;

static void reading_set_free(reading_set *s)
{
    free(s->changed);
    free(s->colour);
    free(s->r);
    free(s->buf);
}

/* Reading k of s into pos: the board as read with its points changed. */
static void reading_position(const range_work *w, const reading_set *s, int k, gs_position *pos)
{
    *pos = *w->in->pos;
    const int *c = s->changed + s->r[k].first;
    const gs_color *col = s->colour + s->r[k].first;
    for (int j = 0; j < s->r[k].n; j++) pos->cell[c[j]] = (uint8_t)col[j];
}

/* Adds the reading of the n points of list, read as colours, to s. */
static void reading_add(const range_work *w, reading_set *s, const int *list, const gs_color *colours, int n)
{
    other_reading *r = &s->r[s->count];
    r->first = s->count ? s->r[s->count - 1].first + s->r[s->count - 1].n : 0;
    r->n = n;
    r->batch = -1;
    r->near = s->buf + (size_t)s->count * 3 * (size_t)w->n;
    r->dead = r->near + w->n;
    r->uncertain = r->dead + w->n;
    memcpy(s->changed + r->first, list, sizeof *list * (size_t)n);
    memcpy(s->colour + r->first, colours, sizeof *colours * (size_t)n);
    s->count++;
}

/* The colour a doubtful point p is read as in a reading: its next
 * likeliest, or, when that is not known (SCORE_SECOND_ANY), the first
 * (alt 0) or the second (alt 1) other colour: a stone empty then the
 * other colour, an empty point black then white. */
static gs_color other_colour(const score_range_input *in, int p, int alt)
{
    gs_color c = (gs_color)in->pos->cell[p];
    if (in->second[p] != SCORE_SECOND_ANY) return in->second[p];
    if (c == GS_EMPTY) return alt ? GS_WHITE : GS_BLACK;
    return alt ? gs_color_other(c) : GS_EMPTY;
}

/* Whether doubtful point p has another colour to be read as. */
static bool may_move(const score_range_input *in, int p)
{
    return in->second[p] == SCORE_SECOND_ANY || (uint8_t)in->second[p] != in->pos->cell[p];
}

/* The readings of one chain of doubtful points (chain, k points): each
 * point alone as each colour it may be, then the chain at once (its
 * points that have another colour to take), twice when some of them may
 * be either other colour.  Returns how many of its points may move. */
static int chain_readings(const range_work *w, reading_set *s, const int *chain, int k)
{
    const score_range_input *in = w->in;
    int moved[NP], nm = 0, nany = 0;
    gs_color col[NP];
    for (int j = 0; j < k; j++)
        if (may_move(in, chain[j])) {
            moved[nm++] = chain[j];
            nany += in->second[chain[j]] == SCORE_SECOND_ANY;
        }
    for (int j = 0; j < nm; j++)
        for (int alt = 0; alt <= (in->second[moved[j]] == SCORE_SECOND_ANY); alt++) {
            col[0] = other_colour(in, moved[j], alt);
            reading_add(w, s, &moved[j], col, 1);
        }
    for (int alt = 0; nm >= 2 && alt <= (nany > 0); alt++) {
        for (int j = 0; j < nm; j++) col[j] = other_colour(in, moved[j], alt);
        reading_add(w, s, moved, col, nm);
    }
    return nm;
}

/* The reading of every doubtful point at once as its next likeliest
 * colour (twice when some may be either), when they lie in two chains or
 * more: a photo misread alike in many places apart is right only so (the
 * goban-watcher photo game 1 blue 2: 20 far white stones read as the
 * wood, each its own chain, the truth outside every reading one doubt
 * away). */
static void all_at_once(const range_work *w, reading_set *s, int chains)
{
    const score_range_input *in = w->in;
    int moved[NP], nm = 0, nany = 0;
    gs_color col[NP];
    for (int p = 0; p < w->n; p++)
        if (in->doubt[p] && may_move(in, p)) {
            moved[nm++] = p;
            nany += in->second[p] == SCORE_SECOND_ANY;
        }
    for (int alt = 0; chains >= 2 && alt <= (nany > 0); alt++) {
        for (int j = 0; j < nm; j++) col[j] = other_colour(in, moved[j], alt);
        reading_add(w, s, moved, col, nm);
    }
}

/* The readings: each doubtful point alone, then each chain of two or more
 * of them (its points that have another colour to take) at once. */
static gs_status readings_list(const range_work *w, reading_set *s, gs_error *err)
{
    const score_range_input *in = w->in;
    memset(s, 0, sizeof *s);
    /* at most two readings a point, two a chain (SCORE_SECOND_ANY), each
     * chain's as long as the chain, and two of every point at once */
    size_t most = 6 * (size_t)w->n;
    s->changed = malloc(sizeof *s->changed * most);
    s->colour = malloc(sizeof *s->colour * most);
    s->r = malloc(sizeof *s->r * most);
    s->buf = malloc(3 * (size_t)w->n * most);
    if (!s->changed || !s->colour || !s->r || !s->buf)
        return gs_error_set(err, GS_ERR_NOMEM, "count range: out of memory");
    uint8_t seen[NP] = {0};
    int chain[NP], chains = 0;
    for (int p = 0; p < w->n; p++) {
        if (!in->doubt[p] || seen[p]) continue;
        chains += chain_readings(w, s, chain, flood(in->pos, p, in->doubt, seen, chain)) > 0;
    }
    all_at_once(w, s, chains);
    return GS_OK;
}

/* Given dead stones: a stone a reading adds is dead when it joins a dead
 * chain of its colour, and alive otherwise. */
static void given_dead(const range_work *w, const gs_position *pos, const int *changed, int nchanged, uint8_t *dead)
{
    int q[4];
    for (int c = 0; c < nchanged; c++) {
        int s = changed[c];
        dead[s] = 0;
        for (int k = neighbours(s, w->size, q) - 1; k >= 0; k--)
            if (pos->cell[s] != GS_EMPTY && pos->cell[q[k]] == pos->cell[s] && w->in->dead[q[k]]) dead[s] = 1;
    }
}

/* Each reading's dead stones where that needs no playout: given ones, or
 * Benson's where his verdict settles every chain its change reaches; the
 * others get batch 0 (to be placed). */
static void readings_settle(const range_work *w, reading_set *s)
{
    for (int k = 0; k < s->count; k++) {
        other_reading *r = &s->r[k];
        const int *c = s->changed + r->first;
        gs_position pos;
        reading_position(w, s, k, &pos);
        memcpy(r->dead, w->in->dead, (size_t)w->n);
        memset(r->uncertain, 0, (size_t)w->n);
        for (int j = 0; j < r->n; j++) r->dead[c[j]] = 0;
        if (!w->in->est) {
            memset(r->near, 0, (size_t)w->n);
            given_dead(w, &pos, c, r->n, r->dead);
            continue;
        }
        score_near_chains(&pos, c, r->n, r->near);
        if (!benson_settles(&pos, r->near, w->in->life_given, r->dead)) r->batch = 0;
    }
}

/* Places the readings that need playouts into batches whose readings
 * reach apart (their near chains and changed points, with the points
 * round those, do not meet), so that one rerun of the estimate on the
 * board with all of a batch's changes judges each of them where it
 * reaches; returns the number of batches. */
static int readings_batch(const range_work *w, reading_set *s, uint8_t *zones)
{
    int nb = 0, q[4];
    uint8_t zone[NP];
    for (int k = 0; k < s->count; k++) {
        other_reading *r = &s->r[k];
        if (r->batch < 0) continue;
        memcpy(zone, r->near, (size_t)w->n);
        const int *c = s->changed + r->first;
        for (int j = 0; j < r->n; j++) {
            zone[c[j]] = 1;
            for (int e = neighbours(c[j], w->size, q) - 1; e >= 0; e--) zone[q[e]] = 1;
        }
        int b = 0;
        for (; b < nb; b++) {
            const uint8_t *z = zones + (size_t)b * (size_t)w->n;
            int p = 0;
            while (p < w->n && !(z[p] && zone[p])) p++;
            if (p == w->n) break;
        }
        if (b == nb) memset(zones + (size_t)nb++ * (size_t)w->n, 0, (size_t)w->n);
        uint8_t *z = zones + (size_t)b * (size_t)w->n;
        for (int p = 0; p < w->n; p++) z[p] |= zone[p];
        r->batch = b;
    }
    return nb;
}

/* Batch b's rerun: the estimate on the board as read with every change of
 * its readings, its verdicts taken by each reading where it reaches. */
static gs_status batch_rerun(range_work *w, reading_set *s, int b, gs_error *err)
{
    gs_position pos = *w->in->pos;
    for (int k = 0; k < s->count; k++) {
        if (s->r[k].batch != b) continue;
        const int *c = s->changed + s->r[k].first;
        const gs_color *col = s->colour + s->r[k].first;
        for (int j = 0; j < s->r[k].n; j++) pos.cell[c[j]] = (uint8_t)col[j];
    }
    gs_status st = rules_estimate_dead(&pos, &w->eo, w->est, err);
    if (st != GS_OK) return st;
    w->out->reruns++;
    for (int k = 0; k < s->count; k++) {
        other_reading *r = &s->r[k];
        if (r->batch != b) continue;
        for (int p = 0; p < w->n; p++)
            if (r->near[p] && !life_given(w, p)) {
                r->dead[p] = w->est->dead[p];
                r->uncertain[p] = w->est->uncertain[p];
            }
    }
    return GS_OK;
}

/* The playouts of each of nbatch reruns, within the range's budget. */
static void rerun_playouts(range_work *w, int nbatch)
{
    int empty = 0;
    for (int p = 0; p < w->n; p++) empty += w->in->pos->cell[p] == GS_EMPTY;
    long budget = empty > RANGE_BUDGET_EMPTY ? (long)RANGE_PLAYOUT_BUDGET * RANGE_BUDGET_EMPTY / empty
                                             : RANGE_PLAYOUT_BUDGET;
    long each = nbatch > 0 ? budget / nbatch : w->eo.playouts;
    if (each < w->eo.playouts) w->eo.playouts = each > RANGE_PLAYOUTS_MIN ? (int)each : RANGE_PLAYOUTS_MIN;
}

/* Each doubtful point, and each chain of them, read as its next likeliest
 * colour: its dead stones found (given, Benson, or the estimate rerun in
 * batches), then counted, with its own doubtful lives both ways. */
static gs_status reading_doubt(range_work *w, gs_error *err)
{
    reading_set s;
    gs_status st = readings_list(w, &s, err);
    uint8_t *zones = st == GS_OK ? malloc((size_t)w->n * (size_t)(s.count + 1)) : NULL;
    if (st == GS_OK && !zones) st = gs_error_set(err, GS_ERR_NOMEM, "count range: out of memory");
    if (st == GS_OK) {
        readings_settle(w, &s);
        s.nbatch = readings_batch(w, &s, zones);
        rerun_playouts(w, s.nbatch);
    }
    for (int b = 0; st == GS_OK && b < s.nbatch; b++) st = batch_rerun(w, &s, b, err);
    for (int k = 0; st == GS_OK && k < s.count; k++) {
        other_reading *r = &s.r[k];
        const int *c = s.changed + r->first;
        gs_position pos;
        reading_position(w, &s, k, &pos);
        double m;
        st = margin_of(w, &pos, r->dead, &m, err);
        if (st != GS_OK) break;
        consider(w, m, c, r->n, NULL, 0);
        if (w->in->est) st = life_doubt(w, &pos, r->dead, r->uncertain, r->near, c, r->n, err);
    }
    free(zones);
    reading_set_free(&s);
    return st;
}

/* Every point in doubt: the board's lines are, and any result is possible
 * (from the whole board White's to the whole board Black's). */
static gs_status whole_board(range_work *w, gs_error *err)
{
    gs_position all;
    gs_position_clear(&all, w->size);
    double m;
    memset(all.cell, GS_WHITE, (size_t)w->n);
    gs_status st = margin_of(w, &all, NULL, &m, err);
    w->out->low = m;
    memset(all.cell, GS_BLACK, (size_t)w->n);
    if (st == GS_OK) st = margin_of(w, &all, NULL, &m, err);
    w->out->high = m;
    w->out->unbounded = true;
    return st;
}

/* The summary fields of out from its low, high and masks. */
static void range_finish(score_count_range *r, int n)
{
    char text[96];
    rules_result_format(r->low, r->low_sgf, text);
    rules_result_format(r->high, r->high_sgf, text);
    r->sure = fabs(r->high - r->low) < 1e-9;
    r->winner_sure = !r->unbounded && winner_of(r->low) == winner_of(r->high);
    for (int p = 0; p < n; p++) {
        r->ncheck += r->check[p] != 0;
        r->nwinner += r->winner[p] != 0;
    }
}

/* CPU time of the calling thread in ms (the "one core" time, fair on a
 * busy machine). */
static double thread_cpu_ms(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return gs_now_ms();
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

gs_status score_count_range_run(const score_range_input *in, score_count_range *out, gs_error *err)
{
    memset(out, 0, sizeof *out);
    if (!in || !in->pos || in->pos->size < RULES_MIN_SIZE || in->pos->size > RULES_MAX_SIZE)
        return gs_error_set(err, GS_ERR_USAGE, "count range: board size must be %d..%d", RULES_MIN_SIZE,
                            RULES_MAX_SIZE);
    if (in->doubt && !in->second) return gs_error_set(err, GS_ERR_USAGE, "count range: doubt without second choices");
    double t0 = gs_now_ms(), c0 = thread_cpu_ms();
    range_work w = {.in = in, .size = in->pos->size, .n = in->pos->size * in->pos->size, .out = out};
    uint8_t none[NP] = {0};
    score_range_input given = *in;
    if (!given.dead) given.dead = none;
    w.in = &given;
    rules_estimate_default_options(&w.eo);
    if (in->eo) w.eo = *in->eo;
    w.eo.playouts = RANGE_PLAYOUTS;
    w.eo.time_budget_ms = -1; /* a fixed amount of work: the same range on every machine */
    gs_status st = margin_of(&w, in->pos, given.dead, &out->base, err);
    out->low = out->high = out->base;
    out->readings = 1;
    int ndoubt = 0;
    for (int p = 0; in->doubt && p < w.n; p++) ndoubt += in->doubt[p] != 0;
    if (st == GS_OK && ndoubt == w.n) st = whole_board(&w, err);
    else if (st == GS_OK) {
        if (in->est) st = life_doubt(&w, in->pos, given.dead, in->est->uncertain, NULL, NULL, 0, err);
        if (st == GS_OK && ndoubt && !(w.est = malloc(sizeof *w.est)))
            st = gs_error_set(err, GS_ERR_NOMEM, "count range: out of memory");
        if (st == GS_OK && ndoubt) st = reading_doubt(&w, err);
    }
    free(w.est);
    range_finish(out, w.n);
    out->ms = gs_now_ms() - t0;
    out->cpu_ms = thread_cpu_ms() - c0;
    return st;
}
