/* broadcast/broadcast.h: live broadcast of a recording (one board's web pages, a
 * referee console) and a club hall that shows every board on one page.
 *
 * One board: broadcast_board_start() runs an HTTP server (libmicrohttpd) in its
 * own threads beside the recorder.  Pages and API:
 *   GET  /                 live board page (HTML/JS/CSS embedded, offline)
 *   GET  /state.json       position and game info (broadcast_state as JSON)
 *   GET  /game.sgf         the record as last given to broadcast_board_set_sgf()
 *   GET  /events           Server-Sent Events: one JSON object per message
 *                          (types "state", "move", "event", "ruling")
 *   GET  /frame.jpg        latest camera frame with the grid drawn on it
 *   GET  /referee          referee console page (the page asks for the token)
 *   GET  /api/events       flagged events with their evidence
 *   GET  /api/evidence/ID/before.jpg   (and after.jpg), ID 1, 2, ...
 *   POST /api/ruling       JSON ruling.  Bad JSON 400, body > 4 KiB 413.
 * Read-only pages are open; everything under /api/ needs the token, in
 * "Authorization: Bearer T" or "X-Goscribe-Token: T" (403 otherwise; never
 * in the URL, where histories, logs and Referer headers keep it).
 *
 * Every request, on every page, of a board and of the hall:
 *   Host header: it must name this server: the address the client
 *     connected to, "localhost" on loopback, the machine's name (NAME or
 *     NAME.local), the host of public_url or a name of allow_hosts; 421
 *     otherwise, so that a web page whose name an attacker made resolve to
 *     this address (DNS rebinding) reads nothing.
 *   POST bodies are application/json only (415 otherwise): a browser sends
 *     a cross-site POST without asking first only as text/plain or a form.
 *   Connections: at most max_per_client from one address; a client has
 *     request_ms from connecting (or from its last answer, on a kept-alive
 *     connection) to send a whole request (a header line trickled now and
 *     then does not extend it), and while slow clients
 *     crowd the server the oldest waiting one is closed to make room.  An
 *     answer, such as an SSE stream, may last as long as it likes.

 * The recorder's side is non-blocking by design: every publish call copies
 * its data under a mutex held for a memcpy, wakes the viewers' threads and
 * returns; it never touches a socket.  SSE viewers read from a bounded ring
 * of messages (BROADCAST_RING messages); a viewer that falls further behind
 * skips ahead (it gets {"type":"resync"} and fetches /state.json again).
 *
 * Wiring into the recorder, the whole contract (cli/cmd_record.c starts
 * and stops the server and plugs broadcast_live, the recording loop's
 * hooks, into session_run; see broadcast_live below):
 *   broadcast_config cfg; broadcast_config_init(&cfg); cfg.port = ...; cfg.board_name = ...;
 *   broadcast_board *sb = broadcast_board_start(&cfg, &err);      // NULL + err on failure
 *   print broadcast_board_url(sb) and broadcast_board_token(sb)
 *   per frame:    broadcast_board_publish_frame(sb, frame, &grid_or_NULL);
 *   on change:    broadcast_board_publish_state(sb, &state);  // cheap when unchanged
 *   per flag:     broadcast_board_publish_event(sb, &event);  // returns the event id
 *   after saving: broadcast_board_set_sgf(sb, text, len);
 *   per frame:    while (broadcast_board_poll_ruling(sb, &r)) apply r to the game
 *                 and the SGF: record_apply_ruling() (record/record.h)
 *                 with broadcast_ruling_describe() as the comment's words;
 *   at the end:   broadcast_board_stop(sb);
 *
 * Optional libraries: libmicrohttpd and libmosquitto are loaded when a
 * server starts (dlopen), so the rest of goscribe runs without them; start
 * fails with GS_ERR_IO "libmicrohttpd not installed" when absent.
 *
 * Ownership: broadcast_board / broadcast_hall are opaque, freed by their _stop()
 * (NULL is safe).  Every publish call copies what it is given; the caller
 * keeps ownership of its arguments.  Strings returned by accessors live as
 * long as the object.
 *
 * Thread safety: every broadcast_board_* call may come from any thread.
 */
