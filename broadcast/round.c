/* broadcast/round.c: a club evening's round (broadcast.h, "the round"):
 * the boards' SGF files looked at every watch_ms, each change kept as a
 * version with the time it was seen, and the public view moved on to the
 * newest version at least delay_ms old.  Only the tick moves the public
 * view, and every page, stream, feed and MQTT message is built from it, so
 * no client can see a move before its time; versions older than the one
 * shown are dropped, and the newer ones are kept where no answer reads
 * them. */
#include "broadcast/broadcast_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Largest game file read (a game's SGF is tens of KiB). */
#define ROUND_MAX_SGF (8u * 1024u * 1024u)

int64_t broadcast_round_now(const broadcast_round *r)
{
    return r->clock ? r->clock(r->clock_user) : gs_wall_ms();
}

round_board *broadcast_round_board_at(broadcast_round *r, int table)
{
    for (int i = 0; r && i < r->nboards; i++)
        if (r->boards[i].table == table) return &r->boards[i];
    return NULL;
}

const round_version *broadcast_round_shown_locked(const round_board *b)
{
    return b->pub >= 0 ? &b->v[b->pub] : &b->waiting;
}

void broadcast_round_set_recorder(broadcast_round *r, int table, const char *url, const char *token, bool running,
                                  const char *status)
{
    round_board *b = broadcast_round_board_at(r, table);
    if (!b) return;
    pthread_mutex_lock(&r->mu);
    snprintf(b->rec_url, sizeof b->rec_url, "%s", url ? url : "");
    snprintf(b->rec_token, sizeof b->rec_token, "%s", token ? token : "");
    snprintf(b->rec_status, sizeof b->rec_status, "%s", status ? status : "");
    b->rec_running = running;
    pthread_mutex_unlock(&r->mu);
}

/* ------------------------------------------------------------ the files */

/* Whether the file changed since the last look (its identity kept); a
 * file that is not there has not changed. */
