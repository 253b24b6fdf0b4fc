/* sgf/sgf_go.c: the Go layer over the SGF tree: points, komi, game info,
 * reading a game's main line, and the builders a recorder uses. */
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

static int letter_index(char c)
{
    if (c >= 'a' && c <= 'z') return c - 'a';
    if (c >= 'A' && c <= 'Z') return c - 'A' + 26;
    return -1;
}

bool sgf_point_parse(const char *v, size_t len, int size, gs_point *p, bool *pass)
{
    gs_point none = {-1, -1};
    if (p) *p = none;
    if (pass) *pass = false;
    if (!v || size < 1 || size > 52) return false;
    /* Tolerate surrounding whitespace ("B[ ]", "B[pd ]"). */
    while (len > 0 && (v[0] == ' ' || v[0] == '\t' || v[0] == '\n' || v[0] == '\r')) { v++; len--; }
    while (len > 0 && (v[len - 1] == ' ' || v[len - 1] == '\t' || v[len - 1] == '\n' || v[len - 1] == '\r')) len--;
    if (len == 0 || (len == 2 && v[0] == 't' && v[1] == 't' && size <= 19)) {
        if (pass) *pass = true;
        return true;
    }
    if (len != 2) return false;
    int x = letter_index(v[0]), y = letter_index(v[1]);
    if (x < 0 || y < 0 || x >= size || y >= size) return false;
    if (p) {
        p->x = (int8_t)x;
        p->y = (int8_t)y;
    }
    return true;
}

void sgf_point_format(gs_point p, char buf[3])
{
    /* The letters are rules_point_sgf's (the one SGF point writer); an SGF
     * point value always has two, so a coordinate outside 0..51 is written
     * as 'a'. */
    gs_point q = {(int8_t)(p.x < 0 || p.x > 51 ? 0 : p.x), (int8_t)(p.y < 0 || p.y > 51 ? 0 : p.y)};
    rules_point_sgf(q, buf);
}

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

bool sgf_komi_parse(const char *value, double *komi)
{
    if (!value) return false;
    while (*value == ' ' || *value == '\t' || *value == '\n' || *value == '\r') value++;
    if (!*value) return false;
    char *end;
    errno = 0;
    double k = strtod(value, &end);
    if (end == value || errno == ERANGE || !isfinite(k)) return false;
    while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r') end++;
    if (*end) return false;
    /* Hundredths of stones (375 = 3 3/4 stones = 7.5 points). */
    if (fabs(k) >= 100 && fabs(k) < 10000 && fmod(fabs(k), 25.0) == 0.0) k /= 50.0;
    if (komi) *komi = k;
    return true;
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
    g->moves = NULL;
    g->move_info = NULL;
    g->move_count = 0;
}

static gs_status node_err(gs_error *err, const sgf_node *n, const char *fmt, const char *a)
{
    char m[sizeof err->msg];
    snprintf(m, sizeof m, fmt, a);
    return gs_error_set(err, GS_ERR_FORMAT, "line %d, column %d: %s", sgf_node_line(n), sgf_node_column(n), m);
}

