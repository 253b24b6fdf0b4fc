/* tests/test_serve_guard.c: the broadcast servers against hostile and
 * unlucky clients, in process over loopback: the request deadline and a
 * crowd of slow sockets, the Host header, the hall's token, expiry and
 * polling with dead boards, evidence ids, the client's bounds.  (The
 * same against the real binaries: tests/http_probes.sh.) */
#include "testutil.h"
#include "broadcast/broadcast.h"
#include "broadcast/broadcast_internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define TOKEN "guard-token-123"

/* ---------------------------------------------------------- raw sockets */

/* A socket from 127.0.1.SRC (0 = 127.0.0.1) connected to port. */
static int open_from(int port, int src)
{
    int fd = gs_test_connect_loopback(port, src);
    assert_true(fd >= 0);
    return fd;
}

/* Whether the server closed fd within ms (reading what it sent). */
static bool closed_within(int fd, int ms)
{
    double end = gs_now_ms() + ms;
    for (;;) {
        double left = end - gs_now_ms();
        if (left <= 0) return false;
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, (int)left + 1) <= 0) continue;
        char buf[512];
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n <= 0) return true;
    }
}

/* Sends the raw request text on a fresh connection; the answer's status
 * (0 when closed without one).  body gets the answer's body if not NULL. */
static int raw_status(int port, const char *text, char *body, size_t bodylen)
{
    int fd = open_from(port, 0);
    assert_int_equal(send(fd, text, strlen(text), MSG_NOSIGNAL), (ssize_t)strlen(text));
    gs_buf b = {0};
    char tmp[4096];
    ssize_t n;
    while ((n = recv(fd, tmp, sizeof tmp, 0)) > 0) gs_buf_add(&b, tmp, (size_t)n);
    close(fd);
    int st = 0;
    if (b.p && !strncmp(b.p, "HTTP/1.", 7)) st = atoi(b.p + 9);
    const char *end = b.p ? strstr(b.p, "\r\n\r\n") : NULL;
    if (body) snprintf(body, bodylen, "%s", end ? end + 4 : "");
    gs_buf_free(&b);
    return st;
}

/* GET path with the given Host header line ("" = none) and version. */
static int get_with_host(int port, const char *path, const char *host, const char *version)
{
    char text[512];
    snprintf(text, sizeof text, "GET %s %s\r\n%s%s%sConnection: close\r\n\r\n", path, version, *host ? "Host: " : "",
             host, *host ? "\r\n" : "");
    return raw_status(port, text, NULL, 0);
}

static broadcast_board *start_board(broadcast_config *cfg)
{
    gs_error err = {0};
    broadcast_board *sb = broadcast_board_start(cfg, &err);
    if (!sb) print_message("broadcast_board_start: %s\n", err.msg);
    assert_non_null(sb);
    return sb;
}

/* ------------------------------------------------------------ the tests */

/* A request must arrive whole within request_ms, however often a line
 * comes; a crowd of such sockets does not lock a real client out; an SSE
 * answer may last as long as it likes. */
