/* samples/script.c: the timeline (render_script).
 *
 * A script is two time-ordered lists built once: hand key frames (where
 * the fingertips are, what they hold) and board events (a stone appears or
 * disappears).  Asking for the table at time t replays the board events up
 * to t (incrementally for increasing t) and interpolates the hand between
 * the two key frames around t.
 *
 * The board kept while building is physical: captures are whatever groups
 * are left without liberties next to the stone just placed (see render.h for
 * why not the rules engine).
 */
#include "samples/render.h"
#include "samples/render_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct hkey {
    double t;
    bool present;
    gs_color side;
    double x, y, z, yaw;
    gs_color holding;
} hkey;

typedef struct bevent {
    double t;
    int8_t x, y;        /* x < 0: no board change (a pass being counted) */
    uint8_t colour;     /* new content of the point */
    uint8_t variant;
    float ox, oy;
    int counts;         /* entry number of the rendered sequence (1-based), 0 none */
} bevent;

struct render_script {
    int size;
    render_script_options o;
    uint64_t rng;
    hkey *keys;
    int nkeys, capkeys;
    bevent *ev;
    int nev, capev;
    gs_move *placed;
    int nplaced, capplaced;
    render_violation viol[RENDER_V_COUNT_ * 2];
    int nviol;
    double t;           /* build cursor, then the total duration */
    gs_position board;  /* physical board while building */
    bool oom;
    /* playback cursor */
    double cur_t;
    int cur_ev;
    render_state cur;
    int cur_moves;
    gs_point cur_last;
};

/* -------------------------------------------------------------- options */

void render_script_options_init(render_script_options *o, uint64_t seed)
{
    memset(o, 0, sizeof *o);
    o->seed = seed;
    o->pace = 1.0;
    o->start_idle_ms = 800;
    o->end_idle_ms = 800;
    o->hover_pct = 20;
    o->rest_pct = 10;
    o->violations = 0;
    o->cell_w_mm = 22.0;
    o->cell_h_mm = 23.7;
    o->margin_mm = 15;
    o->stone_h_mm = 8;
}

void render_script_options_geometry(render_script_options *o, const render_params *p)
{
    o->cell_w_mm = p->cell_w_mm;
    o->cell_h_mm = p->cell_h_mm;
    o->margin_mm = p->margin_mm;
    o->stone_h_mm = p->stone_h_mm;
}

static const char *vcodes[RENDER_V_COUNT_] = {"double_move", "wrong_capture", "missed_capture", "moved_stone", "ko"};

const char *render_violation_code(render_violation_type t)
{
    return (unsigned)t < RENDER_V_COUNT_ ? vcodes[t] : "unknown";
}

bool render_violation_parse(const char *s, render_violation_type *t)
{
    for (int i = 0; i < RENDER_V_COUNT_; i++)
        if (!strcmp(s, vcodes[i])) { *t = (render_violation_type)i; return true; }
    if (!strcmp(s, "ko_retake")) { *t = RENDER_V_KO_RETAKE; return true; }
    return false;
}

/* ------------------------------------------------------------- building */

static void add_key(render_script *sc, hkey k)
{
    if (sc->nkeys == sc->capkeys) {
        int nc = sc->capkeys ? sc->capkeys * 2 : 256;
        hkey *nk = realloc(sc->keys, (size_t)nc * sizeof *nk);
        if (!nk) { sc->oom = true; return; }
        sc->keys = nk;
        sc->capkeys = nc;
    }
    sc->keys[sc->nkeys++] = k;
}

static void add_event(render_script *sc, bevent e)
{
    if (sc->nev == sc->capev) {
        int nc = sc->capev ? sc->capev * 2 : 256;
        bevent *ne = realloc(sc->ev, (size_t)nc * sizeof *ne);
        if (!ne) { sc->oom = true; return; }
        sc->ev = ne;
        sc->capev = nc;
    }
    sc->ev[sc->nev++] = e;
    if (e.x >= 0) gs_position_set(&sc->board, e.x, e.y, (gs_color)e.colour);
}

