/* gtp/board.c: the board the recording loop and the engine share.  The
 * loop's hooks (its thread) build a view of the record outside the lock
 * (the SGF text parsed for the moves, set-up, komi and marks), then copy
 * it in under the lock and wake the engine; the engine copies it out.
 * Nothing of the record itself crosses threads. */
#include "gtp/gtp_internal.h"
#include "sgf/sgf.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define QUEUE_LINES 64
#define QUEUE_LINE 256
#define FRAME_EVERY_MS 200.0 /* the latest frame is copied at most 5 times a second */

struct gtp_board {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    gtp_view v;                  /* shared: under mu */
    /* commands for the record: under mu */
    char queue[QUEUE_LINES][QUEUE_LINE];
    int qhead, qn;
    /* the latest camera frame: under mu */
    gs_image *frame;
    vision_grid grid;
    bool have_grid;
    /* the last referee events and notes: under mu */
    char lines[GTP_EVENT_LINES][660]; /* a tag and an event's text */
    int nlines, line0;
    /* the loop thread's own */
    gtp_view stage;
    size_t n_events;             /* record events already looked at */
    double frame_ms;             /* when the kept frame was copied */
};

void gtp_view_free(gtp_view *v)
{
    if (!v) return;
    free(v->moves);
    v->moves = NULL;
    v->nmoves = v->cap = 0;
}

/* Copies src into dst, dst's moves array grown as needed; false when out
 * of memory (dst unchanged). */
static bool view_copy(gtp_view *dst, const gtp_view *src)
{
    gs_move *moves = dst->moves;
    int cap = dst->cap;
    if (src->nmoves > cap) {
        int nc = src->nmoves + 64;
        gs_move *nm = realloc(moves, (size_t)nc * sizeof *nm);
        if (!nm) return false;
        moves = nm;
        cap = nc;
    }
    *dst = *src;
    dst->moves = moves;
    dst->cap = cap;
    if (src->nmoves) memcpy(moves, src->moves, (size_t)src->nmoves * sizeof *moves);
    return true;
}

static void view_init(gtp_view *v)
{
    memset(v, 0, sizeof *v);
    v->size = 19;
    v->komi = 7.5;
    v->resign_signal[0] = v->resign_signal[1] = v->resign_signal[2] = -1;
    gs_position_clear(&v->pos, 19);
    gs_position_clear(&v->setup, 19);
}

