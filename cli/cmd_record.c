/* cli/cmd_record.c: `goscribe record SOURCE -o game.sgf`: watch a game and
 * keep its record live (capture -> tracker -> recorder, record/record_run). */
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

static void usage(FILE *f)
{
    fprintf(f,
            "usage: goscribe record SOURCE -o GAME.sgf [options]\n"
            "\n"
            "SOURCE is a folder of photos (natural name order, each photo a settled view),\n"
            "a video file, or a camera (/dev/videoN or N).  The SGF is rewritten safely after\n"
            "every move; referee events are printed live and kept with their frames in\n"
            "GAME.evidence/.\n"
            "\n"
            "options:\n"
            "  -o, --output FILE     the SGF to write (required)\n"
            "  --json                one JSON object per event line\n"
            "  --settle SEC          how long the view must be still (default 0.5)\n"
            "  --calibration FILE    board position from `goscribe calibrate`\n"
            "  --corners X0,Y0,X1,Y1,X2,Y2,X3,Y3\n"
            "                        outer intersections (top-left, top-right, bottom-right,\n"
            "                        bottom-left) in image pixels, instead of finding the board\n"
            "  --size N              board size (9, 13, 19; default: detect)\n"
            "  --to-move B|W         side to move on a board that already holds stones\n"
            "  --komi K              komi in SGF points (default 7.5; 0 with handicap)\n"
            "  --resume [FILE.sgf]   continue the game already in the SGF file (-o, or FILE)\n"
            "  --evidence DIR        where to keep evidence (default GAME.evidence)\n"
            "  --no-evidence         keep no evidence frames\n"
            "  --max-frames N        stop after N frames\n"
            "  --frame-delay MS      wait MS after each frame (a slow source, for demos/tests)\n"
            "  --width W --height H --fps F   camera mode\n"
            "  --final FILE          also write the record's last position (grid text)\n"
            "  --no-stdin            ignore standard input\n"
            "  -q, --quiet           no progress on stderr\n"
            "live broadcast (needs libmicrohttpd; see also `goscribe hall`):\n"
            "  --serve [ADDR:]PORT   serve the live board page, /game.sgf, /state.json, /events,\n"
            "                        /frame.jpg and the referee console /referee (the token is\n"
            "                        printed at start); ADDR defaults to 127.0.0.1 (loopback),\n"
            "                        0.0.0.0 for every interface; PORT 0 = any free port\n"
            "  --board-name NAME     name shown on the pages and in the hall (default \"board\")\n"
            "  --token T             referee token (default: 128 random bits)\n"
            "  --mqtt HOST:PORT      also publish state and events to an MQTT broker\n"
            "  --hall URL            announce this board to a `goscribe hall` at URL (alias --announce)\n"
            "  --linger SEC          keep serving the final record SEC seconds after the\n"
            "                        recording ends (default 0; SIGINT ends it early)\n"
            "\n"
            "commands on standard input, one per line: q (stop), end (game over: lift the\n"
            "dead stones, the last view is counted), pass [B|W], resign B|W.\n"
            "A camera recording stops at EOF on stdin; files stop at their end (and count).\n"
            "SIGINT (Ctrl-C) stops cleanly; the SGF stays valid at every moment.\n");
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

static void progress(void *user, long frame, long total)
{
    (void)user;
    if (total > 0) fprintf(stderr, "\rframe %ld/%ld (%d%%)", frame, total, (int)(100.0 * frame / total));
    else fprintf(stderr, "\rframe %ld", frame);
    fflush(stderr);
}

static int parse_corners(const char *s, double c[4][2])
{
    double v[8];
    const char *p = s;
    for (int i = 0; i < 8; i++) {
        char *end;
        errno = 0;
        v[i] = strtod(p, &end);
        if (end == p || errno) return -1;
        p = end;
        if (i < 7) {
            if (*p != ',' && *p != ' ') return -1;
            p++;
        }
    }
    if (*p) return -1;
    for (int i = 0; i < 4; i++) {
        c[i][0] = v[2 * i];
        c[i][1] = v[2 * i + 1];
    }
    return 0;
}

/* "[ADDR:]PORT" -> bind (empty = default loopback) and port. */
static int parse_serve_addr(const char *s, char *bind, size_t bindlen, int *port)
{
    const char *colon = strrchr(s, ':');
    const char *p = colon ? colon + 1 : s;
    long l;
    if (cli_parse_int(p, 0, 65535, &l)) return -1;
    *port = (int)l;
    bind[0] = 0;
    if (colon) {
        size_t n = (size_t)(colon - s);
        if (n >= bindlen) return -1;
        /* [::1]:8080 style: strip the brackets */
        if (n >= 2 && s[0] == '[' && s[n - 1] == ']') {
            memcpy(bind, s + 1, n - 2);
            bind[n - 2] = 0;
        } else {
            memcpy(bind, s, n);
            bind[n] = 0;
        }
    }
    return 0;
}

int cmd_record(int argc, char **argv)
{
    const char *source = NULL, *out = NULL, *calfile = NULL, *corners = NULL, *final_path = NULL;
    record_run_options o;
    record_run_options_init(&o);
    capture_options co;
    memset(&co, 0, sizeof co);
    bool no_stdin = false, quiet = false, no_evidence = false;
    long size = 0;
    const char *resume_file = NULL;
    const char *serve_arg = NULL, *board_name = NULL, *token = NULL, *mqtt = NULL, *hall = NULL;
    double linger = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        long l;
        double d;
#define NEED_VALUE()                                                    \
    do {                                                                \
        if (!v) {                                                       \
            cli_error("record: %s needs a value", a);                   \
            return GS_EXIT_ERROR;                                       \
        }                                                               \
        i++;                                                            \
    } while (0)
        if (cli_is_help(a)) {
            usage(stdout);
            return GS_EXIT_OK;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            NEED_VALUE();
            out = v;
        } else if (!strcmp(a, "--json")) {
            o.recorder.json = true;
        } else if (!strcmp(a, "--settle")) {
            NEED_VALUE();
            if (cli_parse_double(v, 0.01, 60, &d)) { cli_error("record: --settle %s: not a number of seconds (0.01..60)", v); return GS_EXIT_ERROR; }
            o.tracker.settle_ms = d * 1000.0;
        } else if (!strcmp(a, "--calibration")) {
            NEED_VALUE();
            calfile = v;
        } else if (!strcmp(a, "--corners")) {
            NEED_VALUE();
            corners = v;
        } else if (!strcmp(a, "--size")) {
            NEED_VALUE();
            if (cli_parse_int(v, 5, GS_MAX_SIZE, &size)) { cli_error("record: --size %s: not a board size (5..%d)", v, GS_MAX_SIZE); return GS_EXIT_ERROR; }
        } else if (!strcmp(a, "--to-move")) {
            NEED_VALUE();
            if (!strcmp(v, "B") || !strcmp(v, "b")) o.recorder.to_move = GS_BLACK;
            else if (!strcmp(v, "W") || !strcmp(v, "w")) o.recorder.to_move = GS_WHITE;
            else { cli_error("record: --to-move %s: expected B or W", v); return GS_EXIT_ERROR; }
        } else if (!strcmp(a, "--komi")) {
            NEED_VALUE();
            if (cli_parse_double(v, -1000, 1000, &d)) { cli_error("record: --komi %s: not a number", v); return GS_EXIT_ERROR; }
            o.recorder.komi = d;
            o.recorder.has_komi = true;
        } else if (!strcmp(a, "--resume")) {
            o.recorder.resume = true;
            /* the form `--resume FILE`: a following *.sgf is the
             * game to continue (a source is never an .sgf file) */
            size_t vl = v ? strlen(v) : 0;
            if (v && v[0] != '-' && vl > 4 && !strcasecmp(v + vl - 4, ".sgf")) {
                if (resume_file && strcmp(resume_file, v)) {
                    cli_error("record: --resume %s and --resume %s: which game?", resume_file, v);
                    return GS_EXIT_ERROR;
                }
                resume_file = v;
                i++;
            }
        } else if (!strcmp(a, "--evidence")) {
            NEED_VALUE();
            o.recorder.evidence_dir = v;
        } else if (!strcmp(a, "--no-evidence")) {
            no_evidence = true;
        } else if (!strcmp(a, "--max-frames")) {
            NEED_VALUE();
            if (cli_parse_int(v, 1, 1L << 40, &l)) { cli_error("record: --max-frames %s: not a positive number", v); return GS_EXIT_ERROR; }
            o.max_frames = l;
        } else if (!strcmp(a, "--frame-delay")) {
            NEED_VALUE();
            if (cli_parse_int(v, 0, 60000, &l)) { cli_error("record: --frame-delay %s: not milliseconds (0..60000)", v); return GS_EXIT_ERROR; }
            o.frame_delay_ms = (int)l;
        } else if (!strcmp(a, "--width") || !strcmp(a, "--height")) {
            NEED_VALUE();
            if (cli_parse_int(v, 16, 16384, &l)) { cli_error("record: %s %s: not a size in pixels", a, v); return GS_EXIT_ERROR; }
            if (a[2] == 'w') co.width = (int)l;
            else co.height = (int)l;
        } else if (!strcmp(a, "--fps")) {
            NEED_VALUE();
            if (cli_parse_double(v, 0.1, 1000, &d)) { cli_error("record: --fps %s: not a frame rate", v); return GS_EXIT_ERROR; }
            co.fps = d;
        } else if (!strcmp(a, "--final")) {
            NEED_VALUE();
            final_path = v;
        } else if (!strcmp(a, "--serve")) {
            NEED_VALUE();
            serve_arg = v;
        } else if (!strcmp(a, "--board-name")) {
            NEED_VALUE();
            board_name = v;
        } else if (!strcmp(a, "--token")) {
            NEED_VALUE();
            if (!*v || strlen(v) > 200) { cli_error("record: --token: expected 1..200 characters"); return GS_EXIT_ERROR; }
            token = v;
        } else if (!strcmp(a, "--mqtt")) {
            NEED_VALUE();
            mqtt = v;
        } else if (!strcmp(a, "--hall") || !strcmp(a, "--announce")) {
            NEED_VALUE();
            hall = v;
        } else if (!strcmp(a, "--linger")) {
            NEED_VALUE();
            if (cli_parse_double(v, 0, 86400, &d)) { cli_error("record: --linger %s: not a number of seconds (0..86400)", v); return GS_EXIT_ERROR; }
            linger = d;
        } else if (!strcmp(a, "--no-stdin")) {
            no_stdin = true;
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            quiet = true;
        } else if (a[0] == '-' && a[1]) {
            cli_error("record: unknown option %s (see goscribe record --help)", a);
            return GS_EXIT_ERROR;
        } else if (!source) {
            source = a;
        } else {
            cli_error("record: more than one source (%s, %s)", source, a);
            return GS_EXIT_ERROR;
        }
#undef NEED_VALUE
    }
    if (!source) {
        cli_error("record: no source given (a folder of photos, a video file or a camera)");
        return GS_EXIT_ERROR;
    }
    if (resume_file) {
        if (out && strcmp(out, resume_file)) {
            cli_error("record: --resume %s with -o %s: which file is the game?", resume_file, out);
            return GS_EXIT_ERROR;
        }
        out = resume_file;
    }
    if (!out) {
        cli_error("record: no output file given (-o GAME.sgf)");
        return GS_EXIT_ERROR;
    }
    if (calfile && corners) {
        cli_error("record: --calibration and --corners exclude each other");
        return GS_EXIT_ERROR;
    }
    if (!serve_arg && (board_name || token || mqtt || hall || linger > 0)) {
        cli_error("record: --board-name, --token, --mqtt, --hall and --linger need --serve [ADDR:]PORT");
        return GS_EXIT_ERROR;
    }
    broadcast_config scfg;
    broadcast_config_init(&scfg);
    char bind[128] = "";
    if (serve_arg && parse_serve_addr(serve_arg, bind, sizeof bind, &scfg.port)) {
        cli_error("record: --serve %s: expected [ADDR:]PORT with PORT 0..65535", serve_arg);
        return GS_EXIT_ERROR;
    }
    if (bind[0]) scfg.bind_addr = bind;
    scfg.board_name = board_name;
    scfg.token = token;
    scfg.mqtt = mqtt;
    scfg.announce = hall;
    if (no_evidence) o.recorder.evidence_dir = "";
    o.recorder.sgf_path = out;
    o.recorder.size = (int)size;
    o.recorder.out = stdout;
    o.tracker.size_hint = (int)size;
    gs_error err = {0};
    int cal_w = 0, cal_h = 0;
    calib_data cal;
    if (calfile) {
        calib_init(&cal);
        if (calib_load(&cal, calfile, &err) != GS_OK) {
            cli_error("%s: %s", calfile, err.msg);
            return GS_EXIT_ERROR;
        }
        if (cal.grid.size < 5) {
            cli_error("%s: calibration holds no board", calfile);
            return GS_EXIT_ERROR;
        }
        o.tracker.have_grid = true;
        o.tracker.grid = cal.grid;
        cal_w = cal.image_width;
        cal_h = cal.image_height;
    } else if (corners) {
        double c[4][2];
        if (parse_corners(corners, c)) {
            cli_error("record: --corners %s: expected 8 numbers X0,Y0,...,X3,Y3", corners);
            return GS_EXIT_ERROR;
        }
        if (vision_grid_from_corners(&o.tracker.grid, size ? (int)size : 19, c, &err) != GS_OK) {
            cli_error("record: --corners: %s", err.msg);
            return GS_EXIT_ERROR;
        }
        o.tracker.have_grid = true;
    }
    if (o.tracker.have_grid && size && o.tracker.grid.size != size) {
        cli_error("record: --size %ld but the calibration is for %d", size, o.tracker.grid.size);
        return GS_EXIT_ERROR;
    }
    capture_source *src = capture_open(source, &co, &err);
    if (!src) {
        cli_error("%s", err.msg);
        return gs_status_exit_code(err.status);
    }
    (void)cal_w;
    (void)cal_h;
    broadcast_board *sb = NULL;
    if (serve_arg) {
        sb = broadcast_board_start(&scfg, &err);
        if (!sb) {
            cli_error("record: --serve %s: %s", serve_arg, err.msg);
            capture_close(src);
            return gs_status_exit_code(err.status);
        }
        const char *url = broadcast_board_url(sb);
        fprintf(stderr, "goscribe record: live %s/\n", url);
        fprintf(stderr, "goscribe record: referee %s/referee token %s\n", url, broadcast_board_token(sb));
        fflush(stderr);
        o.serve = sb;
    }
    stdin_reader sr;
    memset(&sr, 0, sizeof sr);
    if (!no_stdin) {
        o.poll = poll_stdin;
        o.poll_user = &sr;
    }
    if (!quiet && isatty(2) && capture_get_kind(src) != CAPTURE_CAMERA) o.progress = progress;
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old);
    g_stop = 0;
    o.stop = &g_stop;
    record_run_stats stats;
    gs_status st = record_run(src, &o, &stats, &err);
    if (o.progress) fputc('\n', stderr);
    capture_close(src);
    if (sb && linger > 0) {
        /* viewers keep the final record for a while (a demo, a late look) */
        fprintf(stderr, "goscribe record: recording over, serving for %g s more\n", linger);
        double end = gs_now_ms() + linger * 1000.0;
        while (!g_stop && gs_now_ms() < end) {
            struct timespec ts = {0, 100 * 1000000L};
            nanosleep(&ts, NULL);
        }
    }
    sigaction(SIGINT, &old, NULL);
    broadcast_board_stop(sb);
    if (st == GS_OK && final_path && stats.have_final) {
        char buf[GS_MAX_SIZE * GS_MAX_SIZE * 2 + 2];
        gs_position_format(&stats.final_pos, buf, sizeof buf);
        FILE *f = fopen(final_path, "w");
        if (!f || fputs(buf, f) < 0 || fclose(f) != 0) {
            cli_error("%s: cannot write", final_path);
            return GS_EXIT_ERROR;
        }
    }
    if (st != GS_OK) {
        cli_error("%s: %s", source, err.msg);
        return gs_status_exit_code(st);
    }
    if (!quiet)
        fprintf(stderr, "recorded %d moves from %ld frames (%s), %d flagged, %s%s -> %s\n", stats.moves, stats.frames,
                stats.stop_reason, stats.referee_events, stats.result[0] ? "result " : "no result",
                stats.result, out);
    return GS_EXIT_OK;
}
