/* cli/opts.c: the options several commands share, each read and checked
 * here once, so that one option means one thing and says one thing when
 * it is wrong, whichever command it is given to (cli.h lists them); and
 * the error line, the help test and the "not built" message every command
 * shares. */
#include "cli/cli.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_parse_int(const char *s, long lo, long hi, long *out)
{
    if (!s || !*s) return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

int cli_parse_double(const char *s, double lo, double hi, double *out)
{
    if (!s || !*s) return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v) || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

const char *cli_value(const char *cmd, int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        cli_error("%s: %s needs a value (see goscribe %s --help)", cmd, argv[*i], cmd);
        return NULL;
    }
    return argv[++*i];
}

int cli_parse_whole(const char *cmd, const char *opt, const char *v, long lo, long hi, long *out)
{
    if (cli_parse_int(v, lo, hi, out) == 0) return 0;
    cli_error("%s: %s %s: expected a whole number from %ld to %ld", cmd, opt, v ? v : "", lo, hi);
    return -1;
}

int cli_parse_number(const char *cmd, const char *opt, const char *v, double lo, double hi, double *out)
{
    if (cli_parse_double(v, lo, hi, out) == 0) return 0;
    cli_error("%s: %s %s: expected a number from %g to %g", cmd, opt, v ? v : "", lo, hi);
    return -1;
}

/* ------------------------------------------------------------ board size */

static bool found_size(long n) { return n == 9 || n == 13 || n == 19; }

/* The one-line refusal of --size v for cmd. */
static void size_refused(const char *cmd, const char *v, cli_size_rule rule)
{
    if (rule == CLI_SIZE_ANY)
        cli_error("%s: --size %s: expected a board size from 5 to %d", cmd, v, GS_MAX_SIZE);
    else if (rule != CLI_SIZE_FOUND)
        cli_error("%s: --size %s: expected 9, 13 or 19 (the sizes the board search finds; 5 to %d with --corners%s)",
                  cmd, v, GS_MAX_SIZE, rule == CLI_SIZE_GRID ? " or --calibration" : "");
    else
        cli_error("%s: --size %s: expected 9, 13 or 19 (the sizes the board search finds)", cmd, v);
}

int cli_parse_size(const char *cmd, const char *v, cli_size_rule rule, long *out)
{
    long n;
    if (cli_parse_int(v, 5, GS_MAX_SIZE, &n) != 0 || (rule == CLI_SIZE_FOUND && !found_size(n))) {
        size_refused(cmd, v ? v : "", rule);
        return -1;
    }
    *out = n;
    return 0;
}

int cli_check_size(const char *cmd, long size, cli_size_rule rule, bool grid_given)
{
    if (!size || grid_given || found_size(size)) return 0;
    char v[16];
    snprintf(v, sizeof v, "%ld", size);
    size_refused(cmd, v, rule);
    return -1;
}

/* ------------------------------------------------------------- the rest */

int cli_parse_corners(const char *cmd, const char *v, double c[4][2])
{
    const char *p = v ? v : "";
    int n = 0;
    while (n < 8) {
        while (*p == ' ') p++;
        char *end;
        errno = 0;
        double x = strtod(p, &end);
        if (end == p || errno || !isfinite(x) || fabs(x) > 1e6) break;
        c[n / 2][n % 2] = x;
        n++;
        p = end;
        while (*p == ' ') p++;
        if (n < 8 && *p == ',') p++;
    }
    if (n == 8 && !*p) return 0;
    cli_error("%s: --corners %s: expected 8 numbers X1,Y1,X2,Y2,X3,Y3,X4,Y4 (pixels of the outer intersections: "
              "top-left, top-right, bottom-right, bottom-left)", cmd, v ? v : "");
    return -1;
}

int cli_parse_komi(const char *cmd, const char *v, double *out)
{
    if (cli_parse_double(v, -1000, 1000, out) == 0) return 0;
    cli_error("%s: --komi %s: expected a komi in SGF points, e.g. 7.5 (= 3 3/4 stones)", cmd, v ? v : "");
    return -1;
}

