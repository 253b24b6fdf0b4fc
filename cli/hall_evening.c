/* cli/hall_evening.c: the evening's recorders.  Each board is recorded by
 * a `goscribe record` process of its own (this binary again), so a crash
 * of one board's recorder (a decoder fault on a bad frame, an abort, the
 * kernel killing it) takes no other board and not the hall down: the hall
 * sees it end, says so on the round's pages and (a camera's) starts it
 * again with --resume, the SGF on disk holding every move saved before (the
 * recorder saves atomically after each).  Processes rather than threads also give
 * each recorder its own memory and OpenCV state and let the kernel spread
 * them over the cores.
 *
 * Each recorder serves its referee console on loopback (port chosen by the
 * kernel, told on its stderr), with the hall's token; with a broadcast
 * delay its pages are private (`record --private`): the hall is then the
 * only public face.  Its event lines go to GAME.sgf.log; its stderr comes
 * here, prefixed with its table. */
#include "cli/cli.h"
#include "broadcast/broadcast.h"
#include "sgf/sgf.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* Wait before starting a crashed recorder again. */
#define EVENING_RESTART_MS 2000
/* Time the recorders have to stop on SIGINT before they are killed. */
#define EVENING_STOP_MS 15000
/* The longest line of a recorder taken in (a longer one is dropped). */
#define EVENING_LINE_MAX 2048

typedef struct rec_proc {
    hall_board_cfg *cfg;
    const pairing_board *pb;
    pid_t pid;
    int err_fd;                  /* its stderr, -1 when closed */
    char buf[EVENING_LINE_MAX];
    size_t blen;
    int restarts;
    double started_ms, restart_at;
    bool done, failed;
    char url[160], status[96], final_line[300];
    char last_line[EVENING_LINE_MAX]; /* what it said last, whole: said again with its end */
    /* the argument strings of its command line */
    char black[160], white[160], komi[32], table[16], name[32];
} rec_proc;

typedef struct evening {
    hall_evening *ev;
    struct broadcast_hall *h;
    const hall_evening_run_opts *o;
    char self[512];
    rec_proc *p;
    int n;
    bool stopping;
    double stop_ms;
} evening;

static void tell_hall(evening *e, rec_proc *p, bool running)
{
    broadcast_hall_round_recorder(e->h, p->cfg->table, p->url, e->o->token, running, p->status);
}

/* ------------------------------------------------------------ starting */

/* Whether the record's file is over already (it has a result): its game
 * is not recorded again. */
static bool file_state(const char *path, bool *exists)
{
    struct stat st;
    *exists = stat(path, &st) == 0;
    if (!*exists) return false;
    sgf_game g;
    gs_error err;
    bool over = sgf_game_load(path, &g, &err) == GS_OK && g.info.result[0];
    sgf_game_free(&g);
    return over;
}

/* The recorder's command line into argv (at most cap entries). */
static int build_argv(evening *e, rec_proc *p, bool resume, char **argv, int cap)
{
    const hall_evening *ev = e->ev;
    const pairing_board *pb = p->pb;
    snprintf(p->black, sizeof p->black, "%s,%s", pb->black, pb->black_rank);
    snprintf(p->white, sizeof p->white, "%s,%s", pb->white, pb->white_rank);
    snprintf(p->komi, sizeof p->komi, "%g", pb->komi);
    snprintf(p->table, sizeof p->table, "%d", p->cfg->table);
    snprintf(p->name, sizeof p->name, "Table %d", p->cfg->table);
    int n = 0;
#define ARG(x) do { if (n < cap - 1) argv[n++] = (char *)(x); } while (0)
    ARG(e->self); ARG("record"); ARG(p->cfg->source); ARG("-o"); ARG(p->cfg->sgf);
    ARG("--serve"); ARG("127.0.0.1:0"); ARG("--token"); ARG(e->o->token); ARG("--no-stdin");
    ARG("--board-name"); ARG(p->name); ARG("--table"); ARG(p->table);
    ARG("--black"); ARG(p->black); ARG("--white"); ARG(p->white);
    if (pb->has_komi) { ARG("--komi"); ARG(p->komi); }
    if (ev->event[0]) { ARG("--event"); ARG(ev->event); }
    if (ev->round[0]) { ARG("--round"); ARG(ev->round); }
    if (ev->place[0]) { ARG("--place"); ARG(ev->place); }
    if (ev->delay_ms > 0) ARG("--private");
    if (resume) ARG("--resume");
    for (int i = 0; i < ev->nopts; i++) ARG(ev->opts[i]);
    for (int i = 0; i < p->cfg->nopts; i++) ARG(p->cfg->opts[i]);
#undef ARG
    argv[n] = NULL;
    return n;
}

