/* vision/draw.c: the grid and the reading drawn onto a photo (the overlay
 * of `goscribe scan --overlay`, the live frame, the calibration check). */
#include "vision/vision.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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

void vision_draw_stone(gs_image *img, double cx, double cy, double cell, gs_color c)
{
    const gs_bgr dark = {20, 20, 20}, light = {250, 250, 250};
    double r = cell * 0.36, ring = cell * 0.07 + 1;
    gs_draw_disc(img, cx, cy, r, c == GS_BLACK ? light : dark, 1.0);
    gs_draw_disc(img, cx, cy, r - ring, c == GS_BLACK ? dark : light, 1.0);
}

/* One label centred on (x, y) on a light patch, so it reads on any wood. */
static void coord_label(gs_image *img, double x, double y, int s, const char *t)
{
    const gs_bgr paper = {235, 235, 235}, ink = {20, 20, 20};
    double w = (double)strlen(t) * 6 * s - s, h = 7 * s;
    for (int py = (int)(y - h / 2 - s); py <= (int)(y + h / 2 + s); py++)
        for (int px = (int)(x - w / 2 - s); px <= (int)(x + w / 2 + s); px++) gs_draw_pixel(img, px, py, paper, 0.8);
    gs_draw_text(img, x - w / 2, y - h / 2, s, t, ink);
}

void vision_draw_coords(gs_image *img, const vision_grid *g, double cell)
{
    static const char letters[] = "ABCDEFGHJKLMNOPQRSTUVWXYZ";
    if (!img || !g || g->size < 2 || g->size > GS_MAX_SIZE) return;
    int N = g->size, s = cell >= 60 ? 3 : cell >= 30 ? 2 : 1;
    double out = 0.85; /* cells outside the outer line: beyond a stone there */
    for (int k = 0; k < N; k++) {
        char col[2] = {letters[k], 0}, row[12];
        snprintf(row, sizeof row, "%d", N - k); /* row 1 at the bottom, as GTP and --dead */
        double x, y;
        vision_grid_map(g, k, -out, &x, &y);
        coord_label(img, x, y, s, col);
        vision_grid_map(g, k, N - 1 + out, &x, &y);
        coord_label(img, x, y, s, col);
        vision_grid_map(g, -out, k, &x, &y);
        coord_label(img, x, y, s, row);
        vision_grid_map(g, N - 1 + out, k, &x, &y);
        coord_label(img, x, y, s, row);
    }
}

double vision_grid_cell(const vision_grid *g)
{
    double x0, y0, x1, y1;
    vision_grid_map(g, 0, 0, &x0, &y0);
    vision_grid_map(g, g->size - 1, g->size - 1, &x1, &y1);
    return hypot(x1 - x0, y1 - y0) / (g->size - 1) / 1.414;
}

void vision_draw_overlay(gs_image *img, const vision_grid *g, const vision_reading *reading)
{
    if (!img || !img->buf || !g || g->size < 2 || g->size > GS_MAX_SIZE) return;
    const gs_bgr green = {0, 220, 0}, red = {0, 0, 255};
    int N = g->size;
    double cell = vision_grid_cell(g);
    int th = cell > 40 ? 3 : cell > 20 ? 2 : 1;
    /* dense enough that the dots join into lines at any cell size */
    vision_grid_draw(img, g, cell < 8 ? 8 : cell > 400 ? 400 : (int)cell, th / 2, green);
    vision_draw_coords(img, g, cell);
    if (!reading || reading->pos.size != N) return;
    for (int v = 0; v < N; v++)
        for (int u = 0; u < N; u++) {
            double cx, cy;
            vision_grid_map(g, u, v, &cx, &cy);
            int c = reading->pos.cell[v * N + u];
            if (c == GS_BLACK || c == GS_WHITE) vision_draw_stone(img, cx, cy, cell, (gs_color)c);
            if (reading->unsure[v * N + u]) gs_draw_box(img, cx, cy, cell * 0.45, th, red);
        }
}
