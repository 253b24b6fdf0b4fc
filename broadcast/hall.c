/* broadcast/hall.c: the club hall, one page listing every board.
 *
 * Boards are found three ways: URLs given on the command line (kept for
 * good), recorders announcing themselves (POST /api/announce with the
 * hall's token, again every few seconds: a board not announced for
 * announce_ttl_ms leaves the hall, so stale or fake entries cannot fill
 * it for good), and retained MQTT topics goscribe/<board>/state on a
 * broker.  Every board with an address has its own fetcher thread, which
 * GETs ADDRESS/state.json (that path only: an address is http://HOST[:PORT]
 * and nothing more) every poll_ms, each fetch bounded in time, name lookup
 * included, so a board that does not answer delays no other.  Everything a
 * board reports is parsed and re-serialised, never passed through, so a
 * board cannot inject script or links into the hall page. */
#include "broadcast/broadcast_internal.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HALL_MAX_BOARDS 64
/* One fetch of a board's state, connecting and name lookup included. */
#define HALL_FETCH_MS 1500
/* Stack of a fetcher thread (a fetch needs a few KiB). */
#define HALL_FETCHER_STACK (256 * 1024)

/* Why an MQTT board is shown offline. */
#define HALL_LEFT_BROKER "its recorder has left the MQTT broker"

typedef enum hall_origin { HALL_GIVEN, HALL_ANNOUNCED, HALL_MQTT } hall_origin;

typedef struct hall_board {
    bool used;
    hall_origin origin;
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
    double announced_ms;      /* last announce (HALL_ANNOUNCED) */
    bool offline;             /* HALL_MQTT: its presence says "offline" */
    double offline_ms;        /* since when */
    const char *source;       /* "http" or "mqtt" */
    /* its fetcher; the slot is reused only once the fetcher is done */
    pthread_t fetcher;
    bool has_fetcher, fetcher_done, retire;
} hall_board;

/* What a fetcher thread is given: its hall and its board. */
typedef struct hall_fetch {
    struct broadcast_hall *h;
    hall_board *b;
} hall_fetch;

struct broadcast_hall {
    broadcast_httpd *httpd;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool stopping;
    hall_board boards[HALL_MAX_BOARDS];
    hall_fetch fetch[HALL_MAX_BOARDS];
    int poll_ms, ttl_ms;
    char token[72];
    broadcast_mqtt *mqtt;
    broadcast_round *round;      /* the round served, NULL = none */
};

void broadcast_hall_config_init(broadcast_hall_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
}

/* A board address: http://HOST[:PORT] and nothing after it, HOST a name
 * or an IPv4 address (letters, digits, '-', '.'), so that ADDRESS/state.json
 * is the only thing the hall ever asks of it. */
static bool url_ok(const char *u)
{
    if (!u || strncmp(u, "http://", 7) || strlen(u) >= sizeof ((hall_board *)0)->url) return false;
    const char *p = u + 7;
    size_t n = 0;
    while (isalnum((unsigned char)p[n]) || p[n] == '-' || p[n] == '.') n++;
    if (n == 0) return false;
    if (!p[n]) return true;
    if (p[n] != ':') return false;
    const char *port = p + n + 1;
    size_t digits = strspn(port, "0123456789");
    return digits >= 1 && digits <= 5 && !port[digits] && atol(port) <= 65535;
}

static void copy_str(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src ? src : "");
}

/* ------------------------------------------------------------- boards */

/* Announced boards not announced again in time, and MQTT boards offline
 * for as long, leave the hall (mu held); fetchers see `retire` and stop. */
static void hall_expire_locked(broadcast_hall *h)
{
    double now = gs_now_ms();
    for (int i = 0; i < HALL_MAX_BOARDS; i++) {
        hall_board *b = &h->boards[i];
        bool gone = b->origin == HALL_ANNOUNCED ? now - b->announced_ms > h->ttl_ms
                    : b->origin == HALL_MQTT    ? b->offline && now - b->offline_ms > h->ttl_ms
                                                : false;
        if (b->used && gone) {
            b->used = false;
            b->retire = true;
            pthread_cond_broadcast(&h->cv);
        }
    }
}

