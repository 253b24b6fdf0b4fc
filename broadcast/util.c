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

/* ---------------------------------------------------------------- buffer */

void broadcast_buf_add(broadcast_buf *b, const char *s, size_t n)
{
    if (b->oom) return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1) cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) { b->oom = true; return; }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void broadcast_buf_puts(broadcast_buf *b, const char *s) { broadcast_buf_add(b, s, strlen(s)); }

void broadcast_buf_printf(broadcast_buf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) { b->oom = true; return; }
    if ((size_t)n < sizeof tmp) { broadcast_buf_add(b, tmp, (size_t)n); return; }
    char *big = malloc((size_t)n + 1);
    if (!big) { b->oom = true; return; }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    broadcast_buf_add(b, big, (size_t)n);
    free(big);
}

void broadcast_buf_json_str(broadcast_buf *b, const char *s)
{
    broadcast_buf_add(b, "\"", 1);
    if (s) {
        for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
            if (*p == '"' || *p == '\\') {
                char e[2] = {'\\', (char)*p};
                broadcast_buf_add(b, e, 2);
            } else if (*p < 0x20 || *p == 0x7f) {
                broadcast_buf_printf(b, "\\u%04x", *p);
            } else if (*p == '<') {
                /* keeps "</script>" and HTML out of strings pages may insert */
                broadcast_buf_add(b, "\\u003c", 6);
            } else {
                broadcast_buf_add(b, (const char *)p, 1);
            }
        }
    }
    broadcast_buf_add(b, "\"", 1);
}

void broadcast_buf_free(broadcast_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

/* ------------------------------------------------------------------ JSON */

typedef struct jparser {
    const char *s, *end, *start;
    char *err;
    size_t errlen;
    bool failed;
} jparser;

static void jfail(jparser *p, const char *what)
{
    if (!p->failed && p->err)
        snprintf(p->err, p->errlen, "bad JSON at byte %ld: %s", (long)(p->s - p->start), what);
    p->failed = true;
}

static void jws(jparser *p)
{
    while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r')) p->s++;
}

static void put_utf8(broadcast_buf *b, unsigned cp)
{
    char u[4];
    size_t n;
    if (cp < 0x80) { u[0] = (char)cp; n = 1; }
    else if (cp < 0x800) { u[0] = (char)(0xc0 | (cp >> 6)); u[1] = (char)(0x80 | (cp & 0x3f)); n = 2; }
    else if (cp < 0x10000) { u[0] = (char)(0xe0 | (cp >> 12)); u[1] = (char)(0x80 | ((cp >> 6) & 0x3f)); u[2] = (char)(0x80 | (cp & 0x3f)); n = 3; }
    else { u[0] = (char)(0xf0 | (cp >> 18)); u[1] = (char)(0x80 | ((cp >> 12) & 0x3f)); u[2] = (char)(0x80 | ((cp >> 6) & 0x3f)); u[3] = (char)(0x80 | (cp & 0x3f)); n = 4; }
    broadcast_buf_add(b, u, n);
}

static int hex4(const char *s, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return -1;
    }
    *out = v;
    return 0;
}

