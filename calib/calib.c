/* calib/calib.c: reading and writing the calibration text file (calib.h). */
#include "calib/calib.h"

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void calib_init(calib_data *c)
{
    memset(c, 0, sizeof *c);
}

char *calib_format(const calib_data *c)
{
    gs_buf b = {0};
    const vision_grid *g = &c->grid;
    gs_buf_printf(&b, "goscribe-calibration 1\n"
                      "# board calibration written by goscribe calibrate; see calib/calib.h\n");
    gs_buf_printf(&b, "image %d %d\n", c->image_width, c->image_height);
    gs_buf_printf(&b, "size %d\n", g->size);
    gs_buf_printf(&b, "corners");
    for (int i = 0; i < 4; i++) gs_buf_printf(&b, " %.3f %.3f", g->corners[i][0], g->corners[i][1]);
    gs_buf_printf(&b, "\nhomography");
    for (int i = 0; i < 9; i++) gs_buf_printf(&b, " %.12g", g->H[i]);
    gs_buf_printf(&b, "\ndistortion %.9g %.3f %.3f %.3f\n", g->k1, g->cx, g->cy, g->norm);
    gs_buf_printf(&b, "cell_aspect %.5f\nconfidence %.4f\n", g->cell_aspect, g->confidence);
    if (c->colour.valid) {
        const calib_colour *k = &c->colour;
        gs_buf_printf(&b, "colour_board %.2f %.2f %.2f\n", k->board[0], k->board[1], k->board[2]);
        gs_buf_printf(&b, "colour_black %.2f %.2f %.2f\n", k->black[0], k->black[1], k->black[2]);
        gs_buf_printf(&b, "colour_white %.2f %.2f %.2f\n", k->white[0], k->white[1], k->white[2]);
        gs_buf_printf(&b, "colour_threshold %.4f %.4f\n", k->threshold[0], k->threshold[1]);
    }
    if (!gs_buf_ok(&b)) {
        gs_buf_free(&b);
        return NULL;
    }
    return b.p;
}

gs_status calib_save(const calib_data *c, const char *path, gs_error *err)
{
    char *text = calib_format(c);
    if (!text) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    gs_status st = gs_file_write_atomic(path, text, strlen(text), err);
    free(text);
    if (st != GS_OK && err) {
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err->msg);
        gs_error_set(err, st, "%s: %s", path, why);
    }
    return st;
}

/* Reads exactly n numbers from s; returns 0 when s holds n finite numbers
 * and nothing else but spaces or a comment. */
static int parse_numbers(const char *s, double *out, int n)
{
    for (int i = 0; i < n; i++) {
        char *end;
        errno = 0;
        double v = strtod(s, &end);
        if (end == s || errno == ERANGE || !isfinite(v)) return -1;
        out[i] = v;
        s = end;
    }
    while (*s && isspace((unsigned char)*s)) s++;
    return (*s == 0 || *s == '#') ? 0 : -1;
}

/* n numbers on OpenCV's 8-bit Lab scale (0..255 each); 0 when fine. */
static int parse_lab(const char *s, double *out, int n)
{
    if (parse_numbers(s, out, n)) return -1;
    for (int i = 0; i < n; i++)
        if (out[i] < 0 || out[i] > 255) return -1;
    return 0;
}

/* Which lines a calibration file has shown so far. */
typedef struct calib_seen {
    int magic, size, corners, h, ncol;
} calib_seen;

/* One "key values" line after the header: the values into c.  Returns
 * non-zero for a bad value; unknown keys (from a later version) are
 * ignored. */
static int parse_field(calib_data *c, const char *key, const char *s, calib_seen *seen)
{
    double v[9];
    int bad = 0;
    vision_grid *g = &c->grid;
    if (strcmp(key, "image") == 0) {
        /* 0 0 = unknown; else whole numbers from 16 (the smallest frame a
         * camera is asked for) */
        bad = parse_numbers(s, v, 2) || v[0] != floor(v[0]) || v[1] != floor(v[1]) || (v[0] != 0 && v[0] < 16) ||
              (v[1] != 0 && v[1] < 16) || v[0] > 100000 || v[1] > 100000;
        if (!bad) { c->image_width = (int)v[0]; c->image_height = (int)v[1]; }
    } else if (strcmp(key, "size") == 0) {
        bad = parse_numbers(s, v, 1) || v[0] != floor(v[0]) || v[0] < 5 || v[0] > GS_MAX_SIZE;
        if (!bad) { g->size = (int)v[0]; seen->size = 1; }
    } else if (strcmp(key, "corners") == 0) {
        bad = parse_numbers(s, v, 8);
        if (!bad) { memcpy(g->corners, v, sizeof g->corners); seen->corners = 1; }
    } else if (strcmp(key, "homography") == 0) {
        bad = parse_numbers(s, v, 9);
        if (!bad) { memcpy(g->H, v, sizeof g->H); seen->h = 1; }
    } else if (strcmp(key, "distortion") == 0) {
        bad = parse_numbers(s, v, 4) || fabs(v[0]) > 1 || fabs(v[1]) > 1e6 || fabs(v[2]) > 1e6 || v[3] < 0 || v[3] > 1e6;
        if (!bad) { g->k1 = v[0]; g->cx = v[1]; g->cy = v[2]; g->norm = v[3]; }
    } else if (strcmp(key, "cell_aspect") == 0) {
        bad = parse_numbers(s, v, 1) || v[0] <= 0.2 || v[0] > 5;
        if (!bad) g->cell_aspect = v[0];
    } else if (strcmp(key, "confidence") == 0) {
        bad = parse_numbers(s, v, 1) || v[0] < 0 || v[0] > 1;
        if (!bad) g->confidence = v[0];
    } else if (strcmp(key, "colour_board") == 0) {
        bad = parse_lab(s, c->colour.board, 3);
        seen->ncol += !bad;
    } else if (strcmp(key, "colour_black") == 0) {
        bad = parse_lab(s, c->colour.black, 3);
        seen->ncol += !bad;
    } else if (strcmp(key, "colour_white") == 0) {
        bad = parse_lab(s, c->colour.white, 3);
        seen->ncol += !bad;
    } else if (strcmp(key, "colour_threshold") == 0) {
        bad = parse_lab(s, c->colour.threshold, 2);
    }
    return bad;
}

