/* tests/test_grid.c: board finding and grid fit (vision_grid_find):
 * synthetic drawn boards with known corners, images without a board, and
 * the real photos of ../shared/data (sizes, orientation, clicked corners). */
#include "cvshim/cvshim.h"
#include "tests/testutil.h"
#include "tests/testvision.h"

#include "vision/vision.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- helpers */

static unsigned lcg(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) & 0x7fff;
}

/* Draws a board of n lines whose outer intersections are at the image
 * points c (vision_grid order), in perspective, on a bluish cloth, with
 * wood grain, a few stones and noise. */
static gs_image *draw_board(int w, int h, int n, const double c[4][2], unsigned seed, double k1, int loose)
{
    gs_image *img = gs_image_create(w, h, 3);
    assert_non_null(img);
    vision_grid g;
    gs_error e;
    assert_int_equal(vision_grid_from_corners(&g, n, c, &e), GS_OK);
    /* inverse homography: image -> board */
    const double *H = g.H;
    double I[9] = {H[4] * H[8] - H[5] * H[7], H[2] * H[7] - H[1] * H[8], H[1] * H[5] - H[2] * H[4],
                   H[5] * H[6] - H[3] * H[8], H[0] * H[8] - H[2] * H[6], H[2] * H[3] - H[0] * H[5],
                   H[3] * H[7] - H[4] * H[6], H[1] * H[6] - H[0] * H[7], H[0] * H[4] - H[1] * H[3]};
    int stones[][3] = {{3, 3, 1}, {2, 4, 2}, {5, 2, 1}, {6, 6, 2}, {1, 7, 1}, {4, 5, 2}};
    /* barrel/pincushion distortion about the centre, as vision_grid_map
     * models it: the drawn pixel (x, y) shows the undistorted point p with
     * x = c + (p - c)(1 + k1 r^2), r = |p - c| / norm; inverted by iteration */
    double cx = w / 2.0, cy = h / 2.0, norm = (w > h ? w : h) / 2.0;
    for (int y = 0; y < h; y++)
        for (int x0 = 0; x0 < w; x0++) {
            double x = x0, yy = y;
            if (k1 != 0) {
                double dx = x0 - cx, dy = y - cy, ux = dx, uy = dy;
                for (int it = 0; it < 10; it++) {
                    double s = 1 + k1 * (ux * ux + uy * uy) / (norm * norm);
                    ux = dx / s; uy = dy / s;
                }
                x = cx + ux; yy = cy + uy;
            }
            double ww = I[6] * x + I[7] * yy + I[8];
            double u = (I[0] * x + I[1] * yy + I[2]) / ww, v = (I[3] * x + I[4] * yy + I[5]) / ww;
            double b = 120, gg = 70, r = 40; /* cloth */
            /* loose stones lying on the cloth beside the board */
            if (loose && (hypot(u + 2.2, v - 3) < 0.47 || hypot(u + 2.1, v - 4.2) < 0.47 || hypot(u - n - 1.3, v - 8) < 0.47))
                b = gg = r = (v > 3.5 && v < 5) ? 235 : 25;
            if (u > -0.7 && v > -0.7 && u < n - 0.3 && v < n - 0.3) {
                double grain = 12 * sin(v * 7.3 + 2 * sin(u * 1.3));
                b = 110 + grain; gg = 170 + grain; r = 210 + grain;
                /* distance to the nearest line in image pixels: board
                 * distance / local gradient of the board coordinate */
                double w1 = I[6] * (x + 1) + I[7] * yy + I[8], w2 = I[6] * x + I[7] * (yy + 1) + I[8];
                double ux = (I[0] * (x + 1) + I[1] * yy + I[2]) / w1 - u, vx = (I[3] * (x + 1) + I[4] * yy + I[5]) / w1 - v;
                double uy = (I[0] * x + I[1] * (yy + 1) + I[2]) / w2 - u, vy = (I[3] * x + I[4] * (yy + 1) + I[5]) / w2 - v;
                double du = fabs(u - floor(u + 0.5)) / (hypot(ux, uy) + 1e-12);
                double dv = fabs(v - floor(v + 0.5)) / (hypot(vx, vy) + 1e-12);
                int onu = u > -0.05 && u < n - 0.95, onv = v > -0.05 && v < n - 0.95;
                double dl = 1e9;
                if (onv) dl = fmin(dl, du);
                if (onu) dl = fmin(dl, dv);
                if (dl < 1.5) { double k = dl < 0.8 ? 1 : (1.5 - dl) / 0.7; b -= 90 * k; gg -= 130 * k; r -= 160 * k; }
                for (size_t s = 0; s < sizeof stones / sizeof stones[0]; s++) {
                    if (stones[s][0] >= n || stones[s][1] >= n) continue;
                    if (hypot(u - stones[s][0], v - stones[s][1]) < 0.47) {
                        double lv = stones[s][2] == 1 ? 25 : 235;
                        b = gg = r = lv;
                    }
                }
            }
            double noise = (double)(lcg(&seed) % 21) - 10;
            uint8_t *p = img->buf + (size_t)y * img->stride + (size_t)x0 * 3;
            p[0] = (uint8_t)fmax(0, fmin(255, b + noise));
            p[1] = (uint8_t)fmax(0, fmin(255, gg + noise));
            p[2] = (uint8_t)fmax(0, fmin(255, r + noise));
        }
    return img;
}

