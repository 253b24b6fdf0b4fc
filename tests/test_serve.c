/* tests/test_serve.c: the live broadcast server, hall and MQTT, end to end
 * over loopback sockets (no recorder needed). */
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
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static broadcast_board *start_board(const char *name, const char *mqtt)
{
    broadcast_config cfg;
    broadcast_config_init(&cfg);
    cfg.board_name = name;
    cfg.token = "test-token-123";
    cfg.mqtt = mqtt;
    gs_error err = {0};
    broadcast_board *sb = broadcast_board_start(&cfg, &err);
    if (!sb) print_message("broadcast_board_start: %s\n", err.msg);
    assert_non_null(sb);
    return sb;
}

static int req(broadcast_board *sb, const char *method, const char *path, const char *body, const char *hdr,
               char **out)
{
    char url[256], err[256];
    snprintf(url, sizeof url, "%s%s", broadcast_board_url(sb), path);
    int status = 0;
    char *o = NULL;
    int rc = broadcast_http_request(url, method, body, hdr, 5000, &status, &o, NULL, err, sizeof err);
    if (rc) print_message("%s %s: %s\n", method, path, err);
    assert_int_equal(rc, 0);
    if (out) *out = o;
    else free(o);
    return status;
}

/* Opens a raw SSE connection from the loopback address 127.0.1.SRC (0 =
 * the default 127.0.0.1): many viewers come from many machines, and one
 * address may hold only so many connections.  Returns the socket. */
static int sse_open_from(int port, int src)
{
    int fd = gs_test_connect_loopback(port, src);
    assert_true(fd >= 0);
    const char *r = "GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n";
    assert_int_equal(send(fd, r, strlen(r), MSG_NOSIGNAL), (ssize_t)strlen(r));
    return fd;
}

static int sse_open(int port) { return sse_open_from(port, 0); }

/* Reads from fd until `needle` shows up or timeout; keeps text in buf. */
static bool sse_wait_for(int fd, gs_buf *buf, const char *needle, int timeout_ms)
{
    double end = gs_now_ms() + timeout_ms;
    while (!(buf->p && strstr(buf->p, needle))) {
        double left = end - gs_now_ms();
        if (left <= 0) return false;
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, (int)left + 1) <= 0) continue;
        char tmp[4096];
        ssize_t n = recv(fd, tmp, sizeof tmp, 0);
        if (n <= 0) return false;
        gs_buf_add(buf, tmp, (size_t)n);
    }
    return true;
}

static void test_pages_and_paths(void **state)
{
    (void)state;
    broadcast_board *sb = start_board("Table 1", NULL);
    char *body = NULL;
    assert_int_equal(req(sb, "GET", "/", NULL, NULL, &body), 200);
    assert_non_null(strstr(body, "<svg id=\"board\""));
    free(body);
    assert_int_equal(req(sb, "GET", "/app.js", NULL, NULL, NULL), 200);
    assert_int_equal(req(sb, "GET", "/referee", NULL, NULL, NULL), 200);
    assert_int_equal(req(sb, "GET", "/nope", NULL, NULL, NULL), 404);
    assert_int_equal(req(sb, "GET", "/../../etc/passwd", NULL, NULL, NULL), 404);
    assert_int_equal(req(sb, "DELETE", "/state.json", NULL, NULL, NULL), 405);
    assert_int_equal(req(sb, "GET", "/game.sgf", NULL, NULL, NULL), 503);
    assert_int_equal(req(sb, "GET", "/frame.jpg", NULL, NULL, NULL), 503);

    broadcast_state s;
    broadcast_state_init(&s, 9);
    gs_position_set(&s.pos, 2, 3, GS_BLACK);
    s.move_number = 1;
    s.last_color = GS_BLACK;
    s.last_point = (gs_point){2, 3};
    s.to_move = GS_WHITE;
    snprintf(s.black, sizeof s.black, "Ann \"the <b>\"");
    broadcast_board_publish_state(sb, &s);
    assert_int_equal(req(sb, "GET", "/state.json", NULL, NULL, &body), 200);
    gs_json *j = gs_json_parse(body, strlen(body), NULL);
    assert_non_null(j);
    assert_int_equal((int)gs_json_get_num(j, "size", 0), 9);
    assert_int_equal((int)gs_json_get_num(j, "move_number", 0), 1);
    assert_string_equal(gs_json_get_str(gs_json_get(gs_json_get(j, "players"), "B"), "name", ""), "Ann \"the <b>\"");
    const char *grid = gs_json_get_str(j, "grid", "");
    assert_int_equal(strlen(grid), 81);
    assert_int_equal(grid[3 * 9 + 2], 'B');
    assert_string_equal(gs_json_get_str(gs_json_get(j, "last"), "point", ""), "cd");
    gs_json_free(j);
    free(body);

    const char *sgf = "(;GM[1]FF[4]SZ[9];B[cd])";
    broadcast_board_set_sgf(sb, sgf, strlen(sgf));
    assert_int_equal(req(sb, "GET", "/game.sgf", NULL, NULL, &body), 200);
    assert_string_equal(body, sgf);
    free(body);

    gs_image *img = gs_image_create(64, 48, 3);
    assert_non_null(img);
    vision_grid g;
    double corners[4][2] = {{8, 4}, {56, 4}, {56, 44}, {8, 44}};
    assert_int_equal(vision_grid_from_corners(&g, 9, corners, NULL), GS_OK);
    broadcast_board_publish_frame(sb, img, &g);
    gs_image_destroy(img);
    assert_int_equal(req(sb, "GET", "/frame.jpg", NULL, NULL, &body), 200);
    assert_int_equal((unsigned char)body[0], 0xff);
    assert_int_equal((unsigned char)body[1], 0xd8);
    free(body);
    broadcast_board_stop(sb);
    broadcast_board_stop(NULL);
}

