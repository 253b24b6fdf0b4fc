/* record/reconcile.c: how a settled view follows from the record.
 *
 * The rules engine's referee (rules_classify) says how the view follows
 * from the game; then, in order:
 *  - legal moves (or no change): commit them;
 *  - an illegal move (ko retake, suicide): flag at once, wait for the
 *    stone to be lifted;
 *  - anything else irregular is held as pending until the next settled
 *    view confirms it; undone by that view, it was a violation corrected
 *    at once when it was seen surely (flagged, corrected.c), else a
 *    misread (dropped); confirmed, it is followed by the first stage that explains
 *    it: stones added out of turn (flagged passes), stones pushed to a
 *    neighbouring point with moves (flagged, the record follows), else
 *    every change flagged and the record follows the board (setup node).
 * Captured stones still seen (ghosts) are the empty points they are in the
 * record while they are lifted, and flagged as a missed capture when the
 * opponent plays first. */
#include "record/record_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------- the ghosts */

static void ghost_forget(record *r, int i)
{
    r->ghost.move[i] = 0;
    r->ghost.flagged[i] = r->ghost.lifted[i] = r->ghost.seen_clear[i] = false;
}

void rec_ghosts_clean(record *r, const gs_position *rec, const uint8_t *uncertain, gs_position *out)
{
    for (int i = 0; i < r->size * r->size; i++) {
        if (r->ghost.lifted[i]) ghost_forget(r, i); /* lifted in the view before */
        /* a point not read (a hand over it) says nothing of its lifting */
        if (!r->ghost.move[i] || (uncertain && uncertain[i])) continue;
        if (out->cell[i] == r->ghost.color[i] && rec->cell[i] == GS_EMPTY) {
            out->cell[i] = GS_EMPTY; /* still there, being lifted */
            r->ghost.seen_clear[i] |= r->seen.clear;
        } else if (rec->cell[i] == GS_EMPTY && out->cell[i] == GS_EMPTY) {
            r->ghost.lifted[i] = true; /* lifted: done after this view */
        } else {
            ghost_forget(r, i);        /* changed */
        }
    }
}

/* The missed captures among the ghosts (pick: which ghost counts) flagged
 * by capturing move: "... still on the board <why>". */
static void flag_ghosts(record *r, const char *why, bool lifted)
{
    int n = r->size * r->size;
    for (int i = 0; i < n; i++) {
        if (!r->ghost.move[i] || r->ghost.flagged[i] || r->ghost.lifted[i] != lifted) continue;
        if (lifted && !r->ghost.seen_clear[i]) continue;
        int mv = r->ghost.move[i];
        gs_color c = (gs_color)r->ghost.color[i];
        gs_point pts[REC_NPTS];
        int cnt = 0;
        for (int j = i; j < n; j++) {
            if (r->ghost.move[j] != mv || r->ghost.flagged[j] || r->ghost.lifted[j] != lifted) continue;
            if (lifted && !r->ghost.seen_clear[j]) continue;
            r->ghost.flagged[j] = true;
            pts[cnt++] = (gs_point){(int8_t)(j % r->size), (int8_t)(j / r->size)};
        }
        char detail[160], words[200];
        rec_points_text(pts, cnt, detail, sizeof detail);
        snprintf(words, sizeof words, "%d captured %s stone%s still on the board %s (Art. 4: captured stones are removed)",
                 cnt, c == GS_BLACK ? "black" : "white", cnt > 1 ? "s" : "", why);
        rec_flag(r, "missed_capture", mv, c, pts[0], words, detail);
    }
}

/* Flags captures still on the board when the opponent moves (or at the
 * end): a missed capture belongs to the capturing move. */
void rec_ghosts_flag(record *r, const char *why) { flag_ghosts(r, why, false); }

void rec_ghosts_flag_lifted(record *r, int next_move)
{
    char why[160];
    snprintf(why, sizeof why,
             "in a hand-free view after it, and lifted only with the next move (%d): the capture was not finished "
             "before the opponent played", next_move);
    flag_ghosts(r, why, true);
}

/* Ghosts read as the empty points they are in the record. */
static void drop_ghosts(record *r, gs_position *p)
{
    gs_position rec;
    rules_game_position(r->game, &rec);
    for (int i = 0; i < r->size * r->size; i++)
        if (r->ghost.move[i] && p->cell[i] == r->ghost.color[i] && rec.cell[i] == GS_EMPTY) p->cell[i] = GS_EMPTY;
}

