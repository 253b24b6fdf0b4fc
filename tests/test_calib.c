/* tests/test_calib.c: the calibration file format and a calibration made
 * from a source (calib/calib.h). */
#include "cvshim/cvshim.h"
#include "tests/testutil.h"
#include "tests/testvision.h"

#include "calib/calib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void make_sample(calib_data *c)
{
    calib_init(c);
    const double corners[4][2] = {{143.5, 28.25}, {551, 22.4}, {630.1, 446}, {26.5, 410.8}};
    gs_error e;
    assert_int_equal(vision_grid_from_corners(&c->grid, 19, corners, &e), GS_OK);
    c->image_width = 640;
    c->image_height = 480;
    c->grid.k1 = -0.031;
    c->grid.cx = 320;
    c->grid.cy = 240;
    c->grid.norm = 400;
    /* the stored corners are where the lens puts the outer intersections */
    for (int i = 0; i < 4; i++) {
        int n = 18;
        double u = (i == 1 || i == 2) ? n : 0, v = i >= 2 ? n : 0;
        vision_grid_map(&c->grid, u, v, &c->grid.corners[i][0], &c->grid.corners[i][1]);
    }
    c->grid.cell_aspect = 1.043;
    c->grid.confidence = 0.93;
    c->colour.valid = 1;
    c->colour.board[0] = 180; c->colour.board[1] = 135; c->colour.board[2] = 160;
    c->colour.black[0] = 30; c->colour.black[1] = 128; c->colour.black[2] = 128;
    c->colour.white[0] = 235; c->colour.white[1] = 127; c->colour.white[2] = 125;
    c->colour.threshold[0] = 0.4; c->colour.threshold[1] = 0.6;
}

static void test_roundtrip(void **state)
{
    (void)state;
    calib_data a, b;
    make_sample(&a);
    char path[] = "/tmp/gs_test_calib_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    gs_error e;
    assert_int_equal(calib_save(&a, path, &e), GS_OK);
    assert_int_equal(calib_load(&b, path, &e), GS_OK);
    unlink(path);
    assert_int_equal(b.image_width, 640);
    assert_int_equal(b.image_height, 480);
    assert_int_equal(b.grid.size, 19);
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 2; k++) assert_true(fabs(a.grid.corners[i][k] - b.grid.corners[i][k]) < 1e-3);
    for (int i = 0; i < 9; i++) assert_true(fabs(a.grid.H[i] - b.grid.H[i]) < 1e-6 * (1 + fabs(a.grid.H[i])));
    assert_true(fabs(b.grid.k1 + 0.031) < 1e-9);
    assert_true(fabs(b.grid.norm - 400) < 1e-3);
    assert_true(fabs(b.grid.cell_aspect - 1.043) < 1e-4);
    assert_true(fabs(b.grid.confidence - 0.93) < 1e-4);
    assert_true(b.colour.valid);
    assert_true(fabs(b.colour.white[0] - 235) < 0.01);
    assert_true(fabs(b.colour.threshold[1] - 0.6) < 1e-4);
    /* the mapping survives the trip */
    double x1, y1, x2, y2;
    vision_grid_map(&a.grid, 7.5, 3.25, &x1, &y1);
    vision_grid_map(&b.grid, 7.5, 3.25, &x2, &y2);
    assert_true(fabs(x1 - x2) < 1e-3 && fabs(y1 - y2) < 1e-3);
}

static void test_minimal_and_comments(void **state)
{
    (void)state;
    /* Only the required lines: H comes from the corners; unknown keys of a
     * later version are ignored; comments and blank lines are fine. */
    const char *text =
        "# hand-written\n"
        "goscribe-calibration 1\n"
        "\n"
        "size 9   # a small board\n"
        "corners 100 100 500 100 500 500 100 500\n"
        "future_key 1 2 3\n";
    calib_data c;
    gs_error e;
    assert_int_equal(calib_parse(&c, text, &e), GS_OK);
    assert_int_equal(c.grid.size, 9);
    assert_false(c.colour.valid);
    double x, y;
    vision_grid_map(&c.grid, 4, 4, &x, &y);
    assert_true(fabs(x - 300) < 1e-6 && fabs(y - 300) < 1e-6);
    assert_true(fabs(c.grid.cell_aspect - 1) < 1e-9);
}

