/* tests/drivers/serve_driver.c: a stand-in recorder for the browser test
 * (tests/browser_serve.sh).  It starts broadcast_board on a loopback port,
 * prints "url URL" and "token TOKEN" on stdout, then publishes a scripted
 * game the way `goscribe record --serve` does: positions move by move at a
 * recording's pace, camera frames, an SGF kept up to date with
 * broadcast_board_set_sgf(), one seeded violation (Black plays twice in a row:
 * a "double_move" event with before/after positions), and every ruling the
 * referee makes written into the SGF as a comment on the last node.
 *
 * The story, driven by lines on stdin so the test knows what to expect:
 *   (start, or "go" with --wait-go)  13 moves, one every --interval-ms;
 *   "violate"  Black puts a second stone down: the position with it is
 *              published as move 14 and flagged as a double_move event;
 *   a "void" ruling on that event  the stone goes (move 13 again) and
 *              White plays move 14 instead, as the referee ordered;
 *   "unfinished"  the recording ends before the game does (a video that
 *              simply ends): the state says so, no result, nobody to play;
 *   "quit" (or stdin EOF, or --timeout seconds)  stops cleanly.
 * Lines printed on stdout (flushed at once) tell the test what happened:
 *   url http://127.0.0.1:PORT / token T / move N / done / event ID /
 *   ruling ID KIND TEXT / voided. */
#include "broadcast/broadcast.h"
#include "sgf/sgf.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The scripted game: no stone ever touches one of the other colour, so no
 * capture happens and every stone stays on the board.  Fits a 9x9 board. */
static const char *const script[] = {"cc", "cg", "gc", "gg", "ec", "eg", "ce",
                                     "ge", "dc", "dg", "fc", "fg", "ee", "hh"};
/* The last scripted move is White's, played once the violation is voided. */
#define SCRIPT_MOVES ((int)(sizeof script / sizeof script[0]) - 1)
/* Black's second stone in a row after the script: the seeded violation. */
static const char *const violation_point = "ed";

typedef struct driver {
    broadcast_board *sb;
    sgf_tree *tree;
    sgf_node *last;
    broadcast_state st;
    broadcast_state before_violation;
    int size;
    int violation_id;   /* event id of the double move, 0 = none yet */
    bool void_pending;  /* the referee voided it: undo, then White plays */
} driver;

/* One progress line for the test, flushed at once (stdout is a pipe). */
static void say(const char *what, int n)
{
    if (n) printf("%s %d\n", what, n);
    else printf("%s\n", what);
    fflush(stdout);
}

static void publish_sgf(driver *d)
{
    char *text = NULL;
    size_t len = 0;
    gs_error err = {0};
    if (sgf_write(d->tree, &text, &len, &err) == GS_OK) broadcast_board_set_sgf(d->sb, text, len);
    else fprintf(stderr, "serve_driver: sgf_write: %s\n", err.msg);
    free(text);
}

/* A plain synthetic camera frame: wood colour with darker grid lines, so
 * /frame.jpg has something to show. */
static gs_image *make_frame(int size)
{
    gs_image *img = gs_image_create(320, 240, 3);
    if (!img) return NULL;
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++) {
            uint8_t *p = img->buf + (size_t)y * (size_t)img->stride + (size_t)x * 3;
            bool line = (x - 40) % (240 / size) == 0 || y % (240 / size) == 0;
            p[0] = line ? 40 : 92;  /* BGR */
            p[1] = line ? 60 : 179;
            p[2] = line ? 80 : 220;
        }
    return img;
}

static bool play(driver *d, int i)
{
    gs_point pt = {(int8_t)(script[i][0] - 'a'), (int8_t)(script[i][1] - 'a')};
    gs_color c = i % 2 == 0 ? GS_BLACK : GS_WHITE;
    int64_t now = gs_wall_ms();
    gs_error err = {0};
    sgf_node *n = sgf_add_move(d->last, c, pt, false, now, &err);
    if (!n) {
        fprintf(stderr, "serve_driver: sgf_add_move: %s\n", err.msg);
        return false;
    }
    d->last = n;
    gs_position_set(&d->st.pos, pt.x, pt.y, c);
    d->st.move_number = i + 1;
    d->st.to_move = gs_color_other(c);
    d->st.last_color = c;
    d->st.last_point = pt;
    d->st.last_pass = false;
    d->st.last_move_unix_ms = now;
    publish_sgf(d);  /* the recorder saves, then tells the server */
    broadcast_board_publish_state(d->sb, &d->st);
    say("move", i + 1);
    return true;
}