#ifndef BROADCAST_BROADCAST_H
#define BROADCAST_BROADCAST_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <signal.h>

#include "core/gs.h"
#include "vision/vision.h"
#include "record/record.h"
#include "session/session.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BROADCAST_RING 1024          /* SSE messages kept for viewers */
#define BROADCAST_MAX_BODY 4096      /* largest accepted POST body */
#define BROADCAST_EVENTS_KEPT 64     /* flagged events kept with evidence */
#define BROADCAST_MAX_POINTS 32      /* points carried by an event or a ruling */

typedef struct broadcast_config {
    const char *bind_addr;   /* NULL = "127.0.0.1" (loopback); "0.0.0.0" = all */
    int port;                /* 0 = any free port (see broadcast_board_port) */
    const char *board_name;  /* "Table 3"; NULL = "board" */
    const char *board_id;    /* MQTT topic segment [A-Za-z0-9_-]; NULL = from name */
    const char *token;       /* referee token; NULL = 128 random bits in hex */
    const char *mqtt;        /* "HOST:PORT" broker to publish to; NULL = none */
    const char *announce;    /* hall "http://HOST:PORT" to announce to; NULL = none */
    const char *announce_token; /* the hall's token (`goscribe hall` prints it); needed with announce */
    const char *public_url;  /* URL the hall should link to; NULL = http://ADDR:PORT */
    int max_viewers;         /* concurrent HTTP connections; 0 = 512 */
    int max_per_client;      /* connections from one client address; 0 = 64 */
    int request_ms;          /* time a client has to send one request; 0 = 10000 */
    const char *const *allow_hosts; /* more names the Host header may carry (a proxy's, a DNS */
    int nallow_hosts;               /* name of the machine); see "Host header" above */
    bool private_pages;      /* every page but the console's needs the token too (a
                                board behind a hall that delays the broadcast: the
                                hall is the public face, this server the referee's) */
} broadcast_config;

/* Zeroes cfg: loopback, ephemeral port, generated token, no MQTT. */
void broadcast_config_init(broadcast_config *cfg);

/* What the viewers see; the recorder fills it (plain data, copied). */
typedef struct broadcast_state {
    gs_position pos;
    int move_number;            /* moves played so far, passes included */
    gs_color to_move;
    int captures_black;         /* stones Black has captured */
    int captures_white;
    gs_color last_color;        /* last move; GS_EMPTY if none */
    gs_point last_point;
    bool last_pass;
    int64_t last_move_unix_ms;  /* time of play of the last move, 0 = none */
    char black[64], white[64];  /* player names, may be empty */
    char black_rank[16], white_rank[16];
    char event[64], round[32], table[32]; /* game information, may be empty */
    int warnings_black;         /* warnings each side has received */
    int warnings_white;
    char result[32];            /* RE[] once known, "" while playing */
    char status[16];            /* "waiting", "playing", "ended", ... */
    char not_saved[200];        /* "" = the SGF file holds the game; else
                                   why not and where it is (record_not_saved) */
    double komi;
} broadcast_state;

/* Initialises s for an empty board of the given size, Black to move. */
void broadcast_state_init(broadcast_state *s, int size);

/* A flagged referee event (see ../shared/RULES.md); everything is copied. */
typedef struct broadcast_event {
    const char *code;            /* GSEV code: double_move, take_back, ko, ... */
    const char *message;         /* plain words for the referee */
    gs_color color;              /* side at fault, GS_EMPTY if none */
    int move_number;
    int npoints;                 /* <= BROADCAST_MAX_POINTS */
    const gs_point *points;      /* points concerned */
    const gs_position *before;   /* positions around the event; NULL = none */
    const gs_position *after;
    const gs_image *frame_before;/* evidence frames; NULL = none */
    const gs_image *frame_after;
} broadcast_event;

/* A referee decision, queued for the recorder by POST /api/ruling.  Its
 * kind is the recorder's (record_ruling_kind, named by record_ruling_name:
 * "void", "restore", "remove_dead", "warn", "accept", "pass", "end",
 * "resign", and the corrections "move" {"move_number":N,"point":"pd"|""}
 * and "result" {"result":"B+R"}); "by" names who made it. */
