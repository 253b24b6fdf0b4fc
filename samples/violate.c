/* samples/violate.c: the seeded violations of a timeline (render_script):
 * where each can happen, and what the hands do for it.
 *
 * Each kind asked for is placed once left in place (--violate) and once
 * corrected (--correct), at different moves.  Corrected means what players
 * at a real board do when they notice, after a still, hand-free view of
 * 1.2..2 s: the extra stone of a double move is taken back, the stone
 * lifted as if captured is put back, a stone pushed aside is pushed back,
 * captured stones left on the board are lifted once the opponent's next
 * move is on the board.  A ko retake is always taken back at once. */
#include "samples/render.h"
#include "samples/render_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};

/* How long a corrected violation stays on the board, hand-free, before it
 * is put right (ms of real time). */
static double correction_hold(render_script *sc) { return render_rng_range(&sc->rng, 1200, 2000); }

/* Appends a violation; returns its index (-1 when the list is full). */
static int add_violation(render_script *sc, render_violation_type type, bool corrected, int move, gs_point pt,
                         double t)
{
    if (sc->nviol >= (int)(sizeof sc->viol / sizeof sc->viol[0])) return -1;
    sc->viol[sc->nviol] = (render_violation){type, corrected, -1, move, pt, t};
    return sc->nviol++;
}

/* Candidate moves (indices) of each kind on the board replayed without
 * violations: cand[v] (malloc'd, caller frees), ncand[v]. */
static void find_candidates(render_script *sc, const gs_move *moves, int nmoves, unsigned kinds,
                            int *cand[RENDER_V_COUNT_], int ncand[RENDER_V_COUNT_])
{
    int n = sc->size;
    gs_position b = sc->board; /* the setup here */
    for (int i = 0; i < nmoves; i++) {
        const gs_move *m = &moves[i];
        if (m->pass) continue;
        if (gs_position_get(&b, m->pt.x, m->pt.y) != GS_EMPTY) gs_position_set(&b, m->pt.x, m->pt.y, GS_EMPTY);
        gs_position_set(&b, m->pt.x, m->pt.y, m->color);
        gs_point cap[GS_MAX_SIZE * GS_MAX_SIZE];
        int nc = render_script_captures(&b, m->pt, gs_color_other(m->color), cap);
        for (int k = 0; k < nc; k++) gs_position_set(&b, cap[k].x, cap[k].y, GS_EMPTY);
        /* not in the first moves when the game is long enough: a tracker
         * should have settled before the first violation */
        bool early = i < 2 && nmoves > 3;
        if (cand[RENDER_V_DOUBLE_MOVE] && !early) cand[RENDER_V_DOUBLE_MOVE][ncand[RENDER_V_DOUBLE_MOVE]++] = i;
        if (cand[RENDER_V_MOVED_STONE] && !early) cand[RENDER_V_MOVED_STONE][ncand[RENDER_V_MOVED_STONE]++] = i;
        if (cand[RENDER_V_WRONG_CAPTURE]) {
            for (int d = 0; d < 4; d++) {
                int ax = m->pt.x + dx[d], ay = m->pt.y + dy[d];
                if (ax >= 0 && ay >= 0 && ax < n && ay < n && gs_position_get(&b, ax, ay) == gs_color_other(m->color)) {
                    cand[RENDER_V_WRONG_CAPTURE][ncand[RENDER_V_WRONG_CAPTURE]++] = i;
                    break;
                }
            }
        }
        if (cand[RENDER_V_MISSED_CAPTURE] && nc > 0) {
            /* the opponent's next move must be a stone: a pass shows
             * nothing, and stones lifted then were only lifted late */
            bool ok = i + 1 < nmoves && !moves[i + 1].pass;
            for (int k = 0; k < nc && ok; k++) ok = !render_script_in_future(moves, nmoves, i + 1, cap[k].x, cap[k].y);
            if (ok) cand[RENDER_V_MISSED_CAPTURE][ncand[RENDER_V_MISSED_CAPTURE]++] = i;
        }
        if (cand[RENDER_V_KO_RETAKE] && nc == 1 && render_script_single_libs(&b, m->pt, NULL) == 1)
            cand[RENDER_V_KO_RETAKE][ncand[RENDER_V_KO_RETAKE]++] = i;
    }
    (void)kinds;
}

