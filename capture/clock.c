/* capture/clock.c: the time of play a file gives (see capture_impl.h): a
 * video's start from its container (MP4/MOV "mvhd" creation_time) or its
 * file time minus its duration, a photo's EXIF DateTimeOriginal or its file
 * time.  Only the few bytes needed are read; anything odd gives "unknown". */
#include "capture/capture_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static int64_t file_mtime_ms(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) return -1;
    return (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
}

static uint64_t be(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v = v << 8 | p[i];
    return v;
}

/* ------------------------------------------------------------- MP4/MOV */

/* Finds the box `type` among the boxes in [pos, end) of f; its payload's
 * start and end in *start, *stop.  false when absent or malformed. */
static bool find_box(FILE *f, long pos, long end, const char *type, long *start, long *stop)
{
    uint8_t h[16];
    while (pos + 8 <= end) {
        if (fseek(f, pos, SEEK_SET) != 0 || fread(h, 1, 8, f) != 8) return false;
        uint64_t size = be(h, 4);
        long hdr = 8;
        if (size == 1) {
            if (fread(h + 8, 1, 8, f) != 8) return false;
            size = be(h + 8, 8);
            hdr = 16;
        } else if (size == 0) {
            size = (uint64_t)(end - pos);
        }
        if (size < (uint64_t)hdr || size > (uint64_t)(end - pos)) return false;
        if (!memcmp(h + 4, type, 4)) {
            *start = pos + hdr;
            *stop = pos + (long)size;
            return true;
        }
        pos += (long)size;
    }
    return false;
}

/* The movie header's creation_time as Unix ms, -1 when absent or 0. */
static int64_t mp4_creation_ms(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    int64_t ms = -1;
    long end = 0, a, b, c, d;
    if (fseek(f, 0, SEEK_END) == 0) end = ftell(f);
    uint8_t v[20];
    if (end > 0 && find_box(f, 0, end, "moov", &a, &b) && find_box(f, a, b, "mvhd", &c, &d) && d - c >= 20 &&
        fseek(f, c, SEEK_SET) == 0 && fread(v, 1, 20, f) == 20) {
        uint64_t t = v[0] == 1 ? be(v + 4, 8) : be(v + 4, 4); /* seconds since 1904-01-01 UTC */
        const uint64_t since_1904 = 2082844800ULL;
        if (t > since_1904) ms = (int64_t)(t - since_1904) * 1000;
    }
    (void)fclose(f); /* read-only: a failed close loses nothing */
    return ms;
}

int64_t capture_video_start_ms(const char *path, double duration_ms, char *note, size_t notelen)
{
    int64_t created = mp4_creation_ms(path);
    if (created >= 0) {
        time_t t = (time_t)(created / 1000);
        struct tm tmv;
        char when[32] = "";
        if (gmtime_r(&t, &tmv)) strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tmv);
        snprintf(note, notelen, "times of play from the video's creation_time (%s) + the frame's position", when);
        return created;
    }
    int64_t mtime = file_mtime_ms(path);
    if (mtime < 0 || !(duration_ms >= 0)) {
        snprintf(note, notelen, "no clock in the video: times of play are the wall clock of processing");
        return -1;
    }
    snprintf(note, notelen,
             "times of play from the video file's modification time minus its duration (%.1f s; no creation_time "
             "in the container) + the frame's position", duration_ms / 1000.0);
    return mtime - (int64_t)(duration_ms + 0.5);
}

/* ----------------------------------------------------------------- EXIF */

typedef struct tiff {
    const uint8_t *p;
    size_t len;
    bool le;
} tiff;

static uint32_t tiff_u(const tiff *t, size_t off, int n)
{
    if (off + (size_t)n > t->len) return 0;
    uint32_t v = 0;
    for (int i = 0; i < n; i++) v |= (uint32_t)t->p[off + (size_t)(t->le ? i : n - 1 - i)] << (8 * i);
    return v;
}

