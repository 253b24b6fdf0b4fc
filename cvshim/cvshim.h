/* cvshim/cvshim.h: the one door to OpenCV 4 (whose C API is gone).
 *
 * Task-level entry points only ("decode this photo", "open this video",
 * "find the board", "warp"), never "give me a Mat".  Every entry catches
 * C++ exceptions and reports them as an error string or NULL, so no
 * exception ever crosses into C.  Sections are owned by the modules that use
 * them: images/video here, board finding below (vision/), video writing
 * (samples/).
 */
#ifndef CVSHIM_H
#define CVSHIM_H

#include "core/gs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- pixel budget ---- */

/* Every photo and video frame is decoded under a pixel budget, so a small
 * file that declares a huge image (a 1.2 MB PNG of 20000 x 20000 would take
 * 2.4 GB) is refused with one line before any pixel memory is taken.  The
 * default is 50 megapixels (a 50 MP camera's photo; a 4K frame is 8.3). */
#define CVSHIM_MAX_PIXELS_DEFAULT 50000000LL

/* The budget in force: requested when > 0, else GOSCRIBE_MAX_PIXELS from
 * the environment when it holds a positive whole number, else the default. */
long long cvshim_max_pixels(long long requested);

/* The width and height an encoded image declares in its header (PNG IHDR,
 * JPEG SOF, BMP, TIFF's first page, WebP, PNM/PAM/PFM, Sun raster, Radiance
 * HDR), read without decoding.  0 with *w, *h; -1 when the format is none of
 * these or its header is broken or gives no size.  *format (may be NULL) is
 * the format's name ("unknown" when none matched). */
int cvshim_image_header_size(const uint8_t *data, size_t len, int *w, int *h, const char **format);

/* 0 when the encoded image's header declares a size within the budget
 * max_pixels (<= 0: cvshim_max_pixels(0)); -1 with a one-line message in
 * err when it declares more or cannot be sized. */
int cvshim_image_check_budget(const uint8_t *data, size_t len, long long max_pixels, char *err, size_t errlen);

/* 0 unless the encoded image is a JPEG or PNG cut short: a JPEG's data
 * ending before its end-of-image marker (libjpeg would decode it with the
 * rest grey and no error), a PNG's chunks before IEND; then -1 with a
 * one-line message in err.  Other formats: 0 (their decoders refuse a
 * cut file themselves). */
int cvshim_image_check_complete(const uint8_t *data, size_t len, char *err, size_t errlen);

/* ---- images ---- */

/* Loads a photo (JPEG, PNG, BMP, ... via OpenCV; EXIF orientation ignored:
 * rows follow the stored pixels, as the ground-truth grids do)
 * as 3-channel BGR, under the default pixel budget. Returns NULL and fills
 * err on failure: a missing file is GS_ERR_IO, an empty, undecodable or
 * over-budget one GS_ERR_FORMAT.  Caller frees. */
gs_image *cvshim_image_load(const char *path, gs_error *err);

/* The same under the pixel budget max_pixels (<= 0: cvshim_max_pixels(0)):
 * the header is read and the size checked before anything is decoded. */
gs_image *cvshim_image_load_max(const char *path, long long max_pixels, gs_error *err);

/* Decodes an image file to 3-channel BGR (EXIF orientation ignored, see
 * cvshim_image_load; default pixel budget).
 * NULL with a message in err on failure; caller frees with gs_image_destroy. */
gs_image *cvshim_image_read(const char *path, char *err, size_t errlen);

/* Decodes an in-memory encoded image (JPEG/PNG/...) under the default
 * pixel budget. Same contract as above. */
gs_image *cvshim_image_decode(const uint8_t *data, size_t len, char *err, size_t errlen);
/* The same under the pixel budget max_pixels (<= 0: the default). */
gs_image *cvshim_image_decode_max(const uint8_t *data, size_t len, long long max_pixels, char *err, size_t errlen);

/* Encodes img as JPEG (quality 1..100) into a malloc'd buffer; the caller
 * frees *out. Returns 0 on success, -1 on failure. */
int cvshim_image_encode_jpeg(const gs_image *img, int quality, uint8_t **out, size_t *outlen);

/* Resizes src into a new image of w x h (area averaging when shrinking);
 * caller frees. NULL on failure. */
gs_image *cvshim_image_resize(const gs_image *src, int w, int h);

/* A copy of src with every channel times gain (rounded, at most 255), as a
 * longer exposure gives; caller frees. NULL on failure. */
gs_image *cvshim_image_scaled(const gs_image *src, double gain);

/* ---- video reading ---- */

typedef struct cvshim_video cvshim_video;

/* Opens a video file for reading. NULL with a message in err on failure.
 * The caller closes it with cvshim_video_close (NULL is safe).  FFmpeg's
 * own messages about broken frames are silenced (OPENCV_FFMPEG_LOGLEVEL,
 * unless the environment sets it): the caller reports skipped frames. */
