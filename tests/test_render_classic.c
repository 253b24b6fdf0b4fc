/* tests/test_render_classic.c: the bundled classic game (samples/games/
 * classic.sgf, typed in by hand) replays legally, move for move. */
#include "testutil.h"

#include "sgf/sgf.h"
#include "rules/rules.h"

#include <stdio.h>

static void test_classic_replays(void **state)
{
    (void)state;
    sgf_game g;
    gs_error err = {0};
    assert_int_equal(sgf_game_load(GS_SOURCE_DIR "/samples/games/classic.sgf", &g, &err), GS_OK);
    assert_int_equal(g.info.size, 19);
    assert_int_equal((int)g.move_count, 325);
    rules_game *rg = rules_game_create(19, &err);
    assert_non_null(rg);
    for (size_t i = 0; i < g.move_count; i++) {
        const gs_move *m = &g.moves[i];
        assert_false(m->pass);
        /* strictly alternating, Black first */
        assert_int_equal(m->color, i % 2 ? GS_WHITE : GS_BLACK);
        rules_move_result res;
        rules_legality l = rules_game_play(rg, m->color, m->pt, &res);
        if (l != RULES_LEGAL) print_message("move %zu (line %d) is %s\n", i + 1, g.move_info[i].line, rules_legality_name(l));
        assert_int_equal(l, RULES_LEGAL);
        assert_false(res.out_of_turn);
    }
    const rules_board *b = rules_game_board(rg);
    print_message("prisoners: black took %d, white took %d\n", rules_board_captures(b, GS_BLACK), rules_board_captures(b, GS_WHITE));
    /* the long ko fight near the end took stones on both sides */
    assert_true(rules_board_captures(b, GS_BLACK) > 10 && rules_board_captures(b, GS_WHITE) > 10);
    rules_game_destroy(rg);
    sgf_game_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classic_replays),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
