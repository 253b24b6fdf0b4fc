/* vision/vision.h: find the board grid in an image and read every
 * intersection.
 *
 * A detector (vision_detector, made from vision_params, as AprilTag's
 * apriltag_detector) runs two stages with one shared data type:
 *   the board finder   image -> vision_grid (board size, outer corners,
 *                      mapping from board coordinates to image pixels)
 *   the reader         image + vision_grid -> position + confidences
 * vision_detect_photo() runs them on a photo, vision_detect_frame() on a
 * video frame; the difference is named in vision_looks.  All results are
 * plain structs owned by the caller; nothing keeps state between calls
 * (tracking over frames is track/'s job).
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
 * views (a stone is about 0.4 cell high): the stone's geometry. */
#define VISION_STONE_H 0.22

/* Fills g from four image points (outer intersections in the order of
 * vision_grid.corners) and a board size; no lens distortion. Used for
 * --corners, calibration files and tests. GS_ERR_USAGE for a degenerate quad. */
gs_status vision_grid_from_corners(vision_grid *g, int size, const double corners[4][2], gs_error *err);

/* The position and, per point (row-major), a confidence 0..1 in the
 * reading.
 *
 * The doubt contract: a point whose confidence is below the detector's
 * vision_params.unsure is uncertain (unsure[i] = 1; `uncertain` counts
 * them).  Every consumer shows it rather than hiding it: `goscribe scan`
 * marks such points with a '?' after the token in its text output, lists
 * them in --json ("uncertain"), draws a red square on the overlay and
 * prints one warning line on stderr ("warning: N uncertain points"), exit
 * status 3 (the board was read, not all of it surely); `count` from a
 * photo counts each such point, and each chain of them, as its next
 * likeliest colour (second) and gives the range of the result.  No board at
 * all is GS_ERR_NOBOARD (exit 2) with the reason. */
#define VISION_SECOND_ANY ((gs_color)3) /* vision_reading.second: either other colour */

typedef struct vision_reading {
    gs_position pos;
    float confidence[GS_MAX_SIZE * GS_MAX_SIZE];
    unsigned char unsure[GS_MAX_SIZE * GS_MAX_SIZE]; /* 1 = confidence < vision_params.unsure */
    int uncertain;                                    /* how many points are unsure */
    /* each point's next likeliest colour (never its reading) and how
     * likely it is: what `count` reads a doubtful point as when it gives
     * the range of the result; VISION_SECOND_ANY where either other colour
     * may be (a point off the photo).  second_p is the model's
     * probability of the second (without the model: 1 - confidence, the
     * reader's margin; a point whose place is in doubt: at least
     * 1 - confidence as doubted). */
    gs_color second[GS_MAX_SIZE * GS_MAX_SIZE];
    float second_p[GS_MAX_SIZE * GS_MAX_SIZE];
    /* the point model's calibrated probabilities (have_prob 1: the model
     * read the photo): empty, black, white, and no intersection there */
    int have_prob;
    float prob[GS_MAX_SIZE * GS_MAX_SIZE][4];
    /* points off the photo (a board cut off by its edge): not read at all
     * (empty, unsure, confidence 0); `outside` counts them */
    unsigned char off_photo[GS_MAX_SIZE * GS_MAX_SIZE];
    int outside;
} vision_reading;

/* Of the pairs of orthogonally neighbouring stones in p, the share that
 * join stones of one colour (1 when no two stones touch).  A finished
 * game's stones face the other colour along long borders; patches of a
 * photo that is no board, read as stones, do not, nor do a chessboard's
 * squares read one by one (0).  See vision_params.contact_same_min/max. */
double vision_contacts_same(const gs_position *p);

/* ---- the board seen from above: what the point model reads ---- */

/* A view samples a grid's lattice square, VISION_VIEW_CELL pixels a cell;
 * lattice point k of an axis is the centre of pixels
 * [k * CELL, k * CELL + WINDOW), the model's window (2.2 cells), so the
 * model run over the whole view answers at every lattice point, and at
 * the thirds of a cell between them, in one pass (vision/view.c). */
#define VISION_VIEW_CELL 12
#define VISION_VIEW_WINDOW 26
/* The view is sampled this high above the board (cells): the middle of a
 * stone's body (vision/view.c). */