static char *jstring(jparser *p)
{
    /* p->s at the opening quote */
    p->s++;
    broadcast_buf b = {0};
    broadcast_buf_add(&b, "", 0);
    while (p->s < p->end && *p->s != '"') {
        unsigned char c = (unsigned char)*p->s;
        if (c < 0x20) { jfail(p, "control character in string"); break; }
        if (c != '\\') { broadcast_buf_add(&b, p->s, 1); p->s++; continue; }
        if (p->end - p->s < 2) { jfail(p, "truncated escape"); break; }
        char e = p->s[1];
        p->s += 2;
        switch (e) {
        case '"': broadcast_buf_add(&b, "\"", 1); break;
        case '\\': broadcast_buf_add(&b, "\\", 1); break;
        case '/': broadcast_buf_add(&b, "/", 1); break;
        case 'b': broadcast_buf_add(&b, "\b", 1); break;
        case 'f': broadcast_buf_add(&b, "\f", 1); break;
        case 'n': broadcast_buf_add(&b, "\n", 1); break;
        case 'r': broadcast_buf_add(&b, "\r", 1); break;
        case 't': broadcast_buf_add(&b, "\t", 1); break;
        case 'u': {
            unsigned cp;
            if (p->end - p->s < 4 || hex4(p->s, &cp)) { jfail(p, "bad \\u escape"); break; }
            p->s += 4;
            if (cp >= 0xd800 && cp < 0xdc00 && p->end - p->s >= 6 && p->s[0] == '\\' && p->s[1] == 'u') {
                unsigned lo;
                if (!hex4(p->s + 2, &lo) && lo >= 0xdc00 && lo < 0xe000) {
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                    p->s += 6;
                }
            }
            if (cp == 0) cp = 0xfffd; /* no NUL inside C strings */
            put_utf8(&b, cp);
            break;
        }
        default: jfail(p, "bad escape"); break;
        }
        if (p->failed) break;
    }
    if (!p->failed && p->s >= p->end) jfail(p, "unterminated string");
    if (!p->failed) p->s++;
    if (p->failed || b.oom) {
        if (b.oom) jfail(p, "out of memory");
        broadcast_buf_free(&b);
        return NULL;
    }
    return b.p;
}

static broadcast_json *jvalue(jparser *p, int depth);

static bool jpush(broadcast_json *j, broadcast_json *kid, char *key)
{
    broadcast_json **k = realloc(j->kids, sizeof *k * (size_t)(j->n + 1));
    if (!k) return false;
    j->kids = k;
    if (j->type == BROADCAST_JSON_OBJ) {
        char **ks = realloc(j->keys, sizeof *ks * (size_t)(j->n + 1));
        if (!ks) return false;
        j->keys = ks;
        ks[j->n] = key;
    }
    k[j->n++] = kid;
    return true;
}

