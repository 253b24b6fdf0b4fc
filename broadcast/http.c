/* broadcast/http.c: the HTTP server layer over libmicrohttpd, and the
 * answers every handler builds (JSON, errors, the embedded pages).
 *
 * libmicrohttpd is loaded with dlopen when a server starts, so the goscribe
 * binary (and every other subcommand) works on machines without it, and
 * the library needs no extra link flags.  One thread per connection: an SSE
 * viewer blocks only its own thread, never the recorder or other viewers. */
#include "broadcast/broadcast_internal.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#if defined(__has_include)
#if __has_include(<microhttpd.h>)
#include <microhttpd.h>
#define BROADCAST_HAVE_MHD_H 1
#endif
#endif

#ifndef BROADCAST_HAVE_MHD_H

struct broadcast_httpd { int unused; };
const char *broadcast_req_header(const broadcast_req *r, const char *name) { (void)r; (void)name; return NULL; }
const char *broadcast_req_query(const broadcast_req *r, const char *name) { (void)r; (void)name; return NULL; }
broadcast_httpd *broadcast_httpd_start(const char *bind_addr, int port, int max_conn,
                                       broadcast_handler handler, void *ctx, gs_error *err)
{
    (void)bind_addr; (void)port; (void)max_conn; (void)handler; (void)ctx;
    gs_error_set(err, GS_ERR_IO, "built without microhttpd.h (install libmicrohttpd-dev)");
    return NULL;
}
int broadcast_httpd_port(const broadcast_httpd *h) { (void)h; return 0; }
void broadcast_httpd_stop(broadcast_httpd *h) { (void)h; }

#else

typedef struct mhd_api {
    void *lib;
    struct MHD_Daemon *(*start_daemon)(unsigned int, uint16_t, MHD_AcceptPolicyCallback, void *,
                                       MHD_AccessHandlerCallback, void *, ...);
    void (*stop_daemon)(struct MHD_Daemon *);
    const union MHD_DaemonInfo *(*get_daemon_info)(struct MHD_Daemon *, enum MHD_DaemonInfoType, ...);
    struct MHD_Response *(*from_buffer)(size_t, void *, enum MHD_ResponseMemoryMode);
    struct MHD_Response *(*from_callback)(uint64_t, size_t, MHD_ContentReaderCallback, void *,
                                          MHD_ContentReaderFreeCallback);
    enum MHD_Result (*add_header)(struct MHD_Response *, const char *, const char *);
    enum MHD_Result (*queue)(struct MHD_Connection *, unsigned int, struct MHD_Response *);
    void (*destroy)(struct MHD_Response *);
    const char *(*lookup)(struct MHD_Connection *, enum MHD_ValueKind, const char *);
} mhd_api;

struct broadcast_httpd {
    mhd_api api;
    struct MHD_Daemon *daemon;
    broadcast_handler handler;
    void *ctx;
    int port;
};

/* What one request accumulates between the access handler's calls. */
typedef struct req_state {
    char *body;
    size_t len;
    bool too_big;
} req_state;

static int load_api(mhd_api *a, gs_error *err)
{
    static const char *const sonames[] = {"libmicrohttpd.so.12", "libmicrohttpd.so", NULL};
    a->lib = gs_dl_open(sonames, "libmicrohttpd", "libmicrohttpd12", err);
    if (!a->lib) return -1;
    bool ok = true;
#define LOAD(field, name) ok = ok && gs_dl_fn(a->lib, name, &a->field, sizeof a->field)
    LOAD(start_daemon, "MHD_start_daemon");
    LOAD(stop_daemon, "MHD_stop_daemon");
    LOAD(get_daemon_info, "MHD_get_daemon_info");
    LOAD(from_buffer, "MHD_create_response_from_buffer");
    LOAD(from_callback, "MHD_create_response_from_callback");
    LOAD(add_header, "MHD_add_response_header");
    LOAD(queue, "MHD_queue_response");
    LOAD(destroy, "MHD_destroy_response");
    LOAD(lookup, "MHD_lookup_connection_value");
#undef LOAD
    if (ok) return 0;
    gs_dl_close(a->lib);
    a->lib = NULL;
    gs_error_set(err, GS_ERR_IO, "libmicrohttpd too old (a function is missing)");
    return -1;
}

