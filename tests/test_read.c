/* tests/test_read.c: point reading (vision_read) on a synthetic board and on
 * real photos with grids from clicked corners, and the scan pipeline's
 * error paths. */
#include "cvshim/cvshim.h"
#include "testutil.h"
#include "tests/testvision.h"
#include "vision/vision.h"
#include "vision/vision.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Paints a synthetic board photo: wood with a brightness gradient, thin dark
 * lines, black and white stones as discs with a soft shadow, on a pale table;
 * the wood margin is `margin` cells wide beyond the outer lines. */
static gs_image *synthetic_board_m(int N, const gs_position *pos, double corners[4][2], double light, double margin)
{
    int W = 640, H = 560;
    gs_image *img = gs_image_create(W, H, 3);
    assert_non_null(img);
    double x0 = 70, y0 = 60, cell = 420.0 / (N - 1);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            uint8_t *p = img->buf + (size_t)y * img->stride + (size_t)x * 3;
            double gain = light * (0.8 + 0.4 * x / W); /* light from the right */
            double mg = margin * cell;
            int inside = x > x0 - mg && x < x0 + 420 + mg && y > y0 - mg && y < y0 + 420 + mg;
            double b = inside ? 95 : 200, g = inside ? 165 : 200, r = inside ? 215 : 205;
            if (inside) {
                double fu = (x - x0) / cell, fv = (y - y0) / cell;
                double du = fabs(fu - lround(fu)) * cell, dv = fabs(fv - lround(fv)) * cell;
                int on_u = du < 0.9 && fv > -0.05 && fv < N - 0.95, on_v = dv < 0.9 && fu > -0.05 && fu < N - 0.95;
                if (on_u || on_v) b = 40, g = 45, r = 50;
                int su = (int)lround(fu), sv = (int)lround(fv);
                if (su >= 0 && sv >= 0 && su < N && sv < N) {
                    gs_color c = gs_position_get(pos, su, sv);
                    double d = hypot(x - (x0 + su * cell), y - (y0 + sv * cell)) / cell;
                    if (c != GS_EMPTY && d < 0.47) {
                        if (c == GS_BLACK) b = g = r = 28 + 30 * (d < 0.1); /* with a glint */
                        else b = 235, g = 238, r = 240 - 25 * d;
                    }
                }
            }
            p[0] = (uint8_t)fmin(255, b * gain);
            p[1] = (uint8_t)fmin(255, g * gain);
            p[2] = (uint8_t)fmin(255, r * gain);
        }
    double c[4][2] = {{x0, y0}, {x0 + 420, y0}, {x0 + 420, y0 + 420}, {x0, y0 + 420}};
    memcpy(corners, c, sizeof c);
    return img;
}

static gs_image *synthetic_board(int N, const gs_position *pos, double corners[4][2], double light)
{
    return synthetic_board_m(N, pos, corners, light, 1.0);
}

/* img read on the N x N grid through its four outer corners (malloc'd;
 * the reading must succeed). */
static vision_reading *read_at_corners(const gs_image *img, int N, const double corners[4][2])
{
    vision_grid g;
    gs_error err = {0};
    assert_int_equal(vision_grid_from_corners(&g, N, corners, &err), GS_OK);
    vision_reading *r = malloc(sizeof *r);
    assert_non_null(r);
    assert_int_equal(test_read(img, &g, r, &err), GS_OK);
    return r;
}

static void make_position(gs_position *pos, int N, unsigned seed)
{
    gs_position_clear(pos, N);
    for (int i = 0; i < N * N; i++) {
        seed = seed * 1103515245u + 12345u;
        unsigned r = (seed >> 16) % 10;
        pos->cell[i] = (uint8_t)(r < 2 ? GS_BLACK : r < 4 ? GS_WHITE : GS_EMPTY);
    }
}

