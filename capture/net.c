/* capture/net.c: the network backend: a URL FFmpeg reads (through cvshim),
 * such as a phone camera app's MJPEG over HTTP or an IP camera's RTSP.
 *
 * A stream that drops (Wi-Fi) is a camera unplugged: the failed read
 * reports CAPTURE_LOST, and the next reads reconnect, the waits between
 * tries doubling from NET_BACKOFF_FIRST_MS to NET_BACKOFF_MAX_MS, until
 * reopen_ms has gone by (then CAPTURE_ERROR).  The reads wait in short
 * slices, so the caller sees a stop request while the stream is away.
 *
 * Times are the stream's own (RTSP's timestamps) when it carries them, else
 * when each frame arrived (MJPEG over HTTP has none).  Each connection
 * starts its clock where the last one stopped plus the time the stream was
 * away, so a gap shows in the times as it does for a camera.
 *
 * The URL may hold credentials: only capture_spec_shown's form of it is
 * ever written anywhere (errors, notes). */
#include "capture/capture_impl.h"

#include "cvshim/cvshim.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define NET_TIMEOUT_MS 5000        /* capture_options.timeout_ms's default */
#define NET_REOPEN_MS 600000       /* capture_options.reopen_ms's default */
#define NET_BACKOFF_FIRST_MS 500
#define NET_BACKOFF_MAX_MS 8000
#define NET_SLICE_MS 250           /* the longest a read sleeps while away */

typedef struct net_impl {
    char *url;                     /* as given: never printed */
    char shown[512];               /* capture_spec_shown(url) */
    capture_options opt;
    cvshim_video *v;               /* NULL while the stream is away */
    gs_image *frame;
    bool have_first;               /* a connection's first frame, read when it opened, not yet returned */
    double first_pts;
    /* the clock (see the head of the file) */
    bool started, seg_new, stamped;
    double seg_pts0, seg_mono0, seg_t0; /* this connection's first frame: its stream time, arrival, source time */
    int64_t seg_wall0;             /* ... and the wall clock then */
    double last_t, last_mono;      /* the last frame's source time and arrival */
    /* away */
    double lost_since, next_try;   /* gs_now_ms() */
    int backoff_ms;
} net_impl;

/* ------------------------------------------------------------ the URL */

static const char *const net_schemes[] = {"http", "https", "rtsp", "rtsps", "rtmp", "rtp", "udp", "tcp", "srt"};

size_t capture_url_scheme_len(const char *spec)
{
    size_t n = 0;
    while (isalpha((unsigned char)spec[n]) || (n > 0 && (isdigit((unsigned char)spec[n]) || spec[n] == '+' ||
                                                         spec[n] == '-' || spec[n] == '.')))
        n++;
    return n > 0 && !strncmp(spec + n, "://", 3) ? n : 0;
}

bool capture_spec_is_network(const char *spec)
{
    size_t n = spec ? capture_url_scheme_len(spec) : 0;
    for (size_t i = 0; n && i < sizeof net_schemes / sizeof net_schemes[0]; i++)
        if (strlen(net_schemes[i]) == n && !strncasecmp(spec, net_schemes[i], n)) return true;
    return false;
}

/* A query parameter's name that may hold a secret. */
static bool secret_name(const char *name, size_t len)
{
    static const char *const words[] = {"user", "pass", "pwd", "token", "key", "auth", "secret", "sig"};
    char low[64];
    if (len >= sizeof low) len = sizeof low - 1;
    for (size_t i = 0; i < len; i++) low[i] = (char)tolower((unsigned char)name[i]);
    low[len] = '\0';
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strstr(low, words[i])) return true;
    return false;
}

/* Appends n bytes of s to buf (len bytes, *k used), cut at the end. */
static void put(char *buf, size_t len, size_t *k, const char *s, size_t n)
{
    while (n-- > 0 && *k + 1 < len) buf[(*k)++] = *s++;
    buf[*k] = '\0';
}

/* The query "a=1&pwd=x" with the secrets' values hidden. */
static void put_query(char *buf, size_t len, size_t *k, const char *q)
{
    while (*q) {
        size_t part = strcspn(q, "&;#"), name = strcspn(q, "=&;#");
        put(buf, len, k, q, name);
        if (name < part) put(buf, len, k, "=", 1);
        if (name < part && secret_name(q, name)) put(buf, len, k, "***", 3);
        else if (name < part) put(buf, len, k, q + name + 1, part - name - 1);
        q += part;
        if (*q == '#') {
            put(buf, len, k, "#", 1); /* a fragment never reaches the server: shown as it is */
            put(buf, len, k, q + 1, strlen(q + 1));
            return;
        }
        if (*q) put(buf, len, k, q++, 1);
    }
}

/* One URL (all of url) shown: its user:password@ and its query's secrets
 * as "***". */
