/* tests/test_overlay.c: the overlays a user corrects a reading with.  A
 * rendered finished 9x9 board (Black the left half, White the right) is
 * scanned and counted with --overlay; on each picture:
 *   - the coordinates stand outside the grid on all four sides (ink on a
 *     light patch where the photo has none),
 *   - a black stone is drawn with a light outline and a white one with a
 *     dark outline, around the stone (not a small dot in its middle),
 *   - the count's legend is in a band below the photo: the photo's corners
 *     are untouched. */
#include "testutil.h"

#include "cvshim/cvshim.h"
#include "record/record.h"
#include "samples/render.h"
#include "vision/vision.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void finished_board(render_state *st)
{
    render_state_init(st, 9);
    for (int v = 0; v < 9; v++) {
        gs_position_set(&st->pos, 3, v, GS_BLACK);
        gs_position_set(&st->pos, 5, v, GS_WHITE);
    }
}

static void px(const gs_image *img, int x, int y, int *lo, int *hi)
{
    const uint8_t *p = img->buf + (size_t)y * (size_t)img->stride + (size_t)x * (size_t)img->channels;
    *lo = *hi = p[0];
    for (int c = 1; c < img->channels; c++) {
        if (p[c] < *lo) *lo = p[c];
        if (p[c] > *hi) *hi = p[c];
    }
}

/* Ink (dark) and paper (light) pixels in the box of half-side h at (x, y). */
static void ink_and_paper(const gs_image *img, double x, double y, double h, int *ink, int *paper)
{
    *ink = *paper = 0;
    for (int yy = (int)(y - h); yy <= (int)(y + h); yy++)
        for (int xx = (int)(x - h); xx <= (int)(x + h); xx++) {
            if (xx < 0 || yy < 0 || xx >= img->width || yy >= img->height) continue;
            int lo, hi;
            px(img, xx, yy, &lo, &hi);
            *ink += hi < 70;
            *paper += lo > 170; /* the patch is 0.8 opaque: over a dark table too */
        }
}

/* Of 16 points on the circle of radius r around (x, y): how many are
 * light (light = true) or dark. */
static int ring_count(const gs_image *img, double x, double y, double r, bool light)
{
    int n = 0;
    for (int k = 0; k < 16; k++) {
        int lo, hi;
        px(img, (int)lrint(x + r * cos(k * M_PI / 8)), (int)lrint(y + r * sin(k * M_PI / 8)), &lo, &hi);
        n += light ? lo > 200 : hi < 60;
    }
    return n;
}

/* The coordinates on all four sides and the stones' outlines; g the true
 * grid (which corner the finder calls first does not matter here). */
static void check_marks(const char *what, const gs_image *photo, const gs_image *ov, const vision_grid *g)
{
    double side[4][2] = {{4, -0.85}, {4, 8.85}, {-0.85, 4}, {8.85, 4}};
    for (int k = 0; k < 4; k++) {
        double x, y, qx, qy;
        vision_grid_map(g, side[k][0], side[k][1], &x, &y);
        vision_grid_map(g, 4, 4, &qx, &qy);
        int ink0, paper0, ink, paper;
        ink_and_paper(photo, x, y, 6, &ink0, &paper0);
        ink_and_paper(ov, x, y, 6, &ink, &paper);
        print_message("%s: side %d label at (%.0f, %.0f): ink %d paper %d (photo %d %d)\n", what, k, x, y, ink, paper,
                      ink0, paper0);
        assert_true(ink >= 4 && paper >= 10);
        assert_true(paper0 == 0); /* no light patch there in the photo (wood or table) */
    }
    for (int v = 1; v < 8; v += 3) {
        double bx, by, wx, wy, nx, ny;
        vision_grid_map(g, 3, v, &bx, &by);
        vision_grid_map(g, 4, v, &nx, &ny);
        vision_grid_map(g, 5, v, &wx, &wy);
        double pitch = hypot(nx - bx, ny - by);
        /* the outline lies 0.29 to 0.36 of a cell out (the cell's size in
         * the picture varies a little with the view): the best radius */
        int b = 0, w = 0;
        for (double f = 0.29; f < 0.36; f += 0.02) {
            b = ring_count(ov, bx, by, f * pitch, true) > b ? ring_count(ov, bx, by, f * pitch, true) : b;
            w = ring_count(ov, wx, wy, f * pitch, false) > w ? ring_count(ov, wx, wy, f * pitch, false) : w;
        }
        print_message("%s: row %d: black stone's outline %d/16 light, white stone's %d/16 dark\n", what, v, b, w);
        assert_true(b >= 10 && w >= 10);
    }
}

static void test_overlays(void **state)
{
    (void)state;
    gs_error e = {0};
    vision_grid grid;
    render_scene *sc = gs_test_still_scene(3, 9, 640, 480, &grid);
    render_state st;
    finished_board(&st);
    gs_image *img = gs_test_frame(sc, &st);
    char path[64], out[64];
    snprintf(path, sizeof path, "/tmp/gs-overlay-%d.png", (int)getpid());
    snprintf(out, sizeof out, "/tmp/gs-overlay-%d-count.png", (int)getpid());
    assert_int_equal(gs_image_write_png(img, path, &e), GS_OK);

    /* scan --overlay */
    vision_result *res = calloc(1, sizeof *res);
    assert_non_null(res);
    vision_detector *det = vision_detector_create(NULL);
    assert_non_null(det);
    assert_int_equal(vision_detect_photo(det, img, NULL, res, &e), GS_OK);
    vision_detector_destroy(det);
    gs_image *ov = gs_image_copy(img);
    assert_non_null(ov);
    vision_draw_overlay(ov, &res->grid, &res->reading);
    check_marks("scan", img, ov, &grid);
    gs_image_destroy(ov);

    /* count --overlay */
    score_count_options o;
    score_count_options_init(&o);
    o.input = path;
    o.dead = SCORE_COUNT_DEAD_NONE;
    o.overlay_path = out;
    score_count_result *r = calloc(1, sizeof *r);
    assert_non_null(r);
    assert_int_equal(score_count_run(&o, r, &e), GS_OK);
    ov = cvshim_image_load(out, &e);
    assert_non_null(ov);
    check_marks("count", img, ov, &grid);
    /* the legend below the photo, the photo's corners as they were */
    assert_int_equal(ov->width, img->width);
    assert_true(ov->height >= img->height + 60);
    int ink, paper;
    ink_and_paper(ov, 60, img->height + (ov->height - img->height) / 2.0, 50, &ink, &paper);
    assert_true(ink > 50 && paper > 1000);
    for (int y = 0; y < 40; y++)
        for (int x = 0; x < 120; x++) {
            int a0, a1, b0, b1;
            px(img, x, y, &a0, &a1);
            px(ov, x, y, &b0, &b1);
            assert_true(abs(a0 - b0) <= 2 && abs(a1 - b1) <= 2);
        }
    unlink(path);
    unlink(out);
    gs_image_destroy(ov);
    free(r);
    free(res);
    gs_image_destroy(img);
    render_scene_destroy(sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overlays),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
