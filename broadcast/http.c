/* broadcast/http.c: the HTTP server layer over libmicrohttpd, the checks
 * every request goes through (Host, body type, the token) and the answers
 * every handler builds (JSON, errors, the embedded pages).
 *
 * libmicrohttpd is loaded with dlopen when a server starts, so the goscribe
 * binary (and every other subcommand) works on machines without it, and
 * the library needs no extra link flags.  One thread per connection: an SSE
 * viewer blocks only its own thread, never the recorder or other viewers.
 * Slow clients are the guard's (guard.c): each connection is registered
 * with it when accepted and marked busy once its request has arrived. */
#include "broadcast/broadcast_internal.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

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
broadcast_httpd *broadcast_httpd_start(const broadcast_httpd_opts *o, broadcast_handler handler, void *ctx,
                                       gs_error *err)
{
    (void)o; (void)handler; (void)ctx;
    gs_error_set(err, GS_ERR_IO, "built without microhttpd.h (install libmicrohttpd-dev)");
    return NULL;
}
int broadcast_httpd_port(const broadcast_httpd *h) { (void)h; return 0; }
void broadcast_httpd_dropped(const broadcast_httpd *h, long *late, long *crowded) { (void)h; *late = *crowded = 0; }
void broadcast_httpd_stop(broadcast_httpd *h) { (void)h; }

#else

/* Names the Host header may carry besides the built-in ones. */
#define HTTPD_MAX_HOSTS 16

typedef struct mhd_api {
    void *lib;
    struct MHD_Daemon *(*start_daemon)(unsigned int, uint16_t, MHD_AcceptPolicyCallback, void *,
                                       MHD_AccessHandlerCallback, void *, ...);
    void (*stop_daemon)(struct MHD_Daemon *);
    const union MHD_DaemonInfo *(*get_daemon_info)(struct MHD_Daemon *, enum MHD_DaemonInfoType, ...);
    const union MHD_ConnectionInfo *(*conn_info)(struct MHD_Connection *, enum MHD_ConnectionInfoType, ...);
    struct MHD_Response *(*from_buffer)(size_t, void *, enum MHD_ResponseMemoryMode);
    struct MHD_Response *(*from_callback)(uint64_t, size_t, MHD_ContentReaderCallback, void *,
                                          MHD_ContentReaderFreeCallback);
    enum MHD_Result (*add_header)(struct MHD_Response *, const char *, const char *);
    enum MHD_Result (*set_options)(struct MHD_Response *, enum MHD_ResponseFlags, ...);
    enum MHD_Result (*queue)(struct MHD_Connection *, unsigned int, struct MHD_Response *);
    void (*destroy)(struct MHD_Response *);
    const char *(*lookup)(struct MHD_Connection *, enum MHD_ValueKind, const char *);
} mhd_api;

struct broadcast_httpd {
    mhd_api api;
    struct MHD_Daemon *daemon;
    broadcast_guard *guard;
    broadcast_handler handler;
    void *ctx;
    int port;
    char hostname[256];                      /* the machine's name, "" if unknown */
    char hosts[HTTPD_MAX_HOSTS][256];        /* --allow-host names, lower case */
    int nhosts;
    char upload_suffix[64], upload_token[80]; /* "" = no uploads */
};

/* What one request accumulates between the access handler's calls. */
typedef struct req_state {
    char *body;
    size_t len, cap;
    size_t limit;       /* the largest body taken (BROADCAST_MAX_BODY, an upload's more) */
    bool too_big;
    bool answered;      /* refused at its headers: the body is not read */
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
    LOAD(conn_info, "MHD_get_connection_info");
    LOAD(from_buffer, "MHD_create_response_from_buffer");
    LOAD(from_callback, "MHD_create_response_from_callback");
    LOAD(add_header, "MHD_add_response_header");
    LOAD(set_options, "MHD_set_response_options");
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

/* The body of a 304: none.  libmicrohttpd 0.9.75 gives a buffer answer,
 * even an empty one, "Content-Length: 0", which RFC 9110 (8.6) forbids
 * on a 304 (it would say the 200's body is empty); an answer of unknown
 * length sent the HTTP/1.0 way (no chunks, the connection closed after
 * it) goes without the header. */
static ssize_t no_body(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)cls;
    (void)pos;
    (void)buf;
    (void)max;
    return MHD_CONTENT_READER_END_OF_STREAM;
}