/* A free slot, its old fetcher (if any) joined; NULL when all are taken
 * (mu held). */
static hall_board *hall_free_slot_locked(broadcast_hall *h)
{
    for (int i = 0; i < HALL_MAX_BOARDS; i++) {
        hall_board *b = &h->boards[i];
        if (b->used || (b->has_fetcher && !b->fetcher_done)) continue;
        /* done: it set fetcher_done under mu and only returns after */
        if (b->has_fetcher) pthread_join(b->fetcher, NULL);  /* joinable, joined once: cannot fail */
        memset(b, 0, sizeof *b);
        return b;
    }
    return NULL;
}

/* Finds the board by id or url, or adds one (mu held); NULL when full. */
static hall_board *find_or_add_locked(broadcast_hall *h, const char *id, const char *url, hall_origin origin)
{
    for (int i = 0; i < HALL_MAX_BOARDS; i++) {
        hall_board *b = &h->boards[i];
        if (b->used && ((id && *id && !strcmp(b->id, id)) || (url && *url && !strcmp(b->url, url)))) return b;
    }
    hall_board *b = hall_free_slot_locked(h);
    if (!b) return NULL;
    b->used = true;
    b->origin = origin;
    copy_str(b->id, sizeof b->id, id);
    copy_str(b->url, sizeof b->url, url_ok(url) ? url : "");
    b->source = "http";
    return b;
}

/* A number of a state within [lo, hi], or -1: range-checked before the
 * cast, so 1e300 is refused instead of overflowing an int. */
static int json_int(const gs_json *j, const char *key, int lo, int hi)
{
    double d = gs_json_get_num(j, key, -1);
    return d >= lo && d <= hi ? (int)d : -1;
}

