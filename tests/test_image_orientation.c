/* tests/test_image_orientation.c: a photo is read as it is displayed: its
 * EXIF orientation (JPEG's APP1 "Exif" block) applied, the one the decode
 * applied said back; the stored pixels when asked; a broken or absent
 * EXIF block reads as stored; a large photo decoded at a reduced size
 * (libjpeg's DCT scaling) by the factor asked or the least side kept. */
#include "testutil.h"

#include "cvshim/cvshim.h"

#include <stdlib.h>
#include <string.h>

/* A picture whose corners differ: top-left red, top-right green,
 * bottom-left blue, bottom-right white (B, G, R order), grey between. */
static gs_image *corners_picture(int w, int h)
{
    gs_image *img = gs_image_create(w, h, 3);
    assert_non_null(img);
    memset(img->buf, 128, (size_t)img->stride * (size_t)h);
    static const uint8_t c[4][3] = {{0, 0, 255}, {0, 255, 0}, {255, 0, 0}, {255, 255, 255}};
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int k = (y >= h / 2) * 2 + (x >= w / 2);
            if ((x < w / 4 || x >= 3 * w / 4) && (y < h / 4 || y >= 3 * h / 4))
                memcpy(img->buf + (size_t)y * img->stride + (size_t)x * 3, c[k], 3);
        }
    return img;
}

/* Which corner colour (0 red, 1 green, 2 blue, 3 white) is at the
 * image's top-left. */
static int top_left(const gs_image *img)
{
    const uint8_t *p = img->buf + (size_t)(img->height / 8) * img->stride + (size_t)(img->width / 8) * 3;
    if (p[2] > 200 && p[1] < 60 && p[0] < 60) return 0;
    if (p[1] > 200 && p[2] < 60 && p[0] < 60) return 1;
    if (p[0] > 200 && p[1] < 60 && p[2] < 60) return 2;
    if (p[0] > 200 && p[1] > 200 && p[2] > 200) return 3;
    return -1;
}

/* jpg with an APP1 Exif block holding orientation o (big- or little-endian
 * TIFF) inserted after its SOI; *len in and out; caller frees. */
static uint8_t *with_exif(const uint8_t *jpg, size_t *len, int o, bool big_endian)
{
    uint8_t tiff[26] = {0};
    if (big_endian) memcpy(tiff, "MM\0\x2a\0\0\0\x08", 8);
    else memcpy(tiff, "II\x2a\0\x08\0\0\0", 8);
    /* one IFD entry: tag 0x0112, type SHORT (3), count 1, value o */
    uint8_t entry[14] = {0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, (uint8_t)o, 0, 0};
    if (!big_endian) {
        uint8_t le[14] = {1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, (uint8_t)o, 0, 0, 0};
        memcpy(entry, le, sizeof le);
    }
    memcpy(tiff + 8, entry, sizeof entry);
    size_t seg = 2 + 6 + sizeof tiff; /* length field, "Exif\0\0", the TIFF data */
    uint8_t *out = malloc(*len + 2 + seg);
    assert_non_null(out);
    memcpy(out, jpg, 2); /* SOI */
    out[2] = 0xFF;
    out[3] = 0xE1;
    out[4] = (uint8_t)(seg >> 8);
    out[5] = (uint8_t)seg;
    memcpy(out + 6, "Exif\0\0", 6);
    memcpy(out + 12, tiff, sizeof tiff);
    memcpy(out + 2 + 2 + seg, jpg + 2, *len - 2);
    *len += 2 + seg;
    return out;
}

static uint8_t *encoded(const gs_image *img, size_t *len)
{
    uint8_t *jpg = NULL;
    assert_int_equal(cvshim_image_encode_jpeg(img, 95, &jpg, len), 0);
    return jpg;
}

/* Every EXIF orientation, in both byte orders: the picture as displayed
 * (the corner at the top-left and the size turned), and said back. */
