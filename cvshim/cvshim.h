/* cvshim/cvshim.h: the one door to OpenCV 4 (whose C API is gone).
 *
 * Task-level entry points only ("decode this photo", "open this video",
 * "find the board's lines"), never "give me a Mat".  Every entry catches
 * C++ exceptions, so no exception ever crosses into C.
 *
 * One error convention, the project's: a failing call fills the gs_error
 * it is given (may be NULL) with a status and one line, and returns NULL,
 * or a gs_status (GS_OK = 0), or -1 where the header says so.
 *
 * Sections, each with the folder that uses it:
 *   pixel budget and image headers   capture/, cli/ (every decode)
 *   codecs                           capture/, cli/, broadcast/, samples/
 *   video reading                    capture/
 *   video writing                    samples/, tests
 *   board lines                      vision/ (the board finder)
 *   phase correlation                track/ (a drifting board)
 *   the point model                  vision/ (a small net run by OpenCV's dnn)
 */
#ifndef CVSHIM_H
#define CVSHIM_H

#include "core/gs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================ pixel budget and image headers */

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

/* GS_OK when the encoded image's header declares a size within the budget
 * max_pixels (<= 0: cvshim_max_pixels(0)); GS_ERR_FORMAT when it declares
 * more or cannot be sized. */
gs_status cvshim_image_check_budget(const uint8_t *data, size_t len, long long max_pixels, gs_error *err);

/* GS_OK unless the encoded image is a JPEG or PNG cut short: a JPEG's data
 * ending before its end-of-image marker (libjpeg would decode it with the
 * rest grey and no error), a PNG's chunks before IEND; then GS_ERR_FORMAT.
 * Other formats: GS_OK (their decoders refuse a cut file themselves). */
gs_status cvshim_image_check_complete(const uint8_t *data, size_t len, gs_error *err);

/* The EXIF orientation of an encoded image (JPEG's APP1 "Exif" block, tag
 * 0x0112): 1 as stored, 2 mirrored, 3 turned 180 degrees, 4 upside down
 * mirrored, 5 transposed, 6 turned 90 degrees clockwise to display, 7
 * transversed, 8 turned 90 degrees anticlockwise; 1 when there is none. */
int cvshim_image_orientation(const uint8_t *data, size_t len);

/* ============================================================== codecs */

/* How a photo is decoded (zero = the defaults: the pixel budget, the
 * photo as it is displayed, full size). */
typedef struct cvshim_decode {
    long long max_pixels; /* <= 0: cvshim_max_pixels(0) */
    int stored;           /* 1: the pixels as stored, the EXIF orientation not applied */
    int reduce;           /* 2, 4 or 8: decoded at that fraction of each side (a
                             JPEG by libjpeg's DCT scaling, far faster than the
                             whole; other formats shrunk); 0 or 1: full size */
    int min_side;         /* with reduce 0: the largest reduction that keeps the
                             longest side at least this long (0: full size) */
} cvshim_decode;

/* What a decode did: the EXIF orientation applied (1 when none was, or
 * `stored` was asked), the reduction, and the displayed photo's full size
 * (what --corners pixels and JSON coordinates refer to). */
typedef struct cvshim_decoded {
    int orientation, reduce;
    int full_width, full_height;
} cvshim_decoded;

/* Loads a photo as cvshim_image_load does, decoded as `how` says (NULL: the
 * defaults); *done (may be NULL) says what was done. */
gs_image *cvshim_image_load_as(const char *path, const cvshim_decode *how, cvshim_decoded *done, gs_error *err);
/* Decodes an in-memory encoded image likewise. */
gs_image *cvshim_image_decode_as(const uint8_t *data, size_t len, const cvshim_decode *how, cvshim_decoded *done,
                                 gs_error *err);


/* Loads a photo (JPEG, PNG, BMP, ... via OpenCV) as it is displayed (its
 * EXIF orientation applied: rows follow what the user sees) as 3-channel
 * BGR, under the default pixel budget. Returns NULL and fills
 * err on failure: a missing file is GS_ERR_IO, an empty, undecodable or
 * over-budget one GS_ERR_FORMAT.  Caller frees. */
gs_image *cvshim_image_load(const char *path, gs_error *err);

/* The same under the pixel budget max_pixels (<= 0: cvshim_max_pixels(0)):
 * the header is read and the size checked before anything is decoded. */
gs_image *cvshim_image_load_max(const char *path, long long max_pixels, gs_error *err);

/* Decodes an in-memory encoded image (JPEG/PNG/...) to 3-channel BGR
 * (its EXIF orientation applied) under the default pixel budget; NULL with
 * GS_ERR_FORMAT (GS_ERR_NOMEM) in err on failure; caller frees. */
gs_image *cvshim_image_decode(const uint8_t *data, size_t len, gs_error *err);
/* The same under the pixel budget max_pixels (<= 0: the default). */
gs_image *cvshim_image_decode_max(const uint8_t *data, size_t len, long long max_pixels, gs_error *err);

/* Encodes img as JPEG (quality 1..100) into a malloc'd buffer; the caller
 * frees *out. Returns 0 on success, -1 on failure. */
int cvshim_image_encode_jpeg(const gs_image *img, int quality, uint8_t **out, size_t *outlen);

