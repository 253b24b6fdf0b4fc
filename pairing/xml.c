/* pairing/xml.c: a small XML reader, enough for a pairing program's file:
 * start and end tags with their attributes, checked for nesting; text,
 * comments, the declaration, processing instructions, CDATA and a DOCTYPE
 * are skipped.  Attribute values get the five predefined entities and
 * character references decoded to UTF-8; anything else malformed is an
 * error naming its line.  No recursion, no allocation. */
#include "pairing/pairing_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pxml_init(pxml *x, const char *name, const char *text, size_t len)
{
    memset(x, 0, sizeof *x);
    x->name = name;
    x->p = text;
    x->end = text + len;
    x->line = 1;
}

const char *pxml_attr_get(const pxml_elem *e, const char *name)
{
    for (int i = 0; i < e->nattrs; i++)
        if (!strcmp(e->attrs[i].name, name)) return e->attrs[i].value;
    return NULL;
}

static int fail(pxml *x, gs_error *err, const char *what)
{
    gs_error_set(err, GS_ERR_FORMAT, "%s:%d: %s", x->name, x->line, what);
    return -1;
}

/* Moves past n bytes, counting lines. */
static void advance(pxml *x, size_t n)
{
    for (size_t i = 0; i < n && x->p < x->end; i++, x->p++)
        if (*x->p == '\n') x->line++;
}

static void skip_space(pxml *x)
{
    while (x->p < x->end && isspace((unsigned char)*x->p)) advance(x, 1);
}

static bool starts(const pxml *x, const char *s)
{
    size_t n = strlen(s);
    return (size_t)(x->end - x->p) >= n && !memcmp(x->p, s, n);
}

/* Skips to just past `close`; false when the text ends first. */
static bool skip_past(pxml *x, const char *close)
{
    size_t n = strlen(close);
    while (x->p < x->end) {
        if ((size_t)(x->end - x->p) >= n && !memcmp(x->p, close, n)) {
            advance(x, n);
            return true;
        }
        advance(x, 1);
    }
    return false;
}

static bool name_char(unsigned char c, bool first)
{
    return isalpha(c) || c == '_' || c == ':' || c >= 0x80 || (!first && (isdigit(c) || c == '-' || c == '.'));
}

/* A name into out (n bytes); false when there is none or it is too long. */
static bool read_name(pxml *x, char *out, size_t n)
{
    size_t k = 0;
    while (x->p < x->end && name_char((unsigned char)*x->p, k == 0)) {
        if (k + 1 >= n) return false;
        out[k++] = *x->p;
        advance(x, 1);
    }
    out[k] = '\0';
    return k > 0;
}