static int add_placed(render_script *sc, gs_move m)
{
    if (sc->nplaced == sc->capplaced) {
        int nc = sc->capplaced ? sc->capplaced * 2 : 128;
        gs_move *np = realloc(sc->placed, (size_t)nc * sizeof *np);
        if (!np) { sc->oom = true; return 0; }
        sc->placed = np;
        sc->capplaced = nc;
    }
    sc->placed[sc->nplaced++] = m;
    return sc->nplaced;
}

static double dur(render_script *sc, double lo, double hi)
{
    return render_rng_range(&sc->rng, lo, hi) / sc->o.pace;
}

static void point_world(const render_script *sc, int x, int y, double *wx, double *wy)
{
    *wx = (x - (sc->size - 1) / 2.0) * sc->o.cell_w_mm;
    *wy = (y - (sc->size - 1) / 2.0) * sc->o.cell_h_mm;
}

static double half_h(const render_script *sc) { return (sc->size - 1) * sc->o.cell_h_mm / 2 + sc->o.margin_mm; }
static double half_w(const render_script *sc) { return (sc->size - 1) * sc->o.cell_w_mm / 2 + sc->o.margin_mm; }

/* Where a player's hand waits, off the board on its side. */
static void home(render_script *sc, gs_color side, double tx, double *hx, double *hy)
{
    double s = side == GS_WHITE ? -1 : 1;
    *hx = tx * 0.5 + render_rng_range(&sc->rng, -40, 40);
    *hy = s * (half_h(sc) + render_rng_range(&sc->rng, 200, 260));
}

/* The four neighbours of a point. */
static const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};

typedef enum { TRIP_PLACE, TRIP_LIFT, TRIP_SLIDE } trip_kind;

/* One trip of a hand: from its home to the point, down, act, up, home.
 * PLACE puts `colour` at p (event number `counts`, 0 = not a move); LIFT
 * removes the stone at p; SLIDE pushes the stone at p to q.  Returns the
 * time the board changed. */
static double trip(render_script *sc, gs_color side, trip_kind kind, gs_point p, gs_point q, gs_color colour,
                   int counts, bool hover)
{
    double tx, ty, hx, hy;
    point_world(sc, p.x, p.y, &tx, &ty);
    home(sc, side, tx, &hx, &hy);
    double yaw = render_rng_range(&sc->rng, -25, 25);
    double hi = render_rng_range(&sc->rng, 35, 60), low = sc->o.stone_h_mm + 2;
    gs_color carry_in = kind == TRIP_PLACE ? colour : GS_EMPTY;
    gs_color carry_out = kind == TRIP_LIFT ? colour : GS_EMPTY;
    double t = sc->t + dur(sc, 60, 160);  /* the hand is out of sight between trips */
    add_key(sc, (hkey){t, true, side, hx, hy, 150, yaw, carry_in});
    t += dur(sc, 450, 750);
    add_key(sc, (hkey){t, true, side, tx + render_rng_range(&sc->rng, -8, 8), ty + render_rng_range(&sc->rng, -8, 8), hi, yaw, carry_in});
    if (hover) {
        /* undecided: the hand wanders over the board before it commits */
        int n = 1 + (int)(render_rng_uniform(&sc->rng) * 3);
        for (int i = 0; i < n; i++) {
            t += dur(sc, 300, 700);
            add_key(sc, (hkey){t, true, side, tx + render_rng_range(&sc->rng, -60, 60), ty + render_rng_range(&sc->rng, -60, 60),
                               render_rng_range(&sc->rng, 40, 80), yaw, carry_in});
        }
        t += dur(sc, 300, 500);
        add_key(sc, (hkey){t, true, side, tx, ty, hi, yaw, carry_in});
    }
    t += dur(sc, 140, 220);
    add_key(sc, (hkey){t, true, side, tx, ty, low, yaw, carry_in});
    double tchange = t + 40 / sc->o.pace;
    double ox = render_rng_range(&sc->rng, -1, 1), oy = render_rng_range(&sc->rng, -1, 1);
    uint8_t var = (uint8_t)(render_rng_next(&sc->rng) % RENDER_VARIANTS);
    if (kind == TRIP_PLACE) {
        add_event(sc, (bevent){tchange, p.x, p.y, (uint8_t)colour, var, (float)ox, (float)oy, counts});
        t += dur(sc, 90, 160);
        add_key(sc, (hkey){t, true, side, tx, ty, low, yaw, GS_EMPTY});
    } else if (kind == TRIP_LIFT) {
        add_event(sc, (bevent){tchange, p.x, p.y, GS_EMPTY, 0, 0, 0, 0});
        t += dur(sc, 120, 200);
        add_key(sc, (hkey){t, true, side, tx, ty, low + 2, yaw, colour});
    } else {
        /* slide: finger on the stone, push it to q */
        double qx, qy;
        point_world(sc, q.x, q.y, &qx, &qy);
        t += dur(sc, 250, 400);
        add_key(sc, (hkey){t, true, side, qx, qy, low, yaw, GS_EMPTY});
        tchange = t - 120 / sc->o.pace;
        gs_color c = gs_position_get(&sc->board, p.x, p.y);
        add_event(sc, (bevent){tchange, p.x, p.y, GS_EMPTY, 0, 0, 0, 0});
        add_event(sc, (bevent){tchange, q.x, q.y, (uint8_t)c, var, (float)ox, (float)oy, 0});
        tx = qx;
        ty = qy;
    }
    t += dur(sc, 130, 200);
    add_key(sc, (hkey){t, true, side, tx, ty, hi, yaw, carry_out});
    t += dur(sc, 400, 650);
    home(sc, side, tx, &hx, &hy);
    add_key(sc, (hkey){t, true, side, hx, hy, 160, yaw, carry_out});
    add_key(sc, (hkey){t, false, side, 0, 0, 0, 0, GS_EMPTY});
    sc->t = t;
    return tchange;
}

