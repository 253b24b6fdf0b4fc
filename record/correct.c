/* record/correct.c: corrections of a misread move or of a result (the MOVE
 * and RESULT rulings, record.h): the game tree edited in place and checked
 * (every later move still legal), the words with what the record said
 * before; while recording, the game then follows the corrected tree. */
#include "record/record_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a correction changed. */
typedef struct corr_fx {
    sgf_node *node;          /* where its words and GSRL go */
    gs_color color;          /* the move's colour (MOVE) */
    char was[64];            /* what the record said: "Q16", "B+R", "no result" */
    bool count_removed;      /* a count on the record was taken off */
} corr_fx;

/* An SGF RE value (FF[4]): "0", "Draw", "Void", "?", or B+/W+ alone or
 * with R, Resign, T, Time, F, Forfeit or a number of points. */
static bool result_ok(const char *re)
{
    static const char *const whole[] = {"", "0", "Draw", "Void", "?"};
    static const char *const how[] = {"", "R", "Resign", "T", "Time", "F", "Forfeit"};
    for (size_t i = 0; i < sizeof whole / sizeof whole[0]; i++)
        if (!strcmp(re, whole[i])) return true;
    if ((re[0] != 'B' && re[0] != 'W') || re[1] != '+') return false;
    for (size_t i = 0; i < sizeof how / sizeof how[0]; i++)
        if (!strcmp(re + 2, how[i])) return true;
    double pts;
    char *end;
    pts = strtod(re + 2, &end);
    return end != re + 2 && !*end && pts > 0 && pts < 1000;
}

/* The main-line node of move n (1-based, B and W nodes counted). */
static sgf_node *nth_move_node(const sgf_tree *t, int n, int *count)
{
    sgf_node *found = NULL;
    *count = 0;
    for (sgf_node *c = sgf_node_child(sgf_tree_root(t, 0), 0); c; c = sgf_node_child(c, 0))
        if (sgf_node_find(c, "B") || sgf_node_find(c, "W"))
            if (++*count == n) found = c;
    return found;
}

/* Illegal moves of the tree's main line (score_check_tree); -1 when it
 * cannot be replayed at all. */
static int illegal_moves(const sgf_tree *t, int *first)
{
    score_check_result *chk = malloc(sizeof *chk);
    if (!chk) return -1;
    gs_error e;
    int n = score_check_tree(t, NULL, chk, &e) == GS_OK ? chk->report.nillegal : -1;
    *first = n > 0 ? chk->report.illegal[0].move_number : 0;
    free(chk);
    return n;
}

static int tree_size(const sgf_tree *t)
{
    const char *sz = sgf_node_get_text(sgf_tree_root(t, 0), "SZ");
    int n = sz ? atoi(sz) : 19;
    return n >= 1 && n <= GS_MAX_SIZE ? n : 19;
}

/* Whether node n holds a final count: TB/TW marks or its words. */
static bool has_count(const sgf_node *n)
{
    const char *c = sgf_node_get_text(n, "C");
    size_t k = strlen(SGF_COUNT_WORDS_PREFIX);
    bool words = c && (!strncmp(c, SGF_COUNT_WORDS_PREFIX, k) || strstr(c, "\n\n" SGF_COUNT_WORDS_PREFIX));
    return words || sgf_node_find(n, "TB") || sgf_node_find(n, "TW");
}

/* MOVE: the move's point rewritten; undone when a later move becomes
 * illegal (GS_ERR_USAGE). */