static void test_deadline_and_crowd(void **state)
{
    (void)state;
    broadcast_config cfg;
    broadcast_config_init(&cfg);
    cfg.token = TOKEN;
    cfg.request_ms = 1500;
    cfg.max_viewers = 64;
    cfg.max_per_client = 16;
    broadcast_board *sb = start_board(&cfg);
    int port = broadcast_board_port(sb);
    broadcast_state s;
    broadcast_state_init(&s, 9);
    broadcast_board_publish_state(sb, &s);

    /* a viewer of /events, connected before the trickling starts */
    int sse = open_from(port, 0);
    const char *ev = "GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    assert_int_equal(send(sse, ev, strlen(ev), MSG_NOSIGNAL), (ssize_t)strlen(ev));

    /* one header line every 300 ms: an idle timeout never fires */
    int slow = open_from(port, 0);
    double t0 = gs_now_ms();
    assert_true(send(slow, "GET / HTTP/1.1\r\n", 16, MSG_NOSIGNAL) == 16);
    bool closed = false;
    while (!closed && gs_now_ms() - t0 < 6000) {
        closed = closed_within(slow, 300);
        if (!closed) (void)send(slow, "X-Slow: yes\r\n", 13, MSG_NOSIGNAL);  /* refused once closed: seen next */
    }
    double took = gs_now_ms() - t0;
    close(slow);
    print_message("a socket trickling a line every 300 ms was closed after %.1f s (deadline 1.5 s)\n", took / 1000);
    assert_true(closed);
    assert_true(took >= 1300 && took < 4000);

    /* 60 sockets that never finish, from 6 addresses: more waiting than
     * the server has room for (64 connections, 16 from one address) */
    int crowd[60];
    for (int i = 0; i < 60; i++) {
        crowd[i] = open_from(port, 1 + i % 6);
        (void)send(crowd[i], "GET / HTTP/1.1\r\n", 16, MSG_NOSIGNAL);  /* a socket already closed just fails */
    }
    for (int i = 0; i < 10; i++) {
        char body[256];
        int st = raw_status(port, "GET /state.json HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", body,
                            sizeof body);
        assert_int_equal(st, 200);
        assert_non_null(strstr(body, "\"type\":\"state\""));
    }
    broadcast_stats st;
    broadcast_board_stats(sb, &st);
    print_message("%ld slow connections closed\n", st.dropped);
    assert_true(st.dropped >= 1);

    /* the viewer outlived the deadline and still gets what is published */
    gs_position_set(&s.pos, 4, 4, GS_BLACK);
    s.move_number = 1;
    s.last_color = GS_BLACK;
    s.last_point = (gs_point){4, 4};
    broadcast_board_publish_state(sb, &s);
    gs_buf got = {0};
    double end = gs_now_ms() + 5000;
    while (!(got.p && strstr(got.p, "\"move_number\":1")) && gs_now_ms() < end) {
        struct pollfd p = {sse, POLLIN, 0};
        if (poll(&p, 1, 200) <= 0) continue;
        char tmp[4096];
        ssize_t n = recv(sse, tmp, sizeof tmp, 0);
        if (n <= 0) break;
        gs_buf_add(&got, tmp, (size_t)n);
    }
    assert_non_null(got.p);
    assert_non_null(strstr(got.p, "\"move_number\":1"));
    gs_buf_free(&got);
    close(sse);
    for (int i = 0; i < 60; i++) close(crowd[i]);
    broadcast_board_stop(sb);
}

/* The Host header must name this server. */
static void test_host_header(void **state)
{
    (void)state;
    const char *allow[] = {"Board7.Example.org"};
    broadcast_config cfg;
    broadcast_config_init(&cfg);
    cfg.allow_hosts = allow;
    cfg.nallow_hosts = 1;
    broadcast_board *sb = start_board(&cfg);
    int port = broadcast_board_port(sb);
    char hp[64];
    snprintf(hp, sizeof hp, "127.0.0.1:%d", port);
    assert_int_equal(get_with_host(port, "/state.json", hp, "HTTP/1.1"), 200);
    assert_int_equal(get_with_host(port, "/state.json", "127.0.0.1", "HTTP/1.1"), 200);
    assert_int_equal(get_with_host(port, "/state.json", "localhost", "HTTP/1.1"), 200);
    assert_int_equal(get_with_host(port, "/state.json", "LocalHost:1", "HTTP/1.1"), 200);
    assert_int_equal(get_with_host(port, "/", "board7.example.org", "HTTP/1.1"), 200);
    assert_int_equal(get_with_host(port, "/", "BOARD7.example.ORG:80", "HTTP/1.1"), 200);
    assert_int_equal(get_with_host(port, "/state.json", "", "HTTP/1.0"), 200);
    /* a page of evil.example whose name resolves to 127.0.0.1 */
    assert_int_equal(get_with_host(port, "/state.json", "evil.example", "HTTP/1.1"), 421);
    assert_int_equal(get_with_host(port, "/game.sgf", "evil.example:8080", "HTTP/1.1"), 421);
    assert_int_equal(get_with_host(port, "/frame.jpg", "board7.example.org.evil.example", "HTTP/1.1"), 421);
    assert_int_equal(get_with_host(port, "/events", "localhost.evil.example", "HTTP/1.1"), 421);
    assert_int_equal(get_with_host(port, "/", "127.0.0.2", "HTTP/1.1"), 421);  /* not the address connected to */
    assert_int_equal(get_with_host(port, "/", "[::1]", "HTTP/1.1"), 421);
    assert_int_equal(get_with_host(port, "/", "127.0.0.1:port", "HTTP/1.1"), 421);
    assert_int_equal(get_with_host(port, "/", "", "HTTP/1.1"), 400);
    /* the Host check comes first, even for the API */
    assert_int_equal(get_with_host(port, "/api/events", "evil.example", "HTTP/1.1"), 421);
    broadcast_board_stop(sb);

    const char *bad[] = {"a b"};
    cfg.allow_hosts = bad;
    gs_error err = {0};
    assert_null(broadcast_board_start(&cfg, &err));
    assert_non_null(strstr(err.msg, "not a host name"));
}

