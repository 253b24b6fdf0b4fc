/* tests/test_recorder_ruling.c: referee rulings applied to a recording
 * (recorder_apply_ruling, the path `goscribe record --serve` takes for the
 * referee console): the record corrected, the board then expected to
 * follow, warnings counted, a second warning losing the game, and every
 * ruling written into the SGF on disk (comment + GSRL). */
#include "testutil.h"

#include "record/record.h"
#include "sgf/sgf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct fixture {
    char sgf[64];
    record *r;
    gs_position view;
    double t;
} fixture;

static void start(fixture *f)
{
    snprintf(f->sgf, sizeof f->sgf, "/tmp/gs_test_ruling_%d.sgf", (int)getpid());
    record_options o;
    record_options_init(&o);
    o.sgf_path = f->sgf;
    o.evidence_dir = "";
    gs_error err = {0};
    f->r = record_create(&o, &err);
    assert_non_null(f->r);
    gs_position_clear(&f->view, 9);
    f->t = 0;
    assert_int_equal(record_observe(f->r, &f->view, NULL, f->t, NULL, &err), GS_OK);
}

static void see(fixture *f, const char *ops)
{
    gs_error err = {0};
    gs_test_edit(&f->view, ops);
    f->t += 1000;
    assert_int_equal(record_observe(f->r, &f->view, NULL, f->t, NULL, &err), GS_OK);
}

static char *file_text(const char *path)
{
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    char *buf = calloc(1, 1 << 16);
    assert_non_null(buf);
    size_t n = fread(buf, 1, (1 << 16) - 1, fp);
    buf[n] = 0;
    fclose(fp);
    return buf;
}

static void finish(fixture *f, const char *label)
{
    record_destroy(f->r);
    gs_test_keep_sgf(f->sgf, label);
    unlink(f->sgf);
}

static int count_kind(record *r, record_event_kind k, const char *code)
{
    const record_event *ev;
    size_t n = record_events(r, &ev);
    int c = 0;
    for (size_t i = 0; i < n; i++) c += ev[i].kind == k && (!code || !strcmp(ev[i].code, code));
    return c;
}

/* The point of the last double_move flag (what the console sends). */
static gs_point double_move_point(record *r)
{
    const record_event *ev;
    size_t n = record_events(r, &ev);
    for (size_t i = n; i-- > 0;)
        if (ev[i].kind == RECORD_EV_REFEREE && !strcmp(ev[i].code, "double_move")) return ev[i].point;
    return (gs_point){-1, -1};
}

static void test_void_double_move(void **state)
{
    (void)state;
    fixture f;
    start(&f);
    see(&f, "B cc");
    see(&f, "W gg");
    see(&f, "B ce, B ee"); /* Black twice at once: held until the next view confirms it */
    see(&f, "W gc");
    assert_int_equal(record_referee_count(f.r), 1);
    gs_point p = double_move_point(f.r);
    assert_int_equal(p.x, 4); /* the second stone in a row: ee */
    assert_int_equal(p.y, 4);

    record_ruling ru;
    memset(&ru, 0, sizeof ru);
    ru.kind = RECORD_RULING_VOID;
    ru.color = GS_BLACK;
    ru.warning = true;
    ru.npoints = 1;
    ru.points = &p;
    ru.words = "Referee (12:00:00 UTC): move void, warning to Black (warning 1). stone off";
    ru.unix_ms = 1700000000000LL;
    gs_error err = {0};
    int moves = record_move_count(f.r);
    assert_int_equal(record_apply_ruling(f.r, &ru, f.t, &err), GS_OK);
    gs_position rec;
    record_position(f.r, &rec);
    assert_int_equal(gs_position_get(&rec, 4, 4), GS_EMPTY);      /* off the record */
    assert_int_equal(gs_position_get(&rec, 6, 2), GS_WHITE);      /* the rest stays */
    assert_int_equal(record_warnings(f.r, GS_BLACK), 1);
    assert_int_equal(record_move_count(f.r), moves);
    assert_int_equal(count_kind(f.r, RECORD_EV_RULING, "void"), 1);
    char *txt = file_text(f.sgf);
    assert_non_null(strstr(txt, "GSRL[void:B:1:0:2023-11-14T22:13:20.000Z]"));
    assert_non_null(strstr(txt, "move void, warning to Black (warning 1). stone off"));
    assert_non_null(strstr(txt, "AE[ee]"));
    free(txt);

    /* the stone is still on the board for a while: no new flag */
    see(&f, "");
    assert_int_equal(record_referee_count(f.r), 1);
    /* it is lifted, then play goes on normally */
    see(&f, "- ee");
    see(&f, "B ef");
    assert_int_equal(record_referee_count(f.r), 1);
    assert_int_equal(record_move_count(f.r), moves + 1);
    assert_int_equal(record_finish(f.r, f.t + 1000, &err), GS_OK);
    assert_string_equal(record_result(f.r), ""); /* the game did not end: no result */
    /* the file reads back as a game */
    sgf_game g;
    memset(&g, 0, sizeof g);
    assert_int_equal(sgf_game_load(f.sgf, &g, &err), GS_OK);
    sgf_game_free(&g);
    finish(&f, "test_recorder_ruling-void");
}