/* Stones the record says were captured but are still seen: being lifted. */
static void mark_ghosts(record *r, const gs_position *obs)
{
    gs_position rec;
    rules_game_position(r->game, &rec);
    for (int i = 0; i < r->size * r->size; i++)
        if (obs->cell[i] != GS_EMPTY && rec.cell[i] == GS_EMPTY) {
            r->ghost.move[i] = rec_game_moves(r);
            r->ghost.color[i] = obs->cell[i];
            r->ghost.flagged[i] = r->ghost.lifted[i] = false;
            r->ghost.seen_clear[i] = r->seen.clear;
        }
}

/* What the view about to be followed rests on, for its flags: the pending
 * view (its time, its lowest confidence) and the one that confirmed it, or
 * the last view alone. */
static void note_basis(record *r, bool pending)
{
    char tb[24];
    rec_fmt_time(pending ? r->irr.pending_kept.t : r->cur_t, tb);
    float conf = r->irr.pending_conf;
    if (!pending) (void)rec_view_sure(r, &r->last_obs, &conf);
    /* 26 characters at most, so the whole basis always fits its 96 */
    char cs[27] = "confidences unknown";
    if (conf >= 0) snprintf(cs, sizeof cs, "lowest confidence %.2f", conf);
    snprintf(r->irr.basis, sizeof r->irr.basis, "seen at %s (%s)%s", tb, cs,
             pending ? " and again in the next settled view" : ", the last view");
}

/* words, then what the view rests on when a confirmed view is followed */
static const char *with_basis(const record *r, const char *words, char *buf, size_t len)
{
    if (!r->irr.basis[0]) return words;
    snprintf(buf, len, "%s; %s", words, r->irr.basis);
    return buf;
}

/* ----------------------------------------------- stones out of alternation */

/* Explains obs from the record as stones added in alternation, with passes
 * inserted where one colour played twice (a double move or an unannounced
 * pass), captures included.  Fills plan and returns its length, or -1 if
 * the change is not of that kind. */
typedef struct plan_move { gs_color c; gs_point p; bool pass; } plan_move;
#define PLAN_MAX (2 * RULES_CLASSIFY_MAX_MOVES * 4)

static int plan_additions(record *r, const gs_position *obs, plan_move *plan, int max)
{
    gs_position rec;
    rules_game_position(r->game, &rec);
    int n = r->size * r->size;
    gs_point add[2][REC_NPTS];
    int nadd[2] = {0, 0};
    for (int i = 0; i < n; i++) {
        if (obs->cell[i] == rec.cell[i] || obs->cell[i] == GS_EMPTY) continue;
        if (rec.cell[i] != GS_EMPTY) return -1; /* a stone changed colour */
        int k = obs->cell[i] == GS_BLACK ? 0 : 1;
        add[k][nadd[k]++] = (gs_point){(int8_t)(i % r->size), (int8_t)(i / r->size)};
    }
    if (nadd[0] + nadd[1] == 0 || nadd[0] + nadd[1] > max / 2) return -1;
    rules_game *g = rules_game_clone(r->game);
    if (!g) return -1;
    int np = 0;
    bool used[2][REC_NPTS];
    memset(used, 0, sizeof used);
    int left[2] = {nadd[0], nadd[1]};
    gs_color c = rules_game_to_move(g);
    while (left[0] + left[1] > 0 && np < max) {
        int k = c == GS_BLACK ? 0 : 1;
        int pick = -1;
        if (left[k] > 0) {
            for (int j = 0; j < nadd[k] && pick < 0; j++)
                if (!used[k][j] && rules_game_check(g, c, add[k][j]) == RULES_LEGAL) pick = j;
            if (pick < 0) break; /* none legal: not explainable this way */
            used[k][pick] = true;
            left[k]--;
            rules_game_play(g, c, add[k][pick], NULL);
            plan[np++] = (plan_move){c, add[k][pick], false};
        } else {
            rules_game_pass(g, c);
            plan[np++] = (plan_move){c, {-1, -1}, true};
        }
        c = gs_color_other(c);
    }
    bool ok = left[0] + left[1] == 0;
    if (ok) {
        /* every stone removed in obs must have been captured; captured
         * stones still seen are tolerated (ghosts, flagged later) */
        gs_position after;
        rules_game_position(g, &after);
        for (int i = 0; i < n && ok; i++)
            if (after.cell[i] != obs->cell[i] && !(after.cell[i] == GS_EMPTY && rec.cell[i] == obs->cell[i])) ok = false;
    }
    rules_game_destroy(g);
    return ok ? np : -1;
}

