/* tests/test_record_info.c: what the record says beside the moves: the
 * game information in the root, the time of play from the source's clock
 * (GSTM, DT), the recorder's notes kept out of the SGF, captures counted
 * over the whole game (a referee's correction restarts the rules' game),
 * every ruling written readably and resumed with its warnings and set-up
 * nodes, and the turn that puts Black's side at the bottom. */
#include "testutil.h"

#include "record/record.h"
#include "sgf/sgf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct game {
    char sgf[80];
    record *r;
    gs_position view;
    double t;
} game;

static void start(game *g, const char *tag, const record_options *extra, int64_t clock_ms)
{
    snprintf(g->sgf, sizeof g->sgf, "/tmp/gs_test_info_%s_%d.sgf", tag, (int)getpid());
    record_options o;
    if (extra) o = *extra;
    else record_options_init(&o);
    o.sgf_path = g->sgf;
    o.evidence_dir = "";
    gs_error err = {0};
    g->r = record_create(&o, &err);
    assert_non_null(g->r);
    gs_position_clear(&g->view, 9);
    g->t = 0;
    record_set_clock(g->r, clock_ms);
    assert_int_equal(record_observe(g->r, &g->view, NULL, g->t, NULL, &err), GS_OK);
}

static void see(game *g, const char *ops)
{
    gs_error err = {0};
    gs_test_edit(&g->view, ops);
    g->t += 1000;
    assert_int_equal(record_observe(g->r, &g->view, NULL, g->t, NULL, &err), GS_OK);
}

static char *file_text(const char *path)
{
    char *text = NULL;
    size_t len = 0;
    gs_error e;
    assert_int_equal(gs_file_read(path, 1 << 20, &text, &len, &e), GS_OK);
    return text;
}

static void test_game_information_and_clock(void **state)
{
    (void)state;
    record_options o;
    record_options_init(&o);
    char black[32] = "Shusaku", white[32] = "Gennan";
    o.black = black;
    o.white = white;
    o.black_rank = "4d";
    o.event = "Castle game";
    o.round = "2";
    o.place = "Edo";
    o.table = "1";
    game g;
    start(&g, "names", &o, 1699999990000LL); /* the source's clock at its first view */
    /* the caller's strings need not outlive record_create */
    memset(black, 0, sizeof black);
    memset(white, 0, sizeof white);
    record_set_clock(g.r, 1700000000000LL);
    see(&g, "B cc");
    record_set_clock(g.r, 1700000095500LL); /* 95.5 s later by the video */
    see(&g, "W gg");
    gs_error err = {0};
    assert_int_equal(record_note(g.r, "board", "board found again (37 points differed)", g.t, &err), GS_OK);
    char *txt = file_text(g.sgf);
    assert_non_null(strstr(txt, "PB[Shusaku]BR[4d]PW[Gennan]"));
    assert_non_null(strstr(txt, "DT[2023-11-1")); /* the source's date (local time) */
    assert_non_null(strstr(txt, "EV[Castle game]RO[2]"));  /* (the writer breaks long lines) */
    assert_non_null(strstr(txt, "PC[Edo]"));
    assert_non_null(strstr(txt, "GN[Table 1]"));
    assert_non_null(strstr(txt, ";B[cc]GSTM[2023-11-14T22:13:20.000Z]"));
    assert_non_null(strstr(txt, ";W[gg]GSTM[2023-11-14T22:14:55.500Z]"));
    assert_null(strstr(txt, "board found again")); /* a diagnostic: the log only */
    free(txt);
    record_destroy(g.r);
    unlink(g.sgf);
}

/* Every ruling, each readable in the file, the captures kept over the
 * set-up nodes the corrections make, and the game resumed as it was. */
