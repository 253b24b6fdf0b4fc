/* record/record_run.c: the recording loop (see record_run.h). */
#include "record/record.h"
#include "track/track.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------- live broadcast glue */

/* A flagged event as published: what a ruling on it needs later. */
typedef struct live_event {
    int serve_id;
    gs_point point;
    gs_position before;        /* the record before the event */
} live_event;

typedef struct live {
    broadcast_board *sb;
    size_t n_seen;             /* recorder events already published */
    gs_color last_color;       /* last move published */
    gs_point last_point;
    bool last_pass;
    int64_t last_move_ms;
    gs_position before;        /* the record before the last settled view */
    gs_position seen;          /* the last settled view */
    bool have_seen;
    live_event *ev;
    size_t n_ev, cap_ev;
    const record_options *ro;
} live;

static void live_state(live *L, record *rec, broadcast_state *s)
{
    gs_position pos;
    record_position(rec, &pos);
    broadcast_state_init(s, pos.size);
    s->pos = pos;
    s->move_number = record_move_count(rec);
    s->to_move = record_to_move(rec);
    s->last_color = L->last_color;
    s->last_point = L->last_point;
    s->last_pass = L->last_pass;
    s->last_move_unix_ms = L->last_move_ms;
    if (L->ro->black) snprintf(s->black, sizeof s->black, "%s", L->ro->black);
    if (L->ro->white) snprintf(s->white, sizeof s->white, "%s", L->ro->white);
    snprintf(s->result, sizeof s->result, "%s", record_result(rec));
    snprintf(s->status, sizeof s->status, "%s",
             !record_started(rec) ? "waiting" : record_ended(rec) ? "ended" : "playing");
    s->komi = L->ro->has_komi ? L->ro->komi : 7.5;
}

/* Publishes what changed in the record since the last call: one state per
 * move (so viewers get every move, even several from one view), each
 * flagged event with its evidence, then the state and the SGF text. */
static void live_sync(live *L, record *rec)
{
    if (!L->sb || !rec) return;
    const record_event *ev;
    size_t n = record_events(rec, &ev);
    if (n == L->n_seen) return;
    broadcast_state s;
    for (size_t i = L->n_seen; i < n; i++) {
        const record_event *e = &ev[i];
        if (e->kind == RECORD_EV_MOVE || e->kind == RECORD_EV_PASS) {
            L->last_color = e->color;
            L->last_point = e->point;
            L->last_pass = e->kind == RECORD_EV_PASS;
            L->last_move_ms = gs_wall_ms();
            live_state(L, rec, &s);
            s.move_number = e->move_number;
            broadcast_board_publish_state(L->sb, &s);
        } else if (e->kind == RECORD_EV_REFEREE || e->kind == RECORD_EV_SIGNAL) {
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
            se.before = &L->before;
            se.after = L->have_seen ? &L->seen : NULL;
            se.frame_before = fb;
            se.frame_after = fa;
            int id = broadcast_board_publish_event(L->sb, &se);
            if (id > 0) {
                if (L->n_ev == L->cap_ev) {
                    size_t nc = L->cap_ev ? L->cap_ev * 2 : 16;
                    live_event *ne = realloc(L->ev, nc * sizeof *ne);
                    if (!ne) continue;
                    L->ev = ne;
                    L->cap_ev = nc;
                }
                live_event *le = &L->ev[L->n_ev++];
                le->serve_id = id;
                le->point = e->point;
                le->before = L->before;
            }
        }
    }
    L->n_seen = n;
    live_state(L, rec, &s);
    broadcast_board_publish_state(L->sb, &s);
    char *text = NULL;
    size_t len = 0;
    gs_error e;
    if (record_sgf_text(rec, &text, &len, &e) == GS_OK) broadcast_board_set_sgf(L->sb, text, len);
    free(text);
}

/* Applies the rulings the referee made since the last frame. */
static gs_status live_rulings(live *L, record *rec, double t_ms, gs_error *err)
{
    if (!L->sb || !rec) return GS_OK;
    broadcast_ruling sr;
    while (broadcast_board_poll_ruling(L->sb, &sr)) {
        const live_event *le = NULL;
        for (size_t i = 0; i < L->n_ev && sr.event_id > 0; i++)
            if (L->ev[i].serve_id == sr.event_id) le = &L->ev[i];
        record_ruling ru;
        memset(&ru, 0, sizeof ru);
        ru.kind = (record_ruling_kind)sr.kind;
        ru.color = sr.color;
        ru.warning = sr.warning;
        ru.npoints = sr.npoints;
        ru.points = sr.points;
        ru.before = le ? &le->before : NULL;
        ru.unix_ms = sr.unix_ms;
        if (!ru.npoints && le && le->point.x >= 0) {
            ru.npoints = 1;
            ru.points = &le->point;
        }
        char words[400];
        broadcast_ruling_describe(&sr, words, sizeof words);
        ru.words = words;
        gs_status st = record_apply_ruling(rec, &ru, t_ms, err);
        if (st != GS_OK) return st;
    }
    return GS_OK;
}

