/* tests/test_rules_kgs.c: the real KGS Chinese-rules games of
 * ../shared/data/games/kgs: no game has an illegal move, and every game that
 * ends with TB/TW marks and a numeric RE reproduces that RE exactly (dead
 * stones from the marks, area counting, the file's komi). */
#include "tests/testutil.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sgf/sgf.h"
#include "rules/rules.h"

static int games, numeric_marked, reproduced, with_illegal;

static void check_file(const char *path)
{
    sgf_game sg;
    memset(&sg, 0, sizeof sg);
    gs_error err;
    if (sgf_game_load(path, &sg, &err) != GS_OK) fail_msg("%s: %s", path, err.msg);
    rules_replay_input in = {.size = sg.info.size,
                             .komi = sg.info.has_komi ? sg.info.komi : 7.5,
                             .handicap = sg.info.handicap,
                             .setup = &sg.setup,
                             .moves = sg.moves,
                             .nmoves = (int)sg.move_count,
                             .final_marks = sg.has_final_marks ? &sg.final_marks : NULL};
    rules_replay_report *rep = malloc(sizeof *rep);
    assert_int_equal(rules_replay(&in, rep, &err), GS_OK);
    games++;
    if (rep->nillegal) {
        with_illegal++;
        print_message("%s: illegal move: %s\n", path, rep->illegal[0].text);
    }
    double re;
    if (sg.has_final_marks && rules_parse_result_points(sg.info.result, &re)) {
        numeric_marked++;
        if (fabs(re - rep->count.margin_stones * 2) < 1e-6) reproduced++;
        else print_message("%s: RE[%s] but counted %s\n", path, sg.info.result, rep->count.sgf);
    }
    free(rep);
    sgf_game_free(&sg);
}

static void walk(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        size_t n = strlen(p);
        if (n > 4 && !strcmp(p + n - 4, ".sgf")) check_file(p);
        else walk(p);
    }
    closedir(d);
}

static void test_kgs_games(void **state)
{
    (void)state;
    GS_REQUIRE_DATA(dir, "games/kgs");
    walk(dir);
    print_message("%d games, %d with an illegal move; %d/%d marked numeric results reproduced\n", games, with_illegal,
                  reproduced, numeric_marked);
    assert_int_equal(games, 32);
    assert_int_equal(with_illegal, 0);
    assert_int_equal(numeric_marked, 25);
    assert_int_equal(reproduced, 25);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_kgs_games)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
