/* vision/vision.h: find the board grid in a photo and read every
 * intersection.
 *
 * Two stages with one shared data type:
 *   vision_grid_find()  photo -> vision_grid (board size, outer corners,
 *                        mapping from board coordinates to image pixels)
 *   vision_read()       photo + vision_grid -> position + confidences
 * vision_scan() runs both.  All results are plain structs owned by the
 * caller; nothing here keeps state between calls (tracking over frames is the
 * recorder's job).
 */
#ifndef VISION_H
#define VISION_H

#include "core/gs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where the board's lines are in an image.
 * Board coordinates (u, v): u = column 0..size-1 from the left of the image's
 * top row, v = row 0..size-1 from the top (the row nearest the top of the
 * image, as in the ground-truth .txt files); (0,0) is the outer intersection
 * at corners[0].  Off-grid values (e.g. -0.5) address the margin. */
typedef struct vision_grid {
    int size;               /* 9, 13 or 19 (any 5..25 via corners) */
    double corners[4][2];   /* image (x, y) of the outer intersections:
                               [0] (0,0), [1] (size-1,0), [2] (size-1,size-1),
                               [3] (0,size-1) */
    double H[9];            /* row-major homography, board (u,v,1) -> image */
    double k1;              /* radial lens distortion (0 = none), see
                               vision_grid_map for the model */
    double cx, cy, norm;    /* distortion centre and radius normaliser (px) */
    double cell_aspect;     /* estimated cell height / width on the board */
    double confidence;      /* 0..1, how sure the grid fit is */
} vision_grid;

/* Maps board coordinates to image pixels: p = H (u,v,1), then radial
 * distortion about (cx,cy): r = |p - c| / norm, p' = c + (p - c)(1 + k1 r^2). */
void vision_grid_map(const vision_grid *g, double u, double v, double *x, double *y);

/* A pinhole camera fitted to a grid homography (board cells -> pixels of
 * an image width x height, principal point at its centre), for where a
 * stone's body appears in an oblique view: above its point, towards the
 * far side.  Plain data; ok 0 when the view is too frontal to tell (the
 * offsets are then 0). */
typedef struct vision_cam {
    int ok;
    double f, cx, cy;
    double r1[3], r2[3], n[3], t[3];
} vision_cam;
void vision_cam_fit(vision_cam *c, const double H[9], int width, int height);
/* Image displacement of a point h cells above board point (u,v). */
void vision_cam_offset(const vision_cam *c, double u, double v, double h, double *dx, double *dy);
/* Height (cells) of the point of a stone whose image a reading follows:
 * about the middle of its body, so a sample stays on the stone in oblique
 * views (a stone is about 0.4 cell high). */
#define VISION_STONE_H 0.22

/* Fills g from four image points (outer intersections in the order of
 * vision_grid.corners) and a board size; no lens distortion. Used for
 * --corners, calibration files and tests. GS_ERR_USAGE for a degenerate quad. */
gs_status vision_grid_from_corners(vision_grid *g, int size, const double corners[4][2], gs_error *err);

/* Finds the board in img and fits its grid. size_hint 0 = detect 9/13/19.
 * GS_ERR_NOBOARD (with a reason in err) when no board is found. */
gs_status vision_grid_find(const gs_image *img, int size_hint, vision_grid *out, gs_error *err);
/* The same search without the second look on larger working copies that
 * vision_grid_find takes when a big photo is refused (a small board in a
 * wide scene): for video, which looks for the board a few times a second
 * (a refused 1920x1080 frame then costs about 20-50 ms, not 240). */
gs_status vision_grid_find_frame(const gs_image *img, int size_hint, vision_grid *out, gs_error *err);

/* What vision_read returns: the position and, per point (row-major), a
 * confidence 0..1 in the reading.
 *
 * The doubt contract: a point whose confidence is below VISION_UNSURE is
 * uncertain (unsure[i] = 1; `uncertain` counts them).  Every consumer shows
 * it rather than hiding it: `goscribe scan` marks such points with a '?'
 * after the token in its text output, lists them in --json ("uncertain"),
 * draws a red square on the overlay and prints one warning line on stderr
 * ("warning: N uncertain points"), exit status 3 (the board was read, not all of it surely);
 * `count` from a photo reports the count as uncertain by up to the
 * uncertain points (each could change the score by its own point and its
 * territory).  No board at all is GS_ERR_NOBOARD (exit 2) with the reason. */