static void put_url(char *buf, size_t len, size_t *k, const char *url)
{
    const char *auth = url + capture_url_scheme_len(url) + 3, *end = auth + strcspn(auth, "/?#");
    const char *at = NULL;
    for (const char *p = auth; p < end; p++)
        if (*p == '@') at = p; /* the last '@': a password may hold one */
    put(buf, len, k, url, (size_t)(auth - url));
    if (at) put(buf, len, k, "***", 3);
    const char *host = at ? at : auth;
    put(buf, len, k, host, (size_t)(end - host));
    const char *q = strchr(end, '?');
    const char *frag = strchr(end, '#');
    if (q && frag && frag < q) q = NULL;
    put(buf, len, k, end, q ? (size_t)(q - end) : strlen(end));
    if (q) {
        put(buf, len, k, "?", 1);
        put_query(buf, len, k, q + 1);
    }
}

/* A URL starts at text + i: "SCHEME://" not inside a longer word. */
static bool url_at(const char *text, size_t i)
{
    if (i > 0) {
        unsigned char b = (unsigned char)text[i - 1];
        if (isalnum(b) || b == '+' || b == '-' || b == '.') return false;
    }
    return capture_url_scheme_len(text + i) > 0;
}

char *capture_spec_shown(const char *spec, char *buf, size_t len)
{
    if (!buf || len == 0) return buf;
    size_t k = 0;
    buf[0] = '\0';
    for (size_t i = 0; spec && spec[i];) {
        if (!url_at(spec, i)) {
            put(buf, len, &k, spec + i++, 1);
            continue;
        }
        size_t n = strcspn(spec + i, " \t\r\n\"'<>"); /* where a URL in a line of text ends */
        char *url = strndup(spec + i, n);
        if (url) put_url(buf, len, &k, url);
        else put(buf, len, &k, "***", 3); /* no memory: nothing of it rather than all */
        free(url);
        i += n;
    }
    return buf;
}

/* ------------------------------------------------------- connecting */

static void sleep_ms(double ms)
{
    if (!(ms > 0)) return;
    struct timespec ts = {(time_t)(ms / 1000), (long)((long)ms % 1000) * 1000000L};
    (void)nanosleep(&ts, NULL); /* cut short by a signal: the caller's loop sees it */
}

static int net_timeout(const net_impl *n) { return n->opt.timeout_ms > 0 ? n->opt.timeout_ms : NET_TIMEOUT_MS; }

/* Opens the stream and reads its first frame (n->first_pts); on failure
 * why says what went wrong, in words, without the URL. */
static gs_status net_connect(net_impl *n, gs_error *why)
{
    int timeout = net_timeout(n);
    double t0 = gs_now_ms();
    gs_error e;
    cvshim_video *v = cvshim_stream_open(n->url, timeout, timeout, &e);
    if (!v) {
        if (gs_now_ms() - t0 >= 0.9 * timeout)
            return gs_error_set(why, GS_ERR_IO, "no answer within %.0f s", timeout / 1000.0);
        return gs_error_set(why, GS_ERR_IO, "no video stream there (nothing listening, a wrong path or "
                                            "credentials, or not a stream FFmpeg reads)");
    }
    int w, h;
    cvshim_video_size(v, &w, &h);
    long long budget = cvshim_max_pixels(n->opt.max_pixels);
    if ((long long)w * h > budget) {
        cvshim_video_close(v);
        return gs_error_set(why, GS_ERR_FORMAT, "%d x %d frames are %lld pixels, over the pixel budget of %lld "
                            "(raise it with --max-pixels N or GOSCRIBE_MAX_PIXELS)", w, h, (long long)w * h, budget);
    }
    cvshim_video_set_max_pixels(v, budget);
    if (cvshim_video_read(v, &n->frame, &n->first_pts) != 1) {
        cvshim_video_close(v);
        return gs_error_set(why, GS_ERR_IO, "connected, but no frame came within %.0f s", timeout / 1000.0);
    }
    n->v = v;
    n->have_first = true;
    n->seg_new = true;
    return GS_OK;
}

/* The read that failed: the stream is away from now on. */
static capture_result net_lost(capture_source *s, net_impl *n, double read_ms)
{
    cvshim_video_close(n->v);
    n->v = NULL;
    n->lost_since = gs_now_ms();
    n->backoff_ms = NET_BACKOFF_FIRST_MS;
    n->next_try = n->lost_since + n->backoff_ms;
    if (read_ms >= 0.9 * net_timeout(n))
        capture_set_error(s, "%s: stream lost (no frame for %.0f s); reconnecting", n->shown, read_ms / 1000.0);
    else
        capture_set_error(s, "%s: stream lost (the connection closed); reconnecting", n->shown);
    return CAPTURE_LOST;
}

/* While the stream is away: a try to reconnect when its time has come
 * (CAPTURE_FRAME: back, its first frame waiting), else a short sleep. */
