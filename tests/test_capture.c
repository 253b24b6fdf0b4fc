/* tests/test_capture.c: frame sources: natural sort, folders (order,
 * skipped broken photos, errors, pixel budget), synthetic list/callback,
 * video files written and read back (broken frames skipped and counted,
 * the pixel budget), cameras absent, a URL as it may be shown (never
 * its credentials) and of a scheme not read. */
#include "testutil.h"

#include "capture/capture.h"
#include "cvshim/cvshim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_natural_order(void **state)
{
    (void)state;
    static const struct { const char *a, *b; int sign; } t[] = {
        {"2.jpg", "10.jpg", -1},
        {"10.jpg", "2.jpg", 1},
        {"t2_009.jpg", "t2_010.jpg", -1},
        {"t2_9.jpg", "t2_10.jpg", -1},
        {"a.jpg", "a.jpg", 0},
        {"img1b", "img1a", 1},
        {"img", "img1", -1},
        {"007", "7", 1},   /* equal numbers: more leading zeros last */
        {"frame100", "frame99", 1},
        {"x12y3", "x12y10", -1},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        int c = capture_natural_cmp(t[i].a, t[i].b);
        int s = (c > 0) - (c < 0);
        if (s != t[i].sign) print_message("%s vs %s: %d\n", t[i].a, t[i].b, c);
        assert_int_equal(s, t[i].sign);
    }
}

static gs_image *solid(int w, int h, uint8_t v)
{
    gs_image *img = gs_image_create(w, h, 3);
    memset(img->buf, v, (size_t)img->stride * (size_t)h);
    return img;
}

static void write_png(const char *dir, const char *name, uint8_t v)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    gs_image *img = solid(16, 12, v);
    assert_int_equal(gs_image_write_png(img, path, NULL), GS_OK);
    gs_image_destroy(img);
}

