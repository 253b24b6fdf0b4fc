/* rules/count.c: area counting in stones (Art. 9, 11; handicap from seed 003;
 * warnings Art. 25).
 *
 * Black's result in stones = Black's area - half the board - komi/2
 * - handicap/2 - Black's warnings + White's warnings.  Area = living stones
 * + empty points surrounded only by them + half of every dame point. */
#include "rules/rules.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void rules_count_opts_init(rules_count_opts *o)
{
    memset(o, 0, sizeof *o);
    o->komi = RULES_DEFAULT_KOMI;
}

/* "3/4 stone", "1 1/4 stones", "12 stones": margins are multiples of 1/4
 * (komi 3 3/4, dame halves); anything finer is rounded to a quarter. */
static void stones_words(double m, char *buf, size_t len)
{
    long q = lround(m * 4);
    long whole = q / 4, frac = q % 4;
    static const char *F[4] = {"", "1/4", "1/2", "3/4"};
    if (whole == 0) snprintf(buf, len, "%s stone", F[frac]);
    else if (frac == 0) snprintf(buf, len, "%ld stone%s", whole, whole == 1 ? "" : "s");
    else snprintf(buf, len, "%ld %s stones", whole, F[frac]);
}

void rules_result_format(double margin, char sgf[24], char text[96])
{
    double a = fabs(margin);
    if (a < 1e-9) {
        snprintf(sgf, 24, "0");
        snprintf(text, 96, "Draw (equal to the break-even count)");
        return;
    }
    char w[48];
    stones_words(a, w, sizeof w);
    double pts = a * 2;
    const char *who = margin > 0 ? "B" : "W";
    if (fabs(pts - round(pts)) < 1e-9) snprintf(sgf, 24, "%s+%ld", who, lround(pts));
    else snprintf(sgf, 24, "%s+%.1f", who, pts);
    snprintf(text, 96, "%s wins by %s", margin > 0 ? "Black" : "White", w);
}

void rules_dead_from_marks(const gs_position *pos, const gs_position *marks, uint8_t *dead)
{
    int n = pos->size * pos->size;
    for (int i = 0; i < n; i++) {
        gs_color c = (gs_color)pos->cell[i];
        gs_color m = marks && marks->size == pos->size ? (gs_color)marks->cell[i] : GS_EMPTY;
        dead[i] = (c != GS_EMPTY && m != GS_EMPTY && m != c) ? 1 : 0;
    }
}

gs_status rules_count_position(const gs_position *pos, const uint8_t *dead, const rules_count_opts *opts,
                               rules_count *out, gs_error *err)
{
    if (!pos || pos->size < 1 || pos->size > GS_MAX_SIZE)
        return gs_error_set(err, GS_ERR_USAGE, "count: bad board size %d", pos ? pos->size : 0);
    rules_count_opts def;
    if (!opts) {
        rules_count_opts_init(&def);
        opts = &def;
    }
    const int n = pos->size, N = n * n;
    memset(out, 0, sizeof *out);
    out->size = n;
    out->komi = opts->komi;
    gs_position live;
    gs_position_clear(&live, n);
    for (int i = 0; i < N; i++) {
        gs_color c = (gs_color)pos->cell[i];
        if (c != GS_BLACK && c != GS_WHITE) continue;
        if (dead && dead[i]) {
            if (c == GS_BLACK) out->dead_black++;
            else out->dead_white++;
            continue;
        }
        live.cell[i] = (uint8_t)c;
        if (c == GS_BLACK) out->black_stones++;
        else out->white_stones++;
    }
    gs_position_clear(&out->owner, n);
    /* Flood each empty region and note which colours border it. */
    int16_t stack[RULES_MAX_POINTS], region[RULES_MAX_POINTS];
    uint8_t seen[RULES_MAX_POINTS] = {0};
    for (int s = 0; s < N; s++) {
        if (live.cell[s] != GS_EMPTY) {
            out->owner.cell[s] = live.cell[s];
            continue;
        }
        if (seen[s]) continue;
        int sp = 0, nr = 0, touch = 0;
        stack[sp++] = (int16_t)s;
        seen[s] = 1;
        while (sp) {
            int p = stack[--sp];
            region[nr++] = (int16_t)p;
            int x = p % n, y = p / n;
            const int nx[4] = {x - 1, x + 1, x, x}, ny[4] = {y, y, y - 1, y + 1};
            for (int k = 0; k < 4; k++) {
                if (nx[k] < 0 || ny[k] < 0 || nx[k] >= n || ny[k] >= n) continue;
                int q = ny[k] * n + nx[k];
                if (live.cell[q] != GS_EMPTY) touch |= live.cell[q];
                else if (!seen[q]) {
                    seen[q] = 1;
                    stack[sp++] = (int16_t)q;
                }
            }
        }
        gs_color own = touch == GS_BLACK ? GS_BLACK : touch == GS_WHITE ? GS_WHITE : GS_EMPTY;
        for (int i = 0; i < nr; i++) out->owner.cell[region[i]] = (uint8_t)own;
        if (own == GS_BLACK) out->black_territory += nr;
        else if (own == GS_WHITE) out->white_territory += nr;
        else out->dame += nr;
    }
    out->black = out->black_stones + out->black_territory + out->dame / 2.0;
    out->white = out->white_stones + out->white_territory + out->dame / 2.0;
    out->margin_stones = out->black - N / 2.0 - opts->komi / 2.0 - opts->handicap / 2.0
                         - opts->warnings_black + opts->warnings_white;
    out->winner = out->margin_stones > 1e-9 ? GS_BLACK : out->margin_stones < -1e-9 ? GS_WHITE : GS_EMPTY;
    rules_result_format(out->margin_stones, out->sgf, out->text);
    return GS_OK;
}
