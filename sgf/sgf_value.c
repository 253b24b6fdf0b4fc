/* sgf/sgf_value.c: the values of the properties goscribe reads and
 * writes (sgf.h): a point ("pd", a pass), komi, and the GSTM time text.
 * The lowest file of sgf/ above the tree: the readers (sgf_go.c) and the
 * builders (sgf_build.c) both use it. */
#include "sgf/sgf_internal.h"

#include "rules/rules.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
