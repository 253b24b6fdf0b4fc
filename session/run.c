/* session/run.c: the recording loop (see session_run in record.h): frames
 * from the capture source through the tracker to the recorder, operator
 * commands between frames, and the hooks of whoever follows it live. */
#include "record/record.h"
#include "session/session.h"
#include "track/track.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

void session_options_init(session_options *o)
{
    memset(o, 0, sizeof *o);
    track_options_init(&o->tracker);
    record_options_init(&o->recorder);
}

/* ------------------------------------------------------ orientation */


/* A view's points (elements of elem bytes: readings, confidences) turned
 * into the record's orientation (in place). */
static void orient_cells(record_black_side s, int size, void *cells, size_t elem)
{
    if (s == RECORD_BLACK_NEAR) return;
    unsigned char tmp[GS_MAX_SIZE * GS_MAX_SIZE * sizeof(float)];
    if (elem > sizeof(float)) return; /* not called so: readings and confidences only */
    unsigned char *c = cells;
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++) {
            gs_point q = record_orient_point(s, size, (gs_point){(int8_t)x, (int8_t)y});
            memcpy(tmp + (size_t)(q.y * size + q.x) * elem, c + (size_t)(y * size + x) * elem, elem);
        }
    memcpy(cells, tmp, (size_t)(size * size) * elem);
}

/* The margin stones turned too: their board coordinates, edge and corner. */
static void orient_margin(record_black_side s, int size, track_margin_view *m)
{
    if (s == RECORD_BLACK_NEAR) return;
    double mx = size - 1;
    for (int i = 0; i < m->n; i++) {
        track_margin_stone *st = &m->stones[i];
        record_orient_uv(s, mx, st->u, st->v, &st->u, &st->v);
        st->side = st->v < 0 ? TRACK_MARGIN_TOP : st->v > mx ? TRACK_MARGIN_BOTTOM : st->u < 0 ? TRACK_MARGIN_LEFT
                                                                                               : TRACK_MARGIN_RIGHT;
        static const int cu[4] = {0, 1, 1, 0}, cv[4] = {0, 0, 1, 1}; /* vision_grid corner order */
        double u, v;
        record_orient_uv(s, mx, cu[st->corner_index & 3] * mx, cv[st->corner_index & 3] * mx, &u, &v);
        for (int k = 0; k < 4; k++)
            if (cu[k] == (u > 0) && cv[k] == (v > 0)) st->corner_index = k;
    }
}

/* The loop's state. */
typedef struct run_ctx {
    const session_options *o;
    capture_source *src;
    session_stats *stats;
    track *tr;                 /* NULL with decode_only */
    record *rec;               /* NULL with decode_only */
    track_update *up;
    track_hands *oc;
    uint8_t covered[GS_MAX_SIZE * GS_MAX_SIZE];
    bool polling, live;        /* live: a camera or a network camera (capture_is_live) */
    bool lost;                 /* a live source lost, not back yet */
    int64_t last_unix;         /* the last frame's time of play (Unix ms, -1 unknown) */
    int64_t lost_unix;         /* ... when the source was lost */
    double lost_mono;          /* gs_now_ms() then */
    char lost_why[320];        /* what the source said then */
    bool stopped;              /* stopped early: no count */
    bool end_of_input;
    int skip_notes;            /* gaps of broken video frames noted */
    long unreadable;           /* photos or frames of a file that could not be read */
    bool done;                 /* the loop ends */
    long total;                /* frames of the source, -1 unknown */
    double t0, last_progress, last_t;
    char first_note[200];      /* why no board was found, for the end */
    /* what the hooks were told */
    size_t n_seen;             /* events already handed to the hooks */
    gs_position before;        /* the record before the last settled view */
    gs_position seen;          /* the last settled view */
    bool have_seen;
    int next_pass;             /* the first of o->passes not announced yet */
    /* where the arms came from that placed Black's stones: per side of
     * the picture (track_margin_side), views that committed one black
     * stone with most of their margin crossings on that side */
    int black_reach[4];
} run_ctx;

