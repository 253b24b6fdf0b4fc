/* broadcast/guard.c: keeps slow clients from holding a server's
 * connections, and the timed waits the threads of broadcast/ share.
 *
 * A connection is "waiting" from the moment it is accepted (and again after
 * each answer on a kept-alive connection) until its request has arrived in
 * full; then it is "busy" (being answered, or streaming events).  A waiting
 * connection has an absolute deadline: trickling one header line at a time
 * does not extend it (libmicrohttpd's own timeout is an idle timeout, which
 * every line resets).  Waiting connections never take more than half of
 * the server, nor more than half of one client's allowance: one more past
 * that closes the oldest waiting one, and so does a new connection when the
 * server is nearly full, so a crowd of slow sockets always leaves room for
 * real requests, which arrive in one packet and are busy at once.  Busy
 * connections are never closed here: an SSE viewer is long-lived by
 * design, and libmicrohttpd's per-client limit bounds what one address
 * holds.
 *
 * A connection is closed with shutdown(): its own thread sees the end of
 * the stream and closes it the usual way.  The lock is held around
 * shutdown() and around forgetting a connection, and the server forgets a
 * connection (broadcast_guard_close) before it closes the socket, so the
 * guard never touches a descriptor number already reused by another
 * socket. */
#include "broadcast/broadcast_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

/* How often the watchdog looks for connections past their deadline. */
#define GUARD_TICK_MS 200

struct broadcast_guard_conn {
    int fd;                 /* -1: a free slot */
    uint32_t ip;            /* the client's IPv4 address, 0 if not IPv4 */
    bool waiting;           /* the request has not arrived in full */
    bool dropped;           /* shut down here, its thread not yet done */
    double since_ms;        /* when the wait began (gs_now_ms) */
};

struct broadcast_guard {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool stopping;
    pthread_t watchdog;
    bool has_watchdog;
    broadcast_guard_conn *conns;
    int cap;                /* the server's connection limit */
    int max_waiting;        /* waiting connections, all clients */
    int max_waiting_client; /* waiting connections of one address */
    int headroom;           /* connections kept free for real requests */
    int deadline_ms;
    long late, crowded;
};

/* ------------------------------------------------- locks and timed waits */

bool broadcast_sync_init(pthread_mutex_t *mu, pthread_cond_t *cv)
{
    if (pthread_mutex_init(mu, NULL)) return false;
    if (!pthread_cond_init(cv, NULL)) return true;
    pthread_mutex_destroy(mu);
    return false;
}

void broadcast_sync_stop(pthread_mutex_t *mu, pthread_cond_t *cv, bool *stopping)
{
    pthread_mutex_lock(mu);
    *stopping = true;
    pthread_cond_broadcast(cv);
    pthread_mutex_unlock(mu);
}

void broadcast_sync_destroy(pthread_mutex_t *mu, pthread_cond_t *cv)
{
    pthread_cond_destroy(cv);
    pthread_mutex_destroy(mu);
}

struct timespec broadcast_deadline_in(int ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);  /* cannot fail for CLOCK_REALTIME */
    long ns = ts.tv_nsec + (long)(ms % 1000) * 1000000L;
    ts.tv_sec += ms / 1000 + ns / 1000000000L;
    ts.tv_nsec = ns % 1000000000L;
    return ts;
}

bool broadcast_cond_wait(pthread_cond_t *cv, pthread_mutex_t *mu, const struct timespec *until)
{
    /* ETIMEDOUT is the only failure a valid cv and a held mu can give */
    return pthread_cond_timedwait(cv, mu, until) == 0;
}

/* ---------------------------------------------------------- the table */

/* Closes c for the reason counted in *counter (mu held). */
static void guard_drop_locked(broadcast_guard_conn *c, long *counter)
{
    /* shutdown() of a connected socket only fails when the peer has
     * already gone, and then its thread is closing it anyway */
    (void)shutdown(c->fd, SHUT_RDWR);
    c->dropped = true;
    (*counter)++;
}

/* The oldest waiting connection other than self, of ip (0 = of anyone),
 * and in *n how many such are waiting, self included (mu held). */
static broadcast_guard_conn *guard_oldest_locked(broadcast_guard *g, uint32_t ip, const broadcast_guard_conn *self,
                                                 int *n, int *live)
{
    broadcast_guard_conn *old = NULL;
    *n = 0;
    *live = 0;
    for (int i = 0; i < g->cap; i++) {
        broadcast_guard_conn *c = &g->conns[i];
        if (c->fd < 0 || c->dropped) continue;
        (*live)++;
        if (!c->waiting || (ip && c->ip != ip)) continue;
        (*n)++;
        if (c != self && (!old || c->since_ms < old->since_ms)) old = c;
    }
    return old;
}

/* Makes room after self arrived: one client's waiting connections, then
 * everyone's, then the headroom of the whole server (mu held). */
