/* cli/bench_count.c: `goscribe bench count [SGF...]`: time of one count with
 * --dead auto (dead-stone estimate + area count) on the final positions of
 * 19x19 games, one core, as `goscribe count` runs it by default
 * (score_count_estimate, on the position score_count_load_sgf reads); and
 * the recount behind a tap on the count page (score_fix_point,
 * score_fix_life) on the same positions read with doubt. */
#include "cli/cli.h"
#include "record/record.h"

#include <dirent.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static void help(FILE *f)
{
    fprintf(f,
            "Usage: goscribe bench count [SGF...] [options]\n"
            "\n"
            "Times `goscribe count --dead auto` without the file reading: the\n"
            "dead-stone estimate (default playouts and time budget) plus the area\n"
            "count, on the final position of each 19x19 SGF, one core.  Without SGF\n"
            "files it uses the .sgf files under ../shared/data/games/kgs (from the\n"
            "current directory or beside the source tree).  Also times the worst case,\n"
            "the empty 19x19 board (longest playouts), where the time budget applies.\n"
            "Then the recount behind a tap on the count page (`count --serve`): each\n"
            "position read with doubt as scan --json gives it (16 points in doubt, 8 of\n"
            "them read wrong, their next likeliest colour the true one), each\n"
            "wrong point set right and each dead chain set alive and back, one tap at\n"
            "a time; the median over every tap is the figure (target <= 100 ms).\n"
            "\n"
            "Options:\n"
            CLI_HELP_OPTION
            "  --repeat R           counts per position (default 3); the figure is the mean\n"
            "  --all-sizes          also time 9x9 and 13x13 games\n"
            CLI_EXIT_CODES CLI_EXIT_0 CLI_EXIT_1);
}

/* Appends the .sgf files under dir (recursively) to list. */
static void collect(const char *dir, char ***list, int *n, int *cap, int depth)
{
    if (depth > 4) return;
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        char *p = malloc(len);
        if (!p) break;
        snprintf(p, len, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            collect(p, list, n, cap, depth + 1);
            free(p);
            continue;
        }
        size_t l = strlen(p);
        if (l < 4 || strcmp(p + l - 4, ".sgf") != 0) {
            free(p);
            continue;
        }
        if (*n == *cap) {
            int nc = *cap ? *cap * 2 : 32;
            char **nl = realloc(*list, sizeof(char *) * (size_t)nc);
            if (!nl) {
                free(p);
                break;
            }
            *list = nl;
            *cap = nc;
        }
        (*list)[(*n)++] = p;
    }
    closedir(d);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* CPU time of this thread in ms: the "one core" figure, fair on a machine
 * that other work keeps busy (wall time is printed beside it). */
static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* One timed count: estimate + area count; returns wall ms (and *cpu the CPU
 * ms), fills playouts. */
static double time_count(const gs_position *pos, double komi, int *playouts, int *ndead, double *cpu,
                         gs_error *err)
{
    rules_estimate_result *est = malloc(sizeof *est);
    rules_count *cnt = malloc(sizeof *cnt);
    double ms = -1;
    if (est && cnt) {
        rules_count_opts co;
        rules_count_opts_init(&co);
        co.komi = komi;
        double t0 = gs_now_ms(), c0 = cpu_ms();
        if (score_count_estimate(pos, NULL, &co, est, cnt, err) == GS_OK) {
            ms = gs_now_ms() - t0;
            *cpu = cpu_ms() - c0;
            *playouts = est->playouts;
            *ndead = est->dead_black + est->dead_white;
        }
    }
    free(est);
    free(cnt);
    return ms;
}

typedef struct bench_args {
    long repeat;
    bool all_sizes;
    char **files;
    int nfiles;
    bool owned;           /* files found here (freed here), not argv's */
} bench_args;

static void bench_args_free(bench_args *a)
{
    if (a->owned)
        for (int f = 0; f < a->nfiles; f++) free(a->files[f]);
    free(a->files);
}

