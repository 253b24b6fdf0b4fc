/* broadcast/round_game.c: one state of a board's game as the round shows
 * it.  The game is read from the text of its SGF file (or made from the
 * pairing alone before the file exists), replayed through the rules for
 * the position, the captures and the last move, and written out three
 * ways: the SGF for the feed (the root completed from the pairing, GSST
 * with the game's status), the board's JSON, and that JSON with the moves
 * and the referee's and director's words. */
#include "broadcast/broadcast_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sgf/sgf.h"

/* The game replayed. */
typedef struct round_play {
    gs_position pos;
    int captures[3];             /* by colour: stones it captured */
    gs_color to_move;
    bool has_last;
    gs_move last;
    int64_t last_ms;             /* its GSTM, -1 unknown */
} round_play;

/* A set-up node of the main line: the game goes on from the position it
 * makes (as the recorder did), the captures so far kept. */
static rules_game *replay_step(rules_game *game, const sgf_game *g, const sgf_setup_step *st, round_play *p)
{
    gs_position pos;
    rules_game_position(game, &pos);
    for (int i = 0; i < pos.size * pos.size; i++) {
        if (st->clear[i]) pos.cell[i] = GS_EMPTY;
        if (st->add.cell[i] != GS_EMPTY) pos.cell[i] = st->add.cell[i];
    }
    (void)rules_position_drop_airless(&pos);
    gs_color tm = st->to_move != GS_EMPTY ? st->to_move : rules_game_to_move(game);
    for (int c = GS_BLACK; c <= GS_WHITE; c++) p->captures[c] += rules_board_captures(rules_game_board(game), (gs_color)c);
    rules_game_destroy(game);
    gs_error e;
    game = rules_game_create(g->info.size, &e);
    if (game && rules_game_start(game, &pos, g->info.handicap, tm, &e) != GS_OK) {
        rules_game_destroy(game);
        game = NULL;
    }
    return game;
}

/* The main line replayed (illegal moves are void, as the recorder left
 * them); false when the game cannot be set up at all. */
static bool replay(const sgf_game *g, round_play *p)
{
    memset(p, 0, sizeof *p);
    gs_error e;
    rules_game *game = rules_game_create(g->info.size, &e);
    gs_color first = g->to_move != GS_EMPTY ? g->to_move
                     : g->move_count          ? g->moves[0].color
                                              : (g->info.handicap > 0 ? GS_WHITE : GS_BLACK);
    if (!game || rules_game_start(game, &g->setup, g->info.handicap, first, &e) != GS_OK) {
        rules_game_destroy(game);
        return false;
    }
    size_t si = 0;
    for (size_t mi = 0; game && mi <= g->move_count; mi++) {
        while (game && si < g->step_count && g->steps[si].after_moves <= mi) game = replay_step(game, g, &g->steps[si++], p);
        if (!game || mi == g->move_count) break;
        (void)rules_game_apply(game, &g->moves[mi], NULL);
    }
    if (!game) return false;
    rules_game_position(game, &p->pos);
    for (int c = GS_BLACK; c <= GS_WHITE; c++) p->captures[c] += rules_board_captures(rules_game_board(game), (gs_color)c);
    p->to_move = rules_game_to_move(game);
    p->has_last = g->move_count > 0;
    if (p->has_last) {
        p->last = g->moves[g->move_count - 1];
        p->last_ms = g->move_info[g->move_count - 1].time_ms;
    }
    rules_game_destroy(game);
    return true;
}

/* --------------------------------------------------------------- the SGF */

/* Sets root property id to value when the file has none and value says
 * something. */
static void fill(sgf_node *root, const char *id, const char *value)
{
    gs_error e;
    if (value && *value && !sgf_node_find(root, id)) (void)sgf_node_set_text(root, id, value, &e);
}

/* The game of a board whose file does not exist yet: the pairing alone. */
static sgf_tree *waiting_tree(const round_board *b)
{
    sgf_game_info info;
    sgf_game_info_init(&info);
    info.size = 19;
    info.has_komi = b->has_komi;
    info.komi = b->komi;
    info.handicap = b->handicap >= 2 ? b->handicap : 0;
    gs_error e;
    return sgf_new_game(&info, NULL, NULL, &e);
}

