/* track/tracker_internal.h: the tracker's state and its tuning, shared by
 * its files: grid.c (the grid in place, signatures) below drift.c (the
 * grid followed on a drifting board) and settle.c (a still view read),
 * below tracker.c (track_feed). */
#ifndef TRACK_TRACKER_INTERNAL_H
#define TRACK_TRACKER_INTERNAL_H

#include "track/track.h"

#include <stdbool.h>
#include <stdint.h>

#define TR_NPTS (GS_MAX_SIZE * GS_MAX_SIZE)
/* sample spots per point, each a 2x2 pixel block */
#define TR_SAMPLES 4
/* margin sample spots (track/track.h) follow the points in signatures */
#define TR_MARG (4 * (2 * GS_MAX_SIZE + 1))
#define TR_NSIG (TR_NPTS + TR_MARG)
/* A point "moved" when its mean colour changed by more than this (sum of
 * the three channel differences, 0..765): well above video noise, well
 * below a hand or a stone appearing. */
#define TR_MOVE_DIFF 45
/* A settled reading that changes more points than a move with a modest
 * capture makes the tracker look for the board again. */
#define TR_REFIND_DIFF 5
/* A view still for this many frames in a row, with nothing over the
 * board's margin (an arm reaching in crosses it) and at most
 * TR_QUICK_POINTS points changed since the last settled view, has no hand
 * in it: settled then, without waiting for the settle window (which a
 * resting hand also passes).  In blitz the hands leave the board for
 * 4-8 frames of 30 between moves (the bundled classic rendered at 4x
 * pace), well under half a second. */
#define TR_QUICK_FRAMES 3
#define TR_QUICK_POINTS 12
/* ... margin spots that may differ from the margin's reference (noise,
 * a spot half on the board's edge): an arm across the margin changes 4
 * and more */
#define TR_QUICK_MARGIN 2
/* Without a board, it is looked for at most this often (frame time, ms):
 * the search is costly, and a few times a second finds it before the first
 * hand reaches in whatever the frame rate */
#define TR_SEARCH_EVERY_MS 300
/* A still view with stones on its margin is looked at again (the margin
 * only, the same position) this often, at most TR_RELOOK_MAX times */
#define TR_RELOOK_MS 1000
#define TR_RELOOK_MAX 6
/* Drift following: four patches of TR_PATCH x TR_PATCH grey pixels, each
 * image pixel block of the patch about TR_PATCH_CELLS / TR_PATCH cell wide,
 * centred on the four outer intersections (wood, edge, table and the
 * lines' corner: texture in both directions). */
#define TR_PATCH 64
#define TR_PATCH_CELLS 4.0
/* A corner's match counts when its phase-correlation peak reaches this
 * (the same picture moved gives 0.8..1, one with some stones added near
 * the corner 0.4..0.7, a patch a hand mostly covers or another picture
 * well under 0.2). */
#define TR_PEAK_MIN 0.2
/* Below this the reference is renewed at the next settled view (stones
 * put near a corner change its patch for good, and a much changed corner
 * may match a whole cell off on the lines) */
#define TR_PEAK_REFRESH 0.6
/* Measures at most this often (frame time, ms) while the grid has moved
 * in the last TR_DRIFT_ACTIVE_MS, else at most every TR_DRIFT_IDLE_MS:
 * drifts are slow, and most cameras do not drift at all */
#define TR_DRIFT_EVERY_MS 90
#define TR_DRIFT_IDLE_MS 400
#define TR_DRIFT_ACTIVE_MS 3000
/* The grid moves when a corner has drifted this far (cells) ... */
#define TR_DRIFT_APPLY 0.015
/* ... unless one corner's move differs from the others' by more than
 * this (cells): not a drift of the whole picture */
#define TR_DRIFT_SPREAD 0.2
/* ... or the move since the grid was last placed exceeds this (cells): a
 * knock, left to the board search */
#define TR_DRIFT_MAX 0.6
/* ... or it disagrees with the previous measure by more than this (cells) */
#define TR_DRIFT_STEADY 0.08
/* Frames in a row without motion before the first reference is taken */
#define TR_CALM_REF 3
/* Failed measures in a row after which a settled view renews it */
#define TR_LOST_REF 10
/* A note when the board has drifted this far (cells) since it was found,
 * then at twice, four times ... that */
#define TR_DRIFT_NOTE 0.25
/* The followed grid keeps the small error of each measure and of each
 * renewed reference, and over a long game they add up (on a 19x19 render
 * the grid fell 0.17 cell behind a slow pan by move 84, half a cell after
 * ten minutes).  The first sign is a stone played on an edge point, read
 * surely (at least TR_EDGE_SURE), that the margin test puts off its line;
 * then the board is searched for in the still view (at most every
 * TR_RESCUE_MS of frame time), and its grid taken when it is the same
 * lattice moved a little (every corner within TR_RESCUE_MAX cell), reads
 * the view no worse and puts fewer such stones off their lines. */
