/* cli/count_serve.c: `goscribe count PHOTO --serve [ADDR:]PORT`: the count
 * page for a phone (broadcast_count_*): its address and token printed, then
 * served until someone confirms the count on it (its SGF then written) or
 * Ctrl-C; the caller prints the confirmed count as it prints any. */
#include "cli/cli.h"
#include "broadcast/broadcast.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* Set by SIGINT/SIGTERM: a signal handler may only touch a volatile
 * sig_atomic_t, the one piece of static state the page needs. */
static volatile sig_atomic_t g_stop;

static void on_stop(int sig)
{
    (void)sig;
    g_stop = 1;
}

/* The SGF's path: --sgf, else the photo's name with .sgf; a file there
 * already is not written over unless --sgf named it.  False (said) when
 * it cannot be had. */
static bool sgf_path_of(const score_count_options *o, char *out, size_t len)
{
    if (o->sgf_path) {
        snprintf(out, len, "%s", o->sgf_path);
        return true;
    }
    const char *slash = strrchr(o->input, '/'), *dot = strrchr(o->input, '.');
    size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - o->input) : strlen(o->input);
    if (stem + 5 > len) {
        cli_error("count: %s: the name is too long (give --sgf)", o->input);
        return false;
    }
    snprintf(out, len, "%.*s.sgf", (int)stem, o->input);
    if (access(out, F_OK) == 0) {
        cli_error("count: %s exists: name the SGF to write with --sgf", out);
        return false;
    }
    return true;
}

int cli_count_serve_run(const cli_count_serve *s, const score_count_options *o, score_count_result *r)
{
    char sgf[1024];
    size_t n = strlen(o->input);
    static const char *const boards[] = {".sgf", ".txt", ".json"};
    for (size_t k = 0; k < sizeof boards / sizeof boards[0]; k++) {
        size_t m = strlen(boards[k]);
        if (n >= m && !strcasecmp(o->input + n - m, boards[k])) {
            cli_error("count: --serve needs a photo (%s is not one)", o->input);
            return GS_EXIT_ERROR;
        }
    }
    if (o->overlay_path) {
        cli_error("count: --overlay and --serve: the page draws the count (give --overlay without --serve)");
        return GS_EXIT_ERROR;
    }
    if (!sgf_path_of(o, sgf, sizeof sgf)) return GS_EXIT_ERROR;
    broadcast_count_config cfg = {s->bind[0] ? s->bind : NULL, s->port, s->token, s->hosts, s->nhosts, o, sgf};
    gs_error err = {0};
    broadcast_count *c = broadcast_count_start(&cfg, &err);
    if (!c) {
        cli_error("count: %s", err.msg);
        return gs_status_exit_code(err.status);
    }
    /* on stderr, as record's address: stdout is the count's (--json) */
    fprintf(stderr, "goscribe count: page %s token %s (Ctrl-C ends it; Confirm writes %s)\n", broadcast_count_url(c),
            broadcast_count_token(c), sgf);
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    /* (a handler that cannot be set only loses the clean stop) */
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    g_stop = 0;
    bool confirmed = broadcast_count_wait(c, &g_stop, r);
    /* the page is answered and shows the confirmation before the server goes */
    if (confirmed) usleep(1000 * 1000);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    broadcast_count_stop(c);
    if (!confirmed) {
        cli_error("count: stopped before the count was confirmed: no SGF written");
        return GS_EXIT_ERROR;
    }
    return -1;
}