gtp_board *gtp_board_create(gs_error *err)
{
    gtp_board *b = calloc(1, sizeof *b);
    if (!b) {
        gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    pthread_condattr_t ca;
    bool ok = pthread_condattr_init(&ca) == 0;
    /* waits are timed on the monotonic clock, like gs_now_ms */
    ok = ok && pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0;
    ok = ok && pthread_cond_init(&b->cv, &ca) == 0;
    if (ok && pthread_mutex_init(&b->mu, NULL) != 0) {
        pthread_cond_destroy(&b->cv);
        ok = false;
    }
    pthread_condattr_destroy(&ca);
    if (!ok) {
        free(b);
        gs_error_set(err, GS_ERR_INTERNAL, "cannot make the lock of the GTP board");
        return NULL;
    }
    view_init(&b->v);
    view_init(&b->stage);
    return b;
}

void gtp_board_destroy(gtp_board *b)
{
    if (!b) return;
    pthread_mutex_destroy(&b->mu);
    pthread_cond_destroy(&b->cv);
    gtp_view_free(&b->v);
    gtp_view_free(&b->stage);
    gs_image_destroy(b->frame);
    free(b);
}

/* ------------------------------------------------ the loop's side */

/* The record's main line, set-up, komi, handicap and final marks, read
 * back from its SGF text (the one place the record lists them all,
 * including the moves of a resumed game).  A text that cannot be had
 * leaves the stage's moves as they were. */
static void stage_from_sgf(gtp_view *s, const record *r)
{
    char *text = NULL;
    size_t len = 0;
    gs_error e;
    if (record_sgf_text(r, &text, &len, &e) != GS_OK) return;
    sgf_tree *t = NULL;
    sgf_game g;
    memset(&g, 0, sizeof g);
    if (sgf_parse(text, len, &t, &e) == GS_OK && sgf_game_from_tree(t, &g, &e) == GS_OK) {
        gtp_view tmp = *s;
        tmp.moves = g.moves;
        tmp.nmoves = (int)g.move_count;
        tmp.setup = g.setup;
        tmp.first = g.move_count ? g.moves[0].color : GS_EMPTY;
        tmp.handicap = g.info.handicap;
        if (g.info.has_komi) tmp.komi = g.info.komi;
        tmp.has_marks = g.has_final_marks;
        tmp.marks = g.final_marks;
        /* (out of memory: the stage keeps the moves it had) */
        (void)view_copy(s, &tmp);
    }
    sgf_game_free(&g);
    sgf_tree_destroy(t);
    free(text);
}

/* One event line kept for goscribe-events (under mu). */
static void keep_line(gtp_board *b, const record_event *ev)
{
    const char *tag = ev->kind == RECORD_EV_REFEREE ? "FLAG " : ev->kind == RECORD_EV_SIGNAL ? "SIGNAL " : "";
    int slot = (b->line0 + b->nlines) % GTP_EVENT_LINES;
    if (b->nlines == GTP_EVENT_LINES) b->line0 = (b->line0 + 1) % GTP_EVENT_LINES;
    else b->nlines++;
    snprintf(b->lines[slot], sizeof b->lines[slot], "%s%s", tag, ev->text);
}

/* The events added since the last look: resignations and resignation
 * signals into the stage, flags and notes into the lines (under mu). */
static void stage_events(gtp_board *b, const record *r)
{
    const record_event *ev;
    size_t n = record_events(r, &ev);
    for (size_t i = b->n_events; i < n; i++) {
        const record_event *e = &ev[i];
        if (e->kind == RECORD_EV_RESIGN && (e->color == GS_BLACK || e->color == GS_WHITE))
            b->stage.resigned = e->color;
        if (e->kind == RECORD_EV_SIGNAL && !strcmp(e->code, "resign_signal") &&
            (e->color == GS_BLACK || e->color == GS_WHITE))
            b->stage.resign_signal[e->color] = e->move_number;
        if (e->kind == RECORD_EV_REFEREE || e->kind == RECORD_EV_SIGNAL || e->kind == RECORD_EV_NOTE)
            keep_line(b, e);
    }
    b->n_events = n;
}

static void on_changed(void *user, const record *r)
{
    gtp_board *b = user;
    gtp_view *s = &b->stage;
    s->started = record_started(r);
    s->ended = record_ended(r);
    s->finished = record_finished(r);
    record_position(r, &s->pos);
    s->size = s->pos.size;
    s->to_move = record_to_move(r);
    s->warnings[GS_BLACK] = record_warnings(r, GS_BLACK);
    s->warnings[GS_WHITE] = record_warnings(r, GS_WHITE);
    snprintf(s->result, sizeof s->result, "%s", record_result(r));
    if (s->started) stage_from_sgf(s, r);
    pthread_mutex_lock(&b->mu);
    stage_events(b, r);
    bool done = b->v.loop_done;
    char why[sizeof b->v.loop_why];
    memcpy(why, b->v.loop_why, sizeof why);
    uint64_t version = b->v.version;
    if (view_copy(&b->v, s)) {
        b->v.loop_done = done;
        memcpy(b->v.loop_why, why, sizeof why);
        b->v.version = version + 1;
        pthread_cond_broadcast(&b->cv);
    }
    pthread_mutex_unlock(&b->mu);
}

static void on_frame(void *user, const gs_image *frame, const vision_grid *grid)
{
    gtp_board *b = user;
    double now = gs_now_ms();
    /* (have_grid is the loop's own to write: read without the lock) */
    bool grid_news = (grid != NULL) != b->have_grid;
    if (b->frame_ms > 0 && now - b->frame_ms < FRAME_EVERY_MS && !grid_news) return;
    b->frame_ms = now;
    /* the recording thread's frame is reused by its source: the GTP thread
     * reads this copy under the lock (out of memory: the older frame stays) */
    gs_image *copy = gs_image_copy(frame);
    if (!copy) return;
    pthread_mutex_lock(&b->mu);
    gs_image *old = b->frame;
    b->frame = copy;
    b->have_grid = grid != NULL;
    if (grid) b->grid = *grid;
    pthread_mutex_unlock(&b->mu);
    gs_image_destroy(old);
}

static const session_hooks board_hooks = {
    .frame = on_frame,
    .changed = on_changed,
};

const session_hooks *gtp_board_hooks(void) { return &board_hooks; }

void gtp_board_loop_ended(gtp_board *b, gs_status st, const session_stats *stats, const gs_error *err)
{
    pthread_mutex_lock(&b->mu);
    b->v.loop_done = true;
    if (st != GS_OK && err) snprintf(b->v.loop_why, sizeof b->v.loop_why, "%s", err->msg);
    else snprintf(b->v.loop_why, sizeof b->v.loop_why, "%s", stats && stats->stop_reason ? stats->stop_reason : "ended");
    b->v.version++;
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
}

bool gtp_board_push(gtp_board *b, const char *line)
{
    pthread_mutex_lock(&b->mu);
    bool ok = b->qn < QUEUE_LINES;
    if (ok) {
        snprintf(b->queue[(b->qhead + b->qn) % QUEUE_LINES], QUEUE_LINE, "%s", line);
        b->qn++;
    }
    pthread_mutex_unlock(&b->mu);
    return ok;
}

int gtp_board_take(gtp_board *b, char *buf, size_t len)
{
    pthread_mutex_lock(&b->mu);
    int got = b->qn > 0;
    if (got) {
        snprintf(buf, len, "%s", b->queue[b->qhead]);
        b->qhead = (b->qhead + 1) % QUEUE_LINES;
        b->qn--;
    }
    pthread_mutex_unlock(&b->mu);
    return got;
}

/* ---------------------------------------------- the engine's side */

bool gtp_board_snapshot(gtp_board *b, gtp_view *out)
{
    pthread_mutex_lock(&b->mu);
    bool ok = true;
    if (out->version != b->v.version || !out->version) ok = view_copy(out, &b->v);
    pthread_mutex_unlock(&b->mu);
    return ok;
}

bool gtp_board_wait(gtp_board *b, uint64_t version, double ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    long long ns = (long long)ts.tv_nsec + (long long)(ms > 0 ? ms * 1e6 : 0);
    ts.tv_sec += (time_t)(ns / 1000000000LL);
    ts.tv_nsec = (long)(ns % 1000000000LL);
    pthread_mutex_lock(&b->mu);
    while (b->v.version == version)
        if (pthread_cond_timedwait(&b->cv, &b->mu, &ts) != 0) break; /* timed out */
    bool changed = b->v.version != version;
    pthread_mutex_unlock(&b->mu);
    return changed;
}

gs_image *gtp_board_frame(gtp_board *b, vision_grid *grid, bool *have_grid)
{
    pthread_mutex_lock(&b->mu);
    /* the caller reads it after the lock is let go, while the recording
     * thread may replace b->frame: its own copy */
    gs_image *copy = b->frame ? gs_image_copy(b->frame) : NULL;
    *have_grid = b->have_grid;
    if (b->have_grid) *grid = b->grid;
    pthread_mutex_unlock(&b->mu);
    return copy;
}

void gtp_board_events(gtp_board *b, gs_buf *out)
{
    pthread_mutex_lock(&b->mu);
    for (int i = 0; i < b->nlines; i++)
        gs_buf_printf(out, "%s%s", i ? "\n" : "", b->lines[(b->line0 + i) % GTP_EVENT_LINES]);
    pthread_mutex_unlock(&b->mu);
}
