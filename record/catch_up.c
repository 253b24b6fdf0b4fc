/* record/catch_up.c: a resumed record and a source that shows the game
 * from an earlier point (a video recorded again from its start after the
 * recording was killed): the views of positions the record has already
 * passed are the past, not moves; they are skipped until the view reaches
 * the record's position (or goes beyond it).  Without this each past
 * view would read as stones removed and every move would be recorded
 * twice. */
#include "record/record_internal.h"

#include <stdlib.h>
#include <string.h>

/* A position the resumed record passed through, after `moves` moves. */
struct rec_past {
    gs_position pos;
    int moves;
};

bool rec_past_keep(record *r)
{
    if (r->npast == r->cap_past) {
        int nc = r->cap_past ? 2 * r->cap_past : 64;
        struct rec_past *np = realloc(r->past, (size_t)nc * sizeof *np);
        if (!np) {
            free(r->past);
            r->past = NULL;
            r->npast = r->cap_past = 0;
            return false;
        }
        r->past = np;
        r->cap_past = nc;
    }
    rules_game_position(r->game, &r->past[r->npast].pos);
    r->past[r->npast++].moves = rec_game_moves(r);
    return true;
}

/* Points read in pos that differ from the record's position k; a stone
 * still standing where move k captured it (k's predecessor had it) is
 * the capture being lifted, no difference. */
static int distance(const record *r, const gs_position *pos, const uint8_t *uncertain, int k)
{
    const gs_position *p = &r->past[k].pos, *before = k > 0 ? &r->past[k - 1].pos : NULL;
    int d = 0;
    for (int i = 0; i < r->size * r->size; i++) {
        if ((uncertain && uncertain[i]) || pos->cell[i] == p->cell[i]) continue;
        if (before && p->cell[i] == GS_EMPTY && pos->cell[i] == before->cell[i]) continue;
        d++;
    }
    return d;
}

static void end_catch_up(record *r, const char *how)
{
    if (r->said_catching_up)
        rec_event_add(r, RECORD_EV_NOTE, "caught_up", rec_game_moves(r), GS_EMPTY, (gs_point){-1, -1},
                      "the view %s the resumed record's position (move %d): recording goes on", how,
                      rec_game_moves(r));
    r->catching_up = false;
    free(r->past);
    r->past = NULL;
    r->npast = r->cap_past = 0;
}

bool rec_catch_up(record *r, const gs_position *pos, const uint8_t *uncertain)
{
    if (!r->catching_up) return false;
    if (r->npast < 2 || pos->size != r->size) {
        end_catch_up(r, "reached");
        return false;
    }
    int now = distance(r, pos, uncertain, r->npast - 1), best = now, at = -1;
    for (int k = 0; k < r->npast - 1; k++) {
        int d = distance(r, pos, uncertain, k);
        if (d < best) {
            best = d;
            at = k;
        }
    }
    if (at < 0) {
        end_catch_up(r, now == 0 ? "reached" : "went beyond");
        return false;
    }
    if (!r->said_catching_up) {
        r->said_catching_up = true;
        rec_event_add(r, RECORD_EV_NOTE, "catching_up", rec_game_moves(r), GS_EMPTY, (gs_point){-1, -1},
                      "the view shows the game as it was after move %d of the resumed record: views of the past "
                      "are skipped until it reaches move %d", r->past[at].moves, rec_game_moves(r));
    }
    return true;
}
