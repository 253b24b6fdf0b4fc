/* tests/drivers/sgf_mainline.c FILE...: the main line of each SGF as
 * goscribe reads it (sgf_game_from_tree), one line per item, for
 * tests/sgf_validate.sh to compare with what a second parser reads:
 *   FILE <path>
 *   setup AB:aa,bb AW:cc AE:            (the root's stones)
 *   step AB:.. AW:.. AE:.. PL:B|W|-     (a set-up node after the root)
 *   move B:pd | W:  (a pass)
 * Points are sorted; exit 1 when a file cannot be read as a game. */
#include "sgf/sgf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The points of pos with colour c (or, with mask, the points set in it). */
static void points(const char *label, int size, const gs_position *pos, gs_color c, const uint8_t *mask)
{
    printf(" %s:", label);
    int k = 0;
    /* sorted as two-letter strings: x then y, as the other side sorts */
    for (int x = 0; x < size; x++)
        for (int y = 0; y < size; y++) {
            int i = y * size + x;
            if (mask ? !mask[i] : pos->cell[i] != c) continue;
            char s[3];
            sgf_point_format((gs_point){(int8_t)x, (int8_t)y}, s);
            printf("%s%s", k++ ? "," : "", s);
        }
}

static int print_game(const char *path)
{
    sgf_game g;
    gs_error e;
    if (sgf_game_load(path, &g, &e) != GS_OK) {
        fprintf(stderr, "sgf_mainline: %s: %s\n", path, e.msg);
        return 1;
    }
    int size = g.info.size;
    printf("FILE %s\nsetup", path);
    points("AB", size, &g.setup, GS_BLACK, NULL);
    points("AW", size, &g.setup, GS_WHITE, NULL);
    printf("\n");
    size_t si = 0;
    for (size_t m = 0; m <= g.move_count; m++) {
        for (; si < g.step_count && g.steps[si].after_moves == m; si++) {
            const sgf_setup_step *st = &g.steps[si];
            printf("step");
            points("AB", size, &st->add, GS_BLACK, NULL);
            points("AW", size, &st->add, GS_WHITE, NULL);
            points("AE", size, NULL, GS_EMPTY, st->clear);
            printf(" PL:%s\n", st->to_move == GS_BLACK ? "B" : st->to_move == GS_WHITE ? "W" : "-");
        }
        if (m == g.move_count) break;
        char s[3] = "";
        if (!g.moves[m].pass) sgf_point_format(g.moves[m].pt, s);
        printf("move %s:%s\n", g.moves[m].color == GS_BLACK ? "B" : "W", s);
    }
    sgf_game_free(&g);
    return 0;
}

int main(int argc, char **argv)
{
    int rc = 0;
    for (int i = 1; i < argc; i++) rc |= print_game(argv[i]);
    return rc;
}
