/* broadcast/publish.c: the recorder's side of one board.  Every call builds
 * its messages outside the lock, then copies them in under `mu` (a pointer
 * swap or a memcpy), wakes the viewers and returns; the MQTT copy is only
 * queued (libmosquitto sends from its own thread). */
#include "broadcast/broadcast_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void broadcast_board_ring_push_locked(broadcast_board *sb, char *json, size_t len)
{
    broadcast_ring_msg *m = &sb->ring[sb->next_seq % BROADCAST_RING];
    free(m->json);
    m->seq = sb->next_seq++;
    m->json = json;
    m->len = len;
    sb->stats.messages++;
    pthread_cond_broadcast(&sb->cv);
}

void broadcast_board_history_push_locked(broadcast_board *sb, const char *json)
{
    char *c = strdup(json);
    if (!c) return;  /* only late viewers miss it */
    char **slot = &sb->history[sb->hist_next++ % BROADCAST_HISTORY];
    free(*slot);
    *slot = c;
}

void broadcast_board_history_replay_locked(const broadcast_board *sb, gs_buf *out)
{
    long first = sb->hist_next - BROADCAST_HISTORY;
    for (long i = first < 0 ? 0 : first; i < sb->hist_next; i++)
        gs_buf_printf(out, "data: %s\n\n", sb->history[i % BROADCAST_HISTORY]);
}

void broadcast_board_mqtt_send(broadcast_board *sb, const char *topic, const char *json, size_t len)
{
    if (sb->mqtt) broadcast_mqtt_publish(sb->mqtt, topic, json, len, true);
}

/* ----------------------------------------------------------------- state */

static bool state_equal(const broadcast_state *a, const broadcast_state *b)
{
    return a->pos.size == b->pos.size &&
           !memcmp(a->pos.cell, b->pos.cell, (size_t)(a->pos.size * a->pos.size)) &&
           a->move_number == b->move_number && a->to_move == b->to_move &&
           a->captures_black == b->captures_black && a->captures_white == b->captures_white &&
           a->last_color == b->last_color && a->last_point.x == b->last_point.x &&
           a->last_point.y == b->last_point.y && a->last_pass == b->last_pass &&
           a->last_move_unix_ms == b->last_move_unix_ms && !strcmp(a->black, b->black) &&
           !strcmp(a->white, b->white) && !strcmp(a->black_rank, b->black_rank) &&
           !strcmp(a->white_rank, b->white_rank) && !strcmp(a->event, b->event) && !strcmp(a->round, b->round) &&
           !strcmp(a->table, b->table) && a->warnings_black == b->warnings_black &&
           a->warnings_white == b->warnings_white && !strcmp(a->result, b->result) &&
           !strcmp(a->status, b->status) && a->komi == b->komi;
}

void broadcast_board_publish_state(broadcast_board *sb, const broadcast_state *in)
{
    if (!sb || !in || in->pos.size < 5 || in->pos.size > GS_MAX_SIZE) return;
    broadcast_state s = *in;
    s.black[sizeof s.black - 1] = s.white[sizeof s.white - 1] = '\0';
    s.black_rank[sizeof s.black_rank - 1] = s.white_rank[sizeof s.white_rank - 1] = '\0';
    s.event[sizeof s.event - 1] = s.round[sizeof s.round - 1] = s.table[sizeof s.table - 1] = '\0';
    s.result[sizeof s.result - 1] = s.status[sizeof s.status - 1] = '\0';
    pthread_mutex_lock(&sb->mu);
    bool same = sb->has_state && state_equal(&sb->state, &s);
    broadcast_state prev = sb->state;
    bool had = sb->has_state;
    pthread_mutex_unlock(&sb->mu);
    if (same) return;

    gs_buf st = {0}, mv = {0};
    broadcast_state_json(&st, &s, sb->name, sb->id, sb->url);
    bool new_move = (s.last_color == GS_BLACK || s.last_color == GS_WHITE) &&
                    (!had || s.move_number != prev.move_number || s.last_move_unix_ms != prev.last_move_unix_ms);
    if (new_move) broadcast_move_json(&mv, &s);
    if (st.failed || mv.failed) {
        gs_buf_free(&st);
        gs_buf_free(&mv);
        return;
    }
    char *for_mqtt = st.p ? strdup(st.p) : NULL;
    pthread_mutex_lock(&sb->mu);
    sb->state = s;
    sb->has_state = true;
    char *json = strdup(st.p);
    if (json) {  /* out of memory: /state.json keeps the previous state */
        free(sb->state_json);
        sb->state_json = json;
    }
    if (mv.p) broadcast_board_ring_push_locked(sb, mv.p, mv.len);
    broadcast_board_ring_push_locked(sb, st.p, st.len);
    pthread_mutex_unlock(&sb->mu);
    if (for_mqtt) broadcast_board_mqtt_send(sb, sb->topic_state, for_mqtt, strlen(for_mqtt));
    free(for_mqtt);
}

/* ---------------------------------------------------------------- events */

/* Puts the event with its console copy and evidence into its slot (mu
 * held); takes detail and the images, hands back what the slot held. */
static void keep_event_locked(broadcast_board *sb, int id, gs_color color, char *detail, gs_image *img[2],
                              broadcast_kept_event *old)
{
    broadcast_kept_event *k = &sb->events[id % BROADCAST_EVENTS_KEPT];
    *old = *k;
    k->id = id;
    k->color = color;
    k->ruled = false;
    k->detail = detail;
    k->img[0] = img[0];
    k->img[1] = img[1];
}

int broadcast_board_publish_event(broadcast_board *sb, const broadcast_event *ev)
{
    if (!sb || !ev) return 0;
    gs_image *img[2] = {ev->frame_before ? gs_image_copy(ev->frame_before) : NULL,
                        ev->frame_after ? gs_image_copy(ev->frame_after) : NULL};
    pthread_mutex_lock(&sb->mu);
    int id = ++sb->next_event_id;
    pthread_mutex_unlock(&sb->mu);

    gs_buf pub = {0}, det = {0};
    broadcast_event_json(&pub, &det, id, ev, img[0] != NULL, img[1] != NULL);
    if (pub.failed || det.failed) {
        gs_buf_free(&pub);
        gs_buf_free(&det);
        gs_image_destroy(img[0]);
        gs_image_destroy(img[1]);
        return 0;
    }
    char *for_mqtt = strdup(pub.p);
    broadcast_kept_event old;
    pthread_mutex_lock(&sb->mu);
    keep_event_locked(sb, id, ev->color, det.p, img, &old);
    broadcast_board_history_push_locked(sb, pub.p);
    broadcast_board_ring_push_locked(sb, pub.p, pub.len);
    pthread_mutex_unlock(&sb->mu);
    free(old.detail);
    gs_image_destroy(old.img[0]);
    gs_image_destroy(old.img[1]);
    if (for_mqtt) broadcast_board_mqtt_send(sb, sb->topic_events, for_mqtt, strlen(for_mqtt));
    free(for_mqtt);
    return id;
}

/* ------------------------------------------------------- record, rulings */

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
        sb->q_head = (sb->q_head + 1) % BROADCAST_QUEUE;
        sb->q_count--;
        got = true;
    }
    pthread_mutex_unlock(&sb->mu);
    return got;
}

void broadcast_board_close_rulings(broadcast_board *sb, const char *why)
{
    if (!sb) return;
    pthread_mutex_lock(&sb->mu);
    snprintf(sb->rulings_closed, sizeof sb->rulings_closed, "%s", why && *why ? why : "rulings are closed");
    pthread_mutex_unlock(&sb->mu);
}
