/* tests/test_count.c: the count and check of record/ (score_count_*,
 * score_check_file) on small files written here: the SGF replay, each way
 * of naming the dead stones, the errors and the file each is about, the
 * count SGF read back, and the check of illegal moves against RE. */
#include "tests/testutil.h"

#include "record/record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/gs-test-count-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Writes text to dir/name; returns the path (static buffer per call site). */
static const char *put(const char *name, const char *text, char *path, size_t len)
{
    snprintf(path, len, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
    return path;
}

/* A 9x9 board: Black's wall on column E, White's on column G, column F
 * between them dame, and one white stone at B5 (x 1, y 4) inside Black's
 * area, dead by any sensible count. */
static const char *GRID =
    ". . . . B . W . .\n"
    ". . . . B . W . .\n"
    ". . . . B . W . .\n"
    ". . . . B . W . .\n"
    ". W . . B . W . .\n"
    ". . . . B . W . .\n"
    ". . . . B . W . .\n"
    ". . . . B . W . .\n"
    ". . . . B . W . .\n";

static void test_stones_format(void **state)
{
    (void)state;
    char b[32];
    score_count_stones_format(184.5, b, sizeof b);
    assert_string_equal(b, "184 1/2");
    score_count_stones_format(0.75, b, sizeof b);
    assert_string_equal(b, "3/4");
    score_count_stones_format(12, b, sizeof b);
    assert_string_equal(b, "12");
    score_count_stones_format(-0.25, b, sizeof b);
    assert_string_equal(b, "-1/4");
    assert_string_equal(score_count_dead_name(SCORE_COUNT_DEAD_POINTS), "points");
}

static void test_grid_dead_points(void **state)
{
    (void)state;
    char path[128];
    score_count_options o;
    score_count_options_init(&o);
    o.input = put("g.txt", GRID, path, sizeof path);
    score_count_result *r = calloc(1, sizeof *r);
    assert_non_null(r);
    gs_error e = {0};

    /* all alive: the white stone at B5 keeps its points from Black */
    o.dead = SCORE_COUNT_DEAD_NONE;
    assert_int_equal(score_count_run(&o, r, &e), GS_OK);
    assert_string_equal(r->source, "grid");
    assert_int_equal(r->count.dead_white, 0);
    assert_false(r->estimate);
    double alive_margin = r->count.margin_stones;

    /* the players' list, in SGF and in board coordinates */
    o.dead = SCORE_COUNT_DEAD_POINTS;
    o.dead_points = "be";
    assert_int_equal(score_count_run(&o, r, &e), GS_OK);
    assert_int_equal(r->count.dead_white, 1);
    assert_int_equal(r->dead[4 * 9 + 1], 1);
    assert_true(r->count.margin_stones > alive_margin);
    o.dead_points = "B5";
    assert_int_equal(score_count_run(&o, r, &e), GS_OK);
    assert_int_equal(r->count.dead_white, 1);
    /* a whole chain goes with the stone named */
    o.dead_points = "G9";
    assert_int_equal(score_count_run(&o, r, &e), GS_OK);
    assert_int_equal(r->count.dead_white, 9);

    /* errors say which file they are about */
    o.dead_points = "A1";
    assert_int_equal(score_count_run(&o, r, &e), GS_ERR_USAGE);
    assert_ptr_equal(r->error_file, o.input);
    assert_non_null(strstr(e.msg, "no stone at A1"));
    o.dead = SCORE_COUNT_DEAD_MARKS;
    assert_int_equal(score_count_run(&o, r, &e), GS_ERR_USAGE);
    assert_ptr_equal(r->error_file, o.input);
    o.dead = SCORE_COUNT_DEAD_NONE;
    o.has_corners = true;
    assert_int_equal(score_count_run(&o, r, &e), GS_ERR_USAGE);
    assert_null(r->error_file);
    assert_non_null(strstr(e.msg, "--corners needs a photo"));
    free(r);
}

static void test_estimate_and_sgf_round_trip(void **state)
{
    (void)state;
    char path[128], out[128];
    score_count_options o;
    score_count_options_init(&o);
    o.input = put("g.txt", GRID, path, sizeof path);
    o.playouts = 100;
    snprintf(out, sizeof out, "%s/count.sgf", dir);
    o.sgf_path = out;
    score_count_result *r = calloc(1, sizeof *r), *back = calloc(1, sizeof *back);
    assert_non_null(r);
    assert_non_null(back);
    gs_error e = {0};
    assert_int_equal(score_count_run(&o, r, &e), GS_OK);
    assert_true(r->estimate);
    assert_int_equal(r->est.playouts, 100);
    assert_int_equal(r->count.dead_white, 1); /* B5 */
    assert_true(r->count.komi == RULES_DEFAULT_KOMI);

    /* the count SGF's TB/TW give the same dead stones and result back */
    score_count_options o2;
    score_count_options_init(&o2);
    o2.input = out;
    o2.dead = SCORE_COUNT_DEAD_MARKS;
    assert_int_equal(score_count_run(&o2, back, &e), GS_OK);
    assert_string_equal(back->source, "sgf");
    assert_int_equal(back->count.dead_white, r->count.dead_white);
    assert_int_equal(back->count.dead_black, r->count.dead_black);
    assert_string_equal(back->count.sgf, r->count.sgf);
    assert_string_equal(back->file_result, r->count.sgf);
    gs_test_keep_sgf(out, "test_count-estimate");

    /* the estimate the bench times gives the same count */
    rules_estimate_result *est = malloc(sizeof *est);
    rules_count *cnt = malloc(sizeof *cnt);
    assert_non_null(est);
    assert_non_null(cnt);
    rules_estimate_options eo;
    rules_estimate_default_options(&eo);
    eo.playouts = 100;
    eo.time_budget_ms = -1;
    assert_int_equal(score_count_estimate(&r->pos, &eo, NULL, est, cnt, &e), GS_OK);
    assert_true(cnt->margin_stones == r->count.margin_stones);
    free(est);
    free(cnt);
    free(r);
    free(back);
}

static void test_load_sgf(void **state)
{
    (void)state;
    char path[128];
    score_count_sgf *in = malloc(sizeof *in);
    assert_non_null(in);
    gs_error e = {0};
    /* a capture in the corner: Black's stone at aa is taken */
    put("cap.sgf", "(;GM[1]SZ[9]KM[6.5]HA[0]RE[W+3.5];B[aa];W[ba];B[ee];W[ab])", path, sizeof path);
    assert_int_equal(score_count_load_sgf(path, in, &e), GS_OK);
    assert_int_equal(gs_position_get(&in->pos, 0, 0), GS_EMPTY);
    assert_int_equal(gs_position_get(&in->pos, 1, 0), GS_WHITE);
    assert_true(in->has_komi && in->komi == 6.5);
    assert_string_equal(in->result, "W+3.5");
    assert_false(in->has_marks);
    /* an illegal move is named with its line */
    put("bad.sgf", "(;GM[1]SZ[9]\n;B[ee]\n;W[ee])", path, sizeof path);
    assert_int_equal(score_count_load_sgf(path, in, &e), GS_ERR_FORMAT);
    assert_non_null(strstr(e.msg, "line 3: move 2 W[ee] is illegal"));
    put("small.sgf", "(;GM[1]SZ[3];B[aa])", path, sizeof path);
    assert_int_equal(score_count_load_sgf(path, in, &e), GS_ERR_NOBOARD);
    free(in);
}

static void test_check(void **state)
{
    (void)state;
    char path[128];
    score_check_result *r = malloc(sizeof *r);
    assert_non_null(r);
    gs_error e = {0};
    /* a ko: Black takes at cb, White retakes at once (illegal, void) */
    put("ko.sgf", "(;GM[1]SZ[5]KM[0]RE[B+1]AB[ba][ab][bc]AW[ca][db][cc][bb];B[cb];W[bb])", path, sizeof path);
    score_check_options o = {.ko_policy = RULES_KO_FORBID};
    assert_int_equal(score_check_file(path, &o, r, &e), GS_OK);
    assert_int_equal(r->size, 5);
    assert_int_equal((int)r->moves, 2);
    assert_string_equal(r->recorded_result, "B+1");
    assert_true(r->recorded_numeric);
    assert_int_equal(r->report.nillegal, 1);
    assert_int_equal(r->report.illegal[0].event, RULES_EV_KO);
    assert_int_equal(r->report.illegal[0].move_number, 2);
    assert_true(r->komi == 0);
    assert_int_equal(r->matches_record, r->report.count.margin_stones * 2 == 1);
    /* the komi option wins over the file's */
    o.has_komi = true;
    o.komi = 7.5;
    assert_int_equal(score_check_file(path, &o, r, &e), GS_OK);
    assert_true(r->komi == 7.5);
    /* no board to check */
    put("small.sgf", "(;GM[1]SZ[3];B[aa])", path, sizeof path);
    assert_int_equal(score_check_file(path, NULL, r, &e), GS_ERR_NOBOARD);
    /* a set-up the rules cannot start from: no game to check either */
    put("dead.sgf", "(;GM[1]SZ[9]AB[aa][ba]AW[ab][bb][ca])", path, sizeof path);
    assert_int_equal(score_check_file(path, NULL, r, &e), GS_ERR_NOBOARD);
    assert_int_equal(e.status, GS_ERR_NOBOARD);
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stones_format),
        cmocka_unit_test(test_grid_dead_points),
        cmocka_unit_test(test_estimate_and_sgf_round_trip),
        cmocka_unit_test(test_load_sgf),
        cmocka_unit_test(test_check),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
