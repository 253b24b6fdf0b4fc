/* broadcast/broadcast_internal.h: pieces shared by serve*.c, hall*.c and mqtt*.c;
 * not part of the public interface (see serve.h). */
#ifndef GS_SERVE_INTERNAL_H
#define GS_SERVE_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "broadcast/broadcast.h"

/* -------------------------------------------------------- JSON of state */

/* "B", "W" or "" */
const char *broadcast_color_name(gs_color c);
/* Appends the state object viewers get (type "state"). */
void broadcast_state_json(gs_buf *b, const broadcast_state *s, const char *name, const char *id,
                      const char *url, int warn_b, int warn_w);

/* ---------------------------------------------------- loopback HTTP client */

/* GET or POST (body != NULL) to url "http://HOST:PORT/PATH" with a timeout.
 * On success returns 0, *status the HTTP status and *out the body (malloc'd,
 * NUL-terminated, caller frees; at most 1 MiB).  -1 on connection or
 * protocol failure (msg in err). */
int broadcast_http_request(const char *url, const char *method, const char *body,
                       const char *extra_header, int timeout_ms, int *status,
                       char **out, size_t *outlen, char *err, size_t errlen);

/* ------------------------------------------------------------------- MQTT */

typedef struct broadcast_mqtt broadcast_mqtt;
/* Called from the MQTT thread for every message on a subscribed topic. */
typedef void (*broadcast_mqtt_cb)(void *ctx, const char *topic, const char *payload, size_t len);

/* Connects to "HOST:PORT" (libmosquitto, loaded at run time) and starts its
 * network thread; subscribes to `subscribe` (NULL = none) with cb.  NULL
 * with err on failure.  Reconnects by itself after the first connection. */
broadcast_mqtt *broadcast_mqtt_open(const char *hostport, const char *client_id, const char *subscribe,
                            broadcast_mqtt_cb cb, void *ctx, gs_error *err);
/* Queues a publish (QoS 0) and returns; never waits on the network. */
void broadcast_mqtt_publish(broadcast_mqtt *m, const char *topic, const char *payload, size_t len, bool retain);
void broadcast_mqtt_close(broadcast_mqtt *m);

/* --------------------------------------------------------- embedded pages */

extern const char broadcast_page_board[];
extern const char broadcast_page_referee[];
extern const char broadcast_page_hall[];
/* Shared drawing code for the board page and the console (JavaScript). */
extern const char broadcast_page_js[];
extern const char broadcast_page_css[];

/* ---------------------------------------------------------- small helpers */

/* Splits "HOST:PORT" (HOST may be empty -> dflt_host).  0 on success. */
int broadcast_split_hostport(const char *s, const char *dflt_host, char *host, size_t hostlen, int *port);
/* Wall clock, Unix ms. */
int64_t serve_unix_ms(void);

/* ------------------------------------------------------------ HTTP server */

/* A thin layer over libmicrohttpd (loaded with dlopen, one thread per
 * connection so a slow viewer only ever blocks its own thread). */
typedef struct broadcast_httpd broadcast_httpd;

typedef struct broadcast_req {
    const char *method;          /* "GET", "POST", ... */
    const char *path;            /* "/state.json" (no query) */
    const char *body;            /* POST body (NUL-terminated), or NULL */
    size_t body_len;
    void *conn_;                 /* for broadcast_req_header / broadcast_req_query */
    const broadcast_httpd *httpd_;
} broadcast_req;

/* Header or query argument of the request, NULL when absent. */
const char *broadcast_req_header(const broadcast_req *r, const char *name);
const char *broadcast_req_query(const broadcast_req *r, const char *name);

/* A streamed body: read() fills at most max bytes and returns how many, or
 * -1 to end the stream; it may block (its own thread).  done() frees cls. */
typedef long (*serve_stream_read)(void *cls, char *buf, size_t max);
typedef void (*serve_stream_done)(void *cls);

typedef struct broadcast_resp {
    int status;                  /* HTTP status; 0 = 404 */
    const char *content_type;    /* static string */
    char *body;                  /* malloc'd, taken over (freed by the layer) */
    size_t body_len;
    const char *static_body;     /* or a static body (pages) */
    bool no_cache;
    serve_stream_read stream;    /* or a stream: */
    serve_stream_done stream_done;
    void *stream_cls;
} broadcast_resp;

typedef void (*serve_handler)(void *ctx, const broadcast_req *req, broadcast_resp *resp);

broadcast_httpd *broadcast_httpd_start(const char *bind_addr, int port, int max_conn,
                               serve_handler handler, void *ctx, gs_error *err);
int broadcast_httpd_port(const broadcast_httpd *h);
void broadcast_httpd_stop(broadcast_httpd *h);
/* Sets a small JSON error body {"error": msg} with the status. */
void broadcast_resp_error(broadcast_resp *resp, int status, const char *msg);
/* Answers 200 with the JSON text in b, which the response takes over, or 500
 * when building b ran out of memory (b is then freed). */
void broadcast_resp_json(broadcast_resp *resp, gs_buf *b, bool no_cache);
/* Answers GET of `page_path` with page (HTML) and of /app.js, /app.css with
 * the shared script and style; returns false for any other path. */
bool serve_static_page(const char *path, const char *page_path, const char *page, broadcast_resp *resp);

#endif
