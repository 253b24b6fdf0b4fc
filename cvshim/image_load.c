/* cvshim/image_load.c: a photo file -> gs_image, with the error a user can
 * act on (missing, empty, undecodable) before OpenCV's own message. */
#include "cvshim/cvshim.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

gs_image *cvshim_image_load(const char *path, gs_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) { gs_error_set(err, GS_ERR_IO, "%s: %s", path, strerror(errno)); return NULL; }
    int c = fgetc(f);
    fclose(f);
    if (c == EOF) { gs_error_set(err, GS_ERR_FORMAT, "%s: empty file", path); return NULL; }
    char msg[256];
    gs_image *img = cvshim_image_read(path, msg, sizeof msg);
    if (!img) gs_error_set(err, GS_ERR_FORMAT, "%s: %s", path, msg);
    return img;
}