/* The root completed from the pairing and the round, and its status. */
static void complete_root(const broadcast_round *r, const round_board *b, sgf_tree *t, const char *status)
{
    sgf_node *root = sgf_tree_root(t, 0);
    char gn[32];
    snprintf(gn, sizeof gn, "Table %d", b->table);
    fill(root, "PB", b->black);
    fill(root, "BR", b->black_rank);
    fill(root, "PW", b->white);
    fill(root, "WR", b->white_rank);
    fill(root, "EV", r->event);
    fill(root, "RO", r->round);
    fill(root, "PC", r->place);
    fill(root, "DT", r->date);
    fill(root, "GN", gn);
    gs_error e;
    (void)sgf_node_set_text(root, "GSST", status, &e); /* out of memory: the feed goes without it */
}

/* ------------------------------------------------------------- the JSON */

static void json_summary(gs_buf *b, const broadcast_round *r, const round_board *bd, const sgf_game *g,
                         const round_play *p, const char *status)
{
    char grid[GS_MAX_SIZE * GS_MAX_SIZE + 1], name[32], sgf[40];
    broadcast_grid_text(&p->pos, grid);
    snprintf(name, sizeof name, "Table %d", bd->table);
    snprintf(sgf, sizeof sgf, "/board/%d.sgf", bd->table);
    char table[16];
    snprintf(table, sizeof table, "%d", bd->table);
    gs_buf_puts(b, "{\"type\":\"board\",");
    broadcast_json_fields(b, (const broadcast_json_field[]){{"table", table}, {"board", name}, {"round", r->round}}, 3);
    gs_buf_puts(b, ",");
    broadcast_json_players(b, bd->black, bd->black_rank, bd->white, bd->white_rank);
    double komi = g->info.has_komi ? g->info.komi : bd->has_komi ? bd->komi : 7.5;
    gs_buf_printf(b, ",\"handicap\":%d,\"komi\":%g", g->info.handicap ? g->info.handicap : bd->handicap,
                  isfinite(komi) ? komi : 0.0);
    broadcast_json_board(b, p->pos.size, grid, (int)g->move_count);
    bool over = strcmp(status, "playing") && strcmp(status, "waiting");
    gs_buf_printf(b, ",\"to_move\":\"%s\",\"captures\":{\"B\":%d,\"W\":%d},",
                  over ? "" : broadcast_color_name(p->to_move), p->captures[GS_BLACK], p->captures[GS_WHITE]);
    char pt[3];
    broadcast_point_text(p->last.pt, p->pos.size, p->last.pass, pt);
    int64_t ms = p->last_ms;
    broadcast_json_last(b, p->has_last ? broadcast_color_name(p->last.color) : NULL, pt, !pt[0],
                        ms > 0 ? &ms : NULL);
    broadcast_json_fields(b, (const broadcast_json_field[]){{"result", g->info.result}, {"status", status},
                                                            {"sgf", sgf}}, 3);
    gs_buf_puts(b, "}");
}

/* The referee's and director's words of node n: its C paragraphs that
 * start with "Referee" or "Correction". */
static void json_words(gs_buf *b, const sgf_node *n)
{
    const char *c = sgf_node_get_text(n, "C");
    gs_buf_puts(b, "\"text\":");
    gs_buf w = {0};
    for (const char *p = c; p && *p;) {
        const char *end = strstr(p, "\n\n");
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (!strncmp(p, "Referee", 7) || !strncmp(p, "Correction", 10)) {
            if (w.len) gs_buf_puts(&w, " ");
            gs_buf_add(&w, p, len);
        }
        p = end ? end + 2 : p + len;
    }
    gs_json_str(b, w.p ? w.p : "");
    gs_buf_free(&w);
}