/* Parses argv; returns -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, bench_args *a)
{
    memset(a, 0, sizeof *a);
    a->repeat = 3;
    int cap = 0;
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            help(stdout);
            return GS_EXIT_OK;
        } else if (!strcmp(argv[i], "--repeat")) {
            const char *v = cli_value("bench count", argc, argv, &i);
            if (!v || cli_parse_whole("bench count", "--repeat", v, 1, 1000, &a->repeat)) return GS_EXIT_ERROR;
        } else if (!strcmp(argv[i], "--all-sizes")) {
            a->all_sizes = true;
        } else if (argv[i][0] == '-') {
            cli_error("bench count: unknown option %s (see goscribe bench count --help)", argv[i]);
            return GS_EXIT_ERROR;
        } else {
            if (a->nfiles == cap) {
                cap = cap ? cap * 2 : 16;
                char **nl = realloc(a->files, sizeof(char *) * (size_t)cap);
                if (!nl) {
                    cli_error("bench count: out of memory");
                    return GS_EXIT_ERROR;
                }
                a->files = nl;
            }
            a->files[a->nfiles++] = argv[i];
        }
    }
    if (a->nfiles == 0) {
        a->owned = true;
        static const char *dirs[] = {"../shared/data/games/kgs", "../../shared/data/games/kgs",
#ifdef GS_SOURCE_DIR
                                     GS_SOURCE_DIR "/../shared/data/games/kgs",
#endif
                                     NULL};
        for (int k = 0; dirs[k] && a->nfiles == 0; k++) collect(dirs[k], &a->files, &a->nfiles, &cap, 0);
        if (a->nfiles) qsort(a->files, (size_t)a->nfiles, sizeof *a->files, cmp_str);
    }
    return -1;
}

/* The figures over the 19x19 positions (and the worst case). */
typedef struct bench_sum {
    int counted;
    double sum, worst, csum, cworst;
} bench_sum;

/* Times the count of one file's final position; prints its line.  GS_OK
 * also for a position skipped by size. */
static gs_status bench_file(const bench_args *a, const char *file, score_count_sgf *in, bench_sum *s)
{
    gs_error err = {0};
    if (score_count_load_sgf(file, in, &err) != GS_OK) {
        cli_error("%s: %s", file, err.msg);
        return err.status;
    }
    if (in->pos.size != 19 && !a->all_sizes) return GS_OK;
    gs_status st = GS_OK;
    double tot = 0, ctot = 0;
    int playouts = 0, ndead = 0;
    for (long r = 0; r < a->repeat; r++) {
        double cpu = 0;
        double ms = time_count(&in->pos, in->has_komi ? in->komi : RULES_DEFAULT_KOMI, &playouts, &ndead, &cpu, &err);
        if (ms < 0) {
            cli_error("%s: %s", file, err.msg);
            st = GS_ERR_INTERNAL;
            break;
        }
        tot += ms;
        ctot += cpu;
    }
    double mean = tot / (double)a->repeat, cmean = ctot / (double)a->repeat;
    printf("  %-60s %2dx%-2d %7.1f / %6.1f ms  %4d playouts  %3d dead\n", file, in->pos.size, in->pos.size, mean,
           cmean, playouts, ndead);
    if (in->pos.size == 19) {
        s->sum += mean;
        s->csum += cmean;
        s->counted++;
        if (mean > s->worst) s->worst = mean;
        if (cmean > s->cworst) s->cworst = cmean;
    }
    return st;
}

/* The empty 19x19 board: the longest playouts, where the time budget
 * applies. */
static void bench_empty(bench_sum *s)
{
    gs_position empty;
    gs_position_clear(&empty, 19);
    gs_error err = {0};
    int playouts = 0, ndead = 0;
    double cpu = 0;
    /* A failed count prints -1 ms here, as a figure nobody can mistake. */
    double ms = time_count(&empty, RULES_DEFAULT_KOMI, &playouts, &ndead, &cpu, &err);
    printf("  %-60s 19x19 %7.1f / %6.1f ms  %4d playouts (longest playouts)\n", "(empty board, worst case)", ms, cpu,
           playouts);
    if (ms > s->worst) s->worst = ms;
    if (cpu > s->cworst) s->cworst = cpu;
}

/* ------------------------------------------------------------- recount */

