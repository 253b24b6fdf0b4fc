/* sgf/sgf.c: the SGF game tree, its iterative parser and writer.
 *
 * Nodes are malloc'ed one by one and also listed in the tree's `all` array,
 * so destroying a tree of any depth is a flat loop (no recursion).  The
 * parser keeps its open game trees on a heap array for the same reason. */
#include "sgf/sgf_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sgf_value {
    char *raw;
    size_t raw_len;
    char *text;       /* unescaped, computed when the value is stored */
    size_t text_len;
} sgf_value;

struct sgf_prop {
    char id[SGF_MAX_IDENT + 1];
    sgf_value *vals;
    size_t nvals, cap;
};

struct sgf_node {
    sgf_tree *tree;
    sgf_node *parent, *first_child, *last_child, *next;
    size_t nchildren;
    sgf_prop **props;
    size_t nprops, capprops;
    int line, col;
};

struct sgf_tree {
    sgf_node **roots;
    size_t nroots, caproots;
    sgf_node **all;
    size_t nall, capall;
    const char *charset;
};

/* Grows *arr (elements of size elem) to hold at least need; false on OOM. */
static bool grow(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return true;
    size_t nc = *cap ? *cap : 8;
    while (nc < need) {
        if (nc > SIZE_MAX / 2 / elem) return false;
        nc *= 2;
    }
    void *p = realloc(*arr, nc * elem);
    if (!p) return false;
    *arr = p;
    *cap = nc;
    return true;
}

/* ------------------------------------------------------------ tree basics */

sgf_tree *sgf_tree_create(void)
{
    sgf_tree *t = calloc(1, sizeof *t);
    if (t) t->charset = "UTF-8";
    return t;
}

static void value_free(sgf_value *v)
{
    free(v->raw);
    free(v->text);
}

static void prop_free(sgf_prop *p)
{
    if (!p) return;
    for (size_t i = 0; i < p->nvals; i++) value_free(&p->vals[i]);
    free(p->vals);
    free(p);
}

void sgf_tree_destroy(sgf_tree *t)
{
    if (!t) return;
    for (size_t i = 0; i < t->nall; i++) {
        sgf_node *n = t->all[i];
        for (size_t j = 0; j < n->nprops; j++) prop_free(n->props[j]);
        free(n->props);
        free(n);
    }
    free(t->all);
    free(t->roots);
    free(t);
}

const char *sgf_tree_source_charset(const sgf_tree *t) { return t && t->charset ? t->charset : "UTF-8"; }
void sgf_tree_set_source_charset(sgf_tree *t, const char *charset) { if (t) t->charset = charset; }
size_t sgf_tree_game_count(const sgf_tree *t) { return t ? t->nroots : 0; }
sgf_node *sgf_tree_root(const sgf_tree *t, size_t i) { return t && i < t->nroots ? t->roots[i] : NULL; }

static sgf_node *node_new(sgf_tree *t)
{
    if (!grow((void **)&t->all, &t->capall, t->nall + 1, sizeof *t->all)) return NULL;
    sgf_node *n = calloc(1, sizeof *n);
    if (!n) return NULL;
    n->tree = t;
    t->all[t->nall++] = n;
    return n;
}

sgf_node *sgf_tree_add_root(sgf_tree *t)
{
    if (!t) return NULL;
    if (!grow((void **)&t->roots, &t->caproots, t->nroots + 1, sizeof *t->roots)) return NULL;
    sgf_node *n = node_new(t);
    if (!n) return NULL;
    t->roots[t->nroots++] = n;
    return n;
}

sgf_node *sgf_node_add_child(sgf_node *parent)
{
    if (!parent) return NULL;
    sgf_node *n = node_new(parent->tree);
    if (!n) return NULL;
    n->parent = parent;
    if (parent->last_child) parent->last_child->next = n;
    else parent->first_child = n;
    parent->last_child = n;
    parent->nchildren++;
    return n;
}

sgf_node *sgf_node_parent(const sgf_node *n) { return n ? n->parent : NULL; }
size_t sgf_node_child_count(const sgf_node *n) { return n ? n->nchildren : 0; }
sgf_node *sgf_node_next_sibling(const sgf_node *n) { return n ? n->next : NULL; }
int sgf_node_line(const sgf_node *n) { return n ? n->line : 0; }
int sgf_node_column(const sgf_node *n) { return n ? n->col : 0; }

