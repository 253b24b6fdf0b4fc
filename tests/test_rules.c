/* tests/test_rules.c: the rules engine: liberties, captures, suicide, ko,
 * superko and cycles, a cross-check against a naive reference on random
 * games, area counting (the seed's examples) and point formatting. */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/rules.h"

static gs_position grid(const char *text)
{
    gs_position p;
    gs_error e;
    if (gs_position_parse(&p, text, &e) != GS_OK) fail_msg("bad test grid: %s", e.msg);
    return p;
}

static gs_point H(const char *s, int size)
{
    gs_point p;
    bool pass;
    if (!rules_point_parse_human(s, size, &p, &pass) || pass) fail_msg("bad point %s", s);
    return p;
}

/* A game whose setup is the grid (stones placed as setup), `to_move` next. */
static rules_game *game_from(const char *text, gs_color to_move)
{
    gs_position p = grid(text);
    gs_error e;
    rules_game *g = rules_game_create(p.size, &e);
    assert_non_null(g);
    for (int y = 0; y < p.size; y++)
        for (int x = 0; x < p.size; x++)
            if (gs_position_get(&p, x, y) != GS_EMPTY)
                assert_int_equal(rules_game_setup(g, gs_position_get(&p, x, y), (gs_point){(int8_t)x, (int8_t)y}, &e), GS_OK);
    rules_game_set_to_move(g, to_move);
    return g;
}

/* ------------------------------------------------------------ points */

static void test_points(void **state)
{
    (void)state;
    char b[8], s[3];
    rules_point_human((gs_point){15, 3}, 19, b);
    assert_string_equal(b, "Q16");
    rules_point_human((gs_point){8, 0}, 19, b);
    assert_string_equal(b, "J19"); /* I is skipped */
    rules_point_human((gs_point){0, 18}, 19, b);
    assert_string_equal(b, "A1");
    rules_point_sgf((gs_point){15, 3}, s);
    assert_string_equal(s, "pd");
    gs_point p;
    bool pass;
    assert_true(rules_point_parse_human("q16", 19, &p, &pass));
    assert_int_equal(p.x, 15);
    assert_int_equal(p.y, 3);
    assert_false(rules_point_parse_human("I5", 19, &p, &pass));
    assert_false(rules_point_parse_human("T20", 19, &p, &pass));
    assert_false(rules_point_parse_human("K10", 9, &p, &pass));
    assert_true(rules_point_parse_human("pass", 9, &p, &pass));
    assert_true(pass);
}

/* ----------------------------------------------------------- engine */

static void test_capture_and_liberties(void **state)
{
    (void)state;
    rules_game *g = game_from(". . . . .\n"
                              ". . B . .\n"
                              ". B W . .\n"
                              ". . B . .\n"
                              ". . . . .\n",
                              GS_BLACK);
    const rules_board *b = rules_game_board(g);
    assert_int_equal(rules_board_liberties(b, rules_board_index(b, 2, 2)), 1);
    assert_int_equal(rules_board_liberties(b, rules_board_index(b, 1, 2)), 3);
    rules_move_result *r = malloc(sizeof *r);
    assert_int_equal(rules_game_play(g, GS_BLACK, H("D3", 5), r), RULES_LEGAL);
    assert_int_equal(r->ncaptured, 1);
    assert_int_equal(r->captured[0].x, 2);
    assert_int_equal(r->captured[0].y, 2);
    gs_position p;
    rules_game_position(g, &p);
    assert_int_equal(gs_position_get(&p, 2, 2), GS_EMPTY);
    assert_int_equal(rules_game_to_move(g), GS_WHITE);
    assert_int_equal(rules_board_captures(rules_game_board(g), GS_BLACK), 1);
    /* occupied */
    assert_int_equal(rules_game_play(g, GS_WHITE, H("D3", 5), r), RULES_ILLEGAL_OCCUPIED);
    /* undo brings the white stone back */
    assert_true(rules_game_undo(g));
    rules_game_position(g, &p);
    assert_int_equal(gs_position_get(&p, 2, 2), GS_WHITE);
    assert_int_equal(rules_game_to_move(g), GS_BLACK);
    free(r);
    rules_game_destroy(g);
}

