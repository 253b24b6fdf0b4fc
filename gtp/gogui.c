/* gtp/gogui.c: GoGui's analyze commands (gogui-analyze_commands lists
 * them as TYPE/LABEL/COMMAND): the state of the recording in words, the
 * camera's view of the board drawn on GoGui's board (the points it cannot
 * read, the points where it sees other than the record), the camera frame
 * with the grid as a PNG, the referee events. */
#include "gtp/gtp_internal.h"

#include <stdlib.h>
#include <string.h>

bool gtp_cmd_analyze_commands(gtp_engine *e, const gtp_command *c, gs_buf *res)
{
    (void)e, (void)c;
    gs_buf_puts(res, "string/goscribe: Status/goscribe-status\n"
                     "gfx/goscribe: Camera view/goscribe-view\n"
                     "string/goscribe: Camera frame (PNG)/goscribe-frame\n"
                     "string/goscribe: Referee events/goscribe-events\n"
                     "plist/goscribe: Dead stones/final_status_list dead\n"
                     "plist/goscribe: Seki/final_status_list seki\n"
                     "string/goscribe: Score/final_score");
    return true;
}

bool gtp_cmd_status(gtp_engine *e, const gtp_command *c, gs_buf *res)
{
    (void)c;
    gtp_refresh(e);
    const gtp_view *v = &e->v;
    /* (the record closes just before the loop returns: ended then too,
     * as genmove says) */
    if (v->loop_done) gs_buf_printf(res, "recording: ended (%s)", v->loop_why);
    else if (v->finished) gs_buf_puts(res, "recording: ended (the record is closed)");
    else gs_buf_puts(res, "recording: running");
    if (!v->started) {
        gs_buf_puts(res, "\nboard: not seen yet");
    } else {
        gs_buf_printf(res, "\nboard: %dx%d, %d moves recorded, %s to move, komi %g", v->size, v->size, v->nmoves,
                      rules_color_name(v->to_move), v->komi);
        gs_buf_printf(res, "\ncontroller: at move %d", e->cursor);
        if (e->cursor < v->nmoves) gs_buf_printf(res, " (the board is %d moves ahead)", v->nmoves - e->cursor);
        if (v->ended) gs_buf_printf(res, "\ngame: over%s%s", v->result[0] ? ", result " : "", v->result);
        else gs_buf_puts(res, "\ngame: in play");
    }
    if (e->opt.sgf_path) gs_buf_printf(res, "\nrecord: %s", e->opt.sgf_path);
    return true;
}

bool gtp_cmd_events(gtp_engine *e, const gtp_command *c, gs_buf *res)
{
    (void)c;
    size_t before = res->len;
    gtp_board_events(e->board, res);
    if (res->len == before) gs_buf_puts(res, "no referee events or notes yet");
    return true;
}

/* The latest frame read with its grid: the reading in *rd (malloc'd, the
 * caller frees) and the frame (caller frees); NULL frame with the reason
 * in why when there is none to read. */
static gs_image *read_frame(gtp_engine *e, vision_grid *grid, bool *have_grid, vision_reading **rd,
                            const char **why)
{
    *rd = NULL;
    gs_image *frame = gtp_board_frame(e->board, grid, have_grid);
    if (!frame) {
        *why = "no camera frame yet";
        return NULL;
    }
    if (!*have_grid) {
        *why = "no board found in the camera frame yet";
        return frame;
    }
    gs_error err;
    vision_detector *d = vision_detector_create(NULL);
    vision_result *seen = malloc(sizeof *seen);
    const vision_request rq = {.grid = grid};
    *rd = malloc(sizeof **rd);
    if (!d || !seen || !*rd || vision_detect_frame(d, frame, &rq, seen, &err) != GS_OK) {
        free(*rd);
        *rd = NULL;
        *why = "the board in the frame cannot be read";
    } else {
        **rd = seen->reading;
    }
    free(seen);
    vision_detector_destroy(d);
    return frame;
}

/* gfx: SQUARE on the points the camera cannot read, TRIANGLE where it
 * reads surely other than the record's board, and a line of text. */
bool gtp_cmd_view(gtp_engine *e, const gtp_command *c, gs_buf *res)
{
    (void)c;
    gtp_refresh(e);
    vision_grid grid;
    bool have_grid;
    vision_reading *rd;
    const char *why = NULL;
    gs_image *frame = read_frame(e, &grid, &have_grid, &rd, &why);
    gs_image_destroy(frame);
    if (!rd) {
        gs_buf_printf(res, "TEXT camera: %s", why);
        return true;
    }
    int size = rd->pos.size, unsure = 0, differ = 0;
    bool compare = e->v.started && e->v.size == size;
    gs_buf sq = {0}, tri = {0};
    for (int i = 0; i < size * size; i++) {
        char name[8];
        rules_point_human((gs_point){(int8_t)(i % size), (int8_t)(i / size)}, size, name);
        if (rd->unsure[i]) {
            gs_buf_printf(&sq, " %s", name);
            unsure++;
        } else if (compare && rd->pos.cell[i] != e->v.pos.cell[i]) {
            gs_buf_printf(&tri, " %s", name);
            differ++;
        }
    }
    if (unsure && gs_buf_ok(&sq)) gs_buf_printf(res, "SQUARE%s\n", sq.p);
    if (differ && gs_buf_ok(&tri)) gs_buf_printf(res, "TRIANGLE%s\n", tri.p);
    gs_buf_printf(res, "TEXT camera: %d points uncertain (squares), %d read otherwise than the record (triangles)",
                  unsure, differ);
    gs_buf_free(&sq);
    gs_buf_free(&tri);
    free(rd);
    return true;
}

/* goscribe-frame [FILE.png]: the latest camera frame with the grid and
 * the readings drawn (vision_draw_overlay), written as PNG; answers the
 * file's name. */
bool gtp_cmd_frame(gtp_engine *e, const gtp_command *c, gs_buf *res)
{
    const char *path = c->argc >= 1 ? c->argv[0] : e->opt.frame_path ? e->opt.frame_path : "goscribe-frame.png";
    vision_grid grid;
    bool have_grid;
    vision_reading *rd;
    const char *why = NULL;
    gs_image *frame = read_frame(e, &grid, &have_grid, &rd, &why);
    if (!frame) {
        gs_buf_puts(res, why);
        return false;
    }
    /* the grid alone when the points could not be read */
    if (frame->channels == 3 && have_grid) vision_draw_overlay(frame, &grid, rd);
    gs_error err;
    bool ok = gs_image_write_png(frame, path, &err) == GS_OK;
    if (ok) gs_buf_printf(res, "%s%s%s", path, why ? ": " : "", why ? why : "");
    else gs_buf_printf(res, "cannot write %s: %s", path, err.msg);
    gs_image_destroy(frame);
    free(rd);
    return ok;
}
