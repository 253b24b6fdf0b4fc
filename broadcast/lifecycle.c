/* broadcast/lifecycle.c: one running board: its start (names, token,
 * the HTTP server, its address, MQTT, the announcer), its stop and its
 * accessors.  The rest lives beside it: publish.c (the recorder's side),
 * viewers.c (SSE), frame.c, referee.c, handlers.c (routing) and
 * announce.c; broadcast_internal.h holds the struct they share. */
#include "broadcast/broadcast_internal.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int broadcast_board_port(const broadcast_board *sb) { return sb ? broadcast_httpd_port(sb->httpd) : 0; }
const char *broadcast_board_token(const broadcast_board *sb) { return sb ? sb->token : ""; }
const char *broadcast_board_url(const broadcast_board *sb) { return sb ? sb->url : ""; }

void broadcast_board_stats(broadcast_board *sb, broadcast_stats *out)
{
    memset(out, 0, sizeof *out);
    if (!sb) return;
    pthread_mutex_lock(&sb->mu);
    *out = sb->stats;
    pthread_mutex_unlock(&sb->mu);
    long late, crowded;
    broadcast_httpd_dropped(sb->httpd, &late, &crowded);
    out->dropped = late + crowded;
}

/* ------------------------------------------------------------ lifecycle */

/* The shown name, and the id (MQTT topic segment) made of it or of
 * board_id: lower case, anything but [a-z0-9_-] turned into '-'. */
static void board_set_names(broadcast_board *sb, const broadcast_config *cfg)
{
    snprintf(sb->name, sizeof sb->name, "%s", cfg->board_name && *cfg->board_name ? cfg->board_name : "board");
    const char *idsrc = cfg->board_id && *cfg->board_id ? cfg->board_id : sb->name;
    size_t n = 0;
    for (const char *c = idsrc; *c && n + 1 < sizeof sb->id; c++) {
        char ch = *c;
        if (ch >= 'A' && ch <= 'Z') ch = (char)(ch - 'A' + 'a');
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '-';
        sb->id[n++] = ok ? ch : '-';
    }
    sb->id[n] = '\0';
}

/* The address viewers use: public_url, or http://ADDR:PORT of the server
 * (the host's name when listening on every address). */
static void board_set_url(broadcast_board *sb, const broadcast_config *cfg)
{
    if (cfg->public_url && *cfg->public_url) {
        snprintf(sb->url, sizeof sb->url, "%s", cfg->public_url);
        return;
    }
    const char *addr = cfg->bind_addr && *cfg->bind_addr ? cfg->bind_addr : "127.0.0.1";
    char host[128];
    if (!strcmp(addr, "0.0.0.0") && !gethostname(host, sizeof host)) {
        host[sizeof host - 1] = '\0';
        addr = host;
    }
    snprintf(sb->url, sizeof sb->url, "http://%s:%d", addr, broadcast_httpd_port(sb->httpd));
}

/* Connects to the broker and publishes the board as waiting, so the hall
 * lists it before its first move.  Its presence is goscribe/ID/online,
 * retained: "online" now, "offline" when it stops, and the broker says
 * "offline" for it (its last will) when it dies without a word. */
static gs_status board_open_mqtt(broadcast_board *sb, const char *hostport, gs_error *err)
{
    char cid[96];
    snprintf(cid, sizeof cid, "goscribe-%s-%d", sb->id, (int)getpid());
    const broadcast_mqtt_will will = {sb->topic_online, "offline"};
    sb->mqtt = broadcast_mqtt_open(hostport, cid, NULL, NULL, NULL, &will, err);
    if (!sb->mqtt) return GS_ERR_IO;  /* err says why */
    broadcast_board_mqtt_send(sb, sb->topic_online, "online", 6);
    gs_buf b = {0};
    broadcast_waiting_json(&b, sb->name, sb->id, sb->url);
    if (!b.failed) broadcast_board_mqtt_send(sb, sb->topic_state, b.p, b.len);
    gs_buf_free(&b);
    return GS_OK;
}

/* Keeps the hall's address (trailing '/' dropped) and its token; checked
 * before anything starts, so a wrong address leaves no trace (not even a
 * retained MQTT state of a board that never ran). */
static gs_status board_set_announce(broadcast_board *sb, const broadcast_config *cfg, gs_error *err)
{
    if (!cfg->announce || !*cfg->announce) return GS_OK;
    snprintf(sb->announce_url, sizeof sb->announce_url, "%s", cfg->announce);
    size_t l = strlen(sb->announce_url);
    while (l && sb->announce_url[l - 1] == '/') sb->announce_url[--l] = '\0';
    char host[128];
    if (!broadcast_url_host(sb->announce_url, host, sizeof host) || strlen(cfg->announce) >= sizeof sb->announce_url)
        return gs_error_set(err, GS_ERR_USAGE, "%s: the hall address is http://HOST:PORT", cfg->announce);
    if (!cfg->announce_token || !*cfg->announce_token)
        return gs_error_set(err, GS_ERR_USAGE, "announcing to the hall needs its token (goscribe hall prints it)");
    return broadcast_token_init(sb->announce_token, sizeof sb->announce_token, cfg->announce_token, "hall", err);
}