/* ---------------------------------------------------------- commands */

/* The colour a command names (B, W, black, white; nothing: GS_EMPTY);
 * false for anything else. */
static bool parse_color(const char *s, gs_color *c)
{
    while (isspace((unsigned char)*s)) s++;
    *c = GS_EMPTY;
    if (!*s) return true;
    if (!strcasecmp(s, "b") || !strcasecmp(s, "black")) *c = GS_BLACK;
    else if (!strcasecmp(s, "w") || !strcasecmp(s, "white")) *c = GS_WHITE;
    return *c != GS_EMPTY;
}

static bool is_command(const char *s, const char *word)
{
    size_t n = strlen(word);
    return !strncmp(s, word, n) && (s[n] == 0 || isspace((unsigned char)s[n]));
}

/* One operator command; *stop for q.  A failed save after it is reported
 * as for a view (the loop stops with it). */
static gs_status do_command(record *r, char *line, double t_ms, bool *stop, const char **reason, gs_error *err)
{
    size_t n = strlen(line);
    while (n && isspace((unsigned char)line[n - 1])) line[--n] = 0;
    char *s = line;
    while (isspace((unsigned char)*s)) s++;
    *stop = false;
    if (!*s) return GS_OK;
    if (!strcmp(s, "q") || !strcmp(s, "quit")) {
        *reason = "q";
        *stop = true;
        return GS_OK;
    }
    if (!strcmp(s, "end")) return record_end_game(r, t_ms, err);
    gs_color c;
    if (is_command(s, "pass") && parse_color(s + 4, &c)) return record_pass(r, c, t_ms, err);
    if (is_command(s, "resign") && parse_color(s + 6, &c)) return record_resign(r, c, t_ms, err);
    if (is_command(s, "note")) {
        const char *text = s + 4;
        while (isspace((unsigned char)*text)) text++;
        if (*text) return record_comment(r, text, t_ms, err);
    }
    char msg[160];
    snprintf(msg, sizeof msg, "unknown command \"%.40s\" (q, end, pass [B|W], resign B|W, note TEXT)", s);
    return record_note(r, "command", msg, t_ms, err);
}

/* The commands waiting.  They wait for the first settled view: a pass or a
 * resignation needs a game to belong to. */
static gs_status run_commands(run_ctx *c, gs_error *err)
{
    if (!c->polling || !c->rec || !record_started(c->rec)) return GS_OK;
    char line[256];
    int pr;
    while ((pr = c->o->poll(c->o->poll_user, line, sizeof line)) == 1) {
        bool stop;
        gs_status st = do_command(c->rec, line, c->last_t, &stop, &c->stats->stop_reason, err);
        if (st != GS_OK) return st;
        if (stop) {
            c->stopped = c->done = true;
            return GS_OK;
        }
    }
    if (pr < 0) {
        c->polling = false;
        if (c->live) {
            c->stats->stop_reason = "EOF on stdin";
            c->stopped = c->done = true;
        }
    }
    return GS_OK;
}

/* ------------------------------------------------------------- hooks */

/* Hands the events new since the last call to the hooks, then `changed`. */
static void hooks_sync(run_ctx *c)
{
    const session_hooks *h = c->o->hooks;
    if (!h || !c->rec) return;
    const record_event *ev;
    size_t n = record_events(c->rec, &ev);
    if (n == c->n_seen) return;
    void *user = c->o->hooks_user;
    for (size_t i = c->n_seen; i < n; i++) {
        const record_event *e = &ev[i];
        if ((e->kind == RECORD_EV_MOVE || e->kind == RECORD_EV_PASS) && h->move)
            h->move(user, c->rec, e);
        else if ((e->kind == RECORD_EV_REFEREE || e->kind == RECORD_EV_SIGNAL) && h->event)
            h->event(user, c->rec, e, &c->before, e->have_seen ? &e->seen : c->have_seen ? &c->seen : NULL);
    }
    c->n_seen = n;
    if (h->changed) h->changed(user, c->rec);
}