/* Code point cp as UTF-8 into out; its length, 0 when it is no character. */
static int utf8_put(unsigned long cp, char *out)
{
    if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return 0;
    if (cp < 0x80) { out[0] = (char)cp; return 1; }
    if (cp < 0x800) { out[0] = (char)(0xC0 | cp >> 6); out[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | cp >> 12);
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | cp >> 18);
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* The entity at ent (after '&', up to ';' excluded, len bytes) into out;
 * its length, 0 when unknown. */
static int decode_entity(const char *ent, size_t len, char *out)
{
    static const struct { const char *name; char c; } named[] = {
        {"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}};
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        if (strlen(named[i].name) == len && !memcmp(ent, named[i].name, len)) {
            out[0] = named[i].c;
            return 1;
        }
    if (len < 2 || ent[0] != '#' || len > 10) return 0;
    bool hex = ent[1] == 'x';
    char digits[12];
    memcpy(digits, ent + 1 + hex, len - 1 - hex);
    digits[len - 1 - hex] = '\0';
    if (!digits[0] || strspn(digits, hex ? "0123456789abcdefABCDEF" : "0123456789") != strlen(digits)) return 0;
    return utf8_put(strtoul(digits, NULL, hex ? 16 : 10), out);
}

/* A quoted attribute value into out; 0, or -1 with err. */
static int read_value(pxml *x, char *out, gs_error *err)
{
    if (x->p >= x->end || (*x->p != '"' && *x->p != '\'')) return fail(x, err, "an attribute value must be quoted");
    char q = *x->p;
    advance(x, 1);
    size_t k = 0;
    while (x->p < x->end && *x->p != q) {
        char buf[4];
        int n = 1;
        buf[0] = *x->p;
        if (*x->p == '<') return fail(x, err, "'<' inside an attribute value");
        if (*x->p == '&') {
            const char *semi = memchr(x->p, ';', (size_t)(x->end - x->p));
            if (!semi || semi - x->p > 12) return fail(x, err, "'&' that starts no entity (write &amp;)");
            n = decode_entity(x->p + 1, (size_t)(semi - x->p - 1), buf);
            if (!n) return fail(x, err, "unknown entity in an attribute value");
            advance(x, (size_t)(semi - x->p) + 1);
        } else {
            advance(x, 1);
        }
        if (k + (size_t)n >= PXML_MAX_VALUE) return fail(x, err, "attribute value too long");
        memcpy(out + k, buf, (size_t)n);
        k += (size_t)n;
    }
    if (x->p >= x->end) return fail(x, err, "attribute value not closed");
    advance(x, 1);
    out[k] = '\0';
    return 0;
}

/* The attributes of a start tag, up to '>' or "/>" (consumed); 0 or -1. */
static int read_attrs(pxml *x, pxml_elem *e, bool *empty, gs_error *err)
{
    for (;;) {
        bool spaced = x->p < x->end && isspace((unsigned char)*x->p);
        skip_space(x);
        if (x->p >= x->end) return fail(x, err, "tag not closed");
        if (starts(x, "/>") || *x->p == '>') {
            *empty = *x->p == '/';
            advance(x, *empty ? 2 : 1);
            return 0;
        }
        if (!spaced) return fail(x, err, "attributes must be separated by spaces");
        if (e->nattrs == PXML_MAX_ATTRS) return fail(x, err, "too many attributes");
        pxml_attr *a = &e->attrs[e->nattrs];
        if (!read_name(x, a->name, sizeof a->name)) return fail(x, err, "bad attribute name");
        skip_space(x);
        if (x->p >= x->end || *x->p != '=') return fail(x, err, "attribute without '=' and a value");
        advance(x, 1);
        skip_space(x);
        if (read_value(x, a->value, err)) return -1;
        for (int i = 0; i < e->nattrs; i++)
            if (!strcmp(e->attrs[i].name, a->name)) return fail(x, err, "attribute given twice");
        e->nattrs++;
    }
}

/* An end tag "</name>" (at "</"); 0 or -1. */
static int read_end(pxml *x, gs_error *err)
{
    advance(x, 2);
    char name[48];
    if (!read_name(x, name, sizeof name)) return fail(x, err, "bad end tag");
    skip_space(x);
    if (x->p >= x->end || *x->p != '>') return fail(x, err, "end tag not closed");
    advance(x, 1);
    if (x->depth == 0 || strcmp(x->open[x->depth - 1], name)) {
        char msg[160];
        snprintf(msg, sizeof msg, "</%s> closes %s%s%s", name, x->depth ? "<" : "no open element",
                 x->depth ? x->open[x->depth - 1] : "", x->depth ? ">" : "");
        return fail(x, err, msg);
    }
    x->depth--;
    return 0;
}

/* Something that is not an element: a comment, a declaration, CDATA;
 * 1 when skipped, 0 when it is none of them, -1 on error. */
static int skip_other(pxml *x, gs_error *err)
{
    static const struct { const char *open, *close, *what; } kinds[] = {
        {"<!--", "-->", "comment not closed"},
        {"<?", "?>", "processing instruction not closed"},
        {"<![CDATA[", "]]>", "CDATA not closed"},
        {"<!DOCTYPE", ">", "DOCTYPE not closed"},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (starts(x, kinds[i].open)) return skip_past(x, kinds[i].close) ? 1 : fail(x, err, kinds[i].what);
    return 0;
}

/* A start tag (at '<'); 1 with e, or -1. */
static int read_start(pxml *x, pxml_elem *e, gs_error *err)
{
    advance(x, 1);
    memset(e, 0, sizeof *e);
    e->line = x->line;
    if (!read_name(x, e->name, sizeof e->name)) return fail(x, err, "'<' that starts no element (write &lt;)");
    if (x->depth == 0 && x->seen_root) return fail(x, err, "a second root element");
    bool empty = false;
    if (read_attrs(x, e, &empty, err)) return -1;
    if (x->depth == PXML_MAX_DEPTH) return fail(x, err, "elements nested too deep");
    snprintf(x->open[x->depth], sizeof x->open[0], "%s", e->name);
    e->depth = ++x->depth;
    x->seen_root = true;
    x->pending_end = empty;
    return 1;
}

int pxml_next(pxml *x, pxml_elem *e, gs_error *err)
{
    if (x->pending_end) {
        x->pending_end = false;
        x->depth--;
    }
    for (;;) {
        while (x->p < x->end && *x->p != '<') {
            if (x->depth == 0 && !isspace((unsigned char)*x->p)) return fail(x, err, "text outside the root element");
            advance(x, 1);
        }
        if (x->p >= x->end) break;
        int k = skip_other(x, err);
        if (k < 0) return -1;
        if (k > 0) continue;
        if (starts(x, "</")) {
            if (read_end(x, err)) return -1;
            continue;
        }
        return read_start(x, e, err);
    }
    if (x->depth > 0) {
        char msg[96];
        snprintf(msg, sizeof msg, "the file ends inside <%s>", x->open[x->depth - 1]);
        return fail(x, err, msg);
    }
    if (!x->seen_root) return fail(x, err, "no element at all");
    return 0;
}