static void test_every_ruling_resumed(void **state)
{
    (void)state;
    game g;
    start(&g, "rulings", NULL, -1);
    see(&g, "B ba");
    see(&g, "W aa");
    see(&g, "B ab, - aa"); /* Black captures aa */
    assert_int_equal(record_captures(g.r, GS_BLACK), 1);
    see(&g, "W ee");
    see(&g, "B ef");
    record_ruling ru;
    gs_error err = {0};
    static const record_ruling_kind kinds[] = {RECORD_RULING_ACCEPT, RECORD_RULING_WARN, RECORD_RULING_VOID,
                                               RECORD_RULING_RESTORE, RECORD_RULING_REMOVE_DEAD, RECORD_RULING_PASS};
    gs_point ef = {4, 5};
    gs_position before;
    record_position(g.r, &before);
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        memset(&ru, 0, sizeof ru);
        ru.kind = kinds[k];
        ru.color = kinds[k] == RECORD_RULING_WARN ? GS_WHITE : GS_BLACK;
        ru.warning = kinds[k] == RECORD_RULING_WARN;
        ru.npoints = kinds[k] == RECORD_RULING_VOID || kinds[k] == RECORD_RULING_RESTORE ? 1 : 0;
        ru.points = &ef;
        ru.before = &before;
        ru.unix_ms = 1700000000000LL + (int64_t)k * 1000;
        assert_int_equal(record_apply_ruling(g.r, &ru, g.t, &err), GS_OK);
    }
    /* the void and the restore made set-up nodes: the capture stays counted */
    assert_int_equal(record_captures(g.r, GS_BLACK), 1);
    assert_int_equal(record_warnings(g.r, GS_WHITE), 1);
    gs_position rec;
    record_position(g.r, &rec);
    int moves = record_move_count(g.r);
    gs_color tm = record_to_move(g.r);
    record_destroy(g.r);
    char *txt = file_text(g.sgf);
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        char want[32];
        snprintf(want, sizeof want, "[%s:%s:", record_ruling_name(kinds[k]), kinds[k] == RECORD_RULING_WARN ? "W" : "B");
        if (!strstr(txt, want)) print_message("%s not in\n%s\n", want, txt);
        assert_non_null(strstr(txt, want));
    }
    assert_non_null(strstr(txt, "AE[ef]")); /* the void: a set-up node */
    free(txt);

    /* resumed: the same position, side to move, warnings */
    record_options o;
    record_options_init(&o);
    o.sgf_path = g.sgf;
    o.evidence_dir = "";
    o.resume = true;
    record *r = record_create(&o, &err);
    assert_non_null(r);
    gs_position back;
    record_position(r, &back);
    assert_memory_equal(back.cell, rec.cell, 81);
    assert_int_equal(record_move_count(r), moves);
    assert_int_equal(record_to_move(r), tm);
    assert_int_equal(record_warnings(r, GS_WHITE), 1);
    /* and the rest of the game: the end ruling, a resignation after it */
    memset(&ru, 0, sizeof ru);
    ru.kind = RECORD_RULING_RESIGN;
    ru.color = GS_WHITE;
    gs_position v = back;
    assert_int_equal(record_observe(r, &v, NULL, 100000, NULL, &err), GS_OK);
    memset(&ru, 0, sizeof ru);
    ru.kind = RECORD_RULING_END;
    assert_int_equal(record_apply_ruling(r, &ru, 100000, &err), GS_OK);
    assert_true(record_ended(r));
    memset(&ru, 0, sizeof ru);
    ru.kind = RECORD_RULING_RESIGN;
    ru.color = GS_WHITE;
    assert_int_equal(record_apply_ruling(r, &ru, 101000, &err), GS_OK);
    assert_int_equal(record_finish(r, 102000, &err), GS_OK);
    assert_string_equal(record_result(r), "B+R");
    record_destroy(r);
    /* check of the file: the set-up nodes replayed, the warning counted */
    score_check_result *chk = malloc(sizeof *chk);
    assert_non_null(chk);
    assert_int_equal(score_check_file(g.sgf, NULL, chk, &err), GS_OK);
    assert_int_equal(chk->report.nillegal, 0);
    assert_true(chk->setup_steps >= 2);
    assert_int_equal(chk->warnings_white, 1);
    assert_memory_equal(chk->report.final_position.cell, rec.cell, 81);
    free(chk);
    gs_test_keep_sgf(g.sgf, "test_record_info-every-ruling-resumed");
    unlink(g.sgf);
}

/* Black at the picture's left: the picture's top-left is Black's near-left
 * corner, the record's bottom-left; each turn and its way back. */
static void test_orientation(void **state)
{
    (void)state;
    const gs_point tl = {0, 0};
    gs_point q = record_orient_point(RECORD_BLACK_LEFT, 19, tl);
    assert_true(q.x == 0 && q.y == 18);
    q = record_orient_point(RECORD_BLACK_RIGHT, 19, tl);
    assert_true(q.x == 18 && q.y == 0);
    q = record_orient_point(RECORD_BLACK_FAR, 19, tl);
    assert_true(q.x == 18 && q.y == 18);
    q = record_orient_point(RECORD_BLACK_NEAR, 19, tl);
    assert_true(q.x == 0 && q.y == 0);
    for (int s = RECORD_BLACK_NEAR; s <= RECORD_BLACK_RIGHT; s++)
        for (int y = 0; y < 9; y++)
            for (int x = 0; x < 9; x++) {
                gs_point p = {(int8_t)x, (int8_t)y};
                gs_point b = record_orient_point_back((record_black_side)s, 9,
                                                      record_orient_point((record_black_side)s, 9, p));
                assert_true(b.x == x && b.y == y);
            }
    record_black_side side;
    assert_true(record_black_side_parse("left", &side) && side == RECORD_BLACK_LEFT);
    assert_false(record_black_side_parse("west", &side));
    assert_string_equal(record_black_side_name(RECORD_BLACK_FAR), "far");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_game_information_and_clock),
        cmocka_unit_test(test_every_ruling_resumed),
        cmocka_unit_test(test_orientation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
