/* calib/calib.h: a board's grid found once and kept: the calibration
 * file ("board.cal").
 *
 * calib_make finds the board in a source (a photo, or the surest of the
 * first frames of a video, photo folder or camera: capture/ and vision/),
 * reads the colour model on the same frame and writes the file; `scan`
 * and `record` start from it (--calibration FILE, calib_load) instead of
 * finding the board again.  A plain text file, one "key values"
 * line each, '#' starts a comment, unknown keys are ignored (so later
 * versions can add fields):
 *
 *   goscribe-calibration 1
 *   image 1280 720                 # width height of the source frames
 *   size 19
 *   corners x0 y0 x1 y1 x2 y2 x3 y3   # outer intersections, vision_grid order
 *   homography h0 .. h8            # board (u,v,1) -> image, row-major
 *   distortion k1 cx cy norm       # see vision_grid_map
 *   cell_aspect 1.04
 *   confidence 0.93
 *   colour_board L a b             # board wood (Lab, 0..255 OpenCV scale)
 *   colour_black L a b             # stone colours; present when has_colour
 *   colour_white L a b
 *   colour_threshold black white   # lightness midway between the wood and
 *                                  # each stone colour (same L scale)
 *
 * The colour section belongs to the reader (vision/); the grid
 * section to the board finder.  calib_data is plain data, copy freely.
 */
#ifndef CALIB_H
#define CALIB_H

#include "core/gs.h"
#include "vision/vision.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Colour model filled by the reading stage; all in OpenCV 8-bit Lab. */
typedef struct calib_colour {
    int valid;              /* 0 = no colour model saved */
    double board[3];        /* wood colour */
    double black[3];        /* black stone colour */
    double white[3];        /* white stone colour */
    double threshold[2];    /* reader-defined thresholds (black, white) */
} calib_colour;

typedef struct calib_data {
    int image_width, image_height;  /* frame size the grid refers to (0 = unknown) */
    vision_grid grid;               /* size, corners, H, k1/cx/cy/norm, cell_aspect, confidence */
    calib_colour colour;
} calib_data;

/* Zeroes c (no grid, no colour). */
void calib_init(calib_data *c);

/* Writes c to path in the format above. GS_ERR_IO when it cannot write. */
gs_status calib_save(const calib_data *c, const char *path, gs_error *err);

/* Reads path into c. GS_ERR_IO for a missing/unreadable file,
 * GS_ERR_FORMAT with "line N: problem" for a malformed line, or the
 * problem calib_grid_check finds with the grid as a whole. The grid's H is
 * recomputed from corners when the homography line is absent. */
gs_status calib_load(calib_data *c, const char *path, gs_error *err);

/* Parses the text of a calibration file (same rules as calib_load). */
gs_status calib_parse(calib_data *c, const char *text, gs_error *err);

/* Checks that g is a grid a camera can have given, for frames of width x
 * height (0 x 0 = unknown): board size 5..GS_MAX_SIZE; every number
 * finite; the board and a margin of 2 cells around it mapped by H to one
 * side of the horizon and within a million pixels; a lens model whose
 * scale stays positive and bounded there, with a radius of a pixel or
 * more; corners in range (not far outside the image when its size is
 * known) with cells of 2 pixels or more; with check_corner_match, H (and
 * the lens) putting the outer intersections on the stored corners within
 * a tenth of a cell; cell aspect and confidence in range.  After it, no
 * point the reading or the tracker samples can overflow a conversion to
 * int.  GS_ERR_FORMAT with a one-line reason. */
gs_status calib_grid_check(const vision_grid *g, int width, int height, bool check_corner_match, gs_error *err);

/* Formats c into a malloc'd string; the caller frees it. NULL on no memory. */
char *calib_format(const calib_data *c);

/* Measures the colour model from a photo, its grid and the reading of it:
 * the mean colour of the wood at cell centres between four empty points,
 * and of the confidently read black and white stones (a disc of a quarter
 * cell), in OpenCV 8-bit Lab.  GS_ERR_NOBOARD (out->valid = 0) when the photo
 * shows no wood or no stone of a colour, so an empty board saves no model. */
gs_status calib_colour_measure(const gs_image *img, const vision_grid *g, const vision_reading *rd,
                               calib_colour *out, gs_error *err);

/* Adapts a calibration made on frames of one size to frames of another
 * (scales the grid); no-op when the sizes match or are unknown.  The
 * scaled grid is checked again (calib_grid_check): GS_ERR_FORMAT, c left
 * as it was, when it no longer fits (a calibration of a thumbnail used on
 * a huge frame). */
gs_status calib_scale_to(calib_data *c, int width, int height, gs_error *err);

/* ---- a calibration made from a source (`goscribe calibrate`) ---- */

typedef struct calib_make_options {
    const char *source;          /* a photo, a video file, a folder of photos
                                    or a camera (capture_open) */
    const char *out_path;        /* the calibration file written */
    int size;                    /* board size, 0 = detect (19 with corners) */
    const double (*corners)[2];  /* NULL = find the board; else the four
                                    outer intersections (vision_grid order) */
    long frames;                 /* video/camera/folder: look at up to this
                                    many frames, keep the surest grid */
    const char *overlay_path;    /* PNG of that frame with the grid drawn
                                    (green, corner 0 red); NULL = none */
    long long max_pixels;        /* pixel budget of a photo or frame
                                    (0 = cvshim_max_pixels(0)) */
} calib_make_options;

/* Defaults: 30 frames, size detected, no corners, no overlay. */
void calib_make_options_init(calib_make_options *o);

typedef struct calib_make_result {
    calib_data cal;              /* what was written */
    vision_grid_find_info fit;   /* the board finder's diagnostics of that
                                    grid (zeros with corners) */
    double ms, cpu_ms;           /* time of that grid's fit: wall, and CPU
                                    of all threads */
    gs_error colour_why;         /* why cal.colour is not valid */
    const char *error_file;      /* on failure: the file err is about (to
                                    print before it), or NULL */
    char source_shown[512];      /* o->source as it may be shown
                                    (capture_spec_shown: a URL's
                                    credentials hidden) */
} calib_make_result;

/* Finds the grid in o->source, measures the colour model on the same frame
 * (none when the frame shows no wood or no stone of a colour: the file is
 * written without it, colour_why says why), writes o->out_path and the
 * overlay.  GS_ERR_NOBOARD when no frame shows a board; GS_ERR_IO /
 * GS_ERR_FORMAT / GS_ERR_NOMEM for the source and the files. */
gs_status calib_make(const calib_make_options *o, calib_make_result *out, gs_error *err);

#ifdef __cplusplus
}
#endif
#endif
