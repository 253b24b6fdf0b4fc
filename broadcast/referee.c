/* broadcast/referee.c: the referee's API of one board (behind the token,
 * see handlers.c): the list of flagged events and POST /api/ruling, which validates a
 * ruling, queues it for the recorder (broadcast_board_poll_ruling) and
 * tells the viewers. */
#include "broadcast/broadcast_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void broadcast_board_answer_event_list(broadcast_board *sb, broadcast_resp *resp)
{
    gs_buf b = {0};
    gs_buf_puts(&b, "{\"events\":[");
    pthread_mutex_lock(&sb->mu);
    int first = sb->next_event_id - BROADCAST_EVENTS_KEPT + 1;
    bool any = false;
    for (int id = first < 1 ? 1 : first; id <= sb->next_event_id; id++) {
        broadcast_kept_event *e = &sb->events[id % BROADCAST_EVENTS_KEPT];
        if (e->id != id || !e->detail) continue;
        if (any) gs_buf_puts(&b, ",");
        /* the event's own object with its ruled mark added before its
         * closing brace */
        gs_buf_add(&b, e->detail, strlen(e->detail) - 1);
        gs_buf_printf(&b, ",\"ruled\":%s%c", e->ruled ? "true" : "false", '}');
        any = true;
    }
    gs_buf_printf(&b, "],\"warnings\":{\"B\":%d,\"W\":%d}}", sb->warnings[GS_BLACK], sb->warnings[GS_WHITE]);
    pthread_mutex_unlock(&sb->mu);
    broadcast_resp_json(resp, &b, true);
}

/* ------------------------------------------------------------- a ruling */

/* The points of a ruling: SGF points "dd"; an error message or NULL. */
static const char *ruling_points(const gs_json *pts, broadcast_ruling *r)
{
    for (int i = 0; pts && i < pts->n; i++) {
        const gs_json *p = pts->kids[i];
        if (p->type != GS_JSON_STR || strlen(p->str) != 2 || p->str[0] < 'a' || p->str[0] >= 'a' + GS_MAX_SIZE ||
            p->str[1] < 'a' || p->str[1] >= 'a' + GS_MAX_SIZE)
            return "\"points\" must hold SGF points like \"dd\"";
        r->points[r->npoints++] = (gs_point){(int8_t)(p->str[0] - 'a'), (int8_t)(p->str[1] - 'a')};
    }
    return NULL;
}

/* A key the console does not send is refused rather than ignored: a client
 * still using an old name ("event") would otherwise see its ruling applied
 * to no event at all. */
static const char *ruling_unknown_key(const gs_json *j)
{
    static const char *const known[] = {"ruling", "event_id", "color", "warning", "points", "note",
                                        "move_number", "point", "result", "by"};
    for (int i = 0; i < j->n; i++) {
        bool ok = false;
        for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) ok = ok || !strcmp(j->keys[i], known[k]);
        if (!ok)
            return "unknown key in the ruling (known: ruling, event_id, color, warning, points, note, move_number, "
                   "point, result, by)";
    }
    return NULL;
}

/* A string member: absent is fine (""), too long or not a string is not. */
static bool short_str(const gs_json *j, const char *key, char *out, size_t n)
{
    const gs_json *v = gs_json_get(j, key);
    out[0] = '\0';
    if (!v) return true;
    if (v->type != GS_JSON_STR || strlen(v->str) >= n) return false;
    for (const char *c = v->str; *c; c++)
        if ((unsigned char)*c < 0x20) return false;
    snprintf(out, n, "%s", v->str);
    return true;
}

/* The fields of a correction ("move", "result"); an error or NULL. */
static const char *correction_from_json(const gs_json *j, broadcast_ruling *r)
{
    const gs_json *mn = gs_json_get(j, "move_number");
    char point[8];
    if (!short_str(j, "point", point, sizeof point)) return "\"point\" must be an SGF point like \"pd\", or \"\" for a pass";
    if (!short_str(j, "result", r->result, sizeof r->result) ||
        strspn(r->result, "BW+0123456789.RrTtFfDdawVoiesign?") != strlen(r->result))
        return "\"result\" must be an SGF result such as B+R, W+3.5, 0, B+T, W+F";
    if (r->kind == RECORD_RULING_MOVE) {
        if (!mn || mn->type != GS_JSON_NUM || mn->num < 1 || mn->num > 10000 || mn->num != (int)mn->num)
            return "a move correction needs \"move_number\" (1, 2, ...)";
        r->move_number = (int)mn->num;
        if (point[0]) {
            if (strlen(point) != 2 || point[0] < 'a' || point[0] >= 'a' + GS_MAX_SIZE || point[1] < 'a' ||
                point[1] >= 'a' + GS_MAX_SIZE)
                return "\"point\" must be an SGF point like \"pd\", or \"\" for a pass";
            r->points[0] = (gs_point){(int8_t)(point[0] - 'a'), (int8_t)(point[1] - 'a')};
            r->npoints = 1;
        } else {
            r->npoints = 0;
        }
    } else if (r->kind == RECORD_RULING_RESULT && !gs_json_get(j, "result")) {
        return "a result correction needs \"result\" (\"\" removes it)";
    }
    return NULL;
}

/* Reads the posted ruling into r (zeroed first): the message of the first
 * thing wrong with it, or NULL. */
