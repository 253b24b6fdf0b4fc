/* record/store.c: where the record is kept.  The SGF comes first: it is
 * saved after every change (atomically, see gs_file_write_atomic), and a
 * save that fails (a full disk, a folder gone) never stops the recording.
 * The game stays in memory, a note says "not saved" with the reason after
 * every change, the next save tries the file again, and meanwhile a copy
 * goes to the fallback folder (--fallback, else beside the evidence when
 * that is another file system, else $TMPDIR).  Only the last save of the
 * record fails when the file still cannot be written, naming the copy. */
#include "record/record_internal.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

gs_status rec_write_file(const record *r, const char *path, const void *data, size_t len, int *cause,
                         gs_error *err)
{
    errno = 0;
    gs_status st = r->opt.write_file ? r->opt.write_file(r->opt.write_file_user, path, data, len, err)
                                     : gs_file_write_atomic(path, data, len, err);
    *cause = st == GS_OK ? 0 : errno;
    return st;
}

/* What the operator is told a failed write means. */
static const char *cause_label(int cause)
{
    switch (cause) {
    case ENOSPC:
#ifdef EDQUOT
    case EDQUOT:
#endif
        return "disk full";
    case EFBIG: return "file too large";
    case EROFS: return "read-only file system";
    case EACCES:
    case EPERM: return "permission denied";
    case ENOENT:
    case ENOTDIR: return "folder missing";
    default: return "cannot write";
    }
}

/* The folder holding path ("." for a bare name); NULL when out of memory. */
static char *parent_of(const char *path)
{
    char *copy = strdup(path);
    if (!copy) return NULL;
    char *d = strdup(dirname(copy));
    free(copy);
    return d;
}

/* True when a and b are folders of one file system (unknown: true, so
 * the safer default is taken). */
static bool same_file_system(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0) return true;
    return sa.st_dev == sb.st_dev;
}

bool rec_same_disk(const char *sgf_path, const char *dir)
{
    char *sgf_dir = parent_of(sgf_path);
    bool same = !sgf_dir || same_file_system(sgf_dir, dir);
    free(sgf_dir);
    return same;
}

char *rec_fallback_dir_default(const char *sgf_path, const char *evidence_dir)
{
    char *sgf_dir = parent_of(sgf_path);
    char *ev_parent = evidence_dir && evidence_dir[0] ? parent_of(evidence_dir) : NULL;
    if (!sgf_dir) {
        free(ev_parent);
        return NULL;
    }
    /* beside the evidence only when that is another disk than the SGF's:
     * the same disk is full too */
    char *dir = NULL;
    if (ev_parent && !same_file_system(sgf_dir, ev_parent)) {
        dir = ev_parent;
        ev_parent = NULL;
    } else {
        const char *tmp = getenv("TMPDIR");
        dir = strdup(tmp && tmp[0] ? tmp : "/tmp");
    }
    free(sgf_dir);
    free(ev_parent);
    return dir;
}

/* The n-th name of the fallback copy (malloc'd, NULL when out of memory):
 * DIR/STEM.fallback.sgf, then DIR/STEM.fallback-N.sgf. */
static char *fallback_name(const record *r, int n)
{
    char *copy = strdup(r->sgf.path);
    if (!copy) return NULL;
    char *base = basename(copy);
    size_t bl = strlen(base);
    if (bl > 4 && !strcasecmp(base + bl - 4, ".sgf")) base[bl - 4] = 0;
    size_t len = strlen(r->store.fallback_dir) + strlen(base) + 32;
    char *path = malloc(len);
    if (path && n == 1) snprintf(path, len, "%s/%s.fallback.sgf", r->store.fallback_dir, base);
    else if (path) snprintf(path, len, "%s/%s.fallback-%d.sgf", r->store.fallback_dir, base, n);
    free(copy);
    return path;
}

/* The fallback copy's file, named at the first failure: the first name
 * not taken (another table's copy, an earlier run's: never overwritten).
 * False when out of memory. */
static bool fallback_claim(record *r)
{
    rec_store *s = &r->store;
    if (s->fallback_path) return true;
    if (!s->fallback_dir) return false;
    (void)mkdir(s->fallback_dir, 0755); /* (one that exists, or cannot be made: the write says) */
    for (int n = 1; n < 1000; n++) {
        char *path = fallback_name(r, n);
        if (!path) return false;
        if (access(path, F_OK) != 0 || n == 999) {
            s->fallback_path = path;
            return true;
        }
        free(path);
    }
    return false;
}

/* Moves of the game in an SGF file, -1 when it cannot be read. */
static int file_moves(const char *path)
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