/* The child's files: stdin from /dev/null, stdout to GAME.sgf.log, stderr
 * into the pipe; its signals as a fresh process's. */
static int spawn_setup(posix_spawn_file_actions_t *fa, posix_spawnattr_t *at, const char *log, const int fds[2])
{
    sigset_t none, dflt;
    sigemptyset(&none);
    sigemptyset(&dflt);
    sigaddset(&dflt, SIGINT);
    sigaddset(&dflt, SIGTERM);
    sigaddset(&dflt, SIGCHLD);
    sigaddset(&dflt, SIGPIPE);
    int rc = posix_spawn_file_actions_addopen(fa, 0, "/dev/null", O_RDONLY, 0);
    if (!rc) rc = posix_spawn_file_actions_addopen(fa, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (!rc) rc = posix_spawn_file_actions_adddup2(fa, fds[1], 2);
    if (!rc) rc = posix_spawnattr_setsigmask(at, &none);
    if (!rc) rc = posix_spawnattr_setsigdefault(at, &dflt);
    if (!rc) rc = posix_spawnattr_setflags(at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    return rc;
}

/* Starts `argv` (this binary) with its stdout to out_path and its stderr
 * into a pipe, read non-blocking from *err_fd; 0 or an errno. */
static int spawn_child(evening *e, char **argv, const char *out_path, pid_t *pid, int *err_fd)
{
    int fds[2];
    /* close-on-exec: no other recorder keeps this one's pipe open (only
     * this thread starts processes, so none starts in between) */
    if (pipe(fds)) return errno;
    if (fcntl(fds[0], F_SETFD, FD_CLOEXEC) || fcntl(fds[1], F_SETFD, FD_CLOEXEC)) {
        int k = errno;
        close(fds[0]);
        close(fds[1]);
        return k;
    }
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    int rc = posix_spawn_file_actions_init(&fa);
    if (!rc && (rc = posix_spawnattr_init(&at))) posix_spawn_file_actions_destroy(&fa);
    if (!rc) {
        rc = spawn_setup(&fa, &at, out_path, fds);
        if (!rc) rc = posix_spawn(pid, e->self, &fa, &at, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        posix_spawnattr_destroy(&at);
    }
    close(fds[1]);
    if (rc) {
        close(fds[0]);
        return rc;
    }
    *err_fd = fds[0];
    (void)fcntl(*err_fd, F_SETFL, O_NONBLOCK); /* on a new pipe: cannot fail */
    return 0;
}

/* Starts board p's recorder; false when it cannot be (status says why). */
static bool start_recorder(evening *e, rec_proc *p)
{
    bool exists;
    if (file_state(p->cfg->sgf, &exists)) {
        p->done = true;
        snprintf(p->status, sizeof p->status, "ended (its file has a result)");
        tell_hall(e, p, false);
        return true;
    }
    char *argv[96], log[600];
    build_argv(e, p, exists, argv, 96);
    snprintf(log, sizeof log, "%s.log", p->cfg->sgf);
    int rc = spawn_child(e, argv, log, &p->pid, &p->err_fd);
    if (rc) {
        snprintf(p->status, sizeof p->status, "not started: %s", strerror(rc));
        return false;
    }
    p->blen = 0;
    p->url[0] = p->final_line[0] = p->last_line[0] = '\0';
    p->started_ms = gs_now_ms();
    p->restart_at = 0;
    snprintf(p->status, sizeof p->status, "%s", exists ? "recording (resumed)" : "recording");
    tell_hall(e, p, true);
    char shown[512]; /* a URL's credentials are never printed */
    fprintf(stderr, "[table %d] recorder started (pid %d)%s: %s -> %s\n", p->cfg->table, (int)p->pid,
            exists ? ", resuming the file" : "", capture_spec_shown(p->cfg->source, shown, sizeof shown), p->cfg->sgf);
    return true;
}

/* -------------------------------------------------------------- its words */

/* One line of a recorder's stderr. */
static void take_line(evening *e, rec_proc *p, const char *line)
{
    static const char live[] = "goscribe record: live ";
    if (!strncmp(line, live, sizeof live - 1)) {
        snprintf(p->url, sizeof p->url, "%s", line + sizeof live - 1);
        size_t n = strlen(p->url);
        if (n && p->url[n - 1] == '/') p->url[n - 1] = '\0';
        tell_hall(e, p, true);
        return;
    }
    if (!strncmp(line, "goscribe record: referee ", 25)) return; /* its token is the hall's */
    if (!strncmp(line, "recorded ", 9)) { /* said with its end (ended) */
        snprintf(p->final_line, sizeof p->final_line, "%s", line);
        return;
    }
    snprintf(p->last_line, sizeof p->last_line, "%s", line);
    fprintf(stderr, "[table %d] %s\n", p->cfg->table, line);
}

/* Reads what p wrote; at the end of its stderr the pipe is closed. */
static void read_err(evening *e, rec_proc *p)
{
    for (;;) {
        ssize_t k = read(p->err_fd, p->buf + p->blen, sizeof p->buf - 1 - p->blen);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            if (k == 0 || errno != EAGAIN) {
                if (p->blen) { p->buf[p->blen] = '\0'; take_line(e, p, p->buf); p->blen = 0; }
                close(p->err_fd);
                p->err_fd = -1;
            }
            return;
        }
        p->blen += (size_t)k;
        char *nl;
        while ((nl = memchr(p->buf, '\n', p->blen))) {
            *nl = '\0';
            take_line(e, p, p->buf);
            p->blen -= (size_t)(nl + 1 - p->buf);
            memmove(p->buf, nl + 1, p->blen);
        }
        if (p->blen == sizeof p->buf - 1) p->blen = 0; /* an absurd line: dropped */
    }
}

/* ------------------------------------------------------------ its end */

/* A camera (its number, a /dev/ device, a network camera's URL) goes on
 * where the game is: a recorder started again resumes the record from the
 * board as it stands.  A video would start again from its first frame,
 * behind the record: its recorder is not restarted (its file holds every
 * move saved). */
static bool is_camera(const char *source)
{
    return strspn(source, "0123456789") == strlen(source) || !strncmp(source, "/dev/", 5) ||
           capture_spec_is_network(source);
}

static void ended(evening *e, rec_proc *p, int wstatus, const struct rusage *ru)
{
    /* what it said last (its pipe ends with it; bounded all the same) */
    for (int i = 0; i < 50 && p->err_fd >= 0; i++) {
        read_err(e, p);
        struct pollfd pf = {p->err_fd, POLLIN, 0};
        if (p->err_fd >= 0) (void)poll(&pf, 1, 20);
    }
    if (p->err_fd >= 0) {
        close(p->err_fd);
        p->err_fd = -1;
    }
    double secs = (gs_now_ms() - p->started_ms) / 1000.0;
    p->pid = 0;
    if (WIFSIGNALED(wstatus) && !e->stopping && is_camera(p->cfg->source) && p->restarts < e->o->restarts) {
        p->restarts++;
        p->restart_at = gs_now_ms() + EVENING_RESTART_MS;
        snprintf(p->status, sizeof p->status, "crashed (signal %d), restarting", WTERMSIG(wstatus));
    } else {
        p->done = true;
        p->failed = !WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0;
        if (WIFSIGNALED(wstatus))
            snprintf(p->status, sizeof p->status, "%s (signal %d)", e->stopping ? "stopped" : "crashed, given up",
                     WTERMSIG(wstatus));
        else if (WEXITSTATUS(wstatus))
            snprintf(p->status, sizeof p->status, "stopped (exit %d)", WEXITSTATUS(wstatus));
        else snprintf(p->status, sizeof p->status, "ended");
    }
    double cpu = ru->ru_utime.tv_sec + ru->ru_stime.tv_sec + (ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) / 1e6;
    /* its last words whole (why it stopped), or its summary when it ended */
    const char *said = p->failed && p->last_line[0] ? p->last_line : p->final_line;
    fprintf(stderr, "[table %d] recorder %s after %.1f s (CPU %.1f s)%s%s\n", p->cfg->table, p->status, secs, cpu,
            said[0] ? ": " : "", said);
    tell_hall(e, p, false);
}

static void reap(evening *e)
{
    int st;
    pid_t pid;
    struct rusage ru;
    /* wait4: the child's CPU time too (what it costs beside the others) */
    while ((pid = wait4(-1, &st, WNOHANG, &ru)) > 0)
        for (int i = 0; i < e->n; i++)
            if (e->p[i].pid == pid) ended(e, &e->p[i], st, &ru);
}

/* -------------------------------------------------------------- the loop */

/* Signals (stop, a child ended) and the recorders' words, for up to ms. */
static void wait_events(evening *e, int sfd, int ms)
{
    struct pollfd fds[HALL_MAX_EVENING_BOARDS + 1];
    int map[HALL_MAX_EVENING_BOARDS + 1], n = 0;
    fds[n].fd = sfd;
    fds[n++].events = POLLIN;
    for (int i = 0; i < e->n; i++)
        if (e->p[i].err_fd >= 0) {
            map[n] = i;
            fds[n].fd = e->p[i].err_fd;
            fds[n++].events = POLLIN;
        }
    if (poll(fds, (nfds_t)n, ms) <= 0) return;
    for (int k = 1; k < n; k++)
        if (fds[k].revents) read_err(e, &e->p[map[k]]);
    struct signalfd_siginfo si;
    while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
        if (si.ssi_signo == SIGCHLD) reap(e);
        else if (!e->stopping) {
            e->stopping = true;
            e->stop_ms = gs_now_ms();
            fprintf(stderr, "goscribe hall: stopping the recorders (each saves its record)\n");
            for (int i = 0; i < e->n; i++)
                if (e->p[i].pid > 0) kill(e->p[i].pid, SIGINT);
        }
    }
    reap(e); /* a SIGCHLD merged with another is still a child to reap */
}

/* Whether the evening is over: stopped and every recorder gone, or (with
 * exit_when_done) every board ended; kills stragglers after the grace time. */
static bool evening_over(evening *e)
{
    bool running = false, pending = false;
    for (int i = 0; i < e->n; i++) {
        running = running || e->p[i].pid > 0;
        pending = pending || !e->p[i].done;
    }
    if (e->stopping) {
        if (running && gs_now_ms() - e->stop_ms > EVENING_STOP_MS)
            for (int i = 0; i < e->n; i++)
                if (e->p[i].pid > 0) kill(e->p[i].pid, SIGKILL);
        return !running;
    }
    return e->o->exit_when_done && !pending && !running;
}

static void restart_due(evening *e)
{
    for (int i = 0; i < e->n && !e->stopping; i++) {
        rec_proc *p = &e->p[i];
        if (p->restart_at > 0 && gs_now_ms() >= p->restart_at && !start_recorder(e, p)) {
            p->done = p->failed = true;
            tell_hall(e, p, false);
        }
    }
}

/* The goscribe binary the recorders run (this one); false when it cannot
 * be found (said). */
static bool find_self(evening *e)
{
    ssize_t k = readlink("/proc/self/exe", e->self, sizeof e->self - 1);
    if (k <= 0 || (size_t)k >= sizeof e->self - 1) {
        cli_error("hall: cannot find the goscribe binary to start the recorders (/proc/self/exe)");
        return false;
    }
    e->self[k] = '\0';
    return true;
}

int hall_evening_run(hall_evening *ev, struct broadcast_hall *h, const hall_evening_run_opts *o)
{
    evening e = {.ev = ev, .h = h, .o = o, .n = ev->nboards};
    if (!find_self(&e)) return GS_EXIT_ERROR;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGCHLD);
    int sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    e.p = calloc((size_t)e.n, sizeof *e.p);
    if (sfd < 0 || !e.p) {
        cli_error("hall: cannot watch the recorders (%s)", sfd < 0 ? strerror(errno) : "out of memory");
        if (sfd >= 0) close(sfd);
        free(e.p);
        return GS_EXIT_ERROR;
    }
    for (int i = 0; i < e.n; i++) {
        rec_proc *p = &e.p[i];
        p->cfg = &ev->boards[i];
        p->pb = pairing_board_at(&ev->pr, p->cfg->table);
        p->err_fd = -1;
        if (!start_recorder(&e, p)) {
            p->done = p->failed = true;
            fprintf(stderr, "[table %d] %s\n", p->cfg->table, p->status);
            tell_hall(&e, p, false);
        }
    }
    while (!evening_over(&e)) {
        wait_events(&e, sfd, 200);
        restart_due(&e);
    }
    int failed = 0;
    for (int i = 0; i < e.n; i++) failed += e.p[i].failed;
    close(sfd);
    free(e.p);
    return failed && !e.stopping ? GS_EXIT_ERROR : GS_EXIT_OK;
}

