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

/* A 5x7 font: rows top to bottom, bit 4 the left column.  Upper-case
 * letters, digits and a little punctuation: enough for legends. */
static const struct { char c; uint8_t rows[7]; } font5x7[] = {
    {'A', {14, 17, 17, 31, 17, 17, 17}}, {'B', {30, 17, 17, 30, 17, 17, 30}}, {'C', {14, 17, 16, 16, 16, 17, 14}},
    {'D', {30, 17, 17, 17, 17, 17, 30}}, {'E', {31, 16, 16, 30, 16, 16, 31}}, {'F', {31, 16, 16, 30, 16, 16, 16}},
    {'G', {14, 17, 16, 23, 17, 17, 15}}, {'H', {17, 17, 17, 31, 17, 17, 17}}, {'I', {14, 4, 4, 4, 4, 4, 14}},
    {'J', {7, 2, 2, 2, 2, 18, 12}},      {'K', {17, 18, 20, 24, 20, 18, 17}}, {'L', {16, 16, 16, 16, 16, 16, 31}},
    {'M', {17, 27, 21, 21, 17, 17, 17}}, {'N', {17, 17, 25, 21, 19, 17, 17}}, {'O', {14, 17, 17, 17, 17, 17, 14}},
    {'P', {30, 17, 17, 30, 16, 16, 16}}, {'Q', {14, 17, 17, 17, 21, 18, 13}}, {'R', {30, 17, 17, 30, 20, 18, 17}},
    {'S', {15, 16, 16, 14, 1, 1, 30}},   {'T', {31, 4, 4, 4, 4, 4, 4}},       {'U', {17, 17, 17, 17, 17, 17, 14}},
    {'V', {17, 17, 17, 17, 17, 10, 4}},  {'W', {17, 17, 17, 21, 21, 21, 10}}, {'X', {17, 17, 10, 4, 10, 17, 17}},
    {'Y', {17, 17, 10, 4, 4, 4, 4}},     {'Z', {31, 1, 2, 4, 8, 16, 31}},     {'0', {14, 17, 19, 21, 25, 17, 14}},
    {'1', {4, 12, 4, 4, 4, 4, 14}},      {'2', {14, 17, 1, 2, 4, 8, 31}},     {'3', {31, 2, 4, 2, 1, 17, 14}},
    {'4', {2, 6, 10, 18, 31, 2, 2}},     {'5', {31, 16, 30, 1, 1, 17, 14}},   {'6', {6, 8, 16, 30, 17, 17, 14}},
    {'7', {31, 1, 2, 4, 8, 8, 8}},       {'8', {14, 17, 17, 14, 17, 17, 14}}, {'9', {14, 17, 17, 15, 1, 2, 12}},
    {':', {0, 12, 12, 0, 12, 12, 0}},    {'.', {0, 0, 0, 0, 0, 12, 12}},      {',', {0, 0, 0, 0, 12, 4, 8}},
    {'-', {0, 0, 0, 31, 0, 0, 0}},       {'/', {1, 1, 2, 4, 8, 16, 16}},      {'(', {2, 4, 8, 8, 8, 4, 2}},
    {')', {8, 4, 2, 2, 2, 4, 8}},        {'+', {0, 4, 4, 31, 4, 4, 0}},
};

double gs_draw_text(gs_image *img, double x, double y, int scale, const char *text, gs_bgr c)
{
    if (scale < 1) scale = 1;
    for (const char *p = text; p && *p; p++) {
        char ch = *p >= 'a' && *p <= 'z' ? (char)(*p - 'a' + 'A') : *p;
        for (size_t g = 0; g < sizeof font5x7 / sizeof font5x7[0]; g++) {
            if (font5x7[g].c != ch) continue;
            for (int row = 0; row < 7; row++)
                for (int col = 0; col < 5; col++)
                    if (font5x7[g].rows[row] & (16 >> col))
                        for (int dy = 0; dy < scale; dy++)
                            for (int dx = 0; dx < scale; dx++)
                                gs_draw_pixel(img, (int)x + col * scale + dx, (int)y + row * scale + dy, c, 1.0);
            break;
        }
        x += 6 * scale; /* unknown characters (a space) leave a gap */
    }
    return x;
}