static void test_synthetic_boards(void **state)
{
    (void)state;
    const int sizes[3] = {9, 13, 19};
    const double lights[3] = {1.0, 0.45, 1.15}; /* normal, dim, bright */
    for (int s = 0; s < 3; s++)
        for (int l = 0; l < 3; l++) {
            gs_position pos;
            make_position(&pos, sizes[s], (unsigned)(17 + s * 3 + l));
            double corners[4][2];
            gs_image *img = synthetic_board(sizes[s], &pos, corners, lights[l]);
            vision_reading *r = read_at_corners(img, sizes[s], corners);
            assert_int_equal(r->pos.size, sizes[s]);
            int wrong = 0;
            for (int i = 0; i < sizes[s] * sizes[s]; i++) {
                wrong += r->pos.cell[i] != pos.cell[i];
                assert_true(r->confidence[i] >= 0 && r->confidence[i] <= 1);
            }
            if (wrong) print_message("size %d light %.2f: %d wrong\n", sizes[s], lights[l], wrong);
            assert_int_equal(wrong, 0);
            free(r);
            gs_image_destroy(img);
        }
}

/* Paints a hand reaching over the left edge of a synthetic board: a
 * uniform skin-coloured band from outside the image to just past the left
 * line, covering rows v0..v1 (board units, as in synthetic_board_m). */
static void paint_hand(gs_image *img, const double corners[4][2], int N, double v0, double v1)
{
    double cell = (corners[1][0] - corners[0][0]) / (N - 1);
    int xe = (int)(corners[0][0] + 0.45 * cell);
    int ya = (int)(corners[0][1] + v0 * cell), yb = (int)(corners[0][1] + v1 * cell);
    for (int y = ya; y <= yb; y++)
        for (int x = 0; x <= xe; x++) {
            uint8_t *p = img->buf + (size_t)y * img->stride + (size_t)x * 3;
            p[0] = 170; p[1] = 190; p[2] = 230;
        }
}

/* Glare: a specular spot adds colourless light to the wood around an empty
 * point (radius rad cells), lines included, so they still show. */
static void paint_glare(gs_image *img, const double corners[4][2], int N, double u, double v, double rad)
{
    double cell = (corners[1][0] - corners[0][0]) / (N - 1);
    double cx = corners[0][0] + u * cell, cy = corners[0][1] + v * cell, R = rad * cell;
    for (int y = (int)(cy - R); y <= (int)(cy + R); y++)
        for (int x = (int)(cx - R); x <= (int)(cx + R); x++) {
            double d = hypot(x - cx, y - cy) / R;
            if (d > 1 || x < 0 || y < 0 || x >= img->width || y >= img->height) continue;
            uint8_t *p = img->buf + (size_t)y * img->stride + (size_t)x * 3;
            for (int c = 0; c < 3; c++) p[c] = (uint8_t)fmin(255, p[c] + 70 * (1 - 0.5 * d));
        }
}

/* Occlusion: a hand over the edge covers three edge points, which must not
 * read as white stones; white stones on the edge of a board with a narrow
 * margin, touching a table of nearly their own colour, must stay white;
 * glare on empty wood (inside and on the edge) is not a stone. */
static void test_synthetic_hand_and_edge_stones(void **state)
{
    (void)state;
    const int N = 13;
    gs_position pos;
    gs_position_clear(&pos, N);
    const int white[][2] = {{0, 1}, {12, 2}, {4, 0}, {5, 12}, {0, 10}, {7, 7}, {12, 12}};
    const int black[][2] = {{0, 8}, {6, 6}, {3, 3}, {12, 5}};
    for (size_t k = 0; k < sizeof white / sizeof white[0]; k++) gs_position_set(&pos, white[k][0], white[k][1], GS_WHITE);
    for (size_t k = 0; k < sizeof black / sizeof black[0]; k++) gs_position_set(&pos, black[k][0], black[k][1], GS_BLACK);
    double corners[4][2];
    gs_image *img = synthetic_board_m(N, &pos, corners, 1.0, 0.5);
    paint_hand(img, corners, N, 3.5, 6.5); /* covers (0,4), (0,5), (0,6): empty under it */
    paint_glare(img, corners, N, 9, 9, 0.7); /* glare on empty wood: lines still show */
    paint_glare(img, corners, N, 12, 9, 0.7);
    vision_reading *r = read_at_corners(img, N, corners);
    int wrong = 0;
    for (int i = 0; i < N * N; i++)
        if (r->pos.cell[i] != pos.cell[i]) {
            print_message("(%d,%d): read %d, truth %d\n", i % N, i / N, r->pos.cell[i], pos.cell[i]);
            wrong++;
        }
    assert_int_equal(wrong, 0);
    for (int v = 4; v <= 6; v++) assert_true(r->confidence[v * N] < 0.6f); /* unsure under the hand */
    free(r);
    gs_image_destroy(img);
}

