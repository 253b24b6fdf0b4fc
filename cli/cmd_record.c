/* cli/cmd_record.c: `goscribe record SOURCE -o game.sgf`: watch a game and
 * keep its record live (capture -> tracker -> recorder: session_run), the
 * live broadcast plugged into the loop's hooks when --serve is given.
 * Stages: parse the options into a struct, check them, set up the grid,
 * the source and the broadcast, run, print. */
#include "cli/cli.h"

#include "calib/calib.h"
#include "capture/capture.h"
#include "record/record.h"
#include "broadcast/broadcast.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

void cli_record_options_help(FILE *f)
{
    fputs("  -o, --output FILE    the SGF to write (required)\n"
          "  --json               one JSON object per event line\n"
          "  --settle SEC         how long a view with something reaching in must be still\n"
          "                       (default 0.5); one with nothing over the board settles\n"
          "                       after 3 still frames\n"
          CLI_CALIBRATION_HELP
          CLI_CORNERS_HELP
          CLI_SIZE_GRID_HELP
          "  --to-move B|W        side to move on a board that already holds stones\n"
          "  --komi K             komi in SGF points (default 7.5; 0 with handicap)\n"
          "  --black NAME[,RANK]  Black's name and rank (PB, BR; shown on the pages)\n"
          "  --white NAME[,RANK]  White's name and rank (PW, WR)\n"
          "  --event TEXT --round TEXT --place TEXT --table TEXT\n"
          "                       the event (EV), round (RO), place (PC), table (GN \"Table\n"
          "                       T\"; also the board's name on the pages and in the hall)\n"
          "  --pass-at SEC:B|W[,...]\n"
          "                       a pass announced at SEC seconds of the source (a video's\n"
          "                       time), as `pass B|W` typed then (repeatable)\n"
          "  --black-side near|far|left|right\n"
          "                       where Black sits in the camera's picture (default near: at\n"
          "                       its bottom edge); the record is turned so that Black's side\n"
          "                       is the bottom of the SGF board, as records are printed\n"
          "  --count-anyway       count the last view even if the game did not end (its dead\n"
          "                       stones then estimated, as `goscribe count` does, and its\n"
          "                       doubt said: NOT SURE and the range of the result); by\n"
          "                       default only two passes, resignation, `end`, a referee's\n"
          "                       end or both players' confirmation signals give a result\n"
          "  --resume [FILE.sgf]  continue the game already in the SGF file (-o, or FILE)\n"
          "  --reopen             with --resume: continue a game that already has a result\n"
          "                       (its RE, TB/TW and count are removed)\n"
          "  --evidence DIR       where to keep evidence (default GAME.evidence)\n"
          "  --no-evidence        keep no evidence frames\n"
          "  --fallback DIR       where the SGF is saved while GAME.sgf cannot be written (a\n"
          "                       full disk): the recording goes on, says \"not saved\" after\n"
          "                       every move, retries the file each time and keeps a copy in\n"
          "                       DIR/GAME.fallback.sgf (default: beside the evidence folder\n"
          "                       when it is on another disk, else $TMPDIR or /tmp); a run\n"
          "                       whose last save failed exits 1 naming the copy\n"
          "  --max-frames N       stop after N frames\n"
          "  --frame-delay MS     wait MS after each frame (a slow source, for demos/tests)\n"
          "  --width W --height H --fps F\n"
          "                       camera mode\n"
          CLI_MAX_PIXELS_HELP
          "  --no-stdin           ignore standard input\n"
          "  -q, --quiet          no progress on stderr (a line every few seconds for files)\n",
          f);
}

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: goscribe record SOURCE -o GAME.sgf [options]\n"
            "\n"
            "SOURCE is a folder of photos (natural name order, each photo a settled view),\n"
            "a photo, a video file, a camera (/dev/videoN or N) or a network camera's URL\n"
            "(http(s):// MJPEG as phone apps serve it, rtsp://; reconnected when the\n"
            "stream drops; credentials never printed).  The SGF is rewritten safely after\n"
            "every move; referee events are printed live and kept with their frames in\n"
            "GAME.evidence/.\n"
            "\n"
            "Commands on standard input, one per line: q (stop), end (game over: lift the\n"
            "dead stones, the last view is counted), pass [B|W], resign B|W, note TEXT.\n"
            "A camera's recording stops at EOF on stdin, a file or folder at its end.  The\n"
            "game gets a result (RE and the count) only when it ended: two passes, a\n"
            "resignation, `end`, a referee's ruling or both players' confirmation signals\n"
            "(or --count-anyway); else the SGF holds every move and no result.  SIGINT\n"
            "(Ctrl-C) stops cleanly; the SGF stays valid at every moment.\n"
            "\n"
            "Options:\n" CLI_HELP_OPTION);
    cli_record_options_help(f);
    fprintf(f,
            "  --final FILE         also write the record's last position (grid text)\n"
            "  --check              record nothing: check that the source opens and gives a\n"
            "                       frame, the options, the grid (--calibration), that the\n"
            "                       SGF can be written (a file to --resume replays); one\n"
            "                       line per problem, exit 1 when there is one\n"
            "\n"
            "Live broadcast options (need libmicrohttpd; see also `goscribe hall`):\n"
            "  --serve [ADDR:]PORT  serve the live board page, /game.sgf, /state.json,\n"
            "                       /events, /frame.jpg and the referee console /referee (the\n"
            "                       token is printed at start); ADDR defaults to 127.0.0.1\n"
            "                       (loopback), 0.0.0.0 for every interface; PORT 0 = any\n"
            "                       free port\n"
            "  --board-name NAME    name shown on the pages and in the hall (default \"board\")\n"
            "  --token T            referee token, 8 to 64 characters (default: 128 random\n"
            "                       bits)\n"
            "  --mqtt HOST:PORT     also publish state and events to an MQTT broker\n"
            "  --hall URL           announce this board to a `goscribe hall` at URL (alias\n"
            "                       --announce)\n"
            "  --hall-token T       the hall's token (`goscribe hall` prints it), needed with\n"
            "                       --hall\n"
            "  --allow-host NAME    a name viewers reach this board by besides its address,\n"
            "                       localhost and the machine's name (repeatable; other Host\n"
            "                       headers get 421, against DNS rebinding)\n"
            "  --max-per-client N   connections from one address (1..512, default 64; raise\n"
            "                       it behind a proxy, where every viewer has its address)\n"
            "  --private            every page but the referee console needs the token too\n"
            "                       (`goscribe hall` starts its recorders so when it delays\n"
            "                       the broadcast: the hall is then the public face)\n"
            "  --linger SEC         keep serving the final record SEC seconds after the\n"
            "                       recording ends (default 0; SIGINT ends it early)\n"
            CLI_EXIT_CODES CLI_EXIT_0 CLI_EXIT_1 CLI_EXIT_2 CLI_EXIT_3);
}