const char *broadcast_req_header(const broadcast_req *r, const char *name)
{
    return r->httpd_->api.lookup((struct MHD_Connection *)r->conn_, MHD_HEADER_KIND, name);
}

const char *broadcast_req_query(const broadcast_req *r, const char *name)
{
    return r->httpd_->api.lookup((struct MHD_Connection *)r->conn_, MHD_GET_ARGUMENT_KIND, name);
}

typedef struct stream_ctx {
    broadcast_stream_read read;
    broadcast_stream_done done;
    void *cls;
} stream_ctx;

static ssize_t stream_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    stream_ctx *s = cls;
    long n = s->read(s->cls, buf, max);
    return n < 0 ? MHD_CONTENT_READER_END_OF_STREAM : (ssize_t)n;
}

static void stream_free(void *cls)
{
    stream_ctx *s = cls;
    if (s->done) s->done(s->cls);
    free(s);
}

static enum MHD_Result send_resp(broadcast_httpd *h, struct MHD_Connection *c, broadcast_resp *r)
{
    struct MHD_Response *resp = NULL;
    if (r->status == 0) broadcast_resp_error(r, 404, "no such page");
    if (r->stream) {
        stream_ctx *s = malloc(sizeof *s);
        if (s) {
            s->read = r->stream;
            s->done = r->stream_done;
            s->cls = r->stream_cls;
            resp = h->api.from_callback(MHD_SIZE_UNKNOWN, 16 * 1024, stream_reader, s, stream_free);
            if (!resp) free(s);
        }
        if (!resp && r->stream_done) r->stream_done(r->stream_cls);
    } else if (r->body) {
        resp = h->api.from_buffer(r->body_len, r->body, MHD_RESPMEM_MUST_FREE);
        if (!resp) free(r->body);
    } else {
        const char *b = r->static_body ? r->static_body : "";
        resp = h->api.from_buffer(strlen(b), (void *)b, MHD_RESPMEM_PERSISTENT);
    }
    if (!resp) return MHD_NO;
    /* MHD_add_response_header fails only when out of memory; the answer
     * then goes without that header, which every client survives */
    h->api.add_header(resp, "Content-Type", r->content_type ? r->content_type : "text/plain; charset=utf-8");
    h->api.add_header(resp, "X-Content-Type-Options", "nosniff");
    if (r->no_cache || r->stream) h->api.add_header(resp, "Cache-Control", "no-store");
    enum MHD_Result ok = h->api.queue(c, (unsigned)r->status, resp);
    h->api.destroy(resp);
    return ok;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls)
{
    (void)version;
    broadcast_httpd *h = cls;
    bool is_post = !strcmp(method, "POST") || !strcmp(method, "PUT");
    if (!*con_cls) {
        req_state *rs = calloc(1, sizeof *rs);
        if (!rs) return MHD_NO;
        *con_cls = rs;
        if (is_post) {
            /* refuse a huge body before reading it */
            const char *cl = h->api.lookup(c, MHD_HEADER_KIND, "Content-Length");
            if (cl && strtoull(cl, NULL, 10) > BROADCAST_MAX_BODY) {
                broadcast_resp r = {0};
                broadcast_resp_error(&r, 413, "body too large");
                rs->too_big = true;
                return send_resp(h, c, &r);
            }
            return MHD_YES;
        }
    }
    req_state *rs = *con_cls;
    if (is_post && *upload_size) {
        if (!rs->too_big) {
            if (rs->len + *upload_size > BROADCAST_MAX_BODY) {
                rs->too_big = true;
            } else {
                char *nb = realloc(rs->body, rs->len + *upload_size + 1);
                if (!nb) return MHD_NO;
                rs->body = nb;
                memcpy(rs->body + rs->len, upload, *upload_size);
                rs->len += *upload_size;
                rs->body[rs->len] = '\0';
            }
        }
        *upload_size = 0;
        return MHD_YES;
    }
    broadcast_resp r = {0};
    if (rs->too_big) {
        broadcast_resp_error(&r, 413, "body too large");
        return send_resp(h, c, &r);
    }
    broadcast_req req = {method, url, rs->body ? rs->body : (is_post ? "" : NULL), rs->len, c, h};
    h->handler(h->ctx, &req, &r);
    return send_resp(h, c, &r);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode code)
{
    (void)cls; (void)c; (void)code;
    req_state *rs = *con_cls;
    if (rs) {
        free(rs->body);
        free(rs);
        *con_cls = NULL;
    }
}