static void test_referee_token_and_bad_input(void **state)
{
    (void)state;
    broadcast_board *sb = start_board("Table 2", NULL);
    gs_position before, after;
    gs_position_clear(&before, 19);
    after = before;
    gs_position_set(&after, 3, 3, GS_BLACK);
    gs_point pts[1] = {{3, 3}};
    broadcast_event ev = {"double_move", "Black played twice", GS_BLACK, 12, 1, pts, &before, &after, NULL, NULL};
    int id = broadcast_board_publish_event(sb, &ev);
    assert_true(id >= 1);
    const char *tok = "X-Goscribe-Token: test-token-123";
    char good[128];
    snprintf(good, sizeof good, "{\"event_id\":%d,\"ruling\":\"void\",\"warning\":true}", id);
    broadcast_ruling r;

    assert_int_equal(req(sb, "POST", "/api/ruling", good, NULL, NULL), 403);
    assert_int_equal(req(sb, "POST", "/api/ruling", good, "X-Goscribe-Token: wrong-token-123", NULL), 403);
    assert_int_equal(req(sb, "POST", "/api/ruling", good, "Authorization: Bearer test-token-12", NULL), 403);
    assert_int_equal(req(sb, "GET", "/api/events", NULL, NULL, NULL), 403);
    assert_int_equal(req(sb, "POST", "/api/ruling", "{\"event_id\":1,", tok, NULL), 400);
    assert_int_equal(req(sb, "POST", "/api/ruling", "[1,2]", tok, NULL), 400);
    assert_int_equal(req(sb, "POST", "/api/ruling", "{\"ruling\":\"explode\"}", tok, NULL), 400);
    assert_int_equal(req(sb, "POST", "/api/ruling", "{\"ruling\":\"warn\",\"color\":\"X\"}", tok, NULL), 400);
    assert_int_equal(req(sb, "POST", "/api/ruling", "{\"ruling\":\"warn\"}", tok, NULL), 400);
    assert_int_equal(req(sb, "POST", "/api/ruling", "{\"ruling\":\"void\",\"event_id\":999}", tok, NULL), 404);
    assert_int_equal(req(sb, "POST", "/api/ruling", "{\"ruling\":\"void\",\"points\":[\"zzz\"]}", tok, NULL), 400);
    assert_int_equal(req(sb, "GET", "/api/ruling", NULL, tok, NULL), 405);
    char *huge = malloc(100001);
    assert_non_null(huge);
    memset(huge, ' ', 100000);
    huge[0] = '{';
    huge[99999] = '}';
    huge[100000] = '\0';
    assert_int_equal(req(sb, "POST", "/api/ruling", huge, tok, NULL), 413);
    free(huge);
    assert_false(broadcast_board_poll_ruling(sb, &r));

    char *body = NULL;
    /* the token never in the URL (histories, logs, Referer headers) */
    assert_int_equal(req(sb, "GET", "/api/events?token=test-token-123", NULL, NULL, &body), 403);
    assert_non_null(strstr(body, "not in the URL"));
    free(body);
    assert_int_equal(req(sb, "GET", "/api/evidence/1/before.jpg?token=test-token-123", NULL, NULL, NULL), 403);
    assert_int_equal(req(sb, "GET", "/api/events", NULL, tok, &body), 200);
    assert_non_null(strstr(body, "double_move"));
    assert_non_null(strstr(body, "\"after\":\""));
    assert_non_null(strstr(body, "\"points\":[\"dd\"]"));
    free(body);

    assert_int_equal(req(sb, "POST", "/api/ruling", good, tok, NULL), 200);
    assert_true(broadcast_board_poll_ruling(sb, &r));
    assert_int_equal(r.kind, RECORD_RULING_VOID);
    assert_int_equal(r.event_id, id);
    assert_int_equal(r.color, GS_BLACK);   /* taken from the event */
    assert_true(r.warning);
    assert_int_equal(r.warnings_black, 1);
    assert_int_equal(r.loser, GS_EMPTY);
    assert_true(r.unix_ms > 0);
    assert_false(broadcast_board_poll_ruling(sb, &r));
    char words[300];
    broadcast_ruling_describe(&r, words, sizeof words);
    assert_non_null(strstr(words, "warning to Black (warning 1)"));

    /* the second warning loses the game */
    assert_int_equal(req(sb, "POST", "/api/ruling", "{\"ruling\":\"warn\",\"color\":\"B\",\"note\":\"clock\"}",
                         "Authorization: Bearer test-token-123", NULL), 200);
    assert_true(broadcast_board_poll_ruling(sb, &r));
    assert_int_equal(r.kind, RECORD_RULING_WARN);
    assert_int_equal(r.warnings_black, 2);
    assert_int_equal(r.loser, GS_BLACK);
    assert_string_equal(r.note, "clock");
    broadcast_board_stop(sb);
}

