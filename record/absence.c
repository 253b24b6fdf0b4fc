/* record/absence.c: stones of the record missing from a view.
 *
 * A stone of the record that vanishes with no capture explaining it is a
 * misread or an occlusion (shadow, hand, glare) until it has stayed away
 * REC_ABSENT_VIEWS settled views in a row (or REC_ABSENT_MS and two
 * views): until then the view is read with the stone in place, so the
 * record never follows a board missing a stone it will see again, and the
 * stone coming back is no new move.  Confirmed, the absence is flagged
 * once and the record follows the board (setup node).  A stone first
 * missed in a view seen surely (hand-free, its point read empty with
 * RECORD_SURE confidence) was lifted, not misread: when it is put back it
 * is flagged as a corrected violation (corrected.c). */
#include "record/record_internal.h"

#include <stdio.h>
#include <string.h>

#define REC_ABSENT_VIEWS 4
#define REC_ABSENT_MS 30000.0

bool rec_any_absent(const record *r)
{
    for (int i = 0; i < r->size * r->size; i++)
        if (r->absent.views[i] > 0) return true;
    return false;
}

static bool view_is_clean(const rules_classification *cls)
{
    return cls->unchanged || (cls->nmoves > 0 && cls->nevents == 0);
}

/* The absences confirmed now and not flagged yet, to flag as one event. */
typedef struct absence_flag {
    int cnt;                 /* stones to flag */
    gs_point first;
    gs_color col;
    int mv;                  /* the move after which the first was missed */
    gs_point pts[REC_NPTS];
} absence_flag;

/* Fills target (the record without the confirmed absences) and af;
 * returns the number confirmed. */
static int collect_confirmed(const record *r, const gs_position *rec, const gs_position *obs, bool force,
                             double t_ms, gs_position *target, absence_flag *af)
{
    int nconf = 0;
    *target = *rec;
    af->cnt = 0;
    af->first = (gs_point){-1, -1};
    af->col = GS_EMPTY;
    af->mv = 0;
    for (int i = 0; i < r->size * r->size; i++) {
        if (rec->cell[i] == GS_EMPTY || obs->cell[i] != GS_EMPTY || r->absent.views[i] == 0) continue;
        bool confirmed = force || r->absent.views[i] > REC_ABSENT_VIEWS ||
                         (r->absent.views[i] >= 2 && t_ms - r->absent.t0[i] >= REC_ABSENT_MS);
        if (!confirmed) continue;
        gs_point p = {(int8_t)(i % r->size), (int8_t)(i / r->size)};
        target->cell[i] = GS_EMPTY;
        nconf++;
        if (r->absent.flagged[i]) continue; /* the record follows, no second flag */
        if (af->cnt == 0) {
            af->first = p;
            af->col = (gs_color)rec->cell[i];
            af->mv = r->absent.move[i];
        }
        af->pts[af->cnt++] = p;
    }
    return nconf;
}

/* As stone_removed at the move after which the stone was first missed
 * (wrong_capture when that move captured). */
static void flag_absence(record *r, const gs_position *rec, const absence_flag *af)
{
    char words[400], detail[160], stones[200];
    rec_points_text(af->pts, af->cnt, detail, sizeof detail);
    /* each stone named with its own colour (they may be of both) */
    rec_stones_words(r, rec, af->pts, af->cnt, stones, sizeof stones);
    gs_color col = af->col;
    for (int j = 1; j < af->cnt; j++)
        if (gs_position_get(rec, af->pts[j].x, af->pts[j].y) != col) col = GS_EMPTY;
    if (r->last_capture_move > 0 && r->last_capture_move == af->mv) {
        snprintf(words, sizeof words,
                 "%s lifted while move %d's captures were being removed: a wrong capture (Art. 18, warning)", stones,
                 af->mv);
        rec_flag(r, "wrong_capture", af->mv, col, af->first, words, detail);
    } else {
        snprintf(words, sizeof words,
                 "%s removed from the board for no reason, gone for %d settled views: put %s back (Art. 17.3)", stones,
                 r->absent.views[af->first.y * r->size + af->first.x], af->cnt > 1 ? "them" : "it");
        rec_flag(r, "stone_removed", af->mv > 0 ? af->mv : rec_game_moves(r), col, af->first, words, detail);
    }
}

/* The record follows target; the absences not confirmed yet are counted
 * on from the next view (resync clears every absence). */
