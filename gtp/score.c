/* gtp/score.c: the position at the controller's cursor and what is said
 * of it: showboard, final_score, final_status_list.  The dead stones are
 * the dead-stone estimate's (rules_estimate_dead, as `goscribe count`
 * makes it), with, once the game is counted, the stones the record took as
 * dead (lifted after the end: its TB/TW marks); stderr says so, and how
 * the answer differs from the record's RE when it does (stones left on the
 * board that the estimate finds dead). */
#include "gtp/gtp_internal.h"

#include <stdlib.h>
#include <string.h>

rules_game *gtp_game_at(gtp_engine *e, int k)
{
    const gtp_view *v = &e->v;
    gs_error err;
    rules_game *g = rules_game_create(v->size, &err);
    if (!g) return NULL;
    if (v->setup.size != v->size || rules_game_start(g, &v->setup, v->handicap, v->first, &err) != GS_OK) {
        rules_game_destroy(g);
        return NULL;
    }
    /* the record's moves are legal: a refusal here can only be a cycle
     * the record let stand, which the replay skips as the rules do */
    for (int i = 0; i < k && i < v->nmoves; i++) (void)rules_game_apply(g, &v->moves[i], NULL);
    return g;
}

/* The whole record replayed, kept while the record does not change. */
static bool replay_all(gtp_engine *e)
{
    if (e->game && e->game_version == e->v.version) return true;
    rules_game_destroy(e->game);
    e->game = gtp_game_at(e, e->v.nmoves);
    e->game_version = e->v.version;
    return e->game != NULL;
}

bool gtp_position_at(gtp_engine *e, int k, gs_position *out)
{
    if (!e->v.started || k < 0 || k > e->v.nmoves) return false;
    if (k == e->v.nmoves) {
        *out = e->v.pos; /* the record's own board (it may have followed the board by a set-up node) */
        return true;
    }
    if (!replay_all(e)) return false;
    rules_game_position_at(e->game, k, out);
    return true;
}

bool gtp_counted(const gtp_engine *e)
{
    double pts;
    /* the record's own count (with or without TB/TW marks: a count with no
     * dead stone writes none) is the one count */
    return e->v.finished && e->cursor == e->v.nmoves && rules_parse_result_points(e->v.result, &pts);
}

/* The dead-stone estimate of pos (the position at the cursor), kept while
 * the record and the cursor stay. */
static bool estimate(gtp_engine *e, const gs_position *pos)
{
    if (e->have_est && e->est_version == e->v.version && e->est_cursor == e->cursor) return true;
    rules_estimate_options eo;
    rules_estimate_default_options(&eo);
    gs_error err;
    if (rules_estimate_dead(pos, &eo, e->est, &err) != GS_OK) return false;
    e->have_est = true;
    e->est_version = e->v.version;
    e->est_cursor = e->cursor;
    return true;
}

/* The position at the cursor, or an error when there is none. */
static bool cursor_position(gtp_engine *e, gs_position *pos, gs_buf *res)
{
    gtp_refresh(e);
    if (!e->v.started) {
        gs_buf_puts(res, "the board has not been seen yet");
        return false;
    }
    if (!gtp_position_at(e, e->cursor, pos)) {
        gs_buf_puts(res, "cannot replay the record to the controller's move (out of memory?)");
        return false;
    }
    return true;
}

/* ------------------------------------------------------- final_score */

/* The dead stones at the cursor: the estimate's (as `goscribe count`
 * estimates a board), and, on the record's counted end, the stones the
 * record took as dead too (lifted after the end: its TB/TW marks).  A
 * stone left on the board that the estimate finds dead is dead here
 * (a controller's engine, GNU Go, says so), where the record's count,
 * which takes only what was lifted, left it alive.  False when the
 * estimate fails. */
static bool dead_at_cursor(gtp_engine *e, const gs_position *pos, uint8_t *dead)
{
    if (!estimate(e, pos)) return false;
    int npt = pos->size * pos->size;
    memcpy(dead, e->est->dead, (size_t)npt);
    if (gtp_counted(e)) {
        uint8_t lifted[RULES_MAX_POINTS];
        rules_dead_from_marks(pos, &e->v.marks, lifted);
        for (int i = 0; i < npt; i++) dead[i] |= lifted[i];
    }
    return true;
}

/* What final_score's answer rests on, said on stderr: the estimate, and
 * how it differs from the record's own count when there is one. */
static void say_score(gtp_engine *e, const rules_count *cnt, const uint8_t *dead, const gs_position *pos)
{
    int npt = pos->size * pos->size, nb = 0, nw = 0;
    for (int i = 0; i < npt; i++)
        if (dead[i]) nb += pos->cell[i] == GS_BLACK, nw += pos->cell[i] == GS_WHITE;
    if (!gtp_counted(e)) {
        gtp_say(e, "final_score %s is an estimate: %d black and %d white stones taken as dead (the dead-stone "
                "estimate, as `goscribe count` makes it), %d chains uncertain; the record counts the board when "
                "the game ends", cnt->sgf, nb, nw, e->est->uncertain_chains);
    } else if (strcmp(cnt->sgf, e->v.result)) {
        gtp_say(e, "final_score %s: the record's count (RE %s) took as dead only the stones lifted after the end; "
                "the dead-stone estimate, as `goscribe count` makes it, also finds dead stones left on the board "
                "(%d black, %d white in all)", cnt->sgf, e->v.result, nb, nw);
    } else {
        gtp_say(e, "final_score %s: the record's count (the stones lifted after the end dead), which the dead-stone "
                "estimate agrees with", cnt->sgf);
    }
}

