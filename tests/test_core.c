/* tests/test_core.c: the shared types: grid text, errors, images. */
#include "cvshim/cvshim.h"
#include "tests/testutil.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grid_roundtrip),
        cmocka_unit_test(test_grid_errors),
        cmocka_unit_test(test_grid_real_files),
        cmocka_unit_test(test_image_png_and_load),
        cmocka_unit_test(test_exit_codes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
