/* broadcast/round_count.c: the hall's "count this board" (broadcast_internal.h,
 * broadcast_round_count_answer): a photo of a finished board taken with the
 * phone (POST /board/T/count/api/photo, image/jpeg, the hall's token)
 * opens that board's count page (/board/T/count/, count_session.c); its
 * confirmation becomes the board's result, a correction as the director's
 * (broadcast_round_correct: to the board's recorder while it runs, else
 * into its file), with who confirmed it, when and what was set by hand;
 * the round's feed (JSON, SGF, SSE, MQTT) then carries it as any change. */
#include "broadcast/broadcast_internal.h"

#include "cvshim/cvshim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Count pages open at once: each holds its photo (a 12 MP photo is 36 MB
 * decoded); a club counts a few boards at a time. */
#define ROUND_COUNTS_MAX 4

typedef struct round_count_entry {
    int table;                    /* 0 = free */
    broadcast_count_session *s;
    bool confirmed;
} round_count_entry;

/* Every use of a session, from the upload's swap to a confirmation, holds
 * mu: a session is never freed while another thread answers from it. */
struct round_counts {
    pthread_mutex_t mu;
    round_count_entry e[ROUND_COUNTS_MAX];
};

/* r's count pages, made on first use (NULL without memory). */
static struct round_counts *counts_of(broadcast_round *r)
{
    pthread_mutex_lock(&r->mu);
    if (!r->counts && (r->counts = calloc(1, sizeof *r->counts)) && pthread_mutex_init(&r->counts->mu, NULL) != 0) {
        free(r->counts);
        r->counts = NULL;
    }
    struct round_counts *c = r->counts;
    pthread_mutex_unlock(&r->mu);
    return c;
}

void broadcast_round_counts_free(broadcast_round *r)
{
    struct round_counts *c = r->counts;
    if (!c) return;
    for (int i = 0; i < ROUND_COUNTS_MAX; i++) broadcast_count_session_destroy(c->e[i].s);
    pthread_mutex_destroy(&c->mu);
    free(c);
    r->counts = NULL;
}

/* The entry of table (c->mu held); NULL when it has none. */
static round_count_entry *entry_of(struct round_counts *c, int table)
{
    for (int i = 0; i < ROUND_COUNTS_MAX; i++)
        if (c->e[i].table == table) return &c->e[i];
    return NULL;
}

/* ------------------------------------------------------------ the upload */

/* How board b's count is counted: the record's board size (its SZ), the
 * pairing's komi and handicap, the dead stones estimated. */
static void board_count_options(broadcast_round *r, const round_board *b, score_count_options *o)
{
    score_count_options_init(o);
    o->dead = SCORE_COUNT_DEAD_AUTO;
    o->handicap = b->handicap >= 2 ? b->handicap : 0;
    o->komi = b->has_komi ? b->komi : o->handicap ? 0 : RULES_DEFAULT_KOMI;
    o->has_komi = true;
    pthread_mutex_lock(&r->mu);
    const char *sz = b->raw ? strstr(b->raw, "SZ[") : NULL;
    int size = sz ? atoi(sz + 3) : 19;
    pthread_mutex_unlock(&r->mu);
    o->size_hint = size == 9 || size == 13 || size == 19 ? size : 0;
}

/* Session s becomes table's (c->mu held): its old one goes, else a free
 * place, else the oldest confirmed one's; false when every place holds a
 * count not confirmed yet. */
static bool entry_take(struct round_counts *c, int table, broadcast_count_session *s)
{
    round_count_entry *e = entry_of(c, table);
    for (int i = 0; !e && i < ROUND_COUNTS_MAX; i++)
        if (!c->e[i].table || c->e[i].confirmed) e = &c->e[i];
    if (!e) return false;
    broadcast_count_session_destroy(e->s);
    *e = (round_count_entry){table, s, false};
    return true;
}

/* POST /board/T/count/api/photo: the photo read, its count page opened. */
static void answer_upload(broadcast_round *r, round_board *b, const broadcast_req *req, broadcast_resp *resp)
{
    struct round_counts *c = counts_of(r);
    gs_error err = {0};
    gs_image *img = c ? cvshim_image_decode_max((const uint8_t *)req->body, req->body_len, 0, &err) : NULL;
    if (!img) {
        broadcast_resp_error(resp, c ? 400 : 500, c ? err.msg : "out of memory");
        return;
    }
    score_count_options o;
    board_count_options(r, b, &o);
    broadcast_count_session *s = broadcast_count_session_create(img, &o, &err);
    if (!s) {
        broadcast_resp_error(resp, 500, err.msg);
        return;
    }
    pthread_mutex_lock(&c->mu);
    bool taken = entry_take(c, b->table, s);
    pthread_mutex_unlock(&c->mu);
    if (!taken) {
        broadcast_count_session_destroy(s);
        broadcast_resp_error(resp, 503, "every count page is in use: confirm one of them first");
        return;
    }
    gs_buf out = {0};
    gs_buf_printf(&out, "{\"ok\":true,\"page\":\"/board/%d/count/\"}\n", b->table);
    broadcast_resp_json(resp, &out, true);
}

/* ------------------------------------------------------- the confirmation */

