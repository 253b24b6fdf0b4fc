/* vision/draw.c: the grid and the reading drawn onto a photo (the overlay
 * of `goscribe scan --overlay`, the live frame, the calibration check). */
#include "vision/vision.h"

#include <math.h>

/* Rounded, not truncated: the dot sits on the pixel nearest the line. */
static void grid_dot(gs_image *img, double x, double y, int half, gs_bgr c)
{
    gs_draw_square(img, trunc(x + 0.5), trunc(y + 0.5), half, c, 1.0);
}

void vision_grid_draw(gs_image *img, const vision_grid *g, int per_cell, int half, gs_bgr c)
{
    if (!img || !g || g->size < 2 || g->size > GS_MAX_SIZE || per_cell < 1 || per_cell > 4096) return;
    int steps = (g->size - 1) * per_cell;
    for (int line = 0; line < g->size; line++)
        for (int i = 0; i <= steps; i++) {
            double t = (double)(g->size - 1) * i / steps, x, y;
            vision_grid_map(g, line, t, &x, &y);
            grid_dot(img, x, y, half, c);
            vision_grid_map(g, t, line, &x, &y);
            grid_dot(img, x, y, half, c);
        }
}

/* A stone as the overlay shows it: its colour inside, the other colour's
 * ring, so both read on any board. */
static void stone_mark(gs_image *img, double cx, double cy, double cell, gs_bgr fill, gs_bgr edge)
{
    double r = cell * 0.22, ring = cell * 0.06 + 1;
    gs_draw_disc(img, cx, cy, r, edge, 1.0);
    gs_draw_disc(img, cx, cy, r - ring, fill, 1.0);
}

void vision_draw_overlay(gs_image *img, const vision_grid *g, const vision_reading *reading)
{
    if (!img || !img->buf || !g || g->size < 2 || g->size > GS_MAX_SIZE) return;
    const gs_bgr green = {0, 220, 0}, black = {20, 20, 20}, white = {250, 250, 250}, red = {0, 0, 255},
                 blue = {255, 120, 0};
    int N = g->size;
    double x0, y0, x1, y1;
    vision_grid_map(g, 0, 0, &x0, &y0);
    vision_grid_map(g, N - 1, N - 1, &x1, &y1);
    double cell = hypot(x1 - x0, y1 - y0) / (N - 1) / 1.414;
    int th = cell > 40 ? 3 : cell > 20 ? 2 : 1;
    /* dense enough that the dots join into lines at any cell size */
    vision_grid_draw(img, g, cell < 8 ? 8 : cell > 400 ? 400 : (int)cell, th / 2, green);
    gs_draw_disc(img, x0, y0, cell * 0.25, blue, 1.0); /* marks corner 0 (top-left point) */
    if (!reading || reading->pos.size != N) return;
    for (int v = 0; v < N; v++)
        for (int u = 0; u < N; u++) {
            double cx, cy;
            vision_grid_map(g, u, v, &cx, &cy);
            int c = reading->pos.cell[v * N + u];
            if (c == GS_BLACK) stone_mark(img, cx, cy, cell, black, white);
            else if (c == GS_WHITE) stone_mark(img, cx, cy, cell, white, black);
            if (reading->unsure[v * N + u]) gs_draw_box(img, cx, cy, cell * 0.32, th, red);
        }
}