typedef struct broadcast_ruling {
    int id;                      /* 1, 2, ... in arrival order */
    int event_id;                /* the flagged event it answers, 0 = none */
    record_ruling_kind kind;
    gs_color color;              /* side concerned (warned, resigning, ...) */
    bool warning;                /* this ruling gives `color` a warning */
    int warnings_black;          /* warnings after this ruling */
    int warnings_white;
    gs_color loser;              /* lost by resignation or a second warning */
    int npoints;
    gs_point points[BROADCAST_MAX_POINTS];
    char note[200];              /* referee's words, may be empty */
    int64_t unix_ms;             /* when the ruling was made */
    int move_number;             /* "move": the move corrected */
    char result[24];             /* "result": the SGF RE value ("" = none) */
    char by[48];                 /* who made it ("" = not said) */
} broadcast_ruling;

/* One-line plain description: "Referee (12:03:22 UTC): move void, warning
 * to Black (warning 1)", "Referee Ann (...)" when it says who; a
 * correction is "Correction by Ann (12:03:22 UTC)", the recorder adds
 * what it changed.  Returns the length written (truncated to len-1). */
size_t broadcast_ruling_describe(const broadcast_ruling *r, char *buf, size_t len);

/* Starts the server; NULL with err on failure (port taken, bad address,
 * libmicrohttpd absent).  The caller stops it with broadcast_board_stop. */
typedef struct broadcast_board broadcast_board;
broadcast_board *broadcast_board_start(const broadcast_config *cfg, gs_error *err);
void broadcast_board_stop(broadcast_board *sb);

int broadcast_board_port(const broadcast_board *sb);
const char *broadcast_board_token(const broadcast_board *sb);
/* "http://127.0.0.1:8080" (the address viewers use). */
const char *broadcast_board_url(const broadcast_board *sb);

/* Publishers: copy and return at once; never block on the network. */
void broadcast_board_publish_state(broadcast_board *sb, const broadcast_state *s);
/* Returns the new event's id (>= 1), or 0 on allocation failure. */
int broadcast_board_publish_event(broadcast_board *sb, const broadcast_event *ev);
/* grid may be NULL (no grid drawn).  The frame is copied at most a few
 * times per second; JPEG encoding happens in the server's thread when a
 * viewer asks for /frame.jpg. */
void broadcast_board_publish_frame(broadcast_board *sb, const gs_image *frame, const vision_grid *grid);
void broadcast_board_set_sgf(broadcast_board *sb, const char *text, size_t len);

/* Takes the oldest queued ruling; false when none. */
bool broadcast_board_poll_ruling(broadcast_board *sb, broadcast_ruling *out);
/* From now on POST /api/ruling answers 409 with `why` (the recording has
 * ended: nothing could reach the record); the rulings already queued stay
 * for the last polls. */
void broadcast_board_close_rulings(broadcast_board *sb, const char *why);

/* ------------------------------------------------ a recording, live */

/* The recording loop's hooks (session_hooks, record/record.h) over a
 * board: every frame with its grid; a state per move; each flagged event
 * with the positions and frames around it; after each change the state and
 * the SGF text; the referee's rulings handed to the recorder (the event's
 * point and the record before it when the ruling names none), with
 * broadcast_ruling_describe() as their words.
 *   broadcast_live *live = broadcast_live_create(sb, &run_opts.recorder, &err);
 *   run_opts.hooks = broadcast_live_hooks(); run_opts.hooks_user = live;
 *   session_run(src, &run_opts, &stats, &err);
 *   broadcast_live_destroy(live);   // then broadcast_board_stop(sb)
 * Ownership: the live object uses sb (the caller's, stopped after it) and
 * copies what it needs of ro (player names, komi).  destroy(NULL) is safe. */
typedef struct broadcast_live broadcast_live;
broadcast_live *broadcast_live_create(broadcast_board *sb, const record_options *ro, gs_error *err);
void broadcast_live_destroy(broadcast_live *live);
const session_hooks *broadcast_live_hooks(void);