/* The pass inserted at plan[i] follows the record's last stone, played by
 * the other colour in an earlier settled view, and is the plan's only one:
 * that colour's second stone came in a view of its own and stayed (the
 * caller saw it confirmed or at the end): an unannounced pass by plan[i]'s
 * colour, not a double move, which shows two stones of one colour at once
 * or a second one taken back (undone.c). */
static bool pass_between_views(const record *r, const plan_move *plan, int np, int i)
{
    if (i != 0 || np < 2 || plan[1].pass) return false;
    for (int k = 1; k < np; k++)
        if (plan[k].pass) return false;
    int n = rules_game_move_count(r->game);
    if (n == 0) return false;
    gs_move last = rules_game_move(r->game, n - 1);
    return !last.pass && last.color == plan[1].c;
}

/* A note for an unannounced pass (pass_between_views) at move num, the
 * colour's next stone at second. */
static void note_unannounced_pass(record *r, int num, gs_color passer, gs_point second)
{
    char h[8];
    rules_point_human(second, r->size, h);
    rec_event_add(r, RECORD_EV_NOTE, "unannounced_pass", num, passer, second,
                  "%s played again at %s after a settled view, and the stone stayed while play went on: recorded as "
                  "an unannounced pass by %s (move %d), no referee event", rules_color_name(gs_color_other(passer)), h,
                  rules_color_name(passer), num);
}

/* Commits a plan of plan_additions (stones out of alternation): an
 * inserted pass its side announced is a pass; else it is an unannounced
 * pass when the second stone came in a view of its own and stayed
 * (pass_between_views), and a double move when both stones appeared at
 * once. */
static gs_status commit_plan(record *r, const gs_position *obs, const plan_move *plan, int np, gs_error *err)
{
    char when[64];
    snprintf(when, sizeof when, "when the next move (%d) was played", rec_game_moves(r) + 1);
    rec_ghosts_flag(r, when);
    rec_ghosts_flag_lifted(r, rec_game_moves(r) + 1);
    int adds = 0;
    for (int i = 0; i < np; i++) adds += !plan[i].pass;
    for (int i = 0; i < np; i++) {
        int num = rec_game_moves(r) + 1;
        /* a pass its side announced is no double move: the players said so */
        bool announced = plan[i].pass && r->announced_pass[plan[i].c] > 0;
        if (announced) r->announced_pass[plan[i].c]--;
        bool between = plan[i].pass && !announced && pass_between_views(r, plan, np, i);
        gs_status st = rec_commit_move(r, plan[i].c, plan[i].p, plan[i].pass, announced, err);
        if (st != GS_OK) return st;
        if (!plan[i].pass || announced) continue;
        /* the point is the second stone in a row: what a "void" ruling takes off */
        gs_point second = i + 1 < np && !plan[i + 1].pass ? plan[i + 1].p : (gs_point){-1, -1};
        if (between) {
            note_unannounced_pass(r, num, plan[i].c, second);
            continue;
        }
        char words[200];
        gs_color twice = gs_color_other(plan[i].c);
        int before = rules_game_move_count(r->game) - 2; /* the move before the inferred pass */
        gs_move prev = before >= 0 ? rules_game_move(r->game, before) : (gs_move){GS_EMPTY, {-1, -1}, false};
        if (prev.pass && prev.color == twice)
            snprintf(words, sizeof words,
                     "%s passed at move %d and then played a stone with no move of %s between: recorded as an "
                     "unannounced pass by %s (Art. 18: double move, warning)",
                     rules_color_name(twice), num - 1, rules_color_name(plan[i].c), rules_color_name(plan[i].c));
        else
            snprintf(words, sizeof words,
                     "%s played twice in a row (%d stone%s appeared at once); "
                     "recorded as an unannounced pass by %s (Art. 18: double move, warning)",
                     rules_color_name(twice), adds, adds == 1 ? "" : "s", rules_color_name(plan[i].c));
        char detail[4] = "";
        if (second.x >= 0) sgf_point_format(second, detail);
        char full[320];
        rec_flag(r, "double_move", num, gs_color_other(plan[i].c), second, with_basis(r, words, full, sizeof full),
                 detail[0] ? detail : NULL);
    }
    mark_ghosts(r, obs);
    return GS_OK;
}

/* ------------------------------------------------- the pending view */

