/* broadcast/client.c: a minimal HTTP/1.0 client (the hall polling boards,
 * a board announcing itself to the hall) and "HOST:PORT" parsing.
 *
 * One request per connection ("Connection: close"), the whole answer read
 * into memory, every step bounded by one deadline set when the request
 * starts: the name lookup runs in a thread given up on at the deadline,
 * the socket is non-blocking and each wait is a poll() until it. */
#include "broadcast/broadcast_internal.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

/* Largest answer read (headers included). */
#define CLIENT_MAX_RESPONSE (1u << 20)

int broadcast_split_hostport(const char *s, const char *dflt_host, char *host, size_t hostlen, int *port)
{
    if (!s || !*s) return -1;
    const char *colon = strrchr(s, ':');
    const char *ps = colon ? colon + 1 : s;
    size_t hl = colon ? (size_t)(colon - s) : 0;
    char *end;
    errno = 0;
    long p = strtol(ps, &end, 10);
    if (errno || *end || end == ps || p < 0 || p > 65535) return -1;
    if (hl == 0) {
        if (strlen(dflt_host) >= hostlen) return -1;
        strcpy(host, dflt_host);
    } else {
        if (hl >= hostlen) return -1;
        memcpy(host, s, hl);
        host[hl] = '\0';
    }
    *port = (int)p;
    return 0;
}

/* Where a request goes: "HOST[:PORT]" as written (for the Host header),
 * the host alone, the port and the path. */
typedef struct client_target {
    char hostport[256], host[256];
    int port;
    const char *path;
} client_target;

static int parse_url(const char *url, client_target *t, char *err, size_t errlen)
{
    if (strncmp(url, "http://", 7)) {
        snprintf(err, errlen, "%s: only http:// URLs", url);
        return -1;
    }
    const char *hp = url + 7;
    const char *slash = strchr(hp, '/');
    size_t hpl = slash ? (size_t)(slash - hp) : strlen(hp);
    t->port = 80;
    if (hpl == 0 || hpl >= sizeof t->hostport) {
        snprintf(err, errlen, "%s: bad host", url);
        return -1;
    }
    memcpy(t->hostport, hp, hpl);
    t->hostport[hpl] = '\0';
    if (strchr(t->hostport, ':')) {
        if (broadcast_split_hostport(t->hostport, "127.0.0.1", t->host, sizeof t->host, &t->port)) {
            snprintf(err, errlen, "%s: bad port", url);
            return -1;
        }
    } else {
        snprintf(t->host, sizeof t->host, "%s", t->hostport);
    }
    t->path = slash ? slash : "/";
    return 0;
}

