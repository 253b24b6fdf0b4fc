/* tests/test_sgf_crash.c: a recording killed at any moment keeps every
 * committed move.
 *
 * A child process resumes the game file (sgf_load), appends moves one by
 * one, rewrites the file after each with sgf_save (temp file + fsync +
 * rename) and only then reports the move count through a pipe.  The parent
 * SIGKILLs it after a random delay, many times; after every kill the file
 * must parse and hold at least the last reported count, and its moves must
 * be exactly the sequence the children generate. */
#define _GNU_SOURCE
#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sgf/sgf.h"

/* Move i of the test game: a deterministic walk over a 19x19 board. */
static gs_point move_point(size_t i)
{
    gs_point p = {(int8_t)((i * 7) % 19), (int8_t)((i * 11 + i / 19) % 19)};
    return p;
}

/* Child: resume path, append moves forever, report each commit. */
static void child_run(const char *path, int wfd)
{
    gs_error e;
    sgf_tree *t = NULL;
    if (sgf_load(path, &t, &e) != GS_OK) _exit(3);
    sgf_node *last = sgf_node_main_line_last(sgf_tree_root(t, 0));
    sgf_game g;
    if (sgf_game_from_tree(t, &g, &e) != GS_OK) _exit(4);
    size_t n = g.move_count;
    sgf_game_free(&g);
    for (;;) {
        gs_color c = n % 2 ? GS_WHITE : GS_BLACK;
        last = sgf_add_move(last, c, move_point(n), false, 1700000000000 + (int64_t)n * 1000, &e);
        if (!last) _exit(5);
        if (n % 10 == 3 && sgf_add_event(last, "note", "test", "A long comment ] with \\ escapes.", &e) != GS_OK) _exit(6);
        n++;
        if (sgf_save(t, path, &e) != GS_OK) _exit(7);
        uint32_t v = (uint32_t)n;
        if (write(wfd, &v, sizeof v) != (ssize_t)sizeof v) _exit(8);
    }
}

static void test_kill_while_recording(void **state)
{
    (void)state;
    char dir[] = "/tmp/gs_sgf_crashXXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/game.sgf", dir);

    sgf_game_info info;
    sgf_game_info_init(&info);
    info.komi = 7.5;
    info.has_komi = true;
    gs_error e;
    sgf_tree *t = sgf_new_game(&info, NULL, NULL, &e);
    assert_non_null(t);
    assert_int_equal(sgf_save(t, path, &e), GS_OK);
    sgf_tree_destroy(t);

    const int rounds = gs_test_sanitized() ? 25 : 40;
    unsigned seed = (unsigned)time(NULL);
    print_message("seed %u\n", seed);
    srand(seed);
    uint32_t committed = 0;
    int killed_mid_write = 0;
    for (int r = 0; r < rounds; r++) {
        int fds[2];
        assert_int_equal(pipe(fds), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            close(fds[0]);
            child_run(path, fds[1]);
            _exit(0);
        }
        close(fds[1]);
        /* 1..150 ms (a save takes ~20 ms with fsync): sometimes before the
         * first save, often mid-write. */
        struct timespec ts = {0, (long)(1 + rand() % 150) * 1000000L};
        nanosleep(&ts, NULL);
        kill(pid, SIGKILL);
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        if (!WIFSIGNALED(status)) print_message("child exited with %d\n", WEXITSTATUS(status));
        assert_true(WIFSIGNALED(status));
        uint32_t v;
        ssize_t got;
        while ((got = read(fds[0], &v, sizeof v)) == (ssize_t)sizeof v) committed = v;
        close(fds[0]);

        sgf_game g;
        gs_status st = sgf_game_load(path, &g, &e);
        if (st != GS_OK) print_message("round %d: %s\n", r, e.msg);
        assert_int_equal(st, GS_OK);
        assert_true(g.move_count >= committed);
        for (size_t i = 0; i < g.move_count; i++) {
            gs_point p = move_point(i);
            assert_int_equal(g.moves[i].pt.x, p.x);
            assert_int_equal(g.moves[i].pt.y, p.y);
            assert_int_equal(g.moves[i].color, i % 2 ? GS_WHITE : GS_BLACK);
            assert_true(g.move_info[i].time_ms == 1700000000000 + (int64_t)i * 1000);
        }
        /* The file may hold one move more than reported (killed between
         * rename and report), never fewer. */
        assert_true(g.move_count <= committed + 1);
        committed = (uint32_t)g.move_count;
        sgf_game_free(&g);

        /* Temp files of interrupted writes are cleared before resuming. */
        killed_mid_write += gs_file_remove_stale_temps(path);
        DIR *d = opendir(dir);
        struct dirent *de;
        int files = 0;
        while ((de = readdir(d)))
            if (de->d_name[0] != '.') files++;
        closedir(d);
        assert_int_equal(files, 1);
    }
    print_message("%d kills, %u moves committed at the end, %d kills left a temp file\n", rounds, committed, killed_mid_write);
    assert_true(committed > 0);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kill_while_recording),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
