/* samples/params.c: the look of a scene drawn from a seed (render_params)
 * and changed by a caller (render_look), the renderer's random numbers, and
 * an empty table (render_state). */
#include "samples/render_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    /* (presets named here always exist: the result needs no check) */
    if (render_rng_uniform(&r) < 0.5) (void)render_params_cells(p, "jp");
    else if (render_rng_uniform(&r) < 0.5) (void)render_params_cells(p, "cn");
    else (void)render_params_cells(p, "sq");
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

/* ------------------------------------------------------------------ look */

/* A number in lo..hi with nothing after it (as the command line reads numbers). */
static bool parse_number(const char *s, double lo, double hi, double *out)
{
    if (!s || !*s) return false;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v) || v < lo || v > hi) return false;
    *out = v;
    return true;
}

static bool parse_bgr(const char *s, double out[3])
{
    double b, g, r;
    char tail;
    if (sscanf(s, "%lf,%lf,%lf%c", &b, &g, &r, &tail) != 3) return false;
    if (b < 0 || b > 255 || g < 0 || g > 255 || r < 0 || r > 255) return false;
    out[0] = b;
    out[1] = g;
    out[2] = r;
    return true;
}

/* The numeric fields, in render_look_field order (NULL: set below). */
static void look_numbers(render_params *p, const render_look *look)
{
    double *fields[RENDER_LOOK_COUNT_] = {
        &p->tilt_deg, &p->rotation_deg, &p->roll_deg, &p->fov_deg, &p->fill, &p->distance_mm,
        &p->k1, &p->bump_deg, &p->line_mm, &p->margin_mm, &p->thickness_mm, &p->grain,
        &p->stone_h_mm, &p->jitter_mm, &p->kelvin, &p->brightness, &p->gradient, &p->glare,
        &p->flicker, &p->slow_amp, &p->noise, NULL, &p->motion_blur, NULL,
        &p->drift_deg_min, &p->drift_dir_deg};
    for (int k = 0; k < RENDER_LOOK_COUNT_; k++) {
        if (!look->set[k]) continue;
        if (fields[k]) *fields[k] = look->val[k];
        else if (k == RENDER_LOOK_BLUR) p->blur = look->val[k] >= 0.5;
        else if (k == RENDER_LOOK_JPEG) p->jpeg_quality = (int)look->val[k];
    }
}

gs_status render_look_apply(render_params *p, const render_look *look, gs_error *err)
{
    look_numbers(p, look);
    if (look->cells && !render_params_cells(p, look->cells))
        return gs_error_set(err, GS_ERR_USAGE, "render: --cells must be jp, cn or sq");
    if (look->cell) {
        double cw, ch;
        char tail;
        if (sscanf(look->cell, "%lfx%lf%c", &cw, &ch, &tail) != 2 || cw < 10 || cw > 60 || ch < 10 || ch > 60)
            return gs_error_set(err, GS_ERR_USAGE, "render: --cell needs WxH in mm, each 10..60");
        p->cell_w_mm = cw;
        p->cell_h_mm = ch;
    }
    if (look->bump) {
        double b;
        if (!strcmp(look->bump, "none")) p->bump_ms = -1;
        else if (parse_number(look->bump, 0, 1e9, &b)) p->bump_ms = b;
        else return gs_error_set(err, GS_ERR_USAGE, "render: --bump needs a time in ms or 'none'");
    }
    if (look->wood && !parse_bgr(look->wood, p->wood_bgr))
        return gs_error_set(err, GS_ERR_USAGE, "render: --wood needs B,G,R each 0..255");
    if (look->no_stars) p->star_points = 0;
    return GS_OK;
}

void render_state_init(render_state *st, int size)
{
    memset(st, 0, sizeof *st);
    gs_position_clear(&st->pos, size);
    st->hand.present = false;
    st->hand.side = GS_BLACK;
}
