/* broadcast/util.c: text buffer, a small JSON reader, the state's JSON
 * and a minimal HTTP/1.0 client for the hall and the announcer. */
#include "broadcast/broadcast_internal.h"

#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

/* --------------------------------------------------------- state as JSON */

const char *broadcast_color_name(gs_color c)
{
    return c == GS_BLACK ? "B" : c == GS_WHITE ? "W" : "";
}

void broadcast_state_json(gs_buf *b, const broadcast_state *s, const char *name, const char *id,
                      const char *url, int warn_b, int warn_w)
{
    int size = s->pos.size >= 5 && s->pos.size <= GS_MAX_SIZE ? s->pos.size : 19;
    char grid[GS_MAX_SIZE * GS_MAX_SIZE + 1];
    for (int i = 0; i < size * size; i++) {
        uint8_t c = s->pos.size == size ? s->pos.cell[i] : GS_EMPTY;
        grid[i] = c == GS_BLACK ? 'B' : c == GS_WHITE ? 'W' : '.';
    }
    grid[size * size] = '\0';
    gs_buf_puts(b, "{\"type\":\"state\",\"board\":");
    gs_json_str(b, name);
    gs_buf_puts(b, ",\"id\":");
    gs_json_str(b, id);
    gs_buf_puts(b, ",\"url\":");
    gs_json_str(b, url);
    gs_buf_printf(b, ",\"size\":%d,\"grid\":\"%s\",\"move_number\":%d,\"to_move\":\"%s\","
                        "\"captures\":{\"B\":%d,\"W\":%d},\"warnings\":{\"B\":%d,\"W\":%d},\"komi\":%g,",
                     size, grid, s->move_number, broadcast_color_name(s->to_move),
                     s->captures_black, s->captures_white, warn_b, warn_w,
                     isfinite(s->komi) ? s->komi : 0.0);
    if (s->last_color == GS_BLACK || s->last_color == GS_WHITE) {
        char pt[3] = {0};
        if (!s->last_pass && s->last_point.x >= 0 && s->last_point.x < size && s->last_point.y >= 0 &&
            s->last_point.y < size) {
            pt[0] = (char)('a' + s->last_point.x);
            pt[1] = (char)('a' + s->last_point.y);
        }
        gs_buf_printf(b, "\"last\":{\"color\":\"%s\",\"point\":\"%s\",\"pass\":%s,\"unix_ms\":%lld},",
                         broadcast_color_name(s->last_color), pt, s->last_pass || !pt[0] ? "true" : "false",
                         (long long)s->last_move_unix_ms);
    } else {
        gs_buf_puts(b, "\"last\":null,");
    }
    gs_buf_puts(b, "\"black\":");
    gs_json_str(b, s->black);
    gs_buf_puts(b, ",\"white\":");
    gs_json_str(b, s->white);
    gs_buf_puts(b, ",\"result\":");
    gs_json_str(b, s->result);
    gs_buf_puts(b, ",\"status\":");
    gs_json_str(b, s->status[0] ? s->status : "playing");
    gs_buf_printf(b, ",\"server_unix_ms\":%lld}", (long long)gs_wall_ms());
}

/* --------------------------------------------------------------- helpers */

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

int64_t serve_unix_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ------------------------------------------------------------ HTTP client */

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