sgf_node *sgf_node_child(const sgf_node *n, size_t i)
{
    if (!n || i >= n->nchildren) return NULL;
    sgf_node *c = n->first_child;
    while (i-- && c) c = c->next;
    return c;
}

sgf_node *sgf_node_root(const sgf_node *n)
{
    if (!n) return NULL;
    while (n->parent) n = n->parent;
    return (sgf_node *)n;
}

sgf_node *sgf_node_main_line_last(const sgf_node *n)
{
    if (!n) return NULL;
    while (n->first_child) n = n->first_child;
    return (sgf_node *)n;
}

size_t sgf_node_prop_count(const sgf_node *n) { return n ? n->nprops : 0; }
const sgf_prop *sgf_node_prop(const sgf_node *n, size_t i) { return n && i < n->nprops ? n->props[i] : NULL; }

const sgf_prop *sgf_node_find(const sgf_node *n, const char *id)
{
    if (!n || !id) return NULL;
    for (size_t i = 0; i < n->nprops; i++)
        if (strcmp(n->props[i]->id, id) == 0) return n->props[i];
    return NULL;
}

const char *sgf_prop_id(const sgf_prop *p) { return p ? p->id : NULL; }
size_t sgf_prop_value_count(const sgf_prop *p) { return p ? p->nvals : 0; }

const char *sgf_prop_raw(const sgf_prop *p, size_t i, size_t *len)
{
    if (!p || i >= p->nvals) return NULL;
    if (len) *len = p->vals[i].raw_len;
    return p->vals[i].raw;
}

const char *sgf_prop_text(const sgf_prop *p, size_t i, size_t *len)
{
    if (!p || i >= p->nvals) return NULL;
    if (len) *len = p->vals[i].text_len;
    return p->vals[i].text;
}

const char *sgf_node_get_text(const sgf_node *n, const char *id)
{
    return sgf_prop_text(sgf_node_find(n, id), 0, NULL);
}

/* ------------------------------------------------------------- values */

/* FF[4] Text unescaping (see sgf.h).  dst must hold len + 1 bytes. */
static size_t unescape_text(const char *s, size_t len, char *dst)
{
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == '\\' && i + 1 < len) {
            char d = s[++i];
            if (d == '\n' || d == '\r') {            /* soft line break */
                if (i + 1 < len && (s[i + 1] == '\n' || s[i + 1] == '\r') && s[i + 1] != d) i++;
                continue;
            }
            dst[o++] = d;
        } else if (c == '\n' || c == '\r') {
            if (i + 1 < len && (s[i + 1] == '\n' || s[i + 1] == '\r') && s[i + 1] != c) i++;
            dst[o++] = '\n';
        } else if (c == '\t' || c == '\v' || c == '\f') {
            dst[o++] = ' ';
        } else {
            dst[o++] = c;
        }
    }
    dst[o] = '\0';
    return o;
}

/* Escapes '\' and ']' for writing; *outlen gets the length. NULL on OOM. */
static char *escape_text(const char *s, size_t len, size_t *outlen)
{
    size_t extra = 0;
    for (size_t i = 0; i < len; i++)
        if (s[i] == '\\' || s[i] == ']') extra++;
    char *o = malloc(len + extra + 1);
    if (!o) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\\' || s[i] == ']') o[k++] = '\\';
        o[k++] = s[i];
    }
    o[k] = '\0';
    *outlen = k;
    return o;
}

static bool value_init(sgf_value *v, const char *raw, size_t len)
{
    v->raw = malloc(len + 1);
    v->text = malloc(len + 1);
    if (!v->raw || !v->text) {
        free(v->raw);
        free(v->text);
        v->raw = v->text = NULL;
        return false;
    }
    memcpy(v->raw, raw, len);
    v->raw[len] = '\0';
    v->raw_len = len;
    v->text_len = unescape_text(raw, len, v->text);
    return true;
}

static sgf_prop *prop_new(const char *id)
{
    sgf_prop *p = calloc(1, sizeof *p);
    if (p) snprintf(p->id, sizeof p->id, "%s", id);
    return p;
}

static bool prop_add_value(sgf_prop *p, const char *raw, size_t len)
{
    if (!grow((void **)&p->vals, &p->cap, p->nvals + 1, sizeof *p->vals)) return false;
    if (!value_init(&p->vals[p->nvals], raw, len)) return false;
    p->nvals++;
    return true;
}

