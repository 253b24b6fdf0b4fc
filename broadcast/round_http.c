/* broadcast/round_http.c: what the hall serves of a round (the paths in
 * broadcast.h, "the round"): the pages, the JSON and SGF feed with their
 * ETags, the SSE stream of the boards that changed, and the director's
 * corrections.  Everything answered is the public view (round.c). */
#include "broadcast/broadcast_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* How long the hall waits for a recorder taking a correction. */
#define ROUND_FORWARD_MS 5000

/* ------------------------------------------------------------ the stream */

typedef struct round_viewer {
    broadcast_round *r;
    long long last_id;           /* the newest event id sent (or resumed from) */
    bool started, resumed;
    gs_buf out;
    size_t off;
} round_viewer;

/* The board shown anew after event id `after`, the oldest such (mu held);
 * NULL when none. */
static const round_board *next_change_locked(const broadcast_round *r, long long after)
{
    const round_board *next = NULL;
    for (int i = 0; i < r->nboards; i++) {
        const round_board *b = &r->boards[i];
        if (b->pub_id > after && (!next || b->pub_id < next->pub_id)) next = b;
    }
    return next;
}

/* What the viewer gets next (mu held): the whole round first (unless it
 * came back with Last-Event-ID), then each board shown anew, in the order
 * of their ids. */
static bool viewer_fill_locked(round_viewer *v)
{
    broadcast_round *r = v->r;
    bool any = false;
    if (!v->started) {
        v->started = any = true;
        gs_buf_puts(&v->out, "retry: 2000\n\n");
        if (!v->resumed) {
            gs_buf_printf(&v->out, "id: %lld\ndata: ", r->last_id);
            gs_buf_add(&v->out, r->json, r->json_len);
            gs_buf_puts(&v->out, "\n\n");
            v->last_id = r->last_id;
            return true;
        }
    }
    for (const round_board *b; (b = next_change_locked(r, v->last_id));) {
        const round_version *ver = broadcast_round_shown_locked(b);
        gs_buf_printf(&v->out, "id: %lld\ndata: ", b->pub_id);
        gs_buf_add(&v->out, ver->summary, ver->summary_len);
        gs_buf_puts(&v->out, "\n\n");
        v->last_id = b->pub_id;
        any = true;
    }
    return any;
}

static long viewer_read(void *cls, char *buf, size_t max)
{
    round_viewer *v = cls;
    broadcast_round *r = v->r;
    if (v->off >= v->out.len) {
        v->out.len = v->off = 0;
        pthread_mutex_lock(&r->mu);
        while (!r->stopping && !viewer_fill_locked(v)) {
            struct timespec until = broadcast_deadline_in(10000);
            if (!broadcast_cond_wait(&r->cv, &r->mu, &until)) {
                gs_buf_puts(&v->out, ":\n\n"); /* keep-alive comment */
                break;
            }
        }
        bool stop = r->stopping;
        pthread_mutex_unlock(&r->mu);
        if (stop || v->out.failed) return -1;
    }
    size_t n = v->out.len - v->off;
    if (n > max) n = max;
    memcpy(buf, v->out.p + v->off, n);
    v->off += n;
    return (long)n;
}

static void viewer_done(void *cls)
{
    round_viewer *v = cls;
    gs_buf_free(&v->out);
    free(v);
}

/* The stream; an EventSource coming back (Last-Event-ID with an id this
 * hall gave) gets the boards shown anew since, not the whole round. */
static void answer_events(broadcast_round *r, const broadcast_req *req, broadcast_resp *resp)
{
    round_viewer *v = calloc(1, sizeof *v);
    if (!v) {
        broadcast_resp_error(resp, 503, "out of memory");
        return;
    }
    v->r = r;
    const char *last = broadcast_req_header(req, "Last-Event-ID");
    char *end = NULL;
    long long id = last ? strtoll(last, &end, 10) : -1;
    pthread_mutex_lock(&r->mu);
    if (last && end != last && !*end && id >= r->first_id && id <= r->last_id) {
        v->resumed = true;
        v->last_id = id;
    }
    pthread_mutex_unlock(&r->mu);
    resp->status = 200;
    resp->content_type = "text/event-stream";
    resp->stream = viewer_read;
    resp->stream_done = viewer_done;
    resp->stream_cls = v;
}

/* ------------------------------------------------------------- the feed */

#define TYPE_JSON "application/json"
#define TYPE_SGF "application/x-go-sgf; charset=utf-8"