int broadcast_http_request(const char *url, const char *method, const char *body,
                       const char *extra_header, int timeout_ms, int *status,
                       char **out, size_t *outlen, char *err, size_t errlen)
{
    *out = NULL;
    if (outlen) *outlen = 0;
    if (strncmp(url, "http://", 7)) { snprintf(err, errlen, "%s: only http:// URLs", url); return -1; }
    const char *hp = url + 7;
    const char *slash = strchr(hp, '/');
    size_t hpl = slash ? (size_t)(slash - hp) : strlen(hp);
    char hostport[256], host[256];
    int port = 80;
    if (hpl == 0 || hpl >= sizeof hostport) { snprintf(err, errlen, "%s: bad host", url); return -1; }
    memcpy(hostport, hp, hpl);
    hostport[hpl] = '\0';
    if (strchr(hostport, ':')) {
        if (broadcast_split_hostport(hostport, "127.0.0.1", host, sizeof host, &port)) {
            snprintf(err, errlen, "%s: bad port", url);
            return -1;
        }
    } else {
        snprintf(host, sizeof host, "%s", hostport);
    }
    const char *path = slash ? slash : "/";
    char portstr[16];
    snprintf(portstr, sizeof portstr, "%d", port);
    struct addrinfo hints = {0}, *ai = NULL;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, portstr, &hints, &ai) || !ai) { snprintf(err, errlen, "%s: cannot resolve", url); return -1; }
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) { freeaddrinfo(ai); snprintf(err, errlen, "socket: %s", strerror(errno)); return -1; }
    double deadline = gs_now_ms() + timeout_ms;
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    int rc = connect(fd, ai->ai_addr, ai->ai_addrlen);
    freeaddrinfo(ai);
    if (rc && errno != EINPROGRESS) goto fail_conn;
    if (rc) {
        int soerr = 0;
        socklen_t sl = sizeof soerr;
        if (wait_fd(fd, POLLOUT, deadline) || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) || soerr) {
            errno = soerr ? soerr : ETIMEDOUT;
            goto fail_conn;
        }
    }
    gs_buf req = {0};
    gs_buf_printf(&req, "%s %s HTTP/1.0\r\nHost: %s\r\nConnection: close\r\n", method, path, hostport);
    if (extra_header) gs_buf_printf(&req, "%s\r\n", extra_header);
    if (body) gs_buf_printf(&req, "Content-Type: application/json\r\nContent-Length: %zu\r\n", strlen(body));
    gs_buf_puts(&req, "\r\n");
    if (body) gs_buf_puts(&req, body);
    if (req.failed) { gs_buf_free(&req); close(fd); snprintf(err, errlen, "out of memory"); return -1; }
    size_t sent = 0;
    while (sent < req.len) {
        ssize_t n = send(fd, req.p + sent, req.len - sent, MSG_NOSIGNAL);
        if (n > 0) { sent += (size_t)n; continue; }
        if (n < 0 && (errno == EAGAIN || errno == EINTR) && !wait_fd(fd, POLLOUT, deadline)) continue;
        gs_buf_free(&req);
        goto fail_conn;
    }
    gs_buf_free(&req);
    gs_buf resp = {0};
    for (;;) {
        char tmp[8192];
        ssize_t n = recv(fd, tmp, sizeof tmp, 0);
        if (n > 0) {
            gs_buf_add(&resp, tmp, (size_t)n);
            if (resp.len > (1u << 20) || resp.failed) break;
            continue;
        }
        if (n == 0) break;
        if ((errno == EAGAIN || errno == EINTR) && !wait_fd(fd, POLLIN, deadline)) continue;
        gs_buf_free(&resp);
        goto fail_conn;
    }
    close(fd);
    if (resp.failed || resp.len > (1u << 20)) { gs_buf_free(&resp); snprintf(err, errlen, "%s: response too large", url); return -1; }
    int st = 0;
    char *hdr_end = resp.p ? strstr(resp.p, "\r\n\r\n") : NULL;
    if (!hdr_end || sscanf(resp.p, "HTTP/%*d.%*d %d", &st) != 1) {
        gs_buf_free(&resp);
        snprintf(err, errlen, "%s: not an HTTP response", url);
        return -1;
    }
    size_t off = (size_t)(hdr_end + 4 - resp.p);
    size_t blen = resp.len - off;
    memmove(resp.p, resp.p + off, blen);
    resp.p[blen] = '\0';
    *status = st;
    *out = resp.p;
    if (outlen) *outlen = blen;
    return 0;
fail_conn:
    snprintf(err, errlen, "%s: %s", url, strerror(errno));
    close(fd);
    return -1;
}

void broadcast_resp_json(broadcast_resp *resp, gs_buf *b, bool no_cache)
{
    if (b->failed) {
        gs_buf_free(b);
        broadcast_resp_error(resp, 500, "out of memory");
        return;
    }
    resp->status = 200;
    resp->content_type = "application/json";
    resp->body = b->p;
    resp->body_len = b->len;
    resp->no_cache = no_cache;
}

bool serve_static_page(const char *path, const char *page_path, const char *page, broadcast_resp *resp)
{
    static const struct { const char *path, *type; } shared[] = {
        {"/app.js", "text/javascript; charset=utf-8"},
        {"/app.css", "text/css; charset=utf-8"},
    };
    const char *body = NULL, *type = "text/html; charset=utf-8";
    if (!strcmp(path, page_path)) body = page;
    else if (!strcmp(path, shared[0].path)) { body = broadcast_page_js; type = shared[0].type; }
    else if (!strcmp(path, shared[1].path)) { body = broadcast_page_css; type = shared[1].type; }
    if (!body) return false;
    resp->status = 200;
    resp->content_type = type;
    resp->static_body = body;
    return true;
}
