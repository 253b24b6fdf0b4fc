/* broadcast/mqtt.c: MQTT publisher/subscriber over libmosquitto, loaded with
 * dlopen like libmicrohttpd (see http.c) so nothing else needs it.
 * libmosquitto runs its own network thread; publish only queues. */
#include "broadcast/broadcast_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Time to look the broker up and reach it at start. */
#define MQTT_REACH_MS 3000

#if defined(__has_include)
#if __has_include(<mosquitto.h>)
#include <mosquitto.h>
#define BROADCAST_HAVE_MOSQ_H 1
#endif
#endif

#ifndef BROADCAST_HAVE_MOSQ_H

broadcast_mqtt *broadcast_mqtt_open(const char *hostport, const char *client_id, const char *subscribe,
                            broadcast_mqtt_cb cb, void *ctx, const broadcast_mqtt_will *will, gs_error *err)
{
    (void)hostport; (void)client_id; (void)subscribe; (void)cb; (void)ctx; (void)will;
    gs_error_set(err, GS_ERR_IO, "built without mosquitto.h (install libmosquitto-dev)");
    return NULL;
}
void broadcast_mqtt_publish(broadcast_mqtt *m, const char *topic, const char *payload, size_t len, bool retain)
{
    (void)m; (void)topic; (void)payload; (void)len; (void)retain;
}
void broadcast_mqtt_close(broadcast_mqtt *m) { (void)m; }

#else

struct broadcast_mqtt {
    void *lib;
    struct mosquitto *mosq;
    bool loop_started;
    char *subscribe;
    broadcast_mqtt_cb cb;
    void *ctx;
    int (*lib_init)(void);
    struct mosquitto *(*mnew)(const char *, bool, void *);
    void (*destroy)(struct mosquitto *);
    int (*connect)(struct mosquitto *, const char *, int, int);
    int (*disconnect)(struct mosquitto *);
    int (*loop_start)(struct mosquitto *);
    int (*loop_stop)(struct mosquitto *, bool);
    int (*publish)(struct mosquitto *, int *, const char *, int, const void *, int, bool);
    int (*subscribe_fn)(struct mosquitto *, int *, const char *, int);
    void (*message_cb_set)(struct mosquitto *, void (*)(struct mosquitto *, void *, const struct mosquitto_message *));
    void (*connect_cb_set)(struct mosquitto *, void (*)(struct mosquitto *, void *, int));
    int (*reconnect_delay_set)(struct mosquitto *, unsigned int, unsigned int, bool);
    int (*will_set)(struct mosquitto *, const char *, int, const void *, int, bool);
    const char *(*strerror)(int);
};

static void on_message(struct mosquitto *mosq, void *obj, const struct mosquitto_message *msg)
{
    (void)mosq;
    broadcast_mqtt *m = obj;
    if (m->cb && msg && msg->topic && msg->payloadlen >= 0)
        m->cb(m->ctx, msg->topic, msg->payload ? (const char *)msg->payload : "", (size_t)msg->payloadlen);
}

/* (Re)subscribes on every connection, so a broker restart is survived. */
static void on_connect(struct mosquitto *mosq, void *obj, int rc)
{
    broadcast_mqtt *m = obj;
    /* a failed subscribe (connection lost again) is retried on the next connection */
    if (rc == 0 && m->subscribe) m->subscribe_fn(mosq, NULL, m->subscribe, 0);
}

/* libmosquitto's functions into m; false when one is missing (too old). */
static bool mqtt_load(broadcast_mqtt *m)
{
    bool ok = true;
#define LOAD(field, name) ok = ok && gs_dl_fn(m->lib, name, &m->field, sizeof m->field)
    LOAD(lib_init, "mosquitto_lib_init");
    LOAD(mnew, "mosquitto_new");
    LOAD(destroy, "mosquitto_destroy");
    LOAD(connect, "mosquitto_connect");
    LOAD(disconnect, "mosquitto_disconnect");
    LOAD(loop_start, "mosquitto_loop_start");
    LOAD(loop_stop, "mosquitto_loop_stop");
    LOAD(publish, "mosquitto_publish");
    LOAD(subscribe_fn, "mosquitto_subscribe");
    LOAD(message_cb_set, "mosquitto_message_callback_set");
    LOAD(connect_cb_set, "mosquitto_connect_callback_set");
    LOAD(reconnect_delay_set, "mosquitto_reconnect_delay_set");
    LOAD(strerror, "mosquitto_strerror");
    LOAD(will_set, "mosquitto_will_set");
#undef LOAD
    return ok;
}