/* ------------------------------------------------------------ --check */

/* How long a board's check may take: its source has 10 s for a first
 * frame (cli/record_check.c), and a camera or a stream may be slow to open. */
#define CHECK_WAIT_MS 25000

/* One board's `goscribe record ... --check` and what it said. */
typedef struct check_proc {
    rec_proc p;
    bool skip;                   /* its file has a result: nothing will run */
    int spawn_errno;             /* it could not be started */
    bool killed;                 /* no answer in time */
    int wstatus;
    char out[EVENING_LINE_MAX * 2];
    size_t len;
} check_proc;

/* Starts board c's check: the recorder's command line, as the evening
 * would run it now, with --check. */
static void check_start(evening *e, check_proc *c)
{
    bool exists;
    if (file_state(c->p.cfg->sgf, &exists)) {
        c->skip = true;
        return;
    }
    char *argv[97];
    int n = build_argv(e, &c->p, exists, argv, 96);
    argv[n++] = "--check";
    argv[n] = NULL;
    c->spawn_errno = spawn_child(e, argv, "/dev/null", &c->p.pid, &c->p.err_fd);
}

/* Reads what c's check wrote; closes its pipe at the end (beyond the
 * buffer, the rest is dropped: a check says a few lines). */
static void check_read(check_proc *c)
{
    char chunk[1024];
    for (;;) {
        ssize_t k = read(c->p.err_fd, chunk, sizeof chunk);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0 && errno == EAGAIN) return;
        if (k <= 0) {
            close(c->p.err_fd);
            c->p.err_fd = -1;
            return;
        }
        size_t room = sizeof c->out - 1 - c->len, take = (size_t)k < room ? (size_t)k : room;
        memcpy(c->out + c->len, chunk, take);
        c->len += take;
        c->out[c->len] = '\0';
    }
}

