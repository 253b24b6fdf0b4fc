/* tests/test_count_range.c: the range of a count over the readings its
 * doubt allows (score_count_range_run).  Each case is a board as read,
 * with its doubtful points written "X/Y" (read X, next likeliest Y; Y '?':
 * not known, either other colour), and
 * the result it must give: the lowest and highest result, whether it is
 * sure, whether the winner is, and the points that can turn the winner. */
#include "tests/testutil.h"

#include "record/record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct range_case {
    const char *name;
    const char *board;     /* tokens . B W, or X/Y: read X with doubt, next likeliest Y */
    double komi;           /* points */
    bool estimate;         /* the dead stones estimated (rerun for each reading) */
    const char *dead;      /* else: stones given dead (each one's chain), "" none */
    const char *unsettled; /* ... and chains whose life an estimate could not settle */
    const char *low, *high;
    bool sure, winner_sure;
    const char *winner_points; /* in board order */
} range_case;

/* Black's wall on column D, White's on F, column E between them dame:
 * 40 1/2 stones each. */
#define DAME_COLUMN(e4, e5, e6)                                                                                  \
    ". . . B . W . . .\n"                                                                                        \
    ". . . B . W . . .\n"                                                                                        \
    ". . . B . W . . .\n"                                                                                        \
    ". . . B " e6 " W . . .\n"                                                                                   \
    ". . . B " e5 " W . . .\n"                                                                                   \
    ". . . B " e4 " W . . .\n"                                                                                   \
    ". . . B . W . . .\n"                                                                                        \
    ". . . B . W . . .\n"                                                                                        \
    ". . . B . W . . .\n"

static const range_case CASES[] = {
    {"a sure board: nothing in doubt", DAME_COLUMN(".", ".", "."), 7.5, true, "", NULL, "W+7.5", "W+7.5", true,
     true, ""},
    /* a stone of either colour inside Black's area changes nothing: a
     * black one stands in its own area, a white one is dead there */
    {"doubt inside one side's area", ". ./W . B . W . . .\n"
                                     ". . ./B B . W . . .\n"
                                     ". . . B . W . . .\n"
                                     ". . . B . W . . .\n"
                                     ". . . B . W . . .\n"
                                     ". . . B . W . . .\n"
                                     ". . . B . W . . .\n"
                                     ". . . B . W . . .\n"
                                     ". . . B . W . . .\n",
     7.5, true, "", NULL, "W+7.5", "W+7.5", true, true, ""},
    /* a dame point that may hold a black stone: half a stone more for
     * Black, White still wins */
    {"doubt on the dame: the winner sure", DAME_COLUMN("./B", ".", "."), 7.5, true, "", NULL, "W+7.5", "W+6.5",
     false, true, ""},
    /* Black's wall on E, White's on F, E1 dame: Black 44 1/2, White 36
     * 1/2, komi 3 3/4: Black by 1/4 stone; a white stone on E1 makes it
     * White by 1/4 */
    {"a doubtful point flips a close game", ". . . . B W . . .\n"
                                            ". . . . B W . . .\n"
                                            ". . . . B W . . .\n"
                                            ". . . . B W . . .\n"
                                            ". . . . B W . . .\n"
                                            ". . . . B W . . .\n"
                                            ". . . . B W . . .\n"
                                            ". . . . B W . . .\n"
                                            ". . . B ./W W . . .\n",
     7.5, true, "", NULL, "W+0.5", "B+0.5", false, false, "E1"},
    /* its next likeliest colour not known (scan's '?'): a black stone
     * there (half a stone more for Black) and a white one (half a stone
     * more for White) both counted */
    {"doubt of either colour", DAME_COLUMN("./?", ".", "."), 7.5, true, "", NULL, "W+8.5", "W+6.5", false, true, ""},
    /* komi 2.5: White by 1 1/4 stones; one black stone on the dame gives
     * Black half a stone, not enough; the three of a chain of doubt give
     * 1 1/2 */
    {"a chain of doubtful points", DAME_COLUMN("./B", "./B", "./B"), 2.5, true, "", NULL, "W+2.5", "B+0.5", false,
     false, "E6 E5 E4"},
    /* the same komi, two doubtful points apart (E4, E6): each alone gives
     * Black half a stone, both at once a whole one: the range reaches the
     * reading of every doubt at once (a photo misread alike in many places
     * is right only so) */
    {"doubtful points apart, all at once", DAME_COLUMN("./B", ".", "./B"), 2.5, true, "", NULL, "W+2.5", "W+0.5",
     false, true, ""},
    /* White's group in Black's corner lives with eyes at A9 and C9; a
     * white stone read on C9 fills one: the group dies, its 8 points go
     * to Black (W+14.5 becomes B+1.5) */
    {"a doubtful stone decides a group's life", ". W ./W W B W . . .\n"
                                                 "W W W W B W . . .\n"
                                                 "B B B B B W . . .\n"
                                                 ". . . . B W . . .\n"
                                                 ". . . . B W . . .\n"
                                                 ". . . . B W . . .\n"
                                                 ". . . . B W . . .\n"
                                                 ". . . . B W . . .\n"
                                                 ". . . . B W . . .\n",
     7.5, true, "", NULL, "W+14.5", "B+1.5", false, false, "C9"},
    /* the dead stones given (the players lifted theirs): a white stone
     * read on the dame counts as a living one */
    {"given dead stones stay given", DAME_COLUMN("./W", ".", "."), 7.5, false, "", NULL, "W+8.5", "W+7.5", false,
     true, ""},
    /* a black stone in White's area the estimate left unsettled: dead it
     * it is White by 3 3/4 stones; alive, White's area beside it is dame
     * (Black by 10 1/4) */
    {"an unsettled life counts both ways", ". . . B . W . . .\n"
                                          ". . . B . W . . .\n"
                                          ". . . B . W . . .\n"
                                          ". . . B . W . . .\n"
                                          ". . . B . W . B .\n"
                                          ". . . B . W . . .\n"
                                          ". . . B . W . . .\n"
                                          ". . . B . W . . .\n"
                                          ". . . B . W . . .\n",
     7.5, false, "H5", "H5", "W+7.5", "B+20.5", false, false, "H5"},
};