typedef struct broadcast_stats {
    int viewers;                 /* open /events streams */
    long messages;               /* messages published to the ring */
    long resyncs;                /* times a slow viewer skipped ahead */
    long requests;               /* HTTP requests answered */
    long rejected;               /* 4xx answers */
    long dropped;                /* connections closed for being slow: past the request
                                    deadline, or the oldest waiting one while slow
                                    clients crowded the server */
} broadcast_stats;
void broadcast_board_stats(broadcast_board *sb, broadcast_stats *out);

/* ------------------------------------------------------------ the round */

/* One board of a club evening's round: its pairing and the SGF file its
 * recorder writes (crash-safe, after every move). */
typedef struct broadcast_round_board {
    int table;                   /* 1.. (the pairing's board number) */
    const char *black, *white;   /* names; NULL = "" */
    const char *black_rank, *white_rank;
    int handicap;
    double komi;                 /* used when has_komi */
    bool has_komi;
    const char *sgf_path;        /* the record's file (need not exist yet) */
} broadcast_round_board;

/* The clock of the round, Unix ms (tests inject one; NULL = the wall). */
typedef int64_t (*broadcast_clock_fn)(void *user);

/* A round served by the hall (broadcast_hall_config.round): one feed for
 * relays and viewers built from the boards' SGF files, which the hall
 * looks at every watch_ms.  What the hall serves of it (doc/json.md, "The round
 * feed"):
 *   GET /                  the round page (every board: names, board,
 *                          captures, move number, last move, result)
 *   GET /board/T           board T's page (with its move list)
 *   GET /round.json, /board/T.json   the same as JSON (a board's with its moves)
 *   GET /round.sgf         every game of the round, one SGF collection
 *   GET /board/T.sgf       game T alone
 *   GET /round/events      SSE: {"type":"board",...} for each board that changed
 *   POST /board/T/api/correct   a correction (the hall's token): forwarded to
 *                          the board's recorder, or applied to its file once
 *                          the recorder is gone (record_correct_file)
 * JSON and SGF answers carry ETag and Last-Modified and answer 304 to a
 * poll (If-None-Match / If-Modified-Since) that has them already.  MQTT
 * (when `mqtt` is set), retained: goscribe/round/R/board/T (the board's
 * JSON) and .../board/T/sgf (its SGF).
 * The delay: a change of a board's file seen at time t is shown at
 * t + delay_ms, to every page, stream, feed and MQTT alike; nothing newer
 * is kept where a client can reach it.  A game still playing has no RE and
 * GSST[playing] on its root (a private property: "waiting" before the
 * first move, "playing", "ended" with RE, "unfinished" when its recorder
 * stopped without a result). */
typedef struct broadcast_round_config {
    const char *event, *round, *place, *date;  /* NULL = "" */
    const broadcast_round_board *boards;
    int nboards;
    int delay_ms;                /* broadcast delay; 0 = live */
    int watch_ms;                /* how often the files are looked at; 0 = 200 */
    broadcast_clock_fn clock;    /* NULL = the wall clock */
    void *clock_user;
    const char *mqtt;            /* "HOST:PORT" broker to publish to; NULL = none */
} broadcast_round_config;

/* ------------------------------------------------------------- the hall */

/* One page for a club: GET / (the page), GET /state.json (every board
 * heard from, re-serialised), POST /api/announce {"url":"http://HOST:PORT"}
 * with the hall's token (broadcast_hall_token; a board's config gives it as
 * announce_token).  Each board with an address is polled by its own thread,
 * ADDRESS/state.json only, every poll_ms, each fetch bounded in time (name
 * lookup included); announced boards leave when not announced again for
 * announce_ttl_ms.  The same Host, body type and connection rules as a
 * board's server (above). */