cvshim_video *cvshim_video_open(const char *path, char *err, size_t errlen);
/* Decodes the next frame into *frame (reallocated as needed; the caller
 * owns it and frees it with gs_image_destroy) and its timestamp in ms
 * (the container's presentation time, from 0).
 * Returns 1 on a frame, 0 when no frame was decoded, -1 on error.  0 is
 * both the end of the file and a frame that cannot be decoded (OpenCV
 * cannot tell them apart): the next call goes on after a broken frame, so
 * the caller compares with cvshim_video_frame_count to know which. */
int cvshim_video_read(cvshim_video *v, gs_image **frame, double *t_ms);
/* Frames per second the container claims (0 when unknown), frame count
 * (-1 when unknown). */
double cvshim_video_fps(const cvshim_video *v);
long cvshim_video_frame_count(const cvshim_video *v);
/* The frame size the container declares (0 x 0 when unknown), known
 * before any frame is decoded. */
void cvshim_video_size(const cvshim_video *v, int *width, int *height);
/* Frames of more than max_pixels (<= 0: the default budget) are not
 * copied out: cvshim_video_read returns 0 for them, as for a broken frame.
 * (FFmpeg has decoded such a frame by then; the container's declared size
 * is the check to make before reading.) */
void cvshim_video_set_max_pixels(cvshim_video *v, long long max_pixels);
void cvshim_video_close(cvshim_video *v);

/* ---- video writing ---- */

typedef struct cvshim_writer cvshim_writer;

/* Opens a video file for writing; the codec follows the extension (.mp4:
 * H.264 if the platform's encoder has it, else MPEG-4 part 2; .avi: MJPG).
 * NULL with a message on failure. Close with cvshim_writer_close. */
cvshim_writer *cvshim_writer_open(const char *path, int width, int height, double fps, char *err, size_t errlen);
/* Appends one BGR frame of the size given at open. 0 on success, -1 on error. */
int cvshim_writer_write(cvshim_writer *w, const gs_image *frame);
/* Finishes the file. NULL is safe. Returns 0 on success. */
int cvshim_writer_close(cvshim_writer *w);

/* ---- board finding (vision/) ---- */
/* (added by the vision module) */

/* -- grid finding (vision/grid_find.c) -- */

/* A straight line piece found in an image, in the coordinates of the
 * working image that cvshim_board_lines returns. */
typedef struct cvshim_segment { float x1, y1, x2, y2; } cvshim_segment;

/* Prepares an image for grid finding: shrinks it so its longest side is at
 * most max_side (no enlarging; *scale = working / original), and computes a
 * thin-dark-line response (morphological black-hat of the grey image, so
 * dark lines thinner than a few pixels light up while stones, wood edges
 * and shading do not).  Fills *response (caller frees with gs_image_destroy;
 * 1 channel, working size), *grey likewise (the working grey image), and
 * *segs (malloc'd, caller frees) with the line pieces found on the
 * binarised response by a probabilistic Hough transform, *nsegs their
 * number.  Returns 0 on success, -1 with a message in err. */
int cvshim_board_lines(const gs_image *img, int max_side, double *scale, gs_image **response, gs_image **grey,
                       cvshim_segment **segs, int *nsegs, char *err, size_t errlen);

/* The colours of the working image of cvshim_board_lines, in CIE Lab as
 * OpenCV stores it in 8 bits (L * 255 / 100, a + 128, b + 128): the photo
 * shrunk by `scale` (the *scale that cvshim_board_lines returned, so the
 * pixels match its response), and its morphological closing by the same
 * 7-px square that makes that response: the colour of the surface under
 * thin dark lines (the wood under a grid line).  Both 3-channel, caller
 * frees.  Returns 0, or -1 with a message in err. */
int cvshim_board_colours(const gs_image *img, double scale, gs_image **lab, gs_image **surface, char *err,
                         size_t errlen);

/* The straight pieces of a binary map (pixels != 0 set), by the
 * probabilistic Hough transform: pieces at least minlen pixels long, gaps
 * up to maxgap bridged.  *segs malloc'd (caller frees), *nsegs their number.
 * Returns 0, or -1 with a message in err. */
int cvshim_map_segments(const gs_image *map, int minlen, int maxgap, cvshim_segment **segs, int *nsegs, char *err,
                        size_t errlen);

/* ---- following a drifting board (track/tracker.c) ---- */

/* How far the board moved since a reference, measured on n small square
 * grey patches (e.g. around the board's corners): ref and cur each hold n
 * patches of side x side pixels stacked top to bottom (1 channel, width
 * side, height n*side; side a power of two is fastest), patch i of cur cut
 * from the same place relative to where the caller expects it.  For each
 * patch, shift[i] is how far ref's content lies moved in cur (cur(p) ~
 * ref(p - shift)), in patch pixels, by phase correlation under a Hann
 * window, and peak[i] how clear that match is (about 0..1: near 1 for the
 * same picture moved, low when a hand covers the patch or the content
 * changed).  Returns 0, or -1 with a message in err. */
int cvshim_patch_shifts(const gs_image *ref, const gs_image *cur, int side, int n, double (*shift)[2], double *peak,
                        char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