static broadcast_json *jcontainer(jparser *p, int depth, bool obj)
{
    broadcast_json *j = calloc(1, sizeof *j);
    if (!j) { jfail(p, "out of memory"); return NULL; }
    j->type = obj ? BROADCAST_JSON_OBJ : BROADCAST_JSON_ARR;
    p->s++;
    jws(p);
    char close = obj ? '}' : ']';
    if (p->s < p->end && *p->s == close) { p->s++; return j; }
    for (;;) {
        char *key = NULL;
        jws(p);
        if (obj) {
            if (p->s >= p->end || *p->s != '"') { jfail(p, "expected a key"); break; }
            key = jstring(p);
            if (!key) break;
            jws(p);
            if (p->s >= p->end || *p->s != ':') { free(key); jfail(p, "expected ':'"); break; }
            p->s++;
        }
        broadcast_json *kid = jvalue(p, depth + 1);
        if (!kid) { free(key); break; }
        if (!jpush(j, kid, key)) { free(key); broadcast_json_free(kid); jfail(p, "out of memory"); break; }
        jws(p);
        if (p->s < p->end && *p->s == ',') { p->s++; continue; }
        if (p->s < p->end && *p->s == close) { p->s++; return j; }
        jfail(p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
        break;
    }
    broadcast_json_free(j);
    return NULL;
}

static broadcast_json *jvalue(jparser *p, int depth)
{
    if (depth > 32) { jfail(p, "nested too deep"); return NULL; }
    jws(p);
    if (p->s >= p->end) { jfail(p, "unexpected end"); return NULL; }
    char c = *p->s;
    if (c == '{' || c == '[') return jcontainer(p, depth, c == '{');
    broadcast_json *j = calloc(1, sizeof *j);
    if (!j) { jfail(p, "out of memory"); return NULL; }
    size_t left = (size_t)(p->end - p->s);
    if (c == '"') {
        j->type = BROADCAST_JSON_STR;
        j->str = jstring(p);
        if (!j->str) { free(j); return NULL; }
    } else if (left >= 4 && !memcmp(p->s, "true", 4)) {
        j->type = BROADCAST_JSON_BOOL; j->b = true; p->s += 4;
    } else if (left >= 5 && !memcmp(p->s, "false", 5)) {
        j->type = BROADCAST_JSON_BOOL; p->s += 5;
    } else if (left >= 4 && !memcmp(p->s, "null", 4)) {
        j->type = BROADCAST_JSON_NULL; p->s += 4;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        /* strict JSON number grammar, then strtod on a bounded copy */
        const char *q = p->s;
        if (*q == '-') q++;
        if (q >= p->end || *q < '0' || *q > '9') { free(j); jfail(p, "bad number"); return NULL; }
        if (*q == '0') q++;
        else while (q < p->end && *q >= '0' && *q <= '9') q++;
        if (q < p->end && *q == '.') {
            q++;
            if (q >= p->end || *q < '0' || *q > '9') { free(j); jfail(p, "bad number"); return NULL; }
            while (q < p->end && *q >= '0' && *q <= '9') q++;
        }
        if (q < p->end && (*q == 'e' || *q == 'E')) {
            q++;
            if (q < p->end && (*q == '+' || *q == '-')) q++;
            if (q >= p->end || *q < '0' || *q > '9') { free(j); jfail(p, "bad number"); return NULL; }
            while (q < p->end && *q >= '0' && *q <= '9') q++;
        }
        char tmp[64];
        size_t n = (size_t)(q - p->s);
        if (n >= sizeof tmp) { free(j); jfail(p, "number too long"); return NULL; }
        memcpy(tmp, p->s, n);
        tmp[n] = '\0';
        j->type = BROADCAST_JSON_NUM;
        j->num = strtod(tmp, NULL);
        p->s = q;
    } else {
        free(j);
        jfail(p, "unexpected character");
        return NULL;
    }
    return j;
}

broadcast_json *broadcast_json_parse(const char *text, size_t len, char *err, size_t errlen)
{
    jparser p = {text, text + len, text, err, errlen, false};
    if (!text) { jfail(&p, "no input"); return NULL; }
    broadcast_json *j = jvalue(&p, 0);
    if (!j) return NULL;
    jws(&p);
    if (p.s != p.end) {
        jfail(&p, "trailing characters");
        broadcast_json_free(j);
        return NULL;
    }
    return j;
}

void broadcast_json_free(broadcast_json *j)
{
    if (!j) return;
    for (int i = 0; i < j->n; i++) {
        broadcast_json_free(j->kids[i]);
        if (j->keys) free(j->keys[i]);
    }
    free(j->kids);
    free(j->keys);
    free(j->str);
    free(j);
}

const broadcast_json *broadcast_json_get(const broadcast_json *j, const char *key)
{
    if (!j || j->type != BROADCAST_JSON_OBJ) return NULL;
    for (int i = 0; i < j->n; i++)
        if (!strcmp(j->keys[i], key)) return j->kids[i];
    return NULL;
}

const char *broadcast_json_str(const broadcast_json *j, const char *key, const char *dflt)
{
    const broadcast_json *v = broadcast_json_get(j, key);
    return v && v->type == BROADCAST_JSON_STR ? v->str : dflt;
}

double broadcast_json_num(const broadcast_json *j, const char *key, double dflt)
{
    const broadcast_json *v = broadcast_json_get(j, key);
    return v && v->type == BROADCAST_JSON_NUM ? v->num : dflt;
}

/* --------------------------------------------------------- state as JSON */

const char *broadcast_color_name(gs_color c)
{
    return c == GS_BLACK ? "B" : c == GS_WHITE ? "W" : "";
}

void broadcast_state_json(broadcast_buf *b, const broadcast_state *s, const char *name, const char *id,
                      const char *url, int warn_b, int warn_w)
{
    int size = s->pos.size >= 5 && s->pos.size <= GS_MAX_SIZE ? s->pos.size : 19;
    char grid[GS_MAX_SIZE * GS_MAX_SIZE + 1];
    for (int i = 0; i < size * size; i++) {
        uint8_t c = s->pos.size == size ? s->pos.cell[i] : GS_EMPTY;
        grid[i] = c == GS_BLACK ? 'B' : c == GS_WHITE ? 'W' : '.';
    }
    grid[size * size] = '\0';
    broadcast_buf_puts(b, "{\"type\":\"state\",\"board\":");
    broadcast_buf_json_str(b, name);
    broadcast_buf_puts(b, ",\"id\":");
    broadcast_buf_json_str(b, id);
    broadcast_buf_puts(b, ",\"url\":");
    broadcast_buf_json_str(b, url);
    broadcast_buf_printf(b, ",\"size\":%d,\"grid\":\"%s\",\"move_number\":%d,\"to_move\":\"%s\","
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
        broadcast_buf_printf(b, "\"last\":{\"color\":\"%s\",\"point\":\"%s\",\"pass\":%s,\"unix_ms\":%lld},",
                         broadcast_color_name(s->last_color), pt, s->last_pass || !pt[0] ? "true" : "false",
                         (long long)s->last_move_unix_ms);
    } else {
        broadcast_buf_puts(b, "\"last\":null,");
    }
    broadcast_buf_puts(b, "\"black\":");
    broadcast_buf_json_str(b, s->black);
    broadcast_buf_puts(b, ",\"white\":");
    broadcast_buf_json_str(b, s->white);
    broadcast_buf_puts(b, ",\"result\":");
    broadcast_buf_json_str(b, s->result);
    broadcast_buf_puts(b, ",\"status\":");
    broadcast_buf_json_str(b, s->status[0] ? s->status : "playing");
    broadcast_buf_printf(b, ",\"server_unix_ms\":%lld}", (long long)serve_unix_ms());
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
    broadcast_buf req = {0};
    broadcast_buf_printf(&req, "%s %s HTTP/1.0\r\nHost: %s\r\nConnection: close\r\n", method, path, hostport);
    if (extra_header) broadcast_buf_printf(&req, "%s\r\n", extra_header);
    if (body) broadcast_buf_printf(&req, "Content-Type: application/json\r\nContent-Length: %zu\r\n", strlen(body));
    broadcast_buf_puts(&req, "\r\n");
    if (body) broadcast_buf_puts(&req, body);
    if (req.oom) { broadcast_buf_free(&req); close(fd); snprintf(err, errlen, "out of memory"); return -1; }
    size_t sent = 0;
    while (sent < req.len) {
        ssize_t n = send(fd, req.p + sent, req.len - sent, MSG_NOSIGNAL);
        if (n > 0) { sent += (size_t)n; continue; }
        if (n < 0 && (errno == EAGAIN || errno == EINTR) && !wait_fd(fd, POLLOUT, deadline)) continue;
        broadcast_buf_free(&req);
        goto fail_conn;
    }
    broadcast_buf_free(&req);
    broadcast_buf resp = {0};
    for (;;) {
        char tmp[8192];
        ssize_t n = recv(fd, tmp, sizeof tmp, 0);
        if (n > 0) {
            broadcast_buf_add(&resp, tmp, (size_t)n);
            if (resp.len > (1u << 20) || resp.oom) break;
            continue;
        }
        if (n == 0) break;
        if ((errno == EAGAIN || errno == EINTR) && !wait_fd(fd, POLLIN, deadline)) continue;
        broadcast_buf_free(&resp);
        goto fail_conn;
    }
    close(fd);
    if (resp.oom || resp.len > (1u << 20)) { broadcast_buf_free(&resp); snprintf(err, errlen, "%s: response too large", url); return -1; }
    int st = 0;
    char *hdr_end = resp.p ? strstr(resp.p, "\r\n\r\n") : NULL;
    if (!hdr_end || sscanf(resp.p, "HTTP/%*d.%*d %d", &st) != 1) {
        broadcast_buf_free(&resp);
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

void broadcast_resp_json(broadcast_resp *resp, broadcast_buf *b, bool no_cache)
{
    if (b->oom) {
        broadcast_buf_free(b);
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
