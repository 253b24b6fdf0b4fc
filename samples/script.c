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
    o->stone_mm = 22;
}

void render_script_options_geometry(render_script_options *o, const render_params *p)
{
    o->cell_w_mm = p->cell_w_mm;
    o->cell_h_mm = p->cell_h_mm;
    o->margin_mm = p->margin_mm;
    o->stone_h_mm = p->stone_h_mm;
    o->stone_mm = p->stone_mm;
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

/* ---------------------------------------------------- playing the game */

/* Captured stones a corrected missed capture left on the board, lifted by
 * the capturer once the opponent's next move is on the board and has been
 * seen, still and hand-free, for 1.2..2 s. */
static void lift_left_captures(render_script *sc)
{
    render_left_capture *lc = &sc->left;
    if (lc->n == 0 || sc->nplaced < lc->after) return;
    render_script_hold(sc, render_rng_range(&sc->rng, 1200, 2000));
    double t0 = -1;
    for (int k = 0; k < lc->n; k++) {
        gs_point p = lc->pts[k];
        gs_color c = gs_position_get(&sc->board, p.x, p.y);
        if (c == GS_EMPTY || c == lc->capturer) continue;
        double tl = render_script_trip(sc, lc->capturer, RENDER_TRIP_LIFT, p, p, c, 0, false);
        if (t0 < 0) t0 = tl;
    }
    if (lc->viol >= 0 && lc->viol < sc->nviol) sc->viol[lc->viol].undone_ms = t0;
    lc->n = 0;
}

/* Move i on the table (entry num of the rendered sequence): a pass is a
 * pause; a stone is placed (after clearing a stone a violation left on
 * its point) and its captures lifted, unless this is the move that misses
 * them; then the violations planned for this move. */
static void play_move(render_script *sc, const gs_move *moves, int nmoves, int i, const int plan[2 * RENDER_V_COUNT_])
{
    const gs_move *m = &moves[i];
    gs_color mover = m->color, opp = gs_color_other(mover);
    if (i > 0) render_script_pause(sc, mover);
    if (m->pass) {
        sc->t += render_script_dur(sc, 600, 1200);
        int num = render_script_add_placed(sc, *m);
        render_script_event(sc, (render_bevent){sc->t, -1, -1, 0, 0, 0, 0, num, -1, 0, 0});
        lift_left_captures(sc);
        return;
    }
    if (gs_position_get(&sc->board, m->pt.x, m->pt.y) != GS_EMPTY) {
        /* a violation left a stone here: the mover clears it first */
        render_script_trip(sc, mover, RENDER_TRIP_LIFT, m->pt, m->pt, gs_position_get(&sc->board, m->pt.x, m->pt.y), 0,
                           false);
    }
    bool hover = (int)(render_rng_uniform(&sc->rng) * 100) < sc->o.hover_pct;
    int num = sc->nplaced + 1;
    render_script_trip(sc, mover, RENDER_TRIP_PLACE, m->pt, m->pt, mover, num, hover);
    render_script_add_placed(sc, *m);
    gs_point cap[GS_MAX_SIZE * GS_MAX_SIZE];
    int nc = render_script_captures(&sc->board, m->pt, opp, cap);
    if (!render_violations_keep_captures(sc, i, num, nc, cap, plan, mover))
        for (int k = 0; k < nc; k++) render_script_trip(sc, mover, RENDER_TRIP_LIFT, cap[k], cap[k], opp, 0, false);
    lift_left_captures(sc);
    render_violations_after(sc, moves, nmoves, i, num, nc, cap, plan);
}

/* ------------------------------------------------------ end of the game */

/* Where a player's lower-right corner is (board corner index, vision_grid
 * order): Black sits on the +y side facing -y, so his right is +x: corner 2
 * (size-1, size-1); White, facing +y, has corner 0 (0, 0). */
static int lower_right_corner(gs_color player) { return player == GS_BLACK ? 2 : 0; }

static void add_signal(render_script *sc, bool resign, gs_color player, double t, int corner)
{
    if (sc->nsig < (int)(sizeof sc->sig / sizeof sc->sig[0]))
        sc->sig[sc->nsig++] = (render_signal){resign, player, sc->nplaced, t, corner};
}

/* How far outside the outer line a stone lying on the margin has its
 * centre (board units across, along): half the margin, but never nearer
 * the line than 0.45 cell (it would cover the edge points). */
static void margin_out(const render_script *sc, double *ou, double *ov)
{
    *ou = fmax(0.45, 0.5 * sc->o.margin_mm / sc->o.cell_w_mm);
    *ov = fmax(0.45, 0.5 * sc->o.margin_mm / sc->o.cell_h_mm);
}

/* A stone on the margin in front of player `p`, `along` cells from the
 * middle of their edge towards their right (board coordinates). */
static void margin_point(const render_script *sc, gs_color p, double along, double *u, double *v)
{
    double n1 = sc->size - 1, ou, ov;
    margin_out(sc, &ou, &ov);
    if (p == GS_BLACK) { *u = n1 / 2 + along; *v = n1 + ov; }
    else { *u = n1 / 2 - along; *v = -ov; }
}

/* A stone by player p's lower-right corner, outside both lines; when a
 * stone stands on the corner point, moved out along the diagonal until the
 * two only touch (stones do not overlap: it may then reach over the
 * board's edge), but never with its centre off the board (a margin much
 * narrower than a stone leaves no room: the two then overlap a little). */
static void corner_point(render_script *sc, gs_color p, double *u, double *v)
{
    double n1 = sc->size - 1, ou, ov;
    margin_out(sc, &ou, &ov);
    ou += render_rng_range(&sc->rng, -0.05, 0.1);
    ov += render_rng_range(&sc->rng, -0.05, 0.1);
    int c = p == GS_BLACK ? sc->size - 1 : 0;
    double dmm = hypot(ou * sc->o.cell_w_mm, ov * sc->o.cell_h_mm), need = sc->o.stone_mm * 1.02;
    if (gs_position_get(&sc->board, c, c) != GS_EMPTY && dmm > 0 && dmm < need) {
        double room = fmin((sc->o.margin_mm - 1) / (ou * sc->o.cell_w_mm), (sc->o.margin_mm - 1) / (ov * sc->o.cell_h_mm));
        double k = fmin(need / dmm, room);
        if (k > 1) {
            ou *= k;
            ov *= k;
        }
    }
    if (p == GS_BLACK) { *u = n1 + ou; *v = n1 + ov; }
    else { *u = -ou; *v = -ov; }
}

/* Both players confirm the end: first the side to move, then the other,
 * each puts a stone of the other colour on the margin by their own
 * lower-right corner; resignation: two of one's own stones on one's own
 * margin.  Each stone stays: the footage ends with them. */
static void end_signals(render_script *sc, gs_color to_move)
{
    if (sc->o.end == RENDER_END_NONE) return;
    double half = (sc->size - 1) / 2.0;
    if (sc->o.end == RENDER_END_CONFIRM) {
        gs_color who[2] = {to_move, gs_color_other(to_move)};
        for (int k = 0; k < 2; k++) {
            sc->t += render_script_dur(sc, 800, 1600);
            render_script_hold(sc, render_rng_range(&sc->rng, 1500, 2500));
            double u, v;
            corner_point(sc, who[k], &u, &v);
            double t = render_script_margin_trip(sc, who[k], u, v, gs_color_other(who[k]), k);
            add_signal(sc, false, who[k], t, lower_right_corner(who[k]));
        }
    } else {
        gs_color r = sc->o.resigner == GS_EMPTY ? to_move : sc->o.resigner;
        sc->t += render_script_dur(sc, 800, 1600);
        render_script_hold(sc, render_rng_range(&sc->rng, 1500, 2500));
        double along = render_rng_range(&sc->rng, -half * 0.5, half * 0.3), t = 0;
        for (int k = 0; k < 2; k++) {
            double u, v;
            margin_point(sc, r, along + 1.3 * k, &u, &v);
            t = render_script_margin_trip(sc, r, u, v, r, k);
        }
        add_signal(sc, true, r, t, -1);
    }
    /* held long enough for several looks at a still board */
    render_script_hold(sc, 4000);
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
    int plan[2 * RENDER_V_COUNT_];
    sc->left.n = 0;
    render_violations_plan(sc, moves, nmoves, plan);
    sc->t = fmax(0, o->start_idle_ms);
    for (int i = 0; i < nmoves; i++) play_move(sc, moves, nmoves, i, plan);
    /* captures still waiting for the opponent's move: lifted at the end */
    sc->left.after = 0;
    lift_left_captures(sc);
    end_signals(sc, nmoves > 0 ? gs_color_other(moves[nmoves - 1].color) : GS_BLACK);
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

int render_script_signals(const render_script *sc, const render_signal **out)
{
    *out = sc->sig;
    return sc->nsig;
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
        const render_bevent *e = &sc->ev[sc->cur_ev++];
        if (e->slot >= 0 && e->slot < RENDER_MARGIN_MAX) {
            sc->cur.margin[e->slot] = (render_margin_stone){e->mu, e->mv, (gs_color)e->colour, e->variant};
            if (e->slot >= sc->cur.nmargin) sc->cur.nmargin = e->slot + 1;
        } else if (e->x >= 0) {
            int i = e->y * sc->size + e->x;
            sc->cur.pos.cell[i] = e->colour;
            sc->cur.offset[i][0] = e->colour ? e->ox : 0;
            sc->cur.offset[i][1] = e->colour ? e->oy : 0;
            sc->cur.variant[i] = e->colour ? e->variant : 0;
        }
        if (e->counts) {
            sc->cur_moves = e->counts;
            if (e->x >= 0 && e->slot < 0) sc->cur_last = (gs_point){e->x, e->y};
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
    const render_hkey *a = &sc->keys[k], *b = &sc->keys[k + 1];
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
            if (sc->ev[i].x >= 0 && sc->ev[i].slot < 0) lp = (gs_point){sc->ev[i].x, sc->ev[i].y};
        }
    if (last) *last = lp;
    return moves;
}