/* Parses a board's state JSON into b (mu held).  False if it is not one. */
static bool take_state_locked(hall_board *b, const gs_json *j, const char *source)
{
    if (!j || strcmp(gs_json_get_str(j, "type", ""), "state")) return false;
    int size = json_int(j, "size", 5, GS_MAX_SIZE);
    const char *grid = gs_json_get_str(j, "grid", "");
    if (size < 0 || strlen(grid) != (size_t)(size * size)) return false;
    for (const char *g = grid; *g; g++)
        if (*g != '.' && *g != 'B' && *g != 'W') return false;
    b->size = size;
    memcpy(b->grid, grid, (size_t)(size * size) + 1);
    int mn = json_int(j, "move_number", 0, 99999);
    b->move_number = mn > 0 ? mn : 0;
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

/* goscribe/<id>/online: "online" or "offline" (the recorder's own word
 * or the broker's, for a recorder that died); an offline board is shown
 * offline and leaves after the announce time. */
static void on_mqtt_presence(broadcast_hall *h, const char *id, const char *payload, size_t len)
{
    bool offline = len == 7 && !memcmp(payload, "offline", 7);
    if (!offline && !(len == 6 && !memcmp(payload, "online", 6))) return;
    pthread_mutex_lock(&h->mu);
    hall_board *b = find_or_add_locked(h, id, NULL, HALL_MQTT);
    if (b && b->origin == HALL_MQTT) {
        copy_str(b->id, sizeof b->id, id);
        if (offline && !b->offline) b->offline_ms = gs_now_ms();
        b->offline = offline;
        copy_str(b->error, sizeof b->error, offline ? HALL_LEFT_BROKER : "");
    }
    pthread_mutex_unlock(&h->mu);
}

static void on_mqtt(void *ctx, const char *topic, const char *payload, size_t len)
{
    broadcast_hall *h = ctx;
    /* goscribe/<id>/state or goscribe/<id>/online */
    const char *id = topic + 9;
    const char *slash = strncmp(topic, "goscribe/", 9) ? NULL : strchr(id, '/');
    if (!slash || slash == id || (size_t)(slash - id) >= 64) return;
    char idbuf[64];
    memcpy(idbuf, id, (size_t)(slash - id));
    idbuf[slash - id] = '\0';
    if (!strcmp(slash, "/online")) {
        on_mqtt_presence(h, idbuf, payload, len);
        return;
    }
    if (strcmp(slash, "/state")) return;
    gs_json *j = gs_json_parse(payload, len, NULL);
    if (!j) return;
    pthread_mutex_lock(&h->mu);
    hall_board *b = find_or_add_locked(h, idbuf, gs_json_get_str(j, "url", NULL), HALL_MQTT);
    if (b) {
        (void)take_state_locked(b, j, "mqtt");  /* not a state: the board keeps what it had */
        if (b->offline) copy_str(b->error, sizeof b->error, HALL_LEFT_BROKER);
        copy_str(b->id, sizeof b->id, idbuf);
    }
    pthread_mutex_unlock(&h->mu);
    gs_json_free(j);
}

/* ----------------------------------------------------------- fetchers */

/* The state at url, parsed; NULL when the board does not answer in time
 * or not with JSON, and why in words. */
static gs_json *fetch_state(const char *url, char *why, size_t whylen)
{
    int status = 0;
    char *body = NULL, err[200];
    size_t len = 0;
    if (broadcast_http_request(url, "GET", NULL, NULL, HALL_FETCH_MS, &status, &body, &len, err, sizeof err)) {
        snprintf(why, whylen, "unreachable: %.140s", err);
        return NULL;
    }
    gs_json *j = status == 200 ? gs_json_parse(body, len, NULL) : NULL;
    free(body);
    if (status != 200) snprintf(why, whylen, "answers HTTP %d", status);
    else if (!j) snprintf(why, whylen, "answers something that is not a board's state");
    return j;
}

static void *fetcher_main(void *arg)
{
    hall_fetch *f = arg;
    broadcast_hall *h = f->h;
    hall_board *b = f->b;
    pthread_mutex_lock(&h->mu);
    while (!h->stopping && !b->retire) {
        char url[sizeof b->url + 16];
        snprintf(url, sizeof url, "%s/state.json", b->url);
        pthread_mutex_unlock(&h->mu);
        char why[160];
        gs_json *j = fetch_state(url, why, sizeof why);
        pthread_mutex_lock(&h->mu);
        /* a board that does not answer keeps its last state (shown offline,
         * with why) */
        if (!b->retire && !(j && take_state_locked(b, j, "http")))
            snprintf(b->error, sizeof b->error, "%s", j ? "answers something that is not a board's state" : why);
        gs_json_free(j);
        hall_expire_locked(h);
        struct timespec until = broadcast_deadline_in(h->poll_ms);
        while (!h->stopping && !b->retire && broadcast_cond_wait(&h->cv, &h->mu, &until)) {}
    }
    b->fetcher_done = true;
    pthread_mutex_unlock(&h->mu);
    return NULL;
}

/* Starts the fetcher of b (mu held); false when no thread could start. */
static bool fetcher_start_locked(broadcast_hall *h, hall_board *b)
{
    if (b->has_fetcher || !b->url[0]) return true;
    hall_fetch *f = &h->fetch[b - h->boards];
    f->h = h;
    f->b = b;
    pthread_attr_t attr;
    if (pthread_attr_init(&attr)) return false;
    bool ok = !pthread_attr_setstacksize(&attr, HALL_FETCHER_STACK) &&
              !pthread_create(&b->fetcher, &attr, fetcher_main, f);
    pthread_attr_destroy(&attr);  /* of an initialised attr: cannot fail */
    b->has_fetcher = ok;
    return ok;
}

/* ---------------------------------------------------------- the pages */

/* One board of the list, re-serialised from what was parsed (mu held). */
static void hall_board_json(gs_buf *b, const hall_board *x, double now, int poll_ms)
{
    bool online = x->heard && (!strcmp(x->source, "mqtt") ? !x->offline : now - x->seen_ms < 3.0 * poll_ms + 2000.0);
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
    hall_expire_locked(h);
    double now = gs_now_ms();
    gs_buf_puts(b, "{\"boards\":[");
    int k = 0;
    for (int i = 0; i < HALL_MAX_BOARDS; i++) {
        /* a board never heard from is listed too (unreachable, with why),
         * when the hall knows its address */
        if (!h->boards[i].used || (!h->boards[i].heard && !h->boards[i].url[0])) continue;
        if (k++) gs_buf_puts(b, ",");
        hall_board_json(b, &h->boards[i], now, h->poll_ms);
    }
    gs_buf_puts(b, "]}");
}

/* Adds or refreshes an announced board (mu held); the status of a
 * refusal with its message, or 0. */
static int hall_announce_locked(broadcast_hall *h, const char *url, const char **msg)
{
    hall_expire_locked(h);
    hall_board *b = h->stopping ? NULL : find_or_add_locked(h, NULL, url, HALL_ANNOUNCED);
    if (!b) {
        *msg = "the hall is full";
        return 503;
    }
    b->announced_ms = gs_now_ms();
    if (b->origin == HALL_ANNOUNCED && !fetcher_start_locked(h, b)) {
        b->used = false;
        *msg = "the hall cannot start one more thread";
        return 503;
    }
    return 0;
}

/* POST /api/announce {"url": "http://HOST:PORT"} with the hall's token: a
 * board joins the list (or stays on it). */
static void hall_answer_announce(broadcast_hall *h, const broadcast_req *req, broadcast_resp *resp)
{
    if (strcmp(req->method, "POST")) {
        broadcast_resp_error(resp, 405, "method not allowed");
        return;
    }
    if (!broadcast_req_token_ok(req, h->token)) {
        broadcast_resp_no_token(req, resp, "hall's");
        return;
    }
    gs_error err;
    gs_json *j = gs_json_parse(req->body, req->body_len, &err);
    if (!j) {
        broadcast_resp_error(resp, 400, err.msg);
        return;
    }
    char url[200];
    copy_str(url, sizeof url, gs_json_get_str(j, "url", NULL));
    gs_json_free(j);
    size_t l = strlen(url);
    while (l && url[l - 1] == '/') url[--l] = '\0';
    if (!url_ok(url)) {
        broadcast_resp_error(resp, 400, "\"url\" must be http://HOST:PORT (nothing after it)");
        return;
    }
    const char *msg = NULL;
    pthread_mutex_lock(&h->mu);
    int status = hall_announce_locked(h, url, &msg);
    pthread_mutex_unlock(&h->mu);
    if (status) {
        broadcast_resp_error(resp, status, msg);
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
    if (h->round && broadcast_round_count_answer(h->round, req, h->token, resp)) {
        /* a board's count page */
    } else if (h->round && broadcast_round_answer(h->round, req, h->token, resp)) {
        /* the round's pages, feed and corrections */
    } else if (get && broadcast_resp_page(p, h->round ? "/hall" : "/", broadcast_page_hall, resp)) {
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

/* ---------------------------------------------------------- lifecycle */

/* The object with its lock, its settings and token; NULL with err. */
static broadcast_hall *hall_new(const broadcast_hall_config *cfg, gs_error *err)
{
    broadcast_hall *h = calloc(1, sizeof *h);
    if (!h) {
        gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (!broadcast_sync_init(&h->mu, &h->cv)) {
        free(h);
        gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    h->poll_ms = cfg->poll_ms > 0 ? cfg->poll_ms : 1000;
    h->ttl_ms = cfg->announce_ttl_ms > 0 ? cfg->announce_ttl_ms : 30000;
    if (broadcast_token_init(h->token, sizeof h->token, cfg->token, "hall", err) != GS_OK) {
        broadcast_hall_stop(h);
        return NULL;
    }
    return h;
}

/* The boards given at start, each with its fetcher (mu need not be held:
 * no other thread runs yet, but the fetchers take it). */
static gs_status hall_add_given(broadcast_hall *h, const broadcast_hall_config *cfg, gs_error *err)
{
    for (int i = 0; i < cfg->nboards; i++) {
        char u[200];
        copy_str(u, sizeof u, cfg->boards[i]);
        size_t l = strlen(u);
        while (l && u[l - 1] == '/') u[--l] = '\0';
        if (!url_ok(u))
            return gs_error_set(err, GS_ERR_USAGE, "%s: a board address is http://HOST:PORT", cfg->boards[i]);
        pthread_mutex_lock(&h->mu);
        hall_board *b = find_or_add_locked(h, NULL, u, HALL_GIVEN);
        bool started = b && fetcher_start_locked(h, b);
        pthread_mutex_unlock(&h->mu);
        if (!b) return gs_error_set(err, GS_ERR_USAGE, "more than %d boards", HALL_MAX_BOARDS);
        if (!started) return gs_error_set(err, GS_ERR_INTERNAL, "cannot start a thread to poll %s", u);
    }
    return GS_OK;
}

broadcast_hall *broadcast_hall_start(const broadcast_hall_config *cfg, gs_error *err)
{
    broadcast_hall *h = hall_new(cfg, err);
    if (!h) return NULL;
    /* a round's boards take a photo to count (their count pages) */
    broadcast_httpd_opts o = {cfg->bind_addr, cfg->port, 256, cfg->max_per_client > 0 ? cfg->max_per_client : 32,
                              cfg->request_ms > 0 ? cfg->request_ms : 10000, cfg->allow_hosts, cfg->nallow_hosts,
                              cfg->round ? BROADCAST_ROUND_UPLOAD : NULL, h->token};
    if (cfg->round && !(h->round = broadcast_round_start(cfg->round, err))) {
        broadcast_hall_stop(h);
        return NULL;
    }
    if (hall_add_given(h, cfg, err) != GS_OK || !(h->httpd = broadcast_httpd_start(&o, hall_handler, h, err))) {
        broadcast_hall_stop(h);
        return NULL;
    }
    if (cfg->mqtt && *cfg->mqtt) {
        char cid[64];
        snprintf(cid, sizeof cid, "goscribe-hall-%d-%d", broadcast_httpd_port(h->httpd), (int)getpid());
        h->mqtt = broadcast_mqtt_open(cfg->mqtt, cid, "goscribe/+/+", on_mqtt, h, NULL, err);
        if (!h->mqtt) {
            broadcast_hall_stop(h);
            return NULL;
        }
    }
    return h;
}

void broadcast_hall_stop(broadcast_hall *h)
{
    if (!h) return;
    broadcast_sync_stop(&h->mu, &h->cv, &h->stopping);
    /* the round's SSE streams end now, so the HTTP server has no thread to
     * wait for */
    if (h->round) broadcast_sync_stop(&h->round->mu, &h->round->cv, &h->round->stopping);
    /* first what may add boards (their callbacks use h), then the fetchers,
     * each done within one fetch (HALL_FETCH_MS) */
    broadcast_httpd_stop(h->httpd);
    broadcast_mqtt_close(h->mqtt);
    if (h->round) broadcast_round_counts_free(h->round);
    broadcast_round_stop(h->round);
    for (int i = 0; i < HALL_MAX_BOARDS; i++)
        if (h->boards[i].has_fetcher) pthread_join(h->boards[i].fetcher, NULL);  /* joinable, joined once */
    broadcast_sync_destroy(&h->mu, &h->cv);
    free(h);
}

int broadcast_hall_port(const broadcast_hall *h) { return h ? broadcast_httpd_port(h->httpd) : 0; }
const char *broadcast_hall_token(const broadcast_hall *h) { return h ? h->token : ""; }

int broadcast_hall_board_count(broadcast_hall *h)
{
    if (!h) return 0;
    int n = 0;
    pthread_mutex_lock(&h->mu);
    hall_expire_locked(h);
    for (int i = 0; i < HALL_MAX_BOARDS; i++) n += h->boards[i].used && h->boards[i].heard;
    pthread_mutex_unlock(&h->mu);
    return n;
}

void broadcast_hall_round_recorder(broadcast_hall *h, int table, const char *url, const char *token, bool running,
                                   const char *status)
{
    if (h) broadcast_round_set_recorder(h->round, table, url, token, running, status);
}

void broadcast_hall_round_tick(broadcast_hall *h)
{
    if (h) broadcast_round_tick(h->round);
}
