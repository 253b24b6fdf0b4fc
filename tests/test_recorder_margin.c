/* tests/test_recorder_margin.c: end-of-game signals on the margin outside
 * the lines (RULES.md, "End of game"): stones drawn on a rendered board's
 * margin are found by track_margin_scan, go through the tracker as a settled
 * view, and the recorder flags a confirmation / a resignation signal. */
#include "testutil.h"

#include "track/track.h"
#include "record/record.h"
#include "track/track.h"
#include "samples/render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct scene_fix {
    render_scene *scene;
    vision_grid grid;
    gs_image *board;   /* the empty board, as rendered */
} scene_fix;

static void scene_make(scene_fix *f, uint64_t seed)
{
    render_params p;
    render_params_from_seed(&p, seed, 9, 640, 480);
    p.bump_ms = -1;
    p.flicker = 0;
    p.slow_amp = 0;
    gs_error e;
    f->scene = render_scene_create(&p, &e);
    assert_non_null(f->scene);
    render_state st;
    render_state_init(&st, 9);
    f->board = gs_image_create(640, 480, 3);
    assert_non_null(f->board);
    assert_int_equal(render_frame(f->scene, &st, f->board, &e), GS_OK);
    render_grid(f->scene, 0, &f->grid);
}

static void scene_free(scene_fix *f)
{
    render_scene_destroy(f->scene);
    gs_image_destroy(f->board);
}

/* Draws a stone (a disc 0.9 cell across) centred at board point (u, v). */
static void draw_stone(gs_image *img, const vision_grid *g, double u, double v, gs_color c)
{
    double cx, cy, ex, ey;
    vision_grid_map(g, u, v, &cx, &cy);
    vision_grid_map(g, u + 0.45, v, &ex, &ey);
    double r = hypot(ex - cx, ey - cy);
    for (int y = (int)(cy - r) - 1; y <= (int)(cy + r) + 1; y++)
        for (int x = (int)(cx - r) - 1; x <= (int)(cx + r) + 1; x++) {
            if (x < 0 || y < 0 || x >= img->width || y >= img->height) continue;
            if (hypot(x - cx, y - cy) > r) continue;
            uint8_t *p = img->buf + (size_t)y * (size_t)img->stride + (size_t)x * 3;
            uint8_t b = c == GS_BLACK ? 22 : 228, g2 = c == GS_BLACK ? 22 : 230, rr = c == GS_BLACK ? 25 : 226;
            p[0] = b;
            p[1] = g2;
            p[2] = rr;
        }
}

static void test_margin_scan_finds_stones(void **state)
{
    (void)state;
    scene_fix f;
    scene_make(&f, 11);
    track_margin_view m;
    track_margin_scan(f.board, &f.grid, &m);
    assert_true(m.valid);
    assert_int_equal(m.n, 0); /* bare margin: nothing */
    gs_image *img = gs_image_copy(f.board);
    draw_stone(img, &f.grid, 8.65, 8.4, GS_WHITE);   /* right edge, by corner (8,8) */
    draw_stone(img, &f.grid, 3.0, -0.65, GS_BLACK);  /* top edge, middle */
    track_margin_scan(img, &f.grid, &m);
    assert_int_equal(m.n, 2);
    int seen_white = 0, seen_black = 0;
    for (int i = 0; i < m.n; i++) {
        if (m.stones[i].color == GS_WHITE) {
            seen_white++;
            assert_true(m.stones[i].corner);
            assert_int_equal(m.stones[i].corner_index, 2);
            assert_int_equal(m.stones[i].side, TRACK_MARGIN_RIGHT);
        } else {
            seen_black++;
            assert_false(m.stones[i].corner);
            assert_int_equal(m.stones[i].side, TRACK_MARGIN_TOP);
        }
    }
    assert_int_equal(seen_white, 1);
    assert_int_equal(seen_black, 1);
    /* stones on the board are not margin stones */
    gs_image_destroy(img);
    img = gs_image_copy(f.board);
    draw_stone(img, &f.grid, 0, 0, GS_BLACK);
    draw_stone(img, &f.grid, 8, 8, GS_WHITE);
    draw_stone(img, &f.grid, 4, 4, GS_BLACK);
    track_margin_scan(img, &f.grid, &m);
    assert_int_equal(m.n, 0);
    gs_image_destroy(img);
    scene_free(&f);
}

/* Stones standing on the outer lines, rendered with their height under
 * tilted cameras, lean into the margin band in the picture: they are not
 * margin stones (the false resignation signals seen on rendered games). */