const char *broadcast_ruling_from_json(const gs_json *j, broadcast_ruling *r)
{
    memset(r, 0, sizeof *r);
    const gs_json *ev = gs_json_get(j, "event_id");
    const gs_json *col = gs_json_get(j, "color");
    const gs_json *warn = gs_json_get(j, "warning");
    const gs_json *pts = gs_json_get(j, "points");
    const gs_json *note = gs_json_get(j, "note");
    if (j->type != GS_JSON_OBJ) return "a JSON object is expected";
    const char *unknown = ruling_unknown_key(j);
    if (unknown) return unknown;
    if (!record_ruling_parse_kind(gs_json_get_str(j, "ruling", NULL), &r->kind))
        return "\"ruling\" must be one of void, restore, remove_dead, warn, accept, pass, end, resign, move, result";
    if (!short_str(j, "by", r->by, sizeof r->by)) return "\"by\" must be a short name";
    if (ev && (ev->type != GS_JSON_NUM || ev->num < 0 || ev->num > 1e9 || ev->num != (int)ev->num))
        return "\"event_id\" must be an event id";
    if (col && (col->type != GS_JSON_STR || (strcmp(col->str, "B") && strcmp(col->str, "W"))))
        return "\"color\" must be \"B\" or \"W\"";
    if (warn && warn->type != GS_JSON_BOOL) return "\"warning\" must be true or false";
    if (pts && (pts->type != GS_JSON_ARR || pts->n > BROADCAST_MAX_POINTS)) return "\"points\" must be a short array";
    if (note && (note->type != GS_JSON_STR || strlen(note->str) >= sizeof r->note))
        return "\"note\" must be a short string";
    r->event_id = ev ? (int)ev->num : 0;
    r->color = col ? (col->str[0] == 'B' ? GS_BLACK : GS_WHITE) : GS_EMPTY;
    r->warning = warn ? warn->b : r->kind == RECORD_RULING_WARN;
    const char *msg = ruling_points(pts, r);
    if (note) snprintf(r->note, sizeof r->note, "%s", note->str);
    if (!msg && (r->kind == RECORD_RULING_MOVE || r->kind == RECORD_RULING_RESULT)) msg = correction_from_json(j, r);
    return msg;
}

/* Checks r against the board (its event, a side when one is needed, room
 * in the queue), then numbers it, counts its warning and queues it (mu
 * held).  The message and *status of a refusal, or NULL. */
static const char *ruling_queue_locked(broadcast_board *sb, broadcast_ruling *r, int *status)
{
    if (sb->rulings_closed[0]) {
        *status = 409;
        return sb->rulings_closed;
    }
    broadcast_kept_event *e = r->event_id ? &sb->events[r->event_id % BROADCAST_EVENTS_KEPT] : NULL;
    if (e && e->id != r->event_id) {
        *status = 404;
        return "no such event";
    }
    if (r->color == GS_EMPTY && e) r->color = e->color;
    if (r->color == GS_EMPTY && (r->warning || r->kind == RECORD_RULING_RESIGN)) {
        *status = 400;
        return "\"color\" is needed for a warning or a resignation";
    }
    if (sb->q_count >= BROADCAST_QUEUE) {
        *status = 503;
        return "the recorder has not taken the earlier rulings yet";
    }
    r->id = ++sb->next_ruling_id;
    r->unix_ms = gs_wall_ms();
    if (r->warning) sb->warnings[r->color]++;
    r->warnings_black = sb->warnings[GS_BLACK];
    r->warnings_white = sb->warnings[GS_WHITE];
    if (r->kind == RECORD_RULING_RESIGN || (r->warning && sb->warnings[r->color] >= 2)) r->loser = r->color;
    sb->queue[(sb->q_head + sb->q_count) % BROADCAST_QUEUE] = *r;
    sb->q_count++;
    if (e) e->ruled = true;
    return NULL;
}

/* Sends the queued ruling to the viewers (ring and history, mu held);
 * returns a copy for MQTT (caller frees), NULL when out of memory. */
static char *ruling_tell_locked(broadcast_board *sb, const broadcast_ruling *r)
{
    gs_buf sse = {0};
    broadcast_ruling_json(&sse, r);
    if (sse.failed) {
        gs_buf_free(&sse);
        return NULL;  /* queued all the same: only the viewers miss it */
    }
    char *for_mqtt = strdup(sse.p);
    broadcast_board_history_push_locked(sb, sse.p);
    broadcast_board_ring_push_locked(sb, sse.p, sse.len);
    return for_mqtt;
}

/* Validates a ruling and queues it; 4xx with nothing queued otherwise. */
void broadcast_board_answer_ruling(broadcast_board *sb, const broadcast_req *req, broadcast_resp *resp)
{
    gs_error err;
    gs_json *j = gs_json_parse(req->body, req->body_len, &err);
    if (!j) {
        broadcast_resp_error(resp, 400, err.msg);
        return;
    }
    broadcast_ruling r;
    const char *msg = broadcast_ruling_from_json(j, &r);
    gs_json_free(j);
    if (msg) {
        broadcast_resp_error(resp, 400, msg);
        return;
    }
    int status = 200;
    gs_buf b = {0};
    char *for_mqtt = NULL;
    pthread_mutex_lock(&sb->mu);
    msg = ruling_queue_locked(sb, &r, &status);
    if (!msg) {
        for_mqtt = ruling_tell_locked(sb, &r);
        gs_buf_printf(&b, "{\"ok\":true,\"id\":%d,\"warnings\":{\"B\":%d,\"W\":%d},\"loser\":\"%s\"}\n",
                      r.id, r.warnings_black, r.warnings_white, broadcast_color_name(r.loser));
    }
    pthread_mutex_unlock(&sb->mu);
    if (for_mqtt) broadcast_board_mqtt_send(sb, sb->topic_events, for_mqtt, strlen(for_mqtt));
    free(for_mqtt);
    if (msg) {
        broadcast_resp_error(resp, status, msg);
        return;
    }
    broadcast_resp_json(resp, &b, false);
}
