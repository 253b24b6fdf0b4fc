/* calib/make.c: a calibration made from a source (calib.h, calib_make): the
 * board's grid found in a photo, or the surest grid over the first frames
 * of a video, photo folder or camera; the colour model read on the same
 * frame; the file written; the grid drawn over the frame on request. */
#include "calib/calib.h"

#include "capture/capture.h"
#include "cvshim/cvshim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

void calib_make_options_init(calib_make_options *o)
{
    memset(o, 0, sizeof *o);
    o->frames = 30;
}

static bool is_photo_name(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (!dot) return false;
    static const char *ext[] = {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp", ".pgm", ".ppm"};
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++)
        if (strcasecmp(dot, ext[i]) == 0) return true;
    return false;
}

/* Draws the grid (green, a square brush img->width / 800 pixels from the
 * line, as wide on both sides) and corner 0 (a red square) onto img. */
static void draw_grid(gs_image *img, const vision_grid *g)
{
    /* A grey image gets black lines (the mean of the colour would be a
     * dark grey) and no corner mark. */
    gs_bgr line = img->channels == 3 ? (gs_bgr){0, 255, 0} : (gs_bgr){0, 0, 0};
    int r = img->width / 800;
    vision_grid_draw(img, g, 16, r, line);
    if (img->channels != 3) return;
    gs_draw_square(img, trunc(g->corners[0][0]), trunc(g->corners[0][1]), 3 * r + 3, (gs_bgr){0, 0, 255}, 1.0);
}

/* Fits the grid of one frame: from the given corners or by board finding
 * (a photo's search, wider look included, on the frame as it is: the
 * colour model is measured on it); *fit gets the board finder's
 * diagnostics and ms its time (wall, CPU). */
static gs_status grid_of(const gs_image *img, const calib_make_options *o, vision_grid *g, vision_grid_find_info *fit,
                         double ms[2], gs_error *err)
{
    memset(fit, 0, sizeof *fit);
    double t0 = gs_now_ms();
    clock_t c0 = clock();
    gs_status s;
    if (o->corners) {
        s = vision_grid_from_corners(g, o->size ? o->size : 19, o->corners, err);
    } else {
        static const vision_looks search = {.wider = 1};
        const vision_request rq = {.size_hint = o->size, .find_only = 1, .looks = &search};
        vision_detector *d = vision_detector_create(NULL);
        vision_result *found = malloc(sizeof *found);
        s = d && found ? vision_detect_photo(d, img, &rq, found, err) : gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        if (d && found) {
            *g = found->grid;
            *fit = found->info;
        }
        free(found);
        vision_detector_destroy(d);
    }
    ms[0] = gs_now_ms() - t0;
    ms[1] = (double)(clock() - c0) * 1000.0 / CLOCKS_PER_SEC; /* CPU time, all threads */
    return s;
}

/* The surest grid over the first o->frames frames of src (a hand or a bad
 * frame must not spoil the calibration); a copy of its frame in *shown.
 * With corners the first frame decides. */
static gs_status best_grid_of_source(capture_source *src, const calib_make_options *o, calib_make_result *out,
                                     gs_image **shown, gs_error *err)
{
    vision_grid best;
    double bestc = -1;
    gs_error last = {0};
    gs_error_set(&last, GS_ERR_NOBOARD, "no frame to look at");
    for (long n = 0; n < o->frames; n++) {
        const gs_image *frame = NULL;
        capture_info info;
        capture_result r = capture_read(src, &frame, &info);
        if (r == CAPTURE_END) break;
        if (r == CAPTURE_LOST) continue;
        if (r != CAPTURE_FRAME) {
            gs_error_set(&last, GS_ERR_IO, "%s", capture_last_error(src));
            break;
        }
        vision_grid g;
        gs_error e2;
        vision_grid_find_info f2;
        double ms2[2];
        if (grid_of(frame, o, &g, &f2, ms2, &e2) != GS_OK) {
            last = e2;
            continue;
        }
        if (g.confidence > bestc) {
            out->fit = f2;
            out->ms = ms2[0];
            out->cpu_ms = ms2[1];
            bestc = g.confidence;
            best = g;
            out->cal.image_width = frame->width;
            out->cal.image_height = frame->height;
            gs_image_destroy(*shown);
            *shown = gs_image_copy(frame); /* NULL (no memory): no colour model, no overlay */
        }
        if (o->corners || g.confidence > 0.95) break;
    }
    if (bestc < 0) {
        if (err) *err = last;
        return last.status;
    }
    out->cal.grid = best;
    return GS_OK;
}

