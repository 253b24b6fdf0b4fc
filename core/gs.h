/* core/gs.h: the basic types every module shares.
 *
 * Plain structs for data (image view, point, position), a status enum and an
 * error buffer for returning errors as values.  Stateful things (camera,
 * tracker, recorder) are opaque types in their own modules.
 *
 * Conventions (see README "Code conventions"):
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
enum { GS_EXIT_OK = 0, GS_EXIT_ERROR = 1, GS_EXIT_NOBOARD = 2 };

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

/* Writes img (1 or 3 channels, BGR) as PNG with libpng. */
gs_status gs_image_write_png(const gs_image *img, const char *path, gs_error *err);

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

/* Reads a grid file (see gs_position_parse). */
gs_status gs_position_load(gs_position *out, const char *path, gs_error *err);

/* Writes the grid format into buf (size*size*2 + 1 bytes suffice). Returns
 * the number of bytes written, excluding the terminating NUL. */
size_t gs_position_format(const gs_position *p, char *buf, size_t buflen);

/* Counts the cells of one colour. */
int gs_position_count(const gs_position *p, gs_color c);

/* Writes s to f as a JSON string literal (quotes, backslashes and control
 * characters escaped; UTF-8 passed through). */
void gs_json_write_string(FILE *f, const char *s);

/* Monotonic clock in milliseconds, for timing and settle windows. */
double gs_now_ms(void);

#ifdef __cplusplus
}
#endif
#endif
