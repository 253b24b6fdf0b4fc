/* gtp/play.c: the game commands.  The controller follows the record with
 * a cursor: genmove answers the record's move at the cursor when it is the
 * colour's, play is answered when the record's move at the cursor is that
 * stone; both wait for the board when the record has nothing there yet.
 * Each step looks at the view once and answers, fails, or waits. */
#include "gtp/gtp_internal.h"
#include "sgf/sgf.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What one look at the record says of a waiting command. */
enum { STEP_WAIT = -1, STEP_FAIL = 0, STEP_DONE = 1 };

static const char *color_name(gs_color c) { return rules_color_name(c); }

static bool same_move(const gs_move *a, const gs_move *b)
{
    if (a->color != b->color || a->pass != b->pass) return false;
    return a->pass || (a->pt.x == b->pt.x && a->pt.y == b->pt.y);
}

bool gtp_check_size(gtp_engine *e, gs_buf *res)
{
    int want = e->want_size ? e->want_size : e->opt.size;
    if (e->v.started && want && e->v.size != want) {
        gs_buf_printf(res, "the board seen is %dx%d, not %dx%d", e->v.size, e->v.size, want, want);
        return false;
    }
    return true;
}

/* The recording is over (the loop returned, or the record is closed,
 * which it does just before): no move will come. */
static int step_loop_done(const gtp_engine *e, gs_buf *res)
{
    const gtp_view *v = &e->v;
    const char *why = v->loop_done ? v->loop_why : "the record is closed";
    if (!v->started) gs_buf_printf(res, "no board was seen (%s)", why);
    else
        gs_buf_printf(res, "the recording has ended (%s)%s%s: no more moves will come", why,
                      v->result[0] ? ", result " : "", v->result);
    return STEP_FAIL;
}

/* genmove col while col's resignation signal is on the margin (two of
 * col's stones outside the lines, no move since): col resigns instead of
 * playing.  Only the colour asked to move is taken at its signal (the
 * recorder flags the others, for the referee).  The engine answers for
 * the player, so the record is handed the resignation too (once). */
static bool signalled_resignation(gtp_engine *e, gs_color col)
{
    const gtp_view *v = &e->v;
    if (v->ended || v->resign_signal[col] != v->nmoves) return false;
    if (e->pushed_resign[col] != v->nmoves) {
        e->pushed_resign[col] = v->nmoves;
        if (!gtp_board_push(e->board, col == GS_BLACK ? "resign B" : "resign W"))
            gtp_say(e, "cannot hand the resignation to the record (queue full)");
        gtp_say(e, "%s resigns (the resignation signal on the margin)", color_name(col));
    }
    return true;
}

/* Nothing at the cursor yet: a resignation, the game's end, or the end of
 * the recording settles what the controller asked; else it waits. */
static int step_no_move(gtp_engine *e, gs_color col, bool genmove, gs_buf *res)
{
    const gtp_view *v = &e->v;
    gs_color resigned = v->resigned;
    if (resigned == GS_EMPTY && genmove && signalled_resignation(e, col)) resigned = col;
    if (resigned == col && genmove) {
        gs_buf_puts(res, "resign");
        return STEP_DONE;
    }
    if (resigned != GS_EMPTY) {
        gs_buf_printf(res, "%s has resigned", color_name(resigned));
        return STEP_FAIL;
    }
    if (v->loop_done || v->finished) return step_loop_done(e, res);
    if (v->ended && genmove) {
        gs_buf_puts(res, "pass"); /* the game is over on the board: nothing more to play */
        return STEP_DONE;
    }
    if (v->ended) {
        gs_buf_printf(res, "the game is over on the board (%d moves): no more stones", v->nmoves);
        return STEP_FAIL;
    }
    return STEP_WAIT;
}

static int genmove_step(gtp_engine *e, gs_color col, gs_buf *res)
{
    const gtp_view *v = &e->v;
    if (!v->started) return v->loop_done ? step_loop_done(e, res) : STEP_WAIT;
    if (!gtp_check_size(e, res)) return STEP_FAIL;
    if (e->cursor >= v->nmoves) return step_no_move(e, col, true, res);
    const gs_move *m = &v->moves[e->cursor];
    char vn[8];
    gtp_vertex_name(m, v->size, vn);
    if (m->color != col) {
        gs_buf_printf(res, "the board shows %s %s as move %d: it is not %s's move", color_name(m->color), vn,
                      e->cursor + 1, color_name(col));
        return STEP_FAIL;
    }
    e->cursor++;
    gs_buf_puts(res, vn);
    return STEP_DONE;
}