#define VISION_VIEW_HEIGHT VISION_STONE_H

/* Lattice points u0 .. u0+nu-1 across, v0 .. v0+nv-1 down (board
 * coordinates of the grid: negative and >= size are the margin and
 * beyond).  Plain data; vision_view_free frees the buffers. */
typedef struct vision_view {
    int u0, v0, nu, nv;
    int width, height;      /* pixels: (n - 1) * CELL + WINDOW */
    float wood[3];          /* the wood's B, G, R the input is relative to */
    uint8_t *bgr;           /* width * height * 3: the samples as they are */
    float *input;           /* 3 planes (B, G, R) of width * height: log2(sample / wood), clipped */
    unsigned char *inside;  /* nu * nv, row-major: the point lies in the photo (0.15 cell round it) */
    int turn;               /* quarter turns clockwise that put the camera's side at the bottom, as the
                               model learned boards (0-3; vision/view.c view_turn) */
} vision_view;

/* The view of g's lattice over img.  GS_ERR_USAGE for a view that cannot
 * be, GS_ERR_NOMEM. */
gs_status vision_view_make(const gs_image *img, const vision_grid *g, int u0, int v0, int nu, int nv, vision_view *out,
                           gs_error *err);
void vision_view_free(vision_view *vw); /* NULL is fine; the struct is left empty */

/* ---- the detector: parameters, looks, entry points ---- */

/* The looks an image gets beyond finding the grid and reading its points.
 * A photo gets all of them (vision_params.photo), a video frame none
 * (vision_params.frame): a frame is searched a few times a second and read
 * once per settled view, and the tracker that follows it over time makes
 * its own checks. */
typedef struct vision_looks {
    int brighten; /* an underexposed image brightened before the search and
                     the reading (vision_result.gain) */
    int wider;    /* an image refused at work_side searched again on the
                     larger working copies wider_side it is big enough for
                     (a small board in a wide scene; a refused 1920x1080
                     frame costs 20-50 ms without, 240 with) */
    int shade;    /* under a lamp low beside the board, a point read black
                     that shows the shadow of the stone beside it read empty
                     and marked unsure */
    int model;    /* the point model reads every point beside the rules
                     reader, whose colour stays: a point is marked unsure
                     where the two differ, where the model gives its colour
                     less than vision_params.point_sure or another colour
                     other_colour or more, or where the rules reader doubts
                     it and the model does not clear it (model_clears;
                     vision_reading.prob) */
} vision_looks;

/* Every tuning number of vision/, with its default (vision_params_init).
 * Each is a bet that other photos fall on the same side of it as the
 * photos it was measured on; the comment says what it separates and on
 * what it was measured.  Brightness ("lum") is relative to the board's own
 * wood there, line contrast ("lines") to the usual contrast of the plain
 * wood round the point, so light, tint and resolution cancel out.  The
 * history of these figures: doc/evaluation.md. */
