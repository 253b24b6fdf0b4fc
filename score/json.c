/* score/json.c: the members every JSON of goscribe shares (score.h,
 * "The JSON of goscribe"): points, colours, per-side numbers, a count.
 * The commands (cli/) and the pages (broadcast/) write them through here,
 * so a field has one name and one form everywhere. */
#include "score/score.h"

#include "rules/rules.h"
#include "sgf/sgf.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *score_json_color(gs_color c) { return c == GS_BLACK ? "B" : c == GS_WHITE ? "W" : ""; }

void score_json_point(gs_buf *b, gs_point p, bool pass, int size)
{
    bool on = !pass && p.x >= 0 && p.y >= 0 && p.x < size && p.y < size;
    char s[3] = "", h[8] = "pass";
    if (on) {
        sgf_point_format(p, s);
        rules_point_human(p, size, h);
    }
    gs_buf_printf(b, ",\"point\":\"%s\",\"point_human\":\"%s\"", s, h);
}

void score_json_points(gs_buf *b, const char *key, const gs_position *pos, const uint8_t *mask, gs_color c)
{
    gs_buf_printf(b, ",\"%s\":[", key);
    int n = pos->size, k = 0;
    for (int i = 0; i < n * n; i++) {
        gs_color at = (gs_color)pos->cell[i];
        if (mask ? !mask[i] : at == GS_EMPTY) continue;
        if (c != GS_EMPTY && at != c) continue;
        char s[3];
        sgf_point_format((gs_point){(int8_t)(i % n), (int8_t)(i / n)}, s);
        gs_buf_printf(b, "%s\"%s\"", k++ ? "," : "", s);
    }
    gs_buf_puts(b, "]");
}

void score_json_sides(gs_buf *b, const char *key, double black, double white)
{
    gs_buf_printf(b, ",\"%s\":{\"B\":%g,\"W\":%g}", key, isfinite(black) ? black : 0, isfinite(white) ? white : 0);
}

void score_json_count(gs_buf *b, const rules_count *c, int handicap, int warnings_black, int warnings_white)
{
    gs_buf_puts(b, ",\"result\":");
    gs_json_str(b, c->sgf);
    gs_buf_puts(b, ",\"result_text\":");
    gs_json_str(b, c->text);
    gs_buf_printf(b, ",\"margin_stones\":%g", c->margin_stones);
    score_json_sides(b, "area", c->black, c->white);
    score_json_sides(b, "stones", c->black_stones, c->white_stones);
    score_json_sides(b, "territory", c->black_territory, c->white_territory);
    score_json_sides(b, "dead", c->dead_black, c->dead_white);
    gs_buf_printf(b, ",\"dame\":%d,\"komi\":%g,\"handicap\":%d", c->dame, c->komi, handicap);
    score_json_sides(b, "warnings", warnings_black, warnings_white);
}

/* The points of mask whose value is v. */
static void json_points_eq(gs_buf *b, const char *key, const gs_position *pos, const uint8_t *mask, uint8_t v)
{
    uint8_t m[RULES_MAX_POINTS] = {0};
    for (int i = 0; i < pos->size * pos->size; i++) m[i] = mask[i] == v && pos->cell[i] != GS_EMPTY;
    score_json_points(b, key, pos, m, GS_EMPTY);
}

/* The count's range and the Score line. */
static void json_range(gs_buf *b, const score_count_result *r)
{
    const score_count_range *g = &r->range;
    gs_buf_printf(b, ",\"result_low\":\"%s\",\"result_high\":\"%s\",\"result_sure\":%s,\"winner_sure\":%s", g->low_sgf,
                  g->high_sgf, g->sure ? "true" : "false", g->winner_sure ? "true" : "false");
    gs_buf_printf(b, ",\"range_unbounded\":%s,\"range_readings\":%d,\"range_reruns\":%d,\"range_ms\":%.1f,"
                  "\"range_cpu_ms\":%.1f", g->unbounded ? "true" : "false", g->readings, g->reruns, g->ms, g->cpu_ms);
    score_json_points(b, "check_points", &r->pos, g->check, GS_EMPTY);
    score_json_points(b, "winner_points", &r->pos, g->winner, GS_EMPTY);
    gs_buf t = {0};
    score_count_score_line(&t, r);
    gs_buf_puts(b, ",\"score_line\":");
    gs_json_str(b, gs_buf_ok(&t) && t.p ? t.p : "");
    gs_buf_free(&t);
}