static void test_sse_stream(void **state)
{
    (void)state;
    broadcast_board *sb = start_board("Table 3", NULL);
    broadcast_state s;
    broadcast_state_init(&s, 19);
    broadcast_board_publish_state(sb, &s);
    int fd = sse_open(broadcast_board_port(sb));
    gs_buf buf = {0};
    assert_true(sse_wait_for(fd, &buf, "\"type\":\"state\"", 5000));
    for (int i = 1; i <= 5; i++) {
        gs_position_set(&s.pos, i, i, i % 2 ? GS_BLACK : GS_WHITE);
        s.move_number = i;
        s.last_color = i % 2 ? GS_BLACK : GS_WHITE;
        s.last_point = (gs_point){(int8_t)i, (int8_t)i};
        broadcast_board_publish_state(sb, &s);
        broadcast_board_publish_state(sb, &s); /* unchanged: no message */
    }
    broadcast_event ev = {"ko", "retook the ko", GS_WHITE, 6, 0, NULL, NULL, NULL, NULL, NULL};
    broadcast_board_publish_event(sb, &ev);
    assert_true(sse_wait_for(fd, &buf, "retook the ko", 5000));
    const char *moves[] = {"\"point\":\"bb\"", "\"point\":\"cc\"", "\"point\":\"dd\"", "\"point\":\"ee\"", "\"point\":\"ff\""};
    const char *prev = buf.p;
    for (int i = 0; i < 5; i++) {
        const char *m = strstr(prev, moves[i]);
        assert_non_null(m);  /* in order */
        prev = m;
    }
    broadcast_stats st;
    broadcast_board_stats(sb, &st);
    assert_int_equal(st.viewers, 1);
    assert_int_equal(st.messages, 12); /* first state, 5 x (move + state), event */
    close(fd);
    gs_buf_free(&buf);
    broadcast_board_stop(sb);
}

/* Many SSE viewers, some never reading, while the publisher runs flat out:
 * publishing must stay non-blocking and reading viewers must get the end. */
typedef struct viewers_ctx {
    int *fds;
    int n;
    int got_end;
    volatile int stop;
    double lat_sum, lat_max;   /* event latency publish -> viewer, ms */
    long lat_n;
} viewers_ctx;

