/* pairing/common.c: what the readers of a pairing file share (text kept
 * as UTF-8, numbers and ranks checked, a board added), below them and the
 * dispatch (pairing.c). */
#include "pairing/pairing_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether s holds valid UTF-8 without control characters. */
static bool utf8_text(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        int n = *p < 0x80 ? 0 : (*p & 0xE0) == 0xC0 ? 1 : (*p & 0xF0) == 0xE0 ? 2 : (*p & 0xF8) == 0xF0 ? 3 : -1;
        if (n < 0 || (*p < 0x20) || *p == 0x7F || (n == 1 && *p < 0xC2)) return false;
        p++;
        for (int i = 0; i < n; i++, p++)
            if ((*p & 0xC0) != 0x80) return false;
    }
    return true;
}

bool pairing_copy_text(char *dst, size_t n, const char *s)
{
    while (*s == ' ') s++;
    size_t len = strlen(s);
    while (len && s[len - 1] == ' ') len--;
    if (len >= n) return false;
    memcpy(dst, s, len);
    dst[len] = '\0';
    return utf8_text(dst);
}

bool pairing_parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    while (*end == ' ') end++;
    if (end == s || *end || errno || v < lo || v > hi) return false;
    *out = (int)v;
    return true;
}

bool pairing_parse_komi(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    while (*end == ' ') end++;
    /* komi is a whole or half number of points, within what any game uses */
    if (end == s || *end || errno || !isfinite(v) || fabs(v) > 150 || fmod(fabs(v) * 2, 1) != 0) return false;
    *out = v;
    return true;
}

bool pairing_rank_norm(const char *s, char *out, size_t n)
{
    while (*s == ' ') s++;
    if (!*s) {
        out[0] = '\0';
        return true;
    }
    char *end;
    long v = strtol(s, &end, 10);
    char unit = (char)tolower((unsigned char)*end);
    if (end == s || !strchr("kdp", unit) || unit == '\0') return false;
    const char *rest = end + 1;
    while (*rest == ' ') rest++;
    long hi = unit == 'k' ? 30 : 9;
    if (*rest || v < 1 || v > hi) return false;
    snprintf(out, n, "%ld%c", v, unit);
    return true;
}

bool pairing_add_board(pairing_round *r, const pairing_board *b, const char *name, gs_error *err)
{
    const pairing_board *dup = pairing_board_at(r, b->table);
    if (dup) {
        gs_error_set(err, GS_ERR_FORMAT, "%s:%d: board %d given twice (also line %d)", name, b->line, b->table,
                     dup->line);
        return false;
    }
    if (r->nboards == PAIRING_MAX_BOARDS) {
        gs_error_set(err, GS_ERR_FORMAT, "%s:%d: more than %d boards", name, b->line, PAIRING_MAX_BOARDS);
        return false;
    }
    if (r->nboards % 64 == 0) {
        pairing_board *nb = realloc(r->boards, (size_t)(r->nboards + 64) * sizeof *nb);
        if (!nb) {
            gs_error_set(err, GS_ERR_NOMEM, "%s: out of memory", name);
            return false;
        }
        r->boards = nb;
    }
    r->boards[r->nboards++] = *b;
    return true;
}

void pairing_round_free(pairing_round *r)
{
    if (!r) return;
    free(r->boards);
    r->boards = NULL;
    r->nboards = 0;
}

const pairing_board *pairing_board_at(const pairing_round *r, int table)
{
    for (int i = 0; r && i < r->nboards; i++)
        if (r->boards[i].table == table) return &r->boards[i];
    return NULL;
}