static gs_status correct_move(sgf_tree *t, const record_ruling *ru, corr_fx *fx, gs_error *err)
{
    int count = 0;
    sgf_node *n = nth_move_node(t, ru->move_number, &count);
    if (!n) return gs_error_set(err, GS_ERR_USAGE, "no move %d in the record (it has %d)", ru->move_number, count);
    const char *id = sgf_node_find(n, "B") ? "B" : "W";
    int size = tree_size(t);
    gs_point p = ru->npoints > 0 && ru->points ? ru->points[0] : (gs_point){-1, -1};
    if (ru->npoints > 0 && (p.x < 0 || p.y < 0 || p.x >= size || p.y >= size))
        return gs_error_set(err, GS_ERR_USAGE, "the point of the correction is off the %dx%d board", size, size);
    char val[3] = "", old[8];
    if (ru->npoints > 0) sgf_point_format(p, val);
    snprintf(old, sizeof old, "%s", sgf_node_get_text(n, id));
    gs_point op;
    bool opass;
    if (!sgf_point_parse(old, strlen(old), size, &op, &opass)) opass = true;
    if (opass ? ru->npoints == 0 : (ru->npoints > 0 && op.x == p.x && op.y == p.y))
        return gs_error_set(err, GS_ERR_USAGE, "move %d is already %s", ru->move_number, old[0] ? old : "a pass");
    int first = 0, before = illegal_moves(t, &first);
    gs_error e;
    if (before < 0 || sgf_node_set_text(n, id, val, &e) != GS_OK)
        return gs_error_set(err, GS_ERR_NOMEM, "the record cannot be checked (out of memory)");
    int after = illegal_moves(t, &first);
    if (after != before) {
        (void)sgf_node_set_text(n, id, old, &e); /* puts back what was there: no new memory */
        return gs_error_set(err, GS_ERR_USAGE, "move %d at %s would make move %d illegal: correction refused",
                            ru->move_number, val[0] ? val : "pass", first);
    }
    fx->node = n;
    fx->color = id[0] == 'B' ? GS_BLACK : GS_WHITE;
    rules_point_human(opass ? (gs_point){-1, -1} : op, size, fx->was);
    sgf_node *last = sgf_node_main_line_last(sgf_tree_root(t, 0));
    if (has_count(last)) {
        fx->count_removed = true;
        if (sgf_clear_final_count(last, &e) != GS_OK) return gs_error_set(err, e.status, "%s", e.msg);
    }
    return GS_OK;
}

/* RESULT: RE set (or removed). */
static gs_status correct_result(sgf_tree *t, const record_ruling *ru, corr_fx *fx, gs_error *err)
{
    const char *re = ru->result ? ru->result : "";
    if (!result_ok(re))
        return gs_error_set(err, GS_ERR_USAGE, "\"%s\" is not an SGF result (B+R, W+3.5, 0, B+T, W+F, Void, ?)", re);
    sgf_node *root = sgf_tree_root(t, 0);
    const char *old = sgf_node_get_text(root, "RE");
    snprintf(fx->was, sizeof fx->was, "%s", old && *old ? old : "no result");
    gs_error e;
    if (!*re) sgf_node_remove(root, "RE");
    else if (sgf_node_set_text(root, "RE", re, &e) != GS_OK) return gs_error_set(err, e.status, "%s", e.msg);
    fx->node = sgf_node_main_line_last(root);
    fx->color = GS_EMPTY;
    return GS_OK;
}

/* The words of a correction: the console's (who, when) and what changed. */
static void correction_words(const record_ruling *ru, const corr_fx *fx, int size, char *out, size_t len)
{
    const char *who = ru->words && ru->words[0] ? ru->words : "Correction";
    char now[8] = "pass";
    if (ru->kind == RECORD_RULING_MOVE) {
        if (ru->npoints > 0 && ru->points) rules_point_human(ru->points[0], size, now);
        snprintf(out, len, "%s: move %d is %s %s (the record had %s)%s", who,
                 ru->move_number, rules_color_name(fx->color), now, fx->was,
                 fx->count_removed ? "; the count of the old record was removed" : "");
    } else {
        snprintf(out, len, "%s: result %s (the record had %s)", who,
                 ru->result && ru->result[0] ? ru->result : "removed", fx->was);
    }
}