/* Largest distance (in cells) between found corners and expected ones. */
static double corner_error(const vision_grid *g, const double c[4][2])
{
    double cell = hypot(c[1][0] - c[0][0], c[1][1] - c[0][1]) / (g->size - 1), worst = 0;
    for (int i = 0; i < 4; i++) worst = fmax(worst, hypot(g->corners[i][0] - c[i][0], g->corners[i][1] - c[i][1]));
    return worst / cell;
}

/* The orientation convention: edge 0-1 is the top one (highest midpoint)
 * and the corners run clockwise on screen (y down). */
static void assert_orientation(const vision_grid *g)
{
    double top = g->corners[0][1] + g->corners[1][1];
    for (int i = 1; i < 4; i++) assert_true(top <= g->corners[i][1] + g->corners[(i + 1) % 4][1] + 1e-6);
    for (int i = 0; i < 4; i++) {
        const double *a = g->corners[i], *b = g->corners[(i + 1) % 4], *c = g->corners[(i + 2) % 4];
        double cr = (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]);
        assert_true(cr > 0); /* clockwise on screen */
    }
    /* the homography agrees with the corners */
    double x, y;
    vision_grid_map(g, g->size - 1, g->size - 1, &x, &y);
    assert_true(fabs(x - g->corners[2][0]) < 2 && fabs(y - g->corners[2][1]) < 2);
}

/* --------------------------------------------------------- synthetic tests */

static void check_synthetic_ex(int n, const double c[4][2], int hint, double k1, int loose)
{
    gs_image *img = draw_board(800, 600, n, c, 7u + (unsigned)n, k1, loose);
    vision_grid g;
    gs_error e;
    const char *dump = getenv("GS_TEST_DUMP"); /* folder to look at the drawings */
    if (dump) {
        char path[4200];
        snprintf(path, sizeof path, "%s/synthetic_%d_%d_%g_%d.png", dump, n, hint, k1, loose);
        gs_image_write_png(img, path, &e);
    }
    gs_status s = test_grid_find(img, hint, &g, NULL, &e);
    if (s != GS_OK) print_message("vision_grid_find: %s\n", e.msg);
    assert_int_equal(s, GS_OK);
    assert_int_equal(g.size, n);
    double err = corner_error(&g, c);
    if (k1 != 0) {
        /* the corners as the distorted image shows them */
        double cc[4][2], cx = 400, cy = 300, norm = 400;
        for (int i = 0; i < 4; i++) {
            double dx = c[i][0] - cx, dy = c[i][1] - cy, s = 1 + k1 * (dx * dx + dy * dy) / (norm * norm);
            cc[i][0] = cx + dx * s;
            cc[i][1] = cy + dy * s;
        }
        err = corner_error(&g, (const double(*)[2])cc);
    }
    if (err > 0.15 || dump) print_message("corner error %.3f cells\n", err);
    assert_true(err < 0.15);
    assert_orientation(&g);
    assert_true(g.confidence > 0.5);
    gs_image_destroy(img);
}

static void check_synthetic(int n, const double c[4][2], int hint)
{
    check_synthetic_ex(n, c, hint, 0, 0);
}

static void test_synthetic_19_perspective(void **state)
{
    (void)state;
    /* strong perspective: far edge much shorter than the near one */
    const double c[4][2] = {{260, 90}, {560, 95}, {700, 520}, {110, 510}};
    check_synthetic(19, c, 0);
}

static void test_synthetic_13_rotated(void **state)
{
    (void)state;
    /* rotated ~25 degrees with a little perspective; corner 0 is the left end
     * of the highest edge */
    const double c[4][2] = {{300, 80}, {620, 200}, {510, 500}, {180, 390}};
    check_synthetic(13, c, 0);
}

static void test_synthetic_9_hint(void **state)
{
    (void)state;
    const double c[4][2] = {{250, 150}, {560, 140}, {590, 470}, {230, 460}};
    check_synthetic(9, c, 0);
    check_synthetic(9, c, 9);
}

