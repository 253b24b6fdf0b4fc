/* core/buf.c: the one growable text buffer (a failed allocation sticks, so
 * callers check once at the end, as FFmpeg's bprint does) and the one JSON
 * string writer. */
#include "core/gs.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gs_buf_add(gs_buf *b, const char *s, size_t n)
{
    if (b->failed) return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1) cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) { b->failed = true; return; }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void gs_buf_puts(gs_buf *b, const char *s) { gs_buf_add(b, s, strlen(s)); }

void gs_buf_printf(gs_buf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) { b->failed = true; return; }
    if ((size_t)n < sizeof tmp) { gs_buf_add(b, tmp, (size_t)n); return; }
    char *big = malloc((size_t)n + 1);
    if (!big) { b->failed = true; return; }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    gs_buf_add(b, big, (size_t)n);
    free(big);
}

void gs_json_str(gs_buf *b, const char *s)
{
    gs_buf_add(b, "\"", 1);
    if (s) {
        for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
            if (*p == '"' || *p == '\\') {
                char e[2] = {'\\', (char)*p};
                gs_buf_add(b, e, 2);
            } else if (*p < 0x20 || *p == 0x7f) {
                gs_buf_printf(b, "\\u%04x", *p);
            } else if (*p == '<') {
                /* keeps "</script>" and HTML out of strings pages may insert */
                gs_buf_add(b, "\\u003c", 6);
            } else {
                gs_buf_add(b, (const char *)p, 1);
            }
        }
    }
    gs_buf_add(b, "\"", 1);
}

void gs_buf_free(gs_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
    b->failed = false;
}


void gs_json_write_string(FILE *f, const char *s)
{
    gs_buf b = {0};
    gs_json_str(&b, s);
    /* A string too large to escape in memory is written as "" rather than
     * cut: the JSON stays valid. */
    fputs(gs_buf_ok(&b) ? b.p : "\"\"", f);
    gs_buf_free(&b);
}
