/* cli/cmd_render.c: `goscribe render GAME.sgf -o OUT.mp4|OUT_DIR`: a game
 * record as a synthetic camera video (or PNG frames) plus its truth.  The
 * options go into a render_job_options; render_job_run (samples/) does the
 * work. */
#include "cli/cli.h"
#include "samples/render.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f,
        "Usage: goscribe render GAME.sgf -o OUT.mp4|.avi|.mkv|.mov|OUT_DIR [options]\n"
        "\n"
        "Renders what a camera over the board would see while the game is played:\n"
        "a video (OUT.mp4, .avi, .mkv or .mov; .avi is MJPEG, the others H.264 where\n"
        "the platform has it, else MPEG-4) or numbered PNG frames\n"
        "(OUT_DIR/frame_000000.png), plus the truth: one JSON line per frame\n"
        "(OUT.truth.jsonl or OUT_DIR/truth.jsonl), the game as rendered (OUT.truth.sgf\n"
        "or OUT_DIR/truth.sgf) and the board grid at the start, before any camera bump\n"
        "or drift (OUT.truth.cal or OUT_DIR/truth.cal).  Every look option below is\n"
        "drawn from --seed unless given.\n"
        "\n"
        "Options:\n"
        "  -h, --help          this text\n"
        "  -o, --output PATH   video file (.mp4, .avi, .mkv, .mov) or a directory for PNG\n"
        "                      frames\n"
        "  --seed N            seed of the look and the timeline (default 1)\n"
        "  --frame-size WxH    the picture's size in pixels (default 1280x720)\n"
        "  --fps F             frames per second (default 30)\n"
        "  --moves N           render only the first N moves of the game\n"
        "  --pace X            play X times faster than natural (default 1)\n"
        "  --frames N          stop after N frames\n"
        "  --violate LIST      comma list: double_move,wrong_capture,missed_capture,\n"
        "                      moved_stone,ko (each placed once where it can happen)\n"
        "  --correct LIST      the same kinds, each placed again and put right after a\n"
        "                      still view of 1.2-2 s (stone taken back, put back, moved\n"
        "                      back; captures lifted after the opponent's next move)\n"
        "  --end confirm|resign[:B|W]  after the last move both players confirm the end\n"
        "                      (a stone of the other colour at their lower-right corner,\n"
        "                      the side to move first), or one resigns (two of his own\n"
        "                      stones on the margin; default: the loser by RE, else the\n"
        "                      side to move)\n"
        "  --objects           bowls, lids, a stone on the table, a cable and papers\n"
        "                      around the board (beyond its edge)\n"
        "  --hover PCT         chance a move hovers before it lands (default 20)\n"
        "  --rest PCT          chance a pause has a hand resting on the edge (default 10)\n"
        "  -q, --quiet         no progress on stderr\n"
        "Camera options:\n"
        "  --tilt DEG (0..75)  --rotation DEG  --roll DEG  --fov DEG  --fill F (0.1..1.5)\n"
        "  --distance MM       --k1 K (lens, -0.5..0.5)\n"
        "  --bump MS|none      time of a small camera knock   --bump-deg DEG\n"
        "  --drift DEG_PER_MIN slow pan/tilt of the camera from the start (default 0)\n"
        "  --drift-dir DEG     which way the picture drifts (0 right, 90 down; seeded)\n"
        "Board options:\n"
        "  --cells jp|cn|sq    22x23.7 / 24x23 / 23x23 mm cells   --cell WxH (mm)\n"
        "  --line MM  --margin MM  --thickness MM  --no-stars  --wood B,G,R  --grain G\n"
        "Stone options:\n"
        "  --stone-height MM  --jitter MM\n"
        "Light and sensor options:\n"
        "  --kelvin K  --brightness B  --gradient G  --glare G  --flicker F  --slow A\n"
        "  --noise SIGMA  --blur 0|1  --motion-blur M  --jpeg Q (0 = off)\n"
        CLI_EXIT_CODES CLI_EXIT_0 CLI_EXIT_1 CLI_EXIT_2);
}