/* Every change the pending view showed is still there in obs: the pending
 * view really happened (it is not a misread), e.g. a double move followed by
 * the opponent's stone, which alone would look like two moves in order. */
static bool pending_persists(record *r, const gs_position *obs)
{
    gs_position rec;
    rules_game_position(r->game, &rec);
    int n = r->size * r->size, changes = 0;
    for (int i = 0; i < n; i++) {
        if (r->irr.pending_obs.cell[i] == rec.cell[i]) continue;
        changes++;
        if (obs->cell[i] != r->irr.pending_obs.cell[i]) return false;
    }
    return changes > 0;
}

/* The pending view was real, and play went on from it: obs follows from
 * the pending view (its stones added as a plan) by moves with no more
 * referee events than obs directly from the record (direct_events).  E.g.
 * a stone played after an unannounced pass, seen once, then captured by
 * the next move: the capture hides it from every later view. */
static bool pending_continues(record *r, const gs_position *obs, int direct_events)
{
    plan_move plan[PLAN_MAX];
    int np = plan_additions(r, &r->irr.pending_obs, plan, PLAN_MAX);
    if (np <= 0) return false;
    rules_game *g = rules_game_clone(r->game);
    rules_classification *cls = malloc(sizeof *cls);
    bool ok = g && cls;
    for (int i = 0; i < np && ok; i++) {
        if (plan[i].pass) rules_game_pass(g, plan[i].c);
        else ok = rules_game_play(g, plan[i].c, plan[i].p, NULL) == RULES_LEGAL;
    }
    gs_error e;
    if (ok) ok = rules_classify(g, obs, cls, &e) == GS_OK && cls->nmoves > 0 && cls->nevents <= direct_events;
    free(cls);
    rules_game_destroy(g);
    return ok;
}

/* The moves in r->cls confirm the pending view: it persists, or play may
 * have gone on from it (its stone captured at once, or hidden by a wrong
 * capture).  It stands when that explains this view with no more referee
 * events than a direct reading (a misread stone then rarely fits: its
 * vanishing would be an event). */
static bool pending_confirmed(record *r, const gs_position *obs)
{
    const rules_classification *cls = r->cls;
    if (cls->nmoves == 0 || !r->irr.have_pending) return false;
    return pending_persists(r, obs) || pending_continues(r, obs, cls->nevents);
}

/* --------------------------------------------------- referee events */

/* The same stones, still away: flagged once. */
static bool removal_flagged(const record *r, const rules_event *ev)
{
    if ((ev->type != RULES_EV_STONE_REMOVED && ev->type != RULES_EV_WRONG_CAPTURE) || ev->npoints <= 0) return false;
    bool all_flagged = true;
    for (int j = 0; j < ev->npoints; j++) all_flagged &= r->absent.flagged[ev->points[j].y * r->size + ev->points[j].x];
    return all_flagged;
}

static void flag_classified_events(record *r, const rules_classification *cls, int base_move)
{
    for (int i = 0; i < cls->nevents; i++) {
        const rules_event *ev = &cls->events[i];
        if (ev->type == RULES_EV_MISSED_CAPTURE) continue; /* handled as ghosts */
        if (removal_flagged(r, ev)) continue;
        char detail[200];
        rec_points_text(ev->points, ev->npoints, detail, sizeof detail);
        int mv = rec_event_move(r, ev, base_move);
        gs_point p = ev->npoints ? ev->points[0] : (gs_point){-1, -1};
        if (ev->type == RULES_EV_STONE_REMOVED || ev->type == RULES_EV_WRONG_CAPTURE ||
            ev->type == RULES_EV_MOVED_STONE)
            for (int j = 0; j < ev->npoints; j++) /* a later confirmed absence there is not flagged again */
                r->absent.flagged[ev->points[j].y * r->size + ev->points[j].x] = true;
        /* a removal held back as a possible misread belongs to the move
         * after which the stone was first missed */
        int removed_after = rec_game_moves(r);
        if (ev->type == RULES_EV_STONE_REMOVED && p.x >= 0) {
            int pi = p.y * r->size + p.x;
            if (r->absent.views[pi] > 0 && r->absent.move[pi] <= rec_game_moves(r)) {
                removed_after = r->absent.move[pi];
                if (removed_after > 0) mv = removed_after;
            }
        }
        if (ev->type == RULES_EV_STONE_REMOVED && r->last_capture_move > 0 &&
            (r->last_capture_move == rec_game_moves(r) || r->last_capture_move == removed_after)) {
            /* lifted while the last move's captures were being taken off
             * and before any other move: part of that capture */
            char words[300];
            snprintf(words, sizeof words,
                     "%.200s; lifted while move %d's captures were being removed: a wrong capture (Art. 18, warning)",
                     ev->text, r->last_capture_move);
            rec_flag(r, "wrong_capture", r->last_capture_move, ev->color, p, words, detail);
            continue;
        }
        char full[360];
        rec_flag(r, rules_event_code(ev->type), mv, ev->color, p, with_basis(r, ev->text, full, sizeof full), detail);
    }
}