/* The moves and the rulings (GSRL) of the main line. */
static void json_moves(gs_buf *b, const sgf_tree *t, int size)
{
    gs_buf rulings = {0};
    gs_buf_puts(b, ",\"move_list\":[");
    int n = 0;
    for (const sgf_node *c = sgf_node_child(sgf_tree_root(t, 0), 0); c; c = sgf_node_child(c, 0)) {
        const sgf_prop *mv = sgf_node_find(c, "B") ? sgf_node_find(c, "B") : sgf_node_find(c, "W");
        if (mv) {
            size_t len = 0;
            const char *v = sgf_prop_raw(mv, 0, &len);
            gs_point pt;
            bool pass = false;
            char s[3] = "";
            if (v && sgf_point_parse(v, len, size, &pt, &pass) && !pass) rules_point_sgf(pt, s);
            gs_buf_printf(b, "%s{\"color\":\"%s\",\"point\":\"%s\"}", n++ ? "," : "", sgf_prop_id(mv), s);
        }
        const sgf_prop *rl = sgf_node_find(c, "GSRL");
        if (!rl) continue;
        const char *kind = sgf_prop_text(rl, 0, NULL);
        char k[24];
        snprintf(k, sizeof k, "%.*s", (int)strcspn(kind ? kind : "", ":"), kind ? kind : "");
        gs_buf_printf(&rulings, "%s{\"move_number\":%d,\"ruling\":", rulings.len ? "," : "", n);
        gs_json_str(&rulings, k);
        gs_buf_puts(&rulings, ",");
        json_words(&rulings, c);
        gs_buf_puts(&rulings, "}");
    }
    gs_buf_puts(b, "],\"rulings\":[");
    if (rulings.p) gs_buf_add(b, rulings.p, rulings.len);
    gs_buf_puts(b, "]");
    if (rulings.failed) b->failed = true;
    gs_buf_free(&rulings);
}

/* ------------------------------------------------------------ a version */

void round_version_free(round_version *v)
{
    if (!v) return;
    free(v->sgf);
    free(v->summary);
    free(v->detail);
    memset(v, 0, sizeof *v);
}

/* The status of a game: what its file and its recorder say. */
static const char *game_status(const char *text, const sgf_game *g, bool stopped)
{
    if (!text) return "waiting";
    if (g->info.result[0]) return "ended";
    return stopped ? "unfinished" : "playing";
}

/* The three texts of a version from the game read. */
static bool version_write(const broadcast_round *r, const round_board *bd, sgf_tree *t, const sgf_game *g,
                          const round_play *p, const char *status, round_version *out)
{
    complete_root(r, bd, t, status);
    gs_error e;
    if (sgf_write(t, &out->sgf, &out->sgf_len, &e) != GS_OK) return false;
    gs_buf s = {0}, d = {0};
    json_summary(&s, r, bd, g, p, status);
    gs_buf_add(&d, s.p ? s.p : "", s.len ? s.len - 1 : 0); /* the same object, more members */
    gs_buf_puts(&d, ",");
    broadcast_json_fields(&d, (const broadcast_json_field[]){{"event", r->event}, {"place", r->place},
                                                             {"date", r->date}}, 3);
    json_moves(&d, t, p->pos.size);
    gs_buf_puts(&d, "}");
    if (s.failed || d.failed) {
        gs_buf_free(&s);
        gs_buf_free(&d);
        return false;
    }
    out->summary = s.p;
    out->summary_len = s.len;
    out->detail = d.p;
    out->detail_len = d.len;
    broadcast_etag(out->sgf, out->sgf_len, out->sgf_etag);
    broadcast_etag(out->detail, out->detail_len, out->detail_etag);
    return true;
}

bool round_version_build(const broadcast_round *r, const round_board *b, const char *text, size_t len, bool stopped,
                         round_version *out, char *why, size_t whylen)
{
    memset(out, 0, sizeof *out);
    sgf_tree *t = NULL;
    gs_error e;
    if (text && sgf_parse(text, len, &t, &e) != GS_OK) {
        snprintf(why, whylen, "not an SGF file: %s", e.msg);
        return false;
    }
    if (!text && !(t = waiting_tree(b))) {
        snprintf(why, whylen, "out of memory");
        return false;
    }
    sgf_game g;
    round_play p;
    bool ok = sgf_game_from_tree(t, &g, &e) == GS_OK;
    if (!ok) snprintf(why, whylen, "not a game: %s", e.msg);
    else if (!(ok = replay(&g, &p))) snprintf(why, whylen, "its set-up cannot be played");
    else if (!(ok = version_write(r, b, t, &g, &p, game_status(text, &g, stopped), out)))
        snprintf(why, whylen, "out of memory");
    if (!ok) round_version_free(out);
    sgf_game_free(&g);
    sgf_tree_destroy(t);
    return ok;
}
