/* cli/cmd_scan.c: `goscribe scan PHOTO`: find the board in one photo, read
 * every intersection and print the grid (the .txt format of the test data),
 * or JSON with corners, confidences and timings. */
#include "cvshim/cvshim.h"
#include "calib/calib.h"
#include "cli/cli.h"
#include "vision/vision.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void scan_usage(FILE *f)
{
    fprintf(f,
            "Usage: goscribe scan PHOTO [options]\n"
            "\n"
            "Finds the board in PHOTO, reads every intersection and prints SIZE lines of\n"
            "SIZE tokens (. B W), the top line being the board edge nearest the top of the\n"
            "photo as it is displayed (its EXIF orientation applied); a point read with\n"
            "doubt carries a '?' after its token, and a warning line on stderr gives how\n"
            "many there are.  A board the photo's edge cuts off is read where it is seen:\n"
            "'-' is a point off the photo, and stderr names the sides cut off.\n"
            "\n"
            "Options:\n"
            CLI_HELP_OPTION
            CLI_SIZE_GRID_HELP
            CLI_CORNERS_HELP
            CLI_CALIBRATION_HELP
            "  --overlay OUT.png    write the photo with the grid and the readings drawn on it\n"
            "  --json               print JSON instead: size, corners, rows, per-point\n"
            "                       confidence and probabilities, the sides cut off and\n"
            "                       the time taken\n"
            CLI_MAX_PIXELS_HELP
            CLI_MODEL_HELP
            CLI_EXIT_CODES CLI_EXIT_0 CLI_EXIT_1 CLI_EXIT_2 CLI_EXIT_3);
}

/* Corners a camera cannot give (calib_grid_check) are refused before the
 * reading; false when they are (said). */
static bool corners_fit(const gs_image *img, int size, double corners[4][2])
{
    vision_grid g;
    gs_error err;
    if (vision_grid_from_corners(&g, size ? size : 19, (const double(*)[2])corners, &err) == GS_OK &&
        calib_grid_check(&g, img->width, img->height, false, &err) == GS_OK)
        return true;
    cli_error("scan: --corners: %s", err.msg);
    return false;
}

/* The grid as text: N lines of N tokens (. B W), an uncertain point's token
 * followed by '?'. */
static void print_text(const vision_reading *r)
{
    static const char tok[3] = {'.', 'B', 'W'};
    int N = r->pos.size;
    for (int y = 0; y < N; y++) {
        for (int x = 0; x < N; x++) {
            int i = y * N + x;
            if (r->off_photo[i]) printf("%s-", x ? " " : "");
            else printf("%s%c%s", x ? " " : "", tok[r->pos.cell[i] % 3], r->unsure[i] ? "?" : "");
        }
        putchar('\n');
    }
}

static const char *const side_names[4] = {"top", "right", "bottom", "left"};

/* "the top and left" of the sides cut off, into buf. */
static const char *cut_sides(const int cut[4], char *buf, size_t len)
{
    int n = 0, k = 0;
    for (int s = 0; s < 4; s++) n += cut[s] != 0;
    buf[0] = 0;
    for (int s = 0; s < 4; s++) {
        if (!cut[s]) continue;
        size_t at = strlen(buf);
        snprintf(buf + at, len - at, "%s%s", k == 0 ? "" : k == n - 1 ? " and " : ", ", side_names[s]);
        k++;
    }
    return buf;
}

/* "name": one array of N numbers (decimals after the point) a row of v. */
static void print_rows(const char *name, const float *v, int N, int decimals)
{
    printf("  \"%s\": [\n", name);
    for (int y = 0; y < N; y++) {
        printf("    [");
        for (int x = 0; x < N; x++) printf("%s%.*f", x ? ", " : "", decimals, v[y * N + x]);
        printf("]%s\n", y + 1 < N ? "," : "");
    }
    printf("  ]");
}

