/* tests/test_rules_referee.c: the transition classifier, table-driven.
 * Each case: a setup grid, moves played on it (the confirmed game), an
 * observed grid, and what the referee must be told.  Grids are rows of
 * '.', 'B', 'W' (spaces are added before gs_position_parse). */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/rules.h"

typedef struct ref_case {
    const char *name;
    const char *setup;      /* 9 rows */
    const char *history;    /* "B D7, W pass, ..." played after the setup */
    gs_color to_move;       /* when there is no history */
    rules_ko_policy policy;
    const char *observed;
    rules_event_type expect;   /* RULES_EV_NONE: no event at all */
    int expect_moves;
    const char *expect_point;  /* first point of the event, or first move */
    int expect_orders;         /* 0 = don't care */
    int expect_captured;       /* captures of the first move, -1 = don't care */
} ref_case;

/* "..B.\n.W..\n" -> ". . B .\n. W . .\n" then gs_position_parse. */
static gs_position grid(const char *rows)
{
    char buf[2048];
    size_t k = 0;
    for (const char *s = rows; *s && k + 3 < sizeof buf; s++) {
        if (*s == '\n') {
            buf[k++] = '\n';
        } else {
            buf[k++] = *s;
            if (s[1] && s[1] != '\n') buf[k++] = ' ';
        }
    }
    buf[k] = 0;
    gs_position p;
    gs_error e;
    if (gs_position_parse(&p, buf, &e) != GS_OK) fail_msg("bad grid: %s", e.msg);
    return p;
}

static rules_game *build(const ref_case *c)
{
    gs_position p = grid(c->setup);
    gs_error e;
    rules_game *g = rules_game_create(p.size, &e);
    assert_non_null(g);
    rules_game_set_ko_policy(g, c->policy);
    for (int y = 0; y < p.size; y++)
        for (int x = 0; x < p.size; x++)
            if (gs_position_get(&p, x, y) != GS_EMPTY)
                assert_int_equal(rules_game_setup(g, gs_position_get(&p, x, y), (gs_point){(int8_t)x, (int8_t)y}, &e), GS_OK);
    rules_game_set_to_move(g, c->to_move ? c->to_move : GS_BLACK);
    if (c->history) {
        char h[256];
        snprintf(h, sizeof h, "%s", c->history);
        for (char *tok = strtok(h, ","); tok; tok = strtok(NULL, ",")) {
            while (*tok == ' ') tok++;
            gs_color col = tok[0] == 'B' ? GS_BLACK : GS_WHITE;
            gs_point pt;
            bool pass;
            if (!rules_point_parse_human(tok + 2, p.size, &pt, &pass)) fail_msg("bad history move '%s'", tok);
            if (pass) rules_game_pass(g, col);
            else if (rules_game_play(g, col, pt, NULL) != RULES_LEGAL) fail_msg("history move '%s' illegal", tok);
        }
    }
    return g;
}

#define SETUP_EMPTY ".........\n.........\n.........\n.........\n.........\n.........\n.........\n.........\n.........\n"

/* A few stones for the ordinary cases. */
#define SETUP_A                                                                                            \
    ".........\n"                                                                                          \
    ".........\n"                                                                                          \
    "..B...W..\n"                                                                                          \
    ".........\n"                                                                                          \
    "...BWB...\n"                                                                                          \
    "....B....\n"                                                                                          \
    ".........\n"                                                                                          \
    "..W......\n"                                                                                          \
    ".........\n"

/* The ko of seed figure: White just took at C7. */
#define KO_BEFORE_W                                                                                        \
    ".........\n"                                                                                          \
    "..BW.....\n"                                                                                          \
    ".B.BW....\n"                                                                                          \
    "..BW.....\n"                                                                                          \
    ".........\n.........\n.........\n.........\n.........\n"
#define KO_AFTER_W                                                                                         \
    ".........\n"                                                                                          \
    "..BW.....\n"                                                                                          \
    ".BW.W....\n"                                                                                          \
    "..BW.....\n"                                                                                          \
    ".........\n.........\n.........\n.........\n.........\n"

