/* sgf/sgf_go.c: the Go layer over the SGF tree: point lists, game info and
 * reading a game's main line (the values themselves: sgf_value.c). */
#include "sgf/sgf_internal.h"

#include "rules/rules.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef GS_VERSION
#define GS_VERSION "0"
#endif

gs_status sgf_prop_points(const sgf_prop *p, int size, gs_point *out, size_t max,
                          size_t *count, gs_error *err)
{
    size_t n = 0;
    if (count) *count = 0;
    if (!p) return GS_OK;
    for (size_t i = 0; i < sgf_prop_value_count(p); i++) {
        size_t len;
        const char *v = sgf_prop_raw(p, i, &len);
        const char *colon = memchr(v, ':', len);
        gs_point a, b;
        bool pass_a = false, pass_b = false;
        bool ok;
        if (colon) {
            ok = sgf_point_parse(v, (size_t)(colon - v), size, &a, &pass_a) &&
                 sgf_point_parse(colon + 1, len - (size_t)(colon - v) - 1, size, &b, &pass_b) && !pass_a && !pass_b;
        } else {
            ok = sgf_point_parse(v, len, size, &a, &pass_a) && !pass_a;
            b = a;
        }
        if (!ok) {
            char shown[16];
            snprintf(shown, sizeof shown, "%.*s", (int)(len < 10 ? len : 10), v);
            return gs_error_set(err, GS_ERR_FORMAT, "%s[%s]: not a point on a %dx%d board", sgf_prop_id(p), shown, size, size);
        }
        int x0 = a.x < b.x ? a.x : b.x, x1 = a.x < b.x ? b.x : a.x;
        int y0 = a.y < b.y ? a.y : b.y, y1 = a.y < b.y ? b.y : a.y;
        for (int y = y0; y <= y1; y++)
            for (int x = x0; x <= x1; x++) {
                if (out && n < max) {
                    out[n].x = (int8_t)x;
                    out[n].y = (int8_t)y;
                }
                n++;
            }
    }
    if (count) *count = n;
    return GS_OK;
}

void sgf_game_info_init(sgf_game_info *info)
{
    memset(info, 0, sizeof *info);
    info->size = 19;
    snprintf(info->rules, sizeof info->rules, "Chinese");
}

/* Copies UTF-8 text into a fixed field, cutting at a character boundary. */
static void copy_field(char *dst, size_t cap, const char *src)
{
    if (!src) {
        dst[0] = '\0';
        return;
    }
    size_t n = strlen(src);
    if (n >= cap) {
        n = cap - 1;
        while (n > 0 && ((unsigned char)src[n] & 0xC0) == 0x80) n--;
    }
    memcpy(dst, src, n);
    dst[n] = '\0';
}

void sgf_game_free(sgf_game *g)
{
    if (!g) return;
    free(g->moves);
    free(g->move_info);
    free(g->steps);
    free(g->notes);
    g->moves = NULL;
    g->move_info = NULL;
    g->steps = NULL;
    g->notes = NULL;
    g->move_count = g->step_count = g->note_count = 0;
}

static gs_status node_err(gs_error *err, const sgf_node *n, const char *fmt, const char *a)
{
    char m[sizeof err->msg];
    snprintf(m, sizeof m, fmt, a);
    return gs_error_set(err, GS_ERR_FORMAT, "line %d, column %d: %s", sgf_node_line(n), sgf_node_column(n), m);
}

/* Applies a point-list property to a position as colour c (mask: 1 at each
 * point, when not NULL). */
static gs_status apply_points(const sgf_node *n, const char *id, int size, gs_position *pos, gs_color c, bool *any,
                              uint8_t *mask, gs_error *err)
{
    const sgf_prop *p = sgf_node_find(n, id);
    if (!p) return GS_OK;
    size_t cnt;
    gs_error e;
    if (sgf_prop_points(p, size, NULL, 0, &cnt, &e) != GS_OK)
        return node_err(err, n, "%s", e.msg);
    gs_point *pts = malloc((cnt ? cnt : 1) * sizeof *pts);
    if (!pts) return gs_error_set(err, GS_ERR_NOMEM, "sgf: out of memory");
    (void)sgf_prop_points(p, size, pts, cnt, &cnt, NULL); /* the same values passed the count above */
    for (size_t i = 0; i < cnt; i++) {
        if (pos) gs_position_set(pos, pts[i].x, pts[i].y, c);
        if (mask) mask[pts[i].y * size + pts[i].x] = 1;
    }
    free(pts);
    if (any && cnt) *any = true;
    return GS_OK;
}

