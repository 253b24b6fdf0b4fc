/* tests/test_occlusion.c: a hand resting still on the board is no stone.
 * Rendered frames (several cameras): a hand reaching in from either side
 * covers the points around its fingertips and nothing far from them; a
 * stone put on an edge point (no hand) covers nothing; a light change over
 * the whole board covers nothing; a hand that comes with an exposure step
 * (auto exposure: the whole picture 15-20 % darker or brighter) still
 * covers its points. */
#include "testutil.h"

#include "track/track.h"
#include "samples/render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define N 13

typedef struct fix {
    render_scene *scene;
    render_params p;
    vision_grid grid;
    render_state st;
    gs_image *img;
} fix;

static void fix_make(fix *f, uint64_t seed)
{
    gs_test_still_params(&f->p, seed, N, 640, 360);
    f->scene = gs_test_scene(&f->p, &f->grid);
    render_state_init(&f->st, N);
    /* a game in progress */
    static const char *const stones[] = {"B dd", "W jd", "B dj", "W jj", "B gg", "W gf", "B cf", "W kg"};
    for (size_t i = 0; i < sizeof stones / sizeof stones[0]; i++)
        gs_position_set(&f->st.pos, stones[i][2] - 'a', stones[i][3] - 'a',
                        stones[i][0] == 'B' ? GS_BLACK : GS_WHITE);
    f->img = gs_image_create(640, 360, 3);
    assert_non_null(f->img);
}

static void fix_free(fix *f)
{
    render_scene_destroy(f->scene);
    gs_image_destroy(f->img);
}

static int mark(fix *f, track_hands *o, uint8_t *cov)
{
    gs_error e;
    assert_int_equal(render_frame(f->scene, &f->st, f->img, &e), GS_OK);
    bool reaching;
    int n = track_hands_mark(o, f->img, &f->grid, cov, &reaching);
    if (n > 0) assert_true(reaching); /* covering implies reaching in */
    return n;
}

/* world mm of board point (x, y) */
static void world(const fix *f, double x, double y, double *wx, double *wy)
{
    *wx = (x - (N - 1) / 2.0) * f->p.cell_w_mm;
    *wy = (y - (N - 1) / 2.0) * f->p.cell_h_mm;
}

static void test_resting_hand_covers_its_points_only(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        fix f;
        fix_make(&f, seed);
        track_hands *o = track_hands_create();
        assert_non_null(o);
        uint8_t cov[N * N];
        assert_int_equal(mark(&f, o, cov), 0); /* first view: the reference */
        assert_int_equal(mark(&f, o, cov), 0); /* nothing changed */
        /* a hand from White's side (-y) resting with its fingertips on the
         * first line at column 9, then one from Black's side at column 3 */
        for (int k = 0; k < 2; k++) {
            gs_color side = k == 0 ? GS_WHITE : GS_BLACK;
            int col = k == 0 ? 9 : 3, row = k == 0 ? 0 : N - 1;
            double wx, wy;
            world(&f, col, row, &wx, &wy);
            f.st.hand = (render_hand){true, side, wx, wy, 12, 0, GS_EMPTY, 0};
            int ncov = mark(&f, o, cov);
            if (ncov == 0) fail_msg("seed %d: the hand at %c%d covers nothing", (int)seed, 'a' + col, row);
            assert_true(cov[row * N + col]);
            /* nothing far from the hand (3 cells from the fingertips, away
             * from the arm's side) */
            for (int y = 0; y < N; y++)
                for (int x = 0; x < N; x++) {
                    bool far = k == 0 ? y >= 4 : y <= N - 5;
                    if (far && cov[y * N + x])
                        fail_msg("seed %d: point %c%c covered, 4+ rows from the hand", (int)seed, 'a' + x, 'a' + y);
                }
            f.st.hand.present = false;
            assert_int_equal(mark(&f, o, cov), 0); /* gone: clear again */
        }
        track_hands_destroy(o);
        fix_free(&f);
    }
}

static void test_edge_stone_and_light_cover_nothing(void **state)
{
    (void)state;
    for (uint64_t seed = 5; seed <= 8; seed++) {
        fix f;
        fix_make(&f, seed);
        track_hands *o = track_hands_create();
        uint8_t cov[N * N];
        mark(&f, o, cov);
        /* stones put on edge and corner points */
        gs_position_set(&f.st.pos, 0, 6, GS_BLACK);
        gs_position_set(&f.st.pos, N - 1, N - 1, GS_WHITE);
        gs_position_set(&f.st.pos, 6, 0, GS_WHITE);
        gs_position_set(&f.st.pos, 7, N - 1, GS_BLACK);
        if (mark(&f, o, cov) != 0) fail_msg("seed %d: new edge stones taken for a hand", (int)seed);
        /* the whole scene 30 % darker */
        render_scene_destroy(f.scene);
        f.p.brightness *= 0.7;
        gs_error e;
        f.scene = render_scene_create(&f.p, &e);
        assert_non_null(f.scene);
        if (mark(&f, o, cov) != 0) fail_msg("seed %d: a light change taken for a hand", (int)seed);
        track_hands_destroy(o);
        fix_free(&f);
    }
    track_hands_destroy(NULL); /* NULL safe */
}

/* The scene again with its brightness scaled by `gain`. */
static void fix_relight(fix *f, double gain)
{
    render_scene_destroy(f->scene);
    f->p.brightness *= gain;
    gs_error e;
    f->scene = render_scene_create(&f->p, &e);
    assert_non_null(f->scene);
}

static void test_hand_with_exposure_step_covers(void **state)
{
    (void)state;
    static const double gains[] = {0.85, 1.18};
    for (uint64_t seed = 1; seed <= 4; seed++)
        for (int gi = 0; gi < 2; gi++) {
            fix f;
            fix_make(&f, seed);
            track_hands *o = track_hands_create();
            uint8_t cov[N * N];
            assert_int_equal(mark(&f, o, cov), 0); /* the reference */
            /* fingertips at the first line (column 4, row 0), and the
             * camera's exposure steps in the same view */
            double wx, wy;
            world(&f, 4, 0, &wx, &wy);
            f.st.hand = (render_hand){true, GS_WHITE, wx, wy, 12, 0, GS_EMPTY, 0};
            fix_relight(&f, gains[gi]);
            int ncov = mark(&f, o, cov);
            if (ncov == 0 || !cov[4])
                fail_msg("seed %d, exposure x%.2f: the hand at e1 covers %d points, not e1", (int)seed, gains[gi],
                         ncov);
            track_hands_destroy(o);
            fix_free(&f);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resting_hand_covers_its_points_only),
        cmocka_unit_test(test_edge_stone_and_light_cover_nothing),
        cmocka_unit_test(test_hand_with_exposure_step_covers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
