/* core/draw.c: the one drawing set (overlays of scan, count, calibrate and
 * the live frame).  Plain software drawing on gs_image, clipped, no state. */
#include "core/gs.h"

#include <math.h>

void gs_draw_pixel(gs_image *img, int x, int y, gs_bgr c, double alpha)
{
    if (!img || !img->buf || x < 0 || y < 0 || x >= img->width || y >= img->height) return;
    uint8_t *p = img->buf + (size_t)y * (size_t)img->stride + (size_t)x * (size_t)img->channels;
    if (img->channels < 3) {
        int grey = (c.b + c.g + c.r) / 3;
        p[0] = (uint8_t)lround(p[0] * (1 - alpha) + grey * alpha);
        return;
    }
    p[0] = (uint8_t)lround(p[0] * (1 - alpha) + c.b * alpha);
    p[1] = (uint8_t)lround(p[1] * (1 - alpha) + c.g * alpha);
    p[2] = (uint8_t)lround(p[2] * (1 - alpha) + c.r * alpha);
}

/* Coordinates far outside any image (a wild grid) are not worth a loop:
 * everything drawn is bounded by this many pixels from the image. */
static bool far_out(const gs_image *img, double x, double y, double r)
{
    double m = 4.0 * (img->width + img->height);
    return !(x > -m - r && y > -m - r && x < m + r && y < m + r);
}

void gs_draw_square(gs_image *img, double cx, double cy, double half, gs_bgr c, double alpha)
{
    if (!img || far_out(img, cx, cy, half) || !(half >= 0 && half < 4096)) return;
    for (int y = (int)floor(cy - half); y <= (int)ceil(cy + half); y++)
        for (int x = (int)floor(cx - half); x <= (int)ceil(cx + half); x++) gs_draw_pixel(img, x, y, c, alpha);
}

void gs_draw_line(gs_image *img, double x0, double y0, double x1, double y1, double thick, gs_bgr c)
{
    if (!img || far_out(img, x0, y0, 0) || far_out(img, x1, y1, 0)) return;
    double len = hypot(x1 - x0, y1 - y0);
    int steps = (int)ceil(len) + 1;
    for (int s = 0; s <= steps; s++) {
        double t = (double)s / steps;
        gs_draw_square(img, x0 + (x1 - x0) * t, y0 + (y1 - y0) * t, thick / 2, c, 1.0);
    }
}

void gs_draw_disc(gs_image *img, double cx, double cy, double r, gs_bgr c, double alpha)
{
    if (!img || far_out(img, cx, cy, r) || !(r >= 0 && r < 4096)) return;
    int R = (int)ceil(r), X = (int)lround(cx), Y = (int)lround(cy);
    for (int dy = -R; dy <= R; dy++)
        for (int dx = -R; dx <= R; dx++)
            if (hypot(dx, dy) <= r) gs_draw_pixel(img, X + dx, Y + dy, c, alpha);
}

void gs_draw_ring(gs_image *img, double cx, double cy, double r, double thick, gs_bgr c)
{
    if (!img || far_out(img, cx, cy, r) || !(r >= 0 && r < 4096)) return;
    int steps = (int)ceil(2 * M_PI * r) + 8;
    for (int s = 0; s < steps; s++) {
        double a = 2 * M_PI * s / steps;
        gs_draw_square(img, cx + r * cos(a), cy + r * sin(a), thick / 2, c, 1.0);
    }
}

void gs_draw_box(gs_image *img, double cx, double cy, double half, double thick, gs_bgr c)
{
    gs_draw_line(img, cx - half, cy - half, cx + half, cy - half, thick, c);
    gs_draw_line(img, cx + half, cy - half, cx + half, cy + half, thick, c);
    gs_draw_line(img, cx + half, cy + half, cx - half, cy + half, thick, c);
    gs_draw_line(img, cx - half, cy + half, cx - half, cy - half, thick, c);
}
