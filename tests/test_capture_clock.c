/* tests/test_capture_clock.c: the time of play a source gives each frame
 * (capture_info.unix_ms): a photo's EXIF DateTimeOriginal or its file
 * time, a video's start (its creation_time, else its file time minus its
 * duration) plus the frame's position, and what the log is told. */
#include "testutil.h"

#include "capture/capture_impl.h"
#include "cvshim/cvshim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

static gs_image *solid(int w, int h, uint8_t v)
{
    gs_image *img = gs_image_create(w, h, 3);
    assert_non_null(img);
    memset(img->buf, v, (size_t)img->stride * (size_t)h);
    return img;
}

static void set_mtime(const char *path, time_t t)
{
    struct timeval tv[2] = {{t, 0}, {t, 0}};
    assert_int_equal(utimes(path, tv), 0);
}

static void put_le(uint8_t *p, uint32_t v, int n)
{
    for (int i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* A JPEG with an APP1 Exif segment whose DateTimeOriginal is `when` (the
 * TIFF block: IFD0 holding the Exif IFD pointer, the Exif IFD the date). */
static void write_jpeg_with_exif(const char *path, const char *when)
{
    gs_image *img = solid(32, 24, 120);
    uint8_t *jpg = NULL;
    size_t len = 0;
    assert_int_equal(cvshim_image_encode_jpeg(img, 90, &jpg, &len), 0);
    gs_image_destroy(img);
    uint8_t tiff[64] = {'I', 'I', 42, 0};
    put_le(tiff + 4, 8, 4);                 /* IFD0 at 8 */
    put_le(tiff + 8, 1, 2);                 /* one entry */
    put_le(tiff + 10, 0x8769, 2);           /* Exif IFD pointer */
    put_le(tiff + 12, 4, 2);
    put_le(tiff + 14, 1, 4);
    put_le(tiff + 18, 26, 4);               /* the Exif IFD at 26 */
    put_le(tiff + 22, 0, 4);                /* no next IFD */
    put_le(tiff + 26, 1, 2);
    put_le(tiff + 28, 0x9003, 2);           /* DateTimeOriginal */
    put_le(tiff + 30, 2, 2);                /* ASCII */
    put_le(tiff + 32, 20, 4);
    put_le(tiff + 36, 44, 4);               /* the text at 44 */
    put_le(tiff + 40, 0, 4);
    memcpy(tiff + 44, when, 19);
    size_t seg = 2 + 6 + 64;
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    uint8_t app1[4] = {0xFF, 0xE1, (uint8_t)(seg >> 8), (uint8_t)seg};
    assert_int_equal(fwrite(jpg, 1, 2, f), 2); /* SOI */
    assert_int_equal(fwrite(app1, 1, 4, f), 4);
    assert_int_equal(fwrite("Exif\0\0", 1, 6, f), 6);
    assert_int_equal(fwrite(tiff, 1, 64, f), 64);
    assert_int_equal(fwrite(jpg + 2, 1, len - 2, f), len - 2);
    assert_int_equal(fclose(f), 0);
    free(jpg);
}

static void test_photo_times(void **state)
{
    (void)state;
    char dir[] = "/tmp/gs-test-clock-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char a[256], b[256];
    snprintf(a, sizeof a, "%s/1.jpg", dir);
    snprintf(b, sizeof b, "%s/2.png", dir);
    write_jpeg_with_exif(a, "2024:03:01 14:03:22");
    gs_image *img = solid(32, 24, 60);
    gs_error err;
    assert_int_equal(gs_image_write_png(img, b, &err), GS_OK);
    gs_image_destroy(img);
    set_mtime(b, 1720000000); /* 2024-07-03, after the first photo */
    capture_source *s = capture_open_folder(dir, &err);
    assert_non_null(s);
    assert_non_null(strstr(capture_clock_note(s), "EXIF"));
    const gs_image *fr;
    capture_info info;
    assert_int_equal(capture_read(s, &fr, &info), CAPTURE_FRAME);
    struct tm tmv = {.tm_year = 124, .tm_mon = 2, .tm_mday = 1, .tm_hour = 14, .tm_min = 3, .tm_sec = 22, .tm_isdst = -1};
    assert_true(info.unix_ms == (int64_t)mktime(&tmv) * 1000); /* the camera's local time */
    assert_int_equal(capture_read(s, &fr, &info), CAPTURE_FRAME);
    assert_true(info.unix_ms == 1720000000000LL); /* no EXIF: the file's time */
    assert_string_equal(info.time_note, "");
    capture_close(s);
    unlink(a);
    unlink(b);
    rmdir(dir);
}

static void test_video_times(void **state)
{
    (void)state;
    char path[] = "/tmp/gs-test-clock-XXXXXX.avi";
    int fd = mkstemps(path, 4);
    assert_true(fd >= 0);
    close(fd);
    gs_error msg = {0};
    cvshim_writer *w = cvshim_writer_open(path, 64, 48, 4, &msg);
    if (!w) {
        unlink(path);
        print_message("skipped: no video encoder (%s)\n", msg.msg);
        skip();
    }
    for (int i = 0; i < 20; i++) { /* 5 s of video at 4 fps */
        gs_image *img = solid(64, 48, (uint8_t)(i * 10));
        assert_int_equal(cvshim_writer_write(w, img), 0);
        gs_image_destroy(img);
    }
    assert_int_equal(cvshim_writer_close(w), 0);
    set_mtime(path, 1700000100); /* the camera stopped then */
    gs_error err;
    capture_source *s = capture_open_video(path, &err);
    assert_non_null(s);
    assert_non_null(strstr(capture_clock_note(s), "modification time minus its duration"));
    const gs_image *fr;
    capture_info info;
    int n = 0;
    while (capture_read(s, &fr, &info) == CAPTURE_FRAME) {
        /* start = 1700000100 s - 5 s, plus the frame's position */
        int64_t want = 1700000095000LL + (int64_t)(info.t_ms + 0.5);
        assert_true(info.unix_ms == want);
        assert_true(info.t_ms > n * 250.0 - 1 && info.t_ms < n * 250.0 + 1);
        n++;
    }
    assert_int_equal(n, 20);
    capture_close(s);
    unlink(path);
}

/* The movie header of an MP4: its creation_time wins over the file time. */
static void test_mp4_creation_time(void **state)
{
    (void)state;
    char path[] = "/tmp/gs-test-clock-XXXXXX.mp4";
    int fd = mkstemps(path, 4);
    assert_true(fd >= 0);
    uint8_t f[8 + 8 + 8 + 8 + 20] = {0};
    /* ftyp (empty payload), then moov holding mvhd version 0 */
    memcpy(f, "\0\0\0\x08" "ftyp", 8);
    memcpy(f + 8, "\0\0\0\x24" "moov", 8);
    memcpy(f + 16, "\0\0\0\x1c" "mvhd", 8);
    uint32_t t = (uint32_t)(1700000000ULL + 2082844800ULL); /* seconds since 1904 */
    f[24 + 4] = (uint8_t)(t >> 24);
    f[24 + 5] = (uint8_t)(t >> 16);
    f[24 + 6] = (uint8_t)(t >> 8);
    f[24 + 7] = (uint8_t)t;
    assert_int_equal(write(fd, f, 44), 44);
    close(fd);
    char note[160];
    assert_true(capture_video_start_ms(path, 5000, note, sizeof note) == 1700000000000LL);
    assert_non_null(strstr(note, "creation_time (2023-11-14T22:13:20Z)"));
    /* an MP4 without one: the file's time minus the duration */
    fd = open(path, O_WRONLY | O_TRUNC);
    assert_true(fd >= 0);
    memset(f + 24, 0, 20);
    assert_int_equal(write(fd, f, 44), 44);
    close(fd);
    set_mtime(path, 1700000010);
    assert_true(capture_video_start_ms(path, 5000, note, sizeof note) == 1700000005000LL);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_photo_times),
        cmocka_unit_test(test_video_times),
        cmocka_unit_test(test_mp4_creation_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
