/* tests/test_count_doubt.c: `count` of a photo says when its reading is in
 * doubt.  A rendered finished 9x9 board is counted with no doubt; the same
 * photo with a half-transparent dark blot on an empty point (neither a
 * stone nor bare wood) must not be read as sure: that point is read with
 * doubt and the count gives the range of results its readings allow. */
#include "testutil.h"

#include "record/record.h"
#include "samples/render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Black owns the left four columns, White the right four, each behind a
 * wall two stones thick (a finished game's board is mostly stones: a
 * thinner one does not look finished, and its count is never sure); the
 * middle column is dame but for its two ends, and B5 is left empty (a
 * point Black surrounds, where the blot goes). */
static void finished_board(render_state *st)
{
    render_state_init(st, 9);
    for (int v = 0; v < 9; v++) {
        gs_position_set(&st->pos, 2, v, GS_BLACK);
        gs_position_set(&st->pos, 3, v, GS_BLACK);
        gs_position_set(&st->pos, 5, v, GS_WHITE);
        gs_position_set(&st->pos, 6, v, GS_WHITE);
    }
    gs_position_set(&st->pos, 4, 0, GS_BLACK);
    gs_position_set(&st->pos, 4, 8, GS_WHITE);
}

/* The point of the reading that shows truth point i under symmetry k (the
 * finder names the corners by the picture, the renderer by the board). */
static int sym(int i, int k)
{
    int u = i % 9, v = i / 9, t;
    if (k & 1) u = 8 - u;
    if (k & 2) v = 8 - v;
    if (k & 4) { t = u; u = v; v = t; }
    return v * 9 + u;
}

/* The symmetry under which the reading equals the truth; -1 if none. */
static int matching_symmetry(const gs_position *read, const gs_position *truth)
{
    for (int k = 0; k < 8; k++) {
        int i = 0;
        while (i < 81 && read->cell[sym(i, k)] == truth->cell[i]) i++;
        if (i == 81) return k;
    }
    return -1;
}

/* Counts the PNG at path (dead stones: none, the board is finished). */
static void count_photo(const char *path, score_count_result *r)
{
    score_count_options o;
    score_count_options_init(&o);
    o.input = path;
    o.dead = SCORE_COUNT_DEAD_NONE;
    gs_error err = {0};
    gs_status st = score_count_run(&o, r, &err);
    if (st != GS_OK) print_message("count: %s\n", err.msg);
    assert_int_equal(st, GS_OK);
    assert_int_equal(r->pos.size, 9);
}

static void test_blot_is_doubt(void **state)
{
    (void)state;
    gs_error e = {0};
    render_scene *sc = gs_test_still_scene(3, 9, 640, 480, NULL);
    render_state st;
    finished_board(&st);
    gs_image *img = gs_test_frame(sc, &st);
    char path[64];
    snprintf(path, sizeof path, "/tmp/gs-count-doubt-%d.png", (int)getpid());
    assert_int_equal(gs_image_write_png(img, path, &e), GS_OK);

    score_count_result *r = calloc(1, sizeof *r);
    assert_non_null(r);
    count_photo(path, r);
    assert_int_equal(r->read_uncertain, 0);
    assert_true(r->range.sure);
    int k = matching_symmetry(&r->pos, &st.pos);
    assert_true(k >= 0);

    /* the blot: a disc of a stone's size, darker and darker, on B5 (u 1,
     * v 4): faint it is wood, dense a stone; between the two the reading
     * must pass through doubt, never flip from one sure answer to the
     * other, and the count must give the range that doubt allows */
    double x, y, x1, y1;
    assert_true(render_project(sc, 1, 4, 0, 0, &x, &y));
    assert_true(render_project(sc, 2, 4, 0, 0, &x1, &y1));
    double r_blot = 0.45 * hypot(x1 - x, y1 - y);
    gs_image *clean = gs_image_copy(img);
    assert_non_null(clean);
    int b5 = sym(4 * 9 + 1, k), doubts = 0, last_sure = GS_EMPTY, flips = 0;
    for (int step = 0; step <= 20; step++) {
        double alpha = 0.2 + 0.03 * step;
        gs_image_destroy(img);
        img = gs_image_copy(clean);
        assert_non_null(img);
        gs_draw_disc(img, x, y, r_blot, (gs_bgr){10, 10, 10}, alpha);
        assert_int_equal(gs_image_write_png(img, path, &e), GS_OK);
        memset(r, 0, sizeof *r);
        count_photo(path, r);
        bool doubt = r->read_unsure[b5] != 0;
        int c = r->pos.cell[b5];
        print_message("blot %.2f on B5: %c%s, %d in doubt, %s: %s to %s\n", alpha, ".BW"[c % 3], doubt ? "?" : "",
                      r->read_uncertain, r->count.sgf, r->range.low_sgf, r->range.high_sgf);
        /* no other point is touched by the blot */
        gs_position rest = r->pos;
        rest.cell[b5] = GS_EMPTY;
        assert_int_equal(matching_symmetry(&rest, &st.pos), k);
        if (doubt) {
            doubts++;
            assert_true(r->read_uncertain >= 1);
            /* B5 read as its other colour is one of the readings: more
             * than the one read (and the point's own, if it moves the
             * result) */
            assert_true(r->range.readings >= 2);
            assert_true(r->range.low <= r->range.base && r->range.base <= r->range.high);
            for (int i = 0; i < 81; i++) assert_true(!r->range.check[i] || r->read_unsure[i]);
            last_sure = -1;
            continue;
        }
        assert_true(c == GS_EMPTY || c == GS_BLACK); /* a dark blot is never white */
        flips += last_sure >= 0 && c != last_sure;
        last_sure = c;
    }
    unlink(path);
    assert_true(doubts >= 1);
    assert_int_equal(flips, 0);
    gs_image_destroy(clean);
    free(r);
    gs_image_destroy(img);
    render_scene_destroy(sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blot_is_doubt),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