static bool file_changed(round_board *b)
{
    struct stat st;
    if (stat(b->path, &st) != 0) {
        if (errno != ENOENT) snprintf(b->file_error, sizeof b->file_error, "cannot look at it: %s", strerror(errno));
        return false;
    }
    int64_t mt = (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
    /* the recorder replaces the file (a rename): a new inode each save */
    bool same = b->have_stat && b->ino == (unsigned long long)st.st_ino && b->size == (unsigned long long)st.st_size &&
                b->mtime_ns == mt;
    b->have_stat = true;
    b->ino = (unsigned long long)st.st_ino;
    b->size = (unsigned long long)st.st_size;
    b->mtime_ns = mt;
    return !same;
}

/* A new version appended (mu held); false when out of memory. */
static bool add_version_locked(round_board *b, const round_version *v)
{
    if (b->nv == b->capv) {
        int nc = b->capv ? b->capv * 2 : 8;
        round_version *nv = realloc(b->v, (size_t)nc * sizeof *nv);
        if (!nv) return false;
        b->v = nv;
        b->capv = nc;
    }
    b->v[b->nv++] = *v;
    return true;
}

/* Looks at board b's file (tick_mu held, mu not): a version when the file
 * or its recorder's state changed. */
static void look_at(broadcast_round *r, round_board *b, int64_t now)
{
    pthread_mutex_lock(&r->mu);
    bool stopped = b->rec_status[0] && !b->rec_running;
    pthread_mutex_unlock(&r->mu);
    bool changed = file_changed(b);
    if (changed) {
        char *text = NULL;
        size_t len = 0;
        gs_error e;
        if (gs_file_read(b->path, ROUND_MAX_SGF, &text, &len, &e) != GS_OK) {
            snprintf(b->file_error, sizeof b->file_error, "%.150s", e.msg);
            b->have_stat = false; /* look again next time */
            return;
        }
        free(b->raw);
        b->raw = text;
        b->raw_len = len;
    }
    if (!b->raw || (!changed && stopped == b->built_stopped)) return;
    round_version v;
    char why[160];
    if (!round_version_build(r, b, b->raw, b->raw_len, stopped, &v, why, sizeof why)) {
        snprintf(b->file_error, sizeof b->file_error, "%s", why);
        return;
    }
    v.seen_ms = now;
    pthread_mutex_lock(&r->mu);
    b->file_error[0] = '\0';
    b->built_stopped = stopped;
    if (!add_version_locked(b, &v)) round_version_free(&v);
    pthread_mutex_unlock(&r->mu);
}

/* ------------------------------------------------------- the public view */

/* Moves board b's public view to its newest version at least the delay
 * old, dropping older ones (mu held); true when it moved. */
static bool advance_locked(broadcast_round *r, round_board *b, int64_t now)
{
    int target = b->pub;
    for (int i = b->nv - 1; i > b->pub; i--)
        if (b->v[i].seen_ms <= now - r->delay_ms) {
            target = i;
            break;
        }
    if (target == b->pub) return false;
    for (int i = 0; i < target; i++) round_version_free(&b->v[i]);
    memmove(b->v, b->v + target, (size_t)(b->nv - target) * sizeof *b->v);
    b->nv -= target;
    b->pub = 0;
    b->pub_seq++;
    b->pub_id = ++r->last_id;
    b->pub_ms = now;
    return true;
}

/* round.sgf and round.json from what is shown (mu held). */
static void rebuild_locked(broadcast_round *r, int64_t now)
{
    gs_buf f = {0}, j = {0};
    gs_buf_puts(&j, "{\"type\":\"round\",");
    broadcast_json_fields(&j, (const broadcast_json_field[]){{"event", r->event}, {"round", r->round},
                                                             {"place", r->place}, {"date", r->date}}, 4);
    gs_buf_printf(&j, ",\"delay_s\":%d,\"boards\":[", r->delay_ms / 1000);
    for (int i = 0; i < r->nboards; i++) {
        const round_version *v = broadcast_round_shown_locked(&r->boards[i]);
        if (v->sgf) gs_buf_add(&f, v->sgf, v->sgf_len);
        if (i) gs_buf_puts(&j, ",");
        if (v->summary) gs_buf_add(&j, v->summary, v->summary_len);
        else gs_buf_puts(&j, "null");
    }
    gs_buf_puts(&j, "]}");
    if (f.failed || j.failed) { /* out of memory: the last feed stays */
        gs_buf_free(&f);
        gs_buf_free(&j);
        return;
    }
    free(r->feed);
    free(r->json);
    r->feed = f.p ? f.p : strdup("");
    r->feed_len = f.len;
    r->json = j.p;
    r->json_len = j.len;
    broadcast_etag(r->feed ? r->feed : "", r->feed_len, r->feed_etag);
    broadcast_etag(r->json, r->json_len, r->json_etag);
    r->modified_ms = now;
}

/* A board's MQTT messages: its JSON and its SGF, copied under mu. */
typedef struct round_msg {
    char topic[160];
    char *payload;
    size_t len;
} round_msg;

static void queue_mqtt_locked(const broadcast_round *r, const round_board *b, round_msg *out, int *n)
{
    const round_version *v = broadcast_round_shown_locked(b);
    const char *what[2] = {v->summary, v->sgf};
    size_t len[2] = {v->summary_len, v->sgf_len};
    for (int k = 0; k < 2; k++) {
        round_msg *m = &out[*n];
        snprintf(m->topic, sizeof m->topic, "%s/board/%d%s", r->topic, b->table, k ? "/sgf" : "");
        if (!what[k] || !(m->payload = malloc(len[k] + 1))) continue; /* out of memory: the next change says it */
        memcpy(m->payload, what[k], len[k] + 1);
        m->len = len[k];
        (*n)++;
    }
}

void broadcast_round_tick(broadcast_round *r)
{
    if (!r) return;
    pthread_mutex_lock(&r->tick_mu);
    int64_t now = broadcast_round_now(r);
    for (int i = 0; i < r->nboards; i++) look_at(r, &r->boards[i], now);
    round_msg *msgs = r->mqtt ? calloc((size_t)r->nboards * 2, sizeof *msgs) : NULL;
    int nmsgs = 0;
    pthread_mutex_lock(&r->mu);
    bool changed = false;
    for (int i = 0; i < r->nboards; i++)
        if (advance_locked(r, &r->boards[i], now)) {
            changed = true;
            if (msgs) queue_mqtt_locked(r, &r->boards[i], msgs, &nmsgs);
        }
    if (changed) {
        rebuild_locked(r, now);
        r->seq++;
        pthread_cond_broadcast(&r->cv);
    }
    pthread_mutex_unlock(&r->mu);
    for (int i = 0; i < nmsgs; i++) {
        broadcast_mqtt_publish(r->mqtt, msgs[i].topic, msgs[i].payload, msgs[i].len, true);
        free(msgs[i].payload);
    }
    free(msgs);
    pthread_mutex_unlock(&r->tick_mu);
}

/* ------------------------------------------------------------ lifecycle */

static void *watcher_main(void *arg)
{
    broadcast_round *r = arg;
    pthread_mutex_lock(&r->mu);
    while (!r->stopping) {
        pthread_mutex_unlock(&r->mu);
        broadcast_round_tick(r);
        pthread_mutex_lock(&r->mu);
        struct timespec until = broadcast_deadline_in(r->watch_ms);
        long seq = r->seq;
        /* woken by a tick of someone else (seq) or the stop: look again */
        while (!r->stopping && seq == r->seq && broadcast_cond_wait(&r->cv, &r->mu, &until)) {}
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

/* The MQTT segment of the round: [A-Za-z0-9_-], "0" when empty. */
static void round_topic(broadcast_round *r)
{
    char seg[32];
    size_t n = 0;
    for (const char *c = r->round; *c && n + 1 < sizeof seg; c++)
        seg[n++] = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '-'
                       ? *c : '_';
    seg[n] = '\0';
    snprintf(r->topic, sizeof r->topic, "goscribe/round/%s", n ? seg : "0");
}

/* The boards copied from the config, each with its waiting version. */
static gs_status round_boards(broadcast_round *r, const broadcast_round_config *cfg, gs_error *err)
{
    r->boards = calloc((size_t)cfg->nboards, sizeof *r->boards);
    if (!r->boards) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    r->nboards = cfg->nboards;
    for (int i = 0; i < cfg->nboards; i++) {
        const broadcast_round_board *c = &cfg->boards[i];
        round_board *b = &r->boards[i];
        if (c->table < 1 || broadcast_round_board_at(r, c->table) || !c->sgf_path ||
            strlen(c->sgf_path) >= sizeof b->path)
            return gs_error_set(err, GS_ERR_USAGE, "round: board %d: a table number given once and a file are needed",
                                c->table);
        b->table = c->table;
#define COPY(f) snprintf(b->f, sizeof b->f, "%s", c->f ? c->f : "")
        COPY(black);
        COPY(white);
        COPY(black_rank);
        COPY(white_rank);
#undef COPY
        b->handicap = c->handicap;
        b->komi = c->komi;
        b->has_komi = c->has_komi;
        snprintf(b->path, sizeof b->path, "%s", c->sgf_path);
        b->pub = -1;
        char why[160];
        if (!round_version_build(r, b, NULL, 0, false, &b->waiting, why, sizeof why))
            return gs_error_set(err, GS_ERR_NOMEM, "round: board %d: %s", b->table, why);
    }
    return GS_OK;
}

broadcast_round *broadcast_round_start(const broadcast_round_config *cfg, gs_error *err)
{
    if (!cfg || cfg->nboards < 1 || cfg->delay_ms < 0 || cfg->watch_ms < 0) {
        gs_error_set(err, GS_ERR_USAGE, "round: no boards, or a negative delay");
        return NULL;
    }
    broadcast_round *r = calloc(1, sizeof *r);
    bool synced = r && broadcast_sync_init(&r->mu, &r->cv);
    if (!synced || pthread_mutex_init(&r->tick_mu, NULL)) {
        if (synced) broadcast_sync_destroy(&r->mu, &r->cv);
        free(r);
        gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    snprintf(r->event, sizeof r->event, "%s", cfg->event ? cfg->event : "");
    snprintf(r->round, sizeof r->round, "%s", cfg->round ? cfg->round : "");
    snprintf(r->place, sizeof r->place, "%s", cfg->place ? cfg->place : "");
    snprintf(r->date, sizeof r->date, "%s", cfg->date ? cfg->date : "");
    r->delay_ms = cfg->delay_ms;
    r->watch_ms = cfg->watch_ms > 0 ? cfg->watch_ms : 200;
    r->clock = cfg->clock;
    r->clock_user = cfg->clock_user;
    r->first_id = r->last_id = (long long)gs_wall_ms(); /* (the real clock: ids outlive a test's) */
    round_topic(r);
    if (round_boards(r, cfg, err) != GS_OK) goto fail;
    pthread_mutex_lock(&r->mu);
    rebuild_locked(r, broadcast_round_now(r));
    pthread_mutex_unlock(&r->mu);
    if (!r->json) {
        gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        goto fail;
    }
    if (cfg->mqtt && *cfg->mqtt) {
        char cid[64];
        snprintf(cid, sizeof cid, "goscribe-round-%d", (int)getpid());
        if (!(r->mqtt = broadcast_mqtt_open(cfg->mqtt, cid, NULL, NULL, NULL, NULL, err))) goto fail;
        for (int i = 0; i < r->nboards; i++) { /* every board listed from the start */
            round_msg m[2];
            int n = 0;
            queue_mqtt_locked(r, &r->boards[i], m, &n);
            for (int k = 0; k < n; k++) {
                broadcast_mqtt_publish(r->mqtt, m[k].topic, m[k].payload, m[k].len, true);
                free(m[k].payload);
            }
        }
    }
    broadcast_round_tick(r);
    if (pthread_create(&r->watcher, NULL, watcher_main, r)) {
        gs_error_set(err, GS_ERR_INTERNAL, "round: cannot start the thread watching the files");
        goto fail;
    }
    r->has_watcher = true;
    return r;
fail:
    broadcast_round_stop(r);
    return NULL;
}

void broadcast_round_stop(broadcast_round *r)
{
    if (!r) return;
    broadcast_sync_stop(&r->mu, &r->cv, &r->stopping);
    if (r->has_watcher) pthread_join(r->watcher, NULL);  /* joinable, joined once */
    broadcast_mqtt_close(r->mqtt);
    for (int i = 0; r->boards && i < r->nboards; i++) {
        round_board *b = &r->boards[i];
        for (int k = 0; k < b->nv; k++) round_version_free(&b->v[k]);
        free(b->v);
        round_version_free(&b->waiting);
        free(b->raw);
    }
    free(r->boards);
    free(r->feed);
    free(r->json);
    pthread_mutex_destroy(&r->tick_mu);
    broadcast_sync_destroy(&r->mu, &r->cv);
    free(r);
}
