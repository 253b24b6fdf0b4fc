/* tests/test_render.c: the synthetic camera and its timeline. Small frames
 * keep it fast. */
#include "testutil.h"

#include "samples/render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A plain look: no noise, blur, glare or lens, so pixels are predictable. */
static void plain_params(render_params *p, uint64_t seed, int size, int w, int h)
{
    render_params_from_seed(p, seed, size, w, h);
    p->noise = 0;
    p->blur = 0;
    p->glare = 0;
    p->flicker = 0;
    p->slow_amp = 0;
    p->jpeg_quality = 0;
    p->bump_ms = -1;
}

static double luma(const gs_image *img, double x, double y)
{
    int xi = (int)floor(x), yi = (int)floor(y);
    assert_true(xi >= 1 && yi >= 1 && xi < img->width - 1 && yi < img->height - 1);
    /* 3x3 mean, so a sample on an anti-aliased edge is not a fluke */
    double s = 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            const uint8_t *q = img->buf + (size_t)(yi + dy) * img->stride + (xi + dx) * 3;
            s += 0.114 * q[0] + 0.587 * q[1] + 0.299 * q[2];
        }
    return s / 9;
}

static void test_determinism(void **state)
{
    (void)state;
    render_params p;
    render_params_from_seed(&p, 42, 9, 200, 150);
    p.noise = 4;
    gs_error err = {0};
    render_scene *a = render_scene_create(&p, &err), *b = render_scene_create(&p, &err);
    assert_non_null(a);
    assert_non_null(b);
    render_state st;
    render_state_init(&st, 9);
    gs_position_set(&st.pos, 2, 2, GS_BLACK);
    gs_position_set(&st.pos, 6, 6, GS_WHITE);
    st.hand = (render_hand){true, GS_BLACK, 0, 30, 40, 10, GS_BLACK, 0};
    st.frame = 5;
    st.t_ms = 1234;
    gs_image *ia = gs_image_create(200, 150, 3), *ib = gs_image_create(200, 150, 3);
    assert_int_equal(render_frame(a, &st, ia, &err), GS_OK);
    /* b renders another frame first: its caches must not change the result */
    render_state other = st;
    other.frame = 1;
    other.hand.present = false;
    assert_int_equal(render_frame(b, &other, ib, &err), GS_OK);
    assert_int_equal(render_frame(b, &st, ib, &err), GS_OK);
    assert_memory_equal(ia->buf, ib->buf, (size_t)ia->stride * ia->height);

    /* another seed looks different */
    render_params q;
    render_params_from_seed(&q, 43, 9, 200, 150);
    render_scene *c = render_scene_create(&q, &err);
    assert_non_null(c);
    assert_int_equal(render_frame(c, &st, ib, &err), GS_OK);
    assert_true(memcmp(ia->buf, ib->buf, (size_t)ia->stride * ia->height) != 0);

    /* the scripts are deterministic too */
    gs_move mv[4] = {{GS_BLACK, {2, 2}, false}, {GS_WHITE, {6, 6}, false}, {GS_BLACK, {4, 4}, false}, {GS_WHITE, {0, 0}, true}};
    render_script_options so;
    render_script_options_init(&so, 9);
    render_script *s1 = render_script_create(9, mv, 4, &so, &err), *s2 = render_script_create(9, mv, 4, &so, &err);
    assert_non_null(s1);
    assert_non_null(s2);
    assert_true(render_script_duration_ms(s1) == render_script_duration_ms(s2));
    for (double t = 0; t < render_script_duration_ms(s1); t += 97) {
        render_state x, y;
        render_script_state(s1, t, &x);
        render_script_state(s2, t, &y);
        assert_memory_equal(&x, &y, sizeof x);
    }
    render_script_destroy(s1);
    render_script_destroy(s2);
    gs_image_destroy(ia);
    gs_image_destroy(ib);
    render_scene_destroy(a);
    render_scene_destroy(b);
    render_scene_destroy(c);
}

/* Stones land where the camera model says: dark at a black stone, bright
 * at a white one, wood between; over several seeds (tilts, rotations,
 * lenses, cell shapes). */
