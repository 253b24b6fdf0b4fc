/* record/serve.h: live broadcast of a recording (one board's web pages, a
 * referee console) and a club hall that shows every board on one page.
 *
 * One board: serve_board_start() runs an HTTP server (libmicrohttpd) in its
 * own threads beside the recorder.  Pages and API:
 *   GET  /                 live board page (HTML/JS/CSS embedded, offline)
 *   GET  /state.json       position and game info (serve_state as JSON)
 *   GET  /game.sgf         the record as last given to serve_board_set_sgf()
 *   GET  /events           Server-Sent Events: one JSON object per message
 *                          (types "state", "move", "event", "ruling")
 *   GET  /frame.jpg        latest camera frame with the grid drawn on it
 *   GET  /referee          referee console page (the page asks for the token)
 *   GET  /api/events?token=T            flagged events with their evidence
 *   GET  /api/evidence/ID/before.jpg?token=T   (and after.jpg)
 *   POST /api/ruling       JSON ruling; token in "Authorization: Bearer T"
 *                          or "X-Goscribe-Token: T".  Bad JSON 400, missing
 *                          or wrong token 403, body > 4 KiB 413.
 * Read-only pages are open; anything that changes the game needs the token.
 *
 * The recorder's side is non-blocking by design: every publish call copies
 * its data under a mutex held for a memcpy, wakes the viewers' threads and
 * returns; it never touches a socket.  SSE viewers read from a bounded ring
 * of messages (SERVE_RING messages); a viewer that falls further behind
 * skips ahead (it gets {"type":"resync"} and fetches /state.json again).
 *
 * Wiring into the recorder, the whole contract (done by cli/cmd_record.c,
 * which starts and stops the server, and record/recorder_run.c, which
 * publishes; see recorder_run_options.serve):
 *   serve_config cfg; serve_config_init(&cfg); cfg.port = ...; cfg.board_name = ...;
 *   serve_board *sb = serve_board_start(&cfg, &err);      // NULL + err on failure
 *   print serve_board_url(sb) and serve_board_token(sb)
 *   per frame:    serve_board_publish_frame(sb, frame, &grid_or_NULL);
 *   on change:    serve_board_publish_state(sb, &state);  // cheap when unchanged
 *   per flag:     serve_board_publish_event(sb, &event);  // returns the event id
 *   after saving: serve_board_set_sgf(sb, text, len);
 *   per frame:    while (serve_board_poll_ruling(sb, &r)) apply r to the game
 *                 and the SGF: recorder_apply_ruling() (record/recorder.h)
 *                 with serve_ruling_describe() as the comment's words;
 *   at the end:   serve_board_stop(sb);
 *
 * Optional libraries: libmicrohttpd and libmosquitto are loaded when a
 * server starts (dlopen), so the rest of goscribe runs without them; start
 * fails with GS_ERR_IO "libmicrohttpd not installed" when absent.
 *
 * Ownership: serve_board / serve_hall are opaque, freed by their _stop()
 * (NULL is safe).  Every publish call copies what it is given; the caller
 * keeps ownership of its arguments.  Strings returned by accessors live as
 * long as the object.
 *
 * Thread safety: every serve_board_* call may come from any thread.
 */
#ifndef GS_SERVE_H
#define GS_SERVE_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "core/gs.h"
#include "vision/vision.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SERVE_RING 1024          /* SSE messages kept for viewers */
#define SERVE_MAX_BODY 4096      /* largest accepted POST body */
#define SERVE_EVENTS_KEPT 64     /* flagged events kept with evidence */
#define SERVE_MAX_POINTS 32      /* points carried by an event or a ruling */

typedef struct serve_config {
    const char *bind_addr;   /* NULL = "127.0.0.1" (loopback); "0.0.0.0" = all */
    int port;                /* 0 = any free port (see serve_board_port) */
    const char *board_name;  /* "Table 3"; NULL = "board" */
    const char *board_id;    /* MQTT topic segment [A-Za-z0-9_-]; NULL = from name */
    const char *token;       /* referee token; NULL = 128 random bits in hex */
    const char *mqtt;        /* "HOST:PORT" broker to publish to; NULL = none */
    const char *announce;    /* hall "http://HOST:PORT" to announce to; NULL = none */
    const char *public_url;  /* URL the hall should link to; NULL = http://ADDR:PORT */
    int max_viewers;         /* concurrent HTTP connections; 0 = 512 */
} serve_config;

/* Zeroes cfg: loopback, ephemeral port, generated token, no MQTT. */
void serve_config_init(serve_config *cfg);

/* What the viewers see; the recorder fills it (plain data, copied). */
typedef struct serve_state {
    gs_position pos;
    int move_number;            /* moves played so far, passes included */
    gs_color to_move;
    int captures_black;         /* stones Black has captured */
    int captures_white;
    gs_color last_color;        /* last move; GS_EMPTY if none */
    gs_point last_point;
    bool last_pass;
    int64_t last_move_unix_ms;  /* wall clock of the last move, 0 = none */
    char black[64], white[64];  /* player names, may be empty */
    char result[32];            /* RE[] once known, "" while playing */
    char status[16];            /* "waiting", "playing", "ended", ... */
    double komi;
} serve_state;

