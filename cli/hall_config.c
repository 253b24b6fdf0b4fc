/* cli/hall_config.c: the config of `goscribe hall --config FILE`, one
 * round of a club evening (the format: doc/usage.md "An evening", and
 * `goscribe hall --help`):
 *
 *     event = Spring Club Cup      # the round's keys, then one section a board
 *     pairings = round3.xml
 *     [board 1]
 *     source = /dev/video0
 *
 * `#` starts a comment; paths are relative to the file's folder.  Every
 * problem is one line FILE:LINE: what. */
#include "cli/cli.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ROUND_KEYS "event, round, place, date, pairings, output, delay, mqtt, serve, options"
#define BOARD_KEYS "source, sgf, options"

/* Options the hall gives every recorder itself. */
static const char *const reserved_opts[] = {"-o", "--output", "--serve", "--token", "--board-name", "--table",
                                            "--black", "--white", "--komi", "--event", "--round", "--place",
                                            "--hall", "--announce", "--hall-token", "--mqtt", "--resume",
                                            "--private", "--no-stdin", "-q", "--quiet", "--linger"};

typedef struct cfg_reader {
    hall_evening *ev;
    int line;
    hall_board_cfg *board;       /* the section being read, NULL = the round's keys */
} cfg_reader;

static int cfg_error(const cfg_reader *r, const char *fmt, const char *a, const char *b)
{
    char msg[1200], shown[1200];
    snprintf(msg, sizeof msg, fmt, a ? a : "", b ? b : "");
    /* a line quoted may hold a camera's URL: never its credentials */
    cli_error("%s:%d: %s", r->ev->path, r->line, capture_spec_shown(msg, shown, sizeof shown));
    return -1;
}

/* A path of the config: as written when absolute, else from its folder. */
static int cfg_path(const cfg_reader *r, const char *v, char *out, size_t n)
{
    int k = v[0] == '/' ? snprintf(out, n, "%s", v) : snprintf(out, n, "%s/%s", r->ev->dir, v);
    return k > 0 && (size_t)k < n ? 0 : cfg_error(r, "path too long: %s%s", v, NULL);
}

static int cfg_copy(const cfg_reader *r, char *out, size_t n, const char *v)
{
    if (strlen(v) >= n) return cfg_error(r, "value too long: %s%s", v, NULL);
    snprintf(out, n, "%s", v);
    return 0;
}

/* "options": the words (double quotes group) into opts; the hall's own
 * options are refused. */
static int cfg_options(const cfg_reader *r, const char *v, char *text, size_t n, char **opts, int *nopts)
{
    if (cfg_copy(r, text, n, v)) return -1;
    *nopts = 0;
    for (char *p = text; *p;) {
        while (isspace((unsigned char)*p)) p++;
        if (!*p) break;
        bool quoted = *p == '"';
        char *w = quoted ? ++p : p;
        while (*p && (quoted ? *p != '"' : !isspace((unsigned char)*p))) p++;
        if (quoted && !*p) return cfg_error(r, "options: a quote is not closed%s%s", NULL, NULL);
        if (*p) *p++ = '\0';
        if (*nopts == HALL_MAX_OPTIONS) return cfg_error(r, "options: more than 24 words%s%s", NULL, NULL);
        for (size_t i = 0; i < sizeof reserved_opts / sizeof reserved_opts[0]; i++)
            if (!strcmp(w, reserved_opts[i]))
                return cfg_error(r, "options: %s is the hall's to give (the pairing and the board give it)%s", w, NULL);
        opts[(*nopts)++] = w;
    }
    return 0;
}

/* "0", "90", "90s", "5m" into milliseconds (at most an hour). */
static int cfg_delay(const cfg_reader *r, const char *v, int *ms)
{
    char *end;
    long n = strtol(v, &end, 10);
    long unit = !strcmp(end, "m") || !strcmp(end, "min") ? 60 : (!*end || !strcmp(end, "s")) ? 1 : 0;
    if (end == v || n < 0 || !unit || n * unit > 3600)
        return cfg_error(r, "delay: expected seconds or minutes up to an hour (0, 90s, 5m), not '%s'%s", v, NULL);
    *ms = (int)(n * unit * 1000);
    return 0;
}