static void test_projection(void **state)
{
    (void)state;
    int seeds = gs_test_sanitized() ? 3 : 8;
    for (int seed = 1; seed <= seeds; seed++) {
        int size = seed % 3 == 0 ? 9 : seed % 3 == 1 ? 13 : 19;
        render_params p;
        plain_params(&p, (uint64_t)seed, size, 480, 360);
        p.gradient = 0;
        p.brightness = 1;
        p.kelvin = 5500;
        p.fill = 0.9;
        gs_error err = {0};
        render_scene *s = render_scene_create(&p, &err);
        assert_non_null(s);
        render_state st;
        render_state_init(&st, size);
        int b[2] = {2, size - 3}, w[2] = {size - 3, 2}, e[2] = {size / 2, size / 2};
        gs_position_set(&st.pos, b[0], b[1], GS_BLACK);
        gs_position_set(&st.pos, w[0], w[1], GS_WHITE);
        gs_image *img = gs_image_create(480, 360, 3);
        assert_int_equal(render_frame(s, &st, img, &err), GS_OK);
        double x, y;
        assert_true(render_project(s, b[0], b[1], p.stone_h_mm / 2, 0, &x, &y));
        double lb = luma(img, x, y);
        assert_true(render_project(s, w[0], w[1], p.stone_h_mm / 2, 0, &x, &y));
        double lw = luma(img, x, y);
        /* the middle of an empty cell: plain wood */
        assert_true(render_project(s, e[0] + 0.5, e[1] + 0.5, 0, 0, &x, &y));
        double le = luma(img, x, y);
        print_message("seed %d size %d tilt %.0f: black %.0f wood %.0f white %.0f\n", seed, size, p.tilt_deg, lb, le, lw);
        assert_true(lb < 80);
        assert_true(lb + 40 < le);
        assert_true(lw > le + 15);
        /* the truth grid agrees with render_project */
        vision_grid g;
        render_grid(s, 0, &g);
        assert_int_equal(g.size, size);
        assert_true(render_project(s, size - 1, size - 1, 0, 0, &x, &y));
        assert_true(fabs(g.corners[2][0] - x) < 1e-6 && fabs(g.corners[2][1] - y) < 1e-6);
        /* H maps (u,v) to the undistorted image: check at the centre */
        double u = (size - 1) / 2.0, v = u;
        double hx = g.H[0] * u + g.H[1] * v + g.H[2], hy = g.H[3] * u + g.H[4] * v + g.H[5], hw = g.H[6] * u + g.H[7] * v + g.H[8];
        hx /= hw;
        hy /= hw;
        double dx = hx - g.cx, dy = hy - g.cy, r2 = (dx * dx + dy * dy) / (g.norm * g.norm);
        hx = g.cx + dx * (1 + g.k1 * r2);
        hy = g.cy + dy * (1 + g.k1 * r2);
        assert_true(render_project(s, u, v, 0, 0, &x, &y));
        assert_true(fabs(hx - x) < 0.01 && fabs(hy - y) < 0.01);
        gs_image_destroy(img);
        render_scene_destroy(s);
    }
}

/* Whether image point (x, y) lies inside the quad q (in order). */
static bool in_quad(const double q[4][2], double x, double y)
{
    int pos = 0, neg = 0;
    for (int i = 0; i < 4; i++) {
        const double *a = q[i], *b = q[(i + 1) % 4];
        double c = (b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0]);
        pos += c > 0;
        neg += c < 0;
    }
    return pos == 0 || neg == 0;
}

/* A white stone on the middle of each side's margin, reaching a fifth of
 * its width over the board's edge, under oblique cameras: where the top of
 * one is seen beyond the board's edge in the picture (the far side), the
 * picture shows the stone there, not the table behind it. */