/* Applies the rulings handed in since the last frame. */
static gs_status hooks_rulings(run_ctx *c, gs_error *err)
{
    const session_hooks *h = c->o->hooks;
    if (!h || !h->poll_ruling || !c->rec) return GS_OK;
    record_ruling ru;
    while (h->poll_ruling(c->o->hooks_user, &ru)) {
        gs_status st = record_apply_ruling(c->rec, &ru, c->last_t, err);
        if (st != GS_OK) return st;
    }
    return GS_OK;
}

/* ------------------------------------------------------------ frames */

static gs_status run_note(run_ctx *c, const char *code, const char *text, double t_ms, gs_error *err)
{
    return c->rec ? record_note(c->rec, code, text, t_ms, err) : GS_OK;
}

/* Reads the next frame; *frame NULL when there is none to process (lost,
 * or the end: c->done). */
static gs_status run_read(run_ctx *c, const gs_image **frame, capture_info *info, gs_error *err)
{
    *frame = NULL;
    capture_result cr = capture_read(c->src, frame, info);
    if (info->skipped > 0) {
        /* broken video frames: noted with their time, the game goes on */
        c->stats->skipped_frames += info->skipped;
        c->skip_notes++;
        if (info->skipped_t_ms > c->last_t) c->last_t = info->skipped_t_ms;
        gs_status st = run_note(c, "frames_skipped", capture_last_error(c->src), c->last_t, err);
        if (st != GS_OK) return st;
    }
    if (cr == CAPTURE_END) {
        c->end_of_input = c->done = true;
        if (info->skipped > 0) {
            /* the end of the video could not be read: what was played
             * there is unknown, so the game is kept without a count */
            c->stopped = true;
            c->stats->stop_reason = "the end of the video cannot be read";
        }
        *frame = NULL;
        return GS_OK;
    }
    if (cr == CAPTURE_ERROR) {
        c->done = true;
        *frame = NULL;
        return gs_error_set(err, GS_ERR_IO, "%s", capture_last_error(c->src));
    }
    if (cr == CAPTURE_LOST) {
        *frame = NULL;
        if (!c->live) {
            /* before the record starts a note has nowhere to go: the
             * reason stays for the "no board found" error */
            c->unreadable++;
            if (!c->first_note[0]) snprintf(c->first_note, sizeof c->first_note, "%s", capture_last_error(c->src));
            return run_note(c, "frame", capture_last_error(c->src), c->last_t, err);
        }
        if (c->lost) return GS_OK;
        c->lost = true;
        c->lost_unix = c->last_unix;
        c->lost_mono = gs_now_ms();
        snprintf(c->lost_why, sizeof c->lost_why, "%s", capture_last_error(c->src));
        if (c->o->source_state) c->o->source_state(c->o->source_user, c->lost_why);
        return run_note(c, "camera_lost", c->lost_why, c->last_t, err);
    }
    if (cr == CAPTURE_FRAME && info->time_note[0]) {
        gs_status st = run_note(c, "clock", info->time_note, info->t_ms, err);
        if (st != GS_OK) return st;
    }
    if (c->lost) {
        c->lost = false;
        if (c->o->source_state) {
            char back[96];
            snprintf(back, sizeof back, "the camera is back after %.1f s: carrying on with the same game",
                     (gs_now_ms() - c->lost_mono) / 1000.0);
            c->o->source_state(c->o->source_user, back);
        }
        if (c->rec) {
            track_reset_settle(c->tr);
            /* the gap goes into the record (GSGP), not only the log */
            gs_status st = record_gap(c->rec, c->lost_unix, info->unix_ms, c->lost_why, info->t_ms, err);
            if (st != GS_OK) return st;
            return record_note(c->rec, "camera_back", "camera back: carrying on with the same game", info->t_ms,
                               err);
        }
    }
    return GS_OK;
}