typedef struct confirm_ctx {
    broadcast_round *r;
    round_board *b;
    round_count_entry *e;
} confirm_ctx;

/* The ruling's note: where the result comes from and what was set by
 * hand (at most what a ruling's note holds). */
static void confirm_note(const score_count_result *res, char *out, size_t len)
{
    char a[32], w[32];
    score_count_stones_format(res->count.black, a, sizeof a);
    score_count_stones_format(res->count.white, w, sizeof w);
    gs_buf b = {0};
    gs_buf_printf(&b, "counted from a photo on the count page: Black %s, White %s, dame %d", a, w, res->count.dame);
    if (res->nfixed) gs_buf_puts(&b, "; set by hand:");
    for (int i = 0; i < res->pos.size * res->pos.size; i++)
        if (res->fixed[i]) {
            char h[8];
            rules_point_human((gs_point){(int8_t)(i % res->pos.size), (int8_t)(i / res->pos.size)}, res->pos.size, h);
            gs_buf_printf(&b, " %s", h);
        }
    snprintf(out, len, "%s", gs_buf_ok(&b) && b.p ? b.p : "counted from a photo on the count page");
    if (b.len >= len && len > 4) memcpy(out + len - 4, "...", 4);
    gs_buf_free(&b);
}

/* The confirmed count made the board's result (a correction). */
static int on_confirm(void *user, const score_count_result *res, char *msg, size_t len)
{
    confirm_ctx *x = user;
    broadcast_ruling br;
    memset(&br, 0, sizeof br);
    br.kind = RECORD_RULING_RESULT;
    snprintf(br.result, sizeof br.result, "%s", res->count.sgf);
    snprintf(br.by, sizeof br.by, "%s", res->confirmed_by);
    confirm_note(res, br.note, sizeof br.note);
    gs_buf body = {0};
    gs_buf_puts(&body, "{\"ruling\":\"result\"");
    broadcast_json_field f[3] = {{"result", br.result}, {"by", br.by}, {"note", br.note}};
    gs_buf_puts(&body, ",");
    broadcast_json_fields(&body, f, 3);
    gs_buf_puts(&body, "}");
    broadcast_resp out = {0};
    if (gs_buf_ok(&body)) broadcast_round_correct(x->r, x->b, &br, body.p, &out);
    else broadcast_resp_error(&out, 500, "out of memory");
    gs_buf_free(&body);
    int status = out.status == 200 ? 0 : out.status ? out.status : 500;
    if (status) {
        const char *m = out.body ? strstr(out.body, "\"error\":\"") : NULL;
        snprintf(msg, len, "the result cannot go into the record: %.*s", m ? (int)strcspn(m + 9, "\"") : 7,
                 m ? m + 9 : "refused");
    }
    x->e->confirmed = status == 0;
    free(out.body);
    return status;
}

/* ------------------------------------------------------------- routing */

/* "/board/T/count" + rest: the board and rest ("", "/", "/api/..."); NULL
 * when the path is no board's count page. */
static round_board *count_path(broadcast_round *r, const char *p, const char **rest)
{
    if (strncmp(p, "/board/", 7)) return NULL;
    char *end;
    long t = strtol(p + 7, &end, 10);
    if (end == p + 7 || t < 1 || t > 100000 || strncmp(end, "/count", 6) || (end[6] && end[6] != '/')) return NULL;
    *rest = end + 6;
    return broadcast_round_board_at(r, (int)t);
}

/* The API of board b's count page (its session, under c->mu). */
static void answer_api(broadcast_round *r, round_board *b, const broadcast_req *req, const char *rest,
                       broadcast_resp *resp)
{
    struct round_counts *c = counts_of(r);
    if (!c) {
        broadcast_resp_error(resp, 500, "out of memory");
        return;
    }
    pthread_mutex_lock(&c->mu);
    round_count_entry *e = entry_of(c, b->table);
    confirm_ctx x = {r, b, e};
    if (!e) broadcast_resp_error(resp, 404, "no photo of this board yet: take one on the board's page");
    else broadcast_count_session_answer(e->s, req, rest, on_confirm, &x, resp);
    pthread_mutex_unlock(&c->mu);
}

bool broadcast_round_count_answer(broadcast_round *r, const broadcast_req *req, const char *token,
                                  broadcast_resp *resp)
{
    const char *rest = NULL;
    round_board *b = count_path(r, req->path, &rest);
    if (!b) return false;
    bool get = !strcmp(req->method, "GET") || !strcmp(req->method, "HEAD");
    if (!*rest || !strcmp(rest, "/")) {
        if (get) broadcast_resp_page(req->path, req->path, broadcast_page_count, resp);
        else broadcast_resp_error(resp, 405, "method not allowed");
    } else if (strncmp(rest, "/api/", 5)) {
        broadcast_resp_error(resp, 404, "no such page");
    } else if (!broadcast_req_token_ok(req, token)) {
        broadcast_resp_no_token(req, resp, "hall's");
    } else if (!strcmp(rest, "/api/photo")) {
        if (strcmp(req->method, "POST")) broadcast_resp_error(resp, 405, "method not allowed");
        else answer_upload(r, b, req, resp);
    } else {
        answer_api(r, b, req, rest + 1, resp);
    }
    return true;
}
