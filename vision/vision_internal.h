/* vision/vision_internal.h: what vision's own files share; not a public API
 * (vision/vision.h is the folder's header). */
#ifndef VISION_INTERNAL_H
#define VISION_INTERNAL_H

#include "vision/vision.h"
#include "cvshim/cvshim.h"

/* The detector: its parameters and the point model (every stage allocates
 * its own scratch, and the model's net lets one run at a time, so one
 * detector may serve several threads). */
struct vision_detector {
    vision_params P;
    cvshim_net *net;
};

/* Whether board point (u, v) of g is in the photo (vision/view.c): what a
 * view's `inside` says of its points. */
bool vision_point_in_photo(const gs_image *img, const vision_grid *g, double u, double v);

/* The shrunk copies of one photo that its views were sampled from
 * (vision/view.c), kept for one detection: the view the model reads on
 * the grid found is mostly of a lattice already judged, with the same
 * cells, and shrinking the whole photo again cost more than the model's
 * run.  A copy is the same whichever view asks for it (cv::resize to one
 * size of one image); `of` is the photo, set by the first view. */
#define VISION_SHRUNK_MAX 8
typedef struct vision_shrunk {
    const gs_image *of;
    int n;
    int w[VISION_SHRUNK_MAX], h[VISION_SHRUNK_MAX];
    gs_image *img[VISION_SHRUNK_MAX];
} vision_shrunk;
void vision_shrunk_free(vision_shrunk *s); /* the copies freed, s left empty */
/* vision_view_make with the copies in *shrunk used and kept (NULL: none). */
gs_status vision_view_make_with(const gs_image *img, const vision_grid *g, int u0, int v0, int nu, int nv,
                                vision_shrunk *shrunk, vision_view *out, gs_error *err);

/* ---- the point model (vision/model.c) ---- */

/* Its classes, in the order of its output planes. */
enum { VISION_P_EMPTY, VISION_P_BLACK, VISION_P_WHITE, VISION_P_NONE, VISION_CLASSES };

/* The model's answer over a view: VISION_CLASSES planes of rows x cols
 * windows, 3 a cell; lattice point (i, j) of the view is window (3j, 3i).
 * Plain data; vision_probs_free frees p. */
typedef struct vision_probs {
    int rows, cols;
    float *p;
} vision_probs;

static inline float vision_prob(const vision_probs *pr, int cls, int row, int col)
{
    return pr->p[((size_t)cls * (size_t)pr->rows + (size_t)row) * (size_t)pr->cols + (size_t)col];
}
/* at lattice point (i, j) of the view (its indices, from 0) */
static inline float vision_prob_point(const vision_probs *pr, int cls, int i, int j)
{
    return vision_prob(pr, cls, 3 * j, 3 * i);
}

/* The model built into the program (NULL with the reason in err). */
cvshim_net *vision_model_load(gs_error *err);
cvshim_net *vision_model_load_file(const char *path, gs_error *err); /* an ONNX file of the same shape */
/* The model over view vw; with mirrored, the mean of that and of the model
 * over the view's mirror image (vision_params.model_mirror).
 * GS_ERR_INTERNAL when it answers in another shape, GS_ERR_NOMEM. */
gs_status vision_model_read(cvshim_net *net, const vision_view *vw, int mirrored, vision_probs *out, gs_error *err);
void vision_probs_free(vision_probs *pr); /* NULL is fine */

/* A confidence lowered to just under P->unsure: the point is marked. */
static inline float vision_doubted(const vision_params *P, float conf)
{
    return conf < P->unsure - 0.05f ? conf : P->unsure - 0.05f;
}

/* The board finder: the grid of img (size_hint 0 = 9/13/19) and its
 * diagnostics (info always filled: zeros for the stages not reached);
 * wider: the wider look (vision_looks); net: the point model that judges
 * the hypotheses (vision/grid_judge.c), NULL for the line and stone tests
 * of vision/grid_decide.c; shrunk: the copies of img its views keep.
 * GS_ERR_NOBOARD with the reason when no board is found
 * (vision/grid_find.c). */