typedef struct vision_params {
    vision_looks photo, frame; /* what vision_detect_photo and vision_detect_frame add */
    float unsure;              /* confidence under which a point is marked unsure: the doubt contract (0.6) */
    float point_sure;          /* the model's calibrated probability of the colour read under which a point is marked
                                  unsure (0.1: it sees no intersection there; on the 117 visible photos this marks 30
                                  right points and no wrong one the two readers' disagreement left unmarked) */
    float model_clears;        /* the model's probability of the colour read from which a point the rules reader
                                  doubts is taken as sure (0.9; 0.7 left unmarked a wrong point of a mirrored goban-watcher
                                  copy, the model at 0.80 there) */
    float other_colour;        /* the model's calibrated probability of a colour other than the one read (empty, black or
                                  white) from which a point is marked: one chance in five (0.2; on the stone-boxes photos
                                  it marked 71 points the other rules left unmarked, 10 of them wrong stones of the 22 the
                                  two readers agreed on, mostly white stones on pale boards read empty; on the 117 visible
                                  photos 49 points, none wrong) */
    int model_mirror;          /* 1: the model's reading of the found grid is the mean of its answers over the view and
                                  over the view's mirror image (the camera stays at the bottom; a second run of the net).
                                  Read by models that never saw them: goban-watcher 909 -> 774 points marked, stone-boxes'
                                  wrong stones unmarked 131 -> 122 (doc/evaluation.md, eighth stop) */

    /* -- the image prepared (scan.c, grid_find.c) -- */
    double expose_level;    /* bright level (99th percentile of the brightest channel) an underexposed photo is brightened to */
    double expose_max_gain; /* largest brightening: deeper, the noise grows as much as the board (goban-watcher at 60 %: 8 of 46 boards lost without) */
    double expose_skip;     /* gain worth no copy of the photo (imago t1 at 1.15-1.19 reads alike either way) */
    int work_side;          /* longest side of the working copy the board is searched on (px) */
    int wider_side[2];      /* the larger working copies of the wider look (px) */
    double wider_clear;     /* a grid found on a wider copy counts when its lines explain and show this well (ruled notes: 0.36) */
    double line_floor;      /* least black-hat response taken for a thin dark line (grey levels) */
    double line_sd;         /* thin dark lines: the response's mean plus this many standard deviations */

    /* -- line families, combs and windows (grid_lines.c) -- */
    int pieces_min;         /* fewer Hough pieces than this: too few straight lines for a board */
    double family_tol;      /* sine of the angle a piece may miss a vanishing point by (drawn lines: straight to ~1.7 degrees) */
    double family_apart;    /* sine of the least angle between the two families' directions (20 degrees) */
    double family_det;      /* least determinant of the two families' unit directions (nearly parallel below) */
    double comb_min;        /* least comb resultant for evenly spaced pieces (nothing periodic below) */
    double comb_pick;       /* share of the strongest resultant at which the longest period is the fundamental */
    double profile_min;     /* least resultant of a dense line profile for its spacing to replace the pieces' */
    double evidence_min;    /* least typical line evidence for a comb to be judged at all */
    double window_min;      /* least score of the best window of 9/13/19 comb lines */

    /* -- crowded boards: line maps, vanishing points, combs (grid_dense.c) -- */
    double dip_min;         /* a line-map pixel: darker than the darker of its sides by this share */
    double side_min;        /* the sides of a dip at least this share of the photo's bright level (darker: a black stone) */
    int crossed_min;        /* a line-map pixel kept with at least this many of the other map's pixels round it */
    int map_pieces_min;     /* fewer pieces of the line maps than this: too few to find two families */
    int map_pixels_min;     /* fewer line pixels of a family than this: no comb */
    double dense_pick;      /* share of the strongest comb resultant at which a longer period may be the lines' */
    double dense_comb_min;  /* least comb resultant of the line maps (nothing periodic below) */
    double dense_window_min; /* least evidence of a window of comb lines to be a hypothesis */
    double alt_window_drop; /* a window this near the best one's evidence is a tie: a hypothesis too (a mirrored photo picks the other) */

    /* -- a hypothesis scored (grid_dense_fit.c, grid_score.c, grid_refine.c) -- */
    double map_end;         /* cells past the outer line a line pixel still belongs to it (line width, blur) */
    double map_beyond;      /* weight of line pixels beyond the grid (a window a line short leaves ~1/20 of them there) */
    int map_count_min;      /* fewer line pixels of a family near a grid than this: not scored */
    double surface_lum;     /* two colours of one surface: brightness within this factor */
    double surface_chroma2; /* ...and squared chromaticity distance under this (0.1 apart) */
    int fit_pixels_min;     /* the whole-lattice fit stops with fewer line pixels near the grid than this */
    double dip_level_min;   /* least relative depth of a dip on a line stretch (a faint 3 %) */
    double k1_gain;         /* a lens distortion kept only when the lines' cost falls under this share of none's */
    double cell_min_px;     /* a hypothesis with cells smaller than this (working px) is not refined */

    /* -- which hypothesis is the board (grid_find.c) -- */
    double rank_clear;      /* weight of the lines' clarity on open stretches in the rank */
    double rank_outside;    /* weight of the line evidence past the strongest side (windows of a 19x19: 0.74 and more; right grids 0.47 at most) */
    double rank_margin;     /* the best must beat the best different grid by this in rank, else the photo is refused */
    double rival_gap;       /* rank gap under which a runner-up of the same size is kept as a rival (a few hundredths on crowded boards) */
    double rival_whole;     /* another grid (the lines' own, placed otherwise than the model's) reading this share of the points otherwise: the lattice is in doubt, every point marked (rivals a line off on the visible photos read 148-288 of 361 otherwise) */
    double lines_clear;     /* map and clarity both at least this: the line hypothesis needs no crowded-board search */
    double grid_lines_min;  /* least clarity (lines on, less half a cell off) of a board by its lines (boards 0.6 and more; sudoku, notes, facades 0.3 or less) */
    double found_frac_min;  /* ...and least share of its line samples on a dark line */
    double map_lines;       /* ...and least map score (photos 0.8 and up, rendered frames 0.2; a blurred texture -1) */
    double map_crowded;     /* a crowded board: least map score (ordinary photos 0.13 and less but a sudoku 0.6)... */
    double stones_min;      /* ...least share of points with stones (a sudoku: 0.02)... */
    double clear_or_stones; /* ...and least clarity plus that share (a sudoku 0.42; games under coloured lamps 0.63 and up) */
    double map_full;        /* a full board: least map score (finished games under coloured light 0.19-0.25; wrong grids 0.03-0.14)... */
    double full_stones;     /* ...least share of points with stones */
    double contact_same_min; /* ...its stones touching as a finished game's do: same-colour share of contacts at least this (KGS finals 0.53-0.735)... */
    double contact_same_max; /* ...and at most this (facades, chessboards and other opencv-doc photos read as stones: 0.79-1.0) */
    double map_stones;      /* below map_full down to this, the stones alone must show the board (blue lamp: 0.085-0.11) */
    double stones_unsure;   /* ...with at most this share of its points unsure (wrong grids: 0.21) */
    double window_out;      /* a grid under 19x19 with line evidence past a side above this is a window of a bigger board (windows 0.55 and more) */
    int line_run_size;      /* boards from this size up never line up stones of one colour over two thirds of a line (truth: 7 at most; spills 18-19) */
    float beyond_ring_light; /* a light stone one line out: its ring at most this against its disc (as ring_stone) */
    float beyond_ring_dark; /* a dark stone one line out: its ring at least this against its disc */
    int beyond_each;        /* a game goes on past a side: at least this many stones of each colour there... */
    int beyond_runs;        /* ...in at least this many runs of one colour (a bowl beside a paper makes two) */

    /* -- the wood and the features of a point (read.c) -- */
    float wood_lum_lo, wood_lum_hi; /* a disc this bright against the wood model is plain wood */
    double dark_pixel;      /* a disc pixel darker than this share of the wood is dark */
    double neutral_lum;     /* a disc pixel brighter than this share of the wood... */
    double neutral_hue;     /* ...with less than this share of the wood's hue is colourless (white-stone-like) */

    /* -- the rules of a point (read.c) -- */
    float black_lum;        /* darker than this share of the wood: a black stone */
    float white_lum;        /* brighter than this share of the wood: white evidence */
    float lines_gone;       /* grid lines under this share of their usual contrast: gone */
    float lines_hidden;     /* under this share: hidden by a stone */
    float grey_hue;         /* under this share of the wood's hue: colourless */
    float pale_lum;         /* a pale board's white stone: at least this bright against the wood */
    float cross_floor;      /* least spread of the cross-hue measure (about 1.5 of its 1/16 bins) */
    float light_lines;      /* lines under this share of their usual contrast: a stone hides them */
    float ring_stone;       /* a light stone's ring at most this against its disc (wood and glare: about 1) */
    float pop_apart;        /* wood and light stones told apart by colour from this many spreads (boards 1.9-17; pale green under violet 0.3) */
    float ring_apart;       /* ...or by the light points' ring this much darker than the wood's (boards 0.19-0.55; ruled paper 0) */
    float lines_show;       /* lines at this share or more: no light stone there (white stones: 97 % under 0.7) */
    float edge_spread;      /* a disc whose brightness spreads this much (interquartile) is half one thing, half another */
    float light_like;       /* within this many spreads of the light stones' middle: looks like one */
    float light_same;       /* within this many of the light stones' middle... */
    float wood_away;        /* ...and this many from the wood's: a light stone's colour, clearly (17 of 17 such points white) */
    float disagree;         /* evidence this strong on both sides (spreads): the point is unsure */
    float darkish_lum;      /* darker than this with its lines hidden: a dark stone under a lamp that lightens it */
    float wood_lines;       /* lines over this share: the point shows wood */
    float base_wood;        /* the intersection at least this bright... */
    float base_lines;       /* ...and its lines at this share: wood shows at the point (13 of 13 such points empty) */
    float base_light;       /* an intersection this much brighter than the wood: a light stone's body there */
    float base_set_off;     /* ...this much under a disc of the wood's colour: a light stone set off towards the camera (10 of 10 white) */
    float ring_none;        /* a ring this bright against its disc or more: no stone's ring (light stones' median 0.65-0.72) */
    float margin_lit;       /* a margin disc at least this share of its edge point's disc: the light goes on past the board */
    float margin_off;       /* a margin disc this dark against the wood lies past the board's edge */
    float base_dark;        /* an intersection this dark (a black stone's body 0.01-0.02; lines darken to 0.10 at least)... */
    float ring_dark;        /* ...with a ring this much brighter than its disc (dark stones 1.27 and more, empty about 1): a black stone */
    float margin_apart;     /* an edge point's margin this many spreads brighter than its side's: a stone set off its point there */
    int light_near;         /* light stones round a point needed for their local middle (radius 3-7 gain alike) */
    double occ_chroma;      /* a hand at the edge: each step out within this chromaticity of the one before */
    double occ_lum;         /* ...and within this share in brightness */
    double occ_table_from;  /* ...and from this far out (cells) unlike the table beside the board */

    /* -- the second look, point against point (read_near.c) -- */
    float near_sure;        /* a neighbour this sure is compared with */
    float near_take;        /* another class nearer by this factor: an unsure point takes it (1.1-1.5 alike on the 117 photos) */
    float near_doubt;       /* ...by this factor: a sure point is doubted */
    float near_alike;       /* ...and no farther from that class than this many typical distances (classes taken: 0.9-2.3) */
    float near_noise;       /* least typical distance (grey levels): what noise alone gives */

    /* -- the third look, the photo's own classifier (read_self.c) -- */
    float self_sure;        /* a point this sure is an example of its class */
    double self_take;       /* posterior at which an unsure point takes the class (0.9-0.999 alike within a point or two) */
    int self_min;           /* a class with fewer examples is left out */
    double self_ridge;      /* each variance raised by this share of itself (a grey photo still solves) */
    double self_lines_max;  /* lines counted at most this many times their usual contrast */

    /* -- the low lamp's look (read_shade.c) -- */
    float shade_sure;       /* a white stone this sure shows the light */
    int shade_min_whites;   /* fewer sure white stones say nothing about the light */
    double shade_raking;    /* raking light: lit halves this many times the others (lamps above 1.5 at most, a low one 3.6) */
    float shade_step;       /* a shadow's far half lighter than its near half by this share of the wood (shadows 0.43-0.61, black stones 0 or less) */
    float shade_floor;      /* halves darker than this share of the wood count as this dark */
} vision_params;

