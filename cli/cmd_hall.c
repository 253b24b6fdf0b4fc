/* cli/cmd_hall.c: `goscribe hall`, one page listing every board of a club;
 * with --config, one round of a club evening: its pairings, a recorder per
 * board (cli/hall_evening.c), the round's pages and feed. */
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
            "       goscribe hall --config EVENING.conf [options]\n"
            "\n"
            "Serves one page with every board of the club (table, players, move, result),\n"
            "each linking to its own live page.  Runs until interrupted (Ctrl-C).\n"
            "Pages: / (the hall), /state.json (all boards), POST /api/announce {\"url\":...}\n"
            "(application/json, header X-Goscribe-Token: T); an announced board that is not\n"
            "announced again for 30 s leaves the hall.\n"
            "\n"
            "With --config: one round of a club evening.  The hall reads the round's pairings\n"
            "(OpenGotha's tournament file or a CSV), starts a `goscribe record` for every\n"
            "board of the config (its camera or video, the players' names, ranks, handicap\n"
            "and komi from the pairing; each SGF written as it goes), restarts a camera's\n"
            "recorder that crashes (--resume), and serves the round: / every board at once\n"
            "(for a projector), /board/T one board with its moves, /round.sgf and\n"
            "/board/T.sgf (the feed, with ETag), /round.json, /round/events (SSE), MQTT if\n"
            "the config names a broker, /board/T/console (corrections, with the token).\n"
            "The config:\n"
            "    event = Spring Club Cup     # default: the pairing file's tournament name\n"
            "    round = 3                   # the pairing file's round (default: its last)\n"
            "    place = Utrecht             # date = YYYY-MM-DD (default: today)\n"
            "    pairings = round3.xml       # OpenGotha file or CSV (paths from this file's folder)\n"
            "    output = games              # where the SGFs go (default: this file's folder)\n"
            "    delay = 5m                  # broadcast delay: 0, 90s, 5m (default 0)\n"
            "    mqtt = 127.0.0.1:1883       # also publish the round there\n"
            "    serve = 0.0.0.0:8080        # where the hall listens (--serve wins)\n"
            "    options = --settle 0.5      # more `goscribe record` options for every board\n"
            "    [board 1]                   # the pairing's board 1\n"
            "    source = /dev/video0        # a camera or its URL, a video file or photos\n"
            "    sgf = r3-t1.sgf             # default: OUTPUT/round-R-table-T.sgf\n"
            "    options = --calibration cam1.cal --black-side far\n"
            "\n"
            "Options:\n"
            CLI_HELP_OPTION
            "  --serve [ADDR:]PORT  where to listen (ADDR defaults to 127.0.0.1, loopback;\n"
            "                       0.0.0.0 for the club's network)\n"
            "  --config FILE        one round of an evening from this config (above)\n"
            "  --check              with --config: print the plan and check every board as\n"
            "                       the evening would run it (`goscribe record ... --check`:\n"
            "                       its source opens and gives a frame, its options are\n"
            "                       taken, its files can be written), then exit: one line\n"
            "                       per problem, exit 1 when there is one\n"
            "  --exit-when-done     with --config: stop once every board's recorder has\n"
            "                       ended (videos); a recorder that failed makes it exit 1\n"
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

/* Names given with --allow-host (at most). */

/* What the command line asks for. */
typedef struct hall_opts {
    char addr[64];              /* where to listen */
    long port;
    const char *mqtt;           /* broker to follow, NULL = none */
    const char **boards;        /* board URLs (argv strings), calloc'd array */
    int nboards;
    long poll_ms;
    const char *token;          /* NULL = random */
    const char *allow[CLI_MAX_ALLOW_HOSTS];
    int nallow;
    long max_per_client;        /* 0 = the default */
    const char *config;         /* --config: an evening; NULL = none */
    bool check, exit_when_done;
    bool serve_given;           /* --serve was given */
} hall_opts;

/* Splits --serve [ADDR:]PORT into o->addr and o->port (cli_parse_serve:
 * one meaning of the option in every command); false with the message
 * printed. */