static void *viewers_main(void *arg)
{
    viewers_ctx *v = arg;
    struct pollfd *p = calloc((size_t)v->n, sizeof *p);
    char (*tail)[32] = calloc((size_t)v->n, 32);
    bool *done = calloc((size_t)v->n, sizeof *done);
    for (int i = 0; i < v->n; i++) p[i] = (struct pollfd){v->fds[i], POLLIN, 0};
    double end = gs_now_ms() + 30000;
    while (!v->stop && v->got_end < v->n / 2 && gs_now_ms() < end) {
        if (poll(p, (nfds_t)v->n, 100) <= 0) continue;
        for (int i = 0; i < v->n; i++) {
            if (!(p[i].revents & POLLIN) || i % 2) continue;  /* odd viewers never read */
            char tmp[8192 + 32];
            size_t keep = strlen(tail[i]);
            memcpy(tmp, tail[i], keep);
            ssize_t n = recv(p[i].fd, tmp + keep, 8192, 0);
            if (n <= 0) { p[i].fd = -1; continue; }
            tmp[keep + (size_t)n] = '\0';
            if (!done[i] && strstr(tmp, "THE-END")) { done[i] = true; v->got_end++; }
            for (const char *q = strstr(tmp, "\"text\":\"t="); q; q = strstr(q + 1, "\"text\":\"t=")) {
                double lat = gs_now_ms() - strtod(q + 13, NULL);
                v->lat_sum += lat;
                v->lat_n++;
                if (lat > v->lat_max) v->lat_max = lat;
            }
            size_t len = keep + (size_t)n, t = len < 31 ? len : 31;
            memcpy(tail[i], tmp + len - t, t);
            tail[i][t] = '\0';
        }
    }
    free(p);
    free(tail);
    free(done);
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void test_many_viewers_never_block(void **state)
{
    (void)state;
    const char *nv = getenv("GS_SERVE_LOAD_VIEWERS");
    int nviewers = nv && atoi(nv) >= 2 ? atoi(nv) : gs_test_sanitized() ? 40 : 200;
    broadcast_board *sb = start_board("Table 4", NULL);
    viewers_ctx v = {.fds = calloc((size_t)nviewers, sizeof(int)), .n = nviewers};
    for (int i = 0; i < nviewers; i++) v.fds[i] = sse_open_from(broadcast_board_port(sb), 1 + i % 100);
    double t0 = gs_now_ms();
    for (;;) {
        broadcast_stats st;
        broadcast_board_stats(sb, &st);
        if (st.viewers == nviewers || gs_now_ms() - t0 > 20000) break;
        usleep(20000);
    }
    broadcast_stats st;
    broadcast_board_stats(sb, &st);
    assert_int_equal(st.viewers, nviewers);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, viewers_main, &v), 0);
    broadcast_state s;
    broadcast_state_init(&s, 19);
    double worst = 0;
    /* scripts/load-serve.sh sets GS_SERVE_LOAD_SECONDS for a longer run */
    const char *secs = getenv("GS_SERVE_LOAD_SECONDS");
    int frames = secs ? atoi(secs) * 30 : gs_test_sanitized() ? 60 : 90;
    if (frames < 30) frames = 30;
    gs_image *frame = gs_image_create(1280, 720, 3);
    assert_non_null(frame);
    double *calls = calloc((size_t)frames, sizeof *calls);
    assert_non_null(calls);
    double next = gs_now_ms(), loop0 = next;
    for (int i = 0; i < frames; i++) {
        /* a recorder's frame loop at 30 frames/s: state (a move every
         * frame, the worst case), the camera frame, an event every 10th */
        next += 1000.0 / 30.0;
        double wait = next - gs_now_ms();
        if (wait > 0) usleep((useconds_t)(wait * 1000));
        double c0 = gs_now_ms();
        broadcast_board_publish_frame(sb, frame, NULL);
        if (i % 10 == 5) {
            char msg[48];
            snprintf(msg, sizeof msg, "t=%.3f", gs_now_ms());
            broadcast_event le = {"note", msg, GS_EMPTY, i, 0, NULL, NULL, NULL, NULL, NULL};
            broadcast_board_publish_event(sb, &le);
        }
        calls[i] = gs_now_ms() - c0;
        s.move_number = i + 1;
        s.last_color = i % 2 ? GS_WHITE : GS_BLACK;
        s.last_point = (gs_point){(int8_t)(i % 19), (int8_t)((i / 19) % 19)};
        double a = gs_now_ms();
        broadcast_board_publish_state(sb, &s);
        double d = gs_now_ms() - a;
        calls[i] += d;
        if (calls[i] > worst) worst = calls[i];
    }
    double loop_ms = gs_now_ms() - loop0;
    broadcast_event ev = {"note", "THE-END", GS_EMPTY, 0, 0, NULL, NULL, NULL, NULL, NULL};
    broadcast_board_publish_event(sb, &ev);
    pthread_join(th, NULL);
    qsort(calls, (size_t)frames, sizeof *calls, cmp_double);
    print_message("%d viewers on /events (half never reading), %d frames in %.1f s = %.1f frames/s; "
                  "publish calls per frame: median %.3f ms, p99 %.3f ms, max %.2f ms; "
                  "event latency to reading viewers: mean %.2f ms, max %.2f ms (%ld deliveries); "
                  "%d/%d reading viewers got the last event\n",
                  nviewers, frames, loop_ms / 1000, frames * 1000.0 / loop_ms, calls[frames / 2],
                  calls[frames * 99 / 100], worst, v.lat_n ? v.lat_sum / (double)v.lat_n : 0.0, v.lat_max,
                  v.lat_n, v.got_end, nviewers / 2);
    free(calls);
    gs_image_destroy(frame);
    assert_int_equal(v.got_end, nviewers / 2);
    /* a publisher that waited on the non-reading viewers would never come
     * back; the bound is generous because the machine may be loaded */
    assert_true(worst < 1000.0);
    broadcast_board_stats(sb, &st);
    assert_true(st.resyncs >= 0);
    for (int i = 0; i < nviewers; i++) close(v.fds[i]);
    free(v.fds);
    broadcast_board_stop(sb);
}

static bool wait_hall(broadcast_hall *h, int n, int timeout_ms)
{
    double end = gs_now_ms() + timeout_ms;
    while (broadcast_hall_board_count(h) < n && gs_now_ms() < end) usleep(50000);
    return broadcast_hall_board_count(h) >= n;
}