void record_run_options_init(record_run_options *o)
{
    memset(o, 0, sizeof *o);
    track_options_init(&o->tracker);
    record_options_init(&o->recorder);
}

static gs_color parse_color(const char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    char c = (char)toupper((unsigned char)*s);
    return c == 'B' ? GS_BLACK : c == 'W' ? GS_WHITE : GS_EMPTY;
}

/* Returns 1 to stop (q), 0 otherwise. */
static int do_command(record *r, char *line, double t_ms, const char **reason)
{
    size_t n = strlen(line);
    while (n && isspace((unsigned char)line[n - 1])) line[--n] = 0;
    char *s = line;
    while (isspace((unsigned char)*s)) s++;
    gs_error e;
    if (!*s) return 0;
    if (!strcmp(s, "q") || !strcmp(s, "quit")) {
        *reason = "q";
        return 1;
    }
    if (!strcmp(s, "end")) {
        record_end_game(r, t_ms, &e);
        return 0;
    }
    if (!strncmp(s, "pass", 4) && (s[4] == 0 || isspace((unsigned char)s[4]))) {
        record_pass(r, parse_color(s + 4), t_ms, &e);
        return 0;
    }
    if (!strncmp(s, "resign", 6) && (s[6] == 0 || isspace((unsigned char)s[6]))) {
        record_resign(r, parse_color(s + 6), t_ms, &e);
        return 0;
    }
    char msg[160];
    snprintf(msg, sizeof msg, "unknown command \"%.40s\" (q, end, pass [B|W], resign B|W)", s);
    record_note(r, "command", msg, t_ms, &e);
    return 0;
}

