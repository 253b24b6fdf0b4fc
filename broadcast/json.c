/* broadcast/json.c: the JSON messages of the broadcast, written once: the
 * state (viewers, MQTT, the hall's poller), a move, a flagged event, a
 * ruling, and the pieces the hall's own list shares with the state.
 * Strings go through gs_json_str; the rest is numbers and fixed words. */
#include "broadcast/broadcast_internal.h"

#include <math.h>
#include <string.h>

const char *broadcast_color_name(gs_color c)
{
    return c == GS_BLACK ? "B" : c == GS_WHITE ? "W" : "";
}

void broadcast_json_fields(gs_buf *b, const broadcast_json_field *f, int n)
{
    for (int i = 0; i < n; i++) {
        gs_buf_printf(b, "%s\"%s\":", i ? "," : "", f[i].key);
        gs_json_str(b, f[i].value);
    }
}

void broadcast_json_board(gs_buf *b, int size, const char *grid, int move_number)
{
    gs_buf_printf(b, ",\"size\":%d,\"grid\":\"%s\",\"move_number\":%d", size, grid, move_number);
}

void broadcast_json_last(gs_buf *b, const char *color, const char *point, bool pass, const int64_t *unix_ms)
{
    if (!color) {
        gs_buf_puts(b, "\"last\":null,");
        return;
    }
    gs_buf_printf(b, "\"last\":{\"color\":\"%s\",\"point\":\"%s\",\"pass\":%s", color, point, pass ? "true" : "false");
    if (unix_ms) gs_buf_printf(b, ",\"unix_ms\":%lld", (long long)*unix_ms);
    gs_buf_puts(b, "},");
}

void broadcast_point_text(gs_point p, int size, bool pass, char out[3])
{
    memset(out, 0, 3);
    if (pass || p.x < 0 || p.x >= size || p.y < 0 || p.y >= size) return;
    rules_point_sgf(p, out);
}

void broadcast_grid_text(const gs_position *p, char *out)
{
    int n = p->size * p->size;
    for (int i = 0; i < n; i++) out[i] = p->cell[i] == GS_BLACK ? 'B' : p->cell[i] == GS_WHITE ? 'W' : '.';
    out[n] = '\0';
}

void broadcast_state_json(gs_buf *b, const broadcast_state *s, const char *name, const char *id,
                          const char *url)
{
    bool size_ok = s->pos.size >= 5 && s->pos.size <= GS_MAX_SIZE;
    int size = size_ok ? s->pos.size : 19;
    char grid[GS_MAX_SIZE * GS_MAX_SIZE + 1];
    if (size_ok) {
        broadcast_grid_text(&s->pos, grid);
    } else {  /* no position to show: an empty 19x19 board */
        memset(grid, '.', (size_t)(size * size));
        grid[size * size] = '\0';
    }
    gs_buf_puts(b, "{\"type\":\"state\",");
    broadcast_json_fields(b, (const broadcast_json_field[]){{"board", name}, {"board_id", id}, {"url", url}}, 3);
    broadcast_json_board(b, size, grid, s->move_number);
    gs_buf_printf(b, ",\"to_move\":\"%s\",\"captures\":{\"B\":%d,\"W\":%d},\"warnings\":{\"B\":%d,\"W\":%d},\"komi\":%g,",
                  broadcast_color_name(s->to_move), s->captures_black, s->captures_white, s->warnings_black,
                  s->warnings_white, isfinite(s->komi) ? s->komi : 0.0);
    bool has_last = s->last_color == GS_BLACK || s->last_color == GS_WHITE;
    char pt[3];
    broadcast_point_text(s->last_point, size, s->last_pass, pt);
    broadcast_json_last(b, has_last ? broadcast_color_name(s->last_color) : NULL, pt, !pt[0], &s->last_move_unix_ms);
    broadcast_json_players(b, s->black, s->black_rank, s->white, s->white_rank);
    gs_buf_puts(b, ",");
    broadcast_json_fields(b, (const broadcast_json_field[]){{"event", s->event}, {"round", s->round},
                                                            {"table", s->table}, {"result", s->result},
                                                            {"status", s->status[0] ? s->status : "playing"},
                                                            {"not_saved", s->not_saved}}, 6);
    gs_buf_printf(b, ",\"server_unix_ms\":%lld}", (long long)gs_wall_ms());
}

void broadcast_json_players(gs_buf *b, const char *black, const char *black_rank, const char *white,
                            const char *white_rank)
{
    gs_buf_puts(b, "\"players\":{\"B\":{");
    broadcast_json_fields(b, (const broadcast_json_field[]){{"name", black}, {"rank", black_rank}}, 2);
    gs_buf_puts(b, "},\"W\":{");
    broadcast_json_fields(b, (const broadcast_json_field[]){{"name", white}, {"rank", white_rank}}, 2);
    gs_buf_puts(b, "}}");
}