/* Fills p with the defaults (the values the figures of doc/evaluation.md
 * were measured with). */
void vision_params_init(vision_params *p);

/* The detector: made from parameters, it finds and reads boards; it keeps
 * nothing between calls (following a board over frames is track/'s job),
 * so one detector may serve several threads at once. */
typedef struct vision_detector vision_detector;

/* A detector with a copy of p (NULL: the defaults); NULL without memory. */
vision_detector *vision_detector_create(const vision_params *p);
/* The same with the point model read from model_file (an ONNX model made
 * like vision/points.onnx by scripts/train-points.sh, e.g. one trained
 * without the photos it is to read; NULL: the built-in one); NULL with
 * err filled when the file is unreadable or no model. */
vision_detector *vision_detector_open(const vision_params *p, const char *model_file, gs_error *err);
void vision_detector_destroy(vision_detector *d); /* NULL is fine */
const vision_params *vision_detector_params(const vision_detector *d);

/* What to do with one image. */
typedef struct vision_request {
    int size_hint;           /* board size looked for, 0 = 9, 13 or 19 */
    const vision_grid *grid; /* a grid known already (--corners, a calibration,
                                the tracker's): not searched for; NULL = search */
    int find_only;           /* 1 = the grid only, no reading */
    const vision_looks *looks; /* NULL = the entry point's own (vision_params
                                  photo or frame); else these */
} vision_request;