static void test_first_line_stones_are_not_margin_stones(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 6; seed++) {
        render_params p;
        render_params_from_seed(&p, seed, 9, 640, 360);
        p.bump_ms = -1;
        p.flicker = 0;
        p.slow_amp = 0;
        gs_error e;
        render_scene *sc = render_scene_create(&p, &e);
        assert_non_null(sc);
        vision_grid g;
        render_grid(sc, 0, &g);
        render_state st;
        render_state_init(&st, 9);
        /* every edge point, colours in runs of two (a pair of one colour
         * on the margin would read as a resignation) */
        for (int k = 0; k < 9; k++) {
            gs_color c = (k / 2) % 2 ? GS_WHITE : GS_BLACK;
            gs_position_set(&st.pos, k, 0, c);
            gs_position_set(&st.pos, k, 8, c);
            gs_position_set(&st.pos, 0, k, gs_color_other(c));
            gs_position_set(&st.pos, 8, k, gs_color_other(c));
        }
        gs_image *img = gs_image_create(640, 360, 3);
        assert_non_null(img);
        assert_int_equal(render_frame(sc, &st, img, &e), GS_OK);
        track_margin_view m;
        track_margin_scan(img, &g, &m);
        assert_true(m.valid);
        track_margin_view_drop_beside(&m, &st.pos);
        if (m.n != 0) fail_msg("seed %d: %d margin stones seen where there are none", (int)seed, m.n);
        /* a real one beside stones of the other colour is still seen */
        draw_stone(img, &g, 2.5, -0.65, GS_BLACK);
        track_margin_scan(img, &g, &m);
        track_margin_view_drop_beside(&m, &st.pos);
        if (m.n != 1 || m.stones[0].color != GS_BLACK || m.stones[0].side != TRACK_MARGIN_TOP)
            fail_msg("seed %d: the black margin stone by white edge stones: %d stones seen", (int)seed, m.n);
        gs_image_destroy(img);
        render_scene_destroy(sc);
    }
}

static int count_code(record *r, const char *code, gs_color *c)
{
    const record_event *ev;
    size_t n = record_events(r, &ev);
    int k = 0;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(ev[i].code, code)) {
            k++;
            if (c) *c = ev[i].color;
        }
    return k;
}

/* Frames through the tracker: the signal stone changes no point but makes a
 * settled view whose margin holds it. */
static void test_signals_through_tracker_and_recorder(void **state)
{
    (void)state;
    scene_fix f;
    scene_make(&f, 23);
    track_options to;
    track_options_init(&to);
    to.have_grid = true;
    to.grid = f.grid;
    to.settle_ms = 300;
    gs_error e;
    track *tr = track_create(&to, &e);
    assert_non_null(tr);
    record_options ro;
    record_options_init(&ro);
    record *rec = record_create(&ro, &e);
    assert_non_null(rec);
    gs_image *img = gs_image_copy(f.board);
    track_update *up = malloc(sizeof *up);
    assert_non_null(up);
    double t = 0;
    int phase_confirms = 0;
    /* phase 0: bare board; 1: a white stone by a corner (Black confirms);
     * 2: plus a black stone by the opposite corner (White confirms);
     * 3: cleared, two white stones on one edge (White resigns) */
    for (int phase = 0; phase < 4; phase++) {
        if (phase == 1) draw_stone(img, &f.grid, 8.65, 8.4, GS_WHITE);
        if (phase == 2) draw_stone(img, &f.grid, -0.65, 0.4, GS_BLACK);
        if (phase == 3) {
            gs_image_destroy(img);
            img = gs_image_copy(f.board);
            draw_stone(img, &f.grid, 3.0, 8.65, GS_WHITE);
            draw_stone(img, &f.grid, 5.0, 8.65, GS_WHITE);
        }
        for (int k = 0; k < 8; k++, t += 100) {
            assert_int_equal(track_feed(tr, img, t, false, up, &e), GS_OK);
            if (!up->settled) continue;
            assert_int_equal(record_observe(rec, &up->pos, NULL, t, img, &e), GS_OK);
            assert_int_equal(record_margin(rec, &up->margin, t, &e), GS_OK);
        }
        if (phase == 1) {
            gs_color c = GS_EMPTY;
            phase_confirms = count_code(rec, "confirm_signal", &c);
            assert_int_equal(phase_confirms, 1);
            assert_int_equal(c, GS_BLACK);
        }
    }
    gs_color c = GS_EMPTY;
    assert_int_equal(count_code(rec, "confirm_signal", NULL), 2);
    assert_int_equal(count_code(rec, "resign_signal", &c), 1);
    assert_int_equal(c, GS_WHITE);
    /* the signals are in the SGF */
    char *txt = NULL;
    size_t len = 0;
    assert_int_equal(record_sgf_text(rec, &txt, &len, &e), GS_OK);
    assert_non_null(strstr(txt, "confirm_signal"));
    assert_non_null(strstr(txt, "resign_signal"));
    free(txt);
    assert_int_equal(record_move_count(rec), 0); /* no stone on the board */
    free(up);
    gs_image_destroy(img);
    record_destroy(rec);
    track_destroy(tr);
    scene_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_margin_scan_finds_stones),
        cmocka_unit_test(test_first_line_stones_are_not_margin_stones),
        cmocka_unit_test(test_signals_through_tracker_and_recorder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