static const ref_case CASES[] = {
    {"unchanged", SETUP_A, NULL, GS_BLACK, 0, SETUP_A, RULES_EV_NONE, 0, NULL, 0, -1},
    {"legal move", SETUP_A, NULL, GS_BLACK, 0,
     ".........\n.........\n..B...W..\n.........\n...BWB...\n....B....\n.........\n..W......\n......B..\n",
     RULES_EV_NONE, 1, "G1", 1, 0},
    {"legal capture", SETUP_A, NULL, GS_BLACK, 0,
     ".........\n.........\n..B...W..\n....B....\n...B.B...\n....B....\n.........\n..W......\n.........\n",
     RULES_EV_NONE, 1, "E6", 1, 1},
    {"missed capture (captured stone left)", SETUP_A, NULL, GS_BLACK, 0,
     ".........\n.........\n..B...W..\n....B....\n...BWB...\n....B....\n.........\n..W......\n.........\n",
     RULES_EV_MISSED_CAPTURE, 1, "E6", 0, 1},
    {"missed capture (only some removed)",
     ".........\n.........\n.........\n....BB...\n...BWWB..\n....B....\n.........\n.........\n.........\n", NULL,
     GS_BLACK, 0,
     ".........\n.........\n.........\n....BB...\n...B.WB..\n....BB...\n.........\n.........\n.........\n",
     RULES_EV_MISSED_CAPTURE, 1, "F4", 0, 2},
    {"wrong capture", SETUP_A, NULL, GS_BLACK, 0,
     ".........\n.........\n..B......\n.........\n...BWB...\n....B....\n.........\n..W......\n......B..\n",
     RULES_EV_WRONG_CAPTURE, 1, "G1", 0, 0},
    {"suicide (forbidden point)",
     ".........\n....W....\n...W.W...\n....W....\n.........\n.........\n.........\n.........\n.........\n", NULL,
     GS_BLACK, 0,
     ".........\n....W....\n...WBW...\n....W....\n.........\n.........\n.........\n.........\n.........\n",
     RULES_EV_SUICIDE, 0, "E7", 0, -1},
    {"suicide of a group",
     "....W....\n...WBW...\n...W.W...\n....W....\n.........\n.........\n.........\n.........\n.........\n", NULL,
     GS_BLACK, 0,
     "....W....\n...WBW...\n...WBW...\n....W....\n.........\n.........\n.........\n.........\n.........\n",
     RULES_EV_SUICIDE, 0, "E7", 0, -1},
    {"ko: immediate recapture", KO_BEFORE_W, "W C7", 0, 0, KO_BEFORE_W, RULES_EV_KO, 0, "D7", 0, -1},
    {"superko: repetition after passes", KO_AFTER_W, "B D7, W pass, B pass", 0, 0, KO_AFTER_W, RULES_EV_SUPERKO, 0,
     "C7", 0, -1},
    {"cycle flagged under FLAG_CYCLE", KO_AFTER_W, "B D7, W pass, B pass", 0, RULES_KO_FLAG_CYCLE, KO_AFTER_W,
     RULES_EV_CYCLE, 1, "C7", 1, 1},
    {"double move", SETUP_A, "W H1", 0, 0,
     ".........\n.........\n..B...W..\n.........\n...BWB...\n....B....\n.........\n..W......\nW......W.\n",
     RULES_EV_DOUBLE_MOVE, 0, "A1", 0, -1},
    {"double move, two stones of one colour", SETUP_A, NULL, GS_BLACK, 0,
     ".........\n.........\n..B...W..\n.........\n...BWB...\n....B....\n.........\n..W......\nB......B.\n",
     RULES_EV_DOUBLE_MOVE, 0, NULL, 0, -1},
    {"stone added out of turn", SETUP_A, NULL, GS_BLACK, 0,
     ".........\n.........\n..B...W..\n.........\n...BWB...\n....B....\n.........\n..W......\nW........\n",
     RULES_EV_OUT_OF_TURN, 0, "A1", 0, -1},
    {"take-back", SETUP_A, "B H1", 0, 0,
     ".........\n.........\n..B...W..\n.........\n...BWB...\n....B....\n.........\n..W......\n.....B...\n",
     RULES_EV_TAKE_BACK, 0, "H1", 0, -1},
    {"moved stone", SETUP_A, "B H1", 0, 0,
     ".........\n.........\n......W..\n.........\n...BWB...\n....B....\n.........\n..W......\n.......BB\n",
     RULES_EV_MOVED_STONE, 0, "C7", 0, -1},
    /* Black plays G1 and, in the same view, the black stone C7 has been
     * pushed to C6: one move and a moved stone */
    {"move and a moved stone in one view", SETUP_A, NULL, GS_BLACK, 0,
     ".........\n.........\n......W..\n..B......\n...BWB...\n....B....\n.........\n..W......\n......B..\n",
     RULES_EV_MOVED_STONE, 1, "G1", 0, -1},
    {"stone removed for no reason", SETUP_A, NULL, GS_BLACK, 0,
     ".........\n.........\n..B......\n.........\n...BWB...\n....B....\n.........\n..W......\n.........\n",
     RULES_EV_STONE_REMOVED, 0, "G7", 0, -1},
    {"last stone lifted", SETUP_A, "B H1", 0, 0, SETUP_A, RULES_EV_STONE_REMOVED, 0, "H1", 0, -1},
    {"board disturbed", SETUP_A, NULL, GS_BLACK, 0,
     ".........\n.B.......\n........W\n...W.....\n.........\n...B.B...\n.......B.\n.........\n..B......\n",
     RULES_EV_BOARD_DISTURBED, 0, NULL, 0, -1},
    {"stone changed colour", SETUP_A, NULL, GS_BLACK, 0,
     ".........\n.........\n..W...W..\n.........\n...BWB...\n....B....\n.........\n..W......\n.........\n",
     RULES_EV_COLOR_CHANGED, 0, "C7", 0, -1},
    {"two moves at once", SETUP_A, NULL, GS_BLACK, 0,
     ".........\n.........\n..B...W..\n.........\n...BWB...\n....B....\n.........\n..W......\nB.......W\n",
     RULES_EV_NONE, 2, "A1", 1, 0},
    {"three moves: order ambiguous", SETUP_A, NULL, GS_BLACK, 0,
     "B........\n.........\n..B...W..\n.........\n...BWB...\n....B....\n.........\n..W......\nB.......W\n",
     RULES_EV_AMBIGUOUS_ORDER, 3, NULL, 2, -1},
    {"three moves: order forced by legality", SETUP_A, NULL, GS_BLACK, 0,
     ".........\n.........\n..B...W..\n....B....\n...BBB...\n....B....\n.........\n..W......\n........W\n",
     RULES_EV_NONE, 3, "E6", 1, 1},
};

