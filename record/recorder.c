/* record/recorder.c: the recorder object: settled positions in
 * (record_observe), the operator's commands (pass, resign, end, stop), the
 * end and its count, the queries.  See record.h for the contract and
 * record_internal.h for the files doing each job. */
#include "record/record_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void record_options_init(record_options *o)
{
    memset(o, 0, sizeof *o);
    o->to_move = GS_EMPTY;
}

/* -------------------------------------------------------- the object */

/* X.sgf -> X.evidence; NULL when out of memory. */
static char *evidence_dir_for(const char *sgf_path)
{
    size_t len = strlen(sgf_path);
    char *dir = malloc(len + 10);
    if (!dir) return NULL;
    memcpy(dir, sgf_path, len + 1);
    if (len > 4 && !strcasecmp(dir + len - 4, ".sgf")) dir[len - 4] = 0;
    strcat(dir, ".evidence");
    return dir;
}

/* The game information of the options, copied into the record. */
static void copy_names(record *r)
{
    const record_options *o = &r->opt;
    snprintf(r->black, sizeof r->black, "%s", o->black ? o->black : "");
    snprintf(r->white, sizeof r->white, "%s", o->white ? o->white : "");
    snprintf(r->black_rank, sizeof r->black_rank, "%s", o->black_rank ? o->black_rank : "");
    snprintf(r->white_rank, sizeof r->white_rank, "%s", o->white_rank ? o->white_rank : "");
    snprintf(r->event, sizeof r->event, "%s", o->event ? o->event : "");
    snprintf(r->round, sizeof r->round, "%s", o->round ? o->round : "");
    snprintf(r->place, sizeof r->place, "%s", o->place ? o->place : "");
    snprintf(r->table, sizeof r->table, "%s", o->table ? o->table : "");
    /* the caller's strings are not kept: our copies are used from here */
    r->opt.black = r->opt.white = r->opt.black_rank = r->opt.white_rank = NULL;
    r->opt.event = r->opt.round = r->opt.place = r->opt.table = NULL;
}

/* The recorder's own copies of the paths; false when out of memory. */
static bool copy_paths(record *r)
{
    if (r->opt.sgf_path) {
        if (!(r->sgf.path = strdup(r->opt.sgf_path))) return false;
        if (!r->opt.evidence_dir && !(r->evid.dir = evidence_dir_for(r->sgf.path))) return false;
    }
    if (r->opt.evidence_dir && r->opt.evidence_dir[0] && !(r->evid.dir = strdup(r->opt.evidence_dir))) return false;
    if (r->sgf.path) {
        r->store.fallback_dir = r->opt.fallback_dir && r->opt.fallback_dir[0]
                                    ? strdup(r->opt.fallback_dir)
                                    : rec_fallback_dir_default(r->sgf.path, r->evid.dir);
        if (!r->store.fallback_dir) return false;
    }
    r->opt.sgf_path = r->opt.evidence_dir = r->opt.fallback_dir = NULL; /* use our copies */
    return true;
}

