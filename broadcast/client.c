/* broadcast/client.c: a minimal HTTP/1.0 client (the hall polling boards,
 * a board announcing itself to the hall) and "HOST:PORT" parsing.
 *
 * One request per connection ("Connection: close"), the whole answer read
 * into memory, every step bounded by one deadline: the socket is
 * non-blocking and each wait is a poll() until the deadline. */
#include "broadcast/broadcast_internal.h"

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
        if (left <= 0) return -1;
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

/* Resolves and connects (non-blocking) by the deadline, which starts once
 * the socket exists; the socket, or -1 with err. */
static int connect_target(const char *url, const client_target *t, int timeout_ms, double *deadline,
                          char *err, size_t errlen)
{
    char portstr[16];
    snprintf(portstr, sizeof portstr, "%d", t->port);
    struct addrinfo hints = {0}, *ai = NULL;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(t->host, portstr, &hints, &ai) || !ai) {
        snprintf(err, errlen, "%s: cannot resolve", url);
        return -1;
    }
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        freeaddrinfo(ai);
        snprintf(err, errlen, "socket: %s", strerror(errno));
        return -1;
    }
    *deadline = gs_now_ms() + timeout_ms;
    /* a blocking socket would not keep the deadline */
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
        freeaddrinfo(ai);
        return conn_fail(url, fd, err, errlen);
    }
    int rc = connect(fd, ai->ai_addr, ai->ai_addrlen);
    freeaddrinfo(ai);
    if (rc && errno != EINPROGRESS) return conn_fail(url, fd, err, errlen);
    if (rc) {
        int soerr = 0;
        socklen_t sl = sizeof soerr;
        if (wait_fd(fd, POLLOUT, *deadline) || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) || soerr) {
            errno = soerr ? soerr : ETIMEDOUT;
            return conn_fail(url, fd, err, errlen);
        }
    }
    return fd;
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

/* Splits the answer in resp into the status and the body, which takes
 * over resp's memory; resp is freed on failure. */
static int split_response(const char *url, gs_buf *resp, int *status, char **out, size_t *outlen, char *err,
                          size_t errlen)
{
    if (resp->failed || resp->len > CLIENT_MAX_RESPONSE) {
        gs_buf_free(resp);
        snprintf(err, errlen, "%s: response too large", url);
        return -1;
    }
    int st = 0;
    char *hdr_end = resp->p ? strstr(resp->p, "\r\n\r\n") : NULL;
    if (!hdr_end || sscanf(resp->p, "HTTP/%*d.%*d %d", &st) != 1) {
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
    client_target t;
    if (parse_url(url, &t, err, errlen)) return -1;
    double deadline;
    int fd = connect_target(url, &t, timeout_ms, &deadline, err, errlen);
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
