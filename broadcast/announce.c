/* broadcast/announce.c: tells a club hall about the board (POST
 * /api/announce every 3 s, so a hall started later, or restarted, finds
 * the board too).  The hall then polls the board's /state.json itself. */
#include "broadcast/broadcast_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Seconds between two announces. */
#define ANNOUNCE_EVERY_S 3

static void *announcer_main(void *arg)
{
    broadcast_board *sb = arg;
    gs_buf body = {0};
    gs_buf_puts(&body, "{");
    broadcast_json_fields(&body, (const broadcast_json_field[]){{"url", sb->url}, {"board", sb->name}, {"board_id", sb->id}}, 3);
    gs_buf_puts(&body, "}");
    char url[256];
    snprintf(url, sizeof url, "%s/api/announce", sb->announce_url);
    pthread_mutex_lock(&sb->mu);
    while (!sb->stopping && !body.failed) {
        pthread_mutex_unlock(&sb->mu);
        int status;
        char *out = NULL, err[200];
        /* a hall that is down or refuses is simply asked again next time */
        if (!broadcast_http_request(url, "POST", body.p, NULL, 2000, &status, &out, NULL, err, sizeof err)) free(out);
        pthread_mutex_lock(&sb->mu);
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);  /* cannot fail for CLOCK_REALTIME */
        ts.tv_sec += ANNOUNCE_EVERY_S;
        while (!sb->stopping && pthread_cond_timedwait(&sb->cv, &sb->mu, &ts) == 0) {}
    }
    pthread_mutex_unlock(&sb->mu);
    gs_buf_free(&body);
    return NULL;
}

bool broadcast_board_announcer_start(broadcast_board *sb)
{
    return pthread_create(&sb->announcer, NULL, announcer_main, sb) == 0;
}