/* A lit bevel: the light of a lamp low on the right catches the board's
 * right edge and goes on past it over the margin (colourless light on the
 * wood, its lines fainter, no stone's darker ring).  The empty points of
 * the right-hand line under it are the board's wood, not white stones:
 * none of them is read white. */
static void test_synthetic_lit_bevel(void **state)
{
    (void)state;
    const int N = 13;
    gs_position pos;
    make_position(&pos, N, 41);
    for (int v = 3; v <= 9; v++) gs_position_set(&pos, N - 1, v, GS_EMPTY);
    double corners[4][2];
    gs_image *img = synthetic_board_m(N, &pos, corners, 1.0, 0.8);
    double cell = (corners[1][0] - corners[0][0]) / (N - 1);
    int xa = (int)(corners[1][0] - 0.45 * cell), ya = (int)(corners[1][1] + 2.5 * cell),
        yb = (int)(corners[1][1] + 9.5 * cell);
    for (int y = ya; y <= yb; y++)
        for (int x = xa; x < img->width; x++) {
            uint8_t *p = img->buf + (size_t)y * img->stride + (size_t)x * 3;
            for (int c = 0; c < 3; c++) p[c] = (uint8_t)(p[c] + (255 - p[c]) * 0.55);
        }
    vision_reading *r = read_at_corners(img, N, corners);
    int white = 0;
    for (int v = 3; v <= 9; v++) {
        int i = v * N + N - 1;
        print_message("(12,%d): read %d, confidence %.2f\n", v, r->pos.cell[i], r->confidence[i]);
        white += r->pos.cell[i] == GS_WHITE;
    }
    assert_int_equal(white, 0);
    free(r);
    gs_image_destroy(img);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    vision_grid g;
    gs_error err = {0};
    double c[4][2] = {{10, 10}, {100, 10}, {100, 100}, {10, 100}};
    assert_int_equal(vision_grid_from_corners(&g, 9, (const double (*)[2])c, &err), GS_OK);
    vision_reading *r = malloc(sizeof *r);
    assert_non_null(r);
    gs_image empty = {0};
    assert_int_equal(test_read(&empty, &g, r, &err), GS_ERR_USAGE);
    assert_int_equal(test_read(NULL, &g, r, &err), GS_ERR_USAGE);
    gs_image *img = gs_image_create(50, 50, 3); /* grid mostly outside: must not crash */
    assert_int_equal(test_read(img, &g, r, &err), GS_OK);
    gs_image_destroy(img);
    free(r);
}

/* A uniform image holds no board: NOBOARD through the whole pipeline. */
static void test_blank_is_noboard(void **state)
{
    (void)state;
    gs_image *img = gs_image_create(640, 480, 3);
    assert_non_null(img);
    memset(img->buf, 128, (size_t)img->stride * (size_t)img->height);
    vision_result *res = malloc(sizeof *res);
    assert_non_null(res);
    gs_error err = {0};
    assert_int_equal(test_scan(img, res, &err), GS_ERR_NOBOARD);
    assert_true(err.msg[0] != 0);
    gs_image_destroy(img);
    free(res);
}

