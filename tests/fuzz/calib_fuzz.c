/* tests/fuzz/calib_fuzz.c: libFuzzer target for the calibration reader.
 *
 * Each input is read as a calibration file (calib_parse).  A failure must
 * be one line saying why.  A file that reads is used as scan and record
 * would use it: scaled to the frames (a 96 x 72 picture of wood and two
 * stones), every intersection read (vision_read, where the float-to-int
 * conversions are), the grid mapped over the margin the tracker samples,
 * then written and read back.  Any crash, sanitizer report or abort() is a
 * bug.  Built by scripts/fuzz-input.sh (long runs) and
 * tests/cli_fuzz_calib.sh (the suite's short run). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib.h"
#include "vision/vision_internal.h" /* the reader alone: no board finder, no OpenCV */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The frame the grid is used on: wood with a dark and a light disc. */
static gs_image *frame(void)
{
    gs_image *img = gs_image_create(96, 72, 3);
    if (!img) abort();
    for (int y = 0; y < 72; y++)
        for (int x = 0; x < 96; x++) {
            uint8_t *p = img->buf + (size_t)y * img->stride + 3 * (size_t)x;
            int d1 = (x - 30) * (x - 30) + (y - 30) * (y - 30), d2 = (x - 60) * (x - 60) + (y - 40) * (y - 40);
            uint8_t v = d1 < 36 ? 20 : d2 < 36 ? 235 : 0;
            p[0] = v ? v : (uint8_t)(90 + (x % 7));
            p[1] = v ? v : 160;
            p[2] = v ? v : 205;
        }
    return img;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 16384) return 0; /* calib_load reads no more */
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    calib_data c;
    gs_error e = {0};
    gs_status st = calib_parse(&c, text, &e);
    free(text);
    if (st != GS_OK) {
        if (!e.msg[0] || strchr(e.msg, '\n')) abort(); /* one line saying why */
        return 0;
    }
    gs_image *img = frame();
    if (calib_scale_to(&c, img->width, img->height, &e) == GS_OK) {
        vision_reading rd;
        vision_params P;
        vision_params_init(&P);
        (void)vision_read(&P, img, &c.grid, &rd, &e); /* any answer; no undefined behaviour */
        int n = c.grid.size;
        for (double u = -2; u <= n + 1; u += 0.5)
            for (double v = -2; v <= n + 1; v += 0.5) {
                double x, y;
                vision_grid_map(&c.grid, u, v, &x, &y);
                if (!isfinite(x) || !isfinite(y) || fabs(x) > 1e9 || fabs(y) > 1e9) {
                    fprintf(stderr, "a checked grid maps (%g, %g) to (%g, %g)\n", u, v, x, y);
                    abort();
                }
            }
    }
    gs_image_destroy(img);
    char *out = calib_format(&c);
    if (!out) abort();
    calib_data back;
    (void)calib_parse(&back, out, &e); /* rounding may move a borderline file either way */
    free(out);
    return 0;
}