static bool seed_violation(driver *d)
{
    gs_point pt = {(int8_t)(violation_point[0] - 'a'), (int8_t)(violation_point[1] - 'a')};
    gs_position after = d->st.pos;
    gs_position_set(&after, pt.x, pt.y, GS_BLACK);
    /* what the camera sees goes out at once; the record waits for the
     * referee, so the SGF only gets the event */
    d->before_violation = d->st;
    d->st.pos = after;
    d->st.move_number++;
    d->st.last_point = pt;
    d->st.last_move_unix_ms = gs_wall_ms();
    broadcast_board_publish_state(d->sb, &d->st);
    char words[160], detail[8];
    snprintf(words, sizeof words, "Black played twice in a row (moves %d and %d) with no pass announced",
             d->st.move_number - 1, d->st.move_number);
    snprintf(detail, sizeof detail, "B:%s", violation_point);
    gs_error err = {0};
    if (sgf_add_event(d->last, "double_move", detail, words, &err) != GS_OK) {
        fprintf(stderr, "serve_driver: sgf_add_event: %s\n", err.msg);
        return false;
    }
    publish_sgf(d);
    broadcast_event ev = {.code = "double_move", .message = words, .color = GS_BLACK,
                      .move_number = d->st.move_number, .npoints = 1, .points = &pt,
                      .before = &d->before_violation.pos, .after = &after};
    gs_image *fb = make_frame(d->size);
    ev.frame_before = ev.frame_after = fb;
    int id = broadcast_board_publish_event(d->sb, &ev);
    gs_image_destroy(fb);
    if (id <= 0) return false;
    d->violation_id = id;
    say("event", id);
    return true;
}

/* What the recorder does with each ruling: a comment in the record. */
static bool take_rulings(driver *d)
{
    broadcast_ruling r;
    while (broadcast_board_poll_ruling(d->sb, &r)) {
        char words[400];
        broadcast_ruling_describe(&r, words, sizeof words);
        gs_error err = {0};
        if (sgf_append_comment(d->last, words, &err) != GS_OK) {
            fprintf(stderr, "serve_driver: sgf_append_comment: %s\n", err.msg);
            return false;
        }
        publish_sgf(d);
        printf("ruling %d %s %s\n", r.id, record_ruling_name(r.kind), words);
        fflush(stdout);
        /* the record's warnings go out with the next state, as a recorder's do */
        d->st.warnings_black = r.warnings_black;
        d->st.warnings_white = r.warnings_white;
        broadcast_board_publish_state(d->sb, &d->st);
        if (r.event_id && r.event_id == d->violation_id && r.kind == RECORD_RULING_VOID) d->void_pending = true;
    }
    return true;
}

static void usage(void)
{
    fprintf(stderr, "usage: serve_driver [--name NAME] [--size N] [--token T] [--interval-ms MS]\n"
                    "                    [--timeout S] [--wait-go]   (stdin: go, violate, quit)\n");
}