#define RECOUNT_DOUBT 16   /* points marked ? on each position ... */
#define RECOUNT_WRONG 8    /* ... of which this many read wrong */
#define RECOUNT_MAX_TAPS 4096

/* The taps' times (CPU ms of the recount, one core). */
typedef struct tap_times {
    double ms[RECOUNT_MAX_TAPS];
    int n;
} tap_times;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The position pos read with doubt, as `scan --json` would give it, at
 * path: RECOUNT_DOUBT points (a fixed walk, the same every run) in doubt,
 * the first RECOUNT_WRONG of them read as another colour, their next
 * likeliest the true one (the others' another colour: a stone empty, an
 * empty point black); the wrong ones' indices into wrong. */
static bool write_doubtful(const gs_position *pos, const char *path, int *wrong)
{
    int n = pos->size * pos->size, marked[RECOUNT_DOUBT];
    gs_position read = *pos, second = *pos;
    uint32_t x = 12345;
    for (int k = 0; k < RECOUNT_DOUBT; k++) {
        int p;
        bool again;
        do { /* a point not taken yet */
            x = x * 1103515245u + 12345u;
            p = (int)((x >> 8) % (uint32_t)n);
            again = false;
            for (int j = 0; j < k; j++) again |= marked[j] == p;
        } while (again);
        marked[k] = p;
        if (k < RECOUNT_WRONG) {
            wrong[k] = p;
            read.cell[p] = (uint8_t)((pos->cell[p] + 1 + (x >> 20) % 2) % 3);
        } else {
            second.cell[p] = pos->cell[p] == GS_EMPTY ? GS_BLACK : GS_EMPTY;
        }
    }
    FILE *f = fopen(path, "w");
    if (!f) return false;
    fprintf(f, "{\"size\": %d, \"rows\": [", pos->size);
    for (int k = 0; k < 2; k++) {
        const gs_position *g = k ? &second : &read;
        if (k) fprintf(f, "], \"second\": [");
        for (int p = 0; p < n; p++)
            fprintf(f, "%s%c%s", p % pos->size ? " " : p ? "\", \"" : "\"", ".BW"[g->cell[p] % 3],
                    p == n - 1 ? "\"" : "");
    }
    fprintf(f, "], \"uncertain\": [");
    for (int k = 0; k < RECOUNT_DOUBT; k++)
        fprintf(f, "%s\"%c%c\"", k ? ", " : "", 'a' + marked[k] % pos->size, 'a' + marked[k] / pos->size);
    fprintf(f, "]}\n");
    return fclose(f) == 0;
}

/* The taps on f: each wrong point set right, then each dead chain set
 * alive and dead again; their times into t. */
static gs_status recount_taps(score_fix *f, const gs_position *truth, const int *wrong, tap_times *t,
                              gs_error *err)
{
    int size = truth->size;
    gs_status st = GS_OK;
    for (int k = 0; k < RECOUNT_WRONG && st == GS_OK && t->n < RECOUNT_MAX_TAPS; k++) {
        gs_point p = {(int8_t)(wrong[k] % size), (int8_t)(wrong[k] / size)};
        st = score_fix_point(f, p, (gs_color)truth->cell[wrong[k]], err);
        t->ms[t->n++] = f->cpu_ms;
    }
    uint8_t seen[RULES_MAX_POINTS] = {0};
    for (int i = 0; i < size * size && st == GS_OK && t->n + 2 <= RECOUNT_MAX_TAPS; i++) {
        if (!f->r.dead[i] || seen[i]) continue;
        gs_point p = {(int8_t)(i % size), (int8_t)(i / size)};
        seen[i] = 1;
        st = score_fix_life(f, p, SCORE_LIFE_ALIVE, err);
        t->ms[t->n++] = f->cpu_ms;
        for (int j = 0; j < size * size; j++) seen[j] |= f->r.life_given[j] != 0;
        if (st == GS_OK) st = score_fix_life(f, p, SCORE_LIFE_DEAD, err);
        t->ms[t->n++] = f->cpu_ms;
    }
    return st;
}