/* A hand resting on the board edge for a while. */
static void rest(render_script *sc, gs_color side)
{
    double s = side == GS_WHITE ? -1 : 1, hx, hy;
    double x = render_rng_range(&sc->rng, -half_w(sc) * 0.6, half_w(sc) * 0.6);
    double y = s * (half_h(sc) - render_rng_range(&sc->rng, 0, 12));
    double yaw = render_rng_range(&sc->rng, -30, 30);
    double t = sc->t + dur(sc, 60, 160);
    home(sc, side, x, &hx, &hy);
    add_key(sc, (hkey){t, true, side, hx, hy, 150, yaw, GS_EMPTY});
    t += dur(sc, 500, 800);
    add_key(sc, (hkey){t, true, side, x, y, 12, yaw, GS_EMPTY});
    t += dur(sc, 1000, 2500);
    add_key(sc, (hkey){t, true, side, x + render_rng_range(&sc->rng, -10, 10), y, 12, yaw, GS_EMPTY});
    t += dur(sc, 500, 800);
    add_key(sc, (hkey){t, true, side, hx, hy, 150, yaw, GS_EMPTY});
    add_key(sc, (hkey){t, false, side, 0, 0, 0, 0, GS_EMPTY});
    sc->t = t;
}

static void pause_(render_script *sc, gs_color next)
{
    sc->t += dur(sc, 350, 1100);
    if ((int)(render_rng_uniform(&sc->rng) * 100) < sc->o.rest_pct) {
        rest(sc, render_rng_uniform(&sc->rng) < 0.7 ? next : gs_color_other(next));
        sc->t += dur(sc, 200, 500);
    }
}