static void test_stone_over_the_edge_is_seen(void **state)
{
    (void)state;
    int seen = 0;
    for (int seed = 1; seed <= 8; seed++) {
        int size = 9;
        render_params p;
        plain_params(&p, (uint64_t)seed, size, 480, 360);
        p.margin_mm = 25;
        p.objects = false;
        p.tilt_deg = 35 + 2 * seed; /* oblique: the far side's stones stand out over its edge */
        gs_error err = {0};
        render_scene *s = render_scene_create(&p, &err);
        assert_non_null(s);
        double n1 = size - 1, ou = (p.margin_mm - 0.3 * p.stone_mm) / p.cell_w_mm,
               ov = (p.margin_mm - 0.3 * p.stone_mm) / p.cell_h_mm;
        const double at[4][2] = {{n1 / 2, -ov}, {n1 + ou, n1 / 2}, {n1 / 2, n1 + ov}, {-ou, n1 / 2}};
        render_state bare, st;
        render_state_init(&bare, size);
        st = bare;
        st.nmargin = 4;
        for (int k = 0; k < 4; k++) st.margin[k] = (render_margin_stone){at[k][0], at[k][1], GS_WHITE, (uint8_t)k};
        gs_image *a = gs_image_create(480, 360, 3), *b = gs_image_create(480, 360, 3);
        assert_int_equal(render_frame(s, &bare, a, &err), GS_OK);
        assert_int_equal(render_frame(s, &st, b, &err), GS_OK);
        /* the board top's outer edge in the picture */
        double q[4][2], mu = p.margin_mm / p.cell_w_mm, mv = p.margin_mm / p.cell_h_mm;
        const double cu[4] = {-mu, n1 + mu, n1 + mu, -mu}, cv[4] = {-mv, -mv, n1 + mv, n1 + mv};
        for (int i = 0; i < 4; i++) assert_true(render_project(s, cu[i], cv[i], 0, 0, &q[i][0], &q[i][1]));
        for (int k = 0; k < 4; k++) {
            double x, y;
            if (!render_project(s, at[k][0], at[k][1], p.stone_h_mm * 0.8, 0, &x, &y)) continue;
            if (in_quad(q, x, y) || x < 2 || y < 2 || x > 477 || y > 357) continue;
            double la = luma(a, x, y), lb = luma(b, x, y);
            if (lb < la + 40)
                fail_msg("seed %d side %d: the stone's top beyond the edge at (%.0f, %.0f) shows %.0f, the table %.0f",
                         seed, k, x, y, lb, la);
            seen++;
        }
        gs_image_destroy(a);
        gs_image_destroy(b);
        render_scene_destroy(s);
    }
    print_message("%d stones seen over the far edge\n", seen);
    assert_true(seen >= 4);
}

/* Both players confirm the end of a game with stones on all four corner
 * points: each confirmation stone lies by its corner, outside both lines,
 * and no nearer any stone on the board than a stone's width (stones do
 * not overlap), on the rules' margin (2.5 cm, wider than a stone; on a
 * narrower one it stays on the board and may touch over the corner). */
static void test_confirmation_stones_do_not_overlap(void **state)
{
    (void)state;
    gs_move mv[] = {{GS_BLACK, {0, 0}, false}, {GS_WHITE, {8, 8}, false}, {GS_BLACK, {8, 0}, false},
                    {GS_WHITE, {0, 8}, false}, {GS_BLACK, {4, 4}, false}, {GS_WHITE, {4, 6}, false}};
    for (uint64_t seed = 1; seed <= 6; seed++) {
        render_script_options so;
        render_script_options_init(&so, seed);
        so.end = RENDER_END_CONFIRM;
        so.margin_mm = 25;
        gs_error err = {0};
        render_script *sc = render_script_create(9, mv, 6, &so, &err);
        assert_non_null(sc);
        render_state st;
        render_script_state(sc, render_script_duration_ms(sc), &st);
        assert_int_equal(st.nmargin, 2);
        for (int k = 0; k < st.nmargin; k++) {
            const render_margin_stone *m = &st.margin[k];
            assert_true((m->u < 0 && m->v < 0) || (m->u > 8 && m->v > 8));
            for (int i = 0; i < 81; i++) {
                if (st.pos.cell[i] == GS_EMPTY) continue;
                double d = hypot((m->u - i % 9) * so.cell_w_mm, (m->v - i / 9) * so.cell_h_mm);
                if (d < so.stone_mm)
                    fail_msg("seed %d: the confirmation stone at (%.2f, %.2f) overlaps the stone at %d,%d (%.1f mm apart)",
                             (int)seed, m->u, m->v, i % 9, i / 9, d);
            }
        }
        render_script_destroy(sc);
    }
}

