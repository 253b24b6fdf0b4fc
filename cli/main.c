/* cli/main.c: `goscribe SUBCOMMAND ...` dispatch, --help and --version. */
#include "cli/cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
} commands[] = {
    {"scan", cmd_scan, "read one photo: board grid and every intersection"},
    {"count", cmd_count, "count a finished board (photo, SGF or grid .txt) under Chinese rules"},
    {"record", cmd_record, "record a game from a camera (or its URL), a video or photos"},
    {"check", cmd_check, "replay an SGF through the rules and count it"},
    {"calibrate", cmd_calibrate, "find the board once and save it to a calibration file"},
    {"render", cmd_render, "render a game record as a synthetic camera video"},
    {"devices", cmd_devices, "list V4L2 cameras and their modes"},
    {"hall", cmd_hall, "serve one page with every board of a club"},
    {"gtp", cmd_gtp, "a GTP engine (Sabaki, GoGui, GNU Go) that watches the board"},
    {"bench", cmd_bench, "print speed figures (rules, scan, render, record, count)"},
};

static void usage(FILE *f)
{
    fprintf(f, "Usage: goscribe COMMAND [options]   (goscribe COMMAND --help for its options)\n\nCommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nOptions:\n"
               "  -h, --help           this text\n"
               "  --version            the version\n"
               CLI_EXIT_CODES CLI_EXIT_0 CLI_EXIT_1 CLI_EXIT_2 CLI_EXIT_3
               "(each command's --help lists the codes it can return)\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return GS_EXIT_ERROR;
    }
    if (cli_is_help(argv[1]) || !strcmp(argv[1], "help")) {
        usage(stdout);
        return GS_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        printf("goscribe %s\n", GS_VERSION);
        return GS_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(argv[1], commands[i].name)) continue;
        if (cli_check_max_pixels_env() != 0) return GS_EXIT_ERROR;
        return commands[i].fn(argc - 1, argv + 1);
    }
    cli_error("unknown command '%s' (try goscribe --help)", argv[1]);
    return GS_EXIT_ERROR;
}