/* The SIGINT flag: a signal handler can only talk through a static
 * sig_atomic_t, the one piece of static state the recorder needs. */
static volatile sig_atomic_t g_stop;

static void on_sigint(int sig)
{
    (void)sig;
    g_stop = 1;
}

typedef struct stdin_reader {
    char buf[512];
    size_t len;
    bool eof;
} stdin_reader;

static int poll_stdin(void *user, char *out, size_t outlen)
{
    stdin_reader *s = user;
    for (;;) {
        char *nl = memchr(s->buf, '\n', s->len);
        if (nl || (s->eof && s->len)) {
            size_t n = nl ? (size_t)(nl - s->buf) : s->len;
            size_t c = n < outlen - 1 ? n : outlen - 1;
            memcpy(out, s->buf, c);
            out[c] = 0;
            size_t used = nl ? n + 1 : n;
            memmove(s->buf, s->buf + used, s->len - used);
            s->len -= used;
            return 1;
        }
        if (s->eof) return -1;
        if (s->len == sizeof s->buf) s->len = 0; /* an absurd line: drop it */
        struct pollfd p = {0, POLLIN, 0};
        if (poll(&p, 1, 0) <= 0) return 0;
        ssize_t r = read(0, s->buf + s->len, sizeof s->buf - s->len);
        if (r < 0 && errno == EINTR) return 0;
        if (r <= 0) {
            s->eof = true;
            continue;
        }
        s->len += (size_t)r;
    }
}

/* How progress is shown: rewritten in place on a terminal, else one line
 * every few seconds (a log, a pipe). */
typedef struct progress_state {
    bool tty;
    double last_line_ms;
} progress_state;