static void check_hall_json(broadcast_hall *h, const char *a, const char *b)
{
    char url[128], err[200], *body = NULL;
    int status = 0;
    snprintf(url, sizeof url, "http://127.0.0.1:%d/state.json", broadcast_hall_port(h));
    assert_int_equal(broadcast_http_request(url, "GET", NULL, NULL, 5000, &status, &body, NULL, err, sizeof err), 0);
    assert_int_equal(status, 200);
    gs_json *j = gs_json_parse(body, strlen(body), NULL);
    assert_non_null(j);
    const gs_json *boards = gs_json_get(j, "boards");
    assert_non_null(boards);
    assert_int_equal(boards->n, 2);
    assert_non_null(strstr(body, a));
    assert_non_null(strstr(body, b));
    gs_json_free(j);
    free(body);
}

static void publish_some(broadcast_board *sb, const char *black, int moves)
{
    broadcast_state s;
    broadcast_state_init(&s, 19);
    snprintf(s.black, sizeof s.black, "%s", black);
    s.move_number = moves;
    s.last_color = GS_BLACK;
    s.last_point = (gs_point){3, 3};
    gs_position_set(&s.pos, 3, 3, GS_BLACK);
    broadcast_board_publish_state(sb, &s);
}

static void test_hall_two_boards_http(void **state)
{
    (void)state;
    broadcast_board *a = start_board("Table A", NULL), *b = start_board("Table B", NULL);
    publish_some(a, "Alice", 7);
    publish_some(b, "Bob", 9);
    const char *urls[2] = {broadcast_board_url(a), broadcast_board_url(b)};
    broadcast_hall_config cfg;
    broadcast_hall_config_init(&cfg);
    cfg.boards = urls;
    cfg.nboards = 2;
    cfg.poll_ms = 200;
    gs_error err = {0};
    broadcast_hall *h = broadcast_hall_start(&cfg, &err);
    assert_non_null(h);
    assert_true(wait_hall(h, 2, 10000));
    check_hall_json(h, "\"B\":{\"name\":\"Alice\"", "\"B\":{\"name\":\"Bob\"");
    broadcast_hall_stop(h);

    /* a recorder announcing itself joins a hall that did not know it */
    broadcast_hall_config cfg2;
    broadcast_hall_config_init(&cfg2);
    cfg2.poll_ms = 200;
    h = broadcast_hall_start(&cfg2, &err);
    assert_non_null(h);
    char hall_url[64];
    snprintf(hall_url, sizeof hall_url, "http://127.0.0.1:%d", broadcast_hall_port(h));
    broadcast_config c;
    broadcast_config_init(&c);
    c.board_name = "Table C";
    c.announce = hall_url;
    c.announce_token = broadcast_hall_token(h);
    broadcast_board *cb = broadcast_board_start(&c, &err);
    assert_non_null(cb);
    publish_some(cb, "Carol", 3);
    assert_true(wait_hall(h, 1, 10000));
    broadcast_board_stop(cb);
    broadcast_hall_stop(h);
    broadcast_board_stop(a);
    broadcast_board_stop(b);
}

static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {0};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t l = sizeof sa;
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) || getsockname(fd, (struct sockaddr *)&sa, &l)) {
        close(fd);
        return -1;
    }
    close(fd);
    return ntohs(sa.sin_port);
}

/* Waits until the hall's state.json holds `what` within the board entry
 * that starts with `board` (the entry runs to the next "board" key). */
static bool wait_hall_body(broadcast_hall *h, const char *board, const char *what, int timeout_ms)
{
    char url[128], err[200];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/state.json", broadcast_hall_port(h));
    for (double end = gs_now_ms() + timeout_ms; gs_now_ms() < end; usleep(50000)) {
        char *body = NULL;
        int status = 0;
        if (broadcast_http_request(url, "GET", NULL, NULL, 5000, &status, &body, NULL, err, sizeof err)) continue;
        const char *at = strstr(body, board);
        const char *next = at ? strstr(at + 1, "\"board\":") : NULL;
        const char *hit = at ? strstr(at, what) : NULL;
        bool ok = hit && (!next || hit < next);
        free(body);
        if (ok) return true;
    }
    return false;
}

/* Waits until the hall lists exactly n boards (counting runs the expiry). */
static bool wait_hall_gone(broadcast_hall *h, int n, int timeout_ms)
{
    for (double end = gs_now_ms() + timeout_ms; gs_now_ms() < end; usleep(100000))
        if (broadcast_hall_board_count(h) == n) return true;
    return false;
}

/* The broker and the doomed recorder of the MQTT test: killed by the
 * teardown even when an assertion fails half-way (an orphan broker would
 * hold the test's output open). */
typedef struct mqtt_procs {
    pid_t broker, doomed;
} mqtt_procs;

