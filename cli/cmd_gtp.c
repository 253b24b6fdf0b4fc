/* cli/cmd_gtp.c: `goscribe gtp SOURCE -o GAME.sgf [options]`: a GTP 2
 * engine on stdin/stdout whose moves are the ones the camera sees; the
 * game is recorded as `goscribe record` records it.  Parses gtp's own
 * options, hands the rest to record's parser (cli_record_prepare), runs
 * gtp_serve, prints a summary on stderr. */
#include "cli/cli.h"

#include "capture/capture.h"
#include "gtp/gtp.h"
#include "record/record.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: goscribe gtp SOURCE -o GAME.sgf [options]\n"
            "\n"
            "A GTP 2 engine on standard input and output that watches the board: genmove C\n"
            "answers colour C's next move as the camera sees it settle; play C V (the\n"
            "controller's move, which a person places) is answered when that stone is on the\n"
            "board, or with an error saying what the board shows instead (noted in the SGF);\n"
            "final_score and final_status_list come from goscribe's count and dead-stone\n"
            "estimate (Chinese area rules, the record's komi).  SOURCE is what `goscribe\n"
            "record` takes (a camera or a network camera's URL, a video file, photos).  The\n"
            "game is recorded as `goscribe record` does; its event lines go to standard\n"
            "error.  Coordinates are those of the record: as the camera sees the board\n"
            "(column A at the left of the picture, row 1 at the bottom) unless --black-side\n"
            "turns it so that Black's side is the bottom.\n"
            "\n"
            "Commands: protocol_version name version known_command list_commands quit\n"
            "boardsize clear_board komi play genmove undo final_score final_status_list\n"
            "showboard loadsgf, GoGui's gogui-analyze_commands and gogui-interrupt, and\n"
            "goscribe-status, goscribe-view, goscribe-frame [FILE], goscribe-events.\n"
            "The conversation ends at quit or the end of input; an unfinished game is then\n"
            "stopped (its SGF holds every move, without a result).\n"
            "\n"
            "Options:\n"
            CLI_HELP_OPTION
            "  --move-timeout SEC   genmove, play and loadsgf wait at most SEC for the board\n"
            "                       (default: no limit); then an error\n"
            "  --operator FILE      operator commands, one a line, from FILE (a FIFO, a\n"
            "                       terminal such as /dev/tty, or a file): pass B|W, resign\n"
            "                       B|W, end, note TEXT, q; how a person passes or resigns\n"
            "                       while standard input speaks GTP\n"
            "  --frame-png FILE     where goscribe-frame writes the camera frame (default\n"
            "                       GAME.frame.png next to the SGF)\n"
            "\n"
            "Recording options (as `goscribe record`; not its live broadcast or --final):\n");
    cli_record_options_help(f);
    fprintf(f, CLI_EXIT_CODES CLI_EXIT_0 CLI_EXIT_1 CLI_EXIT_2);
}

/* The SIGINT flag: a signal handler can only talk through a static
 * sig_atomic_t. */
static volatile sig_atomic_t g_stop;

static void on_sigint(int sig)
{
    (void)sig;
    g_stop = 1;
}

/* gtp's own options out of argv into o; the others into rest (argv[0]
 * first).  -1 to go on, else the exit code (after --help or an error). */
static int parse_own(int argc, char **argv, gtp_options *o, char **rest, int *nrest)
{
    *nrest = 0;
    rest[(*nrest)++] = argv[0];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool takes = !strcmp(a, "--move-timeout") || !strcmp(a, "--operator") || !strcmp(a, "--frame-png");
        if (cli_is_help(a)) {
            usage(stdout);
            return GS_EXIT_OK;
        }
        if (!takes) {
            rest[(*nrest)++] = argv[i];
            continue;
        }
        if (i + 1 >= argc) {
            cli_error("gtp: %s needs a value", a);
            return GS_EXIT_ERROR;
        }
        const char *v = argv[++i];
        if (!strcmp(a, "--operator")) o->operator_path = v;
        else if (!strcmp(a, "--frame-png")) o->engine.frame_path = v;
        else if (cli_parse_double(v, 0, 86400, &o->engine.move_timeout_s)) {
            cli_error("gtp: --move-timeout %s: not a number of seconds (0..86400)", v);
            return GS_EXIT_ERROR;
        }
    }
    return -1;
}

/* GAME.sgf -> GAME.frame.png in buf. */
static void frame_path_for(const char *sgf, char *buf, size_t len)
{
    size_t n = strlen(sgf);
    if (n > 4 && !strcasecmp(sgf + n - 4, ".sgf")) n -= 4;
    snprintf(buf, len, "%.*s.frame.png", (int)n, sgf);
}

/* The summary line after the conversation. */
static void print_summary(const gtp_stats *st, const char *sgf)
{
    const session_stats *r = &st->run;
    fprintf(stderr,
            "goscribe gtp: %ld commands (%ld answered with an error), ended by %s; recorded %d moves from %ld "
            "frames, %d flagged (referee events), %d end-of-game signal%s, %s%s -> %s\n",
            st->commands, st->errors, st->end ? st->end : "?", r->moves, r->frames, r->referee_events, r->signals,
            r->signals == 1 ? "" : "s", r->result[0] ? "result " : "no result", r->result, sgf);
}

int cmd_gtp(int argc, char **argv)
{
    gtp_options o;
    gtp_options_init(&o);
    char **rest = malloc((size_t)(argc + 1) * sizeof *rest);
    if (!rest) return GS_EXIT_ERROR;
    int nrest, rc = parse_own(argc, argv, &o, rest, &nrest);
    capture_source *src = NULL;
    cli_record_store store; /* o.run's names and passes point here until the end */
    if (rc < 0) rc = cli_record_prepare(nrest, rest, &store, &o.run, &src);
    free(rest);
    if (rc >= 0) return rc;
    record_options *ro = &o.run.recorder;
    ro->out = stderr; /* standard output is the controller's */
    o.engine.size = ro->size;
    o.engine.komi = ro->komi;
    o.engine.has_komi = ro->has_komi;
    o.engine.sgf_path = ro->sgf_path;
    o.engine.log = stderr;
    char frame_path[PATH_MAX];
    if (!o.engine.frame_path) {
        frame_path_for(ro->sgf_path, frame_path, sizeof frame_path);
        o.engine.frame_path = frame_path;
    }
    /* (handlers that cannot be set lose only the clean stop on Ctrl-C, and
     * a closed controller then ends the process instead of the loop) */
    struct sigaction sa, old_int, old_pipe;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, &old_pipe);
    g_stop = 0;
    o.stop = &g_stop;
    fprintf(stderr, "goscribe gtp: GTP on standard input and output, recording to %s\n", ro->sgf_path);
    gtp_stats stats;
    gs_error err = {0};
    gs_status st = gtp_serve(src, &o, 0, stdout, &stats, &err);
    capture_close(src);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGPIPE, &old_pipe, NULL);
    if (st != GS_OK) {
        cli_error("gtp: %s", err.msg);
        return gs_status_exit_code(st);
    }
    print_summary(&stats, ro->sgf_path);
    if (stats.run.orientation_warning[0]) fprintf(stderr, "goscribe: warning: %s\n", stats.run.orientation_warning);
    if (stats.run_status != GS_OK) {
        cli_error("gtp: %s", stats.run_error.msg);
        return gs_status_exit_code(stats.run_status);
    }
    return GS_EXIT_OK;
}
