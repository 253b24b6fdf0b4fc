/* tests/test_grid_wide.c: a small board in a wide scene.  A 9x9 or 13x13
 * spanning a quarter to two fifths of a 1920x1080 frame, with bowls, lids,
 * a stone, a cable and papers around it (renders of samples/render.h):
 * on the working copy the finder first looks at (800 px) its lines are
 * under a pixel wide; refused there, it looks again on larger copies.  It
 * finds 8 of these 10 (7 on the first copy alone, the stones helping) and
 * refuses the others (see the known gaps in doc/evaluation.md).  A board it answers
 * must be this one, at its size, within 0.3 cell of the renderer's
 * corners and read right at every point: the bowl and papers beside one
 * 13x13 once passed for the game going on past its side, and a 19x19
 * reaching three lines onto the table came out of a larger copy before
 * a grid found there had to show its lines clearly. */
#include "testutil.h"
#include "tests/testvision.h"

#include "samples/render.h"
#include "vision/vision.h"

#include <stdlib.h>

typedef struct wide_case {
    uint64_t seed;
    int size;
    double fill;
} wide_case;

static const wide_case cases[] = {
    {3, 9, 0.3}, {4, 13, 0.3}, {5, 9, 0.25}, {6, 13, 0.35}, {7, 9, 0.4},
    {8, 13, 0.25}, {9, 9, 0.35}, {10, 13, 0.4}, {11, 9, 0.3}, {12, 13, 0.35},
};

/* 1 when found and right, 0 when refused; fails the test when wrong. */
static int check_case(const wide_case *c)
{
    render_params p;
    gs_test_still_params(&p, c->seed, c->size, 1920, 1080);
    p.fill = c->fill;
    p.objects = true;
    vision_grid truth, g;
    render_scene *sc = gs_test_scene(&p, &truth);
    render_state st;
    render_state_init(&st, c->size);
    gs_test_scatter_stones(&st, c->size, (unsigned)c->seed, c->size * c->size / 3); /* about a third of the points */
    gs_image *img = gs_test_frame(sc, &st);
    gs_error e = {0};
    int found = 0;
    if (test_grid_find(img, 0, &g, NULL, &e) != GS_OK) {
        print_message("seed %d %dx%d fill %.2f: %s\n", (int)c->seed, c->size, c->size, c->fill, e.msg);
        goto done;
    }
    assert_int_equal(g.size, c->size);
    double worst = gs_test_corner_error(&truth, &g);
    vision_reading *rd = malloc(sizeof *rd);
    assert_non_null(rd);
    assert_int_equal(test_read(img, &g, rd, &e), GS_OK);
    int wrong = 0;
    for (int v = 0; v < c->size; v++)
        for (int u = 0; u < c->size; u++) {
            int bu = 0, bv = 0;
            gs_test_nearest_point(&truth, &g, u, v, &bu, &bv);
            wrong += rd->pos.cell[v * c->size + u] != gs_position_get(&st.pos, bu, bv);
        }
    free(rd);
    print_message("seed %d %dx%d fill %.2f: found, corners within %.2f cell, %d points wrong\n", (int)c->seed, c->size,
                  c->size, c->fill, worst, wrong);
    assert_true(worst < 0.3);
    assert_int_equal(wrong, 0);
    found = 1;
done:
    gs_image_destroy(img);
    render_scene_destroy(sc);
    return found;
}

static void test_small_board_in_wide_scene(void **state)
{
    (void)state;
    int found = 0, n = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (gs_test_sanitized() && i % 2 != 0) continue; /* under the sanitizers, every other case */
        found += check_case(&cases[i]);
        n++;
    }
    print_message("%d of %d small boards found, the others refused\n", found, n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_board_in_wide_scene),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