/* Evidence ids are 1, 2, ...: nothing else is looked up, nothing aliases. */
static void test_evidence_ids(void **state)
{
    (void)state;
    broadcast_config cfg;
    broadcast_config_init(&cfg);
    cfg.token = TOKEN;
    broadcast_board *sb = start_board(&cfg);
    gs_image *img = gs_image_create(32, 24, 3);
    assert_non_null(img);
    broadcast_event ev = {"ko", "retook the ko", GS_WHITE, 6, 0, NULL, NULL, NULL, img, img};
    assert_int_equal(broadcast_board_publish_event(sb, &ev), 1);
    gs_image_destroy(img);
    int port = broadcast_board_port(sb);
    const char *paths[] = {"/api/evidence/1/before.jpg", "/api/evidence/1/after.jpg", "/api/evidence/-1/before.jpg",
                           "/api/evidence/0/before.jpg", "/api/evidence/65/before.jpg",
                           "/api/evidence/2147483649/before.jpg", "/api/evidence/4294967297/before.jpg",
                           "/api/evidence/99999999999999999999/before.jpg", "/api/evidence/01/before.jpg",
                           "/api/evidence/+1/before.jpg", "/api/evidence/1/before.jpgx", "/api/evidence/1/before.jpg/",
                           "/api/evidence/1/../1/before.jpg", "/api/evidence/1%2fbefore.jpg"};
    const int want[] = {200, 200, 404, 404, 404, 404, 404, 404, 404, 404, 404, 404, 404, 404};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Goscribe-Token: " TOKEN
                 "\r\nConnection: close\r\n\r\n", paths[i]);
        int st = raw_status(port, text, NULL, 0);
        if (st != want[i]) print_message("%s: %d, expected %d\n", paths[i], st, want[i]);
        assert_int_equal(st, want[i]);
    }
    broadcast_board_stop(sb);
}

/* ---------------------------------------------------------------- hall */

static broadcast_hall *start_hall(broadcast_hall_config *cfg)
{
    gs_error err = {0};
    broadcast_hall *h = broadcast_hall_start(cfg, &err);
    if (!h) print_message("broadcast_hall_start: %s\n", err.msg);
    assert_non_null(h);
    return h;
}

/* POSTs body to the hall's /api/announce with a content type and the
 * token header (NULL = none); the status. */
static int announce(broadcast_hall *h, const char *type, const char *token, const char *body)
{
    char ct[96] = "", tk[96] = "", text[1024];
    if (type) snprintf(ct, sizeof ct, "Content-Type: %s\r\n", type);
    if (token) snprintf(tk, sizeof tk, "X-Goscribe-Token: %s\r\n", token);
    snprintf(text, sizeof text, "POST /api/announce HTTP/1.1\r\nHost: 127.0.0.1\r\n%s%sContent-Length: %zu\r\n"
             "Connection: close\r\n\r\n%s", ct, tk, strlen(body), body);
    return raw_status(broadcast_hall_port(h), text, NULL, 0);
}