static bool node_append_prop(sgf_node *n, sgf_prop *p)
{
    if (!grow((void **)&n->props, &n->capprops, n->nprops + 1, sizeof *n->props)) return false;
    n->props[n->nprops++] = p;
    return true;
}

static bool ident_ok(const char *id)
{
    size_t n = id ? strlen(id) : 0;
    if (n == 0 || n > SGF_MAX_IDENT) return false;
    for (size_t i = 0; i < n; i++)
        if (id[i] < 'A' || id[i] > 'Z') return false;
    return true;
}

static gs_status add_raw_len(sgf_node *n, const char *id, const char *raw, size_t len, gs_error *err)
{
    if (!n || !raw) return gs_error_set(err, GS_ERR_USAGE, "sgf: no node or value");
    if (!ident_ok(id)) return gs_error_set(err, GS_ERR_USAGE, "sgf: bad property name \"%s\"", id ? id : "");
    sgf_prop *p = (sgf_prop *)sgf_node_find(n, id);
    bool fresh = false;
    if (!p) {
        p = prop_new(id);
        if (!p) return gs_error_set(err, GS_ERR_NOMEM, "sgf: out of memory");
        fresh = true;
    }
    if (!prop_add_value(p, raw, len) || (fresh && !node_append_prop(n, p))) {
        if (fresh) prop_free(p);
        return gs_error_set(err, GS_ERR_NOMEM, "sgf: out of memory");
    }
    return GS_OK;
}

gs_status sgf_node_add_raw(sgf_node *n, const char *id, const char *raw, gs_error *err)
{
    if (raw) {
        /* An unescaped ']' would end the value early when read back. */
        for (size_t i = 0; raw[i]; i++) {
            if (raw[i] == '\\' && raw[i + 1]) { i++; continue; }
            if (raw[i] == ']' || (raw[i] == '\\' && !raw[i + 1]))
                return gs_error_set(err, GS_ERR_USAGE, "sgf: raw value for %s has an unescaped ']' or '\\'", id ? id : "");
        }
    }
    return add_raw_len(n, id, raw, raw ? strlen(raw) : 0, err);
}

gs_status sgf_node_add_text(sgf_node *n, const char *id, const char *text, gs_error *err)
{
    if (!text) return gs_error_set(err, GS_ERR_USAGE, "sgf: no text");
    size_t len;
    char *raw = escape_text(text, strlen(text), &len);
    if (!raw) return gs_error_set(err, GS_ERR_NOMEM, "sgf: out of memory");
    gs_status s = add_raw_len(n, id, raw, len, err);
    free(raw);
    return s;
}

void sgf_node_remove(sgf_node *n, const char *id)
{
    if (!n || !id) return;
    size_t k = 0;
    for (size_t i = 0; i < n->nprops; i++) {
        if (strcmp(n->props[i]->id, id) == 0) prop_free(n->props[i]);
        else n->props[k++] = n->props[i];
    }
    n->nprops = k;
}

gs_status sgf_node_set_text(sgf_node *n, const char *id, const char *text, gs_error *err)
{
    if (!n || !text) return gs_error_set(err, GS_ERR_USAGE, "sgf: no node or text");
    if (!ident_ok(id)) return gs_error_set(err, GS_ERR_USAGE, "sgf: bad property name \"%s\"", id ? id : "");
    /* Keep the property's place among the node's properties. */
    sgf_prop *p = (sgf_prop *)sgf_node_find(n, id);
    if (!p) return sgf_node_add_text(n, id, text, err);
    size_t len;
    char *raw = escape_text(text, strlen(text), &len);
    sgf_value v;
    if (!raw || !value_init(&v, raw, len)) {
        free(raw);
        return gs_error_set(err, GS_ERR_NOMEM, "sgf: out of memory");
    }
    free(raw);
    for (size_t i = 0; i < p->nvals; i++) value_free(&p->vals[i]);
    p->vals[0] = v;
    p->nvals = 1;
    /* Drop later duplicates of the same identifier. */
    size_t k = 0;
    for (size_t i = 0; i < n->nprops; i++) {
        if (n->props[i] != p && strcmp(n->props[i]->id, id) == 0) prop_free(n->props[i]);
        else n->props[k++] = n->props[i];
    }
    n->nprops = k;
    return GS_OK;
}

