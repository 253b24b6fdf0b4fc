/* broadcast/board.c: one board's live pages, SSE stream and referee console.
 *
 * Publishers (the recorder's thread) copy into this object under `mu` and
 * broadcast `cv`; viewers' threads (one per HTTP connection) wait on `cv`
 * and copy messages out of a bounded ring.  No publisher call ever touches
 * a socket, so the recorder's frame loop cannot be stalled by a viewer. */
#include "broadcast/broadcast_internal.h"
#include "cvshim/cvshim.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* Events and rulings a viewer connecting late still gets (the newest). */
#define BROADCAST_HISTORY (2 * BROADCAST_EVENTS_KEPT)

typedef struct ring_msg {
    long seq;
    char *json;
    size_t len;
} ring_msg;

typedef struct kept_event {
    int id;
    gs_color color;
    bool ruled;
    char *json;        /* public object (type "event") */
    char *detail;      /* the same plus before/after grids, for the console */
    gs_image *img[2];  /* evidence frames, before / after */
} kept_event;

struct broadcast_board {
    broadcast_httpd *httpd;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool stopping;
    char name[64], id[64], token[72], url[160];

    /* last state */
    broadcast_state state;
    bool has_state;
    char *state_json;

    /* SSE ring: messages next_seq-BROADCAST_RING .. next_seq-1 */
    ring_msg ring[BROADCAST_RING];
    long next_seq;

    /* flagged events */
    kept_event events[BROADCAST_EVENTS_KEPT];
    int next_event_id;

    /* public "event" and "ruling" messages, replayed to a viewer who
     * connects (or resyncs) later so its events panel is not empty */
    char *history[BROADCAST_HISTORY];
    long hist_next;

    /* rulings waiting for the record */
    broadcast_ruling queue[64];
    int q_head, q_count, next_ruling_id;
    int warnings[3];   /* indexed by gs_color */

    /* camera frame */
    gs_image *raw;
    long raw_seq;
    vision_grid grid;
    bool has_grid, grid_for_raw;
    uint8_t *jpg;
    size_t jpg_len;
    long jpg_seq;
    bool encoding;
    double last_copy_ms, last_frame_request_ms;

    char *sgf;
    size_t sgf_len;

    broadcast_stats stats;

    broadcast_mqtt *mqtt;
    char topic_state[128], topic_events[128];

    pthread_t announcer;
    bool has_announcer;
    char announce_url[200];
};

/* ----------------------------------------------------------- small stuff */

void broadcast_config_init(broadcast_config *cfg) { memset(cfg, 0, sizeof *cfg); }

void broadcast_state_init(broadcast_state *s, int size)
{
    memset(s, 0, sizeof *s);
    gs_position_clear(&s->pos, size);
    s->to_move = GS_BLACK;
    snprintf(s->status, sizeof s->status, "playing");
}

static const char *color_word(gs_color c) { return c == GS_BLACK ? "Black" : c == GS_WHITE ? "White" : "nobody"; }