/* The correction edited into tree t with its words and GSRL. */
static gs_status correct_tree(sgf_tree *t, const record_ruling *ru, int wb, int ww, char *words, size_t wlen,
                              corr_fx *fx, gs_error *err)
{
    memset(fx, 0, sizeof *fx);
    gs_status st = ru->kind == RECORD_RULING_MOVE ? correct_move(t, ru, fx, err) : correct_result(t, ru, fx, err);
    if (st != GS_OK) return st;
    correction_words(ru, fx, tree_size(t), words, wlen);
    const char *kname = record_ruling_name(ru->kind);
    int64_t when = ru->unix_ms > 0 ? ru->unix_ms : gs_wall_ms();
    return sgf_add_ruling(fx->node, kname, fx->color, wb, ww, when, words, err);
}

/* The live game follows a corrected move: rebuilt from the tree; the
 * points that changed are read as the record until the camera agrees. */
static gs_status follow_move(record *r, gs_error *err)
{
    gs_position before, after;
    rules_game_position(r->game, &before);
    gs_status st = rec_replay_tree(r, err);
    if (st != GS_OK) return st;
    rules_game_position(r->game, &after);
    for (int k = 0; k < r->size * r->size; k++)
        if (before.cell[k] != after.cell[k]) r->fix_pending[k] = true;
    memset(&r->ghost, 0, sizeof r->ghost);
    memset(r->absent.views, 0, sizeof r->absent.views);
    memset(r->absent.flagged, 0, sizeof r->absent.flagged);
    r->irr.have_pending = false;
    r->irr.have_flagged = false;
    return GS_OK;
}

gs_status rec_apply_correction(record *r, const record_ruling *ru, gs_error *err)
{
    char words[480];
    corr_fx fx;
    gs_error why;
    gs_status st = correct_tree(r->sgf.tree, ru, rules_game_warnings(r->game, GS_BLACK),
                                rules_game_warnings(r->game, GS_WHITE), words, sizeof words, &fx, &why);
    const char *kname = record_ruling_name(ru->kind);
    if (st == GS_ERR_USAGE) { /* the console's correction cannot be: said, nothing changed */
        rec_event_add(r, RECORD_EV_NOTE, "ruling_refused", rec_game_moves(r), GS_EMPTY, (gs_point){-1, -1},
                      "referee correction (%s) refused: %s", kname, why.msg);
        rec_events_print(r);
        return GS_OK;
    }
    if (st != GS_OK) return gs_error_set(err, st, "%s", why.msg);
    if (ru->kind == RECORD_RULING_MOVE) {
        st = follow_move(r, err);
        if (st != GS_OK) return st;
    } else {
        snprintf(r->result, sizeof r->result, "%s", ru->result ? ru->result : "");
        r->result_ruled = r->result[0] != '\0';
        if (r->result_ruled) r->ended = true;
    }
    gs_point pt = ru->npoints > 0 && ru->points ? ru->points[0] : (gs_point){-1, -1};
    rec_event_add(r, RECORD_EV_RULING, kname, ru->kind == RECORD_RULING_MOVE ? ru->move_number : rec_game_moves(r),
                  fx.color, pt, "%s", words);
    return rec_save(r, err);
}

gs_status record_correct_file(const char *path, const record_ruling *ru, gs_error *err)
{
    if (ru->kind != RECORD_RULING_MOVE && ru->kind != RECORD_RULING_RESULT)
        return gs_error_set(err, GS_ERR_USAGE, "only a move or a result is corrected in a closed record");
    sgf_tree *t = NULL;
    gs_error e;
    if (sgf_load(path, &t, &e) != GS_OK) return gs_error_set(err, e.status, "%s: %s", path, e.msg);
    score_check_result *chk = malloc(sizeof *chk);
    gs_status st = chk ? score_check_tree(t, NULL, chk, &e) : gs_error_set(&e, GS_ERR_NOMEM, "out of memory");
    char words[480];
    corr_fx fx;
    if (st == GS_OK) st = correct_tree(t, ru, chk->warnings_black, chk->warnings_white, words, sizeof words, &fx, &e);
    if (st == GS_OK) st = sgf_save(t, path, &e);
    if (st != GS_OK) gs_error_set(err, st, "%s: %s", path, e.msg);
    free(chk);
    sgf_tree_destroy(t);
    return st;
}
