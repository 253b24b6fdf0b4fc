/* tests/test_record_correct.c: a director's corrections of a misread move
 * or of a result (MOVE and RESULT rulings, record.h): while recording
 * (record_apply_ruling, what the referee console sends) and on a record
 * closed on disk (record_correct_file, what the hall does once the
 * recorder is gone).  The SGF on disk carries each one with who made it
 * and when (C[] and GSRL). */
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

static void start(fixture *f, const char *name)
{
    snprintf(f->sgf, sizeof f->sgf, "/tmp/gs_test_correct_%s_%d.sgf", name, (int)getpid());
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
    char *buf = NULL;
    gs_error err;
    assert_int_equal(gs_file_read(path, 1 << 20, &buf, NULL, &err), GS_OK);
    return buf;
}

static int count_code(record *r, record_event_kind k, const char *code)
{
    const record_event *ev;
    size_t n = record_events(r, &ev);
    int c = 0;
    for (size_t i = 0; i < n; i++) c += ev[i].kind == k && !strcmp(ev[i].code, code);
    return c;
}

static record_ruling move_fix(int move_number, const gs_point *p, const char *words)
{
    record_ruling ru;
    memset(&ru, 0, sizeof ru);
    ru.kind = RECORD_RULING_MOVE;
    ru.move_number = move_number;
    ru.npoints = p ? 1 : 0;
    ru.points = p;
    ru.words = words;
    ru.unix_ms = 1700000000000LL;
    return ru;
}

/* Black played C6 (cd); the camera read C5 (ce) and keeps reading it so.
 * The director puts move 3 right: the record has C6, later views read C5
 * and C6 as the record says, and the game goes on. */
static void test_misread_move_corrected_live(void **state)
{
    (void)state;
    fixture f;
    start(&f, "live");
    see(&f, "B cc");
    see(&f, "W gg");
    see(&f, "B ce");
    gs_point cd = {2, 3};
    record_ruling ru = move_fix(3, &cd, "Correction by Anna (22:13:20 UTC)");
    gs_error err = {0};
    assert_int_equal(record_apply_ruling(f.r, &ru, f.t, &err), GS_OK);
    gs_position rec;
    record_position(f.r, &rec);
    assert_int_equal(gs_position_get(&rec, 2, 3), GS_BLACK);
    assert_int_equal(gs_position_get(&rec, 2, 4), GS_EMPTY);
    assert_int_equal(record_move_count(f.r), 3);
    assert_int_equal(record_to_move(f.r), GS_WHITE);
    /* the camera still sees C5, not C6: read as the record, no flag */
    see(&f, "W gc");
    assert_int_equal(record_referee_count(f.r), 0);
    assert_int_equal(record_move_count(f.r), 4);
    char *txt = file_text(f.sgf);
    assert_non_null(strstr(txt, ";B[cc]"));
    assert_non_null(strstr(txt, "B[cd]"));
    assert_null(strstr(txt, "B[ce]"));
    assert_non_null(strstr(txt, "GSRL[move:B:0:0:2023-11-14T22:13:20.000Z]"));
    assert_non_null(strstr(txt, "Correction by Anna (22:13:20 UTC): move 3 is Black C6 (the record had C5)"));
    assert_int_equal(count_code(f.r, RECORD_EV_RULING, "move"), 1);
    free(txt);
    assert_int_equal(record_finish(f.r, f.t, &err), GS_OK);
    record_destroy(f.r);
    gs_test_keep_sgf(f.sgf, "correct_live");
    unlink(f.sgf);
}

/* A correction that would make a later move illegal is refused: a note
 * says why, the record and its file stay as they were. */
static void test_impossible_correction_refused(void **state)
{
    (void)state;
    fixture f;
    start(&f, "refused");
    see(&f, "B cc");
    see(&f, "W gg");
    char *before = file_text(f.sgf);
    gs_point gg = {6, 6}; /* White's stone of move 2 stands there */
    record_ruling ru = move_fix(1, &gg, "Correction by Anna (22:13:20 UTC)");
    gs_error err = {0};
    assert_int_equal(record_apply_ruling(f.r, &ru, f.t, &err), GS_OK);
    assert_int_equal(count_code(f.r, RECORD_EV_NOTE, "ruling_refused"), 1);
    char *after = file_text(f.sgf);
    assert_string_equal(before, after);
    ru = move_fix(7, &gg, NULL); /* no such move */
    assert_int_equal(record_apply_ruling(f.r, &ru, f.t, &err), GS_OK);
    assert_int_equal(count_code(f.r, RECORD_EV_NOTE, "ruling_refused"), 2);
    free(before);
    free(after);
    record_destroy(f.r);
    unlink(f.sgf);
}

