/* core/json.c: a small strict JSON reader (RFC 8259, bounded depth) for
 * request bodies, announcements and test checks. */
#include "core/gs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct jparser {
    const char *s, *end, *start;
    gs_error *err;
    bool failed;
} jparser;

static void jfail(jparser *p, const char *what)
{
    if (!p->failed) gs_error_set(p->err, GS_ERR_FORMAT, "bad JSON at byte %ld: %s", (long)(p->s - p->start), what);
    p->failed = true;
}

static void jws(jparser *p)
{
    while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r')) p->s++;
}

static void put_utf8(gs_buf *b, unsigned cp)
{
    char u[4];
    size_t n;
    if (cp < 0x80) { u[0] = (char)cp; n = 1; }
    else if (cp < 0x800) { u[0] = (char)(0xc0 | (cp >> 6)); u[1] = (char)(0x80 | (cp & 0x3f)); n = 2; }
    else if (cp < 0x10000) { u[0] = (char)(0xe0 | (cp >> 12)); u[1] = (char)(0x80 | ((cp >> 6) & 0x3f)); u[2] = (char)(0x80 | (cp & 0x3f)); n = 3; }
    else { u[0] = (char)(0xf0 | (cp >> 18)); u[1] = (char)(0x80 | ((cp >> 12) & 0x3f)); u[2] = (char)(0x80 | ((cp >> 6) & 0x3f)); u[3] = (char)(0x80 | (cp & 0x3f)); n = 4; }
    gs_buf_add(b, u, n);
}

static int hex4(const char *s, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return -1;
    }
    *out = v;
    return 0;
}

static char *jstring(jparser *p)
{
    /* p->s at the opening quote */
    p->s++;
    gs_buf b = {0};
    gs_buf_add(&b, "", 0);
    while (p->s < p->end && *p->s != '"') {
        unsigned char c = (unsigned char)*p->s;
        if (c < 0x20) { jfail(p, "control character in string"); break; }
        if (c != '\\') { gs_buf_add(&b, p->s, 1); p->s++; continue; }
        if (p->end - p->s < 2) { jfail(p, "truncated escape"); break; }
        char e = p->s[1];
        p->s += 2;
        switch (e) {
        case '"': gs_buf_add(&b, "\"", 1); break;
        case '\\': gs_buf_add(&b, "\\", 1); break;
        case '/': gs_buf_add(&b, "/", 1); break;
        case 'b': gs_buf_add(&b, "\b", 1); break;
        case 'f': gs_buf_add(&b, "\f", 1); break;
        case 'n': gs_buf_add(&b, "\n", 1); break;
        case 'r': gs_buf_add(&b, "\r", 1); break;
        case 't': gs_buf_add(&b, "\t", 1); break;
        case 'u': {
            unsigned cp;
            if (p->end - p->s < 4 || hex4(p->s, &cp)) { jfail(p, "bad \\u escape"); break; }
            p->s += 4;
            if (cp >= 0xd800 && cp < 0xdc00 && p->end - p->s >= 6 && p->s[0] == '\\' && p->s[1] == 'u') {
                unsigned lo;
                if (!hex4(p->s + 2, &lo) && lo >= 0xdc00 && lo < 0xe000) {
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                    p->s += 6;
                }
            }
            if (cp == 0) cp = 0xfffd; /* no NUL inside C strings */
            put_utf8(&b, cp);
            break;
        }
        default: jfail(p, "bad escape"); break;
        }
        if (p->failed) break;
    }
    if (!p->failed && p->s >= p->end) jfail(p, "unterminated string");
    if (!p->failed) p->s++;
    if (p->failed || b.failed) {
        if (b.failed) jfail(p, "out of memory");
        gs_buf_free(&b);
        return NULL;
    }
    return b.p;
}

static gs_json *jvalue(jparser *p, int depth);

static bool jpush(gs_json *j, gs_json *kid, char *key)
{
    gs_json **k = realloc(j->kids, sizeof *k * (size_t)(j->n + 1));
    if (!k) return false;
    j->kids = k;
    if (j->type == GS_JSON_OBJ) {
        char **ks = realloc(j->keys, sizeof *ks * (size_t)(j->n + 1));
        if (!ks) return false;
        j->keys = ks;
        ks[j->n] = key;
    }
    k[j->n++] = kid;
    return true;
}

