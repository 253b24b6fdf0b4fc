/* cli/bench_rules.c: `goscribe bench rules`: random legal playouts on one
 * core with the exact positional-superko check on; prints moves/s. */
#include "cli/cli.h"
#include "rules/rules.h"

#include <stdio.h>
#include <string.h>

static void help(FILE *f)
{
    fprintf(f,
            "Usage: goscribe bench rules [options]\n"
            "\n"
            "Plays random legal games (uniform among legal moves that do not fill\n"
            "one's own eye; pass when none; stop at two passes or 3*N*N moves) from the\n"
            "empty board, with the positional superko check on, on one core.\n"
            "\n"
            "Options:\n"
            CLI_HELP_OPTION
            "  --seconds S          how long to run (default 3)\n"
            "  --size N             board size 5..25 (default 19)\n"
            "  --seed X             random seed (default 1)\n"
            CLI_EXIT_CODES CLI_EXIT_0 CLI_EXIT_1);
}

int bench_rules(int argc, char **argv)
{
    double seconds = 3;
    long size = 19, seed = 1;
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            help(stdout);
            return GS_EXIT_OK;
        } else if (!strcmp(argv[i], "--seconds") || !strcmp(argv[i], "--size") || !strcmp(argv[i], "--seed")) {
            const char *a = argv[i], *v = cli_value("bench rules", argc, argv, &i);
            uint64_t sd = 0;
            int bad = !v                         ? -1
                      : !strcmp(a, "--seconds") ? cli_parse_number("bench rules", a, v, 0.01, 3600, &seconds)
                      : !strcmp(a, "--size")    ? cli_parse_size("bench rules", v, CLI_SIZE_ANY, &size)
                                                : cli_parse_seed("bench rules", v, &sd);
            if (bad) return GS_EXIT_ERROR;
            if (!strcmp(a, "--seed")) seed = (long)sd;
        } else {
            cli_error("bench rules: unknown option %s (see goscribe bench rules --help)", argv[i]);
            return GS_EXIT_ERROR;
        }
    }
    rules_board *empty = rules_board_create((int)size), *b = rules_board_create((int)size);
    if (!empty || !b) {
        rules_board_destroy(empty);
        rules_board_destroy(b);
        cli_error("bench rules: out of memory");
        return GS_EXIT_ERROR;
    }
    uint64_t rng = 0x853C49E6748FEA9Bull ^ ((uint64_t)seed * 0x9E3779B97F4A7C15ull);
    int cap = 3 * (int)(size * size);
    long long moves = 0, playouts = 0, stones_left = 0;
    double t0 = gs_now_ms(), t = t0;
    while (t - t0 < seconds * 1000) {
        /* b is as big as the empty board from the start: the copy never
         * grows it, so it cannot fail */
        (void)rules_board_copy(b, empty);
        moves += rules_board_playout(b, GS_BLACK, cap, &rng, NULL);
        playouts++;
        gs_position pos;
        rules_board_get_position(b, &pos);
        stones_left += gs_position_count(&pos, GS_BLACK) + gs_position_count(&pos, GS_WHITE);
        t = gs_now_ms();
    }
    double s = (t - t0) / 1000.0;
    printf("bench rules: %ldx%ld, positional superko on, 1 core, %.2f s\n", size, size, s);
    printf("  playouts      %lld (%.0f /s)\n", playouts, playouts / s);
    printf("  moves         %lld (%.0f /s, %.1f per playout incl. passes)\n", moves, moves / s,
           playouts ? (double)moves / playouts : 0.0);
    printf("  moves_per_sec %.0f\n", moves / s);
    printf("  stones left   %.1f per final position\n", playouts ? (double)stones_left / playouts : 0.0);
    rules_board_destroy(empty);
    rules_board_destroy(b);
    return GS_EXIT_OK;
}