/* The players agree White won on time: RE[W+T]; the end of the recording
 * does not count the board over it. */
static void test_result_corrected_live(void **state)
{
    (void)state;
    fixture f;
    start(&f, "result");
    see(&f, "B cc");
    see(&f, "W gg");
    record_ruling ru;
    memset(&ru, 0, sizeof ru);
    ru.kind = RECORD_RULING_RESULT;
    ru.result = "W+T";
    ru.words = "Correction by Bo (22:13:20 UTC)";
    ru.unix_ms = 1700000000000LL;
    gs_error err = {0};
    assert_int_equal(record_apply_ruling(f.r, &ru, f.t, &err), GS_OK);
    assert_string_equal(record_result(f.r), "W+T");
    assert_true(record_ended(f.r));
    assert_int_equal(record_finish(f.r, f.t, &err), GS_OK);
    assert_string_equal(record_result(f.r), "W+T");
    char *txt = file_text(f.sgf);
    assert_non_null(strstr(txt, "RE[W+T]"));
    assert_null(strstr(txt, "TB["));
    assert_non_null(strstr(txt, "GSRL[result:-:0:0:2023-11-14T22:13:20.000Z]"));
    assert_non_null(strstr(txt, "Correction by Bo (22:13:20 UTC): result W+T (the record had no result)"));
    ru.result = "W+Q"; /* not an SGF result */
    assert_int_equal(record_correct_file(f.sgf, &ru, &err), GS_ERR_USAGE);
    free(txt);
    record_destroy(f.r);
    gs_test_keep_sgf(f.sgf, "correct_result");
    unlink(f.sgf);
}

/* After the recording: the hall corrects the file itself.  A move
 * correction takes the old count off (it counted another position); the
 * result is then set by hand. */
static void test_closed_record_corrected(void **state)
{
    (void)state;
    fixture f;
    start(&f, "closed");
    see(&f, "B cc");
    see(&f, "W gg");
    see(&f, "B ce");
    gs_error err = {0};
    assert_int_equal(record_pass(f.r, GS_WHITE, f.t, &err), GS_OK);
    assert_int_equal(record_pass(f.r, GS_BLACK, f.t, &err), GS_OK);
    assert_int_equal(record_finish(f.r, f.t, &err), GS_OK);
    record_destroy(f.r);
    char *txt = file_text(f.sgf);
    assert_non_null(strstr(txt, "RE["));
    assert_non_null(strstr(txt, "Count ("));
    free(txt);
    gs_point cd = {2, 3};
    record_ruling ru = move_fix(3, &cd, "Correction by Anna (22:13:20 UTC)");
    assert_int_equal(record_correct_file(f.sgf, &ru, &err), GS_OK);
    txt = file_text(f.sgf);
    assert_non_null(strstr(txt, "B[cd]"));
    assert_null(strstr(txt, "RE["));
    assert_null(strstr(txt, "Count ("));
    assert_non_null(strstr(txt, "the count of the old record was removed"));
    free(txt);
    memset(&ru, 0, sizeof ru);
    ru.kind = RECORD_RULING_RESULT;
    ru.result = "B+4.5";
    ru.words = "Correction by Anna (22:15:00 UTC)";
    assert_int_equal(record_correct_file(f.sgf, &ru, &err), GS_OK);
    score_check_result *chk = malloc(sizeof *chk);
    assert_non_null(chk);
    assert_int_equal(score_check_file(f.sgf, NULL, chk, &err), GS_OK);
    assert_string_equal(chk->recorded_result, "B+4.5");
    assert_int_equal(chk->report.nillegal, 0);
    assert_int_equal((int)chk->moves, 5);
    free(chk);
    gs_test_keep_sgf(f.sgf, "correct_closed");
    unlink(f.sgf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_misread_move_corrected_live),
        cmocka_unit_test(test_impossible_correction_refused),
        cmocka_unit_test(test_result_corrected_live),
        cmocka_unit_test(test_closed_record_corrected),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
