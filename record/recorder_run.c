/* record/recorder_run.c: the recording loop (see recorder_run.h). */
#include "record/recorder_run.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void recorder_run_options_init(recorder_run_options *o)
{
    memset(o, 0, sizeof *o);
    tracker_options_init(&o->tracker);
    recorder_options_init(&o->recorder);
}

static gs_color parse_color(const char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    char c = (char)toupper((unsigned char)*s);
    return c == 'B' ? GS_BLACK : c == 'W' ? GS_WHITE : GS_EMPTY;
}

/* Returns 1 to stop (q), 0 otherwise. */
static int do_command(recorder *r, char *line, double t_ms, const char **reason)
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
        recorder_end_game(r, t_ms, &e);
        return 0;
    }
    if (!strncmp(s, "pass", 4) && (s[4] == 0 || isspace((unsigned char)s[4]))) {
        recorder_pass(r, parse_color(s + 4), t_ms, &e);
        return 0;
    }
    if (!strncmp(s, "resign", 6) && (s[6] == 0 || isspace((unsigned char)s[6]))) {
        recorder_resign(r, parse_color(s + 6), t_ms, &e);
        return 0;
    }
    char msg[160];
    snprintf(msg, sizeof msg, "unknown command \"%.40s\" (q, end, pass [B|W], resign B|W)", s);
    recorder_note(r, "command", msg, t_ms, &e);
    return 0;
}

gs_status recorder_run(capture_source *src, const recorder_run_options *o, recorder_run_stats *stats,
                       gs_error *err)
{
    recorder_run_stats tmp;
    if (!stats) stats = &tmp;
    memset(stats, 0, sizeof *stats);
    stats->stop_reason = "end of input";
    tracker *tr = NULL;
    recorder *rec = NULL;
    tracker_update *up = malloc(sizeof *up);
    if (!up) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    if (!o->decode_only) {
        tr = tracker_create(&o->tracker, err);
        if (!tr) {
            free(up);
            return err ? err->status : GS_ERR_NOMEM;
        }
        rec = recorder_create(&o->recorder, err);
        if (!rec) {
            tracker_destroy(tr);
            free(up);
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
        if (polling && rec && recorder_started(rec)) {
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
                recorder_note(rec, "frame", capture_last_error(src), last_t, &e);
            }
            continue;
        }
        if (cr == CAPTURE_LOST) {
            if (!lost && rec) {
                gs_error e;
                recorder_note(rec, "camera_lost", capture_last_error(src), last_t, &e);
            }
            lost = true;
            continue;
        }
        if (lost) {
            lost = false;
            if (rec) {
                gs_error e;
                recorder_note(rec, "camera_back", "camera back: carrying on with the same game", info.t_ms, &e);
                tracker_reset_settle(tr);
            }
        }
        stats->frames++;
        last_t = info.t_ms;
        if (o->progress && gs_now_ms() - last_progress > 1000) {
            last_progress = gs_now_ms();
            o->progress(o->progress_user, stats->frames, total);
        }
        if (o->decode_only) continue;
        gs_error e;
        if (tracker_feed(tr, frame, info.t_ms, info.settled, up, &e) != GS_OK) {
            /* a broken frame or a failed read is not the end of a game */
            recorder_note(rec, "frame", e.msg, info.t_ms, &e);
            continue;
        }
        stats->full_reads += up->reads;
        if (up->note[0]) {
            if (!up->have_grid) {
                if (!first_note[0]) snprintf(first_note, sizeof first_note, "%s", up->note);
            } else if (recorder_started(rec)) {
                recorder_note(rec, "board", up->note, info.t_ms, &e);
            }
        }
        if (o->frame_delay_ms > 0) {
            struct timespec ts = {o->frame_delay_ms / 1000, (long)(o->frame_delay_ms % 1000) * 1000000L};
            nanosleep(&ts, NULL);
        }
        if (!up->settled) continue;
        stats->settled_views++;
        st = recorder_observe(rec, &up->pos, up->n_uncertain ? up->uncertain : NULL, info.t_ms, frame, err);
        if (st != GS_OK) break;
    }
    (void)game_over_asked;
    if (rec) {
        gs_error e;
        gs_status fs;
        if (!recorder_started(rec)) {
            fs = gs_error_set(&e, GS_ERR_NOBOARD, "no board found in %ld frames%s%s", stats->frames,
                              first_note[0] ? ": " : "", first_note);
        } else if (end_of_input && !stopped) {
            fs = recorder_finish(rec, last_t, &e);
        } else {
            fs = recorder_stop(rec, last_t, &e);
        }
        if (st == GS_OK && fs != GS_OK) {
            st = fs;
            if (err) *err = e;
        }
        stats->moves = recorder_move_count(rec);
        stats->referee_events = recorder_referee_count(rec);
        if (recorder_started(rec)) {
            stats->have_final = true;
            recorder_position(rec, &stats->final_pos);
        }
        snprintf(stats->result, sizeof stats->result, "%s", recorder_result(rec));
    }
    stats->ms_total = gs_now_ms() - t0;
    recorder_destroy(rec);
    tracker_destroy(tr);
    free(up);
    return st;
}
