/* cli/cmd_calibrate.c: `goscribe calibrate SOURCE -o board.cal`: find the
 * board once (photo, video, photo folder or camera) and save the grid in the
 * calibration file format of calib/calib.h, for `scan` and `record
 * --calibration FILE`. */
#include "cvshim/cvshim.h"
#include "calib/calib.h"
#include "capture/capture.h"
#include "cli/cli.h"
#include "vision/vision.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

static void calibrate_usage(FILE *f)
{
    fprintf(f,
            "usage: goscribe calibrate SOURCE -o FILE [--size 9|13|19]\n"
            "                          [--corners x1,y1,x2,y2,x3,y3,x4,y4]\n"
            "                          [--frames N] [--overlay OUT.png]\n"
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

static int is_photo_name(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (!dot) return 0;
    static const char *ext[] = {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp", ".pgm", ".ppm"};
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++)
        if (strcasecmp(dot, ext[i]) == 0) return 1;
    return 0;
}

/* Draws the grid (green) and corner 0 (red) onto img, in place. */
static void draw_grid(gs_image *img, const vision_grid *g)
{
    int r = img->width / 800;
    for (int i = 0; i < g->size; i++)
        for (int t = 0; t <= (g->size - 1) * 16; t++)
            for (int dir = 0; dir < 2; dir++) {
                double x, y;
                if (dir) vision_grid_map(g, i, t / 16.0, &x, &y);
                else vision_grid_map(g, t / 16.0, i, &x, &y);
                for (int dy = -r; dy <= r; dy++)
                    for (int dx = -r; dx <= r; dx++) {
                        int X = (int)x + dx, Y = (int)y + dy;
                        if (X < 0 || Y < 0 || X >= img->width || Y >= img->height) continue;
                        uint8_t *p = img->buf + (size_t)Y * img->stride + (size_t)X * img->channels;
                        p[0] = 0;
                        if (img->channels == 3) { p[1] = 255; p[2] = 0; }
                    }
            }
    int R = 3 * r + 3;
    for (int dy = -R; dy <= R; dy++)
        for (int dx = -R; dx <= R; dx++) {
            int X = (int)g->corners[0][0] + dx, Y = (int)g->corners[0][1] + dy;
            if (X < 0 || Y < 0 || X >= img->width || Y >= img->height || img->channels != 3) continue;
            uint8_t *p = img->buf + (size_t)Y * img->stride + (size_t)X * 3;
            p[0] = 0; p[1] = 0; p[2] = 255;
        }
}

/* Fits the grid of one frame: from the given corners or by board finding;
 * *fit gets the board finder's diagnostics and *ms its time. */
static gs_status grid_of(const gs_image *img, int size, const double (*corners)[2], vision_grid *g,
                         vision_grid_find_info *fit, double ms[2], gs_error *err)
{
    memset(fit, 0, sizeof *fit);
    double t0 = gs_now_ms();
    clock_t c0 = clock();
    gs_status s = corners ? vision_grid_from_corners(g, size ? size : 19, corners, err)
                          : vision_grid_find_ex(img, size, g, fit, err);
    ms[0] = gs_now_ms() - t0;
    ms[1] = (double)(clock() - c0) * 1000.0 / CLOCKS_PER_SEC; /* CPU time, all threads */
    return s;
}

int cmd_calibrate(int argc, char **argv)
{
    const char *source = NULL, *outpath = NULL, *overlay = NULL;
    long size = 0, frames = 30;
    double corners[4][2];
    int have_corners = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a)) { calibrate_usage(stdout); return GS_EXIT_OK; }
        int has_val = i + 1 < argc;
        if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            if (!has_val) { cli_error("%s needs a file name", a); return GS_EXIT_ERROR; }
            outpath = argv[++i];
        } else if (!strcmp(a, "--size")) {
            if (!has_val || cli_parse_int(argv[i + 1], 5, GS_MAX_SIZE, &size) != 0) {
                cli_error("--size needs a board size from 5 to %d", GS_MAX_SIZE);
                return GS_EXIT_ERROR;
            }
            i++;
        } else if (!strcmp(a, "--corners")) {
            if (!has_val || parse_corners(argv[i + 1], corners) != 0) {
                cli_error("--corners needs eight numbers x1,y1,x2,y2,x3,y3,x4,y4");
                return GS_EXIT_ERROR;
            }
            have_corners = 1;
            i++;
        } else if (!strcmp(a, "--frames")) {
            if (!has_val || cli_parse_int(argv[i + 1], 1, 100000, &frames) != 0) {
                cli_error("--frames needs a number from 1 to 100000");
                return GS_EXIT_ERROR;
            }
            i++;
        } else if (!strcmp(a, "--overlay")) {
            if (!has_val) { cli_error("--overlay needs a file name"); return GS_EXIT_ERROR; }
            overlay = argv[++i];
        } else if (a[0] == '-' && a[1] != 0) {
            cli_error("calibrate: unknown option '%s' (try goscribe calibrate --help)", a);
            return GS_EXIT_ERROR;
        } else if (!source) {
            source = a;
        } else {
            cli_error("calibrate: more than one SOURCE ('%s' and '%s')", source, a);
            return GS_EXIT_ERROR;
        }
    }
    if (!source) { cli_error("calibrate: no SOURCE given (try goscribe calibrate --help)"); return GS_EXIT_ERROR; }
    if (!outpath) { cli_error("calibrate: no output file given (-o FILE)"); return GS_EXIT_ERROR; }
    if (size && !have_corners && size != 9 && size != 13 && size != 19) {
        cli_error("--size must be 9, 13 or 19 without --corners");
        return GS_EXIT_ERROR;
    }

    calib_data cal;
    calib_init(&cal);
    gs_error err = {0};
    gs_status st;
    gs_image *shown = NULL; /* the frame the grid came from, for --overlay */
    vision_grid_find_info fit;
    double ms[2] = {0, 0};
    memset(&fit, 0, sizeof fit);
    const double (*cp)[2] = have_corners ? (const double(*)[2])corners : NULL;
    gs_image *img = NULL;
    struct stat sb;
    /* A photo by name, or any regular file that decodes as an image. */
    if (is_photo_name(source)) {
        img = cvshim_image_load(source, &err);
        if (!img) { cli_error("%s", err.msg); return GS_EXIT_ERROR; }
    } else if (stat(source, &sb) == 0 && S_ISREG(sb.st_mode)) {
        img = cvshim_image_load(source, &err);
    }
    if (img) {
        st = grid_of(img, (int)size, cp, &cal.grid, &fit, ms, &err);
        cal.image_width = img->width;
        cal.image_height = img->height;
        shown = img;
    } else {
        capture_source *src = capture_open(source, NULL, &err);
        if (!src) { cli_error("%s", err.msg); return gs_status_exit_code(err.status); }
        /* Keep the surest grid over the first frames: a hand or a bad
         * frame must not spoil the calibration. */
        vision_grid best;
        double bestc = -1;
        st = GS_ERR_NOBOARD;
        gs_error last = {0};
        gs_error_set(&last, GS_ERR_NOBOARD, "no frame to look at");
        for (long n = 0; n < frames; n++) {
            const gs_image *frame = NULL;
            capture_info info;
            capture_result r = capture_read(src, &frame, &info);
            if (r == CAPTURE_END) break;
            if (r == CAPTURE_LOST) continue;
            if (r != CAPTURE_FRAME) {
                gs_error_set(&last, GS_ERR_IO, "%s", capture_last_error(src));
                st = GS_ERR_IO;
                break;
            }
            vision_grid g;
            gs_error e2;
            vision_grid_find_info f2;
            double ms2[2];
            if (grid_of(frame, (int)size, cp, &g, &f2, ms2, &e2) == GS_OK) {
                if (g.confidence > bestc) {
                    fit = f2;
                    ms[0] = ms2[0];
                    ms[1] = ms2[1];
                    bestc = g.confidence;
                    best = g;
                    cal.image_width = frame->width;
                    cal.image_height = frame->height;
                    gs_image_destroy(shown);
                    shown = gs_image_copy(frame);
                }
                if (cp || g.confidence > 0.95) break;
            } else {
                last = e2;
            }
        }
        capture_close(src);
        if (bestc >= 0) {
            cal.grid = best;
            st = GS_OK;
        } else {
            err = last;
            st = last.status;
        }
    }
    if (st != GS_OK) {
        gs_image_destroy(shown);
        cli_error("%s: %s", source, err.msg);
        return gs_status_exit_code(st);
    }
    /* The colour model comes from reading the same frame on the found grid. */
    gs_error ce;
    snprintf(ce.msg, sizeof ce.msg, "no frame");
    if (shown) {
        vision_reading rd;
        if (vision_read(shown, &cal.grid, &rd, &ce) == GS_OK)
            calib_colour_measure(shown, &cal.grid, &rd, &cal.colour, &ce);
    }
    st = calib_save(&cal, outpath, &err);
    if (st != GS_OK) {
        gs_image_destroy(shown);
        cli_error("%s", err.msg);
        return GS_EXIT_ERROR;
    }
    if (overlay && shown) {
        draw_grid(shown, &cal.grid);
        if (gs_image_write_png(shown, overlay, &err) != GS_OK) {
            gs_image_destroy(shown);
            cli_error("%s: %s", overlay, err.msg);
            return GS_EXIT_ERROR;
        }
    }
    gs_image_destroy(shown);
    /* One summary line (scripts/eval_grid.sh reads it): the fit residual is
     * the 90th percentile distance, in cells, from the grid to the dark
     * lines near it. */
    printf("board %dx%d corners %.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f confidence %.2f residual %.3f time %.1f ms cpu %.1f ms: "
           "written to %s\n",
           cal.grid.size, cal.grid.size, cal.grid.corners[0][0], cal.grid.corners[0][1], cal.grid.corners[1][0],
           cal.grid.corners[1][1], cal.grid.corners[2][0], cal.grid.corners[2][1], cal.grid.corners[3][0],
           cal.grid.corners[3][1], cal.grid.confidence, fit.resid_p90, ms[0], ms[1], outpath);
    if (cal.colour.valid)
        printf("colour model saved: wood L %.0f, black L %.0f, white L %.0f\n", cal.colour.board[0], cal.colour.black[0],
               cal.colour.white[0]);
    else
        printf("colour model not saved: %s\n", ce.msg);
    return GS_EXIT_OK;
}
