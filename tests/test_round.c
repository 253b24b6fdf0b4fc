/* tests/test_round.c: the round feed of a club evening (broadcast.h, "the
 * round") over loopback: the boards' SGF files written as a recorder
 * writes them (atomically), the hall serving them.
 *  - a poll without change answers 304 (If-None-Match, If-Modified-Since);
 *    a new move changes the ETag within a second;
 *  - with a 5-minute delay no client sees a move earlier, by an injected
 *    clock: neither round.json, the game's SGF, the round's SSE stream nor
 *    MQTT (a real mosquitto) before 5 minutes, all of them at 5 minutes;
 *  - a correction made on the hall reaches the feed and the SGF file, with
 *    who made it;
 *  - a game still playing has no RE and GSST[playing]; one ended, its RE;
 *  - the round's SSE ids are unique and increasing on a stream, however
 *    many boards change at once, and Last-Event-ID resumes after its id;
 *  - a 304 carries no Content-Length (RFC 9110 8.6). */
#include "testutil.h"
#include "broadcast/broadcast.h"
#include "broadcast/broadcast_internal.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define TOKEN "director-token-1"
#define FIVE_MIN (5 * 60 * 1000)

typedef struct fixture {
    char dir[64], path[4][160];
    int64_t now;                 /* the injected clock */
    broadcast_round_board boards[4];
    broadcast_round_config rc;
    broadcast_hall *h;
    pid_t broker;
    char broker_addr[32];
} fixture;

static int64_t fake_clock(void *user) { return *(int64_t *)user; }

static void write_game(const fixture *f, int board, const char *moves, const char *re)
{
    char text[1024];
    snprintf(text, sizeof text, "(;GM[1]FF[4]CA[UTF-8]SZ[9]KM[6.5]PB[Black %d]PW[White %d]%s%s%s%s)\n", board + 1,
             board + 1, re ? "RE[" : "", re ? re : "", re ? "]" : "", moves);
    gs_error err;
    assert_int_equal(gs_file_write_atomic(f->path[board], text, strlen(text), &err), GS_OK);
}

static void start(fixture *f, int delay_ms, const char *mqtt)
{
    static const char *const names[4][2] = {{"Ann Ash", "Bo Birch"}, {"Cy Cedar", "Di Dogwood"},
                                            {"Ed Elm", "Flo Fir"}, {"Gus Gum", "Hal Hazel"}};
    /* the paths are made from a local copy: GCC's -Wrestrict (at -O1 with
     * the sanitizers) takes f->dir and f->path for one object */
    char dir[sizeof f->dir];
    snprintf(dir, sizeof dir, "/tmp/gs_test_round_%d", (int)getpid());
    memcpy(f->dir, dir, sizeof dir);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s", dir, dir);
    assert_int_equal(system(cmd), 0);
    for (int i = 0; i < 4; i++) {
        snprintf(f->path[i], sizeof f->path[i], "%s/table-%d.sgf", dir, i + 1);
        f->boards[i] = (broadcast_round_board){i + 1, names[i][0], names[i][1], "2d", "1k", 0, 6.5, true, f->path[i]};
    }
    memset(&f->rc, 0, sizeof f->rc);
    f->rc.event = "Test Cup";
    f->rc.round = "2";
    f->rc.boards = f->boards;
    f->rc.nboards = 4;
    f->rc.delay_ms = delay_ms;
    f->rc.watch_ms = 50;
    f->rc.clock = fake_clock;
    f->rc.clock_user = &f->now;
    f->rc.mqtt = mqtt;
    f->now = 1750000000000LL;
    broadcast_hall_config cfg;
    broadcast_hall_config_init(&cfg);
    cfg.token = TOKEN;
    cfg.round = &f->rc;
    gs_error err = {0};
    f->h = broadcast_hall_start(&cfg, &err);
    if (!f->h) print_message("hall: %s\n", err.msg);
    assert_non_null(f->h);
}

static void stop(fixture *f)
{
    broadcast_hall_stop(f->h);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", f->dir);
    assert_int_equal(system(cmd), 0);
}

/* ------------------------------------------------------ a plain HTTP client */

typedef struct answer {
    int status;
    char etag[64], modified[64];
    bool has_length;             /* a Content-Length header */
    char *body;
} answer;

