/* vision/scan.c: the whole single-photo pipeline (grid, then points) and the
 * overlay drawing used by `goscribe scan --overlay`. */
#include "vision/vision.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

gs_status vision_scan(const gs_image *img, const vision_scan_options *opt, vision_scan_result *out, gs_error *err)
{
    if (!img || !img->buf || img->width <= 0 || img->height <= 0)
        return gs_error_set(err, GS_ERR_USAGE, "empty image");
    if (!out) return gs_error_set(err, GS_ERR_USAGE, "no output");
    memset(out, 0, sizeof *out);
    int hint = opt ? opt->size_hint : 0;
    double t0 = gs_now_ms();
    gs_status st;
    if (opt && opt->corners) {
        double c[4][2];
        memcpy(c, opt->corners, sizeof c);
        st = vision_grid_from_corners(&out->grid, hint ? hint : 19, (const double (*)[2])c, err);
    } else {
        st = vision_grid_find(img, hint, &out->grid, err);
    }
    double t1 = gs_now_ms();
    out->ms_grid = t1 - t0;
    if (st != GS_OK) return st;
    st = vision_read(img, &out->grid, &out->reading, err);
    out->ms_read = gs_now_ms() - t1;
    return st;
}

/* ------------------------------------------------------------------ drawing */

static void put(gs_image *img, int x, int y, const uint8_t bgr[3])
{
    if (x < 0 || y < 0 || x >= img->width || y >= img->height) return;
    uint8_t *p = img->buf + (size_t)y * img->stride + (size_t)x * img->channels;
    if (img->channels == 1) { p[0] = (uint8_t)((bgr[0] + 2 * bgr[1] + bgr[2]) / 4); return; }
    p[0] = bgr[0]; p[1] = bgr[1]; p[2] = bgr[2];
}

static void line(gs_image *img, double x0, double y0, double x1, double y1, int th, const uint8_t bgr[3])
{
    double len = hypot(x1 - x0, y1 - y0);
    int n = (int)len + 1;
    if (n > 100000) n = 100000;
    for (int i = 0; i <= n; i++) {
        double x = x0 + (x1 - x0) * i / n, y = y0 + (y1 - y0) * i / n;
        for (int dy = -th / 2; dy <= th / 2; dy++)
            for (int dx = -th / 2; dx <= th / 2; dx++) put(img, (int)lround(x) + dx, (int)lround(y) + dy, bgr);
    }
}

static void disc(gs_image *img, double cx, double cy, double r, double ring, const uint8_t fill[3], const uint8_t edge[3])
{
    int R = (int)ceil(r);
    for (int dy = -R; dy <= R; dy++)
        for (int dx = -R; dx <= R; dx++) {
            double d = hypot(dx, dy);
            if (d > r) continue;
            put(img, (int)lround(cx) + dx, (int)lround(cy) + dy, d > r - ring ? edge : fill);
        }
}

void vision_draw_overlay(gs_image *img, const vision_grid *g, const vision_reading *reading)
{
    if (!img || !img->buf || !g || g->size < 2 || g->size > GS_MAX_SIZE) return;
    static const uint8_t green[3] = {0, 220, 0}, black[3] = {20, 20, 20}, white[3] = {250, 250, 250},
                         red[3] = {0, 0, 255}, blue[3] = {255, 120, 0};
    int N = g->size;
    double x0, y0, x1, y1;
    vision_grid_map(g, 0, 0, &x0, &y0);
    vision_grid_map(g, N - 1, N - 1, &x1, &y1);
    double cell = hypot(x1 - x0, y1 - y0) / (N - 1) / 1.414;
    int th = cell > 40 ? 3 : cell > 20 ? 2 : 1;
    /* Lines as polylines through the mapping, so lens distortion shows. */
    for (int k = 0; k < N; k++)
        for (int s = 0; s < 4 * (N - 1); s++) {
            double a = s / 4.0, b = (s + 1) / 4.0;
            vision_grid_map(g, a, k, &x0, &y0);
            vision_grid_map(g, b, k, &x1, &y1);
            line(img, x0, y0, x1, y1, th, green);
            vision_grid_map(g, k, a, &x0, &y0);
            vision_grid_map(g, k, b, &x1, &y1);
            line(img, x0, y0, x1, y1, th, green);
        }
    double cx, cy;
    vision_grid_map(g, 0, 0, &cx, &cy);
    disc(img, cx, cy, cell * 0.25, 0, blue, blue); /* marks corner 0 (top-left point) */
    if (!reading || reading->pos.size != N) return;
    for (int v = 0; v < N; v++)
        for (int u = 0; u < N; u++) {
            vision_grid_map(g, u, v, &cx, &cy);
            int c = reading->pos.cell[v * N + u];
            float conf = reading->confidence[v * N + u];
            if (c == GS_BLACK) disc(img, cx, cy, cell * 0.22, cell * 0.06 + 1, black, white);
            else if (c == GS_WHITE) disc(img, cx, cy, cell * 0.22, cell * 0.06 + 1, white, black);
            if (conf < VISION_UNSURE) {
                double h = cell * 0.32;
                line(img, cx - h, cy - h, cx + h, cy - h, th, red);
                line(img, cx + h, cy - h, cx + h, cy + h, th, red);
                line(img, cx + h, cy + h, cx - h, cy + h, th, red);
                line(img, cx - h, cy + h, cx - h, cy - h, th, red);
            }
        }
}
