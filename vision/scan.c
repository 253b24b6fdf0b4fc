/* vision/scan.c: the whole single-photo pipeline (grid, then points). */
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
