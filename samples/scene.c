/* samples/scene.c: a scene put together (render_scene_create): the
 * parameters checked, the board geometry, the camera placed (camera.c),
 * the textures sized and drawn (board.c, stones.c), the sensor's noise
 * table.  Frames are drawn from it by frame.c.
 *
 * Speed plan (>= 30 frames/s at 1280x720 on one core): the board (wood,
 * grain, lines, star points, table around it) is drawn once in board space
 * ("static" texture).  Stones are composited into a copy of it ("dynamic"
 * texture) only when the stones change.  A per-pixel lookup map (texel
 * index + bilinear weights + light gain) is computed once per camera pose,
 * so a frame is one pass of table lookups, then the hand is drawn as a few
 * shaded capsules, then noise.
 */
#include "samples/render_internal.h"

#include <stdlib.h>
#include <string.h>

const render_params *render_scene_params(const render_scene *s) { return &s->p; }

static gs_status params_check(const render_params *p, gs_error *err)
{
    if (p->width < 16 || p->height < 16 || p->width > 8192 || p->height > 8192)
        return gs_error_set(err, GS_ERR_USAGE, "frame size %dx%d out of range (16..8192)", p->width, p->height);
    if (p->board_size < 5 || p->board_size > GS_MAX_SIZE)
        return gs_error_set(err, GS_ERR_USAGE, "board size %d out of range (5..%d)", p->board_size, GS_MAX_SIZE);
    if (!(p->tilt_deg >= 0 && p->tilt_deg <= 75) || !(p->fov_deg >= 10 && p->fov_deg <= 140) ||
        !(p->cell_w_mm >= 10 && p->cell_w_mm <= 60) || !(p->cell_h_mm >= 10 && p->cell_h_mm <= 60) ||
        !(p->stone_mm >= 5 && p->stone_mm <= 60) || !(p->fill > 0.05 && p->fill <= 3) ||
        !(p->k1 >= -0.5 && p->k1 <= 0.5) || !(p->noise >= 0 && p->noise <= 100) ||
        !(p->thickness_mm >= 0 && p->thickness_mm <= 300) || !(p->margin_mm >= 0 && p->margin_mm <= 100) ||
        !(p->drift_deg_min >= -60 && p->drift_deg_min <= 60) || !isfinite(p->drift_dir_deg))
        return gs_error_set(err, GS_ERR_USAGE, "render parameters out of range");
    return GS_OK;
}

/* The frame's optics (focal length, principal point, lens centre), the
 * board's size and origin, the light's direction. */
static void scene_geometry(render_scene *s)
{
    const render_params *p = &s->p;
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
}

/* Sizes and allocates the board texture (a bit finer than the image
 * samples the board from distance dist) and the stone sprites. */
static gs_status textures_alloc(render_scene *s, double dist, gs_error *err)
{
    const render_params *p = &s->p;
    double px_per_mm = s->fpx / dist;
    s->ppm = clampd(px_per_mm * 1.3, 0.6, 5.0);
    double ring = 60 + p->thickness_mm * 2 + render_objects_ring(s);
    s->tx0 = -s->bw / 2 - ring;
    s->ty0 = -s->bh / 2 - ring;
    s->tw = (int)ceil((s->bw + 2 * ring) * s->ppm);
    s->th = (int)ceil((s->bh + 2 * ring) * s->ppm);
    s->stat = malloc((size_t)s->tw * s->th * 3);
    s->dyn = malloc((size_t)s->tw * s->th * 3);
    s->over = calloc((size_t)s->tw * s->th, 4);
    s->ss = (int)ceil(p->stone_mm * s->ppm) + 3;
    bool ok = s->stat && s->dyn && s->over;
    for (int c = 0; c < 2; c++)
        for (int v = 0; v < RENDER_VARIANTS; v++)
            ok = ok && (s->sprite[c][v] = malloc((size_t)s->ss * s->ss * 4)) != NULL;
    if (!ok) return gs_error_set(err, GS_ERR_NOMEM, "out of memory for the board texture");
    return GS_OK;
}

/* The sensor noise table at the scene's sigma (none when noise is 0). */
static gs_status noise_table(render_scene *s, gs_error *err)
{
    const render_params *p = &s->p;
    if (!(p->noise > 0)) return GS_OK;
    size_t nn = RENDER_NOISE_BASE + (size_t)s->W * 3;
    s->noise = malloc(nn);
    if (!s->noise) return gs_error_set(err, GS_ERR_NOMEM, "out of memory for the noise table");
    uint64_t nr = render_rng_seed(p->seed, 13);
    for (size_t i = 0; i < nn; i++) {
        /* sum of two uniforms: a triangle, closer to a sensor's bell */
        double a = render_rng_uniform(&nr) + render_rng_uniform(&nr) - 1.0;
        s->noise[i] = (int8_t)clampd(a * p->noise * 2.449 + (a >= 0 ? 0.5 : -0.5), -127, 127);
    }
    return GS_OK;
}

render_scene *render_scene_create(const render_params *p, gs_error *err)
{
    if (params_check(p, err) != GS_OK) return NULL;
    render_scene *s = calloc(1, sizeof *s);
    if (!s) { gs_error_set(err, GS_ERR_NOMEM, "out of memory"); return NULL; }
    s->p = *p;
    scene_geometry(s);
    render_objects_layout(s);
    double dist = render_camera_place(s);
    if (textures_alloc(s, dist, err) != GS_OK || noise_table(s, err) != GS_OK) {
        render_scene_destroy(s);
        return NULL;
    }
    render_board_draw(s);
    render_stones_sprites(s);
    return s;
}

void render_scene_destroy(render_scene *s)
{
    if (!s) return;
    free(s->stat);
    free(s->dyn);
    free(s->over);
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