gs_status record_run(capture_source *src, const record_run_options *o, record_run_stats *stats,
                       gs_error *err)
{
    record_run_stats tmp;
    if (!stats) stats = &tmp;
    memset(stats, 0, sizeof *stats);
    stats->stop_reason = "end of input";
    track *tr = NULL;
    record *rec = NULL;
    track_update *up = malloc(sizeof *up);
    track_hands *oc = track_hands_create();
    uint8_t covered[GS_MAX_SIZE * GS_MAX_SIZE];
    if (!up || !oc) {
        free(up);
        track_hands_destroy(oc);
        return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    }
    if (!o->decode_only) {
        tr = track_create(&o->tracker, err);
        if (!tr) {
            free(up);
            track_hands_destroy(oc);
            return err ? err->status : GS_ERR_NOMEM;
        }
        rec = record_create(&o->recorder, err);
        if (!rec) {
            track_destroy(tr);
            free(up);
            track_hands_destroy(oc);
            return err ? err->status : GS_ERR_NOMEM;
        }
    }
    bool polling = o->poll != NULL;
    bool camera = capture_get_kind(src) == CAPTURE_CAMERA;
    bool lost = false, stopped = false, game_over_asked = false;
    bool end_of_input = false;
    long total = capture_frame_count(src);
    double t0 = gs_now_ms(), last_progress = t0, last_t = 0;
    gs_status st = GS_OK;
    char first_note[200] = "";
    live L;
    memset(&L, 0, sizeof L);
    L.sb = o->serve;
    L.ro = &o->recorder;
    L.last_color = GS_EMPTY;
    L.last_point = (gs_point){-1, -1};
    gs_position_clear(&L.before, o->recorder.size ? o->recorder.size : 19);
    for (;;) {
        if (o->stop && *o->stop) {
            stats->stop_reason = "SIGINT";
            stopped = true;
            break;
        }
        if (o->max_frames > 0 && stats->frames >= o->max_frames) {
            stats->stop_reason = "max frames";
            end_of_input = true;
            break;
        }
        /* commands wait for the first settled view: a pass or a
         * resignation needs a game to belong to */
        if (polling && rec && record_started(rec)) {
            char line[256];
            int pr;
            while ((pr = o->poll(o->poll_user, line, sizeof line)) == 1) {
                if (!strcmp(line, "end")) game_over_asked = true;
                if (do_command(rec, line, last_t, &stats->stop_reason)) {
                    stopped = true;
                    break;
                }
            }
            if (stopped) break;
            if (pr < 0) {
                polling = false;
                if (camera) {
                    stats->stop_reason = "EOF on stdin";
                    stopped = true;
                    break;
                }
            }
        }
        if (L.sb) {
            st = live_rulings(&L, rec, last_t, err);
            if (st != GS_OK) break;
            live_sync(&L, rec);
        }
        const gs_image *frame = NULL;
        capture_info info;
        capture_result cr = capture_read(src, &frame, &info);
        if (cr == CAPTURE_END) {
            end_of_input = true;
            break;
        }
        if (cr == CAPTURE_ERROR) {
            st = gs_error_set(err, GS_ERR_IO, "%s", capture_last_error(src));
            break;
        }
        if (cr == CAPTURE_LOST && !camera) {
            if (rec) {
                gs_error e;
                record_note(rec, "frame", capture_last_error(src), last_t, &e);
            }
            continue;
        }
        if (cr == CAPTURE_LOST) {
            if (!lost && rec) {
                gs_error e;
                record_note(rec, "camera_lost", capture_last_error(src), last_t, &e);
            }
            lost = true;
            continue;
        }
        if (lost) {
            lost = false;
            if (rec) {
                gs_error e;
                record_note(rec, "camera_back", "camera back: carrying on with the same game", info.t_ms, &e);
                track_reset_settle(tr);
            }
        }
        stats->frames++;
        last_t = info.t_ms;
        if (o->progress && gs_now_ms() - last_progress > 1000) {
            last_progress = gs_now_ms();
            o->progress(o->progress_user, stats->frames, total);
        }
        if (o->decode_only) continue;
        if (L.sb) broadcast_board_publish_frame(L.sb, frame, track_grid(tr));
        gs_error e;
        if (track_feed(tr, frame, info.t_ms, info.settled, up, &e) != GS_OK) {
            /* a broken frame or a failed read is not the end of a game */
            record_note(rec, "frame", e.msg, info.t_ms, &e);
            continue;
        }
        stats->full_reads += up->reads;
        if (up->note[0]) {
            if (!up->have_grid) {
                if (!first_note[0]) snprintf(first_note, sizeof first_note, "%s", up->note);
            } else if (record_started(rec)) {
                record_note(rec, "board", up->note, info.t_ms, &e);
            }
        }
        if (o->frame_delay_ms > 0) {
            struct timespec ts = {o->frame_delay_ms / 1000, (long)(o->frame_delay_ms % 1000) * 1000000L};
            nanosleep(&ts, NULL);
        }
        if (!up->settled) continue;
        stats->settled_views++;
        if (L.sb) {
            record_position(rec, &L.before);
            L.seen = up->pos;
            L.have_seen = true;
        }
        /* a hand resting on the board stays still too: what reaches in
         * from outside is not read (the record's value is kept there) */
        if (up->refound) track_hands_reset(oc);
        bool reaching = false;
        int ncov = track_grid(tr) ? track_hands_mark(oc, frame, track_grid(tr), covered, &reaching) : 0;
        stats->covered_views += ncov > 0;
        int npt = up->pos.size * up->pos.size;
        bool any_unc = up->n_uncertain > 0 || ncov > 0;
        for (int i = 0; i < npt && ncov > 0; i++) up->uncertain[i] |= covered[i];
        st = record_observe(rec, &up->pos, any_unc ? up->uncertain : NULL, info.t_ms, frame, err);
        if (st != GS_OK) break;
        /* end-of-game signals count on a clear view only */
        if (ncov == 0 && !reaching) st = record_margin(rec, &up->margin, info.t_ms, err);
        if (st != GS_OK) break;
    }
    (void)game_over_asked;
    if (rec) {
        gs_error e;
        gs_status fs;
        if (!record_started(rec)) {
            fs = gs_error_set(&e, GS_ERR_NOBOARD, "no board found in %ld frames%s%s", stats->frames,
                              first_note[0] ? ": " : "", first_note);
        } else if (end_of_input && !stopped) {
            fs = record_finish(rec, last_t, &e);
        } else {
            fs = record_stop(rec, last_t, &e);
        }
        if (st == GS_OK && fs != GS_OK) {
            st = fs;
            if (err) *err = e;
        }
        stats->moves = record_move_count(rec);
        stats->referee_events = record_referee_count(rec);
        if (record_started(rec)) {
            stats->have_final = true;
            record_position(rec, &stats->final_pos);
        }
        snprintf(stats->result, sizeof stats->result, "%s", record_result(rec));
        live_sync(&L, rec); /* viewers see the end and the result */
    }
    free(L.ev);
    stats->ms_total = gs_now_ms() - t0;
    record_destroy(rec);
    track_destroy(tr);
    track_hands_destroy(oc);
    free(up);
    return st;
}
