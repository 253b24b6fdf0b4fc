/* record/events.c: the recorder's event log: each event appended, printed
 * as one readable line (or one JSON object) once the SGF holding it is
 * saved (flags with their evidence and GSEV: flag.c). */
#include "record/record_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *rec_color_letter(gs_color c) { return c == GS_BLACK ? "B" : c == GS_WHITE ? "W" : "-"; }

void rec_fmt_time(double t_ms, char buf[24])
{
    if (!(t_ms >= 0) || t_ms > 3.6e9) t_ms = 0; /* keep the text short */
    int ds = (int)(t_ms / 100.0);
    snprintf(buf, 24, "%02d:%02d.%d", (ds / 600) % 100000, (ds / 10) % 60, ds % 10);
}

int rec_game_moves(const record *r) { return r->move_offset + (r->game ? rules_game_move_count(r->game) : 0); }

bool rec_pos_equal(const gs_position *a, const gs_position *b)
{
    return a->size == b->size && !memcmp(a->cell, b->cell, (size_t)a->size * (size_t)a->size);
}

void rec_points_text(const gs_point *pts, int n, char *buf, size_t len)
{
    size_t dl = 0;
    buf[0] = 0;
    for (int j = 0; j < n && dl + 4 < len; j++) {
        char s[3];
        sgf_point_format(pts[j], s);
        dl += (size_t)snprintf(buf + dl, len - dl, "%s%s", j ? " " : "", s);
    }
}

void rec_stones_words(const record *r, const gs_position *rec, const gs_point *pts, int n, char *buf, size_t len)
{
    gs_color c0 = n > 0 ? gs_position_get(rec, pts[0].x, pts[0].y) : GS_EMPTY;
    bool mixed = false;
    for (int j = 1; j < n; j++) mixed |= gs_position_get(rec, pts[j].x, pts[j].y) != c0;
    size_t dl = (size_t)snprintf(buf, len, "%d %s%s (", n, mixed ? "" : c0 == GS_BLACK ? "black " : "white ",
                                 n == 1 ? "stone" : "stones");
    for (int j = 0; j < n && dl + 16 < len; j++) {
        char h[8];
        rules_point_human(pts[j], r->size, h);
        gs_color c = gs_position_get(rec, pts[j].x, pts[j].y);
        dl += (size_t)snprintf(buf + dl, len - dl, "%s%s%s", j ? ", " : "", mixed ? (c == GS_BLACK ? "black " : "white ")
                                                                                   : "", h);
    }
    if (dl + 2 < len) snprintf(buf + dl, len - dl, ")");
}

void rec_check(record *r, gs_status st, const gs_error *e)
{
    if (st != GS_OK && r->fail.status == GS_OK) r->fail = *e;
}

record_event *rec_event_add(record *r, record_event_kind kind, const char *code, int move_number, gs_color color,
                            gs_point pt, const char *fmt, ...)
{
    rec_log *L = &r->log;
    if (L->n == L->cap) {
        size_t nc = L->cap ? L->cap * 2 : 64;
        record_event *ne = realloc(L->ev, nc * sizeof *ne);
        if (!ne) {
            gs_error e;
            gs_error_set(&e, GS_ERR_NOMEM, "out of memory: event %s not recorded", code);
            rec_check(r, e.status, &e);
            return NULL;
        }
        L->ev = ne;
        L->cap = nc;
    }
    record_event *ev = &L->ev[L->n];
    memset(ev, 0, sizeof *ev);
    ev->kind = kind;
    snprintf(ev->code, sizeof ev->code, "%s", code);
    ev->move_number = move_number;
    ev->color = color;
    ev->point = pt;
    ev->t_ms = r->cur_t;
    ev->unix_ms = rec_now_ms(r);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ev->text, sizeof ev->text, fmt, ap);
    va_end(ap);
    if (kind == RECORD_EV_REFEREE || kind == RECORD_EV_SIGNAL) {
        ev->have_seen = r->have_last_obs;
        if (r->have_last_obs) ev->seen = r->last_obs;
        L->n_referee += kind == RECORD_EV_REFEREE;
    }
    return &L->ev[L->n++];
}

static const char *const kind_names[] = {"start", "move", "pass", "resign", "referee",
                                         "signal", "note", "end", "count", "ruling"};

static void print_json(const record *r, FILE *f, const record_event *ev)
{
    gs_buf b = {0};
    gs_buf_printf(&b, "{\"t_ms\":%.0f,\"unix_ms\":%lld,\"kind\":\"%s\",\"code\":", ev->t_ms, (long long)ev->unix_ms,
                  kind_names[ev->kind]);
    gs_json_str(&b, ev->code);
    gs_buf_printf(&b, ",\"move_number\":%d,\"color\":\"%s\"", ev->move_number, score_json_color(ev->color));
    if (ev->point.x >= 0 && r->size > 0) score_json_point(&b, ev->point, false, r->size);
    if (ev->kind == RECORD_EV_COUNT && r->have_count) {
        score_json_count(&b, &r->count, r->count_handicap, r->count_warnings[GS_BLACK], r->count_warnings[GS_WHITE]);
        gs_buf_printf(&b, ",\"result_sure\":%s", r->count_unsure ? "false" : "true");
    }
    if (ev->evidence[0]) {
        gs_buf_puts(&b, ",\"evidence\":");
        gs_json_str(&b, ev->evidence);
    }
    gs_buf_puts(&b, ",\"text\":");
    gs_json_str(&b, ev->text);
    gs_buf_puts(&b, "}\n");
    if (gs_buf_ok(&b) && b.p) fputs(b.p, f);
    gs_buf_free(&b); /* out of memory: the line is lost, not the record */
}

static void print_line(const record *r, FILE *f, const record_event *ev)
{
    char tb[24];
    rec_fmt_time(ev->t_ms, tb);
    const char *tag = ev->kind == RECORD_EV_REFEREE ? "FLAG " : ev->kind == RECORD_EV_SIGNAL ? "SIGNAL " : "";
    fprintf(f, "[%s] %s%s", tb, tag, ev->text);
    if (ev->evidence[0]) fprintf(f, " (evidence %s/%s-*.png)", r->evid.dir, ev->evidence);
    fputc('\n', f);
}

/* Output errors on the event stream are not the record's: the SGF is the
 * record, and a closed pipe must not stop it (the stream's own error state
 * is the caller's to look at). */
void rec_events_print(record *r)
{
    FILE *f = r->opt.out;
    rec_log *L = &r->log;
    for (; L->n_printed < L->n; L->n_printed++) {
        if (!f) continue;
        const record_event *ev = &L->ev[L->n_printed];
        if (r->opt.json) print_json(r, f, ev);
        else print_line(r, f, ev);
    }
    if (f) fflush(f);
}

int64_t rec_now_ms(const record *r) { return r->clock_ms >= 0 ? r->clock_ms : gs_wall_ms(); }
