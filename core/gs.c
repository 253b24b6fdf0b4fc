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

gs_status gs_position_parse(gs_position *out, const char *text, gs_error *err)
{
    gs_position p;
    gs_position_clear(&p, 0);
    int row = 0, width = -1, line = 1;
    const char *s = text;
    while (*s) {
        int col = 0;
        const char *eol = strchr(s, '\n');
        if (!eol) eol = s + strlen(s);
        for (const char *c = s; c < eol; c++) {
            gs_color v;
            switch (*c) {
            case '.': case '+': case '-': v = GS_EMPTY; break;
            case 'B': case 'X': case 'b': case 'x': v = GS_BLACK; break;
            case 'W': case 'O': case 'w': case 'o': v = GS_WHITE; break;
            case ' ': case '\t': case '\r': continue;
            default:
                return gs_error_set(err, GS_ERR_FORMAT, "line %d: unexpected character '%c' in board grid", line, isprint((unsigned char)*c) ? *c : '?');
            }
            if (col >= GS_MAX_SIZE || row >= GS_MAX_SIZE)
                return gs_error_set(err, GS_ERR_FORMAT, "line %d: board grid larger than %d", line, GS_MAX_SIZE);
            p.cell[row * GS_MAX_SIZE + col] = (uint8_t)v;
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
        for (int x = 0; x < row; x++) out->cell[y * row + x] = p.cell[y * GS_MAX_SIZE + x];
    return GS_OK;
}

gs_status gs_position_load(gs_position *out, const char *path, gs_error *err)
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
    if (gs_position_parse(out, buf, &e) != GS_OK) return gs_error_set(err, e.status, "%s: %s", path, e.msg);
    return GS_OK;
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

void gs_json_write_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

double gs_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