/* The case's board into pos, its doubtful points into doubt and their
 * next likeliest colours into second. */
static void parse_board(const char *text, gs_position *pos, uint8_t *doubt, gs_color *second)
{
    static const char *COLOURS = ".BW";
    int n = 0;
    const char *s = text;
    while (*s) {
        while (*s == ' ' || *s == '\n') s++;
        if (!*s) break;
        const char *c = strchr(COLOURS, *s);
        assert_non_null(c);
        pos->cell[n] = (uint8_t)(c - COLOURS);
        second[n] = (gs_color)pos->cell[n];
        doubt[n] = s[1] == '/';
        if (doubt[n] && s[2] == '?') { /* a '?' of scan's text: either other colour */
            second[n] = SCORE_SECOND_ANY;
            s += 2;
        } else if (doubt[n]) {
            const char *d = strchr(COLOURS, s[2]);
            assert_non_null(d);
            second[n] = (gs_color)(d - COLOURS);
            s += 2;
        }
        s++;
        n++;
    }
    int size = 5;
    while (size * size < n) size++;
    assert_int_equal(size * size, n);
    pos->size = size;
}

/* Marks in mask each point of the list "C9 E1" (and its whole chain
 * when chains). */
static void mark_points(const gs_position *pos, const char *list, bool chains, uint8_t *mask)
{
    char copy[128], *save = NULL;
    snprintf(copy, sizeof copy, "%s", list ? list : "");
    for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        gs_point p;
        bool pass;
        assert_true(rules_point_parse_human(t, pos->size, &p, &pass));
        int i = p.y * pos->size + p.x;
        mask[i] = 1;
        for (int again = chains; again;) { /* (flood: grow until nothing joins) */
            again = 0;
            for (int q = 0; q < pos->size * pos->size; q++) {
                if (mask[q] || pos->cell[q] != pos->cell[i]) continue;
                int x = q % pos->size, y = q / pos->size;
                bool next = (x > 0 && mask[q - 1]) || (x < pos->size - 1 && mask[q + 1]) ||
                            (y > 0 && mask[q - pos->size]) || (y < pos->size - 1 && mask[q + pos->size]);
                if (next) mask[q] = again = 1;
            }
        }
    }
}

/* The points of mask in board order, "E6 E5 E4". */
static void points_text(const gs_position *pos, const uint8_t *mask, char *buf, size_t len)
{
    buf[0] = 0;
    for (int i = 0; i < pos->size * pos->size; i++) {
        if (!mask[i]) continue;
        char h[8];
        rules_point_human((gs_point){(int8_t)(i % pos->size), (int8_t)(i / pos->size)}, pos->size, h);
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? " " : "", h);
    }
}

