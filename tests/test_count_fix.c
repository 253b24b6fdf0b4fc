/* tests/test_count_fix.c: a count put right by hand (score_fix_*, the count
 * page's work), the grids with scan's '?' marks, boards that do not look
 * finished, and the count drawn without a photo.  Boards are ASCII grids as
 * `goscribe scan` prints them ('?' after a token: read with doubt). */
#include "tests/testutil.h"

#include "cvshim/cvshim.h"
#include "record/record.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A finished 9x9 board: walls two stones thick, a dead white stone at B5
 * in Black's area (read with doubt) and a dead black one at H5 in
 * White's: White by 8 1/4 stones. */
static const char SPLIT[] = ". . B B W W . . .\n"
                            ". . B B W W . . .\n"
                            ". . B B W W . . .\n"
                            ". . B B W W . . .\n"
                            ". W? B B W W . B .\n"
                            ". . B B W W . . .\n"
                            ". . B B W W . . .\n"
                            ". . B B W W . . .\n"
                            ". . B B W W . . .\n";

/* text into a temporary grid file; its path into path. */
static const char *put(const char *name, const char *text, char *path, size_t len)
{
    snprintf(path, len, "/tmp/gs-count-fix-%d-%s", (int)getpid(), name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
    return path;
}

/* The count of grid text (dead stones estimated, a fixed seed). */
static score_count_result *count_grid(const char *text, const char *overlay)
{
    char path[128];
    score_count_options o;
    score_count_options_init(&o);
    o.input = put("g.txt", text, path, sizeof path);
    o.dead = SCORE_COUNT_DEAD_AUTO;
    o.overlay_path = overlay;
    score_count_result *r = calloc(1, sizeof *r);
    assert_non_null(r);
    gs_error e = {0};
    gs_status st = score_count_run(&o, r, &e);
    if (st != GS_OK) print_message("count: %s\n", e.msg);
    assert_int_equal(st, GS_OK);
    unlink(path);
    return r;
}

static gs_point pt(const char *human, int size)
{
    gs_point p;
    bool pass;
    assert_true(rules_point_parse_human(human, size, &p, &pass));
    return p;
}
static int at(const char *human, int size)
{
    gs_point p = pt(human, size);
    return p.y * size + p.x;
}

/* scan's '?' is doubt in a grid, and only where a grid may have it. */
static void test_grid_marks(void **state)
{
    (void)state;
    gs_position p;
    uint8_t marked[RULES_MAX_POINTS];
    gs_error e = {0};
    assert_int_equal(gs_position_parse_marked(&p, marked, SPLIT, &e), GS_OK);
    assert_int_equal(p.size, 9);
    int n = 0;
    for (int i = 0; i < 81; i++) n += marked[i];
    assert_int_equal(n, 1);
    assert_true(marked[at("B5", 9)] && p.cell[at("B5", 9)] == GS_WHITE);
    /* without a place for the marks a '?' is an error, as it always was */
    assert_int_equal(gs_position_parse(&p, SPLIT, &e), GS_ERR_FORMAT);
    assert_non_null(strstr(e.msg, "line 5: unexpected character '?'"));
    /* a '?' with no token before it is no mark */
    assert_int_equal(gs_position_parse_marked(&p, marked, "? . . . .\n. . . . .\n. . . . .\n. . . . .\n. . . . .\n", &e),
                     GS_ERR_FORMAT);
}

/* The count of a grid with '?' counts its doubt: the point read with
 * doubt is read as either other colour. */
static void test_grid_doubt_counted(void **state)
{
    (void)state;
    /* Black's wall on E, White's on F; E1 read empty with doubt: a black
     * stone there gives Black the game, a white one White */
    score_count_result *r = count_grid(". . . . B W . . .\n. . . . B W . . .\n. . . . B W . . .\n"
                                       ". . . . B W . . .\n. . . . B W . . .\n. . . . B W . . .\n"
                                       ". . . . B W . . .\n. . . . B W . . .\n. . . B .? W . . .\n", NULL);
    assert_int_equal(r->read_uncertain, 1);
    assert_int_equal(r->read_second[at("E1", 9)], SCORE_SECOND_ANY);
    assert_false(r->range.sure);
    assert_false(r->range.winner_sure);
    assert_true(r->range.winner[at("E1", 9)]);
    assert_true(r->range.low < 0 && r->range.high > 0);
    free(r);
}

/* A board that does not look finished is counted as it stands, never
 * sure, and says why. */
static void test_unfinished_never_sure(void **state)
{
    (void)state;
    score_count_result *r = count_grid(". . . . . . . . .\n. . . . . . . . .\n. . B . . . W . .\n"
                                       ". . . . . . . . .\n. . . . B . . . .\n. . . . . . . . .\n"
                                       ". . . . . . . . .\n. . . . . . . . .\n. . . . . . . . .\n", NULL);
    assert_false(r->looks_finished);
    assert_non_null(strstr(r->not_finished, "3 stones on 81 points"));
    assert_false(r->range.sure);
    gs_buf b = {0};
    score_count_score_line(&b, r);
    assert_true(gs_buf_ok(&b));
    assert_non_null(strstr(b.p, "not sure: the game does not look finished"));
    gs_buf_free(&b);
    free(r);
    /* a large open area: stones enough, but a third of the board walled by nobody */
    r = count_grid("B W B W B W B W B\nW B W B W B W B W\nB W B W B W B W B\nW B W B W B W B W\n"
                   ". . . . . . . . .\n. . . . . . . . .\n. . . . . . . . .\n. . . . . . . . .\n. . . . . . . . .\n",
                   NULL);
    assert_false(r->looks_finished);
    assert_non_null(strstr(r->not_finished, "an open area of 45 empty points"));
    free(r);
}

/* Points and lives set by hand, each change counted again at once; a
 * life set by hand holds through later changes; the confirmation. */
static void test_fix_points_and_lives(void **state)
{
    (void)state;
    score_count_result *r = count_grid(SPLIT, NULL);
    assert_string_equal(r->count.sgf, "W+16.5");
    assert_true(r->dead[at("B5", 9)] && r->dead[at("H5", 9)]);
    score_fix *f = malloc(sizeof *f);
    assert_non_null(f);
    gs_error e = {0};
    assert_int_equal(score_fix_init(f, r, &e), GS_OK);

    /* B5 was read white with doubt: someone says it is empty */
    assert_int_equal(score_fix_point(f, pt("B5", 9), GS_EMPTY, &e), GS_OK);
    assert_true(f->r.fixed[at("B5", 9)]);
    assert_int_equal(f->r.nfixed, 1);
    assert_int_equal(f->r.read_uncertain, 0);
    assert_false(f->r.read_unsure[at("B5", 9)]);
    assert_string_equal(f->r.count.sgf, "W+16.5"); /* a dead stone or an empty point: Black's point alike */
    /* back to what was read: no longer a fix (but no longer in doubt) */
    assert_int_equal(score_fix_point(f, pt("B5", 9), GS_WHITE, &e), GS_OK);
    assert_int_equal(f->r.nfixed, 0);
    assert_int_equal(f->r.read_uncertain, 0);

    /* H5 alive by hand: White's area beside it becomes dame */
    assert_int_equal(score_fix_life(f, pt("H5", 9), SCORE_LIFE_ALIVE, &e), GS_OK);
    assert_false(f->r.dead[at("H5", 9)]);
    assert_int_equal(f->r.life_given[at("H5", 9)], SCORE_LIFE_ALIVE);
    assert_true(f->r.count.margin_stones > 0);
    char alive[24];
    snprintf(alive, sizeof alive, "%s", f->r.count.sgf);
    /* a change beside it reruns the estimate there: the life set holds */
    assert_int_equal(score_fix_point(f, pt("G1", 9), GS_WHITE, &e), GS_OK);
    assert_false(f->r.dead[at("H5", 9)]);
    /* and the whole chain takes it: a stone joined to H5 is alive too */
    assert_int_equal(score_fix_point(f, pt("H4", 9), GS_BLACK, &e), GS_OK);
    assert_false(f->r.dead[at("H4", 9)]);
    assert_int_equal(f->r.life_given[at("H4", 9)], SCORE_LIFE_ALIVE);
    assert_int_equal(score_fix_point(f, pt("H4", 9), GS_EMPTY, &e), GS_OK);
    assert_int_equal(score_fix_point(f, pt("G1", 9), GS_EMPTY, &e), GS_OK);
    assert_string_equal(f->r.count.sgf, alive);
    /* back to the estimate's: dead again */
    assert_int_equal(score_fix_life(f, pt("H5", 9), 0, &e), GS_OK);
    assert_true(f->r.dead[at("H5", 9)]);
    assert_string_equal(f->r.count.sgf, "W+16.5");
    /* no stone, no chain; a point off the board */
    assert_int_equal(score_fix_life(f, pt("A1", 9), SCORE_LIFE_DEAD, &e), GS_ERR_USAGE);
    assert_int_equal(score_fix_point(f, (gs_point){9, 0}, GS_BLACK, &e), GS_ERR_USAGE);

    /* confirmed: sure, said who, and nothing more is taken */
    assert_int_equal(score_fix_point(f, pt("A9", 9), GS_BLACK, &e), GS_OK);
    score_fix_confirm(f, "Ann", 1780000000000LL);
    assert_true(f->r.confirmed && f->r.range.sure);
    assert_string_equal(f->r.confirmed_by, "Ann");
    assert_int_equal(score_fix_point(f, pt("A8", 9), GS_BLACK, &e), GS_ERR_USAGE);
    assert_non_null(strstr(e.msg, "confirmed"));
    free(f);
    free(r);
}

/* The confirmed count's SGF: RE, who confirmed it, the points set by hand
 * (GSFX), and read back the same count. */
static void test_confirmed_sgf(void **state)
{
    (void)state;
    score_count_result *r = count_grid(SPLIT, NULL);
    score_fix *f = malloc(sizeof *f);
    assert_non_null(f);
    gs_error e = {0};
    assert_int_equal(score_fix_init(f, r, &e), GS_OK);
    assert_int_equal(score_fix_point(f, pt("A9", 9), GS_BLACK, &e), GS_OK);
    assert_int_equal(score_fix_life(f, pt("B5", 9), SCORE_LIFE_DEAD, &e), GS_OK);
    score_fix_confirm(f, "Ann", 1780000000000LL);
    char path[128];
    snprintf(path, sizeof path, "/tmp/gs-count-fix-%d.sgf", (int)getpid());
    assert_int_equal(score_count_write_sgf(path, &f->r, &e), GS_OK);
    char *text = NULL;
    size_t len = 0;
    assert_int_equal(gs_file_read(path, 1 << 20, &text, &len, &e), GS_OK);
    assert_non_null(strstr(text, "GSFX[aa]"));
    assert_non_null(strstr(text, "Confirmed by hand on the count page by Ann"));
    assert_non_null(strstr(text, "Points set by hand (GSFX): A9."));
    assert_non_null(strstr(text, "Dead by hand: B5."));
    assert_null(strstr(text, "ESTIMATE")); /* confirmed: no longer an estimate */
    char re[40];
    snprintf(re, sizeof re, "RE[%s]", f->r.count.sgf);
    assert_non_null(strstr(text, re));
    free(text);
    gs_test_keep_sgf(path, "test_count_fix-confirmed");
    score_count_options o;
    score_count_options_init(&o);
    o.input = path;
    o.dead = SCORE_COUNT_DEAD_MARKS;
    score_count_result *back = calloc(1, sizeof *back);
    assert_non_null(back);
    assert_int_equal(score_count_run(&o, back, &e), GS_OK);
    assert_string_equal(back->count.sgf, f->r.count.sgf);
    unlink(path);
    free(back);
    free(f);
    free(r);
}

/* The pixel of img at (x, y): is it near colour (b, g, r)? */
static bool pixel_is(const gs_image *img, int x, int y, int b, int g, int r)
{
    const uint8_t *p = img->buf + (size_t)y * (size_t)img->stride + (size_t)x * (size_t)img->channels;
    return abs(p[0] - b) < 40 && abs(p[1] - g) < 40 && abs(p[2] - r) < 40;
}

/* A grid's overlay is a diagram of the board: a dead stone keeps its
 * colour under its cross, the point the Score line names is ringed. */
static void test_diagram(void **state)
{
    (void)state;
    char png[128];
    snprintf(png, sizeof png, "/tmp/gs-count-fix-%d.png", (int)getpid());
    score_count_result *r = count_grid(SPLIT, png);
    gs_error e = {0};
    gs_image *img = cvshim_image_load(png, &e);
    assert_non_null(img);
    /* the diagram's geometry (count_draw.c): 56 px a cell, 89 px margin */
    int hx = 89 + 7 * 56, hy = 89 + 4 * 56; /* H5: a dead black stone */
    assert_true(r->dead[at("H5", 9)]);
    assert_true(pixel_is(img, hx + 15, hy, 20, 20, 20));
    gs_image_destroy(img);
    free(r);
    r = count_grid(". . . . B W . . .\n. . . . B W . . .\n. . . . B W . . .\n. . . . B W . . .\n. . . . B W . . .\n"
                   ". . . . B W . . .\n. . . . B W . . .\n. . . . B W . . .\n. . . B .? W . . .\n", png);
    img = cvshim_image_load(png, &e);
    assert_non_null(img);
    int ex = 89 + 4 * 56, ey = 89 + 8 * 56; /* E1: named by the Score line */
    assert_true(r->range.winner[at("E1", 9)]);
    assert_true(pixel_is(img, ex + 32, ey, 0, 140, 255));
    assert_false(pixel_is(img, 89 + 32, 89, 0, 140, 255)); /* A9: not named */
    gs_image_destroy(img);
    unlink(png);
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grid_marks),
        cmocka_unit_test(test_grid_doubt_counted),
        cmocka_unit_test(test_unfinished_never_sure),
        cmocka_unit_test(test_fix_points_and_lives),
        cmocka_unit_test(test_confirmed_sgf),
        cmocka_unit_test(test_diagram),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
