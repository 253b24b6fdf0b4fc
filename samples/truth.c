/* samples/truth.c: the truth of a render, what a reader of the footage
 * should find: one JSON line per frame (format in render.h), the SGF of
 * the rendered sequence with the seeded violations as referee events, and
 * the board grid at the start as a calibration file. */
#include "samples/render_internal.h"
#include "calib/calib.h"
#include "sgf/sgf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The SGF letters of p, "" for none ({-1, -1}: no stone placed yet). */
static void sgf_pt(gs_point p, char buf[3])
{
    if (p.x < 0 || p.y < 0) { buf[0] = 0; return; }
    sgf_point_format(p, buf);
}

gs_status render_truth_line(FILE *f, int frame, const render_scene *s, const render_script *sc,
                            const render_state *st, gs_error *err)
{
    int n = st->pos.size;
    char pos[GS_MAX_SIZE * GS_MAX_SIZE + 1];
    for (int i = 0; i < n * n; i++) pos[i] = st->pos.cell[i] == GS_BLACK ? 'B' : st->pos.cell[i] == GS_WHITE ? 'W' : '.';
    pos[n * n] = 0;
    uint8_t cov[GS_MAX_SIZE * GS_MAX_SIZE];
    bool visible = false;
    int ncov = render_hand_covers(s, st, cov, &visible);
    gs_point last;
    int moves = render_script_moves_at(sc, st->t_ms, &last);
    char lp[3];
    sgf_pt(last, lp);
    vision_grid g;
    render_grid(s, st->t_ms, &g);

    fprintf(f, "{\"frame\":%d,\"t_ms\":%.1f,\"position\":\"%s\",\"hand\":%s,\"hand_covers\":%s,\"covered\":[",
            frame, st->t_ms, pos, visible ? "true" : "false", ncov > 0 ? "true" : "false");
    int k = 0;
    for (int i = 0; i < n * n; i++) {
        if (!cov[i]) continue;
        char b[3];
        sgf_pt((gs_point){(int8_t)(i % n), (int8_t)(i / n)}, b);
        fprintf(f, "%s\"%s\"", k++ ? "," : "", b);
    }
    fprintf(f, "],\"moves\":%d,\"last_move\":\"%s\",\"corners\":[", moves, lp);
    for (int i = 0; i < 4; i++) fprintf(f, "%s[%.2f,%.2f]", i ? "," : "", g.corners[i][0], g.corners[i][1]);
    fprintf(f, "],\"violations\":[");
    const render_violation *v;
    int nv = render_script_violations(sc, &v);
    k = 0;
    for (int i = 0; i < nv; i++) {
        if (v[i].t_ms > st->t_ms) continue;
        char b[3];
        sgf_pt(v[i].point, b);
        fprintf(f, "%s{\"type\":\"%s\",\"move\":%d,\"point\":\"%s\",\"corrected\":%s,\"t_ms\":%.0f", k++ ? "," : "",
                render_violation_code(v[i].type), v[i].move, b, v[i].corrected ? "true" : "false", v[i].t_ms);
        if (v[i].undone_ms >= 0 && v[i].undone_ms <= st->t_ms) fprintf(f, ",\"undone_ms\":%.0f", v[i].undone_ms);
        fputc('}', f);
    }
    fputs("],\"signals\":[", f);
    const render_signal *sg;
    int ns = render_script_signals(sc, &sg);
    k = 0;
    for (int i = 0; i < ns; i++) {
        if (sg[i].t_ms > st->t_ms) continue;
        fprintf(f, "%s{\"type\":\"%s\",\"color\":\"%s\",\"move\":%d,\"t_ms\":%.0f", k++ ? "," : "",
                sg[i].resign ? "resign_signal" : "confirm_signal", sg[i].color == GS_BLACK ? "B" : "W", sg[i].move,
                sg[i].t_ms);
        if (!sg[i].resign) fprintf(f, ",\"corner\":%d", sg[i].corner);
        fputc('}', f);
    }
    fputs("]}\n", f);
    /* the writes above are checked once: a stream's error flag stays set */
    if (ferror(f)) return gs_error_set(err, GS_ERR_IO, "writing the truth: %s", strerror(errno));
    return GS_OK;
}

/* The SGF comment beside a seeded violation's event. */
static const char *violation_comment(render_violation_type t)
{
    switch (t) {
    case RENDER_V_DOUBLE_MOVE: return "seeded violation: double move (the same player placed a second stone at once)";
    case RENDER_V_WRONG_CAPTURE: return "seeded violation: wrong capture (a stone that was not captured was lifted)";
    case RENDER_V_MISSED_CAPTURE: return "seeded violation: missed capture (captured stones were left on the board)";
    case RENDER_V_MOVED_STONE: return "seeded violation: moved stone (a stone was pushed to a neighbouring point)";
    case RENDER_V_KO_RETAKE: return "seeded violation: immediate ko retake (taken back at once)";
    default: return "";
    }
}