gs_status vision_grid_find(const vision_params *P, const gs_image *img, int size_hint, int wider, cvshim_net *net,
                           vision_shrunk *shrunk, vision_grid *out, vision_grid_find_info *info, gs_error *err);

/* The reader: every intersection of g in img as empty, black or white
 * (vision/read.c). */
gs_status vision_read(const vision_params *P, const gs_image *img, const vision_grid *g, vision_reading *out,
                      gs_error *err);

/* The low lamp's look on a photo's reading r of g (vision/read_shade.c):
 * a point read black that shows the shadow of the stone beside it on the
 * lamp's side is read empty and marked unsure.  GS_OK, or an error
 * (arguments that do not fit, no memory for the wood's fit) with nothing
 * changed. */
gs_status vision_read_shade(const vision_params *P, const gs_image *img, const vision_grid *g, vision_reading *r,
                            gs_error *err);

/* ---- what the reader measures at one point (vision/read.c) ---- */

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
gs_status vision_read_features(const vision_params *P, const gs_image *img, const vision_grid *g,
                               vision_point_features *feat, gs_error *err);


/* ---- what the reader's stages sample alike (vision/read_sample.c) ---- */

/* The grid's local affine map at board point (u, v): d(x,y)/d(u,v). */
void vision_grid_jacobian(const vision_grid *g, double u, double v, double J[4]);
/* Median colour of a small disc (radius rad cells) round image point
 * (cx, cy), where the grid's local map is J (or round board point (u, v));
 * the number of pixels seen (0 when outside the image). */
int vision_patch_median_at(const gs_image *img, double cx, double cy, const double J[4], double rad, double out[3]);
int vision_patch_median(const gs_image *img, const vision_grid *g, double u, double v, double rad, double out[3]);
/* Chromaticity of a colour: (R-G, G-B) over its brightness (gs_luma). */
void vision_chroma(double b, double g, double r, double out[2]);
/* The wood's chromaticity (into cw) and its squared size, floored (on a
 * grey board hue says little): a colour's wood hue is its chromaticity
 * projected on cw over that. */
double vision_wood_hue_ref(const double wc[3], double cw[2]);

/* The reader's stage 5 (vision/read_edges.c): white readings at edge
 * points whose colour carries on well beyond the board, unlike the table
 * beside it, are a hand reaching in: read empty, unsure.  How many. */
int vision_clear_occluded_edges(const vision_params *P, const gs_image *img, const vision_grid *g, vision_reading *out);

/* ---- the board's wood (vision/read_wood.c) ---- */

/* The colour of the board's empty surface over the board, as a quadratic
 * surface per channel (B, G, R) in board coordinates, fitted robustly to
 * small patches at the cell centres (which even a crowded board shows). */
typedef struct vision_wood { double k[3][6]; double scale; } vision_wood;
gs_status vision_wood_fit(const gs_image *img, const vision_grid *g, vision_wood *w, gs_error *err);
void vision_wood_at(const vision_wood *w, double u, double v, double out[3]);

/* ---- geometry (vision/grid_geom.c) ---- */

void vision_cross3(const double a[3], const double b[3], double out[3]);
/* Smallest-eigenvalue eigenvector of a symmetric 3x3 matrix (A destroyed). */
void vision_eig3_min(double A[3][3], double out[3]);
/* 3x3 row-major helpers; C may alias A or B; inv returns -1 when singular. */
void vision_mat3_mul(const double A[9], const double B[9], double C[9]);
int vision_mat3_inv(const double A[9], double B[9]);
void vision_mat3_apply(const double H[9], double x, double y, double *ox, double *oy);
/* Grid g moved by (du, dv) cells on the board, with size points a side
 * (its corners recomputed): a lattice a fraction of a cell over, or the
 * same lattice one line out on every side (du = dv = -1, size + 2). */
void vision_grid_moved(const vision_grid *g, double du, double dv, int size, vision_grid *out);
/* Grid b's four outer intersections in grid a's board coordinates (cells);
 * false when a's homography has no inverse. */
