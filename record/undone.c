/* record/undone.c: what a pending view undone by the next one showed.
 *
 * A pending irregular view P, then a view C that goes on as the record
 * says (no change, or legal moves): whatever P showed that C does not is a
 * change the players undid.  Taking C's own moves out of P leaves the
 * violation itself, and its shape names it whatever P's direct reading
 * said (P alone often fits several stories: a move with a stone moved
 * elsewhere also reads as two new stones of one colour and one lifted):
 *   - stones of the colour that just moved, added and taken away: a double
 *     move (that colour played twice);
 *   - stones lifted and put back, of the colour that did not just move: a
 *     wrong capture by the player who did; of the mover's own colour, a
 *     stone removed;
 *   - as many stones of one colour added as lifted: a moved stone (put
 *     back); the last move's own stone so: a take-back.
 * Anything else is left to the events of P's own classification
 * (corrected.c).  The flag belongs to C's last move when C has moves (P
 * showed it already), so it is given once they are committed; a double
 * move to the move its second stone would have been, as when left. */
#include "record/record_internal.h"

#include <stdio.h>
#include <string.h>

/* The changes P showed beyond C: stones added that are gone again, stones
 * lifted that are back; one colour each (GS_EMPTY: mixed, or none). */
typedef struct undone_diff {
    int nadd, nlift;
    gs_point add[REC_SURE_MAX_CHANGES], lift[REC_SURE_MAX_CHANGES];
    gs_color add_c, lift_c;
    bool mixed;
} undone_diff;

/* rec = the record before C's moves; false when P and C differ in any
 * other way (a stone turned colour, too many changes). */
static bool diff_views(const record *r, const gs_position *rec, const gs_position *p, const gs_position *c,
                       undone_diff *d)
{
    memset(d, 0, sizeof *d);
    for (int i = 0; i < r->size * r->size; i++) {
        if (p->cell[i] == c->cell[i]) continue;
        gs_point pt = {(int8_t)(i % r->size), (int8_t)(i / r->size)};
        if (p->cell[i] != GS_EMPTY && c->cell[i] == GS_EMPTY && rec->cell[i] == GS_EMPTY) {
            if (d->nadd == REC_SURE_MAX_CHANGES) return false;
            d->mixed |= d->nadd > 0 && d->add_c != p->cell[i];
            d->add_c = (gs_color)p->cell[i];
            d->add[d->nadd++] = pt;
        } else if (p->cell[i] == GS_EMPTY && rec->cell[i] != GS_EMPTY && c->cell[i] == rec->cell[i]) {
            if (d->nlift == REC_SURE_MAX_CHANGES) return false;
            d->mixed |= d->nlift > 0 && d->lift_c != rec->cell[i];
            d->lift_c = (gs_color)rec->cell[i];
            d->lift[d->nlift++] = pt;
        } else if (!(c->cell[i] == GS_EMPTY ? p->cell[i] == rec->cell[i] : rec->cell[i] == GS_EMPTY)) {
            /* (a stone C lifts that P still showed, or C's move on a
             * point P left empty, is C's own change) */
            return false;
        }
    }
    return !d->mixed && d->nadd + d->nlift > 0;
}

/* The last move when C is committed (*last) and its number (*mv); false
 * when it is a pass or there is none. */
static bool last_move(const record *r, gs_move *last, int *mv)
{
    const rules_classification *cls = r->cls;
    for (int k = cls->nmoves - 1; k >= 0; k--)
        if (!cls->moves[k].move.pass) {
            *mv = rec_game_moves(r) + k + 1;
            *last = cls->moves[k].move;
            return true;
        }
    *mv = rec_game_moves(r);
    int n = rules_game_move_count(r->game);
    if (cls->nmoves > 0 || n == 0) return false;
    *last = rules_game_move(r->game, n - 1);
    return !last->pass;
}

/* The violation's name, the colour concerned and its point; false when the
 * shape is none of the three.  The last move's own stone moved is a
 * take-back. */
