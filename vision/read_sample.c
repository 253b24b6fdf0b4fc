/* vision/read_sample.c: what the reader's stages sample alike: the grid's
 * local map at a point, the median colour of a small disc there, and a
 * colour's chromaticity (against the wood's hue). */
#include "vision/vision_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Local affine map of the grid at (u,v): d(x,y)/d(u,v). */
void vision_grid_jacobian(const vision_grid *g, double u, double v, double J[4])
{
    double x0, y0, x1, y1, x2, y2, x3, y3;
    vision_grid_map(g, u - 0.5, v, &x0, &y0);
    vision_grid_map(g, u + 0.5, v, &x1, &y1);
    vision_grid_map(g, u, v - 0.5, &x2, &y2);
    vision_grid_map(g, u, v + 0.5, &x3, &y3);
    J[0] = x1 - x0; J[1] = x3 - x2;
    J[2] = y1 - y0; J[3] = y3 - y2;
}

/* Median colour of a small disc (radius rad cells) round image point
 * (cx, cy), where the grid's local map is J; returns the number of pixels
 * seen (0 when outside the image). */
int vision_patch_median_at(const gs_image *img, double cx, double cy, const double J[4], double rad, double out[3])
{
    double cell = sqrt(fabs(J[0] * J[3] - J[1] * J[2]));
    int n = (int)(cell * rad * 2 / 1.5) + 1; /* ~1.5 px steps */
    if (n < 3) n = 3;
    if (n > 9) n = 9;
    int hb[256] = {0}, hg[256] = {0}, hr[256] = {0};
    int cnt = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double a = rad * (2.0 * i / (n - 1) - 1), b = rad * (2.0 * j / (n - 1) - 1);
            if (a * a + b * b > rad * rad * 1.0001) continue;
            gs_pix p;
            if (!gs_pixel_nearest(img, cx + J[0] * a + J[1] * b, cy + J[2] * a + J[3] * b, &p)) continue;
            hb[p.b]++; hg[p.g]++; hr[p.r]++;
            cnt++;
        }
    if (!cnt) return 0;
    int *hs[3] = {hb, hg, hr};
    for (int c = 0; c < 3; c++) {
        int acc = 0, k = 0;
        while (k < 255 && (acc += hs[c][k]) * 2 < cnt) k++;
        out[c] = k;
    }
    return cnt;
}

/* The same round board point (u, v). */
int vision_patch_median(const gs_image *img, const vision_grid *g, double u, double v, double rad, double out[3])
{
    double cx, cy, J[4];
    vision_grid_map(g, u, v, &cx, &cy);
    vision_grid_jacobian(g, u, v, J);
    return vision_patch_median_at(img, cx, cy, J, rad, out);
}

/* Chromaticity of a colour: (R-G, G-B) over its brightness. */
void vision_chroma(double b, double g, double r, double out[2])
{
    double y = gs_luma(b, g, r);
    if (y < 1) y = 1;
    out[0] = (r - g) / y;
    out[1] = (g - b) / y;
}

/* The wood's chromaticity (into cw) and its squared size, floored (on a
 * grey board hue says little): a colour's wood hue is its chromaticity
 * projected on cw over that. */
double vision_wood_hue_ref(const double wc[3], double cw[2])
{
    vision_chroma(wc[0], wc[1], wc[2], cw);
    double cw2 = cw[0] * cw[0] + cw[1] * cw[1];
    return cw2 < 0.0025 ? 0.0025 : cw2;
}
