/* samples/steps.c: the building blocks of a timeline (render_internal.h,
 * "script"): key frames and board events appended, a hand's trips, holds
 * and rests, and the questions about the physical board that the
 * violations ask.  Below script.c (which plays the game with them) and
 * violate.c (which seeds the violations with them). */
#include "samples/render_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void add_key(render_script *sc, render_hkey k)
{
    if (sc->nkeys == sc->capkeys) {
        int nc = sc->capkeys ? sc->capkeys * 2 : 256;
        render_hkey *nk = realloc(sc->keys, (size_t)nc * sizeof *nk);
        if (!nk) { sc->oom = true; return; }
        sc->keys = nk;
        sc->capkeys = nc;
    }
    sc->keys[sc->nkeys++] = k;
}

void render_script_event(render_script *sc, render_bevent e)
{
    if (sc->nev == sc->capev) {
        int nc = sc->capev ? sc->capev * 2 : 256;
        render_bevent *ne = realloc(sc->ev, (size_t)nc * sizeof *ne);
        if (!ne) { sc->oom = true; return; }
        sc->ev = ne;
        sc->capev = nc;
    }
    sc->ev[sc->nev++] = e;
    if (e.x >= 0 && e.slot < 0) gs_position_set(&sc->board, e.x, e.y, (gs_color)e.colour);
}

int render_script_add_placed(render_script *sc, gs_move m)
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

double render_script_dur(render_script *sc, double lo, double hi)
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

/* A trip's way in: from home to high over (tx, ty) (hovering first when
 * asked), then down to just above it.  Returns the time it is there;
 * *yaw and *hi are the arm's turn and the height it came in at. */
static double trip_in(render_script *sc, gs_color side, double tx, double ty, gs_color carry, bool hover, double *yaw,
                      double *hi)
{
    double hx, hy;
    home(sc, side, tx, &hx, &hy);
    *yaw = render_rng_range(&sc->rng, -25, 25);
    *hi = render_rng_range(&sc->rng, 35, 60);
    double low = sc->o.stone_h_mm + 2;
    double t = sc->t + render_script_dur(sc, 60, 160);  /* the hand is out of sight between trips */
    add_key(sc, (render_hkey){t, true, side, hx, hy, 150, *yaw, carry});
    t += render_script_dur(sc, 450, 750);
    add_key(sc, (render_hkey){t, true, side, tx + render_rng_range(&sc->rng, -8, 8),
                              ty + render_rng_range(&sc->rng, -8, 8), *hi, *yaw, carry});
    if (hover) {
        /* undecided: the hand wanders over the board before it commits */
        int n = 1 + (int)(render_rng_uniform(&sc->rng) * 3);
        for (int i = 0; i < n; i++) {
            t += render_script_dur(sc, 300, 700);
            add_key(sc, (render_hkey){t, true, side, tx + render_rng_range(&sc->rng, -60, 60),
                                      ty + render_rng_range(&sc->rng, -60, 60), render_rng_range(&sc->rng, 40, 80),
                                      *yaw, carry});
        }
        t += render_script_dur(sc, 300, 500);
        add_key(sc, (render_hkey){t, true, side, tx, ty, *hi, *yaw, carry});
    }
    t += render_script_dur(sc, 140, 220);
    add_key(sc, (render_hkey){t, true, side, tx, ty, low, *yaw, carry});
    return t;
}

/* A trip's way out from low over (tx, ty) at time t: up, then home and out
 * of sight. */
static void trip_out(render_script *sc, gs_color side, double t, double tx, double ty, gs_color carry, double yaw,
                     double hi)
{
    double hx, hy;
    t += render_script_dur(sc, 130, 200);
    add_key(sc, (render_hkey){t, true, side, tx, ty, hi, yaw, carry});
    t += render_script_dur(sc, 400, 650);
    home(sc, side, tx, &hx, &hy);
    add_key(sc, (render_hkey){t, true, side, hx, hy, 160, yaw, carry});
    add_key(sc, (render_hkey){t, false, side, 0, 0, 0, 0, GS_EMPTY});
    sc->t = t;
}