/* Both sides without liberties after the move: the opponent's are removed
 * and the move is legal (Art. 4.2). */
static void test_both_without_liberties(void **state)
{
    (void)state;
    rules_game *g = game_from(". W B . .\n"
                              "W B . B .\n"
                              ". W B . .\n"
                              ". . . . .\n"
                              ". . . . .\n",
                              GS_WHITE);
    /* White at C4 (x=2,y=1) has no liberties itself but captures B2? No: it
     * captures the black stone at B4 (x=1,y=1) whose last liberty it takes. */
    rules_move_result *r = malloc(sizeof *r);
    assert_int_equal(rules_game_play(g, GS_WHITE, (gs_point){2, 1}, r), RULES_LEGAL);
    assert_int_equal(r->ncaptured, 1);
    gs_position p;
    rules_game_position(g, &p);
    assert_int_equal(gs_position_get(&p, 1, 1), GS_EMPTY);
    assert_int_equal(gs_position_get(&p, 2, 1), GS_WHITE);
    assert_int_equal(rules_board_liberties(rules_game_board(g), rules_board_index(rules_game_board(g), 2, 1)), 1);
    free(r);
    rules_game_destroy(g);
}

/* The seed's forbidden-point diagrams (Art. 5, figure 2): A is forbidden
 * for Black in all three. */
static const char *SEED_ART5 =
    ". . . . . . . . . . . . . . . . . . .\n"
    ". . . . . . . . . W W W . . . W . . .\n"
    ". . W W W . . . . W B W . . W B W . .\n"
    ". . W . W . . . W B . W . . W . W . .\n"
    ". . . W W . . . W W W W . . . W . . .\n"
    ". . . . . . . . . . . . . . . . . . .\n"
    ". . . . . . . . . . . . . . . . . . .\n"
    ". . . . . . . . . . . . . . . . . . .\n"
    ". . . . . . . . . . . . . . . . . . .\n"
    ". . . . . . . . . . . . . . . . . . .\n"
    ". . . . . . . . . . . . . . . . . . .\n"
    ". . . . . . . . . . . . . . . . . . .\n"
    ". . . . . . . . . . . . . . . . . . .\n"
    ". . . . . . . . . . . . . . . . . . .\n"
    ". . . . . . . . . . . . . . . . . . .\n"
    ". . . . . . . . . . . . . . . . . . .\n"
    ". . . . . . . . . . . . . . . . . . .\n"
    ". . . . . . . . . . . . . . . . . . .\n"
    ". . . . . . . . . . . . . . . . . . .\n";

static void test_suicide_seed_diagrams(void **state)
{
    (void)state;
    rules_game *g = game_from(SEED_ART5, GS_BLACK);
    const gs_point A[3] = {{3, 3}, {10, 3}, {15, 3}};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(rules_game_check(g, GS_BLACK, A[i]), RULES_ILLEGAL_SUICIDE);
        rules_move_result *r = malloc(sizeof *r);
        assert_int_equal(rules_game_play(g, GS_BLACK, A[i], r), RULES_ILLEGAL_SUICIDE);
        assert_int_equal(r->move_number, 0);
        free(r);
        /* White may play there (it fills its own eye, legal). */
        assert_int_equal(rules_game_check(g, GS_WHITE, A[i]), RULES_LEGAL);
    }
    assert_int_equal(rules_game_move_count(g), 0);
    rules_game_destroy(g);
}

/* Ko: White captures, Black may not retake at once (Art. 20.1); after a
 * pass each, retaking is a longer repetition: superko (Art. 6), allowed and
 * flagged under FLAG_CYCLE. */
static const char *KO =
    ". . . . . . .\n"
    ". . B W . . .\n"
    ". B W . W . .\n"
    ". . B W . . .\n"
    ". . . . . . .\n"
    ". . . . . . .\n"
    ". . . . . . .\n";