/* The points the truth says a hand covers show the hand in the picture. */
static void test_hand_covers(void **state)
{
    (void)state;
    for (int seed = 1; seed <= 4; seed++) {
        render_params p;
        plain_params(&p, (uint64_t)seed, 9, 320, 240);
        /* colours far from any wood, so "shows the hand" is clear */
        p.skin_bgr[0] = 200; p.skin_bgr[1] = 60; p.skin_bgr[2] = 40;
        p.sleeve_bgr[0] = 200; p.sleeve_bgr[1] = 60; p.sleeve_bgr[2] = 40;
        p.sleeve2_bgr[0] = 200; p.sleeve2_bgr[1] = 60; p.sleeve2_bgr[2] = 40;
        p.kelvin = 5500;
        p.brightness = 1;
        gs_error err = {0};
        render_scene *s = render_scene_create(&p, &err);
        assert_non_null(s);
        render_state st;
        render_state_init(&st, 9);
        st.hand = (render_hand){true, seed % 2 ? GS_BLACK : GS_WHITE, 10, 0, 12, 0, GS_EMPTY, 0};
        gs_image *img = gs_image_create(320, 240, 3);
        assert_int_equal(render_frame(s, &st, img, &err), GS_OK);
        uint8_t cov[81];
        bool vis = false;
        int n = render_hand_covers(s, &st, cov, &vis);
        assert_true(vis);
        assert_true(n >= 3);
        assert_true(cov[4 * 9 + 4] || cov[4 * 9 + 5]);  /* fingertips near the centre */
        int blue = 0;
        for (int i = 0; i < 81; i++) {
            double x, y;
            assert_true(render_project(s, i % 9, i / 9, 0, 0, &x, &y));
            const uint8_t *q = img->buf + (size_t)(int)y * img->stride + (int)x * 3;
            bool hand_colour = q[0] > q[2] + 60;  /* wood is red-yellow, the hand blue */
            if (cov[i]) {
                assert_true(hand_colour);
                blue++;
            }
        }
        assert_int_equal(blue, n);
        /* a hand away from the board covers nothing */
        st.hand.y = st.hand.side == GS_BLACK ? 600 : -600;  /* back on its own side */
        st.hand.z = 150;
        assert_int_equal(render_hand_covers(s, &st, cov, NULL), 0);
        gs_image_destroy(img);
        render_scene_destroy(s);
    }
}

/* Black captures two white stones: they leave the board one at a time, each
 * in its own trip of a hand. */
static void test_capture_one_at_a_time(void **state)
{
    (void)state;
    gs_move mv[] = {
        {GS_BLACK, {0, 1}, false}, {GS_WHITE, {0, 0}, false}, {GS_BLACK, {1, 1}, false},
        {GS_WHITE, {1, 0}, false}, {GS_BLACK, {2, 0}, false}, {GS_WHITE, {6, 6}, false},
    };
    for (uint64_t seed = 1; seed <= 5; seed++) {
        render_script_options so;
        render_script_options_init(&so, seed);
        gs_error err = {0};
        render_script *sc = render_script_create(9, mv, 6, &so, &err);
        assert_non_null(sc);
        int prev_white = 0, removals = 0;
        bool away_since_removal = true, saw_held = false;
        double dur = render_script_duration_ms(sc);
        for (double t = 0; t <= dur; t += 5) {
            render_state st;
            render_script_state(sc, t, &st);
            int white = gs_position_count(&st.pos, GS_WHITE);
            if (white < prev_white) {
                assert_int_equal(prev_white - white, 1);   /* one stone per step */
                assert_true(away_since_removal);           /* a new trip each time */
                assert_true(st.hand.present);
                assert_int_equal(st.hand.side, GS_BLACK);  /* the capturer lifts */
                removals++;
                away_since_removal = false;
            }
            if (!st.hand.present) away_since_removal = true;
            if (removals > 0 && st.hand.present && st.hand.holding == GS_WHITE) saw_held = true;
            prev_white = white;
        }
        assert_int_equal(removals, 2);
        assert_true(saw_held);
        render_state end;
        render_script_state(sc, dur, &end);
        assert_int_equal(gs_position_get(&end.pos, 0, 0), GS_EMPTY);
        assert_int_equal(gs_position_get(&end.pos, 1, 0), GS_EMPTY);
        assert_int_equal(gs_position_count(&end.pos, GS_BLACK), 3);
        assert_int_equal(render_script_moves_at(sc, dur, NULL), 6);
        render_script_destroy(sc);
    }
}

/* A ko on a 9x9: White's move 8 at (1,1) takes the black stone at (2,1). */
static const gs_move ko_game[] = {
    {GS_BLACK, {1, 0}, false}, {GS_WHITE, {2, 0}, false}, {GS_BLACK, {0, 1}, false}, {GS_WHITE, {3, 1}, false},
    {GS_BLACK, {1, 2}, false}, {GS_WHITE, {2, 2}, false}, {GS_BLACK, {2, 1}, false}, {GS_WHITE, {1, 1}, false},
    {GS_BLACK, {6, 6}, false}, {GS_WHITE, {6, 2}, false}, {GS_BLACK, {6, 4}, false}, {GS_WHITE, {4, 6}, false},
};