static void print_json(const char *photo, const cvshim_decoded *dec, const vision_result *r, double ms_total)
{
    const vision_grid *g = &r->grid;
    int N = g->size;
    printf("{\n  \"input\": ");
    gs_json_write_string(stdout, photo);
    printf(",\n  \"width\": %d,\n  \"height\": %d,\n  \"orientation\": %d,", dec->full_width, dec->full_height,
           dec->orientation);
    printf("\n  \"size\": %d,\n  \"corners\": [", N);
    /* in the displayed photo's pixels, whatever size it was read at */
    double scale = dec->reduce > 1 ? dec->reduce : 1;
    for (int i = 0; i < 4; i++) printf("%s[%.1f, %.1f]", i ? ", " : "", (g->corners[i][0] + 0.5) * scale - 0.5,
                                       (g->corners[i][1] + 0.5) * scale - 0.5);
    printf("],\n  \"grid_confidence\": %.3f,\n  \"rows\": [\n", g->confidence);
    static const char tok[3] = {'.', 'B', 'W'};
    for (int y = 0; y < N; y++) {
        printf("    \"");
        for (int x = 0; x < N; x++)
            printf("%s%c", x ? " " : "", r->reading.off_photo[y * N + x] ? '-' : tok[r->reading.pos.cell[y * N + x] % 3]);
        printf("\"%s\n", y + 1 < N ? "," : "");
    }
    /* each point's next likeliest colour: what `count SCAN.json` reads a
     * point in doubt as */
    printf("  ],\n  \"second\": [\n");
    for (int y = 0; y < N; y++) {
        printf("    \"");
        for (int x = 0; x < N; x++) {
            gs_color c = r->reading.second[y * N + x];
            printf("%s%c", x ? " " : "", c == VISION_SECOND_ANY ? '?' : tok[c % 3]);
        }
        printf("\"%s\n", y + 1 < N ? "," : "");
    }
    /* ...and how likely it is: what count's --plausible weighs */
    printf("  ],\n");
    print_rows("second_p", r->reading.second_p, N, 4);
    printf(",\n");
    print_rows("confidence", r->reading.confidence, N, 2);
    printf(",\n  \"uncertain_count\": %d,\n  \"uncertain\": [", r->reading.uncertain);
    int k = 0;
    for (int i = 0; i < N * N; i++)
        if (r->reading.unsure[i]) printf("%s\"%c%c\"", k++ ? ", " : "", 'a' + i % N, 'a' + i / N); /* SGF points */
    printf("],\n  \"off_photo_count\": %d,\n  \"cut\": [", r->reading.outside);
    for (int s = 0, k = 0; s < 4; s++)
        if (r->reading.outside && r->info.cut[s]) printf("%s\"%s\"", k++ ? ", " : "", side_names[s]);
    if (r->reading.have_prob) {
        printf("],\n  \"probabilities\": [\n");
        for (int i = 0; i < N * N; i++) {
            const float *p = r->reading.prob[i];
            printf("%s    [%.4f, %.4f, %.4f, %.4f]", i ? ",\n" : "", p[0], p[1], p[2], p[3]);
        }
        printf("\n");
    }
    printf("],\n  \"lines_points\": %d,\n  \"brightened\": %.2f,\n", r->lines_points, r->gain > 0 ? r->gain : 1.0);
    printf("  \"ms\": %.1f,\n  \"ms_grid\": %.1f,\n  \"ms_read\": %.1f\n}\n", ms_total, r->ms_grid, r->ms_read);
}

typedef struct scan_args {
    const char *photo, *overlay, *calfile, *model;
    long size;
    bool json, have_corners;
    long long max_pixels;
    double corners[4][2];
} scan_args;

/* One option that takes a value; -1 after an error (said). */
static int scan_parse_value(scan_args *a, const char *opt, const char *val)
{
    if (!strcmp(opt, "--size")) return cli_parse_size("scan", val, CLI_SIZE_GRID, &a->size);
    if (!strcmp(opt, "--corners")) {
        a->have_corners = cli_parse_corners("scan", val, a->corners) == 0;
        return a->have_corners ? 0 : -1;
    }
    if (!strcmp(opt, "--max-pixels")) return cli_parse_max_pixels("scan", val, &a->max_pixels);
    if (!strcmp(opt, "--overlay")) a->overlay = val;
    else if (!strcmp(opt, "--model")) a->model = val;
    else a->calfile = val;
    return 0;
}

/* The options into a; -1 to go on, else the exit code (help, an error). */
static int scan_parse(int argc, char **argv, scan_args *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (cli_is_help(o)) { scan_usage(stdout); return GS_EXIT_OK; }
        if (!strcmp(o, "--json")) { a->json = true; continue; }
        if (!strcmp(o, "--size") || !strcmp(o, "--corners") || !strcmp(o, "--overlay") || !strcmp(o, "--calibration") ||
            !strcmp(o, "--max-pixels") || !strcmp(o, "--model")) {
            const char *v = cli_value("scan", argc, argv, &i);
            if (!v || scan_parse_value(a, o, v) != 0) return GS_EXIT_ERROR;
            continue;
        }
        if (o[0] == '-' && o[1]) { cli_error("scan: unknown option %s (see goscribe scan --help)", o); return GS_EXIT_ERROR; }
        if (a->photo) { cli_error("scan: one photo at a time (got %s and %s)", a->photo, o); return GS_EXIT_ERROR; }
        a->photo = o;
    }
    if (!a->photo) { cli_error("scan: no photo given (see goscribe scan --help)"); return GS_EXIT_ERROR; }
    if (cli_check_size("scan", a->size, CLI_SIZE_GRID, a->have_corners || a->calfile)) return GS_EXIT_ERROR;
    return -1;
}

/* The grid from the calibration file, scaled to img, then the photo's
 * reading on it (the photo looks without the search: as `record
 * --calibration` reads a photo). */
static gs_status scan_calibrated(const scan_args *a, const vision_detector *d, const gs_image *img, vision_result *res,
                                 gs_error *err)
{
    calib_data cal;
    gs_status st = calib_load(&cal, a->calfile, err);
    if (st == GS_OK) st = calib_scale_to(&cal, img->width, img->height, err);
    if (st != GS_OK) return st;
    if (a->size && a->size != cal.grid.size)
        return gs_error_set(err, GS_ERR_USAGE, "%s: calibration is for %d x %d, not --size %ld", a->calfile,
                            cal.grid.size, cal.grid.size, a->size);
    const vision_request rq = {.size_hint = cal.grid.size, .grid = &cal.grid};
    return vision_detect_photo(d, img, &rq, res, err);
}