/* Initialises s for an empty board of the given size, Black to move. */
void serve_state_init(serve_state *s, int size);

/* A flagged referee event (see ../shared/RULES.md); everything is copied. */
typedef struct serve_event {
    const char *code;            /* GSEV code: double_move, take_back, ko, ... */
    const char *message;         /* plain words for the referee */
    gs_color color;              /* side at fault, GS_EMPTY if none */
    int move_number;
    int npoints;                 /* <= SERVE_MAX_POINTS */
    const gs_point *points;      /* points concerned */
    const gs_position *before;   /* positions around the event; NULL = none */
    const gs_position *after;
    const gs_image *frame_before;/* evidence frames; NULL = none */
    const gs_image *frame_after;
} serve_event;

typedef enum serve_ruling_kind {
    SERVE_RULING_VOID = 0,     /* the (second) move is void */
    SERVE_RULING_RESTORE,      /* stones put back where they were */
    SERVE_RULING_REMOVE_DEAD,  /* the dead stones are removed */
    SERVE_RULING_WARN,         /* a warning only */
    SERVE_RULING_ACCEPT,       /* the move stands, nothing to do */
    SERVE_RULING_PASS,         /* the move is void and counts as a pass */
    SERVE_RULING_END,          /* the game is over (count follows) */
    SERVE_RULING_RESIGN,       /* `color` resigns */
    SERVE_RULING_COUNT_
} serve_ruling_kind;

/* A referee decision, queued for the recorder by POST /api/ruling. */
typedef struct serve_ruling {
    int id;                      /* 1, 2, ... in arrival order */
    int event_id;                /* the flagged event it answers, 0 = none */
    serve_ruling_kind kind;
    gs_color color;              /* side concerned (warned, resigning, ...) */
    bool warning;                /* this ruling gives `color` a warning */
    int warnings_black;          /* warnings after this ruling */
    int warnings_white;
    gs_color loser;              /* lost by resignation or a second warning */
    int npoints;
    gs_point points[SERVE_MAX_POINTS];
    char note[200];              /* referee's words, may be empty */
    int64_t unix_ms;             /* when the ruling was made */
} serve_ruling;

/* "void", "restore", "remove_dead", "warn", "accept", "pass", "end",
 * "resign" (static storage); NULL for an unknown kind. */
const char *serve_ruling_name(serve_ruling_kind k);
/* Reverse of the above; false if unknown. */
bool serve_ruling_parse_kind(const char *name, serve_ruling_kind *out);

/* One-line plain description: "Referee (12:03:22): move void, warning to
 * Black (1st)". Returns the length written (truncated to len-1). */
size_t serve_ruling_describe(const serve_ruling *r, char *buf, size_t len);

/* Starts the server; NULL with err on failure (port taken, bad address,
 * libmicrohttpd absent).  The caller stops it with serve_board_stop. */
typedef struct serve_board serve_board;
serve_board *serve_board_start(const serve_config *cfg, gs_error *err);
void serve_board_stop(serve_board *sb);

int serve_board_port(const serve_board *sb);
const char *serve_board_token(const serve_board *sb);
/* "http://127.0.0.1:8080" (the address viewers use). */
const char *serve_board_url(const serve_board *sb);

/* Publishers: copy and return at once; never block on the network. */
void serve_board_publish_state(serve_board *sb, const serve_state *s);
/* Returns the new event's id (>= 1), or 0 on allocation failure. */
int serve_board_publish_event(serve_board *sb, const serve_event *ev);
/* grid may be NULL (no grid drawn).  The frame is copied at most a few
 * times per second; JPEG encoding happens in the server's thread when a
 * viewer asks for /frame.jpg. */
void serve_board_publish_frame(serve_board *sb, const gs_image *frame, const vision_grid *grid);
void serve_board_set_sgf(serve_board *sb, const char *text, size_t len);

/* Takes the oldest queued ruling; false when none. */
bool serve_board_poll_ruling(serve_board *sb, serve_ruling *out);

typedef struct serve_stats {
    int viewers;                 /* open /events streams */
    long messages;               /* messages published to the ring */
    long resyncs;                /* times a slow viewer skipped ahead */
    long requests;               /* HTTP requests answered */
    long rejected;               /* 4xx answers */
} serve_stats;
void serve_board_stats(serve_board *sb, serve_stats *out);

/* ------------------------------------------------------------- the hall */

typedef struct serve_hall_config {
    const char *bind_addr;       /* NULL = "127.0.0.1" */
    int port;                    /* 0 = any free port */
    const char *const *boards;   /* board URLs "http://HOST:PORT" to poll */
    int nboards;
    const char *mqtt;            /* "HOST:PORT" broker to follow; NULL = none */
    int poll_ms;                 /* 0 = 1000 */
} serve_hall_config;

typedef struct serve_hall serve_hall;
serve_hall *serve_hall_start(const serve_hall_config *cfg, gs_error *err);
void serve_hall_stop(serve_hall *h);
int serve_hall_port(const serve_hall *h);
/* Number of boards heard from (polled successfully or seen on MQTT). */
int serve_hall_board_count(serve_hall *h);

#ifdef __cplusplus
}
#endif
#endif