static void progress(void *user, const session_progress *p)
{
    progress_state *ps = user;
    if (!ps->tty && p->elapsed_ms - ps->last_line_ms < 5000) return;
    ps->last_line_ms = p->elapsed_ms;
    int s = (int)(p->t_ms / 1000);
    char where[64];
    if (p->total > 0)
        snprintf(where, sizeof where, "%d%% (frame %ld of %ld", (int)(100.0 * p->frames / p->total), p->frames, p->total);
    else
        snprintf(where, sizeof where, "frame %ld (", p->frames);
    fprintf(stderr, "%srecord: %s, %02d:%02d of the source), %d moves, %d flagged, %.0f s%s", ps->tty ? "\r" : "",
            where, s / 60, s % 60, p->moves, p->flags, p->elapsed_ms / 1000, ps->tty ? "  " : "\n");
    fflush(stderr);
}

/* Everything the command line says. */
typedef struct record_cmd {
    const char *cmd;          /* "record", or the command that borrows the options (gtp) */
    const char *source, *out, *calfile, *corners, *final_path, *resume_file;
    bool no_stdin, quiet, no_evidence;
    bool check;               /* --check: try what the recording needs, record nothing */
    long size;
    double corner_xy[4][2];   /* --corners, read */
    cli_record_store store;   /* --black / --white split, --pass-at */
    /* live broadcast */
    const char *serve_arg, *board_name, *token, *mqtt, *hall, *hall_token;
    const char *allow_hosts[CLI_MAX_ALLOW_HOSTS];
    int nallow_hosts;
    long max_per_client;
    double linger;
    bool private_pages;
    session_options run;
    capture_options cap;
} record_cmd;

/* What an option parser says of argv[*i]. */
enum { ARG_NOT_MINE = 0, ARG_TAKEN = 1, ARG_BAD = -1 };

#define TAKE_VALUE(v)                                                  \
    do {                                                               \
        if (!((v) = cli_value(c->cmd, argc, argv, i))) return ARG_BAD; \
    } while (0)

/* --resume [FILE.sgf]: the form `--resume FILE`: a following
 * *.sgf is the game to continue (a source is never an .sgf file). */
static int parse_resume(record_cmd *c, int argc, char **argv, int *i)
{
    const char *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    c->run.recorder.resume = true;
    size_t vl = v ? strlen(v) : 0;
    if (v && v[0] != '-' && vl > 4 && !strcasecmp(v + vl - 4, ".sgf")) {
        if (c->resume_file && strcmp(c->resume_file, v)) {
            cli_error("%s: --resume %s and --resume %s: which game?", c->cmd, c->resume_file, v);
            return ARG_BAD;
        }
        c->resume_file = v;
        ++*i;
    }
    return ARG_TAKEN;
}

/* "NAME[,RANK]" of --black / --white into name and rank; false when it
 * cannot be (said). */
static bool parse_player(const char *cmd, const char *opt, const char *v, char *name, size_t nl, char *rank, size_t rl)
{
    const char *comma = strrchr(v, ',');
    size_t n = comma ? (size_t)(comma - v) : strlen(v);
    while (n > 0 && v[n - 1] == ' ') n--;
    const char *r = comma ? comma + 1 : "";
    while (*r == ' ') r++;
    if (n == 0 || n >= nl || strlen(r) >= rl) {
        cli_error("%s: %s %s: expected NAME or NAME,RANK (a name of 1..%zu bytes, a rank like 3d)", cmd, opt, v, nl - 1);
        return false;
    }
    memcpy(name, v, n);
    name[n] = 0;
    snprintf(rank, rl, "%s", r);
    return true;
}

static int pass_cmp(const void *a, const void *b)
{
    double x = ((const session_pass *)a)->t_ms, y = ((const session_pass *)b)->t_ms;
    return x < y ? -1 : x > y;
}

/* --pass-at SEC:B|W[,SEC:B|W...] into store->passes, kept in time order;
 * false when it cannot be read (said). */
static bool parse_pass_at(const char *cmd, cli_record_store *st, const char *v)
{
    const char *p = v;
    while (*p) {
        char *end;
        double sec = strtod(p, &end);
        char col = end[0] == ':' ? end[1] : 0;
        if (end == p || !(sec >= 0 && sec <= 1e7) || (col != 'B' && col != 'W') || (end[2] && end[2] != ',')) {
            cli_error("%s: --pass-at %s: expected SEC:B or SEC:W (seconds of the source), comma separated", cmd, v);
            return false;
        }
        if (st->npasses == CLI_MAX_PASSES) {
            cli_error("%s: --pass-at: at most %d passes", cmd, CLI_MAX_PASSES);
            return false;
        }
        st->passes[st->npasses++] = (session_pass){sec * 1000.0, col == 'B' ? GS_BLACK : GS_WHITE};
        p = end + 2 + (end[2] == ',');
    }
    qsort(st->passes, (size_t)st->npasses, sizeof st->passes[0], pass_cmp);
    return true;
}