/* Resizes src into a new image of w x h (area averaging when shrinking);
 * caller frees. NULL on failure. */
gs_image *cvshim_image_resize(const gs_image *src, int w, int h);

/* A copy of src with every channel times gain (rounded, at most 255), as a
 * longer exposure gives; caller frees. NULL on failure. */
gs_image *cvshim_image_scaled(const gs_image *src, double gain);

/* ======================================================= video reading */

typedef struct cvshim_video cvshim_video;

/* Opens a video file for reading. NULL with GS_ERR_IO in err on failure.
 * The caller closes it with cvshim_video_close (NULL is safe).  FFmpeg's
 * own messages about broken frames are silenced (OPENCV_FFMPEG_LOGLEVEL,
 * unless the environment sets it): the caller reports skipped frames. */
cvshim_video *cvshim_video_open(const char *path, gs_error *err);
/* Opens a network stream FFmpeg reads (http(s):// MJPEG or other
 * streams, rtsp://, ...) for reading, waiting at most open_timeout_ms for
 * it to answer and later at most read_timeout_ms for each frame (OpenCV's
 * CAP_PROP_OPEN_TIMEOUT_MSEC / READ_TIMEOUT_MSEC).  NULL with GS_ERR_IO in
 * err on failure; the message never holds the URL (it may carry
 * credentials).  Read and close it as a video; its timestamps
 * (cvshim_video_read's t_ms) are the stream's own, from its first frame,
 * or outside 0..1e12 when it carries none (MJPEG over HTTP). */
cvshim_video *cvshim_stream_open(const char *url, int open_timeout_ms, int read_timeout_ms, gs_error *err);
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

/* ======================================================= video writing */

typedef struct cvshim_writer cvshim_writer;

/* Opens a video file for writing; the codec follows the extension (.mp4:
 * H.264 if the platform's encoder has it, else MPEG-4 part 2; .avi: MJPG).
 * NULL with GS_ERR_IO in err on failure. Close with cvshim_writer_close. */
cvshim_writer *cvshim_writer_open(const char *path, int width, int height, double fps, gs_error *err);
/* Appends one BGR frame of the size given at open. 0 on success, -1 on error. */
int cvshim_writer_write(cvshim_writer *w, const gs_image *frame);
/* Finishes the file. NULL is safe. Returns 0 on success. */
int cvshim_writer_close(cvshim_writer *w);

/* ========================================== board lines (vision/ finder) */

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
 * number.  GS_OK, or GS_ERR_INTERNAL / GS_ERR_NOMEM in err. */
gs_status cvshim_board_lines(const gs_image *img, int max_side, double *scale, gs_image **response, gs_image **grey,
                             cvshim_segment **segs, int *nsegs, gs_error *err);

/* The straight pieces of a binary map (pixels != 0 set), by the
 * probabilistic Hough transform: pieces at least minlen pixels long, gaps
 * up to maxgap bridged.  *segs malloc'd (caller frees), *nsegs their number.
 * GS_OK, or GS_ERR_INTERNAL / GS_ERR_NOMEM in err. */
gs_status cvshim_map_segments(const gs_image *map, int minlen, int maxgap, cvshim_segment **segs, int *nsegs,
                              gs_error *err);

/* ============================================ phase correlation (track/) */

/* How far the board moved since a reference, measured on n small square
 * grey patches (e.g. around the board's corners): ref and cur each hold n
 * patches of side x side pixels stacked top to bottom (1 channel, width
 * side, height n*side; side a power of two is fastest), patch i of cur cut
 * from the same place relative to where the caller expects it.  For each
 * patch, shift[i] is how far ref's content lies moved in cur (cur(p) ~
 * ref(p - shift)), in patch pixels, by phase correlation under a Hann
 * window, and peak[i] how clear that match is (about 0..1: near 1 for the
 * same picture moved, low when a hand covers the patch or the content
 * changed).  GS_OK, or GS_ERR_INTERNAL in err. */
gs_status cvshim_patch_shifts(const gs_image *ref, const gs_image *cur, int side, int n, double (*shift)[2],
                              double *peak, gs_error *err);

/* ==================================================== the point model (vision/) */

/* A small convolutional net (ONNX, run by OpenCV's dnn module on the CPU).
 * One net runs one input at a time: calls from several threads wait for
 * each other.  Ownership: the caller frees it with cvshim_net_free (NULL
 * is fine). */
typedef struct cvshim_net cvshim_net;

/* Loads the net from the bytes of an ONNX file (the caller keeps them).
 * NULL with GS_ERR_FORMAT (GS_ERR_NOMEM) in err. */
cvshim_net *cvshim_net_load(const uint8_t *onnx, size_t len, gs_error *err);
/* Runs the net on one input of c planes of h x w floats (planar, row-major)
 * and gives its output, *oc planes of *oh x *ow floats, in *out (malloc'd,
 * the caller frees).  GS_OK, or GS_ERR_INTERNAL / GS_ERR_NOMEM in err. */
gs_status cvshim_net_run(cvshim_net *n, const float *in, int c, int h, int w, float **out, int *oc, int *oh, int *ow,
                         gs_error *err);
void cvshim_net_free(cvshim_net *n);

#ifdef __cplusplus
}
#endif
#endif