static gs_status read_info(const sgf_node *root, sgf_game_info *info, gs_error *err)
{
    sgf_game_info_init(info);
    info->rules[0] = '\0';
    const char *v;
    if ((v = sgf_node_get_text(root, "SZ"))) {
        char *end;
        long s = strtol(v, &end, 10);
        while (*end == ' ' || *end == '\n' || *end == '\r' || *end == '\t') end++;
        if (*end == ':') {
            long s2 = strtol(end + 1, &end, 10);
            if (s2 != s) return node_err(err, root, "SZ[%s]: rectangular boards are not supported", v);
        }
        if (end == v || s < 1 || s > GS_MAX_SIZE) return node_err(err, root, "SZ[%s]: board size must be 1..25", v);
        info->size = (int)s;
    }
    if ((v = sgf_node_get_text(root, "KM"))) {
        if (!sgf_komi_parse(v, &info->komi)) return node_err(err, root, "KM[%s]: komi is not a number", v);
        info->has_komi = true;
    }
    if ((v = sgf_node_get_text(root, "HA"))) {
        char *end;
        long h = strtol(v, &end, 10);
        while (*end == ' ' || *end == '\n' || *end == '\r' || *end == '\t') end++;
        if (end == v || *end || h < 0 || h > 361) return node_err(err, root, "HA[%s]: handicap is not a number 0..361", v);
        info->handicap = (int)h;
    }
    copy_field(info->rules, sizeof info->rules, sgf_node_get_text(root, "RU"));
    copy_field(info->black, sizeof info->black, sgf_node_get_text(root, "PB"));
    copy_field(info->white, sizeof info->white, sgf_node_get_text(root, "PW"));
    copy_field(info->black_rank, sizeof info->black_rank, sgf_node_get_text(root, "BR"));
    copy_field(info->white_rank, sizeof info->white_rank, sgf_node_get_text(root, "WR"));
    copy_field(info->date, sizeof info->date, sgf_node_get_text(root, "DT"));
    copy_field(info->event, sizeof info->event, sgf_node_get_text(root, "EV"));
    copy_field(info->round, sizeof info->round, sgf_node_get_text(root, "RO"));
    copy_field(info->place, sizeof info->place, sgf_node_get_text(root, "PC"));
    copy_field(info->result, sizeof info->result, sgf_node_get_text(root, "RE"));
    copy_field(info->time_limit, sizeof info->time_limit, sgf_node_get_text(root, "TM"));
    return GS_OK;
}

static gs_color pl_color(const sgf_node *n)
{
    const char *pl = sgf_node_get_text(n, "PL");
    if (!pl) return GS_EMPTY;
    return (pl[0] == 'B' || pl[0] == 'b') ? GS_BLACK : (pl[0] == 'W' || pl[0] == 'w') ? GS_WHITE : GS_EMPTY;
}

/* Grows a malloc'ed array of `elem` bytes to hold one more than *count. */
static bool grow(void **arr, size_t count, size_t *cap, size_t elem)
{
    if (count < *cap) return true;
    size_t nc = *cap ? *cap * 2 : 64;
    void *na = realloc(*arr, nc * elem);
    if (!na) return false;
    *arr = na;
    *cap = nc;
    return true;
}

/* Array capacities while a game is read. */
typedef struct game_caps {
    size_t moves, info, steps, notes;
} game_caps;

