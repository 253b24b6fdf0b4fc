/* record/corrected.c: irregular changes undone by the next view.
 *
 * A settled view that shows an irregular change (a stone out of turn, a
 * stone moved, stones lifted that were not captured) and then the next
 * view that shows the board back as the record says is one of two things:
 * a misread (a point read wrongly once), or a violation the players
 * corrected at once.  What tells them apart is how surely the view was
 * seen (record_view): a view with nothing reaching in from outside, in
 * which every changed point was read with RECORD_SURE confidence, shows
 * whole stones, and is not a misread.  Such a change is flagged as a
 * corrected violation: the same code as left in place, at the move it
 * belongs to, with the frames of the view that showed it; the record keeps
 * the game as played.  Anything less sure is taken as a misread (a note
 * names the lowest confidence, so the trade-off can be measured). */
#include "record/record_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ sureness */

bool rec_view_sure(const record *r, const gs_position *obs, float *minconf)
{
    gs_position rec;
    rules_game_position(r->game, &rec);
    float lo = 1;
    int changed = 0;
    for (int i = 0; i < r->size * r->size; i++)
        if (obs->cell[i] != rec.cell[i]) {
            changed++;
            if (r->seen.conf[i] < lo) lo = r->seen.conf[i];
        }
    if (!r->seen.known) lo = -1;
    if (minconf) *minconf = lo;
    return r->seen.known && r->seen.clear && lo >= (float)RECORD_SURE && changed <= REC_SURE_MAX_CHANGES;
}

/* --------------------------------------------------------- kept views */

void rec_kept_free(rec_kept_view *k)
{
    gs_image_destroy(k->before);
    gs_image_destroy(k->view);
    k->before = k->view = NULL;
}

void rec_kept_take(record *r, rec_kept_view *k)
{
    rec_kept_free(k);
    /* (a copy that fails for lack of memory only leaves the flag without
     * its frames) */
    k->before = r->evid.prev_frame ? gs_image_copy(r->evid.prev_frame) : NULL;
    k->view = r->evid.cur_frame ? gs_image_copy(r->evid.cur_frame) : NULL;
    k->t_before = r->prev_t;
    k->t = r->cur_t;
    k->seen = r->last_obs;
}

/* Swaps the kept view with the recorder's current evidence (frames, times,
 * the view as seen); twice restores. */
static void swap_evidence(record *r, rec_kept_view *k)
{
    gs_image *b = r->evid.prev_frame, *v = r->evid.cur_frame;
    double tb = r->prev_t, t = r->cur_t;
    gs_position seen = r->last_obs;
    r->evid.prev_frame = k->before;
    r->evid.cur_frame = k->view;
    r->prev_t = k->t_before;
    r->cur_t = k->t;
    r->last_obs = k->seen;
    k->before = b;
    k->view = v;
    k->t_before = tb;
    k->t = t;
    k->seen = seen;
}

void rec_flag_kept(record *r, const rec_kept_view *k, const char *code, int move_number, gs_color c, gs_point pt,
                   const char *words, const char *detail)
{
    rec_kept_view tmp = *k; /* borrowed: swapped in and back out */
    swap_evidence(r, &tmp);
    rec_flag(r, code, move_number, c, pt, words, detail);
    swap_evidence(r, &tmp);
}

/* ------------------------------------------------- a pending view undone */

/* Move number mv (in the record's numbering) when it was a stone of the
 * other colour than c: stones of c lifted after it, before c played again,
 * were lifted by its player as if it had captured them (a wrong capture,
 * next to it or anywhere: the opponent does not lift his own stones); else
 * 0. */
static int lifter_move(const record *r, int mv, gs_color c)
{
    int k = mv - r->move_offset - 1; /* index in the rules game */
    if (k < 0 || k >= rules_game_move_count(r->game)) return 0;
    gs_move m = rules_game_move(r->game, k);
    return m.pass || m.color == c ? 0 : mv;
}

/* One event of the undone view, flagged as corrected after `after_s`. */
static void flag_corrected_event(record *r, const rules_event *ev, double after_s)
{
    const char *code = rules_event_code(ev->type);
    int mv = rec_event_move(r, ev, rec_game_moves(r) + 1);
    const char *how = "the board is back as the record says";
    if (ev->type == RULES_EV_DOUBLE_MOVE || ev->type == RULES_EV_OUT_OF_TURN) how = "the stone was taken back";
    else if (ev->type == RULES_EV_MOVED_STONE || ev->type == RULES_EV_TAKE_BACK) how = "the stone was put back";
    if (ev->type == RULES_EV_STONE_REMOVED || ev->type == RULES_EV_WRONG_CAPTURE) {
        how = "the stones were put back";
        int cm = lifter_move(r, rec_game_moves(r), ev->color);
        if (cm > 0) {
            code = "wrong_capture";
            mv = cm;
        }
    }
    char detail[200], words[420];
    rec_points_text(ev->points, ev->npoints, detail, sizeof detail);
    snprintf(words, sizeof words,
             "%.160s; corrected after %.1f s (%s; seen with confidence %.2f): the record keeps the game",
             ev->text, after_s, how, r->irr.pending_conf);
    gs_point p = ev->npoints ? ev->points[0] : (gs_point){-1, -1};
    rec_flag_kept(r, &r->irr.pending_kept, code, mv, ev->color, p, words, detail);
}