/* One file's position read with doubt, counted, then tapped right. */
static gs_status recount_file(const char *file, score_count_sgf *in, score_fix *f, tap_times *t)
{
    gs_error err = {0};
    if (score_count_load_sgf(file, in, &err) != GS_OK || in->pos.size != 19) return GS_OK; /* (timed above) */
    char path[] = "/tmp/goscribe-bench-recount-XXXXXX.json";
    int fd = mkstemps(path, 5), wrong[RECOUNT_WRONG];
    if (fd < 0) return gs_error_set(&err, GS_ERR_IO, "no temporary file");
    close(fd);
    score_count_options o;
    score_count_options_init(&o);
    o.input = path;
    o.dead = SCORE_COUNT_DEAD_AUTO;
    o.komi = in->komi;
    o.has_komi = true;
    int before = t->n;
    gs_status st = write_doubtful(&in->pos, path, wrong) ? score_count_run(&o, &f->r, &err)
                                                          : gs_error_set(&err, GS_ERR_IO, "cannot write %s", path);
    unlink(path);
    if (st == GS_OK) st = score_fix_init(f, &f->r, &err);
    if (st == GS_OK) st = recount_taps(f, &in->pos, wrong, t, &err);
    if (st != GS_OK) {
        cli_error("%s: recount: %s", file, err.msg);
        return st;
    }
    qsort(t->ms + before, (size_t)(t->n - before), sizeof *t->ms, cmp_double);
    printf("  %-60s %3d taps, median %5.1f ms, worst %5.1f ms\n", file, t->n - before,
           t->ms[before + (t->n - before) / 2], t->ms[t->n - 1]);
    return GS_OK;
}

/* The recount behind a tap over every 19x19 file; its figures. */
static int bench_recount(const bench_args *a, score_count_sgf *in)
{
    tap_times *t = calloc(1, sizeof *t);
    score_fix *f = malloc(sizeof *f);
    int rc = GS_EXIT_OK;
    if (!t || !f) {
        cli_error("bench count: out of memory");
        rc = GS_EXIT_ERROR;
    }
    if (rc == GS_EXIT_OK)
        printf("recount behind a tap on the count page (score_fix_point / score_fix_life), one thread, CPU ms:\n");
    for (int k = 0; rc == GS_EXIT_OK && k < a->nfiles; k++)
        if (recount_file(a->files[k], in, f, t) != GS_OK) rc = GS_EXIT_ERROR;
    if (rc == GS_EXIT_OK && t->n) {
        qsort(t->ms, (size_t)t->n, sizeof *t->ms, cmp_double);
        printf("recount: %d taps on 19x19 boards, median %.1f ms, 90th percentile %.1f ms, worst %.1f ms CPU "
               "(target: median <= 100 ms)\n", t->n, t->ms[t->n / 2], t->ms[t->n * 9 / 10], t->ms[t->n - 1]);
    }
    free(t);
    free(f);
    return rc;
}

int bench_count(int argc, char **argv)
{
    bench_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0) {
        bench_args_free(&a);
        return rc;
    }
    rc = GS_EXIT_OK;
    bench_sum s = {0};
    score_count_sgf *in = malloc(sizeof *in);
    if (!in) {
        cli_error("bench count: out of memory");
        bench_args_free(&a);
        return GS_EXIT_ERROR;
    }
    printf("count --dead auto (estimate + area count), one thread, mean of %ld (wall ms / CPU ms):\n", a.repeat);
    for (int f = 0; f < a.nfiles; f++)
        if (bench_file(&a, a.files[f], in, &s) != GS_OK) rc = GS_EXIT_ERROR;
    bench_empty(&s);
    if (s.counted)
        printf("19x19 games: %d, mean %.1f ms wall / %.1f ms CPU per count; worst %.1f ms wall / %.1f ms CPU "
               "(target < 1000 ms)\n",
               s.counted, s.sum / s.counted, s.csum / s.counted, s.worst, s.cworst);
    else printf("no 19x19 SGF given or found; worst case %.1f ms wall / %.1f ms CPU (target < 1000 ms)\n", s.worst,
                s.cworst);
    if (bench_recount(&a, in) != GS_EXIT_OK) rc = GS_EXIT_ERROR;
    free(in);
    bench_args_free(&a);
    return rc;
}
