/* cli/bench_render.c: `goscribe bench render`: frames per second of the
 * synthetic camera on one core, rendering alone and with encoding. */
#include "cli/cli.h"
#include "samples/render.h"
#include "cvshim/cvshim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

/* A busy middle game: every move of a fixed pseudo-random sequence, so the
 * bench renders captures, hands and a filled board like a real game. */
static int bench_moves(gs_move *mv, int max, int size)
{
    uint64_t s = 0x9E3779B97F4A7C15ULL;
    uint8_t used[GS_MAX_SIZE * GS_MAX_SIZE] = {0};
    int n = 0;
    for (int tries = 0; n < max && tries < 100000; tries++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        int i = (int)(s % (uint64_t)(size * size));
        if (used[i]) continue;
        used[i] = 1;
        mv[n].color = n % 2 ? GS_WHITE : GS_BLACK;
        mv[n].pt = (gs_point){(int8_t)(i % size), (int8_t)(i / size)};
        mv[n].pass = false;
        n++;
    }
    return n;
}

static void report(const char *what, long n, double wall_ms, double cpu)
{
    printf("  %-28s %7.1f frames/s wall  %7.1f frames/s per CPU second  (%.2f ms CPU/frame)\n", what,
           n * 1000.0 / wall_ms, n * 1000.0 / cpu, cpu / n);
}

/* What every figure renders: one scene and one timeline. */
typedef struct bench {
    long w, h, frames;
    render_params p;
    render_scene *scene;
    render_script *sc;
    gs_image *img;
    double dur;                 /* the timeline's length, ms */
} bench;

/* --frame-size and --frames into b: -1 for go on, else the exit code. */
static int bench_parse(int argc, char **argv, bench *b)
{
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            printf("Usage: goscribe bench render [options]\n"
                   "\n"
                   "Prints frames per second of `goscribe render` on one core: render only,\n"
                   "render + PNG encode, render + video encode.\n"
                   "\n"
                   "Options:\n"
                   CLI_HELP_OPTION
                   "  --frame-size WxH     the picture's size in pixels (default 1280x720)\n"
                   "  --frames N           frames to time (default 300)\n"
                   CLI_EXIT_CODES CLI_EXIT_0 CLI_EXIT_1);
            return GS_EXIT_OK;
        }
        const char *a = argv[i], *val;
        if (strcmp(a, "--frame-size") && strcmp(a, "--frames")) {
            cli_error("bench render: unknown option %s (see goscribe bench render --help)", a);
            return GS_EXIT_ERROR;
        }
        if (!(val = cli_value("bench render", argc, argv, &i))) return GS_EXIT_ERROR;
        int w, h;
        if (!strcmp(a, "--frame-size")) {
            if (cli_parse_frame_size("bench render", val, &w, &h)) return GS_EXIT_ERROR;
            b->w = w;
            b->h = h;
        } else if (cli_parse_whole("bench render", a, val, 1, 100000, &b->frames)) {
            return GS_EXIT_ERROR;
        }
    }
    return -1;
}

/* Seed 7's look on a 19x19 board with a busy game at pace 2. */
static bool bench_setup(bench *b, gs_error *err)
{
    render_params_from_seed(&b->p, 7, 19, (int)b->w, (int)b->h);
    b->p.blur = 0;       /* the defaults most seeds draw; blur is timed on its own below */
    b->p.noise = 3;
    gs_move mv[160];
    int nm = bench_moves(mv, 160, 19);
    render_script_options so;
    render_script_options_init(&so, 7);
    render_script_options_geometry(&so, &b->p);
    so.pace = 2;
    b->scene = render_scene_create(&b->p, err);
    b->sc = b->scene ? render_script_create(19, mv, nm, &so, err) : NULL;
    b->img = gs_image_create((int)b->w, (int)b->h, 3);
    if (!b->scene || !b->sc || !b->img) return false;
    b->dur = render_script_duration_ms(b->sc);
    return true;
}

/* Frame f of the timed stretch (from 30 % of the game, 30 frames/s) into
 * b->img through scene.  A failure (out of memory for a camera map; the
 * inputs are fixed and valid) is left unchecked: it would only make the
 * figure look fast, and the render command reports it. */
static render_state bench_frame(bench *b, render_scene *scene, long f)
{
    render_state st;
    gs_error err = {0};
    render_script_state(b->sc, b->dur * 0.3 + f * 1000.0 / 30, &st);
    st.frame = (int)f;
    (void)render_frame(scene, &st, b->img, &err);
    return st;
}

