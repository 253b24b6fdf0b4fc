/* sgf/sgf_build.c: the builders of a recording (sgf.h, "recording
 * builders"): a new game, moves, set-up nodes, referee events and rulings
 * (goscribe's private properties), comments and the final count. */
#include "sgf/sgf_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef GS_VERSION
#define GS_VERSION "0"
#endif

static gs_status add_opt(sgf_node *n, const char *id, const char *text, gs_error *err)
{
    if (!text || !text[0]) return GS_OK;
    return sgf_node_add_text(n, id, text, err);
}

static gs_status add_points(sgf_node *n, const char *id, const gs_position *pos, gs_color c, gs_error *err)
{
    for (int y = 0; y < pos->size; y++)
        for (int x = 0; x < pos->size; x++) {
            if (gs_position_get(pos, x, y) != c) continue;
            char pt[3];
            gs_point p = {(int8_t)x, (int8_t)y};
            sgf_point_format(p, pt);
            gs_status st = sgf_node_add_raw(n, id, pt, err);
            if (st != GS_OK) return st;
        }
    return GS_OK;
}

sgf_tree *sgf_new_game(const sgf_game_info *info, const gs_position *setup,
                       sgf_node **root_out, gs_error *err)
{
    if (root_out) *root_out = NULL;
    if (!info || info->size < 1 || info->size > GS_MAX_SIZE) {
        gs_error_set(err, GS_ERR_USAGE, "sgf_new_game: board size must be 1..25");
        return NULL;
    }
    if (setup && setup->size != info->size) {
        gs_error_set(err, GS_ERR_USAGE, "sgf_new_game: setup is %dx%d, game is %dx%d", setup->size, setup->size, info->size, info->size);
        return NULL;
    }
    sgf_tree *t = sgf_tree_create();
    sgf_node *r = t ? sgf_tree_add_root(t) : NULL;
    if (!r) {
        sgf_tree_destroy(t);
        gs_error_set(err, GS_ERR_NOMEM, "sgf: out of memory");
        return NULL;
    }
    char num[64];
    gs_status st = GS_OK;
#define STEP(x) do { if (st == GS_OK) st = (x); } while (0)
    STEP(sgf_node_add_raw(r, "GM", "1", err));
    STEP(sgf_node_add_raw(r, "FF", "4", err));
    STEP(sgf_node_add_raw(r, "CA", "UTF-8", err));
    STEP(sgf_node_add_raw(r, "AP", "goscribe:" GS_VERSION, err));
    snprintf(num, sizeof num, "%d", info->size);
    STEP(sgf_node_add_raw(r, "SZ", num, err));
    if (info->has_komi) {
        snprintf(num, sizeof num, "%g", info->komi);
        STEP(sgf_node_add_raw(r, "KM", num, err));
    }
    STEP(add_opt(r, "RU", info->rules, err));
    if (info->handicap > 0) {
        snprintf(num, sizeof num, "%d", info->handicap);
        STEP(sgf_node_add_raw(r, "HA", num, err));
    }
    STEP(add_opt(r, "PB", info->black, err));
    STEP(add_opt(r, "BR", info->black_rank, err));
    STEP(add_opt(r, "PW", info->white, err));
    STEP(add_opt(r, "WR", info->white_rank, err));
    STEP(add_opt(r, "DT", info->date, err));
    STEP(add_opt(r, "EV", info->event, err));
    STEP(add_opt(r, "RO", info->round, err));
    STEP(add_opt(r, "PC", info->place, err));
    STEP(add_opt(r, "TM", info->time_limit, err));
    STEP(add_opt(r, "RE", info->result, err));
    if (setup) {
        STEP(add_points(r, "AB", setup, GS_BLACK, err));
        STEP(add_points(r, "AW", setup, GS_WHITE, err));
    }
#undef STEP
    if (st != GS_OK) {
        sgf_tree_destroy(t);
        return NULL;
    }
    if (root_out) *root_out = r;
    return t;
}