static void test_violations(void **state)
{
    (void)state;
    int n = (int)(sizeof ko_game / sizeof ko_game[0]);
    /* the board without violations, for comparison */
    render_script_options so;
    render_script_options_init(&so, 3);
    gs_error err = {0};
    render_script *plain = render_script_create(9, ko_game, n, &so, &err);
    assert_non_null(plain);
    render_state ref;
    render_script_state(plain, render_script_duration_ms(plain), &ref);
    assert_int_equal(gs_position_get(&ref.pos, 2, 1), GS_EMPTY);
    assert_int_equal(gs_position_get(&ref.pos, 1, 1), GS_WHITE);
    const render_violation *v;
    assert_int_equal(render_script_violations(plain, &v), 0);

    render_params p;
    plain_params(&p, 3, 9, 160, 120);
    render_scene *scene = render_scene_create(&p, &err);
    assert_non_null(scene);
    for (int t = 0; t < RENDER_V_COUNT_; t++) {
        for (uint64_t seed = 1; seed <= 3; seed++) {
            so.seed = seed;
            so.violations = 1u << t;
            render_script *sc = render_script_create(9, ko_game, n, &so, &err);
            assert_non_null(sc);
            int nv = render_script_violations(sc, &v);
            assert_int_equal(nv, 1);
            assert_int_equal(v[0].type, t);
            double dur = render_script_duration_ms(sc);
            render_state st, before;
            render_script_state(sc, dur, &st);
            render_script_state(sc, v[0].t_ms - 1, &before);
            int stones = gs_position_count(&st.pos, GS_BLACK) + gs_position_count(&st.pos, GS_WHITE);
            int ref_stones = gs_position_count(&ref.pos, GS_BLACK) + gs_position_count(&ref.pos, GS_WHITE);
            switch (t) {
            case RENDER_V_DOUBLE_MOVE:
                assert_int_equal(stones, ref_stones + 1);
                assert_int_equal(render_script_moves_at(sc, dur, NULL), n + 1);
                break;
            case RENDER_V_WRONG_CAPTURE: {
                /* a stone next to the capturing move leaves the board */
                render_state after;
                render_script_state(sc, v[0].t_ms + 1, &after);
                assert_int_not_equal(gs_position_get(&before.pos, v[0].point.x, v[0].point.y), GS_EMPTY);
                assert_int_equal(gs_position_get(&after.pos, v[0].point.x, v[0].point.y), GS_EMPTY);
                const gs_move *pl;
                assert_true(render_script_placed(sc, &pl) >= v[0].move);
                gs_point m = pl[v[0].move - 1].pt;
                assert_int_equal(abs(m.x - v[0].point.x) + abs(m.y - v[0].point.y), 1);
                break;
            }
            case RENDER_V_MISSED_CAPTURE:
                /* White's ko capture leaves the black stone standing */
                assert_int_equal(v[0].move, 8);
                assert_int_equal(gs_position_get(&st.pos, 2, 1), GS_BLACK);
                break;
            case RENDER_V_MOVED_STONE: {
                /* one stone changes place: same count, the new point filled */
                render_state after;
                render_script_state(sc, v[0].t_ms + 1, &after);
                assert_int_equal(gs_position_count(&after.pos, GS_BLACK), gs_position_count(&before.pos, GS_BLACK));
                assert_int_equal(gs_position_count(&after.pos, GS_WHITE), gs_position_count(&before.pos, GS_WHITE));
                assert_int_equal(gs_position_get(&before.pos, v[0].point.x, v[0].point.y), GS_EMPTY);
                assert_int_not_equal(gs_position_get(&after.pos, v[0].point.x, v[0].point.y), GS_EMPTY);
                assert_memory_not_equal(after.pos.cell, before.pos.cell, 81);
                break;
            }
            case RENDER_V_KO_RETAKE: {
                /* Black retakes at (2,1), then the players put it back */
                assert_int_equal(v[0].point.x, 2);
                assert_int_equal(v[0].point.y, 1);
                assert_int_equal(v[0].move, 9);
                render_state mid;
                render_script_state(sc, v[0].t_ms + 1, &mid);
                assert_int_equal(gs_position_get(&mid.pos, 2, 1), GS_BLACK);
                assert_memory_equal(st.pos.cell, ref.pos.cell, 81);
                break;
            }
            default:
                fail();
            }
            /* the truth line lists it from its time on, not before */
            char *buf = NULL;
            size_t len = 0;
            FILE *f = open_memstream(&buf, &len);
            assert_non_null(f);
            assert_int_equal(render_truth_line(f, 0, scene, sc, &before, &err), GS_OK);
            fflush(f);
            assert_null(strstr(buf, render_violation_code((render_violation_type)t)));
            fclose(f);
            free(buf);
            buf = NULL;
            f = open_memstream(&buf, &len);
            assert_int_equal(render_truth_line(f, 1, scene, sc, &st, &err), GS_OK);
            fclose(f);
            char want[64];
            snprintf(want, sizeof want, "{\"type\":\"%s\",\"move\":%d,", render_violation_code((render_violation_type)t), v[0].move);
            assert_non_null(strstr(buf, want));
            assert_non_null(strstr(buf, "\"position\":\""));
            assert_true(buf[len - 1] == '\n');
            free(buf);
            render_script_destroy(sc);
        }
    }
    /* a game without captures has no place for a missed capture */
    so.violations = 1u << RENDER_V_MISSED_CAPTURE;
    render_script *sc = render_script_create(9, ko_game, 6, &so, &err);
    assert_non_null(sc);
    assert_int_equal(render_script_violations(sc, &v), 0);
    render_script_destroy(sc);
    render_script_destroy(plain);
    render_scene_destroy(scene);
}

