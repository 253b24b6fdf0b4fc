/* cvshim/image_header.c: the width and height an encoded image declares,
 * read from its header without decoding it, so the pixel budget
 * (cvshim_max_pixels) can refuse a small file that would decode to
 * gigabytes before any pixel memory is taken.  One reader per format
 * OpenCV 4 decodes here; an image whose size cannot be told this way is
 * refused rather than decoded blind, and so is anything OpenCV could take
 * for a DICOM file. */
#include "cvshim/cvshim.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long long cvshim_max_pixels(long long requested)
{
    if (requested > 0) return requested;
    const char *env = getenv("GOSCRIBE_MAX_PIXELS");
    if (env && *env) {
        char *end;
        errno = 0;
        long long v = strtoll(env, &end, 10);
        if (!errno && *end == 0 && v > 0) return v;
    }
    return CVSHIM_MAX_PIXELS_DEFAULT;
}

/* The header being read: bytes, length and byte order (TIFF). */
typedef struct hdr {
    const uint8_t *p;
    size_t n;
    bool big_endian;
} hdr;

static bool has(const hdr *h, size_t off, size_t len) { return off <= h->n && len <= h->n - off; }

static uint32_t u16(const hdr *h, size_t o)
{
    return h->big_endian ? (uint32_t)h->p[o] << 8 | h->p[o + 1] : (uint32_t)h->p[o + 1] << 8 | h->p[o];
}

static uint32_t u32(const hdr *h, size_t o)
{
    return h->big_endian ? u16(h, o) << 16 | u16(h, o + 2) : u16(h, o + 2) << 16 | u16(h, o);
}

static uint64_t u64(const hdr *h, size_t o)
{
    return h->big_endian ? (uint64_t)u32(h, o) << 32 | u32(h, o + 4) : (uint64_t)u32(h, o + 4) << 32 | u32(h, o);
}

/* The sizes found; -1 when one is out of the range of an int. */
static int found(uint64_t w, uint64_t h, int *wo, int *ho)
{
    if (w == 0 || h == 0 || w > 0x7fffffff || h > 0x7fffffff) return -1;
    *wo = (int)w;
    *ho = (int)h;
    return 0;
}