static bool hall_parse_serve(const char *serve, hall_opts *o)
{
    char bind[sizeof o->addr];
    int port = 0;
    if (cli_parse_serve("hall", serve, bind, sizeof bind, &port)) return false;
    if (bind[0]) memcpy(o->addr, bind, sizeof bind); /* else the default, loopback */
    o->port = port;
    return true;
}

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
        if (!strcmp(a, "--check")) {
            o->check = true;
            continue;
        }
        if (!strcmp(a, "--exit-when-done")) {
            o->exit_when_done = true;
            continue;
        }
        bool known = !strcmp(a, "--serve") || !strcmp(a, "--config") || !strcmp(a, "--board") ||
                     !strcmp(a, "--mqtt") || !strcmp(a, "--token") || !strcmp(a, "--allow-host") ||
                     !strcmp(a, "--poll-ms") || !strcmp(a, "--max-per-client");
        if (!known) {
            cli_error("hall: unknown option %s (see goscribe hall --help)", a);
            return -1;
        }
        const char *v = cli_value("hall", argc, argv, &i);
        if (!v) return -1;
        if (!strcmp(a, "--serve")) serve = v;
        else if (!strcmp(a, "--config")) o->config = v;
        else if (!strcmp(a, "--board")) o->boards[o->nboards++] = v;
        else if (!strcmp(a, "--mqtt")) o->mqtt = v;
        else if (!strcmp(a, "--token")) o->token = v;
        else if (!strcmp(a, "--allow-host") && cli_add_allow_host("hall", v, o->allow, &o->nallow)) return -1;
        else if (!strcmp(a, "--poll-ms") && cli_parse_whole("hall", a, v, 100, 600000, &o->poll_ms)) return -1;
        else if (!strcmp(a, "--max-per-client") && cli_parse_max_per_client("hall", v, &o->max_per_client)) return -1;
    }
    if ((o->check || o->exit_when_done) && !o->config) {
        cli_error("hall: --check and --exit-when-done go with --config");
        return -1;
    }
    if (o->config && (o->nboards || o->mqtt)) {
        cli_error("hall: --board and --mqtt go in the config (its boards, its 'mqtt' key), not beside --config");
        return -1;
    }
    if (!serve && o->config) return 0; /* the config may say where */
    o->serve_given = serve != NULL;
    if (!serve) {
        cli_error("hall: --serve [ADDR:]PORT is required (try goscribe hall --help)");
        return -1;
    }
    return hall_parse_serve(serve, o) ? 0 : -1;
}

/* The round of an evening as the hall serves it (boards holds ev->nboards). */
static void round_config(const hall_evening *ev, broadcast_round_config *rc, broadcast_round_board *boards)
{
    memset(rc, 0, sizeof *rc);
    rc->event = ev->event;
    rc->round = ev->round;
    rc->place = ev->place;
    rc->date = ev->date;
    rc->delay_ms = ev->delay_ms;
    rc->mqtt = ev->mqtt[0] ? ev->mqtt : NULL;
    rc->boards = boards;
    rc->nboards = ev->nboards;
    for (int i = 0; i < ev->nboards; i++) {
        const pairing_board *pb = pairing_board_at(&ev->pr, ev->boards[i].table);
        boards[i] = (broadcast_round_board){ev->boards[i].table, pb->black, pb->white, pb->black_rank, pb->white_rank,
                                            pb->handicap, pb->komi, pb->has_komi, ev->boards[i].sgf};
    }
}

/* --check: the plan printed, then where the hall listens and every board
 * tried as the evening would run it (hall_evening_check); the exit code. */
static int check_evening(hall_opts *o, hall_evening *ev)
{
    hall_evening_print(ev, stdout);
    fflush(stdout);
    int problems = 0;
    if (!o->serve_given && !ev->serve[0]) {
        cli_error("hall: where to listen: --serve [ADDR:]PORT or 'serve = ...' in %s", o->config);
        problems++;
    } else if (!o->serve_given && !hall_parse_serve(ev->serve, o)) {
        problems++;
    }
    int boards = hall_evening_check(ev, o->token);
    if (boards < 0) return GS_EXIT_ERROR;
    problems += boards;
    if (problems)
        printf("check: %d problem%s: the evening would not run as configured\n", problems,
               problems == 1 ? "" : "s");
    else
        printf("check: ready: every board's source gave a frame, its options were taken, its files can be written\n");
    return problems ? GS_EXIT_ERROR : GS_EXIT_OK;
}

/* The config read (and checked with --check: then *rc is the exit code
 * and NULL is returned); NULL with *rc on failure. */
