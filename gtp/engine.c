/* gtp/engine.c: the GTP engine: a line of input preprocessed and split
 * (GTP 2, section 3: control characters dropped, tabs made spaces,
 * comments cut, an optional numeric id), its command looked up in one
 * table, the response framed ("=ID text" / "?ID message", an empty line
 * after); the protocol's own commands.  The helpers the command files
 * share are in common.c. */
#include "gtp/gtp_internal.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void gtp_engine_options_init(gtp_engine_options *o)
{
    memset(o, 0, sizeof *o);
}

gtp_engine *gtp_engine_create(gtp_board *b, const gtp_engine_options *o, gs_error *err)
{
    gtp_engine *e = calloc(1, sizeof *e);
    if (!e || !(e->est = malloc(sizeof *e->est))) {
        free(e);
        gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    e->board = b;
    if (o) e->opt = *o;
    else gtp_engine_options_init(&e->opt);
    e->noted_move = -1;
    e->pushed_pass = -1;
    e->pushed_resign[0] = e->pushed_resign[1] = e->pushed_resign[2] = -1;
    gtp_refresh(e);
    return e;
}

void gtp_engine_destroy(gtp_engine *e)
{
    if (!e) return;
    gtp_view_free(&e->v);
    rules_game_destroy(e->game);
    free(e->est);
    free(e);
}

/* ------------------------------------------------ the protocol's own */

static bool cmd_protocol_version(gtp_engine *e, const gtp_command *c, gs_buf *res)
{
    (void)e, (void)c;
    gs_buf_puts(res, "2");
    return true;
}

static bool cmd_name(gtp_engine *e, const gtp_command *c, gs_buf *res)
{
    (void)e, (void)c;
    gs_buf_puts(res, "goscribe");
    return true;
}

static bool cmd_version(gtp_engine *e, const gtp_command *c, gs_buf *res)
{
    (void)e, (void)c;
    gs_buf_puts(res, GS_VERSION);
    return true;
}

static bool cmd_quit(gtp_engine *e, const gtp_command *c, gs_buf *res)
{
    (void)c, (void)res;
    e->quit = true;
    return true;
}

/* GoGui sends "# interrupt" during a long command to engines that know
 * this one; the command itself does nothing. */
static bool cmd_interrupt(gtp_engine *e, const gtp_command *c, gs_buf *res)
{
    (void)e, (void)c, (void)res;
    return true;
}

static bool cmd_known_command(gtp_engine *e, const gtp_command *c, gs_buf *res);
static bool cmd_list_commands(gtp_engine *e, const gtp_command *c, gs_buf *res);

static const struct {
    const char *name;
    gtp_handler fn;
} commands[] = {
    {"protocol_version", cmd_protocol_version},
    {"name", cmd_name},
    {"version", cmd_version},
    {"known_command", cmd_known_command},
    {"list_commands", cmd_list_commands},
    {"quit", cmd_quit},
    {"boardsize", gtp_cmd_boardsize},
    {"clear_board", gtp_cmd_clear_board},
    {"komi", gtp_cmd_komi},
    {"play", gtp_cmd_play},
    {"genmove", gtp_cmd_genmove},
    {"undo", gtp_cmd_undo},
    {"final_score", gtp_cmd_final_score},
    {"final_status_list", gtp_cmd_final_status_list},
    {"showboard", gtp_cmd_showboard},
    {"loadsgf", gtp_cmd_loadsgf},
    {"gogui-analyze_commands", gtp_cmd_analyze_commands},
    {"gogui-interrupt", cmd_interrupt},
    {"goscribe-status", gtp_cmd_status},
    {"goscribe-view", gtp_cmd_view},
    {"goscribe-frame", gtp_cmd_frame},
    {"goscribe-events", gtp_cmd_events},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static gtp_handler command_find(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(commands[i].name, name)) return commands[i].fn;
    return NULL;
}

static bool cmd_known_command(gtp_engine *e, const gtp_command *c, gs_buf *res)
{
    (void)e;
    gs_buf_puts(res, c->argc >= 1 && command_find(c->argv[0]) ? "true" : "false");
    return true;
}

static bool cmd_list_commands(gtp_engine *e, const gtp_command *c, gs_buf *res)
{
    (void)e, (void)c;
    for (size_t i = 0; i < NCOMMANDS; i++) gs_buf_printf(res, "%s%s", i ? "\n" : "", commands[i].name);
    return true;
}

/* ------------------------------------------------ lines and framing */

/* The line as GTP 2 (3.1) wants it read: control characters but HT and
 * LF dropped, HT made a space, a '#' comment cut, spaces trimmed. */
static void preprocess(const char *line, char *out)
{
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)line; *p && *p != '#' && o < GTP_MAX_LINE; p++) {
        if (*p == '\t') out[o++] = ' ';
        else if (*p >= 32 && *p != 127) out[o++] = (char)*p;
    }
    while (o && out[o - 1] == ' ') o--;
    out[o] = 0;
}

/* Splits a line into id, name and arguments; false when it holds no
 * command (empty, or only a comment). */
static bool command_parse(const char *line, gtp_command *c)
{
    memset(c, 0, sizeof *c);
    preprocess(line, c->text);
    char *save = NULL, *tok = strtok_r(c->text, " ", &save);
    if (!tok) return false;
    size_t n = strlen(tok);
    if (n <= 18 && strspn(tok, "0123456789") == n) { /* a number, as long as a controller could mean it */
        memcpy(c->id, tok, n + 1);
        tok = strtok_r(NULL, " ", &save);
    }
    c->name = tok ? tok : "";
    while ((tok = strtok_r(NULL, " ", &save)) && c->argc < GTP_MAX_ARGS) c->argv[c->argc++] = tok;
    return true;
}

/* "=ID text" / "?ID message" and the empty line that ends a response; the
 * text is kept to printable lines, none of them empty (an empty line
 * would end the response early). */
static void respond(gs_buf *out, const char *id, bool ok, const char *text)
{
    gs_buf_printf(out, "%c%s ", ok ? '=' : '?', id);
    bool line_start = false;
    for (const unsigned char *p = (const unsigned char *)(text ? text : ""); *p; p++) {
        if (*p == '\n') {
            if (!line_start && p[1]) gs_buf_puts(out, "\n");
            line_start = true;
            continue;
        }
        char ch = *p < 32 || *p == 127 ? ' ' : (char)*p;
        gs_buf_add(out, &ch, 1);
        line_start = false;
    }
    gs_buf_puts(out, "\n\n");
}

bool gtp_engine_handle(gtp_engine *e, const char *line, bool too_long, gs_buf *out)
{
    gtp_command *c = malloc(sizeof *c);
    if (!c) {
        respond(out, "", false, "out of memory");
        return false;
    }
    bool has = command_parse(line, c);
    if (has || too_long) {
        gs_buf res = {0};
        bool ok = false;
        gtp_handler fn = has ? command_find(c->name) : NULL;
        if (too_long) gs_buf_printf(&res, "command too long (more than %d bytes)", GTP_MAX_LINE);
        else if (!fn) gs_buf_puts(&res, "unknown command");
        else ok = fn(e, c, &res);
        if (!gs_buf_ok(&res)) ok = false;
        respond(out, c->id, ok, gs_buf_ok(&res) ? res.p : "out of memory");
        gs_buf_free(&res);
    }
    free(c);
    return e->quit;
}