broadcast_mqtt *broadcast_mqtt_open(const char *hostport, const char *client_id, const char *subscribe,
                            broadcast_mqtt_cb cb, void *ctx, const broadcast_mqtt_will *will, gs_error *err)
{
    char host[256], addr[64], why[300];
    int port;
    if (broadcast_split_hostport(hostport, "127.0.0.1", host, sizeof host, &port) || port == 0) {
        gs_error_set(err, GS_ERR_USAGE, "%s: expected HOST:PORT of an MQTT broker", hostport ? hostport : "");
        return NULL;
    }
    /* libmosquitto's own connect waits on the name lookup and on a broker
     * that never answers as long as the system does (minutes): first a
     * bounded look, then its connect to the address that answered */
    if (broadcast_tcp_reach(host, port, MQTT_REACH_MS, addr, sizeof addr, why, sizeof why)) {
        gs_error_set(err, GS_ERR_IO, "cannot reach the MQTT broker: %s", why);
        return NULL;
    }
    broadcast_mqtt *m = calloc(1, sizeof *m);
    if (!m) {
        gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    static const char *const sonames[] = {"libmosquitto.so.1", "libmosquitto.so", NULL};
    m->lib = gs_dl_open(sonames, "libmosquitto", "libmosquitto1", err);
    if (!m->lib) {
        free(m);
        return NULL;
    }
    if (!mqtt_load(m)) goto missing;
    m->lib_init();  /* fails only on Windows (socket start-up), per its manual */
    m->cb = cb;
    m->ctx = ctx;
    if (subscribe && !(m->subscribe = strdup(subscribe))) goto nomem;
    m->mosq = m->mnew(client_id, true, m);
    if (!m->mosq) goto nomem;
    m->message_cb_set(m->mosq, on_message);
    m->connect_cb_set(m->mosq, on_connect);
    m->reconnect_delay_set(m->mosq, 1, 10, true);  /* fails only on bad arguments, these are good */
    int rc = will ? m->will_set(m->mosq, will->topic, (int)strlen(will->payload), will->payload, 1, true) : 0;
    if (rc) {
        gs_error_set(err, GS_ERR_USAGE, "MQTT last will on %s: %s", will->topic, m->strerror(rc));
        broadcast_mqtt_close(m);
        return NULL;
    }
    rc = m->connect(m->mosq, addr, port, 30);
    if (rc) {
        gs_error_set(err, GS_ERR_IO, "%s: cannot reach the MQTT broker: %s", hostport, m->strerror(rc));
        broadcast_mqtt_close(m);
        return NULL;
    }
    rc = m->loop_start(m->mosq);
    if (rc) {
        gs_error_set(err, GS_ERR_IO, "MQTT thread: %s", m->strerror(rc));
        broadcast_mqtt_close(m);
        return NULL;
    }
    m->loop_started = true;
    return m;
missing:
    gs_dl_close(m->lib);
    free(m);
    gs_error_set(err, GS_ERR_IO, "libmosquitto too old (a function is missing)");
    return NULL;
nomem:
    broadcast_mqtt_close(m);
    gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    return NULL;
}

void broadcast_mqtt_publish(broadcast_mqtt *m, const char *topic, const char *payload, size_t len, bool retain)
{
    if (!m || !m->mosq || len > (1u << 20)) return;
    /* QoS 0 by design: a message lost while the broker is away is made
     * good by the next state, which is retained */
    m->publish(m->mosq, NULL, topic, (int)len, payload, 0, retain);
}

void broadcast_mqtt_close(broadcast_mqtt *m)
{
    if (!m) return;
    if (m->mosq) {
        /* closing: a broker already gone has nothing to be told */
        m->disconnect(m->mosq);
        if (m->loop_started) m->loop_stop(m->mosq, false);
        m->destroy(m->mosq);
    }
    free(m->subscribe);
    gs_dl_close(m->lib);
    free(m);
}

#endif
