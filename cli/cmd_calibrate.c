/* cli/cmd_calibrate.c: `goscribe calibrate SOURCE -o board.cal`: find the
 * board once (photo, video, photo folder or camera) and save the grid in the
 * calibration file format of calib/calib.h, for `scan` and `record
 * --calibration FILE`.  The work is calib_make; this file parses and
 * prints. */
#include "calib/calib.h"
#include "cli/cli.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void calibrate_usage(FILE *f)
{
    fprintf(f,
            "usage: goscribe calibrate SOURCE -o FILE [--size 9|13|19]\n"
            "                          [--corners x1,y1,x2,y2,x3,y3,x4,y4]\n"
            "                          [--frames N] [--overlay OUT.png] [--max-pixels N]\n"
            "\n"
            "Finds the board in SOURCE (a photo, a video file, a folder of photos or a\n"
            "camera such as /dev/video0) and writes its grid (size, corners, homography,\n"
            "lens distortion, cell aspect) to FILE, a small text file that `scan` and\n"
            "`record` accept with --calibration FILE.\n"
            "  -o, --output FILE   calibration file to write (required)\n"
            "  --size N            board size (default: detected); 5..25 with --corners\n"
            "  --corners ...       the four outer intersections in image pixels (top-left,\n"
            "                      top-right, bottom-right, bottom-left): no board finding\n"
            "  --frames N          video/camera/folder: look at up to N frames and keep\n"
            "                      the surest grid (default 30)\n"
            "  --overlay OUT.png   write the frame with the found grid drawn on it\n"
            CLI_MAX_PIXELS_HELP
            "exit codes: 0 written, 1 usage or I/O error, 2 no board found\n");
}

static int parse_corners(const char *s, double c[4][2])
{
    int n = 0;
    const char *p = s;
    while (*p && n < 9) {
        char *end;
        double v = strtod(p, &end);
        if (end == p) return -1;
        if (n < 8) c[n / 2][n % 2] = v;
        n++;
        p = end;
        while (*p && isspace((unsigned char)*p)) p++;
        if (*p == ',') p++;
        else if (*p) return -1;
    }
    return n == 8 ? 0 : -1;
}

/* The command line: the library's options and the corners they point at. */
typedef struct calibrate_args {
    calib_make_options lib;
    double corners[4][2];
} calibrate_args;

/* Parses argv into a; returns -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, calibrate_args *a)
{
    memset(a, 0, sizeof *a);
    calib_make_options *o = &a->lib;
    calib_make_options_init(o);
    long size = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (cli_is_help(arg)) { calibrate_usage(stdout); return GS_EXIT_OK; }
        int has_val = i + 1 < argc;
        if (!strcmp(arg, "-o") || !strcmp(arg, "--output")) {
            if (!has_val) { cli_error("%s needs a file name", arg); return GS_EXIT_ERROR; }
            o->out_path = argv[++i];
        } else if (!strcmp(arg, "--size")) {
            if (!has_val || cli_parse_int(argv[i + 1], 5, GS_MAX_SIZE, &size) != 0) {
                cli_error("--size needs a board size from 5 to %d", GS_MAX_SIZE);
                return GS_EXIT_ERROR;
            }
            o->size = (int)size;
            i++;
        } else if (!strcmp(arg, "--corners")) {
            if (!has_val || parse_corners(argv[i + 1], a->corners) != 0) {
                cli_error("--corners needs eight numbers x1,y1,x2,y2,x3,y3,x4,y4");
                return GS_EXIT_ERROR;
            }
            o->corners = (const double(*)[2])a->corners;
            i++;
        } else if (!strcmp(arg, "--frames")) {
            if (!has_val || cli_parse_int(argv[i + 1], 1, 100000, &o->frames) != 0) {
                cli_error("--frames needs a number from 1 to 100000");
                return GS_EXIT_ERROR;
            }
            i++;
        } else if (!strcmp(arg, "--max-pixels")) {
            if (cli_parse_max_pixels("calibrate", has_val ? argv[++i] : NULL, &o->max_pixels) != 0) return GS_EXIT_ERROR;
        } else if (!strcmp(arg, "--overlay")) {
            if (!has_val) { cli_error("--overlay needs a file name"); return GS_EXIT_ERROR; }
            o->overlay_path = argv[++i];
        } else if (arg[0] == '-' && arg[1] != 0) {
            cli_error("calibrate: unknown option '%s' (try goscribe calibrate --help)", arg);
            return GS_EXIT_ERROR;
        } else if (!o->source) {
            o->source = arg;
        } else {
            cli_error("calibrate: more than one SOURCE ('%s' and '%s')", o->source, arg);
            return GS_EXIT_ERROR;
        }
    }
    if (!o->source) { cli_error("calibrate: no SOURCE given (try goscribe calibrate --help)"); return GS_EXIT_ERROR; }
    if (!o->out_path) { cli_error("calibrate: no output file given (-o FILE)"); return GS_EXIT_ERROR; }
    if (o->size && !o->corners && o->size != 9 && o->size != 13 && o->size != 19) {
        cli_error("--size must be 9, 13 or 19 without --corners");
        return GS_EXIT_ERROR;
    }
    return -1;
}

int cmd_calibrate(int argc, char **argv)
{
    calibrate_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0) return rc;
    calib_make_result *r = malloc(sizeof *r);
    if (!r) { cli_error("calibrate: out of memory"); return GS_EXIT_ERROR; }
    gs_error err = {0};
    gs_status st = calib_make(&a.lib, r, &err);
    if (st != GS_OK) {
        if (r->error_file) cli_error("%s: %s", r->error_file, err.msg);
        else cli_error("%s", err.msg);
        free(r);
        return gs_status_exit_code(st);
    }
    /* One summary line (scripts/eval_grid.sh reads it): the fit residual is
     * the 90th percentile distance, in cells, from the grid to the dark
     * lines near it. */
    const vision_grid *g = &r->cal.grid;
    printf("board %dx%d corners %.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f confidence %.2f residual %.3f time %.1f ms cpu %.1f ms: "
           "written to %s\n",
           g->size, g->size, g->corners[0][0], g->corners[0][1], g->corners[1][0], g->corners[1][1], g->corners[2][0],
           g->corners[2][1], g->corners[3][0], g->corners[3][1], g->confidence, r->fit.resid_p90, r->ms, r->cpu_ms,
           a.lib.out_path);
    const calib_colour *k = &r->cal.colour;
    if (k->valid)
        printf("colour model saved: wood L %.0f, black L %.0f, white L %.0f\n", k->board[0], k->black[0], k->white[0]);
    else
        printf("colour model not saved: %s\n", r->colour_why.msg);
    free(r);
    return GS_EXIT_OK;
}