/* The answer of a wait that did not end with the board. */
static bool wait_failed(gtp_wait w, const gtp_engine *e, const char *what, gs_buf *res)
{
    if (w == GTP_WAIT_INTERRUPTED) gs_buf_printf(res, "interrupted while waiting for %s", what);
    else gs_buf_printf(res, "%s not seen on the board in %g s", what, e->opt.move_timeout_s);
    return false;
}

bool gtp_cmd_genmove(gtp_engine *e, const gtp_command *c, gs_buf *res)
{
    gs_color col;
    if (c->argc < 1 || !gtp_parse_color(c->argv[0], &col)) {
        gs_buf_puts(res, c->argc < 1 ? "syntax error (genmove b|w)" : "invalid color (genmove b|w)");
        return false;
    }
    double deadline = gtp_deadline(e);
    char what[40];
    snprintf(what, sizeof what, "a move of %s", color_name(col));
    for (;;) {
        gtp_refresh(e);
        int r = genmove_step(e, col, res);
        if (r != STEP_WAIT) return r == STEP_DONE;
        gtp_wait w = gtp_wait_board(e, deadline);
        if (w != GTP_WAIT_CHANGED) return wait_failed(w, e, what, res);
    }
}

/* ------------------------------------------------------------- play */

/* The record's move at the cursor is not the one asked: the error says
 * what the board shows, and the record keeps a note of it (once). */
static int play_mismatch(gtp_engine *e, const gs_move *asked, const gs_move *seen, gs_buf *res)
{
    int size = e->v.size, num = e->cursor + 1;
    char a[8], s[8];
    gtp_vertex_name(asked, size, a);
    gtp_vertex_name(seen, size, s);
    gs_buf_printf(res, "the board shows %s %s as move %d, not %s %s", color_name(seen->color), s, num,
                  color_name(asked->color), a);
    if (e->noted_move == num && same_move(&e->noted, asked)) return STEP_FAIL;
    e->noted_move = num;
    e->noted = *asked;
    char note[200];
    snprintf(note, sizeof note, "note GTP play %s %s asked for move %d: the board shows %s %s instead",
             asked->color == GS_BLACK ? "B" : "W", a, num, color_name(seen->color), s);
    if (!gtp_board_push(e->board, note)) gtp_say(e, "%s (not in the record: queue full)", note + 5);
    return STEP_FAIL;
}

/* play C pass with nothing at the cursor: the board cannot show a pass,
 * so the record is told (once) and the pass is then its move. */
static int play_pass(gtp_engine *e, const gs_move *m, gs_buf *res)
{
    const gtp_view *v = &e->v;
    if (e->pushed_pass == v->nmoves) return STEP_WAIT;
    if (v->to_move != m->color) {
        gs_buf_printf(res, "it is %s's turn on the board: a pass of %s cannot be recorded", color_name(v->to_move),
                      color_name(m->color));
        return STEP_FAIL;
    }
    if (!gtp_board_push(e->board, m->color == GS_BLACK ? "pass B" : "pass W")) {
        gs_buf_puts(res, "the record cannot take the pass now (queue full)");
        return STEP_FAIL;
    }
    e->pushed_pass = v->nmoves;
    return STEP_WAIT;
}

/* A stone on a point the rules forbid at the cursor (occupied, suicide,
 * ko) can never appear as the move asked: refused without waiting. */
static bool play_illegal(gtp_engine *e, const gs_move *m)
{
    if (m->pass) return false;
    gs_position pos;
    if (!gtp_position_at(e, e->cursor, &pos)) return false;
    if (gs_position_get(&pos, m->pt.x, m->pt.y) != GS_EMPTY) return true;
    rules_game *g = gtp_game_at(e, e->cursor);
    if (!g) return false;
    gs_position replayed;
    rules_game_position(g, &replayed);
    /* the replay is the record only when the record never followed the
     * board by a set-up node; otherwise its ko history is not the game's */
    bool judge = !memcmp(replayed.cell, pos.cell, (size_t)pos.size * (size_t)pos.size);
    bool bad = judge && rules_game_check(g, m->color, m->pt) != RULES_LEGAL;
    rules_game_destroy(g);
    return bad;
}

static bool vertex_error(const char *vertex, int size, gs_buf *res)
{
    gs_buf_printf(res, "invalid vertex %.20s (A1..%c%d or pass)", vertex, "ABCDEFGHJKLMNOPQRSTUVWXYZ"[size - 1], size);
    return false;
}

/* The move asked, its vertex read on the board's own size (it may not
 * have been known when the command came); false with the error in res. */
static bool play_read(const gtp_engine *e, gs_color col, const char *vertex, gs_move *m, gs_buf *res)
{
    if (!gtp_parse_vertex(vertex, e->v.size, m)) return vertex_error(vertex, e->v.size, res);
    m->color = col;
    return true;
}