void broadcast_waiting_json(gs_buf *b, const char *name, const char *id, const char *url)
{
    broadcast_state s;
    broadcast_state_init(&s, 19);
    snprintf(s.status, sizeof s.status, "waiting");
    broadcast_state_json(b, &s, name, id, url);
}

void broadcast_move_json(gs_buf *b, const broadcast_state *s)
{
    char pt[3];
    broadcast_point_text(s->last_point, s->pos.size, s->last_pass, pt);
    gs_buf_printf(b, "{\"type\":\"move\",\"move_number\":%d,\"color\":\"%s\",\"point\":\"%s\",\"pass\":%s,\"unix_ms\":%lld}",
                  s->move_number, broadcast_color_name(s->last_color), pt, pt[0] ? "false" : "true",
                  (long long)s->last_move_unix_ms);
}

/* The points of an event that lie on a board of the given size. */
static void event_points_json(gs_buf *b, const broadcast_event *ev, int size)
{
    int np = ev->points ? (ev->npoints < BROADCAST_MAX_POINTS ? ev->npoints : BROADCAST_MAX_POINTS) : 0;
    int written = 0;
    gs_buf_puts(b, "[");
    for (int i = 0; i < np; i++) {
        char pt[3];
        broadcast_point_text(ev->points[i], size, false, pt);
        if (pt[0]) gs_buf_printf(b, "%s\"%s\"", written++ ? "," : "", pt);
    }
    gs_buf_puts(b, "]");
}

static bool position_ok(const gs_position *p)
{
    return p && p->size >= 5 && p->size <= GS_MAX_SIZE;
}

void broadcast_event_json(gs_buf *pub, gs_buf *detail, int id, const broadcast_event *ev,
                          bool has_before, bool has_after)
{
    int size = ev->before ? ev->before->size : ev->after ? ev->after->size : GS_MAX_SIZE;
    gs_buf_printf(pub, "{\"type\":\"event\",\"id\":%d,", id);
    broadcast_json_fields(pub, (const broadcast_json_field[]){{"code", ev->code ? ev->code : "note"},
                                                              {"text", ev->message ? ev->message : ""}}, 2);
    gs_buf_printf(pub, ",\"color\":\"%s\",\"move_number\":%d,\"points\":", broadcast_color_name(ev->color),
                  ev->move_number);
    event_points_json(pub, ev, size);
    gs_buf_printf(pub, ",\"has_before\":%s,\"has_after\":%s,\"unix_ms\":%lld}", has_before ? "true" : "false",
                  has_after ? "true" : "false", (long long)gs_wall_ms());
    if (pub->failed) return;
    /* the console's copy: the same object, the closing brace moved past
     * the positions */
    gs_buf_add(detail, pub->p, pub->len - 1);
    char g[GS_MAX_SIZE * GS_MAX_SIZE + 1];
    if (position_ok(ev->before)) {
        broadcast_grid_text(ev->before, g);
        gs_buf_printf(detail, ",\"size\":%d,\"before\":\"%s\"", ev->before->size, g);
    }
    if (position_ok(ev->after)) {
        broadcast_grid_text(ev->after, g);
        gs_buf_printf(detail, ",\"after\":\"%s\"", g);
        if (!ev->before) gs_buf_printf(detail, ",\"size\":%d", ev->after->size);
    }
    gs_buf_puts(detail, "}");
}

void broadcast_ruling_json(gs_buf *b, const broadcast_ruling *r)
{
    gs_buf_printf(b, "{\"type\":\"ruling\",\"id\":%d,\"event_id\":%d,\"ruling\":\"%s\",\"color\":\"%s\","
                     "\"warning\":%s,\"warnings\":{\"B\":%d,\"W\":%d},\"loser\":\"%s\",\"unix_ms\":%lld,",
                  r->id, r->event_id, record_ruling_name(r->kind), broadcast_color_name(r->color),
                  r->warning ? "true" : "false", r->warnings_black, r->warnings_white,
                  broadcast_color_name(r->loser), (long long)r->unix_ms);
    if (r->kind == RECORD_RULING_MOVE) {
        char pt[3];
        broadcast_point_text(r->npoints ? r->points[0] : (gs_point){-1, -1}, GS_MAX_SIZE, r->npoints == 0, pt);
        gs_buf_printf(b, "\"move_number\":%d,\"point\":\"%s\",", r->move_number, pt);
    }
    char words[400];
    broadcast_ruling_describe(r, words, sizeof words);
    broadcast_json_fields(b, (const broadcast_json_field[]){{"text", words}, {"result", r->result}, {"by", r->by}}, 3);
    gs_buf_puts(b, "}");
}