static void test_ko_and_superko(void **state)
{
    (void)state;
    for (int policy = 0; policy < 2; policy++) {
        rules_game *g = game_from(KO, GS_BLACK);
        rules_game_set_ko_policy(g, (rules_ko_policy)policy);
        rules_move_result *r = malloc(sizeof *r);
        /* Black takes the ko at D5 (x=3,y=2) capturing C5 (x=2,y=2). */
        assert_int_equal(rules_game_play(g, GS_BLACK, (gs_point){3, 2}, r), RULES_LEGAL);
        assert_int_equal(r->ncaptured, 1);
        /* White retakes at once: ko. */
        assert_int_equal(rules_game_play(g, GS_WHITE, (gs_point){2, 2}, r), RULES_ILLEGAL_KO);
        assert_int_equal(r->repeats_move, 0);
        rules_game_pass(g, GS_WHITE);
        rules_game_pass(g, GS_BLACK);
        assert_true(rules_game_two_passes(g));
        /* Now the retake recreates the setup position: not immediate. */
        rules_legality l = rules_game_play(g, GS_WHITE, (gs_point){2, 2}, r);
        if (policy == RULES_KO_FORBID) {
            assert_int_equal(l, RULES_ILLEGAL_SUPERKO);
            assert_int_equal(r->repeats_move, 0);
            assert_false(rules_game_has_cycle(g));
        } else {
            assert_int_equal(l, RULES_LEGAL);
            assert_true(r->cycle);
            assert_true(rules_game_has_cycle(g));
            assert_int_equal(r->ncaptured, 1);
        }
        free(r);
        rules_game_destroy(g);
    }
}

static void test_handicap_and_setup_errors(void **state)
{
    (void)state;
    gs_error e;
    rules_game *g = rules_game_create(19, &e);
    assert_non_null(g);
    assert_int_equal(rules_game_place_handicap(g, 4, &e), GS_OK);
    gs_position p;
    rules_game_position(g, &p);
    assert_int_equal(gs_position_count(&p, GS_BLACK), 4);
    assert_int_equal(gs_position_get(&p, 3, 3), GS_BLACK);
    assert_int_equal(gs_position_get(&p, 15, 15), GS_BLACK);
    assert_int_equal(rules_game_to_move(g), GS_WHITE);
    assert_int_equal(rules_game_handicap(g), 4);
    assert_int_equal(rules_game_setup(g, GS_WHITE, (gs_point){3, 3}, &e), GS_ERR_USAGE);
    rules_game_destroy(g);
    assert_null(rules_game_create(4, &e));
    assert_null(rules_game_create(26, &e));
    rules_game_destroy(NULL);
    rules_board_destroy(NULL);
    /* a setup with a group without liberties is refused */
    rules_board *b = rules_board_create(5);
    gs_position bad = grid("B W . . .\nW . . . .\n. . . . .\n. . . . .\n. . . . .\n");
    assert_int_equal(rules_board_set_position(b, &bad, &e), GS_ERR_FORMAT);
    rules_board_destroy(b);
}

/* A view may show what no board holds; which stones go must not depend on
 * the order of the points: here White C5 is taken off, not Black C4 (a
 * raster walk would place C5, then refuse C4 as the stone that smothers it). */
static void test_drop_airless_groups(void **state)
{
    (void)state;
    gs_position view = grid("B B W B .\n"
                            "B B B . .\n"
                            ". . . W W\n"
                            ". . W B B\n"
                            ". . W B B\n");
    gs_position want = grid("B B . B .\n"
                            "B B B . .\n"
                            ". . . W W\n"
                            ". . W . .\n"
                            ". . W . .\n");
    assert_int_equal(rules_position_drop_airless(&view), 5);
    assert_memory_equal(view.cell, want.cell, 25);
    gs_error e;
    rules_board *b = rules_board_create(5);
    assert_int_equal(rules_board_set_position(b, &view, &e), GS_OK);
    rules_board_destroy(b);
    /* a playable position is left as it is */
    assert_int_equal(rules_position_drop_airless(&want), 0);
}

