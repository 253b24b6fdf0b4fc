/* track/tracker.c: frames -> settled positions (see track/track.h).
 *
 * Per frame only a tiny signature is taken (mean colour of a few pixels
 * around each intersection), so following a video costs little more than
 * decoding it; the full reader runs only when a still view differs from the
 * last settled one.  On calm frames, four corner patches measured against
 * a reference keep the grid on a slowly drifting board (see track/track.h). */
#include "track/tracker_internal.h"
#include "cvshim/cvshim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


void track_options_init(track_options *o)
{
    memset(o, 0, sizeof *o);
    o->settle_ms = 500;
    o->min_confidence = 0.35;
}

track *track_create(const track_options *opt, gs_error *err)
{
    track *t = calloc(1, sizeof *t);
    if (!t || !(t->seen = malloc(sizeof *t->seen)) || !(t->vd = vision_detector_create(NULL))) {
        if (t) free(t->seen);
        free(t);
        gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    track_options_init(&t->opt);
    if (opt) t->opt = *opt;
    if (!(t->opt.settle_ms > 0)) t->opt.settle_ms = 500;
    if (!(t->opt.min_confidence > 0)) t->opt.min_confidence = 0.35;
    t->last_rescue_ms = -1e18;
    return t;
}

void track_destroy(track *t)
{
    if (!t) return;
    gs_image_destroy(t->margin_ref);
    vision_detector_destroy(t->vd);
    free(t->seen);
    free(t);
}

const vision_grid *track_grid(const track *t) { return t->have_grid ? &t->grid : NULL; }

void track_reset_settle(track *t)
{
    t->have_last = false;
    t->calm = 0;
    t->have_prev = false;
    t->reported_this_still = false;
    t->have_settled_sig = t->have_mref = false;
}

/* ------------------------------------------------------ drift following */

/* Reads img with grid g; fills the position (uncertain points kept from the
 * last settled position) and returns the number of points that differ from
 * it (all stones when there is none). */

/* A still view already reported, with stones on its margin: every
 * TR_RELOOK_MS it is reported again (the same position, no new read) with
 * the margin looked at again, so a stone put there can be seen held. */
static void relook(track *t, const gs_image *frame, double t_ms, track_update *out)
{
    if (!t->have_pos || t->margin_n == 0 || t->relooks >= TR_RELOOK_MAX || t_ms - t->last_settled_ms < TR_RELOOK_MS)
        return;
    int n = t->pos.size * t->pos.size;
    tr_margin_scan(t, frame, &out->margin);
    out->settled = true;
    out->relook = true;
    out->pos = t->pos;
    memcpy(out->uncertain, t->last_unc, (size_t)n);
    memcpy(out->conf, t->last_conf, sizeof(float) * (size_t)n);
    out->n_uncertain = t->last_nu;
    out->confidence = t->last_mean_conf;
    t->relooks++;
    t->last_settled_ms = t_ms;
    t->margin_n = out->margin.n;
    memcpy(out->margin.reach, t->reach, sizeof t->reach);
    memset(t->reach, 0, sizeof t->reach);
}

/* Counts, per side, whether something moved over its margin spots in this
 * frame (an arm reaching in from that side). */
static void count_reach(track *t, int16_t sig[][3])
{
    int m = (t->nsig - t->npts) / 4;
    for (int side = 0; side < 4 && m > 0; side++) {
        bool moved = false;
        for (int k = 0; k < m && !moved; k++) {
            int i = t->npts + side * m + k;
            int d = abs(sig[i][0] - t->sig_prev[i][0]) + abs(sig[i][1] - t->sig_prev[i][1]) +
                    abs(sig[i][2] - t->sig_prev[i][2]);
            moved = d > 2 * TR_MOVE_DIFF;
        }
        t->reach[side] += moved;
    }
}

/* A still view read with another grid than the one in place (the board
 * found again): what settle keeps of a reading.  Big: on the heap. */

/* The full read of a still view, with a new board search when the reading
 * looks like the camera or the board moved. */

/* ---------------------------------------------------------------- photos */

/* The grid for this frame: the given one at the start, dropped when the
 * frame size changes, else looked for (on video a few times a second).
 * False while there is none (out->note says why). */
static bool ensure_grid(track *t, const gs_image *frame, bool settled_hint, track_update *out)
{
    tr_grid_for_frame(t, frame, out);
    double frame_t = out->t_ms;
    if (!t->have_grid) {
        /* looking for the board is costly: on video, try a few times a second */
        if (!settled_hint && t->frames_without_grid++ > 0 && frame_t >= t->last_search_ms &&
            frame_t - t->last_search_ms < TR_SEARCH_EVERY_MS)
            return false;
        t->last_search_ms = frame_t;
        vision_grid g;
        gs_error e;
        if (!tr_find_grid(t, frame, t->opt.size_hint, &g, &e)) {
            snprintf(out->note, sizeof out->note, "no board yet: %.140s", e.msg);
            return false;
        }
        tr_set_grid(t, &g, frame->width, frame->height);
        out->refound = out->regrid = true;
        t->frames_without_grid = 0;
    }
    out->have_grid = true;
    return true;
}

static int spot_diff(const int16_t a[3], const int16_t b[3])
{
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) + abs(a[2] - b[2]);
}

