/* broadcast/hall.c: the club hall, one page listing every board.
 *
 * Boards are found three ways: URLs given on the command line, recorders
 * announcing themselves (POST /api/announce), and retained MQTT topics
 * goscribe/<board>/state on a broker.  A poller thread fetches the
 * /state.json of every board that has an URL; the MQTT thread updates the
 * boards it hears about.  Everything a board reports is parsed and
 * re-serialised, never passed through, so a board cannot inject script or
 * links into the hall page. */
#include "broadcast/broadcast_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HALL_MAX_BOARDS 64

typedef struct hall_board {
    char url[200];
    char id[64];
    char name[64], black[64], white[64], result[32], status[16];
    char black_rank[16], white_rank[16], event[64], table[32];
    char error[160];          /* why the last poll got no state ("" = none) */
    char grid[GS_MAX_SIZE * GS_MAX_SIZE + 1];
    char last_point[3], last_color[2];
    bool last_pass, has_last;
    int size, move_number;
    bool heard;               /* a valid state arrived at least once */
    double seen_ms;           /* when it last arrived (gs_now_ms) */
    const char *source;       /* "http" or "mqtt" */
} hall_board;

struct broadcast_hall {
    broadcast_httpd *httpd;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool stopping;
    hall_board boards[HALL_MAX_BOARDS];
    int nboards;
    int poll_ms;
    pthread_t poller;
    bool has_poller;
    broadcast_mqtt *mqtt;
};

static bool url_ok(const char *u)
{
    if (!u || strncmp(u, "http://", 7) || strlen(u) >= sizeof ((hall_board *)0)->url || strlen(u) < 8) return false;
    for (const char *p = u; *p; p++)
        if (*p <= ' ' || *p == '"' || *p == '<' || *p == '>' || *p == '\\' || (unsigned char)*p >= 0x7f) return false;
    return true;
}

static void copy_str(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src ? src : "");
}

/* Finds the board by id or url, or adds one (mu held); NULL when full. */
static hall_board *find_or_add_locked(broadcast_hall *h, const char *id, const char *url)
{
    for (int i = 0; i < h->nboards; i++) {
        hall_board *b = &h->boards[i];
        if ((id && *id && !strcmp(b->id, id)) || (url && *url && !strcmp(b->url, url))) return b;
    }
    if (h->nboards >= HALL_MAX_BOARDS) return NULL;
    hall_board *b = &h->boards[h->nboards++];
    memset(b, 0, sizeof *b);
    copy_str(b->id, sizeof b->id, id);
    copy_str(b->url, sizeof b->url, url_ok(url) ? url : "");
    b->source = "http";
    return b;
}

