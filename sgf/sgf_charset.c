/* sgf/sgf_charset.c: decoding SGF bytes to UTF-8 before parsing.
 *
 * Decoding comes first because in GBK/GB18030 the second byte of a Chinese
 * character may be ']' or '\', which a byte-level parser would take for SGF
 * syntax.  The charset is read from CA[] by a lenient scan of the first
 * node only; the rules for files without CA[] are in sgf.h. */
#include "sgf/sgf_internal.h"

#include <ctype.h>
#include <errno.h>
#include <iconv.h>
#include <stdlib.h>
#include <string.h>

bool sgf_utf8_valid(const unsigned char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        unsigned char c = s[i];
        if (c < 0x80) { i++; continue; }
        size_t n;
        uint32_t cp;
        if (c >= 0xC2 && c <= 0xDF) { n = 1; cp = c & 0x1F; }
        else if (c >= 0xE0 && c <= 0xEF) { n = 2; cp = c & 0x0F; }
        else if (c >= 0xF0 && c <= 0xF4) { n = 3; cp = c & 0x07; }
        else return false;
        if (len - i <= n) return false;
        for (size_t k = 1; k <= n; k++) {
            if ((s[i + k] & 0xC0) != 0x80) return false;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        i += n + 1;
    }
    return true;
}

/* Copies the value of CA[] of the first node into buf, or returns false.
 * Scans "(" ";" then properties until the next node starts. */
static bool find_ca(const char *s, size_t len, char *buf, size_t bufsize)
{
    size_t i = 0;
    while (i < len && s[i] != '(') i++;
    while (i < len && s[i] != ';') i++;
    if (i >= len) return false;
    i++;
    char id[SGF_MAX_IDENT + 1];
    size_t idn = 0;
    while (i < len) {
        char c = s[i];
        if (c == '[') {
            size_t start = ++i;
            while (i < len && s[i] != ']') i += (s[i] == '\\') ? 2 : 1;
            if (i > len) i = len;
            id[idn] = '\0';
            if (strcmp(id, "CA") == 0) {
                size_t n = i - start, k = 0;
                for (size_t j = 0; j < n && k + 1 < bufsize; j++)
                    if (!isspace((unsigned char)s[start + j])) buf[k++] = s[start + j];
                buf[k] = '\0';
                return k > 0;
            }
            i++;
            /* A next '[' continues the same property's value list. */
            size_t j = i;
            while (j < len && isspace((unsigned char)s[j])) j++;
            if (j >= len || s[j] != '[') idn = 0;
            continue;
        }
        if (c == ';' || c == '(' || c == ')') break;
        if (c >= 'A' && c <= 'Z' && idn < SGF_MAX_IDENT) id[idn++] = c;
        i++;
    }
    return false;
}

/* Canonical charset name for a CA[] value: "UTF-8", "ISO-8859-1",
 * "GB18030", or NULL to hand the value to iconv as written. */
static const char *canonical(const char *ca)
{
    char k[64];
    size_t n = 0;
    for (size_t i = 0; ca[i] && n + 1 < sizeof k; i++) {
        unsigned char c = (unsigned char)ca[i];
        if (c == '-' || c == '_' || c == ' ') continue;
        k[n++] = (char)toupper(c);
    }
    k[n] = '\0';
    if (!strcmp(k, "UTF8") || !strcmp(k, "ASCII") || !strcmp(k, "USASCII")) return "UTF-8";
    if (!strcmp(k, "ISO88591") || !strcmp(k, "LATIN1") || !strcmp(k, "L1") || !strcmp(k, "ISOLATIN1") ||
        !strcmp(k, "CP819") || !strcmp(k, "IBM819"))
        return "ISO-8859-1";
    if (!strcmp(k, "GB2312") || !strcmp(k, "GBK") || !strcmp(k, "GB18030") || !strcmp(k, "CP936") ||
        !strcmp(k, "EUCCN") || !strcmp(k, "MS936") || !strcmp(k, "WINDOWS936") || !strcmp(k, "CSGB2312"))
        return "GB18030";
    return NULL;
}

static char *latin1_to_utf8(const unsigned char *s, size_t len, size_t *outlen)
{
    char *o = malloc(len * 2 + 1);
    if (!o) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < 0x80) o[k++] = (char)s[i];
        else {
            o[k++] = (char)(0xC0 | (s[i] >> 6));
            o[k++] = (char)(0x80 | (s[i] & 0x3F));
        }
    }
    o[k] = '\0';
    *outlen = k;
    return o;
}