sgf_node *sgf_add_move(sgf_node *parent, gs_color color, gs_point pt, bool pass,
                       int64_t time_ms, gs_error *err)
{
    if (!parent || (color != GS_BLACK && color != GS_WHITE)) {
        gs_error_set(err, GS_ERR_USAGE, "sgf_add_move: no parent or no colour");
        return NULL;
    }
    char v[3] = "";
    if (!pass) {
        if (pt.x < 0 || pt.y < 0 || pt.x >= GS_MAX_SIZE || pt.y >= GS_MAX_SIZE) {
            gs_error_set(err, GS_ERR_USAGE, "sgf_add_move: point (%d,%d) off the board", pt.x, pt.y);
            return NULL;
        }
        sgf_point_format(pt, v);
    }
    sgf_node *n = sgf_node_add_child(parent);
    if (!n) {
        gs_error_set(err, GS_ERR_NOMEM, "sgf: out of memory");
        return NULL;
    }
    /* A failure below leaves an empty node; harmless in SGF. */
    if (sgf_node_add_raw(n, color == GS_BLACK ? "B" : "W", v, err) != GS_OK) return NULL;
    if (time_ms >= 0) {
        char tb[32];
        sgf_time_format(time_ms, tb);
        if (sgf_node_add_raw(n, "GSTM", tb, err) != GS_OK) return NULL;
    }
    return n;
}

sgf_node *sgf_add_setup(sgf_node *parent, const gs_position *from, const gs_position *to, gs_color to_move,
                        int *changed, gs_error *err)
{
    if (changed) *changed = 0;
    if (!parent || !from || !to || from->size != to->size) {
        gs_error_set(err, GS_ERR_USAGE, "sgf_add_setup: no parent or positions of different sizes");
        return NULL;
    }
    sgf_node *n = sgf_node_add_child(parent);
    if (!n) {
        gs_error_set(err, GS_ERR_NOMEM, "sgf: out of memory");
        return NULL;
    }
    int cnt = 0, size = to->size;
    for (int i = 0; i < size * size; i++) {
        if (from->cell[i] == to->cell[i]) continue;
        char s[3];
        sgf_point_format((gs_point){(int8_t)(i % size), (int8_t)(i / size)}, s);
        /* FF[4]: AB/AW overwrite what was there, so a colour change is one
         * property (AE and AB on one point in one node is an error) */
        const char *id = to->cell[i] == GS_BLACK ? "AB" : to->cell[i] == GS_WHITE ? "AW" : "AE";
        if (sgf_node_add_raw(n, id, s, err) != GS_OK) return NULL;
        cnt++;
    }
    if (to_move == GS_BLACK || to_move == GS_WHITE) {
        if (sgf_node_add_raw(n, "PL", to_move == GS_WHITE ? "W" : "B", err) != GS_OK) return NULL;
    }
    if (changed) *changed = cnt;
    return n;
}

gs_status sgf_append_comment(sgf_node *n, const char *text, gs_error *err)
{
    if (!n || !text) return gs_error_set(err, GS_ERR_USAGE, "sgf_append_comment: no node or text");
    const char *old = sgf_node_get_text(n, "C");
    if (!old || !old[0]) return sgf_node_set_text(n, "C", text, err);
    size_t a = strlen(old), b = strlen(text);
    char *joined = malloc(a + b + 3);
    if (!joined) return gs_error_set(err, GS_ERR_NOMEM, "sgf: out of memory");
    memcpy(joined, old, a);
    memcpy(joined + a, "\n\n", 2);
    memcpy(joined + a + 2, text, b + 1);
    gs_status st = sgf_node_set_text(n, "C", joined, err);
    free(joined);
    return st;
}

