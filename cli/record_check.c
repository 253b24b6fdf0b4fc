/* cli/record_check.c: `goscribe record ... --check`: what a recording
 * needs, tried without recording anything: the source opened (capture's
 * own capture_open, whatever kind of source it is) and giving a frame, the
 * SGF's folder writable and a file to --resume replayed as the recorder
 * replays it, the evidence and fallback folders.  Each problem is one line;
 * nothing is written.  `goscribe hall --check` runs it for every board
 * with the command line the evening would run (cli/hall_evening.c). */
#include "cli/cli.h"

#include "capture/capture.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* How long the source has to give its first frame. */
#define CHECK_FRAME_MS 10000

/* The folder of path (".", "/" or its part before the last '/'). */
static void folder_of(const char *path, char *out, size_t n)
{
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(out, n, ".");
    else if (slash == path) snprintf(out, n, "/");
    else snprintf(out, n, "%.*s", (int)(slash - path), path);
}

/* Whether dir is a folder this process may create files in; false when
 * not (said, naming what would be written there). */
static bool folder_writable(const char *what, const char *dir)
{
    struct stat st;
    if (stat(dir, &st) != 0) {
        cli_error("%s: cannot be written: its folder %s: %s", what, dir, strerror(errno));
        return false;
    }
    if (!S_ISDIR(st.st_mode)) {
        cli_error("%s: cannot be written: %s is not a folder", what, dir);
        return false;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        cli_error("%s: cannot be written: its folder %s: %s", what, dir, strerror(errno));
        return false;
    }
    return true;
}

/* A folder the recorder makes when it needs it (evidence, fallback): there
 * and writable, or its parent is. */
static bool folder_makeable(const char *opt, const char *dir)
{
    struct stat st;
    char what[600];
    snprintf(what, sizeof what, "%s %s", opt, dir);
    if (stat(dir, &st) == 0) return folder_writable(what, dir);
    char parent[512];
    folder_of(dir, parent, sizeof parent);
    return folder_writable(what, parent);
}

/* The SGF: its folder writable (the recorder writes a temporary file
 * beside it and renames it), not a folder itself, and with --resume its
 * game replayed as the recorder will. */
static bool check_sgf(const char *out, const record_options *ro)
{
    struct stat st;
    if (stat(out, &st) == 0 && S_ISDIR(st.st_mode)) {
        cli_error("%s: cannot be written: it is a folder", out);
        return false;
    }
    char dir[512];
    folder_of(out, dir, sizeof dir);
    if (!folder_writable(out, dir)) return false;
    if (!ro->resume) return true;
    record_options o = *ro;
    o.sgf_path = out;
    o.out = NULL;          /* the replay's event lines are not wanted here */
    o.evidence_dir = "";
    gs_error err = {0};
    record *r = record_create(&o, &err);
    if (!r) {
        /* an error about the SGF names it already */
        if (!strncmp(err.msg, out, strlen(out))) cli_error("%s", err.msg);
        else cli_error("%s: %s", out, err.msg);
        return false;
    }
    record_destroy(r);
    return true;
}

/* The source's first frame; false when there is none (said). */
static bool check_source(const char *source, const capture_options *cap, char *seen, size_t seenlen)
{
    char shown[1024];
    const char *name = capture_spec_shown(source, shown, sizeof shown);
    gs_error err = {0};
    capture_source *src = capture_open(source, cap, &err);
    if (!src) {
        cli_error("%s", err.msg); /* capture_open names the source */
        return false;
    }
    const gs_image *frame = NULL;
    capture_info info;
    capture_result got;
    double until = gs_now_ms() + CHECK_FRAME_MS;
    /* a camera coming back, a photo that cannot be read: a later read may give one */
    while ((got = capture_read(src, &frame, &info)) == CAPTURE_LOST && gs_now_ms() < until) {}
    bool ok = got == CAPTURE_FRAME && frame;
    if (ok) {
        snprintf(seen, seenlen, "a %dx%d frame", frame->width, frame->height);
    } else {
        const char *why = capture_last_error(src);
        if (!why[0]) why = got == CAPTURE_END ? "it ended before its first frame" : "no reason given";
        if (got == CAPTURE_LOST)
            cli_error("%s: no frame in %d s (%s)", name, CHECK_FRAME_MS / 1000, why);
        else if (!strncmp(why, source, strlen(source))) cli_error("%s%s", name, why + strlen(source));
        else cli_error("%s: no frame: %s", name, why);
    }
    capture_close(src);
    return ok;
}

int cli_record_check(const char *source, const struct capture_options *cap, const char *out,
                     const record_options *ro, int problems)
{
    char seen[64] = "";
    problems += !check_source(source, cap, seen, sizeof seen);
    problems += !check_sgf(out, ro);
    if (ro->evidence_dir && ro->evidence_dir[0]) problems += !folder_makeable("--evidence", ro->evidence_dir);
    if (ro->fallback_dir) problems += !folder_makeable("--fallback", ro->fallback_dir);
    if (problems) return GS_EXIT_ERROR;
    char shown[1024];
    printf("record --check: %s: %s; %s: can be written%s\n", capture_spec_shown(source, shown, sizeof shown), seen, out,
           ro->resume ? " (its game replays: --resume goes on from it)" : "");
    return GS_EXIT_OK;
}
