/* tests/test_recorder_margin.c: end-of-game signals on the margin outside
 * the lines (RULES.md, "End of game"): stones drawn on a rendered board's
 * margin are found by track_margin_scan, go through the tracker as a settled
 * view, and the recorder flags a confirmation / a resignation signal. */
#include "testutil.h"

#include "track/track.h"
#include "record/record.h"
#include "samples/render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct scene_fix {
    render_scene *scene;
    vision_grid grid;
    gs_image *board;   /* the empty board, as rendered */
    double out;        /* where a stone lying on the margin has its centre
                          (cells outside the outer line) */
} scene_fix;

/* A seed's look for a 9x9 board, still: no bump, no changing light. */
static render_params still_look(uint64_t seed, int w, int h)
{
    render_params p;
    gs_test_still_params(&p, seed, 9, w, h);
    return p;
}

static void scene_make(scene_fix *f, uint64_t seed)
{
    render_params p = still_look(seed, 640, 480);
    f->scene = gs_test_scene(&p, &f->grid);
    render_state st;
    render_state_init(&st, 9);
    f->board = gs_test_frame(f->scene, &st);
    f->out = gs_test_margin_out(&p);
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
    track_margin_scan(f.board, &f.grid, NULL, &m);
    assert_true(m.valid);
    assert_int_equal(m.n, 0); /* bare margin: nothing */
    gs_image *img = gs_image_copy(f.board);
    draw_stone(img, &f.grid, 8 + f.out, 8.4, GS_WHITE); /* right edge, by corner (8,8) */
    draw_stone(img, &f.grid, 3.0, -f.out, GS_BLACK);    /* top edge, middle */
    track_margin_scan(img, &f.grid, NULL, &m);
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
    track_margin_scan(img, &f.grid, NULL, &m);
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
        render_params p = still_look(seed, 640, 360);
        vision_grid g;
        render_scene *sc = gs_test_scene(&p, &g);
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
        gs_image *img = gs_test_frame(sc, &st);
        track_margin_view m;
        track_margin_scan(img, &g, NULL, &m);
        assert_true(m.valid);
        track_margin_view_drop_beside(&m, &st.pos, NULL);
        if (m.n != 0) fail_msg("seed %d: %d margin stones seen where there are none", (int)seed, m.n);
        /* a real one beside stones of the other colour is still seen */
        draw_stone(img, &g, 2.5, -gs_test_margin_out(&p), GS_BLACK);
        track_margin_scan(img, &g, NULL, &m);
        track_margin_view_drop_beside(&m, &st.pos, NULL);
        if (m.n != 1 || m.stones[0].color != GS_BLACK || m.stones[0].side != TRACK_MARGIN_TOP)
            fail_msg("seed %d: the black margin stone by white edge stones: %d stones seen", (int)seed, m.n);
        gs_image_destroy(img);
        render_scene_destroy(sc);
    }
}

/* Things beyond the board's edge (bowls, a lid, a cable, papers, a stone
 * lying on the table, as rendered, and stones drawn on the table by each
 * side) are never margin stones; a stone lying on the margin among them
 * is, once. */
static void test_beyond_the_edge_is_no_margin(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 6; seed++) {
        render_params p = still_look(seed, 640, 360);
        p.objects = true;
        gs_error e;
        vision_grid g;
        render_scene *sc = gs_test_scene(&p, &g);
        render_state st;
        render_state_init(&st, 9);
        gs_image *img = gs_test_frame(sc, &st);
        /* stones on the table, well clear of the edge on each side */
        double mv = p.margin_mm / p.cell_h_mm, mu = p.margin_mm / p.cell_w_mm;
        draw_stone(img, &g, 4.0, -mv - 0.7, GS_BLACK);
        draw_stone(img, &g, 8 + mu + 0.7, 2.0, GS_WHITE);
        draw_stone(img, &g, 6.0, 8 + mv + 0.7, GS_WHITE);
        draw_stone(img, &g, -mu - 0.7, 6.0, GS_BLACK);
        track_margin_view m;
        track_margin_scan(img, &g, NULL, &m);
        if (m.n != 0)
            fail_msg("seed %d: %d margin stones seen beyond the edge (first %s at %.2f,%.2f)", (int)seed, m.n,
                     m.stones[0].color == GS_BLACK ? "black" : "white", m.stones[0].u, m.stones[0].v);
        /* a white stone put in the corner square by (8, 8), among them, on
         * a board with the rules' margin (2.5 cm: a stone fits on it) */
        render_scene_destroy(sc);
        p.margin_mm = 25;
        sc = gs_test_scene(&p, &g);
        st.nmargin = 1;
        st.margin[0] = (render_margin_stone){8 + gs_test_margin_out(&p), 8 + gs_test_margin_out(&p), GS_WHITE, 1};
        assert_int_equal(render_frame(sc, &st, img, &e), GS_OK);
        track_margin_scan(img, &g, NULL, &m);
        if (m.n != 1 || m.stones[0].color != GS_WHITE || !m.stones[0].corner || m.stones[0].corner_index != 2)
            fail_msg("seed %d: the stone in the corner square: %d margin stones seen", (int)seed, m.n);
        gs_image_destroy(img);
        render_scene_destroy(sc);
    }
}