/* Strict conversion with iconv; NULL if the charset is unknown or the bytes
 * are invalid in it (*oom set when memory ran out). */
static char *iconv_to_utf8(const char *charset, const char *s, size_t len, size_t *outlen, bool *oom)
{
    iconv_t cd = iconv_open("UTF-8", charset);
    if (cd == (iconv_t)-1) return NULL;
    size_t cap = len + len / 2 + 16;
    char *o = malloc(cap);
    if (!o) {
        iconv_close(cd);
        *oom = true;
        return NULL;
    }
    char *in = (char *)s;
    size_t inleft = len, done = 0;
    for (;;) {
        char *op = o + done;
        size_t oleft = cap - done - 1;
        size_t r = iconv(cd, &in, &inleft, &op, &oleft);
        done = (size_t)(op - o);
        if (r != (size_t)-1) {
            /* Flush any shift state. */
            r = iconv(cd, NULL, NULL, &op, &oleft);
            done = (size_t)(op - o);
            if (r != (size_t)-1) break;
        }
        if (errno != E2BIG) {
            free(o);
            iconv_close(cd);
            return NULL;
        }
        if (cap > SIZE_MAX / 2) {
            free(o);
            iconv_close(cd);
            *oom = true;
            return NULL;
        }
        char *no = realloc(o, cap * 2);
        if (!no) {
            free(o);
            iconv_close(cd);
            *oom = true;
            return NULL;
        }
        o = no;
        cap *= 2;
    }
    iconv_close(cd);
    o[done] = '\0';
    *outlen = done;
    return o;
}

/* True when every byte >= 0x80 sits in a pair of bytes 0xA1..0xFE: the
 * shape of GB2312 (EUC-CN) text, rare in Latin-1 text. */
static bool looks_euc_cn(const unsigned char *s, size_t len)
{
    bool any = false;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < 0x80) continue;
        if (s[i] < 0xA1 || s[i] == 0xFF || i + 1 >= len || s[i + 1] < 0xA1 || s[i + 1] == 0xFF) return false;
        i++;
        any = true;
    }
    return any;
}

static char *copy_bytes(const char *s, size_t len, size_t *outlen)
{
    char *o = malloc(len + 1);
    if (!o) return NULL;
    memcpy(o, s, len);
    o[len] = '\0';
    *outlen = len;
    return o;
}

gs_status sgf_decode_utf8(const char *data, size_t len, char **out, size_t *outlen,
                          const char **charset, gs_error *err)
{
    const unsigned char *u = (const unsigned char *)data;
    if (len >= 3 && u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF) {
        data += 3;
        u += 3;
        len -= 3;
    }
    char ca[64];
    const char *want = NULL;      /* canonical or as written */
    if (find_ca(data, len, ca, sizeof ca)) {
        want = canonical(ca);
        if (!want) want = ca;
    }
    bool oom = false;
    char *o = NULL;
    if (want && strcmp(want, "UTF-8") != 0) {
        if (!strcmp(want, "ISO-8859-1")) {
            o = latin1_to_utf8(u, len, outlen);
            oom = !o;
            *charset = "ISO-8859-1";
        } else {
            o = iconv_to_utf8(want, data, len, outlen, &oom);
            /* Only a few names are static; others are reported generically. */
            *charset = !strcmp(want, "GB18030") ? "GB18030" : "other (iconv)";
        }
        if (o || oom) goto done;
    }
    /* UTF-8 named or nothing named (or the named charset failed). */
    if (sgf_utf8_valid(u, len)) {
        o = copy_bytes(data, len, outlen);
        oom = !o;
        *charset = "UTF-8";
        goto done;
    }
    if (looks_euc_cn(u, len)) {
        o = iconv_to_utf8("GB18030", data, len, outlen, &oom);
        *charset = "GB18030";
        if (o || oom) goto done;
    }
    o = latin1_to_utf8(u, len, outlen);
    oom = !o;
    *charset = "ISO-8859-1";
done:
    if (!o) return gs_error_set(err, GS_ERR_NOMEM, "sgf: out of memory decoding text");
    *out = o;
    return GS_OK;
}
