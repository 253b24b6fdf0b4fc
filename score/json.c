/* score/json.c: the members every JSON of goscribe shares (score.h,
 * "The JSON of goscribe"): points, colours, per-side numbers, a count.
 * The commands (cli/) and the pages (broadcast/) write them through here,
 * so a field has one name and one form everywhere. */
#include "score/score.h"

#include "rules/rules.h"
#include "sgf/sgf.h"

#include <math.h>
#include <stdio.h>

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
