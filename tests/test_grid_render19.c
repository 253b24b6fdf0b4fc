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

#include "samples/render.h"
#include "vision/vision.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Scatters nstones stones over the board from a small LCG (deterministic,
 * independent of the renderer's seed stream), alternating colours. */
static void scatter_stones(render_state *st, int n, unsigned seed, int nstones)
{
    unsigned r = seed * 2654435761u + 1;
    for (int k = 0; k < nstones; k++) {
        r = r * 1103515245u + 12345u;
        int u = (int)((r >> 8) % (unsigned)n);
        r = r * 1103515245u + 12345u;
        int v = (int)((r >> 8) % (unsigned)n);
        gs_position_set(&st->pos, u, v, (k & 1) ? GS_WHITE : GS_BLACK);
    }
}

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
    scatter_stones(&st, N, (unsigned)seed, nstones);
    gs_image *img = gs_test_frame(sc, &st);
    gs_error e = {0};
    double cell = hypot(truth.corners[1][0] - truth.corners[0][0], truth.corners[1][1] - truth.corners[0][1]) / (N - 1);
    int fail = 0;
    gs_status s = vision_grid_find(img, 0, &g, &e);
    if (s != GS_OK || g.size != N) {
        print_message("seed %d %dx%d: %s\n", (int)seed, width, height, s != GS_OK ? e.msg : "wrong board size");
        fail = 1;
        goto done;
    }
    /* the finder names the corners by the picture (top edge first), the
     * renderer by the board: compare each with the nearest */
    double worst = 0;
    for (int i = 0; i < 4; i++) {
        double best = 1e300;
        for (int j = 0; j < 4; j++)
            best = fmin(best, hypot(g.corners[i][0] - truth.corners[j][0], g.corners[i][1] - truth.corners[j][1]));
        worst = fmax(worst, best / cell);
    }
    if (worst > 0.3) {
        print_message("seed %d %dx%d: a corner %.2f cell from the truth\n", (int)seed, width, height, worst);
        fail = 1;
        goto done;
    }
    vision_reading *rd = malloc(sizeof *rd);
    assert_non_null(rd);
    assert_int_equal(vision_read(img, &g, rd, &e), GS_OK);
    int wrong = 0;
    for (int v = 0; v < N; v++)
        for (int u = 0; u < N; u++) {
            /* the board point under this found point */
            double x, y, bd = 1e300;
            int bu = 0, bv = 0;
            vision_grid_map(&g, u, v, &x, &y);
            for (int b = 0; b < N; b++)
                for (int a = 0; a < N; a++) {
                    double tx, ty;
                    vision_grid_map(&truth, a, b, &tx, &ty);
                    double d = hypot(tx - x, ty - y);
                    if (d < bd) { bd = d; bu = a; bv = b; }
                }
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
