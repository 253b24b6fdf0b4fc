/* core/gs.c: status names, errors, positions, clock. */
#include "core/gs.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int gs_status_exit_code(gs_status s)
{
    if (s == GS_OK) return GS_EXIT_OK;
    if (s == GS_ERR_NOBOARD) return GS_EXIT_NOBOARD;
    return GS_EXIT_ERROR;
}

const char *gs_status_name(gs_status s)
{
    switch (s) {
    case GS_OK: return "ok";
    case GS_ERR_USAGE: return "usage error";
    case GS_ERR_IO: return "I/O error";
    case GS_ERR_FORMAT: return "malformed input";
    case GS_ERR_NOBOARD: return "no board";
    case GS_ERR_NOMEM: return "out of memory";
    case GS_ERR_INTERNAL: return "internal error";
    }
    return "unknown error";
}

gs_status gs_error_set(gs_error *err, gs_status status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->status = status;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return status;
}

void gs_position_clear(gs_position *p, int size)
{
    memset(p, 0, sizeof *p);
    p->size = size;
}

/* One token of a grid line: its colour, or -1 for a separator, -2 for
 * a character no grid has. */
static int grid_token(char c)
{
    switch (c) {
    case '.': case '+': case '-': return GS_EMPTY;
    case 'B': case 'X': case 'b': case 'x': return GS_BLACK;
    case 'W': case 'O': case 'w': case 'o': return GS_WHITE;
    case ' ': case '\t': case '\r': return -1;
    default: return -2;
    }
}

gs_status gs_position_parse_marked(gs_position *out, uint8_t *marked, const char *text, gs_error *err)
{
    gs_position p;
    gs_position_clear(&p, 0);
    uint8_t mark[GS_MAX_SIZE * GS_MAX_SIZE] = {0};
    int row = 0, width = -1, line = 1;
    const char *s = text;
    while (*s) {
        int col = 0;
        const char *eol = strchr(s, '\n');
        if (!eol) eol = s + strlen(s);
        for (const char *c = s; c < eol; c++) {
            int v = grid_token(*c);
            if (v == -1) continue;
            if (v == -2 && !(*c == '?' && marked && col > 0 && c > s && grid_token(c[-1]) >= 0))
                return gs_error_set(err, GS_ERR_FORMAT, "line %d: unexpected character '%c' in board grid", line, isprint((unsigned char)*c) ? *c : '?');
            if (v == -2) { /* the '?' after a token: that point read with doubt */
                mark[row * GS_MAX_SIZE + col - 1] = 1;
                continue;
            }
            if (col >= GS_MAX_SIZE || row >= GS_MAX_SIZE)
                return gs_error_set(err, GS_ERR_FORMAT, "line %d: board grid larger than %d", line, GS_MAX_SIZE);
            p.cell[row * GS_MAX_SIZE + col] = (uint8_t)v;
            /* scan's '-': a point off the photo, not seen, so in doubt */
            if (*c == '-') mark[row * GS_MAX_SIZE + col] = 1;
            col++;
        }
        if (col > 0) {
            if (width < 0) width = col;
            else if (col != width)
                return gs_error_set(err, GS_ERR_FORMAT, "line %d: %d points, earlier lines have %d", line, col, width);
            row++;
        }
        s = *eol ? eol + 1 : eol;
        line++;
    }
    if (row == 0) return gs_error_set(err, GS_ERR_FORMAT, "empty board grid");
    if (row != width) return gs_error_set(err, GS_ERR_FORMAT, "board grid has %d rows of %d points; it must be square", row, width);
    if (row < 5) return gs_error_set(err, GS_ERR_FORMAT, "board grid of size %d is too small (5 to %d)", row, GS_MAX_SIZE);
    /* Repack from the GS_MAX_SIZE stride used while parsing. */
    gs_position_clear(out, row);
    for (int y = 0; y < row; y++)
        for (int x = 0; x < row; x++) {
            out->cell[y * row + x] = p.cell[y * GS_MAX_SIZE + x];
            if (marked) marked[y * row + x] = mark[y * GS_MAX_SIZE + x];
        }
    return GS_OK;
}

gs_status gs_position_parse(gs_position *out, const char *text, gs_error *err)
{
    return gs_position_parse_marked(out, NULL, text, err);
}

gs_status gs_position_load_marked(gs_position *out, uint8_t *marked, const char *path, gs_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return gs_error_set(err, GS_ERR_IO, "%s: %s", path, strerror(errno));
    char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    int toolong = !feof(f) && fgetc(f) != EOF;
    fclose(f);
    if (toolong) return gs_error_set(err, GS_ERR_FORMAT, "%s: too large for a board grid", path);
    buf[n] = 0;
    if (memchr(buf, 0, n)) return gs_error_set(err, GS_ERR_FORMAT, "%s: binary data, not a board grid", path);
    gs_error e;
    if (gs_position_parse_marked(out, marked, buf, &e) != GS_OK) return gs_error_set(err, e.status, "%s: %s", path, e.msg);
    return GS_OK;
}

gs_status gs_position_load(gs_position *out, const char *path, gs_error *err)
{
    return gs_position_load_marked(out, NULL, path, err);
}

size_t gs_position_format(const gs_position *p, char *buf, size_t buflen)
{
    size_t n = 0;
    static const char sym[3] = {'.', 'B', 'W'};
    for (int y = 0; y < p->size; y++)
        for (int x = 0; x < p->size; x++) {
            if (n + 2 >= buflen) goto done;
            uint8_t c = p->cell[y * p->size + x];
            buf[n++] = c < 3 ? sym[c] : '?';
            buf[n++] = x + 1 < p->size ? ' ' : '\n';
        }
done:
    if (buflen) buf[n < buflen ? n : buflen - 1] = 0;
    return n;
}

int gs_position_count(const gs_position *p, gs_color c)
{
    int n = 0;
    for (int i = 0; i < p->size * p->size; i++) n += p->cell[i] == c;
    return n;
}

double gs_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int64_t gs_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void gs_lens_distort(double k1, double cx, double cy, double norm, double *x, double *y)
{
    if (k1 == 0 || !(norm > 0)) return;
    double dx = *x - cx, dy = *y - cy;
    double r2 = (dx * dx + dy * dy) / (norm * norm);
    /* Barrel distortion folds far-off points back into the frame: past the
     * radius where the model stops growing, keep its scale. */
    if (k1 < 0 && r2 > 1 / (-3 * k1)) r2 = 1 / (-3 * k1);
    double f = 1 + k1 * r2;
    *x = cx + dx * f;
    *y = cy + dy * f;
}

void gs_lens_undistort(double k1, double cx, double cy, double norm, double *x, double *y)
{
    if (k1 == 0 || !(norm > 0)) return;
    double tx = *x - cx, ty = *y - cy, px = tx, py = ty;
    /* Fixed point p = t / (1 + k1 |p|^2 / norm^2): contracts for the
     * distortions a camera shows; 10 rounds leave < 0.01 px. */
    for (int it = 0; it < 10; it++) {
        double f = 1 + k1 * (px * px + py * py) / (norm * norm);
        if (f < 0.2) f = 0.2;
        px = tx / f;
        py = ty / f;
    }
    *x = cx + px;
    *y = cy + py;
}
