/* tests/drivers/http_probe.c: hostile HTTP clients for the probe test
 * (tests/http_probes.sh) against a running `goscribe record --serve` or
 * `goscribe hall`, over loopback.  Raw sockets, so that it can send what
 * no well-behaved client would.
 *
 *   http_probe malformed URL --kind board|hall --token T
 *       ~75 malformed or hostile requests, one connection each: every one
 *       must be answered 4xx or 505 (never 2xx, 3xx or 5xx, never silence),
 *       and the server must still answer a plain GET afterwards.
 *   http_probe checks URL --kind board|hall --token T
 *       the rules, each with its status: a foreign Host header (421), no
 *       token or a wrong one (403), the token in the URL (403), a body that
 *       is not application/json (415), the same requests done right (200).
 *   http_probe trickle URL --sockets N --sources K --seconds S [--path P]
 *       N sockets from K loopback addresses (127.0.2.x) each sending one
 *       header line every 2 s and never finishing, reopened whenever the
 *       server closes them; meanwhile a real client (127.0.0.1) GETs P
 *       (default /state.json) every 250 ms.  Fails when one real request
 *       is not answered 200 within 2 s.  SIGINT ends it early (reported).
 *   http_probe deadline URL --max-seconds S
 *       one socket trickling a header line every second: the server must
 *       close it within S seconds (an absolute deadline, not an idle one).
 * Every mode prints what it saw, one line per finding; exit 0 = all as
 * required, 1 = not (the lines say which), 2 = usage. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* Set by SIGINT/SIGTERM: a trickle ends early and still reports (a signal
 * handler can only reach a global). */
static volatile sig_atomic_t g_stop;

static void on_stop(int sig)
{
    (void)sig;
    g_stop = 1;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

typedef struct probe_opts {
    int port;
    bool hall;
    const char *token;
    int sockets, sources, seconds, max_seconds;
    const char *path;
} probe_opts;

/* ------------------------------------------------------------ sockets */

/* A socket from 127.0.x.y (src in host order, 0 = any) connected to the
 * server, non-blocking; -1 when it cannot connect. */
static int open_from(uint32_t src, int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (src) {
        struct sockaddr_in me = {0};
        me.sin_family = AF_INET;
        me.sin_addr.s_addr = htonl(src);
        if (bind(fd, (struct sockaddr *)&me, sizeof me)) {
            close(fd);
            return -1;
        }
    }
    struct sockaddr_in sa = {0};
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa)) {
        close(fd);
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK)) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Sends all of buf (len bytes) by the deadline; false otherwise. */
static bool send_all(int fd, const char *buf, size_t len, double deadline)
{
    size_t off = 0;
    while (off < len) {
        ssize_t n = send(fd, buf + off, len - off, MSG_NOSIGNAL);
        if (n > 0) {
            off += (size_t)n;
            continue;
        }
        if (n < 0 && errno != EAGAIN && errno != EINTR) return false;
        struct pollfd p = {fd, POLLOUT, 0};
        double left = deadline - now_ms();
        if (left <= 0 || poll(&p, 1, (int)left + 1) < 0) return false;
    }
    return true;
}

/* The status of the answer on fd by the deadline: the HTTP status, 0 when
 * the server closed without answering, -1 when nothing came in time. */
static int read_status(int fd, double deadline, char *body, size_t bodylen)
{
    char buf[8192];
    size_t len = 0;
    for (;;) {
        buf[len] = '\0';
        char *end = strstr(buf, "\r\n\r\n");
        if (end && !strncmp(buf, "HTTP/", 5)) {
            const char *sp = strchr(buf, ' ');
            if (body) snprintf(body, bodylen, "%s", end + 4);
            return sp ? atoi(sp + 1) : 0;
        }
        if (len >= sizeof buf - 1) return 0;
        struct pollfd p = {fd, POLLIN, 0};
        double left = deadline - now_ms();
        if (left <= 0) return -1;
        if (poll(&p, 1, (int)left + 1) <= 0) continue;
        ssize_t n = recv(fd, buf + len, sizeof buf - 1 - len, 0);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) return 0;
        if (n > 0) len += (size_t)n;
    }
}

/* One request on a fresh connection from src; its status (see read_status),
 * -2 when the connection could not be made.  body gets what follows the
 * headers of the answer, as far as it came with them. */
