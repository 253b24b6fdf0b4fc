/* tests/test_gtp.c: the GTP engine (gtp/) on a board the test plays:
 * ASCII boards shown to a real recorder one view at a time while the
 * engine waits, GTP lines in, responses out.  The protocol's framing, every
 * malformed command an error and never a crash, genmove and play
 * following the record (a misplaced stone answered and noted), passes and
 * resignations, the count, loadsgf; then gtp_serve itself on rendered
 * frames through a pipe. */
#include "testutil.h"

#include "gtp/gtp.h"
#include "record/record.h"
#include "session/session.h"
#include "samples/render.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------ the scene */

/* The camera and the recording loop, played by the test: whenever the
 * engine waits (its interrupted callback) the commands it queued are
 * applied to the record as the loop would, then the next view is shown. */
typedef struct scene {
    record *r;
    gtp_board *b;
    gtp_engine *e;
    const char *const *views;  /* compact boards, NULL-terminated */
    int next;
    double t;
    bool interrupt_at_end;     /* no views left: interrupt the wait */
    char sgf[64];
} scene;

/* "..... ..B.. ....." : rows from the top, '.' 'B' 'W', rows apart by a
 * space. */
static gs_position board(const char *rows)
{
    gs_position p;
    int size = (int)strcspn(rows, " ");
    gs_position_clear(&p, size);
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++) {
            char ch = rows[y * (size + 1) + x];
            gs_position_set(&p, x, y, ch == 'B' ? GS_BLACK : ch == 'W' ? GS_WHITE : GS_EMPTY);
        }
    return p;
}

static void scene_changed(scene *s) { gtp_board_hooks()->changed(s->b, s->r); }

/* The engine's commands for the record, as session_run's poll hands them. */
static void scene_commands(scene *s)
{
    char line[256];
    gs_error err;
    while (gtp_board_take(s->b, line, sizeof line)) {
        size_t n = strlen(line);
        gs_color c = n && line[n - 1] == 'B' ? GS_BLACK : GS_WHITE; /* "pass B", "resign W" */
        if (!strncmp(line, "pass ", 5)) assert_int_equal(record_pass(s->r, c, s->t, &err), GS_OK);
        else if (!strncmp(line, "resign ", 7)) assert_int_equal(record_resign(s->r, c, s->t, &err), GS_OK);
        else if (!strncmp(line, "note ", 5)) assert_int_equal(record_comment(s->r, line + 5, s->t, &err), GS_OK);
        else fail_msg("unexpected command for the record: %s", line);
        scene_changed(s);
    }
}

static bool scene_show(scene *s)
{
    if (!s->views || !s->views[s->next]) return false;
    gs_position p = board(s->views[s->next++]);
    gs_error err;
    assert_int_equal(record_observe(s->r, &p, NULL, s->t, NULL, &err), GS_OK);
    s->t += 1000;
    scene_changed(s);
    return true;
}

static bool scene_interrupted(void *user)
{
    scene *s = user;
    scene_commands(s);
    if (scene_show(s)) return false;
    return s->interrupt_at_end;
}

static void scene_open(scene *s, const char *const *views, double timeout_s)
{
    memset(s, 0, sizeof *s);
    gs_error err;
    snprintf(s->sgf, sizeof s->sgf, "/tmp/gs-test-gtp-%d.sgf", (int)getpid());
    record_options ro;
    record_options_init(&ro);
    ro.sgf_path = s->sgf;
    ro.evidence_dir = "";
    ro.komi = 7;
    ro.has_komi = true;
    s->r = record_create(&ro, &err);
    s->b = gtp_board_create(&err);
    assert_non_null(s->r);
    assert_non_null(s->b);
    gtp_engine_options eo;
    gtp_engine_options_init(&eo);
    eo.move_timeout_s = timeout_s;
    eo.interrupted = scene_interrupted;
    eo.interrupt_user = s;
    s->e = gtp_engine_create(s->b, &eo, &err);
    assert_non_null(s->e);
    s->views = views;
}

static void scene_close(scene *s)
{
    gtp_engine_destroy(s->e);
    gtp_board_destroy(s->b);
    record_destroy(s->r);
    unlink(s->sgf);
}