/* Reads pts_clicks (four "- - X\n  - Y" pairs) from a Gomrade state file. */
static int read_clicks(const char *path, double c[4][2])
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[256];
    int in = 0, n = 0;
    while (fgets(line, sizeof line, f) && n < 8) {
        if (!strncmp(line, "pts_clicks:", 11)) { in = 1; continue; }
        if (!in) continue;
        char *p = line;
        while (*p == ' ' || *p == '-') p++;
        if (*p < '0' || *p > '9') break;
        c[n / 2][n % 2] = atof(p);
        n++;
    }
    fclose(f);
    return n == 8 ? 0 : -1;
}

/* Real photos, grid from the corners a person clicked (outer intersections):
 * the reading alone must be right on (nearly) every point. */
static void test_real_photos_clicked_grid(void **state)
{
    (void)state;
    GS_REQUIRE_DATA(dir, "photos/gomrade/testing_sequence");
    char path[1024];
    double c[4][2];
    snprintf(path, sizeof path, "%s/board_extractor_state.yml", dir);
    assert_int_equal(read_clicks(path, c), 0);
    int step = gs_test_sanitized() ? 4 : 1;
    int photos = 0, exact = 0, total = 0, right = 0;
    vision_reading *r = malloc(sizeof *r);
    assert_non_null(r);
    for (int i = 0; i < 12; i += step) {
        gs_error err = {0};
        gs_position truth;
        snprintf(path, sizeof path, "%s/%d.txt", dir, i);
        assert_int_equal(gs_position_load(&truth, path, &err), GS_OK);
        snprintf(path, sizeof path, "%s/%d.jpg", dir, i);
        gs_image *img = cvshim_image_load(path, &err);
        assert_non_null(img);
        vision_grid g;
        assert_int_equal(vision_grid_from_corners(&g, truth.size, (const double (*)[2])c, &err), GS_OK);
        assert_int_equal(test_read(img, &g, r, &err), GS_OK);
        int ok = 0;
        for (int k = 0; k < truth.size * truth.size; k++) ok += r->pos.cell[k] == truth.cell[k];
        right += ok;
        total += truth.size * truth.size;
        exact += ok == truth.size * truth.size;
        photos++;
        gs_image_destroy(img);
    }
    free(r);
    print_message("clicked grids: %d/%d points, %d/%d boards exact\n", right, total, exact, photos);
    assert_true(right >= total - photos);      /* at most one point per photo */
    assert_true(exact * 10 >= photos * 9);
}

/* The whole pipeline on a few photos from different cameras. */
static void test_scan_real_photos(void **state)
{
    (void)state;
    GS_REQUIRE_DATA(dir, "photos");
    const char *names[] = {"imago/t2/t2_000", "imago/t3/t3_000", "gomrade/3/31", "imago/9x9/001", "imago/13x13/001"};
    const char *ext[] = {"jpg", "jpg", "jpg", "png", "png"};
    int n = gs_test_sanitized() ? 2 : 5;
    vision_result *res = malloc(sizeof *res);
    assert_non_null(res);
    for (int i = 0; i < n; i++) {
        char path[1024];
        gs_error err = {0};
        gs_position truth;
        snprintf(path, sizeof path, "%s/%s.txt", dir, names[i]);
        assert_int_equal(gs_position_load(&truth, path, &err), GS_OK);
        snprintf(path, sizeof path, "%s/%s.%s", dir, names[i], ext[i]);
        gs_image *img = cvshim_image_load(path, &err);
        assert_non_null(img);
        gs_status st = test_scan(img, res, &err);
        if (st != GS_OK) print_message("%s: %s\n", names[i], err.msg);
        assert_int_equal(st, GS_OK);
        assert_int_equal(res->reading.pos.size, truth.size);
        int ok = 0, NN = truth.size * truth.size;
        for (int k = 0; k < NN; k++) ok += res->reading.pos.cell[k] == truth.cell[k];
        print_message("%s: %d/%d right\n", names[i], ok, NN);
        assert_true(ok * 100 >= NN * 99);
        gs_image_destroy(img);
    }
    free(res);
}