static capture_result net_reconnect(capture_source *s, net_impl *n)
{
    double now = gs_now_ms();
    int limit = n->opt.reopen_ms == 0 ? NET_REOPEN_MS : n->opt.reopen_ms;
    if (limit > 0 && now - n->lost_since > limit) {
        capture_set_error(s, "%s: the stream did not come back in %.0f s", n->shown, limit / 1000.0);
        return CAPTURE_ERROR;
    }
    if (now < n->next_try) {
        sleep_ms(n->next_try - now < NET_SLICE_MS ? n->next_try - now : NET_SLICE_MS);
        return CAPTURE_LOST;
    }
    gs_error why;
    if (net_connect(n, &why) == GS_OK) return CAPTURE_FRAME;
    n->backoff_ms = n->backoff_ms * 2 < NET_BACKOFF_MAX_MS ? n->backoff_ms * 2 : NET_BACKOFF_MAX_MS;
    n->next_try = gs_now_ms() + n->backoff_ms;
    capture_set_error(s, "%s: still away (%s), away for %.0f s; next try in %.1f s", n->shown, why.msg,
                      (gs_now_ms() - n->lost_since) / 1000.0, n->backoff_ms / 1000.0);
    return CAPTURE_LOST;
}

/* --------------------------------------------------------- the clock */

/* A frame's times from its stream time pts (outside 0..1e12: none). */
static void net_frame_time(net_impl *n, double pts, capture_info *info)
{
    double now = gs_now_ms();
    bool have_pts = pts >= 0 && pts < 1e12;
    if (n->seg_new) {
        n->seg_new = false;
        n->stamped = have_pts;
        n->seg_pts0 = have_pts ? pts : 0;
        n->seg_mono0 = now;
        n->seg_wall0 = gs_wall_ms();
        /* the time the stream was away shows as a gap */
        n->seg_t0 = n->started ? n->last_t + (now - n->last_mono) : 0;
    }
    double t = n->stamped && have_pts ? n->seg_t0 + (pts - n->seg_pts0) : n->seg_t0 + (now - n->seg_mono0);
    if (n->started && t <= n->last_t) t = n->last_t + 1; /* never back in time */
    n->started = true;
    n->last_t = t;
    n->last_mono = now;
    info->t_ms = t;
    info->unix_ms = n->seg_wall0 + (int64_t)(t - n->seg_t0 + 0.5);
}

/* ------------------------------------------------------------ backend */

static capture_result net_read(capture_source *s, const gs_image **frame, capture_info *info)
{
    net_impl *n = s->impl;
    if (!n->v) {
        capture_result r = net_reconnect(s, n);
        if (r != CAPTURE_FRAME) return r;
    }
    double pts = -1;
    if (n->have_first) {
        n->have_first = false;
        pts = n->first_pts;
    } else {
        double t0 = gs_now_ms();
        if (cvshim_video_read(n->v, &n->frame, &pts) != 1) return net_lost(s, n, gs_now_ms() - t0);
    }
    net_frame_time(n, pts, info);
    *frame = n->frame;
    return CAPTURE_FRAME;
}

static void net_close(capture_source *s)
{
    net_impl *n = s->impl;
    if (!n) return;
    cvshim_video_close(n->v);
    gs_image_destroy(n->frame);
    free(n->url);
    free(n);
}

static const capture_ops net_ops = {"network", net_read, net_close};

/* The URL's scheme is one goscribe reads (capture_spec_is_network). */
static gs_status net_check_scheme(const char *url, const char *shown, gs_error *err)
{
    if (capture_spec_is_network(url)) return GS_OK;
    return gs_error_set(err, GS_ERR_USAGE, "%s: not a source goscribe reads (a URL is http://, https://, rtsp://, "
                        "rtsps://, rtmp://, rtp://, udp://, tcp:// or srt://)", shown);
}

capture_source *capture_open_network(const char *url, const capture_options *opt, gs_error *err)
{
    char shown[512];
    capture_spec_shown(url, shown, sizeof shown);
    if (net_check_scheme(url, shown, err) != GS_OK) return NULL;
    net_impl *n = calloc(1, sizeof *n);
    capture_source *s = n && (n->url = strdup(url)) ? capture_new(CAPTURE_NETWORK, &net_ops, n) : NULL;
    if (!s) {
        if (n) free(n->url);
        free(n);
        gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    snprintf(n->shown, sizeof n->shown, "%s", shown);
    if (opt) n->opt = *opt;
    gs_error why;
    if (net_connect(n, &why) != GS_OK) {
        gs_error_set(err, why.status, "%s: %s", shown, why.msg);
        capture_close(s);
        return NULL;
    }
    n->stamped = n->first_pts >= 0 && n->first_pts < 1e12;
    s->fps = n->stamped ? cvshim_video_fps(n->v) : 0; /* without timestamps its rate is FFmpeg's guess */
    if (!(s->fps > 0 && s->fps < 1000)) s->fps = 0;
    snprintf(s->clock_note, sizeof s->clock_note, "%s",
             n->stamped ? "times of play from the stream's own timestamps, from the wall clock at its first frame"
                        : "the stream carries no timestamps (MJPEG over HTTP has none): times of play are when "
                          "each frame arrived");
    return s;
}