static void run_case(const ref_case *c)
{
    rules_game *g = build(c);
    gs_position obs = grid(c->observed);
    rules_classification *r = malloc(sizeof *r);
    gs_error e;
    assert_int_equal(rules_classify(g, &obs, r, &e), GS_OK);
    print_message("%-40s -> %d move(s), %d order(s)", c->name, r->nmoves, r->norders);
    for (int i = 0; i < r->nevents; i++) print_message("; %s: %s", rules_event_code(r->events[i].type), r->events[i].text);
    print_message("\n");
    if (c->expect == RULES_EV_NONE) {
        assert_int_equal(r->nevents, 0);
    } else {
        assert_true(r->nevents >= 1);
        assert_int_equal(r->events[0].type, c->expect);
        assert_non_null(strstr(r->events[0].text, "Art. "));
        assert_non_null(r->events[0].article);
        assert_true(r->events[0].npoints >= 1);
        if (c->expect_point && c->expect_moves == 0) {
            char h[8];
            rules_point_human(r->events[0].points[0], obs.size, h);
            assert_string_equal(h, c->expect_point);
        }
    }
    assert_int_equal(r->nmoves, c->expect_moves);
    if (c->expect_moves && c->expect_point) {
        char h[8];
        rules_point_human(r->moves[0].move.pt, obs.size, h);
        assert_string_equal(h, c->expect_point);
    }
    if (c->expect_orders) assert_int_equal(r->norders, c->expect_orders);
    if (c->expect_moves && c->expect_captured >= 0) assert_int_equal(r->moves[0].ncaptured, c->expect_captured);
    if (c == &CASES[0]) assert_true(r->unchanged);
    /* Playing the moves found must give the observed position, except for
     * stones named as missed captures. */
    if (r->nmoves) {
        rules_game *h = rules_game_clone(g);
        for (int i = 0; i < r->nmoves; i++)
            assert_int_equal(rules_game_play(h, r->moves[i].move.color, r->moves[i].move.pt, NULL), RULES_LEGAL);
        gs_position got;
        rules_game_position(h, &got);
        for (int i = 0; i < r->nevents; i++)
            if (r->events[i].type == RULES_EV_MISSED_CAPTURE)
                for (int k = 0; k < r->events[i].npoints; k++)
                    gs_position_set(&got, r->events[i].points[k].x, r->events[i].points[k].y,
                                    gs_position_get(&obs, r->events[i].points[k].x, r->events[i].points[k].y));
        /* ... and the two points of a moved stone */
        for (int i = 0; i < r->nevents; i++)
            if (r->events[i].type == RULES_EV_MOVED_STONE)
                for (int k = 0; k < r->events[i].npoints; k++)
                    gs_position_set(&got, r->events[i].points[k].x, r->events[i].points[k].y,
                                    gs_position_get(&obs, r->events[i].points[k].x, r->events[i].points[k].y));
        if (c->expect != RULES_EV_WRONG_CAPTURE) assert_memory_equal(got.cell, obs.cell, (size_t)(obs.size * obs.size));
        rules_game_destroy(h);
    }
    /* The classifier never changes the game. */
    rules_game *fresh = build(c);
    gs_position a, b;
    rules_game_position(g, &a);
    rules_game_position(fresh, &b);
    assert_int_equal(rules_game_move_count(g), rules_game_move_count(fresh));
    assert_memory_equal(a.cell, b.cell, (size_t)(a.size * a.size));
    rules_game_destroy(fresh);
    free(r);
    rules_game_destroy(g);
}