/* ------------------------------------------------- the regular cases */

/* Commits the moves of a successful classification in r->cls. */
static gs_status commit_classified(record *r, const gs_position *obs, gs_error *err)
{
    rules_classification *cls = r->cls;
    int base = rec_game_moves(r) + 1;
    /* captures from before still on the board while a new move comes */
    char when[64];
    snprintf(when, sizeof when, "when the next move (%d) was played", rec_game_moves(r) + 1);
    rec_ghosts_flag(r, when);
    rec_ghosts_flag_lifted(r, rec_game_moves(r) + 1);
    int nm = cls->nmoves;
    rules_classified_move moves[RULES_CLASSIFY_MAX_MOVES];
    memcpy(moves, cls->moves, (size_t)nm * sizeof moves[0]);
    for (int i = 0; i < nm; i++) {
        gs_status st = rec_commit_move(r, moves[i].move.color, moves[i].move.pt, moves[i].move.pass, false, err);
        if (st != GS_OK) return st;
    }
    mark_ghosts(r, obs);
    flag_classified_events(r, cls, base);
    return GS_OK;
}

void rec_clear_pending(record *r)
{
    r->irr.have_pending = false;
    rec_kept_free(&r->irr.pending_kept);
}

/* No change, or legal moves (r->cls): a pending view is undone (flagged as
 * a corrected violation when it was seen surely, else a misread), the
 * moves committed.  quiet: say nothing of the pending view (the end of the
 * game confirms it now). */
static gs_status commit_regular(record *r, const gs_position *obs, bool quiet, gs_error *err)
{
    rules_classification *cls = r->cls;
    /* (the pending view is judged against the record before this view's
     * moves: it came before them; a flag it gives may belong to one of
     * them, so it is given once they are committed) */
    rec_undone u = {0};
    if (r->irr.have_pending && !quiet && !rec_undone_judge(r, obs, &u)) rec_pending_undone(r);
    rec_clear_pending(r);
    r->irr.have_flagged = false;
    if (cls->unchanged) {
        rec_undone_flag(r, &u);
        return GS_OK;
    }
    bool moved = false;
    gs_point dest = {-1, -1};
    for (int i = 0; i < cls->nevents; i++)
        if (cls->events[i].type == RULES_EV_MOVED_STONE && cls->events[i].npoints == 2) {
            moved = true;
            dest = cls->events[i].points[1];
        }
    gs_status st = commit_classified(r, obs, err);
    if (st != GS_OK) {
        rec_kept_free(&u.kept);
        return st;
    }
    rec_undone_flag(r, &u);
    /* a stone pushed while the moves were played: flagged, and the record
     * follows the board (as for a moved stone alone) */
    if (moved) {
        ghost_forget(r, dest.y * r->size + dest.x); /* pushed there, not captured */
        gs_position fol = *obs;
        drop_ghosts(r, &fol);
        st = rec_resync_to(r, &fol, true, err);
        if (st != GS_OK) return st;
    }
    return rec_save(r, err);
}

static bool is_illegal_move_event(rules_event_type t)
{
    return t == RULES_EV_KO || t == RULES_EV_SUPERKO || t == RULES_EV_SUICIDE || t == RULES_EV_CYCLE;
}

/* An illegal move (ko retake, suicide, ...): flagged at once; the view is
 * not followed (the stone should come off again). */
static gs_status flag_illegal(record *r, const gs_position *obs, gs_error *err)
{
    rec_clear_pending(r);
    flag_classified_events(r, r->cls, rec_game_moves(r) + 1);
    r->irr.have_flagged = true;
    r->irr.flagged_obs = *obs;
    return rec_save(r, err);
}

/* An illegal move flagged at once when the view was seen surely (or the
 * recording ends), else when the next view shows the same: a flag that
 * rests on a point the reading doubts waits for the views to agree. */