/* The object with its lock; NULL when out of memory. */
static broadcast_board *board_new(void)
{
    broadcast_board *sb = calloc(1, sizeof *sb);
    if (!sb) return NULL;
    if (!broadcast_sync_init(&sb->mu, &sb->cv)) {
        free(sb);
        return NULL;
    }
    return sb;
}

/* The HTTP server of the board: its limits, and the names its Host header
 * may carry (allow_hosts and the host of public_url). */
static gs_status board_listen(broadcast_board *sb, const broadcast_config *cfg, gs_error *err)
{
    if (cfg->nallow_hosts > 15) return gs_error_set(err, GS_ERR_USAGE, "more than 15 names to allow");
    const char *hosts[16];
    int n = 0;
    for (int i = 0; i < cfg->nallow_hosts; i++) hosts[n++] = cfg->allow_hosts[i];
    char pub[128];
    struct in_addr lit;
    if (broadcast_url_host(cfg->public_url, pub, sizeof pub) && pub[0] != '[' && inet_pton(AF_INET, pub, &lit) != 1)
        hosts[n++] = pub;
    broadcast_httpd_opts o = {cfg->bind_addr, cfg->port, cfg->max_viewers > 0 ? cfg->max_viewers : 512,
                              cfg->max_per_client > 0 ? cfg->max_per_client : 64,
                              cfg->request_ms > 0 ? cfg->request_ms : 10000, hosts, n, NULL, NULL};
    sb->httpd = broadcast_httpd_start(&o, broadcast_board_handler, sb, err);
    return sb->httpd ? GS_OK : GS_ERR_IO;  /* err says why */
}

broadcast_board *broadcast_board_start(const broadcast_config *cfg, gs_error *err)
{
    broadcast_config dflt;
    if (!cfg) {
        broadcast_config_init(&dflt);
        cfg = &dflt;
    }
    broadcast_board *sb = board_new();
    if (!sb) {
        gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    board_set_names(sb, cfg);
    sb->private_pages = cfg->private_pages;
    if (broadcast_token_init(sb->token, sizeof sb->token, cfg->token, "referee", err) != GS_OK) goto fail;
    if (board_set_announce(sb, cfg, err) != GS_OK) goto fail;
    if (board_listen(sb, cfg, err) != GS_OK) goto fail;
    board_set_url(sb, cfg);
    snprintf(sb->topic_state, sizeof sb->topic_state, "goscribe/%s/state", sb->id);
    snprintf(sb->topic_events, sizeof sb->topic_events, "goscribe/%s/events", sb->id);
    snprintf(sb->topic_online, sizeof sb->topic_online, "goscribe/%s/online", sb->id);
    if (cfg->mqtt && *cfg->mqtt && board_open_mqtt(sb, cfg->mqtt, err) != GS_OK) goto fail;
    /* without the thread the board works, it is only not announced */
    if (sb->announce_url[0]) sb->has_announcer = broadcast_board_announcer_start(sb);
    return sb;
fail:
    broadcast_board_stop(sb);
    return NULL;
}

void broadcast_board_stop(broadcast_board *sb)
{
    if (!sb) return;
    broadcast_sync_stop(&sb->mu, &sb->cv, &sb->stopping);
    if (sb->has_announcer) pthread_join(sb->announcer, NULL);  /* joinable, joined once: cannot fail */
    broadcast_httpd_stop(sb->httpd);
    /* a clean stop is no death: the broker drops the will, so say it */
    broadcast_board_mqtt_send(sb, sb->topic_online, "offline", 7);
    broadcast_mqtt_close(sb->mqtt);
    for (int i = 0; i < BROADCAST_RING; i++) free(sb->ring[i].json);
    for (int i = 0; i < BROADCAST_HISTORY; i++) free(sb->history[i]);
    for (int i = 0; i < BROADCAST_EVENTS_KEPT; i++) {
        free(sb->events[i].detail);
        gs_image_destroy(sb->events[i].img[0]);
        gs_image_destroy(sb->events[i].img[1]);
    }
    free(sb->state_json);
    gs_image_destroy(sb->raw);
    free(sb->jpg);
    free(sb->sgf);
    broadcast_sync_destroy(&sb->mu, &sb->cv);
    free(sb);
}