/* The look options that take a number: name, range, the field they set. */
static const struct {
    const char *name;
    double lo, hi;
    render_look_field field;
} look_numbers[] = {
    {"--tilt", 0, 75, RENDER_LOOK_TILT}, {"--rotation", -360, 720, RENDER_LOOK_ROTATION},
    {"--roll", -180, 180, RENDER_LOOK_ROLL}, {"--fov", 10, 140, RENDER_LOOK_FOV},
    {"--fill", 0.1, 1.5, RENDER_LOOK_FILL}, {"--distance", 100, 10000, RENDER_LOOK_DISTANCE},
    {"--k1", -0.5, 0.5, RENDER_LOOK_K1}, {"--bump-deg", 0, 10, RENDER_LOOK_BUMP_DEG},
    {"--line", 0.2, 5, RENDER_LOOK_LINE}, {"--margin", 0, 100, RENDER_LOOK_MARGIN},
    {"--thickness", 0, 300, RENDER_LOOK_THICKNESS}, {"--grain", 0, 1, RENDER_LOOK_GRAIN},
    {"--stone-height", 1, 20, RENDER_LOOK_STONE_HEIGHT}, {"--jitter", 0, 8, RENDER_LOOK_JITTER},
    {"--kelvin", 1500, 12000, RENDER_LOOK_KELVIN}, {"--brightness", 0.1, 3, RENDER_LOOK_BRIGHTNESS},
    {"--gradient", 0, 1, RENDER_LOOK_GRADIENT}, {"--glare", 0, 1, RENDER_LOOK_GLARE},
    {"--flicker", 0, 0.5, RENDER_LOOK_FLICKER}, {"--slow", 0, 0.5, RENDER_LOOK_SLOW},
    {"--noise", 0, 60, RENDER_LOOK_NOISE}, {"--blur", 0, 1, RENDER_LOOK_BLUR},
    {"--motion-blur", 0, 3, RENDER_LOOK_MOTION_BLUR}, {"--jpeg", 0, 100, RENDER_LOOK_JPEG},
    {"--drift", -60, 60, RENDER_LOOK_DRIFT}, {"--drift-dir", -360, 720, RENDER_LOOK_DRIFT_DIR},
};

/* "render: OPT needs a value", -1. */
static int no_value(const char *a)
{
    cli_error("render: %s needs a value (see goscribe render --help)", a);
    return -1;
}

/* --end confirm|resign[:B|W]; -1 (printed) when it is neither. */
static int parse_end(const char *val, render_job_options *o)
{
    if (val && !strcmp(val, "confirm")) o->end = RENDER_END_CONFIRM;
    else if (val && !strcmp(val, "resign")) o->end = RENDER_END_RESIGN;
    else if (val && (!strcmp(val, "resign:B") || !strcmp(val, "resign:W"))) {
        o->end = RENDER_END_RESIGN;
        o->resigner = val[7] == 'B' ? GS_BLACK : GS_WHITE;
    } else {
        cli_error("render: --end %s: expected confirm, resign, resign:B or resign:W", val ? val : "");
        return -1;
    }
    return 0;
}

/* --violate LIST into a bit mask; -1 (printed) for an unknown name. */
static int parse_violations(const char *val, unsigned *mask)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", val);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        render_violation_type t;
        if (!render_violation_parse(tok, &t)) {
            cli_error("render: unknown violation '%s' (double_move, wrong_capture, missed_capture, moved_stone, ko)", tok);
            return -1;
        }
        *mask |= 1u << t;
    }
    return 0;
}

/* A look option taking a number: 1 when a is one (and val parsed), 0 when
 * it is not, -1 (printed) when val is missing or out of range. */
static int parse_look_number(const char *a, const char *val, render_look *look)
{
    for (size_t k = 0; k < sizeof look_numbers / sizeof look_numbers[0]; k++) {
        if (strcmp(a, look_numbers[k].name)) continue;
        render_look_field f = look_numbers[k].field;
        if (!val) return no_value(a);
        if (cli_parse_number("render", a, val, look_numbers[k].lo, look_numbers[k].hi, &look->val[f])) return -1;
        look->set[f] = true;
        return 1;
    }
    return 0;
}

/* An option whose text the job reads (after the game gives the board
 * size, so its errors come after the game's, as they always did): 1 when
 * a is one, 0 when not, -1 (printed) when val is missing. */
static int parse_look_text(const char *a, const char *val, render_look *look)
{
    static const char *const text[] = {"--cells", "--cell", "--bump", "--wood"};
    const char **dst[] = {&look->cells, &look->cell, &look->bump, &look->wood};
    for (int k = 0; k < 4; k++) {
        if (strcmp(a, text[k])) continue;
        if (!val) return no_value(a);
        *dst[k] = val;
        return 1;
    }
    return 0;
}

/* The job's own options (output, seed, frame size, timing, violations): 1
 * when a is one, 0 when not, -1 (printed) for a bad value. */
static int parse_job_option(const char *a, const char *val, render_job_options *o)
{
    static const char *const mine[] = {"-o", "--output", "--seed", "--frame-size", "--fps", "--pace", "--moves",
                                       "--frames", "--hover", "--rest", "--violate", "--correct", "--end"};
    size_t k = 0;
    while (k < sizeof mine / sizeof mine[0] && strcmp(a, mine[k])) k++;
    if (k == sizeof mine / sizeof mine[0]) return 0;
    if (!val) return no_value(a);
    long n = 0;
    int bad = 0;
    if (!strcmp(a, "-o") || !strcmp(a, "--output")) o->out = val;
    else if (!strcmp(a, "--seed")) bad = cli_parse_seed("render", val, &o->seed);
    else if (!strcmp(a, "--frame-size")) bad = cli_parse_frame_size("render", val, &o->width, &o->height);
    else if (!strcmp(a, "--fps")) bad = cli_parse_fps("render", val, &o->fps);
    else if (!strcmp(a, "--pace")) bad = cli_parse_number("render", a, val, 0.05, 50, &o->pace);
    else if (!strcmp(a, "--moves")) bad = cli_parse_whole("render", a, val, 0, 100000, &o->moves_limit);
    else if (!strcmp(a, "--frames")) bad = cli_parse_whole("render", a, val, 1, 10000000, &o->frames_limit);
    else if (!strcmp(a, "--hover") || !strcmp(a, "--rest")) {
        bad = cli_parse_whole("render", a, val, 0, 100, &n);
        *(!strcmp(a, "--hover") ? &o->hover_pct : &o->rest_pct) = (int)n;
    } else if (!strcmp(a, "--end")) bad = parse_end(val, o);
    else bad = parse_violations(val, !strcmp(a, "--violate") ? &o->violations : &o->corrected);
    return bad ? -1 : 1;
}