/* The grid of o->source (a photo, or any regular file that decodes as one;
 * else a capture source) into out; the frame it came from in *shown. */
static gs_status find_grid(const calib_make_options *o, calib_make_result *out, gs_image **shown, gs_error *err)
{
    gs_image *img = NULL;
    struct stat sb;
    capture_spec_shown(o->source, out->source_shown, sizeof out->source_shown);
    if (is_photo_name(o->source) && !capture_spec_is_network(o->source)) { /* a URL is a stream, whatever its end */
        img = cvshim_image_load_max(o->source, o->max_pixels, err);
        if (!img) return err ? err->status : GS_ERR_IO;
    } else if (stat(o->source, &sb) == 0 && S_ISREG(sb.st_mode)) {
        img = cvshim_image_load_max(o->source, o->max_pixels, NULL); /* not a photo: try it as a video below */
    }
    if (img) {
        *shown = img;
        out->cal.image_width = img->width;
        out->cal.image_height = img->height;
        double ms[2];
        out->error_file = out->source_shown;
        gs_status st = grid_of(img, o, &out->cal.grid, &out->fit, ms, err);
        out->ms = ms[0];
        out->cpu_ms = ms[1];
        return st;
    }
    capture_options co = {.max_pixels = o->max_pixels};
    capture_source *src = capture_open(o->source, &co, err);
    if (!src) return err ? err->status : GS_ERR_IO;
    out->error_file = out->source_shown;
    gs_status st = best_grid_of_source(src, o, out, shown, err);
    capture_close(src);
    return st;
}

gs_status calib_make(const calib_make_options *o, calib_make_result *out, gs_error *err)
{
    memset(out, 0, sizeof *out);
    calib_init(&out->cal);
    if (!o || !o->source || !o->out_path) return gs_error_set(err, GS_ERR_USAGE, "calibrate: no source or no output");
    gs_image *shown = NULL; /* the frame the grid came from */
    gs_status st = find_grid(o, out, &shown, err);
    /* what is written must read back: given corners can be anything */
    if (st == GS_OK) st = calib_grid_check(&out->cal.grid, out->cal.image_width, out->cal.image_height, true, err);
    if (st != GS_OK) {
        gs_image_destroy(shown);
        return st;
    }
    out->error_file = NULL;
    /* The colour model comes from reading the same frame on the found
     * grid; without it the file is still a calibration (the reason kept). */
    snprintf(out->colour_why.msg, sizeof out->colour_why.msg, "no frame");
    if (shown) {
        /* a plain reading (a frame's: none of a photo's looks) */
        vision_detector *d = vision_detector_create(NULL);
        vision_result *rd = malloc(sizeof *rd);
        const vision_request rq = {.grid = &out->cal.grid};
        if (!d || !rd) gs_error_set(&out->colour_why, GS_ERR_NOMEM, "out of memory");
        else if (vision_detect_frame(d, shown, &rq, rd, &out->colour_why) == GS_OK)
            (void)calib_colour_measure(shown, &out->cal.grid, &rd->reading, &out->cal.colour, &out->colour_why);
        free(rd);
        vision_detector_destroy(d);
    }
    st = calib_save(&out->cal, o->out_path, err);
    if (st == GS_OK && o->overlay_path && shown) {
        draw_grid(shown, &out->cal.grid);
        st = gs_image_write_png(shown, o->overlay_path, err);
        if (st != GS_OK) out->error_file = o->overlay_path;
    }
    gs_image_destroy(shown);
    return st;
}