static void expect_error(const char *text, gs_status want, const char *needle)
{
    calib_data c;
    gs_error e = {0};
    gs_status s = calib_parse(&c, text, &e);
    if (s != want || !strstr(e.msg, needle)) print_message("wanted \"%s\", got %d \"%s\"\n", needle, s, e.msg);
    assert_int_equal(s, want);
    assert_non_null(strstr(e.msg, needle));
    assert_null(strchr(e.msg, '\n')); /* one line */
}

static void test_bad_files(void **state)
{
    (void)state;
    expect_error("", GS_ERR_FORMAT, "empty");
    expect_error("hello world\n", GS_ERR_FORMAT, "line 1");
    expect_error("goscribe-calibration 7\n", GS_ERR_FORMAT, "version");
    expect_error("goscribe-calibration 1\nsize 19\n", GS_ERR_FORMAT, "corners");
    expect_error("goscribe-calibration 1\ncorners 0 0 1 0 1 1 0 1\n", GS_ERR_FORMAT, "size");
    expect_error("goscribe-calibration 1\nsize 4\n", GS_ERR_FORMAT, "line 2");
    expect_error("goscribe-calibration 1\nsize 19\ncorners 1 2 3\n", GS_ERR_FORMAT, "line 3");
    expect_error("goscribe-calibration 1\nsize 19\ncorners 1 2 3 4 5 6 7 x8\n", GS_ERR_FORMAT, "line 3");
    expect_error("goscribe-calibration 1\nsize 19\ncorners 0 0 10 0 10 10 0 10\ncell_aspect -1\n", GS_ERR_FORMAT,
                 "line 4");
    expect_error("goscribe-calibration 1\nsize 19\ncorners 0 0 0 0 0 0 0 0\n", GS_ERR_FORMAT, "convex");

    calib_data c;
    gs_error e;
    assert_int_equal(calib_load(&c, "/nonexistent/board.cal", &e), GS_ERR_IO);
    assert_non_null(strstr(e.msg, "/nonexistent/board.cal"));
    /* binary garbage */
    char path[] = "/tmp/gs_test_calib_bad_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const unsigned char junk[] = {0x89, 'P', 'N', 'G', 0, 1, 2, 3};
    assert_int_equal(write(fd, junk, sizeof junk), (int)sizeof junk);
    close(fd);
    assert_int_equal(calib_load(&c, path, &e), GS_ERR_FORMAT);
    unlink(path);
}

/* The sample's text with one line replaced (key = the line's first word). */
static char *with_line(const char *key, const char *line)
{
    calib_data c;
    make_sample(&c);
    char *text = calib_format(&c);
    assert_non_null(text);
    char *at = strstr(text, key);
    assert_non_null(at);
    char *eol = strchr(at, '\n');
    size_t n = strlen(text) + strlen(line) + 2;
    char *out = malloc(n);
    assert_non_null(out);
    snprintf(out, n, "%.*s%s%s", (int)(at - text), text, line, eol);
    free(text);
    return out;
}

static void expect_grid_error(const char *key, const char *line, const char *needle)
{
    char *text = with_line(key, line);
    expect_error(text, GS_ERR_FORMAT, needle);
    free(text);
}

/* The grid as a whole is checked: the homography must be the corners' one
 * and a camera's (not all zero, not 1e300, not folding the board over the
 * horizon), the numbers in range, the sizes sane; each a one-line error. */