static gs_status flag_illegal_when_sure(record *r, const gs_position *obs, bool at_end, gs_error *err)
{
    bool agreed = r->irr.have_doubted && rec_pos_equal(&r->irr.doubted_obs, obs);
    r->irr.have_doubted = false;
    /* (a view given without confidences has no doubt to wait on) */
    if (agreed || at_end || !r->seen.known || rec_view_sure(r, obs, NULL)) return flag_illegal(r, obs, err);
    r->irr.have_doubted = true;
    r->irr.doubted_obs = *obs;
    return GS_OK;
}

/* ------------------------------------------- following a confirmed view */

/* The view that stands: the pending view (or obs at the end).  A stone the
 * pending view lacked and obs shows back was lifted and put back (a wrong
 * capture corrected): it is back in *p and listed in restored (a stone it
 * added and obs lacks may have been captured since: it stays).  false when
 * all of it was undone. */
static bool confirmed_view(record *r, const gs_position *obs, gs_position *p, int *restored, int *nrestored)
{
    *nrestored = 0;
    bool pending = r->irr.have_pending;
    *p = pending ? r->irr.pending_obs : *obs;
    note_basis(r, pending);
    rec_clear_pending(r);
    if (!pending) return true;
    gs_position rec;
    rules_game_position(r->game, &rec);
    for (int i = 0; i < r->size * r->size; i++)
        if (rec.cell[i] != GS_EMPTY && p->cell[i] == GS_EMPTY && obs->cell[i] == rec.cell[i]) {
            restored[(*nrestored)++] = i;
            p->cell[i] = rec.cell[i];
        }
    return !rec_pos_equal(p, &rec);
}

/* Stones a pending view showed lifted and the next view shows back: a
 * stone next to a plan move of the other colour was lifted as if that move
 * had captured it: a wrong capture, corrected (RULES.md: warning, stones
 * put back), flagged at that move.  Others were a misread or an occlusion. */
static void flag_restored(record *r, const int *restored, int n, const plan_move *plan, int np, int base)
{
    for (int k = 0; k < n; k++) {
        int i = restored[k];
        gs_point q = {(int8_t)(i % r->size), (int8_t)(i / r->size)};
        gs_position rec;
        rules_game_position(r->game, &rec);
        gs_color c = (gs_color)rec.cell[i];
        for (int j = 0; j < np; j++) {
            if (plan[j].pass || plan[j].c == c || abs(plan[j].p.x - q.x) + abs(plan[j].p.y - q.y) != 1) continue;
            char human[8], words[300], s2[3];
            rules_point_human(q, r->size, human);
            sgf_point_format(q, s2);
            snprintf(words, sizeof words,
                     "%s stone at %s lifted as if captured by move %d, then put back: a wrong capture (Art. 18: "
                     "warning, stones put back)", rules_color_name(c), human, base + j);
            rec_flag(r, "wrong_capture", base + j, c, q, words, s2);
            break;
        }
    }
}

/* Stage 1: stones added out of alternation (flagged passes inserted). */
static gs_status follow_plan(record *r, const gs_position *p, const int *restored, int nrestored, bool *done,
                             gs_error *err)
{
    plan_move plan[PLAN_MAX];
    int np = plan_additions(r, p, plan, PLAN_MAX);
    *done = np > 0;
    if (!*done) return GS_OK;
    int base = rec_game_moves(r) + 1;
    gs_status st = commit_plan(r, p, plan, np, err);
    if (st != GS_OK) return st;
    flag_restored(r, restored, nrestored, plan, np, base);
    return rec_save(r, err);
}

/* Stage 1b: the same, once the new stones no legal play can leave on the
 * board (a group of them without liberties) are set aside: those are
 * flagged as stones on a forbidden point (or misread) and read as empty
 * until they are lifted, while the others are the moves they are (else one
 * such stone makes the whole view unexplained and its moves are lost). */
