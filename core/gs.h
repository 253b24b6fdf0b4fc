/* core/gs.h: the basic types every module shares.
 *
 * Plain structs for data (image view, point, position), a status enum and an
 * error buffer for returning errors as values.  Stateful things (camera,
 * tracker, recorder) are opaque types in their own modules.
 *
 * Conventions (see doc/internals.md "Code conventions"):
 *  - one prefix per module (gs_ here, rules_, sgf_, vision_, capture_, ...);
 *  - functions that can fail return gs_status and, where given, fill a
 *    gs_error with one line naming the problem;
 *  - whoever "creates" frees with the matching destroy(); destroy(NULL) is safe.
 */
#ifndef GS_H
#define GS_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes returned by library functions. */
typedef enum gs_status {
    GS_OK = 0,
    GS_ERR_USAGE,    /* bad argument or option */
    GS_ERR_IO,       /* file missing, unreadable, unwritable, device gone */
    GS_ERR_FORMAT,   /* readable but malformed (broken image, bad SGF) */
    GS_ERR_NOBOARD,  /* input is fine but holds no board / no game */
    GS_ERR_NOMEM,
    GS_ERR_INTERNAL
} gs_status;

/* Process exit codes, one table for every subcommand (README "Exit codes"). */
/* 3: an answer that is not sure, the output saying what to check (scan:
 * points read with doubt, marked '?'; count, and record's count: a result
 * that a reading the doubt allows, a chain of unsettled life or an
 * unfinished game can change): a script must not take it as sure. */
enum { GS_EXIT_OK = 0, GS_EXIT_ERROR = 1, GS_EXIT_NOBOARD = 2, GS_EXIT_UNSURE = 3 };

/* Maps a status to the exit code above: NOBOARD -> 2, other errors -> 1. */
int gs_status_exit_code(gs_status s);

/* Human name of a status ("I/O error", ...), static storage. */
const char *gs_status_name(gs_status s);

/* One line of error detail, kept by whoever owns the failing operation. */
typedef struct gs_error {
    gs_status status;
    char msg[320];
} gs_error;

/* Sets err (if not NULL) to status and a printf-style message; returns status
 * so callers can write `return gs_error_set(err, GS_ERR_IO, "...")`. */
