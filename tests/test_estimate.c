/* tests/test_estimate.c: the dead-stone estimate (rules/rules.h) on
 * positions built by hand: Benson's life and certain death, dead stones in
 * territory, a seki, repeatability, and the KGS games whose final TB/TW
 * marks say which stones the players agreed were dead. */
#include "tests/testutil.h"

#include "sgf/sgf.h"
#include "rules/rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gs_position grid(const char *text)
{
    gs_position p;
    gs_error e;
    assert_int_equal(gs_position_parse(&p, text, &e), GS_OK);
    return p;
}

static rules_estimate_options fixed(int playouts)
{
    rules_estimate_options o;
    rules_estimate_default_options(&o);
    o.playouts = playouts;
    o.time_budget_ms = -1; /* repeatable: every playout is run */
    return o;
}

/* A black chain with two eyes, one of them holding a white stone: Benson
 * says the chain lives and the white stone can never live. */
static const char *TWO_EYES =
    "W . B . B W . . .\n"
    "B B B B B W . . .\n"
    "W W W W W W . . .\n"
    ". . . . . . . . .\n"
    ". . . . . . . . .\n"
    ". . . . . . . . .\n"
    ". . . . . . . . .\n"
    ". . . . . . . . .\n"
    ". . . . . . . . .\n";

static void test_benson(void **state)
{
    (void)state;
    gs_position p = grid(TWO_EYES);
    uint8_t alive[RULES_ESTIMATE_POINTS];
    rules_estimate_benson(&p, GS_BLACK, alive);
    assert_int_equal(alive[1 * 9 + 0], 1); /* the chain */
    assert_int_equal(alive[0 * 9 + 2], 1);
    assert_int_equal(alive[0 * 9 + 0], 2); /* white stone in a vital region */
    assert_int_equal(alive[0 * 9 + 1], 2);
    assert_int_equal(alive[0 * 9 + 3], 2); /* the other eye */
    assert_int_equal(alive[5 * 9 + 5], 0); /* open board */
    rules_estimate_benson(&p, GS_WHITE, alive);
    for (int i = 0; i < 81; i++) assert_int_equal(alive[i], 0); /* white has no eyes */

    /* One eye only: not unconditionally alive. */
    gs_position q = grid(
        ". B W . .\n"
        "B B W . .\n"
        "W W W . .\n"
        ". . . . .\n"
        ". . . . .\n");
    rules_estimate_benson(&q, GS_BLACK, alive);
    for (int i = 0; i < 25; i++) assert_int_equal(alive[i], 0);
}

static void test_benson_certain_death(void **state)
{
    (void)state;
    gs_position p = grid(TWO_EYES);
    rules_estimate_options o = fixed(64);
    rules_estimate_result r;
    gs_error e;
    assert_int_equal(rules_estimate_dead(&p, &o, &r, &e), GS_OK);
    assert_int_equal(r.dead[0], 1);
    assert_int_equal(r.status[0], RULES_ESTIMATE_DEAD);
    assert_int_equal(r.status[1 * 9 + 0], RULES_ESTIMATE_SAFE);
    assert_int_equal(r.dead[1 * 9 + 0], 0);
    assert_int_equal(r.dead_white, 1);
    assert_int_equal(r.dead_black, 0);
}

/* A finished board: Black owns the left, White the right, each wall with
 * two eyes; one stone of each side lies in the other's area and is dead. */
static const char *SPLIT =
    ". B . B W . W . .\n"
    ". B B B W W W . .\n"
    ". . . B W . . . .\n"
    ". . . B W . . . .\n"
    ". W . B W . . B .\n"
    ". . . B W . . . .\n"
    ". . . B W . . . .\n"
    ". B B B W W W . .\n"
    ". B . B W . W . .\n";

static void test_dead_in_territory(void **state)
{
    (void)state;
    gs_position p = grid(SPLIT);
    rules_estimate_options o = fixed(300);
    rules_estimate_result r;
    gs_error e;
    assert_int_equal(rules_estimate_dead(&p, &o, &r, &e), GS_OK);
    assert_int_equal(r.playouts, 300);
    assert_int_equal(r.dead[4 * 9 + 1], 1);
    assert_int_equal(r.dead[4 * 9 + 7], 1);
    assert_int_equal(r.dead_black, 1);
    assert_int_equal(r.dead_white, 1);
    for (int y = 0; y < 9; y++) {
        assert_int_equal(r.dead[y * 9 + 3], 0);
        assert_int_equal(r.dead[y * 9 + 4], 0);
    }
    assert_true(r.ownership[4 * 9 + 0] > 0.6f);  /* black's area */
    assert_true(r.ownership[4 * 9 + 8] < -0.6f); /* white's area */
    assert_int_equal(r.status[0 * 9 + 3], RULES_ESTIMATE_SAFE); /* two eyes */

    rules_count c;
    assert_int_equal(rules_count_position(&p, r.dead, NULL, &c, &e), GS_OK);
    assert_int_equal(c.black_stones, 15);
    assert_int_equal(c.white_stones, 15);
    assert_true(c.black == 36.0 && c.white == 45.0);
    assert_int_equal(r.uncertain_chains, 0);
    assert_string_equal(c.sgf, "W+16.5"); /* 36 - 40.5 - 3.75 = -8.25 stones */
}