static gs_status follow_absences(record *r, const gs_position *target, gs_error *err)
{
    rec_absences keep = r->absent;
    gs_status st = rec_resync_to(r, target, true, err);
    for (int i = 0; i < r->size * r->size; i++)
        if (target->cell[i] != GS_EMPTY) {
            r->absent.views[i] = keep.views[i];
            r->absent.t0[i] = keep.t0[i];
            r->absent.move[i] = keep.move[i];
            r->absent.flagged[i] = keep.flagged[i];
            r->absent.sure[i] = keep.sure[i];
            r->absent.conf[i] = keep.conf[i];
        }
    return st;
}

/* Absences confirmed (or all of them when force: the game ends) are
 * flagged once and the record follows the board there. */
gs_status rec_confirm_absences(record *r, const gs_position *obs, bool force, double t_ms, gs_error *err)
{
    gs_position rec, target;
    rules_game_position(r->game, &rec);
    absence_flag af;
    if (!collect_confirmed(r, &rec, obs, force, t_ms, &target, &af)) return GS_OK;
    if (af.cnt > 0) flag_absence(r, &rec, &af); /* else flagged already */
    gs_status st = follow_absences(r, &target, err);
    if (st != GS_OK) return st;
    return rec_save(r, err);
}

/* A stone gained at a neighbour of point i in obs (a move that might have
 * lifted i as a capture, right or wrong). */
static bool beside_new_stone(const record *r, const gs_position *rec, const gs_position *obs, int i)
{
    static const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
    int x = i % r->size, y = i / r->size;
    for (int d = 0; d < 4; d++) {
        int ax = x + dx[d], ay = y + dy[d];
        if (ax < 0 || ay < 0 || ax >= r->size || ay >= r->size) continue;
        int j = ay * r->size + ax;
        if (obs->cell[j] != GS_EMPTY && rec->cell[j] != obs->cell[j]) return true;
    }
    return false;
}

/* Why a stone seen back was taken as a misread. */
static void absence_why(const record *r, int i, char *buf, size_t len)
{
    if (r->absent.conf[i] < 0) snprintf(buf, len, "confidences unknown");
    else if (r->absent.conf[i] >= (float)RECORD_SURE) snprintf(buf, len, "not hand-free");
    else snprintf(buf, len, "lowest confidence %.2f", r->absent.conf[i]);
}

/* The absence at i began in the pending irregular view: when that view is
 * undone, the stone's return is part of what it showed (undone.c: a moved
 * stone is a stone lifted and one put down elsewhere in one view). */
static bool began_in_pending(const record *r, int i)
{
    return r->irr.have_pending && r->absent.views[i] == 1 && r->absent.t0[i] == r->irr.pending_kept.t;
}

/* Stones seen again end their absence: those first missed surely were
 * lifted and put back (flagged, corrected.c), the others a misread (a
 * note).  Returns the number of stones of the record missing from obs. */
static int note_returns(record *r, const gs_position *rec, const gs_position *obs)
{
    int missing = 0, back[REC_NPTS], nback = 0;
    /* (a stone the record no longer has, captured by a move committed
     * since, was not put back: its absence just ends) */
    for (int i = 0; i < r->size * r->size; i++)
        if (r->absent.views[i] > 0 && rec->cell[i] != GS_EMPTY && obs->cell[i] == rec->cell[i] &&
            !began_in_pending(r, i))
            back[nback++] = i;
    if (nback) rec_absences_undone(r, back, nback);
    for (int i = 0; i < r->size * r->size; i++) {
        if (rec->cell[i] != GS_EMPTY && obs->cell[i] == GS_EMPTY) {
            missing++;
            continue;
        }
        if (r->absent.views[i] > 0 && rec->cell[i] != GS_EMPTY && obs->cell[i] == rec->cell[i] && !r->absent.sure[i] &&
            !began_in_pending(r, i)) {
            char h[8], why[40];
            gs_point p = {(int8_t)(i % r->size), (int8_t)(i / r->size)};
            rules_point_human(p, r->size, h);
            absence_why(r, i, why, sizeof why);
            rec_event_add(r, RECORD_EV_NOTE, "misread", rec_game_moves(r), (gs_color)rec->cell[i], p,
                          "stone at %s not seen for %d view%s and back: a misread or occlusion, no move (%s)", h,
                          r->absent.views[i], r->absent.views[i] == 1 ? "" : "s", why);
        }
        r->absent.views[i] = 0;
        r->absent.sure[i] = false;
        if (obs->cell[i] == rec->cell[i]) r->absent.flagged[i] = false;
    }
    if (!rec_any_absent(r)) rec_kept_free(&r->absent.kept);
    return missing;
}