/* A set-up node after the root, as a step of the main line. */
static gs_status read_setup_node(const sgf_node *n, sgf_game *g, game_caps *caps, gs_error *err)
{
    if (!sgf_node_find(n, "AB") && !sgf_node_find(n, "AW") && !sgf_node_find(n, "AE")) return GS_OK;
    if (!grow((void **)&g->steps, g->step_count, &caps->steps, sizeof *g->steps))
        return gs_error_set(err, GS_ERR_NOMEM, "sgf: out of memory");
    sgf_setup_step *st = &g->steps[g->step_count];
    memset(st, 0, sizeof *st);
    int size = g->info.size;
    gs_position_clear(&st->add, size);
    st->after_moves = g->move_count;
    st->line = sgf_node_line(n);
    st->to_move = pl_color(n);
    gs_status s;
    if ((s = apply_points(n, "AB", size, &st->add, GS_BLACK, NULL, NULL, err)) != GS_OK ||
        (s = apply_points(n, "AW", size, &st->add, GS_WHITE, NULL, NULL, err)) != GS_OK ||
        (s = apply_points(n, "AE", size, NULL, GS_EMPTY, NULL, st->clear, err)) != GS_OK)
        return s;
    g->step_count++;
    return GS_OK;
}

/* The move of node n, if any, appended to g. */
static gs_status read_move_node(const sgf_node *n, sgf_game *g, game_caps *caps, gs_error *err)
{
    const sgf_prop *b = sgf_node_find(n, "B"), *w = sgf_node_find(n, "W");
    if (b && w) return node_err(err, n, "%s", "a node holds both a black and a white move");
    const sgf_prop *mv = b ? b : w;
    if (!mv) return GS_OK;
    size_t len;
    const char *v = sgf_prop_raw(mv, 0, &len);
    gs_move m = {b ? GS_BLACK : GS_WHITE, {-1, -1}, false};
    sgf_move_info mi = {-1, sgf_node_line(n)};
    if (!sgf_point_parse(v, len, g->info.size, &m.pt, &m.pass)) {
        char shown[16], m2[64];
        snprintf(shown, sizeof shown, "%.*s", (int)(len < 10 ? len : 10), v);
        snprintf(m2, sizeof m2, "%s[%s]", b ? "B" : "W", shown);
        return node_err(err, n, "move %s is not a point on the board", m2);
    }
    const char *tm = sgf_node_get_text(n, "GSTM");
    int64_t ms;
    if (tm && sgf_time_parse(tm, &ms)) mi.time_ms = ms;
    if (!grow((void **)&g->moves, g->move_count, &caps->moves, sizeof *g->moves) ||
        !grow((void **)&g->move_info, g->move_count, &caps->info, sizeof *g->move_info))
        return gs_error_set(err, GS_ERR_NOMEM, "sgf: out of memory");
    g->move_info[g->move_count] = mi;
    g->moves[g->move_count++] = m;
    return GS_OK;
}

/* "kind:color:wb:ww:time" of a GSRL value into note (false if malformed). */
static bool parse_ruling(const char *v, sgf_game_note *note)
{
    char kind[32], col[4];
    int wb, ww, used = 0;
    if (sscanf(v, "%31[a-z_]:%3[BW-]:%d:%d:%n", kind, col, &wb, &ww, &used) != 4 || used == 0) return false;
    if (wb < 0 || ww < 0 || wb > 99 || ww > 99) return false;
    snprintf(note->code, sizeof note->code, "%s", kind);
    note->color = col[0] == 'B' ? GS_BLACK : col[0] == 'W' ? GS_WHITE : GS_EMPTY;
    note->warnings_black = wb;
    note->warnings_white = ww;
    int64_t ms;
    note->time_ms = sgf_time_parse(v + used, &ms) ? ms : -1;
    return true;
}

/* The GSEV and GSRL values of node n appended to g (a GSRL that cannot be
 * read is skipped: it is goscribe's own note, not the game). */