gs_status sgf_add_event(sgf_node *n, const char *code, const char *detail,
                        const char *words, gs_error *err)
{
    if (!n || !code || !code[0]) return gs_error_set(err, GS_ERR_USAGE, "sgf_add_event: no node or code");
    for (const char *c = code; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_'))
            return gs_error_set(err, GS_ERR_USAGE, "sgf_add_event: code \"%s\" must be lower-case letters, digits, '_'", code);
    /* code:detail is a composed value: escape ':' in the detail as well. */
    const char *d = detail ? detail : "";
    size_t dl = strlen(d), cl = strlen(code);
    char *raw = malloc(cl + 1 + dl * 2 + 1);
    if (!raw) return gs_error_set(err, GS_ERR_NOMEM, "sgf: out of memory");
    memcpy(raw, code, cl);
    size_t k = cl;
    raw[k++] = ':';
    for (size_t i = 0; i < dl; i++) {
        if (d[i] == '\\' || d[i] == ']' || d[i] == ':') raw[k++] = '\\';
        raw[k++] = d[i];
    }
    raw[k] = '\0';
    gs_status st = sgf_node_add_raw(n, "GSEV", raw, err);
    free(raw);
    if (st == GS_OK && words && words[0]) st = sgf_append_comment(n, words, err);
    return st;
}

gs_status sgf_add_ruling(sgf_node *n, const char *kind, gs_color color, int warnings_black, int warnings_white,
                         int64_t unix_ms, const char *words, gs_error *err)
{
    if (!n || !kind || !kind[0]) return gs_error_set(err, GS_ERR_USAGE, "sgf_add_ruling: no node or kind");
    for (const char *c = kind; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || *c == '_'))
            return gs_error_set(err, GS_ERR_USAGE, "sgf_add_ruling: kind \"%s\" must be lower-case letters, '_'", kind);
    if (warnings_black < 0 || warnings_white < 0 || warnings_black > 99 || warnings_white > 99)
        return gs_error_set(err, GS_ERR_USAGE, "sgf_add_ruling: warnings out of range");
    char tbuf[32], val[96];
    sgf_time_format(unix_ms, tbuf);
    snprintf(val, sizeof val, "%.31s:%s:%d:%d:%s", kind, color == GS_BLACK ? "B" : color == GS_WHITE ? "W" : "-",
             warnings_black, warnings_white, tbuf);
    gs_status st = sgf_node_add_raw(n, "GSRL", val, err);
    if (st == GS_OK && words && words[0]) st = sgf_append_comment(n, words, err);
    return st;
}

/* The end of the paragraph starting at p (a blank line or the end). */
static const char *paragraph_end(const char *p)
{
    const char *e = strstr(p, "\n\n");
    return e ? e : p + strlen(p);
}

int sgf_remove_comment_paragraphs(sgf_node *n, const char *prefix, gs_error *err)
{
    const char *old = n && prefix ? sgf_node_get_text(n, "C") : NULL;
    if (!old) return 0;
    size_t plen = strlen(prefix);
    gs_buf kept = {0};
    int removed = 0;
    for (const char *p = old; *p;) {
        const char *e = paragraph_end(p);
        if (!strncmp(p, prefix, plen)) {
            removed++;
        } else {
            if (kept.len) gs_buf_puts(&kept, "\n\n");
            gs_buf_add(&kept, p, (size_t)(e - p));
        }
        p = *e ? e + 2 : e;
        while (*p == '\n') p++;
    }
    if (!removed || !gs_buf_ok(&kept)) {
        if (!gs_buf_ok(&kept)) gs_error_set(err, GS_ERR_NOMEM, "sgf: out of memory");
        gs_buf_free(&kept);
        return 0;
    }
    if (kept.len) {
        if (sgf_node_set_text(n, "C", kept.p, err) != GS_OK) removed = 0;
    } else {
        sgf_node_remove(n, "C");
    }
    gs_buf_free(&kept);
    return removed;
}

gs_status sgf_clear_final_count(sgf_node *n, gs_error *err)
{
    if (!n) return gs_error_set(err, GS_ERR_USAGE, "sgf_clear_final_count: no node");
    sgf_node_remove(n, "TB");
    sgf_node_remove(n, "TW");
    sgf_node_remove(sgf_node_root(n), "RE");
    gs_error e = {0};
    (void)sgf_remove_comment_paragraphs(n, SGF_COUNT_WORDS_PREFIX, &e);
    return e.status == GS_OK ? GS_OK : gs_error_set(err, e.status, "%s", e.msg);
}

gs_status sgf_set_final_count(sgf_node *n, const gs_position *area, const char *words,
                              const char *result, gs_error *err)
{
    if (!n) return gs_error_set(err, GS_ERR_USAGE, "sgf_set_final_count: no node");
    gs_status st = GS_OK;
    if (area) {
        sgf_node_remove(n, "TB");
        sgf_node_remove(n, "TW");
        st = add_points(n, "TB", area, GS_BLACK, err);
        if (st == GS_OK) st = add_points(n, "TW", area, GS_WHITE, err);
    }
    if (st == GS_OK && words && words[0]) st = sgf_append_comment(n, words, err);
    if (st == GS_OK && result) st = sgf_node_set_text(sgf_node_root(n), "RE", result, err);
    return st;
}