/* At most REC_SURE_MAX_CHANGES points of obs differ from rec. */
static bool few_changes(const record *r, const gs_position *rec, const gs_position *obs)
{
    int n = 0;
    for (int i = 0; i < r->size * r->size; i++) n += obs->cell[i] != rec->cell[i];
    return n <= REC_SURE_MAX_CHANGES;
}

/* Counts one more view away for each missing stone held (r->cls holds the
 * classification of obs).  A plain removal is held; in a view with other
 * changes, a stone gone beside a stone just put down (a capture, right or
 * wrong, or a moved stone) is judged as seen, one away from every new
 * stone is held; a stone already held stays held whatever the later views
 * add. */
static void count_absences(record *r, const gs_position *rec, const gs_position *obs, double t_ms)
{
    /* (the view as a whole: hand-free, few changes; each point's own
     * confidence below) */
    bool view_sure = r->seen.known && r->seen.clear && few_changes(r, rec, obs);
    bool plain = true;
    for (int i = 0; i < r->cls->nevents; i++) plain &= r->cls->events[i].type == RULES_EV_STONE_REMOVED;
    for (int i = 0; i < r->size * r->size; i++) {
        if (rec->cell[i] == GS_EMPTY || obs->cell[i] != GS_EMPTY) continue;
        if (r->absent.views[i] == 0) {
            /* not held: the view goes through as seen; a stone already
             * flagged (wrong capture, ...) and still away is held though:
             * its absence is confirmed later, with no second flag */
            if (!plain && !r->absent.flagged[i] && beside_new_stone(r, rec, obs, i)) continue;
            r->absent.t0[i] = t_ms;
            r->absent.move[i] = rec_game_moves(r);
            /* seen surely empty in a hand-free view: lifted, not misread */
            r->absent.conf[i] = r->seen.known ? r->seen.conf[i] : -1.0f;
            /* (not while an illegal move stands: lifted as its capture) */
            r->absent.sure[i] = view_sure && r->seen.conf[i] >= (float)RECORD_SURE && !r->irr.have_flagged;
            if (r->absent.sure[i] && !r->absent.kept.view) rec_kept_take(r, &r->absent.kept);
        }
        r->absent.views[i]++;
    }
}

/* A stone first missed in a view that also brings moves (r->cls, to be
 * committed) went with them: it counts from the view's last move (lifted
 * after it, by its player when the stone is the other colour's: a wrong
 * capture, corrected.c), not from the move before the view. */
static void count_from_view_moves(record *r, const gs_position *rec, const gs_position *held, double t_ms)
{
    if (r->cls->nmoves == 0) return;
    for (int i = 0; i < r->size * r->size; i++)
        if (rec->cell[i] != GS_EMPTY && held->cell[i] == rec->cell[i] && r->absent.views[i] == 1 &&
            r->absent.t0[i] == t_ms)
            r->absent.move[i] = rec_game_moves(r) + r->cls->nmoves;
}

gs_status rec_hold_absences(record *r, gs_position *obs, double t_ms, gs_error *err)
{
    gs_position rec;
    rules_game_position(r->game, &rec);
    if (!note_returns(r, &rec, obs)) return GS_OK;
    gs_error e;
    /* a view the referee cannot read is not held here: classify_and_commit
     * reads it next and reports the failure */
    if (rules_classify(r->game, obs, r->cls, &e) != GS_OK) return GS_OK;
    if (view_is_clean(r->cls)) {
        /* captured by a legal move: nothing is missing */
        memset(r->absent.views, 0, sizeof r->absent.views);
        return GS_OK;
    }
    count_absences(r, &rec, obs, t_ms);
    gs_status st = rec_confirm_absences(r, obs, false, t_ms, err);
    if (st != GS_OK) return st;
    /* the stones still held go back in place, but only when that makes the
     * view a plain one (no change or legal moves): otherwise the view is
     * irregular anyway and goes through as seen */
    rules_game_position(r->game, &rec);
    gs_position held = *obs;
    int nheld = 0;
    for (int i = 0; i < r->size * r->size; i++)
        if (rec.cell[i] != GS_EMPTY && obs->cell[i] == GS_EMPTY && r->absent.views[i] > 0) {
            held.cell[i] = rec.cell[i];
            nheld++;
        }
    if (!nheld) return GS_OK;
    /* (a failed reading keeps the view as seen, as an unclean one) */
    if (rules_classify(r->game, &held, r->cls, &e) != GS_OK || !view_is_clean(r->cls)) return GS_OK;
    *obs = held;
    count_from_view_moves(r, &rec, obs, t_ms);
    return GS_OK;
}
