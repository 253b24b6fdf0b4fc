/* cli/bench_scan.c: `goscribe bench scan [PHOTOS...]`: time of the whole
 * single-photo pipeline (find the grid, read every point) per photo at
 * native resolution, pinned to one core, and the median over the photos.
 * Decoding the file is timed apart: it is not part of the reading. */
#define _GNU_SOURCE
#include "cvshim/cvshim.h"
#include "cli/cli.h"
#include "vision/vision.h"

#include <dirent.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

typedef struct path_list { char **v; int n, cap; } path_list;

static int list_add(path_list *l, const char *p)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 64;
        char **v = realloc(l->v, sizeof *v * (size_t)cap);
        if (!v) return -1;
        l->v = v;
        l->cap = cap;
    }
    if (!(l->v[l->n] = strdup(p))) return -1;
    l->n++;
    return 0;
}

static int is_photo(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot && (!strcasecmp(dot, ".jpg") || !strcasecmp(dot, ".jpeg") || !strcasecmp(dot, ".png"));
}

/* Adds every photo under dir (recursively); depth-limited against loops. */
static int collect(path_list *l, const char *dir, int depth)
{
    if (depth > 8) return 0;
    DIR *d = opendir(dir);
    if (!d) return -1;
    struct dirent *e;
    int rc = 0;
    while (!rc && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char p[4096];
        if (snprintf(p, sizeof p, "%s/%s", dir, e->d_name) >= (int)sizeof p) continue;
        struct stat st;
        if (stat(p, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) rc = collect(l, p, depth + 1) < 0 ? 0 : 0;
        else if (S_ISREG(st.st_mode) && is_photo(e->d_name)) rc = list_add(l, p);
    }
    closedir(d);
    return rc;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }
static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    if (n <= 0) return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_dbl);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The two speed classes: photos up to 2048x1536 pixels (webcams,
 * most phones at reduced size) and the larger ones (12 MP phone photos). */
#define BENCH_SMALL_PIXELS (2048L * 1536L)

typedef struct bench_scan_options {
    long repeat;
    double upscale;
    path_list photos;
} bench_scan_options;

/* The scan times of the photos of one class, for their median. */
typedef struct bench_class {
    double *ms;
    int n, boards;
} bench_class;

static void bench_scan_usage(void)
{
    printf("Usage: goscribe bench scan [PHOTOS or FOLDERS...] [options]\n"
           "\n"
           "Times board finding + point reading per photo on one core, the photo read\n"
           "as scan reads it (a large one decoded at a half or a quarter of its size,\n"
           "WxH@wxh), and prints the median over the photos, for all of them and apart\n"
           "for those up to 2048x1536 pixels and the larger ones.  Default: every photo\n"
           "under ../shared/data/photos.\n"
           "\n"
           "Options:\n"
           CLI_HELP_OPTION
           "  --repeat N           runs per photo, the best kept (default 3)\n"
           "  --upscale F          enlarge every photo F times first (1..8), e.g. 6.3 makes\n"
           "                       640x480 frames 4032x3024, to time phone-sized photos\n"
           "                       (then reduced as scan would decode a photo that size)\n"
           CLI_EXIT_CODES CLI_EXIT_0 CLI_EXIT_1);
}

/* Options and the photo list; 1 after --help, -1 after an error (said). */
static int bench_scan_parse(int argc, char **argv, bench_scan_options *o)
{
    bool named = false; /* a photo or folder given: no default then */
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            bench_scan_usage();
            return 1;
        }
        if (!strcmp(argv[i], "--repeat")) {
            const char *v = cli_value("bench scan", argc, argv, &i);
            if (v && cli_parse_whole("bench scan", "--repeat", v, 1, 1000, &o->repeat) == 0) continue;
            return -1;
        }
        if (!strcmp(argv[i], "--upscale")) {
            const char *v = cli_value("bench scan", argc, argv, &i);
            if (v && cli_parse_number("bench scan", "--upscale", v, 1, 8, &o->upscale) == 0) continue;
            return -1;
        }
        struct stat st;
        named = true;
        if (stat(argv[i], &st) != 0) {
            cli_error("%s: no such file or folder", argv[i]);
            return -1;
        }
        if (S_ISDIR(st.st_mode) ? collect(&o->photos, argv[i], 0) != 0 : list_add(&o->photos, argv[i]) != 0) {
            cli_error("bench scan: out of memory");
            return -1;
        }
    }
    if (!named) {
        const char *def = "../shared/data/photos";
        struct stat st;
        if (stat(def, &st) != 0 || !S_ISDIR(st.st_mode)) {
            cli_error("bench scan: no photos given and %s not found", def);
            return -1;
        }
        if (collect(&o->photos, def, 0) != 0) {
            cli_error("bench scan: cannot list %s", def);
            return -1;
        }
    }
    if (o->photos.n == 0) {
        cli_error("bench scan: no photos found");
        return -1;
    }
    qsort(o->photos.v, (size_t)o->photos.n, sizeof *o->photos.v, cmp_str);
    return 0;
}

/* Loads, enlarges, times and prints one photo; its best time in *ms, and
 * whether a board was read.  false when the photo could not be timed. */
