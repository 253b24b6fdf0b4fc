/* tests/test_core.c: the ground floor: grid text, errors, images, the text
 * buffer, JSON, the lens model, files and drawing. */
#include "cvshim/cvshim.h"
#include "tests/testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_grid_roundtrip(void **state)
{
    (void)state;
    const char *text =
        ". . . . .\n"
        ". B . W .\n"
        ". . B . .\n"
        ". W . . .\n"
        ". . . . B\n";
    gs_position p;
    gs_error e;
    assert_int_equal(gs_position_parse(&p, text, &e), GS_OK);
    assert_int_equal(p.size, 5);
    assert_int_equal(gs_position_get(&p, 1, 1), GS_BLACK);
    assert_int_equal(gs_position_get(&p, 3, 1), GS_WHITE);
    assert_int_equal(gs_position_get(&p, 4, 4), GS_BLACK);
    assert_int_equal(gs_position_count(&p, GS_BLACK), 3);
    assert_int_equal(gs_position_count(&p, GS_WHITE), 2);
    char buf[128];
    gs_position_format(&p, buf, sizeof buf);
    assert_string_equal(buf, text);
}

static void test_grid_errors(void **state)
{
    (void)state;
    gs_position p;
    gs_error e;
    assert_int_equal(gs_position_parse(&p, "", &e), GS_ERR_FORMAT);
    assert_int_equal(gs_position_parse(&p, ". . .\n. . .\n", &e), GS_ERR_FORMAT); /* not square */
    assert_int_equal(gs_position_parse(&p, ". . . . .\n. . Z . .\n", &e), GS_ERR_FORMAT);
    assert_non_null(strstr(e.msg, "line 2"));
    assert_int_equal(gs_position_load(&p, "/nonexistent/grid.txt", &e), GS_ERR_IO);
}

static void test_grid_real_files(void **state)
{
    (void)state;
    GS_REQUIRE_DATA(dir, "photos/imago/t1/t1_001.txt");
    gs_position p;
    gs_error e;
    assert_int_equal(gs_position_load(&p, dir, &e), GS_OK);
    assert_int_equal(p.size, 19);
}

static void test_image_png_and_load(void **state)
{
    (void)state;
    gs_image *img = gs_image_create(37, 21, 3);
    assert_non_null(img);
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++) {
            uint8_t *p = img->buf + y * img->stride + 3 * x;
            p[0] = (uint8_t)(x * 5); p[1] = (uint8_t)(y * 9); p[2] = 200;
        }
    char path[] = "/tmp/gs_test_core_XXXXXX.png";
    int fd = mkstemps(path, 4);
    assert_true(fd >= 0);
    close(fd);
    gs_error e;
    assert_int_equal(gs_image_write_png(img, path, &e), GS_OK);
    gs_image *back = cvshim_image_load(path, &e);
    assert_non_null(back);
    assert_int_equal(back->width, 37);
    assert_int_equal(back->height, 21);
    assert_memory_equal(back->buf + 5 * back->stride, img->buf + 5 * img->stride, 37 * 3);
    gs_image_destroy(back);
    gs_image_destroy(img);
    gs_image_destroy(NULL); /* destroy(NULL) is safe */

    /* A broken file is a format error, a missing one an I/O error. */
    FILE *f = fopen(path, "wb");
    fputs("not a png", f);
    fclose(f);
    assert_null(cvshim_image_load(path, &e));
    assert_int_equal(e.status, GS_ERR_FORMAT);
    unlink(path);
    assert_null(cvshim_image_load(path, &e));
    assert_int_equal(e.status, GS_ERR_IO);
}

static void test_exit_codes(void **state)
{
    (void)state;
    assert_int_equal(gs_status_exit_code(GS_OK), 0);
    assert_int_equal(gs_status_exit_code(GS_ERR_IO), 1);
    assert_int_equal(gs_status_exit_code(GS_ERR_FORMAT), 1);
    assert_int_equal(gs_status_exit_code(GS_ERR_NOBOARD), 2);
}

/* The text buffer grows, keeps its content, and a JSON string is escaped. */
static void test_buf_and_json_writer(void **state)
{
    (void)state;
    gs_buf b = {0};
    for (int i = 0; i < 1000; i++) gs_buf_printf(&b, "%d,", i);
    assert_true(gs_buf_ok(&b));
    assert_int_equal(strncmp(b.p, "0,1,2,", 6), 0);
    assert_int_equal(b.len, strlen(b.p));
    gs_buf_free(&b);
    gs_json_str(&b, "a\"b\\c\n</x>");
    assert_string_equal(b.p, "\"a\\\"b\\\\c\\u000a\\u003c/x>\"");
    gs_buf_free(&b);
}

