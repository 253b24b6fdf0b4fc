/* tests/fuzz/image_fuzz.c: libFuzzer target for image loading.
 *
 * Each input is sized from its header (cvshim_image_header_size) and
 * decoded under a pixel budget of 4 megapixels (cvshim_image_decode_max:
 * the header check, then OpenCV's decoders).  A refusal must be one line.
 * A decoded image must be exactly the size its header declared (the
 * budget is checked on the header: a decoder that made more pixels than
 * the header said would get past it) and within the budget.  Any crash,
 * sanitizer report or abort() is a bug.  Built by scripts/fuzz-input.sh
 * (long runs) and tests/cli_fuzz_image.sh (the suite's short run). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cvshim/cvshim.h"

#define FUZZ_BUDGET 4000000LL

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int w = 0, h = 0;
    const char *fmt = NULL;
    int sized = cvshim_image_header_size(data, size, &w, &h, &fmt);
    if (!fmt) abort();
    gs_error msg = {0};
    gs_image *img = cvshim_image_decode_max(data, size, FUZZ_BUDGET, &msg);
    if (!img) {
        if (!msg.msg[0] || strchr(msg.msg, '\n')) abort(); /* one line saying why */
        return 0;
    }
    if (sized != 0 || img->width != w || img->height != h) {
        fprintf(stderr, "%s header says %d x %d (%d), decoded %d x %d\n", fmt, w, h, sized, img->width, img->height);
        abort();
    }
    if ((long long)img->width * img->height > FUZZ_BUDGET || img->channels != 3) abort();
    gs_image_destroy(img);
    return 0;
}
