/* tests/test_vision_negatives.c: ordinary photos hold no Go board.  The 91
 * example images of Debian's opencv-doc package (a sudoku, chessboards and
 * their calibration shots, facades, a box, notes, fruit ...) must all be
 * refused by board finding (GS_ERR_NOBOARD), never answered with a grid.
 * Skips with a message when the package is not installed (scripts/deps.txt
 * lists it). */
#include "cvshim/cvshim.h"
#include "tests/testutil.h"
#include "vision/vision.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NEG_DIR "/usr/share/doc/opencv-doc/examples/data"

static int is_photo(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot && (!strcasecmp(dot, ".jpg") || !strcasecmp(dot, ".png"));
}

static void test_opencv_examples_are_no_board(void **state)
{
    (void)state;
    DIR *d = opendir(NEG_DIR);
    if (!d) {
        print_message("skipped: %s absent (install the opencv-doc package)\n", NEG_DIR);
        skip();
    }
    vision_grid *g = malloc(sizeof *g);
    assert_non_null(g);
    int tried = 0, answered = 0, step = gs_test_sanitized() ? 6 : 1, k = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!is_photo(e->d_name) || k++ % step) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", NEG_DIR, e->d_name);
        gs_error err = {0};
        gs_image *img = cvshim_image_load(path, &err);
        if (!img) continue; /* not every example is a photo OpenCV decodes */
        tried++;
        gs_status st = vision_grid_find(img, 0, g, &err);
        if (st == GS_OK) {
            print_message("%s: answered as a %dx%d board\n", e->d_name, g->size, g->size);
            answered++;
        } else {
            assert_int_equal(st, GS_ERR_NOBOARD);
        }
        gs_image_destroy(img);
    }
    closedir(d);
    free(g);
    print_message("opencv-doc examples: %d of %d answered as a board\n", answered, tried);
    assert_true(tried > 0);
    assert_int_equal(answered, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_opencv_examples_are_no_board),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
