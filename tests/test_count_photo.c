/* tests/test_count_photo.c: counting from a real photo gives the same count
 * as counting its ground-truth grid (the photo's NAME.txt), with the same
 * dead-stone setting: all alive, and the estimate (fixed playouts, so the
 * two runs see the same random numbers).  This depends on the scan reading
 * every intersection right: it fails when the reading is wrong. */
#include "cvshim/cvshim.h"
#include "tests/testutil.h"
#include "tests/testvision.h"

#include "record/record.h"
#include "rules/rules.h"
#include "vision/vision.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The test data holds no photo of a finished game; these are the real
 * photos with the most stones (t2_101: 97 stones late in a 19x19 game). */
static const char *PHOTOS[] = {"imago/t2/t2_101", "imago/t2/t2_077"};

static void count_both(const gs_position *pos, bool estimate, rules_count *out, uint8_t *dead)
{
    gs_error e;
    memset(dead, 0, RULES_ESTIMATE_POINTS);
    if (estimate) {
        rules_estimate_options o;
        rules_estimate_default_options(&o);
        o.playouts = gs_test_sanitized() ? 40 : 200;
        o.time_budget_ms = -1;
        rules_estimate_result *r = malloc(sizeof *r);
        assert_non_null(r);
        assert_int_equal(rules_estimate_dead(pos, &o, r, &e), GS_OK);
        memcpy(dead, r->dead, RULES_ESTIMATE_POINTS);
        free(r);
    }
    assert_int_equal(rules_count_position(pos, dead, NULL, out, &e), GS_OK);
}

static void test_photo_count_matches_grid(void **state)
{
    (void)state;
    GS_REQUIRE_DATA(dir, "photos");
    for (size_t k = 0; k < sizeof PHOTOS / sizeof PHOTOS[0]; k++) {
        char img_path[1024], txt_path[1024];
        snprintf(img_path, sizeof img_path, "%s/%s.jpg", dir, PHOTOS[k]);
        snprintf(txt_path, sizeof txt_path, "%s/%s.txt", dir, PHOTOS[k]);
        gs_error e = {0};
        gs_position truth;
        assert_int_equal(gs_position_load(&truth, txt_path, &e), GS_OK);
        gs_image *img = cvshim_image_load(img_path, &e);
        assert_non_null(img);
        vision_result *scan = calloc(1, sizeof *scan);
        assert_non_null(scan);
        gs_status st = test_scan(img, scan, &e);
        if (st != GS_OK) print_message("%s: %s\n", img_path, e.msg);
        assert_int_equal(st, GS_OK);
        assert_int_equal(scan->reading.pos.size, truth.size);
        int wrong = 0;
        for (int i = 0; i < truth.size * truth.size; i++) wrong += scan->reading.pos.cell[i] != truth.cell[i];
        if (wrong) print_message("%s: %d intersections read differently from the grid\n", img_path, wrong);

        for (int est = 0; est < 2; est++) {
            rules_count a, b;
            uint8_t da[RULES_ESTIMATE_POINTS], db[RULES_ESTIMATE_POINTS];
            count_both(&scan->reading.pos, est, &a, da);
            count_both(&truth, est, &b, db);
            print_message("%s, %s: photo %s (B %.1f W %.1f), grid %s (B %.1f W %.1f)\n", PHOTOS[k],
                          est ? "dead auto" : "dead none", a.sgf, a.black, a.white, b.sgf, b.black, b.white);
            assert_int_equal(a.black_stones, b.black_stones);
            assert_int_equal(a.white_stones, b.white_stones);
            assert_int_equal(a.dead_black, b.dead_black);
            assert_int_equal(a.dead_white, b.dead_white);
            assert_int_equal(a.dame, b.dame);
            assert_true(a.black == b.black && a.white == b.white);
            assert_string_equal(a.sgf, b.sgf);
            assert_memory_equal(da, db, RULES_ESTIMATE_POINTS);
        }
        free(scan);
        gs_image_destroy(img);
    }
}

/* The whole `goscribe count PHOTO` path (score_count_run): the photo
 * counted like its grid file, and the overlay written as a PNG of the
 * photo's size. */
static void test_count_run_photo(void **state)
{
    (void)state;
    GS_REQUIRE_DATA(dir, "photos");
    char img_path[1024], txt_path[1024], png[64];
    snprintf(img_path, sizeof img_path, "%s/%s.jpg", dir, PHOTOS[0]);
    snprintf(txt_path, sizeof txt_path, "%s/%s.txt", dir, PHOTOS[0]);
    snprintf(png, sizeof png, "/tmp/gs-test-count-photo-%d.png", (int)getpid());
    score_count_result *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    score_count_options o;
    score_count_options_init(&o);
    o.dead = SCORE_COUNT_DEAD_NONE;
    o.input = img_path;
    o.overlay_path = png;
    gs_error e = {0};
    gs_status st = score_count_run(&o, a, &e);
    if (st != GS_OK) print_message("%s\n", e.msg);
    assert_int_equal(st, GS_OK);
    assert_string_equal(a->source, "photo");
    o.input = txt_path;
    o.overlay_path = NULL;
    assert_int_equal(score_count_run(&o, b, &e), GS_OK);
    assert_string_equal(a->count.sgf, b->count.sgf);
    assert_true(a->count.black == b->count.black);
    gs_image *ov = cvshim_image_load(png, &e), *img = cvshim_image_load(img_path, &e);
    assert_non_null(ov);
    assert_non_null(img);
    assert_int_equal(ov->width, img->width);
    assert_true(ov->height > img->height); /* the legend's band below the photo */
    gs_image_destroy(ov);
    gs_image_destroy(img);
    unlink(png);
    free(a);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_photo_count_matches_grid),
        cmocka_unit_test(test_count_run_photo),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
