/* broadcast/count_session.c: one count page's state and API (the page of
 * `count PHOTO --serve` and the hall's "count this board"): the photo, its
 * board read (or why not), and the count put right by hand (score_fix):
 *   GET  api/state       the count as it stands (doc/json.md, "The count page")
 *   GET  api/photo.jpg   the photo as read (at most PHOTO_SHOWN px a side)
 *   POST api/point       {"point":"pd","color":"B"|"W"|""}: the point is that
 *   POST api/life        {"point":"pd","life":"dead"|"alive"|"auto"}: its chain
 *   POST api/corners     {"corners":[[x,y]x4],"size":19}: the board read there
 *   POST api/confirm     {"by":"Ann"}: the count as it stands is the result
 * Every change answers with the new state.  The caller checks the token;
 * one lock holds the session while a change is counted. */
#include "broadcast/broadcast_internal.h"

#include "calib/calib.h"
#include "cvshim/cvshim.h"
#include "sgf/sgf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The photo is shown at most this many pixels a side: a phone shows 390
 * css px (a few times that in device pixels), and 12 MP would cost seconds
 * over a club's wifi; the coordinates stay the photo's own. */
#define PHOTO_SHOWN 1600

struct broadcast_count_session {
    pthread_mutex_t mu;
    gs_image *img;               /* the photo as read: its pixels are the page's coordinates */
    uint8_t *jpg;                /* ... as shown */
    size_t jpg_len;
    score_count_options opts;    /* komi, handicap, dead stones, size looked for */
    bool found;                  /* a board is read */
    char reason[sizeof(gs_error){0}.msg]; /* ... else why not */
    vision_grid grid;
    score_fix *fix;              /* the count as it stands */
    long version;                /* moves on with each change */
};

/* ---------------------------------------------------------- the reading */

/* The board of the photo read (on grid, or searched for) and counted into
 * s->fix; a board not found is no error (s->reason says why). */
static gs_status session_read(broadcast_count_session *s, const vision_grid *grid, gs_error *err)
{
    vision_result *res = calloc(1, sizeof *res);
    score_count_result *r = malloc(sizeof *r);
    gs_status st = res && r ? GS_OK : gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    vision_detector *d = st == GS_OK ? vision_detector_open(NULL, s->opts.model_file, err) : NULL;
    if (st == GS_OK && !d) st = err ? err->status : GS_ERR_NOMEM;
    vision_request rq = {.size_hint = grid ? grid->size : s->opts.size_hint, .grid = grid};
    gs_error e = {0};
    if (st == GS_OK) st = vision_detect_photo(d, s->img, &rq, res, &e);
    if (st == GS_ERR_NOBOARD) { /* the page asks for the corners */
        s->found = false;
        snprintf(s->reason, sizeof s->reason, "%s", e.msg);
        st = GS_OK;
    } else if (st == GS_OK) {
        st = score_count_reading(res, &s->opts, r, &e);
        if (st == GS_OK) st = score_fix_init(s->fix, r, &e);
        s->found = st == GS_OK;
        s->grid = res->grid;
        s->reason[0] = '\0';
    }
    if (st != GS_OK && err && st != GS_ERR_NOMEM) *err = e;
    s->version++;
    vision_detector_destroy(d);
    free(res);
    free(r);
    return st;
}

/* The photo as shown: scaled down to PHOTO_SHOWN, JPEG. */
static gs_status session_jpeg(broadcast_count_session *s, gs_error *err)
{
    const gs_image *img = s->img;
    gs_image *small = NULL;
    int side = img->width > img->height ? img->width : img->height;
    if (side > PHOTO_SHOWN) {
        small = cvshim_image_resize(img, img->width * PHOTO_SHOWN / side, img->height * PHOTO_SHOWN / side);
        if (!small) return gs_error_set(err, GS_ERR_NOMEM, "out of memory for the photo shown");
        img = small;
    }
    int rc = cvshim_image_encode_jpeg(img, 85, &s->jpg, &s->jpg_len);
    gs_image_destroy(small);
    return rc == 0 ? GS_OK : gs_error_set(err, GS_ERR_NOMEM, "the photo cannot be encoded to be shown");
}