static bool name_violation(const undone_diff *d, gs_move last, rec_undone *u)
{
    gs_color mover = last.color;
    if (d->nlift == 0 && d->add_c == mover) {
        snprintf(u->code, sizeof u->code, "double_move");
        u->color = mover;
        u->pt = d->add[0];
        u->move++; /* the move the second stone would have been */
    } else if (d->nadd == 0) {
        snprintf(u->code, sizeof u->code, d->lift_c == mover ? "stone_removed" : "wrong_capture");
        u->color = d->lift_c;
        u->pt = d->lift[0];
    } else if (d->nadd == d->nlift && d->add_c == d->lift_c) {
        bool back = d->nlift == 1 && d->lift[0].x == last.pt.x && d->lift[0].y == last.pt.y;
        snprintf(u->code, sizeof u->code, back ? "take_back" : "moved_stone");
        u->color = d->add_c;
        u->pt = d->add[0];
    } else {
        return false;
    }
    return true;
}

/* The flag's words: what was seen, where, how surely, and the rule. */
static void describe(const record *r, const undone_diff *d, gs_color mover, rec_undone *u)
{
    char adds[32], lifts[32], hadd[8] = "", hlift[8] = "";
    rec_points_text(d->add, d->nadd, adds, sizeof adds);
    rec_points_text(d->lift, d->nlift, lifts, sizeof lifts);
    if (d->nadd) rules_point_human(d->add[0], r->size, hadd);
    if (d->nlift) rules_point_human(d->lift[0], r->size, hlift);
    snprintf(u->detail, sizeof u->detail, "%s%s%s", adds, d->nadd && d->nlift ? " " : "", lifts);
    const char *who = rules_color_name(mover), *col = u->color == GS_BLACK ? "black" : "white";
    char what[200];
    if (!strcmp(u->code, "double_move"))
        snprintf(what, sizeof what, "%s played twice in a row: %d more %s stone%s (%s) after move %d, taken back "
                 "(Art. 18: double move, the second move void, warning)", who, d->nadd, col, d->nadd > 1 ? "s" : "",
                 hadd, u->move - 1);
    else if (!strcmp(u->code, "moved_stone"))
        snprintf(what, sizeof what, "a %s stone lifted from %s and put down at %s with move %d, put back (Art. 17.3: "
                 "moved stone)", col, hlift, hadd, u->move);
    else if (!strcmp(u->code, "take_back"))
        snprintf(what, sizeof what, "move %d (%s) lifted and put down at %s, put back (Art. 18: take-back, warning)",
                 u->move, hlift, hadd);
    else if (!strcmp(u->code, "wrong_capture"))
        snprintf(what, sizeof what, "%d %s stone%s (%s) lifted after %s's move %d as if captured, put back (Art. 18: "
                 "wrong capture, warning)", d->nlift, col, d->nlift > 1 ? "s" : "", hlift, who, u->move);
    else
        snprintf(what, sizeof what, "%d %s stone%s (%s) lifted off the board for no reason, put back", d->nlift, col,
                 d->nlift > 1 ? "s" : "", hlift);
    snprintf(u->words, sizeof u->words,
             "%s; corrected after %.1f s (seen in a hand-free settled view, lowest confidence %.2f, undone by the "
             "next): the record keeps the game", what, u->after_s, r->irr.pending_conf);
}

bool rec_undone_judge(record *r, const gs_position *obs, rec_undone *u)
{
    memset(u, 0, sizeof *u);
    if (!r->irr.have_pending || !r->irr.pending_sure) return false;
    gs_position rec;
    rules_game_position(r->game, &rec);
    undone_diff d;
    if (!diff_views(r, &rec, &r->irr.pending_obs, obs, &d)) return false;
    gs_move last;
    if (!last_move(r, &last, &u->move) || !name_violation(&d, last, u)) return false;
    u->after_s = (r->cur_t - r->irr.pending_kept.t) / 1000.0;
    describe(r, &d, last.color, u);
    u->nlift = d.nlift;
    memcpy(u->lift, d.lift, sizeof d.lift);
    /* the frames of P are the evidence: taken over from the pending view */
    u->kept = r->irr.pending_kept;
    memset(&r->irr.pending_kept, 0, sizeof r->irr.pending_kept);
    u->ready = true;
    return true;
}

void rec_undone_flag(record *r, rec_undone *u)
{
    if (!u->ready) return;
    rec_flag_kept(r, &u->kept, u->code, u->move, u->color, u->pt, u->words, u->detail);
    /* a stone this flag names as lifted (moved, removed) is not flagged
     * again when its absence, seen in other views too, ends */
    for (int k = 0; k < u->nlift; k++) r->absent.flagged[u->lift[k].y * r->size + u->lift[k].x] = true;
    rec_kept_free(&u->kept);
    u->ready = false;
}