static int request(uint32_t src, int port, const char *req, size_t len, int timeout_ms, char *body, size_t bodylen)
{
    int fd = open_from(src, port);
    if (fd < 0) return -2;
    double deadline = now_ms() + timeout_ms;
    int st = send_all(fd, req, len, deadline) ? read_status(fd, deadline, body, bodylen) : 0;
    /* a server that answers early may close before all is sent: read */
    if (st == 0 && !body) st = read_status(fd, deadline, NULL, 0);
    close(fd);
    return st;
}

/* ------------------------------------------------------- the requests */

/* A request text built with printf, kept in a static buffer per call. */
typedef struct built {
    char *p;
    size_t len;
} built;

static built build(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static built build(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *p = NULL;
    int n = vasprintf(&p, fmt, ap);
    va_end(ap);
    if (n < 0) {
        fprintf(stderr, "http_probe: out of memory\n");
        exit(1);
    }
    return (built){p, (size_t)n};
}

/* A POST of body to path with a content type (NULL = none) and a token
 * header (NULL = none). */
static built post(int port, const char *path, const char *type, const char *token, const char *body)
{
    char ct[128] = "", tk[128] = "";
    if (type) snprintf(ct, sizeof ct, "Content-Type: %s\r\n", type);
    if (token) snprintf(tk, sizeof tk, "X-Goscribe-Token: %s\r\n", token);
    return build("POST %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n%s%sContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
                 path, port, ct, tk, strlen(body), body);
}

static built get(int port, const char *path, const char *extra)
{
    return build("GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n%sConnection: close\r\n\r\n", path, port, extra ? extra : "");
}

/* A text of n copies of c. */
static char *repeat(char c, size_t n)
{
    char *s = malloc(n + 1);
    if (!s) exit(1);
    memset(s, c, n);
    s[n] = '\0';
    return s;
}

/* The malformed requests, into out (at most max); their number.
 * long because: it is the list, one line a request */
static int malformed_list(const probe_opts *o, built *out, const char **names, bool *may_close, int max)
{
    int n = 0, port = o->port;
    const char *tok = o->token;
    const char *api = o->hall ? "/api/announce" : "/api/ruling";
    char *longpath = repeat('a', 12000), *longhdr = repeat('h', 40000), *longbody = repeat(' ', 6000);
    char *deep = repeat('[', 3000), *manyhdr = NULL;
    {
        size_t cap = 1000 * 16 + 1, off = 0;
        manyhdr = malloc(cap);
        if (!manyhdr) exit(1);
        for (int i = 0; i < 1000; i++) off += (size_t)snprintf(manyhdr + off, cap - off, "X-%d: y\r\n", i);
    }
#define ADD(name, b) do { if (n < max) { names[n] = name; may_close[n] = false; out[n++] = (b); } } while (0)
/* a JSON POST to the API with the token */
#define ADD_JSON(name, body) ADD(name, post(port, api, "application/json", tok, body))
/* not HTTP at all: closing without a word is an answer too */
#define ADD_CLOSE(name, b) do { ADD(name, b); may_close[n - 1] = true; } while (0)
    ADD_CLOSE("garbage line", build("GARBAGE\r\n\r\n"));
    ADD_CLOSE("method only", build("GET\r\n\r\n"));
    ADD("HTTP/9.9", build("GET / HTTP/9.9\r\nHost: 127.0.0.1:%d\r\n\r\n", port));
    ADD("HTTP/2.0 text", build("GET / HTTP/2.0\r\nHost: 127.0.0.1:%d\r\n\r\n", port));
    ADD("HTTP/1.1 without Host", build("GET / HTTP/1.1\r\n\r\n"));
    ADD("12 KB path", build("GET /%s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n", longpath, port));
    ADD("40 KB header", build("GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Big: %s\r\n\r\n", port, longhdr));
    ADD("1000 headers", build("GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n%s\r\n", port, manyhdr));
    ADD("header without colon", build("GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nFoo\r\n\r\n", port));
    ADD("space before colon", build("GET / HTTP/1.1\r\nHost : 127.0.0.1\r\n\r\n"));
    ADD("negative length", build("POST %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                                 "Content-Length: -1\r\n\r\n{}", api, port));
    ADD("huge length", build("POST %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                             "Content-Length: 99999999999999999999999\r\n\r\n{}", api, port));
    ADD("length not a number", build("POST %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                                     "Content-Length: abc\r\n\r\n{}", api, port));
    ADD("bad chunk size", build("POST %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                                "X-Goscribe-Token: %s\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
                                api, port, tok));
    ADD("chunked body over 4 KiB", build("POST %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                                         "X-Goscribe-Token: %s\r\nTransfer-Encoding: chunked\r\n\r\n1770\r\n{%.5998s}\r\n0\r\n\r\n",
                                         api, port, tok, longbody));
    ADD_JSON("length over 4 KiB", longbody);
    ADD("unknown method", build("BREW / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n", port));
    ADD("lower-case method", build("get / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n", port));
    ADD("DELETE", build("DELETE /state.json HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n", port));
    ADD("OPTIONS preflight", build("OPTIONS %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nOrigin: http://evil.example\r\n"
                                   "Access-Control-Request-Method: POST\r\n\r\n", api, port));
    ADD("PUT", build("PUT %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                     "X-Goscribe-Token: %s\r\nContent-Length: 2\r\n\r\n{}", api, port, tok));
    ADD("dot-dot path", get(port, "/../../etc/passwd", NULL));
    ADD("encoded dot-dot", get(port, "/%2e%2e/%2e%2e/etc/passwd", NULL));
    ADD("encoded NUL", get(port, "/state.json%00.html", NULL));
    ADD("absolute-form URL", get(port, "http://evil.example/", NULL));
    ADD("asterisk", get(port, "*", NULL));
    ADD("no such page", get(port, "/nope", NULL));
    ADD("evidence -1", get(port, "/api/evidence/-1/before.jpg", NULL));
    ADD("evidence 0", get(port, "/api/evidence/0/before.jpg", NULL));
    ADD("evidence 2^31", get(port, "/api/evidence/2147483648/after.jpg", NULL));
    ADD("evidence 20 digits", get(port, "/api/evidence/99999999999999999999/before.jpg", NULL));
    ADD("evidence dot-dot", get(port, "/api/evidence/1/../../state.json", NULL));
    ADD("evidence bad name", get(port, "/api/evidence/1/during.jpg", NULL));
    ADD("evidence +1", get(port, "/api/evidence/+1/before.jpg", NULL));
    ADD("evidence 01", get(port, "/api/evidence/01/before.jpg", NULL));
    {
        char hdr[160];
        snprintf(hdr, sizeof hdr, "X-Goscribe-Token: %s\r\n", tok);
        ADD("evidence -1 with token", get(port, "/api/evidence/-1/before.jpg", hdr));
        ADD("evidence -2147483648 with token", get(port, "/api/evidence/-2147483648/before.jpg", hdr));
        ADD("evidence 4294967297 with token", get(port, "/api/evidence/4294967297/before.jpg", hdr));
        ADD("evidence 999 with token", get(port, "/api/evidence/999/after.jpg", hdr));
        ADD("evidence no id with token", get(port, "/api/evidence//before.jpg", hdr));
    }
    ADD("foreign Host", build("GET / HTTP/1.1\r\nHost: evil.example\r\n\r\n"));
    ADD("foreign Host with our port", build("GET /state.json HTTP/1.1\r\nHost: evil.example:%d\r\n\r\n", port));
    ADD("IPv6 Host", build("GET / HTTP/1.1\r\nHost: [::1]:%d\r\n\r\n", port));
    ADD("Host with bad port", build("GET / HTTP/1.1\r\nHost: 127.0.0.1:99999999\r\n\r\n"));
    ADD("Host with a path", build("GET / HTTP/1.1\r\nHost: 127.0.0.1/x\r\n\r\n"));
    ADD("empty Host", build("GET / HTTP/1.1\r\nHost: \r\n\r\n"));
    ADD("other local address as Host", build("GET / HTTP/1.1\r\nHost: 127.0.0.2:%d\r\n\r\n", port));
    ADD("localhost.evil.example", build("GET / HTTP/1.1\r\nHost: localhost.evil.example:%d\r\n\r\n", port));
    ADD("empty bearer", get(port, o->hall ? "/api/announce" : "/api/events", "Authorization: Bearer \r\n"));
    ADD("basic auth", get(port, o->hall ? "/api/announce" : "/api/events", "Authorization: Basic Zm9vOmJhcg==\r\n"));
    {
        char longer[160], path[200];
        snprintf(longer, sizeof longer, "%sx", tok);
        ADD("token with a byte more", post(port, api, "application/json", longer, "{}"));
        snprintf(longer, sizeof longer, "%.*s", (int)strlen(tok) - 1, tok);
        ADD("token with a byte less", post(port, api, "application/json", longer, "{}"));
        snprintf(path, sizeof path, "%s?token=%s", api, tok);
        ADD("token in the query", post(port, path, "application/json", NULL, "{}"));
    }
    ADD("text/plain body", post(port, api, "text/plain", tok, "{}"));
    ADD("form body", post(port, api, "application/x-www-form-urlencoded", tok, "url=http://x:1"));
    ADD("multipart body", post(port, api, "multipart/form-data; boundary=x", tok, "--x--"));
    ADD("application/jsonx", post(port, api, "application/jsonx", tok, "{}"));
    ADD("no content type", post(port, api, NULL, tok, "{}"));
    ADD_JSON("bad JSON", "{\"ruling\":");
    ADD_JSON("JSON array", "[1,2]");
    ADD_JSON("JSON string", "\"x\"");
    ADD_JSON("deep nesting", deep);
    ADD_JSON("invalid UTF-8", "{\"note\":\"\xff\xfe\"}");
    ADD_JSON("trailing garbage", "{} x");
    ADD_JSON("empty body", "");
    if (o->hall) {
        ADD_JSON("announce file URL", "{\"url\":\"file:///etc/passwd\"}");
        ADD_JSON("announce URL with path", "{\"url\":\"http://127.0.0.1:1/admin?x=\"}");
        ADD_JSON("announce URL with user", "{\"url\":\"http://a@127.0.0.1:1\"}");
        ADD_JSON("announce URL port 99999", "{\"url\":\"http://127.0.0.1:99999\"}");
        ADD_JSON("announce URL not a string", "{\"url\":5}");
        ADD_JSON("announce no URL", "{\"name\":\"x\"}");
        ADD("announce GET", get(port, api, NULL));
        ADD("ruling on the hall", post(port, "/api/ruling", "application/json", tok, "{\"ruling\":\"void\"}"));
    } else {
        ADD_JSON("ruling unknown", "{\"ruling\":\"explode\"}");
        ADD_JSON("ruling event -1", "{\"ruling\":\"void\",\"event_id\":-1}");
        ADD_JSON("ruling event 1e20", "{\"ruling\":\"void\",\"event_id\":1e20}");
        ADD_JSON("ruling event 1e999", "{\"ruling\":\"void\",\"event_id\":1e999}");
        ADD_JSON("ruling event 1.5", "{\"ruling\":\"void\",\"event_id\":1.5}");
        ADD_JSON("ruling with an unknown key", "{\"ruling\":\"void\",\"event\":1}");
        ADD_JSON("ruling event 999999", "{\"ruling\":\"void\",\"event_id\":999999}");
        ADD_JSON("ruling bad points", "{\"ruling\":\"void\",\"points\":[\"zz\",5]}");
        ADD_JSON("ruling bad color", "{\"ruling\":\"warn\",\"color\":\"X\"}");
        ADD_JSON("ruling warn without color", "{\"ruling\":\"warn\"}");
        ADD_JSON("ruling 40 points", "{\"ruling\":\"void\",\"points\":[\"aa\",\"aa\","
             "\"aa\",\"aa\",\"aa\",\"aa\",\"aa\",\"aa\",\"aa\",\"aa\",\"aa\",\"aa\",\"aa\",\"aa\",\"aa\",\"aa\",\"aa\","
             "\"aa\",\"aa\",\"aa\",\"aa\",\"aa\",\"aa\",\"aa\",\"aa\",\"aa\",\"aa\",\"aa\",\"aa\",\"aa\",\"aa\",\"aa\","
             "\"aa\",\"aa\",\"aa\",\"aa\",\"aa\",\"aa\",\"aa\",\"aa\"]}");
        ADD("ruling GET", get(port, api, "X-Goscribe-Token: x\r\n"));
    }
    ADD_CLOSE("binary garbage", build("\x01\x02\x03\xff\xfe\r\n\r\n"));
    ADD_CLOSE("binary request line", build("\x16\x03\x01 / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n", port));
#undef ADD_CLOSE
#undef ADD_JSON
#undef ADD
    free(longpath);
    free(longhdr);
    free(longbody);
    free(deep);
    free(manyhdr);
    return n;
}

/* ----------------------------------------------------------- the modes */

static int run_malformed(const probe_opts *o)
{
    built reqs[128];
    const char *names[128];
    bool may_close[128];
    int n = malformed_list(o, reqs, names, may_close, 128);
    int bad = 0, counts[600] = {0};
    for (int i = 0; i < n; i++) {
        int st = request(0, o->port, reqs[i].p, reqs[i].len, 5000, NULL, 0);
        bool ok = (st >= 400 && st < 500) || st == 505 || (st == 0 && may_close[i]);
        if (st >= 0 && st < 600) counts[st]++;
        if (!ok) {
            printf("FAIL: %s: %s\n", names[i], st == -2 ? "cannot connect" : st == -1 ? "no answer in 5 s"
                                                : st == 0 ? "closed without an answer" : "answered");
            if (st > 0) printf("      status %d\n", st);
            bad++;
        }
        free(reqs[i].p);
    }
    printf("malformed: %d requests, %d answered 4xx or 505 or (not HTTP at all) closed (", n, n - bad);
    bool first = true;
    for (int s = 0; s < 600; s++)
        if (counts[s]) {
            printf(s ? "%s%dx%d" : "%s%dxclosed", first ? "" : " ", counts[s], s);
            first = false;
        }
    printf(")\n");
    built g = get(o->port, "/state.json", NULL);
    int st = request(0, o->port, g.p, g.len, 5000, NULL, 0);
    free(g.p);
    printf("after them, GET /state.json: %d\n", st);
    return bad || st != 200 ? 1 : 0;
}

/* One rule: what was sent, what must come back. */
static bool expect(const char *what, built b, int want, int port)
{
    char body[512] = "";
    int st = request(0, port, b.p, b.len, 5000, body, sizeof body);
    free(b.p);
    body[strcspn(body, "\n")] = '\0';
    printf("%s: %s: %d (want %d)%s%s\n", st == want ? "ok" : "FAIL", what, st, want, *body ? " " : "", body);
    return st == want;
}

static int run_checks(const probe_opts *o)
{
    int p = o->port;
    bool ok = true;
    const char *api = o->hall ? "/api/announce" : "/api/ruling";
    char auth[200];
    snprintf(auth, sizeof auth, "Authorization: Bearer %s\r\n", o->token);
    ok &= expect("GET / with Host evil.example (DNS rebinding)", build("GET / HTTP/1.1\r\nHost: evil.example:%d\r\n"
                 "Connection: close\r\n\r\n", p), 421, p);
    ok &= expect("GET /state.json with Host evil.example", build("GET /state.json HTTP/1.1\r\nHost: evil.example:%d\r\n"
                 "Connection: close\r\n\r\n", p), 421, p);
    if (!o->hall) {
        ok &= expect("GET /game.sgf with Host evil.example", build("GET /game.sgf HTTP/1.1\r\nHost: evil.example:%d\r\n"
                     "Connection: close\r\n\r\n", p), 421, p);
        ok &= expect("GET /frame.jpg with Host evil.example", build("GET /frame.jpg HTTP/1.1\r\nHost: evil.example:%d\r\n"
                     "Connection: close\r\n\r\n", p), 421, p);
    }
    ok &= expect("GET /state.json with Host 127.0.0.1", get(p, "/state.json", NULL), 200, p);
    ok &= expect("GET /state.json with Host localhost", build("GET /state.json HTTP/1.1\r\nHost: localhost:%d\r\n"
                 "Connection: close\r\n\r\n", p), 200, p);
    /* a body the server accepts: a ruling the recorder can always take, or
     * an announce of an address nobody listens on */
    const char *good = o->hall ? "{\"url\":\"http://127.0.0.1:9\"}" : "{\"ruling\":\"warn\",\"color\":\"W\",\"note\":\"probe\"}";
    ok &= expect("POST without the token", post(p, api, "application/json", NULL, good), 403, p);
    ok &= expect("POST with a wrong token", post(p, api, "application/json", "wrong-token-123", good), 403, p);
    {
        char path[200];
        snprintf(path, sizeof path, "%s?token=%s", api, o->token);
        ok &= expect("POST with the token in the URL", post(p, path, "application/json", NULL, good), 403, p);
    }
    ok &= expect("POST text/plain (a cross-site form)", post(p, api, "text/plain", o->token, good), 415, p);
    ok &= expect("POST without a content type", post(p, api, NULL, o->token, good), 415, p);
    ok &= expect("POST with the token, as JSON", post(p, api, "application/json; charset=utf-8", o->token, good), 200, p);
    if (!o->hall) {
        char path[200];
        snprintf(path, sizeof path, "/api/events?token=%s", o->token);
        ok &= expect("GET /api/events with the token in the URL", get(p, path, NULL), 403, p);
        ok &= expect("GET /api/events with the token in a header", get(p, "/api/events", auth), 200, p);
        ok &= expect("GET /api/evidence/-1/before.jpg with the token", get(p, "/api/evidence/-1/before.jpg", auth), 404, p);
    }
    return ok ? 0 : 1;
}

/* One trickling socket: when it last sent, and how many lines. */
typedef struct trickler {
    int fd;
    uint32_t src;
    double last_ms, closed_ms;
    int lines;
} trickler;

/* (Re)opens t; false when the connection could not be made (the server
 * refused it at once: counted, and tried again later). */
static bool trickler_open(trickler *t, int port)
{
    t->fd = open_from(t->src, port);
    if (t->fd < 0) return false;
    t->last_ms = now_ms();
    t->lines = 0;
    return send_all(t->fd, "GET /state.json HTTP/1.1\r\n", 26, now_ms() + 1000);
}

/* Sends the next header line of every trickler due, reopens closed ones
 * (100 ms after the close); counts closes in *closed. */
static void trickle_step(trickler *t, int n, int port, long *opened, long *closed, long *refused)
{
    double now = now_ms();
    for (int i = 0; i < n; i++) {
        if (t[i].fd < 0) {
            if (now - t[i].closed_ms < 100) continue;
            if (trickler_open(&t[i], port)) (*opened)++;
            else {
                (*refused)++;
                if (t[i].fd >= 0) close(t[i].fd);
                t[i].fd = -1;
                t[i].closed_ms = now;
            }
            continue;
        }
        char buf[512];
        ssize_t r = recv(t[i].fd, buf, sizeof buf, 0);
        bool gone = r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
        if (!gone && now - t[i].last_ms >= 2000) {
            char line[64];
            int len = snprintf(line, sizeof line, "X-Trickle-%d: still here\r\n", t[i].lines++);
            gone = send(t[i].fd, line, (size_t)len, MSG_NOSIGNAL) != len;
            t[i].last_ms = now;
        }
        if (gone) {
            close(t[i].fd);
            t[i].fd = -1;
            t[i].closed_ms = now;
            (*closed)++;
        }
    }
}

static int run_trickle(const probe_opts *o)
{
    struct rlimit rl;
    if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < (rlim_t)o->sockets + 64) {
        rl.rlim_cur = rl.rlim_max < (rlim_t)o->sockets + 64 ? rl.rlim_max : (rlim_t)o->sockets + 64;
        (void)setrlimit(RLIMIT_NOFILE, &rl);  /* too few descriptors: the opens below say so */
    }
    trickler *t = calloc((size_t)o->sockets, sizeof *t);
    if (!t) return 1;
    long opened = 0, closed = 0, refused = 0;
    for (int i = 0; i < o->sockets; i++) {
        t[i].src = 0x7f000200u | (uint32_t)(1 + i % o->sources);
        if (trickler_open(&t[i], o->port)) opened++;
        else {
            refused++;
            if (t[i].fd >= 0) close(t[i].fd);
            t[i].fd = -1;
            t[i].closed_ms = now_ms();
        }
    }
    double start = now_ms(), end = start + o->seconds * 1000.0, next_real = start + 500;
    int real = 0, real_ok = 0, no_server = 0;
    double worst = 0;
    while (now_ms() < end && !g_stop) {
        trickle_step(t, o->sockets, o->port, &opened, &closed, &refused);
        if (now_ms() >= next_real) {
            built g = get(o->port, o->path, NULL);
            double t0 = now_ms();
            int st = request(0, o->port, g.p, g.len, 2000, NULL, 0);
            double ms = now_ms() - t0;
            free(g.p);
            real++;
            if (st == -2) no_server++;  /* refused: nothing listens (not a lockout: a server gone) */
            if (st == 200) real_ok++;
            else printf("FAIL: real client request %d: %s\n", real, st == -1 ? "no answer in 2 s" : st == -2 ? "refused"
                                                                : st == 0 ? "closed without an answer" : "not 200");
            if (ms > worst) worst = ms;
            next_real = now_ms() + 250;
        }
        usleep(20000);
    }
    int open_now = 0;
    for (int i = 0; i < o->sockets; i++) open_now += t[i].fd >= 0;
    printf("trickle: %d sockets from %d addresses for %.0f s: %ld connections opened, %ld closed by the server, "
           "%ld refused at once, %d open at the end\n",
           o->sockets, o->sources, (now_ms() - start) / 1000, opened, closed, refused, open_now);
    printf("real client meanwhile: %d/%d requests answered 200, slowest %.0f ms", real_ok, real, worst);
    printf(no_server ? " (%d found no server listening)\n" : "\n", no_server);
    for (int i = 0; i < o->sockets; i++)
        if (t[i].fd >= 0) close(t[i].fd);
    free(t);
    return real > 0 && real_ok == real ? 0 : 1;
}

static int run_deadline(const probe_opts *o)
{
    trickler t = {.src = 0x7f000301u};
    if (!trickler_open(&t, o->port)) {
        printf("FAIL: deadline: cannot connect\n");
        return 1;
    }
    double t0 = now_ms();
    char buf[512];
    for (;;) {
        double el = now_ms() - t0;
        if (el > o->max_seconds * 1000.0) {
            printf("FAIL: deadline: a socket sending a header line every second still open after %.1f s "
                   "(%d lines)\n", el / 1000, t.lines);
            close(t.fd);
            return 1;
        }
        ssize_t r = recv(t.fd, buf, sizeof buf, 0);
        if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK) || r > 0) break;
        if (now_ms() - t.last_ms >= 1000) {
            char line[64];
            int len = snprintf(line, sizeof line, "X-Trickle-%d: still here\r\n", t.lines++);
            if (send(t.fd, line, (size_t)len, MSG_NOSIGNAL) != len) break;
            t.last_ms = now_ms();
        }
        usleep(20000);
    }
    printf("deadline: a socket sending a header line every second was closed after %.1f s (%d lines sent)\n",
           (now_ms() - t0) / 1000, t.lines);
    close(t.fd);
    return 0;
}

/* ---------------------------------------------------------------- main */

static int usage(void)
{
    fprintf(stderr, "usage: http_probe malformed|checks|trickle|deadline http://127.0.0.1:PORT [--kind board|hall]\n"
                    "       [--token T] [--sockets N] [--sources K] [--seconds S] [--path P] [--max-seconds S]\n");
    return 2;
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    signal(SIGINT, on_stop);
    signal(SIGTERM, on_stop);
    if (argc < 3 || strncmp(argv[2], "http://127.0.0.1:", 17)) return usage();
    probe_opts o = {.port = atoi(argv[2] + 17), .token = "", .sockets = 300, .sources = 30, .seconds = 8,
                    .max_seconds = 15, .path = "/state.json"};
    for (int i = 3; i + 1 < argc; i += 2) {
        const char *a = argv[i], *v = argv[i + 1];
        if (!strcmp(a, "--kind")) o.hall = !strcmp(v, "hall");
        else if (!strcmp(a, "--token")) o.token = v;
        else if (!strcmp(a, "--sockets")) o.sockets = atoi(v);
        else if (!strcmp(a, "--sources")) o.sources = atoi(v);
        else if (!strcmp(a, "--seconds")) o.seconds = atoi(v);
        else if (!strcmp(a, "--max-seconds")) o.max_seconds = atoi(v);
        else if (!strcmp(a, "--path")) o.path = v;
        else return usage();
    }
    if (o.port <= 0 || o.sockets < 1 || o.sources < 1 || o.sources > 250 || o.seconds < 1) return usage();
    if (!strcmp(argv[1], "malformed")) return run_malformed(&o);
    if (!strcmp(argv[1], "checks")) return run_checks(&o);
    if (!strcmp(argv[1], "trickle")) return run_trickle(&o);
    if (!strcmp(argv[1], "deadline")) return run_deadline(&o);
    return usage();
}