/* Waits until fd is ready for ev; -1 when the deadline passes first. */
static int wait_fd(int fd, short ev, double deadline)
{
    for (;;) {
        double left = deadline - gs_now_ms();
        if (left <= 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        struct pollfd pfd = {fd, ev, 0};
        int r = poll(&pfd, 1, (int)left + 1);
        if (r > 0) return 0;
        if (r < 0 && errno != EINTR) return -1;
    }
}

/* The failure of a connected step: "URL: what errno says"; closes fd
 * (closing a socket given up on has nothing left to report). */
static int conn_fail(const char *url, int fd, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: %s", url, strerror(errno));
    close(fd);
    return -1;
}

/* ----------------------------------------------------- name resolution */

/* A name looked up in its own thread, so that the caller can give up at
 * its deadline (getaddrinfo has no timeout of its own); whichever of the
 * two is done with it last frees it. */
typedef struct resolve_job {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int refs;
    bool done;
    int rc;
    struct addrinfo *ai;
    char host[256], port[8];
} resolve_job;

/* Drops one reference (mu held; unlocked here) and frees j after the last. */
static void resolve_job_unref(resolve_job *j)
{
    bool last = --j->refs == 0;
    pthread_mutex_unlock(&j->mu);
    if (!last) return;
    if (j->ai) freeaddrinfo(j->ai);
    broadcast_sync_destroy(&j->mu, &j->cv);
    free(j);
}

static void *resolve_main(void *arg)
{
    resolve_job *j = arg;
    struct addrinfo hints = {0}, *ai = NULL;
    hints.ai_socktype = SOCK_STREAM;
    int rc = getaddrinfo(j->host, j->port, &hints, &ai);
    pthread_mutex_lock(&j->mu);
    j->rc = rc;
    j->ai = rc ? NULL : ai;
    j->done = true;
    pthread_cond_broadcast(&j->cv);
    resolve_job_unref(j);
    return NULL;
}

/* Starts the lookup of t in a detached thread; NULL when it cannot. */
static resolve_job *resolve_start(const client_target *t, const char *port)
{
    resolve_job *j = calloc(1, sizeof *j);
    if (!j || !broadcast_sync_init(&j->mu, &j->cv)) {
        free(j);
        return NULL;
    }
    j->refs = 2;
    snprintf(j->host, sizeof j->host, "%s", t->host);
    snprintf(j->port, sizeof j->port, "%s", port);
    pthread_attr_t attr;
    bool ok = !pthread_attr_init(&attr);
    ok = ok && !pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t th;
    ok = ok && !pthread_create(&th, &attr, resolve_main, j);
    pthread_attr_destroy(&attr);  /* of an initialised attr: cannot fail */
    if (ok) return j;
    broadcast_sync_destroy(&j->mu, &j->cv);
    free(j);
    return NULL;
}

/* The addresses of t by the deadline (gs_now_ms): 0 with *out (the caller
 * frees it with freeaddrinfo), or -1 with err.  A numeric address needs
 * no lookup. */
static int resolve(const char *url, const client_target *t, double deadline, struct addrinfo **out, char *err,
                   size_t errlen)
{
    char port[8];
    snprintf(port, sizeof port, "%d", t->port);
    struct addrinfo hints = {0};
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
    if (!getaddrinfo(t->host, port, &hints, out)) return 0;
    *out = NULL;
    resolve_job *j = resolve_start(t, port);
    if (!j) {
        snprintf(err, errlen, "%s: cannot look up %s (out of memory or threads)", url, t->host);
        return -1;
    }
    double left = deadline - gs_now_ms();
    struct timespec until = broadcast_deadline_in(left > 0 ? (int)left : 0);
    pthread_mutex_lock(&j->mu);
    while (!j->done && broadcast_cond_wait(&j->cv, &j->mu, &until)) {}
    bool done = j->done;
    int rc = j->rc;
    *out = j->ai;
    j->ai = NULL;
    resolve_job_unref(j);
    if (!done) snprintf(err, errlen, "%s: looking up %s took too long", url, t->host);
    else if (rc || !*out) snprintf(err, errlen, "%s: cannot resolve %s (%s)", url, t->host, gai_strerror(rc));
    if (done && !rc && *out) return 0;
    if (*out) freeaddrinfo(*out);
    *out = NULL;
    return -1;
}

/* ---------------------------------------------------------- connecting */

/* A non-blocking socket connected to a by `until`, or -1 with errno. */
static int connect_one(const struct addrinfo *a, double until)
{
    int fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return -1;
    if (!connect(fd, a->ai_addr, a->ai_addrlen)) return fd;
    int e = errno;
    if (e == EINPROGRESS) {
        int soerr = 0;
        socklen_t sl = sizeof soerr;
        if (wait_fd(fd, POLLOUT, until)) e = ETIMEDOUT;
        else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl)) e = errno;
        else if (soerr) e = soerr;
        else return fd;
    }
    close(fd);  /* given up on: nothing left to report */
    errno = e;
    return -1;
}

/* Resolves and connects by the deadline, trying each address in turn
 * (each gets its share of the time left, so one that never answers cannot
 * take it all); the socket, or -1 with err. */
static int connect_target(const char *url, const client_target *t, double deadline, char *numeric, size_t numlen,
                          char *err, size_t errlen)
{
    struct addrinfo *ai = NULL;
    if (resolve(url, t, deadline, &ai, err, errlen)) return -1;
    int left = 0;
    for (const struct addrinfo *a = ai; a; a = a->ai_next) left++;
    int fd = -1, e = ETIMEDOUT;
    for (const struct addrinfo *a = ai; a && fd < 0; a = a->ai_next, left--) {
        double now = gs_now_ms();
        if (now >= deadline) break;
        fd = connect_one(a, now + (deadline - now) / left);
        if (fd < 0) e = errno;
        /* the address that answered, as digits: getnameinfo with
         * NI_NUMERICHOST of an address getaddrinfo gave cannot fail */
        else if (numeric)
            (void)getnameinfo(a->ai_addr, a->ai_addrlen, numeric, (socklen_t)numlen, NULL, 0, NI_NUMERICHOST);
    }
    freeaddrinfo(ai);
    if (fd < 0) snprintf(err, errlen, "%s: %s", url, strerror(e));
    return fd;
}

int broadcast_tcp_reach(const char *host, int port, int timeout_ms, char *numeric, size_t numlen, char *err,
                        size_t errlen)
{
    double deadline = gs_now_ms() + timeout_ms;
    client_target t = {.port = port, .path = "/"};
    snprintf(t.host, sizeof t.host, "%s", host);
    snprintf(t.hostport, sizeof t.hostport, "%s:%d", host, port);
    int fd = connect_target(t.hostport, &t, deadline, numeric, numlen, err, errlen);
    if (fd < 0) return -1;
    close(fd);  /* only a probe: nothing was said on it */
    return 0;
}