static void count_frame(run_ctx *c, const capture_info *info)
{
    c->stats->frames++;
    c->last_t = info->t_ms;
    c->last_unix = info->unix_ms;
    /* the source's clock, for the moves this frame commits */
    if (c->rec) record_set_clock(c->rec, info->unix_ms);
    if (c->o->progress && gs_now_ms() - c->last_progress > 1000) {
        c->last_progress = gs_now_ms();
        session_progress p = {c->stats->frames, c->total, info->t_ms, c->rec ? record_move_count(c->rec) : 0,
                                 c->rec ? record_referee_count(c->rec) : 0, gs_now_ms() - c->t0};
        c->o->progress(c->o->progress_user, &p);
    }
}

/* The view just committed one move: a black stone is voted for the side
 * of the picture most arms crossed since the last view (a player reaches
 * in from their own side); a tie says nothing.  m->reach is in the
 * picture's sides (orient_margin leaves it). */
static void count_black_reach(run_ctx *c, const track_margin_view *m)
{
    gs_move mv;
    if (!record_last_move(c->rec, &mv, NULL) || mv.pass || mv.color != GS_BLACK) return;
    int best = 0;
    for (int k = 1; k < 4; k++)
        if (m->reach[k] > m->reach[best]) best = k;
    for (int k = 0; k < 4; k++)
        if (k != best && m->reach[k] == m->reach[best]) return;
    if (m->reach[best] > 0) c->black_reach[best]++;
}

/* A settled view to the record: what a hand reaching in covers is not
 * read, end-of-game signals count on a clear view only. */
static gs_status run_settled(run_ctx *c, const gs_image *frame, double t_ms, gs_error *err)
{
    track_update *up = c->up;
    c->stats->settled_views++;
    if (c->o->hooks) {
        record_position(c->rec, &c->before);
        c->have_seen = true;
    }
    /* a hand resting on the board stays still too: what reaches in from
     * outside is not read (the record's value is kept there); a grid
     * found again keeps its reference (see track.h) */
    bool reaching = false;
    const vision_grid *grid = track_grid(c->tr);
    int ncov = grid ? track_hands_mark(c->oc, frame, grid, &up->margin, c->covered, &reaching) : 0;
    c->stats->covered_views += ncov > 0;
    int npt = up->pos.size * up->pos.size;
    bool any_unc = up->n_uncertain > 0 || ncov > 0;
    for (int i = 0; i < npt && ncov > 0; i++) up->uncertain[i] |= c->covered[i];
    /* the record in the board's true orientation: Black's side at the bottom */
    record_black_side bs = c->o->black_side;
    orient_cells(bs, up->pos.size, up->pos.cell, 1);
    orient_cells(bs, up->pos.size, up->uncertain, 1);
    orient_cells(bs, up->pos.size, up->conf, sizeof up->conf[0]);
    orient_cells(bs, up->pos.size, up->unsure, 1);
    orient_cells(bs, up->pos.size, up->second, 1);
    orient_cells(bs, up->pos.size, up->second_p, sizeof up->second_p[0]);
    orient_margin(bs, up->pos.size, &up->margin);
    if (c->o->hooks) c->seen = up->pos;
    record_set_view(c->rec, grid, bs);
    record_view v = {&up->pos, any_unc ? up->uncertain : NULL, up->conf, ncov == 0 && !reaching, up->unsure,
                     up->second, up->second_p};
    /* a still view looked at again shows the record nothing new: only its
     * margin is for record_margin (a stone held there) */
    int moves = record_move_count(c->rec);
    gs_status st = up->relook ? GS_OK : record_observe_view(c->rec, &v, t_ms, frame, err);
    if (st == GS_OK && record_move_count(c->rec) == moves + 1) count_black_reach(c, &up->margin);
    if (st == GS_OK && ncov == 0 && !reaching) st = record_margin(c->rec, &up->margin, t_ms, err);
    return st;
}