#define TR_EDGE_SURE 0.9f
#define TR_RESCUE_MS 5000
#define TR_RESCUE_MAX 0.5

struct track {
    track_options opt;
    bool have_grid;
    vision_grid grid;
    int npts;
    int sample_dx[TR_SAMPLES], sample_dy[TR_SAMPLES]; /* offsets around a point */
    int nsig;                                         /* npts + margin spots */
    int px[TR_NSIG], py[TR_NSIG];                     /* point centres, pixels */
    int width, height;                                /* frame size the grid is for */
    /* signatures: previous frame, anchor of the current still period, and
     * the last settled view */
    int16_t sig_prev[TR_NSIG][3], sig_anchor[TR_NSIG][3], sig_settled[TR_NSIG][3];
    bool have_prev, have_settled_sig;
    double still_since;
    int still_frames;           /* frames in a row without motion */
    /* the margin spots of the last settled view nothing crossed (a hand
     * resting over the margin in a settled view is not the margin) */
    int16_t sig_mref[TR_MARG][3];
    bool have_mref;
    bool reported_this_still;   /* the current still period was handled */
    bool have_pos;
    gs_position pos;            /* last settled position */
    long frames_without_grid;
    double last_search_ms;      /* frame time of the last board search */
    vision_detector *vd;        /* finds and reads the board in a frame */
    vision_result *seen;        /* the detector's answer: scratch, big */
    /* drift following (see track/track.h) */
    double pitch;               /* pixels per cell near the board centre */
    bool have_ref;              /* reference patches taken for this grid */
    int calm;                   /* frames in a row without motion */
    int patch_k;                /* image pixels per patch pixel */
    int ref_ox[4], ref_oy[4];   /* image origin of each reference patch */
    double ref_c[4][2];         /* outer intersections at the reference */
    vision_grid ref_grid;       /* the grid at the reference */
    uint8_t ref_px[4 * TR_PATCH * TR_PATCH], cur_px[4 * TR_PATCH * TR_PATCH];
    bool have_shift[4];         /* each patch's last phase correlation against this reference ... */
    uint8_t shifts_px[4 * TR_PATCH * TR_PATCH]; /* ... on these patches */
    double shifts[4][2], shifts_peak[4];        /* ... gave these */
    bool have_last;             /* last_disp holds the previous good measure */
    bool in_sync;               /* the last measure found the grid in place */
    bool weak;                  /* ... with a corner matching poorly: take a
                                   new reference at the next settled view */
    double last_est_ms;         /* frame time of the last measure */
    double last_move_ms;        /* ... of the last grid move */
    double last_rescue_ms;      /* ... of the last search for an edge stone
                                   put off its line (TR_RESCUE_MS) */
    int lost;                   /* measures in a row with two corners or
                                   more unmatched (a reference spoilt by a
                                   hand, or much changed) */
    double last_disp[4][2];
    double found_c[4][2];       /* outer intersections when the grid was found */
    double next_note;           /* drift (cells) worth the next note */
    /* looks again at a still view with stones on its margin (a signal is
     * a stone held there for several settled views) */
    uint8_t last_unc[TR_NPTS];  /* the last read's unreadable points ... */
    float last_conf[TR_NPTS];   /* ... and confidences */
    int last_nu;
    double last_mean_conf;
    double last_settled_ms;     /* frame time of the last settled view */
    int relooks;                /* looks again in this still period */
    int margin_n;               /* margin stones at the last look */
    /* the margin's reference: the first settled view (owned), with its
     * grid; dropped when the frame size changes */
    gs_image *margin_ref;
    vision_grid margin_ref_grid;
    int reach[4];               /* frames with motion on each side's margin
                                   since the last settled view */
    track_looks looks;          /* each point's look when its value was set */
};

void tr_outer_corners(const vision_grid *g, double c[4][2]);
void tr_place_grid(track *t, const vision_grid *g, int w, int h);
void tr_set_grid(track *t, const vision_grid *g, int w, int h);
void tr_signature(const track *t, const gs_image *img, int16_t sig[][3]);
int tr_sig_changed_ex(const track *t, int16_t a[][3], int16_t b[][3], int *big);
int tr_sig_changed(const track *t, int16_t a[][3], int16_t b[][3]);
bool tr_find_grid(track *t, const gs_image *img, int size_hint, vision_grid *g, gs_error *e);
void tr_grid_keep_orientation(vision_grid *g, const vision_grid *old);
void tr_grid_for_frame(track *t, const gs_image *frame, track_update *out);
void tr_drift_take_ref(track *t, const gs_image *img);
bool tr_drift_due(track *t, double t_ms);
bool tr_drift_follow(track *t, const gs_image *img, track_update *out);
void tr_margin_scan(const track *t, const gs_image *img, track_margin_view *out);
gs_status tr_settle(track *t, const gs_image *img, track_update *out, gs_error *err);
gs_status tr_settle_photo(track *t, const gs_image *img, track_update *out, gs_error *err);

#endif