static gs_json *jcontainer(jparser *p, int depth, bool obj)
{
    gs_json *j = calloc(1, sizeof *j);
    if (!j) { jfail(p, "out of memory"); return NULL; }
    j->type = obj ? GS_JSON_OBJ : GS_JSON_ARR;
    p->s++;
    jws(p);
    char close = obj ? '}' : ']';
    if (p->s < p->end && *p->s == close) { p->s++; return j; }
    for (;;) {
        char *key = NULL;
        jws(p);
        if (obj) {
            if (p->s >= p->end || *p->s != '"') { jfail(p, "expected a key"); break; }
            key = jstring(p);
            if (!key) break;
            jws(p);
            if (p->s >= p->end || *p->s != ':') { free(key); jfail(p, "expected ':'"); break; }
            p->s++;
        }
        gs_json *kid = jvalue(p, depth + 1);
        if (!kid) { free(key); break; }
        if (!jpush(j, kid, key)) { free(key); gs_json_free(kid); jfail(p, "out of memory"); break; }
        jws(p);
        if (p->s < p->end && *p->s == ',') { p->s++; continue; }
        if (p->s < p->end && *p->s == close) { p->s++; return j; }
        jfail(p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
        break;
    }
    gs_json_free(j);
    return NULL;
}

/* A number by the strict JSON grammar, then strtod on a bounded copy;
 * p->s is at its first character.  false (and p failed) if malformed. */
static bool jnumber(jparser *p, double *out)
{
    const char *q = p->s;
    if (*q == '-') q++;
    if (q >= p->end || *q < '0' || *q > '9') { jfail(p, "bad number"); return false; }
    if (*q == '0') q++;
    else while (q < p->end && *q >= '0' && *q <= '9') q++;
    if (q < p->end && *q == '.') {
        q++;
        if (q >= p->end || *q < '0' || *q > '9') { jfail(p, "bad number"); return false; }
        while (q < p->end && *q >= '0' && *q <= '9') q++;
    }
    if (q < p->end && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < p->end && (*q == '+' || *q == '-')) q++;
        if (q >= p->end || *q < '0' || *q > '9') { jfail(p, "bad number"); return false; }
        while (q < p->end && *q >= '0' && *q <= '9') q++;
    }
    char tmp[64];
    size_t n = (size_t)(q - p->s);
    if (n >= sizeof tmp) { jfail(p, "number too long"); return false; }
    memcpy(tmp, p->s, n);
    tmp[n] = '\0';
    *out = strtod(tmp, NULL);
    p->s = q;
    return true;
}

/* true, false or null at p->s into j; false if it is none of them. */
static bool jliteral(jparser *p, gs_json *j)
{
    size_t left = (size_t)(p->end - p->s);
    if (left >= 4 && !memcmp(p->s, "true", 4)) {
        j->type = GS_JSON_BOOL; j->b = true; p->s += 4;
    } else if (left >= 5 && !memcmp(p->s, "false", 5)) {
        j->type = GS_JSON_BOOL; p->s += 5;
    } else if (left >= 4 && !memcmp(p->s, "null", 4)) {
        j->type = GS_JSON_NULL; p->s += 4;
    } else {
        return false;
    }
    return true;
}

static gs_json *jvalue(jparser *p, int depth)
{
    if (depth > 32) { jfail(p, "nested too deep"); return NULL; }
    jws(p);
    if (p->s >= p->end) { jfail(p, "unexpected end"); return NULL; }
    char c = *p->s;
    if (c == '{' || c == '[') return jcontainer(p, depth, c == '{');
    gs_json *j = calloc(1, sizeof *j);
    if (!j) { jfail(p, "out of memory"); return NULL; }
    bool ok;
    if (c == '"') {
        j->type = GS_JSON_STR;
        ok = (j->str = jstring(p)) != NULL;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        j->type = GS_JSON_NUM;
        ok = jnumber(p, &j->num);
    } else if (!(ok = jliteral(p, j))) {
        jfail(p, "unexpected character");
    }
    if (!ok) {
        free(j);
        return NULL;
    }
    return j;
}

gs_json *gs_json_parse(const char *text, size_t len, gs_error *err)
{
    jparser p = {text, text + len, text, err, false};
    if (!text) { jfail(&p, "no input"); return NULL; }
    gs_json *j = jvalue(&p, 0);
    if (!j) return NULL;
    jws(&p);
    if (p.s != p.end) {
        jfail(&p, "trailing characters");
        gs_json_free(j);
        return NULL;
    }
    return j;
}

void gs_json_free(gs_json *j)
{
    if (!j) return;
    for (int i = 0; i < j->n; i++) {
        gs_json_free(j->kids[i]);
        if (j->keys) free(j->keys[i]);
    }
    free(j->kids);
    free(j->keys);
    free(j->str);
    free(j);
}

const gs_json *gs_json_get(const gs_json *j, const char *key)
{
    if (!j || j->type != GS_JSON_OBJ) return NULL;
    for (int i = 0; i < j->n; i++)
        if (!strcmp(j->keys[i], key)) return j->kids[i];
    return NULL;
}

const char *gs_json_get_str(const gs_json *j, const char *key, const char *dflt)
{
    const gs_json *v = gs_json_get(j, key);
    return v && v->type == GS_JSON_STR ? v->str : dflt;
}

double gs_json_get_num(const gs_json *j, const char *key, double dflt)
{
    const gs_json *v = gs_json_get(j, key);
    return v && v->type == GS_JSON_NUM ? v->num : dflt;
}