static void test_folder(void **state)
{
    (void)state;
    char dir[] = "/tmp/gs-test-capture-XXXXXX";
    assert_non_null(mkdtemp(dir));
    write_png(dir, "10.png", 30);
    write_png(dir, "2.png", 20);
    write_png(dir, "1.png", 10);
    char path[256];
    snprintf(path, sizeof path, "%s/notes.txt", dir);
    FILE *f = fopen(path, "w");
    fputs("not a photo", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/5.jpg", dir); /* broken photo: skipped */
    f = fopen(path, "w");
    fputs("garbage", f);
    fclose(f);

    gs_error err = {0};
    capture_source *s = capture_open(dir, NULL, &err);
    assert_non_null(s);
    assert_int_equal(capture_get_kind(s), CAPTURE_FOLDER);
    assert_int_equal(capture_frame_count(s), 4);
    const char *want[] = {"1.png", "2.png", "5.jpg", "10.png"};
    const uint8_t val[] = {10, 20, 0, 30};
    int got = 0;
    for (int i = 0; i < 4; i++) {
        const gs_image *img = NULL;
        capture_info info;
        capture_result r = capture_read(s, &img, &info);
        if (i == 2) {
            assert_int_equal(r, CAPTURE_LOST);
            assert_non_null(strstr(capture_last_error(s), "5.jpg"));
            continue;
        }
        assert_int_equal(r, CAPTURE_FRAME);
        assert_string_equal(info.name, want[i]);
        assert_true(info.settled);
        assert_int_equal(info.index, got);
        assert_int_equal(img->width, 16);
        assert_int_equal(img->buf[0], val[i]);
        got++;
    }
    const gs_image *img;
    assert_int_equal(capture_read(s, &img, NULL), CAPTURE_END);
    capture_close(s);
    capture_close(NULL);

    /* errors: a folder without photos, a missing path, a non-video file */
    char empty[] = "/tmp/gs-test-capture-XXXXXX";
    assert_non_null(mkdtemp(empty));
    assert_null(capture_open(empty, NULL, &err));
    assert_int_equal(err.status, GS_ERR_NOBOARD);
    rmdir(empty);
    assert_null(capture_open("/nonexistent/goscribe/folder", NULL, &err));
    assert_int_equal(err.status, GS_ERR_IO);
    /* a photo file is a folder of that one photo: the garbage .jpg opens,
     * its read is lost (named), then the end */
    s = capture_open(path, NULL, &err);
    assert_non_null(s);
    assert_int_equal(capture_get_kind(s), CAPTURE_FOLDER);
    assert_int_equal(capture_read(s, &img, NULL), CAPTURE_LOST);
    assert_non_null(strstr(capture_last_error(s), "5.jpg"));
    assert_int_equal(capture_read(s, &img, NULL), CAPTURE_END);
    capture_close(s);
    snprintf(path, sizeof path, "%s/notes.txt", dir); /* a text file as video */
    assert_null(capture_open(path, NULL, &err));
    assert_int_equal(err.status, GS_ERR_FORMAT);

    const char *names[] = {"1.png", "2.png", "10.png", "5.jpg", "notes.txt"};
    for (size_t i = 0; i < 5; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

static void test_synthetic(void **state)
{
    (void)state;
    gs_image *a = solid(8, 8, 1), *b = solid(8, 8, 2);
    const gs_image *list[] = {a, b};
    gs_error err;
    capture_source *s = capture_open_list(list, 2, 25, false, &err);
    assert_non_null(s);
    const gs_image *img;
    capture_info info;
    assert_int_equal(capture_read(s, &img, &info), CAPTURE_FRAME);
    assert_ptr_equal(img, a);
    assert_int_equal(capture_read(s, &img, &info), CAPTURE_FRAME);
    assert_ptr_equal(img, b);
    assert_true(info.t_ms > 39.9 && info.t_ms < 40.1);
    assert_false(info.settled);
    assert_int_equal(capture_read(s, &img, &info), CAPTURE_END);
    assert_int_equal(capture_get_kind(s), CAPTURE_SYNTHETIC);
    capture_close(s);
    gs_image_destroy(a);
    gs_image_destroy(b);
}

typedef struct cb_state { gs_image *img; long calls; } cb_state;

static const gs_image *cb(void *user, long index, double *t_ms)
{
    cb_state *c = user;
    c->calls++;
    if (index >= 5) return NULL;
    c->img->buf[0] = (uint8_t)index;
    *t_ms = index * 100.0;
    return c->img;
}

static void test_callback(void **state)
{
    (void)state;
    cb_state c = {solid(4, 4, 0), 0};
    gs_error err;
    capture_source *s = capture_open_callback(cb, &c, 10, true, &err);
    assert_non_null(s);
    const gs_image *img;
    capture_info info;
    int n = 0;
    while (capture_read(s, &img, &info) == CAPTURE_FRAME) {
        assert_int_equal(img->buf[0], n);
        assert_true(info.settled);
        assert_true(info.t_ms == n * 100.0);
        n++;
    }
    assert_int_equal(n, 5);
    capture_close(s);
    assert_null(capture_open_callback(NULL, NULL, 0, false, &err));
    gs_image_destroy(c.img);
}

static void test_video(void **state)
{
    (void)state;
    char path[] = "/tmp/gs-test-capture-XXXXXX.avi";
    int fd = mkstemps(path, 4);
    assert_true(fd >= 0);
    close(fd);
    gs_error msg = {0};
    cvshim_writer *w = cvshim_writer_open(path, 64, 48, 10, &msg);
    if (!w) {
        unlink(path);
        print_message("skipped: no video encoder (%s)\n", msg.msg);
        skip();
    }
    for (int i = 0; i < 6; i++) {
        gs_image *img = solid(64, 48, (uint8_t)(i * 40));
        assert_int_equal(cvshim_writer_write(w, img), 0);
        gs_image_destroy(img);
    }
    assert_int_equal(cvshim_writer_close(w), 0);
    gs_error err;
    capture_source *s = capture_open(path, NULL, &err);
    assert_non_null(s);
    assert_int_equal(capture_get_kind(s), CAPTURE_VIDEO);
    assert_true(capture_fps(s) > 9.9 && capture_fps(s) < 10.1);
    const gs_image *img;
    capture_info info;
    int n = 0;
    double last = -1;
    while (capture_read(s, &img, &info) == CAPTURE_FRAME) {
        assert_int_equal(img->width, 64);
        assert_int_equal(img->height, 48);
        assert_true(info.t_ms > last);
        assert_true(abs((int)img->buf[3 * 32 + 48 * 0] - n * 40) < 12);
        last = info.t_ms;
        n++;
    }
    assert_int_equal(n, 6);
    capture_close(s);
    unlink(path);
}

/* Writes an MJPEG AVI of n 64x48 frames, frame i all grey level 10 * i;
 * false (skip) when no encoder. */
static bool write_levels_avi(const char *path, int n)
{
    gs_error msg = {0};
    cvshim_writer *w = cvshim_writer_open(path, 64, 48, 10, &msg);
    if (!w) {
        print_message("skipped: no video encoder (%s)\n", msg.msg);
        return false;
    }
    for (int i = 0; i < n; i++) {
        gs_image *img = solid(64, 48, (uint8_t)(i * 10));
        assert_int_equal(cvshim_writer_write(w, img), 0);
        gs_image_destroy(img);
    }
    assert_int_equal(cvshim_writer_close(w), 0);
    return true;
}

/* Zeroes the JPEG data of the AVI's video chunks whose numbers are listed
 * (ending with -1): what a damaged file looks like to the decoder. */
static void damage_avi(const char *path, const int *frames)
{
    char *data;
    size_t len;
    assert_int_equal(gs_file_read(path, 1 << 26, &data, &len, NULL), GS_OK);
    int k = 0;
    size_t p = 12;
    while (p + 8 <= len) {
        uint32_t size = (uint8_t)data[p + 4] | (uint8_t)data[p + 5] << 8 | (uint8_t)data[p + 6] << 16 |
                        (uint32_t)(uint8_t)data[p + 7] << 24;
        if (!memcmp(data + p, "LIST", 4)) { p += 12; continue; } /* into the list */
        if (data[p + 2] == 'd' && data[p + 3] == 'c') {
            for (const int *f = frames; *f >= 0; f++)
                if (*f == k) memset(data + p + 8, 0, size);
            k++;
        }
        p += 8 + size + (size & 1);
    }
    assert_true(k > 0);
    assert_int_equal(gs_file_write_atomic(path, data, len, NULL), GS_OK);
    free(data);
}

/* Broken frames of a video are skipped and counted, with their time; the
 * reading goes on to the container's real end; a broken end is said at
 * CAPTURE_END; nothing readable fails at open; the pixel budget refuses
 * the frames before decoding. */
static void test_video_broken_frames(void **state)
{
    (void)state;
    char path[] = "/tmp/gs-test-capture-XXXXXX.avi";
    int fd = mkstemps(path, 4);
    assert_true(fd >= 0);
    close(fd);
    if (!write_levels_avi(path, 20)) { unlink(path); skip(); }
    const int broken[] = {0, 7, 8, 9, 19, -1};
    damage_avi(path, broken);
    gs_error err;
    capture_source *s = capture_open(path, NULL, &err);
    assert_non_null(s);
    assert_int_equal(capture_frame_count(s), 20);
    const gs_image *img;
    capture_info info;
    int seen[20] = {0}, n = 0;
    capture_result r;
    while ((r = capture_read(s, &img, &info)) == CAPTURE_FRAME) {
        int f = (img->buf[0] + 5) / 10; /* which file frame this is, by its level */
        assert_true(f >= 0 && f < 20);
        seen[f] = 1;
        assert_true(fabs(info.t_ms - f * 100.0) < 1);
        if (f == 1) {
            assert_int_equal(info.skipped, 1);
            assert_true(info.skipped_t_ms == 0);
            assert_non_null(strstr(capture_last_error(s), "(frame 0, 0.00 s)"));
        } else if (f == 10) {
            assert_int_equal(info.skipped, 3);
            assert_true(fabs(info.skipped_t_ms - 700) < 1);
            assert_non_null(strstr(capture_last_error(s), "3 frames could not be decoded (frames 7-9, 0.70-0.90 s)"));
        } else {
            assert_int_equal(info.skipped, 0);
        }
        n++;
    }
    assert_int_equal(r, CAPTURE_END);
    assert_int_equal(info.skipped, 1); /* frame 19 */
    assert_non_null(strstr(capture_last_error(s), "the last 1 frame of the 20"));
    assert_int_equal(n, 15);
    for (int f = 0; f < 20; f++) assert_int_equal(seen[f], !(f == 0 || (f >= 7 && f <= 9) || f == 19));
    assert_int_equal(capture_skipped_count(s), 5);
    assert_int_equal(capture_read(s, &img, &info), CAPTURE_END); /* and stays there */
    assert_int_equal(info.skipped, 0);
    capture_close(s);

    /* over the pixel budget: refused at open, from the container's size */
    capture_options opt = {.max_pixels = 64 * 48 - 1};
    assert_null(capture_open(path, &opt, &err));
    assert_int_equal(err.status, GS_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "64 x 48 video frames are 3072 pixels, over the pixel budget of 3071"));

    /* nothing decodes: refused at open, saying so */
    const int all[] = {1, 2, 3, 4, 5, 6, 10, 11, 12, 13, 14, 15, 16, 17, 18, -1};
    damage_avi(path, all);
    assert_null(capture_open(path, NULL, &err));
    assert_int_equal(err.status, GS_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "none of its 20 frames can be decoded"));
    unlink(path);
}

/* A photo over the pixel budget in a folder is skipped like a broken one. */
static void test_folder_budget(void **state)
{
    (void)state;
    char dir[] = "/tmp/gs-test-capture-XXXXXX";
    assert_non_null(mkdtemp(dir));
    write_png(dir, "1.png", 10); /* 16 x 12 */
    gs_error err;
    capture_options opt = {.max_pixels = 100};
    capture_source *s = capture_open(dir, &opt, &err);
    assert_non_null(s);
    const gs_image *img;
    assert_int_equal(capture_read(s, &img, NULL), CAPTURE_LOST);
    assert_non_null(strstr(capture_last_error(s), "16 x 12 PNG is 192 pixels, over the pixel budget of 100"));
    assert_int_equal(capture_read(s, &img, NULL), CAPTURE_END);
    capture_close(s);
    opt.max_pixels = 192;
    s = capture_open(dir, &opt, &err);
    assert_non_null(s);
    assert_int_equal(capture_read(s, &img, NULL), CAPTURE_FRAME);
    capture_close(s);
    char path[300];
    snprintf(path, sizeof path, "%s/1.png", dir);
    unlink(path);
    rmdir(dir);
}

static void test_camera_absent(void **state)
{
    (void)state;
    gs_error err = {0};
    assert_null(capture_open("/dev/video97", NULL, &err));
    assert_int_equal(err.status, GS_ERR_IO);
    assert_null(capture_open("97", NULL, &err)); /* bare index */
    assert_int_equal(err.status, GS_ERR_IO);
    capture_device *d = NULL;
    int n = capture_list_devices(&d, &err);
    assert_true(n >= 0);
    capture_devices_free(d, n);
    capture_devices_free(NULL, 0);
}

/* A URL as it may be shown: its credentials never. */
static void test_url_shown(void **state)
{
    (void)state;
    static const struct { const char *spec, *shown; } t[] = {
        {"http://192.168.1.20:8080/video", "http://192.168.1.20:8080/video"},
        {"http://club:pw@192.168.1.20:8080/video", "http://***@192.168.1.20:8080/video"},
        {"rtsp://admin:p@ss:w0rd@cam.local/stream1", "rtsp://***@cam.local/stream1"}, /* '@' in the password */
        {"rtsp://admin@cam.local", "rtsp://***@cam.local"},
        {"http://cam/video.cgi?user=admin&pwd=x&resolution=720", "http://cam/video.cgi?user=***&pwd=***&resolution=720"},
        {"http://cam/mjpg?Token=abc;channel=2", "http://cam/mjpg?Token=***;channel=2"},
        {"http://cam/v?x=1#pass=frag", "http://cam/v?x=1#pass=frag"}, /* a fragment is not sent */
        {"http://cam/a@b", "http://cam/a@b"},                          /* '@' in the path: no user */
        {"/dev/video0", "/dev/video0"},
        {"games/evening 1.avi", "games/evening 1.avi"},
        /* URLs in a line of text: each one's */
        {"expected KEY = VALUE, not 'source http://u:pw@h/v'", "expected KEY = VALUE, not 'source http://***@h/v'"},
        {"a http://u:pw@h/v b rtsp://x:y@c", "a http://***@h/v b rtsp://***@c"},
        {"xhttp://u:pw@h/v", "xhttp://***@h/v"}, /* a scheme may hold letters: the whole word is the scheme */
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char buf[128];
        assert_string_equal(capture_spec_shown(t[i].spec, buf, sizeof buf), t[i].shown);
    }
    char small[12];
    assert_string_equal(capture_spec_shown("http://a:secret@h/x", small, sizeof small), "http://***@");
}

static void test_url_kinds(void **state)
{
    (void)state;
    assert_true(capture_spec_is_network("http://h/v"));
    assert_true(capture_spec_is_network("HTTPS://h/v"));
    assert_true(capture_spec_is_network("rtsp://h:554/s"));
    assert_false(capture_spec_is_network("file:///tmp/x.avi"));
    assert_false(capture_spec_is_network("gopher://h/"));
    assert_false(capture_spec_is_network("/dev/video0"));
    assert_false(capture_spec_is_network("http:/h"));
    assert_false(capture_spec_is_network("0"));
    /* a URL of a scheme goscribe does not read: one line naming it, no credentials */
    gs_error err = {0};
    assert_null(capture_open("gopher://u:secret@h/x", NULL, &err));
    assert_int_equal(err.status, GS_ERR_USAGE);
    assert_non_null(strstr(err.msg, "gopher://***@h/x: not a source goscribe reads"));
    assert_null(strstr(err.msg, "secret"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_natural_order), cmocka_unit_test(test_folder),
        cmocka_unit_test(test_synthetic),     cmocka_unit_test(test_callback),
        cmocka_unit_test(test_video),         cmocka_unit_test(test_video_broken_frames),
        cmocka_unit_test(test_folder_budget), cmocka_unit_test(test_camera_absent),
        cmocka_unit_test(test_url_shown),     cmocka_unit_test(test_url_kinds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