record *record_create(const record_options *opt, gs_error *err)
{
    record *r = calloc(1, sizeof *r);
    if (!r) {
        gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    record_options_init(&r->opt);
    if (opt) r->opt = *opt;
    r->size = r->opt.size;
    r->cls = malloc(sizeof *r->cls);
    if (!r->cls) goto nomem;
    if (r->size && (r->size < RULES_MIN_SIZE || r->size > GS_MAX_SIZE)) {
        gs_error_set(err, GS_ERR_USAGE, "board size %d out of range", r->size);
        record_destroy(r);
        return NULL;
    }
    if (!copy_paths(r)) goto nomem;
    copy_names(r);
    r->clock_ms = -1;
    if (r->opt.resume) {
        if (!r->sgf.path) {
            gs_error_set(err, GS_ERR_USAGE, "--resume needs the SGF file");
            record_destroy(r);
            return NULL;
        }
        if (rec_resume_game(r, err) != GS_OK) {
            record_destroy(r);
            return NULL;
        }
        rec_events_print(r);
    }
    return r;
nomem:
    gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    record_destroy(r);
    return NULL;
}

void record_destroy(record *r)
{
    if (!r) return;
    rules_game_destroy(r->game);
    sgf_tree_destroy(r->sgf.tree);
    gs_image_destroy(r->evid.prev_frame);
    gs_image_destroy(r->evid.cur_frame);
    rec_kept_free(&r->irr.pending_kept);
    rec_kept_free(&r->absent.kept);
    free(r->past);
    free(r->sgf.move_node);
    free(r->log.ev);
    free(r->cls);
    free(r->sgf.path);
    free(r->evid.dir);
    free(r->store.fallback_dir);
    free(r->store.fallback_path);
    free(r);
}

/* ------------------------------------------------------- observing */

void record_set_clock(record *r, int64_t unix_ms) { r->clock_ms = unix_ms; }

static void keep_frame(record *r, const gs_image *frame, double t_ms)
{
    /* prev = the settled view before this one, cur = this one */
    gs_image_destroy(r->evid.prev_frame);
    r->evid.prev_frame = r->evid.cur_frame;
    r->prev_t = r->cur_t;
    r->evid.cur_frame = frame ? gs_image_copy(frame) : NULL;
    r->cur_t = t_ms;
}

/* Observed position with unreadable points, points a ruling corrected that
 * the board has not followed yet, and captured-but-not-yet-lifted stones
 * (ghosts) replaced by what the record says. */
static void clean_view(record *r, const gs_position *pos, const uint8_t *uncertain, gs_position *out)
{
    gs_position rec;
    rules_game_position(r->game, &rec);
    *out = *pos;
    for (int i = 0; i < r->size * r->size; i++) {
        if (uncertain && uncertain[i]) out->cell[i] = rec.cell[i];
        if (r->fix_pending[i]) {
            if (pos->cell[i] == rec.cell[i]) r->fix_pending[i] = false; /* the board followed */
            else out->cell[i] = rec.cell[i];
        }
    }
    rec_ghosts_clean(r, &rec, uncertain, out);
}

/* The side to move was a guess from the stone counts: the first stone may
 * say otherwise. */
static gs_status check_first_mover(record *r, const gs_position *obs, bool *unchanged, gs_error *err)
{
    gs_error e;
    rules_classification *cls = r->cls;
    *unchanged = false;
    if (rules_classify(r->game, obs, cls, &e) != GS_OK) return gs_error_set(err, e.status, "%s", e.msg);
    if (cls->unchanged) {
        *unchanged = true;
        return GS_OK;
    }
    r->to_move_guessed = false;
    if (cls->nmoves != 0) return GS_OK;
    gs_color tm = rules_game_to_move(r->game), other = gs_color_other(tm);
    rules_game_set_to_move(r->game, other);
    if (rules_classify(r->game, obs, cls, &e) == GS_OK && cls->nmoves > 0 && cls->nevents == 0) {
        rec_event_add(r, RECORD_EV_NOTE, "to_move", 0, other, (gs_point){-1, -1},
                      "%s moves first (the stone counts alone could not tell)", rules_color_name(other));
        rec_check(r, sgf_node_set_text(r->sgf.root, "PL", other == GS_WHITE ? "W" : "B", &e), &e);
    } else {
        rules_game_set_to_move(r->game, tm); /* (a failed reading keeps the guess too) */
    }
    return GS_OK;
}

static gs_status observe_view(record *r, const gs_position *pos, const uint8_t *uncertain, double t_ms,
                              const gs_image *frame, gs_error *err)
{
    if (r->finished) return GS_OK;
    if (r->size && pos->size != r->size)
        return gs_error_set(err, GS_ERR_USAGE, "position of size %d on a %dx%d record", pos->size, r->size, r->size);
    keep_frame(r, frame, t_ms);
    if (!r->started) {
        r->last_obs = *pos;
        r->have_last_obs = true;
        return rec_start_game(r, pos, err);
    }
    /* resumed: the source may still show the game as it was */
    if (rec_catch_up(r, pos, uncertain)) return GS_OK;
    gs_position obs;
    clean_view(r, pos, uncertain, &obs);
    r->last_obs = obs;
    r->have_last_obs = true;
    if (r->ended) {
        /* after the end the dead stones are lifted; new stones mean play
         * went on */
        bool on = false;
        gs_status st = rec_play_went_on(r, &obs, &on, err);
        if (st != GS_OK || !on) return st;
    }
    if (r->irr.have_flagged && rec_pos_equal(&obs, &r->irr.flagged_obs)) return GS_OK;
    if (r->to_move_guessed && rec_game_moves(r) == 0) {
        bool unchanged;
        gs_status st = check_first_mover(r, &obs, &unchanged, err);
        if (st != GS_OK || unchanged) return st;
    }
    gs_status hs = rec_hold_absences(r, &obs, t_ms, err);
    if (hs != GS_OK) return hs;
    return rec_classify_and_commit(r, &obs, false, err);
}

/* How the view was seen, for telling corrected violations from misreads
 * (corrected.c). */
static void note_seen(record *r, const record_view *v)
{
    rec_seen *s = &r->seen;
    s->known = v->confidence != NULL;
    s->clear = v->clear;
    s->doubt_known = v->unsure && v->second;
    int n = v->pos->size * v->pos->size;
    for (int i = 0; i < n && i < REC_NPTS; i++) {
        s->conf[i] = s->known ? v->confidence[i] : 0.0f;
        s->unsure[i] = s->doubt_known && v->unsure[i];
        s->second[i] = s->doubt_known ? (gs_color)v->second[i] : GS_EMPTY;
        s->second_p[i] = s->doubt_known && v->second_p ? v->second_p[i] : 1.0f;
    }
}

gs_status record_observe_view(record *r, const record_view *v, double t_ms, const gs_image *frame, gs_error *err)
{
    if (!v || !v->pos) return gs_error_set(err, GS_ERR_USAGE, "no view");
    note_seen(r, v);
    gs_status st = observe_view(r, v->pos, v->uncertain, t_ms, frame, err);
    /* the move announced passes waited for may be in now */
    if (st == GS_OK) st = rec_announced_passes(r, err);
    rec_events_print(r); /* lines of events that needed no save */
    return st;
}

gs_status record_observe(record *r, const gs_position *pos, const uint8_t *uncertain, double t_ms,
                         const gs_image *frame, gs_error *err)
{
    record_view v = {pos, uncertain, NULL, false, NULL, NULL, NULL};
    return record_observe_view(r, &v, t_ms, frame, err);
}

/* ------------------------------------------- passes, resignation, end */

gs_status rec_commit_pass(record *r, gs_color c, gs_error *err)
{
    if (c == GS_EMPTY) c = rules_game_to_move(r->game);
    if (c != rules_game_to_move(r->game)) {
        /* a pass of the side not to move: the other side passed first */
        gs_status st = rec_commit_move(r, gs_color_other(c), (gs_point){-1, -1}, true, true, err);
        if (st != GS_OK) return st;
    }
    return rec_commit_move(r, c, (gs_point){-1, -1}, true, true, err);
}

void rec_resign(record *r, gs_color c, const char *how)
{
    rules_game_resign(r->game, c);
    r->resigned = c;
    r->ended = true;
    r->may_go_on = false; /* a result: stones after it are no play */
    snprintf(r->result, sizeof r->result, "%s+R", c == GS_BLACK ? "W" : "B");
    rec_event_add(r, RECORD_EV_RESIGN, "resign", rec_game_moves(r), c, (gs_point){-1, -1}, "%s resigns%s: %s",
                  rules_color_name(c), how, r->result);
    rec_set_result(r);
}

void rec_end(record *r, const char *how)
{
    rec_ghosts_flag(r, "at the end of the game");
    r->ended = true;
    r->may_go_on = false;
    r->ended_at = rec_game_moves(r);
    rec_event_add(r, RECORD_EV_END, "end", rec_game_moves(r), GS_EMPTY, (gs_point){-1, -1},
                  "game over%s after %d moves: lift the dead stones, the last settled view is counted", how,
                  rec_game_moves(r));
}

gs_status rec_announced_passes(record *r, gs_error *err)
{
    bool any = false;
    while (r->started && !r->finished && !r->ended && r->announced_pass[rules_game_to_move(r->game)] > 0) {
        gs_color c = rules_game_to_move(r->game);
        r->announced_pass[c]--;
        gs_status st = rec_commit_move(r, c, (gs_point){-1, -1}, true, true, err);
        if (st != GS_OK) return st;
        any = true;
    }
    return any ? rec_save(r, err) : GS_OK;
}

/* Why the game takes no command now ("" when it does): before the first
 * view, after the record closed or the game ended. */
static const char *no_command_why(const record *r, char *buf, size_t len)
{
    if (!r->started) return "no game yet (the board has not been seen settled)";
    if (r->finished) return "the record is closed";
    if (!r->ended) return "";
    if (r->result[0]) snprintf(buf, len, "the game is over (%s)", r->result);
    else snprintf(buf, len, "the game is over (after move %d)", r->ended_at);
    return buf;
}

/* An operator's command the game cannot take: a line says so (a command
 * is never dropped without a word). */
static gs_status command_refused(record *r, const char *what, const char *why, double t_ms)
{
    r->cur_t = t_ms;
    rec_event_add(r, RECORD_EV_NOTE, "command", rec_game_moves(r), GS_EMPTY, (gs_point){-1, -1},
                  "%s not taken: %s", what, why);
    rec_events_print(r);
    return GS_OK;
}

gs_status record_pass(record *r, gs_color c, double t_ms, gs_error *err)
{
    char buf[80], what[24];
    const char *why = no_command_why(r, buf, sizeof buf);
    snprintf(what, sizeof what, "pass%s%s", c == GS_EMPTY ? "" : " ", c == GS_EMPTY ? "" : rec_color_letter(c));
    if (why[0]) return command_refused(r, what, why, t_ms);
    r->cur_t = t_ms;
    gs_color tm = rules_game_to_move(r->game);
    if (c != GS_EMPTY && c != tm) {
        /* said before the other side's last stone was seen settled (a
         * player passes as soon as the opponent has played): it is c's
         * next move */
        r->announced_pass[c]++;
        rec_event_add(r, RECORD_EV_NOTE, "pass_announced", rec_game_moves(r), c, (gs_point){-1, -1},
                      "%s passes: recorded after %s's move, not seen settled yet", rules_color_name(c),
                      rules_color_name(tm));
        rec_events_print(r);
        return GS_OK;
    }
    gs_status st = rec_commit_move(r, tm, (gs_point){-1, -1}, true, true, err);
    if (st == GS_OK) st = rec_save(r, err);
    /* the other side may have announced its pass already */
    if (st == GS_OK) st = rec_announced_passes(r, err);
    return st;
}

gs_status record_resign(record *r, gs_color c, double t_ms, gs_error *err)
{
    char buf[80];
    const char *why = no_command_why(r, buf, sizeof buf);
    /* (after two passes or `end`, before the count, a resignation still
     * decides the game) */
    if (why[0] && (!r->started || r->finished || r->result[0])) return command_refused(r, "resign", why, t_ms);
    r->cur_t = t_ms;
    rec_resign(r, c == GS_EMPTY ? rules_game_to_move(r->game) : c, "");
    return rec_save(r, err);
}

gs_status record_end_game(record *r, double t_ms, gs_error *err)
{
    char buf[80];
    const char *why = no_command_why(r, buf, sizeof buf);
    if (why[0]) return command_refused(r, "end", why, t_ms);
    r->cur_t = t_ms;
    rec_end(r, "");
    r->may_go_on = true; /* the operator's word: stones after it are play going on */
    return rec_save(r, err);
}

/* Notes (camera lost, board found again, an unknown command, ...) are the
 * recorder's diagnostics: they go to the log, never into the SGF, whose
 * comments are for the players and the referee. */
gs_status record_note(record *r, const char *code, const char *text, double t_ms, gs_error *err)
{
    (void)err; /* nothing is saved: nothing can fail */
    r->cur_t = t_ms;
    rec_event_add(r, RECORD_EV_NOTE, code, rec_game_moves(r), GS_EMPTY, (gs_point){-1, -1}, "%s", text);
    rec_events_print(r);
    return GS_OK;
}

gs_status record_comment(record *r, const char *text, double t_ms, gs_error *err)
{
    gs_status st = record_note(r, "note", text, t_ms, err);
    if (st != GS_OK || !r->started || !r->sgf.last) return st;
    gs_error e;
    rec_check(r, sgf_append_comment(r->sgf.last, text, &e), &e);
    return rec_save(r, err);
}

/* A time of the gap as GSGP and the comment write it: ISO 8601 UTC, or
 * ".." when unknown. */
static void gap_time(int64_t ms, char buf[32])
{
    if (ms >= 0) sgf_time_format(ms, buf);
    else snprintf(buf, 32, "..");
}

gs_status record_gap(record *r, int64_t from_ms, int64_t to_ms, const char *why, double t_ms, gs_error *err)
{
    char from[32], to[32], span[48] = "", words[640];
    gap_time(from_ms, from);
    gap_time(to_ms, to);
    if (from_ms >= 0 && to_ms >= from_ms) snprintf(span, sizeof span, " (%.1f s)", (double)(to_ms - from_ms) / 1000.0);
    if (to_ms >= 0)
        snprintf(words, sizeof words, "No picture from the camera from %s to %s%s: %.400s. The moves after this one "
                 "were read from the board as it stood when the picture came back.", from, to, span, why);
    else
        snprintf(words, sizeof words, "No picture from the camera from %s to the end of the recording: %.400s.", from,
                 why);
    r->cur_t = t_ms;
    rec_event_add(r, RECORD_EV_NOTE, "gap", rec_game_moves(r), GS_EMPTY, (gs_point){-1, -1}, "%s", words);
    if (!r->started || !r->sgf.last) {
        rec_events_print(r);
        return GS_OK;
    }
    char value[72];
    snprintf(value, sizeof value, "%s/%s", from, to);
    gs_error e;
    rec_check(r, sgf_node_add_raw(r->sgf.last, "GSGP", value, &e), &e);
    rec_check(r, sgf_append_comment(r->sgf.last, words, &e), &e);
    return rec_save(r, err); /* prints the line once it is on disk */
}

/* The last view settles what still waits: an illegal stone flagged and
 * still standing (the record follows it), a change held or a stone still
 * missing (confirmed now: no later view will come). */
static gs_status settle_last_view(record *r, double t_ms, gs_error *err)
{
    if (!r->have_last_obs) return GS_OK;
    if (r->irr.have_flagged) {
        gs_position rec, seen;
        rules_game_position(r->game, &rec);
        (void)rec_playable(&r->last_obs, &seen); /* what a resync would set */
        r->irr.have_flagged = false;
        return rec_pos_equal(&rec, &seen) ? GS_OK : rec_resync_to(r, &r->last_obs, true, err);
    }
    if (!r->irr.have_pending && !rec_any_absent(r)) return GS_OK;
    gs_status st = GS_OK;
    if (rec_any_absent(r)) st = rec_confirm_absences(r, &r->last_obs, true, t_ms, err);
    /* the view is judged even when the confirmation could not be saved */
    gs_status st2 = rec_classify_and_commit(r, &r->last_obs, true, st == GS_OK ? err : NULL);
    return st != GS_OK ? st : st2;
}

/* Both players put their confirmation stone (RULES.md, End of game) after
 * the last move: the players ended the game. */
static bool both_confirmed(const record *r)
{
    bool seen[3] = {false, false, false};
    int moves = rec_game_moves(r);
    for (size_t i = 0; i < r->log.n; i++) {
        const record_event *ev = &r->log.ev[i];
        if (ev->kind == RECORD_EV_SIGNAL && !strcmp(ev->code, "confirm_signal") && ev->move_number == moves &&
            (ev->color == GS_BLACK || ev->color == GS_WHITE))
            seen[ev->color] = true;
    }
    return seen[GS_BLACK] && seen[GS_WHITE];
}

/* The stones of the record the last view no longer shows: lifted as dead
 * after the end (1 = dead, row-major). */
static void lifted_stones(const record *r, const gs_position *rec, uint8_t *dead)
{
    int n = r->size * r->size;
    memset(dead, 0, (size_t)n);
    if (!r->have_last_obs) return;
    for (int i = 0; i < n; i++) dead[i] = rec->cell[i] != GS_EMPTY && r->last_obs.cell[i] == GS_EMPTY;
}

/* A game counted though it did not end (--count-anyway): its dead stones
 * were never lifted, so they are estimated as `goscribe count` estimates
 * them (rules_estimate_dead, default options: the same answer as `count`
 * of the same board) into est and added to dead.  GS_OK or why not. */
static gs_status estimate_dead(const gs_position *rec, uint8_t *dead, rules_estimate_result *est, gs_error *err)
{
    rules_estimate_options eo;
    rules_estimate_default_options(&eo);
    gs_status st = rules_estimate_dead(rec, &eo, est, err);
    for (int i = 0; st == GS_OK && i < rec->size * rec->size; i++) dead[i] |= est->dead[i];
    return st;
}

/* The doubt of a count of the last view as the end (--count-anyway), as
 * `count` gives it for a photo: the range of the result over the points
 * the last view read with doubt and the chains the estimate could not
 * settle (score_count_range_of), and whether the board looks finished.
 * When that is not sure, the Score line goes after the count's words and
 * into its event, and record_count_sure says so. */
static void count_doubt(record *r, const gs_position *rec, const uint8_t *dead, const rules_estimate_result *est,
                        score_check_result *chk, char *event, size_t elen)
{
    score_count_result *sc = calloc(1, sizeof *sc);
    if (!sc) return; /* (no memory for the range: the count stands, its doubt unsaid) */
    sc->pos = *rec;
    memcpy(sc->dead, dead, sizeof sc->dead);
    sc->est = *est;
    sc->estimate = true;
    sc->count = chk->report.count;
    int n = rec->size * rec->size;
    for (int i = 0; i < n && r->seen.doubt_known; i++) {
        sc->read_unsure[i] = r->seen.unsure[i];
        sc->read_second[i] = r->seen.second[i];
        sc->read_uncertain += r->seen.unsure[i];
    }
    if (r->seen.doubt_known) score_count_leave_out(sc, r->seen.second_p, SCORE_PLAUSIBLE);
    rules_count_opts co;
    rules_count_opts_init(&co);
    co.komi = chk->komi;
    co.handicap = r->count_handicap;
    co.warnings_black = chk->warnings_black;
    co.warnings_white = chk->warnings_white;
    gs_error e;
    sc->looks_finished = score_count_looks_finished(rec, &sc->count, est, sc->not_finished, sizeof sc->not_finished);
    if (score_count_range_of(sc, NULL, &co, &e) == GS_OK && !(sc->range.sure && sc->looks_finished)) {
        sc->range.sure = false;
        r->count_unsure = true;
        gs_buf b = {0};
        score_count_score_line(&b, sc);
        size_t used = strlen(chk->words);
        snprintf(chk->words + used, sizeof chk->words - used, " NOT SURE: %s.", gs_buf_ok(&b) && b.p ? b.p : "");
        used = strlen(event);
        snprintf(event + used, elen - used, "; NOT SURE: %s", gs_buf_ok(&b) && b.p ? b.p : "");
        gs_buf_free(&b);
    }
    free(sc);
}

/* The count's event: its figures, the dead stones and their source. */
static void count_event_words(const rules_count *c, const score_check_result *chk, bool estimate, char *out,
                              size_t len)
{
    char a[32], b[32];
    score_count_stones_format(c->black, a, sizeof a);
    score_count_stones_format(c->white, b, sizeof b);
    gs_buf t = {0};
    gs_buf_printf(&t, "count (area, Chinese rules): Black %s, White %s stones, %d dead stones %s, warnings Black %d "
                  "White %d: %s (RE %s)", a, b, c->dead_black + c->dead_white,
                  estimate ? "by an ESTIMATE (not lifted: the players must confirm)" : "lifted", chk->warnings_black,
                  chk->warnings_white, c->text, c->sgf);
    snprintf(out, len, "%s", gs_buf_ok(&t) && t.p ? t.p : "count (out of memory for its words)");
    gs_buf_free(&t);
}

/* The count taken (r's RE, its figures for the JSON) and its event. */
static void count_record(record *r, const rules_count *c, const score_check_result *chk, const char *event)
{
    snprintf(r->result, sizeof r->result, "%s", c->sgf);
    r->have_count = true;
    r->count = *c;
    r->count_warnings[GS_BLACK] = chk->warnings_black;
    r->count_warnings[GS_WHITE] = chk->warnings_white;
    rec_event_add(r, RECORD_EV_COUNT, "count", rec_game_moves(r), c->winner, (gs_point){-1, -1}, "%s", event);
    if (!chk->looks_finished)
        rec_event_add(r, RECORD_EV_NOTE, "not_finished", rec_game_moves(r), GS_EMPTY, (gs_point){-1, -1},
                      "the count stands as the board is, but %s", chk->not_finished);
}

/* The count of the record's last position, the lifted stones dead (or,
 * estimate: the stones an estimate finds dead, and the count's doubt
 * said): TB/TW on the last node, then RE and the words from
 * score_check_tree of the record itself (the one count `check` makes of
 * the file). */
static void count_game(record *r, bool estimate)
{
    gs_position rec, marks;
    rules_game_position(r->game, &rec);
    uint8_t dead[REC_NPTS];
    lifted_stones(r, &rec, dead);
    gs_error e;
    rules_count *cnt = malloc(sizeof *cnt);
    score_check_result *chk = malloc(sizeof *chk);
    rules_estimate_result *est = estimate ? malloc(sizeof *est) : NULL;
    gs_status st = cnt && chk && (est || !estimate) ? GS_OK : gs_error_set(&e, GS_ERR_NOMEM, "out of memory for the count");
    if (st == GS_OK && estimate) st = estimate_dead(&rec, dead, est, &e);
    if (st == GS_OK) st = rules_count_position(&rec, dead, NULL, cnt, &e);
    if (st == GS_OK) {
        score_count_marks(&rec, dead, cnt, &marks);
        st = sgf_set_final_count(r->sgf.last, &marks, NULL, NULL, &e);
    }
    if (st == GS_OK) st = score_check_tree(r->sgf.tree, NULL, chk, &e);
    if (st == GS_OK) {
        const rules_count *c = &chk->report.count;
        char event[sizeof ((record_event *)0)->text];
        r->count_handicap = chk->handicap >= 2 ? chk->handicap : 0;
        count_event_words(c, chk, estimate, event, sizeof event);
        if (estimate) { /* the words say the dead stones are an estimate, and the doubt */
            score_count_words(c, r->count_handicap, chk->warnings,
                               chk->nwarnings < SCORE_MAX_WARNINGS ? chk->nwarnings : SCORE_MAX_WARNINGS, true,
                               chk->words, sizeof chk->words);
            count_doubt(r, &rec, dead, est, chk, event, sizeof event);
        }
        count_record(r, c, chk, event);
        st = sgf_set_final_count(r->sgf.last, NULL, chk->words, c->sgf, &e);
    }
    rec_check(r, st, &e); /* no count in the SGF: the save says so */
    free(cnt);
    free(chk);
    free(est);
}

/* The game did not end: no result, and the log says why. */
static void no_result(record *r)
{
    rec_event_add(r, RECORD_EV_END, "no_result", rec_game_moves(r), GS_EMPTY, (gs_point){-1, -1},
                  "no result after %d moves: the game did not end (no two passes, resignation, `end` or ruling, "
                  "or both players' confirmation signals); count it with --count-anyway or `goscribe count`",
                  rec_game_moves(r));
}

gs_status record_finish(record *r, double t_ms, gs_error *err)
{
    if (r->finished) return GS_OK;
    r->cur_t = t_ms > 0 ? t_ms : r->cur_t;
    if (!r->started) {
        r->finished = true;
        return gs_error_set(err, GS_ERR_NOBOARD, "no settled view of the board: nothing recorded");
    }
    gs_status st = GS_OK;
    rec_play_on_unconfirmed(r);
    if (!r->ended) {
        rec_ghosts_flag(r, "at the end of the game");
        /* the last view must be the record's last position */
        st = settle_last_view(r, t_ms, err);
    }
    if (!r->ended && both_confirmed(r)) rec_end(r, " (both players signalled it)");
    bool ended = r->ended;
    if (!r->ended && r->opt.count_anyway)
        rec_event_add(r, RECORD_EV_END, "end", rec_game_moves(r), GS_EMPTY, (gs_point){-1, -1},
                      "end of the recording after %d moves, counted as the end of the game (--count-anyway)",
                      rec_game_moves(r));
    /* the end of the input is the end of the recording, not of the game:
     * only a count the operator asked for makes it one */
    if (r->opt.count_anyway) r->ended = true;
    r->finished = true;
    if (r->resigned == GS_EMPTY && !r->forfeit && !r->result_ruled && r->have_last_obs) {
        if (ended || r->opt.count_anyway) count_game(r, !ended);
        else no_result(r);
    }
    /* saved and counted even when settling the last view failed: the
     * first failure is the one reported */
    gs_status st2 = rec_save_final(r, st == GS_OK ? err : NULL);
    return st != GS_OK ? st : st2;
}

gs_status record_stop(record *r, double t_ms, gs_error *err)
{
    if (r->finished) return GS_OK;
    if (r->ended || !r->started) return record_finish(r, t_ms, err);
    r->cur_t = t_ms > 0 ? t_ms : r->cur_t;
    r->finished = true;
    rec_event_add(r, RECORD_EV_END, "stop", rec_game_moves(r), GS_EMPTY, (gs_point){-1, -1},
                  "recording stopped after %d moves (game not finished: no count)", rec_game_moves(r));
    return rec_save_final(r, err);
}

/* ---------------------------------------------------------- queries */

int record_move_count(const record *r) { return rec_game_moves(r); }
bool record_started(const record *r) { return r->started; }
bool record_finished(const record *r) { return r->finished; }
gs_color record_to_move(const record *r) { return r->game ? rules_game_to_move(r->game) : GS_BLACK; }

void record_position(const record *r, gs_position *out)
{
    if (r->game) rules_game_position(r->game, out);
    else gs_position_clear(out, r->size ? r->size : 19);
}

size_t record_events(const record *r, const record_event **ev)
{
    *ev = r->log.ev;
    return r->log.n;
}

int record_referee_count(const record *r) { return r->log.n_referee; }

int record_signal_count(const record *r)
{
    int n = 0;
    for (size_t i = 0; i < r->log.n; i++) n += r->log.ev[i].kind == RECORD_EV_SIGNAL;
    return n;
}

bool record_event_is_signal(const char *code)
{
    return code && (!strcmp(code, "confirm_signal") || !strcmp(code, "resign_signal"));
}

int record_captures(const record *r, gs_color by)
{
    if (by != GS_BLACK && by != GS_WHITE) return 0;
    return r->captures_before[by] + (r->game ? rules_board_captures(rules_game_board(r->game), by) : 0);
}

bool record_last_move(const record *r, gs_move *m, int64_t *unix_ms)
{
    if (!r->have_last_move) return false;
    if (m) *m = r->last_move;
    if (unix_ms) *unix_ms = r->last_move_ms;
    return true;
}
int record_warnings(const record *r, gs_color c) { return r->game ? rules_game_warnings(r->game, c) : 0; }
bool record_ended(const record *r) { return r->ended; }
const char *record_result(const record *r) { return r->result; }
bool record_count_sure(const record *r) { return !r->count_unsure; }

void record_frames(const record *r, const gs_image **before, const gs_image **after)
{
    if (before) *before = r->evid.prev_frame;
    if (after) *after = r->evid.cur_frame;
}
