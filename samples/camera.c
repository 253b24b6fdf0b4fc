/* samples/camera.c: the synthetic camera: where it stands (pose, bump,
 * drift), how it projects through its lens (core's gs_lens_distort /
 * gs_lens_undistort, the vision_grid model), and each pose's per-pixel
 * lookup map: the texel every pixel's ray meets, with the light's fixed
 * pattern (gradient, vignette, glare) folded in.
 *
 * Speed plan: the map is computed once per camera pose (twice with a
 * bump; with a drift, again whenever the drift has moved the picture by a
 * fiftieth of a pixel), so a frame is one pass of table lookups.
 */
#include "samples/render_internal.h"

#include <stdlib.h>
#include <string.h>

void render_board_to_world(const render_scene *s, double u, double v, double *x, double *y)
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
static bool project_pin(const render_scene *s, const render_pose *ps, vec3 P, double *x, double *y)
{
    vec3 d = vsub(P, ps->C);
    double z = vdot(d, ps->az);
    if (z < 1) return false;
    *x = s->cx0 + s->fpx * vdot(d, ps->ax) / z;
    *y = s->cy0 + s->fpx * vdot(d, ps->ay) / z;
    return true;
}

bool render_pose_project(const render_scene *s, const render_pose *ps, vec3 P, double *x, double *y)
{
    if (!project_pin(s, ps, P, x, y)) return false;
    distort(s, x, y);
    return true;
}

/* ----------------------------------------------------------------- pose */

static void pose_set(render_scene *s, render_pose *ps, double dist, double bump_deg, uint64_t *rng)
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
    render_pose ps;
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

double render_camera_place(render_scene *s)
{
    const render_params *p = &s->p;
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
    return dist;
}

int render_pose_index(const render_scene *s, double t_ms)
{
    return s->p.bump_ms >= 0 && t_ms >= s->p.bump_ms ? 1 : 0;
}

/* Quantised to a fiftieth of a pixel of picture motion so still frames
 * share one lookup map. */
double render_drift_angle(const render_scene *s, double t_ms)
{
    if (s->p.drift_deg_min == 0 || t_ms <= 0) return 0;
    double a = s->p.drift_deg_min * M_PI / 180 * t_ms / 60000.0;
    double q = 0.02 / s->fpx;
    return floor(a / q + 0.5) * q;
}

/* base turned by angle a about the camera centre: a pan/tilt that moves the
 * picture towards drift_dir_deg (the centre stays, so stone parallax and
 * the textures do not change). */
void render_pose_drifted(const render_scene *s, const render_pose *base, double a, render_pose *out)
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

render_pose render_pose_at(const render_scene *s, double t_ms)
{
    render_pose ps;
    memset(&ps, 0, sizeof ps);
    render_pose_drifted(s, &s->pose[render_pose_index(s, t_ms)], render_drift_angle(s, t_ms), &ps);
    return ps;
}

/* ---------------------------------------------------------- lookup map */

/* Allocates ps's map and glare (*new_glare: the glare is still to draw)
 * and, for a drifting camera, the scene's ray cache. */
