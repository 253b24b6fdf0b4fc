/* broadcast/handlers.c: one board's request routing and its open pages
 * (the board page, /state.json, /game.sgf, the console's empty page).
 * Read-only pages are open; everything under /api/ needs the token (in a
 * header, see http.c). */
#include "broadcast/broadcast_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void answer_state(broadcast_board *sb, broadcast_resp *resp)
{
    pthread_mutex_lock(&sb->mu);
    if (sb->state_json) {
        resp->body = strdup(sb->state_json);
    } else {
        gs_buf b = {0};
        broadcast_waiting_json(&b, sb->name, sb->id, sb->url);
        if (gs_buf_ok(&b)) resp->body = b.p;
        else gs_buf_free(&b);  /* out of memory: answered below */
    }
    pthread_mutex_unlock(&sb->mu);
    if (!resp->body) {
        broadcast_resp_error(resp, 500, "out of memory");
        return;
    }
    resp->body_len = strlen(resp->body);
    resp->status = 200;
    resp->content_type = "application/json";
    resp->no_cache = true;
}

static void answer_sgf(broadcast_board *sb, broadcast_resp *resp)
{
    pthread_mutex_lock(&sb->mu);
    if (sb->sgf) {
        resp->body = malloc(sb->sgf_len + 1);
        if (resp->body) {
            memcpy(resp->body, sb->sgf, sb->sgf_len + 1);
            resp->body_len = sb->sgf_len;
        }
    }
    pthread_mutex_unlock(&sb->mu);
    if (!resp->body) {
        broadcast_resp_error(resp, 503, "no record yet");
        return;
    }
    resp->status = 200;
    resp->content_type = "application/x-go-sgf; charset=utf-8";
    resp->no_cache = true;
}

/* The console page holds no data; its API calls need the token. */
static void answer_referee_page(broadcast_resp *resp)
{
    resp->status = 200;
    resp->content_type = "text/html; charset=utf-8";
    resp->static_body = broadcast_page_referee;
}

/* Everything under /api/: the token first, then the referee's calls. */
static void route_api(broadcast_board *sb, const broadcast_req *req, bool get, bool post, broadcast_resp *resp)
{
    const char *p = req->path;
    if (!broadcast_req_token_ok(req, sb->token)) {
        broadcast_resp_no_token(req, resp, "referee");
    } else if (get && !strcmp(p, "/api/events")) {
        broadcast_board_answer_event_list(sb, resp);
    } else if (get && !strncmp(p, "/api/evidence/", 14)) {
        broadcast_board_answer_evidence(sb, p + 14, resp);
    } else if (post && !strcmp(p, "/api/ruling")) {
        broadcast_board_answer_ruling(sb, req, resp);
    } else if (!strcmp(p, "/api/ruling") || !strcmp(p, "/api/events")) {
        broadcast_resp_error(resp, 405, "method not allowed");
    } else {
        broadcast_resp_error(resp, 404, "no such page");
    }
}

/* Private pages (broadcast_config.private_pages): only the console's own
 * page and its script and style are open. */
static bool private_refused(const broadcast_board *sb, const broadcast_req *req)
{
    const char *p = req->path;
    if (!sb->private_pages || !strncmp(p, "/api/", 5)) return false;
    if (!strcmp(p, "/referee") || !strcmp(p, "/app.js") || !strcmp(p, "/app.css")) return false;
    return !broadcast_req_token_ok(req, sb->token);
}

static void route(broadcast_board *sb, const broadcast_req *req, broadcast_resp *resp)
{
    const char *p = req->path;
    bool get = !strcmp(req->method, "GET") || !strcmp(req->method, "HEAD");
    bool post = !strcmp(req->method, "POST");
    if (private_refused(sb, req)) {
        broadcast_resp_no_token(req, resp, "referee");
    } else if (get && broadcast_resp_page(p, "/", broadcast_page_board, resp)) {
        /* page, script or style */
    } else if (get && !strcmp(p, "/state.json")) {
        answer_state(sb, resp);
    } else if (get && !strcmp(p, "/game.sgf")) {
        answer_sgf(sb, resp);
    } else if (get && !strcmp(p, "/events")) {
        broadcast_board_answer_events(sb, req, resp);
    } else if (get && !strcmp(p, "/frame.jpg")) {
        broadcast_board_answer_frame(sb, resp);
    } else if (get && !strcmp(p, "/referee")) {
        answer_referee_page(resp);
    } else if (!strncmp(p, "/api/", 5)) {
        route_api(sb, req, get, post, resp);
    } else if (!get && !post) {
        broadcast_resp_error(resp, 405, "method not allowed");
    } else {
        broadcast_resp_error(resp, 404, "no such page");
    }
}

void broadcast_board_handler(void *ctx, const broadcast_req *req, broadcast_resp *resp)
{
    broadcast_board *sb = ctx;
    pthread_mutex_lock(&sb->mu);
    sb->stats.requests++;
    pthread_mutex_unlock(&sb->mu);
    route(sb, req, resp);
    if (resp->status >= 400) {
        pthread_mutex_lock(&sb->mu);
        sb->stats.rejected++;
        pthread_mutex_unlock(&sb->mu);
    }
}
