/* samples/render_internal.h: what the renderer's files share (not part of
 * the public API, which is samples/render.h).
 *
 * The scene is built by scene.c and drawn by frame.c from parts made by
 *   camera.c  camera poses, projection with the lens (core's gs_lens_*),
 *             the drift, and the per-pixel lookup map of a pose;
 *   board.c   the static board texture: wood, lines, star points, table;
 *   stones.c  stone sprites and the stone layer over the board texture;
 *   hands.c   the hand and sleeve as capsules: what they cover, their
 *             shadow, their drawing.
 * params.c draws the look from a seed; script.c is the timeline (built
 * from steps.c's blocks, violations seeded by violate.c); truth.c
 * writes the truth files; job.c is `goscribe render` as one call.
 *
 * World: mm, board centre at the origin, x right, y towards Black, and z
 * pointing DOWN into the table (so the camera basis stays right-handed with
 * the board seen unmirrored); a height h above the board is z = -h.
 */
#ifndef RENDER_INTERNAL_H
#define RENDER_INTERNAL_H

#include "samples/render.h"

#include <math.h>
#include <stdint.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define RENDER_VARIANTS 8   /* stone looks per colour */

/* Sensor noise comes from a fixed table read at a random offset per row and
 * frame: far cheaper per pixel than running a generator. */
#define RENDER_NOISE_BASE (1 << 18)

/* ------------------------------------------------------------ utilities */

/* xorshift64* step on a caller-owned state (non-zero). */
uint64_t render_rng_next(uint64_t *s);
/* Uniform in [0, 1). */
double render_rng_uniform(uint64_t *s);
double render_rng_range(uint64_t *s, double lo, double hi);
/* A non-zero state derived from a seed and a salt (splitmix64). */
uint64_t render_rng_seed(uint64_t seed, uint64_t salt);

static inline double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }
static inline int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
static inline uint8_t u8(double v) { return (uint8_t)(v <= 0 ? 0 : v >= 255 ? 255 : (int)(v + 0.5)); }