/* Physical capture: groups of `victim` next to p without liberties. */
static int find_captures(const gs_position *b, gs_point p, gs_color victim, gs_point *out)
{
    int n = b->size, count = 0;
    uint8_t mark[GS_MAX_SIZE * GS_MAX_SIZE];
    memset(mark, 0, sizeof mark);
    for (int d = 0; d < 4; d++) {
        int sx = p.x + dx[d], sy = p.y + dy[d];
        if (sx < 0 || sy < 0 || sx >= n || sy >= n) continue;
        if (gs_position_get(b, sx, sy) != victim || mark[sy * n + sx]) continue;
        int stack[GS_MAX_SIZE * GS_MAX_SIZE], top = 0, grp[GS_MAX_SIZE * GS_MAX_SIZE], ng = 0;
        bool libs = false;
        stack[top++] = sy * n + sx;
        mark[sy * n + sx] = 1;
        while (top) {
            int i = stack[--top];
            grp[ng++] = i;
            int x = i % n, y = i / n;
            for (int e = 0; e < 4; e++) {
                int ax = x + dx[e], ay = y + dy[e];
                if (ax < 0 || ay < 0 || ax >= n || ay >= n) continue;
                gs_color c = gs_position_get(b, ax, ay);
                if (c == GS_EMPTY) libs = true;
                else if (c == victim && !mark[ay * n + ax]) {
                    mark[ay * n + ax] = 1;
                    stack[top++] = ay * n + ax;
                }
            }
        }
        if (!libs)
            for (int k = 0; k < ng; k++) out[count++] = (gs_point){(int8_t)(grp[k] % n), (int8_t)(grp[k] / n)};
    }
    return count;
}

static int liberties_of_single(const gs_position *b, gs_point p, gs_point *lib)
{
    int n = b->size, count = 0;
    gs_color c = gs_position_get(b, p.x, p.y);
    for (int d = 0; d < 4; d++) {
        int ax = p.x + dx[d], ay = p.y + dy[d];
        if (ax < 0 || ay < 0 || ax >= n || ay >= n) continue;
        gs_color a = gs_position_get(b, ax, ay);
        if (a == c) return -1;  /* not a single stone */
        if (a == GS_EMPTY) { if (lib) *lib = (gs_point){(int8_t)ax, (int8_t)ay}; count++; }
    }
    return count;
}

static bool in_future(const gs_move *moves, int nmoves, int from, int x, int y)
{
    for (int i = from; i < nmoves; i++)
        if (!moves[i].pass && moves[i].pt.x == x && moves[i].pt.y == y) return true;
    return false;
}

static void add_violation(render_script *sc, render_violation_type type, int move, gs_point pt, double t)
{
    if (sc->nviol < (int)(sizeof sc->viol / sizeof sc->viol[0]))
        sc->viol[sc->nviol++] = (render_violation){type, move, pt, t};
}

/* Picks, for each violation asked for, the SGF move index after which it
 * happens: a move where it can happen on a board replayed without
 * violations, drawn from the middle of the game when possible. */
static void plan_violations(render_script *sc, const gs_move *moves, int nmoves, int plan[RENDER_V_COUNT_])
{
    /* sc->board holds the setup here */
    int n = sc->size;
    int *cand[RENDER_V_COUNT_] = {0};
    int ncand[RENDER_V_COUNT_] = {0};
    for (int v = 0; v < RENDER_V_COUNT_; v++) {
        plan[v] = -1;
        if (!(sc->o.violations & (1u << v))) continue;
        cand[v] = malloc(sizeof(int) * (size_t)(nmoves + 1));
        if (!cand[v]) sc->oom = true;  /* fails the script, as any other allocation */
    }
    gs_position b = sc->board;
    for (int i = 0; i < nmoves; i++) {
        const gs_move *m = &moves[i];
        if (m->pass) continue;
        if (gs_position_get(&b, m->pt.x, m->pt.y) != GS_EMPTY) gs_position_set(&b, m->pt.x, m->pt.y, GS_EMPTY);
        gs_position_set(&b, m->pt.x, m->pt.y, m->color);
        gs_point cap[GS_MAX_SIZE * GS_MAX_SIZE];
        int nc = find_captures(&b, m->pt, gs_color_other(m->color), cap);
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
            bool ok = true;
            for (int k = 0; k < nc && ok; k++) ok = !in_future(moves, nmoves, i + 1, cap[k].x, cap[k].y);
            if (ok) cand[RENDER_V_MISSED_CAPTURE][ncand[RENDER_V_MISSED_CAPTURE]++] = i;
        }
        if (cand[RENDER_V_KO_RETAKE] && nc == 1 && liberties_of_single(&b, m->pt, NULL) == 1)
            cand[RENDER_V_KO_RETAKE][ncand[RENDER_V_KO_RETAKE]++] = i;
    }
    bool used[4096] = {0};
    for (int v = 0; v < RENDER_V_COUNT_; v++) {
        if (!cand[v]) continue;
        if (ncand[v] > 0) {
            /* prefer a move not used by another violation */
            for (int tries = 0; tries < 8; tries++) {
                int i = cand[v][(int)(render_rng_uniform(&sc->rng) * ncand[v])];
                plan[v] = i;
                if (i >= 4096 || !used[i]) break;
            }
            if (plan[v] < 4096) used[plan[v]] = true;
        }
        free(cand[v]);
    }
}