broadcast_httpd *broadcast_httpd_start(const char *bind_addr, int port, int max_conn,
                                       broadcast_handler handler, void *ctx, gs_error *err)
{
    if (port < 0 || port > 65535) {
        gs_error_set(err, GS_ERR_USAGE, "port %d out of range", port);
        return NULL;
    }
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    const char *addr = bind_addr && *bind_addr ? bind_addr : "127.0.0.1";
    if (!strcmp(addr, "localhost")) addr = "127.0.0.1";
    if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
        gs_error_set(err, GS_ERR_USAGE, "%s: not an IPv4 address", addr);
        return NULL;
    }
    broadcast_httpd *h = calloc(1, sizeof *h);
    if (!h) {
        gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (load_api(&h->api, err)) {
        free(h);
        return NULL;
    }
    h->handler = handler;
    h->ctx = ctx;
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL;
    h->daemon = h->api.start_daemon(flags, (uint16_t)port, NULL, NULL, on_request, h,
                                    MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
                                    MHD_OPTION_CONNECTION_LIMIT, (unsigned)(max_conn > 0 ? max_conn : 512),
                                    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)60,
                                    MHD_OPTION_THREAD_STACK_SIZE, (size_t)(512 * 1024),
                                    MHD_OPTION_NOTIFY_COMPLETED, on_completed, (void *)h,
                                    MHD_OPTION_END);
    if (!h->daemon) {
        gs_error_set(err, GS_ERR_IO, "%s:%d: cannot listen (port taken?)", addr, port);
        gs_dl_close(h->api.lib);
        free(h);
        return NULL;
    }
    const union MHD_DaemonInfo *info = h->api.get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);
    h->port = info ? info->port : port;
    return h;
}

int broadcast_httpd_port(const broadcast_httpd *h) { return h ? h->port : 0; }

void broadcast_httpd_stop(broadcast_httpd *h)
{
    if (!h) return;
    if (h->daemon) h->api.stop_daemon(h->daemon);
    if (h->api.lib) gs_dl_close(h->api.lib);
    free(h);
}

#endif

/* ------------------------------------------------------------- answers */

void broadcast_resp_error(broadcast_resp *resp, int status, const char *msg)
{
    gs_buf b = {0};
    gs_buf_puts(&b, "{\"error\":");
    gs_json_str(&b, msg);
    gs_buf_puts(&b, "}\n");
    free(resp->body);
    memset(resp, 0, sizeof *resp);
    resp->status = status;
    resp->content_type = "application/json";
    if (b.failed) {
        gs_buf_free(&b);
        resp->static_body = "{}\n";
    } else {
        resp->body = b.p;
        resp->body_len = b.len;
    }
}

void broadcast_resp_json(broadcast_resp *resp, gs_buf *b, bool no_cache)
{
    if (b->failed) {
        gs_buf_free(b);
        broadcast_resp_error(resp, 500, "out of memory");
        return;
    }
    resp->status = 200;
    resp->content_type = "application/json";
    resp->body = b->p;
    resp->body_len = b->len;
    resp->no_cache = no_cache;
}

bool broadcast_resp_page(const char *path, const char *page_path, const char *page, broadcast_resp *resp)
{
    static const struct { const char *path, *type; } shared[] = {
        {"/app.js", "text/javascript; charset=utf-8"},
        {"/app.css", "text/css; charset=utf-8"},
    };
    const char *body = NULL, *type = "text/html; charset=utf-8";
    if (!strcmp(path, page_path)) body = page;
    else if (!strcmp(path, shared[0].path)) { body = broadcast_page_js; type = shared[0].type; }
    else if (!strcmp(path, shared[1].path)) { body = broadcast_page_css; type = shared[1].type; }
    if (!body) return false;
    resp->status = 200;
    resp->content_type = type;
    resp->static_body = body;
    return true;
}
