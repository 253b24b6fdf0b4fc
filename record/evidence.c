/* record/evidence.c: the evidence of a flag: the settled views before and
 * after it as PNG and a short text (times, the record and the view), in a
 * folder next to the SGF (game.sgf -> game.evidence/), the point in
 * question ringed in red on both.
 *
 * Evidence is best-effort: a folder that cannot be made or a file that
 * cannot be written never stops the recording (the SGF and the event line
 * are the record).  But an event line names its evidence only when its
 * frames were written. */
#include "record/record_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool ensure_dir(rec_evidence *ev)
{
    if (!ev->ready && (mkdir(ev->dir, 0755) == 0 || errno == EEXIST)) ev->ready = true;
    return ev->ready;
}

/* The text beside the frames: when, and the record against the view.  A
 * side note to the PNGs: not written is not worth more than silence. */
static void write_note(const record *r, const char *path, const char *code, int move_number)
{
    FILE *f = fopen(path, "w");
    if (!f) return;
    char tb[24];
    rec_fmt_time(r->prev_t, tb);
    fprintf(f, "event %s at move %d\nbefore %s (%.0f ms)\n", code, move_number, tb, r->prev_t);
    rec_fmt_time(r->cur_t, tb);
    fprintf(f, "after %s (%.0f ms)\n", tb, r->cur_t);
    gs_position pos;
    char buf[REC_NPTS * 2 + 2];
    if (r->game) {
        rules_game_position(r->game, &pos);
        gs_position_format(&pos, buf, sizeof buf);
        fprintf(f, "record:\n%s\n", buf);
    }
    if (r->have_last_obs) {
        gs_position_format(&r->last_obs, buf, sizeof buf);
        fprintf(f, "seen:\n%s\n", buf);
    }
    fclose(f);
}

void record_set_view(record *r, const vision_grid *grid, record_black_side side)
{
    r->evid.have_grid = grid != NULL;
    if (grid) r->evid.grid = *grid;
    r->evid.side = side;
}

/* The frame as PNG, with a red ring round the record's point pt and a
 * small cross at its centre, when the point and the grid are known (on a
 * copy: the frame stays as it was seen). */
static bool write_marked(const rec_evidence *ev, const gs_image *frame, gs_point pt, int size, const char *path)
{
    gs_error e;
    if (!ev->have_grid || pt.x < 0 || pt.y < 0 || pt.x >= size || pt.y >= size || ev->grid.size != size)
        return gs_image_write_png(frame, path, &e) == GS_OK;
    gs_image *img = gs_image_copy(frame);
    if (!img) return gs_image_write_png(frame, path, &e) == GS_OK; /* out of memory: unmarked is still evidence */
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
    bool ok = gs_image_write_png(img, path, &e) == GS_OK;
    gs_image_destroy(img);
    return ok;
}

void rec_evidence_keep(record *r, int move_number, const char *code, gs_point pt, size_t index, char prefix[64])
{
    rec_evidence *ev = &r->evid;
    prefix[0] = 0;
    if (!ev->dir || !ev->cur_frame || !ensure_dir(ev)) return;
    size_t len = strlen(ev->dir) + 96;
    char *path = malloc(len);
    if (!path) return;
    /* events of one move share a number; the event's index keeps names unique */
    char name[64];
    snprintf(name, sizeof name, "%04d-%s-%zu", move_number, code, index);
    bool ok = true;
    if (ev->prev_frame) {
        snprintf(path, len, "%s/%s-before.png", ev->dir, name);
        ok = write_marked(ev, ev->prev_frame, pt, r->size, path);
    }
    snprintf(path, len, "%s/%s-after.png", ev->dir, name);
    if (ok) ok = write_marked(ev, ev->cur_frame, pt, r->size, path);
    if (ok) {
        snprintf(path, len, "%s/%s.txt", ev->dir, name);
        write_note(r, path, code, move_number);
        snprintf(prefix, 64, "%s", name);
    }
    free(path);
}