static struct MHD_Response *not_modified(broadcast_httpd *h)
{
    struct MHD_Response *resp = h->api.from_callback(MHD_SIZE_UNKNOWN, 64, no_body, NULL, NULL);
    if (resp && h->api.set_options(resp, MHD_RF_HTTP_VERSION_1_0_ONLY, MHD_RO_END) != MHD_YES) {
        h->api.destroy(resp);
        resp = NULL;
    }
    return resp;
}

static void http_date(int64_t unix_ms, char *out, size_t n)
{
    time_t t = (time_t)(unix_ms / 1000);
    struct tm tm;
    if (!gmtime_r(&t, &tm) || !strftime(out, n, "%a, %d %b %Y %H:%M:%S GMT", &tm)) snprintf(out, n, "%s", "");
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
    } else if (r->status == 304) {
        free(r->body); /* (a 304 has none) */
        resp = not_modified(h);
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
    if (r->etag[0]) {
        char date[40];
        http_date(r->modified_ms, date, sizeof date);
        h->api.add_header(resp, "ETag", r->etag);
        h->api.add_header(resp, "Last-Modified", date);
        h->api.add_header(resp, "Cache-Control", "no-cache");
    } else if (r->no_cache || r->stream) {
        h->api.add_header(resp, "Cache-Control", "no-store");
    }
    enum MHD_Result ok = h->api.queue(c, (unsigned)r->status, resp);
    h->api.destroy(resp);
    return ok;
}

/* ------------------------------------------------------------ the checks */

/* The guard's record of connection c (NULL when it has none). */
static broadcast_guard_conn *conn_of(const broadcast_httpd *h, struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *i = h->api.conn_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return i ? i->socket_context : NULL;
}

/* The name of a Host header "NAME[:PORT]", lower case, into out; false
 * when it is not one.  An IPv6 address never names this server: it
 * listens on IPv4 only. */
static bool host_header_name(const char *host, char *out, size_t outlen)
{
    size_t n = strcspn(host, ":");
    if (n == 0 || n >= outlen) return false;
    if (host[n] == ':') {
        const char *port = host + n + 1;
        size_t digits = strspn(port, "0123456789");
        if (digits == 0 || digits > 5 || port[digits]) return false;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)host[i];
        if (!isalnum(ch) && ch != '-' && ch != '.') return false;
        out[i] = (char)tolower(ch);
    }
    out[n] = '\0';
    return true;
}

/* The address the client of c connected to; false if unknown. */
static bool local_address(const broadcast_httpd *h, struct MHD_Connection *c, struct sockaddr_in *out)
{
    const union MHD_ConnectionInfo *i = h->api.conn_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    socklen_t len = sizeof *out;
    return i && !getsockname(i->connect_fd, (struct sockaddr *)out, &len) && out->sin_family == AF_INET;
}

/* Whether the Host header of c names this server: the address the client
 * connected to, "localhost" on a loopback connection, the machine's name
 * (NAME or NAME.local) or one of the names allowed at start.  A page whose
 * own name was made to resolve to this address (DNS rebinding) sends its
 * own name and is refused. */
static bool host_allowed(const broadcast_httpd *h, struct MHD_Connection *c)
{
    const char *host = h->api.lookup(c, MHD_HEADER_KIND, "Host");
    /* HTTP/1.0 without Host: no browser sends that (HTTP/1.1 without it
     * is refused before) */
    if (!host) return true;
    char name[256];
    if (!host_header_name(host, name, sizeof name)) return false;
    struct sockaddr_in local;
    bool have_local = local_address(h, c, &local);
    struct in_addr lit;
    if (inet_pton(AF_INET, name, &lit) == 1 && have_local && lit.s_addr == local.sin_addr.s_addr) return true;
    if (!strcmp(name, "localhost")) return have_local && ntohl(local.sin_addr.s_addr) >> 24 == 127;
    size_t hn = strlen(h->hostname);
    if (hn && !strncasecmp(name, h->hostname, hn) && (!name[hn] || !strcmp(name + hn, ".local"))) return true;
    for (int i = 0; i < h->nhosts; i++)
        if (!strcmp(name, h->hosts[i])) return true;
    return false;
}

/* Whether a Content-Type header says application/json (parameters such as
 * charset allowed).  Browsers send a cross-site POST without asking first
 * only as text/plain or a form; this type they must ask about, and the
 * server never says yes. */
