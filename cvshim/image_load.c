/* cvshim/image_load.c: a photo file -> gs_image, with the error a user can
 * act on (missing, empty, too large, undecodable) before OpenCV's own
 * message.  The file is read once into memory (no larger than an image
 * within the pixel budget could be), its header sized, then decoded. */
#include "cvshim/cvshim.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The largest file an image within the budget can be: 8 bytes a pixel
 * (16-bit RGBA, uncompressed) and a megabyte of metadata. */
static size_t file_cap(long long budget)
{
    const long long meta = 1 << 20;
    if (budget > (long long)((SIZE_MAX / 2 - (size_t)meta) / 8)) return SIZE_MAX / 2;
    return (size_t)(budget * 8 + meta);
}

gs_image *cvshim_image_load_as(const char *path, const cvshim_decode *how, cvshim_decoded *done, gs_error *err)
{
    long long max_pixels = how ? how->max_pixels : 0;
    struct stat st;
    if (stat(path, &st) != 0) { gs_error_set(err, GS_ERR_IO, "%s: %s", path, strerror(errno)); return NULL; }
    if (S_ISDIR(st.st_mode)) { gs_error_set(err, GS_ERR_IO, "%s: a folder, not a photo", path); return NULL; }
    long long budget = cvshim_max_pixels(max_pixels);
    size_t cap = file_cap(budget);
    if (S_ISREG(st.st_mode) && (unsigned long long)st.st_size > cap) {
        gs_error_set(err, GS_ERR_FORMAT, "%s: %lld bytes, larger than any image within the pixel budget of %lld pixels",
                     path, (long long)st.st_size, budget);
        return NULL;
    }
    char *data = NULL;
    size_t len = 0;
    gs_error e;
    gs_status s = gs_file_read(path, cap, &data, &len, &e);
    if (s != GS_OK) { gs_error_set(err, s, "%s: %s", path, e.msg); return NULL; }
    if (len == 0) {
        free(data);
        gs_error_set(err, GS_ERR_FORMAT, "%s: empty file", path);
        return NULL;
    }
    gs_error e2;
    cvshim_decode h = how ? *how : (cvshim_decode){0};
    h.max_pixels = budget;
    gs_image *img = cvshim_image_decode_as((const uint8_t *)data, len, &h, done, &e2);
    free(data);
    if (!img) gs_error_set(err, GS_ERR_FORMAT, "%s: %s", path, e2.msg);
    return img;
}

gs_image *cvshim_image_load_max(const char *path, long long max_pixels, gs_error *err)
{
    cvshim_decode how = {.max_pixels = max_pixels};
    return cvshim_image_load_as(path, &how, NULL, err);
}

gs_image *cvshim_image_load(const char *path, gs_error *err)
{
    return cvshim_image_load_max(path, 0, err);
}