/* Hard cases of real photos, whole pipeline: a hand over the left edge
 * (imago t3_003), glare on the edge wood of a dim oblique board (gomrade 4):
 * each must be read with at most one wrong point; and the white stones of a
 * dim bluish photo (gomrade 1). */
static void test_scan_occlusion_and_glare(void **state)
{
    (void)state;
    GS_REQUIRE_DATA(dir, "photos");
    const char *names[] = {"imago/t3/t3_003", "gomrade/4/28"};
    int n = gs_test_sanitized() ? 1 : 2;
    vision_result *res = malloc(sizeof *res);
    assert_non_null(res);
    for (int i = 0; i < n; i++) {
        char path[1024];
        gs_error err = {0};
        gs_position truth;
        snprintf(path, sizeof path, "%s/%s.txt", dir, names[i]);
        assert_int_equal(gs_position_load(&truth, path, &err), GS_OK);
        snprintf(path, sizeof path, "%s/%s.jpg", dir, names[i]);
        gs_image *img = cvshim_image_load(path, &err);
        assert_non_null(img);
        assert_int_equal(test_scan(img, res, &err), GS_OK);
        assert_int_equal(res->reading.pos.size, truth.size);
        int wrong = 0, NN = truth.size * truth.size;
        for (int k = 0; k < NN; k++) wrong += res->reading.pos.cell[k] != truth.cell[k];
        print_message("%s: %d wrong\n", names[i], wrong);
        assert_true(wrong <= 1);
        gs_image_destroy(img);
    }
    if (!gs_test_sanitized()) {
        /* Dim bluish light on a greyish board, a bright cloth just past the
         * top edge, a lamp low on the left casting each stone's shadow over
         * the point to its right: every white stone is found, no wood reads
         * as white, and every point read wrong (the shadows read as black)
         * is marked unsure (vision/read_shade.c). */
        char path[1024];
        gs_error err = {0};
        gs_position truth;
        snprintf(path, sizeof path, "%s/gomrade/1/11.txt", dir);
        assert_int_equal(gs_position_load(&truth, path, &err), GS_OK);
        snprintf(path, sizeof path, "%s/gomrade/1/11.jpg", dir);
        gs_image *img = cvshim_image_load(path, &err);
        assert_non_null(img);
        assert_int_equal(test_scan(img, res, &err), GS_OK);
        assert_int_equal(res->reading.pos.size, truth.size);
        int whites = 0, white_right = 0, false_white = 0, wrong = 0, unmarked = 0;
        for (int k = 0; k < truth.size * truth.size; k++) {
            whites += truth.cell[k] == GS_WHITE;
            white_right += truth.cell[k] == GS_WHITE && res->reading.pos.cell[k] == GS_WHITE;
            false_white += truth.cell[k] != GS_WHITE && res->reading.pos.cell[k] == GS_WHITE;
            wrong += truth.cell[k] != res->reading.pos.cell[k];
            unmarked += truth.cell[k] != res->reading.pos.cell[k] && !res->reading.unsure[k];
        }
        print_message("gomrade/1/11: %d/%d white stones, %d false white, %d wrong points, %d of them unmarked\n",
                      white_right, whites, false_white, wrong, unmarked);
        assert_int_equal(white_right, whites);
        assert_int_equal(false_white, 0);
        assert_int_equal(unmarked, 0);
        gs_image_destroy(img);
    }
    free(res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_synthetic_boards),
        cmocka_unit_test(test_synthetic_hand_and_edge_stones),
        cmocka_unit_test(test_synthetic_lit_bevel),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_blank_is_noboard),
        cmocka_unit_test(test_real_photos_clicked_grid),
        cmocka_unit_test(test_scan_real_photos),
        cmocka_unit_test(test_scan_occlusion_and_glare),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