/* ------------------------------------------- naive reference cross-check */

typedef struct naive {
    int n;
    uint8_t c[81];
    uint8_t *hist; /* positions seen, n*n each */
    int nhist;
} naive;

static int naive_libs(const naive *s, const uint8_t *c, int p, uint8_t *mark)
{
    int n = s->n, stack[81], sp = 0, libs = 0;
    uint8_t seen[81] = {0};
    stack[sp++] = p;
    seen[p] = 1;
    while (sp) {
        int q = stack[--sp];
        if (mark) mark[q] = 1;
        int x = q % n, y = q / n;
        int nb[4][2] = {{x - 1, y}, {x + 1, y}, {x, y - 1}, {x, y + 1}};
        for (int k = 0; k < 4; k++) {
            int a = nb[k][0], b = nb[k][1];
            if (a < 0 || b < 0 || a >= n || b >= n) continue;
            int r = b * n + a;
            if (seen[r]) continue;
            if (c[r] == 0) {
                seen[r] = 1;
                libs++;
            } else if (c[r] == c[p]) {
                seen[r] = 1;
                stack[sp++] = r;
            }
        }
    }
    return libs;
}

/* Returns legality like the engine; fills next on success. */
static rules_legality naive_try(const naive *s, int p, int col, uint8_t *next)
{
    int n = s->n;
    if (s->c[p]) return RULES_ILLEGAL_OCCUPIED;
    memcpy(next, s->c, (size_t)(n * n));
    next[p] = (uint8_t)col;
    int x = p % n, y = p / n, capd = 0;
    int nb[4][2] = {{x - 1, y}, {x + 1, y}, {x, y - 1}, {x, y + 1}};
    for (int k = 0; k < 4; k++) {
        int a = nb[k][0], b = nb[k][1];
        if (a < 0 || b < 0 || a >= n || b >= n) continue;
        int r = b * n + a;
        if (next[r] == 3 - col && naive_libs(s, next, r, NULL) == 0) {
            uint8_t mark[81] = {0};
            naive_libs(s, next, r, mark);
            for (int i = 0; i < n * n; i++)
                if (mark[i]) next[i] = 0, capd++;
        }
    }
    if (!capd && naive_libs(s, next, p, NULL) == 0) return RULES_ILLEGAL_SUICIDE;
    for (int h = 0; h < s->nhist; h++)
        if (!memcmp(s->hist + h * n * n, next, (size_t)(n * n))) return RULES_ILLEGAL_SUPERKO;
    return RULES_LEGAL;
}

static void test_random_games_match_reference(void **state)
{
    (void)state;
    const int n = 7, games = gs_test_sanitized() ? 6 : 40, maxmoves = 250;
    uint64_t rng = 12345;
    rules_board *b = rules_board_create(n);
    assert_non_null(b);
    naive s = {.n = n};
    s.hist = malloc((size_t)(maxmoves + 2) * 81);
    long checked = 0, kos = 0, caps = 0;
    for (int gi = 0; gi < games; gi++) {
        rules_board_clear(b);
        memset(s.c, 0, sizeof s.c);
        memcpy(s.hist, s.c, (size_t)(n * n));
        s.nhist = 1;
        int col = GS_BLACK;
        for (int mv = 0; mv < maxmoves; mv++) {
            uint8_t next[81];
            int legal[81], nl = 0;
            for (int p = 0; p < n * n; p++) {
                int idx = rules_board_index(b, p % n, p / n);
                rules_legality want = naive_try(&s, p, col, next);
                rules_legality got = rules_board_check(b, idx, (gs_color)col);
                /* the engine splits repetition into ko and superko */
                if (got == RULES_ILLEGAL_KO) {
                    got = RULES_ILLEGAL_SUPERKO;
                    kos++;
                }
                if (want != got) fail_msg("game %d move %d point %d colour %d: engine %s, reference %s", gi, mv, p,
                                          col, rules_legality_name(got), rules_legality_name(want));
                if (want == RULES_LEGAL) legal[nl++] = p;
                checked++;
            }
            if (nl == 0) break;
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            int p = legal[rng % (uint64_t)nl];
            naive_try(&s, p, col, next);
            memcpy(s.c, next, sizeof next);
            memcpy(s.hist + s.nhist * n * n, next, (size_t)(n * n));
            s.nhist++;
            assert_int_equal(rules_board_play(b, rules_board_index(b, p % n, p / n), (gs_color)col), RULES_LEGAL);
            caps += rules_board_last_captured(b, NULL);
            gs_position pos;
            rules_board_get_position(b, &pos);
            assert_memory_equal(pos.cell, s.c, (size_t)(n * n));
            /* liberties agree for every stone */
            for (int q = 0; q < n * n; q++)
                if (s.c[q]) assert_int_equal(rules_board_liberties(b, rules_board_index(b, q % n, q / n)), naive_libs(&s, s.c, q, NULL));
            col = 3 - col;
        }
    }
    print_message("checked %ld (point, move) legalities, %ld ko refusals, %ld captured stones\n", checked, kos, caps);
    assert_true(caps > games * 5);
    assert_true(kos > 0);
    free(s.hist);
    rules_board_destroy(b);
}