/* The camera knock moves the grid at its moment and not before. */
static void test_bump(void **state)
{
    (void)state;
    render_params p;
    plain_params(&p, 11, 19, 320, 240);
    p.bump_ms = 1000;
    p.bump_deg = 1.0;
    gs_error err = {0};
    render_scene *s = render_scene_create(&p, &err);
    assert_non_null(s);
    vision_grid a, b, c;
    render_grid(s, 0, &a);
    render_grid(s, 999, &b);
    render_grid(s, 1000, &c);
    double moved = 0;
    for (int i = 0; i < 4; i++) {
        assert_true(a.corners[i][0] == b.corners[i][0] && a.corners[i][1] == b.corners[i][1]);
        moved = fmax(moved, fabs(c.corners[i][0] - a.corners[i][0]) + fabs(c.corners[i][1] - a.corners[i][1]));
    }
    assert_true(moved > 1.0);
    /* and the picture follows: a frame after the knock differs */
    render_state st;
    render_state_init(&st, 19);
    gs_image *i0 = gs_image_create(320, 240, 3), *i1 = gs_image_create(320, 240, 3);
    st.t_ms = 500;
    assert_int_equal(render_frame(s, &st, i0, &err), GS_OK);
    st.t_ms = 1500;
    assert_int_equal(render_frame(s, &st, i1, &err), GS_OK);
    assert_true(memcmp(i0->buf, i1->buf, (size_t)i0->stride * 240) != 0);
    gs_image_destroy(i0);
    gs_image_destroy(i1);
    render_scene_destroy(s);
}

static void test_bad_input(void **state)
{
    (void)state;
    render_params p;
    render_params_from_seed(&p, 1, 19, 8, 8);
    gs_error err = {0};
    assert_null(render_scene_create(&p, &err));
    assert_int_equal(err.status, GS_ERR_USAGE);
    render_params_from_seed(&p, 1, 19, 64, 48);
    p.tilt_deg = 89;
    assert_null(render_scene_create(&p, &err));
    gs_move bad = {GS_BLACK, {9, 0}, false};
    render_script_options so;
    render_script_options_init(&so, 1);
    assert_null(render_script_create(9, &bad, 1, &so, &err));
    assert_int_equal(err.status, GS_ERR_USAGE);
    render_scene_destroy(NULL);
    render_script_destroy(NULL);
    /* a frame of the wrong size is refused, not overrun */
    render_params_from_seed(&p, 1, 9, 64, 48);
    render_scene *s = render_scene_create(&p, &err);
    assert_non_null(s);
    gs_image *img = gs_image_create(32, 32, 3);
    render_state st;
    render_state_init(&st, 9);
    assert_int_equal(render_frame(s, &st, img, &err), GS_ERR_USAGE);
    gs_image_destroy(img);
    render_scene_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_projection),
        cmocka_unit_test(test_hand_covers),
        cmocka_unit_test(test_stone_over_the_edge_is_seen),
        cmocka_unit_test(test_confirmation_stones_do_not_overlap),
        cmocka_unit_test(test_capture_one_at_a_time),
        cmocka_unit_test(test_violations),
        cmocka_unit_test(test_bump),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