/* round.json / round.sgf as shown, with their ETag. */
static void answer_round(broadcast_round *r, const broadcast_req *req, bool sgf, broadcast_resp *resp)
{
    pthread_mutex_lock(&r->mu);
    if (sgf) broadcast_resp_cached(req, resp, TYPE_SGF, r->feed ? r->feed : "", r->feed_len, r->feed_etag,
                                   r->modified_ms);
    else broadcast_resp_cached(req, resp, TYPE_JSON, r->json, r->json_len, r->json_etag, r->modified_ms);
    pthread_mutex_unlock(&r->mu);
}

/* board T's JSON (with its moves) or SGF as shown. */
static void answer_board(broadcast_round *r, round_board *b, const broadcast_req *req, bool sgf, broadcast_resp *resp)
{
    pthread_mutex_lock(&r->mu);
    const round_version *v = broadcast_round_shown_locked(b);
    int64_t when = b->pub_ms ? b->pub_ms : r->modified_ms;
    if (sgf) broadcast_resp_cached(req, resp, TYPE_SGF, v->sgf, v->sgf_len, v->sgf_etag, when);
    else broadcast_resp_cached(req, resp, TYPE_JSON, v->detail, v->detail_len, v->detail_etag, when);
    pthread_mutex_unlock(&r->mu);
}

/* ------------------------------------------------------- the corrections */

/* A correction handed to the board's running recorder, its answer passed
 * on; false when there is no running recorder to take it. */
static bool forward_correction(broadcast_round *r, round_board *b, const char *body, broadcast_resp *resp)
{
    char url[200], auth[128];
    pthread_mutex_lock(&r->mu);
    bool running = b->rec_running, known = b->rec_url[0] != '\0';
    snprintf(url, sizeof url, "%s/api/ruling", b->rec_url);
    snprintf(auth, sizeof auth, "X-Goscribe-Token: %s", b->rec_token);
    pthread_mutex_unlock(&r->mu);
    if (!running) return false;
    if (!known) { /* it writes the file, but cannot be reached yet */
        broadcast_resp_error(resp, 503, "the board's recorder is starting: try again in a moment");
        return true;
    }
    int status = 0;
    char *answer = NULL, err[200];
    size_t len = 0;
    if (broadcast_http_request(url, "POST", body, auth, ROUND_FORWARD_MS, &status, &answer, &len, err,
                               sizeof err)) {
        char msg[300];
        snprintf(msg, sizeof msg, "the board's recorder does not answer: %.200s", err);
        broadcast_resp_error(resp, 502, msg);
        return true;
    }
    resp->status = status;
    resp->content_type = "application/json";
    resp->body = answer;
    resp->body_len = len;
    return true;
}

/* The record's ruling of a correction, with its words (who, when). */
static void record_ruling_of(broadcast_ruling *br, record_ruling *ru, char *words, size_t wlen)
{
    br->unix_ms = gs_wall_ms();
    broadcast_ruling_describe(br, words, wlen);
    memset(ru, 0, sizeof *ru);
    ru->kind = br->kind;
    ru->move_number = br->move_number;
    ru->npoints = br->npoints;
    ru->points = br->points;
    ru->result = br->result;
    ru->words = words;
    ru->unix_ms = br->unix_ms;
}

/* Whether the correction can be made to the record as its file holds it
 * now, tried on a copy (the running recorder owns the file): a correction
 * no game can take is refused at once, rather than by the recorder later
 * where the director does not see it.  False with the answer set. */
static bool correction_possible(const round_board *b, broadcast_ruling *br, broadcast_resp *resp)
{
    char *text = NULL, tmp[] = "/tmp/goscribe-correct-XXXXXX";
    size_t len = 0;
    gs_error err;
    if (gs_file_read(b->path, 64u << 20, &text, &len, &err) != GS_OK) {
        broadcast_resp_error(resp, 409, "the board has no record yet");
        return false;
    }
    int fd = mkstemp(tmp);
    bool wrote = fd >= 0 && write(fd, text, len) == (ssize_t)len;
    if (fd >= 0) close(fd);
    free(text);
    gs_status st = GS_ERR_IO;
    if (wrote) {
        char words[400];
        record_ruling ru;
        record_ruling_of(br, &ru, words, sizeof words);
        st = record_correct_file(tmp, &ru, &err);
    }
    if (fd >= 0) unlink(tmp);
    if (st == GS_OK || st != GS_ERR_USAGE) return true; /* a failure of the copy: the recorder decides */
    size_t n = strlen(tmp);
    /* the message names the copy: what the director needs follows it */
    broadcast_resp_error(resp, 409, !strncmp(err.msg, tmp, n) && err.msg[n] == ':' ? err.msg + n + 2 : err.msg);
    return false;
}