int main(int argc, char **argv)
{
    const char *name = "Table 1", *token = NULL;
    int size = 19, interval = 150, timeout_s = 120;
    bool wait_go = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool v = i + 1 < argc;
        if (!strcmp(a, "--name") && v) name = argv[++i];
        else if (!strcmp(a, "--token") && v) token = argv[++i];
        else if (!strcmp(a, "--size") && v) size = atoi(argv[++i]);
        else if (!strcmp(a, "--interval-ms") && v) interval = atoi(argv[++i]);
        else if (!strcmp(a, "--timeout") && v) timeout_s = atoi(argv[++i]);
        else if (!strcmp(a, "--wait-go")) wait_go = true;
        else {
            usage();
            return 1;
        }
    }
    if (size < 9 || size > GS_MAX_SIZE || interval < 10 || timeout_s < 1) {
        usage();
        return 1;
    }

    driver d = {0};
    d.size = size;
    broadcast_config cfg;
    broadcast_config_init(&cfg);
    cfg.board_name = name;
    cfg.token = token;
    gs_error err = {0};
    d.sb = broadcast_board_start(&cfg, &err);
    if (!d.sb) {
        fprintf(stderr, "serve_driver: %s\n", err.msg);
        return 1;
    }
    sgf_game_info info;
    sgf_game_info_init(&info);
    info.size = size;
    info.komi = 7.5;
    info.has_komi = true;
    snprintf(info.black, sizeof info.black, "Black of %s", name);
    snprintf(info.white, sizeof info.white, "White of %s", name);
    sgf_node *root = NULL;
    d.tree = sgf_new_game(&info, NULL, &root, &err);
    if (!d.tree) {
        fprintf(stderr, "serve_driver: %s\n", err.msg);
        broadcast_board_stop(d.sb);
        return 1;
    }
    d.last = root;
    broadcast_state_init(&d.st, size);
    d.st.komi = 7.5;
    snprintf(d.st.black, sizeof d.st.black, "%.60s", info.black);
    snprintf(d.st.white, sizeof d.st.white, "%.60s", info.white);
    snprintf(d.st.status, sizeof d.st.status, "%s", wait_go ? "waiting" : "playing");
    broadcast_board_publish_state(d.sb, &d.st);
    publish_sgf(&d);

    printf("url %s\ntoken %s\n", broadcast_board_url(d.sb), broadcast_board_token(d.sb));
    fflush(stdout);

    gs_image *frame = make_frame(size);
    int64_t start = gs_wall_ms(), next = wait_go ? INT64_MAX : start;
    int played = 0;
    bool violate = false, ok = true, said_done = false;
    char line[256];
    size_t used = 0;
    while (ok) {
        int64_t now = gs_wall_ms();
        if (now - start > (int64_t)timeout_s * 1000) {
            fprintf(stderr, "serve_driver: timeout after %d s\n", timeout_s);
            break;
        }
        if (now >= next) {
            if (played < SCRIPT_MOVES) {
                if (played == 0) snprintf(d.st.status, sizeof d.st.status, "playing");
                ok = play(&d, played++);
                next = now + interval;
            } else if (!said_done) {
                say("done", 0);
                said_done = true;
            } else if (violate && !d.violation_id) {
                ok = seed_violation(&d);
            }
        }
        if (frame) broadcast_board_publish_frame(d.sb, frame, NULL);
        if (ok) ok = take_rulings(&d);
        if (ok && d.void_pending) {
            /* the stone is taken off, then White plays where White wanted */
            d.void_pending = false;
            int wb = d.st.warnings_black, ww = d.st.warnings_white;
            d.st = d.before_violation;
            d.st.warnings_black = wb;
            d.st.warnings_white = ww;
            broadcast_board_publish_state(d.sb, &d.st);
            say("voided", 0);
            ok = play(&d, SCRIPT_MOVES);
        }

        /* wait for stdin or the next 50 ms tick */
        struct pollfd pfd = {.fd = 0, .events = POLLIN};
        int pr = poll(&pfd, 1, 50);
        if (pr < 0 && errno != EINTR) break;
        if (pr > 0) {
            ssize_t got = read(0, line + used, sizeof line - 1 - used);
            if (got <= 0) break;  /* EOF: whoever started us is gone */
            used += (size_t)got;
            line[used] = '\0';
            char *nl;
            bool quit = false;
            while ((nl = strchr(line, '\n'))) {
                *nl = '\0';
                if (!strcmp(line, "go") && next == INT64_MAX) next = gs_wall_ms();
                else if (!strcmp(line, "violate")) violate = true;
                else if (!strcmp(line, "quit")) quit = true;
                else if (!strcmp(line, "unfinished")) {
                    /* as broadcast/live.c publishes a record finished without an end */
                    snprintf(d.st.status, sizeof d.st.status, "unfinished");
                    d.st.to_move = GS_EMPTY;
                    broadcast_board_publish_state(d.sb, &d.st);
                    say("unfinished", 0);
                }
                used -= (size_t)(nl + 1 - line);
                memmove(line, nl + 1, used + 1);
            }
            if (used >= sizeof line - 1) used = 0;  /* overlong line: drop */
            if (quit) break;
        }
    }
    gs_image_destroy(frame);
    broadcast_board_stop(d.sb);
    sgf_tree_destroy(d.tree);
    return ok ? 0 : 1;
}
