/* cli/cmd_bench.c: `goscribe bench MODE` prints speed figures. Timing lives
 * here, never in unit tests. */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
} modes[] = {
    {"rules", bench_rules, "random legal playouts on 19x19 with the superko check (moves/s)"},
    {"scan", bench_scan, "scan photos: per-photo time, median, one core"},
    {"render", bench_render, "synthetic camera frames per second at 1280x720"},
    {"record", bench_record, "recording speed on a video against a decode-only pass"},
    {"count", bench_count, "dead-stone estimate + count time on 19x19; the recount behind a tap"},
};

int cmd_bench(int argc, char **argv)
{
    if (argc < 2 || cli_is_help(argv[1])) {
        FILE *f = argc < 2 ? stderr : stdout;
        fprintf(f, "Usage: goscribe bench MODE [options]\n\n"
                   "Prints speed figures (timing lives here, never in unit tests).\n\nModes:\n");
        for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) fprintf(f, "  %-8s %s\n", modes[i].name, modes[i].summary);
        fprintf(f, "\nOptions:\n  -h, --help           this text (goscribe bench MODE --help: the mode's options)\n"
                   CLI_EXIT_CODES CLI_EXIT_0 CLI_EXIT_1 CLI_EXIT_2);
        return argc < 2 ? GS_EXIT_ERROR : GS_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (!strcmp(argv[1], modes[i].name)) return modes[i].fn(argc - 1, argv + 1);
    cli_error("bench: unknown mode %s (see goscribe bench --help)", argv[1]);
    return GS_EXIT_ERROR;
}
