/* train/board_dump.c: the point model's training views, made by the code
 * that makes them for the model at run time (vision_view_make), so what
 * the model learns from and what it reads are alike.
 *
 * Reads jobs from stdin, one a line:
 *   PHOTO OUT.png U0 V0 NU NV DU DV H0 .. H8 K1 CX CY NORM
 * the grid of homography H (board (u, v, 1) -> the photo's stored pixels)
 * and lens model K1 CX CY NORM (vision_grid_map), moved DU, DV cells on
 * the board (a lattice off the board's, for negatives); the view of
 * lattice points U0..U0+NU-1 x V0..V0+NV-1 written to OUT.png (its samples
 * as they are),
 * and prints one JSON line a job:
 *   {"out": "OUT.png", "wood": [b, g, r], "inside": "0110..."}
 * or {"out": "OUT.png", "error": "..."}.  A development tool of
 * scripts/train-points.sh, not a command of goscribe. */
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

/* The grid of a job's numbers: the homography board (u, v, 1) -> photo
 * pixels, then the lens model (vision_grid_map), moved (du, dv) cells on
 * the board (H T(du, dv)). */
static void job_grid(const double h[9], const double lens[4], double du, double dv, vision_grid *g)
{
    memset(g, 0, sizeof *g);
    g->size = 19;
    const double T[9] = {1, 0, du, 0, 1, dv, 0, 0, 1};
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < 3; k++) g->H[r * 3 + k] = h[r * 3] * T[k] + h[r * 3 + 1] * T[3 + k] + h[r * 3 + 2] * T[6 + k];
    g->k1 = lens[0];
    g->cx = lens[1];
    g->cy = lens[2];
    g->norm = lens[3];
    g->cell_aspect = 1;
    g->confidence = 1;
    const double bc[4][2] = {{0, 0}, {18, 0}, {18, 18}, {0, 18}};
    for (int i = 0; i < 4; i++) vision_grid_map(g, bc[i][0], bc[i][1], &g->corners[i][0], &g->corners[i][1]);
}

static void run_job(const char *line)
{
    char photo[1024], out[1024];
    int u0, v0, nu, nv;
    double du, dv, h[9], lens[4];
    int n = sscanf(line, "%1023s %1023s %d %d %d %d %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf", photo,
                   out, &u0, &v0, &nu, &nv, &du, &dv, &h[0], &h[1], &h[2], &h[3], &h[4], &h[5], &h[6], &h[7], &h[8],
                   &lens[0], &lens[1], &lens[2], &lens[3]);
    if (n != 21) {
        print_error(n >= 2 ? out : "", "expected PHOTO OUT.png U0 V0 NU NV DU DV H0..H8 K1 CX CY NORM");
        return;
    }
    gs_error err = {0};
    /* the stored pixels: the frame of grids.tsv and of the truth grids */
    cvshim_decode how = {.stored = 1};
    gs_image *img = cvshim_image_load_as(photo, &how, NULL, &err);
    if (!img) { print_error(out, err.msg); return; }
    vision_grid g;
    job_grid(h, lens, du, dv, &g);
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