void rec_pending_undone(record *r)
{
    rec_irregular *irr = &r->irr;
    gs_error e;
    double after_s = (r->cur_t - irr->pending_kept.t) / 1000.0;
    bool flagged = false;
    /* its own classification: r->cls holds the current view's, still to
     * be committed (a failed one, or no memory: taken as a misread) */
    rules_classification *cls = irr->pending_sure ? malloc(sizeof *cls) : NULL;
    if (cls && rules_classify(r->game, &irr->pending_obs, cls, &e) == GS_OK) {
        for (int i = 0; i < cls->nevents; i++) {
            rules_event_type t = cls->events[i].type;
            if (t == RULES_EV_MISSED_CAPTURE || t == RULES_EV_AMBIGUOUS_ORDER) continue;
            flag_corrected_event(r, &cls->events[i], after_s);
            flagged = true;
        }
    }
    free(cls);
    if (!flagged) {
        char why[80];
        if (irr->pending_conf < 0) snprintf(why, sizeof why, "no confidences known");
        else if (!irr->pending_sure && irr->pending_conf >= (float)RECORD_SURE) snprintf(why, sizeof why, "not hand-free");
        else snprintf(why, sizeof why, "lowest confidence %.2f", irr->pending_conf);
        rec_event_add(r, RECORD_EV_NOTE, "unconfirmed", rec_game_moves(r), GS_EMPTY, (gs_point){-1, -1},
                      "an irregular view was undone by the next one %.1f s later: taken as a misread (%s)", after_s,
                      why);
    }
    rec_kept_free(&irr->pending_kept);
}

/* ------------------------------------------- stones lifted and put back */

/* Flags the stones of one colour and one move among idx[0..n) (marked done
 * in used): lifted surely and put back. */
static void flag_put_back(record *r, const int *idx, int n, int first, bool *used)
{
    gs_position rec;
    rules_game_position(r->game, &rec);
    int i0 = idx[first], mv0 = r->absent.move[i0];
    gs_color c = (gs_color)rec.cell[i0];
    gs_point pts[REC_NPTS];
    int np = 0;
    float conf = 1;
    for (int k = first; k < n; k++) {
        int i = idx[k];
        if (used[k] || !r->absent.sure[i] || r->absent.flagged[i] || r->absent.move[i] != mv0 || rec.cell[i] != c)
            continue;
        used[k] = true;
        pts[np++] = (gs_point){(int8_t)(i % r->size), (int8_t)(i / r->size)};
        if (r->absent.conf[i] < conf) conf = r->absent.conf[i];
    }
    char detail[200], words[400], human[8];
    rec_points_text(pts, np, detail, sizeof detail);
    rules_point_human(pts[0], r->size, human);
    double after_s = (r->cur_t - r->absent.t0[i0]) / 1000.0;
    const char *colour = c == GS_BLACK ? "black" : "white", *plural = np > 1 ? "s" : "";
    /* lifted after the other colour's move: a wrong capture */
    int cm = lifter_move(r, mv0, c);
    if (cm > 0)
        snprintf(words, sizeof words,
                 "%d %s stone%s (%s) lifted as if captured by move %d: a wrong capture (Art. 18: warning, stones "
                 "put back); corrected after %.1f s (put back; seen with confidence %.2f): the record keeps the game",
                 np, colour, plural, human, cm, after_s, conf);
    else
        snprintf(words, sizeof words,
                 "%d %s stone%s (%s) lifted off the board for no reason; corrected after %.1f s (put back; seen with "
                 "confidence %.2f): the record keeps the game", np, colour, plural, human, after_s, conf);
    rec_flag_kept(r, &r->absent.kept, cm > 0 ? "wrong_capture" : "stone_removed", cm > 0 ? cm : mv0, c, pts[0], words,
                  detail);
}

void rec_absences_undone(record *r, const int *idx, int n)
{
    bool used[REC_NPTS] = {0};
    for (int k = 0; k < n; k++)
        if (!used[k] && r->absent.sure[idx[k]] && !r->absent.flagged[idx[k]]) flag_put_back(r, idx, n, k, used);
}