static void test_bad_grids(void **state)
{
    (void)state;
    char *ok = with_line("confidence", "confidence 0.93");
    calib_data c;
    gs_error e;
    assert_int_equal(calib_parse(&c, ok, &e), GS_OK);
    free(ok);
    expect_grid_error("homography", "homography 0 0 0 0 0 0 0 0 0", "does not map the board to a plane");
    expect_grid_error("homography", "homography 1e300 1e300 1e300 1e300 1e300 1e300 1e300 1e300 1e300",
                      "does not map the board to a plane");
    expect_grid_error("homography", "homography 1e300 0 0 0 1e300 0 0 0 1", "does not map the board to a plane");
    /* a real camera's homography, but not these corners': off by a cell */
    expect_grid_error("homography", "homography 23 0 168 0 23 48 0 0 1", "does not map the corners to the grid");
    /* a horizon through the board: w changes sign over it */
    expect_grid_error("homography", "homography 23 0 168 0 23 48 0 -0.1 1", "does not map the board to a plane");
    expect_grid_error("corners", "corners 143.5 28.25 551 22.4 1100 446 26.5 410.8", "far outside the 640 x 480 image");
    expect_grid_error("image", "image 640 0", "image size 640 x 0");
    expect_grid_error("image", "image 640.5 480", "line 3: bad value for 'image'");
    expect_grid_error("distortion", "distortion -0.031 320 240 0.5", "radius is under a pixel");
    expect_grid_error("distortion", "distortion -1 320 240 20", "blows the board up or folds it");
    expect_grid_error("distortion", "distortion -0.031 1e300 240 400", "bad value for 'distortion'");
    expect_grid_error("colour_black", "colour_black 30 128 1e9", "bad value for 'colour_black'");
    expect_error("goscribe-calibration 1\nsize 19\ncorners 0 0 20 0 20 20 0 20\n", GS_ERR_FORMAT, "too small to read");
}

static void test_scale(void **state)
{
    (void)state;
    calib_data c;
    make_sample(&c);
    double x1, y1, x2, y2;
    vision_grid_map(&c.grid, 5, 11, &x1, &y1);
    gs_error e;
    assert_int_equal(calib_scale_to(&c, 1280, 960, &e), GS_OK);
    assert_int_equal(c.image_width, 1280);
    vision_grid_map(&c.grid, 5, 11, &x2, &y2);
    assert_true(fabs(x2 - 2 * x1) < 1e-6 && fabs(y2 - 2 * y1) < 1e-6);
    double x0, y0;
    vision_grid_map(&c.grid, 18, 18, &x0, &y0);
    assert_true(fabs(c.grid.corners[2][0] - x0) < 1e-6 && fabs(c.grid.corners[2][1] - y0) < 1e-6);
    /* a thumbnail's calibration stretched past any camera: refused, kept */
    const char *thumb = "goscribe-calibration 1\nimage 16 16\nsize 5\ncorners 1 1 15 1 15 15 1 15\n";
    assert_int_equal(calib_parse(&c, thumb, &e), GS_OK);
    assert_int_equal(calib_scale_to(&c, 3000000, 16, &e), GS_ERR_FORMAT);
    assert_non_null(strstr(e.msg, "a calibration of 16 x 16 frames does not fit 3000000 x 16 ones"));
    assert_int_equal(c.image_width, 16);
    assert_true(c.grid.corners[1][0] == 15);
    assert_int_equal(calib_scale_to(&c, 1600, 1600, &e), GS_OK);
    assert_true(fabs(c.grid.corners[1][0] - 1500) < 1e-9);
}

/* The colour model of a real photo: wood between black and white stones in
 * lightness, thresholds between them, and a board with no black stone saves
 * no model. */