/* ------------------------------------------------------------------ parser */

typedef struct parser {
    const char *s;
    size_t len, pos;
    int line, col;
    char prev_nl;      /* last line-break byte, to count CRLF/LFCR once */
} parser;

/* Consumes one byte, keeping line and column (columns count UTF-8
 * characters: continuation bytes do not advance). */
static void adv(parser *p)
{
    unsigned char c = (unsigned char)p->s[p->pos++];
    if (c == '\n' || c == '\r') {
        if (p->prev_nl && p->prev_nl != (char)c) {
            p->prev_nl = 0;    /* second half of CRLF / LFCR */
            return;
        }
        p->line++;
        p->col = 1;
        p->prev_nl = (char)c;
        return;
    }
    p->prev_nl = 0;
    if ((c & 0xC0) != 0x80) p->col++;
}

static bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == '\0'; }

static void skip_ws(parser *p)
{
    while (p->pos < p->len && is_ws(p->s[p->pos])) adv(p);
}

static gs_status perr(gs_error *err, int line, int col, const char *what, char c)
{
    if (c && (unsigned char)c >= 0x21 && (unsigned char)c < 0x7F)
        return gs_error_set(err, GS_ERR_FORMAT, "line %d, column %d: %s '%c'", line, col, what, c);
    if (c)
        return gs_error_set(err, GS_ERR_FORMAT, "line %d, column %d: %s (byte 0x%02X)", line, col, what, (unsigned char)c);
    return gs_error_set(err, GS_ERR_FORMAT, "line %d, column %d: %s", line, col, what);
}

typedef struct open_tree {
    sgf_node *attach;   /* node the game tree hangs from; NULL for a root */
    int line, col;      /* position of its '(' */
} open_tree;

/* Parses one property (identifier + values) at p->pos into node. */
static gs_status parse_property(parser *p, sgf_node *node, gs_error *err)
{
    int sline = p->line, scol = p->col;
    char id[SGF_MAX_IDENT + 1];
    size_t n = 0;
    while (p->pos < p->len) {
        char c = p->s[p->pos];
        if (c >= 'A' && c <= 'Z') {
            if (n >= SGF_MAX_IDENT)
                return perr(err, sline, scol, "property name longer than " "32" " letters", 0);
            id[n++] = c;
        } else if (!(c >= 'a' && c <= 'z')) {
            break;
        }
        adv(p);
    }
    id[n] = '\0';
    if (n == 0) return perr(err, sline, scol, "property name without capital letters", 0);
    skip_ws(p);
    if (p->pos >= p->len || p->s[p->pos] != '[') {
        char m[80];
        snprintf(m, sizeof m, "property %s has no value: expected '[' but found", id);
        if (p->pos >= p->len) return perr(err, p->line, p->col, "property has no value: unexpected end of file", 0);
        return perr(err, p->line, p->col, m, p->s[p->pos]);
    }
    sgf_prop *prop = prop_new(id);
    if (!prop) return gs_error_set(err, GS_ERR_NOMEM, "sgf: out of memory");
    while (p->pos < p->len && p->s[p->pos] == '[') {
        int vline = p->line, vcol = p->col;
        adv(p);
        size_t start = p->pos;
        bool closed = false;
        while (p->pos < p->len) {
            char c = p->s[p->pos];
            if (c == '\\') {
                adv(p);
                if (p->pos < p->len) adv(p);
                continue;
            }
            if (c == ']') {
                closed = true;
                break;
            }
            adv(p);
        }
        if (!closed) {
            prop_free(prop);
            char m[80];
            snprintf(m, sizeof m, "value of %s opened here never closes with ']'", id);
            return perr(err, vline, vcol, m, 0);
        }
        if (!prop_add_value(prop, p->s + start, p->pos - start)) {
            prop_free(prop);
            return gs_error_set(err, GS_ERR_NOMEM, "sgf: out of memory");
        }
        adv(p);   /* ']' */
        skip_ws(p);
    }
    if (!node_append_prop(node, prop)) {
        prop_free(prop);
        return gs_error_set(err, GS_ERR_NOMEM, "sgf: out of memory");
    }
    return GS_OK;
}