typedef struct broadcast_hall_config {
    const char *bind_addr;       /* NULL = "127.0.0.1" */
    int port;                    /* 0 = any free port */
    const char *const *boards;   /* board URLs "http://HOST[:PORT]" to poll */
    int nboards;
    const char *mqtt;            /* "HOST:PORT" broker to follow; NULL = none */
    int poll_ms;                 /* 0 = 1000 */
    const char *token;           /* announce token; NULL = 128 random bits in hex */
    int announce_ttl_ms;         /* an announced board not announced again for this long
                                    leaves the hall; 0 = 30000 */
    int max_per_client;          /* connections from one client address; 0 = 32 */
    int request_ms;              /* time a client has to send one request; 0 = 10000 */
    const char *const *allow_hosts; /* more names for the Host header, as for a board */
    int nallow_hosts;
    const broadcast_round_config *round; /* a round to serve (its pages at /, the boards'
                                            list then at /hall); NULL = none */
} broadcast_hall_config;

/* Zeroes cfg: loopback, ephemeral port, generated token, the defaults. */
void broadcast_hall_config_init(broadcast_hall_config *cfg);

typedef struct broadcast_hall broadcast_hall;
broadcast_hall *broadcast_hall_start(const broadcast_hall_config *cfg, gs_error *err);
void broadcast_hall_stop(broadcast_hall *h);
int broadcast_hall_port(const broadcast_hall *h);
/* The token recorders announce with (lives as long as h). */
const char *broadcast_hall_token(const broadcast_hall *h);
/* Number of boards heard from (polled successfully or seen on MQTT). */
int broadcast_hall_board_count(broadcast_hall *h);

/* The round's board at `table` is recorded by a recorder serving at url
 * (its console, for corrections) with that token; running false: it has
 * stopped (status says how: "ended", "crashed (signal 11), restarting",
 * ...), its file is final and corrections go to the file. */
void broadcast_hall_round_recorder(broadcast_hall *h, int table, const char *url, const char *token, bool running,
                                   const char *status);
/* Looks at the boards' files and moves the public view on now (the hall's
 * own thread does it every watch_ms; tests with an injected clock call
 * it). */
void broadcast_hall_round_tick(broadcast_hall *h);

/* -------------------------------------------------------- the count page */

/* `goscribe count PHOTO --serve`: a page made for a phone (doc/usage.md,
 * "The count page"): the photo with the reading drawn over it, the points
 * and chains to check marked, the Score line live; a tap sets a point
 * (empty, black, white in turn), a long press or the dead mode a chain's
 * life, four taps the board's corners when it was not found; each change
 * is counted again at once (score_fix).  Confirm writes the count as SGF
 * (score_count_write_sgf, at sgf_path) and wakes broadcast_count_wait.
 *   GET /                the page (offline: nothing fetched from outside)
 *   GET/POST /api/...    its API (broadcast/count_session.c), with the token
 * The same Host, body type and connection rules as a board's server. */
typedef struct broadcast_count_config {
    const char *bind_addr;       /* NULL = "127.0.0.1" */
    int port;                    /* 0 = any free port */
    const char *token;           /* NULL = 12 random letters and digits (to type on a phone) */
    const char *const *allow_hosts; /* more names for the Host header */
    int nallow_hosts;
    const score_count_options *count; /* the photo (input) and how to count it */
    const char *sgf_path;        /* where the confirmed count is written */
} broadcast_count_config;

typedef struct broadcast_count broadcast_count;
/* Reads the photo (a board not found is a page asking for its corners)
 * and starts serving; NULL with err (the photo unreadable, the port
 * taken, libmicrohttpd absent). */
broadcast_count *broadcast_count_start(const broadcast_count_config *cfg, gs_error *err);
void broadcast_count_stop(broadcast_count *c);
/* "http://ADDR:PORT/" and the token (live as long as c). */
const char *broadcast_count_url(const broadcast_count *c);
const char *broadcast_count_token(const broadcast_count *c);
/* The count as it stands; false while no board is read. */
bool broadcast_count_board(broadcast_count *c, score_count_result *out);
/* Waits until the count is confirmed on the page (true, the count in
 * *out, its SGF written) or *stop is set (false). */
bool broadcast_count_wait(broadcast_count *c, volatile sig_atomic_t *stop, score_count_result *out);

#ifdef __cplusplus
}
#endif
#endif