/* The whole file read: the required lines present and the corners a real
 * board (H recomputed from them when the file has none). */
static gs_status check_parsed(calib_data *c, const calib_seen *seen, gs_error *err)
{
    if (!seen->magic) return gs_error_set(err, GS_ERR_FORMAT, "empty file, not a goscribe calibration");
    if (!seen->size) return gs_error_set(err, GS_ERR_FORMAT, "no 'size' line");
    if (!seen->corners) return gs_error_set(err, GS_ERR_FORMAT, "no 'corners' line");
    /* Check the corners (and recompute H when missing) through the one
     * corner-to-grid function, so a file cannot hold a degenerate board. */
    vision_grid chk;
    gs_error e2;
    if (vision_grid_from_corners(&chk, c->grid.size, (const double(*)[2])c->grid.corners, &e2) != GS_OK)
        return gs_error_set(err, GS_ERR_FORMAT, "%s", e2.msg);
    if (!seen->h) memcpy(c->grid.H, chk.H, sizeof chk.H);
    if (c->grid.cell_aspect == 0) c->grid.cell_aspect = 1.0;
    c->colour.valid = seen->ncol == 3;
    /* The grid as a whole: a homography given must be the corners' one
     * (computed from them, it is by construction). */
    return calib_grid_check(&c->grid, c->image_width, c->image_height, seen->h, err);
}

gs_status calib_parse(calib_data *c, const char *text, gs_error *err)
{
    calib_init(c);
    calib_seen seen = {0};
    int lineno = 0;
    const char *p = text;
    while (*p) {
        lineno++;
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        char line[1024];
        if (len >= sizeof line)
            return gs_error_set(err, GS_ERR_FORMAT, "line %d: too long", lineno);
        memcpy(line, p, len);
        line[len] = 0;
        p = eol ? eol + 1 : p + len;
        char *s = line;
        while (*s && isspace((unsigned char)*s)) s++;
        if (*s == 0 || *s == '#') continue;
        char key[64];
        size_t k = 0;
        while (*s && !isspace((unsigned char)*s) && k + 1 < sizeof key) key[k++] = *s++;
        key[k] = 0;
        if (!seen.magic) {
            double v;
            if (strcmp(key, "goscribe-calibration") != 0)
                return gs_error_set(err, GS_ERR_FORMAT, "line %d: not a goscribe calibration file", lineno);
            if (parse_numbers(s, &v, 1) != 0 || v != 1)
                return gs_error_set(err, GS_ERR_FORMAT, "line %d: unsupported calibration version", lineno);
            seen.magic = 1;
            continue;
        }
        if (parse_field(c, key, s, &seen))
            return gs_error_set(err, GS_ERR_FORMAT, "line %d: bad value for '%s'", lineno, key);
    }
    return check_parsed(c, &seen, err);
}

gs_status calib_load(calib_data *c, const char *path, gs_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return gs_error_set(err, GS_ERR_IO, "%s: %s", path, strerror(errno));
    char buf[16384];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    int toolong = !feof(f);
    (void)fclose(f); /* opened for reading: a failed close loses nothing */
    if (toolong) return gs_error_set(err, GS_ERR_FORMAT, "%s: too large for a calibration file", path);
    buf[n] = 0;
    if (memchr(buf, 0, n)) return gs_error_set(err, GS_ERR_FORMAT, "%s: binary data, not a calibration file", path);
    gs_error e2;
    gs_status s = calib_parse(c, buf, &e2);
    if (s != GS_OK) return gs_error_set(err, s, "%s: %s", path, e2.msg);
    return GS_OK;
}

gs_status calib_scale_to(calib_data *c, int width, int height, gs_error *err)
{
    if (c->image_width <= 0 || c->image_height <= 0 || width <= 0 || height <= 0) return GS_OK;
    if (c->image_width == width && c->image_height == height) return GS_OK;
    double sx = (double)width / c->image_width, sy = (double)height / c->image_height;
    calib_data s = *c;
    vision_grid *g = &s.grid;
    /* Scaling the image is a left-multiplication of H by diag(sx, sy, 1). */
    for (int i = 0; i < 3; i++) { g->H[i] *= sx; g->H[3 + i] *= sy; }
    for (int i = 0; i < 4; i++) { g->corners[i][0] *= sx; g->corners[i][1] *= sy; }
    g->cx *= sx;
    g->cy *= sy;
    g->norm *= sqrt(sx * sy);
    s.image_width = width;
    s.image_height = height;
    gs_error e;
    if (calib_grid_check(g, width, height, false, &e) != GS_OK)
        return gs_error_set(err, GS_ERR_FORMAT, "a calibration of %d x %d frames does not fit %d x %d ones: %s",
                            c->image_width, c->image_height, width, height, e.msg);
    *c = s;
    return GS_OK;
}