/* 1. render only (the first frame builds the lookup map: timed apart) */
static void time_render(bench *b)
{
    gs_error err = {0};
    render_state st;
    double t0 = gs_now_ms();
    render_script_state(b->sc, b->dur * 0.5, &st);
    (void)render_frame(b->scene, &st, b->img, &err);  /* unchecked: see bench_frame */
    double setup_ms = gs_now_ms() - t0;
    t0 = gs_now_ms();
    double c0 = cpu_ms();
    int hands = 0;
    for (long f = 0; f < b->frames; f++) hands += bench_frame(b, b->scene, f).hand.present;
    printf("  %-28s %8.1f ms\n", "first frame (camera map)", setup_ms);
    report("render only", b->frames, gs_now_ms() - t0, cpu_ms() - c0);
    printf("  (a hand is in %d%% of those frames)\n", (int)(100.0 * hands / b->frames));
}

/* 2. with 3x3 blur (a scene of its own; skipped if it cannot be built) */
static void time_blur(bench *b)
{
    gs_error err = {0};
    b->p.blur = 1;
    render_scene *sb = render_scene_create(&b->p, &err);
    if (!sb) return;
    /* the map is built outside the timing, from the state the render-only
       figure ended on */
    bench_frame(b, sb, b->frames - 1);
    double t0 = gs_now_ms(), c0 = cpu_ms();
    for (long f = 0; f < b->frames; f++) bench_frame(b, sb, f);
    report("render with 3x3 blur", b->frames, gs_now_ms() - t0, cpu_ms() - c0);
    render_scene_destroy(sb);
}

/* 3. render + PNG into dir (at most 60 frames: PNG is slow) */
static void time_png(bench *b, const char *dir)
{
    char path[128];
    snprintf(path, sizeof path, "%s/f.png", dir);
    long n = b->frames < 60 ? b->frames : 60;
    gs_error err = {0};
    double t0 = gs_now_ms(), c0 = cpu_ms();
    for (long f = 0; f < n; f++) {
        bench_frame(b, b->scene, f);
        (void)gs_image_write_png(b->img, path, &err);  /* timed, not kept: a failure only skews the figure */
    }
    report("render + PNG", n, gs_now_ms() - t0, cpu_ms() - c0);
    (void)unlink(path);  /* a scratch file in our own temporary folder */
}

/* 4. render + video into dir, .avi (MJPG) and .mp4; a writer that cannot
 * open is reported as unavailable. */
static void time_video(bench *b, const char *dir)
{
    static const char *const ext[2] = {"avi", "mp4"};
    static const char *const what[2] = {"render + video .avi (MJPG)", "render + video .mp4"};
    for (int k = 0; k < 2; k++) {
        char path[128];
        snprintf(path, sizeof path, "%s/v.%s", dir, ext[k]);
        gs_error msg;
        cvshim_writer *vw = cvshim_writer_open(path, (int)b->w, (int)b->h, 30, &msg);
        if (!vw) {
            printf("  %-28s unavailable: %s\n", what[k], msg.msg);
            continue;
        }
        double t0 = gs_now_ms(), c0 = cpu_ms();
        for (long f = 0; f < b->frames; f++) {
            bench_frame(b, b->scene, f);
            (void)cvshim_writer_write(vw, b->img);  /* timed, not kept: a failure only skews the figure */
        }
        (void)cvshim_writer_close(vw);
        report(what[k], b->frames, gs_now_ms() - t0, cpu_ms() - c0);
        (void)unlink(path);
    }
}

static void bench_free(bench *b)
{
    render_script_destroy(b->sc);
    render_scene_destroy(b->scene);
    gs_image_destroy(b->img);
}

int bench_render(int argc, char **argv)
{
    bench b;
    memset(&b, 0, sizeof b);
    b.w = 1280;
    b.h = 720;
    b.frames = 300;
    int rc = bench_parse(argc, argv, &b);
    if (rc >= 0) return rc;
    gs_error err = {0};
    if (!bench_setup(&b, &err)) {
        cli_error("bench render: %s", err.msg[0] ? err.msg : "out of memory");
        bench_free(&b);
        return GS_EXIT_ERROR;
    }
    printf("bench render: %ldx%ld, 19x19, %ld frames per figure, one thread\n", b.w, b.h, b.frames);
    time_render(&b);
    time_blur(&b);
    char dir[] = "/tmp/goscribe-bench-XXXXXX";
    if (mkdtemp(dir)) {  /* no scratch folder: the encoding figures are left out */
        time_png(&b, dir);
        time_video(&b, dir);
        (void)rmdir(dir);  /* empty by now; a leftover is harmless */
    }
    printf("(CPU figures count every thread of the process; wall figures depend on the machine's load)\n");
    bench_free(&b);
    return GS_EXIT_OK;
}