size_t broadcast_ruling_describe(const broadcast_ruling *r, char *buf, size_t len)
{
    static const char *const what[RECORD_RULING_COUNT_] = {
        "move void", "stones put back", "dead stones removed", "warning",
        "move accepted", "move void, counted as a pass", "game ended", "resigns"};
    time_t t = (time_t)(r->unix_ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    const char *w = (unsigned)r->kind < RECORD_RULING_COUNT_ ? what[r->kind] : "ruling";
    int n;
    if (r->kind == RECORD_RULING_RESIGN)
        n = snprintf(buf, len, "Referee (%02d:%02d:%02d UTC): %s resigns", tm.tm_hour, tm.tm_min, tm.tm_sec,
                     color_word(r->color));
    else
        n = snprintf(buf, len, "Referee (%02d:%02d:%02d UTC): %s", tm.tm_hour, tm.tm_min, tm.tm_sec, w);
    size_t used = n < 0 ? 0 : (size_t)n >= len ? len - 1 : (size_t)n;
    if (r->warning && r->kind != RECORD_RULING_WARN && used < len)
        used += (size_t)snprintf(buf + used, len - used, ", warning");
    if (r->warning && used < len) {
        int cnt = r->color == GS_BLACK ? r->warnings_black : r->warnings_white;
        n = snprintf(buf + used, len - used, " to %s (warning %d)", color_word(r->color), cnt);
        used = n < 0 || used + (size_t)n >= len ? len - 1 : used + (size_t)n;
    }
    if ((r->loser == GS_BLACK || r->loser == GS_WHITE) && used < len) {
        n = snprintf(buf + used, len - used, "; %s loses the game%s", color_word(r->loser),
                     r->kind == RECORD_RULING_RESIGN ? "" : " (two warnings)");
        used = n < 0 || used + (size_t)n >= len ? len - 1 : used + (size_t)n;
    }
    if (r->note[0] && used < len) {
        n = snprintf(buf + used, len - used, ". %s", r->note);
        used = n < 0 || used + (size_t)n >= len ? len - 1 : used + (size_t)n;
    }
    return used;
}

/* Constant-time comparison so the token cannot be guessed byte by byte. */
static bool token_ok(const broadcast_board *sb, const char *given)
{
    if (!given) return false;
    size_t a = strlen(sb->token), b = strlen(given);
    unsigned diff = (unsigned)(a ^ b);
    for (size_t i = 0; i < a; i++) diff |= (unsigned)(sb->token[i] ^ (i < b ? given[i] : 0));
    return diff == 0;
}

static bool request_token_ok(const broadcast_board *sb, const broadcast_req *req)
{
    const char *auth = broadcast_req_header(req, "Authorization");
    if (auth && !strncmp(auth, "Bearer ", 7)) return token_ok(sb, auth + 7);
    const char *x = broadcast_req_header(req, "X-Goscribe-Token");
    if (x) return token_ok(sb, x);
    return token_ok(sb, broadcast_req_query(req, "token"));
}

/* Keeps a copy of a public event/ruling message for late viewers (mu held). */
static void history_push_locked(broadcast_board *sb, const char *json)
{
    char *c = strdup(json);
    if (!c) return;  /* only late viewers miss it */
    char **slot = &sb->history[sb->hist_next++ % BROADCAST_HISTORY];
    free(*slot);
    *slot = c;
}

/* Writes the kept events and rulings, oldest first (mu held). */
static void history_replay_locked(const broadcast_board *sb, gs_buf *out)
{
    long first = sb->hist_next - BROADCAST_HISTORY;
    for (long i = first < 0 ? 0 : first; i < sb->hist_next; i++)
        gs_buf_printf(out, "data: %s\n\n", sb->history[i % BROADCAST_HISTORY]);
}

/* Appends one message to the ring (mu held); takes json. */
static void ring_push_locked(broadcast_board *sb, char *json, size_t len)
{
    ring_msg *m = &sb->ring[sb->next_seq % BROADCAST_RING];
    free(m->json);
    m->seq = sb->next_seq++;
    m->json = json;
    m->len = len;
    sb->stats.messages++;
    pthread_cond_broadcast(&sb->cv);
}

static void grid_text(const gs_position *p, char *out)
{
    int n = p->size * p->size;
    for (int i = 0; i < n; i++) out[i] = p->cell[i] == GS_BLACK ? 'B' : p->cell[i] == GS_WHITE ? 'W' : '.';
    out[n] = '\0';
}

static bool state_equal(const broadcast_state *a, const broadcast_state *b)
{
    return a->pos.size == b->pos.size &&
           !memcmp(a->pos.cell, b->pos.cell, (size_t)(a->pos.size * a->pos.size)) &&
           a->move_number == b->move_number && a->to_move == b->to_move &&
           a->captures_black == b->captures_black && a->captures_white == b->captures_white &&
           a->last_color == b->last_color && a->last_point.x == b->last_point.x &&
           a->last_point.y == b->last_point.y && a->last_pass == b->last_pass &&
           a->last_move_unix_ms == b->last_move_unix_ms && !strcmp(a->black, b->black) &&
           !strcmp(a->white, b->white) && !strcmp(a->result, b->result) &&
           !strcmp(a->status, b->status) && a->komi == b->komi;
}

static void mqtt_send(broadcast_board *sb, const char *topic, const char *json, size_t len)
{
    if (sb->mqtt) broadcast_mqtt_publish(sb->mqtt, topic, json, len, true);
}

/* ------------------------------------------------------------ publishers */

void broadcast_board_publish_state(broadcast_board *sb, const broadcast_state *in)
{
    if (!sb || !in || in->pos.size < 5 || in->pos.size > GS_MAX_SIZE) return;
    broadcast_state s = *in;
    s.black[sizeof s.black - 1] = s.white[sizeof s.white - 1] = '\0';
    s.result[sizeof s.result - 1] = s.status[sizeof s.status - 1] = '\0';
    pthread_mutex_lock(&sb->mu);
    bool same = sb->has_state && state_equal(&sb->state, &s);
    broadcast_state prev = sb->state;
    bool had = sb->has_state;
    int wb = sb->warnings[GS_BLACK], ww = sb->warnings[GS_WHITE];
    pthread_mutex_unlock(&sb->mu);
    if (same) return;

    gs_buf st = {0}, mv = {0};
    broadcast_state_json(&st, &s, sb->name, sb->id, sb->url, wb, ww);
    bool new_move = (s.last_color == GS_BLACK || s.last_color == GS_WHITE) &&
                    (!had || s.move_number != prev.move_number || s.last_move_unix_ms != prev.last_move_unix_ms);
    if (new_move) {
        char pt[3] = {0};
        if (!s.last_pass && s.last_point.x >= 0 && s.last_point.x < s.pos.size && s.last_point.y >= 0 &&
            s.last_point.y < s.pos.size) {
            pt[0] = (char)('a' + s.last_point.x);
            pt[1] = (char)('a' + s.last_point.y);
        }
        gs_buf_printf(&mv, "{\"type\":\"move\",\"move_number\":%d,\"color\":\"%s\",\"point\":\"%s\","
                              "\"pass\":%s,\"unix_ms\":%lld}",
                         s.move_number, broadcast_color_name(s.last_color), pt, pt[0] ? "false" : "true",
                         (long long)s.last_move_unix_ms);
    }
    if (st.failed || mv.failed) {
        gs_buf_free(&st);
        gs_buf_free(&mv);
        return;
    }
    char *for_mqtt = st.p ? strdup(st.p) : NULL;
    pthread_mutex_lock(&sb->mu);
    sb->state = s;
    sb->has_state = true;
    free(sb->state_json);
    sb->state_json = strdup(st.p);
    if (mv.p) ring_push_locked(sb, mv.p, mv.len);
    ring_push_locked(sb, st.p, st.len);
    pthread_mutex_unlock(&sb->mu);
    if (for_mqtt) mqtt_send(sb, sb->topic_state, for_mqtt, strlen(for_mqtt));
    free(for_mqtt);
}

int broadcast_board_publish_event(broadcast_board *sb, const broadcast_event *ev)
{
    if (!sb || !ev) return 0;
    gs_image *img[2] = {ev->frame_before ? gs_image_copy(ev->frame_before) : NULL,
                        ev->frame_after ? gs_image_copy(ev->frame_after) : NULL};
    pthread_mutex_lock(&sb->mu);
    int id = ++sb->next_event_id;
    pthread_mutex_unlock(&sb->mu);

    gs_buf pub = {0};
    gs_buf_printf(&pub, "{\"type\":\"event\",\"id\":%d,\"code\":", id);
    gs_json_str(&pub, ev->code ? ev->code : "note");
    gs_buf_puts(&pub, ",\"message\":");
    gs_json_str(&pub, ev->message ? ev->message : "");
    gs_buf_printf(&pub, ",\"color\":\"%s\",\"move_number\":%d,\"points\":[", broadcast_color_name(ev->color),
                     ev->move_number);
    int np = ev->points ? (ev->npoints < BROADCAST_MAX_POINTS ? ev->npoints : BROADCAST_MAX_POINTS) : 0;
    int sz = ev->before ? ev->before->size : ev->after ? ev->after->size : GS_MAX_SIZE;
    int written = 0;
    for (int i = 0; i < np; i++) {
        gs_point p = ev->points[i];
        if (p.x < 0 || p.y < 0 || p.x >= sz || p.y >= sz) continue;
        gs_buf_printf(&pub, "%s\"%c%c\"", written++ ? "," : "", 'a' + p.x, 'a' + p.y);
    }
    gs_buf_printf(&pub, "],\"has_before\":%s,\"has_after\":%s,\"unix_ms\":%lld}", img[0] ? "true" : "false",
                     img[1] ? "true" : "false", (long long)gs_wall_ms());
    gs_buf det = {0};
    if (!pub.failed) {
        gs_buf_add(&det, pub.p, pub.len - 1);
        char g[GS_MAX_SIZE * GS_MAX_SIZE + 1];
        if (ev->before && ev->before->size >= 5 && ev->before->size <= GS_MAX_SIZE) {
            grid_text(ev->before, g);
            gs_buf_printf(&det, ",\"size\":%d,\"before\":\"%s\"", ev->before->size, g);
        }
        if (ev->after && ev->after->size >= 5 && ev->after->size <= GS_MAX_SIZE) {
            grid_text(ev->after, g);
            gs_buf_printf(&det, "%s,\"after\":\"%s\"", ev->before ? "" : "", g);
            if (!ev->before) gs_buf_printf(&det, ",\"size\":%d", ev->after->size);
        }
        gs_buf_puts(&det, "}");
    }
    if (pub.failed || det.failed) {
        gs_buf_free(&pub);
        gs_buf_free(&det);
        gs_image_destroy(img[0]);
        gs_image_destroy(img[1]);
        return 0;
    }
    char *for_mqtt = strdup(pub.p);
    pthread_mutex_lock(&sb->mu);
    kept_event *k = &sb->events[id % BROADCAST_EVENTS_KEPT];
    char *old_json = k->json, *old_det = k->detail;
    gs_image *old_img[2] = {k->img[0], k->img[1]};
    k->id = id;
    k->color = ev->color;
    k->ruled = false;
    k->json = strdup(pub.p);
    k->detail = det.p;
    k->img[0] = img[0];
    k->img[1] = img[1];
    history_push_locked(sb, pub.p);
    ring_push_locked(sb, pub.p, pub.len);
    pthread_mutex_unlock(&sb->mu);
    free(old_json);
    free(old_det);
    gs_image_destroy(old_img[0]);
    gs_image_destroy(old_img[1]);
    if (for_mqtt) mqtt_send(sb, sb->topic_events, for_mqtt, strlen(for_mqtt));
    free(for_mqtt);
    return id;
}

void broadcast_board_publish_frame(broadcast_board *sb, const gs_image *frame, const vision_grid *grid)
{
    if (!sb || !frame || !frame->buf || frame->width <= 0 || frame->height <= 0) return;
    double now = gs_now_ms();
    pthread_mutex_lock(&sb->mu);
    /* a few copies a second while someone watches, one a second otherwise */
    double interval = now - sb->last_frame_request_ms < 10000.0 ? 200.0 : 1000.0;
    bool due = !sb->raw_seq || now - sb->last_copy_ms >= interval;
    if (due) sb->last_copy_ms = now;
    pthread_mutex_unlock(&sb->mu);
    if (!due) return;
    gs_image *copy = gs_image_copy(frame);
    if (!copy) return;
    pthread_mutex_lock(&sb->mu);
    gs_image *old = sb->raw;
    sb->raw = copy;
    sb->raw_seq++;
    sb->grid_for_raw = grid != NULL;
    if (grid) sb->grid = *grid;
    pthread_mutex_unlock(&sb->mu);
    gs_image_destroy(old);
}

void broadcast_board_set_sgf(broadcast_board *sb, const char *text, size_t len)
{
    if (!sb || !text) return;
    char *c = malloc(len + 1);
    if (!c) return;
    memcpy(c, text, len);
    c[len] = '\0';
    pthread_mutex_lock(&sb->mu);
    char *old = sb->sgf;
    sb->sgf = c;
    sb->sgf_len = len;
    pthread_mutex_unlock(&sb->mu);
    free(old);
}

bool broadcast_board_poll_ruling(broadcast_board *sb, broadcast_ruling *out)
{
    if (!sb) return false;
    bool got = false;
    pthread_mutex_lock(&sb->mu);
    if (sb->q_count > 0) {
        *out = sb->queue[sb->q_head];
        sb->q_head = (sb->q_head + 1) % 64;
        sb->q_count--;
        got = true;
    }
    pthread_mutex_unlock(&sb->mu);
    return got;
}

void broadcast_board_stats(broadcast_board *sb, broadcast_stats *out)
{
    memset(out, 0, sizeof *out);
    if (!sb) return;
    pthread_mutex_lock(&sb->mu);
    *out = sb->stats;
    pthread_mutex_unlock(&sb->mu);
}

int broadcast_board_port(const broadcast_board *sb) { return sb ? broadcast_httpd_port(sb->httpd) : 0; }
const char *broadcast_board_token(const broadcast_board *sb) { return sb ? sb->token : ""; }
const char *broadcast_board_url(const broadcast_board *sb) { return sb ? sb->url : ""; }

/* ------------------------------------------------------------ SSE stream */

typedef struct viewer {
    broadcast_board *sb;
    long next_seq;
    bool started;
    gs_buf out;
    size_t off;
} viewer;

/* Fills v->out with what the viewer should get next (mu held). */
static bool viewer_fill_locked(viewer *v)
{
    broadcast_board *sb = v->sb;
    if (!v->started) {
        v->started = true;
        gs_buf_puts(&v->out, "retry: 2000\n\n");
        if (sb->state_json) gs_buf_printf(&v->out, "data: %s\n\n", sb->state_json);
        history_replay_locked(sb, &v->out);
        return true;
    }
    long oldest = sb->next_seq - BROADCAST_RING;
    if (oldest < 0) oldest = 0;
    if (v->next_seq < oldest) {
        /* too slow: skip what the ring no longer holds and start over */
        sb->stats.resyncs++;
        v->next_seq = sb->next_seq;
        gs_buf_puts(&v->out, "data: {\"type\":\"resync\"}\n\n");
        if (sb->state_json) gs_buf_printf(&v->out, "data: %s\n\n", sb->state_json);
        history_replay_locked(sb, &v->out);
        return true;
    }
    bool any = false;
    while (v->next_seq < sb->next_seq && v->out.len < 4096) { /* short lock hold */
        ring_msg *m = &sb->ring[v->next_seq % BROADCAST_RING];
        gs_buf_printf(&v->out, "id: %ld\ndata: ", m->seq);
        gs_buf_add(&v->out, m->json, m->len);
        gs_buf_add(&v->out, "\n\n", 2);
        v->next_seq++;
        any = true;
    }
    return any;
}

static long viewer_read(void *cls, char *buf, size_t max)
{
    viewer *v = cls;
    broadcast_board *sb = v->sb;
    if (v->off >= v->out.len) {
        v->out.len = 0;
        v->off = 0;
        if (v->out.p) v->out.p[0] = '\0';
        pthread_mutex_lock(&sb->mu);
        while (!sb->stopping && !viewer_fill_locked(v)) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_sec += 10;
            if (pthread_cond_timedwait(&sb->cv, &sb->mu, &ts)) {
                gs_buf_puts(&v->out, ":\n\n"); /* keep-alive comment */
                break;
            }
        }
        bool stop = sb->stopping;
        pthread_mutex_unlock(&sb->mu);
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
    viewer *v = cls;
    pthread_mutex_lock(&v->sb->mu);
    v->sb->stats.viewers--;
    pthread_mutex_unlock(&v->sb->mu);
    gs_buf_free(&v->out);
    free(v);
}

/* ------------------------------------------------------------- handlers */

static void draw_dot(gs_image *img, int x, int y, int r)
{
    for (int dy = -r; dy <= r; dy++)
        for (int dx = -r; dx <= r; dx++) {
            int px = x + dx, py = y + dy;
            if (px < 0 || py < 0 || px >= img->width || py >= img->height) continue;
            uint8_t *p = img->buf + (size_t)py * (size_t)img->stride + (size_t)px * (size_t)img->channels;
            p[0] = 0;
            if (img->channels >= 3) { p[1] = 230; p[2] = 0; }
        }
}

/* Draws the grid's lines in green by sampling along each line (the map
 * has lens distortion, so lines may bend slightly). */
static void draw_grid(gs_image *img, const vision_grid *g)
{
    if (g->size < 2 || g->size > GS_MAX_SIZE) return;
    int r = img->width > 1000 ? 1 : 0;
    int steps = (g->size - 1) * 24;
    for (int line = 0; line < g->size; line++)
        for (int i = 0; i <= steps; i++) {
            double t = (double)(g->size - 1) * i / steps, x, y;
            vision_grid_map(g, line, t, &x, &y);
            draw_dot(img, (int)(x + 0.5), (int)(y + 0.5), r);
            vision_grid_map(g, t, line, &x, &y);
            draw_dot(img, (int)(x + 0.5), (int)(y + 0.5), r);
        }
}

static void handle_frame(broadcast_board *sb, broadcast_resp *resp)
{
    gs_image *img = NULL;
    vision_grid grid;
    bool with_grid = false;
    long seq = 0;
    pthread_mutex_lock(&sb->mu);
    sb->last_frame_request_ms = gs_now_ms();
    if (sb->raw && sb->jpg_seq != sb->raw_seq && !sb->encoding) {
        img = sb->raw;      /* take it: the publisher only ever swaps in a new one */
        sb->raw = NULL;
        seq = sb->raw_seq;
        with_grid = sb->grid_for_raw;
        grid = sb->grid;
        sb->encoding = true;
    }
    pthread_mutex_unlock(&sb->mu);
    if (img) {
        if (with_grid) draw_grid(img, &grid);
        uint8_t *jpg = NULL;
        size_t len = 0;
        int rc = cvshim_image_encode_jpeg(img, 80, &jpg, &len);
        gs_image_destroy(img);
        pthread_mutex_lock(&sb->mu);
        sb->encoding = false;
        if (!rc) {
            free(sb->jpg);
            sb->jpg = jpg;
            sb->jpg_len = len;
            sb->jpg_seq = seq;
            jpg = NULL;
        }
        pthread_mutex_unlock(&sb->mu);
        free(jpg);
    }
    pthread_mutex_lock(&sb->mu);
    if (sb->jpg) {
        resp->body = malloc(sb->jpg_len);
        if (resp->body) {
            memcpy(resp->body, sb->jpg, sb->jpg_len);
            resp->body_len = sb->jpg_len;
        }
    }
    pthread_mutex_unlock(&sb->mu);
    if (!resp->body) {
        broadcast_resp_error(resp, 503, "no camera frame yet");
        return;
    }
    resp->status = 200;
    resp->content_type = "image/jpeg";
    resp->no_cache = true;
}

static void handle_evidence(broadcast_board *sb, const char *rest, broadcast_resp *resp)
{
    int id = 0;
    char which[16] = {0};
    if (sscanf(rest, "%d/%15[a-z].jpg", &id, which) != 2 || (strcmp(which, "before") && strcmp(which, "after"))) {
        broadcast_resp_error(resp, 404, "no such evidence");
        return;
    }
    int k = !strcmp(which, "after");
    gs_image *copy = NULL;
    pthread_mutex_lock(&sb->mu);
    kept_event *e = &sb->events[id % BROADCAST_EVENTS_KEPT];
    if (id > 0 && e->id == id && e->img[k]) copy = gs_image_copy(e->img[k]);
    pthread_mutex_unlock(&sb->mu);
    if (!copy) {
        broadcast_resp_error(resp, 404, "no such evidence");
        return;
    }
    uint8_t *jpg = NULL;
    size_t len = 0;
    int rc = cvshim_image_encode_jpeg(copy, 85, &jpg, &len);
    gs_image_destroy(copy);
    if (rc) {
        broadcast_resp_error(resp, 500, "cannot encode the frame");
        return;
    }
    resp->status = 200;
    resp->content_type = "image/jpeg";
    resp->body = (char *)jpg;
    resp->body_len = len;
}

static void handle_event_list(broadcast_board *sb, broadcast_resp *resp)
{
    gs_buf b = {0};
    gs_buf_puts(&b, "{\"events\":[");
    pthread_mutex_lock(&sb->mu);
    int first = sb->next_event_id - BROADCAST_EVENTS_KEPT + 1;
    bool any = false;
    for (int id = first < 1 ? 1 : first; id <= sb->next_event_id; id++) {
        kept_event *e = &sb->events[id % BROADCAST_EVENTS_KEPT];
        if (e->id != id || !e->detail) continue;
        if (any) gs_buf_puts(&b, ",");
        gs_buf_printf(&b, "{\"ruled\":%s,\"event\":%s}", e->ruled ? "true" : "false", e->detail);
        any = true;
    }
    gs_buf_printf(&b, "],\"warnings\":{\"B\":%d,\"W\":%d}}", sb->warnings[GS_BLACK], sb->warnings[GS_WHITE]);
    pthread_mutex_unlock(&sb->mu);
    broadcast_resp_json(resp, &b, true);
}

/* Validates a ruling and queues it; 4xx with nothing queued otherwise. */
static void handle_ruling(broadcast_board *sb, const broadcast_req *req, broadcast_resp *resp)
{
    gs_error err;
    gs_json *j = gs_json_parse(req->body, req->body_len, &err);
    if (!j) {
        broadcast_resp_error(resp, 400, err.msg);
        return;
    }
    broadcast_ruling r;
    memset(&r, 0, sizeof r);
    const char *msg = NULL;
    const gs_json *ev = gs_json_get(j, "event");
    const gs_json *col = gs_json_get(j, "color");
    const gs_json *warn = gs_json_get(j, "warning");
    const gs_json *pts = gs_json_get(j, "points");
    const gs_json *note = gs_json_get(j, "note");
    if (j->type != GS_JSON_OBJ) msg = "a JSON object is expected";
    else if (!record_ruling_parse_kind(gs_json_get_str(j, "ruling", NULL), &r.kind))
        msg = "\"ruling\" must be one of void, restore, remove_dead, warn, accept, pass, end, resign";
    else if (ev && (ev->type != GS_JSON_NUM || ev->num < 0 || ev->num > 1e9 || ev->num != (int)ev->num))
        msg = "\"event\" must be an event id";
    else if (col && (col->type != GS_JSON_STR || (strcmp(col->str, "B") && strcmp(col->str, "W"))))
        msg = "\"color\" must be \"B\" or \"W\"";
    else if (warn && warn->type != GS_JSON_BOOL) msg = "\"warning\" must be true or false";
    else if (pts && (pts->type != GS_JSON_ARR || pts->n > BROADCAST_MAX_POINTS)) msg = "\"points\" must be a short array";
    else if (note && (note->type != GS_JSON_STR || strlen(note->str) >= sizeof r.note)) msg = "\"note\" must be a short string";
    if (!msg) {
        r.event_id = ev ? (int)ev->num : 0;
        r.color = col ? (col->str[0] == 'B' ? GS_BLACK : GS_WHITE) : GS_EMPTY;
        r.warning = warn ? warn->b : r.kind == RECORD_RULING_WARN;
        for (int i = 0; pts && i < pts->n && !msg; i++) {
            const gs_json *p = pts->kids[i];
            if (p->type != GS_JSON_STR || strlen(p->str) != 2 || p->str[0] < 'a' || p->str[0] >= 'a' + GS_MAX_SIZE ||
                p->str[1] < 'a' || p->str[1] >= 'a' + GS_MAX_SIZE)
                msg = "\"points\" must hold SGF points like \"dd\"";
            else
                r.points[r.npoints++] = (gs_point){(int8_t)(p->str[0] - 'a'), (int8_t)(p->str[1] - 'a')};
        }
        if (note) snprintf(r.note, sizeof r.note, "%s", note->str);
    }
    gs_json_free(j);
    if (msg) {
        broadcast_resp_error(resp, 400, msg);
        return;
    }
    int status = 200;
    gs_buf b = {0}, sse = {0};
    pthread_mutex_lock(&sb->mu);
    kept_event *e = r.event_id ? &sb->events[r.event_id % BROADCAST_EVENTS_KEPT] : NULL;
    if (e && e->id != r.event_id) {
        msg = "no such event";
        status = 404;
    } else {
        if (r.color == GS_EMPTY && e) r.color = e->color;
        if (r.color == GS_EMPTY && (r.warning || r.kind == RECORD_RULING_RESIGN)) {
            msg = "\"color\" is needed for a warning or a resignation";
            status = 400;
        } else if (sb->q_count >= 64) {
            msg = "the recorder has not taken the earlier rulings yet";
            status = 503;
        }
    }
    if (!msg) {
        r.id = ++sb->next_ruling_id;
        r.unix_ms = gs_wall_ms();
        if (r.warning) sb->warnings[r.color]++;
        r.warnings_black = sb->warnings[GS_BLACK];
        r.warnings_white = sb->warnings[GS_WHITE];
        if (r.kind == RECORD_RULING_RESIGN || (r.warning && sb->warnings[r.color] >= 2)) r.loser = r.color;
        sb->queue[(sb->q_head + sb->q_count) % 64] = r;
        sb->q_count++;
        if (e) e->ruled = true;
        gs_buf_printf(&sse, "{\"type\":\"ruling\",\"id\":%d,\"event_id\":%d,\"ruling\":\"%s\",\"color\":\"%s\","
                               "\"warning\":%s,\"warnings\":{\"B\":%d,\"W\":%d},\"loser\":\"%s\",\"unix_ms\":%lld,\"text\":",
                         r.id, r.event_id, record_ruling_name(r.kind), broadcast_color_name(r.color),
                         r.warning ? "true" : "false", r.warnings_black, r.warnings_white,
                         broadcast_color_name(r.loser), (long long)r.unix_ms);
        char words[400];
        broadcast_ruling_describe(&r, words, sizeof words);
        gs_json_str(&sse, words);
        gs_buf_puts(&sse, "}");
        if (!sse.failed) {
            history_push_locked(sb, sse.p);
            ring_push_locked(sb, sse.p, sse.len);
        } else {
            gs_buf_free(&sse);
        }
        gs_buf_printf(&b, "{\"ok\":true,\"ruling\":%d,\"warnings\":{\"B\":%d,\"W\":%d},\"loser\":\"%s\"}\n",
                         r.id, r.warnings_black, r.warnings_white, broadcast_color_name(r.loser));
    }
    char *for_mqtt = !msg && sse.p && !sse.failed ? strdup(sse.p) : NULL;
    pthread_mutex_unlock(&sb->mu);
    if (for_mqtt) mqtt_send(sb, sb->topic_events, for_mqtt, strlen(for_mqtt));
    free(for_mqtt);
    if (msg) {
        gs_buf_free(&b);
        broadcast_resp_error(resp, status, msg);
        return;
    }
    broadcast_resp_json(resp, &b, false);
}

static void board_handler(void *ctx, const broadcast_req *req, broadcast_resp *resp)
{
    broadcast_board *sb = ctx;
    const char *p = req->path;
    bool get = !strcmp(req->method, "GET") || !strcmp(req->method, "HEAD");
    bool post = !strcmp(req->method, "POST");
    pthread_mutex_lock(&sb->mu);
    sb->stats.requests++;
    pthread_mutex_unlock(&sb->mu);

    if (get && serve_static_page(p, "/", broadcast_page_board, resp)) {
        /* page, script or style */
    } else if (get && !strcmp(p, "/state.json")) {
        pthread_mutex_lock(&sb->mu);
        if (sb->state_json) {
            resp->body = strdup(sb->state_json);
        } else {
            broadcast_state s;
            broadcast_state_init(&s, 19);
            snprintf(s.status, sizeof s.status, "waiting");
            gs_buf b = {0};
            broadcast_state_json(&b, &s, sb->name, sb->id, sb->url, 0, 0);
            resp->body = b.p;
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
    } else if (get && !strcmp(p, "/game.sgf")) {
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
    } else if (get && !strcmp(p, "/events")) {
        viewer *v = calloc(1, sizeof *v);
        if (!v) {
            broadcast_resp_error(resp, 503, "out of memory");
            return;
        }
        v->sb = sb;
        pthread_mutex_lock(&sb->mu);
        v->next_seq = sb->next_seq;
        /* EventSource resumes where it left off when the ring still has it */
        const char *last = broadcast_req_header(req, "Last-Event-ID");
        if (last) {
            char *end;
            long id = strtol(last, &end, 10);
            if (!*end && id >= 0 && id < sb->next_seq && id >= sb->next_seq - BROADCAST_RING) {
                v->next_seq = id + 1;
                v->started = true;
            }
        }
        sb->stats.viewers++;
        pthread_mutex_unlock(&sb->mu);
        resp->status = 200;
        resp->content_type = "text/event-stream";
        resp->stream = viewer_read;
        resp->stream_done = viewer_done;
        resp->stream_cls = v;
    } else if (get && !strcmp(p, "/frame.jpg")) {
        handle_frame(sb, resp);
    } else if (get && !strcmp(p, "/referee")) {
        /* the console page holds no data; its API calls need the token */
        resp->status = 200;
        resp->content_type = "text/html; charset=utf-8";
        resp->static_body = broadcast_page_referee;
    } else if (!strncmp(p, "/api/", 5)) {
        if (!request_token_ok(sb, req)) {
            broadcast_resp_error(resp, 403, "referee token missing or wrong");
        } else if (get && !strcmp(p, "/api/events")) {
            handle_event_list(sb, resp);
        } else if (get && !strncmp(p, "/api/evidence/", 14)) {
            handle_evidence(sb, p + 14, resp);
        } else if (post && !strcmp(p, "/api/ruling")) {
            handle_ruling(sb, req, resp);
        } else if (!strcmp(p, "/api/ruling") || !strcmp(p, "/api/events")) {
            broadcast_resp_error(resp, 405, "method not allowed");
        } else {
            broadcast_resp_error(resp, 404, "no such page");
        }
    } else if (!get && !post) {
        broadcast_resp_error(resp, 405, "method not allowed");
    } else {
        broadcast_resp_error(resp, 404, "no such page");
    }
    if (resp->status >= 400) {
        pthread_mutex_lock(&sb->mu);
        sb->stats.rejected++;
        pthread_mutex_unlock(&sb->mu);
    }
}

/* ------------------------------------------------------------ announcer */

static void *announcer_main(void *arg)
{
    broadcast_board *sb = arg;
    gs_buf body = {0};
    gs_buf_puts(&body, "{\"url\":");
    gs_json_str(&body, sb->url);
    gs_buf_puts(&body, ",\"name\":");
    gs_json_str(&body, sb->name);
    gs_buf_puts(&body, ",\"id\":");
    gs_json_str(&body, sb->id);
    gs_buf_puts(&body, "}");
    char url[256];
    snprintf(url, sizeof url, "%s/api/announce", sb->announce_url);
    pthread_mutex_lock(&sb->mu);
    while (!sb->stopping && !body.failed) {
        pthread_mutex_unlock(&sb->mu);
        int status;
        char *out = NULL, err[200];
        if (!broadcast_http_request(url, "POST", body.p, NULL, 2000, &status, &out, NULL, err, sizeof err)) free(out);
        pthread_mutex_lock(&sb->mu);
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += 3;
        while (!sb->stopping && pthread_cond_timedwait(&sb->cv, &sb->mu, &ts) == 0) {}
    }
    pthread_mutex_unlock(&sb->mu);
    gs_buf_free(&body);
    return NULL;
}

/* ------------------------------------------------------------ lifecycle */

broadcast_board *broadcast_board_start(const broadcast_config *cfg, gs_error *err)
{
    broadcast_config dflt;
    if (!cfg) {
        broadcast_config_init(&dflt);
        cfg = &dflt;
    }
    broadcast_board *sb = calloc(1, sizeof *sb);
    if (!sb) {
        gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&sb->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_cond_init(&sb->cv, &ca);
    pthread_condattr_destroy(&ca);
    snprintf(sb->name, sizeof sb->name, "%s", cfg->board_name && *cfg->board_name ? cfg->board_name : "board");
    const char *idsrc = cfg->board_id && *cfg->board_id ? cfg->board_id : sb->name;
    size_t n = 0;
    for (const char *c = idsrc; *c && n + 1 < sizeof sb->id; c++) {
        char ch = *c;
        if (ch >= 'A' && ch <= 'Z') ch = (char)(ch - 'A' + 'a');
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '-';
        sb->id[n++] = ok ? ch : '-';
    }
    sb->id[n] = '\0';
    if (cfg->token && *cfg->token) {
        if (strlen(cfg->token) >= sizeof sb->token || strlen(cfg->token) < 8) {
            gs_error_set(err, GS_ERR_USAGE, "the referee token must have 8 to 64 characters");
            broadcast_board_stop(sb);
            return NULL;
        }
        snprintf(sb->token, sizeof sb->token, "%s", cfg->token);
    } else {
        uint8_t rnd[16];
        if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
            gs_error_set(err, GS_ERR_IO, "no random bytes for the referee token");
            broadcast_board_stop(sb);
            return NULL;
        }
        for (int i = 0; i < 16; i++) snprintf(sb->token + 2 * i, 3, "%02x", rnd[i]);
    }
    sb->httpd = broadcast_httpd_start(cfg->bind_addr, cfg->port, cfg->max_viewers > 0 ? cfg->max_viewers : 512,
                                  board_handler, sb, err);
    if (!sb->httpd) {
        broadcast_board_stop(sb);
        return NULL;
    }
    if (cfg->public_url && *cfg->public_url) {
        snprintf(sb->url, sizeof sb->url, "%s", cfg->public_url);
    } else {
        const char *addr = cfg->bind_addr && *cfg->bind_addr ? cfg->bind_addr : "127.0.0.1";
        char host[128];
        if (!strcmp(addr, "0.0.0.0") && !gethostname(host, sizeof host)) {
            host[sizeof host - 1] = '\0';
            addr = host;
        }
        snprintf(sb->url, sizeof sb->url, "http://%s:%d", addr, broadcast_httpd_port(sb->httpd));
    }
    snprintf(sb->topic_state, sizeof sb->topic_state, "goscribe/%s/state", sb->id);
    snprintf(sb->topic_events, sizeof sb->topic_events, "goscribe/%s/events", sb->id);
    if (cfg->mqtt && *cfg->mqtt) {
        char cid[96];
        snprintf(cid, sizeof cid, "goscribe-%s-%d", sb->id, (int)getpid());
        sb->mqtt = broadcast_mqtt_open(cfg->mqtt, cid, NULL, NULL, NULL, err);
        if (!sb->mqtt) {
            broadcast_board_stop(sb);
            return NULL;
        }
        /* the hall lists the board before its first move */
        gs_buf b = {0};
        broadcast_state s;
        broadcast_state_init(&s, 19);
        snprintf(s.status, sizeof s.status, "waiting");
        broadcast_state_json(&b, &s, sb->name, sb->id, sb->url, 0, 0);
        if (!b.failed) mqtt_send(sb, sb->topic_state, b.p, b.len);
        gs_buf_free(&b);
    }
    if (cfg->announce && *cfg->announce) {
        snprintf(sb->announce_url, sizeof sb->announce_url, "%s", cfg->announce);
        size_t l = strlen(sb->announce_url);
        while (l && sb->announce_url[l - 1] == '/') sb->announce_url[--l] = '\0';
        if (strncmp(sb->announce_url, "http://", 7)) {
            gs_error_set(err, GS_ERR_USAGE, "%s: the hall address must start with http://", cfg->announce);
            broadcast_board_stop(sb);
            return NULL;
        }
        if (!pthread_create(&sb->announcer, NULL, announcer_main, sb)) sb->has_announcer = true;
    }
    return sb;
}

void broadcast_board_stop(broadcast_board *sb)
{
    if (!sb) return;
    pthread_mutex_lock(&sb->mu);
    sb->stopping = true;
    pthread_cond_broadcast(&sb->cv);
    pthread_mutex_unlock(&sb->mu);
    if (sb->has_announcer) pthread_join(sb->announcer, NULL);
    broadcast_httpd_stop(sb->httpd);
    broadcast_mqtt_close(sb->mqtt);
    for (int i = 0; i < BROADCAST_RING; i++) free(sb->ring[i].json);
    for (int i = 0; i < BROADCAST_HISTORY; i++) free(sb->history[i]);
    for (int i = 0; i < BROADCAST_EVENTS_KEPT; i++) {
        free(sb->events[i].json);
        free(sb->events[i].detail);
        gs_image_destroy(sb->events[i].img[0]);
        gs_image_destroy(sb->events[i].img[1]);
    }
    free(sb->state_json);
    gs_image_destroy(sb->raw);
    free(sb->jpg);
    free(sb->sgf);
    pthread_cond_destroy(&sb->cv);
    pthread_mutex_destroy(&sb->mu);
    free(sb);
}