/* Applies a point-list property to a position as colour c. */
static gs_status apply_points(const sgf_node *n, const char *id, int size, gs_position *pos, gs_color c, bool *any, gs_error *err)
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
    for (size_t i = 0; i < cnt; i++) gs_position_set(pos, pts[i].x, pts[i].y, c);
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
    if ((st = apply_points(root, "AB", size, &g->setup, GS_BLACK, NULL, err)) != GS_OK ||
        (st = apply_points(root, "AW", size, &g->setup, GS_WHITE, NULL, err)) != GS_OK ||
        (st = apply_points(root, "AE", size, &g->setup, GS_EMPTY, NULL, err)) != GS_OK)
        return st;

    size_t cap = 0;
    const sgf_node *last = root;
    for (const sgf_node *n = root; n; n = sgf_node_child(n, 0)) {
        last = n;
        if (n != root && (sgf_node_find(n, "AB") || sgf_node_find(n, "AW") || sgf_node_find(n, "AE")))
            g->midgame_setup_nodes++;
        const sgf_prop *b = sgf_node_find(n, "B"), *w = sgf_node_find(n, "W");
        if (b && w) {
            sgf_game_free(g);
            return node_err(err, n, "%s", "a node holds both a black and a white move");
        }
        const sgf_prop *mv = b ? b : w;
        if (!mv) continue;
        size_t len;
        const char *v = sgf_prop_raw(mv, 0, &len);
        gs_move m = {b ? GS_BLACK : GS_WHITE, {-1, -1}, false};
        sgf_move_info mi = {-1, sgf_node_line(n)};
        if (!sgf_point_parse(v, len, size, &m.pt, &m.pass)) {
            char shown[16];
            snprintf(shown, sizeof shown, "%.*s", (int)(len < 10 ? len : 10), v);
            char m2[64];
            snprintf(m2, sizeof m2, "%s[%s]", b ? "B" : "W", shown);
            sgf_game_free(g);
            return node_err(err, n, "move %s is not a point on the board", m2);
        }
        const char *tm = sgf_node_get_text(n, "GSTM");
        int64_t ms;
        if (tm && sgf_time_parse(tm, &ms)) mi.time_ms = ms;
        if (g->move_count == cap) {
            size_t nc = cap ? cap * 2 : 256;
            gs_move *nm = realloc(g->moves, nc * sizeof *nm);
            if (nm) g->moves = nm;
            sgf_move_info *ni = nm ? realloc(g->move_info, nc * sizeof *ni) : NULL;
            if (!ni) {
                sgf_game_free(g);
                return gs_error_set(err, GS_ERR_NOMEM, "sgf: out of memory");
            }
            g->move_info = ni;
            cap = nc;
        }
        g->move_info[g->move_count] = mi;
        g->moves[g->move_count++] = m;
    }
    if ((st = apply_points(last, "TB", size, &g->final_marks, GS_BLACK, &g->has_final_marks, err)) != GS_OK ||
        (st = apply_points(last, "TW", size, &g->final_marks, GS_WHITE, &g->has_final_marks, err)) != GS_OK) {
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

/* ------------------------------------------------------------- builders */

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

void sgf_time_format(int64_t unix_ms, char buf[32])
{
    if (unix_ms < 0) unix_ms = 0;
    time_t secs = (time_t)(unix_ms / 1000);
    struct tm tmv;
    if (!gmtime_r(&secs, &tmv)) {
        snprintf(buf, 32, "1970-01-01T00:00:00.000Z");
        return;
    }
    char tmp[96];
    snprintf(tmp, sizeof tmp, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tmv.tm_year + 1900, tmv.tm_mon + 1, tmv.tm_mday,
             tmv.tm_hour, tmv.tm_min, tmv.tm_sec, (int)(unix_ms % 1000));
    snprintf(buf, 32, "%.31s", tmp);
}

bool sgf_time_parse(const char *text, int64_t *unix_ms)
{
    if (!text) return false;
    int Y, M, D, h, m, s, n = 0;
    if (sscanf(text, "%4d-%2d-%2dT%2d:%2d:%2d%n", &Y, &M, &D, &h, &m, &s, &n) != 6 || n != 19) return false;
    if (M < 1 || M > 12 || D < 1 || D > 31 || h > 23 || m > 59 || s > 60 || h < 0 || m < 0 || s < 0) return false;
    const char *p = text + n;
    int ms = 0;
    if (*p == '.') {
        int digits = 0;
        p++;
        while (*p >= '0' && *p <= '9') {
            if (digits < 3) ms = ms * 10 + (*p - '0');
            digits++;
            p++;
        }
        if (digits == 0) return false;
        for (int i = digits; i < 3; i++) ms *= 10;
    }
    if (*p != 'Z' || p[1]) return false;
    struct tm tmv = {0};
    tmv.tm_year = Y - 1900;
    tmv.tm_mon = M - 1;
    tmv.tm_mday = D;
    tmv.tm_hour = h;
    tmv.tm_min = m;
    tmv.tm_sec = s;
    time_t t = timegm(&tmv);
    if (t == (time_t)-1) return false;
    if (unix_ms) *unix_ms = (int64_t)t * 1000 + ms;
    return true;
}