static bool is_json_type(const char *ct)
{
    static const char json[] = "application/json";
    if (!ct) return false;
    ct += strspn(ct, " \t");
    if (strncasecmp(ct, json, sizeof json - 1)) return false;
    ct += sizeof json - 1;
    ct += strspn(ct, " \t");
    return !*ct || *ct == ';';
}

/* Whether a Content-Type header names an image a count page takes. */
static bool is_image_type(const char *ct)
{
    static const char *const types[] = {"image/jpeg", "image/png", "image/webp"};
    if (!ct) return false;
    ct += strspn(ct, " \t");
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        size_t n = strlen(types[i]);
        if (!strncasecmp(ct, types[i], n) && (!ct[n] || ct[n] == ';' || ct[n] == ' ')) return true;
    }
    return false;
}

/* Whether a POST to url is a photo upload (httpd_opts.upload_suffix). */
static bool is_upload(const broadcast_httpd *h, const char *url)
{
    size_t n = strlen(url), k = strlen(h->upload_suffix);
    return k && n >= k && !strcmp(url + n - k, h->upload_suffix);
}

/* An upload's refusal at its headers (type, size, token), or 0. */
static int refuse_upload(const broadcast_httpd *h, struct MHD_Connection *c, const char **msg)
{
    if (!is_image_type(h->api.lookup(c, MHD_HEADER_KIND, "Content-Type"))) {
        *msg = "the body must be a photo (Content-Type: image/jpeg, image/png or image/webp)";
        return 415;
    }
    const char *cl = h->api.lookup(c, MHD_HEADER_KIND, "Content-Length");
    if (cl && strtoull(cl, NULL, 10) > BROADCAST_MAX_UPLOAD) {
        *msg = "photo too large (24 MB at most)";
        return 413;
    }
    broadcast_req req = {"POST", "", NULL, 0, c, h};
    if (!broadcast_req_token_ok(&req, h->upload_token)) {
        *msg = "the token is missing or wrong (X-Goscribe-Token header)";
        return 403;
    }
    return 0;
}

/* The refusal of a request at its headers, or 0 to go on (then *msg is
 * untouched). */
static int refuse_headers(const broadcast_httpd *h, struct MHD_Connection *c, const char *url, const char *version,
                          bool is_post, const char **msg)
{
    if (strcmp(version, "HTTP/1.0") && !h->api.lookup(c, MHD_HEADER_KIND, "Host")) {
        *msg = "HTTP/1.1 needs a Host header";
        return 400;
    }
    if (!host_allowed(h, c)) {
        *msg = "the Host header does not name this server (start it with --allow-host NAME to serve NAME)";
        return 421;
    }
    if (!is_post) return 0;
    if (is_upload(h, url)) return refuse_upload(h, c, msg);
    if (!is_json_type(h->api.lookup(c, MHD_HEADER_KIND, "Content-Type"))) {
        *msg = "the body must be JSON (Content-Type: application/json)";
        return 415;
    }
    const char *cl = h->api.lookup(c, MHD_HEADER_KIND, "Content-Length");
    if (cl && strtoull(cl, NULL, 10) > BROADCAST_MAX_BODY) {
        *msg = "body too large";
        return 413;
    }
    return 0;
}

/* ------------------------------------------------------------- requests */

/* The first call of a request: its headers are in.  A GET is answered at
 * once (a body it may carry is dropped); a POST's body comes in the next
 * calls. */
static enum MHD_Result request_begin(broadcast_httpd *h, struct MHD_Connection *c, const char *url,
                                     const char *method, const char *version, bool is_post, void **con_cls)
{
    req_state *rs = calloc(1, sizeof *rs);
    if (!rs) return MHD_NO;
    *con_cls = rs;
    rs->limit = is_post && is_upload(h, url) ? BROADCAST_MAX_UPLOAD : BROADCAST_MAX_BODY;
    broadcast_resp r = {0};
    const char *msg = NULL;
    int status = refuse_headers(h, c, url, version, is_post, &msg);
    if (!status && is_post) return MHD_YES;
    broadcast_guard_busy(h->guard, conn_of(h, c));
    if (status) {
        rs->answered = true;  /* a body that follows is not read */
        broadcast_resp_error(&r, status, msg);
        return send_resp(h, c, &r);
    }
    rs->answered = true;
    broadcast_req req = {method, url, NULL, 0, c, h};
    h->handler(h->ctx, &req, &r);
    return send_resp(h, c, &r);
}