static int play_step(gtp_engine *e, gs_color col, const char *vertex, gs_buf *res)
{
    const gtp_view *v = &e->v;
    if (!v->started) return v->loop_done ? step_loop_done(e, res) : STEP_WAIT;
    gs_move mv, *m = &mv;
    if (!gtp_check_size(e, res) || !play_read(e, col, vertex, m, res)) return STEP_FAIL;
    if (e->cursor < v->nmoves) {
        if (!same_move(&v->moves[e->cursor], m)) return play_mismatch(e, m, &v->moves[e->cursor], res);
        e->cursor++;
        return STEP_DONE;
    }
    if (play_illegal(e, m)) {
        gs_buf_puts(res, "illegal move");
        return STEP_FAIL;
    }
    int r = step_no_move(e, m->color, false, res);
    if (r != STEP_WAIT || !m->pass) return r;
    return play_pass(e, m, res);
}

bool gtp_cmd_play(gtp_engine *e, const gtp_command *c, gs_buf *res)
{
    gs_color col;
    if (c->argc < 2 || !gtp_parse_color(c->argv[0], &col)) {
        gs_buf_puts(res, c->argc < 2 ? "syntax error (play b|w VERTEX)" : "invalid color (play b|w VERTEX)");
        return false;
    }
    /* a vertex that fits no board is refused at once; whether it is on
     * this board is known once the board is seen */
    gtp_refresh(e);
    bool size_known = e->v.started || e->want_size || e->opt.size;
    gs_move m;
    if (!gtp_parse_vertex(c->argv[1], size_known ? gtp_size(e) : GS_MAX_SIZE, &m))
        return vertex_error(c->argv[1], gtp_size(e), res);
    double deadline = gtp_deadline(e);
    char what[40];
    snprintf(what, sizeof what, "%s %.8s", color_name(col), c->argv[1]);
    for (;;) {
        int r = play_step(e, col, c->argv[1], res);
        if (r != STEP_WAIT) return r == STEP_DONE;
        gtp_wait w = gtp_wait_board(e, deadline);
        if (w != GTP_WAIT_CHANGED) return wait_failed(w, e, what, res);
    }
}

/* --------------------------------------------- cursor and settings */

bool gtp_cmd_undo(gtp_engine *e, const gtp_command *c, gs_buf *res)
{
    (void)c;
    if (e->cursor == 0) {
        gs_buf_puts(res, "cannot undo");
        return false;
    }
    e->cursor--;
    return true;
}

bool gtp_cmd_clear_board(gtp_engine *e, const gtp_command *c, gs_buf *res)
{
    (void)c, (void)res;
    gtp_refresh(e);
    e->cursor = 0;
    int setup = e->v.started ? gs_position_count(&e->v.setup, GS_BLACK) + gs_position_count(&e->v.setup, GS_WHITE) : 0;
    if (e->v.nmoves > 0 || setup > 0)
        gtp_say(e, "clear_board: the record already holds %d moves%s; the controller's moves are checked against "
                "them from the first",
                e->v.nmoves, setup ? " after set-up stones" : "");
    return true;
}

/* A whole decimal number of s; false if s is not one. */
static bool parse_long(const char *s, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno) return false;
    *out = v;
    return true;
}

bool gtp_cmd_boardsize(gtp_engine *e, const gtp_command *c, gs_buf *res)
{
    long n;
    if (c->argc < 1 || !parse_long(c->argv[0], &n)) {
        gs_buf_puts(res, "syntax error (boardsize N)");
        return false;
    }
    gtp_refresh(e);
    if (n < RULES_MIN_SIZE || n > GS_MAX_SIZE) {
        gs_buf_printf(res, "unacceptable size (%d..%d)", RULES_MIN_SIZE, GS_MAX_SIZE);
        return false;
    }
    if (e->v.started && e->v.size != n) {
        gs_buf_printf(res, "unacceptable size: the board seen is %dx%d", e->v.size, e->v.size);
        return false;
    }
    e->want_size = (int)n;
    e->cursor = 0;
    return true;
}

/* The komi the record counts with: its KM once it started, else the
 * recorder's option, else the default. */
static double record_komi(const gtp_engine *e)
{
    if (e->v.started) return e->v.komi;
    return e->opt.has_komi ? e->opt.komi : 7.5;
}

static void note_komi(gtp_engine *e, double k)
{
    if (fabs(k - record_komi(e)) > 1e-9)
        gtp_say(e, "komi %g from the controller: goscribe counts with the record's komi %g (--komi; 7.5 = 3 3/4 "
                "stones)",
                k, record_komi(e));
}