static void test_hall_announce_token_and_expiry(void **state)
{
    (void)state;
    broadcast_hall_config hc;
    broadcast_hall_config_init(&hc);
    hc.token = "hall-token-456";
    hc.announce_ttl_ms = 1500;
    hc.poll_ms = 200;
    broadcast_hall *h = start_hall(&hc);
    assert_string_equal(broadcast_hall_token(h), "hall-token-456");
    const char *dead = "{\"url\":\"http://127.0.0.1:9\"}";
    assert_int_equal(announce(h, "application/json", NULL, dead), 403);
    assert_int_equal(announce(h, "application/json", "hall-token-45", dead), 403);
    assert_int_equal(announce(h, "text/plain", "hall-token-456", dead), 415);      /* a cross-site form */
    assert_int_equal(announce(h, NULL, "hall-token-456", dead), 415);
    assert_int_equal(announce(h, "application/json", "hall-token-456", "{\"url\":\"http://127.0.0.1:9/x?y\"}"), 400);
    assert_int_equal(announce(h, "application/json", "hall-token-456", "{\"url\":\"file:///etc/passwd\"}"), 400);
    assert_int_equal(announce(h, "application/json", "hall-token-456", "{\"url\":\"http://u@127.0.0.1:9\"}"), 400);
    /* 64 announcements fill the hall ... */
    for (int i = 0; i < 64; i++) {
        char body[64];
        snprintf(body, sizeof body, "{\"url\":\"http://127.0.0.%d:9\"}", 2 + i);
        assert_int_equal(announce(h, "application/json", "hall-token-456", body), 200);
    }
    assert_int_equal(announce(h, "application/json", "hall-token-456", "{\"url\":\"http://127.0.0.99:9\"}"), 503);
    /* ... but not for good: not announced again, they leave */
    usleep(2000 * 1000);
    broadcast_config bc;
    broadcast_config_init(&bc);
    bc.board_name = "Late table";
    char hall_url[64];
    snprintf(hall_url, sizeof hall_url, "http://127.0.0.1:%d", broadcast_hall_port(h));
    bc.announce = hall_url;
    bc.announce_token = "wrong-token-99";
    broadcast_board *wrong = start_board(&bc);   /* it announces, and is refused */
    bc.board_name = "Real table";
    bc.announce_token = broadcast_hall_token(h);
    broadcast_board *real = start_board(&bc);
    double end = gs_now_ms() + 8000;
    while (broadcast_hall_board_count(h) < 1 && gs_now_ms() < end) usleep(50000);
    assert_int_equal(broadcast_hall_board_count(h), 1);
    char url[96], err[200], *body = NULL;
    int status = 0;
    snprintf(url, sizeof url, "%s/state.json", hall_url);
    assert_int_equal(broadcast_http_request(url, "GET", NULL, NULL, 3000, &status, &body, NULL, err, sizeof err), 0);
    assert_non_null(strstr(body, "Real table"));
    assert_null(strstr(body, "Late table"));
    free(body);
    /* a board that stops announcing leaves the hall too */
    broadcast_board_stop(real);
    end = gs_now_ms() + 6000;
    while (broadcast_hall_board_count(h) > 0 && gs_now_ms() < end) usleep(50000);
    assert_int_equal(broadcast_hall_board_count(h), 0);
    broadcast_board_stop(wrong);
    broadcast_hall_stop(h);

    /* a wrong hall address is refused before the board starts */
    bc.announce = "ftp://127.0.0.1:1";
    gs_error e = {0};
    assert_null(broadcast_board_start(&bc, &e));
    assert_non_null(strstr(e.msg, "hall address"));
    bc.announce = hall_url;
    bc.announce_token = NULL;
    assert_null(broadcast_board_start(&bc, &e));
    assert_non_null(strstr(e.msg, "token"));
}

/* A board's "online" in the hall's /state.json; -1 when not listed. */
static int hall_online(broadcast_hall *h, const char *name)
{
    char url[96], err[200], *body = NULL;
    int status = 0;
    snprintf(url, sizeof url, "http://127.0.0.1:%d/state.json", broadcast_hall_port(h));
    if (broadcast_http_request(url, "GET", NULL, NULL, 3000, &status, &body, NULL, err, sizeof err)) return -1;
    gs_json *j = gs_json_parse(body, strlen(body), NULL);
    free(body);
    const gs_json *boards = gs_json_get(j, "boards");
    int online = -1;
    for (int i = 0; boards && i < boards->n; i++)
        if (!strcmp(gs_json_get_str(boards->kids[i], "board", ""), name)) {
            const gs_json *o = gs_json_get(boards->kids[i], "online");
            online = o && o->type == GS_JSON_BOOL && o->b;
        }
    gs_json_free(j);
    return online;
}

/* 20 boards that accept a connection and never answer do not push the
 * real ones offline: each board is polled on its own, in bounded time. */