static int mqtt_procs_setup(void **state)
{
    mqtt_procs *p = calloc(1, sizeof *p);
    *state = p;
    return p ? 0 : -1;
}

static int mqtt_procs_teardown(void **state)
{
    mqtt_procs *p = *state;
    if (p && p->doomed > 0 && kill(p->doomed, SIGKILL) == 0) waitpid(p->doomed, NULL, 0);
    if (p && p->broker > 0 && kill(p->broker, SIGTERM) == 0) waitpid(p->broker, NULL, 0);
    free(p);
    return 0;
}

static void test_hall_two_boards_mqtt(void **state)
{
    mqtt_procs *procs = *state;
    const char *bin = access("/usr/sbin/mosquitto", X_OK) == 0 ? "/usr/sbin/mosquitto"
                      : access("/usr/bin/mosquitto", X_OK) == 0 ? "/usr/bin/mosquitto" : NULL;
    if (!bin) {
        print_message("skipped: mosquitto binary absent (scripts/install-deps.sh installs it)\n");
        skip();
    }
    int port = free_port();
    assert_true(port > 0);
    char portstr[16], broker[32];
    snprintf(portstr, sizeof portstr, "%d", port);
    snprintf(broker, sizeof broker, "127.0.0.1:%d", port);
    char *argv[] = {(char *)bin, "-p", portstr, NULL};
    assert_int_equal(posix_spawn(&procs->broker, bin, NULL, NULL, argv, environ), 0);
    /* wait until the broker listens */
    bool up = false;
    for (int i = 0; i < 100 && !up; i++) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in sa = {0};
        sa.sin_family = AF_INET;
        sa.sin_port = htons((uint16_t)port);
        sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        up = connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
        close(fd);
        if (!up) usleep(50000);
    }
    assert_true(up);
    /* a third recorder in a process of its own, to be killed without a word */
    pid_t doomed = procs->doomed = fork();
    assert_true(doomed >= 0);
    if (doomed == 0) { /* no assertions here: a failure must not run cmocka on in the child */
        broadcast_config cfg;
        broadcast_config_init(&cfg);
        cfg.board_name = "Table M3";
        cfg.token = "test-token-123";
        cfg.mqtt = broker;
        broadcast_board *c = broadcast_board_start(&cfg, NULL);
        if (!c) _exit(1);
        publish_some(c, "Kai", 5);
        for (;;) pause();
    }
    broadcast_board *a = start_board("Table M1", broker), *b = start_board("Table M2", broker);
    publish_some(a, "Mia", 11);
    publish_some(b, "Max", 13);
    broadcast_hall_config cfg;
    broadcast_hall_config_init(&cfg);
    cfg.mqtt = broker;
    cfg.poll_ms = 200;
    cfg.announce_ttl_ms = 1500;
    gs_error err = {0};
    broadcast_hall *h = broadcast_hall_start(&cfg, &err);
    if (!h) print_message("hall: %s\n", err.msg);
    assert_non_null(h);
    assert_true(wait_hall(h, 3, 10000));
    /* killed: the broker's last will says so, the hall shows it offline,
     * then it leaves */
    kill(doomed, SIGKILL);
    waitpid(doomed, NULL, 0);
    procs->doomed = 0;
    assert_true(wait_hall_body(h, "\"board\":\"Table M3\"", "its recorder has left the MQTT broker", 10000));
    assert_true(wait_hall_gone(h, 2, 10000));
    double end = gs_now_ms() + 5000;
    char url[128], e2[200], *body = NULL;
    int status;
    snprintf(url, sizeof url, "http://127.0.0.1:%d/state.json", broadcast_hall_port(h));
    /* retained "waiting" states come first; the published moves follow */
    for (;;) {
        free(body);
        body = NULL;
        assert_int_equal(broadcast_http_request(url, "GET", NULL, NULL, 5000, &status, &body, NULL, e2, sizeof e2), 0);
        if ((strstr(body, "\"B\":{\"name\":\"Mia\"") && strstr(body, "\"B\":{\"name\":\"Max\"")) || gs_now_ms() > end) break;
        usleep(50000);
    }
    free(body);
    check_hall_json(h, "\"B\":{\"name\":\"Mia\"", "\"B\":{\"name\":\"Max\"");
    assert_non_null(strstr(url, "state.json"));
    /* stopped cleanly: offline too (no will then: the recorder says it) */
    broadcast_board_stop(a);
    assert_true(wait_hall_body(h, "\"board\":\"Table M1\"", "its recorder has left the MQTT broker", 10000));
    assert_true(wait_hall_gone(h, 1, 10000));
    broadcast_hall_stop(h);
    broadcast_board_stop(b);
}

/* A board behind a hall that delays the broadcast: only the console's page
 * (and its script and style) is open; the rest needs the token, which the
 * console sends in its header. */