static void test_every_orientation(void **state)
{
    (void)state;
    gs_image *src = corners_picture(64, 40);
    size_t len0;
    uint8_t *jpg = encoded(src, &len0);
    /* the corner shown at the top-left under each orientation (1..8) */
    static const int want[9] = {-1, 0, 1, 3, 2, 0, 2, 3, 1};
    for (int be = 0; be < 2; be++)
        for (int o = 1; o <= 8; o++) {
            size_t len = len0;
            uint8_t *x = with_exif(jpg, &len, o, be);
            assert_int_equal(cvshim_image_orientation(x, len), o);
            cvshim_decoded done;
            gs_error e;
            gs_image *img = cvshim_image_decode_as(x, len, NULL, &done, &e);
            assert_non_null(img);
            assert_int_equal(done.orientation, o);
            bool turned = o >= 5;
            assert_int_equal(img->width, turned ? 40 : 64);
            assert_int_equal(img->height, turned ? 64 : 40);
            assert_int_equal(done.full_width, img->width);
            assert_int_equal(top_left(img), want[o]);
            gs_image_destroy(img);
            /* stored: as the pixels are, orientation 1 said */
            cvshim_decode how = {.stored = 1};
            img = cvshim_image_decode_as(x, len, &how, &done, &e);
            assert_non_null(img);
            assert_int_equal(done.orientation, 1);
            assert_int_equal(top_left(img), 0);
            gs_image_destroy(img);
            free(x);
        }
    free(jpg);
    gs_image_destroy(src);
}

/* No EXIF, an EXIF block cut short, an orientation out of range: the
 * picture as stored. */
static void test_broken_exif_reads_as_stored(void **state)
{
    (void)state;
    gs_image *src = corners_picture(48, 32);
    size_t len;
    uint8_t *jpg = encoded(src, &len);
    assert_int_equal(cvshim_image_orientation(jpg, len), 1);
    size_t l2 = len;
    uint8_t *x = with_exif(jpg, &l2, 9, true);
    assert_int_equal(cvshim_image_orientation(x, l2), 1);
    x[12] = 'Q'; /* neither II nor MM */
    x[13] = 'Q';
    assert_int_equal(cvshim_image_orientation(x, l2), 1);
    free(x);
    l2 = len;
    x = with_exif(jpg, &l2, 6, true);
    assert_int_equal(cvshim_image_orientation(x, 20), 1); /* the block cut short */
    assert_int_equal(cvshim_image_orientation((const uint8_t *)"\xFF\xD8", 2), 1);
    assert_int_equal(cvshim_image_orientation(NULL, 0), 1);
    free(x);
    free(jpg);
    gs_image_destroy(src);
}

/* A reduction asked, or the least side kept: the size, the factor said,
 * the full size said, and the picture still the picture. */
static void test_reduced_decode(void **state)
{
    (void)state;
    gs_image *src = corners_picture(800, 600);
    size_t len;
    uint8_t *jpg = encoded(src, &len);
    cvshim_decoded done;
    gs_error e;
    cvshim_decode how = {.reduce = 4};
    gs_image *img = cvshim_image_decode_as(jpg, len, &how, &done, &e);
    assert_non_null(img);
    assert_int_equal(img->width, 200);
    assert_int_equal(img->height, 150);
    assert_int_equal(done.reduce, 4);
    assert_int_equal(done.full_width, 800);
    assert_int_equal(top_left(img), 0);
    gs_image_destroy(img);
    /* keep at least 300 px: halved (400), not quartered (200) */
    cvshim_decode keep = {.min_side = 300};
    img = cvshim_image_decode_as(jpg, len, &keep, &done, &e);
    assert_non_null(img);
    assert_int_equal(img->width, 400);
    assert_int_equal(done.reduce, 2);
    gs_image_destroy(img);
    /* a side already short: full size */
    cvshim_decode big = {.min_side = 700};
    img = cvshim_image_decode_as(jpg, len, &big, &done, &e);
    assert_non_null(img);
    assert_int_equal(img->width, 800);
    assert_int_equal(done.reduce, 1);
    gs_image_destroy(img);
    free(jpg);
    gs_image_destroy(src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_orientation),
        cmocka_unit_test(test_broken_exif_reads_as_stored),
        cmocka_unit_test(test_reduced_decode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