static void test_hall_dead_boards(void **state)
{
    (void)state;
    int dead[20];
    char dead_urls[20][64];
    const char *urls[22];
    for (int i = 0; i < 20; i++) {
        dead[i] = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in sa = {0};
        sa.sin_family = AF_INET;
        sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t l = sizeof sa;
        assert_int_equal(bind(dead[i], (struct sockaddr *)&sa, sizeof sa), 0);
        assert_int_equal(listen(dead[i], 64), 0);   /* the kernel accepts; nobody answers */
        assert_int_equal(getsockname(dead[i], (struct sockaddr *)&sa, &l), 0);
        snprintf(dead_urls[i], sizeof dead_urls[i], "http://127.0.0.1:%d", ntohs(sa.sin_port));
        urls[i] = dead_urls[i];
    }
    broadcast_config bc;
    broadcast_config_init(&bc);
    bc.board_name = "Live A";
    broadcast_board *a = start_board(&bc);
    bc.board_name = "Live B";
    broadcast_board *b = start_board(&bc);
    urls[20] = broadcast_board_url(a);
    urls[21] = broadcast_board_url(b);
    broadcast_hall_config hc;
    broadcast_hall_config_init(&hc);
    hc.boards = urls;
    hc.nboards = 22;
    hc.poll_ms = 200;
    broadcast_hall *h = start_hall(&hc);
    double end = gs_now_ms() + 5000;
    while (broadcast_hall_board_count(h) < 2 && gs_now_ms() < end) usleep(50000);
    assert_int_equal(broadcast_hall_board_count(h), 2);
    /* for 4 s (the dead ones time out again and again), both stay online
     * and a move shows within a second */
    broadcast_state s;
    broadcast_state_init(&s, 9);
    for (int k = 0; k < 8; k++) {
        s.move_number = k + 1;
        s.last_color = k % 2 ? GS_WHITE : GS_BLACK;
        s.last_point = (gs_point){(int8_t)k, 0};
        gs_position_set(&s.pos, k, 0, s.last_color);
        broadcast_board_publish_state(a, &s);
        usleep(500 * 1000);
        assert_int_equal(hall_online(h, "Live A"), 1);
        assert_int_equal(hall_online(h, "Live B"), 1);
    }
    char url[96], err[200], *body = NULL;
    int status = 0;
    snprintf(url, sizeof url, "http://127.0.0.1:%d/state.json", broadcast_hall_port(h));
    assert_int_equal(broadcast_http_request(url, "GET", NULL, NULL, 3000, &status, &body, NULL, err, sizeof err), 0);
    assert_non_null(strstr(body, "\"move_number\":8"));
    free(body);
    double t0 = gs_now_ms();
    broadcast_hall_stop(h);
    print_message("hall with 20 dead boards stopped in %.0f ms\n", gs_now_ms() - t0);
    assert_true(gs_now_ms() - t0 < 5000);
    broadcast_board_stop(a);
    broadcast_board_stop(b);
    for (int i = 0; i < 20; i++) close(dead[i]);
}

/* ---------------------------------------------------------- the client */

/* A server thread answering one connection with a canned text. */
typedef struct canned {
    int fd;
    const char *text;
    size_t repeat;   /* the text sent this many times */
} canned;

static void *canned_main(void *arg)
{
    canned *c = arg;
    int s = accept(c->fd, NULL, NULL);
    if (s < 0) return NULL;
    char buf[2048];
    (void)recv(s, buf, sizeof buf, 0);  /* the request: not looked at */
    for (size_t i = 0; i < c->repeat; i++)
        if (send(s, c->text, strlen(c->text), MSG_NOSIGNAL) < 0) break;
    close(s);
    return NULL;
}

/* Runs a request against a canned answer; the client's rc, err filled. */
static int against(const char *text, size_t repeat, int *status, char *err, size_t errlen)
{
    canned c = {socket(AF_INET, SOCK_STREAM, 0), text, repeat};
    struct sockaddr_in sa = {0};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t l = sizeof sa;
    assert_int_equal(bind(c.fd, (struct sockaddr *)&sa, sizeof sa), 0);
    assert_int_equal(listen(c.fd, 4), 0);
    assert_int_equal(getsockname(c.fd, (struct sockaddr *)&sa, &l), 0);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, canned_main, &c), 0);
    char url[64], *out = NULL;
    snprintf(url, sizeof url, "http://127.0.0.1:%d/state.json", ntohs(sa.sin_port));
    int rc = broadcast_http_request(url, "GET", NULL, NULL, 3000, status, &out, NULL, err, errlen);
    free(out);
    pthread_join(th, NULL);
    close(c.fd);
    return rc;
}

