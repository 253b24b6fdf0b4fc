/* tests/test_recorder_storage.c: the recorder on a disk that fills up (a
 * write that fails with ENOSPC, injected through record_options.write_file,
 * or the SGF's folder removed): no committed move is lost, the fallback
 * copy holds the whole game, the SGF on disk is valid after every save,
 * evidence gives way and is never left half-written. */
#include "testutil.h"

#include "record/record.h"
#include "sgf/sgf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------ the fake disk */

/* Writes under `full` fail with ENOSPC while it is set; a write whose
 * path ends with fail_suffix fails too.  Every SGF written is read back:
 * it must be a valid record at every moment. */
typedef struct fake_disk {
    const char *full[2];       /* folders that are full (NULL = none) */
    const char *fail_suffix;
    int written, refused, sgf_invalid;
} fake_disk;

static bool under(const char *path, const char *dir)
{
    size_t n = dir ? strlen(dir) : 0;
    return n && !strncmp(path, dir, n) && path[n] == '/';
}

static int moves_in(const char *path)
{
    sgf_tree *t = NULL;
    sgf_game g;
    gs_error e;
    memset(&g, 0, sizeof g);
    if (sgf_load(path, &t, &e) != GS_OK) return -1;
    int n = sgf_game_from_tree(t, &g, &e) == GS_OK ? (int)g.move_count : -1;
    sgf_game_free(&g);
    sgf_tree_destroy(t);
    return n;
}

static gs_status fake_write(void *user, const char *path, const void *data, size_t len, gs_error *err)
{
    fake_disk *d = user;
    size_t pl = strlen(path), sl = d->fail_suffix ? strlen(d->fail_suffix) : 0;
    if (under(path, d->full[0]) || under(path, d->full[1]) ||
        (sl && pl > sl && !strcmp(path + pl - sl, d->fail_suffix))) {
        d->refused++;
        errno = ENOSPC;
        return gs_error_set(err, GS_ERR_IO, "cannot write: %s", strerror(ENOSPC));
    }
    gs_status st = gs_file_write_atomic(path, data, len, err);
    if (st != GS_OK) return st;
    d->written++;
    if (pl > 4 && !strcmp(path + pl - 4, ".sgf") && moves_in(path) < 0) d->sgf_invalid++;
    return GS_OK;
}

/* --------------------------------------------------------- the game */

typedef struct fixture {
    char root[64], disk[80], fb[80], sgf[112], copy[128], log[96];
    fake_disk d;
    FILE *out;
    record *r;
    gs_position view;
    double t;
} fixture;

static void fixture_open(fixture *f, bool evidence)
{
    memset(f, 0, sizeof *f);
    snprintf(f->root, sizeof f->root, "/tmp/gs-test-storage-XXXXXX");
    assert_non_null(mkdtemp(f->root));
    snprintf(f->disk, sizeof f->disk, "%s/disk", f->root);
    snprintf(f->fb, sizeof f->fb, "%s/fallback", f->root);
    snprintf(f->sgf, sizeof f->sgf, "%s/game.sgf", f->disk);
    snprintf(f->copy, sizeof f->copy, "%s/game.fallback.sgf", f->fb);
    snprintf(f->log, sizeof f->log, "%s/log.txt", f->root);
    assert_int_equal(mkdir(f->disk, 0755), 0);
    f->out = fopen(f->log, "w+");
    assert_non_null(f->out);
    record_options o;
    record_options_init(&o);
    o.sgf_path = f->sgf;
    o.fallback_dir = f->fb;
    o.evidence_dir = evidence ? NULL : "";
    o.out = f->out;
    o.write_file = fake_write;
    o.write_file_user = &f->d;
    gs_error err = {0};
    f->r = record_create(&o, &err);
    assert_non_null(f->r);
    gs_position_clear(&f->view, 9);
}

/* One settled view: the edits applied, then observed (with a frame, for
 * evidence); the recorder must go on whatever the disk does. */
static void fixture_view(fixture *f, const char *edits, const gs_image *frame)
{
    gs_error err = {0};
    gs_test_edit(&f->view, edits);
    f->t += 1000;
    assert_int_equal(record_observe(f->r, &f->view, NULL, f->t, frame, &err), GS_OK);
}

/* How many lines of the log hold word. */
static int log_count(fixture *f, const char *word)
{
    fflush(f->out);
    rewind(f->out);
    char line[1024];
    int n = 0;
    while (fgets(line, sizeof line, f->out))
        if (strstr(line, word)) n++;
    fseek(f->out, 0, SEEK_END);
    return n;
}