static void guard_make_room_locked(broadcast_guard *g, const broadcast_guard_conn *self)
{
    int n, live;
    broadcast_guard_conn *old;
    while (self->ip && (old = guard_oldest_locked(g, self->ip, self, &n, &live)) && n > g->max_waiting_client)
        guard_drop_locked(old, &g->crowded);
    while ((old = guard_oldest_locked(g, 0, self, &n, &live)) && (n > g->max_waiting || live > g->cap - g->headroom))
        guard_drop_locked(old, &g->crowded);
}

broadcast_guard_conn *broadcast_guard_open(broadcast_guard *g, int fd, uint32_t ip)
{
    broadcast_guard_conn *c = NULL;
    pthread_mutex_lock(&g->mu);
    for (int i = 0; i < g->cap && !c; i++)
        if (g->conns[i].fd < 0) c = &g->conns[i];
    if (c) {
        *c = (broadcast_guard_conn){fd, ip, true, false, gs_now_ms()};
        guard_make_room_locked(g, c);
    }
    pthread_mutex_unlock(&g->mu);
    return c;
}

void broadcast_guard_busy(broadcast_guard *g, broadcast_guard_conn *c)
{
    if (!c) return;
    pthread_mutex_lock(&g->mu);
    c->waiting = false;
    pthread_mutex_unlock(&g->mu);
}

void broadcast_guard_waiting(broadcast_guard *g, broadcast_guard_conn *c)
{
    if (!c) return;
    pthread_mutex_lock(&g->mu);
    c->waiting = true;
    c->since_ms = gs_now_ms();
    pthread_mutex_unlock(&g->mu);
}

bool broadcast_guard_late(broadcast_guard *g, const broadcast_guard_conn *c)
{
    if (!c) return false;
    pthread_mutex_lock(&g->mu);
    bool late = c->waiting && gs_now_ms() - c->since_ms > g->deadline_ms;
    pthread_mutex_unlock(&g->mu);
    return late;
}

void broadcast_guard_close(broadcast_guard *g, broadcast_guard_conn *c)
{
    if (!c) return;
    pthread_mutex_lock(&g->mu);
    c->fd = -1;
    pthread_mutex_unlock(&g->mu);
}

void broadcast_guard_counts(broadcast_guard *g, long *late, long *crowded)
{
    pthread_mutex_lock(&g->mu);
    *late = g->late;
    *crowded = g->crowded;
    pthread_mutex_unlock(&g->mu);
}

/* ------------------------------------------------------- the watchdog */

static void *guard_watchdog_main(void *arg)
{
    broadcast_guard *g = arg;
    pthread_mutex_lock(&g->mu);
    while (!g->stopping) {
        double now = gs_now_ms();
        for (int i = 0; i < g->cap; i++) {
            broadcast_guard_conn *c = &g->conns[i];
            if (c->fd >= 0 && c->waiting && !c->dropped && now - c->since_ms > g->deadline_ms)
                guard_drop_locked(c, &g->late);
        }
        struct timespec until = broadcast_deadline_in(GUARD_TICK_MS);
        while (!g->stopping && broadcast_cond_wait(&g->cv, &g->mu, &until)) {}
    }
    pthread_mutex_unlock(&g->mu);
    return NULL;
}

broadcast_guard *broadcast_guard_create(int max_conn, int max_per_client, int deadline_ms, gs_error *err)
{
    broadcast_guard *g = calloc(1, sizeof *g);
    if (g) g->conns = calloc((size_t)max_conn, sizeof *g->conns);
    if (!g || !g->conns || !broadcast_sync_init(&g->mu, &g->cv)) {
        if (g) free(g->conns);
        free(g);
        gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    g->cap = max_conn;
    for (int i = 0; i < g->cap; i++) g->conns[i].fd = -1;
    g->max_waiting = max_conn / 2 > 1 ? max_conn / 2 : 1;
    g->max_waiting_client = max_per_client / 2 > 1 ? max_per_client / 2 : 1;
    g->headroom = max_conn / 16 > 2 ? max_conn / 16 : 2;
    g->deadline_ms = deadline_ms;
    if (pthread_create(&g->watchdog, NULL, guard_watchdog_main, g)) {
        broadcast_guard_destroy(g);
        gs_error_set(err, GS_ERR_INTERNAL, "cannot start the connection watchdog");
        return NULL;
    }
    g->has_watchdog = true;
    return g;
}

void broadcast_guard_destroy(broadcast_guard *g)
{
    if (!g) return;
    broadcast_sync_stop(&g->mu, &g->cv, &g->stopping);
    if (g->has_watchdog) pthread_join(g->watchdog, NULL);  /* joinable, joined once: cannot fail */
    broadcast_sync_destroy(&g->mu, &g->cv);
    free(g->conns);
    free(g);
}