/* The game information: --black, --white, --event, --round, --place,
 * --table, --pass-at, --black-side. */
static int parse_info_option(record_cmd *c, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *v;
    record_options *ro = &c->run.recorder;
    if (!strcmp(a, "--black") || !strcmp(a, "--white")) {
        TAKE_VALUE(v);
        bool b = a[2] == 'b';
        cli_record_store *p = &c->store;
        if (!parse_player(c->cmd, a, v, b ? p->black : p->white, sizeof p->black, b ? p->black_rank : p->white_rank,
                          sizeof p->black_rank))
            return ARG_BAD;
    } else if (!strcmp(a, "--event")) {
        TAKE_VALUE(ro->event);
    } else if (!strcmp(a, "--round")) {
        TAKE_VALUE(ro->round);
    } else if (!strcmp(a, "--place")) {
        TAKE_VALUE(ro->place);
    } else if (!strcmp(a, "--table")) {
        TAKE_VALUE(ro->table);
        if (!ro->table[0] || strlen(ro->table) > 60) { cli_error("%s: --table: expected 1..60 characters", c->cmd); return ARG_BAD; }
    } else if (!strcmp(a, "--pass-at")) {
        TAKE_VALUE(v);
        if (!parse_pass_at(c->cmd, &c->store, v)) return ARG_BAD;
    } else if (!strcmp(a, "--black-side")) {
        TAKE_VALUE(v);
        if (cli_parse_black_side(c->cmd, v, &c->run.black_side)) return ARG_BAD;
        c->run.black_side_given = true;
    } else {
        return ARG_NOT_MINE;
    }
    return ARG_TAKEN;
}

/* The game and the recorder: -o, --json, --settle, --size, --to-move,
 * --komi, --resume, --reopen, --count-anyway, --evidence, --no-evidence,
 * --fallback, --calibration, --corners. */
static int parse_game_option(record_cmd *c, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *v;
    record_options *ro = &c->run.recorder;
    if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
        TAKE_VALUE(c->out);
    } else if (!strcmp(a, "--json")) {
        ro->json = true;
    } else if (!strcmp(a, "--settle")) {
        TAKE_VALUE(v);
        if (cli_parse_settle(c->cmd, v, &c->run.tracker.settle_ms)) return ARG_BAD;
    } else if (!strcmp(a, "--calibration")) {
        TAKE_VALUE(c->calfile);
    } else if (!strcmp(a, "--corners")) {
        TAKE_VALUE(v);
        if (cli_parse_corners(c->cmd, v, c->corner_xy)) return ARG_BAD;
        c->corners = v;
    } else if (!strcmp(a, "--size")) {
        TAKE_VALUE(v);
        if (cli_parse_size(c->cmd, v, CLI_SIZE_GRID, &c->size)) return ARG_BAD;
    } else if (!strcmp(a, "--to-move")) {
        TAKE_VALUE(v);
        if (!strcmp(v, "B") || !strcmp(v, "b")) ro->to_move = GS_BLACK;
        else if (!strcmp(v, "W") || !strcmp(v, "w")) ro->to_move = GS_WHITE;
        else { cli_error("%s: --to-move %s: expected B or W", c->cmd, v); return ARG_BAD; }
    } else if (!strcmp(a, "--komi")) {
        TAKE_VALUE(v);
        if (cli_parse_komi(c->cmd, v, &ro->komi)) return ARG_BAD;
        ro->has_komi = true;
    } else if (!strcmp(a, "--resume")) {
        return parse_resume(c, argc, argv, i);
    } else if (!strcmp(a, "--reopen")) {
        ro->reopen = true;
    } else if (!strcmp(a, "--count-anyway")) {
        ro->count_anyway = true;
    } else if (!strcmp(a, "--evidence")) {
        TAKE_VALUE(ro->evidence_dir);
    } else if (!strcmp(a, "--fallback")) {
        TAKE_VALUE(ro->fallback_dir);
        if (!ro->fallback_dir[0]) { cli_error("%s: --fallback: expected a folder", c->cmd); return ARG_BAD; }
    } else if (!strcmp(a, "--no-evidence")) {
        c->no_evidence = true;
    } else {
        return ARG_NOT_MINE;
    }
    return ARG_TAKEN;
}