bool vision_grid_corners_in(const vision_grid *a, const vision_grid *b, double uv[4][2]);
/* Whether grid b's four outer intersections are points of grid a's
 * lattice, each within tol of a cell (and, with on_board, among a's own
 * size x size points: b is a or a window of it). */
bool vision_grid_on_lattice(const vision_grid *a, const vision_grid *b, double tol, bool on_board);
/* Least-squares homography src -> dst (n >= 4 pairs), 0 on success. */
int vision_fit_homography(const double (*src)[2], const double (*dst)[2], int n, double H[9]);
int vision_cmp_double(const void *a, const void *b);
int vision_cmp_float(const void *a, const void *b);
/* Point k (0..N-1) of side `side` (0 top, 1 right, 2 bottom, 3 left) of
 * an N x N grid, as board coordinates (u across, v down). */
void vision_edge_point(int side, int k, int N, int *u, int *v);
/* Cell height / width on the board from a homography (1 when the view is
 * too frontal to tell), principal point (cx, cy). */
double vision_estimate_aspect(const double H[9], double cx, double cy);

/* The grid model in working pixels: homography then radial distortion
 * about (cx, cy), as vision_grid_map does. */
typedef struct vision_gmodel {
    double H[9];
    double k1, cx, cy, norm;
} vision_gmodel;

/* vision_read that also leaves what it measured at each point in F (the
 * caller's, size * size entries): for a stage that needs both the reading
 * and a feature of it without measuring every point twice. */
gs_status vision_read_keep(const vision_params *P, const gs_image *img, const vision_grid *g, vision_reading *out,
                           vision_point_features *F, gs_error *err);

/* Point i's next likeliest colour is c (vision_reading.second), with
 * second_p from its confidence as it now stands (read.c says why). */
static inline void vision_second_set(vision_reading *r, int i, gs_color c)
{
    r->second[i] = c;
    r->second_p[i] = 1.0f - r->confidence[i];
}

/* Each point's image patch (vision/read_patch.c): VISION_PATCH_SIDE x
 * VISION_PATCH_SIDE samples of B, G, R (row by row, v then u) over
 * +-VISION_PATCH_HALF cell round the point, on the board's grid.  at[i]
 * points into buf, or is NULL when part of point i's patch lies off the
 * photo.  vision_patches_make returns 0, or -1 without memory (then
 * nothing is held); vision_patches_free frees what it holds (safe on a
 * zeroed or freed one). */
#define VISION_PATCH_SIDE 9
#define VISION_PATCH_HALF 0.42
enum { VISION_PATCH_N = VISION_PATCH_SIDE * VISION_PATCH_SIDE * 3 };
typedef struct vision_patches {
    int size;
    float *buf;
    const float **at;
} vision_patches;
int vision_patches_make(vision_patches *p, const gs_image *img, const vision_grid *g);
void vision_patches_free(vision_patches *p);

/* The reading's second look (vision/read_near.c): each point's image patch
 * against those of the sure points round it; unsure points much nearer
 * another class take it, sure ones much nearer another class become unsure. */
void vision_read_near(const vision_params *P, const vision_patches *p, vision_reading *r);

/* The reading's third look (vision/read_self.c): a classifier of this
 * photo's own, fitted to its sure points, reads again the points still
 * unsure; they stay marked.  F: what the rules measured at each point;
 * lines: each point's line contrast over its usual contrast round it
 * (read.c), one per point. */
void vision_read_self(const vision_params *P, const vision_patches *p, const vision_point_features *F, const float *lines,
                      vision_reading *r);

/* The median brightness of the four halves of the ring from 0.14 to 0.42
 * cell round the middle of a stone on board point (u, v) of g (its body
 * followed up as the reading's disc is, cam fitted to g), over the wood's
 * brightness there (w fitted to g; 1 where it is black): side[0..3] the
 * halves towards +u, -u, +v, -v (right, left, below, above on the board);
 * 0 for a half off the photo (vision/read_features.c). */
void vision_stone_halves(const gs_image *img, const vision_grid *g, const vision_cam *cam, const vision_wood *w, int u,
                         int v, float side[4]);

