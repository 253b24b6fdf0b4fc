/* train/board_dump.c: the point model's training views, made by the code
 * that makes them for the model at run time (vision_view_make), so what
 * the model learns from and what it reads are alike.
 *
 * Reads jobs from stdin, one a line:
 *   PHOTO GRID.cal OUT.png U0 V0 NU NV [DU DV]
 * the grid of the calibration file (moved DU, DV cells when given: a
 * lattice off the board's, for negatives), the view of lattice points
 * U0..U0+NU-1 x V0..V0+NV-1 written to OUT.png (its samples as they are),
 * and prints one JSON line a job:
 *   {"out": "OUT.png", "wood": [b, g, r], "inside": "0110..."}
 * or {"out": "OUT.png", "error": "..."}.  A development tool of
 * scripts/train-points.sh, not a command of goscribe. */
#include "calib/calib.h"
#include "cvshim/cvshim.h"
#include "vision/vision.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_error(const char *out, const char *msg)
{
    printf("{\"out\": ");
    gs_json_write_string(stdout, out);
    printf(", \"error\": ");
    gs_json_write_string(stdout, msg);
    printf("}\n");
}

static gs_status write_view(const vision_view *vw, const char *out, gs_error *err)
{
    gs_image im = {.width = vw->width, .height = vw->height, .stride = vw->width * 3, .channels = 3, .buf = vw->bgr};
    return gs_image_write_png(&im, out, err);
}

static void print_view(const vision_view *vw, const char *out)
{
    printf("{\"out\": ");
    gs_json_write_string(stdout, out);
    printf(", \"wood\": [%.3f, %.3f, %.3f], \"inside\": \"", vw->wood[0], vw->wood[1], vw->wood[2]);
    for (int i = 0; i < vw->nu * vw->nv; i++) putchar(vw->inside[i] ? '1' : '0');
    printf("\"}\n");
}

static void run_job(const char *line)
{
    char photo[1024], cal[1024], out[1024];
    int u0, v0, nu, nv;
    double du = 0, dv = 0;
    int n = sscanf(line, "%1023s %1023s %1023s %d %d %d %d %lf %lf", photo, cal, out, &u0, &v0, &nu, &nv, &du, &dv);
    if (n != 7 && n != 9) { print_error(n >= 3 ? out : "", "expected PHOTO GRID.cal OUT.png U0 V0 NU NV [DU DV]"); return; }
    gs_error err = {0};
    calib_data c;
    if (calib_load(&c, cal, &err) != GS_OK) { print_error(out, err.msg); return; }
    /* the stored pixels: the frame of grids.tsv and of the truth grids */
    cvshim_decode how = {.stored = 1};
    gs_image *img = cvshim_image_load_as(photo, &how, NULL, &err);
    if (!img) { print_error(out, err.msg); return; }
    if (c.image_width > 0 && calib_scale_to(&c, img->width, img->height, &err) != GS_OK) {
        print_error(out, err.msg);
        gs_image_destroy(img);
        return;
    }
    vision_grid g = c.grid;
    if (du != 0 || dv != 0) {
        /* the same mapping, moved on the board: H (u + du, v + dv) */
        double T[9] = {1, 0, du, 0, 1, dv, 0, 0, 1}, M[9];
        for (int r = 0; r < 3; r++)
            for (int k = 0; k < 3; k++)
                M[r * 3 + k] = g.H[r * 3] * T[k] + g.H[r * 3 + 1] * T[3 + k] + g.H[r * 3 + 2] * T[6 + k];
        memcpy(g.H, M, sizeof M);
    }
    vision_view vw;
    if (vision_view_make(img, &g, u0, v0, nu, nv, &vw, &err) != GS_OK) print_error(out, err.msg);
    else if (write_view(&vw, out, &err) != GS_OK) print_error(out, err.msg);
    else print_view(&vw, out);
    vision_view_free(&vw);
    gs_image_destroy(img);
}

int main(void)
{
    char line[4096];
    while (fgets(line, sizeof line, stdin)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        run_job(line);
        fflush(stdout);
    }
    return 0;
}