static int round_key(cfg_reader *r, const char *k, const char *v)
{
    hall_evening *ev = r->ev;
    if (!strcmp(k, "event")) return cfg_copy(r, ev->event, sizeof ev->event, v);
    if (!strcmp(k, "place")) return cfg_copy(r, ev->place, sizeof ev->place, v);
    if (!strcmp(k, "date")) return cfg_copy(r, ev->date, sizeof ev->date, v);
    if (!strcmp(k, "serve")) return cfg_copy(r, ev->serve, sizeof ev->serve, v);
    if (!strcmp(k, "mqtt")) return cfg_copy(r, ev->mqtt, sizeof ev->mqtt, v);
    if (!strcmp(k, "pairings")) return cfg_path(r, v, ev->pairings, sizeof ev->pairings);
    if (!strcmp(k, "output")) return cfg_path(r, v, ev->output, sizeof ev->output);
    if (!strcmp(k, "delay")) return cfg_delay(r, v, &ev->delay_ms);
    if (!strcmp(k, "options")) return cfg_options(r, v, ev->opt_text, sizeof ev->opt_text, ev->opts, &ev->nopts);
    if (!strcmp(k, "round")) {
        long n;
        if (cli_parse_int(v, 1, 999, &n)) return cfg_error(r, "round: expected a round number, not '%s'%s", v, NULL);
        ev->round_no = (int)n;
        return cfg_copy(r, ev->round, sizeof ev->round, v);
    }
    return cfg_error(r, "unknown key '%s' (keys: " ROUND_KEYS ")%s", k, NULL);
}

/* Whether a source is an address (scheme://...: a network camera), not a path. */
static bool is_address(const char *v)
{
    size_t n = strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-");
    return n > 0 && isalpha((unsigned char)v[0]) && !strncmp(v + n, "://", 3);
}

static int board_key(cfg_reader *r, const char *k, const char *v)
{
    hall_board_cfg *b = r->board;
    /* a camera's number or an address as it is, a file or a device from the config's folder */
    if (!strcmp(k, "source"))
        return strspn(v, "0123456789") == strlen(v) || is_address(v) ? cfg_copy(r, b->source, sizeof b->source, v)
                                                                      : cfg_path(r, v, b->source, sizeof b->source);
    if (!strcmp(k, "sgf")) return cfg_path(r, v, b->sgf, sizeof b->sgf);
    if (!strcmp(k, "options")) return cfg_options(r, v, b->opt_text, sizeof b->opt_text, b->opts, &b->nopts);
    return cfg_error(r, "unknown key '%s' in a board's section (keys: " BOARD_KEYS ")%s", k, NULL);
}

/* "[board T]" */
static int section(cfg_reader *r, char *s)
{
    long t;
    char *close = strchr(s, ']');
    if (!close || close[1]) return cfg_error(r, "a section is [board T]%s%s", NULL, NULL);
    *close = '\0';
    if (strncmp(s + 1, "board ", 6) || cli_parse_int(s + 7, 1, 9999, &t))
        return cfg_error(r, "a section is [board T], T the pairing's board number, not [%s]%s", s + 1, NULL);
    hall_evening *ev = r->ev;
    for (int i = 0; i < ev->nboards; i++)
        if (ev->boards[i].table == t) return cfg_error(r, "[board %s] given twice%s", s + 7, NULL);
    if (ev->nboards == HALL_MAX_EVENING_BOARDS) return cfg_error(r, "more than 64 boards%s%s", NULL, NULL);
    r->board = &ev->boards[ev->nboards++];
    memset(r->board, 0, sizeof *r->board);
    r->board->table = (int)t;
    r->board->line = r->line;
    return 0;
}

/* One line of the file (its comment cut off). */
static int cfg_line(cfg_reader *r, char *s)
{
    char *hash = strchr(s, '#');
    if (hash) *hash = '\0';
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1])) s[--n] = '\0';
    if (!n) return 0;
    if (s[0] == '[') return section(r, s);
    char *eq = strchr(s, '=');
    if (!eq) return cfg_error(r, "expected KEY = VALUE, not '%s'%s", s, NULL);
    char *v = eq + 1;
    while (eq > s && isspace((unsigned char)eq[-1])) eq--;
    *eq = '\0';
    while (isspace((unsigned char)*v)) v++;
    if (!*v) return cfg_error(r, "%s: no value%s", s, NULL);
    return r->board ? board_key(r, s, v) : round_key(r, s, v);
}

/* The rest, once the file is read: every board has a source and a
 * pairing, a file to write; defaults from the pairings. */