static void test_synthetic_rotated_40(void **state)
{
    (void)state;
    /* a square board turned ~40 degrees: the top edge is the one from the
     * top vertex down to the right (its midpoint is highest) */
    double c[4][2], cx = 400, cy = 300, R = 230, a0 = 40 * M_PI / 180;
    double ang[4] = {-135, -45, 45, 135};
    for (int i = 0; i < 4; i++) {
        double a = ang[i] * M_PI / 180 + a0;
        c[i][0] = cx + R * cos(a);
        c[i][1] = cy + R * sin(a);
    }
    /* rotate the order so that edge 0-1 has the highest midpoint */
    int top = 0;
    for (int i = 1; i < 4; i++)
        if (c[i][1] + c[(i + 1) % 4][1] < c[top][1] + c[(top + 1) % 4][1]) top = i;
    double o[4][2];
    for (int i = 0; i < 4; i++) { o[i][0] = c[(top + i) % 4][0]; o[i][1] = c[(top + i) % 4][1]; }
    check_synthetic(19, (const double(*)[2])o, 0);
}

static void test_synthetic_tilt_50(void **state)
{
    (void)state;
    /* ~50 degrees of tilt: rows shrink towards the far edge */
    const double c[4][2] = {{280, 170}, {520, 170}, {730, 540}, {70, 540}};
    check_synthetic(19, c, 0);
}

static void test_synthetic_distortion_and_loose_stones(void **state)
{
    (void)state;
    const double c[4][2] = {{190, 80}, {610, 85}, {650, 520}, {150, 515}};
    check_synthetic_ex(19, c, 0, -0.06, 1);
    check_synthetic_ex(13, c, 0, 0.04, 1);
}

static void test_no_board(void **state)
{
    (void)state;
    vision_grid g;
    gs_error e;
    /* blank */
    gs_image *img = gs_image_create(640, 480, 3);
    memset(img->buf, 200, (size_t)img->stride * img->height);
    assert_int_equal(test_grid_find(img, 0, &g, NULL, &e), GS_ERR_NOBOARD);
    assert_true(strlen(e.msg) > 0);
    /* a "wall": smooth shading plus noise, a few blotches */
    unsigned seed = 3;
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++) {
            uint8_t *p = img->buf + (size_t)y * img->stride + (size_t)x * 3;
            int v = 150 + x / 10 - y / 12 + (int)(lcg(&seed) % 25);
            if (hypot(x - 300, y - 200) < 40) v -= 60;
            p[0] = p[1] = p[2] = (uint8_t)v;
        }
    assert_int_equal(test_grid_find(img, 0, &g, NULL, &e), GS_ERR_NOBOARD);
    gs_image_destroy(img);
    /* tiny image: usage error, no crash */
    gs_image *tiny = gs_image_create(8, 8, 3);
    assert_int_not_equal(test_grid_find(tiny, 0, &g, NULL, &e), GS_OK);
    gs_image_destroy(tiny);
}

/* ----------------------------------------------------------- real photos */

/* Reads the four clicked corners of a gomrade folder (pts_clicks). */
static int read_clicks(const char *dir, double c[4][2])
{
    char path[4200];
    snprintf(path, sizeof path, "%s/board_extractor_state.yml", dir);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strstr(buf, "pts_clicks:");
    if (!p) return -1;
    p += 11;
    int k = 0;
    while (*p && k < 8) {
        if (*p >= '0' && *p <= '9') c[k / 2][k % 2] = strtod(p, &p), k++;
        else if (*p == 'w' || *p == 'x' || *p == 'r') break; /* next key */
        else p++;
    }
    return k == 8 ? 0 : -1;
}

/* Clicked corners vs found ones, in cells, matching each found corner to the
 * nearest click; scale multiplies the clicks (1 when clicked on this photo). */
static double click_error(const vision_grid *g, const double c[4][2], double scale)
{
    double cell = hypot(g->corners[1][0] - g->corners[0][0], g->corners[1][1] - g->corners[0][1]) / (g->size - 1);
    double worst = 0;
    for (int i = 0; i < 4; i++) {
        double best = 1e18;
        for (int j = 0; j < 4; j++)
            best = fmin(best, hypot(g->corners[i][0] - scale * c[j][0], g->corners[i][1] - scale * c[j][1]));
        worst = fmax(worst, best);
    }
    return worst / cell;
}

static void test_gomrade_sequence_clicks(void **state)
{
    (void)state;
    GS_REQUIRE_DATA(dir, "photos/gomrade/testing_sequence");
    char d[4096];
    snprintf(d, sizeof d, "%s", dir);
    double clicks[4][2];
    assert_int_equal(read_clicks(d, clicks), 0);
    int step = gs_test_sanitized() ? 4 : 1;
    for (int i = 0; i < 12; i += step) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%d.jpg", d, i);
        gs_error e;
        gs_image *img = cvshim_image_load(path, &e);
        assert_non_null(img);
        vision_grid g;
        assert_int_equal(test_grid_find(img, 0, &g, NULL, &e), GS_OK);
        assert_int_equal(g.size, 19);
        /* the clicks are a person's, a few pixels off the lines themselves */
        double err = click_error(&g, clicks, 1.0);
        if (err > 0.3) print_message("%s: %.2f cells from the clicks\n", path, err);
        assert_true(err < 0.3);
        assert_orientation(&g);
        /* corner 0 is the top-left click */
        assert_true(hypot(g.corners[0][0] - clicks[0][0], g.corners[0][1] - clicks[0][1]) < 15);
        gs_image_destroy(img);
    }
}