/* An empty point with only empty neighbours that no later move uses. */
static bool free_point(render_script *sc, const gs_move *moves, int nmoves, int from, gs_point *out)
{
    int n = sc->size;
    for (int tries = 0; tries < 400; tries++) {
        int x = (int)(render_rng_uniform(&sc->rng) * n), y = (int)(render_rng_uniform(&sc->rng) * n);
        if (gs_position_get(&sc->board, x, y) != GS_EMPTY || in_future(moves, nmoves, from, x, y)) continue;
        gs_point p = {(int8_t)x, (int8_t)y};
        gs_position tmp = sc->board;
        gs_position_set(&tmp, x, y, GS_BLACK);
        if (liberties_of_single(&tmp, p, NULL) < 2) continue;
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

/* The seeded wrong capture after move i: a neighbouring stone of the
 * opponent's that was not captured is lifted, then put back. */
static void seed_wrong_capture(render_script *sc, const gs_move *m, int num)
{
    gs_color mover = m->color, opp = gs_color_other(mover);
    int size = sc->size;
    int start = (int)(render_rng_uniform(&sc->rng) * 4);
    for (int d0 = 0; d0 < 4; d0++) {
        int d = (start + d0) % 4, ax = m->pt.x + dx[d], ay = m->pt.y + dy[d];
        if (ax < 0 || ay < 0 || ax >= size || ay >= size || gs_position_get(&sc->board, ax, ay) != opp) continue;
        gs_point q = {(int8_t)ax, (int8_t)ay};
        double tl = trip(sc, mover, TRIP_LIFT, q, q, opp, 0, false);
        add_violation(sc, RENDER_V_WRONG_CAPTURE, num, q, tl);
        /* the opponent objects and the stone goes back (Art. 18:
         * "put them back"); a game that went on without it would
         * leave the record's later moves illegal */
        sc->t += dur(sc, 800, 1600);
        trip(sc, opp, TRIP_PLACE, q, q, opp, 0, false);
        break;
    }
}

/* The seeded ko retake after move m, which captured the single stone X:
 * the opponent retakes at once, then the players undo it. */
static void seed_ko_retake(render_script *sc, const gs_move *m, gs_point X)
{
    gs_color mover = m->color, opp = gs_color_other(mover);
    gs_point lib;
    if (liberties_of_single(&sc->board, m->pt, &lib) != 1 || lib.x != X.x || lib.y != X.y) return;
    sc->t += dur(sc, 300, 700);
    double tr = trip(sc, opp, TRIP_PLACE, X, X, opp, 0, false);
    add_violation(sc, RENDER_V_KO_RETAKE, sc->nplaced + 1, X, tr);
    trip(sc, opp, TRIP_LIFT, m->pt, m->pt, mover, 0, false);
    sc->t += dur(sc, 800, 1500);
    trip(sc, opp, TRIP_LIFT, X, X, opp, 0, false);
    trip(sc, mover, TRIP_PLACE, m->pt, m->pt, mover, 0, false);
}

/* The seeded double move after move i: the mover plays a second stone on
 * a quiet point no later move uses. */
static void seed_double_move(render_script *sc, const gs_move *moves, int nmoves, int i)
{
    gs_color mover = moves[i].color;
    gs_point q;
    if (!free_point(sc, moves, nmoves, i + 1, &q)) return;
    sc->t += dur(sc, 200, 600);
    int n2 = sc->nplaced + 1;
    double td = trip(sc, mover, TRIP_PLACE, q, q, mover, n2, false);
    add_placed(sc, (gs_move){mover, q, false});
    add_violation(sc, RENDER_V_DOUBLE_MOVE, n2, q, td);
}

/* Whether the stone at (x, y) can be pushed to (qx, qy) quietly: an empty
 * point on the board no later move uses, where the stone keeps two
 * liberties and captures nothing. */
static bool quiet_push(const render_script *sc, const gs_move *moves, int nmoves, int from, int x, int y, int qx,
                       int qy)
{
    int size = sc->size;
    if (qx < 0 || qy < 0 || qx >= size || qy >= size || gs_position_get(&sc->board, qx, qy) != GS_EMPTY) return false;
    if (in_future(moves, nmoves, from, qx, qy)) return false;
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
    return libs >= 2 && find_captures(&tmp, q, gs_color_other(c), dummy) == 0;
}

/* The seeded moved stone after move i: a sleeve or a careless finger
 * pushes a stone one point over. */
static void seed_moved_stone(render_script *sc, const gs_move *moves, int nmoves, int i)
{
    const gs_move *m = &moves[i];
    int size = sc->size;
    for (int tries = 0; tries < 300; tries++) {
        int x = (int)(render_rng_uniform(&sc->rng) * size), y = (int)(render_rng_uniform(&sc->rng) * size);
        if (gs_position_get(&sc->board, x, y) == GS_EMPTY || (x == m->pt.x && y == m->pt.y)) continue;
        if (in_future(moves, nmoves, i + 1, x, y)) continue;
        int d = (int)(render_rng_uniform(&sc->rng) * 4);
        int qx = x + dx[d], qy = y + dy[d];
        if (!quiet_push(sc, moves, nmoves, i + 1, x, y, qx, qy)) continue;
        gs_color c = gs_position_get(&sc->board, x, y);
        gs_point q = {(int8_t)qx, (int8_t)qy};
        sc->t += dur(sc, 300, 800);
        gs_color side = render_rng_uniform(&sc->rng) < 0.5 ? GS_BLACK : GS_WHITE;
        double tm = trip(sc, side, TRIP_SLIDE, (gs_point){(int8_t)x, (int8_t)y}, q, c, 0, false);
        add_violation(sc, RENDER_V_MOVED_STONE, sc->nplaced, q, tm);
        return;
    }
}

/* Move i on the table (entry num of the rendered sequence): a pass is a
 * pause; a stone is placed (after clearing a stone a violation left on
 * its point) and its captures lifted, unless this is the move that misses
 * them; then the violations planned for this move. */
static void play_move(render_script *sc, const gs_move *moves, int nmoves, int i, const int plan[RENDER_V_COUNT_])
{
    const gs_move *m = &moves[i];
    gs_color mover = m->color, opp = gs_color_other(mover);
    if (i > 0) pause_(sc, mover);
    if (m->pass) {
        sc->t += dur(sc, 600, 1200);
        int num = add_placed(sc, *m);
        add_event(sc, (bevent){sc->t, -1, -1, 0, 0, 0, 0, num});
        return;
    }
    if (gs_position_get(&sc->board, m->pt.x, m->pt.y) != GS_EMPTY) {
        /* a violation left a stone here: the mover clears it first */
        trip(sc, mover, TRIP_LIFT, m->pt, m->pt, gs_position_get(&sc->board, m->pt.x, m->pt.y), 0, false);
    }
    bool hover = (int)(render_rng_uniform(&sc->rng) * 100) < sc->o.hover_pct;
    int num = sc->nplaced + 1;
    double tp = trip(sc, mover, TRIP_PLACE, m->pt, m->pt, mover, num, hover);
    add_placed(sc, *m);
    gs_point cap[GS_MAX_SIZE * GS_MAX_SIZE];
    int nc = find_captures(&sc->board, m->pt, opp, cap);
    if (plan[RENDER_V_MISSED_CAPTURE] == i && nc > 0) {
        add_violation(sc, RENDER_V_MISSED_CAPTURE, num, cap[0], tp);
    } else {
        for (int k = 0; k < nc; k++) trip(sc, mover, TRIP_LIFT, cap[k], cap[k], opp, 0, false);
    }
    if (plan[RENDER_V_WRONG_CAPTURE] == i) seed_wrong_capture(sc, m, num);
    if (plan[RENDER_V_KO_RETAKE] == i && nc == 1 && plan[RENDER_V_MISSED_CAPTURE] != i) seed_ko_retake(sc, m, cap[0]);
    if (plan[RENDER_V_DOUBLE_MOVE] == i) seed_double_move(sc, moves, nmoves, i);
    if (plan[RENDER_V_MOVED_STONE] == i) seed_moved_stone(sc, moves, nmoves, i);
}

static gs_status script_check(int size, const gs_move *moves, int nmoves, const render_script_options *o,
                              gs_error *err)
{
    if (size < 5 || size > GS_MAX_SIZE)
        return gs_error_set(err, GS_ERR_USAGE, "board size %d out of range (5..%d)", size, GS_MAX_SIZE);
    if (nmoves < 0 || (nmoves > 0 && !moves)) return gs_error_set(err, GS_ERR_USAGE, "no move list");
    for (int i = 0; i < nmoves; i++) {
        const gs_move *m = &moves[i];
        if (m->color != GS_BLACK && m->color != GS_WHITE)
            return gs_error_set(err, GS_ERR_USAGE, "move %d: no colour", i + 1);
        if (!m->pass && (m->pt.x < 0 || m->pt.y < 0 || m->pt.x >= size || m->pt.y >= size))
            return gs_error_set(err, GS_ERR_USAGE, "move %d: off a %dx%d board", i + 1, size, size);
    }
    if (!o || !(o->pace > 0.01 && o->pace <= 100)) return gs_error_set(err, GS_ERR_USAGE, "pace must be in 0.01..100");
    return GS_OK;
}

/* Violations in time order (insertion sort: a handful, kept stable). */
static void sort_violations(render_script *sc)
{
    for (int a = 1; a < sc->nviol; a++)
        for (int b = a; b > 0 && sc->viol[b].t_ms < sc->viol[b - 1].t_ms; b--) {
            render_violation tmp = sc->viol[b];
            sc->viol[b] = sc->viol[b - 1];
            sc->viol[b - 1] = tmp;
        }
}

render_script *render_script_create(int size, const gs_move *moves, int nmoves, const render_script_options *o,
                                    gs_error *err)
{
    if (script_check(size, moves, nmoves, o, err) != GS_OK) return NULL;
    render_script *sc = calloc(1, sizeof *sc);
    if (!sc) { gs_error_set(err, GS_ERR_NOMEM, "out of memory"); return NULL; }
    sc->size = size;
    sc->o = *o;
    sc->rng = render_rng_seed(o->seed, 3);
    gs_position_clear(&sc->board, size);
    if (o->setup.size == size) sc->board = o->setup;
    else if (o->setup.size != 0) {
        render_script_destroy(sc);
        gs_error_set(err, GS_ERR_USAGE, "setup position is %dx%d, the game %dx%d", o->setup.size, o->setup.size, size, size);
        return NULL;
    }
    int plan[RENDER_V_COUNT_];
    plan_violations(sc, moves, nmoves, plan);
    sc->t = fmax(0, o->start_idle_ms);
    for (int i = 0; i < nmoves; i++) play_move(sc, moves, nmoves, i, plan);
    sc->t += fmax(0, o->end_idle_ms);
    if (sc->oom) {
        render_script_destroy(sc);
        gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    sort_violations(sc);
    sc->cur_t = -1;
    return sc;
}

void render_script_destroy(render_script *sc)
{
    if (!sc) return;
    free(sc->keys);
    free(sc->ev);
    free(sc->placed);
    free(sc);
}

double render_script_duration_ms(const render_script *sc) { return sc->t; }

int render_script_violations(const render_script *sc, const render_violation **out)
{
    *out = sc->viol;
    return sc->nviol;
}

int render_script_placed(const render_script *sc, const gs_move **out)
{
    *out = sc->placed;
    return sc->nplaced;
}

/* ------------------------------------------------------------- playback */

static void cursor_reset(render_script *sc)
{
    render_state_init(&sc->cur, sc->size);
    if (sc->o.setup.size == sc->size) {
        sc->cur.pos = sc->o.setup;
        uint64_t r = render_rng_seed(sc->o.seed, 9);
        for (int i = 0; i < sc->size * sc->size; i++) {
            sc->cur.offset[i][0] = (float)render_rng_range(&r, -1, 1);
            sc->cur.offset[i][1] = (float)render_rng_range(&r, -1, 1);
            sc->cur.variant[i] = (uint8_t)(render_rng_next(&r) % RENDER_VARIANTS);
        }
    }
    sc->cur_ev = 0;
    sc->cur_t = -1;
    sc->cur_moves = 0;
    sc->cur_last = (gs_point){-1, -1};
}

static void cursor_to(render_script *sc, double t)
{
    if (t < sc->cur_t || sc->cur_t < 0) cursor_reset(sc);
    while (sc->cur_ev < sc->nev && sc->ev[sc->cur_ev].t <= t) {
        const bevent *e = &sc->ev[sc->cur_ev++];
        if (e->x >= 0) {
            int i = e->y * sc->size + e->x;
            sc->cur.pos.cell[i] = e->colour;
            sc->cur.offset[i][0] = e->colour ? e->ox : 0;
            sc->cur.offset[i][1] = e->colour ? e->oy : 0;
            sc->cur.variant[i] = e->colour ? e->variant : 0;
        }
        if (e->counts) {
            sc->cur_moves = e->counts;
            if (e->x >= 0) sc->cur_last = (gs_point){e->x, e->y};
        }
    }
    sc->cur_t = t;
}

static double smooth(double u) { return u * u * (3 - 2 * u); }

static bool hand_at(const render_script *sc, double t, render_hand *h)
{
    memset(h, 0, sizeof *h);
    /* last key with time <= t */
    int lo = 0, hi = sc->nkeys - 1, k = -1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (sc->keys[mid].t <= t) { k = mid; lo = mid + 1; }
        else hi = mid - 1;
    }
    if (k < 0 || k + 1 >= sc->nkeys || !sc->keys[k].present || !sc->keys[k + 1].present) return false;
    const hkey *a = &sc->keys[k], *b = &sc->keys[k + 1];
    double span = b->t - a->t, u = span > 0 ? smooth((t - a->t) / span) : 1;
    h->present = true;
    h->side = a->side;
    h->x = a->x + (b->x - a->x) * u;
    h->y = a->y + (b->y - a->y) * u;
    h->z = a->z + (b->z - a->z) * u;
    h->yaw_deg = a->yaw + (b->yaw - a->yaw) * u;
    h->holding = a->holding;
    return true;
}

void render_script_state(render_script *sc, double t_ms, render_state *st)
{
    cursor_to(sc, t_ms);
    *st = sc->cur;
    st->t_ms = t_ms;
    if (hand_at(sc, t_ms, &st->hand)) {
        render_hand h2;
        if (hand_at(sc, t_ms + 33, &h2)) {
            double dx = h2.x - st->hand.x, dy = h2.y - st->hand.y, dz = h2.z - st->hand.z;
            st->hand.speed = sqrt(dx * dx + dy * dy + dz * dz);
        }
    }
}

int render_script_moves_at(const render_script *sc, double t_ms, gs_point *last)
{
    int moves = 0;
    gs_point lp = {-1, -1};
    for (int i = 0; i < sc->nev && sc->ev[i].t <= t_ms; i++)
        if (sc->ev[i].counts) {
            moves = sc->ev[i].counts;
            if (sc->ev[i].x >= 0) lp = (gs_point){sc->ev[i].x, sc->ev[i].y};
        }
    if (last) *last = lp;
    return moves;
}