static int cfg_finish(cfg_reader *r)
{
    hall_evening *ev = r->ev;
    if (!ev->pairings[0]) return cfg_error(r, "no 'pairings' (an OpenGotha tournament file or a CSV)%s%s", NULL, NULL);
    if (!ev->nboards) return cfg_error(r, "no [board T] section: nothing to record%s%s", NULL, NULL);
    gs_error err;
    if (pairing_read(ev->pairings, ev->round_no, &ev->pr, &err) != GS_OK) {
        cli_error("%s", err.msg);
        return -1;
    }
    if (!ev->event[0]) snprintf(ev->event, sizeof ev->event, "%s", ev->pr.event);
    if (!ev->place[0]) snprintf(ev->place, sizeof ev->place, "%s", ev->pr.place);
    if (!ev->round[0] && ev->pr.round) snprintf(ev->round, sizeof ev->round, "%d", ev->pr.round);
    if (!ev->date[0]) {
        time_t now = time(NULL);
        struct tm tm;
        if (localtime_r(&now, &tm)) strftime(ev->date, sizeof ev->date, "%Y-%m-%d", &tm);
    }
    if (!ev->output[0]) snprintf(ev->output, sizeof ev->output, "%s", ev->dir);
    for (int i = 0; i < ev->nboards; i++) {
        hall_board_cfg *b = &ev->boards[i];
        r->line = b->line;
        char t[16];
        snprintf(t, sizeof t, "%d", b->table);
        if (!b->source[0]) return cfg_error(r, "[board %s] has no source (a camera, a video or a folder of photos)%s",
                                            t, NULL);
        if (!pairing_board_at(&ev->pr, b->table))
            return cfg_error(r, "board %s is not in the round's pairings (%s)", t, ev->pairings);
        if (!b->sgf[0]) {
            int k = snprintf(b->sgf, sizeof b->sgf, "%s/round-%s-table-%d.sgf", ev->output, ev->round[0] ? ev->round : "0",
                             b->table);
            if (k < 0 || (size_t)k >= sizeof b->sgf) return cfg_error(r, "the output folder's path is too long%s%s", NULL, NULL);
        }
    }
    return 0;
}

int hall_evening_load(const char *path, hall_evening *ev)
{
    memset(ev, 0, sizeof *ev);
    snprintf(ev->path, sizeof ev->path, "%s", path);
    const char *slash = strrchr(path, '/');
    if (slash) snprintf(ev->dir, sizeof ev->dir, "%.*s", (int)(slash - path), path);
    else snprintf(ev->dir, sizeof ev->dir, ".");
    if (!ev->dir[0]) snprintf(ev->dir, sizeof ev->dir, "/");
    char *text = NULL;
    gs_error err;
    if (gs_file_read(path, 1 << 20, &text, NULL, &err) != GS_OK) {
        cli_error("%s: %s", path, err.msg);
        return -1;
    }
    cfg_reader r = {ev, 0, NULL};
    int rc = 0;
    for (char *line = text, *next; line && !rc; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        r.line++;
        if (memchr(line, '\r', strlen(line))) *strchr(line, '\r') = '\0';
        rc = cfg_line(&r, line);
    }
    free(text);
    r.line = r.line ? r.line : 1;
    if (!rc) rc = cfg_finish(&r);
    if (rc) hall_evening_free(ev);
    return rc;
}

void hall_evening_free(hall_evening *ev)
{
    if (ev) pairing_round_free(&ev->pr);
}

void hall_evening_print(const hall_evening *ev, FILE *f)
{
    fprintf(f, "%s, round %s, %s, %s (%d board%s; pairings %s, %s)\n", ev->event[0] ? ev->event : "(no event)",
            ev->round[0] ? ev->round : "-", ev->place[0] ? ev->place : "(no place)", ev->date, ev->nboards,
            ev->nboards == 1 ? "" : "s", ev->pairings, ev->pr.format);
    for (int i = 0; i < ev->nboards; i++) {
        const hall_board_cfg *b = &ev->boards[i];
        const pairing_board *p = pairing_board_at(&ev->pr, b->table);
        char shown[512]; /* a URL's credentials are never printed */
        fprintf(f, "table %d: %s%s%s (Black) vs %s%s%s (White), handicap %d, komi %s%g: %s -> %s\n", b->table, p->black,
                p->black_rank[0] ? " " : "", p->black_rank, p->white, p->white_rank[0] ? " " : "", p->white_rank,
                p->handicap, p->has_komi ? "" : "default ", p->has_komi ? p->komi : 7.5,
                capture_spec_shown(b->source, shown, sizeof shown), b->sgf);
    }
}