/* The reader takes what the writer writes and refuses malformed text. */
static void test_json_reader(void **state)
{
    (void)state;
    gs_buf b = {0};
    gs_buf_puts(&b, "{\"name\":");
    gs_json_str(&b, "T\xc3\xa9" "ble \"3\"\n");
    gs_buf_puts(&b, ",\"n\":-1.5e2,\"list\":[true,null]}");
    gs_error e;
    gs_json *j = gs_json_parse(b.p, b.len, &e);
    assert_non_null(j);
    assert_string_equal(gs_json_get_str(j, "name", ""), "T\xc3\xa9" "ble \"3\"\n");
    assert_true(gs_json_get_num(j, "n", 0) == -150);
    assert_int_equal(gs_json_get(j, "list")->n, 2);
    assert_string_equal(gs_json_get_str(j, "missing", "dflt"), "dflt");
    gs_json_free(j);
    gs_buf_free(&b);
    const char *bad[] = {"", "{", "{\"a\":}", "[1,]", "01", "{\"a\":1} x", "\"\\ud800"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_null(gs_json_parse(bad[i], strlen(bad[i]), &e));
        assert_int_equal(e.status, GS_ERR_FORMAT);
    }
}

/* The lens inverse undoes the lens within a hundredth of a pixel, barrel
 * and pincushion alike. */
static void test_lens_roundtrip(void **state)
{
    (void)state;
    const double k1s[] = {-0.12, -0.05, 0.03, 0.1};
    for (size_t k = 0; k < 4; k++)
        for (int y = 0; y <= 720; y += 90)
            for (int x = 0; x <= 1280; x += 160) {
                double px = x, py = y;
                gs_lens_distort(k1s[k], 640, 360, 734, &px, &py);
                gs_lens_undistort(k1s[k], 640, 360, 734, &px, &py);
                assert_true(fabs(px - x) < 0.01 && fabs(py - y) < 0.01);
            }
}

/* The atomic writer replaces the file, fails cleanly where it cannot
 * write, and the bounded reader refuses what is too big. */
static void test_file_atomic_and_read(void **state)
{
    (void)state;
    char dir[] = "/tmp/gs-core-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64], *text;
    size_t len;
    gs_error e;
    snprintf(path, sizeof path, "%s/f.txt", dir);
    assert_int_equal(gs_file_write_atomic(path, "one", 3, &e), GS_OK);
    assert_int_equal(gs_file_write_atomic(path, "second", 6, &e), GS_OK);
    assert_int_equal(gs_file_read(path, 100, &text, &len, &e), GS_OK);
    assert_string_equal(text, "second");
    free(text);
    assert_int_equal(gs_file_read(path, 3, &text, &len, &e), GS_ERR_FORMAT);
    char bad[80];
    snprintf(bad, sizeof bad, "%s/no/such/dir/f", dir);
    assert_int_equal(gs_file_write_atomic(bad, "x", 1, &e), GS_ERR_IO);
    assert_int_equal(gs_file_read(bad, 100, &text, &len, &e), GS_ERR_IO);
    unlink(path);
    rmdir(dir);
}

/* Drawing clips at the edges and ignores absurd coordinates. */
static void test_draw_clips(void **state)
{
    (void)state;
    gs_image *img = gs_image_create(20, 10, 3);
    gs_bgr red = {0, 0, 255};
    gs_draw_line(img, -5, 5, 30, 5, 1, red);
    gs_draw_disc(img, 19, 9, 4, red, 1);
    gs_draw_ring(img, 1e300, 5, 3, 1, red);
    gs_draw_square(img, 5, 5, 1e9, red, 1);
    gs_draw_box(img, 10, 5, 3, 1, red);
    assert_int_equal(img->buf[5 * img->stride + 0 * 3 + 2], 255);
    assert_int_equal(img->buf[5 * img->stride + 19 * 3 + 2], 255);
    assert_int_equal(img->buf[0 * img->stride + 0 * 3 + 2], 0);
    gs_image_destroy(img);
    gs_draw_line(NULL, 0, 0, 1, 1, 1, red);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grid_roundtrip),
        cmocka_unit_test(test_grid_errors),
        cmocka_unit_test(test_grid_real_files),
        cmocka_unit_test(test_image_png_and_load),
        cmocka_unit_test(test_exit_codes),
        cmocka_unit_test(test_buf_and_json_writer),
        cmocka_unit_test(test_json_reader),
        cmocka_unit_test(test_lens_roundtrip),
        cmocka_unit_test(test_file_atomic_and_read),
        cmocka_unit_test(test_draw_clips),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
