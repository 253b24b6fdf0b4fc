/* samples/board.c: the static board texture (s->stat), drawn once in board
 * space: wood with its grain and bevel, the lines and star points, and the
 * table around the board with the board's shadow on it.  The stone layer
 * (stones.c) is composited over a copy of it. */
#include "samples/render_internal.h"

static double hash2(int x, int y, uint32_t seed)
{
    uint32_t h = (uint32_t)x * 374761393u + (uint32_t)y * 668265263u + seed * 2246822519u;
    h = (h ^ (h >> 13)) * 1274126177u;
    h ^= h >> 16;
    return (h & 0xFFFFFF) / 16777215.0;
}

double render_value_noise(double x, double y, uint32_t seed)
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


/* The wood's grain, drawn from the seed once per texture. */
typedef struct grain {
    uint32_t ns;        /* value-noise seed */
    double freq;        /* rings per mm */
    double warp;        /* how far the rings wander (mm) */
    bool along_x;       /* rings run along x (else along y) */
} grain;

/* Wood at world (wx, wy) on the board top: rings warped by noise, plus
 * fine fibres, and a slightly darker bevel at the edge. */
static void wood_colour(const render_scene *s, const grain *g, double wx, double wy, double c[3])
{
    const render_params *p = &s->p;
    uint32_t ns = g->ns;
    double hx = s->bw / 2, hy = s->bh / 2;
    double a = g->along_x ? wy : wx, b = g->along_x ? wx : wy;
    double warp = g->warp * (render_value_noise(b * 0.004, a * 0.01, ns) - 0.5) +
                  3 * render_value_noise(b * 0.02, a * 0.05, ns + 1);
    double ring = 0.5 + 0.5 * sin((a + warp) * g->freq * 2 * M_PI * 0.25);
    ring = ring * ring * ring;
    double fib = render_value_noise(b * 0.05, a * 1.5, ns + 2) - 0.5;
    double k = 1 - p->grain * (0.16 * ring + 0.06 * fib) + 0.05 * (render_value_noise(wx * 0.01, wy * 0.01, ns + 3) - 0.5);
    for (int ch = 0; ch < 3; ch++) c[ch] = p->wood_bgr[ch] * k;
    double e = fmin(hx - fabs(wx), hy - fabs(wy));
    if (e < 2) for (int ch = 0; ch < 3; ch++) c[ch] *= 0.85 + 0.075 * e;
}

/* How much of the texel at world (wx, wy) the lines and star points cover
 * (0..1, anti-aliased by distance). */
static double line_cover(const render_scene *s, double wx, double wy)
{
    const render_params *p = &s->p;
    double lw = p->line_mm / 2, aa = 0.5 / s->ppm;
    double star_r = p->line_mm * 1.2 + 1.2;
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
    return cov;
}

/* The table at world (wx, wy) off the board: cloth-like noise, darkened
 * by the board's shadow. */
static void table_colour(const render_scene *s, const grain *g, double wx, double wy, double c[3])
{
    double hx = s->bw / 2, hy = s->bh / 2;
    double k = 0.92 + 0.12 * render_value_noise(wx * 0.08, wy * 0.08, g->ns + 4);
    double ox = fmax(0, fabs(wx) - hx), oy = fmax(0, fabs(wy) - hy);
    double d = sqrt(ox * ox + oy * oy);
    k *= 1 - 0.45 * exp(-d / 12.0);
    for (int ch = 0; ch < 3; ch++) c[ch] = s->p.table_bgr[ch] * k;
}

void render_board_draw(render_scene *s)
{
    const render_params *p = &s->p;
    uint64_t r = render_rng_seed(p->seed, 7);
    grain g;
    g.ns = (uint32_t)render_rng_next(&r);
    g.freq = render_rng_range(&r, 0.25, 0.6);
    g.warp = render_rng_range(&r, 4, 12);
    g.along_x = render_rng_uniform(&r) < 0.5;
    double hx = s->bw / 2, hy = s->bh / 2;
    for (int j = 0; j < s->th; j++) {
        double wy = s->ty0 + (j + 0.5) / s->ppm;
        uint8_t *row = s->stat + (size_t)j * s->tw * 3;
        for (int i = 0; i < s->tw; i++) {
            double wx = s->tx0 + (i + 0.5) / s->ppm;
            double c[3];
            if (fabs(wx) <= hx && fabs(wy) <= hy) {
                wood_colour(s, &g, wx, wy, c);
                double cov = line_cover(s, wx, wy);
                for (int ch = 0; ch < 3; ch++) c[ch] = c[ch] * (1 - cov) + p->line_bgr[ch] * cov;
            } else {
                table_colour(s, &g, wx, wy, c);
                render_objects_paint(s, wx, wy, c);
            }
            row[i * 3 + 0] = u8(c[0]);
            row[i * 3 + 1] = u8(c[1]);
            row[i * 3 + 2] = u8(c[2]);
        }
    }
}
