/* tests/test_pixel_budget.c: image sizes read from headers without
 * decoding (every format the budget knows, broken headers refused) and the
 * pixel budget: a file declaring more pixels than allowed is refused
 * before decoding, with one line; the budget's sources (option,
 * GOSCRIBE_MAX_PIXELS, default); a JPEG or PNG cut short refused (a JPEG
 * is not decoded with its missing part grey). */
#include "testutil.h"

#include "cvshim/cvshim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void put16(uint8_t *p, unsigned v, bool be)
{
    if (be) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
    else { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
}

static void put32(uint8_t *p, uint32_t v, bool be)
{
    put16(p + (be ? 2 : 0), v & 0xffff, be);
    put16(p + (be ? 0 : 2), v >> 16, be);
}

/* The size cvshim_image_header_size reads from data, checked. */
static void expect_size(const void *data, size_t len, int w, int h, const char *fmt)
{
    int gw = -1, gh = -1;
    const char *gf = NULL;
    int r = cvshim_image_header_size(data, len, &gw, &gh, &gf);
    if (r != 0 || gw != w || gh != h) print_message("%s: got %d, %d x %d (%s)\n", fmt, r, gw, gh, gf);
    assert_int_equal(r, 0);
    assert_int_equal(gw, w);
    assert_int_equal(gh, h);
    assert_string_equal(gf, fmt);
}

static void expect_unsized(const void *data, size_t len)
{
    int w, h;
    assert_int_equal(cvshim_image_header_size(data, len, &w, &h, NULL), -1);
}

static gs_image *gradient(int w, int h)
{
    gs_image *img = gs_image_create(w, h, 3);
    assert_non_null(img);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w * 3; x++) img->buf[(size_t)y * img->stride + (size_t)x] = (uint8_t)(x * 7 + y * 3);
    return img;
}

/* img written as a PNG to a new temporary file named into path (a
 * "/tmp/...-XXXXXX.png" template). */
static void write_temp_png(const gs_image *img, char *path)
{
    int fd = mkstemps(path, 4);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(gs_image_write_png(img, path, NULL), GS_OK);
}

/* Real files from the encoders: the header says what decoding gives. */
static void test_real_files(void **state)
{
    (void)state;
    gs_image *img = gradient(123, 45);
    uint8_t *jpg = NULL;
    size_t len = 0;
    assert_int_equal(cvshim_image_encode_jpeg(img, 90, &jpg, &len), 0);
    expect_size(jpg, len, 123, 45, "JPEG");
    gs_error msg = {0};
    gs_image *back = cvshim_image_decode(jpg, len, &msg);
    assert_non_null(back);
    assert_int_equal(back->width, 123);
    gs_image_destroy(back);
    /* a budget of exactly its pixels decodes it, one pixel less refuses it */
    back = cvshim_image_decode_max(jpg, len, 123 * 45, &msg);
    assert_non_null(back);
    gs_image_destroy(back);
    assert_null(cvshim_image_decode_max(jpg, len, 123 * 45 - 1, &msg));
    assert_non_null(strstr(msg.msg, "123 x 45 JPEG is 5535 pixels, over the pixel budget of 5534"));
    /* cut in the middle of its headers: no size */
    expect_unsized(jpg, 20);
    free(jpg);

    char path[] = "/tmp/gs-test-budget-XXXXXX.png";
    write_temp_png(img, path);
    gs_error e;
    back = cvshim_image_load_max(path, 123 * 45, &e);
    assert_non_null(back);
    gs_image_destroy(back);
    assert_null(cvshim_image_load_max(path, 1000, &e));
    assert_int_equal(e.status, GS_ERR_FORMAT);
    assert_non_null(strstr(e.msg, path));
    assert_non_null(strstr(e.msg, "123 x 45 PNG"));
    assert_null(strchr(e.msg, '\n'));
    unlink(path);
    gs_image_destroy(img);
}

/* A JPEG cut short decodes without error in libjpeg, the missing rows
 * grey (a photo cut at 90 % was read as a board, exit 0): refused, with
 * the reason; what follows a whole JPEG's end (a phone's appended video)
 * and a thumbnail's own end marker inside the file change nothing.  A PNG
 * cut short is refused by name too. */
