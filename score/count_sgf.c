/* score/count_sgf.c: a count written as SGF (count --sgf, the count page's
 * confirmation): the position as set-up stones, each side's territory as
 * TB/TW, KM, RE and the count in words; a count not sure says its Score
 * line, one confirmed by hand says who and when and which points were set
 * by hand (GSFX). */
#include "score/score_internal.h"

#include "sgf/sgf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void score_count_marks(const gs_position *pos, const uint8_t *dead, const rules_count *c, gs_position *marks)
{
    gs_position_clear(marks, pos->size);
    for (int i = 0; i < pos->size * pos->size; i++) {
        bool is_dead = dead && dead[i] && pos->cell[i] != GS_EMPTY;
        if (pos->cell[i] != GS_EMPTY && !is_dead) continue; /* a living stone: no mark */
        marks->cell[i] = c->owner.cell[i];
        /* a dead stone on a dame point still needs its mark, or a reader
         * would take it for alive */
        if (is_dead && marks->cell[i] == GS_EMPTY) marks->cell[i] = (uint8_t)gs_color_other((gs_color)pos->cell[i]);
    }
}

/* " D4 E5 ..." of the points of mask (by colour c unless GS_EMPTY) into b. */
static void mask_words(gs_buf *b, const gs_position *pos, const uint8_t *mask)
{
    for (int i = 0; i < pos->size * pos->size; i++)
        if (mask[i]) {
            char h[8];
            rules_point_human((gs_point){(int8_t)(i % pos->size), (int8_t)(i / pos->size)}, pos->size, h);
            gs_buf_printf(b, " %s", h);
        }
}

/* The words after the count: its Score line when it is not sure; who
 * confirmed it, when, and what they set by hand. */
static void doubt_and_hand_words(gs_buf *b, const score_count_result *r)
{
    if (!r->confirmed) {
        if (!r->range.sure) {
            gs_buf_puts(b, " NOT SURE: ");
            score_count_score_line(b, r);
            gs_buf_puts(b, ".");
        }
        return;
    }
    char when[32];
    sgf_time_format(r->confirmed_ms, when);
    gs_buf_printf(b, " Confirmed by hand on the count page%s%s (%.10s %.8s UTC).", r->confirmed_by[0] ? " by " : "",
                  r->confirmed_by, when, when + 11);
    if (r->nfixed) {
        gs_buf_printf(b, " Points set by hand (GSFX):");
        mask_words(b, &r->pos, r->fixed);
        gs_buf_puts(b, ".");
    }
    uint8_t dead[RULES_MAX_POINTS] = {0}, alive[RULES_MAX_POINTS] = {0};
    int nd = 0, na = 0;
    for (int i = 0; i < r->pos.size * r->pos.size; i++) {
        nd += dead[i] = r->life_given[i] == SCORE_LIFE_DEAD && r->pos.cell[i] != GS_EMPTY;
        na += alive[i] = r->life_given[i] == SCORE_LIFE_ALIVE && r->pos.cell[i] != GS_EMPTY;
    }
    if (nd) {
        gs_buf_puts(b, " Dead by hand:");
        mask_words(b, &r->pos, dead);
        gs_buf_puts(b, ".");
    }
    if (na) {
        gs_buf_puts(b, " Alive by hand:");
        mask_words(b, &r->pos, alive);
        gs_buf_puts(b, ".");
    }
}

/* The comment of the count: its words (an estimate says so unless
 * confirmed), then doubt_and_hand_words. */
static char *count_comment(const score_count_result *r)
{
    char words[600];
    int nw = r->nwarnings < SCORE_MAX_WARNINGS ? r->nwarnings : SCORE_MAX_WARNINGS;
    score_count_words(&r->count, r->handicap, r->warnings, nw, r->estimate && !r->confirmed, words, sizeof words);
    gs_buf b = {0};
    gs_buf_puts(&b, words);
    doubt_and_hand_words(&b, r);
    if (gs_buf_ok(&b)) return b.p;
    gs_buf_free(&b);
    return NULL;
}

/* The warnings the count took, as rulings on the root, so that `check`
 * of the file takes them. */
static gs_status add_warnings(sgf_node *root, const score_count_result *r, gs_error *err)
{
    int nw = r->nwarnings < SCORE_MAX_WARNINGS ? r->nwarnings : SCORE_MAX_WARNINGS, wb = 0, ww = 0;
    gs_status st = GS_OK;
    for (int i = 0; i < nw && st == GS_OK; i++) {
        wb += r->warnings[i].color == GS_BLACK;
        ww += r->warnings[i].color == GS_WHITE;
        st = sgf_add_ruling(root, r->warnings[i].ruling, r->warnings[i].color, wb, ww, r->warnings[i].unix_ms, NULL,
                            err);
    }
    return st;
}

/* GSFX: each point whose colour was set by hand. */
static gs_status add_fixed(sgf_node *root, const score_count_result *r, gs_error *err)
{
    gs_status st = GS_OK;
    for (int i = 0; i < r->pos.size * r->pos.size && st == GS_OK; i++) {
        if (!r->fixed[i]) continue;
        char pt[3];
        sgf_point_format((gs_point){(int8_t)(i % r->pos.size), (int8_t)(i / r->pos.size)}, pt);
        st = sgf_node_add_raw(root, "GSFX", pt, err);
    }
    return st;
}

gs_status score_count_write_sgf(const char *path, const score_count_result *r, gs_error *err)
{
    sgf_game_info info;
    sgf_game_info_init(&info);
    info.size = r->pos.size;
    info.komi = r->count.komi;
    info.has_komi = true;
    info.handicap = r->handicap;
    snprintf(info.rules, sizeof info.rules, "Chinese");
    snprintf(info.result, sizeof info.result, "%s", r->count.sgf);
    sgf_node *root = NULL;
    sgf_tree *t = sgf_new_game(&info, &r->pos, &root, err);
    if (!t) return err ? err->status : GS_ERR_NOMEM;
    gs_position terr;
    score_count_marks(&r->pos, r->dead, &r->count, &terr);
    char *words = count_comment(r);
    gs_status st = words ? add_warnings(root, r, err) : gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    if (st == GS_OK) st = sgf_set_final_count(root, &terr, words, r->count.sgf, err);
    if (st == GS_OK) st = add_fixed(root, r, err);
    if (st == GS_OK) st = sgf_save(t, path, err);
    free(words);
    sgf_tree_destroy(t);
    return st;
}
