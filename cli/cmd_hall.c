/* cli/cmd_hall.c: `goscribe hall`, one page listing every board of a club. */
#include "cli/cli.h"
#include "broadcast/broadcast.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void hall_usage(FILE *f)
{
    fprintf(f,
            "Usage: goscribe hall --serve [ADDR:]PORT [options]\n"
            "\n"
            "Serves one page with every board of the club (table, players, move, result),\n"
            "each linking to its own live page.  Runs until interrupted (Ctrl-C).\n"
            "Pages: / (the hall), /state.json (all boards), POST /api/announce {\"url\":...}\n"
            "(application/json, header X-Goscribe-Token: T); an announced board that is not\n"
            "announced again for 30 s leaves the hall.\n"
            "\n"
            "Options:\n"
            "  --serve [ADDR:]PORT  where to listen (required; ADDR defaults to 127.0.0.1,\n"
            "                       loopback; 0.0.0.0 for the club's network)\n"
            "  --board URL          a recorder started with --serve, e.g. http://10.0.0.5:8080\n"
            "                       (repeat for each board; recorders can also join by\n"
            "                       themselves: `goscribe record ... --serve P --hall URL\n"
            "                       --hall-token T`)\n"
            "  --mqtt HOST:PORT     follow the boards publishing to this MQTT broker\n"
            "                       (retained topics goscribe/<board>/state)\n"
            "  --poll-ms MS         how often to poll board URLs (default 1000)\n"
            "  --token T            the token recorders announce with (8 to 64 characters;\n"
            "                       default: 128 random bits, printed at start)\n"
            "  --allow-host NAME    a name the hall is reached by besides its address,\n"
            "                       localhost and the machine's name (repeatable; other Host\n"
            "                       headers get 421, against DNS rebinding)\n"
            "  --max-per-client N   connections from one address (1..512, default 32)\n"
            CLI_EXIT_CODES CLI_EXIT_0 CLI_EXIT_1);
}


/* What the command line asks for. */
typedef struct hall_opts {
    char addr[64];              /* where to listen */
    int port;
    const char *mqtt;           /* broker to follow, NULL = none */
    const char **boards;        /* board URLs (argv strings), calloc'd array */
    int nboards;
    long poll_ms;
    const char *token;          /* NULL = random */
    const char *allow[CLI_MAX_ALLOW_HOSTS];
    int nallow;
    long max_per_client;        /* 0 = the default */
} hall_opts;

/* Fills o from the arguments (o->boards must hold argc entries): 0 to
 * run, 1 when the help was printed, -1 with the message printed. */
static int hall_parse(int argc, char **argv, hall_opts *o)
{
    const char *serve = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a)) {
            hall_usage(stdout);
            return 1;
        }
        const char *v = NULL;
        bool known = !strcmp(a, "--serve") || !strcmp(a, "--board") || !strcmp(a, "--mqtt") || !strcmp(a, "--token") ||
                     !strcmp(a, "--allow-host") || !strcmp(a, "--poll-ms") || !strcmp(a, "--max-per-client");
        if (!known) {
            cli_error("hall: unknown option %s (see goscribe hall --help)", a);
            return -1;
        }
        if (!(v = cli_value("hall", argc, argv, &i))) return -1;
        if (!strcmp(a, "--serve")) serve = v;
        else if (!strcmp(a, "--board")) o->boards[o->nboards++] = v;
        else if (!strcmp(a, "--mqtt")) o->mqtt = v;
        else if (!strcmp(a, "--token")) o->token = v;
        else if (!strcmp(a, "--allow-host") && cli_add_allow_host("hall", v, o->allow, &o->nallow)) return -1;
        else if (!strcmp(a, "--poll-ms") && cli_parse_whole("hall", a, v, 100, 600000, &o->poll_ms)) return -1;
        else if (!strcmp(a, "--max-per-client") && cli_parse_max_per_client("hall", v, &o->max_per_client)) return -1;
    }
    if (!serve) {
        cli_error("hall: --serve [ADDR:]PORT is required (see goscribe hall --help)");
        return -1;
    }
    char bind[sizeof o->addr];
    if (cli_parse_serve("hall", serve, bind, sizeof bind, &o->port)) return -1;
    if (bind[0]) memcpy(o->addr, bind, sizeof bind); /* else the default, loopback */
    return 0;
}

/* Serves the hall until SIGINT or SIGTERM. */
static int hall_run(const hall_opts *o)
{
    /* Block the stop signals before any thread starts, then wait for them. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    if (pthread_sigmask(SIG_BLOCK, &set, NULL)) {
        cli_error("hall: cannot block SIGINT and SIGTERM");
        return GS_EXIT_ERROR;
    }
    broadcast_hall_config cfg;
    broadcast_hall_config_init(&cfg);
    cfg.bind_addr = o->addr;
    cfg.port = o->port;
    cfg.boards = o->boards;
    cfg.nboards = o->nboards;
    cfg.mqtt = o->mqtt;
    cfg.poll_ms = (int)o->poll_ms;
    cfg.token = o->token;
    cfg.allow_hosts = o->allow;
    cfg.nallow_hosts = o->nallow;
    cfg.max_per_client = (int)o->max_per_client;
    gs_error err = {0};
    broadcast_hall *h = broadcast_hall_start(&cfg, &err);
    if (!h) {
        cli_error("hall: %s", err.msg);
        return gs_status_exit_code(err.status);
    }
    printf("goscribe hall: http://%s:%d/ (%d board address%s%s%s)\n", o->addr, broadcast_hall_port(h), o->nboards,
           o->nboards == 1 ? "" : "es", o->mqtt ? ", MQTT " : "", o->mqtt ? o->mqtt : "");
    printf("goscribe hall: announce token %s (recorders: --hall http://ADDR:%d --hall-token %s)\n",
           broadcast_hall_token(h), broadcast_hall_port(h), broadcast_hall_token(h));
    fflush(stdout);
    int sig = 0;
    sigwait(&set, &sig);  /* fails only for an invalid set; this one is valid */
    broadcast_hall_stop(h);
    return GS_EXIT_OK;
}

int cmd_hall(int argc, char **argv)
{
    hall_opts o = {.addr = "127.0.0.1", .poll_ms = 1000};
    o.boards = calloc((size_t)argc + 1, sizeof *o.boards);
    if (!o.boards) {
        cli_error("hall: out of memory");
        return GS_EXIT_ERROR;
    }
    int parsed = hall_parse(argc, argv, &o);
    int rc = parsed > 0 ? GS_EXIT_OK : parsed < 0 ? GS_EXIT_ERROR : hall_run(&o);
    free(o.boards);
    return rc;
}
