/* broadcast/board.c: the plain data of a board: defaults of the config
 * and the state, the names of the rulings and their words.  Uses nothing
 * else of broadcast/ (json.c, referee.c and the SGF comments build on it);
 * the running board is lifecycle.c and the files it names. */
#include "broadcast/broadcast_internal.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* ----------------------------------------------------------- small stuff */

void broadcast_config_init(broadcast_config *cfg) { memset(cfg, 0, sizeof *cfg); }

void broadcast_state_init(broadcast_state *s, int size)
{
    memset(s, 0, sizeof *s);
    gs_position_clear(&s->pos, size);
    s->to_move = GS_BLACK;
    snprintf(s->status, sizeof s->status, "playing");
}

static const char *color_word(gs_color c) { return c == GS_BLACK ? "Black" : c == GS_WHITE ? "White" : "nobody"; }

size_t broadcast_ruling_describe(const broadcast_ruling *r, char *buf, size_t len)
{
    static const char *const what[RECORD_RULING_COUNT_] = {
        "move void", "stones put back", "dead stones removed", "warning",
        "move accepted", "move void, counted as a pass", "game ended", "resigns", "move corrected",
        "result corrected"};
    time_t t = (time_t)(r->unix_ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    const char *w = (unsigned)r->kind < RECORD_RULING_COUNT_ ? what[r->kind] : "ruling";
    const char *sp = r->by[0] ? " " : "";
    int n;
    if (r->kind == RECORD_RULING_MOVE || r->kind == RECORD_RULING_RESULT) {
        /* the recorder adds what changed: "...: move 57 is Black Q17 (the record had Q16)" */
        n = snprintf(buf, len, "Correction%s%s (%02d:%02d:%02d UTC%s%s)", r->by[0] ? " by " : "", r->by,
                     tm.tm_hour, tm.tm_min, tm.tm_sec, r->note[0] ? "; " : "", r->note);
        return n < 0 ? 0 : (size_t)n >= len ? len - 1 : (size_t)n;
    }
    if (r->kind == RECORD_RULING_RESIGN)
        n = snprintf(buf, len, "Referee%s%s (%02d:%02d:%02d UTC): %s resigns", sp, r->by, tm.tm_hour, tm.tm_min,
                     tm.tm_sec, color_word(r->color));
    else
        n = snprintf(buf, len, "Referee%s%s (%02d:%02d:%02d UTC): %s", sp, r->by, tm.tm_hour, tm.tm_min, tm.tm_sec,
                     w);
    size_t used = n < 0 ? 0 : (size_t)n >= len ? len - 1 : (size_t)n;
    if (r->warning && r->kind != RECORD_RULING_WARN && used < len)
        used += (size_t)snprintf(buf + used, len - used, ", warning");
    if (r->warning && used < len) {
        int cnt = r->color == GS_BLACK ? r->warnings_black : r->warnings_white;
        n = snprintf(buf + used, len - used, " to %s (warning %d)", color_word(r->color), cnt);
        used = n < 0 || used + (size_t)n >= len ? len - 1 : used + (size_t)n;
    }
    if ((r->loser == GS_BLACK || r->loser == GS_WHITE) && used < len) {
        n = snprintf(buf + used, len - used, "; %s loses the game%s", color_word(r->loser),
                     r->kind == RECORD_RULING_RESIGN ? "" : " (two warnings)");
        used = n < 0 || used + (size_t)n >= len ? len - 1 : used + (size_t)n;
    }
    if (r->note[0] && used < len) {
        n = snprintf(buf + used, len - used, ". %s", r->note);
        used = n < 0 || used + (size_t)n >= len ? len - 1 : used + (size_t)n;
    }
    return used;
}
