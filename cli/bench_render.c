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

int bench_render(int argc, char **argv)
{
    long w = 1280, h = 720, frames = 300;
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            printf("usage: goscribe bench render [--size WxH] [--frames N]\n"
                   "Prints frames per second of `goscribe render` on one core: render only,\n"
                   "render + PNG encode, render + video encode (default 1280x720, 300 frames).\n");
            return GS_EXIT_OK;
        }
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--size")) {
            char tail;
            if (!val || sscanf(val, "%ldx%ld%c", &w, &h, &tail) != 2 || w < 64 || h < 48 || w > 7680 || h > 4320) {
                cli_error("bench render: --size needs WxH between 64x48 and 7680x4320");
                return GS_EXIT_ERROR;
            }
            i++;
        } else if (!strcmp(argv[i], "--frames")) {
            if (!val || cli_parse_int(val, 1, 100000, &frames)) {
                cli_error("bench render: --frames needs a whole number >= 1");
                return GS_EXIT_ERROR;
            }
            i++;
        } else {
            cli_error("bench render: unknown option '%s'", argv[i]);
            return GS_EXIT_ERROR;
        }
    }
    gs_error err = {0};
    render_params p;
    render_params_from_seed(&p, 7, 19, (int)w, (int)h);
    p.blur = 0;       /* the defaults most seeds draw; blur is timed on its own below */
    p.noise = 3;
    gs_move mv[160];
    int nm = bench_moves(mv, 160, 19);
    render_script_options so;
    render_script_options_init(&so, 7);
    render_script_options_geometry(&so, &p);
    so.pace = 2;
    render_scene *scene = render_scene_create(&p, &err);
    render_script *sc = scene ? render_script_create(19, mv, nm, &so, &err) : NULL;
    gs_image *img = gs_image_create((int)w, (int)h, 3);
    if (!scene || !sc || !img) {
        cli_error("bench render: %s", err.msg[0] ? err.msg : "out of memory");
        render_script_destroy(sc);
        render_scene_destroy(scene);
        gs_image_destroy(img);
        return GS_EXIT_ERROR;
    }
    double dur = render_script_duration_ms(sc);
    render_state st;
    printf("bench render: %ldx%ld, 19x19, %ld frames per figure, one thread\n", w, h, frames);

    /* 1. render only (the first frame builds the lookup map: timed apart) */
    double t0 = gs_now_ms();
    render_script_state(sc, dur * 0.5, &st);
    render_frame(scene, &st, img, &err);
    double setup_ms = gs_now_ms() - t0;
    t0 = gs_now_ms();
    double c0 = cpu_ms();
    int hands = 0;
    for (long f = 0; f < frames; f++) {
        double t = dur * 0.3 + f * 1000.0 / 30;
        render_script_state(sc, t, &st);
        st.frame = (int)f;
        hands += st.hand.present;
        render_frame(scene, &st, img, &err);
    }
    printf("  %-28s %8.1f ms\n", "first frame (camera map)", setup_ms);
    report("render only", frames, gs_now_ms() - t0, cpu_ms() - c0);
    printf("  (a hand is in %d%% of those frames)\n", (int)(100.0 * hands / frames));

    /* 2. with 3x3 blur */
    p.blur = 1;
    render_scene *sb = render_scene_create(&p, &err);
    if (sb) {
        render_frame(sb, &st, img, &err);
        t0 = gs_now_ms();
        c0 = cpu_ms();
        for (long f = 0; f < frames; f++) {
            render_script_state(sc, dur * 0.3 + f * 1000.0 / 30, &st);
            st.frame = (int)f;
            render_frame(sb, &st, img, &err);
        }
        report("render with 3x3 blur", frames, gs_now_ms() - t0, cpu_ms() - c0);
        render_scene_destroy(sb);
    }

    /* 3. render + PNG, render + video */
    char dir[] = "/tmp/goscribe-bench-XXXXXX";
    if (mkdtemp(dir)) {
        char path[128];
        snprintf(path, sizeof path, "%s/f.png", dir);
        long n = frames < 60 ? frames : 60;
        t0 = gs_now_ms();
        c0 = cpu_ms();
        for (long f = 0; f < n; f++) {
            render_script_state(sc, dur * 0.3 + f * 1000.0 / 30, &st);
            st.frame = (int)f;
            render_frame(scene, &st, img, &err);
            gs_image_write_png(img, path, &err);
        }
        report("render + PNG", n, gs_now_ms() - t0, cpu_ms() - c0);
        unlink(path);
        static const char *const ext[2] = {"avi", "mp4"};
        static const char *const what[2] = {"render + video .avi (MJPG)", "render + video .mp4"};
        for (int k = 0; k < 2; k++) {
            snprintf(path, sizeof path, "%s/v.%s", dir, ext[k]);
            char msg[256];
            cvshim_writer *vw = cvshim_writer_open(path, (int)w, (int)h, 30, msg, sizeof msg);
            if (!vw) {
                printf("  %-28s unavailable: %s\n", what[k], msg);
                continue;
            }
            t0 = gs_now_ms();
            c0 = cpu_ms();
            for (long f = 0; f < frames; f++) {
                render_script_state(sc, dur * 0.3 + f * 1000.0 / 30, &st);
                st.frame = (int)f;
                render_frame(scene, &st, img, &err);
                cvshim_writer_write(vw, img);
            }
            cvshim_writer_close(vw);
            report(what[k], frames, gs_now_ms() - t0, cpu_ms() - c0);
            unlink(path);
        }
        rmdir(dir);
    }
    printf("(CPU figures count every thread of the process; wall figures depend on the machine's load)\n");
    render_script_destroy(sc);
    render_scene_destroy(scene);
    gs_image_destroy(img);
    return GS_EXIT_OK;
}