/* One cmocka test per case, so a failing event type is named. */
static void test_case(void **state) { run_case((const ref_case *)*state); }

static void test_event_codes(void **state)
{
    (void)state;
    /* Every event type has a code and an article; the table covers every
     * irregular type. */
    bool covered[RULES_EV_COUNT_] = {false};
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) covered[CASES[i].expect] = true;
    for (int t = 1; t < RULES_EV_COUNT_; t++) {
        assert_string_not_equal(rules_event_code((rules_event_type)t), "unknown");
        if (!covered[t]) fail_msg("event type %s has no test case", rules_event_code((rules_event_type)t));
    }
    /* size mismatch is a usage error */
    gs_error e;
    rules_game *g = rules_game_create(9, &e);
    gs_position p;
    gs_position_clear(&p, 13);
    rules_classification *r = malloc(sizeof *r);
    assert_int_equal(rules_classify(g, &p, r, &e), GS_ERR_USAGE);
    free(r);
    rules_game_destroy(g);
}

int main(void)
{
    enum { N = sizeof CASES / sizeof CASES[0] };
    struct CMUnitTest tests[N + 1];
    for (int i = 0; i < N; i++) {
        tests[i] = (struct CMUnitTest)cmocka_unit_test_prestate(test_case, (void *)&CASES[i]);
        tests[i].name = CASES[i].name;
    }
    tests[N] = (struct CMUnitTest)cmocka_unit_test(test_event_codes);
    return _cmocka_run_group_tests("rules_referee", tests, N + 1, NULL, NULL);
}
