/* tests/test_recorder_run.c: the recording loop (session_run) on rendered
 * settled views: its hooks see every frame, each move in order and each
 * change, a ruling handed in through them lands in the SGF, and a save that
 * fails after an operator command stops the loop as for a view. */
#include "testutil.h"

#include "record/record.h"
#include "session/session.h"
#include "samples/render.h"
#include "sgf/sgf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NFRAMES 4

typedef struct frames_fix {
    gs_image *img[NFRAMES];
    vision_grid grid;
} frames_fix;

/* An empty 9x9 board, then Black E5, White C7, Black G3: one settled view
 * each. */
static void frames_make(frames_fix *f)
{
    render_scene *sc = gs_test_still_scene(11, 9, 640, 480, &f->grid);
    render_state st;
    render_state_init(&st, 9);
    static const int mv[NFRAMES - 1][3] = {{4, 4, GS_BLACK}, {2, 2, GS_WHITE}, {6, 6, GS_BLACK}};
    for (int i = 0; i < NFRAMES; i++) {
        if (i > 0) gs_position_set(&st.pos, mv[i - 1][0], mv[i - 1][1], (gs_color)mv[i - 1][2]);
        st.t_ms = 1000.0 * i;
        st.frame = i;
        f->img[i] = gs_test_frame(sc, &st);
    }
    render_scene_destroy(sc);
}

static void frames_free(frames_fix *f)
{
    for (int i = 0; i < NFRAMES; i++) gs_image_destroy(f->img[i]);
}

static void run_options(session_options *o, const frames_fix *f)
{
    session_options_init(o);
    o->tracker.have_grid = true;
    o->tracker.grid = f->grid;
    o->tracker.size_hint = 9;
    o->recorder.evidence_dir = "";
}

/* ------------------------------------------------------------ the hooks */

typedef struct watcher {
    int frames, changed, events;
    int moves[8], nmoves;
    bool ruled;
    gs_point ruling_point;
} watcher;

static void on_frame(void *user, const gs_image *frame, const vision_grid *grid)
{
    watcher *w = user;
    assert_non_null(frame);
    (void)grid;
    w->frames++;
}

static void on_move(void *user, const record *r, const record_event *ev)
{
    watcher *w = user;
    assert_non_null(r);
    assert_true(ev->kind == RECORD_EV_MOVE || ev->kind == RECORD_EV_PASS);
    if (w->nmoves < 8) w->moves[w->nmoves++] = ev->move_number;
}

static void on_event(void *user, const record *r, const record_event *ev, const gs_position *before,
                     const gs_position *seen)
{
    watcher *w = user;
    (void)r;
    (void)ev;
    (void)seen;
    assert_non_null(before);
    w->events++;
}

static void on_changed(void *user, const record *r)
{
    watcher *w = user;
    assert_non_null(r);
    w->changed++;
}

/* After the first move: a warning to Black, once. */
static bool on_poll_ruling(void *user, record_ruling *out)
{
    watcher *w = user;
    if (w->ruled || w->nmoves < 1) return false;
    w->ruled = true;
    memset(out, 0, sizeof *out);
    out->kind = RECORD_RULING_WARN;
    out->color = GS_BLACK;
    out->warning = true;
    out->words = "Referee: a warning (hook test)";
    return true;
}

static const session_hooks watcher_hooks = {on_frame, on_move, on_event, on_changed, on_poll_ruling, NULL};

static void test_hooks_follow_the_game(void **state)
{
    (void)state;
    frames_fix f;
    frames_make(&f);
    gs_error err = {0};
    capture_source *src = capture_open_list((const gs_image *const *)f.img, NFRAMES, 1, true, &err);
    assert_non_null(src);
    session_options o;
    run_options(&o, &f);
    watcher w;
    memset(&w, 0, sizeof w);
    o.hooks = &watcher_hooks;
    o.hooks_user = &w;
    session_stats stats;
    assert_int_equal(session_run(src, &o, &stats, &err), GS_OK);
    capture_close(src);
    assert_int_equal(stats.moves, 3);
    assert_int_equal(w.frames, NFRAMES);
    assert_int_equal(w.nmoves, 3);
    for (int i = 0; i < 3; i++) assert_int_equal(w.moves[i], i + 1);
    assert_true(w.ruled);
    assert_int_equal(w.events, 0);
    assert_true(w.changed >= 3); /* after the start, the moves, the ruling, the end */
    assert_string_equal(stats.result, ""); /* the game did not end: no result */
    frames_free(&f);
}

