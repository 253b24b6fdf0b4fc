/* score/check.c: the one count of a recorded game (score.h,
 * score_check_tree): the recorder's own at the end of a game, `goscribe
 * check` and `goscribe count` of an SGF.  The main line is replayed under
 * the Chinese rules (rules_replay), part by part between the set-up nodes
 * the recorder writes when it follows the board; the final position is
 * counted with the dead stones of the last node's TB/TW marks and the
 * warnings of the referee's rulings (GSRL). */
#include "score/score.h"

#include "rules/rules.h"
#include "sgf/sgf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ the replay */

/* Appends the issues of one part (numbered already) to the whole. */
static void merge_issues(rules_replay_issue *all, int *nall, const rules_replay_issue *part, int npart)
{
    int kept = npart < RULES_REPLAY_MAX_ITEMS ? npart : RULES_REPLAY_MAX_ITEMS;
    for (int i = 0; i < kept; i++) {
        if (*nall < RULES_REPLAY_MAX_ITEMS) all[*nall] = part[i];
        (*nall)++;
    }
}

/* One part of the main line: moves [from, to) from pos; pos becomes the
 * position after them. */
static gs_status replay_part(const sgf_game *g, size_t from, size_t to, const score_check_result *out,
                             rules_ko_policy ko, gs_position *pos, rules_replay_report *part, gs_error *err)
{
    rules_replay_input in = {
        .size = g->info.size,
        .komi = out->komi,
        .handicap = g->info.handicap,
        .setup = pos,
        .moves = g->moves + from,
        .nmoves = (int)(to - from),
        .ko_policy = ko,
        .move_offset = (int)from,
    };
    gs_status s = rules_replay(&in, part, err);
    if (s != GS_OK && s != GS_ERR_NOMEM && from > 0) {
        /* a set-up node's chain without liberty (a file written before the
         * recorder left them out itself): left out, as the recorder does */
        (void)rules_position_drop_airless(pos);
        s = rules_replay(&in, part, err);
    }
    if (s == GS_OK) *pos = part->final_position;
    return s;
}

/* The set-up node's stones applied to pos (AE first, then AB/AW). */
static void apply_step(const sgf_setup_step *st, gs_position *pos)
{
    for (int i = 0; i < pos->size * pos->size; i++) {
        if (st->clear[i]) pos->cell[i] = GS_EMPTY;
        if (st->add.cell[i] != GS_EMPTY) pos->cell[i] = st->add.cell[i];
    }
}

/* The whole main line, part by part, into out->report. */
static gs_status replay_main_line(const sgf_game *g, rules_ko_policy ko, score_check_result *out, gs_error *err)
{
    rules_replay_report *whole = &out->report, *part = malloc(sizeof *part);
    if (!part) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    memset(whole, 0, sizeof *whole);
    gs_position pos = g->setup;
    size_t from = 0;
    gs_status s = GS_OK;
    for (size_t k = 0; k <= g->step_count && s == GS_OK; k++) {
        size_t to = k < g->step_count ? g->steps[k].after_moves : g->move_count;
        s = replay_part(g, from, to, out, ko, &pos, part, err);
        if (s != GS_OK) break;
        whole->moves_played += part->moves_played;
        merge_issues(whole->illegal, &whole->nillegal, part->illegal, part->nillegal);
        merge_issues(whole->events, &whole->nevents, part->events, part->nevents);
        if (k < g->step_count) apply_step(&g->steps[k], &pos);
        from = to;
    }
    free(part);
    whole->final_position = pos;
    return s;
}

/* ------------------------------------------------- warnings and notes */

static void take_notes(const sgf_game *g, score_check_result *out)
{
    for (size_t i = 0; i < g->note_count; i++) {
        const sgf_game_note *n = &g->notes[i];
        if (out->nnotes < SCORE_MAX_NOTES) {
            score_check_note *c = &out->notes[out->nnotes];
            c->ruling = n->ruling;
            c->move_number = (int)n->after_moves;
            snprintf(c->code, sizeof c->code, "%s", n->code);
            snprintf(c->detail, sizeof c->detail, "%s", n->detail);
            c->color = n->color;
            c->warned = n->warned;
        }
        out->nnotes++;
        if (!n->ruling) continue;
        out->warnings_black = n->warnings_black;
        out->warnings_white = n->warnings_white;
        if (!n->warned) continue;
        if (out->nwarnings < SCORE_MAX_WARNINGS) {
            score_warning *w = &out->warnings[out->nwarnings];
            w->color = n->color;
            w->move_number = (int)n->after_moves;
            w->unix_ms = n->time_ms;
            snprintf(w->ruling, sizeof w->ruling, "%.15s", n->code);
        }
        out->nwarnings++;
    }
}