/* The request text; false when out of memory. */
static bool build_request(gs_buf *req, const char *method, const client_target *t, const char *extra_header,
                          const char *body)
{
    gs_buf_printf(req, "%s %s HTTP/1.0\r\nHost: %s\r\nConnection: close\r\n", method, t->path, t->hostport);
    if (extra_header) gs_buf_printf(req, "%s\r\n", extra_header);
    if (body) gs_buf_printf(req, "Content-Type: application/json\r\nContent-Length: %zu\r\n", strlen(body));
    gs_buf_puts(req, "\r\n");
    if (body) gs_buf_puts(req, body);
    return gs_buf_ok(req);
}

/* Sends all of req by the deadline; -1 with errno otherwise. */
static int send_all(int fd, const gs_buf *req, double deadline)
{
    size_t sent = 0;
    while (sent < req->len) {
        ssize_t n = send(fd, req->p + sent, req->len - sent, MSG_NOSIGNAL);
        if (n > 0) {
            sent += (size_t)n;
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EINTR) && !wait_fd(fd, POLLOUT, deadline)) continue;
        return -1;
    }
    return 0;
}

/* Reads until the peer closes, the deadline passes (-1, errno) or the
 * answer grows past CLIENT_MAX_RESPONSE (0, the caller sees the length). */
static int recv_all(int fd, gs_buf *resp, double deadline)
{
    for (;;) {
        char tmp[8192];
        ssize_t n = recv(fd, tmp, sizeof tmp, 0);
        if (n > 0) {
            gs_buf_add(resp, tmp, (size_t)n);
            if (resp->len > CLIENT_MAX_RESPONSE || resp->failed) return 0;
            continue;
        }
        if (n == 0) return 0;
        if ((errno == EAGAIN || errno == EINTR) && !wait_fd(fd, POLLIN, deadline)) continue;
        return -1;
    }
}

/* The status of a status line "HTTP/D.D NNN ...", or -1 when it is not one. */
static int status_of(const char *p)
{
    if (strncmp(p, "HTTP/", 5) || !isdigit((unsigned char)p[5]) || p[6] != '.' || !isdigit((unsigned char)p[7]) ||
        p[8] != ' ')
        return -1;
    for (int i = 9; i < 12; i++)
        if (!isdigit((unsigned char)p[i])) return -1;
    if (p[12] != ' ' && p[12] != '\r') return -1;
    return (p[9] - '0') * 100 + (p[10] - '0') * 10 + (p[11] - '0');
}

/* Splits the answer in resp into the status and the body, which takes
 * over resp's memory; resp is freed on failure. */
static int split_response(const char *url, gs_buf *resp, int *status, char **out, size_t *outlen, char *err,
                          size_t errlen)
{
    if (resp->failed || resp->len > CLIENT_MAX_RESPONSE) {
        snprintf(err, errlen, "%s: %s", url, resp->failed ? "out of memory" : "response too large");
        gs_buf_free(resp);
        return -1;
    }
    char *hdr_end = resp->p ? strstr(resp->p, "\r\n\r\n") : NULL;
    int st = resp->p ? status_of(resp->p) : -1;
    if (!hdr_end || st < 0) {
        gs_buf_free(resp);
        snprintf(err, errlen, "%s: not an HTTP response", url);
        return -1;
    }
    size_t off = (size_t)(hdr_end + 4 - resp->p);
    size_t blen = resp->len - off;
    memmove(resp->p, resp->p + off, blen);
    resp->p[blen] = '\0';
    *status = st;
    *out = resp->p;
    if (outlen) *outlen = blen;
    return 0;
}

int broadcast_http_request(const char *url, const char *method, const char *body,
                           const char *extra_header, int timeout_ms, int *status,
                           char **out, size_t *outlen, char *err, size_t errlen)
{
    *out = NULL;
    if (outlen) *outlen = 0;
    double deadline = gs_now_ms() + timeout_ms;
    client_target t;
    if (parse_url(url, &t, err, errlen)) return -1;
    int fd = connect_target(url, &t, deadline, NULL, 0, err, errlen);
    if (fd < 0) return -1;
    gs_buf req = {0};
    if (!build_request(&req, method, &t, extra_header, body)) {
        gs_buf_free(&req);
        close(fd);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = send_all(fd, &req, deadline);
    gs_buf_free(&req);
    if (rc) return conn_fail(url, fd, err, errlen);
    gs_buf resp = {0};
    if (recv_all(fd, &resp, deadline)) {
        gs_buf_free(&resp);
        return conn_fail(url, fd, err, errlen);
    }
    close(fd);  /* everything was read: a close error changes nothing */
    return split_response(url, &resp, status, out, outlen, err, errlen);
}