/* The ASCII value of tag in the IFD at off ("" when absent), or the IFD
 * offset a pointer tag holds (*ptr). */
static bool ifd_find(const tiff *t, uint32_t off, uint16_t tag, char *text, size_t textlen, uint32_t *ptr)
{
    uint32_t n = tiff_u(t, off, 2);
    for (uint32_t i = 0; i < n && i < 512; i++) {
        size_t e = off + 2 + 12 * (size_t)i;
        if (e + 12 > t->len) return false;
        if (tiff_u(t, e, 2) != tag) continue;
        uint32_t count = tiff_u(t, e + 4, 4), val = tiff_u(t, e + 8, 4);
        if (ptr) {
            *ptr = val;
            return true;
        }
        if (count < 19 || val + 19 > t->len) return false;
        snprintf(text, textlen, "%.19s", (const char *)t->p + val);
        return true;
    }
    return false;
}

/* "YYYY:MM:DD HH:MM:SS" (local time, as cameras write it) -> Unix ms. */
static int64_t exif_time_ms(const char *s)
{
    struct tm tmv;
    memset(&tmv, 0, sizeof tmv);
    if (sscanf(s, "%4d:%2d:%2d %2d:%2d:%2d", &tmv.tm_year, &tmv.tm_mon, &tmv.tm_mday, &tmv.tm_hour, &tmv.tm_min,
               &tmv.tm_sec) != 6 || tmv.tm_year < 1970 || tmv.tm_mon < 1 || tmv.tm_mon > 12)
        return -1;
    tmv.tm_year -= 1900;
    tmv.tm_mon -= 1;
    tmv.tm_isdst = -1;
    time_t t = mktime(&tmv);
    return t == (time_t)-1 ? -1 : (int64_t)t * 1000;
}

/* DateTimeOriginal (else DateTime) of the Exif block at p. */
static int64_t exif_block_ms(const uint8_t *p, size_t len)
{
    if (len < 14 || memcmp(p, "Exif\0\0", 6)) return -1;
    tiff t = {p + 6, len - 6, p[6] == 'I'};
    if (!(t.p[0] == 'I' || t.p[0] == 'M') || tiff_u(&t, 2, 2) != 42) return -1;
    uint32_t ifd0 = tiff_u(&t, 4, 4), exif_ifd = 0;
    char text[32];
    if (ifd_find(&t, ifd0, 0x8769, NULL, 0, &exif_ifd) && ifd_find(&t, exif_ifd, 0x9003, text, sizeof text, NULL))
        return exif_time_ms(text);
    if (ifd_find(&t, ifd0, 0x0132, text, sizeof text, NULL)) return exif_time_ms(text);
    return -1;
}

/* The APP1 Exif segment of a JPEG (the first 128 KiB are enough). */
static int64_t jpeg_exif_ms(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    size_t cap = 128 * 1024;
    uint8_t *buf = malloc(cap);
    size_t n = buf ? fread(buf, 1, cap, f) : 0;
    (void)fclose(f); /* read-only: a failed close loses nothing */
    int64_t ms = -1;
    for (size_t i = 2; buf && n > 4 && buf[0] == 0xFF && buf[1] == 0xD8 && i + 4 <= n;) {
        if (buf[i] != 0xFF) break;
        uint8_t marker = buf[i + 1];
        size_t seg = (size_t)be(buf + i + 2, 2);
        if (marker == 0xDA || seg < 2) break; /* image data: no Exif before it */
        if (marker == 0xE1 && i + 2 + seg <= n) {
            ms = exif_block_ms(buf + i + 4, seg - 2);
            if (ms >= 0) break;
        }
        i += 2 + seg;
    }
    free(buf);
    return ms;
}

int64_t capture_photo_time_ms(const char *path)
{
    int64_t ms = jpeg_exif_ms(path);
    return ms >= 0 ? ms : file_mtime_ms(path);
}