/* A move of cand for one violation: one not used by another violation
 * (nor next to one: the views of each must settle on their own) when the
 * draws find it. */
static int pick_move(render_script *sc, const int *cand, int ncand, bool *used, int nused)
{
    int pick = -1;
    for (int tries = 0; tries < 8; tries++) {
        pick = cand[(int)(render_rng_uniform(&sc->rng) * ncand)];
        bool busy = pick < nused && (used[pick] || (pick > 0 && used[pick - 1]) || (pick + 1 < nused && used[pick + 1]));
        if (pick >= nused || !busy) break;
    }
    if (pick >= 0 && pick < nused) used[pick] = true;
    return pick;
}

void render_violations_plan(render_script *sc, const gs_move *moves, int nmoves, int plan[2 * RENDER_V_COUNT_])
{
    int *cand[RENDER_V_COUNT_] = {0};
    int ncand[RENDER_V_COUNT_] = {0};
    unsigned kinds = sc->o.violations | sc->o.corrected;
    for (int k = 0; k < 2 * RENDER_V_COUNT_; k++) plan[k] = -1;
    for (int v = 0; v < RENDER_V_COUNT_; v++) {
        if (!(kinds & (1u << v))) continue;
        cand[v] = malloc(sizeof(int) * (size_t)(nmoves + 1));
        if (!cand[v]) sc->oom = true;  /* fails the script, as any other allocation */
    }
    find_candidates(sc, moves, nmoves, kinds, cand, ncand);
    bool *used = calloc((size_t)nmoves + 1, sizeof *used);
    if (!used) sc->oom = true;
    /* left ones first, then the corrected ones (the order the draws were
     * always made in for the left ones) */
    for (int pass = 0; pass < 2 && used; pass++) {
        unsigned mask = pass ? sc->o.corrected : sc->o.violations;
        for (int v = 0; v < RENDER_V_COUNT_; v++)
            if ((mask & (1u << v)) && cand[v] && ncand[v] > 0)
                plan[pass * RENDER_V_COUNT_ + v] = pick_move(sc, cand[v], ncand[v], used, nmoves);
    }
    free(used);
    for (int v = 0; v < RENDER_V_COUNT_; v++) free(cand[v]);
}

/* An empty point with only empty neighbours that no later move uses. */
static bool free_point(render_script *sc, const gs_move *moves, int nmoves, int from, gs_point *out)
{
    int n = sc->size;
    for (int tries = 0; tries < 400; tries++) {
        int x = (int)(render_rng_uniform(&sc->rng) * n), y = (int)(render_rng_uniform(&sc->rng) * n);
        if (gs_position_get(&sc->board, x, y) != GS_EMPTY || render_script_in_future(moves, nmoves, from, x, y)) continue;
        gs_point p = {(int8_t)x, (int8_t)y};
        gs_position tmp = sc->board;
        gs_position_set(&tmp, x, y, GS_BLACK);
        if (render_script_single_libs(&tmp, p, NULL) < 2) continue;
        bool lonely = true;
        for (int d = 0; d < 4; d++) {
            int ax = x + dx[d], ay = y + dy[d];
            if (ax >= 0 && ay >= 0 && ax < n && ay < n && gs_position_get(&sc->board, ax, ay) != GS_EMPTY) lonely = false;
        }
        if (!lonely) continue;
        *out = p;
        return true;
    }
    return false;
}

/* The seeded wrong capture after move m (entry num): a neighbouring stone
 * of the opponent's that was not captured is lifted, then put back by the
 * opponent: at once when it is left (the lift may share a view with the
 * move), after a still view of it when corrected (the lift has a view of
 * its own). */
static void seed_wrong_capture(render_script *sc, const gs_move *m, int num, bool corrected)
{
    gs_color mover = m->color, opp = gs_color_other(mover);
    int size = sc->size;
    int start = (int)(render_rng_uniform(&sc->rng) * 4);
    for (int d0 = 0; d0 < 4; d0++) {
        int d = (start + d0) % 4, ax = m->pt.x + dx[d], ay = m->pt.y + dy[d];
        if (ax < 0 || ay < 0 || ax >= size || ay >= size || gs_position_get(&sc->board, ax, ay) != opp) continue;
        gs_point q = {(int8_t)ax, (int8_t)ay};
        if (corrected) render_script_hold(sc, render_rng_range(&sc->rng, 900, 1400));
        double tl = render_script_trip(sc, mover, RENDER_TRIP_LIFT, q, q, opp, 0, false);
        int vi = add_violation(sc, RENDER_V_WRONG_CAPTURE, corrected, num, q, tl);
        /* the opponent objects and the stone goes back (Art. 18:
         * "put them back"); a game that went on without it would
         * leave the record's later moves illegal */
        if (corrected) render_script_hold(sc, correction_hold(sc));
        else sc->t += render_script_dur(sc, 800, 1600);
        double tb = render_script_trip(sc, opp, RENDER_TRIP_PLACE, q, q, opp, 0, false);
        if (vi >= 0) sc->viol[vi].undone_ms = tb;
        break;
    }
}

