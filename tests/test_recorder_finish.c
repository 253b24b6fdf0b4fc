/* tests/test_recorder_finish.c: the end of a recording, on rendered
 * settled views of a finished 9x9 game (a wall down the middle, one dead
 * invader on each side, lifted after the end): the recorder's RE is the
 * one `check` computes of its file, with and without a referee's warning,
 * and the count's words say who was warned; an unfinished game gets no
 * RE unless count_anyway; a finished file is not resumed unless reopened,
 * and reopening takes its result, marks and count away. */
#include "testutil.h"

#include "record/record.h"
#include "session/session.h"
#include "samples/render.h"
#include "sgf/sgf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NMOVES 20
#define NFRAMES (NMOVES + 5)

typedef struct game_frames {
    gs_image *img[NFRAMES];
    int n;
    vision_grid grid;
} game_frames;

/* Move i of the game: Black down column d, White down column e, then a
 * Black invader at h5 and a White one at b5. */
static gs_move game_move(int i)
{
    if (i < 18) return (gs_move){i % 2 ? GS_WHITE : GS_BLACK, {(int8_t)(i % 2 ? 4 : 3), (int8_t)(i / 2)}, false};
    return i == 18 ? (gs_move){GS_BLACK, {7, 4}, false} : (gs_move){GS_WHITE, {1, 4}, false};
}

/* The empty board, each move, the last view twice more, the invaders
 * lifted twice (or only up to `upto` frames). */
static void frames_make(game_frames *f, int upto)
{
    render_scene *sc = gs_test_still_scene(4, 9, 640, 480, &f->grid);
    render_state st;
    render_state_init(&st, 9);
    f->n = upto;
    for (int i = 0; i < upto; i++) {
        if (i >= 1 && i <= NMOVES) {
            gs_move m = game_move(i - 1);
            gs_position_set(&st.pos, m.pt.x, m.pt.y, m.color);
        }
        if (i == NMOVES + 3) {
            gs_position_set(&st.pos, 1, 4, GS_EMPTY);
            gs_position_set(&st.pos, 7, 4, GS_EMPTY);
        }
        st.t_ms = 1000.0 * i;
        st.frame = i;
        f->img[i] = gs_test_frame(sc, &st);
    }
    render_scene_destroy(sc);
}

static void frames_free(game_frames *f)
{
    for (int i = 0; i < f->n; i++) gs_image_destroy(f->img[i]);
}

/* What the loop's hooks and commands see and do. */
typedef struct table {
    int moves;
    bool say_end, ended;
    bool warn_white, warned;
    bool rec_ended, rec_finished; /* what the last `changed` hook saw */
} table;

static void on_move(void *user, const record *r, const record_event *ev)
{
    (void)r;
    (void)ev;
    ((table *)user)->moves++;
}

/* `end` once every move is in the record. */
static int poll_end(void *user, char *buf, size_t len)
{
    table *t = user;
    if (!t->say_end || t->ended || t->moves < NMOVES) return 0;
    t->ended = true;
    snprintf(buf, len, "end");
    return 1;
}

/* A warning to White after move 5, once. */
static bool poll_warning(void *user, record_ruling *out)
{
    table *t = user;
    if (!t->warn_white || t->warned || t->moves < 5) return false;
    t->warned = true;
    memset(out, 0, sizeof *out);
    out->kind = RECORD_RULING_WARN;
    out->color = GS_WHITE;
    out->warning = true;
    out->unix_ms = 1700000000000LL;
    return true;
}

/* What whoever follows the game live sees of its end. */
static void on_changed(void *user, const record *r)
{
    table *t = user;
    t->rec_ended = record_ended(r);
    t->rec_finished = record_finished(r);
}

static const session_hooks table_hooks = {NULL, on_move, NULL, on_changed, poll_warning, NULL};

static void record_game(const game_frames *f, const char *sgf, table *t, bool count_anyway, session_stats *stats)
{
    gs_error err = {0};
    capture_source *src = capture_open_list((const gs_image *const *)f->img, f->n, 1, true, &err);
    assert_non_null(src);
    session_options o;
    session_options_init(&o);
    o.tracker.have_grid = true;
    o.tracker.grid = f->grid;
    o.tracker.size_hint = 9;
    o.recorder.evidence_dir = "";
    o.recorder.sgf_path = sgf;
    o.recorder.count_anyway = count_anyway;
    o.poll = poll_end;
    o.poll_user = t;
    o.hooks = &table_hooks;
    o.hooks_user = t;
    assert_int_equal(session_run(src, &o, stats, &err), GS_OK);
    capture_close(src);
}

static char *file_text(const char *path)
{
    char *text = NULL;
    size_t len = 0;
    gs_error e;
    assert_int_equal(gs_file_read(path, 1 << 20, &text, &len, &e), GS_OK);
    return text;
}