/* What the checks say until each has closed its stderr or the time is up. */
static void check_collect(check_proc *c, int n, double until)
{
    for (;;) {
        struct pollfd fds[HALL_MAX_EVENING_BOARDS];
        int map[HALL_MAX_EVENING_BOARDS], k = 0;
        for (int i = 0; i < n; i++)
            if (c[i].p.err_fd >= 0) {
                fds[k] = (struct pollfd){c[i].p.err_fd, POLLIN, 0};
                map[k++] = i;
            }
        int left = (int)(until - gs_now_ms());
        if (!k || left <= 0) return;
        if (poll(fds, (nfds_t)k, left) < 0 && errno != EINTR) return;
        for (int j = 0; j < k; j++)
            if (fds[j].revents) check_read(&c[map[j]]);
    }
}

/* Waits for every check to end; one still running at `until` is killed. */
static void check_reap(check_proc *c, int n, double until)
{
    for (;;) {
        bool running = false;
        for (int i = 0; i < n; i++) {
            if (c[i].p.pid <= 0) continue;
            if (waitpid(c[i].p.pid, &c[i].wstatus, WNOHANG) == c[i].p.pid) c[i].p.pid = 0;
            else running = true;
        }
        if (!running) break;
        if (gs_now_ms() >= until) {
            for (int i = 0; i < n; i++)
                if (c[i].p.pid > 0) {
                    kill(c[i].p.pid, SIGKILL);
                    (void)waitpid(c[i].p.pid, &c[i].wstatus, 0);
                    c[i].p.pid = 0;
                    c[i].killed = true;
                }
            break;
        }
        struct timespec ts = {0, 20 * 1000000L};
        nanosleep(&ts, NULL);
    }
    for (int i = 0; i < n; i++)
        if (c[i].p.err_fd >= 0) {
            close(c[i].p.err_fd);
            c[i].p.err_fd = -1;
        }
}