/* The source and the run: --max-frames, --frame-delay, --width, --height,
 * --fps, --max-pixels, --final, --check, --no-stdin, -q. */
static int parse_run_option(record_cmd *c, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *v;
    long l;
    if (!strcmp(a, "--max-frames")) {
        TAKE_VALUE(v);
        if (cli_parse_whole(c->cmd, a, v, 1, 1L << 40, &l)) return ARG_BAD;
        c->run.max_frames = l;
    } else if (!strcmp(a, "--frame-delay")) {
        TAKE_VALUE(v);
        if (cli_parse_whole(c->cmd, a, v, 0, 60000, &l)) return ARG_BAD;
        c->run.frame_delay_ms = (int)l;
    } else if (!strcmp(a, "--width") || !strcmp(a, "--height")) {
        TAKE_VALUE(v);
        if (cli_parse_whole(c->cmd, a, v, 16, 16384, &l)) return ARG_BAD;
        if (a[2] == 'w') c->cap.width = (int)l;
        else c->cap.height = (int)l;
    } else if (!strcmp(a, "--fps")) {
        TAKE_VALUE(v);
        if (cli_parse_fps(c->cmd, v, &c->cap.fps)) return ARG_BAD;
    } else if (!strcmp(a, "--max-pixels")) {
        TAKE_VALUE(v);
        if (cli_parse_max_pixels(c->cmd, v, &c->cap.max_pixels) != 0) return ARG_BAD;
    } else if (!strcmp(a, "--final")) {
        TAKE_VALUE(c->final_path);
    } else if (!strcmp(a, "--check")) {
        c->check = true;
    } else if (!strcmp(a, "--no-stdin")) {
        c->no_stdin = true;
    } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
        c->quiet = true;
    } else {
        return ARG_NOT_MINE;
    }
    return ARG_TAKEN;
}

/* The live broadcast: --serve, --board-name, --token, --mqtt, --hall
 * (--announce), --hall-token, --allow-host, --max-per-client, --private,
 * --linger. */
static int parse_serve_option(record_cmd *c, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *v;
    if (!strcmp(a, "--serve")) {
        TAKE_VALUE(c->serve_arg);
    } else if (!strcmp(a, "--board-name")) {
        TAKE_VALUE(c->board_name);
    } else if (!strcmp(a, "--token")) {
        TAKE_VALUE(c->token); /* (its form is checked where it is used: broadcast_board_start) */
    } else if (!strcmp(a, "--mqtt")) {
        TAKE_VALUE(c->mqtt);
    } else if (!strcmp(a, "--hall") || !strcmp(a, "--announce")) {
        TAKE_VALUE(c->hall);
    } else if (!strcmp(a, "--hall-token")) {
        TAKE_VALUE(c->hall_token);
    } else if (!strcmp(a, "--allow-host")) {
        TAKE_VALUE(v);
        if (cli_add_allow_host(c->cmd, v, c->allow_hosts, &c->nallow_hosts)) return ARG_BAD;
    } else if (!strcmp(a, "--max-per-client")) {
        TAKE_VALUE(v);
        if (cli_parse_max_per_client(c->cmd, v, &c->max_per_client)) return ARG_BAD;
    } else if (!strcmp(a, "--private")) {
        c->private_pages = true;
    } else if (!strcmp(a, "--linger")) {
        TAKE_VALUE(v);
        if (cli_parse_number(c->cmd, a, v, 0, 86400, &c->linger)) return ARG_BAD;
    } else {
        return ARG_NOT_MINE;
    }
    return ARG_TAKEN;
}

#undef TAKE_VALUE

/* Fills c from argv; -1 to go on, else the exit code (after --help or an
 * error, said). */
