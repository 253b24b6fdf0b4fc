/* record/signals.c: end-of-game signals seen on the margin outside the lines
 * (see record_margin in record.h): flagged, each once, never acted on. */
#include "record/record_internal.h"

#include <stdio.h>

/* The margin's stones by colour (index gs_color): how many, how many near
 * a corner, the first of each. */
typedef struct margin_count {
    int count[3], corner[3];
    const track_margin_stone *first[3], *first_corner[3];
} margin_count;

static void count_margin(const track_margin_view *m, margin_count *mc)
{
    *mc = (margin_count){{0, 0, 0}, {0, 0, 0}, {NULL, NULL, NULL}, {NULL, NULL, NULL}};
    for (int i = 0; i < m->n; i++) {
        const track_margin_stone *s = &m->stones[i];
        if (s->color != GS_BLACK && s->color != GS_WHITE) continue;
        mc->count[s->color]++;
        if (!mc->first[s->color]) mc->first[s->color] = s;
        if (s->corner) {
            mc->corner[s->color]++;
            if (!mc->first_corner[s->color]) mc->first_corner[s->color] = s;
        }
    }
}

static void add_signal(record *r, const char *code, gs_color col, const char *words)
{
    rec_event_add(r, RECORD_EV_SIGNAL, code, rec_game_moves(r), col, (gs_point){-1, -1}, "%s", words);
    gs_error e;
    rec_check(r, sgf_add_event(r->sgf.last, code, rec_color_letter(col), words, &e), &e);
}

/* Two stones of colour c on the margin: c resigns?  Returns true when
 * flagged now. */
static bool resign_signal(record *r, const margin_count *mc, gs_color c)
{
    if (mc->count[c] == 0) r->resign_seen[c] = false;
    if (mc->count[c] < 2 || r->resign_seen[c]) return false;
    r->resign_seen[c] = true;
    char words[300];
    snprintf(words, sizeof words,
             "resignation signal: %d %s stones on the margin outside the lines (%s): %s resigns? "
             "(Chinese rules: two of one's own stones on the margin)",
             mc->count[c], c == GS_BLACK ? "black" : "white", track_margin_place_name(mc->first[c]),
             rules_color_name(c));
    add_signal(r, "resign_signal", c, words);
    return true;
}

/* A single stone of colour c near a corner: the other player confirms the
 * game is over.  Returns true when flagged now. */
static bool confirm_signal(record *r, const margin_count *mc, gs_color c)
{
    gs_color other = gs_color_other(c);
    if (mc->count[c] == 0) r->confirm_seen[other] = false;
    if (mc->count[c] != 1 || mc->corner[c] != 1 || r->confirm_seen[other]) return false;
    r->confirm_seen[other] = true;
    char words[300];
    snprintf(words, sizeof words,
             "end-of-game confirmation signal: a %s stone outside the lines at the %s: %s confirms "
             "the game is over%s",
             c == GS_BLACK ? "black" : "white", track_margin_place_name(mc->first_corner[c]),
             rules_color_name(other), r->confirm_seen[c] ? " (both players have confirmed)" : "");
    add_signal(r, "confirm_signal", other, words);
    return true;
}

gs_status record_margin(record *r, const track_margin_view *m, double t_ms, gs_error *err)
{
    if (!r->started || r->finished || !m || !m->valid) return GS_OK;
    r->cur_t = t_ms;
    track_margin_view mv = *m;
    if (r->have_last_obs) track_margin_view_drop_beside(&mv, &r->last_obs);
    margin_count mc;
    count_margin(&mv, &mc);
    bool added = false;
    for (int c = GS_BLACK; c <= GS_WHITE; c++) {
        added |= resign_signal(r, &mc, (gs_color)c);
        added |= confirm_signal(r, &mc, (gs_color)c);
    }
    if (!added) return GS_OK;
    return rec_save(r, err);
}
