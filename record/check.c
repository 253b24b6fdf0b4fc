/* record/check.c: a recorded game checked (record.h, record_check_file):
 * the SGF's main line replayed under the Chinese rules (rules_replay) and
 * its final position counted, beside the result the file records. */
#include "record/record.h"

#include "rules/rules.h"
#include "sgf/sgf.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

gs_status record_check_file(const char *path, const record_check_options *o, record_check_result *out,
                            gs_error *err)
{
    memset(out, 0, sizeof *out);
    sgf_game sg;
    memset(&sg, 0, sizeof sg);
    gs_status s = sgf_game_load(path, &sg, err);
    if (s != GS_OK) {
        sgf_game_free(&sg);
        return s;
    }
    out->size = sg.info.size;
    out->moves = sg.move_count;
    out->handicap = sg.info.handicap;
    snprintf(out->recorded_result, sizeof out->recorded_result, "%s", sg.info.result);
    if (out->size < RULES_MIN_SIZE || out->size > RULES_MAX_SIZE) {
        sgf_game_free(&sg);
        return gs_error_set(err, GS_ERR_NOBOARD, "board size %d not supported (5..25)", out->size);
    }
    out->komi = o && o->has_komi ? o->komi : sg.info.has_komi ? sg.info.komi : RULES_DEFAULT_KOMI;
    rules_replay_input in = {
        .size = out->size,
        .komi = out->komi,
        .handicap = sg.info.handicap,
        .setup = &sg.setup,
        .moves = sg.moves,
        .nmoves = (int)sg.move_count,
        .final_marks = sg.has_final_marks ? &sg.final_marks : NULL,
        .ko_policy = o ? o->ko_policy : RULES_KO_FORBID,
    };
    s = rules_replay(&in, &out->report, err);
    sgf_game_free(&sg);
    if (s != GS_OK) {
        /* A game the rules cannot even set up is no game to check. */
        if (s != GS_ERR_NOMEM && err) err->status = GS_ERR_NOBOARD;
        return s == GS_ERR_NOMEM ? s : GS_ERR_NOBOARD;
    }
    double rec;
    out->recorded_numeric = rules_parse_result_points(out->recorded_result, &rec);
    out->matches_record = out->recorded_numeric && fabs(rec - out->report.count.margin_stones * 2) < 1e-6;
    return GS_OK;
}