/* Sends req (a whole request) to the hall and reads the answer to the end. */
static void http(const fixture *f, const char *req, answer *a)
{
    memset(a, 0, sizeof *a);
    int fd = gs_test_connect_loopback(broadcast_hall_port(f->h), 0);
    assert_true(fd >= 0);
    assert_int_equal(send(fd, req, strlen(req), MSG_NOSIGNAL), (ssize_t)strlen(req));
    gs_buf b = {0};
    double end = gs_now_ms() + 5000;
    for (;;) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 200) <= 0) {
            if (gs_now_ms() > end) break;
            continue;
        }
        char tmp[4096];
        ssize_t n = recv(fd, tmp, sizeof tmp, 0);
        if (n <= 0) break;
        gs_buf_add(&b, tmp, (size_t)n);
    }
    close(fd);
    assert_non_null(b.p);
    assert_int_equal(sscanf(b.p, "HTTP/1.1 %d", &a->status), 1);
    char *hdr_end = strstr(b.p, "\r\n\r\n");
    assert_non_null(hdr_end);
    *hdr_end = '\0';
    const char *e = strstr(b.p, "\r\nETag: "), *m = strstr(b.p, "\r\nLast-Modified: ");
    if (e) sscanf(e + 8, "%63[^\r]", a->etag);
    if (m) sscanf(m + 17, "%63[^\r]", a->modified);
    a->has_length = strstr(b.p, "\r\nContent-Length:") != NULL;
    a->body = strdup(hdr_end + 4);
    gs_buf_free(&b);
}

static void get(const fixture *f, const char *path, const char *header, answer *a)
{
    char req[512];
    snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n%s%s\r\n", path,
             header ? header : "", header ? "\r\n" : "");
    http(f, req, a);
}

/* ----------------------------------------------------------------- 304 */

/* A poll without change answers 304; a new move changes the ETag, seen
 * within a second without any tick of the test's own. */
static void test_etag_and_304(void **state)
{
    (void)state;
    fixture f;
    start(&f, 0, NULL);
    write_game(&f, 0, ";B[ee]", NULL);
    answer a, b;
    double end = gs_now_ms() + 3000;
    do {
        get(&f, "/round.sgf", NULL, &a);
        if (strstr(a.body, ";B[ee]")) break;
        free(a.body);
        usleep(50000);
    } while (gs_now_ms() < end);
    assert_int_equal(a.status, 200);
    assert_non_null(strstr(a.body, ";B[ee]"));
    assert_true(a.etag[0] == '"' && a.modified[0]);
    char inm[96], ims[96];
    snprintf(inm, sizeof inm, "If-None-Match: %s", a.etag);
    snprintf(ims, sizeof ims, "If-Modified-Since: %s", a.modified);
    get(&f, "/round.sgf", inm, &b);
    assert_int_equal(b.status, 304);
    assert_string_equal(b.body, "");
    assert_string_equal(b.etag, a.etag);
    assert_false(b.has_length); /* absent, or the 200's length: never 0 */
    assert_true(a.has_length);
    free(b.body);
    get(&f, "/round.sgf", ims, &b);
    assert_int_equal(b.status, 304);
    free(b.body);
    /* a new move: the ETag changes within a second */
    write_game(&f, 0, ";B[ee];W[cc]", NULL);
    double t0 = gs_now_ms();
    for (;;) {
        get(&f, "/round.sgf", inm, &b);
        if (b.status == 200) break;
        free(b.body);
        assert_true(gs_now_ms() - t0 < 1000);
        usleep(20000);
    }
    print_message("new move: ETag changed after %.0f ms\n", gs_now_ms() - t0);
    assert_string_not_equal(b.etag, a.etag);
    assert_non_null(strstr(b.body, ";W[cc]"));
    free(a.body);
    free(b.body);
    /* the board's own feed too, and its JSON with the move list */
    get(&f, "/board/1.json", NULL, &a);
    assert_int_equal(a.status, 200);
    assert_non_null(strstr(a.body, "\"move_list\":[{\"color\":\"B\",\"point\":\"ee\"},{\"color\":\"W\",\"point\":\"cc\"}]"));
    snprintf(inm, sizeof inm, "If-None-Match: %s", a.etag);
    get(&f, "/board/1.json", inm, &b);
    assert_int_equal(b.status, 304);
    free(a.body);
    free(b.body);
    stop(&f);
}

/* ------------------------------------------------------ the five minutes */

typedef struct heard {
    pthread_mutex_t mu;
    gs_buf text;
} heard;

static void on_mqtt(void *ctx, const char *topic, const char *payload, size_t len)
{
    heard *h = ctx;
    pthread_mutex_lock(&h->mu);
    gs_buf_printf(&h->text, "%s ", topic);
    gs_buf_add(&h->text, payload, len);
    gs_buf_puts(&h->text, "\n");
    pthread_mutex_unlock(&h->mu);
}