/* Parses a board's state JSON into b (mu held).  False if it is not one. */
static bool take_state_locked(hall_board *b, const gs_json *j, const char *source)
{
    if (!j || strcmp(gs_json_get_str(j, "type", ""), "state")) return false;
    int size = (int)gs_json_get_num(j, "size", 0);
    const char *grid = gs_json_get_str(j, "grid", "");
    if (size < 5 || size > GS_MAX_SIZE || strlen(grid) != (size_t)(size * size)) return false;
    for (const char *g = grid; *g; g++)
        if (*g != '.' && *g != 'B' && *g != 'W') return false;
    b->size = size;
    memcpy(b->grid, grid, (size_t)(size * size) + 1);
    double mn = gs_json_get_num(j, "move_number", 0);
    b->move_number = mn >= 0 && mn < 100000 ? (int)mn : 0;
    copy_str(b->name, sizeof b->name, gs_json_get_str(j, "board", ""));
    const gs_json *pl = gs_json_get(j, "players");
    const gs_json *pb = gs_json_get(pl, "B"), *pw = gs_json_get(pl, "W");
    copy_str(b->black, sizeof b->black, gs_json_get_str(pb, "name", ""));
    copy_str(b->white, sizeof b->white, gs_json_get_str(pw, "name", ""));
    copy_str(b->black_rank, sizeof b->black_rank, gs_json_get_str(pb, "rank", ""));
    copy_str(b->white_rank, sizeof b->white_rank, gs_json_get_str(pw, "rank", ""));
    copy_str(b->event, sizeof b->event, gs_json_get_str(j, "event", ""));
    copy_str(b->table, sizeof b->table, gs_json_get_str(j, "table", ""));
    b->error[0] = '\0';
    copy_str(b->result, sizeof b->result, gs_json_get_str(j, "result", ""));
    copy_str(b->status, sizeof b->status, gs_json_get_str(j, "status", ""));
    const char *id = gs_json_get_str(j, "board_id", "");
    if (*id && strlen(id) < sizeof b->id) copy_str(b->id, sizeof b->id, id);
    const char *url = gs_json_get_str(j, "url", "");
    if (!b->url[0] && url_ok(url)) copy_str(b->url, sizeof b->url, url);
    const gs_json *last = gs_json_get(j, "last");
    b->has_last = last && last->type == GS_JSON_OBJ;
    if (b->has_last) {
        const char *p = gs_json_get_str(last, "point", "");
        const char *c = gs_json_get_str(last, "color", "");
        b->last_pass = strlen(p) != 2 || p[0] < 'a' || p[0] >= 'a' + size || p[1] < 'a' || p[1] >= 'a' + size;
        copy_str(b->last_point, sizeof b->last_point, b->last_pass ? "" : p);
        copy_str(b->last_color, sizeof b->last_color, !strcmp(c, "W") ? "W" : "B");
    }
    b->heard = true;
    b->seen_ms = gs_now_ms();
    b->source = source;
    return true;
}

static void on_mqtt(void *ctx, const char *topic, const char *payload, size_t len)
{
    broadcast_hall *h = ctx;
    /* goscribe/<id>/state */
    const char *id = topic + 9;
    const char *slash = strncmp(topic, "goscribe/", 9) ? NULL : strchr(id, '/');
    if (!slash || strcmp(slash, "/state") || slash == id || (size_t)(slash - id) >= 64) return;
    char idbuf[64];
    memcpy(idbuf, id, (size_t)(slash - id));
    idbuf[slash - id] = '\0';
    gs_json *j = gs_json_parse(payload, len, NULL);
    if (!j) return;
    pthread_mutex_lock(&h->mu);
    hall_board *b = find_or_add_locked(h, idbuf, gs_json_get_str(j, "url", NULL));
    if (b) {
        (void)take_state_locked(b, j, "mqtt");  /* not a state: the board keeps what it had */
        copy_str(b->id, sizeof b->id, idbuf);
    }
    pthread_mutex_unlock(&h->mu);
    gs_json_free(j);
}

static void *poller_main(void *arg)
{
    broadcast_hall *h = arg;
    pthread_mutex_lock(&h->mu);
    while (!h->stopping) {
        char urls[HALL_MAX_BOARDS][200];
        int n = 0;
        for (int i = 0; i < h->nboards; i++)
            if (h->boards[i].url[0] && strcmp(h->boards[i].source, "mqtt")) copy_str(urls[n++], 200, h->boards[i].url);
        pthread_mutex_unlock(&h->mu);
        for (int i = 0; i < n; i++) {
            char u[256], err[200];
            snprintf(u, sizeof u, "%.199s/state.json", urls[i]);
            int status = 0;
            char *body = NULL;
            size_t len = 0;
            /* a board that does not answer keeps its last state (shown
             * offline, with why) */
            bool got = !broadcast_http_request(u, "GET", NULL, NULL, 1500, &status, &body, &len, err, sizeof err);
            gs_json *j = got && status == 200 ? gs_json_parse(body, len, NULL) : NULL;
            free(body);
            pthread_mutex_lock(&h->mu);
            hall_board *b = find_or_add_locked(h, NULL, urls[i]);
            if (b && !(j && take_state_locked(b, j, "http"))) {
                if (!got) snprintf(b->error, sizeof b->error, "unreachable: %.140s", err);
                else if (status != 200) snprintf(b->error, sizeof b->error, "answers HTTP %d", status);
                else snprintf(b->error, sizeof b->error, "answers something that is not a board's state");
            }
            pthread_mutex_unlock(&h->mu);
            gs_json_free(j);
        }
        pthread_mutex_lock(&h->mu);
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);  /* cannot fail for CLOCK_REALTIME */
        long ns = ts.tv_nsec + (long)(h->poll_ms % 1000) * 1000000L;
        ts.tv_sec += h->poll_ms / 1000 + ns / 1000000000L;
        ts.tv_nsec = ns % 1000000000L;
        while (!h->stopping && pthread_cond_timedwait(&h->cv, &h->mu, &ts) == 0) {}
    }
    pthread_mutex_unlock(&h->mu);
    return NULL;
}