/* Board copy and playouts keep the engine consistent (a copy plays the
 * same as the original). */
static void test_playout_and_copy(void **state)
{
    (void)state;
    rules_board *a = rules_board_create(9), *b = rules_board_create(9);
    uint64_t r1 = 7, r2 = 7;
    rules_board_playout(a, GS_BLACK, 30, &r1, NULL);
    assert_int_equal(rules_board_copy(b, a), GS_OK);
    assert_int_equal(rules_board_hash(a), rules_board_hash(b));
    r2 = r1;
    int na = rules_board_playout(a, GS_WHITE, 1000, &r1, NULL);
    int nb = rules_board_playout(b, GS_WHITE, 1000, &r2, NULL);
    assert_int_equal(na, nb);
    assert_int_equal(rules_board_hash(a), rules_board_hash(b));
    gs_position pa, pb;
    rules_board_get_position(a, &pa);
    rules_board_get_position(b, &pb);
    assert_memory_equal(pa.cell, pb.cell, 81);
    /* a finished random game has no legal non-eye move left for either side */
    assert_int_equal(rules_board_random_move(a, GS_BLACK, &r1), RULES_PASS);
    assert_int_equal(rules_board_random_move(a, GS_WHITE, &r1), RULES_PASS);
    rules_board *c = rules_board_clone(a);
    assert_int_equal(rules_board_hash(c), rules_board_hash(a));
    rules_board_destroy(a);
    rules_board_destroy(b);
    rules_board_destroy(c);
}

/* -------------------------------------------------------------- counting */

/* A full 19x19 board with `black` black stones (first cells) and the rest
 * white, optionally one dame point between them. */
static gs_position full_board(int black, bool dame)
{
    gs_position p;
    gs_position_clear(&p, 19);
    for (int i = 0; i < 361; i++) p.cell[i] = i < black ? GS_BLACK : GS_WHITE;
    if (dame) p.cell[black] = GS_EMPTY;
    return p;
}

