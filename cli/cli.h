/* cli/cli.h: what the subcommands share. Each subcommand lives in
 * cli/cmd_NAME.c as `int cmd_NAME(int argc, char **argv)` (argv[0] is the
 * subcommand's name) and returns the process exit code (core/gs.h table). */
#ifndef CLI_H
#define CLI_H

#include "core/gs.h"
#include "pairing/pairing.h"

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

/* `record`'s recording options (all but the live broadcast and --final)
 * for another command that runs the recording loop (`gtp`): argv[0] is
 * that command, then SOURCE, -o GAME.sgf and the options of `goscribe
 * record --help`.  Fills *run (the recorder writing event lines to stdout,
 * the tracker, the grid) and opens *src (the caller closes it); returns -1,
 * or else the exit code after saying why in one line. */
struct record_run_options;
struct capture_source;
int cli_record_prepare(int argc, char **argv, struct record_run_options *run, struct capture_source **src);

/* `goscribe hall --config FILE`: a club evening's round, its boards
 * recorded by `goscribe record` processes the hall starts (cli/hall_*.c). */

#define HALL_MAX_EVENING_BOARDS 64
#define HALL_MAX_OPTIONS 24

/* A [board T] section of the config. */
typedef struct hall_board_cfg {
    int table, line;
    char source[512], sgf[512];
    char opt_text[512];          /* `options`, its words pointed at by opts */
    char *opts[HALL_MAX_OPTIONS];
    int nopts;
} hall_board_cfg;

/* The config file (cli/hall_config.c) and the round's pairings. */
typedef struct hall_evening {
    char path[512], dir[512];    /* the file and its folder (relative paths start there) */
    char event[128], round[32], place[128], date[16];
    int round_no;                /* the pairing file's round; 0 = its last */
    char pairings[512], output[512], serve[64], mqtt[128];
    int delay_ms;
    char opt_text[512];          /* `options` for every recorder */
    char *opts[HALL_MAX_OPTIONS];
    int nopts;
    int nboards;
    hall_board_cfg boards[HALL_MAX_EVENING_BOARDS];
    pairing_round pr;            /* the round read from `pairings` */
} hall_evening;

/* Reads the config and its pairings; 0, or -1 with the one-line error said. */
int hall_evening_load(const char *path, hall_evening *ev);
void hall_evening_free(hall_evening *ev);
/* The plan, one line a board (--check). */
void hall_evening_print(const hall_evening *ev, FILE *f);

/* How the evening runs (cli/hall_evening.c). */
typedef struct hall_evening_run_opts {
    const char *token;           /* the hall's token, also each recorder's */
    bool exit_when_done;         /* stop once every recorder has ended */
    int restarts;                /* a crashed recorder is started again this often */
} hall_evening_run_opts;
struct broadcast_hall;
/* Starts a recorder per board, tells the hall where each is, restarts one
 * that crashes (--resume), until SIGINT/SIGTERM (or, with exit_when_done,
 * until all have ended).  The stop signals must be blocked by the caller.
 * Returns the exit code. */
int hall_evening_run(hall_evening *ev, struct broadcast_hall *h, const hall_evening_run_opts *o);

/* `goscribe bench MODE`: each mode lives in cli/bench_MODE.c. */
int bench_rules(int argc, char **argv);
int bench_scan(int argc, char **argv);
int bench_render(int argc, char **argv);
int bench_record(int argc, char **argv);
int bench_count(int argc, char **argv);

#endif