#define VISION_UNSURE 0.6f
/* A confidence lowered to just under VISION_UNSURE: the point is marked. */
static inline float vision_doubted(float conf) { return conf < VISION_UNSURE - 0.05f ? conf : VISION_UNSURE - 0.05f; }
typedef struct vision_reading {
    gs_position pos;
    float confidence[GS_MAX_SIZE * GS_MAX_SIZE];
    unsigned char unsure[GS_MAX_SIZE * GS_MAX_SIZE]; /* 1 = confidence < VISION_UNSURE */
    int uncertain;                                    /* how many points are unsure */
} vision_reading;

/* Reads every intersection of g in img as empty, black or white. */
gs_status vision_read(const gs_image *img, const vision_grid *g, vision_reading *out, gs_error *err);

/* The look a reading of one photo gets beside vision_read's (vision_scan
 * gives it its reading itself): under a lamp low beside the board, whose
 * light the photo's white stones show raking from one side, a point read
 * black that shows the shadow of the stone beside it on the lamp's side
 * is read empty and marked unsure (confidence, unsure and uncertain of r).
 * GS_OK, or an error (arguments that do not fit, no memory for the wood's
 * fit) with nothing changed. */
gs_status vision_read_shade(const gs_image *img, const vision_grid *g, vision_reading *r, gs_error *err);

/* Of the pairs of orthogonally neighbouring stones in p, the share that
 * join stones of one colour (1 when no two stones touch).  A finished
 * game's stones face the other colour along long borders; patches of a
 * photo that is no board, read as stones, do not, nor do a chessboard's
 * squares read one by one (0).  The board finder takes a board whose
 * stones hide most of its lines only when this lies within
 * VISION_CONTACT_SAME_MIN..VISION_CONTACT_SAME (the final positions of the
 * 26 finished KGS games of the shared data: 0.53-0.735; facades, chessboards
 * and the rest of the opencv-doc photos read as stones: 0.79-1.0). */
double vision_contacts_same(const gs_position *p);
#define VISION_CONTACT_SAME 0.75
#define VISION_CONTACT_SAME_MIN 0.4

/* Options and result of the whole single-photo pipeline. */
typedef struct vision_scan_options {
    int size_hint;              /* 0 = auto */
    const double (*corners)[2]; /* NULL = auto, else 4 points as above */
    const vision_grid *grid;    /* a grid known already (a calibration, the
                                   one a recording follows): no search, the
                                   photo's reading on it; NULL = none */
} vision_scan_options;

typedef struct vision_scan_result {
    vision_grid grid;
    vision_reading reading;
    int rival_points;          /* points one of the runner-up grids of the
                                  same size, ranked almost as well, reads
                                  otherwise (all marked unsure; a quarter of
                                  the board or more: every point is); 0 when
                                  there is none */
    int moved_points;          /* points read otherwise on the grid
                                  moved a tenth of a cell (vision_scan;
                                  marked unsure; those marked already not
                                  counted) */
    double gain;               /* how much an underexposed photo was
                                  brightened before the search and the
                                  reading (vision_scan), 1 when not */
    double ms_grid, ms_read;   /* time taken by each stage */
} vision_scan_result;

gs_status vision_scan(const gs_image *img, const vision_scan_options *opt, vision_scan_result *out, gs_error *err);


/* ---- diagnostics of the board finder (vision_grid_find in
 * vision.h is the main entry).  For tests, the calibrate command and
 * evaluation tools that want to know why a photo failed. Plain data. */

/* At most this many runners-up are kept (each is read once more). */
#define VISION_RIVALS 3
typedef struct vision_grid_find_info {
    int nsegs;            /* line pieces found in the working image */
    double support[2];    /* length of the pieces of each line family */
    double window_score;  /* 0..1 how clearly the outer lines stand out */
    double found_frac;    /* fraction of grid-line samples on a dark line */
    double line_map;      /* share of the line pixels the grid found explains */
    double line_clear;    /* its lines on its open stretches less those half
                             a cell off (grid_score.c) */
    double resid_p90;     /* 90th percentile distance (cells) from the fitted
                             grid lines to the dark line pixels near them */
    double resid_worst_line; /* largest per-line median of that distance */
    /* the runners-up: different grids of the same size, each unlike the
     * others, that ranked within VISION_RIVAL_GAP of the one found (a
     * lattice a line off, most often), best first; where one of them reads
     * a point otherwise the photo does not tell.  (Where all of them and
     * the grid found are off, a point they read alike may still be wrong.) */
    int nrivals;
    vision_grid rival[VISION_RIVALS];
    double rival_gap[VISION_RIVALS]; /* rank of the grid found less the rival's */
    /* what vision_read gave on the grid found in the image searched, when
     * the finder read it to judge a crowded board (have_reading 1); a
     * caller about to read that grid in that image may take it instead (a
     * reading of a 12-megapixel photo takes about 16 ms) */
    int have_reading;
    vision_reading reading;
} vision_grid_find_info;