/* A seki at the top: the inner black chain (eye at a1's corner) and the
 * inner white chain (eye at g) share the liberty d; neither side can play
 * it.  Both live, d is dame. */
static const char *SEKI =
    ". B B . W W . W B\n"
    "B B B W W W W W B\n"
    "W W W B B B B B B\n"
    ". . W B . . . . .\n"
    ". . W B . . . . .\n"
    ". . W B . . . . .\n"
    ". . W B . . . . .\n"
    ". . W B . . . . .\n"
    ". . W B . . . . .\n";

static void test_seki(void **state)
{
    (void)state;
    gs_position p = grid(SEKI);
    rules_estimate_options o = fixed(300);
    rules_estimate_result r;
    gs_error e;
    assert_int_equal(rules_estimate_dead(&p, &o, &r, &e), GS_OK);
    assert_int_equal(r.dead_black + r.dead_white, 0);
    assert_int_equal(r.status[0 * 9 + 1], RULES_ESTIMATE_SEKI); /* inner black */
    assert_int_equal(r.status[0 * 9 + 4], RULES_ESTIMATE_SEKI); /* inner white */
    assert_int_equal(r.seki_stones, 5 + 8);
    assert_int_equal(r.status[3 * 9 + 2], RULES_ESTIMATE_ALIVE); /* outer white */
    rules_count c;
    assert_int_equal(rules_count_position(&p, r.dead, NULL, &c, &e), GS_OK);
    assert_int_equal(c.dame, 1);
}

static void test_repeatable(void **state)
{
    (void)state;
    gs_position p = grid(SPLIT);
    rules_estimate_options o = fixed(100);
    rules_estimate_result *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    gs_error e;
    assert_int_equal(rules_estimate_dead(&p, &o, a, &e), GS_OK);
    assert_int_equal(rules_estimate_dead(&p, &o, b, &e), GS_OK);
    assert_memory_equal(a->dead, b->dead, sizeof a->dead);
    assert_memory_equal(a->ownership, b->ownership, sizeof a->ownership);
    o.seed = 12345;
    assert_int_equal(rules_estimate_dead(&p, &o, b, &e), GS_OK);
    assert_memory_equal(a->dead, b->dead, sizeof a->dead); /* another seed, same decision */
    free(a);
    free(b);
}

static void test_bad_input(void **state)
{
    (void)state;
    gs_position p;
    gs_position_clear(&p, 9);
    p.size = 3;
    rules_estimate_result r;
    gs_error e;
    assert_int_equal(rules_estimate_dead(&p, NULL, &r, &e), GS_ERR_USAGE);
    assert_int_equal(rules_estimate_dead(NULL, NULL, &r, &e), GS_ERR_USAGE);
    /* A stone without liberties (a capture not finished, or a misread
     * photo) is counted dead, and the rest is estimated without it. */
    gs_position q = grid(
        "B W . . .\n"
        "W . . . .\n"
        ". . . . .\n"
        ". . . . .\n"
        ". . . . .\n");
    rules_estimate_options o5 = fixed(20);
    assert_int_equal(rules_estimate_dead(&q, &o5, &r, &e), GS_OK);
    assert_int_equal(r.captured_stones, 1);
    assert_int_equal(r.dead[0], 1);
    assert_int_equal(r.dead_black, 1);
    /* An empty board: nothing dead. */
    gs_position_clear(&p, 9);
    rules_estimate_options o = fixed(20);
    assert_int_equal(rules_estimate_dead(&p, &o, &r, &e), GS_OK);
    assert_int_equal(r.dead_black + r.dead_white, 0);
}

/* Final position of an SGF through the rules engine. */
static bool final_position(const char *path, gs_position *pos, sgf_game *g)
{
    gs_error e;
    if (sgf_game_load(path, g, &e) != GS_OK) return false;
    rules_game *rg = rules_game_create(g->info.size, &e);
    if (!rg) return false;
    rules_game_set_ko_policy(rg, RULES_KO_FLAG_CYCLE);
    bool ok = true;
    for (int i = 0; i < g->info.size * g->info.size; i++)
        if (g->setup.cell[i] != GS_EMPTY)
            ok &= rules_game_setup(rg, (gs_color)g->setup.cell[i],
                                   (gs_point){(int8_t)(i % g->info.size), (int8_t)(i / g->info.size)}, &e) == GS_OK;
    for (size_t i = 0; i < g->move_count && ok; i++) {
        if (g->moves[i].pass) rules_game_pass(rg, g->moves[i].color);
        else ok = rules_game_play(rg, g->moves[i].color, g->moves[i].pt, NULL) == RULES_LEGAL;
    }
    rules_game_position(rg, pos);
    rules_game_destroy(rg);
    return ok;
}