static void test_two_warnings_lose(void **state)
{
    (void)state;
    fixture f;
    start(&f);
    see(&f, "B cc");
    see(&f, "W gg");
    record_ruling ru;
    memset(&ru, 0, sizeof ru);
    ru.kind = RECORD_RULING_WARN;
    ru.color = GS_WHITE;
    ru.warning = true;
    gs_error err = {0};
    assert_int_equal(record_apply_ruling(f.r, &ru, f.t, &err), GS_OK);
    assert_false(record_ended(f.r));
    assert_string_equal(record_result(f.r), "");
    see(&f, "B ee");
    assert_int_equal(record_apply_ruling(f.r, &ru, f.t, &err), GS_OK);
    assert_true(record_ended(f.r));
    assert_string_equal(record_result(f.r), "B+F");
    assert_int_equal(count_kind(f.r, RECORD_EV_END, "forfeit"), 1);
    /* later moves are not recorded, the count does not replace the result */
    see(&f, "W gc");
    assert_int_equal(record_move_count(f.r), 3);
    assert_int_equal(record_finish(f.r, f.t + 1000, &err), GS_OK);
    assert_string_equal(record_result(f.r), "B+F");
    char *txt = file_text(f.sgf);
    assert_non_null(strstr(txt, "RE[B+F]"));
    assert_non_null(strstr(txt, "GSRL[warn:W:0:1:"));
    assert_non_null(strstr(txt, "GSRL[warn:W:0:2:"));
    assert_non_null(strstr(txt, "loses the game"));
    free(txt);
    finish(&f, "test_recorder_ruling-forfeit");
}

static void test_restore_pass_resign(void **state)
{
    (void)state;
    fixture f;
    start(&f);
    see(&f, "B cc");
    see(&f, "W gg");
    gs_position before;
    record_position(f.r, &before);
    gs_error err = {0};
    /* put back: White's stone, known from the position before the event */
    gs_point gg = {6, 6};
    see(&f, "- gg");
    see(&f, "B ee"); /* missing a few views only: a misread so far */
    see(&f, "W ef");
    see(&f, "B eg");
    see(&f, "W fg"); /* confirmed: the record followed the board (flagged) */
    gs_position rec;
    record_position(f.r, &rec);
    assert_int_equal(gs_position_get(&rec, 6, 6), GS_EMPTY);
    int flags = record_referee_count(f.r);
    assert_true(flags >= 1);
    record_ruling ru;
    memset(&ru, 0, sizeof ru);
    ru.kind = RECORD_RULING_RESTORE;
    ru.npoints = 1;
    ru.points = &gg;
    ru.before = &before;
    assert_int_equal(record_apply_ruling(f.r, &ru, f.t, &err), GS_OK);
    record_position(f.r, &rec);
    assert_int_equal(gs_position_get(&rec, 6, 6), GS_WHITE);
    see(&f, "W gg"); /* put back on the board: nothing new */
    assert_int_equal(record_referee_count(f.r), flags);

    /* a pass ruling records a pass by the side named */
    int moves = record_move_count(f.r);
    gs_color tm = record_to_move(f.r);
    memset(&ru, 0, sizeof ru);
    ru.kind = RECORD_RULING_PASS;
    ru.color = tm;
    assert_int_equal(record_apply_ruling(f.r, &ru, f.t, &err), GS_OK);
    assert_int_equal(record_move_count(f.r), moves + 1);
    assert_int_equal(record_to_move(f.r), gs_color_other(tm));

    memset(&ru, 0, sizeof ru);
    ru.kind = RECORD_RULING_RESIGN;
    ru.color = GS_BLACK;
    assert_int_equal(record_apply_ruling(f.r, &ru, f.t, &err), GS_OK);
    assert_string_equal(record_result(f.r), "W+R");
    assert_int_equal(record_finish(f.r, f.t + 1000, &err), GS_OK);
    assert_string_equal(record_result(f.r), "W+R");
    finish(&f, "test_recorder_ruling-restore-pass-resign");
}

static void test_ruling_before_the_game(void **state)
{
    (void)state;
    record_options o;
    record_options_init(&o);
    gs_error err = {0};
    record *r = record_create(&o, &err);
    assert_non_null(r);
    record_ruling ru;
    memset(&ru, 0, sizeof ru);
    ru.kind = RECORD_RULING_WARN;
    ru.color = GS_BLACK;
    ru.warning = true;
    assert_int_equal(record_apply_ruling(r, &ru, 0, &err), GS_OK);
    assert_int_equal(count_kind(r, RECORD_EV_NOTE, "ruling_ignored"), 1);
    ru.kind = (record_ruling_kind)99;
    assert_int_not_equal(record_apply_ruling(r, &ru, 0, &err), GS_OK);
    char *text = NULL;
    size_t len = 0;
    assert_int_not_equal(record_sgf_text(r, &text, &len, &err), GS_OK);
    record_destroy(r);
}

/* One table of names, read both ways (the referee console's JSON uses them). */
static void test_ruling_names(void **state)
{
    (void)state;
    static const char *const names[] = {"void",  "restore", "remove_dead", "warn", "accept",
                                        "pass",  "end",     "resign",      "move", "result"};
    assert_int_equal(RECORD_RULING_COUNT_, 10);
    for (int k = 0; k < RECORD_RULING_COUNT_; k++) {
        assert_string_equal(record_ruling_name((record_ruling_kind)k), names[k]);
        record_ruling_kind back = RECORD_RULING_COUNT_;
        assert_true(record_ruling_parse_kind(names[k], &back));
        assert_int_equal(back, k);
    }
    assert_null(record_ruling_name(RECORD_RULING_COUNT_));
    record_ruling_kind k;
    assert_false(record_ruling_parse_kind("forfeit", &k));
    assert_false(record_ruling_parse_kind(NULL, &k));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ruling_names),
        cmocka_unit_test(test_void_double_move),
        cmocka_unit_test(test_two_warnings_lose),
        cmocka_unit_test(test_restore_pass_resign),
        cmocka_unit_test(test_ruling_before_the_game),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
