/* core/gs_image.c: image allocation and PNG writing (libpng). Decoding
 * photos (mostly JPEG) is cvshim_image_load's job (cvshim/). */
#include "core/gs.h"

#include <errno.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

gs_image *gs_image_create(int width, int height, int channels)
{
    if (width <= 0 || height <= 0 || (channels != 1 && channels != 3) || width > 1 << 15 || height > 1 << 15)
        return NULL;
    gs_image *img = calloc(1, sizeof *img);
    if (!img) return NULL;
    img->width = width;
    img->height = height;
    img->channels = channels;
    img->stride = (width * channels + 15) & ~15; /* rows 16-byte aligned for SIMD-friendly loops */
    img->buf = calloc((size_t)img->stride, (size_t)height);
    if (!img->buf) { free(img); return NULL; }
    return img;
}

void gs_image_destroy(gs_image *img)
{
    if (!img) return;
    free(img->buf);
    free(img);
}

gs_image *gs_image_copy(const gs_image *src)
{
    gs_image *img = gs_image_create(src->width, src->height, src->channels);
    if (!img) return NULL;
    for (int y = 0; y < src->height; y++)
        memcpy(img->buf + (size_t)y * img->stride, src->buf + (size_t)y * src->stride, (size_t)src->width * src->channels);
    return img;
}

/* The rows of img into png (BGR -> RGB); row is a scratch row of
 * width * 3 bytes.  Errors longjmp to the caller's png_jmpbuf. */
static void png_put_image(png_structp png, png_infop info, const gs_image *img, uint8_t *row)
{
    png_set_IHDR(png, info, (png_uint_32)img->width, (png_uint_32)img->height, 8,
                 img->channels == 1 ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, 1); /* overlays, frames and evidence: speed over size */
    png_set_filter(png, 0, PNG_FILTER_SUB);
    png_write_info(png, info);
    for (int y = 0; y < img->height; y++) {
        const uint8_t *src = img->buf + (size_t)y * img->stride;
        if (img->channels == 1) {
            png_write_row(png, (png_const_bytep)src);
        } else {
            for (int x = 0; x < img->width; x++) { /* BGR -> RGB */
                row[3 * x] = src[3 * x + 2];
                row[3 * x + 1] = src[3 * x + 1];
                row[3 * x + 2] = src[3 * x];
            }
            png_write_row(png, row);
        }
    }
    png_write_end(png, NULL);
}

/* Where the PNG goes: a FILE (gs_image_write_png) or a gs_buf. */
static void png_to_buf(png_structp png, png_bytep data, size_t n) { gs_buf_add(png_get_io_ptr(png), (const char *)data, n); }
static void png_flush_none(png_structp png) { (void)png; }

/* img as PNG into f, or into b when f is NULL. */
static gs_status png_encode(const gs_image *img, FILE *f, gs_buf *b, const char *what, gs_error *err)
{
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    uint8_t *row = malloc((size_t)img->width * 3);
    if (!png || !info || !row) {
        png_destroy_write_struct(&png, &info);
        free(row);
        return gs_error_set(err, GS_ERR_NOMEM, "%s: out of memory", what);
    }
    /* volatile: libpng reports errors by longjmp back here. */
    uint8_t *volatile rowv = row;
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(rowv);
        return gs_error_set(err, GS_ERR_IO, "%s: PNG write failed", what);
    }
    if (f) png_init_io(png, f);
    else png_set_write_fn(png, b, png_to_buf, png_flush_none);
    png_put_image(png, info, img, row);
    png_destroy_write_struct(&png, &info);
    free(row);
    if (b && !gs_buf_ok(b)) return gs_error_set(err, GS_ERR_NOMEM, "%s: out of memory", what);
    return GS_OK;
}

gs_status gs_image_write_png(const gs_image *img, const char *path, gs_error *err)
{
    /* encoded first, then written whole: a full disk leaves no truncated
     * PNG, only the old file or none */
    gs_buf b = {0};
    gs_status st = png_encode(img, NULL, &b, path, err);
    if (st == GS_OK && gs_file_write_atomic(path, b.p, b.len, err) != GS_OK && err) {
        int cause = errno;
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err->msg);
        st = gs_error_set(err, err->status, "%s: %s", path, why);
        errno = cause;
    }
    gs_buf_free(&b);
    return st;
}

gs_status gs_image_encode_png(const gs_image *img, gs_buf *out, gs_error *err)
{
    return png_encode(img, NULL, out, "PNG", err);
}

bool gs_box_mean3(const gs_image *img, int x, int y, int out[3])
{
    if (x < 1 || y < 1 || x >= img->width - 1 || y >= img->height - 1) return false;
    int s[3] = {0, 0, 0};
    for (int dy = -1; dy <= 1; dy++) {
        const uint8_t *p = img->buf + (size_t)(y + dy) * (size_t)img->stride + (size_t)(x - 1) * (size_t)img->channels;
        for (int dx = 0; dx < 3; dx++, p += img->channels)
            for (int c = 0; c < 3; c++) s[c] += p[img->channels == 3 ? c : 0];
    }
    for (int c = 0; c < 3; c++) out[c] = s[c] / 9;
    return true;
}