/* A stone the reference view (the first clear one) already showed in the
 * band is an object lying there from the start, not a stone put on the
 * margin: a stray stone on the table that the band takes in where the
 * board's edge is found too far out, or one on the margin before play. */
static void test_there_from_the_start_is_no_margin_stone(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        render_params p = still_look(seed, 640, 360);
        p.margin_mm = 25;
        vision_grid g;
        render_scene *sc = gs_test_scene(&p, &g);
        render_state st;
        render_state_init(&st, 9);
        gs_image *bare = gs_test_frame(sc, &st);
        gs_image *with = gs_test_frame(sc, &st);
        double out = gs_test_margin_out(&p);
        draw_stone(with, &g, 3.0, -out, GS_WHITE); /* top edge, middle */
        track_margin_ref ref_bare = {bare, g}, ref_with = {with, g};
        track_margin_view m;
        track_margin_scan(with, &g, &ref_bare, &m);
        assert_int_equal(m.n, 1); /* put there since the reference */
        track_margin_scan(with, &g, &ref_with, &m);
        if (m.n != 0) fail_msg("seed %d: %d margin stones seen where the reference showed one", (int)seed, m.n);
        gs_image_destroy(bare);
        gs_image_destroy(with);
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
        if (phase == 1) draw_stone(img, &f.grid, 8 + f.out, 8 + f.out, GS_WHITE);
        if (phase == 2) draw_stone(img, &f.grid, -f.out, -f.out, GS_BLACK);
        if (phase == 3) {
            gs_image_destroy(img);
            img = gs_image_copy(f.board);
            draw_stone(img, &f.grid, 3.0, 8 + f.out, GS_WHITE);
            draw_stone(img, &f.grid, 5.0, 8 + f.out, GS_WHITE);
        }
        /* 4 s of a still view: the first settled view, then a look again
         * every second (a signal is a stone held for several views) */
        for (int k = 0; k < 40; k++, t += 100) {
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

/* ------------------------------------------------ signals as a table */

/* A margin view from a spec: "W@2" a white stone in the corner square by
 * corner 2 (vision_grid order), "B^3" a black stone on the top edge, three
 * cells along ("B^3+" three and a half), 0.6 cell out, "b^3" one seen
 * 0.44 cell out (an edge stone's lean), "|0" an arm over side 0's margin
 * since the last view; space separated.  Sides sit as in the picture
 * (right_corner 0..3), reach: frames of arm over that side's margin (-1
 * none). */
static void margin_from(const char *spec, int reach_side, track_margin_view *m)
{
    memset(m, 0, sizeof *m);
    m->valid = true;
    for (int s = 0; s < 4; s++) {
        m->edge[s] = 1.0;
        m->right_corner[s] = s;
    }
    if (reach_side >= 0) m->reach[reach_side] = 5;
    for (const char *p = spec; *p;) {
        while (*p == ' ') p++;
        if (!*p) break;
        if (p[0] == '|') {
            m->reach[p[1] - '0'] = 5;
            p += 2;
            continue;
        }
        track_margin_stone *st = &m->stones[m->n++];
        st->color = p[0] == 'B' || p[0] == 'b' ? GS_BLACK : GS_WHITE;
        int k = p[2] - '0';
        if (p[1] == '@') {
            static const double cu[4] = {-0.6, 8.6, 8.6, -0.6}, cv[4] = {-0.6, -0.6, 8.6, 8.6};
            st->u = cu[k];
            st->v = cv[k];
            st->side = (track_margin_side)k;
            st->corner = true;
            st->corner_index = k;
        } else {
            st->u = k + (p[3] == '+' ? 0.5 : 0);
            st->v = p[0] == 'b' || p[0] == 'w' ? -0.44 : -0.6;
            st->side = TRACK_MARGIN_TOP;
            st->corner = k <= 1 || k >= 7;
            st->corner_index = k < 4 ? 0 : 1;
        }
        p += 3 + (p[3] == '+');
    }
}

typedef struct mstep {
    const char *move;    /* a stone played ("B cc"), one lifted ("- cc"), "" none */
    const char *margin;  /* the margin seen (margin_from) */
} mstep;

typedef struct mcase {
    const char *name;
    bool sides;          /* each move's arm reaches in from its player's
                            side: Black at the bottom (2), White at the top (0) */
    mstep steps[14];
    int nsteps;
    int want_confirm, want_resign;
    gs_color want_color; /* of the (last) signal, GS_EMPTY = any */
} mcase;

static const mcase mcases[] = {
    {"a stone by a corner from the start is an object", false,
     {{"", "W@2"}, {"B cc", "W@2"}, {"W gg", "W@2"}, {"B ee", "W@2"}, {"", "W@2"}, {"", "W@2"}}, 6, 0, 0, GS_EMPTY},
    {"a stone put by a corner during play and held: a confirmation", false,
     {{"", ""}, {"B cc", ""}, {"W gg", ""}, {"", "W@2"}, {"", "W@2"}, {"", "W@2"}}, 6, 1, 0, GS_BLACK},
    {"held for two views only: no signal", false,
     {{"", ""}, {"B cc", ""}, {"W gg", ""}, {"", "W@2"}, {"", "W@2"}, {"B ee", ""}, {"W ef", ""}}, 7, 0, 0, GS_EMPTY},
    {"two of one's own stones put on the margin: a resignation", false,
     {{"", ""}, {"B cc", ""}, {"W gg", ""}, {"", "W^3 W^5"}, {"", "W^3 W^5"}, {"", "W^3 W^5"}}, 6, 0, 1, GS_WHITE},
    {"an object there from the start and a stone put beside it later", false,
     {{"", "B^2"}, {"B cc", "B^2"}, {"W gg", "B^2"}, {"", "B^2 W@1"}, {"", "B^2 W@1"}, {"", "B^2 W@1"}}, 6, 1, 0,
     GS_BLACK},
    {"sides known: a stone at a player's own corner confirms", true,
     {{"", ""}, {"B cc", ""}, {"W gg", ""}, {"B ee", ""}, {"W ef", ""}, {"B eg", ""}, {"W fg", ""}, {"", "W@2"},
      {"", "W@2"}, {"", "W@2"}, {"", "W@2 B@0"}, {"", "W@2 B@0"}, {"", "W@2 B@0"}}, 13, 2, 0, GS_WHITE},
    {"sides known: a stone at the other player's corner is no confirmation", true,
     {{"", ""}, {"B cc", ""}, {"W gg", ""}, {"B ee", ""}, {"W ef", ""}, {"B eg", ""}, {"W fg", ""}, {"", "W@0"},
      {"", "W@0"}, {"", "W@0"}, {"", "W@0"}}, 11, 0, 0, GS_EMPTY},
    {"a single stone put mid-edge and held: no signal", false,
     {{"", ""}, {"B cc", ""}, {"W gg", ""}, {"", "W^4"}, {"", "W^4"}, {"", "W^4"}, {"", "W^4"}}, 7, 0, 0, GS_EMPTY},
    {"sides known: two black stones put on the margin: Black resigns", true,
     {{"", ""}, {"B cc", ""}, {"W gg", ""}, {"B ee", ""}, {"W ef", ""}, {"B eg", ""}, {"W fg", ""}, {"", "B^3 B^5"},
      {"", "B^3 B^5"}, {"", "B^3 B^5"}}, 10, 0, 1, GS_BLACK},
    {"two stones put beside old edge stones of their colour (their leans seen before): a resignation", false,
     {{"", ""}, {"B cc", ""}, {"W da", "w^3"}, {"B ee", "w^3"}, {"W fa", "w^3 w^5"}, {"B gg", "w^3 w^5"},
      {"", "|0 W^3+ W^5+"}, {"", "W^3+ W^5+"}, {"", "W^3+ W^5+"}}, 9, 0, 1, GS_WHITE},
    {"edge stones' leans seen again after an arm crossed that side: no signal", false,
     {{"", ""}, {"B cc", ""}, {"W da", ""}, {"B ee", ""}, {"W fa", ""}, {"B gg", ""}, {"", "|0 w^3 w^5"},
      {"", "w^3 w^5"}, {"", "w^3 w^5"}, {"", "w^3 w^5"}}, 10, 0, 0, GS_EMPTY},
    {"stones beside old edge stones appearing with no arm over that side: no signal", false,
     {{"", ""}, {"B cc", ""}, {"W da", "w^3"}, {"B ee", "w^3"}, {"W fa", "w^3 w^5"}, {"B gg", "w^3 w^5"},
      {"", "W^3+ W^5+"}, {"", "W^3+ W^5+"}, {"", "W^3+ W^5+"}}, 9, 0, 0, GS_EMPTY},
    {"two stones lying on the margin from the start: objects, no resignation", false,
     {{"", "W^3 W^5"}, {"B cc", "W^3 W^5"}, {"W gg", "W^3 W^5"}, {"", "W^3 W^5"}, {"", "W^3 W^5"}}, 5, 0, 0,
     GS_EMPTY},
    /* the record's view drops captured stones at once, while they still lie
     * there being lifted, leaning over the margin */
    {"captured edge stones still being lifted: their leans are no resignation", false,
     {{"B da", "b^3"}, {"W ca", "b^3"}, {"B ea", "b^3 b^4"}, {"W db", "b^3 b^4"}, {"B gg", "b^3 b^4"},
      {"W eb", "b^3 b^4"}, {"B hh", "b^3 b^4"}, {"W fa", "|0 b^3 b^4"}, {"", "|0 b^3 b^4"}, {"", "|0 b^3 b^4"},
      {"", "|0 b^3 b^4"}, {"- da", "|0 b^4"}, {"- ea", "|0"}, {"", ""}}, 14, 0, 0, GS_EMPTY},
};

static void run_mcase(const mcase *c)
{
    record_options o;
    record_options_init(&o);
    gs_error e;
    record *r = record_create(&o, &e);
    assert_non_null(r);
    gs_position p;
    gs_position_clear(&p, 9);
    for (int i = 0; i < c->nsteps; i++) {
        const mstep *st = &c->steps[i];
        int reach = -1;
        if (st->move[0] == '-') {
            gs_position_set(&p, st->move[2] - 'a', st->move[3] - 'a', GS_EMPTY);
        } else if (st->move[0]) {
            gs_color col = st->move[0] == 'B' ? GS_BLACK : GS_WHITE;
            gs_position_set(&p, st->move[2] - 'a', st->move[3] - 'a', col);
            if (c->sides) reach = col == GS_BLACK ? 2 : 0;
        }
        assert_int_equal(record_observe(r, &p, NULL, 1000.0 * i, NULL, &e), GS_OK);
        track_margin_view m;
        margin_from(st->margin, reach, &m);
        assert_int_equal(record_margin(r, &m, 1000.0 * i, &e), GS_OK);
    }
    gs_color c1 = GS_EMPTY, c2 = GS_EMPTY;
    int nc = count_code(r, "confirm_signal", &c1), nr = count_code(r, "resign_signal", &c2);
    print_message("%s: %d confirmations, %d resignations\n", c->name, nc, nr);
    assert_int_equal(nc, c->want_confirm);
    assert_int_equal(nr, c->want_resign);
    if (c->want_color != GS_EMPTY) assert_int_equal(nr ? c2 : c1, c->want_color);
    record_destroy(r);
}

static void test_signal_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof mcases / sizeof mcases[0]; i++) run_mcase(&mcases[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_margin_scan_finds_stones),
        cmocka_unit_test(test_first_line_stones_are_not_margin_stones),
        cmocka_unit_test(test_beyond_the_edge_is_no_margin),
        cmocka_unit_test(test_there_from_the_start_is_no_margin_stone),
        cmocka_unit_test(test_signals_through_tracker_and_recorder),
        cmocka_unit_test(test_signal_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
