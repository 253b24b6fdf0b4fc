/* broadcast/frame.c: the camera frame of one board (/frame.jpg, the grid
 * drawn on it) and the evidence pictures of flagged events.
 *
 * The recorder only copies a frame now and then; JPEG encoding happens in
 * the thread of the viewer who asks, once per new frame, so a board nobody
 * watches costs a copy a second. */
#include "broadcast/broadcast_internal.h"
#include "cvshim/cvshim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- drawing */

/* A dot on the pixel nearest (x, y), halves rounded up: trunc(x + 0.5) is
 * what (int)(x + 0.5) gave, without its undefined overflow on a wild grid
 * (gs_draw_square skips points far off the image). */
/* The grid on the live frame: green, 24 samples a cell, one pixel wide
 * (three on frames over 1000 px).  A grey frame gets black lines, as it
 * always has (green would come out mid-grey there). */
static void draw_overlay(gs_image *img, const vision_grid *g)
{
    gs_bgr c = img->channels >= 3 ? (gs_bgr){0, 230, 0} : (gs_bgr){0, 0, 0};
    vision_grid_draw(img, g, 24, img->width > 1000 ? 1 : 0, c);
}

/* --------------------------------------------------------- the recorder */

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
    if (!copy) return;  /* out of memory: viewers keep the previous frame */
    pthread_mutex_lock(&sb->mu);
    gs_image *old = sb->raw;
    sb->raw = copy;
    sb->raw_seq++;
    sb->grid_for_raw = grid != NULL;
    if (grid) sb->grid = *grid;
    pthread_mutex_unlock(&sb->mu);
    gs_image_destroy(old);
}

/* ------------------------------------------------------------ the viewer */

/* Encodes the newest frame when it is not the one encoded last and no
 * other viewer's thread is at it; the work happens outside the lock. */
static void frame_encode_newest(broadcast_board *sb)
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
    if (!img) return;
    if (with_grid) draw_overlay(img, &grid);
    uint8_t *jpg = NULL;
    size_t len = 0;
    int rc = cvshim_image_encode_jpeg(img, 80, &jpg, &len);
    gs_image_destroy(img);
    pthread_mutex_lock(&sb->mu);
    sb->encoding = false;
    if (!rc) {  /* on failure the previous JPEG stays the answer */
        free(sb->jpg);
        sb->jpg = jpg;
        sb->jpg_len = len;
        sb->jpg_seq = seq;
        jpg = NULL;
    }
    pthread_mutex_unlock(&sb->mu);
    free(jpg);
}

void broadcast_board_answer_frame(broadcast_board *sb, broadcast_resp *resp)
{
    frame_encode_newest(sb);
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

/* The event id (1 to 999999999, no sign, no leading zero) and the picture
 * (0 before, 1 after) of "ID/before.jpg" or "ID/after.jpg"; false for
 * anything else.  Read digit by digit: no overflow, no negative index. */
static bool evidence_path(const char *rest, int *id, int *k)
{
    size_t digits = strspn(rest, "0123456789");
    if (digits == 0 || digits > 9 || rest[0] == '0') return false;
    int v = 0;
    for (size_t i = 0; i < digits; i++) v = v * 10 + (rest[i] - '0');
    const char *tail = rest + digits;
    if (!strcmp(tail, "/before.jpg")) *k = 0;
    else if (!strcmp(tail, "/after.jpg")) *k = 1;
    else return false;
    *id = v;
    return true;
}

void broadcast_board_answer_evidence(broadcast_board *sb, const char *rest, broadcast_resp *resp)
{
    int id = 0, k = 0;
    if (!evidence_path(rest, &id, &k)) {
        broadcast_resp_error(resp, 404, "no such evidence");
        return;
    }
    gs_image *copy = NULL;
    pthread_mutex_lock(&sb->mu);
    broadcast_kept_event *e = &sb->events[id % BROADCAST_EVENTS_KEPT];
    if (e->id == id && e->img[k]) copy = gs_image_copy(e->img[k]);
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