/* text into out with every `source` in it written as `shown` (an
 * address's password hidden, whoever wrote the line). */
static void hide_source(const char *text, const char *source, const char *shown, char *out, size_t n)
{
    size_t k = 0, sl = strlen(source);
    out[0] = '\0';
    for (const char *p = text; *p && k + 1 < n;) {
        bool match = shown != source && sl && !strncmp(p, source, sl);
        const char *piece = match ? shown : p;
        size_t len = match ? strlen(shown) : 1;
        if (k + len >= n) break;
        memcpy(out + k, piece, len);
        k += len;
        p += match ? sl : 1;
    }
    out[k] = '\0';
}

/* Board c's problems, one line each, naming the config's [board T] line;
 * their number. */
static int check_report(const hall_evening *ev, const check_proc *c)
{
    const hall_board_cfg *b = c->p.cfg;
    static const char mine[] = "goscribe: ";
    int said = 0;
    const char *other = NULL;    /* a line of another kind (a library's) */
    size_t other_len = 0;
    char shown[sizeof b->source], text[sizeof c->out + 256];
    const char *name = capture_spec_shown(b->source, shown, sizeof shown);
    hide_source(c->out, b->source, name, text, sizeof text);
    for (const char *l = text; *l;) {
        size_t n = strcspn(l, "\n");
        if (n > sizeof mine - 1 && !strncmp(l, mine, sizeof mine - 1)) {
            cli_error("%s:%d: [board %d] %.*s", ev->path, b->line, b->table, (int)(n - (sizeof mine - 1)),
                      l + sizeof mine - 1);
            said++;
        } else if (n) {
            other = l;
            other_len = n;
        }
        l += n + (l[n] == '\n');
    }
    const char *why = c->killed ? "no answer in 25 s (its check was stopped)"
                      : c->spawn_errno ? strerror(c->spawn_errno)
                      : WIFSIGNALED(c->wstatus) ? "its check crashed"
                      : WEXITSTATUS(c->wstatus) && !said ? "its check failed and said nothing of its own" : NULL;
    if (why) {
        cli_error("%s:%d: [board %d] %s: %s%s%.*s", ev->path, b->line, b->table, name, why, other ? ": " : "",
                  (int)other_len, other ? other : "");
        said++;
    }
    return said;
}

int hall_evening_check(hall_evening *ev, const char *token)
{
    hall_evening_run_opts ro = {token && *token ? token : "check-only-token", false, 0};
    evening e = {.ev = ev, .o = &ro, .n = ev->nboards};
    if (!find_self(&e)) return -1;
    check_proc *c = calloc((size_t)e.n, sizeof *c);
    if (!c) {
        cli_error("hall: out of memory");
        return -1;
    }
    for (int i = 0; i < e.n; i++) {
        c[i].p.cfg = &ev->boards[i];
        c[i].p.pb = pairing_board_at(&ev->pr, ev->boards[i].table);
        c[i].p.err_fd = -1;
        check_start(&e, &c[i]);
    }
    double until = gs_now_ms() + CHECK_WAIT_MS;
    check_collect(c, e.n, until);
    check_reap(c, e.n, until);
    int problems = 0;
    for (int i = 0; i < e.n; i++)
        if (!c[i].skip) problems += check_report(ev, &c[i]);
    for (int i = 0; i < e.n; i++)
        if (c[i].skip) printf("table %d: its file has a result: not recorded again\n", ev->boards[i].table);
    free(c);
    return problems;
}