/* Diagnostics of the board finder (for tests, the calibrate command and
 * evaluation tools that want to know why a photo failed).  Plain data. */
#define VISION_RIVALS 3 /* at most this many runners-up are kept (each is read once more) */
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
     * others, that ranked within rival_gap of the one found (a lattice a
     * line off, most often), best first; where one of them reads a point
     * otherwise the photo does not tell.  (Where all of them and the grid
     * found are off, a point they read alike may still be wrong.) */
    int nrivals;
    vision_grid rival[VISION_RIVALS];
    double rival_gap[VISION_RIVALS]; /* rank of the grid found less the rival's */
    /* the reading of the grid found in the image searched, when the finder
     * made one to judge a crowded board (have_reading 1): the detector
     * takes it instead of reading that grid again */
    int have_reading;
    vision_reading reading;
    /* how the grid was taken: as a crowded board by its stones (its lines
     * hidden), and how far it ranked above the best different grid (1
     * when there was none): the wider look trusts such a grid too */
    int crowded;
    double rank_gap;
    /* when the point model judged the grids (vision_looks.model): the
     * board's sides (top, right, bottom, left, in the grid's board
     * coordinates) whose outer line has points off the photo (a board cut
     * off there: those points are not seen), and the evidence (nats) for
     * the window taken */
    int cut[4];
    double model_evidence;
    /* ...and the axes along which neither edge line is in the photo (1:
     * top and bottom, 2: left and right, 3: both; a board cut at opposite
     * sides): which of its lines the photo shows cannot be told, every
     * point is marked */
    int place_unknown;
    /* the stages of lines and stones refuse the photo (every point is
     * marked: the grid may not fit the board) or take another grid,
     * lines_grid (the points it reads otherwise are marked) */
    int place_doubt, have_lines_grid;
    vision_grid lines_grid;
} vision_grid_find_info;

