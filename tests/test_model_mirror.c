/* tests/test_model_mirror.c: the point model read over a view and its
 * mirror image (vision_model_read with mirrored, vision_params.model_mirror).
 * The mean of the two answers does not depend on which of the two images
 * it is given: read over a view's mirror image, it must be the view's
 * answer mirrored, to the last bit.  A window taken from the wrong column,
 * an answer mirrored back the wrong way or a turn undone in the wrong
 * frame breaks that.  The view here is noise over a lattice of 6 x 5
 * points (not a board: the model's answer does not matter, only where it
 * goes). */
#include "tests/testutil.h"

#include <stdlib.h>
#include <string.h>

#include "cvshim/cvshim.h"
#include "vision/vision.h"
#include "vision/vision_internal.h"

enum { NU = 6, NV = 5 };

/* A view of NU x NV lattice points whose input is seeded noise in the
 * model's input range; the caller frees input and inside. */
static vision_view noise_view(unsigned seed, int turn)
{
    vision_view vw;
    memset(&vw, 0, sizeof vw);
    vw.nu = NU;
    vw.nv = NV;
    vw.width = (NU - 1) * VISION_VIEW_CELL + VISION_VIEW_WINDOW;
    vw.height = (NV - 1) * VISION_VIEW_CELL + VISION_VIEW_WINDOW;
    vw.turn = turn;
    size_t n = 3 * (size_t)vw.width * vw.height;
    vw.input = malloc(sizeof *vw.input * n);
    vw.inside = malloc(NU * NV);
    assert_non_null(vw.input);
    assert_non_null(vw.inside);
    memset(vw.inside, 1, NU * NV);
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        vw.input[i] = -4.0f + 6.0f * (float)((seed >> 8) & 0xffff) / 65535.0f;
    }
    return vw;
}

/* src's planes flipped left to right (across) or top to bottom into dst. */
static void flip(const float *src, int planes, int w, int h, int across, float *dst)
{
    for (int c = 0; c < planes; c++)
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                int sx = across ? w - 1 - x : x, sy = across ? y : h - 1 - y;
                dst[((size_t)c * h + y) * w + x] = src[((size_t)c * h + sy) * w + sx];
            }
}

/* The mirrored reading of a noise view and of its image flipped `across`
 * (else top to bottom): the second is the first flipped alike. */
static void check_flip(cvshim_net *net, int turn, int across)
{
    vision_view a = noise_view(7u + (unsigned)turn, turn), b = a;
    b.input = malloc(sizeof *b.input * 3 * (size_t)a.width * a.height);
    assert_non_null(b.input);
    flip(a.input, 3, a.width, a.height, across, b.input);
    vision_probs pa = {0}, pb = {0};
    gs_error err = {0};
    assert_int_equal(vision_model_read(net, &a, 1, &pa, &err), GS_OK);
    assert_int_equal(vision_model_read(net, &b, 1, &pb, &err), GS_OK);
    assert_int_equal(pa.rows, 3 * (NV - 1) + 1);
    assert_int_equal(pa.cols, 3 * (NU - 1) + 1);
    float *back = malloc(sizeof *back * VISION_CLASSES * (size_t)pa.rows * pa.cols);
    assert_non_null(back);
    flip(pb.p, VISION_CLASSES, pb.cols, pb.rows, across, back);
    int differ = 0;
    for (size_t i = 0; i < (size_t)VISION_CLASSES * pa.rows * pa.cols; i++) differ += back[i] != pa.p[i];
    assert_int_equal(differ, 0);
    /* and the mean is not the single reading: the mirror was read */
    vision_probs one = {0};
    assert_int_equal(vision_model_read(net, &a, 0, &one, &err), GS_OK);
    int same = 0;
    for (size_t i = 0; i < (size_t)VISION_CLASSES * pa.rows * pa.cols; i++) same += one.p[i] == pa.p[i];
    assert_true(same < VISION_CLASSES * pa.rows * pa.cols);
    vision_probs_free(&one);
    free(back);
    vision_probs_free(&pa);
    vision_probs_free(&pb);
    free(b.input);
    free(a.input);
    free(a.inside);
}

/* Each turn of the view: upright and turned a half the mirror is left to
 * right; turned a quarter (the camera at a side of the view) it is across
 * the turned input, which is top to bottom in the view. */
static void test_mirror_every_turn(void **state)
{
    (void)state;
    gs_error err = {0};
    cvshim_net *net = vision_model_load(&err);
    assert_non_null(net);
    for (int turn = 0; turn < 4; turn++) check_flip(net, turn, !(turn & 1));
    cvshim_net_free(net);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mirror_every_turn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