static void test_private_pages(void **state)
{
    (void)state;
    broadcast_config cfg;
    broadcast_config_init(&cfg);
    cfg.board_name = "Table P";
    cfg.token = "test-token-123";
    cfg.private_pages = true;
    gs_error err = {0};
    broadcast_board *sb = broadcast_board_start(&cfg, &err);
    assert_non_null(sb);
    broadcast_state s;
    broadcast_state_init(&s, 9);
    s.move_number = 1;
    broadcast_board_publish_state(sb, &s);
    broadcast_board_set_sgf(sb, "(;SZ[9];B[ee])", 14);
    static const char *const closed[] = {"/", "/state.json", "/game.sgf", "/events", "/frame.jpg"};
    for (size_t i = 0; i < sizeof closed / sizeof closed[0]; i++)
        assert_int_equal(req(sb, "GET", closed[i], NULL, NULL, NULL), 403);
    assert_int_equal(req(sb, "GET", "/referee", NULL, NULL, NULL), 200);
    assert_int_equal(req(sb, "GET", "/app.js", NULL, NULL, NULL), 200);
    assert_int_equal(req(sb, "GET", "/state.json", NULL, "X-Goscribe-Token: test-token-123", NULL), 200);
    assert_int_equal(req(sb, "GET", "/game.sgf", NULL, "X-Goscribe-Token: test-token-123", NULL), 200);
    assert_int_equal(req(sb, "GET", "/api/events", NULL, "X-Goscribe-Token: test-token-123", NULL), 200);
    broadcast_board_stop(sb);
}

static void test_json_reader(void **state)
{
    (void)state;
    const char *bad[] = {"", "{", "{\"a\":}", "[1,]", "01", "\"\\x\"", "{\"a\":1} x", "nul", "[\"a\n\"]", "1e", "-"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gs_error err;
        gs_json *j = gs_json_parse(bad[i], strlen(bad[i]), &err);
        assert_null(j);
    }
    char deep[200];
    memset(deep, '[', sizeof deep);
    assert_null(gs_json_parse(deep, sizeof deep, NULL));
    const char *good = "{\"s\":\"a\\u00e9\\n\\\"\",\"n\":-1.5e2,\"t\":true,\"z\":null,\"a\":[1,{\"b\":[]}]}";
    gs_json *j = gs_json_parse(good, strlen(good), NULL);
    assert_non_null(j);
    assert_string_equal(gs_json_get_str(j, "s", ""), "a\xc3\xa9\n\"");
    assert_true(gs_json_get_num(j, "n", 0) == -150.0);
    assert_int_equal(gs_json_get(j, "a")->n, 2);
    gs_json_free(j);
}

/* The state JSON, byte for byte (the vocabulary of doc/json.md); the
 * clock (server_unix_ms) reads N in `want`. */
static void assert_state_json(const broadcast_state *s, const char *name, const char *id, const char *url,
                              const char *want)
{
    gs_buf b = {0};
    broadcast_state_json(&b, s, name, id, url);
    assert_true(gs_buf_ok(&b));
    char *clock = strstr(b.p, "\"server_unix_ms\":");
    assert_non_null(clock);
    char *digits = clock + strlen("\"server_unix_ms\":");
    size_t nd = strspn(digits, "0123456789");
    assert_true(nd >= 10);
    memmove(digits + 1, digits + nd, strlen(digits + nd) + 1);
    digits[0] = 'N';
    assert_string_equal(b.p, want);
    gs_buf_free(&b);
}