/* ------------------------------------------------------- the responses */

/* The response to one line, checked to be one well-formed GTP response
 * ("=ID " or "?ID ", text without an empty line, an empty line at the
 * end); returned without its framing (static buffer). */
static const char *ask_id(scene *s, const char *id, const char *line)
{
    static char text[8192];
    gs_buf out = {0};
    char full[GTP_MAX_LINE + 64];
    snprintf(full, sizeof full, "%s%s%s", id, *id ? " " : "", line);
    gtp_engine_handle(s->e, full, false, &out);
    assert_true(gs_buf_ok(&out));
    assert_non_null(out.p);
    size_t idn = strlen(id);
    assert_true(out.p[0] == '=' || out.p[0] == '?');
    assert_memory_equal(out.p + 1, id, idn);
    assert_int_equal(out.p[1 + idn], ' ');
    assert_true(out.len >= idn + 4 && !strcmp(out.p + out.len - 2, "\n\n"));
    const char *empty = strstr(out.p, "\n\n");
    assert_ptr_equal(empty, out.p + out.len - 2);
    snprintf(text, sizeof text, "%c%.*s", out.p[0], (int)(out.len - idn - 4), out.p + idn + 2);
    gs_buf_free(&out);
    return text;
}

static const char *ask(scene *s, const char *line) { return ask_id(s, "", line); }

#define assert_answer(s, line, want) assert_string_equal(ask(s, line), want)
#define assert_error_with(s, line, part)                                   \
    do {                                                                   \
        const char *got_ = ask(s, line);                                   \
        assert_int_equal(got_[0], '?');                                    \
        if (!strstr(got_, part)) fail_msg("%s -> %s (wanted \"%s\")", line, got_, part); \
    } while (0)

/* ------------------------------------------------------------ protocol */

static void test_protocol(void **state)
{
    (void)state;
    scene s;
    scene_open(&s, NULL, 0.05);
    assert_answer(&s, "protocol_version", "=2");
    assert_string_equal(ask_id(&s, "17", "name"), "=goscribe");
    assert_string_equal(ask_id(&s, "0", "version"), "=" GS_VERSION);
    assert_answer(&s, "known_command genmove", "=true");
    assert_answer(&s, "known_command frobnicate", "=false");
    const char *list = ask(&s, "list_commands");
    static const char *const required[] = {"protocol_version", "name", "version", "known_command", "list_commands",
                                           "quit", "boardsize", "clear_board", "komi", "play", "genmove", "undo",
                                           "final_score", "final_status_list", "showboard", "loadsgf",
                                           "gogui-analyze_commands"};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
        char word[64];
        snprintf(word, sizeof word, "\n%s\n", required[i]);
        char padded[4096];
        snprintf(padded, sizeof padded, "\n%s\n", list + 1);
        if (!strstr(padded, word)) fail_msg("list_commands lacks %s", required[i]);
    }
    assert_string_equal(ask_id(&s, "5", "frobnicate"), "?unknown command");
    /* GTP 3.1: tabs are spaces, control characters go, comments go */
    assert_answer(&s, "known_command\tplay", "=true");
    assert_answer(&s, "proto\x01" "col_version\r", "=2");
    assert_answer(&s, "protocol_version # a comment", "=2");
    gs_buf out = {0};
    assert_false(gtp_engine_handle(s.e, "   # only a comment", false, &out));
    assert_false(gtp_engine_handle(s.e, " \t ", false, &out));
    assert_int_equal(out.len, 0); /* no response to empty lines */
    assert_false(gtp_engine_handle(s.e, "12 quit", false, &out) == false);
    assert_string_equal(out.p, "=12 \n\n");
    gs_buf_free(&out);
    scene_close(&s);
}

