/* cli/cli.h: what the subcommands share. Each subcommand lives in
 * cli/cmd_NAME.c as `int cmd_NAME(int argc, char **argv)` (argv[0] is the
 * subcommand's name) and returns the process exit code (core/gs.h table). */
#ifndef CLI_H
#define CLI_H

#include "core/gs.h"
#include "record/record.h"

/* Prints "goscribe: " + message + newline on stderr: the one-line error. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* True when argv[i] is -h or --help. */
int cli_is_help(const char *arg);

/* Parses a whole decimal integer / number; returns 0 on success. */
int cli_parse_int(const char *s, long lo, long hi, long *out);
int cli_parse_double(const char *s, double lo, double hi, double *out);

/* --max-pixels N of `cmd` (scan, count, calibrate, record): the pixel
 * budget of a photo or frame, 1..10^12; 0 on success, else -1 with the
 * error printed. */
int cli_parse_max_pixels(const char *cmd, const char *s, long long *out);
/* Its line in a usage text. */
#define CLI_MAX_PIXELS_HELP \
    "  --max-pixels N    refuse photos and frames of more than N pixels, before\n" \
    "                    decoding them (default 50000000, or GOSCRIBE_MAX_PIXELS)\n"

/* Reports a subcommand that a later change will provide: one line, exit 1. */
int cli_not_built(const char *name);

int cmd_scan(int argc, char **argv);
int cmd_count(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_render(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_devices(int argc, char **argv);
int cmd_hall(int argc, char **argv);
int cmd_gtp(int argc, char **argv);

/* What the recording's options point at that is not in argv: --black /
 * --white NAME[,RANK] split into name and rank (record_options black,
 * white, black_rank, white_rank) and the --pass-at announcements
 * (record_run_options passes), so it must live as long as those options
 * are used. */
#define CLI_MAX_PASSES 256
typedef struct cli_record_store {
    char black[128], white[128], black_rank[32], white_rank[32];
    struct record_run_pass passes[CLI_MAX_PASSES];
    int npasses;
} cli_record_store;

/* `record`'s recording options (all but the live broadcast and --final)
 * for another command that runs the recording loop (`gtp`): argv[0] is
 * that command, then SOURCE, -o GAME.sgf and the options of `goscribe
 * record --help`.  Fills *run (the recorder writing event lines to stdout,
 * the tracker, the grid; its names and passes pointing into *store, which
 * the caller keeps while it uses *run) and opens *src (the caller closes
 * it); returns -1, or else the exit code after saying why in one line. */
struct record_run_options;
struct capture_source;
int cli_record_prepare(int argc, char **argv, cli_record_store *store, struct record_run_options *run,
                       struct capture_source **src);

/* `goscribe bench MODE`: each mode lives in cli/bench_MODE.c. */
int bench_rules(int argc, char **argv);
int bench_scan(int argc, char **argv);
int bench_render(int argc, char **argv);
int bench_record(int argc, char **argv);
int bench_count(int argc, char **argv);

#endif
