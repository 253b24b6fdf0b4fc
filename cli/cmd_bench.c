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
    {"count", bench_count, "dead-stone estimate + count time on 19x19"},
};

int cmd_bench(int argc, char **argv)
{
    if (argc < 2 || cli_is_help(argv[1])) {
        FILE *f = argc < 2 ? stderr : stdout;
        fprintf(f, "usage: goscribe bench MODE [options]\n\nmodes:\n");
        for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) fprintf(f, "  %-8s %s\n", modes[i].name, modes[i].summary);
        return argc < 2 ? GS_EXIT_ERROR : GS_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (!strcmp(argv[1], modes[i].name)) return modes[i].fn(argc - 1, argv + 1);
    cli_error("bench: unknown mode '%s' (try goscribe bench --help)", argv[1]);
    return GS_EXIT_ERROR;
}