bool gtp_cmd_final_score(gtp_engine *e, const gtp_command *c, gs_buf *res)
{
    (void)c;
    gs_position pos;
    if (!cursor_position(e, &pos, res)) return false;
    const gtp_view *v = &e->v;
    double pts;
    bool decided = v->result[0] && !rules_parse_result_points(v->result, &pts); /* resignation, forfeit */
    if (e->cursor == v->nmoves && decided) {
        gs_buf_puts(res, v->result);
        return true;
    }
    rules_count_opts co;
    rules_count_opts_init(&co);
    co.komi = v->komi;
    co.handicap = v->handicap;
    co.warnings_black = v->warnings[GS_BLACK];
    co.warnings_white = v->warnings[GS_WHITE];
    rules_count cnt;
    gs_error err;
    uint8_t dead[RULES_MAX_POINTS];
    if (!dead_at_cursor(e, &pos, dead) || rules_count_position(&pos, dead, &co, &cnt, &err) != GS_OK) {
        gs_buf_puts(res, "cannot score");
        return false;
    }
    gs_buf_puts(res, cnt.sgf);
    say_score(e, &cnt, dead, &pos);
    return true;
}

/* ------------------------------------------------- final_status_list */

/* Each chain of pos whose stones are marked in mask, one line each. */
static void list_chains(const gs_position *pos, const uint8_t *mask, gs_buf *res)
{
    int size = pos->size, npt = size * size;
    rules_board *b = rules_board_create(size);
    gs_error err;
    bool grouped = b && rules_board_set_position(b, pos, &err) == GS_OK;
    uint8_t listed[RULES_MAX_POINTS] = {0};
    bool first_line = true;
    for (int i = 0; i < npt; i++) {
        if (!mask[i] || listed[i] || pos->cell[i] == GS_EMPTY) continue;
        /* (a board the rules refuse, with a chain without liberties: one
         * stone a line) */
        int gid = grouped ? rules_board_group_id(b, rules_board_index(b, i % size, i / size)) : -1;
        gs_buf_puts(res, first_line ? "" : "\n");
        first_line = false;
        for (int j = i; j < npt; j++) {
            if (!mask[j] || listed[j] || pos->cell[j] == GS_EMPTY) continue;
            if (j != i && (!grouped || rules_board_group_id(b, rules_board_index(b, j % size, j / size)) != gid))
                continue;
            char name[8];
            rules_point_human((gs_point){(int8_t)(j % size), (int8_t)(j / size)}, size, name);
            gs_buf_printf(res, "%s%s", j == i ? "" : " ", name);
            listed[j] = 1;
        }
    }
    rules_board_destroy(b);
}

bool gtp_cmd_final_status_list(gtp_engine *e, const gtp_command *c, gs_buf *res)
{
    const char *st = c->argc >= 1 ? c->argv[0] : "";
    bool want_dead = !strcmp(st, "dead"), want_seki = !strcmp(st, "seki"), want_alive = !strcmp(st, "alive");
    if (!want_dead && !want_seki && !want_alive) {
        gs_buf_puts(res, "syntax error (final_status_list dead|alive|seki)");
        return false;
    }
    gs_position pos;
    if (!cursor_position(e, &pos, res)) return false;
    /* the dead stones final_score counts with (seki is the estimate's word) */
    uint8_t dead[RULES_MAX_POINTS], mask[RULES_MAX_POINTS];
    if (!dead_at_cursor(e, &pos, dead)) {
        gs_buf_puts(res, "cannot estimate the dead stones");
        return false;
    }
    int npt = pos.size * pos.size;
    for (int i = 0; i < npt; i++) {
        bool seki = !want_dead && e->est->status[i] == RULES_ESTIMATE_SEKI && !dead[i];
        mask[i] = want_dead ? dead[i] : want_seki ? seki : (!dead[i] && !seki);
    }
    list_chains(&pos, mask, res);
    return true;
}

/* --------------------------------------------------------- showboard */

static const char COLS[] = "ABCDEFGHJKLMNOPQRSTUVWXYZ";

static void board_letters(int size, gs_buf *res)
{
    gs_buf_puts(res, "\n   ");
    for (int x = 0; x < size; x++) gs_buf_printf(res, " %c", COLS[x]);
}

bool gtp_cmd_showboard(gtp_engine *e, const gtp_command *c, gs_buf *res)
{
    (void)c;
    gs_position pos;
    if (!cursor_position(e, &pos, res)) return false;
    int size = pos.size;
    board_letters(size, res);
    for (int y = 0; y < size; y++) {
        gs_buf_printf(res, "\n%3d", size - y);
        for (int x = 0; x < size; x++) {
            gs_color col = gs_position_get(&pos, x, y);
            gs_buf_printf(res, " %c", col == GS_BLACK ? 'X' : col == GS_WHITE ? 'O' : '.');
        }
        gs_buf_printf(res, " %d", size - y);
    }
    board_letters(size, res);
    const gtp_view *v = &e->v;
    rules_game *g = gtp_game_at(e, e->cursor);
    gs_buf_printf(res, "\nmove %d of the %d the record holds, ", e->cursor, v->nmoves);
    if (g)
        gs_buf_printf(res, "%s to move; prisoners: Black %d, White %d", rules_color_name(rules_game_to_move(g)),
                      rules_board_captures(rules_game_board(g), GS_BLACK),
                      rules_board_captures(rules_game_board(g), GS_WHITE));
    rules_game_destroy(g);
    if (v->result[0]) gs_buf_printf(res, "\nresult %s", v->result);
    return true;
}
