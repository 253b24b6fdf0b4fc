/* samples/frame.c: one frame (render_frame): the camera pose of the
 * moment and its lookup map, the frame's light (colour temperature, slow
 * change, flicker), the board composited through the map, the hand, then
 * the sensor: 3x3 blur, noise, JPEG re-compression. */
#include "samples/render_internal.h"
#include "cvshim/cvshim.h"

#include <stdlib.h>
#include <string.h>

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

/* The pose for time t_ms with its lookup map built (the drifted pose when
 * the camera drifts); *pi is the pose before the drift (the stone layer's). */
static gs_status frame_pose(render_scene *s, double t_ms, int *pi, render_pose **out, gs_error *err)
{
    *pi = render_pose_index(s, t_ms);
    render_pose *ps = &s->pose[*pi];
    double da = render_drift_angle(s, t_ms);
    if (da != 0) {
        if (s->drift_base != *pi || s->drift_rad != da || !s->drift.map) {
            render_pose_drifted(s, ps, da, &s->drift);
            if (render_pose_build_map(s, &s->drift) != GS_OK) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
            s->drift_base = *pi;
            s->drift_rad = da;
        }
        ps = &s->drift;
    } else if (!ps->map && render_pose_build_map(s, ps) != GS_OK) {
        return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    }
    *out = ps;
    return GS_OK;
}

/* The frame's light as per-channel gains (256 = 1): colour temperature,
 * slow change, flicker.  *fr is the frame's random stream, which the noise
 * goes on using. */
static void frame_light(const render_scene *s, const render_state *st, int mul[3], uint64_t *fr)
{
    const render_params *p = &s->p;
    double k = (5500.0 - p->kelvin) / 2600.0;
    double kel[3] = {1 - 0.28 * k, 1 - 0.04 * k, 1 + 0.22 * k};
    double g = p->brightness * (1 + p->slow_amp * sin(2 * M_PI * st->t_ms / fmax(p->slow_period_ms, 1)));
    *fr = render_rng_seed(p->seed ^ 0xF11C, (uint64_t)st->frame);
    if (p->flicker > 0) g *= 1 + p->flicker * (2 * render_rng_uniform(fr) - 1);
    for (int c = 0; c < 3; c++) mul[c] = (int)clampd(g * kel[c] * 256, 0, 1023);
}

/* The board and stones seen through pose ps's map: bilinear texture
 * lookup, light gain, glare. */
static void composite(const render_scene *s, const render_pose *ps, const int mul[3], gs_image *out)
{
    uint32_t tabc[3];
    for (int c = 0; c < 3; c++) tabc[c] = s->table_bgr[c];
    const int tw3 = s->tw * 3;
    const uint8_t *tex = s->dyn;
    for (int y = 0; y < s->H; y++) {
        uint8_t *row = out->buf + (size_t)y * out->stride;
        const render_mapent *e = ps->map + (size_t)y * s->W;
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
            uint32_t v0 = (c0 * gn * (uint32_t)mul[0]) >> 16;
            uint32_t v1 = (c1 * gn * (uint32_t)mul[1]) >> 16;
            uint32_t v2 = (c2 * gn * (uint32_t)mul[2]) >> 16;
            if (s->over_used && e->top >= 0 && s->over[(size_t)e->top * 4 + 3]) {
                /* a stone reaching over the board's edge, in front of
                 * what the ray meets further on */
                const uint8_t *o = s->over + (size_t)e->top * 4;
                uint32_t a = o[3], tg = e->tgain;
                v0 = (v0 * (255 - a) + ((o[0] * tg * (uint32_t)mul[0]) >> 16) * a) / 255;
                v1 = (v1 * (255 - a) + ((o[1] * tg * (uint32_t)mul[1]) >> 16) * a) / 255;
                v2 = (v2 * (255 - a) + ((o[2] * tg * (uint32_t)mul[2]) >> 16) * a) / 255;
            }
            v0 += gla;
            v1 += gla;
            v2 += gla;
            row[0] = (uint8_t)(v0 > 255 ? 255 : v0);
            row[1] = (uint8_t)(v1 > 255 ? 255 : v1);
            row[2] = (uint8_t)(v2 > 255 ? 255 : v2);
        }
    }
}

/* Sensor noise: each row reads the noise table at a random offset. */
static void add_noise(const render_scene *s, uint64_t *fr, gs_image *out)
{
    for (int y = 0; y < s->H; y++) {
        uint8_t *row = out->buf + (size_t)y * out->stride;
        const int8_t *nz = s->noise + (render_rng_next(fr) % RENDER_NOISE_BASE);
        for (int i = 0; i < s->W * 3; i++) {
            int v = row[i] + nz[i];
            row[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
    }
}

/* JPEG re-compression at quality q, in place.  When encoding or decoding
 * fails the frame stays as rendered: the artefacts are a look, not part of
 * the truth, so a frame without them is still a valid frame. */
static void jpeg_roundtrip(int q, gs_image *out)
{
    uint8_t *buf = NULL;
    size_t len = 0;
    if (cvshim_image_encode_jpeg(out, q, &buf, &len) == 0) {
        gs_image *dec = cvshim_image_decode(buf, len, NULL);
        if (dec && dec->width == out->width && dec->height == out->height && dec->channels == 3)
            for (int y = 0; y < out->height; y++)
                memcpy(out->buf + (size_t)y * out->stride, dec->buf + (size_t)y * dec->stride, (size_t)out->width * 3);
        gs_image_destroy(dec);
    }
    free(buf);
}

gs_status render_frame(render_scene *s, const render_state *st, gs_image *out, gs_error *err)
{
    const render_params *p = &s->p;
    if (!out || out->width != s->W || out->height != s->H || out->channels != 3)
        return gs_error_set(err, GS_ERR_USAGE, "render_frame: output must be %dx%d BGR", s->W, s->H);
    if (st->pos.size != p->board_size)
        return gs_error_set(err, GS_ERR_USAGE, "render_frame: position is %dx%d, scene board is %dx%d",
                            st->pos.size, st->pos.size, p->board_size, p->board_size);
    int pi = 0;
    render_pose *ps = NULL;
    gs_status rc = frame_pose(s, st->t_ms, &pi, &ps, err);
    if (rc != GS_OK) return rc;
    render_stones_update(s, st, pi);
    int mul[3];
    uint64_t fr;
    frame_light(s, st, mul, &fr);
    composite(s, ps, mul, out);
    if (p->objects) render_objects_draw(s, ps, mul, out);
    if (st->hand.present) render_hand_draw(s, ps, &st->hand, mul, out);
    if (p->blur) {
        uint8_t *tmp = malloc((size_t)s->W * 12 + 16);
        if (!tmp) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        blur3(out, tmp);
        free(tmp);
    }
    if (s->noise) add_noise(s, &fr, out);
    if (p->jpeg_quality > 0) jpeg_roundtrip(p->jpeg_quality, out);
    return GS_OK;
}
