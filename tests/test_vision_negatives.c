/* tests/test_vision_negatives.c: ordinary photos hold no Go board.  The 91
 * example images of Debian's opencv-doc package (a sudoku, chessboards and
 * their calibration shots, facades, a box, notes, fruit ...) must all be
 * refused by board finding (GS_ERR_NOBOARD), never answered with a grid;
 * so must copies of them changed as a photo can be (mirrored, smaller,
 * darker, recompressed), since a bar that only just keeps the originals
 * out keeps out little else.  Skips with a message when the package is not
 * installed (scripts/deps.txt lists it). */
#include "cvshim/cvshim.h"
#include "tests/testutil.h"
#include "tests/testvision.h"
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

/* The board finder on img: 1 when it answers a board (printed), else 0
 * (it must then say "no board"). */
static int answered_as_board(const gs_image *img, const char *name, const char *how)
{
    vision_grid g;
    gs_error err = {0};
    gs_status st = test_grid_find(img, 0, &g, NULL, &err);
    if (st == GS_OK) {
        print_message("%s%s: answered as a %dx%d board\n", name, how, g.size, g.size);
        return 1;
    }
    assert_int_equal(st, GS_ERR_NOBOARD);
    return 0;
}

/* Adds each(img, name) to *answered for every step-th example OpenCV
 * decodes; returns how many there were. */
static int for_each_example(int step, int (*each)(const gs_image *, const char *), int *answered)
{
    DIR *d = opendir(NEG_DIR);
    if (!d) {
        print_message("skipped: %s absent (install the opencv-doc package)\n", NEG_DIR);
        skip();
    }
    int tried = 0, k = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!is_photo(e->d_name) || k++ % step) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", NEG_DIR, e->d_name);
        gs_error err = {0};
        gs_image *img = cvshim_image_load(path, &err);
        if (!img) continue; /* not every example is a photo OpenCV decodes */
        tried++;
        *answered += each(img, e->d_name);
        gs_image_destroy(img);
    }
    closedir(d);
    return tried;
}

static int as_is(const gs_image *img, const char *name)
{
    return answered_as_board(img, name, "");
}

static void test_opencv_examples_are_no_board(void **state)
{
    (void)state;
    int answered = 0, tried = for_each_example(gs_test_sanitized() ? 6 : 1, as_is, &answered);
    print_message("opencv-doc examples: %d of %d answered as a board\n", answered, tried);
    assert_true(tried > 0);
    assert_int_equal(answered, 0);
}

/* img left and right swapped (a new image; NULL without memory). */
static gs_image *mirrored(const gs_image *img)
{
    gs_image *m = gs_image_copy(img);
    if (!m) return NULL;
    int c = img->channels;
    for (int y = 0; y < img->height; y++) {
        const uint8_t *src = img->buf + (size_t)y * img->stride;
        uint8_t *dst = m->buf + (size_t)y * m->stride;
        for (int x = 0; x < img->width; x++) memcpy(dst + (size_t)(img->width - 1 - x) * c, src + (size_t)x * c, (size_t)c);
    }
    return m;
}

/* img through a JPEG of the given quality (NULL on failure). */
static gs_image *recompressed(const gs_image *img, int quality)
{
    uint8_t *buf = NULL;
    size_t len = 0;
    if (cvshim_image_encode_jpeg(img, quality, &buf, &len) != 0) return NULL;
    gs_error err = {0};
    gs_image *out = cvshim_image_decode(buf, len, &err);
    free(buf);
    return out;
}

/* The four changed copies of one example, each put to the finder. */
static int changed(const gs_image *img, const char *name)
{
    gs_image *copy[4] = {mirrored(img), cvshim_image_resize(img, img->width * 3 / 4, img->height * 3 / 4),
                         cvshim_image_scaled(img, 0.6), recompressed(img, 40)};
    static const char *const how[4] = {" mirrored", " at 75 %", " at 60 % brightness", " recompressed at quality 40"};
    int n = 0;
    for (int i = 0; i < 4; i++) {
        assert_non_null(copy[i]);
        n += answered_as_board(copy[i], name, how[i]);
        gs_image_destroy(copy[i]);
    }
    return n;
}

static void test_changed_examples_are_no_board(void **state)
{
    (void)state;
    int answered = 0, tried = for_each_example(gs_test_sanitized() ? 12 : 1, changed, &answered);
    print_message("opencv-doc examples changed four ways: %d of %d answered as a board\n", answered, 4 * tried);
    assert_true(tried > 0);
    assert_int_equal(answered, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_opencv_examples_are_no_board),
        cmocka_unit_test(test_changed_examples_are_no_board),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