/* One board of the list, re-serialised from what was parsed (mu held). */
static void hall_board_json(gs_buf *b, const hall_board *x, double now, int poll_ms)
{
    bool online = x->heard && (!strcmp(x->source, "mqtt") || now - x->seen_ms < 3.0 * poll_ms + 2000.0);
    gs_buf_puts(b, "{");
    broadcast_json_fields(b, (const broadcast_json_field[]){{"board", x->name[0] ? x->name : x->id[0] ? x->id : x->url},
                                                            {"board_id", x->id}, {"url", x->url}, {"event", x->event},
                                                            {"table", x->table}, {"result", x->result},
                                                            {"status", x->heard ? x->status : "unreachable"},
                                                            {"error", online ? "" : x->error}}, 8);
    gs_buf_puts(b, ",");
    broadcast_json_players(b, x->black, x->black_rank, x->white, x->white_rank);
    if (x->heard) {
        broadcast_json_board(b, x->size, x->grid, x->move_number);
    } else { /* never heard from: an empty 19x19 board */
        char empty[19 * 19 + 1];
        memset(empty, '.', 19 * 19);
        empty[19 * 19] = '\0';
        broadcast_json_board(b, 19, empty, 0);
    }
    gs_buf_puts(b, ",");
    broadcast_json_last(b, x->has_last ? x->last_color : NULL, x->last_point, x->last_pass, NULL);
    gs_buf_printf(b, "\"source\":\"%s\",\"online\":%s}", x->source, online ? "true" : "false");
}

static void hall_json_locked(broadcast_hall *h, gs_buf *b)
{
    double now = gs_now_ms();
    gs_buf_puts(b, "{\"boards\":[");
    int k = 0;
    for (int i = 0; i < h->nboards; i++) {
        /* a board never heard from is listed too (unreachable, with why),
         * when the hall knows its address */
        if (!h->boards[i].heard && !h->boards[i].url[0]) continue;
        if (k++) gs_buf_puts(b, ",");
        hall_board_json(b, &h->boards[i], now, h->poll_ms);
    }
    gs_buf_puts(b, "]}");
}

/* POST /api/announce {"url": ...}: a board joins the list. */
static void hall_answer_announce(broadcast_hall *h, const broadcast_req *req, broadcast_resp *resp)
{
    if (strcmp(req->method, "POST")) {
        broadcast_resp_error(resp, 405, "method not allowed");
        return;
    }
    gs_error err;
    gs_json *j = gs_json_parse(req->body, req->body_len, &err);
    if (!j) {
        broadcast_resp_error(resp, 400, err.msg);
        return;
    }
    const char *url = gs_json_get_str(j, "url", NULL);
    if (!url_ok(url)) {
        gs_json_free(j);
        broadcast_resp_error(resp, 400, "\"url\" must be an http:// address");
        return;
    }
    pthread_mutex_lock(&h->mu);
    hall_board *b = find_or_add_locked(h, NULL, url);
    pthread_mutex_unlock(&h->mu);
    gs_json_free(j);
    if (!b) {
        broadcast_resp_error(resp, 503, "the hall is full");
        return;
    }
    resp->status = 200;
    resp->content_type = "application/json";
    resp->static_body = "{\"ok\":true}\n";
}