static void run_case(const range_case *c)
{
    gs_position pos;
    uint8_t doubt[RULES_MAX_POINTS] = {0}, dead[RULES_MAX_POINTS] = {0};
    gs_color second[RULES_MAX_POINTS];
    parse_board(c->board, &pos, doubt, second);
    rules_estimate_result *est = calloc(1, sizeof *est);
    score_count_range *r = calloc(1, sizeof *r);
    assert_non_null(est);
    assert_non_null(r);
    rules_estimate_options eo;
    rules_estimate_default_options(&eo);
    eo.playouts = 500;
    eo.time_budget_ms = -1; /* the same verdicts on every machine, sanitized or not */
    gs_error err = {0};
    score_range_input in = {.pos = &pos, .dead = dead, .eo = &eo, .doubt = doubt, .second = second};
    rules_count_opts_init(&in.count);
    in.count.komi = c->komi;
    if (c->estimate) {
        assert_int_equal(rules_estimate_dead(&pos, &eo, est, &err), GS_OK);
        memcpy(dead, est->dead, sizeof dead);
        in.est = est;
    } else if (c->unsettled) {
        mark_points(&pos, c->dead, true, dead);
        memcpy(est->dead, dead, sizeof dead);
        mark_points(&pos, c->unsettled, true, est->uncertain);
        in.est = est;
    } else {
        mark_points(&pos, c->dead, true, dead);
    }
    assert_int_equal(score_count_range_run(&in, r, &err), GS_OK);
    char winners[256];
    points_text(&pos, r->winner, winners, sizeof winners);
    print_message("%-42s %s to %s%s%s, winner points [%s], %d readings, %d reruns\n", c->name, r->low_sgf,
                  r->high_sgf, r->sure ? " (sure)" : "", r->winner_sure ? " (winner sure)" : "", winners, r->readings,
                  r->reruns);
    /* the range is given from Black's side: low and high in either order */
    bool as_given = !strcmp(r->low_sgf, c->low) && !strcmp(r->high_sgf, c->high);
    bool swapped = !strcmp(r->low_sgf, c->high) && !strcmp(r->high_sgf, c->low);
    assert_true(as_given || swapped);
    assert_int_equal(r->sure, c->sure);
    assert_int_equal(r->winner_sure, c->winner_sure);
    assert_string_equal(winners, c->winner_points);
    assert_true(r->low <= r->base && r->base <= r->high);
    free(est);
    free(r);
}

static void test_cases(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof CASES / sizeof CASES[0]; k++) run_case(&CASES[k]);
}

/* Doubt without second choices is a caller's error, said so. */
static void test_no_second(void **state)
{
    (void)state;
    gs_position pos;
    gs_position_clear(&pos, 9);
    uint8_t doubt[RULES_MAX_POINTS] = {1};
    score_range_input in = {.pos = &pos, .doubt = doubt};
    rules_count_opts_init(&in.count);
    score_count_range *r = calloc(1, sizeof *r);
    assert_non_null(r);
    gs_error err = {0};
    assert_int_equal(score_count_range_run(&in, r, &err), GS_ERR_USAGE);
    assert_non_null(strstr(err.msg, "second"));
    free(r);
}

/* Every point in doubt (the board's lines are): any result. */
static void test_whole_board(void **state)
{
    (void)state;
    gs_position pos;
    gs_position_clear(&pos, 9);
    uint8_t doubt[RULES_MAX_POINTS];
    gs_color second[RULES_MAX_POINTS];
    memset(doubt, 1, sizeof doubt);
    for (int i = 0; i < RULES_MAX_POINTS; i++) second[i] = GS_BLACK;
    score_range_input in = {.pos = &pos, .doubt = doubt, .second = second};
    rules_count_opts_init(&in.count);
    score_count_range *r = calloc(1, sizeof *r);
    assert_non_null(r);
    gs_error err = {0};
    assert_int_equal(score_count_range_run(&in, r, &err), GS_OK);
    assert_true(r->unbounded);
    assert_string_equal(r->low_sgf, "W+88.5"); /* 81 points and komi 7.5 */
    assert_string_equal(r->high_sgf, "B+73.5");
    assert_false(r->winner_sure);
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases),
        cmocka_unit_test(test_no_second),
        cmocka_unit_test(test_whole_board),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
