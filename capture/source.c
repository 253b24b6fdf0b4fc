/* capture/source.c: the source object every backend fills in (capture_new,
 * its last error, read and close through the backend's table) and the
 * natural name order the folder backend and the camera listing sort by.
 * The backends (capture.c: files and synthetic, video.c: video files,
 * capture_v4l2.c: cameras, net.c: network cameras) call into this file; it calls none of them. */
#include "capture/capture_impl.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void capture_set_error(capture_source *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->last_error, sizeof s->last_error, fmt, ap);
    va_end(ap);
}

capture_source *capture_new(capture_kind kind, const capture_ops *ops, void *impl)
{
    capture_source *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->kind = kind;
    s->ops = ops;
    s->impl = impl;
    s->frame_count = -1;
    return s;
}

capture_result capture_read(capture_source *s, const gs_image **frame, capture_info *info)
{
    if (!s) return CAPTURE_ERROR;
    capture_info tmp;
    if (!info) info = &tmp;
    memset(info, 0, sizeof *info);
    info->index = s->next_index;
    info->unix_ms = -1;
    *frame = NULL;
    capture_result r = s->ops->read(s, frame, info);
    if (r == CAPTURE_FRAME) s->next_index++;
    if (info->skipped > 0) s->skipped += info->skipped;
    return r;
}

const char *capture_last_error(const capture_source *s) { return s ? s->last_error : "no source"; }
capture_kind capture_get_kind(const capture_source *s) { return s->kind; }
bool capture_is_live(const capture_source *s) { return s && (s->kind == CAPTURE_CAMERA || s->kind == CAPTURE_NETWORK); }
const char *capture_clock_note(const capture_source *s) { return s ? s->clock_note : ""; }
double capture_fps(const capture_source *s) { return s->fps; }
long capture_frame_count(const capture_source *s) { return s->frame_count; }
long capture_skipped_count(const capture_source *s) { return s ? s->skipped : 0; }

void capture_close(capture_source *s)
{
    if (!s) return;
    if (s->ops && s->ops->close) s->ops->close(s);
    free(s);
}

/* ----------------------------------------------------------- natural sort */

int capture_natural_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            /* compare digit runs as numbers: skip leading zeros, then the
             * longer run is bigger, then lexical; ties broken by zeros */
            const char *a0 = a, *b0 = b;
            while (*a == '0') a++;
            while (*b == '0') b++;
            const char *as = a, *bs = b;
            while (isdigit((unsigned char)*a)) a++;
            while (isdigit((unsigned char)*b)) b++;
            size_t la = (size_t)(a - as), lb = (size_t)(b - bs);
            if (la != lb) return la < lb ? -1 : 1;
            int c = memcmp(as, bs, la);
            if (c) return c < 0 ? -1 : 1;
            size_t za = (size_t)(as - a0), zb = (size_t)(bs - b0);
            if (za != zb) return za < zb ? -1 : 1;
            continue;
        }
        unsigned char ca = (unsigned char)*a, cb = (unsigned char)*b;
        if (ca != cb) return ca < cb ? -1 : 1;
        a++;
        b++;
    }
    if (*a) return 1;
    if (*b) return -1;
    return 0;
}