/* The yardstick: on the KGS games with TB/TW marks and a numeric RE,
 * the estimate finds the dead stones the marks imply and reproduces RE. */
static void test_kgs_games(void **state)
{
    (void)state;
    GS_REQUIRE_DATA(dir, "games/kgs");
    static const char *games[] = {
        "2004-04-10-GnuGoCVS-inuyasha34.sgf", "maproom-gnugo3pt6.sgf",
        "tournament10/ExBot-GNU.sgf", "tournament10/GNU-AyaBot.sgf",
        "tournament10/IdiotBot-TheGNUGo.sgf", "tournament10/TheGNUGo-Dariush.sgf",
        "tournament10/TheGNUGo-SimpleBot.sgf", "tournament10/TheGNUGo-StoneCrazy.sgf",
        "tournament10/WeakBot50k-TheGNUGo.sgf", "tournament10/tlsBot-GNU.sgf",
        "tournament11/CrazyStone-GNU.sgf", "tournament11/GNU-CrazyStone.sgf",
        "tournament11/GNU-firstgo.sgf", "tournament11/firstgo-GNU.sgf",
        "tournament8/CrazyStone-GNU.sgf", "tournament8/GNU-AyaBot.sgf",
        "tournament8/GNU-Dar51.sgf", "tournament8/GNU-ExBot.sgf",
        "tournament8/firstgo-GNU.sgf", "tournament8/indigoBot-GNU.sgf",
        "tournament8/tlsBot-GNU.sgf", "tournament9/Dar51-GNU.sgf",
        "tournament9/GNU-AyaBot.sgf", "tournament9/gopp-GNU.sgf",
        "tournament9/indigoBot-GNU.sgf",
    };
    int n = (int)(sizeof games / sizeof games[0]);
    int step = gs_test_sanitized() ? 5 : 1, tried = 0, same = 0;
    rules_estimate_result *r = malloc(sizeof *r);
    rules_count *c = malloc(sizeof *c);
    assert_non_null(r);
    assert_non_null(c);
    for (int k = 0; k < n; k += step) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, games[k]);
        sgf_game g;
        memset(&g, 0, sizeof g);
        gs_position pos;
        assert_true(final_position(path, &pos, &g));
        assert_true(g.has_final_marks);
        uint8_t truth[RULES_ESTIMATE_POINTS];
        rules_dead_from_marks(&pos, &g.final_marks, truth);
        rules_estimate_options o = fixed(gs_test_sanitized() ? 200 : 600);
        gs_error e;
        assert_int_equal(rules_estimate_dead(&pos, &o, r, &e), GS_OK);
        rules_count_opts co;
        rules_count_opts_init(&co);
        co.komi = g.info.komi;
        assert_int_equal(rules_count_position(&pos, r->dead, &co, c, &e), GS_OK);
        /* RE[W+30.50] -> "W+30.5" */
        char want[64];
        snprintf(want, sizeof want, "%s", g.info.result);
        char *dot = strchr(want, '.');
        if (dot) {
            size_t len = strlen(want);
            while (len > 0 && want[len - 1] == '0') want[--len] = 0;
            if (want[len - 1] == '.') want[len - 1] = 0;
        }
        int ndiff = 0;
        for (int i = 0; i < pos.size * pos.size; i++) ndiff += (truth[i] != 0) != (r->dead[i] != 0);
        bool ok = ndiff == 0 && !strcmp(c->sgf, want);
        if (!ok) print_message("%s: %d dead stones differ from the marks, result %s, RE %s\n", games[k], ndiff, c->sgf, want);
        /* The players lifted the dead stones: nothing more looks dead, and
         * the count is the same. */
        gs_position lifted = pos;
        for (int i = 0; i < pos.size * pos.size; i++)
            if (truth[i]) lifted.cell[i] = GS_EMPTY;
        assert_int_equal(rules_estimate_dead(&lifted, &o, r, &e), GS_OK);
        rules_count c2;
        assert_int_equal(rules_count_position(&lifted, r->dead, &co, &c2, &e), GS_OK);
        if (r->dead_black + r->dead_white || strcmp(c2.sgf, want)) {
            print_message("%s with the dead stones lifted: %d more look dead, result %s\n", games[k],
                          r->dead_black + r->dead_white, c2.sgf);
            ok = false;
        }
        tried++;
        same += ok;
        sgf_game_free(&g);
    }
    print_message("KGS games: %d/%d with the marks' dead stones and RE\n", same, tried);
    free(r);
    free(c);
    assert_int_equal(same, tried);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_benson),
        cmocka_unit_test(test_benson_certain_death),
        cmocka_unit_test(test_dead_in_territory),
        cmocka_unit_test(test_seki),
        cmocka_unit_test(test_repeatable),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_kgs_games),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