static void test_cut_image_refused(void **state)
{
    (void)state;
    gs_image *img = gradient(160, 120);
    uint8_t *jpg = NULL;
    size_t len = 0;
    assert_int_equal(cvshim_image_encode_jpeg(img, 90, &jpg, &len), 0);
    gs_error msg = {0};
    gs_image *back = cvshim_image_decode(jpg, len, &msg);
    assert_non_null(back);
    gs_image_destroy(back);
    /* the header is whole, so only the missing end tells */
    expect_size(jpg, len * 9 / 10, 160, 120, "JPEG");
    assert_null(cvshim_image_decode(jpg, len * 9 / 10, &msg));
    assert_non_null(strstr(msg.msg, "JPEG cut short"));
    assert_null(strchr(msg.msg, '\n'));
    assert_null(cvshim_image_decode(jpg, len - 1, &msg)); /* the last byte of the end marker */

    /* trailing bytes after the end marker (markers among them) */
    uint8_t *more = malloc(len + 6);
    assert_non_null(more);
    memcpy(more, jpg, len);
    memcpy(more + len, "\xFF\xDA\x00\x08zz", 6);
    back = cvshim_image_decode(more, len + 6, &msg);
    assert_non_null(back);
    gs_image_destroy(back);
    free(more);

    /* stray bytes before the scan's marker: libjpeg skips them (with a
     * warning), and they are not taken for a cut */
    size_t sos = 2;
    while (sos + 1 < len && !(jpg[sos] == 0xFF && jpg[sos + 1] == 0xDA)) sos++;
    assert_true(sos + 1 < len);
    uint8_t *stray = malloc(len + 3);
    assert_non_null(stray);
    memcpy(stray, jpg, sos);
    memcpy(stray + sos, "\x12\x34\x56", 3);
    memcpy(stray + sos + 3, jpg + sos, len - sos);
    back = cvshim_image_decode(stray, len + 3, &msg);
    assert_non_null(back);
    gs_image_destroy(back);
    free(stray);

    /* the photo behind an APP1 segment holding a whole thumbnail JPEG */
    size_t seg = 2 + 2 + len, all = 2 + seg + (len - 2);
    uint8_t *thumb = malloc(all);
    assert_non_null(thumb);
    thumb[0] = 0xFF; thumb[1] = 0xD8; thumb[2] = 0xFF; thumb[3] = 0xE1;
    put16(thumb + 4, (unsigned)(2 + len), true);
    memcpy(thumb + 6, jpg, len);
    memcpy(thumb + 6 + len, jpg + 2, len - 2);
    back = cvshim_image_decode(thumb, all, &msg);
    assert_non_null(back);
    gs_image_destroy(back);
    assert_null(cvshim_image_decode(thumb, all - (len - 2) / 3, &msg)); /* cut in the photo, after the thumbnail's end */
    assert_non_null(strstr(msg.msg, "JPEG cut short"));
    free(thumb);
    free(jpg);

    /* a PNG cut before its IEND chunk: one line, libpng's own not printed */
    char path[] = "/tmp/gs-test-cut-XXXXXX.png";
    write_temp_png(img, path);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    uint8_t png[65536];
    size_t n = fread(png, 1, sizeof png, f);
    fclose(f);
    unlink(path);
    assert_true(n > 100 && n < sizeof png);
    back = cvshim_image_decode(png, n, &msg);
    assert_non_null(back);
    gs_image_destroy(back);
    assert_null(cvshim_image_decode(png, n - 12, &msg)); /* without IEND */
    assert_non_null(strstr(msg.msg, "PNG cut short"));
    assert_null(cvshim_image_decode(png, n / 2, &msg));
    assert_non_null(strstr(msg.msg, "PNG cut short"));
    gs_image_destroy(img);
}

/* A JPEG whose frame header is made to say 20000 x 20000: refused before
 * libjpeg sees it (it would allocate 1.2 GB for the pixels). */