/* Margin spots of signature sig that differ much from ref (margin spots
 * only): an arm over the margin, not the light's slow drift. */
static int margin_changed(const track *t, const int16_t (*sig)[3], const int16_t (*ref)[3])
{
    int n = 0;
    for (int i = t->npts; i < t->nsig; i++) n += spot_diff(sig[i], ref[i - t->npts]) > 2 * TR_MOVE_DIFF;
    return n;
}

/* Reads the settled view (a photo as a photo) and keeps its signature for
 * the next one. */
static gs_status settle_view(track *t, const gs_image *frame, bool photo, track_update *out, gs_error *err)
{
    gs_status st = photo ? tr_settle_photo(t, frame, out, err) : tr_settle(t, frame, out, err);
    if (!t->have_grid) return st;
    int16_t sig[TR_NSIG][3];
    tr_signature(t, frame, sig);
    /* the margin's reference: this view's margin when nothing crosses it
     * (as in the reference), or when the last settled view showed it so
     * too (something put there for good, not an arm passing) */
    int m = t->nsig - t->npts;
    if (!t->have_mref || margin_changed(t, (const int16_t(*)[3])sig, (const int16_t(*)[3])t->sig_mref) <= TR_QUICK_MARGIN ||
        (t->have_settled_sig && margin_changed(t, (const int16_t(*)[3])sig, (const int16_t(*)[3])(t->sig_settled + t->npts)) <= TR_QUICK_MARGIN)) {
        memcpy(t->sig_mref, sig + t->npts, sizeof(int16_t) * 3 * (size_t)m);
        t->have_mref = true;
    }
    memcpy(t->sig_settled, sig, sizeof(int16_t) * 3 * (size_t)t->nsig);
    t->have_settled_sig = true;
    return st;
}

/* Whether a view still for TR_QUICK_FRAMES frames is hand-free, by its
 * signature against the last settled view's (see TR_QUICK_FRAMES): its
 * margin as in the reference (no arm across it) and few points changed (a
 * move, its captures).  A view a third of which changed and stays is not:
 * more than a hand covers, the camera or the board moved, and the settle
 * window reads it. */
static bool quick_hand_free(const track *t, int16_t sig[][3])
{
    if (t->still_frames < TR_QUICK_FRAMES || !t->have_settled_sig || !t->have_mref) return false;
    int points = 0;
    for (int i = 0; i < t->npts; i++) points += spot_diff(sig[i], t->sig_settled[i]) > TR_MOVE_DIFF;
    if (3 * points > t->npts) return false;
    return points <= TR_QUICK_POINTS &&
           margin_changed(t, (const int16_t(*)[3])sig, (const int16_t(*)[3])t->sig_mref) <= TR_QUICK_MARGIN;
}

/* The grid moved (drift followed at t_ms): the view did not.  Stillness
 * was judged on the old spots; from now on the new spots are the
 * reference, the last settled view's too where this view still matches it
 * (where it does not, the spot keeps the settled view's old sample: it
 * still differs, and the next still view is read again; and the margin
 * and the points that did not change still tell a hand-free view).  sig,
 * the frame's signature, is sampled anew; moved: the frame showed motion. */
static void grid_followed(track *t, const gs_image *frame, double t_ms, bool moved, int16_t (*sig)[3])
{
    t->last_move_ms = t_ms;
    t->still_frames = 0; /* a view is hand-free when still on the grid in place */
    int16_t moved_sig[TR_NSIG][3];
    tr_signature(t, frame, moved_sig);
    for (int i = 0; t->have_settled_sig && i < t->nsig; i++)
        if (spot_diff(sig[i], t->sig_settled[i]) <= TR_MOVE_DIFF) memcpy(t->sig_settled[i], moved_sig[i], sizeof moved_sig[i]);
    for (int i = t->npts; t->have_mref && i < t->nsig; i++)
        if (spot_diff(sig[i], t->sig_mref[i - t->npts]) <= TR_MOVE_DIFF)
            memcpy(t->sig_mref[i - t->npts], moved_sig[i], sizeof moved_sig[i]);
    memcpy(sig, moved_sig, sizeof(int16_t) * 3 * (size_t)t->nsig);
    if (!moved) memcpy(t->sig_anchor, sig, sizeof(int16_t) * 3 * (size_t)t->nsig);
}

/* Only a view without motion tells a drift from a hand: the drift
 * reference is taken once the view has been calm for a few frames (a
 * drifting camera may never look still long enough to settle before it),
 * and the grid follows the drift when it is due.  sig is the frame's
 * signature, renewed when the grid moved. */
