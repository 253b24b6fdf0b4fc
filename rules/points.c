/* rules/points.c: point and colour formatting shared by the rules module. */
#include "rules/rules.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rules_point_sgf(gs_point p, char buf[3])
{
    if (p.x < 0 || p.y < 0 || p.x >= 52 || p.y >= 52) {
        buf[0] = 0;
        return;
    }
    buf[0] = (char)(p.x < 26 ? 'a' + p.x : 'A' + p.x - 26);
    buf[1] = (char)(p.y < 26 ? 'a' + p.y : 'A' + p.y - 26);
    buf[2] = 0;
}

/* Column letters skip I (the Go convention, to avoid confusing I and J). */
static const char COLS[] = "ABCDEFGHJKLMNOPQRSTUVWXYZ";

void rules_point_human(gs_point p, int size, char buf[8])
{
    if (p.x < 0 || p.y < 0 || p.x >= size || p.y >= size || size > 25) {
        strcpy(buf, "pass");
        return;
    }
    snprintf(buf, 8, "%c%d", COLS[p.x], size - p.y);
}

bool rules_point_parse_human(const char *s, int size, gs_point *p, bool *pass)
{
    if (!s || size < 1 || size > 25) return false;
    bool ps = false;
    if (!strcasecmp(s, "pass")) {
        ps = true;
        if (p) p->x = p->y = -1;
        if (pass) *pass = ps;
        return true;
    }
    char c = (char)toupper((unsigned char)s[0]);
    const char *q = strchr(COLS, c);
    if (!c || !q) return false;
    int x = (int)(q - COLS);
    char *end;
    long row = strtol(s + 1, &end, 10);
    if (end == s + 1 || *end || row < 1 || row > size || x >= size) return false;
    if (p) {
        p->x = (int8_t)x;
        p->y = (int8_t)(size - row);
    }
    if (pass) *pass = false;
    return true;
}

const char *rules_color_name(gs_color c)
{
    return c == GS_BLACK ? "Black" : c == GS_WHITE ? "White" : "Empty";
}