static void test_colour_model(void **state)
{
    (void)state;
    GS_REQUIRE_DATA(photo, "photos/imago/t2/t2_101.jpg");
    gs_error e;
    gs_image *img = cvshim_image_load(photo, &e);
    assert_non_null(img);
    vision_grid g;
    assert_int_equal(test_grid_find(img, 0, &g, NULL, &e), GS_OK);
    vision_reading rd;
    assert_int_equal(test_read(img, &g, &rd, &e), GS_OK);
    calib_colour c;
    assert_int_equal(calib_colour_measure(img, &g, &rd, &c, &e), GS_OK);
    assert_true(c.valid);
    assert_true(c.black[0] + 40 < c.board[0]);
    assert_true(c.board[0] + 20 < c.white[0]);
    assert_true(c.black[0] < c.threshold[0] && c.threshold[0] < c.board[0]);
    assert_true(c.board[0] < c.threshold[1] && c.threshold[1] < c.white[0]);
    /* Saved and read back. */
    calib_data cal;
    calib_init(&cal);
    cal.grid = g;
    cal.colour = c;
    char *text = calib_format(&cal);
    assert_non_null(text);
    calib_data back;
    assert_int_equal(calib_parse(&back, text, &e), GS_OK);
    free(text);
    assert_true(back.colour.valid);
    assert_true(fabs(back.colour.white[0] - c.white[0]) < 0.01);
    /* No stones of one colour: no model. */
    for (int i = 0; i < rd.pos.size * rd.pos.size; i++)
        if (rd.pos.cell[i] == GS_BLACK) rd.pos.cell[i] = GS_EMPTY;
    assert_int_equal(calib_colour_measure(img, &g, &rd, &c, &e), GS_ERR_NOBOARD);
    assert_false(c.valid);
    gs_image_destroy(img);
}

/* calib_make with given corners on a picture without a board: the file is
 * written and reads back, no colour model (with the reason), the overlay
 * has the grid drawn in green and corner 0 in red. */
static void test_make_with_corners(void **state)
{
    (void)state;
    char img_path[64], cal_path[64], png[64];
    int pid = (int)getpid();
    snprintf(img_path, sizeof img_path, "/tmp/gs-test-calib-%d.png", pid);
    snprintf(cal_path, sizeof cal_path, "/tmp/gs-test-calib-%d.cal", pid);
    snprintf(png, sizeof png, "/tmp/gs-test-calib-%d-ov.png", pid);
    gs_image *wall = gs_image_create(320, 240, 3);
    assert_non_null(wall);
    memset(wall->buf, 128, (size_t)wall->stride * (size_t)wall->height);
    gs_error e = {0};
    assert_int_equal(gs_image_write_png(wall, img_path, &e), GS_OK);
    gs_image_destroy(wall);
    double corners[4][2] = {{10, 10}, {300, 12}, {290, 230}, {20, 225}};
    calib_make_options o;
    calib_make_options_init(&o);
    o.source = img_path;
    o.out_path = cal_path;
    o.size = 13;
    o.corners = (const double(*)[2])corners;
    o.overlay_path = png;
    calib_make_result *r = malloc(sizeof *r);
    assert_non_null(r);
    assert_int_equal(calib_make(&o, r, &e), GS_OK);
    assert_int_equal(r->cal.grid.size, 13);
    assert_int_equal(r->cal.image_width, 320);
    assert_false(r->cal.colour.valid);
    assert_true(r->colour_why.msg[0] != 0);
    calib_data back;
    assert_int_equal(calib_load(&back, cal_path, &e), GS_OK);
    assert_int_equal(back.grid.size, 13);
    assert_true(fabs(back.grid.corners[2][0] - 290) < 1e-3);
    gs_image *ov = cvshim_image_load(png, &e);
    assert_non_null(ov);
    const uint8_t *c0 = ov->buf + 10 * (size_t)ov->stride + 10 * 3;     /* corner 0: red */
    assert_true(c0[0] == 0 && c0[1] == 0 && c0[2] == 255);
    const uint8_t *c2 = ov->buf + 230 * (size_t)ov->stride + 290 * 3;   /* corner 2: on the grid, green */
    assert_true(c2[0] == 0 && c2[1] == 255 && c2[2] == 0);
    gs_image_destroy(ov);
    /* a source that is not there: the message stands alone */
    o.source = "/nonexistent/board.mp4";
    assert_int_equal(calib_make(&o, r, &e), GS_ERR_IO);
    assert_null(r->error_file);
    free(r);
    unlink(img_path);
    unlink(cal_path);
    unlink(png);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_make_with_corners),
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_minimal_and_comments),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_bad_grids),
        cmocka_unit_test(test_scale),
        cmocka_unit_test(test_colour_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