static bool heard_has(heard *h, const char *what)
{
    pthread_mutex_lock(&h->mu);
    bool has = h->text.p && strstr(h->text.p, what);
    pthread_mutex_unlock(&h->mu);
    return has;
}

static pid_t start_broker(char *addr, size_t n)
{
    const char *bin = access("/usr/sbin/mosquitto", X_OK) == 0 ? "/usr/sbin/mosquitto"
                      : access("/usr/bin/mosquitto", X_OK) == 0 ? "/usr/bin/mosquitto" : NULL;
    if (!bin) return 0;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {0};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t l = sizeof sa;
    assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &l), 0);
    close(fd);
    char port[16];
    snprintf(port, sizeof port, "%d", ntohs(sa.sin_port));
    snprintf(addr, n, "127.0.0.1:%s", port);
    char *argv[] = {(char *)bin, "-p", port, NULL};
    pid_t pid;
    posix_spawn_file_actions_t fa; /* its chatter is not the test's */
    assert_int_equal(posix_spawn_file_actions_init(&fa), 0);
    assert_int_equal(posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0), 0);
    assert_int_equal(posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0), 0);
    assert_int_equal(posix_spawn(&pid, bin, &fa, NULL, argv, environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    for (int i = 0; i < 100; i++) { /* until it listens */
        char why[100], num[64];
        if (!broadcast_tcp_reach("127.0.0.1", ntohs(sa.sin_port), 200, num, sizeof num, why, sizeof why)) break;
        usleep(50000);
    }
    return pid;
}

/* Reads what the SSE stream fd has sent so far into b (for up to ms). */
static void sse_drain(int fd, gs_buf *b, int ms)
{
    double end = gs_now_ms() + ms;
    for (;;) {
        double left = end - gs_now_ms();
        struct pollfd p = {fd, POLLIN, 0};
        if (left <= 0 || poll(&p, 1, (int)left + 1) <= 0) return;
        char tmp[4096];
        ssize_t n = recv(fd, tmp, sizeof tmp, 0);
        if (n <= 0) return;
        gs_buf_add(b, tmp, (size_t)n);
    }
}

/* What every client gets of board 3: nothing of the new move yet. */
static void expect_hidden(fixture *f, int sse, gs_buf *sse_text, heard *mq)
{
    answer a;
    get(f, "/round.json", NULL, &a);
    assert_null(strstr(a.body, "\"move_number\":1"));
    free(a.body);
    get(f, "/board/3.sgf", NULL, &a);
    assert_null(strstr(a.body, "B[ee]"));
    assert_non_null(strstr(a.body, "GSST[waiting]"));
    free(a.body);
    get(f, "/board/3.json", NULL, &a);
    assert_null(strstr(a.body, "\"ee\""));
    free(a.body);
    sse_drain(sse, sse_text, 300);
    assert_null(strstr(sse_text->p, "\"move_number\":1"));
    if (mq) assert_false(heard_has(mq, "B[ee]") || heard_has(mq, "\"move_number\":1"));
}

static void test_five_minute_delay(void **state)
{
    (void)state;
    fixture f;
    char broker[32] = "";
    pid_t bpid = start_broker(broker, sizeof broker);
    if (!bpid) print_message("note: mosquitto absent, the MQTT part is not checked\n");
    start(&f, FIVE_MIN, bpid ? broker : NULL);
    heard mq = {PTHREAD_MUTEX_INITIALIZER, {0}};
    gs_error err = {0};
    broadcast_mqtt *sub = bpid ? broadcast_mqtt_open(broker, "test-round-sub", "goscribe/round/#", on_mqtt, &mq, NULL,
                                                     &err) : NULL;
    if (bpid) assert_non_null(sub);
    int sse = gs_test_connect_loopback(broadcast_hall_port(f.h), 0);
    const char *r = "GET /round/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    assert_int_equal(send(sse, r, strlen(r), MSG_NOSIGNAL), (ssize_t)strlen(r));
    gs_buf sse_text = {0};
    sse_drain(sse, &sse_text, 500);
    assert_non_null(strstr(sse_text.p, "\"type\":\"round\""));
    /* the first move is played now: t0 */
    int64_t t0 = f.now;
    write_game(&f, 2, ";B[ee]", NULL);
    broadcast_hall_round_tick(f.h);
    expect_hidden(&f, sse, &sse_text, bpid ? &mq : NULL);
    f.now = t0 + FIVE_MIN - 1; /* a millisecond short of five minutes */
    broadcast_hall_round_tick(f.h);
    expect_hidden(&f, sse, &sse_text, bpid ? &mq : NULL);
    f.now = t0 + FIVE_MIN;
    broadcast_hall_round_tick(f.h);
    answer a;
    get(&f, "/board/3.sgf", NULL, &a);
    assert_non_null(strstr(a.body, ";B[ee]"));
    assert_non_null(strstr(a.body, "GSST[playing]"));
    assert_null(strstr(a.body, "RE["));
    free(a.body);
    get(&f, "/round.json", NULL, &a);
    assert_non_null(strstr(a.body, "\"table\":\"3\""));
    assert_non_null(strstr(a.body, "\"move_number\":1"));
    assert_non_null(strstr(a.body, "\"delay_s\":300"));
    free(a.body);
    sse_drain(sse, &sse_text, 1000);
    assert_non_null(strstr(sse_text.p, "\"move_number\":1"));
    for (int i = 0; bpid && i < 50 && !heard_has(&mq, "B[ee]"); i++) usleep(50000);
    if (bpid) {
        assert_true(heard_has(&mq, "goscribe/round/2/board/3/sgf"));
        assert_true(heard_has(&mq, "B[ee]"));
    }
    close(sse);
    gs_buf_free(&sse_text);
    broadcast_mqtt_close(sub);
    gs_buf_free(&mq.text);
    stop(&f);
    if (bpid && kill(bpid, SIGTERM) == 0) waitpid(bpid, NULL, 0);
}

/* ------------------------------------------------------- the SSE ids */

/* Opens /round/events with header (NULL = none); the socket. */
static int sse_open(const fixture *f, const char *header)
{
    int fd = gs_test_connect_loopback(broadcast_hall_port(f->h), 0);
    assert_true(fd >= 0);
    char req[256];
    snprintf(req, sizeof req, "GET /round/events HTTP/1.1\r\nHost: 127.0.0.1\r\n%s%s\r\n", header ? header : "",
             header ? "\r\n" : "");
    assert_int_equal(send(fd, req, strlen(req), MSG_NOSIGNAL), (ssize_t)strlen(req));
    return fd;
}

/* The ids of the "id: N" lines of an SSE text, in order; their number. */
static int sse_ids(const char *text, long *ids, int max)
{
    int n = 0;
    for (const char *p = text; p && (p = strstr(p, "\nid: ")) && n < max; p++) ids[n++] = strtol(p + 5, NULL, 10);
    return n;
}

/* Three boards shown in one tick (their moves come out of a delay
 * together): three messages, three ids, each above the one before and
 * above the first message's; a client coming back with the first board's
 * id gets the other two, no more, no round; an id this hall never gave
 * gets the whole round. */
static void test_sse_ids(void **state)
{
    (void)state;
    fixture f;
    start(&f, FIVE_MIN, NULL);
    int sse = sse_open(&f, NULL);
    gs_buf text = {0};
    sse_drain(sse, &text, 500);
    assert_non_null(strstr(text.p, "\"type\":\"round\""));
    int64_t t0 = f.now;
    for (int i = 0; i < 3; i++) write_game(&f, i, ";B[ee]", NULL);
    broadcast_hall_round_tick(f.h);
    f.now = t0 + FIVE_MIN;
    broadcast_hall_round_tick(f.h);
    sse_drain(sse, &text, 1000);
    close(sse);
    long ids[16];
    int n = sse_ids(text.p, ids, 16);
    print_message("ids on the stream: %d (%ld ... %ld)\n", n, n ? ids[0] : 0, n ? ids[n - 1] : 0);
    assert_int_equal(n, 4); /* the round, then boards 1, 2, 3 */
    for (int i = 1; i < n; i++) assert_true(ids[i] > ids[i - 1]);
    char last[64];
    snprintf(last, sizeof last, "Last-Event-ID: %ld", ids[1]);
    gs_buf again = {0};
    sse = sse_open(&f, last);
    sse_drain(sse, &again, 700);
    close(sse);
    long back[16];
    assert_int_equal(sse_ids(again.p, back, 16), 2);
    assert_true(back[0] == ids[2] && back[1] == ids[3]);
    assert_null(strstr(again.p, "\"type\":\"round\""));
    assert_null(strstr(again.p, "\"table\":\"1\""));
    gs_buf_free(&again);
    sse = sse_open(&f, "Last-Event-ID: 7");
    sse_drain(sse, &again, 500);
    close(sse);
    assert_non_null(strstr(again.p, "\"type\":\"round\""));
    gs_buf_free(&again);
    gs_buf_free(&text);
    stop(&f);
}

/* ---------------------------------------------------------- corrections */

/* The director corrects board 2 on the hall (its recorder is gone): the
 * file carries it, then the feed, with who made it; the token is needed. */
static void test_correction_reaches_feed(void **state)
{
    (void)state;
    fixture f;
    start(&f, 0, NULL);
    write_game(&f, 1, ";B[ee];W[cc];B[gg]", "B+R");
    broadcast_hall_round_tick(f.h);
    const char *body = "{\"ruling\":\"move\",\"move_number\":3,\"point\":\"gc\",\"by\":\"Tess Director\"}";
    char req[1024];
    snprintf(req, sizeof req, "POST /board/2/api/correct HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
             "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s", strlen(body), body);
    answer a;
    http(&f, req, &a);
    assert_int_equal(a.status, 403); /* no token */
    free(a.body);
    snprintf(req, sizeof req, "POST /board/2/api/correct HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
             "Content-Type: application/json\r\nX-Goscribe-Token: " TOKEN "\r\nContent-Length: %zu\r\n\r\n%s",
             strlen(body), body);
    http(&f, req, &a);
    if (a.status != 200) print_message("%s\n", a.body);
    assert_int_equal(a.status, 200);
    free(a.body);
    char *disk = NULL;
    gs_error err;
    assert_int_equal(gs_file_read(f.path[1], 1 << 20, &disk, NULL, &err), GS_OK);
    assert_non_null(strstr(disk, ";B[gc]"));
    assert_non_null(strstr(disk, "Correction by Tess Director ("));
    assert_non_null(strstr(disk, "move 3 is Black G7 (the record had G3)"));
    assert_non_null(strstr(disk, "GSRL[move:B:0:0:"));
    free(disk);
    broadcast_hall_round_tick(f.h);
    get(&f, "/round.sgf", NULL, &a);
    assert_non_null(strstr(a.body, ";B[gc]"));
    assert_non_null(strstr(a.body, "Correction by Tess Director"));
    assert_non_null(strstr(a.body, "RE[B+R]"));
    assert_non_null(strstr(a.body, "GSST[ended]"));
    /* the whole feed is an SGF collection SGFC reads (sgf_validate) */
    char kept[160];
    snprintf(kept, sizeof kept, "%s/round.sgf", f.dir);
    assert_int_equal(gs_file_write_atomic(kept, a.body, strlen(a.body), &err), GS_OK);
    gs_test_keep_sgf(kept, "round_feed");
    free(a.body);
    get(&f, "/board/2.sgf", NULL, &a);
    snprintf(kept, sizeof kept, "%s/board2.sgf", f.dir);
    assert_int_equal(gs_file_write_atomic(kept, a.body, strlen(a.body), &err), GS_OK);
    gs_test_keep_sgf(kept, "round_board_feed");
    free(a.body);
    get(&f, "/board/2.json", NULL, &a);
    assert_non_null(strstr(a.body, "\"rulings\":[{\"move_number\":3,\"ruling\":\"move\",\"text\":\"Correction by Tess"));
    free(a.body);
    /* a correction no game can take: refused, nothing changed */
    body = "{\"ruling\":\"move\",\"move_number\":9,\"point\":\"aa\"}";
    snprintf(req, sizeof req, "POST /board/2/api/correct HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
             "Content-Type: application/json\r\nX-Goscribe-Token: " TOKEN "\r\nContent-Length: %zu\r\n\r\n%s",
             strlen(body), body);
    http(&f, req, &a);
    assert_int_equal(a.status, 409);
    assert_non_null(strstr(a.body, "no move 9 in the record"));
    free(a.body);
    /* while a recorder runs, the hall hands a correction to it, after
     * trying it on a copy of the file: no game can take this one (409 at
     * once, the recorder never bothered), this one it can (here the
     * recorder does not answer: 502) */
    broadcast_hall_round_recorder(f.h, 2, "http://127.0.0.1:9", "recorder-token", true, "recording");
    http(&f, req, &a);
    assert_int_equal(a.status, 409);
    assert_string_equal(a.body, "{\"error\":\"no move 9 in the record (it has 3)\"}\n");
    free(a.body);
    body = "{\"ruling\":\"result\",\"result\":\"W+T\"}";
    snprintf(req, sizeof req, "POST /board/2/api/correct HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
             "Content-Type: application/json\r\nX-Goscribe-Token: " TOKEN "\r\nContent-Length: %zu\r\n\r\n%s",
             strlen(body), body);
    http(&f, req, &a);
    assert_int_equal(a.status, 502);
    free(a.body);
    stop(&f);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_etag_and_304),
        cmocka_unit_test(test_five_minute_delay),
        cmocka_unit_test(test_sse_ids),
        cmocka_unit_test(test_correction_reaches_feed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