broadcast_count_session *broadcast_count_session_create(gs_image *photo, const score_count_options *o, gs_error *err)
{
    broadcast_count_session *s = calloc(1, sizeof *s);
    if (s) s->fix = calloc(1, sizeof *s->fix);
    if (!s || !s->fix || pthread_mutex_init(&s->mu, NULL) != 0) {
        if (s) free(s->fix);
        free(s);
        gs_image_destroy(photo);
        gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    s->img = photo;
    s->opts = *o;
    s->opts.input = NULL;
    s->opts.overlay_path = s->opts.sgf_path = NULL;
    vision_grid given;
    gs_status st = session_jpeg(s, err);
    if (st == GS_OK && o->has_corners)
        st = vision_grid_from_corners(&given, o->size_hint ? o->size_hint : 19, (const double(*)[2])o->corners, err);
    if (st == GS_OK) st = session_read(s, o->has_corners ? &given : NULL, err);
    if (st != GS_OK) {
        broadcast_count_session_destroy(s);
        return NULL;
    }
    return s;
}

void broadcast_count_session_destroy(broadcast_count_session *s)
{
    if (!s) return;
    pthread_mutex_destroy(&s->mu);
    gs_image_destroy(s->img);
    free(s->jpg);
    free(s->fix);
    free(s);
}

bool broadcast_count_session_result(broadcast_count_session *s, score_count_result *out)
{
    pthread_mutex_lock(&s->mu);
    bool found = s->found;
    if (found) *out = s->fix->r;
    pthread_mutex_unlock(&s->mu);
    return found;
}

/* ------------------------------------------------------------ the state */

/* ,"xy":[[x,y],...] each point's place in the photo, ,"cell": a cell's
 * size there, ,"labels":[["A",x,y],...] the coordinates round the grid. */
static void state_geometry(gs_buf *b, const vision_grid *g)
{
    static const char letters[] = "ABCDEFGHJKLMNOPQRSTUVWXYZ";
    int n = g->size;
    gs_buf_puts(b, ",\"xy\":[");
    for (int v = 0; v < n; v++)
        for (int u = 0; u < n; u++) {
            double x, y;
            vision_grid_map(g, u, v, &x, &y);
            gs_buf_printf(b, "%s[%.1f,%.1f]", u || v ? "," : "", x, y);
        }
    gs_buf_printf(b, "],\"cell\":%.2f,\"labels\":[", vision_grid_cell(g));
    for (int k = 0; k < n; k++) {
        double at[4][2] = {{k, -0.85}, {k, n - 1 + 0.85}, {-0.85, k}, {n - 1 + 0.85, k}};
        for (int side = 0; side < 4; side++) {
            double x, y;
            vision_grid_map(g, at[side][0], at[side][1], &x, &y);
            if (side < 2) gs_buf_printf(b, "%s[\"%c\",%.1f,%.1f]", k || side ? "," : "", letters[k], x, y);
            else gs_buf_printf(b, ",[\"%d\",%.1f,%.1f]", n - k, x, y);
        }
    }
    gs_buf_puts(b, "]");
}

/* The state as the page draws it (s->mu held). */
static void state_json(const broadcast_count_session *s, gs_buf *b)
{
    gs_buf_printf(b, "{\"type\":\"count\",\"version\":%ld,\"photo\":{\"width\":%d,\"height\":%d},\"found\":%s",
                  s->version, s->img->width, s->img->height, s->found ? "true" : "false");
    if (!s->found) {
        gs_buf_puts(b, ",\"reason\":");
        gs_json_str(b, s->reason);
        gs_buf_puts(b, "}\n");
        return;
    }
    const score_count_result *r = &s->fix->r;
    char grid[GS_MAX_SIZE * GS_MAX_SIZE + 1], owner[GS_MAX_SIZE * GS_MAX_SIZE + 1];
    broadcast_grid_text(&r->pos, grid);
    broadcast_grid_text(&r->count.owner, owner);
    gs_buf_puts(b, ",\"grid\":");
    gs_json_str(b, grid);
    gs_buf_puts(b, ",\"owner\":");
    gs_json_str(b, owner);
    state_geometry(b, &s->grid);
    score_json_count_result(b, r);
    gs_buf_printf(b, ",\"recount_ms\":%.1f,\"recount_cpu_ms\":%.1f}\n", s->fix->ms, s->fix->cpu_ms);
}

static void answer_state(const broadcast_count_session *s, broadcast_resp *resp)
{
    gs_buf b = {0};
    state_json(s, &b);
    broadcast_resp_json(resp, &b, true);
}

static void answer_photo(const broadcast_count_session *s, broadcast_resp *resp)
{
    resp->body = malloc(s->jpg_len);
    if (!resp->body) {
        broadcast_resp_error(resp, 500, "out of memory");
        return;
    }
    memcpy(resp->body, s->jpg, s->jpg_len);
    resp->body_len = s->jpg_len;
    resp->status = 200;
    resp->content_type = "image/jpeg";
    resp->no_cache = true;
}

/* ----------------------------------------------------------- the changes */

/* The point named by member "point" ("pd") of j on the board read; false
 * when it is none. */
static bool json_point(const gs_json *j, int size, gs_point *p)
{
    const char *v = gs_json_get_str(j, "point", NULL);
    bool pass;
    return v && strlen(v) == 2 && sgf_point_parse(v, 2, size, p, &pass) && !pass;
}

/* POST api/point and api/life: the change, counted; the first thing
 * wrong (the status in *status), or NULL. */
static const char *change_board(broadcast_count_session *s, const gs_json *j, bool life, int *status, gs_error *e)
{
    gs_point p;
    *status = 400;
    if (!s->found) return "no board is read yet: give its corners first";
    if (!json_point(j, s->fix->r.pos.size, &p)) return "\"point\" must be a point of the board (\"pd\")";
    const char *v = gs_json_get_str(j, life ? "life" : "color", NULL);
    if (!v) return life ? "\"life\" must be dead, alive or auto" : "\"color\" must be B, W or \"\"";
    gs_status st;
    if (life) {
        int l = !strcmp(v, "dead") ? SCORE_LIFE_DEAD : !strcmp(v, "alive") ? SCORE_LIFE_ALIVE : !strcmp(v, "auto") ? 0 : -1;
        if (l < 0) return "\"life\" must be dead, alive or auto";
        st = score_fix_life(s->fix, p, l, e);
    } else {
        if (strcmp(v, "B") && strcmp(v, "W") && *v) return "\"color\" must be B, W or \"\"";
        st = score_fix_point(s->fix, p, *v == 'B' ? GS_BLACK : *v == 'W' ? GS_WHITE : GS_EMPTY, e);
    }
    s->version++;
    *status = st == GS_ERR_USAGE ? (s->fix->r.confirmed ? 409 : 400) : 500;
    return st == GS_OK ? NULL : e->msg;
}

/* POST api/corners: the board read on the grid of the four corners given
 * (the photo's pixels, vision_grid.corners order). */
static const char *change_corners(broadcast_count_session *s, const gs_json *j, int *status, gs_error *e)
{
    const gs_json *c = gs_json_get(j, "corners");
    int size = (int)gs_json_get_num(j, "size", 19);
    double q[4][2];
    *status = 400;
    if (s->found && s->fix->r.confirmed) {
        *status = 409;
        return "the count is confirmed already";
    }
    if (!c || c->type != GS_JSON_ARR || c->n != 4) return "\"corners\" must be four [x, y] pairs";
    for (int k = 0; k < 4; k++) {
        const gs_json *pt = c->kids[k];
        if (pt->type != GS_JSON_ARR || pt->n != 2 || pt->kids[0]->type != GS_JSON_NUM || pt->kids[1]->type != GS_JSON_NUM)
            return "\"corners\" must be four [x, y] pairs";
        q[k][0] = pt->kids[0]->num;
        q[k][1] = pt->kids[1]->num;
    }
    if (size < RULES_MIN_SIZE || size > RULES_MAX_SIZE) return "\"size\" must be a board size (5..25)";
    vision_grid g;
    if (vision_grid_from_corners(&g, size, (const double(*)[2])q, e) != GS_OK ||
        calib_grid_check(&g, s->img->width, s->img->height, false, e) != GS_OK)
        return e->msg;
    *status = 500;
    return session_read(s, &g, e) == GS_OK ? NULL : e->msg;
}

/* POST api/confirm: the count as it stands confirmed by "by", then the
 * caller's confirm (the SGF written, the result into the record). */
static const char *change_confirm(broadcast_count_session *s, const gs_json *j, broadcast_count_confirm_fn confirm,
                                  void *user, int *status, char *msg, size_t len)
{
    *status = 409;
    if (!s->found) return "no board is read yet: give its corners first";
    if (s->fix->r.confirmed) return "the count is confirmed already";
    const char *by = gs_json_get_str(j, "by", "");
    *status = 400;
    if (strlen(by) >= sizeof s->fix->r.confirmed_by) return "\"by\" must be a short name";
    score_fix *keep = malloc(sizeof *keep);
    *status = 500;
    if (!keep) return "out of memory";
    *keep = *s->fix;
    score_fix_confirm(s->fix, by, gs_wall_ms());
    *status = confirm ? confirm(user, &s->fix->r, msg, len) : 0;
    if (*status) *s->fix = *keep; /* not taken: the count stays open */
    else s->version++;
    free(keep);
    return *status ? msg : NULL;
}

/* A POST of the API: its JSON body read, the change made, the new state. */
static void answer_change(broadcast_count_session *s, const broadcast_req *req, const char *what,
                          broadcast_count_confirm_fn confirm, void *user, broadcast_resp *resp)
{
    gs_error e = {0};
    gs_json *j = gs_json_parse(req->body, req->body_len, &e);
    if (!j || j->type != GS_JSON_OBJ) {
        gs_json_free(j);
        broadcast_resp_error(resp, 400, j ? "the body must be a JSON object" : e.msg);
        return;
    }
    char msg[300] = "";
    int status = 0;
    const char *bad;
    if (!strcmp(what, "point") || !strcmp(what, "life")) bad = change_board(s, j, !strcmp(what, "life"), &status, &e);
    else if (!strcmp(what, "corners")) bad = change_corners(s, j, &status, &e);
    else bad = change_confirm(s, j, confirm, user, &status, msg, sizeof msg);
    gs_json_free(j);
    if (bad) broadcast_resp_error(resp, status, bad);
    else answer_state(s, resp);
}

void broadcast_count_session_answer(broadcast_count_session *s, const broadcast_req *req, const char *rest,
                                    broadcast_count_confirm_fn confirm, void *user, broadcast_resp *resp)
{
    bool get = !strcmp(req->method, "GET") || !strcmp(req->method, "HEAD"), post = !strcmp(req->method, "POST");
    bool change = !strcmp(rest, "api/point") || !strcmp(rest, "api/life") || !strcmp(rest, "api/corners") ||
                  !strcmp(rest, "api/confirm");
    pthread_mutex_lock(&s->mu);
    if (get && !strcmp(rest, "api/state")) answer_state(s, resp);
    else if (get && !strcmp(rest, "api/photo.jpg")) answer_photo(s, resp);
    else if (post && change) answer_change(s, req, rest + 4, confirm, user, resp);
    else if (change || !strcmp(rest, "api/state") || !strcmp(rest, "api/photo.jpg"))
        broadcast_resp_error(resp, 405, "method not allowed");
    else broadcast_resp_error(resp, 404, "no such page");
    pthread_mutex_unlock(&s->mu);
}
