/* cli/cmd_hall.c: `goscribe hall`, one page listing every board of a club. */
#include "cli/cli.h"
#include "broadcast/broadcast.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void hall_usage(FILE *f)
{
    fprintf(f,
            "usage: goscribe hall --serve [ADDR:]PORT [--board URL]... [--mqtt HOST:PORT] [--poll-ms MS]\n"
            "\n"
            "Serves one page with every board of the club (table, players, move, result),\n"
            "each linking to its own live page.  Runs until interrupted (Ctrl-C).\n"
            "\n"
            "  --serve [ADDR:]PORT  where to listen (ADDR defaults to 127.0.0.1, loopback;\n"
            "                       0.0.0.0 for the club's network)\n"
            "  --board URL          a recorder started with --serve, e.g. http://10.0.0.5:8080\n"
            "                       (repeat for each board; `goscribe record --serve P --hall URL` joins alone)\n"
            "  --mqtt HOST:PORT     follow the boards publishing to this MQTT broker\n"
            "                       (retained topics goscribe/<board>/state)\n"
            "  --poll-ms MS         how often to poll board URLs (default 1000)\n"
            "\n"
            "Pages: / (the hall), /state.json (all boards), POST /api/announce {\"url\":...}.\n");
}

int cmd_hall(int argc, char **argv)
{
    const char *serve = NULL, *mqtt = NULL;
    const char **boards = calloc((size_t)argc + 1, sizeof *boards);
    int nboards = 0;
    long poll_ms = 1000;
    if (!boards) {
        cli_error("hall: out of memory");
        return GS_EXIT_ERROR;
    }
    int rc = GS_EXIT_ERROR;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a)) {
            hall_usage(stdout);
            free(boards);
            return GS_EXIT_OK;
        }
        bool has_val = i + 1 < argc;
        if (!strcmp(a, "--serve") && has_val) serve = argv[++i];
        else if (!strcmp(a, "--board") && has_val) boards[nboards++] = argv[++i];
        else if (!strcmp(a, "--mqtt") && has_val) mqtt = argv[++i];
        else if (!strcmp(a, "--poll-ms") && has_val) {
            if (cli_parse_int(argv[++i], 100, 600000, &poll_ms)) {
                cli_error("hall: --poll-ms wants 100..600000, not '%s'", argv[i]);
                goto out;
            }
        } else {
            cli_error("hall: unknown or incomplete option '%s' (try goscribe hall --help)", a);
            goto out;
        }
    }
    if (!serve) {
        cli_error("hall: --serve [ADDR:]PORT is required (try goscribe hall --help)");
        goto out;
    }
    char addr[64] = "127.0.0.1";
    long port;
    const char *colon = strrchr(serve, ':');
    if (colon) {
        size_t l = (size_t)(colon - serve);
        if (l == 0 || l >= sizeof addr) {
            cli_error("hall: --serve '%s': expected [ADDR:]PORT", serve);
            goto out;
        }
        memcpy(addr, serve, l);
        addr[l] = '\0';
    }
    if (cli_parse_int(colon ? colon + 1 : serve, 0, 65535, &port)) {
        cli_error("hall: --serve '%s': port must be 0..65535", serve);
        goto out;
    }
    /* Block the stop signals before any thread starts, then wait for them. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    broadcast_hall_config cfg = {addr, (int)port, boards, nboards, mqtt, (int)poll_ms};
    gs_error err = {0};
    broadcast_hall *h = broadcast_hall_start(&cfg, &err);
    if (!h) {
        cli_error("hall: %s", err.msg);
        rc = gs_status_exit_code(err.status);
        goto out;
    }
    printf("goscribe hall: http://%s:%d/ (%d board address%s%s%s)\n", addr, broadcast_hall_port(h), nboards,
           nboards == 1 ? "" : "es", mqtt ? ", MQTT " : "", mqtt ? mqtt : "");
    fflush(stdout);
    int sig = 0;
    sigwait(&set, &sig);
    broadcast_hall_stop(h);
    rc = GS_EXIT_OK;
out:
    free(boards);
    return rc;
}
