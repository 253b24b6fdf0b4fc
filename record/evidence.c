/* record/evidence.c: the evidence of a flag: the settled views before and
 * after it as PNG and a short text (times, the record and the view), in a
 * folder next to the SGF (game.sgf -> game.evidence/), the point in
 * question ringed in red on both.
 *
 * Evidence is best-effort and gives way to the SGF: it is not written
 * while the SGF cannot be saved, nor when writing it would leave less free
 * space on the SGF's disk than the SGF needs (EVIDENCE_RESERVE); each file
 * is written whole or not at all (gs_file_write_atomic), a set that cannot
 * be written whole is removed, and a note says why (r->evid.dropped).  An
 * event line names its evidence only when its frames are on disk. */
#include "record/record_internal.h"

#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* The room kept free for the SGF on its disk: its rewrite needs a second
 * copy beside it (temp + rename) and it grows; 4 times its size, at least
 * 256 KiB (a long commented game's size). */
#define EVIDENCE_RESERVE(sgf_bytes) ((sgf_bytes) * 4 > 256 * 1024 ? (sgf_bytes) * 4 : 256 * 1024)

static bool ensure_dir(rec_evidence *ev)
{
    if (!ev->ready && (mkdir(ev->dir, 0755) == 0 || errno == EEXIST)) ev->ready = true;
    return ev->ready;
}

/* The text beside the frames: when, and the record against the view. */
static void note_text(const record *r, gs_buf *b, const char *code, int move_number)
{
    char tb[24];
    rec_fmt_time(r->prev_t, tb);
    gs_buf_printf(b, "event %s at move %d\nbefore %s (%.0f ms)\n", code, move_number, tb, r->prev_t);
    rec_fmt_time(r->cur_t, tb);
    gs_buf_printf(b, "after %s (%.0f ms)\n", tb, r->cur_t);
    gs_position pos;
    char buf[REC_NPTS * 2 + 2];
    if (r->game) {
        rules_game_position(r->game, &pos);
        gs_position_format(&pos, buf, sizeof buf);
        gs_buf_printf(b, "record:\n%s\n", buf);
    }
    if (r->have_last_obs) {
        gs_position_format(&r->last_obs, buf, sizeof buf);
        gs_buf_printf(b, "seen:\n%s\n", buf);
    }
}

void record_set_view(record *r, const vision_grid *grid, record_black_side side)
{
    r->evid.have_grid = grid != NULL;
    if (grid) r->evid.grid = *grid;
    r->evid.side = side;
}

/* The frame as PNG in out, with a red ring round the record's point pt
 * and a small cross at its centre, when the point and the grid are known
 * (on a copy: the frame stays as it was seen). */
static gs_status encode_marked(const rec_evidence *ev, const gs_image *frame, gs_point pt, int size, gs_buf *out,
                               gs_error *err)
{
    if (!ev->have_grid || pt.x < 0 || pt.y < 0 || pt.x >= size || pt.y >= size || ev->grid.size != size)
        return gs_image_encode_png(frame, out, err);
    gs_image *img = gs_image_copy(frame);
    if (!img) return gs_image_encode_png(frame, out, err); /* out of memory: unmarked is still evidence */
    gs_point q = record_orient_point_back(ev->side, size, pt);
    double x, y, x1, y1;
    vision_grid_map(&ev->grid, q.x, q.y, &x, &y);
    vision_grid_map(&ev->grid, q.x + (q.x + 1 < size ? 1 : -1), q.y, &x1, &y1);
    double pitch = hypot(x1 - x, y1 - y);
    const gs_bgr red = {0, 0, 255};
    double w = pitch * 0.08 > 2 ? pitch * 0.08 : 2;
    gs_draw_ring(img, x, y, pitch * 0.62, w, red);
    gs_draw_line(img, x - pitch * 0.15, y, x + pitch * 0.15, y, w / 2, red);
    gs_draw_line(img, x, y - pitch * 0.15, x, y + pitch * 0.15, w / 2, red);
    gs_status st = gs_image_encode_png(img, out, err);
    gs_image_destroy(img);
    return st;
}

/* The files of one event's evidence: before.png, after.png, the text. */
enum { EV_BEFORE, EV_AFTER, EV_NOTE, EV_FILES };
static const char *const ev_suffix[EV_FILES] = {"-before.png", "-after.png", ".txt"};

/* msg into why (len bytes), cut to fit. */
static void copy_reason(char *why, size_t len, const char *msg)
{
    size_t n = strlen(msg);
    if (n >= len) n = len - 1;
    memcpy(why, msg, n);
    why[n] = 0;
}

/* Free bytes on the folder's file system (statvfs), or -1 unknown. */
static double free_bytes(const char *dir)
{
    struct statvfs sv;
    if (statvfs(dir, &sv) != 0) return -1;
    return (double)sv.f_bavail * (double)sv.f_frsize;
}

/* Why the evidence of `total` bytes must give way to the SGF ("" when it
 * may be written). */
static void room_check(const record *r, size_t total, char *why, size_t len)
{
    why[0] = 0;
    if (r->store.failing) {
        snprintf(why, len, "the SGF could not be saved: its room comes first");
        return;
    }
    double avail = free_bytes(r->evid.dir);
    if (avail < 0) return; /* unknown: the write itself says */
    size_t reserve = r->sgf.path && r->store.same_disk ? EVIDENCE_RESERVE(r->store.sgf_bytes) : 0;
    if (avail < (double)total + (double)reserve)
        snprintf(why, len, "%.0f KiB free: too little for %zu KiB of evidence and the %zu KiB kept for the SGF",
                 avail / 1024, (total + 1023) / 1024, reserve / 1024);
}

/* Writes the files (paths[i] for data[i]); on a failure the ones already
 * written are removed (a set is whole or absent) and why says so. */
static bool write_set(const record *r, char *const paths[EV_FILES], const gs_buf data[EV_FILES], char *why,
                      size_t len)
{
    for (int i = 0; i < EV_FILES; i++) {
        if (!data[i].p) continue;
        gs_error e;
        int cause;
        if (rec_write_file(r, paths[i], data[i].p, data[i].len, &cause, &e) == GS_OK) continue;
        copy_reason(why, len, e.msg);
        for (int k = 0; k < i; k++)
            if (data[k].p) (void)unlink(paths[k]); /* (gone or never there: nothing names it) */
        return false;
    }
    return true;
}

/* The evidence in memory: the frames as PNG, the text; false when out of
 * memory or a frame cannot be encoded (why says so). */
static bool encode_set(record *r, gs_point pt, const char *code, int move_number, gs_buf data[EV_FILES], char *why,
                       size_t len)
{
    rec_evidence *ev = &r->evid;
    gs_error e;
    if ((ev->prev_frame && encode_marked(ev, ev->prev_frame, pt, r->size, &data[EV_BEFORE], &e) != GS_OK) ||
        encode_marked(ev, ev->cur_frame, pt, r->size, &data[EV_AFTER], &e) != GS_OK) {
        copy_reason(why, len, e.msg);
        return false;
    }
    note_text(r, &data[EV_NOTE], code, move_number);
    if (!gs_buf_ok(&data[EV_NOTE])) gs_buf_free(&data[EV_NOTE]); /* a side note: the frames are the evidence */
    return true;
}

void rec_evidence_keep(record *r, int move_number, const char *code, gs_point pt, size_t index, char prefix[64])
{
    rec_evidence *ev = &r->evid;
    prefix[0] = 0;
    if (!ev->dir || !ev->cur_frame || !ensure_dir(ev)) return;
    if (!r->store.disk_known) {
        r->store.disk_known = true;
        r->store.same_disk = !r->sgf.path || rec_same_disk(r->sgf.path, ev->dir);
    }
    /* events of one move share a number; the event's index keeps names unique */
    char name[64], why[200] = "";
    snprintf(name, sizeof name, "%04d-%s-%zu", move_number, code, index);
    gs_buf data[EV_FILES] = {{0}};
    char *paths[EV_FILES] = {NULL};
    size_t plen = strlen(ev->dir) + 96, total = 0;
    bool ok = encode_set(r, pt, code, move_number, data, why, sizeof why);
    for (int i = 0; ok && i < EV_FILES; i++) {
        total += data[i].len;
        if (!(paths[i] = malloc(plen))) ok = false;
        else snprintf(paths[i], plen, "%s/%s%s", ev->dir, name, ev_suffix[i]);
    }
    if (ok) room_check(r, total, why, sizeof why);
    if (ok && !why[0] && write_set(r, paths, data, why, sizeof why)) snprintf(prefix, 64, "%s", name);
    else if (!why[0]) snprintf(why, sizeof why, "out of memory");
    if (!prefix[0])
        snprintf(ev->dropped, sizeof ev->dropped, "evidence of %s at move %d not kept (%s)", code, move_number, why);
    for (int i = 0; i < EV_FILES; i++) {
        gs_buf_free(&data[i]);
        free(paths[i]);
    }
}
