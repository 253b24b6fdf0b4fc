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

/* The largest region of empty points of pos (orthogonally joined). */
static int largest_empty_region(const gs_position *pos)
{
    int size = pos->size, n = size * size, best = 0, stack[RULES_MAX_POINTS];
    uint8_t seen[RULES_MAX_POINTS] = {0};
    for (int start = 0; start < n; start++) {
        if (pos->cell[start] != GS_EMPTY || seen[start]) continue;
        int sp = 0, count = 0;
        seen[start] = 1;
        stack[sp++] = start;
        while (sp) {
            int p = stack[--sp], x = p % size;
            count++;
            int nb[4] = {x > 0 ? p - 1 : -1, x < size - 1 ? p + 1 : -1, p - size, p + size};
            for (int k = 0; k < 4; k++)
                if (nb[k] >= 0 && nb[k] < n && !seen[nb[k]] && pos->cell[nb[k]] == GS_EMPTY) {
                    seen[nb[k]] = 1;
                    stack[sp++] = nb[k];
                }
        }
        if (count > best) best = count;
    }
    return best;
}

/* A finished game's board is mostly stones and its territories are walled
 * off.  On the final positions of the 26 KGS games (9x9 to 19x19) stones
 * cover 51-82 % of the points and the largest empty region is at most 33 %
 * of them; on the positions of games going on among the photos' truths
 * (imago, Gomrade, goban-watcher game 3: 2 to 36 % stones) the largest
 * empty region is 54 % of the board or more.  40 % on both lies between. */
#define FINISHED_STONES_MIN 0.40
#define FINISHED_REGION_MAX 0.40

bool score_count_looks_finished(const gs_position *pos, const rules_count *c, const rules_estimate_result *est,
                                char *why, size_t len)
{
    why[0] = 0;
    int n = c->size * c->size, stones = pos ? n - gs_position_count(pos, GS_EMPTY) : n;
    int region = pos ? largest_empty_region(pos) : 0;
    if (stones < FINISHED_STONES_MIN * n) {
        snprintf(why, len, "%d stone%s on %d points (a finished game covers 40 %% or more): this does not look like "
                 "the end of a game", stones, stones == 1 ? "" : "s", n);
        return false;
    }
    if (region > FINISHED_REGION_MAX * n) {
        snprintf(why, len, "an open area of %d empty points (%d %% of the board; a finished game's territories are "
                 "walled off): this does not look like the end of a game", region, 100 * region / n);
        return false;
    }
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

/* The ends of a range in the order it is said: one winner, from the
 * smaller win to the larger; else from White's end to Black's. */
static void range_ends(const score_count_range *g, const char **from, const char **to)
{
    bool white = g->winner_sure && g->high < 0;
    *from = white ? g->high_sgf : g->low_sgf;
    *to = white ? g->low_sgf : g->high_sgf;
}

void score_count_range_text(const score_count_range *g, char *buf, size_t len)
{
    const char *from, *to;
    range_ends(g, &from, &to);
    if (!strcmp(from, to)) snprintf(buf, len, "%s", from);
    else snprintf(buf, len, "%s to %s", from, to);
}

/* " D4 E5" for every point of mask on pos's board, in board order. */
static void points_words(gs_buf *b, const gs_position *pos, const uint8_t *mask)
{
    int size = pos->size;
    for (int i = 0; i < size * size; i++) {
        if (!mask[i]) continue;
        char h[8];
        rules_point_human((gs_point){(int8_t)(i % size), (int8_t)(i / size)}, size, h);
        gs_buf_printf(b, " %s", h);
    }
}

void score_count_score_line(gs_buf *b, const score_count_result *r)
{
    const score_count_range *g = &r->range;
    const char *base = r->count.sgf;
    char range[64];
    score_count_range_text(g, range, sizeof range);
    gs_buf_puts(b, "Score: ");
    if (r->confirmed) {
        gs_buf_printf(b, "%s (confirmed by hand)", base);
        return;
    }
    if (g->unbounded) {
        gs_buf_printf(b, "%s: every point is in doubt (the board's lines are); count a clearer photo", range);
        return;
    }
    if (fabs(g->high - g->low) < 1e-9 && r->nleft_out && r->looks_finished) {
        gs_buf_printf(b, "%s (sure but for %d point%s read with doubt whose other colour is under %g %% likely)", base,
                      r->nleft_out, r->nleft_out == 1 ? "" : "s", 100 * r->plausible);
        return;
    }
    if (fabs(g->high - g->low) < 1e-9) {
        gs_buf_printf(b, "%s (%s)", base, r->looks_finished ? "sure" : "not sure: the game does not look finished");
    } else if (g->winner_sure) {
        const char *from, *to;
        range_ends(g, &from, &to);
        gs_buf_printf(b, "%s, between %s and %s: %s wins either way; points that move it:", base, from, to,
                      g->high < 0 ? "White" : "Black");
        points_words(b, &r->pos, g->check);
    } else {
        gs_buf_printf(b, "%s: check points", range);
        points_words(b, &r->pos, g->winner);
    }
    if (fabs(g->high - g->low) >= 1e-9 && !r->looks_finished) gs_buf_puts(b, "; and the game does not look finished");
    if (r->nleft_out)
        gs_buf_printf(b, " (%d point%s read with doubt left out, whose other colour is under %g %% likely)", r->nleft_out,
                      r->nleft_out == 1 ? "" : "s", 100 * r->plausible);
}