enum { PARSED = -1 };

/* -o names a video (.mp4, .avi, .mkv, .mov) or a folder; a name with any
 * other extension is a mistake, not a folder to make (an existing folder
 * is taken as it is).  False when refused (said). */
static bool output_ok(const char *out)
{
    const char *d = strrchr(out, '.'), *sl = strrchr(out, '/');
    if (!d || (sl && d < sl) || d == out || (sl && d == sl + 1)) return true;
    static const char *const video[] = {".mp4", ".avi", ".mkv", ".mov"};
    for (int i = 0; i < 4; i++)
        if (!strcasecmp(d, video[i])) return true;
    struct stat st;
    if (stat(out, &st) == 0 && S_ISDIR(st.st_mode)) return true;
    cli_error("render: -o %s: unknown extension %s (.mp4, .avi, .mkv or .mov for a video; a folder name without "
              "an extension for PNG frames)", out, d);
    return false;
}

/* "render: 34% (frame 150 of 437)", rewritten in place on a terminal, a
 * line every few seconds otherwise. */
typedef struct render_progress {
    bool tty;
    double t0, last_line;
} render_progress;

static void progress(void *user, long frame, long total)
{
    render_progress *p = user;
    double now = gs_now_ms();
    bool done = frame >= total;
    if (!p->tty && !done && now - p->last_line < 5000) return;
    p->last_line = now;
    double secs = (now - p->t0) / 1000.0;
    fprintf(stderr, "%srender: %d%% (frame %ld of %ld, %.0f s", p->tty ? "\r" : "",
            total > 0 ? (int)(100.0 * frame / total) : 0, frame, total, secs);
    if (!done && frame > 0) fprintf(stderr, ", about %.0f s left", secs * (double)(total - frame) / (double)frame);
    fprintf(stderr, ")%s", p->tty && !done ? "    " : "\n");
    fflush(stderr);
}

/* The command line into o: PARSED, or the exit code (help shown, or an
 * error printed). */
static int parse_args(int argc, char **argv, render_job_options *o, bool *quiet)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a)) { usage(stdout); return GS_EXIT_OK; }
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        int r = parse_look_number(a, val, &o->look);
        if (r == 0) r = parse_job_option(a, val, o);
        if (r == 0) r = parse_look_text(a, val, &o->look);
        if (r < 0) return GS_EXIT_ERROR;
        if (r > 0) { i++; continue; }
        if (!strcmp(a, "--no-stars")) {
            o->look.no_stars = true;
        } else if (!strcmp(a, "--objects")) {
            o->objects = true;
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            *quiet = true;
        } else if (a[0] == '-' && a[1]) {
            cli_error("render: unknown option %s (see goscribe render --help)", a);
            return GS_EXIT_ERROR;
        } else if (!o->game_path) {
            o->game_path = a;
        } else {
            cli_error("render: more than one game given ('%s')", a);
            return GS_EXIT_ERROR;
        }
    }
    if (!o->game_path) { cli_error("render: no GAME.sgf given (see goscribe render --help)"); return GS_EXIT_ERROR; }
    if (!o->out) { cli_error("render: no output given (-o OUT.mp4 or -o DIR)"); return GS_EXIT_ERROR; }
    if (!output_ok(o->out)) return GS_EXIT_ERROR;
    return PARSED;
}

static void warn(void *user, const char *msg)
{
    (void)user;
    fprintf(stderr, "goscribe: render: warning: %s\n", msg);
}

int cmd_render(int argc, char **argv)
{
    render_job_options o;
    render_job_options_init(&o);
    o.warn = warn;
    bool quiet = false;
    int rc = parse_args(argc, argv, &o, &quiet);
    if (rc != PARSED) return rc;
    render_progress pr = {isatty(2) != 0, gs_now_ms(), gs_now_ms()};
    if (!quiet) {
        o.progress = progress;
        o.user = &pr;
    }
    gs_error err = {0};
    render_job_result res;
    gs_status st = render_job_run(&o, &res, &err);
    if (st != GS_OK) {
        cli_error("%s", err.msg);
        return gs_status_exit_code(st);
    }
    printf("rendered %ld frames (%.1f s at %g fps, %dx%d board, %d moves, %d violations (%d corrected), %d "
           "end-of-game signals) to %s\n", res.frames, res.frames / o.fps, o.fps, res.board_size, res.board_size,
           res.moves, res.violations, res.corrected, res.signals, o.out);
    return GS_EXIT_OK;
}