/* One piece of a POST body; past its limit (BROADCAST_MAX_BODY, an
 * upload's BROADCAST_MAX_UPLOAD) the rest is dropped (answered 413 at the
 * end).  MHD_NO when out of memory. */
static enum MHD_Result request_body(req_state *rs, const char *upload, size_t n)
{
    if (rs->too_big || rs->answered) return MHD_YES;
    if (rs->len + n > rs->limit) {
        rs->too_big = true;
        return MHD_YES;
    }
    if (rs->len + n + 1 > rs->cap) { /* doubling: a photo comes in many pieces */
        size_t cap = rs->cap ? rs->cap : 1024;
        while (cap < rs->len + n + 1) cap *= 2;
        char *nb = realloc(rs->body, cap);
        if (!nb) return MHD_NO;
        rs->body = nb;
        rs->cap = cap;
    }
    memcpy(rs->body + rs->len, upload, n);
    rs->len += n;
    rs->body[rs->len] = '\0';
    return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls)
{
    broadcast_httpd *h = cls;
    bool is_post = !strcmp(method, "POST") || !strcmp(method, "PUT");
    if (!*con_cls) return request_begin(h, c, url, method, version, is_post, con_cls);
    req_state *rs = *con_cls;
    broadcast_guard_conn *gc = conn_of(h, c);
    if (*upload_size) {
        /* a body trickled in past the deadline: the connection goes */
        if (broadcast_guard_late(h->guard, gc)) return MHD_NO;
        enum MHD_Result ok = request_body(rs, upload, *upload_size);
        *upload_size = 0;
        return ok;
    }
    if (rs->answered) return MHD_YES;
    broadcast_guard_busy(h->guard, gc);
    broadcast_resp r = {0};
    if (rs->too_big) {
        broadcast_resp_error(&r, 413, "body too large");
        return send_resp(h, c, &r);
    }
    broadcast_req req = {method, url, rs->body ? rs->body : "", rs->len, c, h};
    h->handler(h->ctx, &req, &r);
    return send_resp(h, c, &r);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode code)
{
    (void)code;
    broadcast_httpd *h = cls;
    req_state *rs = *con_cls;
    if (rs) {
        free(rs->body);
        free(rs);
        *con_cls = NULL;
    }
    /* kept alive: the next request has its own deadline */
    broadcast_guard_waiting(h->guard, conn_of(h, c));
}

/* Paths are taken as sent, never %-decoded: every path served is plain
 * ASCII, and "/state.json%00.html" must not become "/state.json". */
static size_t on_unescape(void *cls, struct MHD_Connection *c, char *s)
{
    (void)cls;
    (void)c;
    return strlen(s);
}

/* Registers a new connection with the guard, forgets a closed one. */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
    broadcast_httpd *h = cls;
    if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
        broadcast_guard_close(h->guard, *socket_context);
        *socket_context = NULL;
        return;
    }
    const union MHD_ConnectionInfo *fd = h->api.conn_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    const union MHD_ConnectionInfo *ai = h->api.conn_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!fd) return;
    uint32_t ip = 0;
    if (ai && ai->client_addr && ai->client_addr->sa_family == AF_INET) {
        struct sockaddr_in sin;
        memcpy(&sin, ai->client_addr, sizeof sin);
        ip = ntohl(sin.sin_addr.s_addr);
    }
    *socket_context = broadcast_guard_open(h->guard, fd->connect_fd, ip);
    /* no room to watch it (cannot happen: the table is as large as the
     * server's limit): better closed than unwatched; the peer has gone if
     * this fails */
    if (!*socket_context) (void)shutdown(fd->connect_fd, SHUT_RDWR);
}

/* Keeps the names allowed in the Host header (lower case); false with err
 * when one is not a host name. */
static bool httpd_set_hosts(broadcast_httpd *h, const broadcast_httpd_opts *o, gs_error *err)
{
    if (gethostname(h->hostname, sizeof h->hostname)) h->hostname[0] = '\0';
    h->hostname[sizeof h->hostname - 1] = '\0';
    if (o->nhosts > HTTPD_MAX_HOSTS) {
        gs_error_set(err, GS_ERR_USAGE, "more than %d names to allow", HTTPD_MAX_HOSTS);
        return false;
    }
    for (int i = 0; i < o->nhosts; i++) {
        if (!host_header_name(o->hosts[i], h->hosts[h->nhosts], sizeof h->hosts[0]) || strchr(o->hosts[i], ':')) {
            gs_error_set(err, GS_ERR_USAGE, "%s: not a host name", o->hosts[i]);
            return false;
        }
        h->nhosts++;
    }
    return true;
}