static int parse_args(int argc, char **argv, record_cmd *c)
{
    memset(c, 0, sizeof *c);
    c->cmd = argv[0];
    session_options_init(&c->run);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a)) {
            usage(stdout);
            return GS_EXIT_OK;
        }
        int got = parse_game_option(c, argc, argv, &i);
        if (got == ARG_NOT_MINE) got = parse_run_option(c, argc, argv, &i);
        if (got == ARG_NOT_MINE) got = parse_serve_option(c, argc, argv, &i);
        if (got == ARG_NOT_MINE) got = parse_info_option(c, argc, argv, &i);
        if (got == ARG_BAD) return GS_EXIT_ERROR;
        if (got == ARG_TAKEN) continue;
        if (a[0] == '-' && a[1]) {
            cli_error("%s: unknown option %s (see goscribe %s --help)", c->cmd, a, c->cmd);
            return GS_EXIT_ERROR;
        } else if (!c->source) {
            c->source = a;
        } else {
            char one[512], two[512]; /* a URL's credentials are never printed */
            cli_error("%s: more than one source (%s, %s)", c->cmd, capture_spec_shown(c->source, one, sizeof one),
                      capture_spec_shown(a, two, sizeof two));
            return GS_EXIT_ERROR;
        }
    }
    return -1;
}

/* The options that go together; false when they do not (said). */
static bool check_args(record_cmd *c)
{
    if (!c->source) {
        cli_error("%s: no source given (a folder of photos, a video file, a camera or its URL)", c->cmd);
        return false;
    }
    if (c->resume_file) {
        if (c->out && strcmp(c->out, c->resume_file)) {
            cli_error("%s: --resume %s with -o %s: which file is the game?", c->cmd, c->resume_file, c->out);
            return false;
        }
        c->out = c->resume_file;
    }
    if (!c->out) {
        cli_error("%s: no output file given (-o GAME.sgf)", c->cmd);
        return false;
    }
    if (c->run.recorder.reopen && !c->run.recorder.resume) {
        cli_error("%s: --reopen goes with --resume (it continues a game that has a result)", c->cmd);
        return false;
    }
    if (cli_check_size(c->cmd, c->size, CLI_SIZE_GRID, c->calfile || c->corners)) return false;
    if (c->calfile && c->corners) {
        cli_error("%s: --calibration and --corners exclude each other", c->cmd);
        return false;
    }
    if (!c->serve_arg && (c->board_name || c->token || c->mqtt || c->hall || c->hall_token || c->nallow_hosts ||
                          c->max_per_client || c->linger > 0 || c->private_pages)) {
        cli_error("record: --board-name, --token, --mqtt, --hall, --hall-token, --allow-host, --max-per-client, "
                  "--private and --linger need --serve [ADDR:]PORT");
        return false;
    }
    if (c->hall && !c->hall_token) {
        cli_error("record: --hall %s needs --hall-token T (goscribe hall prints its token at start)", c->hall);
        return false;
    }
    return true;
}

/* The broadcast's configuration (bind holds its address); false when
 * --serve cannot be read (said). */
static bool serve_config(const record_cmd *c, broadcast_config *cfg, char *bind, size_t bindlen)
{
    broadcast_config_init(cfg);
    bind[0] = 0;
    if (c->serve_arg && cli_parse_serve("record", c->serve_arg, bind, bindlen, &cfg->port)) return false;
    if (bind[0]) cfg->bind_addr = bind;
    cfg->board_name = c->board_name ? c->board_name : c->run.recorder.table;
    cfg->token = c->token;
    cfg->mqtt = c->mqtt;
    cfg->announce = c->hall;
    cfg->announce_token = c->hall_token;
    cfg->allow_hosts = c->allow_hosts;
    cfg->nallow_hosts = c->nallow_hosts;
    cfg->max_per_client = (int)c->max_per_client;
    cfg->private_pages = c->private_pages;
    return true;
}

/* The board's grid from --calibration or --corners; false when it cannot
 * be had (said). */
static bool setup_grid(record_cmd *c, gs_error *err)
{
    track_options *t = &c->run.tracker;
    if (c->calfile) {
        calib_data cal;
        calib_init(&cal);
        if (calib_load(&cal, c->calfile, err) != GS_OK) {
            cli_error("%s", err->msg); /* calib_load names the file */
            return false;
        }
        if (cal.grid.size < 5) {
            cli_error("%s: calibration holds no board", c->calfile);
            return false;
        }
        t->have_grid = true;
        t->grid = cal.grid;
    } else if (c->corners) {
        if (vision_grid_from_corners(&t->grid, c->size ? (int)c->size : 19, (const double(*)[2])c->corner_xy, err) != GS_OK ||
            calib_grid_check(&t->grid, 0, 0, false, err) != GS_OK) {
            cli_error("%s: --corners: %s", c->cmd, err->msg);
            return false;
        }
        t->have_grid = true;
    }
    if (t->have_grid && c->size && t->grid.size != c->size) {
        cli_error("%s: --size %ld but the calibration is for %d", c->cmd, c->size, t->grid.size);
        return false;
    }
    return true;
}

