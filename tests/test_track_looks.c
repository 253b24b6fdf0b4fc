/* tests/test_track_looks.c: a point's reading may change only where its
 * look changed (track_looks).  Each view is the reading (what the reader
 * says) and the board as it is (what the points look like: wood, a black
 * stone's body, a white one's), under a light gain; out comes the settled
 * position and which points were kept as misreads. */
#include "testutil.h"

#include "track/track.h"
#include "samples/render.h"

#include <stdlib.h>
#include <string.h>

#define N 5

/* The looks of a board as it is ('.' wood, 'B', 'W'), rows top first,
 * spaces ignored, every channel scaled by gain. */
static void looks_of(const char *board, double gain, int16_t (*look)[3])
{
    static const int16_t wood[3] = {118, 160, 196}, black[3] = {38, 40, 44}, white[3] = {214, 220, 222};
    int i = 0;
    for (const char *s = board; *s && i < N * N; s++) {
        if (*s == ' ') continue;
        const int16_t *c = *s == 'B' ? black : *s == 'W' ? white : wood;
        for (int k = 0; k < 3; k++) look[i][k] = (int16_t)(c[k] * gain + 0.5);
        i++;
    }
    assert_int_equal(i, N * N);
}

static void position_of(const char *board, gs_position *p)
{
    gs_position_clear(p, N);
    int i = 0;
    for (const char *s = board; *s && i < N * N; s++) {
        if (*s == ' ') continue;
        p->cell[i++] = *s == 'B' ? GS_BLACK : *s == 'W' ? GS_WHITE : GS_EMPTY;
    }
}

typedef struct look_view {
    const char *read;      /* the reader's position */
    const char *is;        /* the board as it is */
    double gain;           /* the light */
    const char *want;      /* the settled position after the check */
    int want_kept;         /* points kept as misreads */
} look_view;

/* Feeds the views in order, each checked against the one before (the
 * first takes the references). */
static void run_views(const char *name, const look_view *v, int n)
{
    track_looks *l = calloc(1, sizeof *l);
    assert_non_null(l);
    gs_position before;
    for (int k = 0; k < n; k++) {
        int16_t look[N * N][3];
        gs_position pos, want;
        uint8_t unc[N * N] = {0};
        float conf[N * N];
        for (int i = 0; i < N * N; i++) conf[i] = 0.9f;
        looks_of(v[k].is, v[k].gain, look);
        position_of(v[k].read, &pos);
        position_of(v[k].want, &want);
        int kept = k == 0 ? (track_looks_reset(l, N, (const int16_t(*)[3])look), 0)
                          : track_looks_check(l, (const int16_t(*)[3])look, &before, &pos, unc, conf, 0.35f);
        print_message("%s, view %d: %d kept\n", name, k, kept);
        assert_int_equal(kept, v[k].want_kept);
        assert_memory_equal(pos.cell, want.cell, N * N);
        int marked = 0; /* only the kept points are marked unreadable */
        for (int i = 0; i < N * N; i++) {
            marked += unc[i] != 0;
            if (unc[i]) assert_true(conf[i] < 0.35f);
        }
        assert_int_equal(marked, v[k].want_kept);
        before = pos;
    }
    free(l);
}

/* The corner reads white in a view where nothing was put there (the light
 * a little brighter, a white stone played elsewhere): a misread, kept
 * empty; the stone played is taken. */
static void test_corner_flip_is_kept(void **state)
{
    (void)state;
    static const look_view v[] = {
        {". . . . .  . W W . .  . W B . .  . . . . .  . . . . .",
         ". . . . .  . W W . .  . W B . .  . . . . .  . . . . .", 1.0,
         ". . . . .  . W W . .  . W B . .  . . . . .  . . . . .", 0},
        {"W . . . .  . W W . .  . W B . .  . . . . W  . . . . .",
         ". . . . .  . W W . .  . W B . .  . . . . W  . . . . .", 1.08,
         ". . . . .  . W W . .  . W B . .  . . . . W  . . . . .", 1},
        /* again, the light gone dimmer still: the references follow it */
        {"W . . . .  . W W . .  . W B . .  . . . . W  . . . . .",
         ". . . . .  . W W . .  . W B . .  . . . . W  . . . . .", 0.9,
         ". . . . .  . W W . .  . W B . .  . . . . W  . . . . .", 1},
    };
    run_views("corner flip", v, 3);
}

/* Stones put and lifted change their points' looks: every change taken,
 * under a light that drifts by 12 %. */
static void test_stones_put_and_lifted_are_taken(void **state)
{
    (void)state;
    static const look_view v[] = {
        {". . . . .  . . . . .  . . . . .  . . . . .  . . . . .",
         ". . . . .  . . . . .  . . . . .  . . . . .  . . . . .", 1.0,
         ". . . . .  . . . . .  . . . . .  . . . . .  . . . . .", 0},
        {". . . . .  . B . . .  . . . . .  . . . . .  . . . . .",
         ". . . . .  . B . . .  . . . . .  . . . . .  . . . . .", 1.06,
         ". . . . .  . B . . .  . . . . .  . . . . .  . . . . .", 0},
        {". . . . .  . B . . .  . . . . .  . . . W .  . . . . .",
         ". . . . .  . B . . .  . . . . .  . . . W .  . . . . .", 1.12,
         ". . . . .  . B . . .  . . . . .  . . . W .  . . . . .", 0},
        {". . . . .  . . . . .  . . . . .  . . . W .  . . . . .",
         ". . . . .  . . . . .  . . . . .  . . . W .  . . . . .", 1.0,
         ". . . . .  . . . . .  . . . . .  . . . W .  . . . . .", 0},
    };
    run_views("stones put and lifted", v, 4);
}

