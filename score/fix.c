/* score/fix.c: a count put right by hand (score.h, score_fix_*): the count
 * page's work.  Each change (a point's colour, a chain's life) is counted
 * again at once with the code of `goscribe count`: the dead-stone estimate
 * rerun where a point changed, its verdicts taken only where the change
 * reaches (so that playout noise far from the tap moves nothing), the
 * lives set by hand kept, the count, its range over the doubt still left
 * and whether the game looks finished. */
#include "score/score_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Playouts of the estimate rerun after a point changed (the count's own
 * takes up to 1000): with its verdicts taken only near the change, 256
 * judge the chains there as the count's did on the 46 goban-watcher boards
 * and keep the recount of a 19x19 board under 100 ms of one core
 * (`goscribe bench count` prints the recount's figures). */
#define FIX_PLAYOUTS 256

static double thread_cpu_ms(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return gs_now_ms();
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

gs_status score_fix_init(score_fix *f, const score_count_result *r, gs_error *err)
{
    if (!r || r->pos.size < RULES_MIN_SIZE || r->pos.size > RULES_MAX_SIZE)
        return gs_error_set(err, GS_ERR_USAGE, "count page: no counted board");
    if (r != &f->r) f->r = *r; /* (r may be f's own) */
    f->read = f->r.pos;
    memset(f->given_dead, 0, sizeof f->given_dead);
    f->ms = f->cpu_ms = 0;
    rules_count_opts_init(&f->co);
    f->co.komi = f->r.count.komi;
    f->co.handicap = f->r.handicap;
    for (int i = 0; i < f->r.nwarnings && i < SCORE_MAX_WARNINGS; i++) {
        f->co.warnings_black += f->r.warnings[i].color == GS_BLACK;
        f->co.warnings_white += f->r.warnings[i].color == GS_WHITE;
    }
    rules_estimate_default_options(&f->eo);
    f->eo.playouts = FIX_PLAYOUTS;
    f->eo.time_budget_ms = -1; /* a fixed amount of work: the same answer on every machine */
    if (!f->r.estimate) memcpy(f->given_dead, f->r.dead, sizeof f->given_dead);
    return GS_OK;
}

/* The estimate rerun on the board as it stands, its verdicts taken on the
 * chains the changed points reach (and none on empty points). */
static gs_status estimate_near(score_fix *f, const int *changed, int nchanged, gs_error *err)
{
    score_count_result *r = &f->r;
    rules_estimate_result *e = malloc(sizeof *e);
    if (!e) return gs_error_set(err, GS_ERR_NOMEM, "count page: out of memory");
    gs_status st = rules_estimate_dead(&r->pos, &f->eo, e, err);
    uint8_t near[RULES_MAX_POINTS];
    score_near_chains(&r->pos, changed, nchanged, near);
    int n = r->pos.size * r->pos.size;
    for (int p = 0; st == GS_OK && p < n; p++) {
        bool empty = r->pos.cell[p] == GS_EMPTY;
        if (!near[p] && !empty) continue;
        r->est.dead[p] = empty ? 0 : e->dead[p];
        r->est.status[p] = empty ? 0 : e->status[p];
        r->est.uncertain[p] = empty ? 0 : e->uncertain[p];
        r->est.ownership[p] = e->ownership[p];
    }
    free(e);
    return st;
}

/* Without an estimate: a stone a change adds is dead when it joins a dead
 * chain of its colour (given_dead), alive otherwise. */
static void given_near(score_fix *f, int p)
{
    const gs_position *pos = &f->r.pos;
    int size = pos->size, x = p % size, y = p / size;
    int nb[4] = {x > 0 ? p - 1 : -1, x < size - 1 ? p + 1 : -1, y > 0 ? p - size : -1, y < size - 1 ? p + size : -1};
    f->given_dead[p] = 0;
    for (int k = 0; k < 4; k++)
        if (pos->cell[p] != GS_EMPTY && nb[k] >= 0 && pos->cell[nb[k]] == pos->cell[p] && f->given_dead[nb[k]])
            f->given_dead[p] = 1;
}

/* Each chain with a stone whose life was set by hand takes that life
 * (the first found); the others keep their verdict.  Into dead. */
static void apply_lives(score_count_result *r, uint8_t *dead)
{
    int n = r->pos.size * r->pos.size;
    uint8_t seen[RULES_MAX_POINTS] = {0};
    for (int p = 0; p < n; p++) {
        if (r->pos.cell[p] == GS_EMPTY) r->life_given[p] = 0;
        if (!r->life_given[p] || seen[p]) continue;
        score_mark_chain(&r->pos, p, seen, 1);
        score_mark_chain(&r->pos, p, r->life_given, r->life_given[p]);
    }
    for (int p = 0; p < n; p++)
        if (r->life_given[p]) dead[p] = r->life_given[p] == SCORE_LIFE_DEAD;
}

/* The estimate's summary figures again, the lives set by hand aside (a
 * chain someone decided is no longer in doubt). */
static void estimate_figures(score_count_result *r)
{
    rules_estimate_result *e = &r->est;
    int n = r->pos.size * r->pos.size;
    uint8_t seen[RULES_MAX_POINTS] = {0};
    e->dead_black = e->dead_white = e->seki_stones = e->uncertain_chains = 0;
    for (int p = 0; p < n; p++) {
        if (r->life_given[p]) e->uncertain[p] = 0;
        e->dead_black += e->dead[p] && r->pos.cell[p] == GS_BLACK;
        e->dead_white += e->dead[p] && r->pos.cell[p] == GS_WHITE;
        e->seki_stones += e->status[p] == RULES_ESTIMATE_SEKI;
        if (!e->uncertain[p] || seen[p]) continue;
        score_mark_chain(&r->pos, p, seen, 1);
        e->uncertain_chains++;
    }
}

/* The count as it stands after the points changed (nchanged of them). */
static gs_status recount(score_fix *f, const int *changed, int nchanged, gs_error *err)
{
    score_count_result *r = &f->r;
    double t0 = gs_now_ms(), c0 = thread_cpu_ms();
    gs_status st = GS_OK;
    if (r->estimate && nchanged) st = estimate_near(f, changed, nchanged, err);
    for (int k = 0; !r->estimate && k < nchanged; k++) given_near(f, changed[k]);
    if (st != GS_OK) return st;
    int n = r->pos.size * r->pos.size;
    memcpy(r->dead, r->estimate ? r->est.dead : f->given_dead, (size_t)n);
    apply_lives(r, r->dead);
    for (int p = 0; p < n; p++) r->seki[p] = r->estimate && !r->life_given[p] && r->est.status[p] == RULES_ESTIMATE_SEKI;
    if (r->estimate) estimate_figures(r);
    st = rules_count_position(&r->pos, r->dead, &f->co, &r->count, err);
    if (st == GS_OK) st = score_count_range_of(r, r->estimate ? &f->eo : NULL, &f->co, err);
    if (st == GS_OK) score_count_finish(r);
    f->ms = gs_now_ms() - t0;
    f->cpu_ms = thread_cpu_ms() - c0;
    return st;
}

/* The point p of f's board, checked; -1 (said) when it is not one. */
static int board_index(const score_fix *f, gs_point p, gs_error *err)
{
    int size = f->r.pos.size;
    if (f->r.confirmed) {
        gs_error_set(err, GS_ERR_USAGE, "the count is confirmed already");
        return -1;
    }
    if (p.x < 0 || p.y < 0 || p.x >= size || p.y >= size) {
        gs_error_set(err, GS_ERR_USAGE, "not a point of the %dx%d board", size, size);
        return -1;
    }
    return p.y * size + p.x;
}

gs_status score_fix_point(score_fix *f, gs_point p, gs_color c, gs_error *err)
{
    int i = board_index(f, p, err);
    if (i < 0) return GS_ERR_USAGE;
    if (c != GS_EMPTY && c != GS_BLACK && c != GS_WHITE) return gs_error_set(err, GS_ERR_USAGE, "not a colour");
    score_count_result *r = &f->r;
    r->pos.cell[i] = (uint8_t)c;
    /* someone looked at it: no longer in doubt */
    r->read_uncertain -= r->read_unsure[i];
    r->read_unsure[i] = 0;
    r->nleft_out -= r->left_out[i];
    r->left_out[i] = 0;
    r->nfixed += (c != f->read.cell[i]) - r->fixed[i];
    r->fixed[i] = c != f->read.cell[i];
    r->life_given[i] = 0;
    return recount(f, &i, 1, err);
}

gs_status score_fix_life(score_fix *f, gs_point p, int life, gs_error *err)
{
    int i = board_index(f, p, err);
    if (i < 0) return GS_ERR_USAGE;
    if (life != 0 && life != SCORE_LIFE_DEAD && life != SCORE_LIFE_ALIVE)
        return gs_error_set(err, GS_ERR_USAGE, "not a life (dead, alive or the estimate's)");
    if (f->r.pos.cell[i] == GS_EMPTY) return gs_error_set(err, GS_ERR_USAGE, "no stone there");
    score_mark_chain(&f->r.pos, i, f->r.life_given, (uint8_t)life);
    return recount(f, NULL, 0, err);
}

void score_fix_confirm(score_fix *f, const char *by, int64_t unix_ms)
{
    score_count_result *r = &f->r;
    r->confirmed = true;
    snprintf(r->confirmed_by, sizeof r->confirmed_by, "%s", by ? by : "");
    r->confirmed_ms = unix_ms;
    /* every point and every life as they stand: nothing is in doubt */
    memset(r->read_unsure, 0, sizeof r->read_unsure);
    memset(r->left_out, 0, sizeof r->left_out);
    r->read_uncertain = r->nleft_out = 0;
    if (r->estimate) {
        memset(r->est.uncertain, 0, sizeof r->est.uncertain);
        r->est.uncertain_chains = 0;
    }
    score_count_finish(r);
}
