/* cli/cmd_calibrate.c: `goscribe calibrate SOURCE -o board.cal`: find the
 * board once (photo, video, photo folder or camera) and save the grid in the
 * calibration file format of calib/calib.h, for `scan` and `record
 * --calibration FILE`.  The work is calib_make; this file parses and
 * prints. */
#include "calib/calib.h"
#include "capture/capture.h"
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void calibrate_usage(FILE *f)
{
    fprintf(f,
            "Usage: goscribe calibrate SOURCE -o FILE [options]\n"
            "\n"
            "Finds the board in SOURCE (a photo, a video file, a folder of photos, a\n"
            "camera such as /dev/video0 or a network camera's URL, http(s):// or rtsp://)\n"
            "and writes its grid (size, corners, homography, lens distortion, cell\n"
            "aspect) to FILE, a small text file that `scan` and `record` accept with\n"
            "--calibration FILE.\n"
            "\n"
            "Options:\n"
            CLI_HELP_OPTION
            "  -o, --output FILE    calibration file to write (required)\n"
            "  --size N             board size: 9, 13 or 19 (default: found); 5..25 with\n"
            "                       --corners\n"
            CLI_CORNERS_HELP
            "  --frames N           video/camera/folder: look at up to N frames and keep\n"
            "                       the surest grid (default 30)\n"
            "  --overlay OUT.png    write the frame with the found grid drawn on it\n"
            CLI_MAX_PIXELS_HELP
            CLI_EXIT_CODES CLI_EXIT_0 CLI_EXIT_1 CLI_EXIT_2);
}

/* The command line: the library's options and the corners they point at. */
typedef struct calibrate_args {
    calib_make_options lib;
    double corners[4][2];
} calibrate_args;

/* One option of argv[*i] into a: 1 taken, 0 not one, -1 bad (said). */
static int parse_option(int argc, char **argv, int *i, calibrate_args *a, long *size)
{
    calib_make_options *o = &a->lib;
    const char *arg = argv[*i], *v;
    bool known = !strcmp(arg, "-o") || !strcmp(arg, "--output") || !strcmp(arg, "--size") || !strcmp(arg, "--corners") ||
                 !strcmp(arg, "--frames") || !strcmp(arg, "--max-pixels") || !strcmp(arg, "--overlay");
    if (!known) return 0;
    if (!(v = cli_value("calibrate", argc, argv, i))) return -1;
    if (!strcmp(arg, "-o") || !strcmp(arg, "--output")) o->out_path = v;
    else if (!strcmp(arg, "--overlay")) o->overlay_path = v;
    else if (!strcmp(arg, "--size")) return cli_parse_size("calibrate", v, CLI_SIZE_CORNERS, size) ? -1 : 1;
    else if (!strcmp(arg, "--frames")) return cli_parse_whole("calibrate", arg, v, 1, 100000, &o->frames) ? -1 : 1;
    else if (!strcmp(arg, "--max-pixels")) return cli_parse_max_pixels("calibrate", v, &o->max_pixels) ? -1 : 1;
    else if (cli_parse_corners("calibrate", v, a->corners) != 0) return -1;
    else o->corners = (const double(*)[2])a->corners;
    return 1;
}

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
        int got = parse_option(argc, argv, &i, a, &size);
        if (got < 0) return GS_EXIT_ERROR;
        if (got > 0) continue;
        if (arg[0] == '-' && arg[1] != 0) {
            cli_error("calibrate: unknown option %s (see goscribe calibrate --help)", arg);
            return GS_EXIT_ERROR;
        } else if (!o->source) {
            o->source = arg;
        } else {
            char one[512], two[512]; /* a URL's credentials are never printed */
            cli_error("calibrate: more than one SOURCE (%s and %s)", capture_spec_shown(o->source, one, sizeof one),
                      capture_spec_shown(arg, two, sizeof two));
            return GS_EXIT_ERROR;
        }
    }
    if (!o->source) { cli_error("calibrate: no SOURCE given (see goscribe calibrate --help)"); return GS_EXIT_ERROR; }
    if (!o->out_path) { cli_error("calibrate: no output file given (-o FILE)"); return GS_EXIT_ERROR; }
    /* a calibration file is written here, not read: only --corners gives a grid */
    if (cli_check_size("calibrate", size, CLI_SIZE_CORNERS, o->corners != NULL)) return GS_EXIT_ERROR;
    o->size = (int)size;
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