static void test_state_json_bytes(void **state)
{
    (void)state;
    broadcast_state s;
    broadcast_state_init(&s, 9);
    gs_position_set(&s.pos, 2, 3, GS_BLACK);
    gs_position_set(&s.pos, 4, 4, GS_WHITE);
    s.move_number = 2;
    s.captures_white = 1;
    s.last_color = GS_WHITE;
    s.last_point = (gs_point){4, 4};
    s.last_move_unix_ms = 1700000000123;
    s.komi = 6.5;
    snprintf(s.black, sizeof s.black, "Ann \"<b>\"");
    snprintf(s.black_rank, sizeof s.black_rank, "3d");
    snprintf(s.table, sizeof s.table, "7");
    snprintf(s.result, sizeof s.result, "W+R");
    s.warnings_black = 1;
    s.warnings_white = 2;
    assert_state_json(&s, "Table\t1", "table-1", "http://h:1",
                      "{\"type\":\"state\",\"board\":\"Table\\u00091\",\"board_id\":\"table-1\",\"url\":\"http://h:1\","
                      "\"size\":9,\"grid\":\".............................B..........W......................."
                      ".................\",\"move_number\":2,\"to_move\":\"B\",\"captures\":{\"B\":0,\"W\":1},"
                      "\"warnings\":{\"B\":1,\"W\":2},\"komi\":6.5,\"last\":{\"color\":\"W\",\"point\":\"ee\","
                      "\"pass\":false,\"unix_ms\":1700000000123},\"players\":{\"B\":{\"name\":\"Ann \\\"\\u003cb>\\\"\","
                      "\"rank\":\"3d\"},\"W\":{\"name\":\"\",\"rank\":\"\"}},\"event\":\"\",\"round\":\"\",\"table\":\"7\","
                      "\"result\":\"W+R\",\"status\":\"playing\",\"not_saved\":\"\",\"server_unix_ms\":N}");
    /* a size out of range shows an empty 19x19 board; a pass has no point */
    broadcast_state w;
    broadcast_state_init(&w, 3);
    w.last_color = GS_BLACK;
    w.last_pass = true;
    w.status[0] = '\0';
    char want[1024];
    char empty[19 * 19 + 1];
    memset(empty, '.', 19 * 19);
    empty[19 * 19] = '\0';
    snprintf(want, sizeof want,
             "{\"type\":\"state\",\"board\":\"\",\"board_id\":\"\",\"url\":\"\",\"size\":19,\"grid\":\"%s\","
             "\"move_number\":0,\"to_move\":\"B\",\"captures\":{\"B\":0,\"W\":0},\"warnings\":{\"B\":0,\"W\":0},"
             "\"komi\":0,\"last\":{\"color\":\"B\",\"point\":\"\",\"pass\":true,\"unix_ms\":0},\"players\":{\"B\":"
             "{\"name\":\"\",\"rank\":\"\"},\"W\":{\"name\":\"\",\"rank\":\"\"}},\"event\":\"\",\"round\":\"\",\"table\":\"\","
             "\"result\":\"\",\"status\":\"playing\",\"not_saved\":\"\",\"server_unix_ms\":N}", empty);
    assert_state_json(&w, "", "", "", want);
}

/* The frame overlay draws what the sampled dots always drew: the
 * reference here is the loop broadcast/board.c had before it used
 * gs_draw_square. */
static void reference_grid(gs_image *img, const vision_grid *g, int r)
{
    int steps = (g->size - 1) * 24;
    for (int line = 0; line < g->size; line++)
        for (int i = 0; i <= steps; i++)
            for (int dir = 0; dir < 2; dir++) {
                double t = (double)(g->size - 1) * i / steps, x, y;
                if (dir) vision_grid_map(g, t, line, &x, &y);
                else vision_grid_map(g, line, t, &x, &y);
                for (int dy = -r; dy <= r; dy++)
                    for (int dx = -r; dx <= r; dx++) {
                        int px = (int)(x + 0.5) + dx, py = (int)(y + 0.5) + dy;
                        if (px < 0 || py < 0 || px >= img->width || py >= img->height) continue;
                        uint8_t *p = img->buf + (size_t)py * (size_t)img->stride + (size_t)px * 3;
                        p[0] = 0;
                        p[1] = 230;
                        p[2] = 0;
                    }
            }
}

static void test_grid_overlay(void **state)
{
    (void)state;
    const double corners[][4][2] = {{{8, 4}, {56, 4}, {56, 44}, {8, 44}},
                                    {{-20, 3}, {70, -9}, {61, 52}, {2.5, 40.5}}};
    for (int k = 0; k < 2; k++)
        for (int r = 0; r <= 1; r++) {
            gs_image *a = gs_image_create(64, 48, 3), *b = gs_image_create(64, 48, 3);
            assert_true(a && b);
            vision_grid g;
            assert_int_equal(vision_grid_from_corners(&g, k ? 13 : 9, corners[k], NULL), GS_OK);
            if (k) {
                g.k1 = -0.06;
                g.cx = 30;
                g.cy = 25;
                g.norm = 32;
            }
            reference_grid(a, &g, r);
            vision_grid_draw(b, &g, 24, r, (gs_bgr){0, 230, 0});
            for (int y = 0; y < 48; y++)
                assert_memory_equal(a->buf + (size_t)y * a->stride, b->buf + (size_t)y * b->stride, 64 * 3);
            gs_image_destroy(a);
            gs_image_destroy(b);
        }
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    /* scripts/load-serve.sh runs one test: GS_SERVE_TEST=test_many_viewers* */
    if (getenv("GS_SERVE_TEST")) cmocka_set_test_filter(getenv("GS_SERVE_TEST"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_reader),
        cmocka_unit_test(test_state_json_bytes),
        cmocka_unit_test(test_grid_overlay),
        cmocka_unit_test(test_pages_and_paths),
        cmocka_unit_test(test_private_pages),
        cmocka_unit_test(test_referee_token_and_bad_input),
        cmocka_unit_test(test_sse_stream),
        cmocka_unit_test(test_many_viewers_never_block),
        cmocka_unit_test(test_hall_two_boards_http),
        cmocka_unit_test_setup_teardown(test_hall_two_boards_mqtt, mqtt_procs_setup, mqtt_procs_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
