/* samples/render.c: the synthetic camera (render_scene).
 *
 * Speed plan (>= 30 frames/s at 1280x720 on one core): the board (wood,
 * grain, lines, star points, table around it) is drawn once in board space
 * ("static" texture).  Stones are composited into a copy of it ("dynamic"
 * texture) only when the stones change.  A per-pixel lookup map (texel index
 * + bilinear weights + light gain) is computed once per camera pose (twice
 * with a bump; with a drift, again whenever the drift has moved the picture
 * by a fiftieth of a pixel), so a frame is one pass of table lookups, then
 * the hand is drawn as a few shaded capsules, then noise.
 *
 * World: mm, board centre at the origin, x right, y towards Black, and z
 * pointing DOWN into the table (so the camera basis stays right-handed with
 * the board seen unmirrored); a height h above the board is z = -h.
 */
#include "samples/render.h"
#include "samples/render_internal.h"
#include "cvshim/cvshim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ------------------------------------------------------------ utilities */

uint64_t render_rng_next(uint64_t *s)
{
    /* xorshift64*: fast, good enough for looks and noise. */
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1DULL;
}

double render_rng_uniform(uint64_t *s)
{
    return (double)(render_rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

double render_rng_range(uint64_t *s, double lo, double hi)
{
    return lo + (hi - lo) * render_rng_uniform(s);
}

uint64_t render_rng_seed(uint64_t seed, uint64_t salt)
{
    /* splitmix64 so nearby seeds give unrelated streams; never zero. */
    uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (salt + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return z ? z : 0x1234567ULL;
}

static double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }
static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
static uint8_t u8(double v) { return (uint8_t)(v <= 0 ? 0 : v >= 255 ? 255 : (int)(v + 0.5)); }

typedef struct vec3 { double x, y, z; } vec3;
static vec3 v3(double x, double y, double z) { vec3 v = {x, y, z}; return v; }
static vec3 vsub(vec3 a, vec3 b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static vec3 vadd(vec3 a, vec3 b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static vec3 vmul(vec3 a, double k) { return v3(a.x * k, a.y * k, a.z * k); }
static double vdot(vec3 a, vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static vec3 vcross(vec3 a, vec3 b) { return v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x); }
static vec3 vnorm(vec3 a) { double l = sqrt(vdot(a, a)); return l > 0 ? vmul(a, 1.0 / l) : a; }
/* Rotates v about unit axis k by angle a (Rodrigues). */
static vec3 vrot(vec3 v, vec3 k, double a)
{
    double c = cos(a), s = sin(a);
    return vadd(vadd(vmul(v, c), vmul(vcross(k, v), s)), vmul(k, vdot(k, v) * (1 - c)));
}

/* ----------------------------------------------------------- parameters */

static void set3(double d[3], double b, double g, double r) { d[0] = b; d[1] = g; d[2] = r; }

bool render_params_cells(render_params *p, const char *preset)
{
    if (!strcmp(preset, "jp")) { p->cell_w_mm = 22.0; p->cell_h_mm = 23.7; }
    else if (!strcmp(preset, "cn")) { p->cell_w_mm = 24.0; p->cell_h_mm = 23.0; }
    else if (!strcmp(preset, "sq")) { p->cell_w_mm = 23.0; p->cell_h_mm = 23.0; }
    else return false;
    return true;
}

void render_params_from_seed(render_params *p, uint64_t seed, int board_size, int width, int height)
{
    memset(p, 0, sizeof *p);
    uint64_t r = render_rng_seed(seed, 1);
    p->width = width;
    p->height = height;
    p->board_size = board_size;
    p->seed = seed;

    /* Camera: most tilts are modest, a few steep. */
    double u = render_rng_uniform(&r);
    p->tilt_deg = 50.0 * u * u;
    p->rotation_deg = render_rng_range(&r, 0, 360);
    p->roll_deg = render_rng_range(&r, -8, 8);
    p->fov_deg = render_rng_range(&r, 55, 75);
    p->fill = render_rng_range(&r, 0.8, 0.97);
    p->distance_mm = 0;
    p->shift_x = render_rng_range(&r, -0.04, 0.04);
    p->shift_y = render_rng_range(&r, -0.04, 0.04);
    p->k1 = render_rng_range(&r, -0.12, 0.05);
    p->bump_ms = render_rng_uniform(&r) < 0.3 ? render_rng_range(&r, 3000, 40000) : -1;
    p->bump_deg = render_rng_range(&r, 0.4, 1.2);

    /* Board */
    if (render_rng_uniform(&r) < 0.5) render_params_cells(p, "jp");
    else if (render_rng_uniform(&r) < 0.5) render_params_cells(p, "cn");
    else render_params_cells(p, "sq");
    p->line_mm = render_rng_range(&r, 0.7, 1.3);
    p->margin_mm = render_rng_range(&r, 12, 22);
    p->thickness_mm = render_rng_uniform(&r) < 0.6 ? render_rng_range(&r, 10, 30) : render_rng_range(&r, 40, 90);
    p->star_points = render_rng_uniform(&r) < 0.95;
    double light = render_rng_range(&r, 0.0, 1.0);  /* pale kaya .. darker wood */
    set3(p->wood_bgr, 95 + 40 * light + render_rng_range(&r, -10, 10),
         150 + 35 * light + render_rng_range(&r, -8, 8),
         195 + 35 * light + render_rng_range(&r, -8, 8));
    p->grain = render_rng_range(&r, 0.1, 0.6);
    set3(p->line_bgr, render_rng_range(&r, 20, 50), render_rng_range(&r, 20, 45), render_rng_range(&r, 20, 45));
    double t = render_rng_range(&r, 30, 140);
    set3(p->table_bgr, t + render_rng_range(&r, -20, 20), t + render_rng_range(&r, -20, 20), t + render_rng_range(&r, -20, 20));

    /* Stones */
    p->stone_mm = 22.0;
    p->stone_h_mm = render_rng_range(&r, 6.5, 10.0);
    p->jitter_mm = render_rng_range(&r, 0.5, 2.2);
    double b = render_rng_range(&r, 18, 38);
    set3(p->black_bgr, b + render_rng_range(&r, 0, 6), b, b);
    double w = render_rng_range(&r, 222, 245);
    set3(p->white_bgr, w - render_rng_range(&r, 0, 12), w - render_rng_range(&r, 0, 5), w);

    /* Light */
    p->kelvin = render_rng_range(&r, 2900, 7000);
    p->brightness = render_rng_range(&r, 0.75, 1.1);
    p->gradient = render_rng_range(&r, 0, 0.35);
    p->gradient_deg = render_rng_range(&r, 0, 360);
    p->glare = render_rng_uniform(&r) < 0.4 ? render_rng_range(&r, 0.1, 0.6) : 0;
    p->glare_x = render_rng_range(&r, 0.2, 0.8);
    p->glare_y = render_rng_range(&r, 0.2, 0.8);
    p->slow_amp = render_rng_range(&r, 0, 0.12);
    p->slow_period_ms = render_rng_range(&r, 8000, 40000);
    p->flicker = render_rng_uniform(&r) < 0.3 ? render_rng_range(&r, 0.005, 0.04) : 0;
    p->light_deg = render_rng_range(&r, 0, 360);

    /* Sensor */
    p->noise = render_rng_range(&r, 1.0, 5.0);
    p->blur = render_rng_uniform(&r) < 0.3;
    p->motion_blur = render_rng_range(&r, 0.2, 1.0);
    p->jpeg_quality = 0;

    /* Hands */
    double sk = render_rng_range(&r, 0, 1);
    set3(p->skin_bgr, 100 + 60 * sk, 130 + 60 * sk, 170 + 60 * sk);
    set3(p->sleeve_bgr, render_rng_range(&r, 20, 200), render_rng_range(&r, 20, 200), render_rng_range(&r, 20, 200));
    set3(p->sleeve2_bgr, render_rng_range(&r, 20, 200), render_rng_range(&r, 20, 200), render_rng_range(&r, 20, 200));

    /* Drift: off unless asked for; its direction is drawn last so adding it
     * changed no other field of a seed's look. */
    p->drift_deg_min = 0;
    p->drift_dir_deg = render_rng_range(&r, 0, 360);
}

void render_state_init(render_state *st, int size)
{
    memset(st, 0, sizeof *st);
    gs_position_clear(&st->pos, size);
    st->hand.present = false;
    st->hand.side = GS_BLACK;
}

/* ----------------------------------------------------------------- scene */

/* Sensor noise comes from a fixed table read at a random offset per row and
 * frame: far cheaper per pixel than running a generator. */
#define NOISE_BASE (1 << 18)

typedef struct pose {
    vec3 C;            /* camera centre (world) */
    vec3 ax, ay, az;   /* camera axes in world: image right, image down, forward */
    bool ready;
    /* per-pixel lookup, built lazily */
    struct mapent { int32_t idx; uint16_t gain; uint8_t wx, wy; } *map;
    uint8_t *glare;
} pose;

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
    pose pose[2];
    pose drift;                 /* pose[0] or [1] turned by the drift at
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
    int8_t *noise;              /* NOISE_BASE + W*3 values at the scene's sigma */
    vec3 light;                 /* unit vector towards the light (world, z down) */
    double shadow_dx, shadow_dy;/* board-plane shadow direction */
};

const render_params *render_scene_params(const render_scene *s) { return &s->p; }

/* Board point (u, v) (intersections) -> world x, y. */
static void board_to_world(const render_scene *s, double u, double v, double *x, double *y)
{
    *x = s->gx0 + u * s->p.cell_w_mm;
    *y = s->gy0 + v * s->p.cell_h_mm;
}

static void distort(const render_scene *s, double *x, double *y)
{
    gs_lens_distort(s->p.k1, s->dcx, s->dcy, s->dnorm, x, y);
}

static void undistort(const render_scene *s, double *x, double *y)
{
    gs_lens_undistort(s->p.k1, s->dcx, s->dcy, s->dnorm, x, y);
}

/* World point -> undistorted image point; false when behind the camera. */
static bool project_pin(const render_scene *s, const pose *ps, vec3 P, double *x, double *y)
{
    vec3 d = vsub(P, ps->C);
    double z = vdot(d, ps->az);
    if (z < 1) return false;
    *x = s->cx0 + s->fpx * vdot(d, ps->ax) / z;
    *y = s->cy0 + s->fpx * vdot(d, ps->ay) / z;
    return true;
}

static bool project(const render_scene *s, const pose *ps, vec3 P, double *x, double *y)
{
    if (!project_pin(s, ps, P, x, y)) return false;
    distort(s, x, y);
    return true;
}

static void pose_set(render_scene *s, pose *ps, double dist, double bump_deg, uint64_t *rng)
{
    const render_params *p = &s->p;
    double tilt = p->tilt_deg * M_PI / 180, rot = p->rotation_deg * M_PI / 180;
    vec3 dir = v3(-sin(rot), cos(rot), 0);           /* towards the camera's side */
    vec3 T = v3(0, 0, 0);
    ps->C = v3(T.x + dir.x * dist * sin(tilt), T.y + dir.y * dist * sin(tilt), -dist * cos(tilt));
    vec3 f = vnorm(vsub(T, ps->C));
    vec3 ay = vnorm(vsub(dir, vmul(f, vdot(dir, f))));
    vec3 ax = vcross(ay, f);
    double roll = p->roll_deg * M_PI / 180;
    ax = vrot(ax, f, roll);
    ay = vrot(ay, f, roll);
    if (bump_deg != 0) {
        /* A knock: the camera turns a little about a random axis. */
        vec3 k = vnorm(v3(render_rng_range(rng, -1, 1), render_rng_range(rng, -1, 1), render_rng_range(rng, -0.3, 0.3)));
        double a = bump_deg * M_PI / 180;
        f = vrot(f, k, a);
        ax = vrot(ax, k, a);
        ay = vrot(ay, k, a);
        ps->C = vadd(ps->C, v3(render_rng_range(rng, -3, 3), render_rng_range(rng, -3, 3), 0));
    }
    ps->ax = ax;
    ps->ay = ay;
    ps->az = f;
    ps->ready = true;
}

/* Fraction of the frame the board's outline spans at distance dist. */
static double board_extent(render_scene *s, double dist)
{
    pose ps;
    memset(&ps, 0, sizeof ps);
    pose_set(s, &ps, dist, 0, NULL);
    double hx = s->bw / 2, hy = s->bh / 2, worst = 0;
    for (int i = 0; i < 4; i++) {
        vec3 P = v3(i & 1 ? hx : -hx, i & 2 ? hy : -hy, 0);
        double x, y;
        if (!project_pin(s, &ps, P, &x, &y)) return 10;
        double ex = fabs(x - s->cx0) / (s->W / 2.0), ey = fabs(y - s->cy0) / (s->H / 2.0);
        if (ex > worst) worst = ex;
        if (ey > worst) worst = ey;
    }
    return worst;
}

/* ------------------------------------------------------------- textures */

/* Smooth value noise in [0,1] (for grain and table cloth). */
static double hash2(int x, int y, uint32_t seed)
{
    uint32_t h = (uint32_t)x * 374761393u + (uint32_t)y * 668265263u + seed * 2246822519u;
    h = (h ^ (h >> 13)) * 1274126177u;
    h ^= h >> 16;
    return (h & 0xFFFFFF) / 16777215.0;
}

static double vnoise(double x, double y, uint32_t seed)
{
    int xi = (int)floor(x), yi = (int)floor(y);
    double fx = x - xi, fy = y - yi;
    fx = fx * fx * (3 - 2 * fx);
    fy = fy * fy * (3 - 2 * fy);
    double a = hash2(xi, yi, seed), b = hash2(xi + 1, yi, seed);
    double c = hash2(xi, yi + 1, seed), d = hash2(xi + 1, yi + 1, seed);
    return (a + (b - a) * fx) * (1 - fy) + (c + (d - c) * fx) * fy;
}

static bool is_star(int size, int i, int j)
{
    int e = size >= 13 ? 3 : 2;
    if (size < 7) return false;
    int m = size / 2;
    bool ci = i == e || i == size - 1 - e || (size % 2 && i == m && size >= 13);
    bool cj = j == e || j == size - 1 - e || (size % 2 && j == m && size >= 13);
    if (size % 2 && i == m && j == m) return true;
    return ci && cj;
}

static void build_static(render_scene *s)
{
    const render_params *p = &s->p;
    uint64_t r = render_rng_seed(p->seed, 7);
    uint32_t ns = (uint32_t)render_rng_next(&r);
    double grain_freq = render_rng_range(&r, 0.25, 0.6);   /* rings per mm */
    double grain_warp = render_rng_range(&r, 4, 12);
    bool grain_along_x = render_rng_uniform(&r) < 0.5;
    double hx = s->bw / 2, hy = s->bh / 2;
    double lw = p->line_mm / 2, aa = 0.5 / s->ppm;
    double star_r = p->line_mm * 1.2 + 1.2;
    for (int j = 0; j < s->th; j++) {
        double wy = s->ty0 + (j + 0.5) / s->ppm;
        uint8_t *row = s->stat + (size_t)j * s->tw * 3;
        for (int i = 0; i < s->tw; i++) {
            double wx = s->tx0 + (i + 0.5) / s->ppm;
            double c[3];
            if (fabs(wx) <= hx && fabs(wy) <= hy) {
                /* wood: rings warped by noise, plus fine fibres */
                double a = grain_along_x ? wy : wx, b = grain_along_x ? wx : wy;
                double warp = grain_warp * (vnoise(b * 0.004, a * 0.01, ns) - 0.5) + 3 * vnoise(b * 0.02, a * 0.05, ns + 1);
                double ring = 0.5 + 0.5 * sin((a + warp) * grain_freq * 2 * M_PI * 0.25);
                ring = ring * ring * ring;
                double fib = vnoise(b * 0.05, a * 1.5, ns + 2) - 0.5;
                double k = 1 - p->grain * (0.16 * ring + 0.06 * fib) + 0.05 * (vnoise(wx * 0.01, wy * 0.01, ns + 3) - 0.5);
                for (int ch = 0; ch < 3; ch++) c[ch] = p->wood_bgr[ch] * k;
                /* slightly darker bevel at the edge */
                double e = fmin(hx - fabs(wx), hy - fabs(wy));
                if (e < 2) for (int ch = 0; ch < 3; ch++) c[ch] *= 0.85 + 0.075 * e;
                /* lines and star points: coverage by distance */
                double fu = (wx - s->gx0) / p->cell_w_mm, fv = (wy - s->gy0) / p->cell_h_mm;
                double cov = 0;
                int n = p->board_size;
                if (fv >= -0.1 && fv <= n - 0.9) {
                    int ui = (int)floor(fu + 0.5);
                    if (ui >= 0 && ui < n) {
                        double d = fabs(wx - (s->gx0 + ui * p->cell_w_mm));
                        double vv = clampd(fv, 0, n - 1);
                        double ext = fabs(fv - vv) * p->cell_h_mm;  /* beyond the end */
                        if (ext < lw) cov = fmax(cov, clampd((lw - d) / (2 * aa) + 0.5, 0, 1));
                    }
                }
                if (fu >= -0.1 && fu <= n - 0.9) {
                    int vi = (int)floor(fv + 0.5);
                    if (vi >= 0 && vi < n) {
                        double d = fabs(wy - (s->gy0 + vi * p->cell_h_mm));
                        double uu = clampd(fu, 0, n - 1);
                        double ext = fabs(fu - uu) * p->cell_w_mm;
                        if (ext < lw) cov = fmax(cov, clampd((lw - d) / (2 * aa) + 0.5, 0, 1));
                    }
                }
                int ui = (int)floor(fu + 0.5), vi = (int)floor(fv + 0.5);
                if (p->star_points && ui >= 0 && vi >= 0 && ui < n && vi < n && is_star(n, ui, vi)) {
                    double dx = wx - (s->gx0 + ui * p->cell_w_mm), dy = wy - (s->gy0 + vi * p->cell_h_mm);
                    double d = sqrt(dx * dx + dy * dy);
                    cov = fmax(cov, clampd((star_r - d) / (2 * aa) + 0.5, 0, 1));
                }
                for (int ch = 0; ch < 3; ch++) c[ch] = c[ch] * (1 - cov) + p->line_bgr[ch] * cov;
            } else {
                /* table: cloth-like noise, darkened by the board's shadow */
                double k = 0.92 + 0.12 * vnoise(wx * 0.08, wy * 0.08, ns + 4);
                double ox = fmax(0, fabs(wx) - hx), oy = fmax(0, fabs(wy) - hy);
                double d = sqrt(ox * ox + oy * oy);
                k *= 1 - 0.45 * exp(-d / 12.0);
                for (int ch = 0; ch < 3; ch++) c[ch] = p->table_bgr[ch] * k;
            }
            row[i * 3 + 0] = u8(c[0]);
            row[i * 3 + 1] = u8(c[1]);
            row[i * 3 + 2] = u8(c[2]);
        }
    }
}

/* Stone sprites, BGRA, lit from the light side; white ones get shell
 * stripes, black ones a slate speckle. */
static void build_sprites(render_scene *s)
{
    const render_params *p = &s->p;
    int ss = s->ss;
    double R = p->stone_mm / 2 * s->ppm, c0 = (ss - 1) / 2.0;
    vec3 L = vnorm(v3(-s->light.x, -s->light.y, 1.0));  /* in sprite frame: towards light, z up */
    vec3 Hh = vnorm(vadd(L, v3(0, 0, 1)));
    uint64_t r = render_rng_seed(p->seed, 11);
    for (int col = 0; col < 2; col++) {
        const double *tint = col ? p->white_bgr : p->black_bgr;
        for (int v = 0; v < RENDER_VARIANTS; v++) {
            uint8_t *sp = s->sprite[col][v];
            double sa = render_rng_range(&r, 0, M_PI), sf = render_rng_range(&r, 0.6, 1.4), sph = render_rng_range(&r, 0, 6.3);
            double shade_v = render_rng_range(&r, -4, 4);
            uint32_t ns = (uint32_t)render_rng_next(&r);
            for (int y = 0; y < ss; y++)
                for (int x = 0; x < ss; x++) {
                    double dx = (x - c0) / R, dy = (y - c0) / R;
                    double rho = sqrt(dx * dx + dy * dy);
                    double a = clampd((1 - rho) * R + 0.5, 0, 1);
                    uint8_t *o = sp + ((size_t)y * ss + x) * 4;
                    if (a <= 0) { o[0] = o[1] = o[2] = o[3] = 0; continue; }
                    double rr = fmin(rho, 0.999);
                    double nz = sqrt(1 - rr * rr);
                    vec3 n = vnorm(v3(dx * 0.75, dy * 0.75, nz));
                    double diff = fmax(0, vdot(n, L));
                    double spec = pow(fmax(0, vdot(n, Hh)), col ? 60 : 45);
                    double k = 0.74 + 0.36 * diff;
                    double c[3];
                    for (int ch = 0; ch < 3; ch++) {
                        double base = tint[ch] + shade_v;
                        if (col) {
                            /* shell: faint parallel stripes */
                            double str = sin(((dx * cos(sa) + dy * sin(sa)) * 9 * sf + sph)) * 0.025;
                            base *= 1 + str;
                        } else {
                            base += 10 * (vnoise(x * 0.7, y * 0.7, ns) - 0.5);
                        }
                        c[ch] = base * k + spec * (col ? 60 : 110);
                    }
                    /* the rim turns away from the camera: darker */
                    double rim = rho > 0.85 ? (rho - 0.85) / 0.15 : 0;
                    for (int ch = 0; ch < 3; ch++) c[ch] *= 1 - 0.25 * rim;
                    o[0] = u8(c[0]);
                    o[1] = u8(c[1]);
                    o[2] = u8(c[2]);
                    o[3] = u8(a * 255);
                }
        }
    }
}

/* Builds the per-pixel lookup for one pose, with the light's fixed pattern
 * (gradient, vignette, glare) folded in. */
static gs_status pose_build_map(render_scene *s, pose *ps)
{
    const render_params *p = &s->p;
    size_t n = (size_t)s->W * s->H;
    if (!ps->map) ps->map = malloc(n * sizeof *ps->map);
    bool new_glare = !ps->glare;    /* fixed in the picture: drawn once */
    if (!ps->glare) ps->glare = malloc(n);
    if (!ps->map || !ps->glare) return GS_ERR_NOMEM;
    /* a drifting camera rebuilds its map often: keep each pixel's
     * undistorted ray (the lens does not move) */
    if (p->drift_deg_min != 0 && !s->ray) {
        s->ray = malloc(n * 2 * sizeof *s->ray);
        if (!s->ray) return GS_ERR_NOMEM;
        for (int y = 0; y < s->H; y++)
            for (int x = 0; x < s->W; x++) {
                double ux = x + 0.5, uy = y + 0.5;
                undistort(s, &ux, &uy);
                float *r = s->ray + ((size_t)y * s->W + x) * 2;
                r[0] = (float)((ux - s->cx0) / s->fpx);
                r[1] = (float)((uy - s->cy0) / s->fpx);
            }
    }
    double hx = s->bw / 2, hy = s->bh / 2;
    double ga = p->gradient_deg * M_PI / 180, gc = cos(ga), gsn = sin(ga);
    double half_diag = sqrt(s->W * s->W + s->H * s->H) / 2.0;
    double gl_x = p->glare_x * s->W, gl_y = p->glare_y * s->H, gl_s = 0.10 * s->W;
    for (int y = 0; y < s->H; y++)
        for (int x = 0; x < s->W; x++) {
            struct mapent *e = &ps->map[(size_t)y * s->W + x];
            vec3 dc;
            if (s->ray) {
                const float *r = s->ray + ((size_t)y * s->W + x) * 2;
                dc = v3(r[0], r[1], 1);
            } else {
                double ux = x + 0.5, uy = y + 0.5;
                undistort(s, &ux, &uy);
                dc = v3((ux - s->cx0) / s->fpx, (uy - s->cy0) / s->fpx, 1);
            }
            vec3 d = vadd(vadd(vmul(ps->ax, dc.x), vmul(ps->ay, dc.y)), vmul(ps->az, dc.z));
            double gain = 1.0;
            double wx = 0, wy = 0;
            bool hit = false;
            if (d.z > 1e-9) {
                double t0 = (0 - ps->C.z) / d.z;
                wx = ps->C.x + t0 * d.x;
                wy = ps->C.y + t0 * d.y;
                if (fabs(wx) <= hx && fabs(wy) <= hy) {
                    hit = true;
                } else {
                    double t1 = (p->thickness_mm - ps->C.z) / d.z;
                    double tx = ps->C.x + t1 * d.x, ty = ps->C.y + t1 * d.y;
                    if (fabs(tx) <= hx && fabs(ty) <= hy) {
                        /* the ray enters the board through a side face */
                        wx = clampd(wx, -hx + 0.6, hx - 0.6);
                        wy = clampd(wy, -hy + 0.6, hy - 0.6);
                        gain = 0.62;
                    } else {
                        wx = tx;
                        wy = ty;
                    }
                    hit = true;
                }
            }
            /* light pattern */
            double proj = ((x - s->W / 2.0) * gc + (y - s->H / 2.0) * gsn) / half_diag;
            double rr = ((x - s->W / 2.0) * (x - s->W / 2.0) + (y - s->H / 2.0) * (y - s->H / 2.0)) / (half_diag * half_diag);
            gain *= (1 - p->gradient * (0.5 + 0.5 * proj)) * (1 - 0.18 * rr);
            e->gain = (uint16_t)clampd(gain * 256, 0, 1023);
            double gdx = x - gl_x, gdy = y - gl_y;
            if (new_glare)
                ps->glare[(size_t)y * s->W + x] = u8(p->glare * 150 * exp(-(gdx * gdx + gdy * gdy) / (2 * gl_s * gl_s)));
            if (!hit) { e->idx = -1; e->wx = e->wy = 0; continue; }
            double ti = (wx - s->tx0) * s->ppm - 0.5, tj = (wy - s->ty0) * s->ppm - 0.5;
            if (ti < 0 || tj < 0 || ti >= s->tw - 1 || tj >= s->th - 1) { e->idx = -1; e->wx = e->wy = 0; continue; }
            int ii = (int)ti, jj = (int)tj;
            e->idx = jj * s->tw + ii;
            e->wx = (uint8_t)((ti - ii) * 255.0 + 0.5);
            e->wy = (uint8_t)((tj - jj) * 255.0 + 0.5);
        }
    return GS_OK;
}

render_scene *render_scene_create(const render_params *p, gs_error *err)
{
    if (p->width < 16 || p->height < 16 || p->width > 8192 || p->height > 8192) {
        gs_error_set(err, GS_ERR_USAGE, "frame size %dx%d out of range (16..8192)", p->width, p->height);
        return NULL;
    }
    if (p->board_size < 5 || p->board_size > GS_MAX_SIZE) {
        gs_error_set(err, GS_ERR_USAGE, "board size %d out of range (5..%d)", p->board_size, GS_MAX_SIZE);
        return NULL;
    }
    if (!(p->tilt_deg >= 0 && p->tilt_deg <= 75) || !(p->fov_deg >= 10 && p->fov_deg <= 140) ||
        !(p->cell_w_mm >= 10 && p->cell_w_mm <= 60) || !(p->cell_h_mm >= 10 && p->cell_h_mm <= 60) ||
        !(p->stone_mm >= 5 && p->stone_mm <= 60) || !(p->fill > 0.05 && p->fill <= 3) ||
        !(p->k1 >= -0.5 && p->k1 <= 0.5) || !(p->noise >= 0 && p->noise <= 100) ||
        !(p->thickness_mm >= 0 && p->thickness_mm <= 300) || !(p->margin_mm >= 0 && p->margin_mm <= 100) ||
        !(p->drift_deg_min >= -60 && p->drift_deg_min <= 60) || !isfinite(p->drift_dir_deg)) {
        gs_error_set(err, GS_ERR_USAGE, "render parameters out of range");
        return NULL;
    }
    render_scene *s = calloc(1, sizeof *s);
    if (!s) { gs_error_set(err, GS_ERR_NOMEM, "out of memory"); return NULL; }
    s->p = *p;
    s->drift_base = -1;
    s->W = p->width;
    s->H = p->height;
    s->fpx = (s->W / 2.0) / tan(p->fov_deg * M_PI / 360);
    s->cx0 = s->W / 2.0 + p->shift_x * s->W;
    s->cy0 = s->H / 2.0 + p->shift_y * s->H;
    s->dcx = s->W / 2.0;
    s->dcy = s->H / 2.0;
    s->dnorm = sqrt(s->W * s->W + s->H * s->H) / 2.0;
    int n = p->board_size;
    s->bw = (n - 1) * p->cell_w_mm + 2 * p->margin_mm;
    s->bh = (n - 1) * p->cell_h_mm + 2 * p->margin_mm;
    s->gx0 = -(n - 1) * p->cell_w_mm / 2;
    s->gy0 = -(n - 1) * p->cell_h_mm / 2;
    double la = p->light_deg * M_PI / 180;
    s->shadow_dx = cos(la);
    s->shadow_dy = sin(la);
    s->light = v3(-cos(la), -sin(la), 0);
    for (int ch = 0; ch < 3; ch++) s->table_bgr[ch] = u8(p->table_bgr[ch] * 0.98);  /* the ring's mean */

    /* Camera distance: given, or found so the board spans `fill`. */
    double dist = p->distance_mm;
    if (dist <= 0) {
        dist = 1000;
        for (int i = 0; i < 30; i++) {
            double e = board_extent(s, dist);
            double ratio = e / p->fill;
            if (fabs(ratio - 1) < 1e-4) break;
            dist *= ratio > 4 ? 4 : ratio < 0.25 ? 0.25 : ratio;
        }
    }
    if (dist < p->stone_h_mm * 3 + 50) dist = p->stone_h_mm * 3 + 50;
    uint64_t br = render_rng_seed(p->seed, 5);
    pose_set(s, &s->pose[0], dist, 0, &br);
    pose_set(s, &s->pose[1], dist, p->bump_ms >= 0 ? p->bump_deg : 0, &br);

    /* Texture resolution: a bit finer than the image samples the board. */
    double px_per_mm = s->fpx / dist;
    s->ppm = clampd(px_per_mm * 1.3, 0.6, 5.0);
    double ring = 60 + p->thickness_mm * 2;
    s->tx0 = -s->bw / 2 - ring;
    s->ty0 = -s->bh / 2 - ring;
    s->tw = (int)ceil((s->bw + 2 * ring) * s->ppm);
    s->th = (int)ceil((s->bh + 2 * ring) * s->ppm);
    s->stat = malloc((size_t)s->tw * s->th * 3);
    s->dyn = malloc((size_t)s->tw * s->th * 3);
    s->ss = (int)ceil(p->stone_mm * s->ppm) + 3;
    bool ok = s->stat && s->dyn;
    for (int c = 0; c < 2; c++)
        for (int v = 0; v < RENDER_VARIANTS; v++)
            ok = ok && (s->sprite[c][v] = malloc((size_t)s->ss * s->ss * 4)) != NULL;
    if (!ok) {
        render_scene_destroy(s);
        gs_error_set(err, GS_ERR_NOMEM, "out of memory for the board texture");
        return NULL;
    }
    if (p->noise > 0) {
        size_t nn = NOISE_BASE + (size_t)s->W * 3;
        s->noise = malloc(nn);
        if (!s->noise) {
            render_scene_destroy(s);
            gs_error_set(err, GS_ERR_NOMEM, "out of memory for the noise table");
            return NULL;
        }
        uint64_t nr = render_rng_seed(p->seed, 13);
        for (size_t i = 0; i < nn; i++) {
            /* sum of two uniforms: a triangle, closer to a sensor's bell */
            double a = render_rng_uniform(&nr) + render_rng_uniform(&nr) - 1.0;
            s->noise[i] = (int8_t)clampd(a * p->noise * 2.449 + (a >= 0 ? 0.5 : -0.5), -127, 127);
        }
    }
    build_static(s);
    build_sprites(s);
    return s;
}

void render_scene_destroy(render_scene *s)
{
    if (!s) return;
    free(s->stat);
    free(s->dyn);
    free(s->noise);
    for (int c = 0; c < 2; c++)
        for (int v = 0; v < RENDER_VARIANTS; v++) free(s->sprite[c][v]);
    for (int i = 0; i < 2; i++) {
        free(s->pose[i].map);
        free(s->pose[i].glare);
    }
    free(s->drift.map);
    free(s->drift.glare);
    free(s->ray);
    free(s);
}

static int pose_index(const render_scene *s, double t_ms)
{
    return s->p.bump_ms >= 0 && t_ms >= s->p.bump_ms ? 1 : 0;
}

/* The drift angle at t_ms (radians), quantised to a fiftieth of a pixel of
 * picture motion so still frames share one lookup map. */
static double drift_angle(const render_scene *s, double t_ms)
{
    if (s->p.drift_deg_min == 0 || t_ms <= 0) return 0;
    double a = s->p.drift_deg_min * M_PI / 180 * t_ms / 60000.0;
    double q = 0.02 / s->fpx;
    return floor(a / q + 0.5) * q;
}

/* base turned by angle a about the camera centre: a pan/tilt that moves the
 * picture towards drift_dir_deg (the centre stays, so stone parallax and
 * the textures do not change). */
static void pose_drifted(const render_scene *s, const pose *base, double a, pose *out)
{
    out->C = base->C;
    out->ax = base->ax;
    out->ay = base->ay;
    out->az = base->az;
    out->ready = true;
    if (a == 0) return;
    double d = s->p.drift_dir_deg * M_PI / 180;
    /* turning about -ay moves the picture right, about ax down */
    vec3 k = vnorm(vadd(vmul(base->ay, -cos(d)), vmul(base->ax, sin(d))));
    out->ax = vrot(base->ax, k, a);
    out->ay = vrot(base->ay, k, a);
    out->az = vrot(base->az, k, a);
}

/* The camera at t_ms without its lookup map (projections, hands). */
static pose pose_at(const render_scene *s, double t_ms)
{
    pose ps;
    memset(&ps, 0, sizeof ps);
    pose_drifted(s, &s->pose[pose_index(s, t_ms)], drift_angle(s, t_ms), &ps);
    return ps;
}

/* ---------------------------------------------------------- stone layer */

/* Where the stone at (u, v) sits (world mm), with its offset. */
static void stone_centre(const render_scene *s, const render_state *st, int u, int v, double *x, double *y)
{
    int i = v * st->pos.size + u;
    board_to_world(s, u, v, x, y);
    *x += st->offset[i][0] * s->p.jitter_mm;
    *y += st->offset[i][1] * s->p.jitter_mm;
}

/* How far (board mm) a point h mm above (x, y) appears displaced on the
 * board plane: the camera looks at it along a slant. */
static void parallax(const pose *ps, double x, double y, double h, double *dx, double *dy)
{
    double ch = -ps->C.z;  /* camera height */
    double k = h / fmax(ch - h, 1);
    *dx = (x - ps->C.x) * k;
    *dy = (y - ps->C.y) * k;
}

static void blend_sprite(render_scene *s, const uint8_t *sp, double wx, double wy, double dark)
{
    int ss = s->ss;
    int i0 = (int)floor((wx - s->tx0) * s->ppm - (ss - 1) / 2.0 + 0.5);
    int j0 = (int)floor((wy - s->ty0) * s->ppm - (ss - 1) / 2.0 + 0.5);
    for (int y = 0; y < ss; y++) {
        int j = j0 + y;
        if (j < 0 || j >= s->th) continue;
        for (int x = 0; x < ss; x++) {
            int i = i0 + x;
            if (i < 0 || i >= s->tw) continue;
            const uint8_t *q = sp + ((size_t)y * ss + x) * 4;
            int a = q[3];
            if (!a) continue;
            uint8_t *o = s->dyn + ((size_t)j * s->tw + i) * 3;
            for (int c = 0; c < 3; c++) {
                int v = dark > 0 ? (int)(q[c] * (1 - dark)) : q[c];
                o[c] = (uint8_t)((o[c] * (255 - a) + v * a + 127) / 255);
            }
        }
    }
}

static void draw_shadow(render_scene *s, double wx, double wy, double rad, double soft, double strength)
{
    int i0 = (int)floor((wx - rad - soft - s->tx0) * s->ppm), i1 = (int)ceil((wx + rad + soft - s->tx0) * s->ppm);
    int j0 = (int)floor((wy - rad - soft - s->ty0) * s->ppm), j1 = (int)ceil((wy + rad + soft - s->ty0) * s->ppm);
    i0 = clampi(i0, 0, s->tw - 1);
    i1 = clampi(i1, 0, s->tw - 1);
    j0 = clampi(j0, 0, s->th - 1);
    j1 = clampi(j1, 0, s->th - 1);
    for (int j = j0; j <= j1; j++) {
        double y = s->ty0 + (j + 0.5) / s->ppm - wy;
        for (int i = i0; i <= i1; i++) {
            double x = s->tx0 + (i + 0.5) / s->ppm - wx;
            double d = sqrt(x * x + y * y);
            double a = clampd((rad - d) / soft + 0.5, 0, 1) * strength;
            if (a <= 0) continue;
            uint8_t *o = s->dyn + ((size_t)j * s->tw + i) * 3;
            for (int c = 0; c < 3; c++) o[c] = (uint8_t)(o[c] * (1 - a));
        }
    }
}

static void build_dynamic(render_scene *s, const render_state *st, int pi)
{
    const render_params *p = &s->p;
    const pose *ps = &s->pose[pi];
    memcpy(s->dyn, s->stat, (size_t)s->tw * s->th * 3);
    int n = st->pos.size;
    double R = p->stone_mm / 2, h = p->stone_h_mm;
    /* all shadows first so no shadow falls across a neighbour's top */
    for (int v = 0; v < n; v++)
        for (int u = 0; u < n; u++) {
            if (gs_position_get(&st->pos, u, v) == GS_EMPTY) continue;
            double x, y;
            stone_centre(s, st, u, v, &x, &y);
            draw_shadow(s, x + s->shadow_dx * h * 0.45, y + s->shadow_dy * h * 0.45, R * 0.98, 2.2, 0.42);
        }
    for (int v = 0; v < n; v++)
        for (int u = 0; u < n; u++) {
            gs_color c = gs_position_get(&st->pos, u, v);
            if (c == GS_EMPTY) continue;
            double x, y, dx, dy;
            stone_centre(s, st, u, v, &x, &y);
            parallax(ps, x, y, h, &dx, &dy);
            const uint8_t *sp = s->sprite[c == GS_WHITE][st->variant[v * n + u] % RENDER_VARIANTS];
            /* the lower half of the lens seen from the side, then the top */
            if (fabs(dx) + fabs(dy) > 0.3 / s->ppm) blend_sprite(s, sp, x + dx * 0.2, y + dy * 0.2, 0.35);
            blend_sprite(s, sp, x + dx * 0.5, y + dy * 0.5, 0);
        }
    s->dyn_valid = true;
    s->dyn_pose = pi;
    s->dyn_pos = st->pos;
    memcpy(s->dyn_off, st->offset, sizeof s->dyn_off);
    memcpy(s->dyn_var, st->variant, sizeof s->dyn_var);
}

static bool dyn_matches(const render_scene *s, const render_state *st, int pi)
{
    if (!s->dyn_valid || s->dyn_pose != pi || s->dyn_pos.size != st->pos.size) return false;
    int nn = st->pos.size * st->pos.size;
    if (memcmp(s->dyn_pos.cell, st->pos.cell, (size_t)nn)) return false;
    for (int i = 0; i < nn; i++) {
        if (st->pos.cell[i] == GS_EMPTY) continue;
        if (s->dyn_off[i][0] != st->offset[i][0] || s->dyn_off[i][1] != st->offset[i][1] || s->dyn_var[i] != st->variant[i])
            return false;
    }
    return true;
}

/* ---------------------------------------------------------------- hands */

typedef struct capsule {
    vec3 a, b;          /* world end points */
    double ra, rb;      /* radii, mm */
    int colour;         /* 0 skin, 1 sleeve */
} capsule;

typedef struct icapsule {
    double ax, ay, bx, by, ra, rb;  /* image */
    int colour;
    double height;      /* mm above the board (for the shadow) */
} icapsule;

#define HAND_CAPS 6

/* The hand as capsules: fingers, thumb, palm, wrist, sleeve (low to high,
 * so later ones draw on top as a camera from above sees them). */
static int hand_capsules(const render_scene *s, const pose *ps, const render_hand *h, capsule *cap)
{
    double sgn = h->side == GS_WHITE ? -1 : 1;
    double yaw = h->yaw_deg * M_PI / 180;
    vec3 a = v3(sin(yaw) * sgn, cos(yaw) * sgn, 0);      /* towards the player */
    vec3 perp = v3(-a.y, a.x, 0);
    vec3 F = v3(h->x, h->y, -h->z);
    vec3 up = v3(0, 0, -1);
    vec3 K = vadd(vadd(F, vmul(a, 55)), vmul(up, 16));
    vec3 Wr = vadd(vadd(K, vmul(a, 75)), vmul(up, 22));
    /* shoulder: beyond the board edge on the player's side, high up */
    double edge = s->bh / 2 + 330;
    double along = fabs(a.y) > 0.2 ? (edge - fabs(Wr.y)) / fabs(a.y) : 300;
    if (along < 150) along = 150;
    vec3 S = vadd(vadd(Wr, vmul(a, along)), vmul(up, 260));
    vec3 W2 = vadd(Wr, vmul(vnorm(vsub(S, Wr)), 60));
    int n = 0;
    cap[n++] = (capsule){F, K, 9, 11, 0};
    cap[n++] = (capsule){vadd(F, vmul(perp, 14)), vadd(vadd(K, vmul(perp, 30)), vmul(up, 4)), 8, 10, 0};
    cap[n++] = (capsule){K, Wr, 36, 30, 0};
    cap[n++] = (capsule){Wr, W2, 28, 31, 0};
    cap[n++] = (capsule){vadd(Wr, vmul(vnorm(vsub(S, Wr)), 45)), S, 40, 50, 1};
    /* a camera close to a small board still looks down on the arm: keep
     * every part well below it */
    double maxh = 0.5 * -ps->C.z;
    for (int i = 0; i < n; i++) {
        if (-cap[i].a.z > maxh) cap[i].a.z = -maxh;
        if (-cap[i].b.z > maxh) cap[i].b.z = -maxh;
    }
    return n;
}

static int hand_icapsules(const render_scene *s, const pose *ps, const render_hand *h, icapsule *ic)
{
    capsule cap[HAND_CAPS];
    int n = hand_capsules(s, ps, h, cap), m = 0;
    for (int i = 0; i < n; i++) {
        double ax, ay, bx, by;
        vec3 A = cap[i].a, B = cap[i].b;
        /* clip the far end to stay in front of the camera */
        double za = vdot(vsub(A, ps->C), ps->az), zb = vdot(vsub(B, ps->C), ps->az);
        if (za < 20 && zb < 20) continue;
        if (zb < 20) { double t = (za - 20) / (za - zb); B = vadd(A, vmul(vsub(B, A), t)); zb = 20; }
        if (za < 20) { double t = (zb - 20) / (zb - za); A = vadd(B, vmul(vsub(A, B), t)); za = 20; }
        if (!project(s, ps, A, &ax, &ay) || !project(s, ps, B, &bx, &by)) continue;
        ic[m] = (icapsule){ax, ay, bx, by, cap[i].ra * s->fpx / za, cap[i].rb * s->fpx / zb, cap[i].colour,
                           -(A.z + B.z) / 2};
        m++;
    }
    return m;
}

/* Distance from (x, y) to capsule c, and its radius there. */
static double cap_dist(const icapsule *c, double x, double y, double *r, double *across)
{
    double dx = c->bx - c->ax, dy = c->by - c->ay;
    double l2 = dx * dx + dy * dy;
    double t = l2 > 0 ? ((x - c->ax) * dx + (y - c->ay) * dy) / l2 : 0;
    t = clampd(t, 0, 1);
    double px = c->ax + t * dx, py = c->ay + t * dy;
    *r = c->ra + t * (c->rb - c->ra);
    double ex = x - px, ey = y - py;
    if (across) {
        double l = sqrt(l2);
        *across = l > 0 ? (ex * -dy + ey * dx) / l : 0;
    }
    return sqrt(ex * ex + ey * ey);
}

/* The x range of row y that can lie within `extra` of capsule c: the
 * capsule's strip intersected with its slab along the axis (a tight
 * superset), so drawing visits only pixels near the shape. */
static bool cap_span(const icapsule *c, double y, double extra, double *xa, double *xb)
{
    double R = fmax(c->ra, c->rb) + extra;
    double dx = c->bx - c->ax, dy = c->by - c->ay, L = sqrt(dx * dx + dy * dy);
    double lo = -1e18, hi = 1e18, ry = y - c->ay;
    if (L < 1e-6) {
        double q = R * R - ry * ry;
        if (q < 0) return false;
        *xa = c->ax - sqrt(q);
        *xb = c->ax + sqrt(q);
        return true;
    }
    double ux = dx / L, uy = dy / L, nx = -uy, ny = ux;
    /* strip: |(x-ax) nx + ry ny| <= R */
    if (fabs(nx) > 1e-9) {
        double e1 = c->ax + (-R - ry * ny) / nx, e2 = c->ax + (R - ry * ny) / nx;
        lo = fmax(lo, fmin(e1, e2));
        hi = fmin(hi, fmax(e1, e2));
    } else if (fabs(ry * ny) > R) return false;
    /* slab: (x-ax) ux + ry uy in [-R, L+R] */
    if (fabs(ux) > 1e-9) {
        double e1 = c->ax + (-R - ry * uy) / ux, e2 = c->ax + (L + R - ry * uy) / ux;
        lo = fmax(lo, fmin(e1, e2));
        hi = fmin(hi, fmax(e1, e2));
    } else {
        double q = ry * uy;
        if (q < -R || q > L + R) return false;
    }
    if (lo > hi) return false;
    *xa = lo;
    *xb = hi;
    return true;
}

/* Image point and radius of a stone held between the fingertips. */
static bool held_stone(const render_scene *s, const pose *ps, const render_hand *h, double *x, double *y, double *r)
{
    vec3 P = v3(h->x, h->y, -(h->z - 2));
    if (!project(s, ps, P, x, y)) return false;
    double z = vdot(vsub(P, ps->C), ps->az);
    *r = s->p.stone_mm / 2 * s->fpx / z;
    return true;
}

int render_hand_covers(const render_scene *s, const render_state *st, uint8_t *covered, bool *visible)
{
    int n = st->pos.size, count = 0;
    memset(covered, 0, (size_t)n * n);
    if (visible) *visible = false;
    if (!st->hand.present) return 0;
    const pose pst = pose_at(s, st->t_ms), *ps = &pst;
    icapsule ic[HAND_CAPS];
    int m = hand_icapsules(s, ps, &st->hand, ic);
    double hx = 0, hy = 0, hr = 0;
    bool held = st->hand.holding != GS_EMPTY && held_stone(s, ps, &st->hand, &hx, &hy, &hr);
    if (visible) {
        for (int k = 0; k < m && !*visible; k++) {
            double r = fmax(ic[k].ra, ic[k].rb);
            double x0 = fmin(ic[k].ax, ic[k].bx) - r, x1 = fmax(ic[k].ax, ic[k].bx) + r;
            double y0 = fmin(ic[k].ay, ic[k].by) - r, y1 = fmax(ic[k].ay, ic[k].by) + r;
            if (x1 < 0 || y1 < 0 || x0 >= s->W || y0 >= s->H) continue;
            /* the bounding box meets the frame; is the capsule itself in it? */
            double cx = clampd((ic[k].ax + ic[k].bx) / 2, 0, s->W - 1), cy = clampd((ic[k].ay + ic[k].by) / 2, 0, s->H - 1);
            double rr, d = cap_dist(&ic[k], cx, cy, &rr, NULL);
            if (d < rr) *visible = true;
            /* sample the frame border and corners too */
            for (int e = 0; e < 64 && !*visible; e++) {
                double fx = (e % 8 + 0.5) / 8.0 * s->W, fy = (e / 8 + 0.5) / 8.0 * s->H;
                if (cap_dist(&ic[k], fx, fy, &rr, NULL) < rr) *visible = true;
            }
            double ex = clampd(ic[k].ax, 0, s->W - 1), ey = clampd(ic[k].ay, 0, s->H - 1);
            if (cap_dist(&ic[k], ex, ey, &rr, NULL) < rr) *visible = true;
        }
    }
    for (int v = 0; v < n; v++)
        for (int u = 0; u < n; u++) {
            double x, y, wx, wy;
            board_to_world(s, u, v, &wx, &wy);
            if (!project(s, ps, v3(wx, wy, 0), &x, &y)) continue;
            bool c = false;
            for (int k = 0; k < m && !c; k++) {
                /* covered = the pixel there is all hand, not an edge */
                double r, d = cap_dist(&ic[k], x, y, &r, NULL);
                if (d < r - 1) c = true;
            }
            if (!c && held) c = (x - hx) * (x - hx) + (y - hy) * (y - hy) < (hr - 1) * (hr - 1);
            if (c) {
                covered[v * n + u] = 1;
                count++;
            }
        }
    return count;
}

/* Darkens the board under the hand: capsules pushed along the light and
 * blurred with height. */
static void draw_hand_shadow(const render_scene *s, const pose *ps, const render_hand *h, gs_image *out)
{
    capsule cap[HAND_CAPS];
    int n = hand_capsules(s, ps, h, cap);
    for (int i = 0; i < n; i++) {
        double ha = -cap[i].a.z, hb = -cap[i].b.z;
        vec3 A = v3(cap[i].a.x + s->shadow_dx * ha * 0.35, cap[i].a.y + s->shadow_dy * ha * 0.35, 0);
        vec3 B = v3(cap[i].b.x + s->shadow_dx * hb * 0.35, cap[i].b.y + s->shadow_dy * hb * 0.35, 0);
        icapsule c;
        double za = vdot(vsub(A, ps->C), ps->az), zb = vdot(vsub(B, ps->C), ps->az);
        if (za < 20 || zb < 20) continue;
        if (!project(s, ps, A, &c.ax, &c.ay) || !project(s, ps, B, &c.bx, &c.by)) continue;
        c.ra = (cap[i].ra + ha * 0.08) * s->fpx / za;
        c.rb = (cap[i].rb + hb * 0.08) * s->fpx / zb;
        double soft = fmax(1.5, (ha + hb) * 0.5 * 0.12 * s->fpx / ((za + zb) / 2));
        double strength = clampd(0.45 - (ha + hb) * 0.5 / 600, 0.12, 0.45);
        double r = fmax(c.ra, c.rb) + soft;
        int x0 = clampi((int)floor(fmin(c.ax, c.bx) - r), 0, out->width - 1), x1 = clampi((int)ceil(fmax(c.ax, c.bx) + r), 0, out->width - 1);
        int y0 = clampi((int)floor(fmin(c.ay, c.by) - r), 0, out->height - 1), y1 = clampi((int)ceil(fmax(c.ay, c.by) + r), 0, out->height - 1);
        if (fmax(c.ax, c.bx) + r < 0 || fmin(c.ax, c.bx) - r >= out->width || fmax(c.ay, c.by) + r < 0 || fmin(c.ay, c.by) - r >= out->height) continue;
        for (int y = y0; y <= y1; y++) {
            uint8_t *row = out->buf + (size_t)y * out->stride;
            double sa, sb;
            if (!cap_span(&c, y + 0.5, soft + 1, &sa, &sb)) continue;
            int xa = (int)fmax(x0, floor(sa)), xb = (int)fmin(x1, ceil(sb));
            for (int x = xa; x <= xb; x++) {
                double rr, d = cap_dist(&c, x + 0.5, y + 0.5, &rr, NULL);
                double a = clampd((rr - d) / soft + 0.5, 0, 1) * strength;
                if (a <= 0.003) continue;
                uint8_t *o = row + x * 3;
                for (int ch = 0; ch < 3; ch++) o[ch] = (uint8_t)(o[ch] * (1 - a));
            }
        }
    }
}

static void draw_hand(const render_scene *s, const pose *ps, const render_hand *h, const int mul[3], gs_image *out)
{
    const render_params *p = &s->p;
    icapsule ic[HAND_CAPS];
    int m = hand_icapsules(s, ps, h, ic);
    const double *sleeve = h->side == GS_WHITE ? p->sleeve2_bgr : p->sleeve_bgr;
    double blur = 1.0 + p->motion_blur * h->speed * s->fpx / 1000.0 * 0.5;
    for (int k = 0; k < m; k++) {
        const icapsule *c = &ic[k];
        const double *base = c->colour ? sleeve : p->skin_bgr;
        double r = fmax(c->ra, c->rb) + blur;
        if (fmax(c->ax, c->bx) + r < 0 || fmin(c->ax, c->bx) - r >= out->width || fmax(c->ay, c->by) + r < 0 || fmin(c->ay, c->by) - r >= out->height) continue;
        int x0 = clampi((int)floor(fmin(c->ax, c->bx) - r), 0, out->width - 1), x1 = clampi((int)ceil(fmax(c->ax, c->bx) + r), 0, out->width - 1);
        int y0 = clampi((int)floor(fmin(c->ay, c->by) - r), 0, out->height - 1), y1 = clampi((int)ceil(fmax(c->ay, c->by) + r), 0, out->height - 1);
        double col[3];
        for (int ch = 0; ch < 3; ch++) col[ch] = base[ch] * mul[ch] / 256.0;
        for (int y = y0; y <= y1; y++) {
            uint8_t *row = out->buf + (size_t)y * out->stride;
            double sa, sb;
            if (!cap_span(c, y + 0.5, blur + 1, &sa, &sb)) continue;
            int xa = (int)fmax(x0, floor(sa)), xb = (int)fmin(x1, ceil(sb));
            for (int x = xa; x <= xb; x++) {
                double rr, across, d = cap_dist(c, x + 0.5, y + 0.5, &rr, &across);
                double a = clampd((rr - d) / blur + 0.5, 0, 1);
                if (a <= 0) continue;
                double q = clampd(d / fmax(rr, 0.5), 0, 1);
                double shade = 0.6 + 0.4 * sqrt(1 - q * q) + 0.12 * clampd(across / fmax(rr, 0.5), -1, 1);
                if (c->colour && ((x + 2 * y) & 3) == 0) shade *= 0.94;  /* cloth weave */
                uint8_t *o = row + x * 3;
                for (int ch = 0; ch < 3; ch++) o[ch] = u8(o[ch] * (1 - a) + col[ch] * shade * a);
            }
        }
        if (k == 0 && h->holding != GS_EMPTY) {
            /* the stone held under the fingertips, drawn with the fingers */
            double sx, sy, sr;
            if (held_stone(s, ps, h, &sx, &sy, &sr)) {
                const double *t = h->holding == GS_WHITE ? p->white_bgr : p->black_bgr;
                int xs0 = clampi((int)(sx - sr - 2), 0, out->width - 1), xs1 = clampi((int)(sx + sr + 2), 0, out->width - 1);
                int ys0 = clampi((int)(sy - sr - 2), 0, out->height - 1), ys1 = clampi((int)(sy + sr + 2), 0, out->height - 1);
                if (sx + sr + 2 >= 0 && sx - sr - 2 < out->width && sy + sr + 2 >= 0 && sy - sr - 2 < out->height)
                    for (int y = ys0; y <= ys1; y++)
                        for (int x = xs0; x <= xs1; x++) {
                            double dx = x + 0.5 - sx, dy = y + 0.5 - sy, d = sqrt(dx * dx + dy * dy);
                            double a = clampd((sr - d) / blur + 0.5, 0, 1);
                            if (a <= 0) continue;
                            double q = d / sr, shade = 0.65 + 0.4 * sqrt(fmax(0, 1 - q * q)) - 0.15 * (dx + dy) / (2 * sr);
                            uint8_t *o = out->buf + (size_t)y * out->stride + x * 3;
                            for (int ch = 0; ch < 3; ch++) o[ch] = u8(o[ch] * (1 - a) + t[ch] * mul[ch] / 256.0 * shade * a);
                        }
            }
        }
    }
}

/* ---------------------------------------------------------------- frame */

static void blur3(gs_image *img, uint8_t *tmp)
{
    /* [1 2 1] x [1 2 1] / 16, edges clamped.  tmp holds two source rows
     * and one row of vertical sums; the inner loop runs over bytes. */
    int w = img->width, h = img->height, st = img->stride, n = w * 3;
    uint8_t *prev = tmp, *cur = tmp + n;
    uint16_t *vs = (uint16_t *)(tmp + 2 * (size_t)n);
    memcpy(prev, img->buf, (size_t)n);
    for (int y = 0; y < h; y++) {
        uint8_t *row = img->buf + (size_t)y * st;
        const uint8_t *next = img->buf + (size_t)(y + 1 < h ? y + 1 : y) * st;
        memcpy(cur, row, (size_t)n);
        for (int i = 0; i < n; i++) vs[i] = (uint16_t)(prev[i] + 2 * cur[i] + next[i]);
        for (int c = 0; c < 3; c++) {
            row[c] = (uint8_t)((3 * vs[c] + vs[3 + c] + 8) >> 4);
            if (w > 1) row[n - 3 + c] = (uint8_t)((3 * vs[n - 3 + c] + vs[n - 6 + c] + 8) >> 4);
        }
        for (int i = 3; i < n - 3; i++) row[i] = (uint8_t)((vs[i - 3] + 2 * vs[i] + vs[i + 3] + 8) >> 4);
        uint8_t *t = prev;
        prev = cur;
        cur = t;
    }
}

gs_status render_frame(render_scene *s, const render_state *st, gs_image *out, gs_error *err)
{
    const render_params *p = &s->p;
    if (!out || out->width != s->W || out->height != s->H || out->channels != 3)
        return gs_error_set(err, GS_ERR_USAGE, "render_frame: output must be %dx%d BGR", s->W, s->H);
    if (st->pos.size != p->board_size)
        return gs_error_set(err, GS_ERR_USAGE, "render_frame: position is %dx%d, scene board is %dx%d",
                            st->pos.size, st->pos.size, p->board_size, p->board_size);
    int pi = pose_index(s, st->t_ms);
    pose *ps = &s->pose[pi];
    double da = drift_angle(s, st->t_ms);
    if (da != 0) {
        if (s->drift_base != pi || s->drift_rad != da || !s->drift.map) {
            pose_drifted(s, ps, da, &s->drift);
            if (pose_build_map(s, &s->drift) != GS_OK) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
            s->drift_base = pi;
            s->drift_rad = da;
        }
        ps = &s->drift;
    } else if (!ps->map && pose_build_map(s, ps) != GS_OK) {
        return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    }
    if (!dyn_matches(s, st, pi)) build_dynamic(s, st, pi);

    /* Per-frame light: colour temperature, slow drift, flicker. */
    double k = (5500.0 - p->kelvin) / 2600.0;
    double kel[3] = {1 - 0.28 * k, 1 - 0.04 * k, 1 + 0.22 * k};
    double g = p->brightness * (1 + p->slow_amp * sin(2 * M_PI * st->t_ms / fmax(p->slow_period_ms, 1)));
    uint64_t fr = render_rng_seed(p->seed ^ 0xF11C, (uint64_t)st->frame);
    if (p->flicker > 0) g *= 1 + p->flicker * (2 * render_rng_uniform(&fr) - 1);
    int mul[3];
    for (int c = 0; c < 3; c++) mul[c] = (int)clampd(g * kel[c] * 256, 0, 1023);
    uint32_t tabc[3];
    for (int c = 0; c < 3; c++) tabc[c] = s->table_bgr[c];

    const int tw3 = s->tw * 3;
    const uint8_t *tex = s->dyn;
    for (int y = 0; y < s->H; y++) {
        uint8_t *row = out->buf + (size_t)y * out->stride;
        const struct mapent *e = ps->map + (size_t)y * s->W;
        const uint8_t *gl = ps->glare + (size_t)y * s->W;
        for (int x = 0; x < s->W; x++, e++, row += 3) {
            uint32_t c0, c1, c2;
            if (e->idx < 0) {
                c0 = tabc[0]; c1 = tabc[1]; c2 = tabc[2];
            } else {
                const uint8_t *t = tex + (size_t)e->idx * 3;
                uint32_t wx = e->wx, wy = e->wy, ix = 256 - wx, iy = 256 - wy;
                c0 = ((t[0] * ix + t[3] * wx) * iy + (t[tw3] * ix + t[tw3 + 3] * wx) * wy) >> 16;
                c1 = ((t[1] * ix + t[4] * wx) * iy + (t[tw3 + 1] * ix + t[tw3 + 4] * wx) * wy) >> 16;
                c2 = ((t[2] * ix + t[5] * wx) * iy + (t[tw3 + 2] * ix + t[tw3 + 5] * wx) * wy) >> 16;
            }
            uint32_t gn = e->gain, gla = gl[x];
            uint32_t v0 = ((c0 * gn * (uint32_t)mul[0]) >> 16) + gla;
            uint32_t v1 = ((c1 * gn * (uint32_t)mul[1]) >> 16) + gla;
            uint32_t v2 = ((c2 * gn * (uint32_t)mul[2]) >> 16) + gla;
            row[0] = (uint8_t)(v0 > 255 ? 255 : v0);
            row[1] = (uint8_t)(v1 > 255 ? 255 : v1);
            row[2] = (uint8_t)(v2 > 255 ? 255 : v2);
        }
    }

    if (st->hand.present) {
        draw_hand_shadow(s, ps, &st->hand, out);
        draw_hand(s, ps, &st->hand, mul, out);
    }

    if (p->blur) {
        uint8_t *tmp = malloc((size_t)s->W * 12 + 16);
        if (!tmp) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        blur3(out, tmp);
        free(tmp);
    }

    if (s->noise) {
        for (int y = 0; y < s->H; y++) {
            uint8_t *row = out->buf + (size_t)y * out->stride;
            const int8_t *nz = s->noise + (render_rng_next(&fr) % NOISE_BASE);
            for (int i = 0; i < s->W * 3; i++) {
                int v = row[i] + nz[i];
                row[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
        }
    }

    if (p->jpeg_quality > 0) {
        uint8_t *buf = NULL;
        size_t len = 0;
        if (cvshim_image_encode_jpeg(out, p->jpeg_quality, &buf, &len) == 0) {
            char msg[128];
            gs_image *dec = cvshim_image_decode(buf, len, msg, sizeof msg);
            if (dec && dec->width == out->width && dec->height == out->height && dec->channels == 3)
                for (int y = 0; y < s->H; y++)
                    memcpy(out->buf + (size_t)y * out->stride, dec->buf + (size_t)y * dec->stride, (size_t)s->W * 3);
            gs_image_destroy(dec);
        }
        free(buf);
    }
    return GS_OK;
}

/* ---------------------------------------------------------------- truth */

bool render_project(const render_scene *s, double u, double v, double z_mm, double t_ms, double *x, double *y)
{
    double wx, wy;
    board_to_world(s, u, v, &wx, &wy);
    const pose ps = pose_at(s, t_ms);
    return project(s, &ps, v3(wx, wy, -z_mm), x, y);
}

void render_grid(const render_scene *s, double t_ms, vision_grid *g)
{
    memset(g, 0, sizeof *g);
    const pose pst = pose_at(s, t_ms), *ps = &pst;
    int n = s->p.board_size;
    g->size = n;
    /* H = K [ax; ay; az] (A q - C), with A the board->world affine map. */
    double cw = s->p.cell_w_mm, ch = s->p.cell_h_mm;
    vec3 rows[3] = {ps->ax, ps->ay, ps->az};
    double M[9];
    for (int i = 0; i < 3; i++) {
        vec3 r = rows[i];
        M[i * 3 + 0] = r.x * cw;
        M[i * 3 + 1] = r.y * ch;
        M[i * 3 + 2] = r.x * (s->gx0 - ps->C.x) + r.y * (s->gy0 - ps->C.y) + r.z * (0 - ps->C.z);
    }
    for (int j = 0; j < 3; j++) {
        g->H[0 + j] = s->fpx * M[0 + j] + s->cx0 * M[6 + j];
        g->H[3 + j] = s->fpx * M[3 + j] + s->cy0 * M[6 + j];
        g->H[6 + j] = M[6 + j];
    }
    double sc = g->H[8] != 0 ? 1.0 / g->H[8] : 1.0;
    for (int i = 0; i < 9; i++) g->H[i] *= sc;
    g->k1 = s->p.k1;
    g->cx = s->dcx;
    g->cy = s->dcy;
    g->norm = s->dnorm;
    g->cell_aspect = ch / cw;
    g->confidence = 1;
    const int cu[4] = {0, n - 1, n - 1, 0}, cv[4] = {0, 0, n - 1, n - 1};
    for (int i = 0; i < 4; i++) render_project(s, cu[i], cv[i], 0, t_ms, &g->corners[i][0], &g->corners[i][1]);
}