static gs_status follow_plan_aside(record *r, const gs_position *p, const int *restored, int nrestored, bool *done,
                                   gs_error *err)
{
    *done = false;
    gs_position rec, q;
    rules_game_position(r->game, &rec);
    (void)rec_playable(p, &q);
    int n = r->size * r->size, aside[REC_NPTS], na = 0;
    for (int i = 0; i < n; i++) {
        if (p->cell[i] == GS_EMPTY || q.cell[i] != GS_EMPTY) continue;
        /* (a group without liberties of stones the record holds too is a
         * capture not yet seen through: not this stage's) */
        if (rec.cell[i] != GS_EMPTY) return GS_OK;
        aside[na++] = i;
    }
    if (na == 0) return GS_OK;
    plan_move plan[PLAN_MAX];
    int np = plan_additions(r, &q, plan, PLAN_MAX);
    if (np <= 0) return GS_OK;
    *done = true;
    int base = rec_game_moves(r) + 1;
    gs_status st = commit_plan(r, &q, plan, np, err);
    if (st != GS_OK) return st;
    flag_restored(r, restored, nrestored, plan, np, base);
    for (int k = 0; k < na; k++) {
        int i = aside[k];
        gs_point pt = {(int8_t)(i % r->size), (int8_t)(i / r->size)};
        gs_color c = (gs_color)p->cell[i];
        char human[8], words[240], s2[3];
        rules_point_human(pt, r->size, human);
        sgf_point_format(pt, s2);
        snprintf(words, sizeof words,
                 "a %s stone at %s without liberties: no legal play leaves it there (a stone on a forbidden "
                 "point, or misread); it comes off", c == GS_BLACK ? "black" : "white", human);
        rec_flag(r, "suicide", rec_game_moves(r), c, pt, words, s2);
    }
    rec_keep_left_out(r, p, &q, rec_game_moves(r));
    return rec_save(r, err);
}

/* Stones of the record missing from p with a new stone of their colour on
 * a neighbouring point (each new stone used once): pushed there. */
static int find_pushes(record *r, const gs_position *p, gs_point *from, gs_point *to, int max)
{
    static const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
    gs_position rec;
    rules_game_position(r->game, &rec);
    bool used[REC_NPTS] = {0};
    int n = 0;
    for (int i = 0; i < r->size * r->size && n < max; i++) {
        if (rec.cell[i] == GS_EMPTY || p->cell[i] != GS_EMPTY) continue;
        int x = i % r->size, y = i / r->size;
        for (int d = 0; d < 4; d++) {
            int ax = x + dx[d], ay = y + dy[d];
            if (ax < 0 || ay < 0 || ax >= r->size || ay >= r->size) continue;
            int j = ay * r->size + ax;
            if (used[j] || rec.cell[j] != GS_EMPTY || p->cell[j] != rec.cell[i]) continue;
            used[j] = true;
            from[n] = (gs_point){(int8_t)x, (int8_t)y};
            to[n++] = (gs_point){(int8_t)ax, (int8_t)ay};
            break;
        }
    }
    return n;
}

static void flag_push(record *r, const gs_position *p, gs_point from, gs_point to, int at)
{
    char hf[8], ht[8], words[240], d[8];
    rules_point_human(from, r->size, hf);
    rules_point_human(to, r->size, ht);
    sgf_point_format(from, d);
    sgf_point_format(to, d + 3);
    d[2] = ' ';
    gs_color c = gs_position_get(p, to.x, to.y);
    snprintf(words, sizeof words,
             "a %s stone vanished from %s and one appeared at %s: moved stone; put it back (Art. 17.3)",
             c == GS_BLACK ? "Black" : "White", hf, ht);
    char full[360];
    rec_flag(r, "moved_stone", at, c, to, with_basis(r, words, full, sizeof full), d);
}

/* Stage 2: stones pushed to a neighbouring point while moves were played
 * (out of alternation too): the moves stand, each push is flagged and the
 * record follows the board. */
static gs_status follow_pushes(record *r, const gs_position *p, bool *done, gs_error *err)
{
    gs_point from[8], to[8];
    int npush = find_pushes(r, p, from, to, 8);
    *done = false;
    if (npush == 0) return GS_OK;
    gs_position back = *p;
    for (int k = 0; k < npush; k++) {
        gs_position_set(&back, to[k].x, to[k].y, GS_EMPTY);
        gs_position_set(&back, from[k].x, from[k].y, gs_position_get(p, to[k].x, to[k].y));
    }
    plan_move plan[PLAN_MAX];
    int np = plan_additions(r, &back, plan, PLAN_MAX);
    if (np <= 0) return GS_OK;
    *done = true;
    /* flagged at the view's first stone played (the push comes with it,
     * or just after it) */
    int at = rec_game_moves(r) + 1;
    for (int k = 0; k < np && plan[k].pass; k++) at++;
    gs_status st = commit_plan(r, &back, plan, np, err);
    if (st != GS_OK) return st;
    for (int k = 0; k < npush; k++) flag_push(r, p, from[k], to[k], at);
    gs_position fol = *p;
    drop_ghosts(r, &fol);
    st = rec_resync_to(r, &fol, true, err);
    if (st != GS_OK) return st;
    return rec_save(r, err);
}

