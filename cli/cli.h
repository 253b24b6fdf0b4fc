/* cli/cli.h: what the subcommands share. Each subcommand lives in
 * cli/cmd_NAME.c as `int cmd_NAME(int argc, char **argv)` (argv[0] is the
 * subcommand's name) and returns the process exit code (core/gs.h table). */
#ifndef CLI_H
#define CLI_H

#include "core/gs.h"
#include "pairing/pairing.h"
#include "record/record.h"
#include "session/session.h"

/* Prints "goscribe: " + message + newline on stderr: the one-line error. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));


/* True when argv[i] is -h or --help. */
int cli_is_help(const char *arg);

/* Parses a whole decimal integer / number; returns 0 on success (silent:
 * the cli_parse_* below say what is wrong). */
int cli_parse_int(const char *s, long lo, long hi, long *out);
int cli_parse_double(const char *s, double lo, double hi, double *out);

/* ---- the options commands share (cli/opts.c): each is read and checked
 * in one place, with one wording of its error; every parser returns 0, or
 * -1 after printing one line naming the command (cmd) and what it accepts. */

/* The value of option argv[*i] (moving *i on); NULL, said, when none. */
const char *cli_value(const char *cmd, int argc, char **argv, int *i);
/* An option's whole number lo..hi / number lo..hi. */
int cli_parse_whole(const char *cmd, const char *opt, const char *v, long lo, long hi, long *out);
int cli_parse_number(const char *cmd, const char *opt, const char *v, double lo, double hi, double *out);

/* --size N: a board size.  The board search finds 9, 13 and 19 only; a
 * grid given (--corners, --calibration) may be 5..25; a command that
 * finds no board (bench rules) takes 5..25. */
typedef enum cli_size_rule {
    CLI_SIZE_FOUND, /* 9, 13, 19 (count, bench record: no grid option) */
    CLI_SIZE_GRID,  /* 5..25 here, 9/13/19 unless a grid is given (cli_check_size):
                       --corners or --calibration */
    CLI_SIZE_CORNERS, /* the same, the grid given by --corners only (calibrate) */
    CLI_SIZE_ANY    /* 5..25 */
} cli_size_rule;
int cli_parse_size(const char *cmd, const char *v, cli_size_rule rule, long *out);
/* After the options (CLI_SIZE_GRID, _CORNERS): a size other than 9, 13, 19 without
 * a grid given is refused. */
int cli_check_size(const char *cmd, long size, cli_size_rule rule, bool grid_given);
/* --corners X1,Y1,...,X4,Y4 (commas and/or spaces). */
int cli_parse_corners(const char *cmd, const char *v, double c[4][2]);
/* --komi K, in SGF points (7.5 = 3 3/4 stones). */
int cli_parse_komi(const char *cmd, const char *v, double *out);
/* --max-pixels N: the pixel budget of a photo or frame, 1..10^12. */
int cli_parse_max_pixels(const char *cmd, const char *s, long long *out);
/* GOSCRIBE_MAX_PIXELS, when set, must be such a number: 0, or -1 after a
 * one-line error naming it. */
int cli_check_max_pixels_env(void);
/* --seed S: 0..2^31-1. */
int cli_parse_seed(const char *cmd, const char *v, uint64_t *out);
/* --settle SEC (0.01..60) into milliseconds. */
int cli_parse_settle(const char *cmd, const char *v, double *ms);
/* --fps F: frames per second, 1..240. */
int cli_parse_fps(const char *cmd, const char *v, double *out);
/* --frame-size WxH: a picture's size in pixels (render, bench render). */
int cli_parse_frame_size(const char *cmd, const char *v, int *w, int *h);
/* --black-side near|far|left|right. */
int cli_parse_black_side(const char *cmd, const char *v, record_black_side *out);
/* --serve [ADDR:]PORT ([::1]:8080 too): bind "" = the default address. */
int cli_parse_serve(const char *cmd, const char *v, char *bind, size_t bindlen, int *port);
/* --allow-host NAME, repeatable (at most CLI_MAX_ALLOW_HOSTS). */
#define CLI_MAX_ALLOW_HOSTS 16
int cli_add_allow_host(const char *cmd, const char *v, const char **list, int *n);
/* --max-per-client N: connections from one address, 1..512. */
int cli_parse_max_per_client(const char *cmd, const char *v, long *out);

/* Their lines in a usage text, one wording for every command. */
#define CLI_SIZE_GRID_HELP \
    "  --size N             board size: 9, 13 or 19 (default: found); 5..25 with\n" \
    "                       --corners or --calibration\n"