/* Parses UTF-8 text (already decoded) into t. */
static gs_status parse_utf8(const char *s, size_t len, sgf_tree *t, gs_error *err)
{
    parser p = {s, len, 0, 1, 1, 0};
    open_tree *stack = NULL;
    size_t depth = 0, cap = 0;
    sgf_node *cur = NULL;        /* last node of the current sequence */
    bool in_variations = false;  /* current game tree has had a child tree */
    gs_status st = GS_OK;

    /* Anything before the first "(" followed by ";" is ignored. */
    for (;;) {
        while (p.pos < p.len && p.s[p.pos] != '(') adv(&p);
        if (p.pos >= p.len) {
            free(stack);
            return gs_error_set(err, GS_ERR_FORMAT, "line %d, column %d: no SGF game tree (\"(;\") found", p.line, p.col);
        }
        size_t q = p.pos + 1;
        while (q < p.len && is_ws(p.s[q])) q++;
        if (q < p.len && p.s[q] == ';') break;
        adv(&p);
    }

    for (;;) {
        skip_ws(&p);
        if (p.pos >= p.len) {
            if (depth > 0) {
                char m[160];
                snprintf(m, sizeof m, "unexpected end of file: %zu game tree(s) not closed with ')', the innermost opened at line %d, column %d",
                         depth, stack[depth - 1].line, stack[depth - 1].col);
                st = perr(err, p.line, p.col, m, 0);
            }
            break;
        }
        char c = p.s[p.pos];
        if (depth == 0) {
            /* Between game trees: another one, or the end of the SGF. */
            if (c != '(') break;
        }
        if (c == '(') {
            if (depth > 0 && !cur) { st = perr(err, p.line, p.col, "game tree must start with a node ';', found", c); break; }
            if (!grow((void **)&stack, &cap, depth + 1, sizeof *stack)) { st = gs_error_set(err, GS_ERR_NOMEM, "sgf: out of memory"); break; }
            stack[depth].attach = cur;
            stack[depth].line = p.line;
            stack[depth].col = p.col;
            depth++;
            cur = NULL;
            in_variations = false;
            adv(&p);
        } else if (c == ';') {
            if (in_variations) { st = perr(err, p.line, p.col, "node after a variation (expected '(' or ')'), found", c); break; }
            sgf_node *n;
            if (cur) n = sgf_node_add_child(cur);
            else if (stack[depth - 1].attach) n = sgf_node_add_child(stack[depth - 1].attach);
            else n = sgf_tree_add_root(t);
            if (!n) { st = gs_error_set(err, GS_ERR_NOMEM, "sgf: out of memory"); break; }
            n->line = p.line;
            n->col = p.col;
            cur = n;
            adv(&p);
        } else if (c == ')') {
            if (!cur) { st = perr(err, p.line, p.col, "empty game tree: no node before", c); break; }
            depth--;
            cur = stack[depth].attach;
            in_variations = true;
            adv(&p);
        } else if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')) {
            if (!cur || in_variations) { st = perr(err, p.line, p.col, "property outside a node, at", c); break; }
            st = parse_property(&p, cur, err);
            if (st != GS_OK) break;
        } else {
            st = perr(err, p.line, p.col, "unexpected character", c);
            break;
        }
    }
    free(stack);
    if (st == GS_OK && t->nroots == 0)
        st = gs_error_set(err, GS_ERR_FORMAT, "line 1, column 1: no SGF game tree found");
    return st;
}

gs_status sgf_parse(const char *data, size_t len, sgf_tree **out, gs_error *err)
{
    if (!out) return gs_error_set(err, GS_ERR_USAGE, "sgf_parse: no output");
    *out = NULL;
    if (!data && len) return gs_error_set(err, GS_ERR_USAGE, "sgf_parse: no data");
    if (len > SGF_MAX_FILE_BYTES)
        return gs_error_set(err, GS_ERR_FORMAT, "line 1, column 1: SGF larger than %zu MiB", SGF_MAX_FILE_BYTES >> 20);
    char *u = NULL;
    size_t ulen = 0;
    const char *cs = "UTF-8";
    gs_status st = sgf_decode_utf8(data ? data : "", len, &u, &ulen, &cs, err);
    if (st != GS_OK) return st;
    sgf_tree *t = sgf_tree_create();
    if (!t) {
        free(u);
        return gs_error_set(err, GS_ERR_NOMEM, "sgf: out of memory");
    }
    t->charset = cs;
    st = parse_utf8(u, ulen, t, err);
    free(u);
    /* The tree holds UTF-8 now, whatever CA[] said: say so in every root,
     * so that writing and reading back cannot decode twice. */
    for (size_t i = 0; st == GS_OK && i < t->nroots; i++) {
        const sgf_prop *ca = sgf_node_find(t->roots[i], "CA");
        if (ca && (ca->nvals != 1 || strcmp(ca->vals[0].raw, "UTF-8") != 0))
            st = sgf_node_set_text(t->roots[i], "CA", "UTF-8", err);
    }
    if (st != GS_OK) {
        sgf_tree_destroy(t);
        return st;
    }
    *out = t;
    return GS_OK;
}