/* The seeded ko retake after move m, which captured the single stone X:
 * the opponent retakes at once, then the players undo it. */
static void seed_ko_retake(render_script *sc, const gs_move *m, gs_point X, bool corrected)
{
    gs_color mover = m->color, opp = gs_color_other(mover);
    gs_point lib;
    if (render_script_single_libs(&sc->board, m->pt, &lib) != 1 || lib.x != X.x || lib.y != X.y) return;
    sc->t += render_script_dur(sc, 300, 700);
    double tr = render_script_trip(sc, opp, RENDER_TRIP_PLACE, X, X, opp, 0, false);
    int vi = add_violation(sc, RENDER_V_KO_RETAKE, corrected, sc->nplaced + 1, X, tr);
    render_script_trip(sc, opp, RENDER_TRIP_LIFT, m->pt, m->pt, mover, 0, false);
    if (corrected) render_script_hold(sc, correction_hold(sc));
    else sc->t += render_script_dur(sc, 800, 1500);
    double tb = render_script_trip(sc, opp, RENDER_TRIP_LIFT, X, X, opp, 0, false);
    render_script_trip(sc, mover, RENDER_TRIP_PLACE, m->pt, m->pt, mover, 0, false);
    if (vi >= 0) sc->viol[vi].undone_ms = tb;
}

/* The seeded double move after move i: the mover plays a second stone on
 * a quiet point no later move uses; corrected, the mover takes it back
 * after a still view of it (it is then no entry of the sequence). */
static void seed_double_move(render_script *sc, const gs_move *moves, int nmoves, int i, bool corrected)
{
    gs_color mover = moves[i].color;
    gs_point q;
    if (!free_point(sc, moves, nmoves, i + 1, &q)) return;
    if (corrected) render_script_hold(sc, render_rng_range(&sc->rng, 900, 1400));
    else sc->t += render_script_dur(sc, 200, 600);
    int n2 = sc->nplaced + 1;
    double td = render_script_trip(sc, mover, RENDER_TRIP_PLACE, q, q, mover, corrected ? 0 : n2, false);
    int vi = add_violation(sc, RENDER_V_DOUBLE_MOVE, corrected, n2, q, td);
    if (!corrected) {
        render_script_add_placed(sc, (gs_move){mover, q, false});
        return;
    }
    render_script_hold(sc, correction_hold(sc));
    double tb = render_script_trip(sc, mover, RENDER_TRIP_LIFT, q, q, mover, 0, false);
    if (vi >= 0) sc->viol[vi].undone_ms = tb;
}

/* Whether the stone at (x, y) can be pushed to (qx, qy) quietly: an empty
 * point on the board no later move uses, where the stone keeps two
 * liberties and captures nothing. */
static bool quiet_push(const render_script *sc, const gs_move *moves, int nmoves, int from, int x, int y, int qx,
                       int qy)
{
    int size = sc->size;
    if (qx < 0 || qy < 0 || qx >= size || qy >= size || gs_position_get(&sc->board, qx, qy) != GS_EMPTY) return false;
    if (render_script_in_future(moves, nmoves, from, qx, qy)) return false;
    gs_position tmp = sc->board;
    gs_color c = gs_position_get(&tmp, x, y);
    gs_position_set(&tmp, x, y, GS_EMPTY);
    gs_position_set(&tmp, qx, qy, c);
    gs_point q = {(int8_t)qx, (int8_t)qy}, dummy[GS_MAX_SIZE * GS_MAX_SIZE];
    int libs = 0;
    for (int e = 0; e < 4; e++) {
        int ax = qx + dx[e], ay = qy + dy[e];
        if (ax >= 0 && ay >= 0 && ax < size && ay < size && gs_position_get(&tmp, ax, ay) == GS_EMPTY) libs++;
    }
    return libs >= 2 && render_script_captures(&tmp, q, gs_color_other(c), dummy) == 0;
}