static const uint8_t png_magic[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
static bool is_png(const hdr *h) { return has(h, 0, 8) && !memcmp(h->p, png_magic, 8); }
static bool is_jpeg(const hdr *h) { return has(h, 0, 3) && h->p[0] == 0xFF && h->p[1] == 0xD8 && h->p[2] == 0xFF; }

/* JPEG markers without a length after them: TEM, SOI, RST0..RST7. */
static bool jpeg_standalone(unsigned m) { return m == 0x01 || m == 0xD8 || (m >= 0xD0 && m <= 0xD7); }

/* JPEG: the first start-of-frame segment (SOF0..SOF15 but DHT, JPG, DAC). */
static int jpeg_size(const hdr *h, int *w, int *ht)
{
    size_t p = 2;
    while (has(h, p, 4)) {
        if (h->p[p] != 0xFF) return -1;
        unsigned m = h->p[p + 1];
        if (m == 0xFF) { p++; continue; } /* fill byte */
        if (jpeg_standalone(m)) { p += 2; continue; }
        if (m == 0xD9 || m == 0xDA) return -1; /* image data before any frame header */
        uint32_t seg = u16(h, p + 2);
        if (seg < 2) return -1;
        if (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC) {
            if (!has(h, p, 9)) return -1;
            return found(u16(h, p + 7), u16(h, p + 5), w, ht);
        }
        p += 2 + (size_t)seg;
    }
    return -1;
}

/* Past the entropy-coded data of a scan starting at p: the offset of the
 * marker that ends it (stuffed zeros, restart markers and fill bytes are
 * part of the data), or h->n when the data runs to the end. */
static size_t jpeg_scan_end(const hdr *h, size_t p)
{
    while (p < h->n) {
        const uint8_t *q = memchr(h->p + p, 0xFF, h->n - p);
        if (!q) return h->n;
        p = (size_t)(q - h->p);
        if (!has(h, p, 2)) return h->n;
        unsigned m = h->p[p + 1];
        if (m == 0xFF) { p++; continue; }
        if (m == 0x00 || (m >= 0xD0 && m <= 0xD7)) { p += 2; continue; }
        return p;
    }
    return h->n;
}

/* JPEG: 1 when the segments and scans run, in order, to the end-of-image
 * marker (what follows it, as a phone's appended video, is not looked
 * at; a thumbnail's own markers sit inside its APP1 segment and are
 * skipped with it); 0 when the data stops before it: a file cut short,
 * which libjpeg decodes with the missing part grey and no error. */
static int jpeg_complete(const hdr *h)
{
    size_t p = 2;
    while (has(h, p, 2)) {
        if (h->p[p] != 0xFF) { /* stray bytes before a marker: libjpeg skips them, so does this */
            p = jpeg_scan_end(h, p);
            continue;
        }
        unsigned m = h->p[p + 1];
        if (m == 0xD9) return 1;
        if (m == 0xFF) { p++; continue; } /* fill byte */
        if (jpeg_standalone(m)) { p += 2; continue; }
        if (!has(h, p, 4) || u16(h, p + 2) < 2) return 0;
        p += 2 + (size_t)u16(h, p + 2);
        if (m == 0xDA) p = jpeg_scan_end(h, p);
    }
    return 0;
}

/* PNG: 1 when its chunks run, each whole, to the IEND chunk; 0 when the
 * data stops before it (libpng would refuse it too, but print its reason
 * on stderr, a second line). */
static int png_complete(const hdr *h)
{
    size_t p = 8;
    while (has(h, p, 12)) {
        uint32_t n = u32(h, p);
        if (!memcmp(h->p + p + 4, "IEND", 4)) return 1;
        if (n > 0x7fffffffu || !has(h, p + 12, n)) return 0;
        p += 12 + (size_t)n;
    }
    return 0;
}

/* TIFF and BigTIFF: ImageWidth (256) and ImageLength (257) of the first
 * directory, the page OpenCV decodes. */
static int tiff_size(hdr *h, int *w, int *ht)
{
    h->big_endian = h->p[0] == 'M';
    bool big = u16(h, 2) == 43;
    if (big && !has(h, 0, 16)) return -1;
    uint64_t ifd = big ? u64(h, 8) : u32(h, 4);
    size_t esz = big ? 20 : 12, csz = big ? 8 : 2;
    if (ifd > h->n || !has(h, (size_t)ifd, csz)) return -1;
    uint64_t count = big ? u64(h, (size_t)ifd) : u16(h, (size_t)ifd);
    uint64_t dims[2] = {0, 0};
    for (uint64_t i = 0; i < count && i < 4096; i++) {
        size_t e = (size_t)ifd + csz + (size_t)i * esz;
        if (!has(h, e, esz)) return -1;
        uint32_t tag = u16(h, e), type = u16(h, e + 2);
        if (tag != 256 && tag != 257) continue;
        size_t v = e + (big ? 12 : 8);
        uint64_t val = type == 3 ? u16(h, v) : type == 4 ? u32(h, v) : (type == 16 && big) ? u64(h, v) : 0;
        if (dims[tag - 256]) return -1; /* given twice: which would libtiff take? */
        dims[tag - 256] = val;
    }
    return found(dims[0], dims[1], w, ht);
}

/* WebP: lossy (VP8), lossless (VP8L) or extended (VP8X canvas). */
static int webp_size(const hdr *h, int *w, int *ht)
{
    if (!has(h, 12, 18)) return -1;
    const uint8_t *c = h->p + 12;
    if (!memcmp(c, "VP8 ", 4)) {
        if (h->p[23] != 0x9d || h->p[24] != 0x01 || h->p[25] != 0x2a) return -1;
        return found(u16(h, 26) & 0x3fff, u16(h, 28) & 0x3fff, w, ht);
    }
    if (!memcmp(c, "VP8L", 4)) {
        if (h->p[20] != 0x2f) return -1;
        uint32_t b = u32(h, 21);
        return found((b & 0x3fff) + 1, ((b >> 14) & 0x3fff) + 1, w, ht);
    }
    if (!memcmp(c, "VP8X", 4)) {
        uint32_t cw = (u32(h, 24) & 0xffffff) + 1, ch = (u32(h, 26) >> 8) + 1;
        return found(cw, ch, w, ht);
    }
    return -1;
}

/* The text headers below are read the way OpenCV 4's own readers read
 * them (grfmt_pxm.cpp, grfmt_pam.cpp, grfmt_pfm.cpp, rgbe.cpp), quirks
 * included: the size that counts is the one the decoder will use. */

/* The next byte of a text header; -1 at its end (OpenCV's stream throws). */
static int next_byte(const hdr *h, size_t *p)
{
    return *p < h->n ? h->p[(*p)++] : -1;
}

/* PNM (ReadNumber): spaces and '#' comments up to the first digit, the
 * digits, and the byte after them (eaten). */
static int pnm_number(const hdr *h, size_t *p, uint64_t *out)
{
    int c = next_byte(h, p);
    while (c < 0 || !isdigit(c)) {
        if (c == '#') {
            do c = next_byte(h, p);
            while (c >= 0 && c != '\n' && c != '\r');
            if (c < 0) return -1;
            c = next_byte(h, p);
        } else if (c >= 0 && isspace(c)) {
            while (c >= 0 && isspace(c)) c = next_byte(h, p);
        } else {
            return -1;
        }
    }
    uint64_t v = 0;
    while (c >= 0 && isdigit(c)) {
        v = v * 10 + (uint64_t)(c - '0');
        if (v > 0x7fffffff) return -1; /* OpenCV refuses it */
        c = next_byte(h, p);
    }
    *out = v;
    return 0;
}

/* PAM: one header field (ReadPAMHeaderLine); *ident "" for a comment,
 * value the rest of its line without trailing spaces.  -1 when broken. */
static int pam_field(const hdr *h, size_t *p, char ident[9], char value[256])
{
    int c;
    do c = next_byte(h, p);
    while (c >= 0 && isspace(c));
    ident[0] = value[0] = 0;
    if (c < 0) return -1;
    if (c == '#') {
        do c = next_byte(h, p);
        while (c >= 0 && c != '\n' && c != '\r');
        return c < 0 ? -1 : 0;
    }
    int k = 0;
    for (; k < 8 && c >= 0 && !isspace(c); k++, c = next_byte(h, p)) ident[k] = (char)c;
    ident[k] = 0;
    if (c < 0 || !isspace(c)) return -1;
    if (c == '\n' || c == '\r') return 0;
    do c = next_byte(h, p);
    while (c >= 0 && isspace(c));
    int v = 0;
    for (; v < 255 && c >= 0 && c != '\n' && c != '\r'; v++, c = next_byte(h, p)) value[v] = (char)c;
    value[v] = 0;
    if (c != '\n' && c != '\r') return -1;
    while (--v >= 0 && isspace((unsigned char)value[v])) value[v] = 0;
    return 0;
}

/* PAM's ParseInt: an optional '-', digits, nothing after. */
static int pam_int(const char *s, int64_t *out)
{
    bool neg = *s == '-';
    if (neg) s++;
    int64_t v = 0;
    for (; isdigit((unsigned char)*s); s++)
        if ((v = v * 10 + (*s - '0')) >= 0x7fffffff) return -1;
    if (*s) return -1;
    *out = neg ? -v : v;
    return 0;
}

/* PAM (P7): WIDTH and HEIGHT, each once, before ENDHDR; an unknown field
 * ends the header unread, as for OpenCV. */
static int pam_size(const hdr *h, int *w, int *ht)
{
    size_t p = 2;
    int c = next_byte(h, &p);
    if (c != '\n' && c != '\r') return -1;
    static const char *const known[] = {"ENDHDR", "HEIGHT", "WIDTH", "DEPTH", "MAXVAL", "TUPLTYPE"};
    int64_t dims[2] = {-1, -1};
    char ident[9], value[256];
    for (;;) {
        if (pam_field(h, &p, ident, value) != 0) return -1;
        if (!ident[0]) continue;
        size_t k = 0;
        while (k < sizeof known / sizeof known[0] && strcmp(ident, known[k])) k++;
        if (k == sizeof known / sizeof known[0]) return -1;
        if (k == 0) break;
        if (k <= 2) {
            int64_t v;
            if (dims[2 - k] != -1 || pam_int(value, &v) != 0) return -1;
            dims[2 - k] = v;
        }
    }
    return dims[0] < 0 || dims[1] < 0 ? -1 : found((uint64_t)dims[0], (uint64_t)dims[1], w, ht);
}

/* PFM: "PF\n", then width and height as atoi() of the bytes up to the
 * next space each (read_number). */
static int pfm_size(const hdr *h, int *w, int *ht)
{
    size_t p = 2;
    if (next_byte(h, &p) != '\n') return -1;
    long dims[2];
    for (int k = 0; k < 2; k++) {
        char tok[2049];
        size_t n = 0;
        int c;
        while (n < 2048 && (c = next_byte(h, &p)) >= 0 && !isspace(c)) tok[n++] = (char)c;
        if (n < 2048 && c < 0) return -1;
        tok[n] = 0;
        dims[k] = (int)strtol(tok, NULL, 10); /* atoi, overflow included */
    }
    return dims[0] <= 0 || dims[1] <= 0 ? -1 : found((uint64_t)dims[0], (uint64_t)dims[1], w, ht);
}

/* Radiance HDR (RGBE_ReadHeader): lines read in pieces of at most 127
 * bytes, as fgets with a 128-byte buffer does; the header ends at a piece
 * that is just "\n", and the next piece is "-Y H +X W". */
static int hdr_size(const hdr *h, int *w, int *ht)
{
    size_t p = 0;
    char buf[128];
    for (bool first = true;; first = false) {
        size_t n = 0;
        int c = 0;
        while (n < 127 && (c = next_byte(h, &p)) >= 0) {
            buf[n++] = (char)c;
            if (c == '\n') break;
        }
        if (n == 0) return -1;
        buf[n] = 0;
        if (!first && !strcmp(buf, "\n")) break;
        if (!first && buf[0] == 0) return -1;
    }
    size_t n = 0;
    int c;
    while (n < 127 && (c = next_byte(h, &p)) >= 0) {
        buf[n++] = (char)c;
        if (c == '\n') break;
    }
    buf[n] = 0;
    int rows, cols;
    if (sscanf(buf, "-Y %d +X %d", &rows, &cols) < 2 || rows <= 0 || cols <= 0) return -1;
    return found((uint64_t)cols, (uint64_t)rows, w, ht);
}

int cvshim_image_header_size(const uint8_t *data, size_t len, int *w, int *h, const char **format)
{
    hdr H = {data, data ? len : 0, true};
    const char *fmt = "unknown";
    int r = -1;
    if (has(&H, 128, 4) && !memcmp(data + 128, "DICM", 4)) {
        /* OpenCV would hand it to GDCM, whose reader aborts the process on
         * a broken file (found by the fuzz target): no DICOM here, not even
         * behind another format's magic, since a decoder that refuses it
         * passes it on to the next whose signature fits */
        fmt = "DICOM";
    } else if (is_png(&H) && has(&H, 0, 24) && !memcmp(data + 12, "IHDR", 4)) {
        fmt = "PNG";
        r = found(u32(&H, 16), u32(&H, 20), w, h);
    } else if (is_jpeg(&H)) {
        fmt = "JPEG";
        r = jpeg_size(&H, w, h);
    } else if (has(&H, 0, 26) && data[0] == 'B' && data[1] == 'M') {
        fmt = "BMP";
        H.big_endian = false;
        if (u32(&H, 14) == 12) {
            r = found(u16(&H, 18), u16(&H, 20), w, h);
        } else {
            int32_t bw = (int32_t)u32(&H, 18), bh = (int32_t)u32(&H, 22);
            r = bw <= 0 || bh == INT32_MIN ? -1 : found((uint64_t)bw, (uint64_t)(bh < 0 ? -(int64_t)bh : bh), w, h);
        }
    } else if (has(&H, 0, 8) && (!memcmp(data, "II*\0", 4) || !memcmp(data, "MM\0*", 4) ||
                                 !memcmp(data, "II+\0", 4) || !memcmp(data, "MM\0+", 4))) {
        fmt = "TIFF";
        r = tiff_size(&H, w, h);
    } else if (has(&H, 0, 16) && !memcmp(data, "RIFF", 4) && !memcmp(data + 8, "WEBP", 4)) {
        fmt = "WebP";
        H.big_endian = false;
        r = webp_size(&H, w, h);
    } else if (has(&H, 0, 3) && data[0] == 'P' && (data[1] == '7' || (data[1] >= '1' && data[1] <= '6') ||
                                                    data[1] == 'F' || data[1] == 'f')) {
        fmt = data[1] == '7' ? "PAM" : data[1] == 'F' || data[1] == 'f' ? "PFM" : "PNM";
        size_t p = 2;
        uint64_t pw, ph;
        if (data[1] == '7') r = pam_size(&H, w, h);
        else if (data[1] == 'F' || data[1] == 'f') r = pfm_size(&H, w, h);
        else if (pnm_number(&H, &p, &pw) == 0 && pnm_number(&H, &p, &ph) == 0) r = found(pw, ph, w, h);
    } else if (has(&H, 0, 12) && data[0] == 0x59 && data[1] == 0xA6 && data[2] == 0x6A && data[3] == 0x95) {
        fmt = "Sun raster";
        r = found(u32(&H, 4), u32(&H, 8), w, h);
    } else if (has(&H, 0, 6) && (!memcmp(data, "#?RADI", 6) || !memcmp(data, "#?RGBE", 6))) {
        fmt = "Radiance HDR";
        r = hdr_size(&H, w, h);
    }
    if (format) *format = fmt;
    return r;
}

/* The orientation tag (0x0112) of the first IFD of an EXIF block's TIFF
 * data t (n bytes); 1 when there is none or it is out of range. */
static int exif_orientation(const uint8_t *t, size_t n)
{
    hdr x = {t, n, false};
    if (!has(&x, 0, 8)) return 1;
    if (t[0] == 'M' && t[1] == 'M') x.big_endian = true;
    else if (!(t[0] == 'I' && t[1] == 'I')) return 1;
    if (u16(&x, 2) != 42) return 1;
    uint32_t ifd = u32(&x, 4);
    if (!has(&x, ifd, 2)) return 1;
    unsigned count = u16(&x, ifd);
    for (unsigned i = 0; i < count; i++) {
        size_t e = (size_t)ifd + 2 + 12 * (size_t)i;
        if (!has(&x, e, 12)) return 1;
        if (u16(&x, e) != 0x0112) continue;
        unsigned v = u16(&x, e + 8); /* a SHORT, left-justified in the value field */
        return v >= 1 && v <= 8 ? (int)v : 1;
    }
    return 1;
}

int cvshim_image_orientation(const uint8_t *data, size_t len)
{
    hdr H = {data, data ? len : 0, true};
    if (!is_jpeg(&H)) return 1;
    size_t p = 2;
    while (has(&H, p, 4)) {
        if (H.p[p] != 0xFF) return 1;
        unsigned m = H.p[p + 1];
        if (m == 0xFF) { p++; continue; }
        if (jpeg_standalone(m)) { p += 2; continue; }
        if (m == 0xD9 || m == 0xDA) return 1; /* the image data: no EXIF before it */
        uint32_t seg = u16(&H, p + 2);
        if (seg < 2) return 1;
        if (m == 0xE1 && seg >= 8 && has(&H, p + 4, (size_t)seg - 2) && !memcmp(H.p + p + 4, "Exif\0\0", 6))
            return exif_orientation(H.p + p + 10, (size_t)seg - 8);
        p += 2 + (size_t)seg;
    }
    return 1;
}

gs_status cvshim_image_check_complete(const uint8_t *data, size_t len, gs_error *err)
{
    hdr H = {data, data ? len : 0, true};
    const char *cut = NULL;
    if (is_jpeg(&H) && !jpeg_complete(&H))
        cut = "JPEG cut short: its end-of-image marker is missing";
    else if (is_png(&H) && !png_complete(&H))
        cut = "PNG cut short: its chunks stop before IEND";
    if (!cut) return GS_OK;
    return gs_error_set(err, GS_ERR_FORMAT, "not a readable image (%s)", cut);
}

gs_status cvshim_image_check_budget(const uint8_t *data, size_t len, long long max_pixels, gs_error *err)
{
    int w = 0, h = 0;
    const char *fmt;
    if (cvshim_image_header_size(data, len, &w, &h, &fmt) != 0) {
        if (!strcmp(fmt, "unknown") || !strcmp(fmt, "DICOM"))
            return gs_error_set(err, GS_ERR_FORMAT,
                                "not a readable image (not JPEG, PNG, BMP, TIFF, WebP, PNM, Sun raster or Radiance HDR)");
        return gs_error_set(err, GS_ERR_FORMAT, "not a readable image (%s header broken or without a size)", fmt);
    }
    long long budget = cvshim_max_pixels(max_pixels);
    long long px = (long long)w * h;
    if (px > budget) {
        return gs_error_set(err, GS_ERR_FORMAT,
                            "%d x %d %s is %lld pixels, over the pixel budget of %lld (raise it with --max-pixels N or "
                            "GOSCRIBE_MAX_PIXELS)",
                            w, h, fmt, px, budget);
    }
    return GS_OK;
}
