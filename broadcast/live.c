/* broadcast/live.c: the live broadcast of a recording: the record loop's
 * hooks (session_hooks, record/record.h) over a broadcast_board.  Frames,
 * states, flagged events and the SGF go out through the board's publish
 * calls (they copy and return: nothing here waits on the network); the
 * referee's rulings come back as record rulings. */
#include "broadcast/broadcast.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A flagged event as published: what a ruling on it needs later. */
typedef struct live_event {
    int serve_id;
    gs_point point;
    gs_position before;        /* the record before the event */
} live_event;

struct broadcast_live {
    broadcast_board *sb;
    char black[64], white[64]; /* player names ("" = none) */
    char black_rank[16], white_rank[16], event[64], round[32], table[32];
    double komi;
    live_event *ev;            /* every event published */
    size_t n_ev, cap_ev;
    broadcast_ruling ruling;   /* the last ruling handed to the recorder */
    char words[400];           /* ... and its words */
};

broadcast_live *broadcast_live_create(broadcast_board *sb, const record_options *ro, gs_error *err)
{
    broadcast_live *L = calloc(1, sizeof *L);
    if (!L) {
        gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    L->sb = sb;
#define COPY(field) snprintf(L->field, sizeof L->field, "%s", ro && ro->field ? ro->field : "")
    COPY(black);
    COPY(white);
    COPY(black_rank);
    COPY(white_rank);
    COPY(event);
    COPY(round);
    COPY(table);
#undef COPY
    L->komi = ro && ro->has_komi ? ro->komi : 7.5;
    return L;
}

void broadcast_live_destroy(broadcast_live *L)
{
    if (!L) return;
    free(L->ev);
    free(L);
}

/* The state viewers see, all of it from the record: the board, the side
 * to move (none once the game is over or the recording has ended),
 * captures and warnings over the
 * whole game, the last move with its time of play. */
static void live_state(const broadcast_live *L, const record *rec, broadcast_state *s)
{
    gs_position pos;
    record_position(rec, &pos);
    broadcast_state_init(s, pos.size);
    s->pos = pos;
    s->move_number = record_move_count(rec);
    s->to_move = record_ended(rec) || record_finished(rec) ? GS_EMPTY : record_to_move(rec);
    s->captures_black = record_captures(rec, GS_BLACK);
    s->captures_white = record_captures(rec, GS_WHITE);
    s->warnings_black = record_warnings(rec, GS_BLACK);
    s->warnings_white = record_warnings(rec, GS_WHITE);
    gs_move m;
    int64_t when = 0;
    s->last_color = GS_EMPTY;
    s->last_point = (gs_point){-1, -1};
    if (record_last_move(rec, &m, &when)) {
        s->last_color = m.color;
        s->last_point = m.pt;
        s->last_pass = m.pass;
        s->last_move_unix_ms = when > 0 ? when : 0;
    }
    snprintf(s->black, sizeof s->black, "%s", L->black);
    snprintf(s->white, sizeof s->white, "%s", L->white);
    snprintf(s->black_rank, sizeof s->black_rank, "%s", L->black_rank);
    snprintf(s->white_rank, sizeof s->white_rank, "%s", L->white_rank);
    snprintf(s->event, sizeof s->event, "%s", L->event);
    snprintf(s->round, sizeof s->round, "%s", L->round);
    snprintf(s->table, sizeof s->table, "%s", L->table);
    snprintf(s->result, sizeof s->result, "%s", record_result(rec));
    record_not_saved(rec, s->not_saved, sizeof s->not_saved);
    snprintf(s->status, sizeof s->status, "%s",
             !record_started(rec)   ? "waiting"
             : record_ended(rec)    ? "ended"
             : record_finished(rec) ? "unfinished" /* the recording ended, the game did not: no result */
                                    : "playing");
    s->komi = L->komi;
}

static void live_frame(void *user, const gs_image *frame, const vision_grid *grid)
{
    broadcast_live *L = user;
    broadcast_board_publish_frame(L->sb, frame, grid);
}

/* One state per move, so viewers get every move, even several from one
 * view. */
static void live_move(void *user, const record *rec, const record_event *e)
{
    broadcast_live *L = user;
    broadcast_state s;
    live_state(L, rec, &s);
    /* several moves from one view: each is published as it came */
    s.move_number = e->move_number;
    s.last_color = e->color;
    s.last_point = e->point;
    s.last_pass = e->kind == RECORD_EV_PASS;
    broadcast_board_publish_state(L->sb, &s);
}

/* Each flagged event with its evidence, kept for the rulings on it. */
static void live_event_hook(void *user, const record *rec, const record_event *e, const gs_position *before,
                            const gs_position *seen)
{
    broadcast_live *L = user;
    const gs_image *fb = NULL, *fa = NULL;
    record_frames(rec, &fb, &fa);
    broadcast_event se;
    memset(&se, 0, sizeof se);
    se.code = e->code;
    se.message = e->text;
    se.color = e->color;
    se.move_number = e->move_number;
    se.npoints = e->point.x >= 0 ? 1 : 0;
    se.points = &e->point;
    se.before = before;
    se.after = seen;
    se.frame_before = fb;
    se.frame_after = fa;
    int id = broadcast_board_publish_event(L->sb, &se);
    if (id <= 0) return; /* not published (out of memory): nothing to rule on */
    if (L->n_ev == L->cap_ev) {
        size_t nc = L->cap_ev ? L->cap_ev * 2 : 16;
        live_event *ne = realloc(L->ev, nc * sizeof *ne);
        if (!ne) return; /* a ruling on it then concerns no point */
        L->ev = ne;
        L->cap_ev = nc;
    }
    live_event *le = &L->ev[L->n_ev++];
    le->serve_id = id;
    le->point = e->point;
    le->before = *before;
}

/* The state and the SGF text, after each change. */
static void live_changed(void *user, const record *rec)
{
    broadcast_live *L = user;
    broadcast_state s;
    live_state(L, rec, &s);
    broadcast_board_publish_state(L->sb, &s);
    char *text = NULL;
    size_t len = 0;
    gs_error e;
    /* no text (no game yet, out of memory): /game.sgf keeps the last one */
    if (record_sgf_text(rec, &text, &len, &e) == GS_OK) broadcast_board_set_sgf(L->sb, text, len);
    free(text);
}

/* The next ruling of the referee console, as a record ruling: the points
 * of the event it answers when it names none, the record before that event
 * for a restore, broadcast_ruling_describe() as its words. */
static bool live_poll_ruling(void *user, record_ruling *ru)
{
    broadcast_live *L = user;
    broadcast_ruling *sr = &L->ruling;
    if (!broadcast_board_poll_ruling(L->sb, sr)) return false;
    const live_event *le = NULL;
    for (size_t i = 0; i < L->n_ev && sr->event_id > 0; i++)
        if (L->ev[i].serve_id == sr->event_id) le = &L->ev[i];
    memset(ru, 0, sizeof *ru);
    ru->kind = sr->kind;
    ru->color = sr->color;
    ru->warning = sr->warning;
    ru->npoints = sr->npoints;
    ru->points = sr->points;
    ru->before = le ? &le->before : NULL;
    ru->unix_ms = sr->unix_ms;
    ru->move_number = sr->move_number;
    ru->result = sr->result;
    bool correction = sr->kind == RECORD_RULING_MOVE || sr->kind == RECORD_RULING_RESULT;
    if (!correction && !ru->npoints && le && le->point.x >= 0) {
        ru->npoints = 1;
        ru->points = &le->point;
    }
    broadcast_ruling_describe(sr, L->words, sizeof L->words);
    ru->words = L->words;
    return true;
}

/* The recording is over: the console's rulings are refused from now on. */
static void live_closing(void *user, const char *why)
{
    broadcast_live *L = user;
    broadcast_board_close_rulings(L->sb, why);
}

static const session_hooks live_hooks = {
    .frame = live_frame,
    .move = live_move,
    .event = live_event_hook,
    .changed = live_changed,
    .poll_ruling = live_poll_ruling,
    .closing = live_closing,
};

const session_hooks *broadcast_live_hooks(void) { return &live_hooks; }
