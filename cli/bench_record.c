/* cli/bench_record.c: `goscribe bench record VIDEO`: recording speed on a
 * video file against a decode-only pass of the same file, on one core
 * (the process is pinned to the CPU it starts on, so the decoder's threads
 * share it too). */
#define _GNU_SOURCE
#include "cli/cli.h"

#include "capture/capture.h"
#include "record/record.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static void help(FILE *f)
{
    fprintf(f,
            "Usage: goscribe bench record VIDEO [options]\n"
            "\n"
            "Pass 1 decodes every frame of VIDEO and does nothing else; pass 2 records\n"
            "it (board search, per-frame tracking, settle logic, referee, SGF in memory).\n"
            "Prints frames per second of both, wall clock and CPU time, on one core.\n"
            "(scripts/make-gomrade-video.sh makes the 720-frame Gomrade test video)\n"
            "\n"
            "Options:\n"
            CLI_HELP_OPTION
            "  --settle SEC         how long a view with something reaching in must be still\n"
            "                       (default 0.5); one with nothing over the board settles\n"
            "                       after 3 still frames\n"
            CLI_SIZE_FOUND_HELP
            "  --expect GRID.txt    also check the recorded final position against this\n"
            "                       grid (exit 1 when it differs)\n"
            "  --all-cores          do not pin the process to one core\n"
            CLI_EXIT_CODES CLI_EXIT_0 CLI_EXIT_1 CLI_EXIT_2);
}

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

static int run_pass(const char *video, session_options *o, session_stats *st, double *wall, double *cpu)
{
    gs_error err = {0};
    capture_source *src = capture_open_video(video, &err);
    if (!src) {
        cli_error("%s", err.msg);
        return gs_status_exit_code(err.status);
    }
    double c0 = cpu_ms(), w0 = gs_now_ms();
    gs_status s = session_run(src, o, st, &err);
    *wall = gs_now_ms() - w0;
    *cpu = cpu_ms() - c0;
    capture_close(src);
    if (s != GS_OK) {
        cli_error("%s: %s", video, err.msg);
        return gs_status_exit_code(s);
    }
    return GS_EXIT_OK;
}

typedef struct bench_args {
    const char *video, *expect;
    double settle;
    long size;
    bool all_cores;
} bench_args;

/* Fills a from argv; -1 to go on, else the exit code (after --help or an
 * error, said). */
static int parse_args(int argc, char **argv, bench_args *a)
{
    *a = (bench_args){NULL, NULL, 0.5, 0, false};
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            help(stdout);
            return GS_EXIT_OK;
        } else if (!strcmp(argv[i], "--settle") || !strcmp(argv[i], "--size")) {
            const char *o = argv[i], *v = cli_value("bench record", argc, argv, &i);
            double ms = 0;
            if (!v) return GS_EXIT_ERROR;
            if (!strcmp(o, "--size") && cli_parse_size("bench record", v, CLI_SIZE_FOUND, &a->size)) return GS_EXIT_ERROR;
            if (!strcmp(o, "--settle")) {
                if (cli_parse_settle("bench record", v, &ms)) return GS_EXIT_ERROR;
                a->settle = ms / 1000.0;
            }
        } else if (!strcmp(argv[i], "--expect") && i + 1 < argc) {
            a->expect = argv[++i];
        } else if (!strcmp(argv[i], "--all-cores")) {
            a->all_cores = true;
        } else if (argv[i][0] == '-') {
            cli_error("bench record: unknown option %s (see goscribe bench record --help)", argv[i]);
            return GS_EXIT_ERROR;
        } else if (!a->video) {
            a->video = argv[i];
        } else {
            cli_error("bench record: one video only (see goscribe bench record --help)");
            return GS_EXIT_ERROR;
        }
    }
    if (!a->video) {
        help(stderr);
        return GS_EXIT_ERROR;
    }
    return -1;
}

static void pin_to_one_core(void)
{
    int cpu = sched_getcpu();
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu < 0 ? 0 : cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) fprintf(stderr, "bench record: could not pin to one core\n");
}

/* The final position against --expect; false when it differs. */
static bool check_final(const session_stats *rec, const gs_position *want, const char *expect)
{
    bool same = rec->have_final && rec->final_pos.size == want->size &&
                !memcmp(rec->final_pos.cell, want->cell, (size_t)want->size * (size_t)want->size);
    int diff = 0;
    if (rec->have_final && rec->final_pos.size == want->size)
        for (int i = 0; i < want->size * want->size; i++) diff += rec->final_pos.cell[i] != want->cell[i];
    printf("final position %s (%d points differ from %s)\n", same ? "EXACT" : "DIFFERS", same ? 0 : diff, expect);
    return same;
}

int bench_record(int argc, char **argv)
{
    bench_args a;
    int rcode = parse_args(argc, argv, &a);
    if (rcode >= 0) return rcode;
    gs_position want;
    gs_error err = {0};
    if (a.expect && gs_position_load(&want, a.expect, &err) != GS_OK) {
        cli_error("%s: %s", a.expect, err.msg);
        return gs_status_exit_code(err.status);
    }
    if (!a.all_cores) pin_to_one_core();
    session_options o;
    session_options_init(&o);
    session_stats dec, rec;
    double dw, dc, rw, rc;
    o.decode_only = true;
    rcode = run_pass(a.video, &o, &dec, &dw, &dc);
    if (rcode) return rcode;
    session_options_init(&o);
    o.tracker.settle_ms = a.settle * 1000.0;
    o.tracker.size_hint = (int)a.size;
    o.recorder.size = (int)a.size;
    o.recorder.evidence_dir = "";
    rcode = run_pass(a.video, &o, &rec, &rw, &rc);
    if (rcode) return rcode;
    printf("video         %s (%ld frames)\n", a.video, dec.frames);
    printf("decode only   %7.1f fps wall  %7.1f fps CPU  (%.2f s wall, %.2f s CPU)\n", dec.frames / (dw / 1000),
           dec.frames / (dc / 1000), dw / 1000, dc / 1000);
    printf("record        %7.1f fps wall  %7.1f fps CPU  (%.2f s wall, %.2f s CPU)\n", rec.frames / (rw / 1000),
           rec.frames / (rc / 1000), rw / 1000, rc / 1000);
    printf("record/decode %7.2f (CPU time ratio)   cores: %s\n", rc / dc, a.all_cores ? "all" : "1 (pinned)");
    printf("moves %d, settled views %d (%d with a hand reaching in), full reads %d, flagged %d\n", rec.moves, rec.settled_views, rec.covered_views, rec.full_reads,
           rec.referee_events);
    if (a.expect && !check_final(&rec, &want, a.expect)) return GS_EXIT_ERROR;
    return GS_EXIT_OK;
}
