/* cli/bench_count.c: `goscribe bench count [SGF...]`: time of one count with
 * --dead auto (dead-stone estimate + area count) on the final positions of
 * 19x19 games, one core, as `goscribe count` runs it by default. */
#include "cli/cli.h"
#include "cli/cmd_count.h"
#include "rules/rules.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static void help(FILE *f)
{
    fprintf(f,
            "usage: goscribe bench count [SGF...] [--repeat R] [--all-sizes]\n"
            "  Times `goscribe count --dead auto` without the file reading: the\n"
            "  dead-stone estimate (default playouts and time budget) plus the area\n"
            "  count, on the final position of each 19x19 SGF, one core.  Without SGF\n"
            "  files it uses the .sgf files under ../shared/data/games/kgs (from the\n"
            "  current directory or beside the source tree).  Also times the worst case,\n"
            "  the empty 19x19 board (longest playouts), where the time budget applies.\n"
            "  --repeat R    counts per position (default 3); the figure is the mean\n"
            "  --all-sizes   also time 9x9 and 13x13 games\n");
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
        if (rules_estimate_dead(pos, NULL, est, err) == GS_OK &&
            rules_count_position(pos, est->dead, &co, cnt, err) == GS_OK) {
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

int bench_count(int argc, char **argv)
{
    long repeat = 3;
    bool all_sizes = false;
    char **files = NULL;
    int nfiles = 0, cap = 0;
    bool owned = false;
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            help(stdout);
            free(files);
            return GS_EXIT_OK;
        } else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
            if (cli_parse_int(argv[++i], 1, 1000, &repeat)) {
                cli_error("bench count: --repeat wants 1..1000");
                free(files);
                return GS_EXIT_ERROR;
            }
        } else if (!strcmp(argv[i], "--all-sizes")) {
            all_sizes = true;
        } else if (argv[i][0] == '-') {
            cli_error("bench count: unknown option '%s' (try --help)", argv[i]);
            free(files);
            return GS_EXIT_ERROR;
        } else {
            if (nfiles == cap) {
                cap = cap ? cap * 2 : 16;
                char **nl = realloc(files, sizeof(char *) * (size_t)cap);
                if (!nl) {
                    free(files);
                    cli_error("bench count: out of memory");
                    return GS_EXIT_ERROR;
                }
                files = nl;
            }
            files[nfiles++] = argv[i];
        }
    }
    if (nfiles == 0) {
        owned = true;
        static const char *dirs[] = {"../shared/data/games/kgs", "../../shared/data/games/kgs",
#ifdef GS_SOURCE_DIR
                                     GS_SOURCE_DIR "/../shared/data/games/kgs",
#endif
                                     NULL};
        for (int k = 0; dirs[k] && nfiles == 0; k++) collect(dirs[k], &files, &nfiles, &cap, 0);
        if (nfiles) qsort(files, (size_t)nfiles, sizeof *files, cmp_str);
    }

    int rc = GS_EXIT_OK, counted = 0;
    double sum = 0, worst = 0, csum = 0, cworst = 0;
    count_sgf_input *in = malloc(sizeof *in);
    if (!in) {
        cli_error("bench count: out of memory");
        rc = GS_EXIT_ERROR;
        goto out;
    }
    printf("count --dead auto (estimate + area count), one thread, mean of %ld (wall ms / CPU ms):\n", repeat);
    for (int f = 0; f < nfiles; f++) {
        gs_error err = {0};
        if (count_load_sgf(files[f], in, &err) != GS_OK) {
            cli_error("%s: %s", files[f], err.msg);
            rc = GS_EXIT_ERROR;
            continue;
        }
        if (in->pos.size != 19 && !all_sizes) continue;
        double tot = 0, ctot = 0;
        int playouts = 0, ndead = 0;
        for (long r = 0; r < repeat; r++) {
            double cpu = 0;
            double ms = time_count(&in->pos, in->has_komi ? in->komi : RULES_DEFAULT_KOMI, &playouts, &ndead, &cpu,
                                   &err);
            if (ms < 0) {
                cli_error("%s: %s", files[f], err.msg);
                rc = GS_EXIT_ERROR;
                break;
            }
            tot += ms;
            ctot += cpu;
        }
        double mean = tot / (double)repeat, cmean = ctot / (double)repeat;
        printf("  %-60s %2dx%-2d %7.1f / %6.1f ms  %4d playouts  %3d dead\n", files[f], in->pos.size, in->pos.size,
               mean, cmean, playouts, ndead);
        if (in->pos.size == 19) {
            sum += mean;
            csum += cmean;
            counted++;
            if (mean > worst) worst = mean;
            if (cmean > cworst) cworst = cmean;
        }
    }
    {
        gs_position empty;
        gs_position_clear(&empty, 19);
        gs_error err = {0};
        int playouts = 0, ndead = 0;
        double cpu = 0;
        double ms = time_count(&empty, RULES_DEFAULT_KOMI, &playouts, &ndead, &cpu, &err);
        printf("  %-60s 19x19 %7.1f / %6.1f ms  %4d playouts (longest playouts)\n", "(empty board, worst case)", ms,
               cpu, playouts);
        if (ms > worst) worst = ms;
        if (cpu > cworst) cworst = cpu;
    }
    if (counted)
        printf("19x19 games: %d, mean %.1f ms wall / %.1f ms CPU per count; worst %.1f ms wall / %.1f ms CPU "
               "(target < 1000 ms)\n",
               counted, sum / counted, csum / counted, worst, cworst);
    else printf("no 19x19 SGF given or found; worst case %.1f ms wall / %.1f ms CPU (target < 1000 ms)\n", worst,
                cworst);
out:
    free(in);
    if (owned)
        for (int f = 0; f < nfiles; f++) free(files[f]);
    free(files);
    return rc;
}