static void test_malformed(void **state)
{
    (void)state;
    scene s;
    scene_open(&s, NULL, 0.05);
    static const struct {
        const char *line, *part;
    } bad[] = {
        {"play", "syntax error"},           {"play b", "syntax error"},     {"play x D4", "invalid color"},
        {"play b Z99", "invalid vertex"},   {"play b D0", "invalid vertex"}, {"play b 44", "invalid vertex"},
        {"play b D+4", "invalid vertex"},   {"play b D44", "invalid vertex"}, {"genmove", "syntax error"},
        {"genmove purple", "invalid color"}, {"boardsize abc", "syntax error"}, {"boardsize 3", "unacceptable size"},
        {"boardsize 99", "unacceptable size"}, {"boardsize -1", "unacceptable size"}, {"komi x", "syntax error"},
        {"komi 1e999", "syntax error"},     {"komi", "syntax error"},      {"final_status_list", "syntax error"},
        {"final_status_list maybe", "syntax error"}, {"loadsgf", "syntax error"},
        {"loadsgf /nonexistent/x.sgf", "cannot load"}, {"loadsgf x.sgf 0", "syntax error"},
        {"undo", "cannot undo"},            {"final_score", "not been seen"}, {"showboard", "not been seen"},
        {"\x7f\x80\xff", "unknown command"}, {"12345678901234567890123 name", "unknown command"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) assert_error_with(&s, bad[i].line, bad[i].part);
    /* a line the reader cut (longer than GTP_MAX_LINE): an error, its id kept */
    gs_buf out = {0};
    gtp_engine_handle(s.e, "42 play b D4 xxxxxxxx", true, &out);
    assert_string_equal(out.p, "?42 command too long (more than 4096 bytes)\n\n");
    gs_buf_free(&out);
    /* waiting for a board that never comes: the timeout, not a hang */
    assert_error_with(&s, "genmove b", "not seen on the board in 0.05 s");
    scene_close(&s);
}

/* --------------------------------------------------------- the game */

/* Black C3, White D4, Black B2 (D4 = x 3, y 1 on 5x5), ... */
static const char *const game[] = {
    "..... ..... ..... ..... .....",
    "..... ..... ..B.. ..... .....",
    "..... ...W. ..B.. ..... .....",
    "..... ...W. ..B.. .B... .....",
    "..... ...W. ..B.. .B.W. .....",
    NULL,
};

static void test_genmove_and_play(void **state)
{
    (void)state;
    scene s;
    scene_open(&s, game, 2);
    assert_answer(&s, "boardsize 5", "=");
    assert_answer(&s, "clear_board", "=");
    assert_answer(&s, "genmove b", "=C3");        /* waited for the stone */
    assert_answer(&s, "play w D4", "=");
    assert_answer(&s, "genmove b", "=B2");
    assert_error_with(&s, "genmove b", "the board shows White D2 as move 4: it is not Black's move");
    /* the controller sends another point than the one placed */
    assert_error_with(&s, "play w E5", "the board shows White D2 as move 4, not White E5");
    scene_commands(&s);
    const record_event *ev;
    size_t n = record_events(s.r, &ev);
    assert_true(n > 0);
    assert_string_equal(ev[n - 1].code, "note");
    assert_non_null(strstr(ev[n - 1].text, "GTP play W E5 asked for move 4: the board shows White D2 instead"));
    char *sgf;
    size_t len;
    gs_error err;
    assert_int_equal(record_sgf_text(s.r, &sgf, &len, &err), GS_OK);
    assert_non_null(strstr(sgf, "GTP play W E5 asked for move 4"));
    free(sgf);
    /* the same wrong play again is answered alike but noted once */
    assert_error_with(&s, "play w E5", "not White E5");
    assert_false(gtp_board_take(s.b, (char[256]){0}, 256));
    assert_answer(&s, "play w D2", "=");
    /* undo takes the controller back; the board's moves answer again */
    assert_answer(&s, "undo", "=");
    assert_answer(&s, "undo", "=");
    assert_answer(&s, "genmove b", "=B2");
    assert_answer(&s, "play w d2", "=");
    assert_error_with(&s, "play b C3", "illegal move"); /* occupied: refused without waiting */
    /* nothing more comes: the timeout says so */
    assert_error_with(&s, "genmove b", "a move of Black not seen on the board in 2 s");
    scene_close(&s);
}

static void test_showboard_and_status(void **state)
{
    (void)state;
    scene s;
    scene_open(&s, game, 2);
    assert_answer(&s, "genmove b", "=C3");
    assert_answer(&s, "play w D4", "=");
    const char *sb = ask(&s, "showboard");
    assert_non_null(strstr(sb, "\n  5 . . . . . 5"));
    assert_non_null(strstr(sb, "\n  4 . . . O . 4"));
    assert_non_null(strstr(sb, "\n  3 . . X . . 3"));
    assert_non_null(strstr(sb, "move 2 of the 2 the record holds, Black to move"));
    const char *st = ask(&s, "goscribe-status");
    assert_non_null(strstr(st, "board: 5x5, 2 moves recorded, Black to move, komi 7"));
    assert_non_null(strstr(st, "controller: at move 2"));
    assert_non_null(strstr(ask(&s, "gogui-analyze_commands"), "gfx/goscribe: Camera view/goscribe-view"));
    assert_answer(&s, "goscribe-view", "=TEXT camera: no camera frame yet");
    assert_error_with(&s, "goscribe-frame", "no camera frame yet");
    assert_error_with(&s, "boardsize 9", "unacceptable size: the board seen is 5x5");
    scene_close(&s);
}

static const char *const opening[] = {"..... ..... ..... ..... .....", "..... ..... ..B.. ..... .....", NULL};

static void test_pass_resign_end(void **state)
{
    (void)state;
    scene s;
    scene_open(&s, opening, 2);
    assert_answer(&s, "genmove b", "=C3");
    assert_error_with(&s, "play b pass", "it is White's turn on the board");
    assert_answer(&s, "play w pass", "=");    /* handed to the record, then its move */
    assert_int_equal(record_move_count(s.r), 2);
    gs_error err;
    assert_int_equal(record_pass(s.r, GS_BLACK, s.t, &err), GS_OK); /* an operator's pass */
    scene_changed(&s);
    assert_answer(&s, "genmove b", "=pass");
    /* two passes: the game is over; genmove has nothing more to play */
    assert_answer(&s, "genmove w", "=pass");
    assert_error_with(&s, "play w D4", "the game is over");
    scene_close(&s);

    scene_open(&s, opening, 2);
    assert_answer(&s, "genmove b", "=C3");
    assert_int_equal(record_resign(s.r, GS_WHITE, s.t, &err), GS_OK);
    scene_changed(&s);
    assert_answer(&s, "genmove w", "=resign");
    assert_error_with(&s, "genmove b", "White has resigned");
    assert_answer(&s, "final_score", "=B+R");
    scene_close(&s);
}

/* White's resignation signal (two white stones put on the margin): genmove w
 * answers resign for the player and hands the resignation to the record. */
static void test_resign_signal(void **state)
{
    (void)state;
    scene s;
    scene_open(&s, opening, 2);
    assert_answer(&s, "genmove b", "=C3");
    track_margin_view m;
    memset(&m, 0, sizeof m);
    m.valid = true;
    m.n = 2;
    m.stones[0] = (track_margin_stone){GS_WHITE, TRACK_MARGIN_BOTTOM, 1.0, 5.2, false, 3};
    m.stones[1] = (track_margin_stone){GS_WHITE, TRACK_MARGIN_BOTTOM, 2.0, 5.2, false, 3};
    gs_error err;
    /* a signal is an act: the margin clear first, then the stones put
     * there and held for a few settled views */
    track_margin_view clear = m;
    clear.n = 0;
    assert_int_equal(record_margin(s.r, &clear, s.t, &err), GS_OK);
    for (int k = 0; k < 3; k++) assert_int_equal(record_margin(s.r, &m, s.t + 500.0 * (k + 1), &err), GS_OK);
    scene_changed(&s);
    assert_answer(&s, "genmove w", "=resign");
    scene_commands(&s); /* the loop takes the resignation */
    assert_string_equal(record_result(s.r), "B+R");
    assert_error_with(&s, "genmove b", "White has resigned");
    assert_answer(&s, "final_score", "=B+R");
    scene_close(&s);
}

/* Black's wall with a white stone inside its area: an estimate first,
 * then the record's own count at the end of the game. */
static const char *const dead_stone[] = {
    "..... ..... BBBBB WWWWW .....",
    "..B.. ..... BBBBB WWWWW .....",
    "..B.. ..... BBBBB WWWWW ...W.",
    "..B.. .B... BBBBB WWWWW ...W.",
    "..BW. .B... BBBBB WWWWW ...W.",
    NULL,
};

static void test_score(void **state)
{
    (void)state;
    scene s;
    scene_open(&s, dead_stone, 2);
    assert_answer(&s, "genmove b", "=C5");
    assert_answer(&s, "genmove w", "=D1");
    assert_answer(&s, "genmove b", "=B4");
    /* white's D5 sits alone in Black's area: dead by the estimate */
    assert_answer(&s, "play w D5", "=");
    assert_answer(&s, "final_status_list dead", "=D5");
    assert_answer(&s, "final_status_list seki", "=");
    const char *alive = ask(&s, "final_status_list alive");
    assert_non_null(strstr(alive, "A3 B3 C3 D3 E3"));
    assert_non_null(strstr(alive, "C5"));
    assert_null(strstr(alive, "D5"));
    /* Black's 15 points against White's 10, komi 7: W+2 */
    assert_answer(&s, "final_score", "=W+2");
    scene_close(&s);
}

static void test_counted(void **state)
{
    (void)state;
    scene s;
    scene_open(&s, game, 2);
    assert_answer(&s, "genmove b", "=C3");
    assert_answer(&s, "play w D4", "=");
    gs_error err;
    /* the players' end: only a game that ended is counted */
    assert_int_equal(record_end_game(s.r, s.t, &err), GS_OK);
    assert_int_equal(record_finish(s.r, s.t, &err), GS_OK);
    scene_changed(&s);
    /* nobody lifted White's lone D4: the record's count keeps it alive,
     * the estimate (final_score's, as `goscribe count` makes it) finds it
     * dead, and final_score and final_status_list say so */
    assert_string_equal(record_result(s.r), "W+7");
    /* the record is closed: genmove and the status both say the recording
     * ended (the status said "running" until the loop returned) */
    assert_error_with(&s, "genmove w", "the recording has ended");
    assert_non_null(strstr(ask(&s, "goscribe-status"), "recording: ended (the record is closed)"));
    assert_answer(&s, "final_status_list dead", "=D4");
    assert_answer(&s, "final_score", "=B+18");
    scene_close(&s);
}

/* The game ends with White's D5 left in Black's area (nobody lifted it):
 * the record's count takes only lifted stones as dead (RE W+6), but
 * final_score and final_status_list use the dead-stone estimate, as
 * `goscribe count` and GNU Go do: D5 dead, W+2 (issue 50). */
static void test_counted_dead_left_on_board(void **state)
{
    (void)state;
    scene s;
    scene_open(&s, dead_stone, 2);
    assert_answer(&s, "genmove b", "=C5");
    assert_answer(&s, "genmove w", "=D1");
    assert_answer(&s, "genmove b", "=B4");
    assert_answer(&s, "play w D5", "=");
    gs_error err;
    assert_int_equal(record_end_game(s.r, s.t, &err), GS_OK);
    assert_int_equal(record_finish(s.r, s.t, &err), GS_OK);
    scene_changed(&s);
    print_message("the record's count: %s\n", record_result(s.r));
    assert_string_not_equal(record_result(s.r), "W+2");
    assert_answer(&s, "final_status_list dead", "=D5");
    assert_answer(&s, "final_score", "=W+2");
    scene_close(&s);
}

static void test_loadsgf(void **state)
{
    (void)state;
    scene s;
    scene_open(&s, game, 0.3);
    char path[64];
    snprintf(path, sizeof path, "/tmp/gs-test-gtp-load-%d.sgf", (int)getpid());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    /* the position after Black C3 and White D4, as a set-up */
    fputs("(;GM[1]FF[4]SZ[5]KM[6.5]AB[cc]AW[db]PL[B])\n", f);
    fclose(f);
    char line[128];
    snprintf(line, sizeof line, "loadsgf %s", path);
    assert_answer(&s, line, "=");               /* waited until the board showed it */
    assert_answer(&s, "genmove b", "=B2");      /* the cursor is there */
    f = fopen(path, "w");
    fputs("(;GM[1]FF[4]SZ[5];B[aa];W[ee])\n", f);
    fclose(f);
    assert_error_with(&s, line, "the board does not show the position of");
    snprintf(line, sizeof line, "loadsgf %s 2", path); /* before move 2: Black A5 alone */
    assert_error_with(&s, line, "the board does not show the position of");
    unlink(path);
    scene_close(&s);
}

/* ------------------------------------------------- gtp_serve on frames */

/* An empty 9x9 board, then Black E5, White C7, Black G3: rendered settled
 * views (as tests/test_recorder_run.c). */
static void render_views(gs_image *img[4], vision_grid *grid)
{
    render_scene *sc = gs_test_still_scene(11, 9, 640, 480, grid);
    render_state st;
    render_state_init(&st, 9);
    static const int mv[3][3] = {{4, 4, GS_BLACK}, {2, 2, GS_WHITE}, {6, 6, GS_BLACK}};
    for (int i = 0; i < 4; i++) {
        if (i > 0) gs_position_set(&st.pos, mv[i - 1][0], mv[i - 1][1], (gs_color)mv[i - 1][2]);
        st.t_ms = 1000.0 * i;
        st.frame = i;
        img[i] = gs_test_frame(sc, &st);
    }
    render_scene_destroy(sc);
}

static void test_serve(void **state)
{
    (void)state;
    gs_image *img[4];
    gtp_options o;
    gtp_options_init(&o);
    render_views(img, &o.run.tracker.grid);
    o.run.tracker.have_grid = true;
    o.run.tracker.size_hint = 9;
    o.run.recorder.evidence_dir = "";
    o.run.frame_delay_ms = 30;
    o.engine.move_timeout_s = 20;
    gs_error err;
    capture_source *src = capture_open_list((const gs_image *const *)img, 4, 2, true, &err);
    assert_non_null(src);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    const char *script = "1 protocol_version\n2 genmove b\n3 play w C7\n4 genmove b\n5 play w A1\n"
                         "6 goscribe-frame /tmp/gs-test-gtp-frame.png\n7 goscribe-view\n8 quit\n";
    assert_int_equal(write(fds[1], script, strlen(script)), (ssize_t)strlen(script));
    close(fds[1]);
    FILE *out = tmpfile();
    assert_non_null(out);
    gtp_stats st;
    assert_int_equal(gtp_serve(src, &o, fds[0], out, &st, &err), GS_OK);
    close(fds[0]);
    capture_close(src);
    rewind(out);
    char text[4096] = {0};
    size_t n = fread(text, 1, sizeof text - 1, out);
    fclose(out);
    text[n] = 0;
    assert_non_null(strstr(text, "=1 2\n\n=2 E5\n\n=3 \n\n=4 G3\n\n"));
    /* the video ended: no White move will come */
    if (!strstr(text, "?5 the recording has ended")) fail_msg("%s", text);
    if (!strstr(text, "=6 /tmp/gs-test-gtp-frame.png\n\n")) fail_msg("%s", text);
    /* the camera's view as GoGui draws it: the frame was read */
    const char *view = strstr(text, "=7 ");
    assert_non_null(view);
    assert_non_null(strstr(view, "TEXT camera: "));
    assert_non_null(strstr(view, " read otherwise than the record (triangles)\n\n=8 \n\n"));
    assert_int_equal(st.commands, 8);
    assert_int_equal(st.errors, 1);
    assert_string_equal(st.end, "quit");
    assert_int_equal(st.run.moves, 3);
    assert_int_equal(access("/tmp/gs-test-gtp-frame.png", R_OK), 0);
    unlink("/tmp/gs-test-gtp-frame.png");
    for (int i = 0; i < 4; i++) gs_image_destroy(img[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_protocol),        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_genmove_and_play), cmocka_unit_test(test_showboard_and_status),
        cmocka_unit_test(test_pass_resign_end), cmocka_unit_test(test_resign_signal),
        cmocka_unit_test(test_score),
        cmocka_unit_test(test_counted),
        cmocka_unit_test(test_counted_dead_left_on_board),         cmocka_unit_test(test_loadsgf),
        cmocka_unit_test(test_serve),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