/* Rank gap (of a few hundredths on crowded boards) under which a
 * runner-up grid is kept in vision_grid_find_info.rival. */
#define VISION_RIVAL_GAP 0.05

/* vision_grid_find with diagnostics; info is always filled (zeros when the
 * stage that sets a field was not reached). */
gs_status vision_grid_find_ex(const gs_image *img, int size_hint, vision_grid *out, vision_grid_find_info *info,
                              gs_error *err);


/* ---- extras of the point-reading stage (vision_read in
 * vision/vision.h is the main entry): the overlay drawing used by
 * `goscribe scan --overlay` and per-point features for tests and tuning.
 * Everything here is stateless; results are plain data owned by the caller. */

/* What vision_read measured at one intersection, relative to the board's
 * own wood colour at that place (so 1.0 means "like the wood"). */
typedef struct vision_point_features {
    float lum;       /* median brightness of the stone-sized disc / wood brightness */
    float dark;      /* fraction of the disc much darker than the wood */
    float neutral;   /* fraction of the disc bright and colourless (white-stone-like) */
    float woodlike;  /* median "wood hue" strength of the disc: 1 wood, ~0 grey */
    float cross;     /* median chromaticity across the wood's hue (same
                        units): 0 for wood and for grey, not 0 for a stone
                        whose colour differs from the wood's in another way
                        (white stones under a violet lamp: bluer than the
                        purple wood, as bright and as "wood-hued") */
    float spread;    /* interquartile range of brightness / wood brightness */
    float lines;     /* contrast of the two grid lines through the point (at the
                        board surface): depth of the deepest dip across each
                        line (darker than both sides, so a stone's or a
                        shadow's edge does not count) / wood brightness;
                        high when empty */
    float base;      /* median brightness of a small disc (0.12 cell) at the
                        intersection itself, on the board surface / wood
                        brightness: under the body of a stone standing
                        there, wood or a shadow's edge when the disc above
                        (a stone's top seen obliquely) falls on a
                        neighbour's stone */
    float ring;      /* median brightness of a ring just outside a stone's
                        disc (radius 0.5-0.62 cell round the same centre) /
                        that of the disc: a stone stands out from what is
                        round it (gaps, shadow, wood), glare and wood do not */
    int seen;        /* 0 when the disc lies off the photo (nothing seen) */
    float margin_lum, margin_wood; /* edge points: lum and woodlike of a
                        disc in the margin just outside the point (1, 1
                        elsewhere): a stone set off its point lies there */
    float margin_dark; /* edge points: lum of the darker margin disc (a
                        corner has two; 1 elsewhere): the table or the
                        board's side beyond the point */
} vision_point_features;

/* Measures every intersection of g in img (row-major, size*size entries
 * written to feat, which the caller provides). */
gs_status vision_read_features(const gs_image *img, const vision_grid *g, vision_point_features *feat, gs_error *err);

/* Draws the grid lines of g onto img: per_cell square dots of half-side
 * `half` along each line per cell (through the mapping, so lens distortion
 * shows; dots at rounded positions), colour c.  The live frame, the
 * calibration overlay and the scan overlay all draw their grid with it. */
void vision_grid_draw(gs_image *img, const vision_grid *g, int per_cell, int half, gs_bgr c);

/* Draws the grid and every reading onto img (3-channel, modified in place):
 * grid lines in green, the coordinates on all four sides (vision_draw_coords),
 * each stone read as vision_draw_stone draws it, low-confidence points
 * (unsure, confidence < VISION_UNSURE) in a red square around the point.
 * reading may be NULL (grid and coordinates only). */
/* A stone read: black a dark disc with a light outline, white a light disc
 * with a dark outline, 0.72 of a cell across (the two are told apart at a
 * glance on any board). */
void vision_draw_stone(gs_image *img, double cx, double cy, double cell, gs_color c);
/* The coordinates outside the grid on all four sides: letters A-T without
 * I along the top and bottom, numbers (1 at the bottom) left and right,
 * each on a light patch; cell = vision_grid_cell(g). */
void vision_draw_coords(gs_image *img, const vision_grid *g, double cell);
/* The picture's size of one cell (the diagonal's length over the cells). */
double vision_grid_cell(const vision_grid *g);
void vision_draw_overlay(gs_image *img, const vision_grid *g, const vision_reading *reading);

#ifdef __cplusplus
}
#endif
#endif