/* What a detection gives.  Plain data, owned by the caller. */
typedef struct vision_result {
    vision_grid grid;
    vision_reading reading;    /* all zero with find_only */
    int lines_points;          /* points the lines' own grid, placed otherwise
                                  than the model's (info.place_doubt), reads
                                  otherwise: all marked unsure (rival_whole of
                                  the board or more: every point is); 0 when
                                  none */
    double gain;               /* how much an underexposed image was
                                  brightened, 1 when not, 0 when the look was
                                  not taken */
    double ms_grid, ms_read;   /* time taken by each stage */
    vision_grid_find_info info; /* the finder's diagnostics; zeros when the
                                   grid was given, or for the stages not
                                   reached */
} vision_result;

/* A photo: the grid found (or rq->grid taken), every point read, with
 * the photo looks.  rq NULL = size 9/13/19, search, read.
 * GS_ERR_NOBOARD with the reason when no board is found, GS_ERR_USAGE for
 * an image or a request that cannot be (too small, a size out of range). */
gs_status vision_detect_photo(const vision_detector *d, const gs_image *img, const vision_request *rq,
                              vision_result *out, gs_error *err);
/* A video frame: the same with the frame looks. */
gs_status vision_detect_frame(const vision_detector *d, const gs_image *img, const vision_request *rq,
                              vision_result *out, gs_error *err);

/* ---- drawing ---- */

/* Draws the grid lines of g onto img: per_cell square dots of half-side
 * `half` along each line per cell (through the mapping, so lens distortion
 * shows; dots at rounded positions), colour c.  The live frame, the
 * calibration overlay and the scan overlay all draw their grid with it. */
void vision_grid_draw(gs_image *img, const vision_grid *g, int per_cell, int half, gs_bgr c);

/* Draws the grid and every reading onto img (3-channel, modified in place):
 * grid lines in green, the coordinates on all four sides (vision_draw_coords),
 * each stone read as vision_draw_stone draws it, low-confidence points
 * (unsure: confidence below the detector's vision_params.unsure) in a red square around the point.
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
