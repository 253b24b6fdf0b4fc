/* rules/replay.c: replay a recorded game through the rules and count it
 * (the engine behind `goscribe check`). */
#include "rules/rules.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static rules_replay_issue *push(rules_replay_issue *arr, int *n)
{
    int i = (*n)++;
    return i < RULES_REPLAY_MAX_ITEMS ? &arr[i] : NULL;
}

static void note_out_of_turn(rules_replay_report *out, int i, gs_move m, const char *h, gs_color to_move)
{
    rules_replay_issue *e = push(out->events, &out->nevents);
    if (!e) return;
    e->move_number = i + 1;
    e->move = m;
    e->event = RULES_EV_OUT_OF_TURN;
    e->article = "Art. 2";
    snprintf(e->text, sizeof e->text, "move %d: %s %s out of turn (%s was to move)", i + 1, rules_color_name(m.color),
             m.pass ? "pass" : h, rules_color_name(to_move));
}

static void note_illegal(rules_replay_report *out, int i, gs_move m, const char *h, rules_legality l,
                         const rules_move_result *res)
{
    rules_replay_issue *e = push(out->illegal, &out->nillegal);
    if (!e) return;
    e->move_number = i + 1;
    e->move = m;
    e->why = l;
    e->event = l == RULES_ILLEGAL_SUICIDE ? RULES_EV_SUICIDE
               : l == RULES_ILLEGAL_KO    ? RULES_EV_KO
               : l == RULES_ILLEGAL_SUPERKO ? RULES_EV_SUPERKO
                                            : RULES_EV_NONE;
    e->article = l == RULES_ILLEGAL_SUICIDE ? "Art. 5"
                 : l == RULES_ILLEGAL_KO    ? "Art. 20.1"
                 : l == RULES_ILLEGAL_SUPERKO ? "Art. 6"
                                              : "Art. 2";
    if (l == RULES_ILLEGAL_KO || l == RULES_ILLEGAL_SUPERKO)
        snprintf(e->text, sizeof e->text, "move %d: %s %s is illegal (%s: repeats the position after move %d)", i + 1,
                 rules_color_name(m.color), h, rules_legality_name(l), res->repeats_move);
    else
        snprintf(e->text, sizeof e->text, "move %d: %s %s is illegal (%s)", i + 1, rules_color_name(m.color), h,
                 rules_legality_name(l));
}

static void note_cycle(rules_replay_report *out, int i, gs_move m, const char *h, const rules_move_result *res)
{
    rules_replay_issue *e = push(out->events, &out->nevents);
    if (!e) return;
    e->move_number = i + 1;
    e->move = m;
    e->event = RULES_EV_CYCLE;
    e->article = "Art. 20.3";
    snprintf(e->text, sizeof e->text, "move %d: %s %s repeats the position after move %d (cycle)", i + 1,
             rules_color_name(m.color), h, res->repeats_move);
}

/* Plays move i of the record, noting what the referee would say. */
static void replay_move(rules_game *g, const rules_replay_input *in, int i, rules_move_result *res,
                        rules_replay_report *out)
{
    gs_move m = in->moves[i];
    char h[8];
    rules_point_human(m.pt, in->size, h);
    if (m.color != GS_BLACK && m.color != GS_WHITE) return;
    int num = i + in->move_offset; /* numbered as in the whole record */
    if (m.color != rules_game_to_move(g)) note_out_of_turn(out, num, m, h, rules_game_to_move(g));
    if (m.pass) {
        rules_game_pass(g, m.color);
        out->moves_played++;
        return;
    }
    rules_legality l = rules_game_play(g, m.color, m.pt, res);
    if (l != RULES_LEGAL) {
        res->repeats_move += in->move_offset;
        note_illegal(out, num, m, h, l, res);
        /* The void move counts as a pass (Art. 19, 20.1): the turn passes. */
        rules_game_set_to_move(g, gs_color_other(m.color));
        return;
    }
    out->moves_played++;
    if (res->cycle) {
        res->repeats_move += in->move_offset;
        note_cycle(out, num, m, h, res);
    }
}

gs_status rules_replay(const rules_replay_input *in, rules_replay_report *out, gs_error *err)
{
    memset(out, 0, sizeof *out);
    rules_game *g = rules_game_create(in->size, err);
    if (!g) return err ? err->status : GS_ERR_USAGE;
    rules_game_set_komi(g, in->komi);
    rules_game_set_ko_policy(g, in->ko_policy);
    gs_status s0 = rules_game_start(g, in->setup, in->handicap, in->nmoves > 0 ? in->moves[0].color : GS_EMPTY, err);
    if (s0 != GS_OK) {
        rules_game_destroy(g);
        return s0;
    }
    rules_move_result *res = malloc(sizeof *res);
    if (!res) {
        rules_game_destroy(g);
        return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i < in->nmoves; i++) replay_move(g, in, i, res, out);
    free(res);
    rules_game_position(g, &out->final_position);
    uint8_t dead[RULES_MAX_POINTS];
    memset(dead, 0, sizeof dead);
    if (in->final_marks) {
        rules_dead_from_marks(&out->final_position, in->final_marks, dead);
        out->dead_from_marks = true;
    }
    rules_count_opts o;
    rules_count_opts_init(&o);
    o.komi = in->komi;
    o.handicap = in->handicap >= 2 ? in->handicap : 0;
    gs_status s = rules_count_position(&out->final_position, dead, &o, &out->count, err);
    rules_game_destroy(g);
    return s;
}

bool rules_parse_result_points(const char *re, double *points)
{
    if (!re) return false;
    while (isspace((unsigned char)*re)) re++;
    if (!strcmp(re, "0") || !strcasecmp(re, "draw") || !strcasecmp(re, "jigo") || !strcmp(re, "0.0")) {
        *points = 0;
        return true;
    }
    double sign;
    if (toupper((unsigned char)re[0]) == 'B') sign = 1;
    else if (toupper((unsigned char)re[0]) == 'W') sign = -1;
    else return false;
    if (re[1] != '+') return false;
    char *end;
    double v = strtod(re + 2, &end);
    if (end == re + 2) return false;
    while (isspace((unsigned char)*end)) end++;
    if (*end) return false;
    *points = sign * v;
    return true;
}