static void test_huge_header_refused(void **state)
{
    (void)state;
    gs_image *img = gradient(64, 48);
    uint8_t *jpg = NULL;
    size_t len = 0;
    assert_int_equal(cvshim_image_encode_jpeg(img, 80, &jpg, &len), 0);
    gs_image_destroy(img);
    size_t sof = 0;
    for (size_t i = 2; i + 9 < len; i++)
        if (jpg[i] == 0xFF && jpg[i + 1] == 0xC0) { sof = i; break; }
    assert_true(sof > 0);
    put16(jpg + sof + 5, 20000, true);
    put16(jpg + sof + 7, 20000, true);
    expect_size(jpg, len, 20000, 20000, "JPEG");
    gs_error msg = {0};
    assert_null(cvshim_image_decode(jpg, len, &msg));
    assert_non_null(strstr(msg.msg, "20000 x 20000 JPEG is 400000000 pixels, over the pixel budget of 50000000"));
    free(jpg);

    /* a PNG header alone (no pixel data at all) is refused for its size,
     * not for the missing data: nothing was decoded */
    uint8_t png[33] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R'};
    put32(png + 16, 20000, true);
    put32(png + 20, 20000, true);
    png[24] = 8;
    png[25] = 2;
    assert_null(cvshim_image_decode(png, sizeof png, &msg));
    assert_non_null(strstr(msg.msg, "20000 x 20000 PNG"));

    /* within our budget but past OpenCV's own limit (a million rows): its
     * exception text becomes one line too (found by the fuzz target) */
    const char *tall = "P5\n1 4000000\n255\n\1\2\3";
    assert_null(cvshim_image_decode_max((const uint8_t *)tall, strlen(tall), 4000000, &msg));
    assert_non_null(strstr(msg.msg, "not a readable image (OpenCV: "));
    assert_null(strchr(msg.msg, '\n'));
}

static void test_other_formats(void **state)
{
    (void)state;
    uint8_t b[64];
    /* BMP, Windows header, bottom-up (positive height) and top-down */
    memset(b, 0, sizeof b);
    b[0] = 'B'; b[1] = 'M';
    put32(b + 14, 40, false);
    put32(b + 18, 640, false);
    put32(b + 22, 480, false);
    expect_size(b, 54, 640, 480, "BMP");
    put32(b + 22, (uint32_t)-480, false);
    expect_size(b, 54, 640, 480, "BMP");
    put32(b + 18, (uint32_t)-640, false);
    expect_unsized(b, 54);
    /* BMP, OS/2 header */
    put32(b + 14, 12, false);
    put16(b + 18, 300, false);
    put16(b + 20, 200, false);
    expect_size(b, 54, 300, 200, "BMP");

    /* TIFF, both byte orders: width SHORT, length LONG */
    for (int be = 0; be < 2; be++) {
        memset(b, 0, sizeof b);
        memcpy(b, be ? "MM\0*" : "II*\0", 4);
        put32(b + 4, 8, be);
        put16(b + 8, 2, be);
        put16(b + 10, 256, be); put16(b + 12, 3, be); put32(b + 14, 1, be); put16(b + 18, 1500, be);
        put16(b + 22, 257, be); put16(b + 24, 4, be); put32(b + 26, 1, be); put32(b + 30, 1000, be);
        expect_size(b, 38, 1500, 1000, "TIFF");
        put32(b + 4, 4000, be); /* directory past the end */
        expect_unsized(b, 38);
    }

    /* WebP: lossy, lossless, extended */
    memset(b, 0, sizeof b);
    memcpy(b, "RIFF", 4);
    memcpy(b + 8, "WEBPVP8 ", 8);
    b[23] = 0x9d; b[24] = 0x01; b[25] = 0x2a;
    put16(b + 26, 1024, false);
    put16(b + 28, 768, false);
    expect_size(b, 30, 1024, 768, "WebP");
    memcpy(b + 12, "VP8L", 4);
    b[20] = 0x2f;
    put32(b + 21, (uint32_t)(799 | (599 << 14)), false);
    expect_size(b, 30, 800, 600, "WebP");
    memcpy(b + 12, "VP8X", 4);
    memset(b + 20, 0, 10);
    b[24] = (uint8_t)(4999 & 0xff); b[25] = (uint8_t)(4999 >> 8);
    b[27] = (uint8_t)(2999 & 0xff); b[28] = (uint8_t)(2999 >> 8);
    expect_size(b, 30, 5000, 3000, "WebP");

    /* PNM with a comment, PAM, PFM, Sun raster, Radiance HDR */
    const char *ppm = "P6\n# made by hand\n 320 240\n255\n";
    expect_size(ppm, strlen(ppm), 320, 240, "PNM");
    const char *pam = "P7\nWIDTH 33\nHEIGHT 44\nDEPTH 3\nMAXVAL 255\nTUPLTYPE RGB\nENDHDR\n";
    expect_size(pam, strlen(pam), 33, 44, "PAM");
    const char *pfm = "PF\n12 34\n-1.0\n";
    expect_size(pfm, strlen(pfm), 12, 34, "PFM");
    memset(b, 0, sizeof b);
    b[0] = 0x59; b[1] = 0xA6; b[2] = 0x6A; b[3] = 0x95;
    put32(b + 4, 70, true);
    put32(b + 8, 50, true);
    expect_size(b, 32, 70, 50, "Sun raster");
    const char *rad = "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 480 +X 640\n";
    expect_size(rad, strlen(rad), 640, 480, "Radiance HDR");
    /* read as OpenCV's readers read them: the byte after a PNM number is
     * eaten (so this '#' starts no comment: 1 x 5), a PFM number is atoi
     * of the bytes up to a space, a PAM value may sit on the next line */
    const char *quirk = "P5\n1#5\n255\n";
    expect_size(quirk, strlen(quirk), 1, 5, "PNM");
    const char *pfm2 = "PF\n12abc 34\n-1.0\n";
    expect_size(pfm2, strlen(pfm2), 12, 34, "PFM");
    const char *pam2 = "P7\nWIDTH\t\n 33\nHEIGHT 44  \nENDHDR\n";
    expect_size(pam2, strlen(pam2), 33, 44, "PAM");
    const char *pam3 = "P7\nWIDTH 33\nWIDTH 34\nHEIGHT 44\nENDHDR\n"; /* twice: OpenCV refuses */
    expect_unsized(pam3, strlen(pam3));

    /* "DICM" at 128 after a WebP header that OpenCV's WebP reader refuses:
     * OpenCV would pass it to GDCM, which aborts (found by the fuzz target) */
    uint8_t dicom[134] = {'R', 'I', 'F', 'F', 0xd8, 0, 0, 0x21, 'W', 'E', 'B', 'P', 'V', 'P', '8', 'X', ' ', 0xcc};
    memcpy(dicom + 128, "DICM$@", 6);
    int dw, dh;
    const char *df;
    assert_int_equal(cvshim_image_header_size(dicom, sizeof dicom, &dw, &dh, &df), -1);
    assert_string_equal(df, "DICOM");
    gs_error dmsg = {0};
    assert_null(cvshim_image_decode(dicom, sizeof dicom, &dmsg));
    assert_non_null(strstr(dmsg.msg, "not a readable image (not JPEG"));

    /* no size to be had */
    expect_unsized("P6\n320\n", 7);
    expect_unsized("GIF89a\x10\0\x10\0", 10);
    expect_unsized("", 0);
    expect_unsized(NULL, 0);
    gs_error msg = {0};
    assert_null(cvshim_image_decode((const uint8_t *)"GIF89a\x10\0\x10\0", 10, &msg));
    assert_non_null(strstr(msg.msg, "not a readable image"));
}