/* The live broadcast started and plugged into the loop's hooks; false
 * when it cannot start (err). */
static bool start_live(record_cmd *c, const broadcast_config *cfg, broadcast_board **sb, broadcast_live **live,
                       gs_error *err)
{
    *sb = broadcast_board_start(cfg, err);
    if (!*sb) return false;
    *live = broadcast_live_create(*sb, &c->run.recorder, err);
    if (!*live) {
        broadcast_board_stop(*sb);
        *sb = NULL;
        return false;
    }
    const char *url = broadcast_board_url(*sb);
    fprintf(stderr, "goscribe record: live %s/\n", url);
    fprintf(stderr, "goscribe record: referee %s/referee token %s\n", url, broadcast_board_token(*sb));
    fflush(stderr);
    c->run.hooks = broadcast_live_hooks();
    c->run.hooks_user = *live;
    return true;
}

/* Viewers keep the final record for a while (a demo, a late look). */
static void serve_linger(double seconds)
{
    fprintf(stderr, "goscribe record: recording over, serving for %g s more\n", seconds);
    double end = gs_now_ms() + seconds * 1000.0;
    while (!g_stop && gs_now_ms() < end) {
        struct timespec ts = {0, 100 * 1000000L};
        nanosleep(&ts, NULL);
    }
}

/* A live source lost or back, on stderr too: whoever runs the recorder
 * (a hall shows its recorders' stderr) sees it, not only the event log. */
static void source_state(void *user, const char *line)
{
    (void)user;
    fprintf(stderr, "goscribe record: %s\n", line);
}

/* Runs the loop with stdin commands, progress and a clean SIGINT. */
static gs_status run_recording(record_cmd *c, capture_source *src, session_stats *stats, gs_error *err)
{
    stdin_reader sr;
    memset(&sr, 0, sizeof sr);
    if (!c->no_stdin) {
        c->run.poll = poll_stdin;
        c->run.poll_user = &sr;
    }
    progress_state ps = {isatty(2) != 0, 0};
    if (!c->quiet && !capture_is_live(src)) {
        c->run.progress = progress;
        c->run.progress_user = &ps;
    }
    /* with --json the event lines carry it (stderr beside JSON lines
     * breaks readers that merge the two) */
    if (!c->quiet && !c->run.recorder.json) c->run.source_state = source_state;
    gs_status st = session_run(src, &c->run, stats, err);
    if (c->run.progress && ps.tty) fputc('\n', stderr);
    return st;
}

/* The record's last position as grid text (--final). */
static bool write_final(const char *path, const gs_position *pos)
{
    char buf[GS_MAX_SIZE * GS_MAX_SIZE * 2 + 2];
    gs_position_format(pos, buf, sizeof buf);
    FILE *f = fopen(path, "w");
    bool ok = f && fputs(buf, f) >= 0;
    if (f && fclose(f) != 0) ok = false;
    if (!ok) cli_error("%s: cannot write", path);
    return ok;
}

/* The recording's names and passes pointed at store (which must outlive
 * the recording). */
static void point_store(session_options *run, const cli_record_store *store)
{
    run->recorder.black = store->black;
    run->recorder.white = store->white;
    run->recorder.black_rank = store->black_rank;
    run->recorder.white_rank = store->white_rank;
    run->passes = store->passes;
    run->npasses = store->npasses;
}

/* The recorder's options completed from c. */
static void recorder_options(record_cmd *c)
{
    record_options *ro = &c->run.recorder;
    if (c->no_evidence) ro->evidence_dir = "";
    ro->sgf_path = c->out;
    ro->size = (int)c->size;
    ro->out = stdout;
    c->run.tracker.size_hint = (int)c->size;
}

/* --check: the grid, the source, the files, each problem said; the exit
 * code. */
static int check_recording(record_cmd *c)
{
    recorder_options(c);
    gs_error err = {0};
    int problems = !setup_grid(c, &err);
    return cli_record_check(c->source, &c->cap, c->out, &c->run.recorder, problems);
}

/* The recorder's options from c, the grid and the source opened; NULL
 * when they cannot be had (said, *rc the exit code). */
static capture_source *open_recording(record_cmd *c, int *rc)
{
    recorder_options(c);
    gs_error err = {0};
    *rc = GS_EXIT_ERROR;
    if (!setup_grid(c, &err)) return NULL;
    capture_source *src = capture_open(c->source, &c->cap, &err);
    if (!src) {
        cli_error("%s", err.msg);
        *rc = gs_status_exit_code(err.status);
    }
    return src;
}