/* The daemon itself; false when it cannot listen. */
static bool httpd_listen(broadcast_httpd *h, const broadcast_httpd_opts *o, const struct sockaddr_in *sa)
{
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL;
    h->daemon = h->api.start_daemon(flags, (uint16_t)o->port, NULL, NULL, on_request, h,
                                    MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)sa,
                                    MHD_OPTION_CONNECTION_LIMIT, (unsigned)o->max_conn,
                                    MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)o->max_per_client,
                                    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)60,
                                    MHD_OPTION_THREAD_STACK_SIZE, (size_t)(512 * 1024),
                                    MHD_OPTION_NOTIFY_COMPLETED, on_completed, (void *)h,
                                    MHD_OPTION_NOTIFY_CONNECTION, on_connection, (void *)h,
                                    MHD_OPTION_UNESCAPE_CALLBACK, on_unescape, (void *)h,
                                    MHD_OPTION_END);
    if (!h->daemon) return false;
    const union MHD_DaemonInfo *info = h->api.get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);
    h->port = info ? info->port : o->port;
    return true;
}

broadcast_httpd *broadcast_httpd_start(const broadcast_httpd_opts *o, broadcast_handler handler, void *ctx,
                                       gs_error *err)
{
    if (o->port < 0 || o->port > 65535 || o->max_conn < 1 || o->max_per_client < 1 || o->request_ms < 1) {
        gs_error_set(err, GS_ERR_USAGE, "port %d, %d connections (%d a client), %d ms a request: out of range",
                     o->port, o->max_conn, o->max_per_client, o->request_ms);
        return NULL;
    }
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)o->port);
    const char *addr = o->bind_addr && *o->bind_addr ? o->bind_addr : "127.0.0.1";
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
    h->handler = handler;
    h->ctx = ctx;
    if (o->upload_suffix && o->upload_token) {
        snprintf(h->upload_suffix, sizeof h->upload_suffix, "%s", o->upload_suffix);
        snprintf(h->upload_token, sizeof h->upload_token, "%s", o->upload_token);
    }
    if (!httpd_set_hosts(h, o, err) || load_api(&h->api, err)) {
        free(h);
        return NULL;
    }
    h->guard = broadcast_guard_create(o->max_conn, o->max_per_client, o->request_ms, err);
    if (!h->guard) {
        broadcast_httpd_stop(h);
        return NULL;
    }
    if (!httpd_listen(h, o, &sa)) {
        gs_error_set(err, GS_ERR_IO, "%s:%d: cannot listen (port taken?)", addr, o->port);
        broadcast_httpd_stop(h);
        return NULL;
    }
    return h;
}

int broadcast_httpd_port(const broadcast_httpd *h) { return h ? h->port : 0; }

void broadcast_httpd_dropped(const broadcast_httpd *h, long *late, long *crowded)
{
    *late = *crowded = 0;
    if (h && h->guard) broadcast_guard_counts(h->guard, late, crowded);
}

void broadcast_httpd_stop(broadcast_httpd *h)
{
    if (!h) return;
    if (h->daemon) h->api.stop_daemon(h->daemon);  /* closes every connection: the guard is done with */
    broadcast_guard_destroy(h->guard);
    if (h->api.lib) gs_dl_close(h->api.lib);
    free(h);
}

#endif

/* ------------------------------------------------------------ tokens */

/* Constant-time comparison so the token cannot be guessed byte by byte. */
static bool token_equal(const char *want, const char *given)
{
    if (!given || !want || !*want) return false;
    size_t a = strlen(want), b = strlen(given);
    unsigned diff = (unsigned)(a ^ b);
    for (size_t i = 0; i < a; i++) diff |= (unsigned)(want[i] ^ (i < b ? given[i] : 0));
    return diff == 0;
}

bool broadcast_req_token_ok(const broadcast_req *r, const char *token)
{
    const char *auth = broadcast_req_header(r, "Authorization");
    if (auth && !strncasecmp(auth, "Bearer ", 7)) return token_equal(token, auth + 7);
    return token_equal(token, broadcast_req_header(r, "X-Goscribe-Token"));
}

