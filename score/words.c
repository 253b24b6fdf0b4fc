/* score/words.c: a count in words (the SGF comment, check and count say
 * the same), and whether a position looks like a finished game. */
#include "score/score.h"

#include "sgf/sgf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void score_count_stones_format(double v, char *buf, size_t len)
{
    long q = lround(fabs(v) * 4);
    long whole = q / 4, frac = q % 4;
    static const char *F[4] = {"", "1/4", "1/2", "3/4"};
    const char *sign = v < 0 && q ? "-" : "";
    if (frac == 0) snprintf(buf, len, "%s%ld", sign, whole);
    else if (whole == 0) snprintf(buf, len, "%s%s", sign, F[frac]);
    else snprintf(buf, len, "%s%ld %s", sign, whole, F[frac]);
}

/* "1 stone" / "2 stones" from a whole number of stones. */
static const char *stones_noun(int n) { return n == 1 ? "stone" : "stones"; }

/* The warnings of the count in words: who, when, the ruling, the cost. */
static void warnings_words(gs_buf *b, const score_warning *w, int n)
{
    if (n <= 0 || !w) return;
    int nb = 0, nw = 0;
    gs_buf_puts(b, "; warnings (one stone each, Art. 25):");
    for (int i = 0; i < n; i++) {
        nb += w[i].color == GS_BLACK;
        nw += w[i].color == GS_WHITE;
        char when[40] = "";
        if (w[i].unix_ms >= 0) {
            char t[32];
            sgf_time_format(w[i].unix_ms, t);
            snprintf(when, sizeof when, ", %.8s UTC", t + 11);
        }
        gs_buf_printf(b, "%s %s at move %d (ruling %s%s)", i ? "," : "", rules_color_name(w[i].color),
                      w[i].move_number, w[i].ruling, when);
    }
    if (nb) gs_buf_printf(b, "; Black gives %d %s", nb, stones_noun(nb));
    if (nw) gs_buf_printf(b, "%s White gives %d %s", nb ? "," : ";", nw, stones_noun(nw));
}

char *score_count_words(const rules_count *c, int handicap, const score_warning *w, int n, bool estimate,
                         char *buf, size_t len)
{
    char a[32], b[32], k[32];
    score_count_stones_format(c->black, a, sizeof a);
    score_count_stones_format(c->white, b, sizeof b);
    score_count_stones_format(c->komi / 2, k, sizeof k);
    gs_buf t = {0};
    gs_buf_printf(&t, SGF_COUNT_WORDS_PREFIX "area, Chinese rules): Black %s (%d stones + %d points), White %s "
                  "(%d + %d), dame %d", a, c->black_stones, c->black_territory, b, c->white_stones,
                  c->white_territory, c->dame);
    if (c->dead_black + c->dead_white)
        gs_buf_printf(&t, "; dead stones removed: %d black, %d white%s", c->dead_black, c->dead_white,
                      estimate ? " (ESTIMATE \xe2\x80\x94 players must confirm)" : "");
    gs_buf_printf(&t, "; komi %s stones", k);
    if (handicap > 0) {
        char h[32];
        score_count_stones_format(handicap / 2.0, h, sizeof h);
        gs_buf_printf(&t, "; handicap %d: Black gives back %s", handicap, h);
    }
    warnings_words(&t, w, n);
    gs_buf_printf(&t, ". %s (%s).", c->text, c->sgf);
    snprintf(buf, len, "%s", gs_buf_ok(&t) && t.p ? t.p : "Count (area, Chinese rules): out of memory");
    gs_buf_free(&t);
    return buf;
}

bool score_count_looks_finished(const rules_count *c, const rules_estimate_result *est, char *why, size_t len)
{
    why[0] = 0;
    /* players fill the dame before counting (area counting gains nothing
     * from leaving them): more than a line of them is a game going on */
    if (c->dame > c->size) {
        snprintf(why, len, "%d dame points (a finished game has few): this does not look like the end of a game",
                 c->dame);
        return false;
    }
    if (est && est->uncertain_chains > 0) {
        snprintf(why, len, "%d chain%s could go either way (unsettled): this does not look like the end of a game",
                 est->uncertain_chains, est->uncertain_chains == 1 ? "" : "s");
        return false;
    }
    return true;
}