int cli_record_prepare(int argc, char **argv, cli_record_store *store, struct session_options *run,
                       struct capture_source **src)
{
    record_cmd c;
    int rc = parse_args(argc, argv, &c);
    if (rc >= 0) return rc;
    if (c.serve_arg || c.board_name || c.token || c.mqtt || c.hall || c.linger > 0 || c.final_path || c.check) {
        cli_error("%s: --serve, --board-name, --token, --mqtt, --hall, --linger, --final and --check are goscribe "
                  "record's only", argv[0]);
        return GS_EXIT_ERROR;
    }
    if (!check_args(&c)) return GS_EXIT_ERROR;
    if (!(*src = open_recording(&c, &rc))) return rc;
    /* c dies here: the names and passes move to the caller's storage */
    *store = c.store;
    *run = c.run;
    point_store(run, store);
    return -1;
}

int cmd_record(int argc, char **argv)
{
    record_cmd c;
    int rc = parse_args(argc, argv, &c);
    if (rc >= 0) return rc;
    broadcast_config scfg;
    char bind[128];
    if (!check_args(&c) || !serve_config(&c, &scfg, bind, sizeof bind)) return GS_EXIT_ERROR;
    if (c.check) return check_recording(&c);
    capture_source *src = open_recording(&c, &rc);
    if (!src) return rc;
    point_store(&c.run, &c.store);
    gs_error err = {0};
    broadcast_board *sb = NULL;
    broadcast_live *live = NULL;
    if (c.serve_arg && !start_live(&c, &scfg, &sb, &live, &err)) {
        cli_error("record: --serve %s: %s", c.serve_arg, err.msg);
        capture_close(src);
        return gs_status_exit_code(err.status);
    }
    /* (a handler that cannot be set only loses the clean stop on Ctrl-C) */
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old);
    g_stop = 0;
    c.run.stop = &g_stop;
    session_stats stats;
    gs_status st = run_recording(&c, src, &stats, &err);
    capture_close(src);
    if (sb && c.linger > 0) serve_linger(c.linger);
    sigaction(SIGINT, &old, NULL);
    broadcast_live_destroy(live);
    broadcast_board_stop(sb);
    if (st == GS_OK && c.final_path && stats.have_final && !write_final(c.final_path, &stats.final_pos))
        return GS_EXIT_ERROR;
    if (st != GS_OK) {
        /* an error about the SGF (a resume refused) names it already */
        /* (a message that names the file already is not prefixed again) */
        char shown[512];
        capture_spec_shown(c.source, shown, sizeof shown);
        if (!strncmp(err.msg, c.out, strlen(c.out)) || !strncmp(err.msg, c.source, strlen(c.source)) ||
            !strncmp(err.msg, shown, strlen(shown)))
            cli_error("%s", err.msg);
        else cli_error("%s: %s", shown, err.msg);
        return gs_status_exit_code(st);
    }
    char skipped[64] = "";
    if (stats.skipped_frames > 0)
        snprintf(skipped, sizeof skipped, ", %ld broken frame%s skipped", stats.skipped_frames,
                 stats.skipped_frames == 1 ? "" : "s");
    /* with --json the log's orientation note carries the warning (stderr
     * beside JSON lines breaks readers that merge the two) */
    if (stats.orientation_warning[0] && !c.run.recorder.json)
        fprintf(stderr, "goscribe: warning: %s\n", stats.orientation_warning);
    if (!c.quiet)
        fprintf(stderr, "recorded %d moves from %ld frames (%s%s), %d flagged (referee events), %d end-of-game signal%s, "
                "%s%s -> %s\n", stats.moves, stats.frames, stats.stop_reason, skipped, stats.referee_events, stats.signals,
                stats.signals == 1 ? "" : "s", stats.result[0] ? "result " : "no result", stats.result, c.out);
    if (!c.quiet) fprintf(stderr, "orientation: %s\n", stats.orientation);
    /* exit code 3's one rule: a count that is not sure (its range is in
     * the log and the SGF comment) */
    if (!stats.count_sure) {
        fprintf(stderr, "goscribe: warning: the count (RE %s) is not sure: see its NOT SURE line\n", stats.result);
        return GS_EXIT_UNSURE;
    }
    return GS_EXIT_OK;
}
