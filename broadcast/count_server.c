/* broadcast/count_server.c: `goscribe count PHOTO --serve`: the count page's
 * own server (broadcast.h, broadcast_count_*).  The page (/) and its API
 * (/api/..., count_session.c), everything but the page behind the token;
 * a confirmation writes the SGF and wakes the command, which prints the
 * count and ends. */
#include "broadcast/broadcast_internal.h"

#include "cvshim/cvshim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

struct broadcast_count {
    broadcast_httpd *httpd;
    broadcast_count_session *session;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool stopping, confirmed;
    score_count_result *result;  /* the confirmed count */
    char token[72], url[160], sgf_path[512];
};

/* A token one can type on a phone: 12 letters and digits that cannot be
 * taken for one another (60 bits: the page lives minutes, on a LAN). */
static gs_status easy_token(char *out, size_t len, gs_error *err)
{
    static const char alphabet[] = "abcdefghijkmnpqrstuvwxyz23456789";
    uint8_t rnd[12];
    if (len < sizeof rnd + 1 || getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
        return gs_error_set(err, GS_ERR_IO, "no random bytes for the count page's token");
    for (size_t i = 0; i < sizeof rnd; i++) out[i] = alphabet[rnd[i] % 32];
    out[sizeof rnd] = '\0';
    return GS_OK;
}

/* The confirmation: the SGF written, the count kept, the command woken. */
static int on_confirm(void *user, const score_count_result *r, char *msg, size_t len)
{
    broadcast_count *c = user;
    gs_error err = {0};
    if (score_count_write_sgf(c->sgf_path, r, &err) != GS_OK) {
        snprintf(msg, len, "%s: %s", c->sgf_path, err.msg);
        return 500;
    }
    pthread_mutex_lock(&c->mu);
    *c->result = *r;
    c->confirmed = true;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    return 0;
}

static void count_handler(void *ctx, const broadcast_req *req, broadcast_resp *resp)
{
    broadcast_count *c = ctx;
    const char *p = req->path;
    bool get = !strcmp(req->method, "GET") || !strcmp(req->method, "HEAD");
    if (get && broadcast_resp_page(p, "/", broadcast_page_count, resp)) return;
    if (strncmp(p, "/api/", 5)) {
        broadcast_resp_error(resp, 404, "no such page");
    } else if (!broadcast_req_token_ok(req, c->token)) {
        broadcast_resp_no_token(req, resp, "count page's");
    } else {
        broadcast_count_session_answer(c->session, req, p + 1, on_confirm, c, resp);
    }
}

/* The server listening (its limits as a board's), its address. */
static gs_status count_listen(broadcast_count *c, const broadcast_count_config *cfg, gs_error *err)
{
    broadcast_httpd_opts o = {cfg->bind_addr, cfg->port, 64, 16, 10000, cfg->allow_hosts, cfg->nallow_hosts, NULL,
                              NULL};
    c->httpd = broadcast_httpd_start(&o, count_handler, c, err);
    if (!c->httpd) return GS_ERR_IO; /* err says why */
    const char *addr = cfg->bind_addr && *cfg->bind_addr ? cfg->bind_addr : "127.0.0.1";
    char host[128];
    if (!strcmp(addr, "0.0.0.0") && !gethostname(host, sizeof host)) {
        host[sizeof host - 1] = '\0';
        addr = host;
    }
    snprintf(c->url, sizeof c->url, "http://%s:%d/", addr, broadcast_httpd_port(c->httpd));
    return GS_OK;
}

broadcast_count *broadcast_count_start(const broadcast_count_config *cfg, gs_error *err)
{
    broadcast_count *c = calloc(1, sizeof *c);
    if (c) c->result = calloc(1, sizeof *c->result);
    if (!c || !c->result || !broadcast_sync_init(&c->mu, &c->cv)) {
        if (c) free(c->result);
        free(c);
        gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    snprintf(c->sgf_path, sizeof c->sgf_path, "%s", cfg->sgf_path);
    gs_status st = cfg->token && *cfg->token ? broadcast_token_init(c->token, sizeof c->token, cfg->token, "count page", err)
                                             : easy_token(c->token, sizeof c->token, err);
    gs_image *photo = NULL;
    if (st == GS_OK && !(photo = cvshim_image_load_max(cfg->count->input, cfg->count->max_pixels, err)))
        st = err ? err->status : GS_ERR_IO;
    if (st == GS_OK && !(c->session = broadcast_count_session_create(photo, cfg->count, err))) st = GS_ERR_NOMEM;
    if (st == GS_OK) st = count_listen(c, cfg, err);
    if (st != GS_OK) {
        broadcast_count_stop(c);
        return NULL;
    }
    return c;
}

const char *broadcast_count_url(const broadcast_count *c) { return c ? c->url : ""; }
const char *broadcast_count_token(const broadcast_count *c) { return c ? c->token : ""; }

bool broadcast_count_board(broadcast_count *c, score_count_result *out)
{
    return broadcast_count_session_result(c->session, out);
}

bool broadcast_count_wait(broadcast_count *c, volatile sig_atomic_t *stop, score_count_result *out)
{
    pthread_mutex_lock(&c->mu);
    while (!c->confirmed && !(stop && *stop)) {
        struct timespec until = broadcast_deadline_in(200);
        broadcast_cond_wait(&c->cv, &c->mu, &until);
    }
    bool done = c->confirmed;
    if (done) *out = *c->result;
    pthread_mutex_unlock(&c->mu);
    return done;
}

void broadcast_count_stop(broadcast_count *c)
{
    if (!c) return;
    broadcast_httpd_stop(c->httpd);
    broadcast_count_session_destroy(c->session);
    broadcast_sync_destroy(&c->mu, &c->cv);
    free(c->result);
    free(c);
}