/* The single gomrade shots were clicked on larger originals; their scale is
 * unknown, so it is fitted (one number) and only the shape is checked. */
static void test_gomrade_singles_shape(void **state)
{
    (void)state;
    GS_REQUIRE_DATA(root, "photos/gomrade");
    char base[4096];
    snprintf(base, sizeof base, "%s", root);
    const char *shots[] = {"1/11.jpg", "2/67.jpg", "3/31.jpg", "4/28.jpg", "5/24.jpg"};
    for (int i = 0; i < 5; i++) {
        char path[4200], dir[4200];
        snprintf(path, sizeof path, "%s/%s", base, shots[i]);
        snprintf(dir, sizeof dir, "%s/%d", base, i + 1);
        double clicks[4][2];
        assert_int_equal(read_clicks(dir, clicks), 0);
        gs_error e;
        gs_image *img = cvshim_image_load(path, &e);
        assert_non_null(img);
        vision_grid g;
        assert_int_equal(test_grid_find(img, 0, &g, NULL, &e), GS_OK);
        assert_int_equal(g.size, 19);
        double num = 0, den = 0;
        for (int k = 0; k < 4; k++) {
            num += g.corners[k][0] * clicks[k][0] + g.corners[k][1] * clicks[k][1];
            den += clicks[k][0] * clicks[k][0] + clicks[k][1] * clicks[k][1];
        }
        double err = click_error(&g, clicks, num / den);
        if (err > 0.35) print_message("%s: %.2f cells from the (scaled) clicks\n", path, err);
        assert_true(err < 0.35);
        assert_orientation(&g);
        gs_image_destroy(img);
    }
}

/* Every imago photo: the detected size is the size of its .txt and the grid
 * sits on dark lines. */
static void test_imago_sizes(void **state)
{
    (void)state;
    GS_REQUIRE_DATA(root, "photos/imago");
    char base[4096];
    snprintf(base, sizeof base, "%s", root);
    const char *sub[] = {"t1", "t2", "t2/skip", "t3", "9x9", "13x13"};
    int done = 0, k = 0;
    for (size_t s = 0; s < sizeof sub / sizeof sub[0]; s++) {
        char dir[4200];
        snprintf(dir, sizeof dir, "%s/%s", base, sub[s]);
        DIR *d = opendir(dir);
        assert_non_null(d);
        struct dirent *de;
        while ((de = readdir(d))) {
            size_t L = strlen(de->d_name);
            if (L < 5 || (strcmp(de->d_name + L - 4, ".jpg") && strcmp(de->d_name + L - 4, ".png"))) continue;
            if (gs_test_sanitized() && (k++ % 6) != 0) continue;
            char path[4500], tpath[4500];
            snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
            snprintf(tpath, sizeof tpath, "%s/%.*s.txt", dir, (int)(L - 4), de->d_name);
            gs_position truth;
            gs_error e;
            assert_int_equal(gs_position_load(&truth, tpath, &e), GS_OK);
            gs_image *img = cvshim_image_load(path, &e);
            assert_non_null(img);
            vision_grid g;
            vision_grid_find_info info;
            gs_status st = test_grid_find(img, 0, &g, &info, &e);
            if (st != GS_OK || g.size != truth.size)
                print_message("%s: %s size %d, expected %d\n", path, st == GS_OK ? "found" : e.msg, g.size, truth.size);
            assert_int_equal(st, GS_OK);
            assert_int_equal(g.size, truth.size);
            assert_orientation(&g);
            /* grid lines lie on the dark lines (stones cover some) */
            assert_true(info.found_frac > 0.6);
            assert_true(info.resid_p90 < 0.3);
            gs_image_destroy(img);
            done++;
        }
        closedir(d);
    }
    assert_true(done > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_synthetic_19_perspective),
        cmocka_unit_test(test_synthetic_13_rotated),
        cmocka_unit_test(test_synthetic_9_hint),
        cmocka_unit_test(test_synthetic_rotated_40),
        cmocka_unit_test(test_synthetic_tilt_50),
        cmocka_unit_test(test_synthetic_distortion_and_loose_stones),
        cmocka_unit_test(test_no_board),
        cmocka_unit_test(test_gomrade_sequence_clicks),
        cmocka_unit_test(test_gomrade_singles_shape),
        cmocka_unit_test(test_imago_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