void rec_store_check_fallback(record *r)
{
    if (!r->sgf.path || !r->store.fallback_dir) return;
    int here = rec_game_moves(r);
    for (int n = 1; n < 1000; n++) {
        char *path = fallback_name(r, n);
        if (!path || access(path, F_OK) != 0) {
            free(path);
            return;
        }
        int m = file_moves(path);
        if (m > here)
            rec_event_add(r, RECORD_EV_NOTE, "fallback_ahead", here, GS_EMPTY, (gs_point){-1, -1},
                          "%s holds %d moves, %s only %d: if it is this game (a save that failed), stop, copy it "
                          "over %s and resume again", path, m, r->sgf.path, here, r->sgf.path);
        free(path);
    }
}

/* The SGF text to its file, else to the fallback copy, each outcome noted. */
static void store_write(record *r, const char *text, size_t len)
{
    rec_store *s = &r->store;
    gs_error e;
    int cause;
    s->sgf_bytes = len;
    if (rec_write_file(r, r->sgf.path, text, len, &cause, &e) == GS_OK) {
        if (s->failing)
            rec_event_add(r, RECORD_EV_NOTE, "saved_again", rec_game_moves(r), GS_EMPTY, (gs_point){-1, -1},
                          "saved again: %s holds the whole game (%d moves)%s%s%s", r->sgf.path, rec_game_moves(r),
                          s->fallback_path ? "; " : "", s->fallback_path ? s->fallback_path : "",
                          s->fallback_path ? " is no longer updated" : "");
        s->failing = s->fallback_ok = false;
        return;
    }
    s->failing = true;
    s->why = e;
    s->label = cause_label(cause);
    s->fallback_ok = false;
    if (!fallback_claim(r)) gs_error_set(&s->fallback_why, GS_ERR_NOMEM, "out of memory");
    else if (rec_write_file(r, s->fallback_path, text, len, &cause, &s->fallback_why) == GS_OK) s->fallback_ok = true;
    if (s->fallback_ok)
        rec_event_add(r, RECORD_EV_NOTE, "not_saved", rec_game_moves(r), GS_EMPTY, (gs_point){-1, -1},
                      "not saved: %s (%s: %s): the game (%d moves) is kept in memory and in %s; tried again at "
                      "every move", s->label, r->sgf.path, e.msg, rec_game_moves(r), s->fallback_path);
    else
        rec_event_add(r, RECORD_EV_NOTE, "not_saved", rec_game_moves(r), GS_EMPTY, (gs_point){-1, -1},
                      "not saved: %s (%s: %s): the game (%d moves) is kept in memory only (fallback %s: %s); tried "
                      "again at every move", s->label, r->sgf.path, e.msg, rec_game_moves(r),
                      s->fallback_path ? s->fallback_path : "none", s->fallback_why.msg);
}

const char *record_not_saved(const record *r, char *buf, size_t len)
{
    const rec_store *s = &r->store;
    if (!len) return buf;
    buf[0] = '\0';
    if (s->failing)
        snprintf(buf, len, "%s: the game is %s%s", s->label ? s->label : "cannot write",
                 s->fallback_ok ? "in " : "in memory only", s->fallback_ok ? s->fallback_path : "");
    return buf;
}

gs_status rec_save(record *r, gs_error *err)
{
    if (r->sgf.path && r->sgf.tree) {
        char *text = NULL;
        size_t len = 0;
        gs_error e;
        if (sgf_write(r->sgf.tree, &text, &len, &e) == GS_OK) store_write(r, text, len);
        else rec_check(r, e.status, &e); /* out of memory: said by the failure below */
        free(text);
    }
    rec_events_print(r); /* after the save: a line printed without a "not saved" note is on disk */
    if (r->fail.status != GS_OK)
        return gs_error_set(err, r->fail.status, "%s%snot all of the game is in the record: %s",
                            r->sgf.path ? r->sgf.path : "", r->sgf.path ? ": " : "", r->fail.msg);
    return GS_OK;
}

gs_status rec_save_final(record *r, gs_error *err)
{
    gs_status st = rec_save(r, err);
    const rec_store *s = &r->store;
    if (st != GS_OK || !s->failing) return st;
    if (s->fallback_ok)
        return gs_error_set(err, GS_ERR_IO, "%s: not saved: %s (%s): the complete game (%d moves) is in %s",
                            r->sgf.path, s->label, s->why.msg, rec_game_moves(r), s->fallback_path);
    return gs_error_set(err, GS_ERR_IO, "%s: not saved: %s (%s), nor its fallback %s (%s): the game is not on disk",
                        r->sgf.path, s->label, s->why.msg, s->fallback_path ? s->fallback_path : "(none)",
                        s->fallback_why.msg);
}