double render_script_trip(render_script *sc, gs_color side, render_trip_kind kind, gs_point p, gs_point q,
                          gs_color colour, int counts, bool hover)
{
    double tx, ty, yaw, hi, low = sc->o.stone_h_mm + 2;
    point_world(sc, p.x, p.y, &tx, &ty);
    gs_color carry_in = kind == RENDER_TRIP_PLACE ? colour : GS_EMPTY;
    gs_color carry_out = kind == RENDER_TRIP_LIFT ? colour : GS_EMPTY;
    double t = trip_in(sc, side, tx, ty, carry_in, hover, &yaw, &hi);
    double tchange = t + 40 / sc->o.pace;
    double ox = render_rng_range(&sc->rng, -1, 1), oy = render_rng_range(&sc->rng, -1, 1);
    uint8_t var = (uint8_t)(render_rng_next(&sc->rng) % RENDER_VARIANTS);
    if (kind == RENDER_TRIP_PLACE) {
        render_script_event(sc, (render_bevent){tchange, p.x, p.y, (uint8_t)colour, var, (float)ox, (float)oy, counts, -1, 0, 0});
        t += render_script_dur(sc, 90, 160);
        add_key(sc, (render_hkey){t, true, side, tx, ty, low, yaw, GS_EMPTY});
    } else if (kind == RENDER_TRIP_LIFT) {
        render_script_event(sc, (render_bevent){tchange, p.x, p.y, GS_EMPTY, 0, 0, 0, 0, -1, 0, 0});
        t += render_script_dur(sc, 120, 200);
        add_key(sc, (render_hkey){t, true, side, tx, ty, low + 2, yaw, colour});
    } else {
        /* slide: finger on the stone, push it to q */
        double qx, qy;
        point_world(sc, q.x, q.y, &qx, &qy);
        t += render_script_dur(sc, 250, 400);
        add_key(sc, (render_hkey){t, true, side, qx, qy, low, yaw, GS_EMPTY});
        tchange = t - 120 / sc->o.pace;
        gs_color c = gs_position_get(&sc->board, p.x, p.y);
        render_script_event(sc, (render_bevent){tchange, p.x, p.y, GS_EMPTY, 0, 0, 0, 0, -1, 0, 0});
        render_script_event(sc, (render_bevent){tchange, q.x, q.y, (uint8_t)c, var, (float)ox, (float)oy, 0, -1, 0, 0});
        tx = qx;
        ty = qy;
    }
    trip_out(sc, side, t, tx, ty, carry_out, yaw, hi);
    return tchange;
}

double render_script_margin_trip(render_script *sc, gs_color side, double u, double v, gs_color colour, int slot)
{
    double tx = (u - (sc->size - 1) / 2.0) * sc->o.cell_w_mm, ty = (v - (sc->size - 1) / 2.0) * sc->o.cell_h_mm;
    double yaw, hi, low = sc->o.stone_h_mm + 2;
    double t = trip_in(sc, side, tx, ty, colour, false, &yaw, &hi);
    double tchange = t + 40 / sc->o.pace;
    uint8_t var = (uint8_t)(render_rng_next(&sc->rng) % RENDER_VARIANTS);
    render_script_event(sc, (render_bevent){tchange, -1, -1, (uint8_t)colour, var, 0, 0, 0, (int8_t)slot, (float)u,
                                            (float)v});
    t += render_script_dur(sc, 90, 160);
    add_key(sc, (render_hkey){t, true, side, tx, ty, low, yaw, GS_EMPTY});
    trip_out(sc, side, t, tx, ty, GS_EMPTY, yaw, hi);
    return tchange;
}

void render_script_hold(render_script *sc, double hold_ms)
{
    /* the last trip's hand leaves the board's area a little before it is
     * home, the next one reaches it a little after it appears: about 0.3 s
     * of the hold at pace 1 */
    double edges = 300 / sc->o.pace;
    sc->t += fmax(0, hold_ms - edges);
}

/* A hand resting on the board edge for a while. */
static void rest(render_script *sc, gs_color side)
{
    double s = side == GS_WHITE ? -1 : 1, hx, hy;
    double x = render_rng_range(&sc->rng, -half_w(sc) * 0.6, half_w(sc) * 0.6);
    double y = s * (half_h(sc) - render_rng_range(&sc->rng, 0, 12));
    double yaw = render_rng_range(&sc->rng, -30, 30);
    double t = sc->t + render_script_dur(sc, 60, 160);
    home(sc, side, x, &hx, &hy);
    add_key(sc, (render_hkey){t, true, side, hx, hy, 150, yaw, GS_EMPTY});
    t += render_script_dur(sc, 500, 800);
    add_key(sc, (render_hkey){t, true, side, x, y, 12, yaw, GS_EMPTY});
    t += render_script_dur(sc, 1000, 2500);
    add_key(sc, (render_hkey){t, true, side, x + render_rng_range(&sc->rng, -10, 10), y, 12, yaw, GS_EMPTY});
    t += render_script_dur(sc, 500, 800);
    add_key(sc, (render_hkey){t, true, side, hx, hy, 150, yaw, GS_EMPTY});
    add_key(sc, (render_hkey){t, false, side, 0, 0, 0, 0, GS_EMPTY});
    sc->t = t;
}

void render_script_pause(render_script *sc, gs_color next)
{
    sc->t += render_script_dur(sc, 350, 1100);
    if ((int)(render_rng_uniform(&sc->rng) * 100) < sc->o.rest_pct) {
        rest(sc, render_rng_uniform(&sc->rng) < 0.7 ? next : gs_color_other(next));
        sc->t += render_script_dur(sc, 200, 500);
    }
}

int render_script_captures(const gs_position *b, gs_point p, gs_color victim, gs_point *out)
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

int render_script_single_libs(const gs_position *b, gs_point p, gs_point *lib)
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

bool render_script_in_future(const gs_move *moves, int nmoves, int from, int x, int y)
{
    for (int i = from; i < nmoves; i++)
        if (!moves[i].pass && moves[i].pt.x == x && moves[i].pt.y == y) return true;
    return false;
}