bool gtp_cmd_komi(gtp_engine *e, const gtp_command *c, gs_buf *res)
{
    char *end = NULL;
    double k = c->argc >= 1 ? strtod(c->argv[0], &end) : NAN;
    if (c->argc < 1 || !end || *end || !isfinite(k) || fabs(k) > 1000) {
        gs_buf_puts(res, "syntax error (komi K)");
        return false;
    }
    gtp_refresh(e);
    e->komi = k;
    e->has_komi = true;
    note_komi(e, k);
    return true;
}

/* ----------------------------------------------------------- loadsgf */

/* The position of the file before move `before` (0 = after all of it),
 * replayed under the rules (an illegal move is void, as the rules say). */
static bool loadsgf_target(const sgf_game *g, long before, gs_position *out, gs_error *err)
{
    rules_game *rg = rules_game_create(g->info.size, err);
    if (!rg) return false;
    gs_color first = g->move_count ? g->moves[0].color : GS_EMPTY;
    bool ok = rules_game_start(rg, &g->setup, g->info.handicap, first, err) == GS_OK;
    size_t n = before > 0 ? (size_t)(before - 1) : g->move_count;
    for (size_t i = 0; ok && i < n && i < g->move_count; i++) (void)rules_game_apply(rg, &g->moves[i], NULL);
    if (ok) rules_game_position(rg, out);
    rules_game_destroy(rg);
    return ok;
}

/* The latest move number of the record whose position is target; -1
 * when none is (*closest gets the fewest points that differ). */
static int loadsgf_find(gtp_engine *e, const gs_position *target, int *closest)
{
    *closest = -1;
    if (!e->v.started || e->v.size != target->size) return -1;
    int npt = target->size * target->size;
    for (int k = e->v.nmoves; k >= 0; k--) {
        gs_position p;
        if (!gtp_position_at(e, k, &p)) continue;
        int diff = 0;
        for (int i = 0; i < npt; i++) diff += p.cell[i] != target->cell[i];
        if (diff == 0) return k;
        if (*closest < 0 || diff < *closest) *closest = diff;
    }
    return -1;
}

/* Waits until the board shows target, then puts the cursor there. */
static bool loadsgf_wait(gtp_engine *e, const gs_position *target, const char *file, gs_buf *res)
{
    double deadline = gtp_deadline(e);
    for (;;) {
        gtp_refresh(e);
        if (e->v.started && e->v.size != target->size) {
            gs_buf_printf(res, "the board seen is %dx%d, %s is %dx%d", e->v.size, e->v.size, file, target->size,
                          target->size);
            return false;
        }
        int closest, k = loadsgf_find(e, target, &closest);
        if (k >= 0) {
            e->cursor = k;
            return true;
        }
        gtp_wait w = e->v.loop_done ? GTP_WAIT_TIMEOUT : gtp_wait_board(e, deadline);
        if (w == GTP_WAIT_CHANGED) continue;
        if (w == GTP_WAIT_INTERRUPTED) gs_buf_puts(res, "interrupted while waiting for the position");
        else if (closest >= 0) gs_buf_printf(res, "the board does not show the position of %s (%d points differ)", file, closest);
        else gs_buf_printf(res, "the board does not show the position of %s (no board seen)", file);
        return false;
    }
}

bool gtp_cmd_loadsgf(gtp_engine *e, const gtp_command *c, gs_buf *res)
{
    long before = 0;
    if (c->argc < 1 || (c->argc >= 2 && (!parse_long(c->argv[1], &before) || before < 1))) {
        gs_buf_puts(res, "syntax error (loadsgf FILE [MOVE_NUMBER])");
        return false;
    }
    sgf_game g;
    gs_error err;
    if (sgf_game_load(c->argv[0], &g, &err) != GS_OK) {
        gs_buf_printf(res, "cannot load %s: %s", c->argv[0], err.msg);
        return false;
    }
    gs_position target;
    bool ok = g.info.size >= RULES_MIN_SIZE && g.info.size <= GS_MAX_SIZE && loadsgf_target(&g, before, &target, &err);
    if (!ok) gs_buf_printf(res, "cannot replay %s: %s", c->argv[0], g.info.size >= RULES_MIN_SIZE && g.info.size <= GS_MAX_SIZE ? err.msg : "unsupported board size");
    if (ok && g.info.has_komi) {
        e->komi = g.info.komi;
        e->has_komi = true;
        note_komi(e, g.info.komi);
    }
    sgf_game_free(&g);
    if (!ok) return false;
    e->want_size = target.size;
    return loadsgf_wait(e, &target, c->argv[0], res);
}