void broadcast_resp_no_token(const broadcast_req *r, broadcast_resp *resp, const char *whose)
{
    char msg[128];
    if (broadcast_req_query(r, "token"))
        snprintf(msg, sizeof msg, "the %s token goes in the X-Goscribe-Token header, not in the URL", whose);
    else snprintf(msg, sizeof msg, "the %s token is missing or wrong (X-Goscribe-Token header)", whose);
    broadcast_resp_error(resp, 403, msg);
}

gs_status broadcast_token_init(char *out, size_t outlen, const char *given, const char *what, gs_error *err)
{
    if (given && *given) {
        size_t n = strlen(given);
        bool ok = n >= 8 && n <= 64 && n < outlen;
        for (const char *p = given; ok && *p; p++) ok = *p > ' ' && *p < 0x7f;
        if (!ok) return gs_error_set(err, GS_ERR_USAGE, "the %s token must have 8 to 64 printable characters, no spaces",
                                     what);
        memcpy(out, given, n + 1);
        return GS_OK;
    }
    uint8_t rnd[16];
    if (outlen < 2 * sizeof rnd + 1 || getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
        return gs_error_set(err, GS_ERR_IO, "no random bytes for the %s token", what);
    for (size_t i = 0; i < sizeof rnd; i++) snprintf(out + 2 * i, 3, "%02x", rnd[i]);
    return GS_OK;
}

bool broadcast_url_host(const char *url, char *out, size_t outlen)
{
    if (!url || strncmp(url, "http://", 7)) return false;
    const char *h = url + 7;
    size_t n = h[0] == '[' ? strcspn(h, "]") + 1 : strcspn(h, ":/?#");
    if (n == 0 || n >= outlen || (h[0] == '[' && h[n - 1] != ']')) return false;
    memcpy(out, h, n);
    out[n] = '\0';
    return true;
}

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

void broadcast_etag(const char *body, size_t len, char out[24])
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a, 64 bits */
    for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)body[i]) * 1099511628211ULL;
    snprintf(out, 24, "\"%016llx\"", (unsigned long long)h);
}

/* An HTTP date ("Sun, 06 Nov 1994 08:49:37 GMT") as Unix seconds; -1
 * when it is not one. */
static int64_t parse_http_date(const char *s)
{
    static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
    char mon[4], gmt[4];
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    int used = 0;
    if (!s || sscanf(s, "%*3s, %2d %3s %4d %2d:%2d:%2d %3s%n", &tm.tm_mday, mon, &tm.tm_year, &tm.tm_hour, &tm.tm_min,
                     &tm.tm_sec, gmt, &used) != 7 || s[used] || strcmp(gmt, "GMT"))
        return -1;
    const char *m = strstr(months, mon);
    if (!m || (m - months) % 3) return -1;
    tm.tm_mon = (int)(m - months) / 3;
    tm.tm_year -= 1900;
    return (int64_t)timegm(&tm);
}

/* Whether the client already has the answer with this ETag and date. */
static bool client_has(const broadcast_req *req, const char *etag, int64_t modified_ms)
{
    const char *inm = broadcast_req_header(req, "If-None-Match");
    if (inm) {
        if (!strcmp(inm, "*")) return true;
        /* a list of tags, each possibly weak (W/"...") */
        size_t n = strlen(etag);
        for (const char *p = strstr(inm, etag); p; p = strstr(p + 1, etag)) {
            bool starts = p == inm || p[-1] == ' ' || p[-1] == ',' || p[-1] == '/';
            bool ends = !p[n] || p[n] == ',' || p[n] == ' ';
            if (starts && ends) return true;
        }
        return false;
    }
    int64_t since = parse_http_date(broadcast_req_header(req, "If-Modified-Since"));
    return since >= 0 && modified_ms / 1000 <= since;
}

void broadcast_resp_cached(const broadcast_req *req, broadcast_resp *resp, const char *type, const char *body,
                           size_t len, const char *etag, int64_t modified_ms)
{
    memset(resp, 0, sizeof *resp);
    resp->content_type = type;
    snprintf(resp->etag, sizeof resp->etag, "%s", etag);
    resp->modified_ms = modified_ms;
    if (client_has(req, etag, modified_ms)) {
        resp->status = 304;
        resp->static_body = "";
        return;
    }
    resp->body = malloc(len + 1);
    if (!resp->body) {
        broadcast_resp_error(resp, 500, "out of memory");
        return;
    }
    memcpy(resp->body, body, len);
    resp->body[len] = '\0';
    resp->body_len = len;
    resp->status = 200;
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