/* The recorder's RE = check's = count's of the file = the expected one. */
static void assert_one_count(const char *sgf, const session_stats *stats, const char *want)
{
    score_check_result *chk = malloc(sizeof *chk);
    assert_non_null(chk);
    gs_error e;
    assert_int_equal(score_check_file(sgf, NULL, chk, &e), GS_OK);
    print_message("recorded %s, check %s, expected %s\n", stats->result, chk->report.count.sgf, want);
    assert_string_equal(stats->result, chk->report.count.sgf);
    assert_string_equal(chk->report.count.sgf, want);
    assert_true(chk->matches_record);
    assert_int_equal(chk->report.count.dead_black + chk->report.count.dead_white, 2);
    score_count_options co;
    score_count_options_init(&co);
    co.input = sgf;
    score_count_result *cr = calloc(1, sizeof *cr);
    assert_non_null(cr);
    assert_int_equal(score_count_run(&co, cr, &e), GS_OK);
    assert_string_equal(cr->count.sgf, want);
    free(cr);
    free(chk);
}

static void test_finished_game_without_warnings(void **state)
{
    (void)state;
    game_frames f;
    frames_make(&f, NFRAMES);
    char sgf[64];
    snprintf(sgf, sizeof sgf, "/tmp/gs_test_finish_%d.sgf", (int)getpid());
    table t = {.say_end = true};
    session_stats stats;
    record_game(&f, sgf, &t, false, &stats);
    if (stats.moves != NMOVES) {
        char *dbg = file_text(sgf);
        print_message("%s\n", dbg);
        free(dbg);
    }
    assert_int_equal(stats.moves, NMOVES);
    /* Black 36 (a-d), White 45 (e-i): 36 - 40.5 - 3.75 = -8.25 stones */
    assert_one_count(sgf, &stats, "W+16.5");
    char *txt = file_text(sgf);
    assert_non_null(strstr(txt, "C[Count (area, Chinese rules): Black 36"));
    assert_non_null(strstr(txt, "dead stones removed: 1 black, 1 white"));
    free(txt);
    gs_test_keep_sgf(sgf, "test_recorder_finish-ended");

    /* a finished game is not resumed as it is */
    record_options ro;
    record_options_init(&ro);
    ro.sgf_path = sgf;
    ro.evidence_dir = "";
    ro.resume = true;
    gs_error err = {0};
    assert_null(record_create(&ro, &err));
    assert_non_null(strstr(err.msg, "--reopen"));
    /* reopened: no result, no marks, no count words; the game goes on */
    ro.reopen = true;
    record *r = record_create(&ro, &err);
    assert_non_null(r);
    assert_int_equal(record_move_count(r), NMOVES);
    assert_int_equal(record_finish(r, 0, &err), GS_OK); /* no view: nothing to count */
    record_destroy(r);
    txt = file_text(sgf);
    assert_null(strstr(txt, "RE["));
    assert_null(strstr(txt, "TB["));
    assert_null(strstr(txt, "Count ("));
    free(txt);
    gs_test_keep_sgf(sgf, "test_recorder_finish-reopened");
    unlink(sgf);
    frames_free(&f);
}

static void test_finished_game_with_a_warning(void **state)
{
    (void)state;
    game_frames f;
    frames_make(&f, NFRAMES);
    char sgf[64];
    snprintf(sgf, sizeof sgf, "/tmp/gs_test_finish_w_%d.sgf", (int)getpid());
    table t = {.say_end = true, .warn_white = true};
    session_stats stats;
    record_game(&f, sgf, &t, false, &stats);
    assert_true(t.warned);
    /* White's warning gives Black a stone: -8.25 + 1 = -7.25 stones */
    assert_one_count(sgf, &stats, "W+14.5");
    char *txt = file_text(sgf);
    assert_non_null(strstr(txt, "warnings (one stone each, Art. 25): White at move"));
    assert_non_null(strstr(txt, "White gives 1 stone"));
    free(txt);
    gs_test_keep_sgf(sgf, "test_recorder_finish-warned");
    unlink(sgf);
    frames_free(&f);
}

static void test_unfinished_game(void **state)
{
    (void)state;
    game_frames f;
    frames_make(&f, NMOVES + 3); /* the game stops at the last move */
    char sgf[64];
    snprintf(sgf, sizeof sgf, "/tmp/gs_test_unfinished_%d.sgf", (int)getpid());
    table t = {0};
    session_stats stats;
    record_game(&f, sgf, &t, false, &stats);
    assert_int_equal(stats.moves, NMOVES);
    assert_string_equal(stats.result, "");
    /* the recording is over, the game is not: no one may read it as ended */
    assert_true(t.rec_finished);
    assert_false(t.rec_ended);
    char *txt = file_text(sgf);
    assert_null(strstr(txt, "RE["));
    assert_null(strstr(txt, "TB["));
    free(txt);
    gs_test_keep_sgf(sgf, "test_recorder_finish-unfinished");
    /* counted when asked: every stone still on the board is alive */
    memset(&t, 0, sizeof t);
    record_game(&f, sgf, &t, true, &stats);
    score_check_result *chk = malloc(sizeof *chk);
    assert_non_null(chk);
    gs_error e;
    assert_int_equal(score_check_file(sgf, NULL, chk, &e), GS_OK);
    assert_string_equal(stats.result, chk->report.count.sgf);
    assert_true(stats.result[0] != 0);
    assert_true(t.rec_finished && t.rec_ended); /* counted as the end of the game */
    free(chk);
    gs_test_keep_sgf(sgf, "test_recorder_finish-count-anyway");
    unlink(sgf);
    frames_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_finished_game_without_warnings),
        cmocka_unit_test(test_finished_game_with_a_warning),
        cmocka_unit_test(test_unfinished_game),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
