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
 * params.c draws the look from a seed; script.c is the timeline; truth.c
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
typedef struct render_mapent { int32_t idx; uint16_t gain; uint8_t wx, wy; } render_mapent;

typedef struct render_pose {
    vec3 C;            /* camera centre (world) */
    vec3 ax, ay, az;   /* camera axes in world: image right, image down, forward */
    bool ready;
    /* per-pixel lookup, built lazily */
    render_mapent *map;
    uint8_t *glare;
} render_pose;

struct render_scene {
    render_params p;
    int W, H;
    double fpx, cx0, cy0;       /* focal length (px) and principal point */
    double dcx, dcy, dnorm;     /* distortion centre / normaliser */
    double bw, bh;              /* board width / height (mm, outer edge) */
    double gx0, gy0;            /* world position of intersection (0,0) */
    /* texture: board + table ring, ppm texels per mm */
    double ppm, tx0, ty0;       /* world position of texel (0,0)'s corner */
    int tw, th;
    uint8_t *stat, *dyn;        /* BGR, tw*th*3 */
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

/* ---------------------------------------------------------------- hands */

/* Draws the hand h (its shadow on the board, then the hand and any stone it
 * holds) into out, as pose ps sees it; mul is the frame's light (256 = 1). */
void render_hand_draw(const render_scene *s, const render_pose *ps, const render_hand *h, const int mul[3],
                      gs_image *out);

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