/* The overlay, then the reading printed and the doubt said; the exit code. */
static int scan_report(const scan_args *a, gs_image *img, const cvshim_decoded *dec, const vision_result *res,
                       double ms_total)
{
    gs_error err = {0};
    if (a->overlay) {
        vision_draw_overlay(img, &res->grid, &res->reading);
        if (gs_image_write_png(img, a->overlay, &err) != GS_OK) {
            cli_error("%s", err.msg);
            return GS_EXIT_ERROR;
        }
    }
    if (a->json) print_json(a->photo, dec, res, ms_total);
    else print_text(&res->reading);
    if (res->reading.uncertain == 0) return GS_EXIT_OK;
    int NN = res->reading.pos.size * res->reading.pos.size;
    if (res->reading.outside > 0) {
        char sides[64];
        fprintf(stderr, "goscribe: warning: the board is cut off at the %s of the photo: %d point%s not seen (marked -)\n",
                cut_sides(res->info.cut, sides, sizeof sides), res->reading.outside,
                res->reading.outside == 1 ? "" : "s");
    }
    int doubtful = res->reading.uncertain - res->reading.outside;
    if (doubtful == 0) return GS_EXIT_UNSURE;
    static const char *unknown[] = {"", "neither the board's top nor its bottom edge",
                                    "neither the board's left nor its right edge", "none of the board's edges"};
    if (res->info.place_unknown > 0 && res->info.place_unknown < 4)
        fprintf(stderr, "goscribe: warning: the photo shows %s, so which of its lines these are cannot be told: every "
                        "point is marked; photograph the whole board, or give --corners\n",
                unknown[res->info.place_unknown]);
    else if (res->info.place_doubt && res->reading.uncertain >= NN)
        fprintf(stderr, "goscribe: warning: the grid may not fit the board (its lines do not confirm the place the "
                        "point model chose): every point is marked; check the overlay, or give --corners\n");
    if (res->lines_points > 0)
        fprintf(stderr, "goscribe: warning: the board's lines place the grid otherwise and read %d point%s otherwise "
                        "(%s)\n", res->lines_points, res->lines_points == 1 ? "" : "s",
                res->reading.uncertain >= NN ? "the grid is in doubt: every point marked ?" : "marked ?");
    fprintf(stderr, "goscribe: warning: %d uncertain point%s (marked ?): the reading may be wrong there\n", doubtful,
            doubtful == 1 ? "" : "s");
    return GS_EXIT_UNSURE;
}

int cmd_scan(int argc, char **argv)
{
    scan_args a;
    int rc = scan_parse(argc, argv, &a);
    if (rc >= 0) return rc;
    gs_error err = {0};
    double t0 = gs_now_ms();
    vision_result *res = calloc(1, sizeof *res);
    vision_detector *d = res ? vision_detector_open(NULL, a.model, &err) : NULL;
    if (!res || !d) {
        if (res) cli_error("scan: %s%s", a.model ? "--model " : "", err.msg);
        else cli_error("scan: out of memory");
        free(res);
        return GS_EXIT_ERROR;
    }
    /* a large photo is decoded smaller when the board search does not
     * need every pixel (its largest working copy) */
    cvshim_decode how = {.max_pixels = a.max_pixels, .min_side = vision_detector_params(d)->wider_side[1]};
    cvshim_decoded dec;
    gs_image *img = cvshim_image_load_as(a.photo, &how, &dec, &err);
    if (img && a.have_corners && dec.reduce > 1)
        for (int i = 0; i < 4; i++)
            for (int c = 0; c < 2; c++) a.corners[i][c] = (a.corners[i][c] + 0.5) / dec.reduce - 0.5;
    if (!img || (a.have_corners && !corners_fit(img, (int)a.size, a.corners))) {
        if (!img) cli_error("%s", err.msg);
        gs_image_destroy(img);
        vision_detector_destroy(d);
        free(res);
        return img ? GS_EXIT_ERROR : gs_status_exit_code(err.status);
    }
    gs_status st;
    if (a.calfile && !a.have_corners) {
        st = scan_calibrated(&a, d, img, res, &err);
    } else {
        /* --corners: that grid (corners_fit checked it), else the search */
        vision_grid given;
        st = a.have_corners ? vision_grid_from_corners(&given, a.size ? (int)a.size : 19, (const double(*)[2])a.corners, &err)
                            : GS_OK;
        const vision_request rq = {.size_hint = (int)a.size, .grid = a.have_corners ? &given : NULL};
        if (st == GS_OK) st = vision_detect_photo(d, img, &rq, res, &err);
    }
    if (st != GS_OK) cli_error("%s: %s", a.photo, err.msg);
    rc = st != GS_OK ? gs_status_exit_code(st) : scan_report(&a, img, &dec, res, gs_now_ms() - t0);
    vision_detector_destroy(d);
    gs_image_destroy(img);
    free(res);
    return rc;
}