static void remove_tree(const char *dir)
{
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void fixture_close(fixture *f)
{
    record_destroy(f->r);
    fclose(f->out);
    remove_tree(f->root);
}

static const char *const moves[] = {"B cc", "W gg", "B ce", "W ge", "B ec", "W eg", "B dd", "W ff", "B cg", "W gc"};
#define NMOVES 10

/* ------------------------------------------------------------ tests */

/* Full after move 3: every later move is kept, said "not saved" each
 * time, and in the fallback copy; the file keeps its 3 moves, valid; the
 * end of the recording fails naming the copy, which holds all 10. */
static void test_full_disk_loses_no_move(void **state)
{
    (void)state;
    fixture f;
    fixture_open(&f, false);
    fixture_view(&f, "", NULL);
    for (int i = 0; i < NMOVES; i++) {
        if (i == 3) f.d.full[0] = f.disk;
        fixture_view(&f, moves[i], NULL);
        assert_int_equal(record_move_count(f.r), i + 1);
        if (i >= 3) assert_int_equal(moves_in(f.copy), i + 1); /* the copy is never behind */
    }
    assert_int_equal(moves_in(f.sgf), 3);
    assert_int_equal(log_count(&f, "not saved: disk full"), NMOVES - 3);
    assert_int_equal(log_count(&f, f.copy), NMOVES - 3);
    gs_error err = {0};
    assert_int_equal(record_stop(f.r, f.t, &err), GS_ERR_IO);
    assert_non_null(strstr(err.msg, "game.sgf: not saved: disk full"));
    assert_non_null(strstr(err.msg, "No space left on device"));
    assert_non_null(strstr(err.msg, f.copy));
    assert_int_equal(moves_in(f.copy), NMOVES);
    assert_int_equal(f.d.sgf_invalid, 0);
    gs_test_keep_sgf(f.copy, "test_recorder_storage-fallback");
    /* a resume of the file says the copy is ahead of it */
    record_options o;
    record_options_init(&o);
    o.sgf_path = f.sgf;
    o.fallback_dir = f.fb;
    o.resume = true;
    o.evidence_dir = "";
    o.out = f.out;
    record *r2 = record_create(&o, &err);
    assert_non_null(r2);
    assert_int_equal(record_move_count(r2), 3);
    assert_int_equal(log_count(&f, "holds 10 moves, "), 1);
    record_destroy(r2);
    fixture_close(&f);
}

/* Space comes back at move 6: the file is saved again with every move,
 * said so, and the recording ends well. */
static void test_space_back_saves_again(void **state)
{
    (void)state;
    fixture f;
    fixture_open(&f, false);
    fixture_view(&f, "", NULL);
    for (int i = 0; i < NMOVES; i++) {
        if (i == 2) f.d.full[0] = f.disk;
        if (i == 5) f.d.full[0] = NULL;
        fixture_view(&f, moves[i], NULL);
        if (i >= 5) assert_int_equal(moves_in(f.sgf), i + 1);
        /* what the live pages show: why, and where the game is */
        char why[200];
        record_not_saved(f.r, why, sizeof why);
        if (i >= 2 && i < 5) {
            assert_non_null(strstr(why, "disk full: the game is in "));
            assert_non_null(strstr(why, f.copy));
        } else {
            assert_string_equal(why, "");
        }
    }
    assert_int_equal(log_count(&f, "not saved: disk full"), 3);
    assert_int_equal(log_count(&f, "saved again"), 1);
    assert_int_equal(moves_in(f.copy), 5); /* no longer updated, as the note says */
    gs_error err = {0};
    assert_int_equal(record_stop(f.r, f.t, &err), GS_OK);
    assert_int_equal(moves_in(f.sgf), NMOVES);
    assert_int_equal(f.d.sgf_invalid, 0);
    fixture_close(&f);
}

/* The fallback full too: the game is in memory only, said so; the first
 * save that works again writes every move. */
static void test_both_full_keeps_the_game_in_memory(void **state)
{
    (void)state;
    fixture f;
    fixture_open(&f, false);
    fixture_view(&f, "", NULL);
    f.d.full[0] = f.disk;
    f.d.full[1] = f.fb;
    for (int i = 0; i < 6; i++) fixture_view(&f, moves[i], NULL);
    assert_int_equal(log_count(&f, "kept in memory only"), 6);
    char why[200];
    assert_string_equal(record_not_saved(f.r, why, sizeof why), "disk full: the game is in memory only");
    assert_int_equal(moves_in(f.copy), -1);
    f.d.full[1] = NULL;
    fixture_view(&f, moves[6], NULL);
    assert_int_equal(moves_in(f.copy), 7);
    f.d.full[0] = NULL;
    gs_error err = {0};
    assert_int_equal(record_stop(f.r, f.t, &err), GS_OK);
    assert_int_equal(moves_in(f.sgf), 7);
    fixture_close(&f);
}

/* A final save that fails everywhere fails the run, naming both. */
static void test_final_save_nowhere_fails(void **state)
{
    (void)state;
    fixture f;
    fixture_open(&f, false);
    fixture_view(&f, "", NULL);
    fixture_view(&f, moves[0], NULL);
    f.d.full[0] = f.disk;
    f.d.full[1] = f.fb;
    gs_error err = {0};
    assert_int_equal(record_stop(f.r, f.t, &err), GS_ERR_IO);
    assert_non_null(strstr(err.msg, "nor its fallback"));
    assert_non_null(strstr(err.msg, f.copy));
    assert_non_null(strstr(err.msg, "its SGF is printed above"));
    /* the last resort: the whole game in the log, between its marks */
    assert_int_equal(log_count(&f, "no file could hold the game"), 1);
    assert_int_equal(log_count(&f, "----- the game, SGF -----"), 1);
    assert_int_equal(log_count(&f, ";GM[1]FF[4]"), 1);
    assert_int_equal(log_count(&f, "----- end of the game -----"), 1);
    fixture_close(&f);
}

/* A double move flagged: its evidence with frames, normally; on a full
 * disk none, a note why, and the event names none; one file of the set
 * refused: the others removed, none named. */
static void test_evidence_gives_way(void **state)
{
    (void)state;
    gs_image *frame = gs_image_create(64, 48, 3);
    assert_non_null(frame);
    for (int k = 0; k < 3; k++) {
        fixture f;
        fixture_open(&f, true);
        if (k == 2) f.d.fail_suffix = "-after.png";
        fixture_view(&f, "", frame);
        if (k == 1) f.d.full[0] = f.disk; /* the SGF fails first: evidence waits */
        fixture_view(&f, "B cc", frame);
        fixture_view(&f, "W dd", frame);
        fixture_view(&f, "B gg, B hh", frame); /* Black twice at once */
        fixture_view(&f, "W ee", frame);
        const record_event *ev;
        size_t n = record_events(f.r, &ev);
        const record_event *flag = NULL;
        for (size_t i = 0; i < n; i++)
            if (ev[i].kind == RECORD_EV_REFEREE) flag = &ev[i];
        assert_non_null(flag);
        char path[200];
        snprintf(path, sizeof path, "%s/game.evidence/%s-before.png", f.disk, flag->evidence);
        if (k == 0) {
            assert_true(flag->evidence[0]);
            assert_int_equal(access(path, F_OK), 0);
            assert_int_equal(log_count(&f, "not kept"), 0);
        } else {
                assert_string_equal(flag->evidence, "");
            assert_int_equal(log_count(&f, "evidence of double_move at move 4 not kept"), 1);
            char cmd[200];
            snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s/game.evidence')\"", f.disk);
            assert_int_equal(system(cmd), 0); /* nothing half-written, nothing left */
        }
        if (k == 1) assert_int_equal(log_count(&f, "its room comes first"), 1);
        fixture_close(&f);
    }
    gs_image_destroy(frame);
}

/* The real file system: the SGF's folder removed mid-game; the copy goes
 * to $TMPDIR by default, beside an earlier copy it does not overwrite. */
static void test_folder_gone_default_fallback(void **state)
{
    (void)state;
    char root[] = "/tmp/gs-test-storage-XXXXXX";
    assert_non_null(mkdtemp(root));
    char disk[64], tmp[64], sgf[80], old[96], copy[96];
    snprintf(disk, sizeof disk, "%s/disk", root);
    snprintf(tmp, sizeof tmp, "%s/tmp", root);
    snprintf(sgf, sizeof sgf, "%s/game.sgf", disk);
    snprintf(old, sizeof old, "%s/game.fallback.sgf", tmp);
    snprintf(copy, sizeof copy, "%s/game.fallback-2.sgf", tmp);
    assert_int_equal(mkdir(disk, 0755), 0);
    assert_int_equal(mkdir(tmp, 0755), 0);
    gs_error err = {0};
    assert_int_equal(gs_file_write_atomic(old, "another game", 12, &err), GS_OK);
    const char *saved = getenv("TMPDIR");
    char *keep = saved ? strdup(saved) : NULL;
    setenv("TMPDIR", tmp, 1);
    record_options o;
    record_options_init(&o);
    o.sgf_path = sgf;
    o.evidence_dir = "";
    record *r = record_create(&o, &err);
    if (keep) setenv("TMPDIR", keep, 1);
    else unsetenv("TMPDIR");
    free(keep);
    assert_non_null(r);
    gs_position p;
    gs_position_clear(&p, 9);
    assert_int_equal(record_observe(r, &p, NULL, 0, NULL, &err), GS_OK);
    for (int i = 0; i < 4; i++) {
        if (i == 2) remove_tree(disk);
        gs_test_edit(&p, moves[i]);
        assert_int_equal(record_observe(r, &p, NULL, 1000.0 * (i + 1), NULL, &err), GS_OK);
    }
    assert_int_equal(record_stop(r, 5000, &err), GS_ERR_IO);
    assert_non_null(strstr(err.msg, "folder missing"));
    assert_non_null(strstr(err.msg, copy));
    assert_int_equal(moves_in(copy), 4);
    char *text = NULL;
    assert_int_equal(gs_file_read(old, 100, &text, NULL, &err), GS_OK);
    assert_string_equal(text, "another game");
    free(text);
    record_destroy(r);
    remove_tree(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_disk_loses_no_move),
        cmocka_unit_test(test_space_back_saves_again),
        cmocka_unit_test(test_both_full_keeps_the_game_in_memory),
        cmocka_unit_test(test_final_save_nowhere_fails),
        cmocka_unit_test(test_evidence_gives_way),
        cmocka_unit_test(test_folder_gone_default_fallback),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