static void test_count_seed_examples(void **state)
{
    (void)state;
    struct {
        int black;
        bool dame;
        double komi;
        int handicap, wb, ww;
        const char *sgf, *text;
    } cases[] = {
        {185, false, 7.5, 0, 0, 0, "B+1.5", "Black wins by 3/4 stone"},
        {184, false, 7.5, 0, 0, 0, "W+0.5", "White wins by 1/4 stone"},
        {184, true, 7.5, 0, 0, 0, "B+0.5", "Black wins by 1/4 stone"}, /* 184.5 */
        {184, false, 5.5, 0, 0, 0, "B+1.5", "Black wins by 3/4 stone"}, /* 2 3/4 komi */
        {181, false, 0, 0, 0, 0, "B+1", "Black wins by 1/2 stone"},
        {180, true, 0, 0, 0, 0, "0", "Draw (equal to the break-even count)"},
        {190, false, 0, 4, 0, 0, "B+15", "Black wins by 7 1/2 stones"}, /* 9 1/2 less the 2 given back */
        {185, false, 7.5, 0, 1, 0, "W+0.5", "White wins by 1/4 stone"}, /* a warning costs a stone */
        {185, false, 7.5, 0, 0, 1, "B+3.5", "Black wins by 1 3/4 stones"},
        {200, false, 7.5, 0, 0, 0, "B+31.5", "Black wins by 15 3/4 stones"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gs_position p = full_board(cases[i].black, cases[i].dame);
        rules_count_opts o;
        rules_count_opts_init(&o);
        assert_true(o.komi == 7.5);
        o.komi = cases[i].komi;
        o.handicap = cases[i].handicap;
        o.warnings_black = cases[i].wb;
        o.warnings_white = cases[i].ww;
        rules_count *c = malloc(sizeof *c);
        assert_int_equal(rules_count_position(&p, NULL, &o, c, NULL), GS_OK);
        print_message("black %d%s komi %g: %s (%s)\n", cases[i].black, cases[i].dame ? ".5" : "", cases[i].komi, c->sgf,
                      c->text);
        assert_string_equal(c->sgf, cases[i].sgf);
        assert_string_equal(c->text, cases[i].text);
        assert_true(c->black + c->white == 361);
        free(c);
    }
}

static void test_count_territory_dead_dame(void **state)
{
    (void)state;
    gs_position p = grid(". B W . .\n"
                         "B B W . .\n"
                         ". B W W W\n"
                         "B B W B .\n"
                         ". B W . W\n");
    /* The black stone at D2 (x=3,y=3) inside White's area is dead. */
    uint8_t dead[25] = {0};
    dead[3 * 5 + 3] = 1;
    rules_count *c = malloc(sizeof *c);
    assert_int_equal(rules_count_position(&p, dead, NULL, c, NULL), GS_OK);
    assert_int_equal(c->black_stones, 7);
    assert_int_equal(c->white_stones, 8);
    assert_int_equal(c->black_territory, 3);
    assert_int_equal(c->white_territory, 7);
    assert_int_equal(c->dame, 0);
    assert_int_equal(c->dead_black, 1);
    assert_true(c->black == 10 && c->white == 15);
    assert_int_equal(gs_position_get(&c->owner, 3, 3), GS_WHITE);
    /* Dead from marks: a black stone on a TW mark. */
    gs_position marks;
    gs_position_clear(&marks, 5);
    gs_position_set(&marks, 3, 3, GS_WHITE);
    uint8_t d2[25];
    rules_dead_from_marks(&p, &marks, d2);
    assert_memory_equal(d2, dead, 25);
    /* Without the dead mask, the lone black stone makes a dame region. */
    assert_int_equal(rules_count_position(&p, NULL, NULL, c, NULL), GS_OK);
    assert_int_equal(c->black_stones, 8);
    assert_true(c->dame > 0);
    /* result parsing */
    double v;
    assert_true(rules_parse_result_points("B+7.50", &v) && v == 7.5);
    assert_true(rules_parse_result_points("W+0.5", &v) && v == -0.5);
    assert_true(rules_parse_result_points("0", &v) && v == 0);
    assert_false(rules_parse_result_points("B+Resign", &v));
    assert_false(rules_parse_result_points("W+T", &v));
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_points),
        cmocka_unit_test(test_capture_and_liberties),
        cmocka_unit_test(test_both_without_liberties),
        cmocka_unit_test(test_suicide_seed_diagrams),
        cmocka_unit_test(test_ko_and_superko),
        cmocka_unit_test(test_handicap_and_setup_errors),
        cmocka_unit_test(test_drop_airless_groups),
        cmocka_unit_test(test_random_games_match_reference),
        cmocka_unit_test(test_playout_and_copy),
        cmocka_unit_test(test_count_seed_examples),
        cmocka_unit_test(test_count_territory_dead_dame),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
