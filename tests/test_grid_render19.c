/* tests/test_grid_render19.c: board finding and reading on 19x19 frames of
 * the renderer (samples/render.h), where the cells are small (15..25 px),
 * the lines thin and the board often turned by about 45 degrees.  For each
 * seed the finder must find a 19x19 grid whose outer intersections lie
 * within 0.3 cell of the renderer's (render_grid), and the reading must be
 * exact.  The sparse boards use consecutive seeds; they include boards
 * whose edge lies about a cell beyond the outer line (it looked like a 20th
 * line).  On the crowded boards (250 stones thrown on) the few line pieces
 * between the stones fit a spacing some 10% off, and the seams between rows
 * of stones make a comb of half the spacing. */
#include "testutil.h"
#include "tests/testvision.h"

#include "samples/render.h"
#include "vision/vision.h"

#include <stdlib.h>
#include <string.h>

/* Renders one frame, finds and reads it; returns the number of failures
 * (0 or 1) and prints why. */
static int check_one(uint64_t seed, int width, int height, int nstones)
{
    const int N = 19;
    vision_grid truth, g;
    /* the first, clean frames of a recording */
    render_scene *sc = gs_test_still_scene(seed, N, width, height, &truth);
    render_state st;
    render_state_init(&st, N);
    gs_test_scatter_stones(&st, N, (unsigned)seed, nstones);
    gs_image *img = gs_test_frame(sc, &st);
    gs_error e = {0};
    int fail = 0;
    gs_status s = test_grid_find(img, 0, &g, NULL, &e);
    if (s != GS_OK || g.size != N) {
        print_message("seed %d %dx%d: %s\n", (int)seed, width, height, s != GS_OK ? e.msg : "wrong board size");
        fail = 1;
        goto done;
    }
    double worst = gs_test_corner_error(&truth, &g);
    if (worst > 0.3) {
        print_message("seed %d %dx%d: a corner %.2f cell from the truth\n", (int)seed, width, height, worst);
        fail = 1;
        goto done;
    }
    vision_reading *rd = malloc(sizeof *rd);
    assert_non_null(rd);
    assert_int_equal(test_read(img, &g, rd, &e), GS_OK);
    int wrong = 0;
    for (int v = 0; v < N; v++)
        for (int u = 0; u < N; u++) {
            int bu = 0, bv = 0;
            gs_test_nearest_point(&truth, &g, u, v, &bu, &bv);
            if (rd->pos.cell[v * N + u] != gs_position_get(&st.pos, bu, bv)) {
                if (wrong < 5)
                    print_message("seed %d %dx%d: point (%d,%d) read %d, truth %d\n", (int)seed, width, height, bu, bv,
                                  rd->pos.cell[v * N + u], gs_position_get(&st.pos, bu, bv));
                wrong++;
            }
        }
    free(rd);
    fail = wrong > 0;
done:
    gs_image_destroy(img);
    render_scene_destroy(sc);
    return fail;
}

static void test_render19_find_and_read(void **state)
{
    (void)state;
    /* under the sanitizers, every other case */
    int step = gs_test_sanitized() ? 2 : 1, fails = 0, n = 0;
    for (uint64_t seed = 8; seed <= 13; seed += (uint64_t)step, n++) fails += check_one(seed, 1280, 720, 60);
    for (uint64_t seed = 28; seed <= 33; seed += (uint64_t)step, n++) fails += check_one(seed, 960, 540, 60);
    print_message("%d of %d sparse boards wrong\n", fails, n);
    assert_int_equal(fails, 0);
}

static void test_render19_crowded(void **state)
{
    (void)state;
    static const uint64_t seeds[] = {24, 29, 35};
    int fails = 0;
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) fails += check_one(seeds[i], 1280, 720, 250);
    assert_int_equal(fails, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_render19_find_and_read),
        cmocka_unit_test(test_render19_crowded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