/* ------------------------------------------------------------------ writer */

/* The output text and the column the next byte lands in (for soft line
 * breaks). */
typedef struct sbuf {
    gs_buf b;
    size_t col;        /* bytes since the last '\n' */
} sbuf;

static void sb_put(sbuf *b, const char *s, size_t n)
{
    gs_buf_add(&b->b, s, n);
    size_t k = n;
    while (k > 0 && s[k - 1] != '\n') k--;
    b->col = k > 0 ? n - k : b->col + n;
}

static void sb_nl(sbuf *b)
{
    if (b->col > 0) sb_put(b, "\n", 1);
}

/* A move-only node (at most one property, B or W) goes on a shared line. */
static bool node_small(const sgf_node *n)
{
    if (n->nprops == 0) return true;
    if (n->nprops > 1) return false;
    const sgf_prop *p = n->props[0];
    return (strcmp(p->id, "B") == 0 || strcmp(p->id, "W") == 0) && p->nvals == 1 && p->vals[0].raw_len <= 2;
}

static void write_node(sbuf *b, const sgf_node *n)
{
    bool small = node_small(n);
    if (!small || b->col > 72) sb_nl(b);
    sb_put(b, ";", 1);
    for (size_t i = 0; i < n->nprops; i++) {
        const sgf_prop *p = n->props[i];
        if (!small && i > 0 && b->col > 60) sb_nl(b);
        sb_put(b, p->id, strlen(p->id));
        for (size_t j = 0; j < p->nvals; j++) {
            if (j > 0 && b->col > 72) sb_nl(b);
            sb_put(b, "[", 1);
            sb_put(b, p->vals[j].raw, p->vals[j].raw_len);
            sb_put(b, "]", 1);
        }
    }
    if (!small) sb_nl(b);
}

/* First node of the game tree that contains n (walks up single children). */
static const sgf_node *tree_start(const sgf_node *n)
{
    while (n->parent && n->parent->nchildren == 1) n = n->parent;
    return n;
}

gs_status sgf_write(const sgf_tree *t, char **out, size_t *len, gs_error *err)
{
    if (!t || !out) return gs_error_set(err, GS_ERR_USAGE, "sgf_write: no tree");
    *out = NULL;
    if (len) *len = 0;
    sbuf b = {0};
    for (size_t r = 0; r < t->nroots; r++) {
        sb_nl(&b);
        sb_put(&b, "(", 1);
        const sgf_node *n = t->roots[r];
        while (n) {
            write_node(&b, n);
            if (n->first_child) {
                if (n->nchildren > 1) {
                    sb_nl(&b);
                    sb_put(&b, "(", 1);
                }
                n = n->first_child;
                continue;
            }
            /* Leaf: close game trees until one has a next sibling. */
            n = tree_start(n);
            for (;;) {
                sb_put(&b, ")", 1);
                if (!n->parent) { n = NULL; break; }
                if (n->next) {
                    sb_nl(&b);
                    sb_put(&b, "(", 1);
                    n = n->next;
                    break;
                }
                n = tree_start(n->parent);
            }
        }
        sb_put(&b, "\n", 1);
    }
    if (!gs_buf_ok(&b.b) || !b.b.p) {
        bool oom = !gs_buf_ok(&b.b);
        gs_buf_free(&b.b);
        if (!oom && t->nroots == 0) return gs_error_set(err, GS_ERR_USAGE, "sgf_write: empty collection");
        return gs_error_set(err, GS_ERR_NOMEM, "sgf: out of memory");
    }
    *out = b.b.p;
    if (len) *len = b.b.len;
    return GS_OK;
}