/* A correction applied to the record's file: its recorder is gone, the
 * file is final (record_correct_file). */
static void correct_file(round_board *b, broadcast_ruling *br, broadcast_resp *resp)
{
    char words[400];
    record_ruling ru;
    record_ruling_of(br, &ru, words, sizeof words);
    gs_error err;
    gs_status st = record_correct_file(b->path, &ru, &err);
    if (st != GS_OK) {
        broadcast_resp_error(resp, st == GS_ERR_USAGE ? 409 : 500, err.msg);
        return;
    }
    gs_buf out = {0};
    gs_buf_puts(&out, "{\"ok\":true,\"applied\":\"file\",");
    broadcast_json_fields(&out, (const broadcast_json_field[]){{"text", words}}, 1);
    gs_buf_puts(&out, "}\n");
    broadcast_resp_json(resp, &out, false);
}

/* POST /board/T/api/correct {"ruling":"move"|"result",...} with the token. */
static void answer_correct(broadcast_round *r, round_board *b, const broadcast_req *req, const char *token,
                           broadcast_resp *resp)
{
    if (strcmp(req->method, "POST")) {
        broadcast_resp_error(resp, 405, "method not allowed");
        return;
    }
    if (!broadcast_req_token_ok(req, token)) {
        broadcast_resp_no_token(req, resp, "hall's");
        return;
    }
    gs_error err;
    gs_json *j = gs_json_parse(req->body, req->body_len, &err);
    if (!j) {
        broadcast_resp_error(resp, 400, err.msg);
        return;
    }
    broadcast_ruling br;
    const char *msg = broadcast_ruling_from_json(j, &br);
    gs_json_free(j);
    if (!msg && br.kind != RECORD_RULING_MOVE && br.kind != RECORD_RULING_RESULT)
        msg = "the hall takes corrections only (\"ruling\": \"move\" or \"result\"); rulings go to the board's console";
    if (msg) {
        broadcast_resp_error(resp, 400, msg);
        return;
    }
    broadcast_round_correct(r, b, &br, req->body, resp);
}

void broadcast_round_correct(broadcast_round *r, round_board *b, broadcast_ruling *br, const char *body,
                             broadcast_resp *resp)
{
    pthread_mutex_lock(&r->mu);
    bool running = b->rec_running;
    pthread_mutex_unlock(&r->mu);
    if (running && !correction_possible(b, br, resp)) return;
    if (forward_correction(r, b, body, resp)) return;
    correct_file(b, br, resp);
    broadcast_round_tick(r); /* the file changed: taken in at once (then delayed as any change) */
}

/* -------------------------------------------------------------- routing */

/* "/board/T" + rest: the board, and rest ("", ".json", ".sgf",
 * "/console", "/api/correct"); NULL when the path is no board's. */
static round_board *board_path(broadcast_round *r, const char *p, const char **rest)
{
    if (strncmp(p, "/board/", 7)) return NULL;
    char *end;
    long t = strtol(p + 7, &end, 10);
    if (end == p + 7 || t < 1 || t > 100000) return NULL;
    *rest = end;
    return broadcast_round_board_at(r, (int)t);
}

static bool answer_board_path(broadcast_round *r, const broadcast_req *req, const char *token, bool get,
                              broadcast_resp *resp)
{
    const char *rest = NULL;
    round_board *b = board_path(r, req->path, &rest);
    if (!b) return false;
    if (get && !*rest) broadcast_resp_page(req->path, req->path, broadcast_page_game, resp);
    else if (get && !strcmp(rest, ".json")) answer_board(r, b, req, false, resp);
    else if (get && !strcmp(rest, ".sgf")) answer_board(r, b, req, true, resp);
    else if (get && !strcmp(rest, "/console")) broadcast_resp_page(req->path, req->path, broadcast_page_director, resp);
    else if (!strcmp(rest, "/api/correct")) answer_correct(r, b, req, token, resp);
    else return false;
    return true;
}

bool broadcast_round_answer(broadcast_round *r, const broadcast_req *req, const char *token, broadcast_resp *resp)
{
    const char *p = req->path;
    bool get = !strcmp(req->method, "GET") || !strcmp(req->method, "HEAD");
    if (get && broadcast_resp_page(p, "/", broadcast_page_round, resp)) return true;
    if (get && !strcmp(p, "/round.json")) answer_round(r, req, false, resp);
    else if (get && !strcmp(p, "/round.sgf")) answer_round(r, req, true, resp);
    else if (get && !strcmp(p, "/round/events")) answer_events(r, req, resp);
    else return answer_board_path(r, req, token, get, resp);
    return true;
}