int cli_parse_max_pixels(const char *cmd, const char *s, long long *out)
{
    long v;
    if (cli_parse_int(s, 1, 1000000000000L, &v) != 0) {
        cli_error("%s: --max-pixels %s: expected a number of pixels (1 to 10^12)", cmd, s ? s : "");
        return -1;
    }
    *out = v;
    return 0;
}

int cli_check_max_pixels_env(void)
{
    const char *env = getenv("GOSCRIBE_MAX_PIXELS");
    long v;
    if (!env || cli_parse_int(env, 1, 1000000000000L, &v) == 0) return 0;
    /* (the image loader would fall back to its default without a word) */
    cli_error("GOSCRIBE_MAX_PIXELS=%.40s: expected a number of pixels (1 to 10^12)", env);
    return -1;
}

int cli_parse_seed(const char *cmd, const char *v, uint64_t *out)
{
    long n;
    if (cli_parse_whole(cmd, "--seed", v, 0, 2147483647L, &n) != 0) return -1;
    *out = (uint64_t)n;
    return 0;
}

int cli_parse_settle(const char *cmd, const char *v, double *ms)
{
    double s;
    if (cli_parse_double(v, 0.01, 60, &s) != 0) {
        cli_error("%s: --settle %s: expected seconds from 0.01 to 60", cmd, v ? v : "");
        return -1;
    }
    *ms = s * 1000.0;
    return 0;
}

int cli_parse_fps(const char *cmd, const char *v, double *out)
{
    return cli_parse_number(cmd, "--fps", v, 1, 240, out);
}

int cli_parse_frame_size(const char *cmd, const char *v, int *w, int *h)
{
    long a, b;
    char tail;
    if (v && sscanf(v, "%ldx%ld%c", &a, &b, &tail) == 2 && a >= 64 && b >= 48 && a <= 7680 && b <= 4320) {
        *w = (int)a;
        *h = (int)b;
        return 0;
    }
    cli_error("%s: --frame-size %s: expected WxH from 64x48 to 7680x4320", cmd, v ? v : "");
    return -1;
}

int cli_parse_black_side(const char *cmd, const char *v, record_black_side *out)
{
    if (v && record_black_side_parse(v, out)) return 0;
    cli_error("%s: --black-side %s: expected near, far, left or right", cmd, v ? v : "");
    return -1;
}

int cli_parse_serve(const char *cmd, const char *v, char *bind, size_t bindlen, int *port)
{
    const char *colon = strrchr(v, ':');
    long l;
    bool ok = cli_parse_int(colon ? colon + 1 : v, 0, 65535, &l) == 0;
    size_t n = colon ? (size_t)(colon - v) : 0;
    bind[0] = 0;
    if (ok && colon && (n == 0 || n >= bindlen)) ok = false;
    if (ok && colon) {
        /* [::1]:8080 style: the brackets go */
        if (n >= 2 && v[0] == '[' && v[n - 1] == ']') snprintf(bind, bindlen, "%.*s", (int)(n - 2), v + 1);
        else snprintf(bind, bindlen, "%.*s", (int)n, v);
    }
    if (!ok) {
        cli_error("%s: --serve %s: expected [ADDR:]PORT with PORT 0..65535", cmd, v);
        return -1;
    }
    *port = (int)l;
    return 0;
}

int cli_add_allow_host(const char *cmd, const char *v, const char **list, int *n)
{
    if (*n == CLI_MAX_ALLOW_HOSTS) {
        cli_error("%s: at most %d --allow-host names", cmd, CLI_MAX_ALLOW_HOSTS);
        return -1;
    }
    list[(*n)++] = v;
    return 0;
}

int cli_parse_max_per_client(const char *cmd, const char *v, long *out)
{
    return cli_parse_whole(cmd, "--max-per-client", v, 1, 512, out);
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("goscribe: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

int cli_is_help(const char *arg)
{
    return arg && (!strcmp(arg, "-h") || !strcmp(arg, "--help"));
}

int cli_not_built(const char *name)
{
    cli_error("%s: not built yet in this version", name);
    return GS_EXIT_ERROR;
}