typedef struct vec3 { double x, y, z; } vec3;
static inline vec3 v3(double x, double y, double z) { vec3 v = {x, y, z}; return v; }
static inline vec3 vsub(vec3 a, vec3 b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline vec3 vadd(vec3 a, vec3 b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline vec3 vmul(vec3 a, double k) { return v3(a.x * k, a.y * k, a.z * k); }
static inline double vdot(vec3 a, vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline vec3 vcross(vec3 a, vec3 b)
{
    return v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline vec3 vnorm(vec3 a) { double l = sqrt(vdot(a, a)); return l > 0 ? vmul(a, 1.0 / l) : a; }
/* Rotates v about unit axis k by angle a (Rodrigues). */
static inline vec3 vrot(vec3 v, vec3 k, double a)
{
    double c = cos(a), s = sin(a);
    return vadd(vadd(vmul(v, c), vmul(vcross(k, v), s)), vmul(k, vdot(k, v) * (1 - c)));
}

/* Smooth value noise in [0,1] (grain, table cloth, slate speckle). */
double render_value_noise(double x, double y, uint32_t seed);

/* ---------------------------------------------------------------- scene */

/* One pixel of a pose's lookup map: the texel to sample (idx < 0: the
 * table colour), its bilinear weights, and the light gain (256 = 1). */
/* idx: the texel the pixel sees (-1: the table colour); top: where its ray
 * crosses the board top's plane beyond the board's edge (-1: it does not),
 * which is where a stone reaching over the edge is seen; tgain: the light
 * there (no side-face shade). */
typedef struct render_mapent { int32_t idx, top; uint16_t gain, tgain; uint8_t wx, wy; } render_mapent;

typedef struct render_pose {
    vec3 C;            /* camera centre (world) */
    vec3 ax, ay, az;   /* camera axes in world: image right, image down, forward */
    bool ready;
    /* per-pixel lookup, built lazily */
    render_mapent *map;
    uint8_t *glare;
} render_pose;

/* A bowl with its lid on, standing on the table (world mm). */
typedef struct render_bowl {
    double x, y, r, h;
    double body[3], lid[3];
} render_bowl;

/* The things around the board (objects.c), laid out once per scene. */
typedef struct render_objects {
    int nbowls;
    render_bowl bowl[2];
    double lid_x, lid_y, lid_r;         /* a lid lying upside down */
    double stone_x, stone_y;            /* a stone lying on the table */
    bool stone_white;
    int cable_side;                     /* 0 top (-y), 1 right, 2 bottom, 3 left */
    double cable_off, cable_w, cable[3];
    int paper_side;
    double paper_off, paper_turn, paper_along;
} render_objects;

struct render_scene {
    render_params p;
    render_objects obj;
    int W, H;
    double fpx, cx0, cy0;       /* focal length (px) and principal point */
    double dcx, dcy, dnorm;     /* distortion centre / normaliser */
    double bw, bh;              /* board width / height (mm, outer edge) */
    double gx0, gy0;            /* world position of intersection (0,0) */
    /* texture: board + table ring, ppm texels per mm */
    double ppm, tx0, ty0;       /* world position of texel (0,0)'s corner */
    int tw, th;
    uint8_t *stat, *dyn;        /* BGR, tw*th*3 */
    uint8_t *over;              /* BGRA, tw*th*4: the stones' parts beyond the
                                   board top's edge, seen through mapent.top */
    bool over_used;             /* over holds something (cleared on rebuild) */
    uint8_t table_bgr[3];
    /* stone sprites: [colour 0 black/1 white][variant] BGRA, ss x ss */
    int ss;
    uint8_t *sprite[2][RENDER_VARIANTS];
    render_pose pose[2];
    render_pose drift;          /* pose[0] or [1] turned by the drift at
                                   drift_t (its map rebuilt on change) */
    int drift_base;             /* which pose drift was turned from, -1 none */
    double drift_rad;           /* the (quantised) angle it was built for */
    float *ray;                 /* with a drift: W*H undistorted rays (x, y
                                   at z = 1), so rebuilding a map is cheap */
    /* cache of what dyn holds */
    bool dyn_valid;
    int dyn_pose;
    gs_position dyn_pos;
    float dyn_off[GS_MAX_SIZE * GS_MAX_SIZE][2];
    uint8_t dyn_var[GS_MAX_SIZE * GS_MAX_SIZE];
    int dyn_nmargin;
    render_margin_stone dyn_margin[RENDER_MARGIN_MAX];
    int8_t *noise;              /* RENDER_NOISE_BASE + W*3 values at the scene's sigma */
    vec3 light;                 /* unit vector towards the light (world, z down) */
    double shadow_dx, shadow_dy;/* board-plane shadow direction */
};

/* --------------------------------------------------------------- camera */

/* Board point (u, v) (intersections) -> world x, y. */
void render_board_to_world(const render_scene *s, double u, double v, double *x, double *y);

/* World point -> image point through the lens of pose ps; false when it is
 * behind the camera. */
bool render_pose_project(const render_scene *s, const render_pose *ps, vec3 P, double *x, double *y);

/* Finds the camera distance (p.distance_mm, or the one at which the board
 * spans p.fill) and sets pose[0] and pose[1] (after the bump).  Needs the
 * scene's frame and board geometry.  Returns the distance. */
double render_camera_place(render_scene *s);

/* 1 once the bump has happened at t_ms, else 0. */
int render_pose_index(const render_scene *s, double t_ms);
/* The drift angle at t_ms (radians, quantised; 0 without a drift). */
double render_drift_angle(const render_scene *s, double t_ms);
/* base turned by the drift angle a (no map). */
void render_pose_drifted(const render_scene *s, const render_pose *base, double a, render_pose *out);
/* The camera at t_ms without its lookup map (projections, hands). */
render_pose render_pose_at(const render_scene *s, double t_ms);
/* Builds ps's per-pixel lookup map (and glare, once).  GS_ERR_NOMEM. */
gs_status render_pose_build_map(render_scene *s, render_pose *ps);

/* ---------------------------------------------------------- board, stones */

/* Draws the static texture s->stat: wood, lines, star points, table. */
void render_board_draw(render_scene *s);

/* Draws the stone sprites s->sprite (lit from the scene's light). */
void render_stones_sprites(render_scene *s);
/* Makes s->dyn the board texture with st's stones as pose pi sees them
 * (redrawn only when the stones or the pose changed). */
void render_stones_update(render_scene *s, const render_state *st, int pi);

/* World ray (not normalised) of image pixel (x, y) under pose ps. */
vec3 render_pose_pixel_ray(const render_scene *s, const render_pose *ps, int x, int y);

/* -------------------------------------------------------------- objects */

/* How far beyond the board's edge the texture's table ring must reach for
 * the objects (mm; 0 without them). */
double render_objects_ring(const render_scene *s);
/* Lays the objects out (after the scene's geometry is known). */
void render_objects_layout(render_scene *s);
/* The table's colour c at world (wx, wy) with the flat objects on it. */
void render_objects_paint(render_scene *s, double wx, double wy, double c[3]);
/* The tall objects drawn into a frame seen by pose ps (mul: the light). */
void render_objects_draw(const render_scene *s, const render_pose *ps, const int mul[3], gs_image *out);

/* ---------------------------------------------------------------- hands */

/* Draws the hand h (its shadow on the board, then the hand and any stone it
 * holds) into out, as pose ps sees it; mul is the frame's light (256 = 1). */
void render_hand_draw(const render_scene *s, const render_pose *ps, const render_hand *h, const int mul[3],
                      gs_image *out);

/* --------------------------------------------------------------- script */

/* The timeline's parts (steps.c holds its building blocks, script.c
 * builds and plays it with them, violate.c seeds the violations into it). */

/* A key frame of the hand. */
typedef struct render_hkey {
    double t;
    bool present;
    gs_color side;
    double x, y, z, yaw;
    gs_color holding;
} render_hkey;

/* A board event: a stone appears or disappears on a point (slot < 0) or on
 * the margin (slot >= 0: render_state.margin[slot], centre mu, mv). */
typedef struct render_bevent {
    double t;
    int8_t x, y;        /* x < 0 and slot < 0: no board change (a pass being counted) */
    uint8_t colour;     /* new content of the point */
    uint8_t variant;
    float ox, oy;
    int counts;         /* entry number of the rendered sequence (1-based), 0 none */
    int8_t slot;
    float mu, mv;
} render_bevent;

/* Captured stones left on the board that the capturer lifts after the
 * opponent's next move (a missed capture, corrected). */
typedef struct render_left_capture {
    int n;
    gs_point pts[GS_MAX_SIZE * GS_MAX_SIZE];
    gs_color capturer;
    int viol;           /* its entry in render_script.viol */
    int after;          /* lifted once this many entries are placed */
} render_left_capture;

struct render_script {
    int size;
    render_script_options o;
    uint64_t rng;
    render_hkey *keys;
    int nkeys, capkeys;
    render_bevent *ev;
    int nev, capev;
    gs_move *placed;
    int nplaced, capplaced;
    render_violation viol[RENDER_V_COUNT_ * 4];
    int nviol;
    render_signal sig[4];
    int nsig;
    render_left_capture left;
    double t;           /* build cursor, then the total duration */
    gs_position board;  /* physical board while building */
    bool oom;
    /* playback cursor */
    double cur_t;
    int cur_ev;
    render_state cur;
    int cur_moves;
    gs_point cur_last;
};

typedef enum { RENDER_TRIP_PLACE, RENDER_TRIP_LIFT, RENDER_TRIP_SLIDE } render_trip_kind;

/* A duration drawn in lo..hi ms at the script's pace. */
double render_script_dur(render_script *sc, double lo, double hi);
/* Appends a board event (and applies it to the building board). */
void render_script_event(render_script *sc, render_bevent e);
/* Appends to the rendered sequence; returns its entry number. */
int render_script_add_placed(render_script *sc, gs_move m);
/* One trip of a hand from its side to point p and back: PLACE puts
 * `colour` at p (entry `counts`, 0 = not a move), LIFT removes the stone at
 * p, SLIDE pushes the stone at p to q.  Returns the time the board changed. */
double render_script_trip(render_script *sc, gs_color side, render_trip_kind kind, gs_point p, gs_point q,
                          gs_color colour, int counts, bool hover);
/* A hand puts a stone of `colour` on the margin at board point (u, v)
 * (margin slot `slot`); returns the time it lies there. */
double render_script_margin_trip(render_script *sc, gs_color side, double u, double v, gs_color colour, int slot);
/* Waits so that the board stays still and hand-free for about hold_ms
 * (real time, not scaled by the pace) before the next trip. */
void render_script_hold(render_script *sc, double hold_ms);
/* Physical capture: groups of `victim` next to p without liberties into
 * out; returns how many stones. */
int render_script_captures(const gs_position *b, gs_point p, gs_color victim, gs_point *out);
/* Liberties of the single stone at p (-1 when it is part of a group); the
 * last one found into *lib (may be NULL). */
int render_script_single_libs(const gs_position *b, gs_point p, gs_point *lib);
/* A later move (from index `from`) lands on (x, y). */
bool render_script_in_future(const gs_move *moves, int nmoves, int from, int x, int y);
/* The pause between two moves, sometimes with a hand of `next` (or of the
 * other side) resting on the board's edge. */
void render_script_pause(render_script *sc, gs_color next);

/* violate.c: picks, for each violation asked for (left and corrected), the
 * SGF move index after which it happens (plan[k]: -1 none; index k =
 * type, then RENDER_V_COUNT_ + type for the corrected ones). */
void render_violations_plan(render_script *sc, const gs_move *moves, int nmoves, int plan[2 * RENDER_V_COUNT_]);
/* After move i was placed (entry num; nc captures in cap, already lifted
 * unless a missed capture keeps them): the violations planned for it.
 * Returns true when the captures were kept on the board (a missed
 * capture). */
bool render_violations_keep_captures(render_script *sc, int i, int num, int nc, const gs_point *cap,
                                     const int plan[2 * RENDER_V_COUNT_], gs_color mover);
void render_violations_after(render_script *sc, const gs_move *moves, int nmoves, int i, int num, int nc,
                             const gs_point *cap, const int plan[2 * RENDER_V_COUNT_]);

/* ---------------------------------------------------------------- truth */

struct sgf_game;

/* The truth SGF at path: game g's info and set-up with the rendered
 * sequence of sc, its violations as referee events (GSEV), a comment
 * naming the seed. */
gs_status render_truth_sgf_save(const char *path, const struct sgf_game *g, const render_script *sc, uint64_t seed,
                                gs_error *err);
/* The truth calibration at path: the board grid at t = 0 (before any bump
 * or drift) for a width x height frame. */
gs_status render_truth_cal_save(const char *path, const render_scene *s, gs_error *err);

#endif
