/* samples/stones.c: the stones.  Each colour has RENDER_VARIANTS sprites
 * (BGRA, lit from the scene's light) drawn once; the stone layer is the
 * static board texture with every stone's shadow and sprite composited
 * into a copy of it (s->dyn), redrawn only when the stones change. */
#include "samples/render_internal.h"

#include <string.h>

/* Stone sprites, BGRA, lit from the light side; white ones get shell
 * stripes, black ones a slate speckle. */
void render_stones_sprites(render_scene *s)
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
                            base += 10 * (render_value_noise(x * 0.7, y * 0.7, ns) - 0.5);
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

/* Where the stone at (u, v) sits (world mm), with its offset. */
static void stone_centre(const render_scene *s, const render_state *st, int u, int v, double *x, double *y)
{
    int i = v * st->pos.size + u;
    render_board_to_world(s, u, v, x, y);
    *x += st->offset[i][0] * s->p.jitter_mm;
    *y += st->offset[i][1] * s->p.jitter_mm;
}

/* How far (board mm) a point h mm above (x, y) appears displaced on the
 * board plane: the camera looks at it along a slant. */
static void parallax(const render_pose *ps, double x, double y, double h, double *dx, double *dy)
{
    double ch = -ps->C.z;  /* camera height */
    double k = h / fmax(ch - h, 1);
    *dx = (x - ps->C.x) * k;
    *dy = (y - ps->C.y) * k;
}

/* Colour v at alpha a over the BGRA texel o (what reaches past the
 * board's edge: seen over whatever lies behind it). */
static void over_blend(uint8_t *o, const int v[3], int a)
{
    int oa = o[3], na = a + oa * (255 - a) / 255;
    if (na <= 0) return;
    for (int c = 0; c < 3; c++) o[c] = (uint8_t)((v[c] * a + o[c] * oa * (255 - a) / 255) / na);
    o[3] = (uint8_t)na;
}

/* A sprite into the board texture; its texels beyond the board top's edge
 * go to the overhang layer instead (the texture there is the table). */
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
            int v[3];
            for (int c = 0; c < 3; c++) v[c] = dark > 0 ? (int)(q[c] * (1 - dark)) : q[c];
            if (fabs(s->tx0 + (i + 0.5) / s->ppm) > s->bw / 2 || fabs(s->ty0 + (j + 0.5) / s->ppm) > s->bh / 2) {
                over_blend(s->over + ((size_t)j * s->tw + i) * 4, v, a);
                s->over_used = true;
                continue;
            }
            uint8_t *o = s->dyn + ((size_t)j * s->tw + i) * 3;
            for (int c = 0; c < 3; c++) o[c] = (uint8_t)((o[c] * (255 - a) + v[c] * a + 127) / 255);
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

/* One stone's sprite at world (x, y) on the board top: the lower half of
 * the lens seen from the side, then the top. */
static void draw_stone(render_scene *s, const render_pose *ps, double x, double y, gs_color c, uint8_t variant)
{
    double dx, dy;
    parallax(ps, x, y, s->p.stone_h_mm, &dx, &dy);
    const uint8_t *sp = s->sprite[c == GS_WHITE][variant % RENDER_VARIANTS];
    if (fabs(dx) + fabs(dy) > 0.3 / s->ppm) blend_sprite(s, sp, x + dx * 0.2, y + dy * 0.2, 0.35);
    blend_sprite(s, sp, x + dx * 0.5, y + dy * 0.5, 0);
}

static void build_dynamic(render_scene *s, const render_state *st, int pi)
{
    const render_params *p = &s->p;
    const render_pose *ps = &s->pose[pi];
    memcpy(s->dyn, s->stat, (size_t)s->tw * s->th * 3);
    if (s->over_used) memset(s->over, 0, (size_t)s->tw * s->th * 4);
    s->over_used = false;
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
    for (int k = 0; k < st->nmargin; k++) {
        if (st->margin[k].color == GS_EMPTY) continue;
        double x, y;
        render_board_to_world(s, st->margin[k].u, st->margin[k].v, &x, &y);
        draw_shadow(s, x + s->shadow_dx * h * 0.45, y + s->shadow_dy * h * 0.45, R * 0.98, 2.2, 0.42);
    }
    for (int v = 0; v < n; v++)
        for (int u = 0; u < n; u++) {
            gs_color c = gs_position_get(&st->pos, u, v);
            if (c == GS_EMPTY) continue;
            double x, y;
            stone_centre(s, st, u, v, &x, &y);
            draw_stone(s, ps, x, y, c, st->variant[v * n + u]);
        }
    for (int k = 0; k < st->nmargin; k++) {
        if (st->margin[k].color == GS_EMPTY) continue;
        double x, y;
        render_board_to_world(s, st->margin[k].u, st->margin[k].v, &x, &y);
        draw_stone(s, ps, x, y, st->margin[k].color, st->margin[k].variant);
    }
    s->dyn_valid = true;
    s->dyn_pose = pi;
    s->dyn_pos = st->pos;
    memcpy(s->dyn_off, st->offset, sizeof s->dyn_off);
    memcpy(s->dyn_var, st->variant, sizeof s->dyn_var);
    s->dyn_nmargin = st->nmargin;
    memcpy(s->dyn_margin, st->margin, sizeof s->dyn_margin);
}

static bool dyn_matches(const render_scene *s, const render_state *st, int pi)
{
    if (!s->dyn_valid || s->dyn_pose != pi || s->dyn_pos.size != st->pos.size) return false;
    if (s->dyn_nmargin != st->nmargin) return false;
    for (int k = 0; k < st->nmargin; k++) {
        const render_margin_stone *a = &s->dyn_margin[k], *b = &st->margin[k];
        if (a->u != b->u || a->v != b->v || a->color != b->color || a->variant != b->variant) return false;
    }
    int nn = st->pos.size * st->pos.size;
    if (memcmp(s->dyn_pos.cell, st->pos.cell, (size_t)nn)) return false;
    for (int i = 0; i < nn; i++) {
        if (st->pos.cell[i] == GS_EMPTY) continue;
        if (s->dyn_off[i][0] != st->offset[i][0] || s->dyn_off[i][1] != st->offset[i][1] || s->dyn_var[i] != st->variant[i])
            return false;
    }
    return true;
}

void render_stones_update(render_scene *s, const render_state *st, int pi)
{
    if (!dyn_matches(s, st, pi)) build_dynamic(s, st, pi);
}
