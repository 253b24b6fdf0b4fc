/* gtp/common.c: the helpers the command files share (gtp_internal.h):
 * colours and vertices parsed and named, the log line, the board size the
 * controller sees, and waiting for the board to change.  Below engine.c,
 * which dispatches to the command files, so that no file of gtp/ calls
 * back into the one that calls it. */
#include "gtp/gtp_internal.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

void gtp_refresh(gtp_engine *e)
{
    /* (out of memory: the engine goes on with the view it had) */
    (void)gtp_board_snapshot(e->board, &e->v);
}

bool gtp_parse_color(const char *s, gs_color *c)
{
    if (!strcasecmp(s, "b") || !strcasecmp(s, "black")) *c = GS_BLACK;
    else if (!strcasecmp(s, "w") || !strcasecmp(s, "white")) *c = GS_WHITE;
    else return false;
    return true;
}

int gtp_size(const gtp_engine *e)
{
    if (e->v.started) return e->v.size;
    if (e->want_size) return e->want_size;
    return e->opt.size ? e->opt.size : 19;
}

bool gtp_parse_vertex(const char *s, int size, gs_move *m)
{
    m->pass = false;
    m->pt = (gs_point){-1, -1};
    if (!strcasecmp(s, "pass")) {
        m->pass = true;
        return true;
    }
    /* a letter and one or two digits: rules_point_parse_human alone would
     * take "D+4" or "D 4" */
    size_t n = strlen(s);
    if (n < 2 || n > 3 || !isalpha((unsigned char)s[0]) || !isdigit((unsigned char)s[1]) ||
        (n == 3 && !isdigit((unsigned char)s[2])))
        return false;
    bool pass;
    return rules_point_parse_human(s, size, &m->pt, &pass) && !pass;
}

void gtp_vertex_name(const gs_move *m, int size, char buf[8])
{
    if (m->pass) snprintf(buf, 8, "pass");
    else rules_point_human(m->pt, size, buf);
}

void gtp_say(const gtp_engine *e, const char *fmt, ...)
{
    if (!e->opt.log) return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* one call, so that the recorder's lines (the loop's thread) do not
     * cut into it */
    fprintf(e->opt.log, "goscribe gtp: %s\n", line);
    fflush(e->opt.log);
}

double gtp_deadline(const gtp_engine *e)
{
    return e->opt.move_timeout_s > 0 ? gs_now_ms() + e->opt.move_timeout_s * 1000.0 : 0;
}

gtp_wait gtp_wait_board(gtp_engine *e, double deadline_ms)
{
    uint64_t seen = e->v.version;
    for (;;) {
        if (e->opt.interrupted && e->opt.interrupted(e->opt.interrupt_user)) return GTP_WAIT_INTERRUPTED;
        double now = gs_now_ms();
        if (deadline_ms > 0 && now >= deadline_ms) return GTP_WAIT_TIMEOUT;
        double tick = 100;
        if (deadline_ms > 0 && deadline_ms - now < tick) tick = deadline_ms - now;
        if (gtp_board_wait(e->board, seen, tick)) {
            gtp_refresh(e);
            return GTP_WAIT_CHANGED;
        }
    }
}