/* ------------------------------------------------------------ the count */

static gs_status count_final(const sgf_game *g, score_check_result *out, gs_error *err)
{
    rules_replay_report *rep = &out->report;
    memset(out->dead, 0, sizeof out->dead);
    if (g->has_final_marks) {
        rules_dead_from_marks(&rep->final_position, &g->final_marks, out->dead);
        rep->dead_from_marks = true;
    }
    rules_count_opts o;
    rules_count_opts_init(&o);
    o.komi = out->komi;
    o.handicap = g->info.handicap >= 2 ? g->info.handicap : 0;
    o.warnings_black = out->warnings_black;
    o.warnings_white = out->warnings_white;
    gs_status s = rules_count_position(&rep->final_position, out->dead, &o, &rep->count, err);
    if (s != GS_OK) return s;
    int nw = out->nwarnings < SCORE_MAX_WARNINGS ? out->nwarnings : SCORE_MAX_WARNINGS;
    score_count_words(&rep->count, o.handicap, out->warnings, nw, false, out->words, sizeof out->words);
    out->looks_finished = score_count_looks_finished(&rep->final_position, &rep->count, NULL, out->not_finished, sizeof out->not_finished);
    double rec;
    out->recorded_numeric = rules_parse_result_points(out->recorded_result, &rec);
    out->matches_record = out->recorded_numeric && fabs(rec - rep->count.margin_stones * 2) < 1e-6;
    return GS_OK;
}

static gs_status check_game(const sgf_game *g, const score_check_options *o, score_check_result *out,
                            gs_error *err)
{
    out->size = g->info.size;
    out->moves = g->move_count;
    out->handicap = g->info.handicap;
    out->setup_steps = (int)g->step_count;
    snprintf(out->recorded_result, sizeof out->recorded_result, "%s", g->info.result);
    if (out->size < RULES_MIN_SIZE || out->size > RULES_MAX_SIZE)
        return gs_error_set(err, GS_ERR_NOBOARD, "board size %d not supported (5..25)", out->size);
    out->komi = o && o->has_komi       ? o->komi
                : g->info.has_komi      ? g->info.komi
                : g->info.handicap >= 2 ? 0.0 /* no komi in a handicap game */
                                        : RULES_DEFAULT_KOMI;
    gs_status s = replay_main_line(g, o ? o->ko_policy : RULES_KO_FORBID, out, err);
    if (s != GS_OK) {
        /* A game the rules cannot even set up is no game to check. */
        if (s != GS_ERR_NOMEM && err) err->status = GS_ERR_NOBOARD;
        return s == GS_ERR_NOMEM ? s : GS_ERR_NOBOARD;
    }
    take_notes(g, out);
    return count_final(g, out, err);
}

gs_status score_check_tree(const sgf_tree *t, const score_check_options *o, score_check_result *out,
                            gs_error *err)
{
    memset(out, 0, sizeof *out);
    sgf_game g;
    gs_status s = sgf_game_from_tree(t, &g, err);
    if (s == GS_OK) s = check_game(&g, o, out, err);
    sgf_game_free(&g);
    return s;
}

/* A file whose first 4 KiB hold a NUL byte before any "(;" (a photo, any
 * binary file) or, being shorter, no "(;" at all (a grid file) is no SGF:
 * say so rather than where the parser stopped. */
static bool looks_like_sgf(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return true; /* the reader says what is wrong with it */
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf, f);
    (void)fclose(f); /* read-only: a failed close loses nothing */
    for (size_t i = 0; i + 1 < n; i++) {
        if (buf[i] == 0) return false;
        if (buf[i] != '(') continue;
        size_t j = i + 1;
        while (j < n && (buf[j] == ' ' || buf[j] == '\t' || buf[j] == '\r' || buf[j] == '\n')) j++;
        if (j < n && buf[j] == ';') return true;
    }
    return n == sizeof buf; /* a long file: the reader decides */
}

gs_status score_check_file(const char *path, const score_check_options *o, score_check_result *out,
                            gs_error *err)
{
    memset(out, 0, sizeof *out);
    sgf_tree *t = NULL;
    gs_status s = sgf_load(path, &t, err);
    if (s == GS_ERR_FORMAT && !looks_like_sgf(path)) s = gs_error_set(err, GS_ERR_FORMAT, "not an SGF file");
    if (s == GS_OK) s = score_check_tree(t, o, out, err);
    sgf_tree_destroy(t);
    return s;
}