static void test_client_bounds(void **state)
{
    (void)state;
    int status = 0;
    char err[256];
    assert_int_equal(against("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}", 1, &status, err, sizeof err), 0);
    assert_int_equal(status, 200);
    /* a status that does not fit an int is not an HTTP answer (no overflow) */
    assert_int_equal(against("HTTP/1.1 99999999999999999999 X\r\n\r\n", 1, &status, err, sizeof err), -1);
    assert_non_null(strstr(err, "not an HTTP response"));
    assert_int_equal(against("HTTP/1.1 -200 X\r\n\r\n", 1, &status, err, sizeof err), -1);
    /* past 1 MiB: too large, and said so */
    static char chunk[65537];
    memset(chunk, 'x', sizeof chunk - 1);
    assert_int_equal(against(chunk, 20, &status, err, sizeof err), -1);
    assert_non_null(strstr(err, "too large"));
    /* a name that cannot be resolved (or not in time): an error within the
     * time given, never a hang on the resolver */
    char *out = NULL;
    double t0 = gs_now_ms();
    int rc = broadcast_http_request("http://goscribe-probe.invalid:8080/state.json", "GET", NULL, NULL, 400, &status,
                                    &out, NULL, err, sizeof err);
    double took = gs_now_ms() - t0;
    print_message("unresolvable name: \"%s\" after %.0f ms\n", err, took);
    assert_int_equal(rc, -1);
    assert_null(out);
    assert_true(took < 1500);
    /* a server whose queue is full never completes a connection: the
     * request and a reachability probe (the MQTT broker's) give up in time */
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {0};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t sl = sizeof sa;
    assert_int_equal(bind(l, (struct sockaddr *)&sa, sizeof sa), 0);
    assert_int_equal(listen(l, 0), 0);
    assert_int_equal(getsockname(l, (struct sockaddr *)&sa, &sl), 0);
    int filler = socket(AF_INET, SOCK_STREAM, 0);
    assert_int_equal(connect(filler, (struct sockaddr *)&sa, sizeof sa), 0);
    char url[64], addr[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/state.json", ntohs(sa.sin_port));
    t0 = gs_now_ms();
    rc = broadcast_http_request(url, "GET", NULL, NULL, 500, &status, &out, NULL, err, sizeof err);
    took = gs_now_ms() - t0;
    print_message("a server that never takes the connection: \"%s\" after %.0f ms\n", err, took);
    assert_int_equal(rc, -1);
    assert_true(took >= 400 && took < 1500);
    t0 = gs_now_ms();
    assert_int_equal(broadcast_tcp_reach("127.0.0.1", ntohs(sa.sin_port), 500, addr, sizeof addr, err, sizeof err), -1);
    assert_true(gs_now_ms() - t0 < 1500);
    close(filler);
    close(l);
    /* a server that does listen: reached by name, its address given back */
    l = socket(AF_INET, SOCK_STREAM, 0);
    sa.sin_port = 0;
    assert_int_equal(bind(l, (struct sockaddr *)&sa, sizeof sa), 0);
    assert_int_equal(listen(l, 4), 0);
    assert_int_equal(getsockname(l, (struct sockaddr *)&sa, &sl), 0);
    assert_int_equal(broadcast_tcp_reach("localhost", ntohs(sa.sin_port), 500, addr, sizeof addr, err, sizeof err), 0);
    assert_string_equal(addr, "127.0.0.1");
    close(l);
    /* tokens: 16 random bytes in hex, or one given that fits in a header */
    char a[72], b[72];
    gs_error e = {0};
    assert_int_equal(broadcast_token_init(a, sizeof a, NULL, "test", &e), GS_OK);
    assert_int_equal(broadcast_token_init(b, sizeof b, NULL, "test", &e), GS_OK);
    assert_int_equal(strlen(a), 32);
    assert_int_equal(strspn(a, "0123456789abcdef"), 32);
    assert_string_not_equal(a, b);
    assert_int_equal(broadcast_token_init(a, sizeof a, "short", "test", &e), GS_ERR_USAGE);
    assert_int_equal(broadcast_token_init(a, sizeof a, "has a space", "test", &e), GS_ERR_USAGE);
    assert_int_equal(broadcast_token_init(a, sizeof a, "line\r\nX-Evil: 1", "test", &e), GS_ERR_USAGE);
    assert_int_equal(broadcast_token_init(a, sizeof a, "good-token-1", "test", &e), GS_OK);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deadline_and_crowd),
        cmocka_unit_test(test_host_header),
        cmocka_unit_test(test_evidence_ids),
        cmocka_unit_test(test_hall_announce_token_and_expiry),
        cmocka_unit_test(test_hall_dead_boards),
        cmocka_unit_test(test_client_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