static gs_status read_notes(const sgf_node *n, sgf_game *g, game_caps *caps, int *wb, int *ww, gs_error *err)
{
    static const char *const ids[2] = {"GSEV", "GSRL"};
    for (int k = 0; k < 2; k++) {
        const sgf_prop *p = sgf_node_find(n, ids[k]);
        for (size_t i = 0; p && i < sgf_prop_value_count(p); i++) {
            const char *v = sgf_prop_text(p, i, NULL);
            sgf_game_note note;
            memset(&note, 0, sizeof note);
            note.ruling = k == 1;
            note.after_moves = g->move_count;
            note.line = sgf_node_line(n);
            note.time_ms = -1;
            if (note.ruling) {
                if (!parse_ruling(v, &note)) continue;
                note.warned = (note.color == GS_BLACK && note.warnings_black > *wb) ||
                              (note.color == GS_WHITE && note.warnings_white > *ww);
                *wb = note.warnings_black;
                *ww = note.warnings_white;
            } else {
                const char *colon = strchr(v, ':');
                size_t cl = colon ? (size_t)(colon - v) : strlen(v);
                snprintf(note.code, sizeof note.code, "%.*s", (int)(cl < 31 ? cl : 31), v);
                copy_field(note.detail, sizeof note.detail, colon ? colon + 1 : "");
            }
            if (!grow((void **)&g->notes, g->note_count, &caps->notes, sizeof *g->notes))
                return gs_error_set(err, GS_ERR_NOMEM, "sgf: out of memory");
            g->notes[g->note_count++] = note;
        }
    }
    return GS_OK;
}

/* The main line after the root: moves, set-up steps, notes; *last gets its
 * last node. */
static gs_status read_main_line(const sgf_node *root, sgf_game *g, const sgf_node **last, gs_error *err)
{
    game_caps caps = {0};
    int wb = 0, ww = 0;
    gs_status st = GS_OK;
    *last = root;
    for (const sgf_node *n = root; n && st == GS_OK; n = sgf_node_child(n, 0)) {
        *last = n;
        if (n != root) st = read_setup_node(n, g, &caps, err);
        if (st == GS_OK) st = read_move_node(n, g, &caps, err);
        if (st == GS_OK) st = read_notes(n, g, &caps, &wb, &ww, err);
    }
    return st;
}

gs_status sgf_game_from_tree(const sgf_tree *t, sgf_game *g, gs_error *err)
{
    if (!g) return gs_error_set(err, GS_ERR_USAGE, "sgf_game_from_tree: no output");
    memset(g, 0, sizeof *g);
    const sgf_node *root = sgf_tree_root(t, 0);
    if (!root) return gs_error_set(err, GS_ERR_NOBOARD, "no game in the SGF");
    copy_field(g->source_charset, sizeof g->source_charset, sgf_tree_source_charset(t));
    const char *gm = sgf_node_get_text(root, "GM");
    if (gm && atoi(gm) != 1) return node_err(err, root, "GM[%s]: not a Go game", gm);
    gs_status st = read_info(root, &g->info, err);
    if (st != GS_OK) return st;
    int size = g->info.size;
    gs_position_clear(&g->setup, size);
    gs_position_clear(&g->final_marks, size);
    g->to_move = pl_color(root);
    const sgf_node *last = root;
    if ((st = apply_points(root, "AB", size, &g->setup, GS_BLACK, NULL, NULL, err)) != GS_OK ||
        (st = apply_points(root, "AW", size, &g->setup, GS_WHITE, NULL, NULL, err)) != GS_OK ||
        (st = apply_points(root, "AE", size, &g->setup, GS_EMPTY, NULL, NULL, err)) != GS_OK ||
        (st = read_main_line(root, g, &last, err)) != GS_OK ||
        (st = apply_points(last, "TB", size, &g->final_marks, GS_BLACK, &g->has_final_marks, NULL, err)) != GS_OK ||
        (st = apply_points(last, "TW", size, &g->final_marks, GS_WHITE, &g->has_final_marks, NULL, err)) != GS_OK) {
        sgf_game_free(g);
        return st;
    }
    return GS_OK;
}

gs_status sgf_game_load(const char *path, sgf_game *g, gs_error *err)
{
    if (g) memset(g, 0, sizeof *g);
    sgf_tree *t = NULL;
    gs_status st = sgf_load(path, &t, err);
    if (st != GS_OK) return st;
    st = sgf_game_from_tree(t, g, err);
    sgf_tree_destroy(t);
    return st;
}