/* The low lamp's look on plain data (vision/read_shade.c; vision_read_shade
 * measures the photo for it).  halves(ctx, i, side) gives point i's four
 * halves (vision_stone_halves' order) relative to the wood's brightness
 * there; it is asked for the sure white stones, then, under a low lamp, for
 * the black points with a stone beside them on the lamp's side.  The
 * points found are read empty and marked (confidence, unsure, uncertain);
 * returns how many. */
typedef void (*vision_halves_fn)(void *ctx, int i, float side[4]);
int vision_shadows_clear(const vision_params *P, vision_halves_fn halves, void *ctx, int N, vision_reading *r);

void vision_model_map(const vision_gmodel *m, double u, double v, double *x, double *y);
/* Inverse of the distortion (fixed-point iteration). */
void vision_undistort(double k1, double cx, double cy, double norm, double x, double y, double *ux, double *uy);

/* ---- board finding: shared working data (vision/grid_find.c) ---- */

/* The photo prepared once for every stage: shrunk so its longest side is
 * at most work_side (vision_params), its grey image, its thin-dark-line
 * response, and the normalisation of working pixels used by the line
 * families (centre (cx, cy), half the longest side sn). */
/* The pixels on thin dark lines (vision/grid_dense.c): [0] of the
 * vertical-ish family (dips across x), [1] of the horizontal-ish one, each
 * only where the other family is near too (the grid).  The maps hold the
 * dips' depths; the lists the pixels whose run of line is long enough to
 * give a direction. */
typedef struct vision_pt { float x, y, dx, dy; } vision_pt; /* a pixel and its line's direction */
typedef struct vision_linemap {
    gs_image *map[2];
    vision_pt *pix[2];
    int npix[2];
    /* per pixel of pix[k]: the photo's colour (B, G, R) 3 working pixels
     * either side across its line, [0] all -1 when off the photo (measured
     * once, by vision_linemap_sides, before the crowded-board stages: each
     * of their hypotheses asks whether the pixel lies on the wood) */
    float (*side[2])[2][3];
} vision_linemap;
typedef struct vision_work {
    const vision_params *P;
    const gs_image *img; /* the photo (not owned) */
    gs_image *resp, *grey;
    double scale;     /* working / original pixels */
    double thr;       /* a level of resp that thin dark lines exceed */
    int W, H;
    double cx, cy, sn;
    vision_linemap lm;
} vision_work;

/* A straight piece of evidence for one grid line, in normalised
 * coordinates: a piece of dark line (Hough). */
typedef struct vision_piece {
    double m[2];  /* midpoint */
    double d[2];  /* unit direction */
    double l[3];  /* homogeneous line, (l0,l1) unit */
    double len;   /* length in working pixels (the weight) */
    int fam;      /* 0 = none, 1 or 2 */
} vision_piece;

/* Fills a piece from its two end points (working pixels)
 * (vision/grid_lines.c). */
void vision_piece_set(vision_piece *p, const vision_work *w, double x1, double y1, double x2, double y2);

/* One grid hypothesis: size and model (board -> working pixels). */
typedef struct vision_cand {
    int n;
    vision_gmodel m;
    int source;      /* VISION_SRC_* */
    double score;    /* rank among hypotheses (vision/grid_cands.c) */
    double map;      /* vision_linemap_score */
    double clear;    /* vision_grid_score lines - anti */
    double outside;  /* vision_grid_score outside: lines beyond its strongest side */
    double frac;     /* fraction of its line samples on a dark line (refinement) */
} vision_cand;

enum { VISION_SRC_LINES = 1, VISION_SRC_DENSE = 3 };

/* The hypotheses of one search, one per grid (vision/grid_cands.c). */
#define VISION_MAX_CANDS 48
typedef struct vision_cand_list {
    vision_cand c[VISION_MAX_CANDS];
    int n;
} vision_cand_list;

