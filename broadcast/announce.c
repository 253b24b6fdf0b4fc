/* broadcast/announce.c: tells a club hall about the board (POST
 * /api/announce with the hall's token every 3 s, so a hall started later,
 * or restarted, finds the board too, and a board that stops announcing
 * leaves the hall).  The hall then polls the board's /state.json itself. */
#include "broadcast/broadcast_internal.h"

#include <stdio.h>
#include <stdlib.h>

/* Seconds between two announces. */
#define ANNOUNCE_EVERY_S 3

static void *announcer_main(void *arg)
{
    broadcast_board *sb = arg;
    gs_buf body = {0};
    gs_buf_puts(&body, "{");
    broadcast_json_fields(&body, (const broadcast_json_field[]){{"url", sb->url}, {"board", sb->name}, {"board_id", sb->id}}, 3);
    gs_buf_puts(&body, "}");
    char url[256], auth[100];
    snprintf(url, sizeof url, "%s/api/announce", sb->announce_url);
    snprintf(auth, sizeof auth, "X-Goscribe-Token: %s", sb->announce_token);
    pthread_mutex_lock(&sb->mu);
    while (!sb->stopping && !body.failed) {
        pthread_mutex_unlock(&sb->mu);
        int status;
        char *out = NULL, err[200];
        /* a hall that is down or refuses is simply asked again next time */
        if (!broadcast_http_request(url, "POST", body.p, auth, 2000, &status, &out, NULL, err, sizeof err)) free(out);
        pthread_mutex_lock(&sb->mu);
        struct timespec until = broadcast_deadline_in(ANNOUNCE_EVERY_S * 1000);
        while (!sb->stopping && broadcast_cond_wait(&sb->cv, &sb->mu, &until)) {}
    }
    pthread_mutex_unlock(&sb->mu);
    gs_buf_free(&body);
    return NULL;
}

bool broadcast_board_announcer_start(broadcast_board *sb)
{
    return pthread_create(&sb->announcer, NULL, announcer_main, sb) == 0;
}