#define CLI_SIZE_FOUND_HELP \
    "  --size N             board size: 9, 13 or 19 (default: found)\n"
#define CLI_SIZE_CORNERS_HELP \
    "  --size N             board size: 9, 13 or 19 (default: found); 5..25 with\n" \
    "                       --corners\n"
#define CLI_CORNERS_HELP \
    "  --corners X1,Y1,X2,Y2,X3,Y3,X4,Y4\n" \
    "                       the outer intersections in image pixels (top-left,\n" \
    "                       top-right, bottom-right, bottom-left): no board search\n"
#define CLI_CALIBRATION_HELP \
    "  --calibration FILE   the board's grid from `goscribe calibrate`: no board search\n"
#define CLI_MAX_PIXELS_HELP \
    "  --max-pixels N       refuse photos and frames of more than N pixels, before\n" \
    "                       decoding them (default 50000000, or GOSCRIBE_MAX_PIXELS)\n"
#define CLI_MODEL_HELP \
    "  --model FILE         read with this point model (ONNX, as scripts/train-points.sh\n" \
    "                       makes them) instead of the built-in one\n"
/* The first line of every command's "Options:" block. */
#define CLI_HELP_OPTION "  -h, --help           this text\n"
/* The help's layout, the same in every command: "Usage: goscribe CMD
 * ...", what it does, "Options:", then "Exit codes:" with the lines of the
 * codes it can return, each code worded the same everywhere (core/gs.h's
 * table). */
#define CLI_EXIT_CODES "\nExit codes:\n"
#define CLI_EXIT_0 "  0  success\n"
#define CLI_EXIT_1 "  1  error: a wrong option, or an input or output that cannot be read or written\n"
#define CLI_EXIT_2 "  2  nothing to work on: no board, no game or no camera in the input\n"
#define CLI_EXIT_3 "  3  not sure: the output says what to check (points marked ?, a range of results)\n"

/* `goscribe count PHOTO --serve [ADDR:]PORT` (cli/count_serve.c): the
 * count page for a phone. */
typedef struct cli_count_serve {
    bool on;
    char bind[128];
    int port;
    const char *token;                       /* NULL = random */
    const char *hosts[CLI_MAX_ALLOW_HOSTS];  /* --allow-host */
    int nhosts;
} cli_count_serve;
/* Serves the count page of o->input until someone confirms the count on
 * it (the count then in *r and its SGF written: o->sgf_path, else the
 * photo's name with .sgf) or Ctrl-C; returns -1 after a confirmation,
 * else the exit code (said). */
int cli_count_serve_run(const cli_count_serve *s, const score_count_options *o, score_count_result *r);

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
 * (session_options passes), so it must live as long as those options
 * are used. */
#define CLI_MAX_PASSES 256
typedef struct cli_record_store {
    char black[128], white[128], black_rank[32], white_rank[32];
    struct session_pass passes[CLI_MAX_PASSES];
    int npasses;
} cli_record_store;

/* `record`'s recording options (all but the live broadcast and --final)
 * for another command that runs the recording loop (`gtp`): argv[0] is
 * that command, then SOURCE, -o GAME.sgf and the options of `goscribe
 * record --help`.  Fills *run (the recorder writing event lines to stdout,
 * the tracker, the grid; its names and passes pointing into *store, which
 * the caller keeps while it uses *run) and opens *src (the caller closes
 * it); returns -1, or else the exit code after saying why in one line. */
struct session_options;
struct capture_source;
int cli_record_prepare(int argc, char **argv, cli_record_store *store, struct session_options *run,
                       struct capture_source **src);

/* `goscribe record ... --check` (cli/record_check.c): the source opened
 * (capture_open) and giving a frame, the SGF's folder writable, a file to
 * --resume replayed, the --evidence and --fallback folders; nothing
 * written.  One line per problem (cli_error), problems the problems the
 * caller said before (the grid's); the exit code. */
struct capture_options;
int cli_record_check(const char *source, const struct capture_options *cap, const char *out,
                     const record_options *ro, int problems);

/* The recording options' lines of `goscribe record --help` (all but the
 * live broadcast and --final): what `gtp --help` lists too. */
void cli_record_options_help(FILE *f);

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

/* --check: every board's recorder command line, as the evening would
 * run it now, run with `record --check` (its source opened through
 * capture_open and giving a frame, its options through record's parser,
 * its files writable), all at once, each given 25 s.  Each problem is one
 * line (cli_error) naming the config's [board T] line; a board whose file
 * has a result (not recorded again) is said on stdout.  Returns the
 * number of problems, -1 when the checks could not run (said). */
int hall_evening_check(hall_evening *ev, const char *token);

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