/* Stage 5 (vision/grid_cands.c): refinement rounds on the line response,
 * search narrowing from 0.35 to 0.2 cell, k1 from the second round on
 * (the fraction of line samples on a dark line, -1 out of memory); the
 * rank (map score, clarity, evidence past the sides); the model as a
 * vision_grid of the photo (top edge = the edge whose midpoint is
 * highest, corners clockwise on screen from its left end). */
double vision_cand_refine(const vision_work *w, vision_cand *c);
void vision_cand_rate(const vision_work *w, vision_cand *c);
void vision_cand_grid(const vision_work *w, const gs_image *img, const vision_cand *c, vision_grid *out);
/* Two hypotheses are the same grid when they have one size and their
 * corners lie within half a cell of each other; add keeps the better of
 * two of the same grid; pick gives the best and (*second) the best that is
 * a different grid, -1 when none. */
int vision_cands_same(const vision_cand *a, const vision_cand *b);
void vision_cands_add(vision_cand_list *L, const vision_cand *c);
int vision_cands_pick(const vision_cand_list *L, int *second);
/* A crowded-board hypothesis spread to the windows of its lattice (every
 * size, up to three lines beyond its edges) scored on the line pixels, the
 * best few refined and rated into out; and the variants of one with a side
 * moved a line in or out, kept when they rank clearly above it.
 * GS_ERR_NOMEM or GS_OK. */
gs_status vision_cands_dense(const vision_work *w, vision_cand base, int size_hint, vision_cand_list *out);
gs_status vision_cands_stretch(const vision_work *w, const vision_cand *c, vision_cand_list *out);

/* Stage 6 (vision/grid_decide.c): the board among the hypotheses of L, or
 * GS_ERR_NOBOARD with the reason (e_lines, e_dense: why the line and the
 * crowded-board stages found nothing, said when nothing is left). */
gs_status vision_choose(const vision_work *w, const gs_image *img, vision_cand_list *L, const gs_error *e_lines,
                        const gs_error *e_dense, vision_grid *out, vision_grid_find_info *info, gs_error *err);

/* Stage 6 by the point model (vision/grid_judge.c): the window of the
 * leading hypotheses' lattices whose points the model sees as a board's
 * (size_hint 0: 9, 13 or 19), or GS_ERR_NOBOARD with the reason.  info
 * gets the sides cut off by the photo's edge and the evidence. */
gs_status vision_choose_model(const vision_work *w, const gs_image *img, const vision_cand_list *L, int size_hint,
                              cvshim_net *net, vision_shrunk *shrunk, vision_grid *out, vision_grid_find_info *info,
                              gs_error *err);

/* Stages 2-4 (vision/grid_lines.c): two families of pieces through two
 * vanishing points, evenly spaced lines per family, and the window of
 * 9/13/19 (or size_hint) lines that is the board.  GS_ERR_NOBOARD with the
 * reason when one of them fails.  info gets support and window_score. */
gs_status vision_lines_candidate(const vision_work *w, vision_piece *p, int np, int size_hint, vision_cand *out,
                                 vision_grid_find_info *info, gs_error *err);

/* Pieces of stages 2-3 shared with vision/grid_dense.c: the two vanishing
 * points of the pieces (RANSAC within family_tol; marks each piece's
 * family in fam; support = the length behind each), and the rectification that sends both to
 * infinity: working pixels -> (a, b) with family-1 lines at constant b and
 * family-2 lines at constant a, equally spaced. */
gs_status vision_find_families(const vision_params *P, vision_piece *p, int n, double v1[3], double v2[3],
                               double support[2], gs_error *err);
gs_status vision_rectify(const vision_work *w, const double v1[3], const double v2[3], double Rect[9], double Rinv[9],
                         gs_error *err);

/* Fills w->lm from w->grey (vision_linemap_free frees it; safe on a
 * zeroed one). */
gs_status vision_linemap_make(vision_work *w, gs_error *err);
/* Median colour (B, G, R) of the 3 x 3 photo pixels round working point
 * (x, y) into out; 0 when off the photo (vision/grid_dense_fit.c). */
int vision_photo_colour(const vision_work *w, double x, double y, double out[3]);
/* Fills w->lm.side (once; freed with the rest by vision_linemap_free). */
gs_status vision_linemap_sides(vision_work *w, gs_error *err);
void vision_linemap_free(vision_linemap *lm);