/* The passes announced by the source's clock (o->passes) up to t_ms,
 * once the game has started: as if the operator said them then. */
static gs_status run_timed_passes(run_ctx *c, double t_ms, gs_error *err)
{
    const session_options *o = c->o;
    while (c->next_pass < o->npasses && o->passes[c->next_pass].t_ms <= t_ms && record_started(c->rec)) {
        gs_status st = record_pass(c->rec, o->passes[c->next_pass++].color, t_ms, err);
        if (st != GS_OK) return st;
    }
    return GS_OK;
}

/* One frame through the tracker (and, settled, to the record). */
static gs_status run_track(run_ctx *c, const gs_image *frame, const capture_info *info, gs_error *err)
{
    gs_status pst = run_timed_passes(c, info->t_ms, err);
    if (pst != GS_OK) return pst;
    const session_hooks *h = c->o->hooks;
    if (h && h->frame) h->frame(c->o->hooks_user, frame, track_grid(c->tr));
    track_update *up = c->up;
    gs_error e;
    if (track_feed(c->tr, frame, info->t_ms, info->settled, up, &e) != GS_OK)
        return record_note(c->rec, "frame", e.msg, info->t_ms, err); /* a broken frame is not the end of a game */
    c->stats->full_reads += up->reads;
    if (up->note[0]) {
        if (!up->have_grid) {
            if (!c->first_note[0]) snprintf(c->first_note, sizeof c->first_note, "%s", up->note);
        } else if (record_started(c->rec)) {
            gs_status st = record_note(c->rec, "board", up->note, info->t_ms, err);
            if (st != GS_OK) return st;
        }
    }
    if (c->o->frame_delay_ms > 0) {
        struct timespec ts = {c->o->frame_delay_ms / 1000, (long)(c->o->frame_delay_ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    return up->settled ? run_settled(c, frame, info->t_ms, err) : GS_OK;
}

/* One step of the loop: stop requests, commands, hooks, then a frame. */
static gs_status run_step(run_ctx *c, gs_error *err)
{
    const session_options *o = c->o;
    if (o->stop && *o->stop) {
        c->stats->stop_reason = "SIGINT";
        c->stopped = c->done = true;
        return GS_OK;
    }
    if (o->max_frames > 0 && c->stats->frames >= o->max_frames) {
        c->stats->stop_reason = "max frames";
        c->end_of_input = c->done = true;
        return GS_OK;
    }
    gs_status st = run_commands(c, err);
    if (st != GS_OK || c->done) return st;
    if (o->hooks) {
        st = hooks_rulings(c, err);
        if (st != GS_OK) return st;
        hooks_sync(c);
    }
    const gs_image *frame;
    capture_info info;
    st = run_read(c, &frame, &info, err);
    if (st != GS_OK || !frame) return st;
    count_frame(c, &info);
    if (o->decode_only) return GS_OK;
    return run_track(c, frame, &info, err);
}

/* ------------------------------------------------------ start and end */

static gs_status run_open(run_ctx *c, gs_error *err)
{
    c->up = malloc(sizeof *c->up);
    c->oc = track_hands_create();
    if (!c->up || !c->oc) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    if (c->o->decode_only) return GS_OK;
    /* a folder's frames are photos: read as `goscribe scan` reads a photo */
    track_options topt = c->o->tracker;
    topt.photos = topt.photos || capture_get_kind(c->src) == CAPTURE_FOLDER;
    c->tr = track_create(&topt, err);
    if (!c->tr) return err ? err->status : GS_ERR_NOMEM;
    record_options ropt = c->o->recorder; /* the record states its orientation */
    ropt.black_side = c->o->black_side;
    ropt.black_side_given = c->o->black_side_given;
    c->rec = record_create(&ropt, err);
    if (!c->rec) return err ? err->status : GS_ERR_NOMEM;
    /* the log says where the times of play come from (a note: never in
     * the SGF); record_note cannot fail */
    const char *clock = capture_clock_note(c->src);
    if (clock[0]) (void)record_note(c->rec, "clock", clock, 0, NULL);
    return GS_OK;
}

static void run_close(run_ctx *c)
{
    record_destroy(c->rec);
    track_destroy(c->tr);
    track_hands_destroy(c->oc);
    free(c->up);
}

/* The skipped frames of a video counted once more at the end, where a
 * referee reading the record looks (each gap was noted when it came). */
static gs_status note_skipped_total(run_ctx *c, gs_error *err)
{
    long n = c->stats->skipped_frames;
    if (c->skip_notes < 2 || !record_started(c->rec)) return GS_OK;
    char msg[160];
    snprintf(msg, sizeof msg, "in all %ld frame%s of the video could not be decoded and %s skipped", n,
             n == 1 ? "" : "s", n == 1 ? "was" : "were");
    return record_note(c->rec, "frames_skipped", msg, c->last_t, err);
}

/* Before the record closes: the door shut to new rulings, the ones
 * already waiting applied. */
static gs_status run_last_rulings(run_ctx *c, gs_error *err)
{
    const session_hooks *h = c->o->hooks;
    if (!h) return GS_OK;
    if (h->closing) h->closing(c->o->hooks_user, "the recording has ended: the record is closed");
    return hooks_rulings(c, err);
}

/* What the arms that placed Black's stones tell (count_black_reach)
 * needs ORIENT_MIN_VOTES such stones and a majority of them on one side.
 * (On the bundled renders, scripts/demo.sh's and the tests': 9 to 14 of
 * 15 black stones voted, all but at most 2 for Black's true side.) */
#define ORIENT_MIN_VOTES 3

/* The orientation in words, and a warning when Black's side was not given
 * or the arms contradict it (stats->orientation, orientation_warning). */
static void orientation_words(run_ctx *c)
{
    static const record_black_side of_margin[4] = {RECORD_BLACK_FAR, RECORD_BLACK_RIGHT, RECORD_BLACK_NEAR,
                                                   RECORD_BLACK_LEFT}; /* track_margin_side order */
    session_stats *st = c->stats;
    record_black_side bs = c->o->black_side;
    bool given = c->o->black_side_given;
    snprintf(st->orientation, sizeof st->orientation, "Black at %s (%s)", record_black_side_words(bs),
             given ? "given by --black-side" : "the default: not told");
    int n = 0, best = 0;
    for (int k = 0; k < 4; k++) {
        n += c->black_reach[k];
        if (c->black_reach[k] > c->black_reach[best]) best = k;
    }
    int votes = c->black_reach[best];
    record_black_side ev = of_margin[best];
    bool clear = votes >= ORIENT_MIN_VOTES && 2 * votes > n;
    char *w = st->orientation_warning;
    size_t wl = sizeof st->orientation_warning;
    /* a warning only when the arms say otherwise than the side used: that
     * Black's side was not told is said once already (the start's note,
     * the root comment, the summary), and photos show no arms at all */
    if (!clear || ev == bs) return;
    if (!given) {
        snprintf(w, wl, "not told where Black sat; the arms placing Black's stones came from %s (%d of %d), not its "
                 "bottom edge: if Black sat there, record with --black-side %s (the record is turned wrong "
                 "otherwise)", record_black_side_words(ev), votes, n, record_black_side_name(ev));
    } else {
        snprintf(w, wl, "told that Black sat at %s (--black-side %s), but the arms placing Black's stones came from "
                 "%s (%d of %d): if Black sat there, the record is turned wrong (--black-side %s)",
                 record_black_side_words(bs), record_black_side_name(bs), record_black_side_words(ev), votes, n,
                 record_black_side_name(ev));
    }
}

/* Why the record never started: nothing could be read (a broken file: an
 * I/O error, as scan and count say of it, the reason once), or no board
 * in what was read. */
static gs_status no_board_error(const run_ctx *c, gs_error *e)
{
    char why[sizeof c->first_note];
    snprintf(why, sizeof why, "%s", c->first_note);
    size_t n = strlen(why), k = strlen(" (skipped)");
    if (n >= k && !strcmp(why + n - k, " (skipped)")) why[n - k] = 0;
    if (c->stats->frames == 0 && c->unreadable == 1) return gs_error_set(e, GS_ERR_IO, "%s", why);
    if (c->stats->frames == 0 && c->unreadable > 1)
        return gs_error_set(e, GS_ERR_IO, "none of its %ld photos can be read (the first: %s)", c->unreadable, why);
    return gs_error_set(e, GS_ERR_NOBOARD, "no board found in %ld frames%s%s", c->stats->frames,
                        c->first_note[0] ? ": " : "", c->first_note);
}

/* The record closed: counted at the end of input, else stopped; st is the
 * loop's status, kept when it failed. */
static gs_status run_finish(run_ctx *c, gs_status st, gs_error *err)
{
    session_stats *stats = c->stats;
    record *rec = c->rec;
    gs_error e;
    /* the commands typed while the last frames were read: each is taken
     * or answered, never left unread */
    if (st == GS_OK && !c->stopped) st = run_commands(c, err);
    gs_status fs = run_last_rulings(c, &e);
    if (st == GS_OK && fs != GS_OK) {
        st = fs;
        if (err) *err = e;
    }
    if (st == GS_OK) st = note_skipped_total(c, err);
    /* a live source still away at the end: the gap has no end */
    if (st == GS_OK && c->lost) st = record_gap(rec, c->lost_unix, -1, c->lost_why, c->last_t, err);
    orientation_words(c);
    if (st == GS_OK && record_started(rec) && stats->orientation_warning[0])
        st = record_note(rec, "orientation", stats->orientation_warning, c->last_t, err);
    if (!record_started(rec)) {
        fs = no_board_error(c, &e);
    } else if (c->end_of_input && !c->stopped) {
        fs = record_finish(rec, c->last_t, &e);
    } else {
        fs = record_stop(rec, c->last_t, &e);
    }
    if (st == GS_OK && fs != GS_OK) {
        st = fs;
        if (err) *err = e;
    }
    stats->moves = record_move_count(rec);
    stats->referee_events = record_referee_count(rec);
    stats->signals = record_signal_count(rec);
    if (record_started(rec)) {
        stats->have_final = true;
        record_position(rec, &stats->final_pos);
    }
    snprintf(stats->result, sizeof stats->result, "%s", record_result(rec));
    stats->count_sure = record_count_sure(rec);
    hooks_sync(c); /* viewers see the end and the result */
    return st;
}

gs_status session_run(capture_source *src, const session_options *o, session_stats *stats, gs_error *err)
{
    session_stats tmp;
    if (!stats) stats = &tmp;
    memset(stats, 0, sizeof *stats);
    stats->stop_reason = "end of input";
    run_ctx c;
    memset(&c, 0, sizeof c);
    c.o = o;
    c.src = src;
    c.stats = stats;
    gs_status st = run_open(&c, err);
    if (st != GS_OK) {
        run_close(&c);
        return st;
    }
    c.polling = o->poll != NULL;
    c.live = capture_is_live(src);
    c.last_unix = -1;
    c.total = capture_frame_count(src);
    c.t0 = c.last_progress = gs_now_ms();
    gs_position_clear(&c.before, o->recorder.size ? o->recorder.size : 19);
    while (st == GS_OK && !c.done) st = run_step(&c, err);
    if (c.rec) st = run_finish(&c, st, err);
    stats->ms_total = gs_now_ms() - c.t0;
    run_close(&c);
    return st;
}