/* The seeded moved stone after move i: a sleeve or a careless finger
 * pushes a stone one point over; corrected, it is pushed back after a
 * still view of it. */
static void seed_moved_stone(render_script *sc, const gs_move *moves, int nmoves, int i, bool corrected)
{
    const gs_move *m = &moves[i];
    int size = sc->size;
    for (int tries = 0; tries < 300; tries++) {
        int x = (int)(render_rng_uniform(&sc->rng) * size), y = (int)(render_rng_uniform(&sc->rng) * size);
        if (gs_position_get(&sc->board, x, y) == GS_EMPTY || (x == m->pt.x && y == m->pt.y)) continue;
        if (render_script_in_future(moves, nmoves, i + 1, x, y)) continue;
        int d = (int)(render_rng_uniform(&sc->rng) * 4);
        int qx = x + dx[d], qy = y + dy[d];
        if (!quiet_push(sc, moves, nmoves, i + 1, x, y, qx, qy)) continue;
        gs_color c = gs_position_get(&sc->board, x, y);
        gs_point p = {(int8_t)x, (int8_t)y}, q = {(int8_t)qx, (int8_t)qy};
        if (corrected) render_script_hold(sc, render_rng_range(&sc->rng, 900, 1400));
        else sc->t += render_script_dur(sc, 300, 800);
        gs_color side = render_rng_uniform(&sc->rng) < 0.5 ? GS_BLACK : GS_WHITE;
        double tm = render_script_trip(sc, side, RENDER_TRIP_SLIDE, p, q, c, 0, false);
        int vi = add_violation(sc, RENDER_V_MOVED_STONE, corrected, sc->nplaced, q, tm);
        if (corrected) {
            render_script_hold(sc, correction_hold(sc));
            double tb = render_script_trip(sc, side, RENDER_TRIP_SLIDE, q, p, c, 0, false);
            if (vi >= 0) sc->viol[vi].undone_ms = tb;
        }
        return;
    }
}

bool render_violations_keep_captures(render_script *sc, int i, int num, int nc, const gs_point *cap,
                                     const int plan[2 * RENDER_V_COUNT_], gs_color mover)
{
    if (nc == 0) return false;
    bool left = plan[RENDER_V_MISSED_CAPTURE] == i, corrected = plan[RENDER_V_COUNT_ + RENDER_V_MISSED_CAPTURE] == i;
    if (!left && !corrected) return false;
    double t = sc->ev[sc->nev - 1].t; /* the capturing stone's event */
    int vi = add_violation(sc, RENDER_V_MISSED_CAPTURE, corrected && !left, num, cap[0], t);
    if (left) return true;
    /* lifted by the capturer after the opponent's next move (script.c) */
    render_left_capture *lc = &sc->left;
    lc->n = nc;
    memcpy(lc->pts, cap, (size_t)nc * sizeof cap[0]);
    lc->capturer = mover;
    lc->viol = vi;
    lc->after = sc->nplaced + 1;
    return true;
}

void render_violations_after(render_script *sc, const gs_move *moves, int nmoves, int i, int num, int nc,
                             const gs_point *cap, const int plan[2 * RENDER_V_COUNT_])
{
    const gs_move *m = &moves[i];
    for (int pass = 0; pass < 2; pass++) {
        const int *pl = plan + pass * RENDER_V_COUNT_;
        bool corrected = pass == 1;
        if (pl[RENDER_V_WRONG_CAPTURE] == i) seed_wrong_capture(sc, m, num, corrected);
        if (pl[RENDER_V_KO_RETAKE] == i && nc == 1 && plan[RENDER_V_MISSED_CAPTURE] != i &&
            plan[RENDER_V_COUNT_ + RENDER_V_MISSED_CAPTURE] != i)
            seed_ko_retake(sc, m, cap[0], corrected);
        if (pl[RENDER_V_DOUBLE_MOVE] == i) seed_double_move(sc, moves, nmoves, i, corrected);
        if (pl[RENDER_V_MOVED_STONE] == i) seed_moved_stone(sc, moves, nmoves, i, corrected);
    }
}