static void follow_drift(track *t, const gs_image *frame, double t_ms, bool moved, int16_t (*sig)[3],
                         track_update *out)
{
    if (!t->have_ref && t->calm >= TR_CALM_REF) {
        tr_drift_take_ref(t, frame);
        return;
    }
    if (t->calm > 0 && t->have_ref && tr_drift_due(t, t_ms) && tr_drift_follow(t, frame, out))
        grid_followed(t, frame, t_ms, moved, sig);
}

/* Where the grid is before a quick read: a drift measure made in this
 * still view, or one made now (the measures come a few times a second
 * only, and a read on a grid a third of a cell behind a drifting camera
 * misreads stones). */
typedef enum grid_place {
    GRID_IN_PLACE = 0,  /* found in place (or not followed at all) */
    GRID_FOLLOWED,      /* moved now: the view is looked at again */
    GRID_UNSURE         /* the measure failed (a jump, a hidden corner) */
} grid_place;

static grid_place grid_in_place(track *t, const gs_image *frame, double t_ms, int16_t (*sig)[3], track_update *out)
{
    if (t->opt.no_follow || !t->have_ref) return GRID_IN_PLACE;
    if (t->last_est_ms >= t->still_since && t->last_est_ms <= t_ms && t->in_sync) return GRID_IN_PLACE;
    t->last_est_ms = t_ms;
    if (tr_drift_follow(t, frame, out)) {
        grid_followed(t, frame, t_ms, false, sig);
        return GRID_FOLLOWED;
    }
    return t->in_sync ? GRID_IN_PLACE : GRID_UNSURE;
}

/* Whether a still view is settled before the settle window: hand-free on
 * the grid in place.  A view moved as a whole (a bump) waits for the
 * window: read at once on the board found again, a composite video's bump
 * gave a stone lifted for no reason, put back 0.6 s later. */
static bool settled_sooner(track *t, const gs_image *frame, double t_ms, int16_t (*sig)[3], track_update *out)
{
    if (!quick_hand_free(t, sig)) return false;
    return grid_in_place(t, frame, t_ms, sig, out) == GRID_IN_PLACE;
}

gs_status track_feed(track *t, const gs_image *frame, double t_ms, bool settled_hint, track_update *out,
                       gs_error *err)
{
    memset(out, 0, offsetof(track_update, uncertain));
    out->reads = 0;
    out->margin.valid = false;
    out->margin.n = 0;
    out->t_ms = t_ms;
    if (!frame || !frame->buf || frame->width < 8 || frame->height < 8 || (frame->channels != 3 && frame->channels != 1))
        return gs_error_set(err, GS_ERR_FORMAT, "broken frame");
    if (settled_hint && t->opt.photos) return settle_view(t, frame, true, out, err);
    if (!ensure_grid(t, frame, settled_hint, out)) return GS_OK;
    if (settled_hint) return settle_view(t, frame, false, out, err);
    int16_t sig[TR_NSIG][3];
    tr_signature(t, frame, sig);
    /* Motion since the previous frame: one spot changed a lot, or two or
     * more changed (a lone spot that changed a little is sensor or
     * compression noise, an H.264 frame refining after a hand left, and
     * taking it for motion can cost a short still view its settle time).
     * Against the start of the still period only a big change counts (a
     * hand creeping slowly); small ones there are light and the encoder. */
    int big_prev = 0, big_anchor = 0;
    int n_prev = t->have_prev ? tr_sig_changed_ex(t, sig, t->sig_prev, &big_prev) : t->nsig;
    if (t->have_prev) (void)tr_sig_changed_ex(t, sig, t->sig_anchor, &big_anchor); /* only the big changes count here */
    bool moved = !t->have_prev || big_prev > 0 || n_prev >= 2 || big_anchor > 0;
    if (t->have_prev && moved) count_reach(t, sig);
    t->calm = n_prev == 0 ? t->calm + 1 : 0;
    follow_drift(t, frame, t_ms, moved, sig, out);
    memcpy(t->sig_prev, sig, sizeof(int16_t) * 3 * (size_t)t->nsig);
    t->have_prev = true;
    if (moved) {
        memcpy(t->sig_anchor, sig, sizeof(int16_t) * 3 * (size_t)t->nsig);
        t->still_since = t_ms;
        t->still_frames = 0;
        t->reported_this_still = false;
        t->relooks = 0;
        out->moving = true;
        return GS_OK;
    }
    t->still_frames++;
    if (t->reported_this_still) {
        relook(t, frame, t_ms, out);
        return GS_OK;
    }
    /* settled: still for the settle window, or sooner when hand-free (on
     * the grid in place) */
    if (t_ms - t->still_since < t->opt.settle_ms && !settled_sooner(t, frame, t_ms, sig, out)) return GS_OK;
    t->reported_this_still = true;
    /* still long enough: only a view that differs from the last settled one
     * is worth a full read */
    if (t->have_settled_sig && t->have_pos && tr_sig_changed(t, sig, t->sig_settled) == 0) return GS_OK;
    return settle_view(t, frame, false, out, err);
}