/* A stone misread empty in the view it was put in, read as the stone it is
 * two views later: taken then (its look differs from the empty point's
 * that the reference kept). */
static void test_stone_misread_when_put_is_taken_later(void **state)
{
    (void)state;
    static const look_view v[] = {
        {". . . . .  . . . . .  . . . . .  . . . . .  . . . . .",
         ". . . . .  . . . . .  . . . . .  . . . . .  . . . . .", 1.0,
         ". . . . .  . . . . .  . . . . .  . . . . .  . . . . .", 0},
        {". . . . .  . . . . .  . . . . .  . . . . .  . . . . .",
         ". . . . .  . . . . .  . . W . .  . . . . .  . . . . .", 1.0,
         ". . . . .  . . . . .  . . . . .  . . . . .  . . . . .", 0},
        {". . . . .  . . . . .  . . . . .  . . . . .  . . . . .",
         ". . . . .  . . W . .  . . W . .  . . . . .  . . . . .", 1.03,
         ". . . . .  . . . . .  . . . . .  . . . . .  . . . . .", 0},
        {". . . . .  . . W . .  . . W . .  . . . . .  . . . . .",
         ". . . . .  . . W . .  . . W . .  . . . . .  . . . . .", 0.97,
         ". . . . .  . . W . .  . . W . .  . . . . .  . . . . .", 0},
    };
    run_views("misread when put", v, 4);
}

/* A stone read empty while it lies there (its look unchanged): kept, not
 * a stone lifted. */
static void test_stone_read_empty_is_kept(void **state)
{
    (void)state;
    static const look_view v[] = {
        {". . . . .  . . . . .  . . B . .  . . . . .  . . . . .",
         ". . . . .  . . . . .  . . B . .  . . . . .  . . . . .", 1.0,
         ". . . . .  . . . . .  . . B . .  . . . . .  . . . . .", 0},
        {". . . . .  . . . . .  . . . . .  . . . . .  . . . . .",
         ". . . . .  . . . . .  . . B . .  . . . . .  . . . . .", 1.05,
         ". . . . .  . . . . .  . . B . .  . . . . .  . . . . .", 1},
    };
    run_views("stone read empty", v, 2);
}

/* A photo folder (issue 50): each photo a settled view.  The photos of a
 * 9x9 board, a stone added in each (the first on a corner point), read by
 * a tracker that doubts every reading (min_confidence above any
 * confidence: each point is read unsure, as a corner stone a rival grid
 * reads otherwise is): a stone whose point's look changed is taken all
 * the same, in the photo it was put in; the points nothing was put on
 * stay as they were. */
static void test_photo_stone_plainly_shown_is_taken(void **state)
{
    (void)state;
    static const char *adds[] = {"B aa", "W ee", "B cg", "W ii"};
    vision_grid g;
    render_scene *sc = gs_test_still_scene(3, 9, 640, 480, &g);
    track_options o;
    track_options_init(&o);
    o.photos = true;
    o.min_confidence = 1.01; /* every reading unsure */
    o.have_grid = true;      /* (the grid as rendered: the points named as in the test) */
    o.grid = g;
    gs_error err = {0};
    track *t = track_create(&o, &err);
    assert_non_null(t);
    track_update *up = malloc(sizeof *up);
    assert_non_null(up);
    render_state st;
    render_state_init(&st, 9);
    for (int k = 0; k <= 4; k++) {
        if (k > 0) gs_test_edit(&st.pos, adds[k - 1]);
        gs_image *img = gs_test_frame(sc, &st);
        assert_int_equal(track_feed(t, img, 1000.0 * k, true, up, &err), GS_OK);
        gs_image_destroy(img);
        assert_true(up->settled);
        int wrong = 0;
        for (int i = 0; i < 81; i++)
            if (up->pos.cell[i] != st.pos.cell[i]) {
                wrong++;
                print_message("  (%d,%d): read %d, is %d\n", i % 9, i / 9, up->pos.cell[i], st.pos.cell[i]);
            }
        print_message("photo %d: %d points differ from the board, %d kept unsure\n", k, wrong, up->n_uncertain);
        assert_int_equal(wrong, 0);
    }
    free(up);
    track_destroy(t);
    render_scene_destroy(sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corner_flip_is_kept),
        cmocka_unit_test(test_stones_put_and_lifted_are_taken),
        cmocka_unit_test(test_stone_misread_when_put_is_taken_later),
        cmocka_unit_test(test_stone_read_empty_is_kept),
        cmocka_unit_test(test_photo_stone_plainly_shown_is_taken),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