static hall_evening *load_evening(hall_opts *o, int *rc)
{
    hall_evening *ev = calloc(1, sizeof *ev);
    *rc = GS_EXIT_ERROR;
    if (!ev) {
        cli_error("hall: out of memory");
        return NULL;
    }
    if (hall_evening_load(o->config, ev)) {
        free(ev);
        return NULL;
    }
    if (o->check) {
        *rc = check_evening(o, ev);
        hall_evening_free(ev);
        free(ev);
        return NULL;
    }
    return ev;
}

/* Blocks the stop signals (and SIGCHLD for the evening's recorders) before
 * any thread starts, so they are waited for, not delivered anywhere. */
static bool block_signals(bool children, sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    if (children) sigaddset(set, SIGCHLD);
    return pthread_sigmask(SIG_BLOCK, set, NULL) == 0;
}

/* Serves the hall until SIGINT or SIGTERM (an evening: until its
 * recorders have stopped). */
static int hall_run(hall_opts *o, hall_evening *ev)
{
    sigset_t set;
    if (!block_signals(ev != NULL, &set)) {
        cli_error("hall: cannot block SIGINT and SIGTERM");
        return GS_EXIT_ERROR;
    }
    broadcast_hall_config cfg;
    broadcast_hall_config_init(&cfg);
    cfg.bind_addr = o->addr;
    cfg.port = (int)o->port;
    cfg.boards = o->boards;
    cfg.nboards = o->nboards;
    cfg.mqtt = o->mqtt;
    cfg.poll_ms = (int)o->poll_ms;
    cfg.token = o->token;
    cfg.allow_hosts = o->allow;
    cfg.nallow_hosts = o->nallow;
    cfg.max_per_client = (int)o->max_per_client;
    broadcast_round_config rc;
    broadcast_round_board boards[HALL_MAX_EVENING_BOARDS];
    if (ev) {
        round_config(ev, &rc, boards);
        cfg.round = &rc;
    }
    gs_error err = {0};
    broadcast_hall *h = broadcast_hall_start(&cfg, &err);
    if (!h) {
        cli_error("hall: %s", err.msg);
        return gs_status_exit_code(err.status);
    }
    /* (a count in words: "no board address" when only announced boards
     * will come, "1 board address", "3 board addresses") */
    char addrs[48];
    if (o->nboards) snprintf(addrs, sizeof addrs, "%d board address%s", o->nboards, o->nboards == 1 ? "" : "es");
    else snprintf(addrs, sizeof addrs, "no board address: boards announce themselves");
    printf("goscribe hall: http://%s:%d/ (%s%s%s)\n", o->addr, broadcast_hall_port(h), addrs, o->mqtt ? ", MQTT " : "",
           o->mqtt ? o->mqtt : "");
    printf("goscribe hall: announce token %s (recorders: --hall http://ADDR:%d --hall-token %s)\n",
           broadcast_hall_token(h), broadcast_hall_port(h), broadcast_hall_token(h));
    if (ev)
        printf("goscribe hall: round %s of %s, %d board%s, delay %d s: http://%s:%d/round.sgf\n",
               ev->round[0] ? ev->round : "-", ev->event[0] ? ev->event : "(no event)", ev->nboards,
               ev->nboards == 1 ? "" : "s", ev->delay_ms / 1000, o->addr, broadcast_hall_port(h));
    fflush(stdout);
    int code = GS_EXIT_OK;
    if (ev) {
        hall_evening_run_opts ro = {broadcast_hall_token(h), o->exit_when_done, 5};
        code = hall_evening_run(ev, h, &ro);
    } else {
        int sig = 0;
        sigwait(&set, &sig);  /* fails only for an invalid set; this one is valid */
    }
    broadcast_hall_stop(h);
    return code;
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
    int rc = parsed > 0 ? GS_EXIT_OK : GS_EXIT_ERROR;
    hall_evening *ev = NULL;
    if (parsed == 0 && o.config) ev = load_evening(&o, &rc);
    bool need_serve = parsed == 0 && (!o.config || ev);
    if (need_serve && ev && !o.serve_given && !ev->serve[0]) {
        cli_error("hall: where to listen: --serve [ADDR:]PORT or 'serve = ...' in %s", o.config);
        need_serve = false;
    } else if (need_serve && ev && !o.serve_given && !hall_parse_serve(ev->serve, &o)) {
        need_serve = false;
    }
    if (need_serve) rc = hall_run(&o, ev);
    if (ev) hall_evening_free(ev);
    free(ev);
    free(o.boards);
    return rc;
}