/* img enlarged f times, then reduced as scan decodes a photo of that size
 * (cvshim_decode.min_side: the largest halving that keeps the longest side
 * at min_side); *full_w, *full_h the enlarged size.  NULL when out of memory. */
static gs_image *as_scan_reads(gs_image *img, double f, int min_side, int *full_w, int *full_h)
{
    int w = (int)lround(img->width * f), h = (int)lround(img->height * f), k = 1;
    *full_w = w;
    *full_h = h;
    if (f <= 1) return img;
    while (k < 8 && (w > h ? w : h) / (2 * k) >= min_side) k *= 2;
    gs_image *out = cvshim_image_resize(img, w / k, h / k);
    gs_image_destroy(img);
    return out;
}

static bool bench_scan_one(const char *path, const bench_scan_options *o, double *ms, long *pixels, bool *board)
{
    gs_error err = {0};
    vision_result *res = malloc(sizeof *res);
    vision_detector *d = vision_detector_create(NULL);
    if (!res || !d) {
        free(res);
        vision_detector_destroy(d);
        return false;
    }
    /* decoded as scan decodes it (a large photo at a reduced size) */
    int min_side = vision_detector_params(d)->wider_side[1];
    cvshim_decode how = {.min_side = o->upscale > 1 ? 0 : min_side};
    cvshim_decoded dec = {0};
    double t0 = gs_now_ms();
    gs_image *img = cvshim_image_load_as(path, &how, &dec, &err);
    double tdec = gs_now_ms() - t0;
    int full_w = dec.full_width, full_h = dec.full_height;
    if (img) img = as_scan_reads(img, o->upscale, min_side, &full_w, &full_h);
    if (!img) {
        printf("%-60s %s\n", path, err.msg[0] ? err.msg : "out of memory");
        vision_detector_destroy(d);
        free(res);
        return false;
    }
    double best = 1e30, bg = 0, br = 0;
    gs_status st = GS_OK;
    for (long r = 0; r < o->repeat; r++) {
        double a = gs_now_ms();
        st = vision_detect_photo(d, img, NULL, res, &err);
        double t = gs_now_ms() - a;
        if (t < best) { best = t; bg = res->ms_grid; br = res->ms_read; }
    }
    char dim[48];
    if (full_w == img->width) snprintf(dim, sizeof dim, "%dx%d", full_w, full_h);
    else snprintf(dim, sizeof dim, "%dx%d@%dx%d", full_w, full_h, img->width, img->height);
    printf("%-60s %10s %6.1fms %6.1fms %6.1fms %6.1fms%s\n", path, dim, tdec, bg, br, best,
           st == GS_OK ? "" : st == GS_ERR_NOBOARD ? "  (no board)" : "  (error)");
    *ms = best;
    *pixels = (long)full_w * full_h;
    *board = st == GS_OK;
    vision_detector_destroy(d);
    free(res);
    gs_image_destroy(img);
    return true;
}

static void bench_class_print(const char *what, bench_class *c)
{
    if (c->n) printf("median scan time, %s: %.1f ms over %d photos (%d with a board read)\n", what, median(c->ms, c->n), c->n, c->boards);
}

int bench_scan(int argc, char **argv)
{
    bench_scan_options o = {.repeat = 3, .upscale = 1};
    int rc = bench_scan_parse(argc, argv, &o);
    bench_class all = {0}, small = {0}, large = {0};
    if (rc) goto done;
    /* One core, as the requirement is stated per core. */
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(sched_getcpu() >= 0 ? sched_getcpu() : 0, &set);
    int pinned = sched_setaffinity(0, sizeof set, &set) == 0;
    size_t n = (size_t)o.photos.n;
    all.ms = calloc(n, sizeof *all.ms);
    small.ms = calloc(n, sizeof *small.ms);
    large.ms = calloc(n, sizeof *large.ms);
    if (!all.ms || !small.ms || !large.ms) {
        cli_error("bench scan: out of memory");
        rc = -1;
        goto done;
    }
    printf("bench scan: %d photos, best of %ld, %s\n", o.photos.n, o.repeat, pinned ? "pinned to one core" : "not pinned");
    printf("%-60s %10s %8s %8s %8s %8s\n", "photo", "size", "decode", "grid", "read", "total");
    for (int i = 0; i < o.photos.n; i++) {
        double ms;
        long pixels;
        bool board;
        if (!bench_scan_one(o.photos.v[i], &o, &ms, &pixels, &board)) continue;
        bench_class *c = pixels <= BENCH_SMALL_PIXELS ? &small : &large;
        all.ms[all.n++] = c->ms[c->n++] = ms;
        all.boards += board;
        c->boards += board;
    }
    if (all.n == 0) { /* each photo's reason is on its line above */
        cli_error("bench scan: none of the %d photos could be read: nothing timed", o.photos.n);
        rc = -1;
        goto done;
    }
    printf("median scan time: %.1f ms over %d photos (%d with a board read)\n", median(all.ms, all.n), all.n, all.boards);
    bench_class_print("up to 2048x1536", &small);
    bench_class_print("larger", &large);
done:
    free(all.ms);
    free(small.ms);
    free(large.ms);
    for (int i = 0; i < o.photos.n; i++) free(o.photos.v[i]);
    free(o.photos.v);
    return rc < 0 ? GS_EXIT_ERROR : GS_EXIT_OK;
}
