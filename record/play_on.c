/* record/play_on.c: new stones after a game-over by two passes or the
 * operator's `end` mean play went on: the game is not over.  (A result,
 * a resignation or a forfeit, is not undone by stones: after it the views
 * are only looked at for the count.) */
#include "record/record_internal.h"

#include <string.h>

/* Whether obs shows stones added to the record and nothing else changed
 * but what moves explain (their captures): play, not dead stones lifted. */
static bool shows_play(record *r, const gs_position *obs, gs_error *err, gs_status *st)
{
    gs_position rec;
    rules_game_position(r->game, &rec);
    int n = r->size * r->size, added = 0;
    bool only_added = true;
    for (int i = 0; i < n; i++) {
        if (obs->cell[i] == rec.cell[i]) continue;
        if (rec.cell[i] == GS_EMPTY) added++;
        else only_added = false;
    }
    if (added == 0) return false;
    if (only_added) return true;
    gs_error e;
    *st = rules_classify(r->game, obs, r->cls, &e);
    if (*st != GS_OK) {
        gs_error_set(err, e.status, "%s", e.msg);
        return false;
    }
    return r->cls->nmoves > 0 && r->cls->nevents == 0;
}

/* Every stone the first view added is still there in obs. */
static bool keeps_stones_of(const record *r, const gs_position *first, const gs_position *obs)
{
    gs_position rec;
    rules_game_position(r->game, &rec);
    for (int i = 0; i < r->size * r->size; i++)
        if (rec.cell[i] == GS_EMPTY && first->cell[i] != GS_EMPTY && obs->cell[i] != first->cell[i]) return false;
    return true;
}

gs_status rec_play_went_on(record *r, const gs_position *obs, bool *on, gs_error *err)
{
    *on = false;
    if (!r->may_go_on) return GS_OK;
    gs_status st = GS_OK;
    bool play = shows_play(r, obs, err, &st);
    if (st != GS_OK) return st;
    if (!play) {
        r->have_went_on = false;
        return GS_OK;
    }
    /* one view could be a misread: the next must show the stones too */
    if (!r->have_went_on || !keeps_stones_of(r, &r->went_on_obs, obs)) {
        r->have_went_on = true;
        r->went_on_obs = *obs;
        return GS_OK;
    }
    r->have_went_on = false;
    r->ended = r->may_go_on = false;
    r->said_passes = 0;
    *on = true;
    rec_event_add(r, RECORD_EV_NOTE, "play_on", rec_game_moves(r), GS_EMPTY, (gs_point){-1, -1},
                  "play went on after the game-over at move %d: new stones in two settled views; the game is not "
                  "over, its moves are recorded", r->ended_at);
    return GS_OK;
}

/* The last view after a game-over showed new stones no later view
 * confirmed: said, not taken. */
void rec_play_on_unconfirmed(record *r)
{
    if (!r->have_went_on || !r->ended) return;
    r->have_went_on = false;
    rec_event_add(r, RECORD_EV_NOTE, "play_on", rec_game_moves(r), GS_EMPTY, (gs_point){-1, -1},
                  "the last settled view showed new stones after the game-over at move %d, and no later view "
                  "confirmed them: not recorded", r->ended_at);
}