/* How well a grid of n lines (model m, board -> working pixels) explains
 * the line pixels: per family, the pixels inside the grid weighted by
 * cos(2 pi d) (d = distance in cells to the nearest line across: +1 on a
 * line, -1 half a cell off), less four times those on a line one cell
 * beyond the outer lines or on a line going on past the grid's edge (a
 * board has no lines there), over all the family's pixels in the photo;
 * less the share of the grid's lines that gather none (a grid reaching off
 * the board); the two families averaged.  About 0.4-0.9 for a board's own
 * grid, clearly lower for one a line off or of another size; -1 when too
 * few pixels are near the grid. */
typedef struct vision_mapscore {
    double on[2];      /* mean cos term inside, per family */
    double beyond[2];  /* share of pixels on a line beyond the grid or past its edge */
    double seen[2];    /* share of the grid's lines that gather some pixels */
    int count[2];      /* pixels within a cell of the grid */
    double total;
} vision_mapscore;
double vision_linemap_score(const vision_work *w, int n, const vision_gmodel *m, vision_mapscore *detail);
/* The same for many windows of one lattice: the line pixels projected once
 * under m, then the score of the window of n lines from lattice column
 * off[0], row off[1].  NULL when out of memory. */
typedef struct vision_mapproj vision_mapproj;
vision_mapproj *vision_mapproj_make(const vision_work *w, const vision_gmodel *m);
double vision_mapproj_score(const vision_mapproj *p, int n, const int off[2], vision_mapscore *detail);
void vision_mapproj_free(vision_mapproj *p);

/* The grid's homography made exact on all the line pixels at once
 * (vision/grid_dense.c): 0, or -1 when too few pixels are near it (m is
 * then unchanged). */
int vision_dense_fit(const vision_work *w, int n, vision_gmodel *m);

/* How well the grid of n lines (model m) sits inside a board margin
 * (vision/grid_dense.c): 0..1, the share of points a third of a cell
 * beyond the outer lines that look like the board's surface; -1 when too
 * little of it is in the photo. */
double vision_margin_score(const vision_work *w, int n, const vision_gmodel *m);

/* Hypotheses for crowded boards (vision/grid_dense.c): up to max windows
 * (one per size, or of size_hint, and one more of the largest size when
 * two far apart tie) of the lattice that the short stretches
 * of line between the stones show; out[i].score is the window's evidence,
 * not yet vision_grid_score.  GS_ERR_NOBOARD with the reason when none. */
gs_status vision_dense_candidates(const vision_work *w, int size_hint, vision_cand *out, int max, int *nout,
                                  gs_error *err);

/* Stage 5 (vision/grid_refine.c): one refinement round of m on the line
 * response (dark-line points within +-search cells of each line; k1 fitted
 * when fit_k1).  Returns the fraction of samples on a dark line, -1 when
 * out of memory. */
double vision_refine_grid(const vision_params *P, const gs_image *resp, double thr, int n, vision_gmodel *m,
                          double search, int fit_k1);
/* The same on the line maps of vision/grid_dense.c (each family on its
 * own map), for crowded boards where the line response is mostly the
 * seams round the stones. */
double vision_refine_grid_maps(const vision_work *w, int n, vision_gmodel *m, double search, int fit_k1);
/* 90th percentile distance (cells) from the model's lines to the dark line
 * pixels near them, and the largest per-line median. */
void vision_grid_residual(const gs_image *resp, double thr, int n, const vision_gmodel *M, double *p90, double *worst);

/* Hypothesis score (vision/grid_score.c): how well a grid of n lines with
 * model m explains the image; see the file's header. */
typedef struct vision_score {
    double lines;     /* fraction of line segments showing a line */
    double anti;      /* the same half a cell off the lines */
    double outside;   /* strongest line evidence beyond one of the 4 edges */
    double total;
} vision_score;
double vision_grid_score(const vision_work *w, int n, const vision_gmodel *m, vision_score *detail);

#endif
