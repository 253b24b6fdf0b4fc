/* gtp/serve.c: gtp_serve: the recording loop in a thread of its own (its
 * hooks fill the board, its poll takes the engine's and the operator's
 * commands), the conversation with the controller in the caller's. */
#include "gtp/gtp_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void gtp_options_init(gtp_options *o)
{
    memset(o, 0, sizeof *o);
    session_options_init(&o->run);
    gtp_engine_options_init(&o->engine);
}

typedef struct serve_ctx {
    const gtp_options *o;
    capture_source *src;
    gtp_board *board;
    int out_fd;
    gtp_input in;               /* the controller: the engine's thread */
    gtp_input op;               /* the operator file: the loop's thread */
    bool have_op;
    /* read by the loop (session_run's stop), set by the engine's thread at
     * the end: a word the loop only reads, session_run's way to be stopped
     * before the board is seen (its commands wait for the board) */
    volatile sig_atomic_t loop_stop;
    session_stats stats;     /* the loop's, read after the join */
    gs_status run_st;
    gs_error run_err;
} serve_ctx;

/* ------------------------------------------------------ the loop */

/* session_run's poll: the engine's commands first, then the operator's. */
static int serve_poll(void *user, char *buf, size_t len)
{
    serve_ctx *s = user;
    if (gtp_board_take(s->board, buf, len)) return 1;
    if (!s->have_op) return 0;
    gtp_input_fill(&s->op, 0);
    char line[GTP_MAX_LINE + 1];
    bool too_long;
    if (gtp_input_line(&s->op, line, &too_long) != 1) return 0; /* an operator file at its end stays quiet */
    snprintf(buf, len, "%s", line);
    return 1;
}

static void *loop_main(void *arg)
{
    serve_ctx *s = arg;
    session_options run = s->o->run;
    run.hooks = gtp_board_hooks();
    run.hooks_user = s->board;
    run.poll = serve_poll;
    run.poll_user = s;
    run.stop = &s->loop_stop;
    run.progress = NULL;
    memset(&s->run_err, 0, sizeof s->run_err);
    s->run_st = session_run(s->src, &run, &s->stats, &s->run_err);
    gtp_board_loop_ended(s->board, s->run_st, &s->stats, &s->run_err);
    return NULL;
}

/* The operator's file: a FIFO is opened for reading and writing so that
 * it never reads as ended between two writers (Linux). */
static bool open_operator(serve_ctx *s, gs_error *err)
{
    const char *path = s->o->operator_path;
    if (!path) return true;
    struct stat st;
    bool fifo = stat(path, &st) == 0 && S_ISFIFO(st.st_mode);
    int fd = open(path, (fifo ? O_RDWR : O_RDONLY) | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        gs_error_set(err, GS_ERR_IO, "--operator %s: %s", path, strerror(errno));
        return false;
    }
    gtp_input_init(&s->op, fd);
    s->have_op = true;
    return true;
}

/* ------------------------------------------------ the controller */

/* The engine's waits end early when the controller wants them to: a
 * "# interrupt" line (GoGui), SIGINT, or no one left to read the answer
 * (the output pipe closed).  Commands waiting in the input, quit among
 * them, and the end of the input do not: GTP answers in order, and
 * `printf 'genmove b\nquit\n' | goscribe gtp ...` waits for the move. */
static bool serve_interrupted(void *user)
{
    serve_ctx *s = user;
    if (s->o->stop && *s->o->stop) return true;
    gtp_input_fill(&s->in, 0);
    if (gtp_input_interrupt(&s->in)) return true;
    struct pollfd p = {s->out_fd, 0, 0};
    return poll(&p, 1, 0) > 0 && (p.revents & (POLLERR | POLLHUP));
}

/* Reads and answers commands until the conversation ends; says why. */
static const char *converse(serve_ctx *s, gtp_engine *e, FILE *out, gtp_stats *stats)
{
    char *line = malloc(GTP_MAX_LINE + 1);
    if (!line) return "out of memory";
    const char *why = NULL;
    while (!why) {
        if (s->o->stop && *s->o->stop) {
            why = "SIGINT";
            break;
        }
        bool too_long;
        int r = gtp_input_line(&s->in, line, &too_long);
        if (r < 0) why = "end of input";
        if (r <= 0) {
            if (r == 0) gtp_input_fill(&s->in, 200); /* 200 ms: a SIGINT is seen soon */
            continue;
        }
        gs_buf res = {0};
        bool quit = gtp_engine_handle(e, line, too_long, &res);
        if (res.len) {
            stats->commands++;
            stats->errors += res.p[0] == '?';
            if (fwrite(res.p, 1, res.len, out) != res.len || fflush(out) != 0) why = "output closed";
        } else if (!gs_buf_ok(&res)) {
            why = "out of memory";
        }
        gs_buf_free(&res);
        if (quit && !why) why = "quit";
    }
    free(line);
    return why;
}

gs_status gtp_serve(capture_source *src, const gtp_options *o, int in_fd, FILE *out, gtp_stats *stats, gs_error *err)
{
    gtp_stats tmp;
    if (!stats) stats = &tmp;
    memset(stats, 0, sizeof *stats);
    serve_ctx *s = calloc(1, sizeof *s);
    if (!s) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    s->o = o;
    s->src = src;
    s->out_fd = fileno(out);
    gtp_input_init(&s->in, in_fd);
    gtp_engine_options eo = o->engine;
    eo.interrupted = serve_interrupted;
    eo.interrupt_user = s;
    gtp_engine *e = NULL;
    pthread_t loop;
    gs_status st = GS_OK;
    if (!(s->board = gtp_board_create(err)) || !(e = gtp_engine_create(s->board, &eo, err)) || !open_operator(s, err))
        st = err ? err->status : GS_ERR_NOMEM;
    else if (pthread_create(&loop, NULL, loop_main, s) != 0)
        st = gs_error_set(err, GS_ERR_INTERNAL, "cannot start the recording thread");
    if (st == GS_OK) {
        stats->end = converse(s, e, out, stats);
        /* an unfinished game is stopped (q), not counted; before the board
         * is seen the loop takes no commands: the flag stops it then */
        gtp_refresh(e);
        if (!e->v.started || !gtp_board_push(s->board, "q")) s->loop_stop = 1;
        pthread_join(loop, NULL);
        stats->run = s->stats;
        stats->run_status = s->run_st;
        stats->run_error = s->run_err;
    }
    if (s->have_op) close(s->op.fd);
    gtp_engine_destroy(e);
    gtp_board_destroy(s->board);
    free(s);
    return st;
}