/* The estimate's figures and its ownership map (+1 Black .. -1 White). */
static void json_estimate(gs_buf *b, const score_count_result *r)
{
    int size = r->pos.size;
    gs_buf_printf(b, ",\"playouts\":%d,\"estimate_ms\":%.1f,\"uncertain_chains\":%d", r->est.playouts, r->est.ms,
                  r->est.uncertain_chains);
    score_json_points(b, "uncertain_points", &r->pos, r->est.uncertain, GS_EMPTY);
    gs_buf_puts(b, ",\"ownership\":[");
    for (int y = 0; y < size; y++) {
        gs_buf_printf(b, "%s[", y ? "," : "");
        for (int x = 0; x < size; x++) gs_buf_printf(b, "%s%.2f", x ? "," : "", r->est.ownership[y * size + x]);
        gs_buf_puts(b, "]");
    }
    gs_buf_puts(b, "]");
}

/* What was set by hand and whether it was confirmed. */
static void json_hand(gs_buf *b, const score_count_result *r)
{
    score_json_points(b, "fixed_points", &r->pos, r->fixed, GS_EMPTY);
    json_points_eq(b, "dead_by_hand", &r->pos, r->life_given, SCORE_LIFE_DEAD);
    json_points_eq(b, "alive_by_hand", &r->pos, r->life_given, SCORE_LIFE_ALIVE);
    gs_buf_printf(b, ",\"confirmed\":%s", r->confirmed ? "true" : "false");
    if (!r->confirmed) return;
    char when[32];
    sgf_time_format(r->confirmed_ms, when);
    gs_buf_puts(b, ",\"confirmed_by\":");
    gs_json_str(b, r->confirmed_by);
    gs_buf_printf(b, ",\"confirmed_at\":\"%s\"", when);
}

void score_json_count_result(gs_buf *b, const score_count_result *r)
{
    const rules_count *c = &r->count;
    bool read = strcmp(r->source, "sgf") != 0;
    gs_buf_printf(b, ",\"source\":\"%s\",\"size\":%d,\"rules\":\"chinese-area\",\"dead_mode\":\"%s\",\"estimate\":%s",
                  r->source, c->size, score_count_dead_name(r->dead_used), r->estimate ? "true" : "false");
    gs_buf_printf(b, ",\"finished\":%s,\"not_finished\":", r->looks_finished ? "true" : "false");
    gs_json_str(b, r->not_finished);
    int wb = 0, ww = 0;
    for (int i = 0; i < r->nwarnings && i < SCORE_MAX_WARNINGS; i++) {
        wb += r->warnings[i].color == GS_BLACK;
        ww += r->warnings[i].color == GS_WHITE;
    }
    score_json_count(b, c, r->handicap, wb, ww);
    score_json_points(b, "dead_points", &r->pos, r->dead, GS_EMPTY);
    score_json_points(b, "seki_points", &r->pos, r->seki, GS_EMPTY);
    if (read) {
        gs_buf_printf(b, ",\"read_uncertain_count\":%d", r->read_uncertain);
        score_json_points(b, "read_uncertain", &r->pos, r->read_unsure, GS_EMPTY);
        score_json_points(b, "left_out_points", &r->pos, r->left_out, GS_EMPTY);
    }
    json_range(b, r);
    if (r->estimate) json_estimate(b, r);
    if (read) score_json_sides(b, "read", r->read_black, r->read_white);
    json_hand(b, r);
    gs_buf_puts(b, ",\"recorded_result\":");
    gs_json_str(b, r->file_result);
}