/* Each violation of sc as a GSEV event on the node of its move (nodes[0]
 * is the root, nodes[i] the i-th entry of the rendered sequence). */
static gs_status add_violation_events(sgf_node **nodes, int np, const render_script *sc, gs_error *err)
{
    const render_violation *v;
    int nv = render_script_violations(sc, &v);
    gs_status st = GS_OK;
    for (int i = 0; i < nv && st == GS_OK; i++) {
        int at = v[i].move;
        /* a retake taken back, an extra stone taken back: after the entry before */
        if (v[i].type == RENDER_V_KO_RETAKE || (v[i].type == RENDER_V_DOUBLE_MOVE && v[i].corrected)) at--;
        if (at < 0) at = 0;
        if (at > np) at = np;
        char pt[3], words[240];
        sgf_point_format(v[i].point, pt);
        snprintf(words, sizeof words, "%s%s", violation_comment(v[i].type),
                 v[i].corrected ? "; corrected after a still view of it" : "");
        st = sgf_add_event(nodes[at], render_violation_code(v[i].type), pt, words, err);
    }
    return st;
}

/* Each end-of-game signal of sc as a GSEV event on the node of the last
 * entry before it (detail: the player signalling). */
static gs_status add_signal_events(sgf_node **nodes, int np, const render_script *sc, gs_error *err)
{
    const render_signal *sg;
    int ns = render_script_signals(sc, &sg);
    gs_status st = GS_OK;
    for (int i = 0; i < ns && st == GS_OK; i++) {
        int at = sg[i].move < 0 ? 0 : sg[i].move > np ? np : sg[i].move;
        const char *who = sg[i].color == GS_BLACK ? "Black" : "White";
        char words[160];
        if (sg[i].resign)
            snprintf(words, sizeof words, "end-of-game signal: %s resigns (two of his stones on the margin)", who);
        else
            snprintf(words, sizeof words, "end-of-game signal: %s confirms (a stone of the other colour on the "
                     "margin at his lower-right corner)", who);
        st = sgf_add_event(nodes[at], sg[i].resign ? "resign_signal" : "confirm_signal",
                           sg[i].color == GS_BLACK ? "B" : "W", words, err);
    }
    return st;
}

gs_status render_truth_sgf_save(const char *path, const sgf_game *g, const render_script *sc, uint64_t seed,
                                gs_error *err)
{
    sgf_game_info info = g->info;
    const gs_move *pl;
    int np = render_script_placed(sc, &pl);
    bool partial = np < (int)g->move_count;
    if (partial) info.result[0] = 0;  /* the result belongs to the whole game */
    sgf_node *root = NULL;
    sgf_tree *t = sgf_new_game(&info, g->setup.size ? &g->setup : NULL, &root, err);
    if (!t) return err ? err->status : GS_ERR_NOMEM;
    char words[200];
    snprintf(words, sizeof words, "Truth of a synthetic video made by goscribe render (seed %llu)%s.",
             (unsigned long long)seed, partial ? "; only the opening of the game was rendered" : "");
    gs_status st = sgf_append_comment(root, words, err);
    sgf_node **nodes = calloc((size_t)np + 1, sizeof *nodes);
    if (!nodes) { sgf_tree_destroy(t); return gs_error_set(err, GS_ERR_NOMEM, "out of memory"); }
    nodes[0] = root;
    for (int i = 0; i < np && st == GS_OK; i++) {
        nodes[i + 1] = sgf_add_move(nodes[i], pl[i].color, pl[i].pt, pl[i].pass, -1, err);
        if (!nodes[i + 1]) st = err ? err->status : GS_ERR_NOMEM;
    }
    if (st == GS_OK) st = add_violation_events(nodes, np, sc, err);
    if (st == GS_OK) st = add_signal_events(nodes, np, sc, err);
    if (st == GS_OK) st = sgf_save(t, path, err);
    free(nodes);
    sgf_tree_destroy(t);
    return st;
}

gs_status render_truth_cal_save(const char *path, const render_scene *s, gs_error *err)
{
    calib_data cal;
    calib_init(&cal);
    cal.image_width = s->W;
    cal.image_height = s->H;
    render_grid(s, 0, &cal.grid);
    return calib_save(&cal, path, err);
}
