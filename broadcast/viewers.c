/* broadcast/viewers.c: the SSE viewers of one board (GET /events).
 *
 * Each viewer is one HTTP connection with its own thread (the HTTP
 * layer's), blocked in viewer_read until the ring has something new.  A
 * viewer copies messages out of the ring under the lock, a few KiB at a
 * time, and writes them to its socket without it; a viewer that falls more
 * than BROADCAST_RING messages behind gets {"type":"resync"} and starts
 * over from the current state. */
#include "broadcast/broadcast_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct viewer {
    broadcast_board *sb;
    long next_seq;
    bool started;
    gs_buf out;
    size_t off;
} viewer;

/* What a viewer gets first, and again after a resync: the current state
 * and the kept events and rulings (mu held). */
static void viewer_start_over_locked(const broadcast_board *sb, gs_buf *out)
{
    if (sb->state_json) gs_buf_printf(out, "data: %s\n\n", sb->state_json);
    broadcast_board_history_replay_locked(sb, out);
}

/* Fills v->out with what the viewer should get next (mu held). */
static bool viewer_fill_locked(viewer *v)
{
    broadcast_board *sb = v->sb;
    if (!v->started) {
        v->started = true;
        gs_buf_puts(&v->out, "retry: 2000\n\n");
        viewer_start_over_locked(sb, &v->out);
        return true;
    }
    long oldest = sb->next_seq - BROADCAST_RING;
    if (oldest < 0) oldest = 0;
    if (v->next_seq < oldest) {
        /* too slow: skip what the ring no longer holds and start over */
        sb->stats.resyncs++;
        v->next_seq = sb->next_seq;
        gs_buf_puts(&v->out, "data: {\"type\":\"resync\"}\n\n");
        viewer_start_over_locked(sb, &v->out);
        return true;
    }
    bool any = false;
    while (v->next_seq < sb->next_seq && v->out.len < 4096) { /* short lock hold */
        broadcast_ring_msg *m = &sb->ring[v->next_seq % BROADCAST_RING];
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
            struct timespec until = broadcast_deadline_in(10000);
            if (!broadcast_cond_wait(&sb->cv, &sb->mu, &until)) {
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

void broadcast_board_answer_events(broadcast_board *sb, const broadcast_req *req, broadcast_resp *resp)
{
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
}
