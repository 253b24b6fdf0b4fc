/* samples/truth.c: the truth of a render: one JSON line per frame (format
 * in render.h). */
#include "samples/render_internal.h"

#include <errno.h>
#include <string.h>

static void sgf_pt(gs_point p, char buf[3])
{
    if (p.x < 0 || p.y < 0) { buf[0] = 0; return; }
    buf[0] = (char)('a' + p.x);
    buf[1] = (char)('a' + p.y);
    buf[2] = 0;
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
        fprintf(f, "%s{\"type\":\"%s\",\"move\":%d,\"point\":\"%s\"}", k++ ? "," : "", render_violation_code(v[i].type),
                v[i].move, b);
    }
    fputs("]}\n", f);
    if (ferror(f)) return gs_error_set(err, GS_ERR_IO, "writing the truth: %s", strerror(errno));
    return GS_OK;
}