gs_status gs_error_set(gs_error *err, gs_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ------------------------------------------------------------------ image */

/* An image view: `channels` bytes per pixel (1 = grey, 3 = B,G,R as OpenCV
 * orders them), rows `stride` bytes apart.  A view does not own buf unless it
 * came from gs_image_create / cvshim_image_load. */
typedef struct gs_image {
    int width, height, stride, channels;
    uint8_t *buf;
} gs_image;

/* Allocates a zeroed image; the caller frees it with gs_image_destroy. */
gs_image *gs_image_create(int width, int height, int channels);
/* Frees an image made by gs_image_create / cvshim_image_load / gs_image_copy. */
void gs_image_destroy(gs_image *img);
/* Deep copy; caller frees. NULL on allocation failure. */
gs_image *gs_image_copy(const gs_image *img);

/* Writes img (1 or 3 channels, BGR) as PNG with libpng, atomically (see
 * gs_file_write_atomic: the old file or the whole new one, never a part). */
gs_status gs_image_write_png(const gs_image *img, const char *path, gs_error *err);
struct gs_buf;
/* The same PNG appended to out (a gs_buf, see below: the caller frees it),
 * for a writer that must know the size first or write it atomically. */
gs_status gs_image_encode_png(const gs_image *img, struct gs_buf *out, gs_error *err);

/* ---------------------------------------------------------- board points */

#define GS_MAX_SIZE 25  /* largest board any module handles */

typedef enum gs_color { GS_EMPTY = 0, GS_BLACK = 1, GS_WHITE = 2 } gs_color;

static inline gs_color gs_color_other(gs_color c) { return c == GS_BLACK ? GS_WHITE : c == GS_WHITE ? GS_BLACK : GS_EMPTY; }

/* An intersection: x = column from the left, y = row from the top, both
 * 0-based, as in SGF ("aa" is the top-left point). */
typedef struct gs_point { int8_t x, y; } gs_point;

/* A whole-board position as a camera or a record sees it: size x size cells,
 * row-major from the top-left. Plain data, copy freely. */
typedef struct gs_position {
    int size;
    uint8_t cell[GS_MAX_SIZE * GS_MAX_SIZE]; /* gs_color values */
} gs_position;

static inline gs_color gs_position_get(const gs_position *p, int x, int y) { return (gs_color)p->cell[y * p->size + x]; }
static inline void gs_position_set(gs_position *p, int x, int y, gs_color c) { p->cell[y * p->size + x] = (uint8_t)c; }

/* Empties p and sets its size (5..25). */
void gs_position_clear(gs_position *p, int size);

/* Parses the grid text format of ../shared/data/photos (NAME.txt): `size` lines
 * of `size` tokens `.` `B` `W` separated by spaces (X/O and +/- also taken for
 * hand-written boards; blank lines and leading/trailing spaces ignored). The
 * size is taken from the text.  GS_ERR_FORMAT with the line on error. */
gs_status gs_position_parse(gs_position *out, const char *text, gs_error *err);
/* The same, a token followed by '?' (`goscribe scan` marks a point read
 * with doubt so) setting marked[i] (row-major, size*size bytes); marked
 * NULL: a '?' is an error, as in gs_position_parse. */
gs_status gs_position_parse_marked(gs_position *out, uint8_t *marked, const char *text, gs_error *err);

/* Reads a grid file (see gs_position_parse); the message of an error
 * starts with the file's name. */
gs_status gs_position_load(gs_position *out, const char *path, gs_error *err);
/* The same with '?' marks (gs_position_parse_marked). */
gs_status gs_position_load_marked(gs_position *out, uint8_t *marked, const char *path, gs_error *err);

/* Writes the grid format into buf (size*size*2 + 1 bytes suffice). Returns
 * the number of bytes written, excluding the terminating NUL. */
size_t gs_position_format(const gs_position *p, char *buf, size_t buflen);

/* Counts the cells of one colour. */
int gs_position_count(const gs_position *p, gs_color c);

/* ------------------------------------------------------------------ moves */

/* One move of a game: a stone of `color` at `pt`, or a pass (pt {-1,-1}).
 * The one move type of every stage (rules, SGF, renderer). */
typedef struct gs_move {
    gs_color color;
    gs_point pt;
    bool pass;
} gs_move;

/* ------------------------------------------------------------ text buffer */

/* A growable NUL-terminated text buffer.  A failed allocation sticks
 * (`failed`), later appends do nothing, and the caller checks once at the
 * end (gs_buf_ok).  Start from `gs_buf b = {0};`; p is malloc'd: free it
 * with gs_buf_free or take it over. */
typedef struct gs_buf {
    char *p;
    size_t len, cap;
    bool failed;
} gs_buf;

void gs_buf_add(gs_buf *b, const char *s, size_t n);
void gs_buf_puts(gs_buf *b, const char *s);
void gs_buf_printf(gs_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline bool gs_buf_ok(const gs_buf *b) { return !b->failed; }
void gs_buf_free(gs_buf *b);

/* ------------------------------------------------------------------- JSON */

/* Appends s (NULL = "") as a JSON string literal with its quotes: quotes,
 * backslashes, control characters and '<' (so no "</script>" can close a
 * page that embeds it) escaped; UTF-8 passed through.  The one JSON string
 * writer of the program. */
void gs_json_str(gs_buf *b, const char *s);
/* The same, written to f. */
void gs_json_write_string(FILE *f, const char *s);

typedef enum gs_json_type {
    GS_JSON_NULL, GS_JSON_BOOL, GS_JSON_NUM, GS_JSON_STR, GS_JSON_ARR, GS_JSON_OBJ
} gs_json_type;

/* A parsed JSON value.  Arrays and objects hold `n` children in `kids`
 * (objects also `keys`).  The whole tree is freed by gs_json_free. */
typedef struct gs_json {
    gs_json_type type;
    bool b;
    double num;
    char *str;                 /* GS_JSON_STR, UTF-8, NUL-terminated */
    int n;
    struct gs_json **kids;
    char **keys;
} gs_json;

/* Parses exactly one JSON value (RFC 8259, depth <= 32).  NULL with
 * GS_ERR_FORMAT ("bad JSON at byte N: ...") in err on malformed input.
 * The caller frees the result with gs_json_free (NULL safe). */
gs_json *gs_json_parse(const char *text, size_t len, gs_error *err);
void gs_json_free(gs_json *j);
/* Member of an object (NULL if absent or j is not an object). */
const gs_json *gs_json_get(const gs_json *j, const char *key);
/* Typed member helpers with a default for absent / wrong type. */
const char *gs_json_get_str(const gs_json *j, const char *key, const char *dflt);
double gs_json_get_num(const gs_json *j, const char *key, double dflt);

/* ----------------------------------------------------------------- clocks */

/* Monotonic clock in milliseconds, for timing and settle windows. */
double gs_now_ms(void);
/* Wall clock, Unix time in milliseconds (times of play, rulings). */
int64_t gs_wall_ms(void);

/* ------------------------------------------------------------------ files */

/* Replaces the file at path with data, crash-safely: a temporary file
 * beside it (path.tmp-XXXXXX), fsync, rename, fsync of the directory.  At
 * every moment the file holds either the old or the new content.  On
 * failure (GS_ERR_IO with the reason, e.g. a full disk) the temporary file
 * is removed, the old file is untouched and errno holds the cause (ENOSPC
 * for a full disk), for callers that act on it. */
gs_status gs_file_write_atomic(const char *path, const void *data, size_t len, gs_error *err);
/* Removes temporary files a killed gs_file_write_atomic left beside path;
 * returns how many. */
int gs_file_remove_stale_temps(const char *path);
/* Reads a whole file of at most max_bytes into a malloc'd NUL-terminated
 * buffer (caller frees).  GS_ERR_IO when it cannot be read, GS_ERR_FORMAT
 * when it is larger than max_bytes. */
gs_status gs_file_read(const char *path, size_t max_bytes, char **out, size_t *len, gs_error *err);

/* ----------------------------------------------------- optional libraries */

/* Opens the first loadable library of a NULL-terminated list of sonames
 * (dlopen, RTLD_NOW | RTLD_LOCAL), so optional libraries (libmicrohttpd,
 * libmosquitto) are needed only by the features that use them.  NULL with
 * GS_ERR_IO "NAME not installed (Debian package PACKAGE)" in err when none
 * loads.  The caller closes it with gs_dl_close (NULL safe). */
void *gs_dl_open(const char *const *sonames, const char *name, const char *package, gs_error *err);
/* Copies the address of function `name` into the function-pointer variable
 * at fn_slot (slot_size = its sizeof); false when lib lacks it. */
bool gs_dl_fn(void *lib, const char *name, void *fn_slot, size_t slot_size);
void gs_dl_close(void *lib);

/* ------------------------------------------------------ radial lens model */

/* The one lens model (k1 radial distortion about (cx, cy), radius
 * normalised by norm): p' = c + (p - c)(1 + k1 r^2), r = |p - c| / norm
 * (vision_grid_map's model; with barrel distortion, r is held at the radius
 * where the model stops growing).  gs_lens_distort maps an ideal point to
 * the image, gs_lens_undistort inverts it (fixed-point iteration, well under
 * 0.01 px for the |k1| <= 0.5 the finder and renderer use).  k1 == 0 or
 * norm <= 0: no-op. */
void gs_lens_distort(double k1, double cx, double cy, double norm, double *x, double *y);
void gs_lens_undistort(double k1, double cx, double cy, double norm, double *x, double *y);

/* ----------------------------------------------------------------- pixels */

/* Brightness of a colour (B, G, R).  Two formulas, kept apart because
 * unifying them would move every threshold measured with the other:
 *  gs_luma     (B + 2G + R) / 4: the board finder's and the reader's
 *              (vision/: all its thresholds were measured with it);
 *  gs_luma601  0.114 B + 0.587 G + 0.299 R (ITU-R BT.601, as OpenCV's
 *              grey conversion): the margin stones of track/, measured
 *              with it.
 * (calib/'s Lab conversion uses the CIE Y of linear light: a colour space,
 * not a brightness of the photo's values.) */
static inline double gs_luma(double b, double g, double r) { return (b + 2 * g + r) / 4; }
static inline double gs_luma601(double b, double g, double r) { return 0.114 * b + 0.587 * g + 0.299 * r; }

/* Samplers of an image at (x, y) pixels (pixel centres on integers), named
 * by what they give; each answers 0 / false outside the image.  Inline:
 * the board finder and the reader take millions of samples.
 *  gs_pixel_nearest  the nearest pixel's B, G, R (a grey image's value
 *                    three times): x + 0.5 truncated is lround(x) wherever
 *                    the pixel is in the image, without a libm call (NaN
 *                    falls outside);
 *  gs_sample_grey    bilinear value of a 1-channel image (0 outside);
 *  gs_sample_bgr     bilinear B, G, R (a grey image's value three times). */
typedef struct gs_pix { int b, g, r; } gs_pix;
static inline bool gs_pixel_nearest(const gs_image *img, double x, double y, gs_pix *p)
{
    double xr = x + 0.5, yr = y + 0.5;
    if (!(xr > 0 && yr > 0 && xr < img->width && yr < img->height)) return false;
    int ix = (int)xr, iy = (int)yr;
    const uint8_t *q = img->buf + (size_t)iy * img->stride + (size_t)ix * img->channels;
    if (img->channels == 1) { p->b = p->g = p->r = q[0]; }
    else { p->b = q[0]; p->g = q[1]; p->r = q[2]; }
    return true;
}
static inline double gs_sample_grey(const gs_image *im, double x, double y)
{
    if (x < 0 || y < 0 || x >= im->width - 1 || y >= im->height - 1) return 0;
    int ix = (int)x, iy = (int)y;
    double fx = x - ix, fy = y - iy;
    const uint8_t *p = im->buf + (size_t)iy * im->stride + ix;
    return (1 - fy) * ((1 - fx) * p[0] + fx * p[1]) + fy * ((1 - fx) * p[im->stride] + fx * p[im->stride + 1]);
}
/* The mean B, G, R (integer, truncated) of the 3 x 3 pixels round pixel
 * (x, y); false when they are not all in the image.  A box mean, not a
 * sample between pixels: the hands test of track/ compares views by it. */
bool gs_box_mean3(const gs_image *img, int x, int y, int out[3]);
static inline bool gs_sample_bgr(const gs_image *img, double x, double y, float o[3])
{
    if (x < 0 || y < 0 || x >= img->width - 1 || y >= img->height - 1) return false;
    int ix = (int)x, iy = (int)y, ch = img->channels;
    double fx = x - ix, fy = y - iy;
    const uint8_t *p = img->buf + (size_t)iy * img->stride + (size_t)ix * ch, *q = p + img->stride;
    for (int c = 0; c < 3; c++) {
        int k = ch == 1 ? 0 : c;
        o[c] = (float)((1 - fy) * ((1 - fx) * p[k] + fx * p[k + ch]) + fy * ((1 - fx) * q[k] + fx * q[k + ch]));
    }
    return true;
}

/* ------------------------------------------------------- small linear systems */

/* Solves the n x n system whose augmented rows (n coefficients and the
 * right-hand side, rows `stride` doubles apart) are in A, by Gauss-Jordan
 * elimination with partial pivoting, destroying A; x gets the n unknowns.
 * -1 when a pivot falls under tiny (singular).  The one general solver:
 * the homography fits, the lattice fit and the wood surface's least
 * squares. */
int gs_solve(double *A, int stride, int n, double *x, double tiny);
/* For a symmetric positive definite A (n x n, row-major; a covariance):
 * its Cholesky factor in place (the lower triangle), -1 when A is not
 * positive definite; then gs_cholesky_solve solves L L^T x = b in place.
 * Half the work of gs_solve, and what the reading's own classifier
 * (vision/read_self.c) was measured with. */
int gs_cholesky(double *A, int n);
void gs_cholesky_solve(const double *L, int n, double *b);

/* ---------------------------------------------------------------- drawing */

/* Colours are B, G, R (as images are); grey images get the mean. */
typedef struct gs_bgr { uint8_t b, g, r; } gs_bgr;

/* Every primitive clips to the image and blends with alpha (1 = opaque). */
void gs_draw_pixel(gs_image *img, int x, int y, gs_bgr c, double alpha);
/* A segment `thick` pixels wide (square brush). */
void gs_draw_line(gs_image *img, double x0, double y0, double x1, double y1, double thick, gs_bgr c);
/* A filled disc of radius r. */
void gs_draw_disc(gs_image *img, double cx, double cy, double r, gs_bgr c, double alpha);
/* A circle of radius r, `thick` pixels wide. */
void gs_draw_ring(gs_image *img, double cx, double cy, double r, double thick, gs_bgr c);
/* A filled axis-aligned square of half-side `half`. */
void gs_draw_square(gs_image *img, double cx, double cy, double half, gs_bgr c, double alpha);
/* The outline of that square, `thick` pixels wide. */
void gs_draw_box(gs_image *img, double cx, double cy, double half, double thick, gs_bgr c);
/* Text in a 5x7 pixel font (upper case, digits, ": . , - / ( ) +"; lower
 * case is drawn as upper case), each font pixel `scale` pixels, the top-left
 * at (x, y); returns the x after the last character. */
double gs_draw_text(gs_image *img, double x, double y, int scale, const char *text, gs_bgr c);

#ifdef __cplusplus
}
#endif
#endif
