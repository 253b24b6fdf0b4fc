/* record/serve_internal.h: pieces shared by serve*.c, hall*.c and mqtt*.c;
 * not part of the public interface (see serve.h). */
#ifndef GS_SERVE_INTERNAL_H
#define GS_SERVE_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "record/serve.h"

/* ---------------------------------------------------------- text buffer */

/* A growable NUL-terminated buffer; `oom` sticks once an allocation fails
 * so callers check once at the end.  Free p with free() (or serve_buf_free). */
typedef struct serve_buf {
    char *p;
    size_t len, cap;
    bool oom;
} serve_buf;

void serve_buf_add(serve_buf *b, const char *s, size_t n);
void serve_buf_puts(serve_buf *b, const char *s);
void serve_buf_printf(serve_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends s as a JSON string literal with quotes (control chars escaped). */
void serve_buf_json_str(serve_buf *b, const char *s);
void serve_buf_free(serve_buf *b);

/* ------------------------------------------------------------------ JSON */

typedef enum serve_json_type {
    SERVE_JSON_NULL, SERVE_JSON_BOOL, SERVE_JSON_NUM, SERVE_JSON_STR,
    SERVE_JSON_ARR, SERVE_JSON_OBJ
} serve_json_type;

/* A parsed JSON value.  Arrays and objects hold `n` children in `kids`
 * (objects also `keys`).  The whole tree is freed by serve_json_free. */
typedef struct serve_json {
    serve_json_type type;
    bool b;
    double num;
    char *str;                 /* SERVE_JSON_STR, UTF-8, NUL-terminated */
    int n;
    struct serve_json **kids;
    char **keys;
} serve_json;

/* Parses exactly one JSON value (RFC 8259, depth <= 32).  NULL with a
 * message in err on malformed input. */
serve_json *serve_json_parse(const char *text, size_t len, char *err, size_t errlen);
void serve_json_free(serve_json *j);
/* Member of an object (NULL if absent or j is not an object). */
const serve_json *serve_json_get(const serve_json *j, const char *key);
/* Typed member helpers with a default for absent / wrong type. */
const char *serve_json_str(const serve_json *j, const char *key, const char *dflt);
double serve_json_num(const serve_json *j, const char *key, double dflt);

/* -------------------------------------------------------- JSON of state */

/* "B", "W" or "" */
const char *serve_color_name(gs_color c);
/* Appends the state object viewers get (type "state"). */
void serve_state_json(serve_buf *b, const serve_state *s, const char *name, const char *id,
                      const char *url, int warn_b, int warn_w);

/* ---------------------------------------------------- loopback HTTP client */

/* GET or POST (body != NULL) to url "http://HOST:PORT/PATH" with a timeout.
 * On success returns 0, *status the HTTP status and *out the body (malloc'd,
 * NUL-terminated, caller frees; at most 1 MiB).  -1 on connection or
 * protocol failure (msg in err). */
int serve_http_request(const char *url, const char *method, const char *body,
                       const char *extra_header, int timeout_ms, int *status,
                       char **out, size_t *outlen, char *err, size_t errlen);

/* ------------------------------------------------------------------- MQTT */

typedef struct serve_mqtt serve_mqtt;
/* Called from the MQTT thread for every message on a subscribed topic. */
typedef void (*serve_mqtt_cb)(void *ctx, const char *topic, const char *payload, size_t len);

/* Connects to "HOST:PORT" (libmosquitto, loaded at run time) and starts its
 * network thread; subscribes to `subscribe` (NULL = none) with cb.  NULL
 * with err on failure.  Reconnects by itself after the first connection. */
serve_mqtt *serve_mqtt_open(const char *hostport, const char *client_id, const char *subscribe,
                            serve_mqtt_cb cb, void *ctx, gs_error *err);
/* Queues a publish (QoS 0) and returns; never waits on the network. */
void serve_mqtt_publish(serve_mqtt *m, const char *topic, const char *payload, size_t len, bool retain);
void serve_mqtt_close(serve_mqtt *m);

/* --------------------------------------------------------- embedded pages */

extern const char serve_page_board[];
extern const char serve_page_referee[];
extern const char serve_page_hall[];
/* Shared drawing code for the board page and the console (JavaScript). */
extern const char serve_page_js[];
extern const char serve_page_css[];

/* ---------------------------------------------------------- small helpers */

/* Splits "HOST:PORT" (HOST may be empty -> dflt_host).  0 on success. */
int serve_split_hostport(const char *s, const char *dflt_host, char *host, size_t hostlen, int *port);
/* Wall clock, Unix ms. */
int64_t serve_unix_ms(void);

/* ------------------------------------------------------------ HTTP server */

/* A thin layer over libmicrohttpd (loaded with dlopen, one thread per
 * connection so a slow viewer only ever blocks its own thread). */
typedef struct serve_httpd serve_httpd;

typedef struct serve_req {
    const char *method;          /* "GET", "POST", ... */
    const char *path;            /* "/state.json" (no query) */
    const char *body;            /* POST body (NUL-terminated), or NULL */
    size_t body_len;
    void *conn_;                 /* for serve_req_header / serve_req_query */
    const serve_httpd *httpd_;
} serve_req;

/* Header or query argument of the request, NULL when absent. */
const char *serve_req_header(const serve_req *r, const char *name);
const char *serve_req_query(const serve_req *r, const char *name);

/* A streamed body: read() fills at most max bytes and returns how many, or
 * -1 to end the stream; it may block (its own thread).  done() frees cls. */
typedef long (*serve_stream_read)(void *cls, char *buf, size_t max);
typedef void (*serve_stream_done)(void *cls);

typedef struct serve_resp {
    int status;                  /* HTTP status; 0 = 404 */
    const char *content_type;    /* static string */
    char *body;                  /* malloc'd, taken over (freed by the layer) */
    size_t body_len;
    const char *static_body;     /* or a static body (pages) */
    bool no_cache;
    serve_stream_read stream;    /* or a stream: */
    serve_stream_done stream_done;
    void *stream_cls;
} serve_resp;

typedef void (*serve_handler)(void *ctx, const serve_req *req, serve_resp *resp);

serve_httpd *serve_httpd_start(const char *bind_addr, int port, int max_conn,
                               serve_handler handler, void *ctx, gs_error *err);
int serve_httpd_port(const serve_httpd *h);
void serve_httpd_stop(serve_httpd *h);
/* Sets a small JSON error body {"error": msg} with the status. */
void serve_resp_error(serve_resp *resp, int status, const char *msg);
/* Answers 200 with the JSON text in b, which the response takes over, or 500
 * when building b ran out of memory (b is then freed). */
void serve_resp_json(serve_resp *resp, serve_buf *b, bool no_cache);
/* Answers GET of `page_path` with page (HTML) and of /app.js, /app.css with
 * the shared script and style; returns false for any other path. */
bool serve_static_page(const char *path, const char *page_path, const char *page, serve_resp *resp);

#endif
