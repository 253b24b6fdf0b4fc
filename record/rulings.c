/* record/rulings.c: a referee's ruling applied to the game and written into
 * the SGF (see record_apply_ruling in record.h), and the one table of
 * ruling names. */
#include "record/record_internal.h"

#include <stdio.h>
#include <string.h>


/* Stage 1: the position the referee asks for (stones off or back at the
 * ruling's points); the record follows it, and the board is expected to. */
static gs_status ruling_position(record *r, const record_ruling *ru, gs_error *err)
{
    gs_position rec, want;
    rules_game_position(r->game, &rec);
    want = rec;
    bool takes_off = ru->kind == RECORD_RULING_VOID || ru->kind == RECORD_RULING_REMOVE_DEAD ||
                     ru->kind == RECORD_RULING_PASS;
    int changed = 0;
    for (int i = 0; i < ru->npoints && ru->points; i++) {
        gs_point p = ru->points[i];
        if (p.x < 0 || p.y < 0 || p.x >= r->size || p.y >= r->size) continue;
        int k = p.y * r->size + p.x;
        if (takes_off && want.cell[k] != GS_EMPTY) {
            want.cell[k] = GS_EMPTY;
            changed++;
        } else if (ru->kind == RECORD_RULING_RESTORE && ru->before && ru->before->size == r->size &&
                   ru->before->cell[k] != GS_EMPTY && want.cell[k] == GS_EMPTY) {
            want.cell[k] = ru->before->cell[k];
            changed++;
        }
    }
    if (!changed) return GS_OK;
    gs_status st = rec_resync_to(r, &want, false, err);
    if (st != GS_OK) return st;
    for (int k = 0; k < r->size * r->size; k++)
        if (want.cell[k] != rec.cell[k]) r->fix_pending[k] = true;
    /* whatever irregular view was waiting is settled by the ruling */
    r->irr.have_pending = false;
    r->irr.have_flagged = false;
    return GS_OK;
}

/* Stage 3: the ruling in the SGF: GSRL and the words on the node it
 * concerns (the last), and its event. */
static void ruling_in_sgf(record *r, const record_ruling *ru, sgf_node *n, bool warned)
{
    const char *kname = record_ruling_name(ru->kind);
    int wb = rules_game_warnings(r->game, GS_BLACK), ww = rules_game_warnings(r->game, GS_WHITE);
    char words[400];
    if (ru->words && ru->words[0]) snprintf(words, sizeof words, "%s", ru->words);
    else snprintf(words, sizeof words, "Referee: %s%s%s (warnings: Black %d, White %d)", kname,
                  warned ? ", warning to " : "", warned ? rules_color_name(ru->color) : "", wb, ww);
    gs_error e;
    rec_check(r, sgf_add_ruling(n, kname, ru->color, wb, ww, ru->unix_ms > 0 ? ru->unix_ms : gs_wall_ms(), words, &e),
              &e);
    rec_event_add(r, RECORD_EV_RULING, kname, rec_game_moves(r), ru->color,
                  ru->npoints && ru->points ? ru->points[0] : (gs_point){-1, -1}, "%s", words);
}

/* Chinese rules (RULES.md, Art. 25): two warnings lose the game. */
static void ruling_forfeit(record *r, gs_color loser, sgf_node *n)
{
    r->forfeit = true;
    r->ended = true;
    snprintf(r->result, sizeof r->result, "%s+F", loser == GS_BLACK ? "W" : "B");
    char why[200];
    snprintf(why, sizeof why, "%s has received a second warning and loses the game (two warnings lose, "
             "Chinese rules): %s", rules_color_name(loser), r->result);
    rec_event_add(r, RECORD_EV_END, "forfeit", rec_game_moves(r), loser, (gs_point){-1, -1}, "%s", why);
    gs_error e;
    rec_check(r, sgf_append_comment(n, why, &e), &e);
    rec_set_result(r);
}

/* Stage 4: how the game goes on: a forfeit, a resignation, the end. */
static void ruling_outcome(record *r, const record_ruling *ru, sgf_node *n, bool warned)
{
    int nwarn = warned ? rules_game_warnings(r->game, ru->color) : 0;
    if (warned && nwarn >= 2 && r->resigned == GS_EMPTY && !r->forfeit)
        ruling_forfeit(r, ru->color, n);
    else if (ru->kind == RECORD_RULING_RESIGN && !r->forfeit && r->resigned == GS_EMPTY)
        rec_resign(r, ru->color == GS_EMPTY ? rules_game_to_move(r->game) : ru->color, " (referee)");
    else if (ru->kind == RECORD_RULING_END && !r->ended)
        rec_end(r, " (referee)");
}

gs_status record_apply_ruling(record *r, const record_ruling *ru, double t_ms, gs_error *err)
{
    const char *kname = record_ruling_name(ru->kind);
    if (!kname) return gs_error_set(err, GS_ERR_USAGE, "unknown ruling %d", (int)ru->kind);
    if (!r->started || r->finished) {
        rec_event_add(r, RECORD_EV_NOTE, "ruling_ignored", rec_game_moves(r), ru->color, (gs_point){-1, -1},
                      "referee ruling (%s) ignored: %s", kname,
                      r->started ? "the record is closed (the recording has ended)" : "no game yet");
        rec_events_print(r);
        return GS_OK;
    }
    r->cur_t = t_ms;
    if (ru->kind == RECORD_RULING_MOVE || ru->kind == RECORD_RULING_RESULT) return rec_apply_correction(r, ru, err);
    gs_status st = ruling_position(r, ru, err);
    if (st != GS_OK) return st;
    /* Stage 2: a pass in place of the void move */
    if (ru->kind == RECORD_RULING_PASS && !r->ended) {
        st = rec_commit_pass(r, ru->color, err);
        if (st != GS_OK) return st;
    }
    /* the warning, counted by the rules engine (one stone at the count) */
    bool warned = ru->warning && (ru->color == GS_BLACK || ru->color == GS_WHITE);
    if (warned) rules_game_add_warning(r->game, ru->color);
    sgf_node *n = r->sgf.last;
    ruling_in_sgf(r, ru, n, warned);
    ruling_outcome(r, ru, n, warned);
    return rec_save(r, err);
}