/* The budget: the option first, then GOSCRIBE_MAX_PIXELS, then 50 MP; a
 * file too large for any image within it is not even read. */
static void test_budget_sources(void **state)
{
    (void)state;
    unsetenv("GOSCRIBE_MAX_PIXELS");
    assert_true(cvshim_max_pixels(0) == CVSHIM_MAX_PIXELS_DEFAULT);
    assert_true(cvshim_max_pixels(1234) == 1234);
    setenv("GOSCRIBE_MAX_PIXELS", "777", 1);
    assert_true(cvshim_max_pixels(0) == 777);
    assert_true(cvshim_max_pixels(1234) == 1234);
    setenv("GOSCRIBE_MAX_PIXELS", "lots", 1);
    assert_true(cvshim_max_pixels(0) == CVSHIM_MAX_PIXELS_DEFAULT);
    setenv("GOSCRIBE_MAX_PIXELS", "-5", 1);
    assert_true(cvshim_max_pixels(0) == CVSHIM_MAX_PIXELS_DEFAULT);
    unsetenv("GOSCRIBE_MAX_PIXELS");

    char path[] = "/tmp/gs-test-budget-XXXXXX.png";
    int fd = mkstemps(path, 4);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, 3 << 20), 0); /* 3 MB of nothing */
    close(fd);
    gs_error e;
    assert_null(cvshim_image_load_max(path, 1000, &e));
    assert_int_equal(e.status, GS_ERR_FORMAT);
    assert_non_null(strstr(e.msg, "larger than any image within the pixel budget of 1000"));
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_files),
        cmocka_unit_test(test_huge_header_refused),
        cmocka_unit_test(test_cut_image_refused),
        cmocka_unit_test(test_other_formats),
        cmocka_unit_test(test_budget_sources),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