/* Stage 3: no play explains it: every change flagged, the record follows
 * the board. */
static gs_status follow_board(record *r, const gs_position *p, gs_error *err)
{
    gs_error e;
    if (rules_classify(r->game, p, r->cls, &e) != GS_OK) return gs_error_set(err, e.status, "%s", e.msg);
    flag_classified_events(r, r->cls, rec_game_moves(r) + 1);
    if (r->cls->nevents == 0)
        rec_flag(r, "scattered", rec_game_moves(r) + 1, GS_EMPTY, (gs_point){-1, -1},
                 "the board changed in a way no legal play explains", NULL);
    gs_status st = rec_resync_to(r, p, true, err);
    if (st != GS_OK) return st;
    return rec_save(r, err);
}

/* A confirmed irregular view followed by the first stage that explains it;
 * *again when obs itself must then be judged from the new record. */
static gs_status follow_confirmed(record *r, const gs_position *obs, bool *again, gs_error *err)
{
    gs_position p;
    int restored[REC_NPTS], nrestored;
    if (!confirmed_view(r, obs, &p, restored, &nrestored)) {
        r->irr.basis[0] = 0;
        *again = true; /* all of it undone */
        return GS_OK;
    }
    bool done = false;
    gs_status st = follow_plan(r, &p, restored, nrestored, &done, err);
    if (st == GS_OK && !done) st = follow_plan_aside(r, &p, restored, nrestored, &done, err);
    if (st == GS_OK && !done) st = follow_pushes(r, &p, &done, err);
    if (st == GS_OK && !done) st = follow_board(r, &p, err);
    r->irr.basis[0] = 0;
    if (st != GS_OK) return st;
    *again = !rec_pos_equal(&p, obs); /* now see how this view follows */
    return GS_OK;
}

/* ---------------------------------------------------------- the rounds */

/* One look at obs; *again when it must be looked at again (a confirmed
 * view was followed and obs goes further).  first: the first look. */
static gs_status reconcile_round(record *r, const gs_position *obs, bool at_end, bool first, bool *again,
                                 gs_error *err)
{
    *again = false;
    gs_error e;
    if (rules_classify(r->game, obs, r->cls, &e) != GS_OK) return gs_error_set(err, e.status, "%s", e.msg);
    const rules_classification *cls = r->cls;
    bool confirm = pending_confirmed(r, obs);
    /* moves that leave a stone "removed" beside a new stone of its own
     * colour are more likely a push with other moves (out of turn too):
     * judged as irregular, with the next view */
    bool pushed = cls->nmoves > 0 && !confirm && rules_classification_push_shape(r->game, obs, cls);
    if (!confirm && !pushed && (cls->unchanged || cls->nmoves > 0)) {
        r->irr.have_doubted = false;
        return commit_regular(r, obs, at_end && first, err);
    }
    bool illegal = false;
    for (int i = 0; i < cls->nevents && !pushed; i++) illegal |= is_illegal_move_event(cls->events[i].type);
    /* (a confirmed pending view comes first: this one is judged after it) */
    if (illegal && !confirm) return flag_illegal_when_sure(r, obs, at_end, err);
    r->irr.have_doubted = false;
    if (!r->irr.have_pending && !at_end && !confirm) {
        r->irr.have_pending = true;
        r->irr.pending_obs = *obs;
        /* how surely it was seen, and its frames: a real event even if the
         * next view undoes it (corrected.c) */
        r->irr.pending_sure = rec_view_sure(r, obs, &r->irr.pending_conf);
        rec_kept_take(r, &r->irr.pending_kept);
        return GS_OK;
    }
    return follow_confirmed(r, obs, again, err);
}

gs_status rec_classify_and_commit(record *r, const gs_position *obs_in, bool at_end, gs_error *err)
{
    gs_position obs = *obs_in;
    for (int round = 0; round < 3; round++) {
        /* a move just committed from a pending view may have captured
         * stones this view still shows: being lifted, not new stones */
        if (round > 0) drop_ghosts(r, &obs);
        if (r->irr.have_flagged && rec_pos_equal(&obs, &r->irr.flagged_obs)) return GS_OK;
        bool again;
        gs_status st = reconcile_round(r, &obs, at_end, round == 0, &again, err);
        if (st != GS_OK || !again) return st;
    }
    return GS_OK;
}