/* The same game into a file, the hooks' ruling in it. */
static void test_hook_ruling_in_the_sgf(void **state)
{
    (void)state;
    frames_fix f;
    frames_make(&f);
    char dir[] = "/tmp/gs-test-run-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/game.sgf", dir);
    gs_error err = {0};
    capture_source *src = capture_open_list((const gs_image *const *)f.img, NFRAMES, 1, true, &err);
    assert_non_null(src);
    session_options o;
    run_options(&o, &f);
    o.recorder.sgf_path = path;
    watcher w;
    memset(&w, 0, sizeof w);
    o.hooks = &watcher_hooks;
    o.hooks_user = &w;
    assert_int_equal(session_run(src, &o, NULL, &err), GS_OK);
    capture_close(src);
    char *text = NULL;
    size_t len = 0;
    assert_int_equal(gs_file_read(path, 1 << 20, &text, &len, &err), GS_OK);
    assert_non_null(strstr(text, "GSRL[warn:B:1:0:"));
    assert_non_null(strstr(text, "a warning (hook test)"));
    free(text);
    gs_test_keep_sgf(path, "test_recorder_run-ruling");
    unlink(path);
    rmdir(dir);
    frames_free(&f);
}

/* ---------------------------------------------- a failed command save */

typedef struct doomed {
    const char *path, *dir;
    int calls;
} doomed;

/* The first command, `end`, comes after the SGF's folder is gone. */
static int poll_end_after_removing(void *user, char *buf, size_t len)
{
    doomed *d = user;
    if (d->calls++) return 0;
    unlink(d->path);
    rmdir(d->dir);
    snprintf(buf, len, "end");
    return 1;
}

/* A save that fails (the folder gone) does not stop the loop: every
 * frame is read, the game goes to the fallback copy, and the run fails at
 * its end naming that copy. */
static void test_failed_command_save_goes_on(void **state)
{
    (void)state;
    frames_fix f;
    frames_make(&f);
    char dir[] = "/tmp/gs-test-run-XXXXXX", fb[] = "/tmp/gs-test-run-fb-XXXXXX";
    assert_non_null(mkdtemp(dir));
    assert_non_null(mkdtemp(fb));
    char path[64], copy[96];
    snprintf(path, sizeof path, "%s/game.sgf", dir);
    snprintf(copy, sizeof copy, "%s/game.fallback.sgf", fb);
    gs_error err = {0};
    capture_source *src = capture_open_list((const gs_image *const *)f.img, NFRAMES, 1, true, &err);
    assert_non_null(src);
    session_options o;
    run_options(&o, &f);
    o.recorder.sgf_path = path;
    o.recorder.fallback_dir = fb;
    doomed d = {path, dir, 0};
    o.poll = poll_end_after_removing;
    o.poll_user = &d;
    session_stats stats;
    assert_int_equal(session_run(src, &o, &stats, &err), GS_ERR_IO);
    capture_close(src);
    assert_non_null(strstr(err.msg, "game.sgf: not saved: folder missing"));
    assert_non_null(strstr(err.msg, copy));
    assert_int_equal(stats.frames, NFRAMES);
    sgf_tree *t = NULL;
    assert_int_equal(sgf_load(copy, &t, &err), GS_OK);
    sgf_tree_destroy(t);
    gs_test_keep_sgf(copy, "test_recorder_run-fallback");
    unlink(copy);
    rmdir(fb);
    rmdir(dir);
    frames_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hooks_follow_the_game),
        cmocka_unit_test(test_hook_ruling_in_the_sgf),
        cmocka_unit_test(test_failed_command_save_goes_on),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