static gs_status map_alloc(render_scene *s, render_pose *ps, bool *new_glare)
{
    size_t n = (size_t)s->W * s->H;
    if (!ps->map) ps->map = malloc(n * sizeof *ps->map);
    *new_glare = !ps->glare;    /* fixed in the picture: drawn once */
    if (!ps->glare) ps->glare = malloc(n);
    if (!ps->map || !ps->glare) return GS_ERR_NOMEM;
    /* a drifting camera rebuilds its map often: keep each pixel's
     * undistorted ray (the lens does not move) */
    if (s->p.drift_deg_min != 0 && !s->ray) {
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
    return GS_OK;
}

/* Pixel (x, y)'s ray in camera coordinates (z = 1), lens undone. */
static vec3 pixel_ray(const render_scene *s, int x, int y)
{
    if (s->ray) {
        const float *r = s->ray + ((size_t)y * s->W + x) * 2;
        return v3(r[0], r[1], 1);
    }
    double ux = x + 0.5, uy = y + 0.5;
    undistort(s, &ux, &uy);
    return v3((ux - s->cx0) / s->fpx, (uy - s->cy0) / s->fpx, 1);
}

vec3 render_pose_pixel_ray(const render_scene *s, const render_pose *ps, int x, int y)
{
    vec3 dc = pixel_ray(s, x, y);
    return vadd(vadd(vmul(ps->ax, dc.x), vmul(ps->ay, dc.y)), vmul(ps->az, dc.z));
}

/* Where the world ray d from the camera meets the textured surface (world
 * x, y): the board top; a side face, drawn as the board's edge darkened
 * (*gain); else the table under the board.  False when it points up. */
static bool ray_hit(const render_scene *s, const render_pose *ps, vec3 d, double *wx, double *wy, double *gain)
{
    double hx = s->bw / 2, hy = s->bh / 2;
    if (!(d.z > 1e-9)) return false;
    double t0 = (0 - ps->C.z) / d.z;
    *wx = ps->C.x + t0 * d.x;
    *wy = ps->C.y + t0 * d.y;
    if (fabs(*wx) <= hx && fabs(*wy) <= hy) return true;
    double t1 = (s->p.thickness_mm - ps->C.z) / d.z;
    double tx = ps->C.x + t1 * d.x, ty = ps->C.y + t1 * d.y;
    if (fabs(tx) <= hx && fabs(ty) <= hy) {
        /* the ray enters the board through a side face */
        *wx = clampd(*wx, -hx + 0.6, hx - 0.6);
        *wy = clampd(*wy, -hy + 0.6, hy - 0.6);
        *gain = 0.62;
    } else {
        *wx = tx;
        *wy = ty;
    }
    return true;
}

/* The texel of world point (wx, wy) and its bilinear weights into e (idx
 * -1: off the texture or no hit, the table colour is used). */
static void map_texel(const render_scene *s, bool hit, double wx, double wy, render_mapent *e)
{
    if (!hit) { e->idx = -1; e->wx = e->wy = 0; return; }
    double ti = (wx - s->tx0) * s->ppm - 0.5, tj = (wy - s->ty0) * s->ppm - 0.5;
    if (ti < 0 || tj < 0 || ti >= s->tw - 1 || tj >= s->th - 1) { e->idx = -1; e->wx = e->wy = 0; return; }
    int ii = (int)ti, jj = (int)tj;
    e->idx = jj * s->tw + ii;
    e->wx = (uint8_t)((ti - ii) * 255.0 + 0.5);
    e->wy = (uint8_t)((tj - jj) * 255.0 + 0.5);
}

/* The texel where ray d crosses the board top's plane, when that lies
 * beyond the board (a stone reaching over the edge is seen there), else -1. */
static int32_t map_top(const render_scene *s, const render_pose *ps, vec3 d)
{
    if (!(d.z > 1e-9)) return -1;
    double t0 = -ps->C.z / d.z, wx = ps->C.x + t0 * d.x, wy = ps->C.y + t0 * d.y;
    if (fabs(wx) <= s->bw / 2 && fabs(wy) <= s->bh / 2) return -1;
    double ti = (wx - s->tx0) * s->ppm, tj = (wy - s->ty0) * s->ppm;
    if (!(ti >= 0 && tj >= 0 && ti < s->tw && tj < s->th)) return -1;
    return (int32_t)tj * s->tw + (int32_t)ti;
}

gs_status render_pose_build_map(render_scene *s, render_pose *ps)
{
    const render_params *p = &s->p;
    bool new_glare;
    gs_status st = map_alloc(s, ps, &new_glare);
    if (st != GS_OK) return st;
    double ga = p->gradient_deg * M_PI / 180, gc = cos(ga), gsn = sin(ga);
    double half_diag = sqrt(s->W * s->W + s->H * s->H) / 2.0;
    double gl_x = p->glare_x * s->W, gl_y = p->glare_y * s->H, gl_s = 0.10 * s->W;
    for (int y = 0; y < s->H; y++)
        for (int x = 0; x < s->W; x++) {
            render_mapent *e = &ps->map[(size_t)y * s->W + x];
            vec3 dc = pixel_ray(s, x, y);
            vec3 d = vadd(vadd(vmul(ps->ax, dc.x), vmul(ps->ay, dc.y)), vmul(ps->az, dc.z));
            double gain = 1.0;
            double wx = 0, wy = 0;
            bool hit = ray_hit(s, ps, d, &wx, &wy, &gain);
            double face = gain; /* the side faces' shade */
            /* light pattern: a gradient across the frame and a vignette */
            double proj = ((x - s->W / 2.0) * gc + (y - s->H / 2.0) * gsn) / half_diag;
            double rr = ((x - s->W / 2.0) * (x - s->W / 2.0) + (y - s->H / 2.0) * (y - s->H / 2.0)) / (half_diag * half_diag);
            gain *= (1 - p->gradient * (0.5 + 0.5 * proj)) * (1 - 0.18 * rr);
            e->gain = (uint16_t)clampd(gain * 256, 0, 1023);
            e->tgain = (uint16_t)clampd(gain / face * 256, 0, 1023);
            e->top = map_top(s, ps, d);
            double gdx = x - gl_x, gdy = y - gl_y;
            if (new_glare)
                ps->glare[(size_t)y * s->W + x] = u8(p->glare * 150 * exp(-(gdx * gdx + gdy * gdy) / (2 * gl_s * gl_s)));
            map_texel(s, hit, wx, wy, e);
        }
    return GS_OK;
}

/* ---------------------------------------------------------------- truth */

bool render_project(const render_scene *s, double u, double v, double z_mm, double t_ms, double *x, double *y)
{
    double wx, wy;
    render_board_to_world(s, u, v, &wx, &wy);
    const render_pose ps = render_pose_at(s, t_ms);
    return render_pose_project(s, &ps, v3(wx, wy, -z_mm), x, y);
}

void render_grid(const render_scene *s, double t_ms, vision_grid *g)
{
    memset(g, 0, sizeof *g);
    const render_pose pst = render_pose_at(s, t_ms), *ps = &pst;
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
    /* a corner behind the camera (no pose the checks allow puts one there)
       would stay (0, 0) */
    for (int i = 0; i < 4; i++) (void)render_project(s, cu[i], cv[i], 0, t_ms, &g->corners[i][0], &g->corners[i][1]);
}
