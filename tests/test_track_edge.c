/* tests/test_track_edge.c: a stone on the outer line is centred on it; a
 * stone lying on the margin band beside an edge point is not on that point
 * (track_margin_on_line, and the tracker's settled views through it).
 * Rendered boards with the rules' margin (2.5 cm), several cameras, 9x9 and
 * 13x13: every edge point holding a stone passes, every edge point beside a
 * stone lying on the margin (as resignation stones are put) does not. */
#include "testutil.h"

#include "track/track.h"
#include "samples/render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static render_params edge_look(uint64_t seed, int size)
{
    render_params p;
    gs_test_still_params(&p, seed, size, 640, 360);
    p.margin_mm = 25;
    return p;
}

/* The edge points of a board of n: (x, y) pairs, 4 (n - 1) of them. */
static int edge_points(int n, int (*pt)[2])
{
    int k = 0;
    for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++)
            if (x == 0 || y == 0 || x == n - 1 || y == n - 1) {
                pt[k][0] = x;
                pt[k][1] = y;
                k++;
            }
    return k;
}

/* Stones on every other edge point (alternating colours, corners included),
 * then on the others: each stone read on the line as on it. */
static void test_edge_stones_are_on_the_line(void **state)
{
    (void)state;
    static const int sizes[2] = {9, 13};
    for (int si = 0; si < 2; si++)
        for (uint64_t seed = 1; seed <= 4; seed++) {
            int n = sizes[si], pt[4 * GS_MAX_SIZE][2];
            int np = edge_points(n, pt);
            render_params p = edge_look(seed, n);
            vision_grid g;
            render_scene *sc = gs_test_scene(&p, &g);
            for (int half = 0; half < 2; half++) {
                render_state st;
                render_state_init(&st, n);
                for (int k = half; k < np; k += 2)
                    gs_position_set(&st.pos, pt[k][0], pt[k][1], (k / 2) % 2 ? GS_WHITE : GS_BLACK);
                gs_image *img = gs_test_frame(sc, &st);
                for (int k = half; k < np; k += 2) {
                    gs_color c = gs_position_get(&st.pos, pt[k][0], pt[k][1]);
                    if (!track_margin_on_line(img, &g, pt[k][0], pt[k][1], c))
                        fail_msg("%dx%d seed %d: the %s stone at (%d,%d) taken as off its line", n, n, (int)seed,
                                 c == GS_BLACK ? "black" : "white", pt[k][0], pt[k][1]);
                }
                gs_image_destroy(img);
            }
            render_scene_destroy(sc);
        }
}

/* A stone lying on the margin at each side, level with an edge point and
 * half-way between two: the edge points beside it are not holding it. */
static void test_margin_stone_is_off_the_line(void **state)
{
    (void)state;
    static const int sizes[2] = {9, 13};
    for (int si = 0; si < 2; si++)
        for (uint64_t seed = 1; seed <= 4; seed++) {
            int n = sizes[si];
            render_params p = edge_look(seed, n);
            vision_grid g;
            render_scene *sc = gs_test_scene(&p, &g);
            double o = gs_test_margin_out(&p);
            for (int side = 0; side < 4; side++)
                for (int between = 0; between < 2; between++) {
                    double t = 3 + 0.5 * between; /* along the side */
                    double u = side == 0 || side == 2 ? t : side == 1 ? n - 1 + o : -o;
                    double v = side == 1 || side == 3 ? t : side == 2 ? n - 1 + o : -o;
                    gs_color c = (side + between) % 2 ? GS_WHITE : GS_BLACK;
                    render_state st;
                    render_state_init(&st, n);
                    st.nmargin = 1;
                    st.margin[0] = (render_margin_stone){u, v, c, 1};
                    gs_image *img = gs_test_frame(sc, &st);
                    /* the edge points level with it or either side */
                    for (int k = 3; k <= 3 + between; k++) {
                        int x = side == 0 || side == 2 ? k : side == 1 ? n - 1 : 0;
                        int y = side == 1 || side == 3 ? k : side == 2 ? n - 1 : 0;
                        if (track_margin_on_line(img, &g, x, y, c))
                            fail_msg("%dx%d seed %d: the %s stone lying %.2f cell out at (%.1f,%.1f) taken as one "
                                     "on (%d,%d)",
                                     n, n, (int)seed, c == GS_BLACK ? "black" : "white", o, u, v, x, y);
                    }
                    gs_image_destroy(img);
                }
            render_scene_destroy(sc);
        }
}

/* Points inside the board, and nonsense, are no business of it. */
static void test_inside_points_and_bad_input(void **state)
{
    (void)state;
    render_params p = edge_look(1, 9);
    vision_grid g;
    render_scene *sc = gs_test_scene(&p, &g);
    render_state st;
    render_state_init(&st, 9);
    gs_image *img = gs_test_frame(sc, &st);
    assert_true(track_margin_on_line(img, &g, 4, 4, GS_BLACK));
    assert_true(track_margin_on_line(NULL, &g, 0, 4, GS_BLACK));
    assert_true(track_margin_on_line(img, NULL, 0, 4, GS_BLACK));
    assert_true(track_margin_on_line(img, &g, 0, 4, GS_EMPTY));
    gs_image_destroy(img);
    render_scene_destroy(sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edge_stones_are_on_the_line),
        cmocka_unit_test(test_margin_stone_is_off_the_line),
        cmocka_unit_test(test_inside_points_and_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