static void hall_handler(void *ctx, const broadcast_req *req, broadcast_resp *resp)
{
    broadcast_hall *h = ctx;
    const char *p = req->path;
    bool get = !strcmp(req->method, "GET") || !strcmp(req->method, "HEAD");
    if (get && broadcast_resp_page(p, "/", broadcast_page_hall, resp)) {
        /* page, script or style */
    } else if (get && !strcmp(p, "/state.json")) {
        gs_buf b = {0};
        pthread_mutex_lock(&h->mu);
        hall_json_locked(h, &b);
        pthread_mutex_unlock(&h->mu);
        broadcast_resp_json(resp, &b, true);
    } else if (!strcmp(p, "/api/announce")) {
        hall_answer_announce(h, req, resp);
    } else {
        broadcast_resp_error(resp, 404, "no such page");
    }
}

broadcast_hall *broadcast_hall_start(const broadcast_hall_config *cfg, gs_error *err)
{
    broadcast_hall *h = calloc(1, sizeof *h);
    if (!h) {
        gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (pthread_mutex_init(&h->mu, NULL)) {
        free(h);
        gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (pthread_cond_init(&h->cv, NULL)) {
        pthread_mutex_destroy(&h->mu);
        free(h);
        gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    h->poll_ms = cfg->poll_ms > 0 ? cfg->poll_ms : 1000;
    for (int i = 0; i < cfg->nboards; i++) {
        char u[200];
        copy_str(u, sizeof u, cfg->boards[i]);
        size_t l = strlen(u);
        while (l && u[l - 1] == '/') u[--l] = '\0';
        if (!url_ok(u)) {
            gs_error_set(err, GS_ERR_USAGE, "%s: a board address is http://HOST:PORT", cfg->boards[i]);
            broadcast_hall_stop(h);
            return NULL;
        }
        if (!find_or_add_locked(h, NULL, u)) {
            gs_error_set(err, GS_ERR_USAGE, "more than %d boards", HALL_MAX_BOARDS);
            broadcast_hall_stop(h);
            return NULL;
        }
    }
    h->httpd = broadcast_httpd_start(cfg->bind_addr, cfg->port, 256, hall_handler, h, err);
    if (!h->httpd) {
        broadcast_hall_stop(h);
        return NULL;
    }
    if (cfg->mqtt && *cfg->mqtt) {
        char cid[64];
        snprintf(cid, sizeof cid, "goscribe-hall-%d-%d", broadcast_httpd_port(h->httpd), (int)(gs_now_ms()) % 100000);
        h->mqtt = broadcast_mqtt_open(cfg->mqtt, cid, "goscribe/+/state", on_mqtt, h, err);
        if (!h->mqtt) {
            broadcast_hall_stop(h);
            return NULL;
        }
    }
    if (pthread_create(&h->poller, NULL, poller_main, h)) {
        gs_error_set(err, GS_ERR_INTERNAL, "cannot start the poller thread");
        broadcast_hall_stop(h);
        return NULL;
    }
    h->has_poller = true;
    return h;
}

void broadcast_hall_stop(broadcast_hall *h)
{
    if (!h) return;
    pthread_mutex_lock(&h->mu);
    h->stopping = true;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    if (h->has_poller) pthread_join(h->poller, NULL);  /* joinable, joined once: cannot fail */
    broadcast_mqtt_close(h->mqtt);   /* before the server: its callback uses h */
    broadcast_httpd_stop(h->httpd);
    pthread_cond_destroy(&h->cv);
    pthread_mutex_destroy(&h->mu);
    free(h);
}

int broadcast_hall_port(const broadcast_hall *h) { return h ? broadcast_httpd_port(h->httpd) : 0; }

int broadcast_hall_board_count(broadcast_hall *h)
{
    if (!h) return 0;
    int n = 0;
    pthread_mutex_lock(&h->mu);
    for (int i = 0; i < h->nboards; i++) n += h->boards[i].heard;
    pthread_mutex_unlock(&h->mu);
    return n;
}
