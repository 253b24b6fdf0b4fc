/* vision/view.c: the board seen from above, what the point model reads.
 *
 * A grid's lattice is sampled square: VISION_VIEW_CELL pixels a cell, each
 * lattice point at the centre of the model's VISION_VIEW_WINDOW pixel
 * window, so the model, run over the view as one convolution, answers at
 * every point at once (and between them).  The photo is first shrunk when
 * its cells are much larger than the view's (area averaging: bilinear
 * samples a cell of 100 pixels apart would step over the thin lines).
 * The view is sampled VISION_VIEW_HEIGHT above the board (the camera
 * fitted to the grid says where that is): in an oblique photo a stone's
 * body then sits on its point, as in a photo from above, rather than
 * towards the far side (at 30 degrees over the board, 0.4 cell).
 * The model's input is log2 of each channel over the wood's colour (both
 * raised by a noise floor): a
 * lamp's tint and the exposure scale all channels alike (von Kries), so
 * the wood reads 0 under any light, a black stone about -3, a white one
 * above 0; a channel the lamp leaves dark is filled from the others.
 * The training script dumps views with this
 * same code (train/board_dump.c), so what the model learned from and what
 * it reads are made alike. */
#include "vision/vision_internal.h"
#include "cvshim/cvshim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Cells larger than this many view cells are shrunk to VIEW_SHRINK_TO
 * first: the bilinear sample then sees every line (lines are 1-3 % of a
 * cell wide: at 24 photo pixels a cell for 12 view pixels, every line is
 * still crossed by a sample). */
#define VIEW_SHRINK_ABOVE 2.0
#define VIEW_SHRINK_TO 1.5
/* The input's range, log2 of a sample over the wood: a black stone is
 * about -3 (an eighth of the wood), a white stone under a lamp at most
 * about +1.6 (three times a dark wood); the clip keeps glare and a black
 * hole from dominating. */
#define VIEW_INPUT_LO -4.0f
#define VIEW_INPUT_HI 2.0f
/* Grey levels added to a sample and to the wood before the ratio: about a
 * camera's noise in a dim channel.  Under a lamp of one colour a channel
 * the lamp leaves nearly black (3 grey levels on the wood under a cyan
 * lamp) then says little, instead of its noise being multiplied up. */
#define VIEW_NOISE_FLOOR 8.0f
/* A channel whose wood is under VIEW_LIVE_HI grey levels is partly dead,
 * under VIEW_LIVE_LO wholly: it is given, in its measure, the mean of the
 * live channels (a lamp of one colour leaves one so: goban-watcher's wood
 * at 1-7 under the blue, cyan, green and pink lamps, 25 and more in every
 * channel under the others; what it shows is JPEG's colour blocks and
 * noise).  A model trained without goban-watcher read 78.8 % of its
 * points right without this, 89.0 % with it (vision/points.md).
 * VIEW_LIVE_EPS keeps a photo dark in every channel at their mean. */
#define VIEW_LIVE_LO 4.0f
#define VIEW_LIVE_HI 24.0f
#define VIEW_LIVE_EPS 1e-3f

/* The camera's side of the board is turned to the bottom of what the
 * model reads when the camera looks at the board at VIEW_TURN_TILT or more
 * from straight above.  An oblique photo shows each stone's top displaced
 * away from the camera and the lamp's shadows on one side, and the model
 * learned them with the camera below the board: of the 337 visible photos
 * and stone-boxes boards whose camera the grid tells, every one seen at 30
 * degrees or more (79) has its camera within 45 degrees of the bottom;
 * below 20 degrees the fitted camera's side is noise (near-frontal views:
 * 240 boards, every side alike), and from 20 to 30 degrees 12 of 18 have
 * it at the bottom, so those are left as they are.  A photo turned a half
 * or a quarter (a phone held sideways, a camera on a stand mounted turned)
 * is read as if upright. */
#define VIEW_TURN_TILT 30.0

/* The clockwise quarter turns (0-3) of the view of the nu x nv points from
 * (u0, v0) that bring the camera's foot on the board's plane below it. */
static int view_turn(const vision_cam *cam, int u0, int v0, int nu, int nv)
{
    if (!cam->ok) return 0;
    double uc = 0, vc = 0, h = 0;
    for (int i = 0; i < 3; i++) {
        uc -= cam->t[i] * cam->r1[i];
        vc -= cam->t[i] * cam->r2[i];
        h += cam->t[i] * cam->n[i];
    }
    double du = uc - (u0 + (nu - 1) / 2.0), dv = vc - (v0 + (nv - 1) / 2.0), d = hypot(du, dv);
    if (!(atan2(d, fabs(h)) * 180 / M_PI >= VIEW_TURN_TILT)) return 0;
    /* the view's x runs along u, its y along v (down): the camera is at
     * the bottom when it lies towards +v; a clockwise quarter turn moves a
     * direction 90 degrees on */
    double a = atan2(dv, du) * 180 / M_PI;
    int k = (int)lround((90 - a) / 90);
    return ((k % 4) + 4) % 4;
}

/* The board coordinate of view pixel X along an axis whose first lattice
 * point is `origin`: lattice point k is the centre of window k. */
static double view_at(int origin, int X)
{
    return origin + (X - (VISION_VIEW_WINDOW - 1) / 2.0) / VISION_VIEW_CELL;
}

/* The copy of img shrunk to w x h kept in *s, NULL when none is. */
static const gs_image *shrunk_find(const vision_shrunk *s, const gs_image *img, int w, int h)
{
    if (!s || s->of != img) return NULL;
    for (int i = 0; i < s->n; i++)
        if (s->w[i] == w && s->h[i] == h) return s->img[i];
    return NULL;
}

/* Keeps copy c of img in *s; false when it is not kept (no room, or *s
 * holds another photo's copies): the caller then owns it. */
static bool shrunk_keep(vision_shrunk *s, const gs_image *img, int w, int h, gs_image *c)
{
    if (!s || (s->n > 0 && s->of != img) || s->n >= VISION_SHRUNK_MAX) return false;
    s->of = img;
    s->w[s->n] = w;
    s->h[s->n] = h;
    s->img[s->n++] = c;
    return true;
}

void vision_shrunk_free(vision_shrunk *s)
{
    if (!s) return;
    for (int i = 0; i < s->n; i++) gs_image_destroy(s->img[i]);
    memset(s, 0, sizeof *s);
}

/* The photo the view samples: img itself, or a shrunk copy (from *shrunk,
 * else made: kept there, or *own set and the caller frees it) with the
 * factor from img's pixels to its pixels. */
static gs_status view_source(const gs_image *img, const vision_grid *g, vision_shrunk *shrunk, const gs_image **src,
                             gs_image **own, double *f, gs_error *err)
{
    double cell = vision_grid_cell(g);
    *own = NULL;
    *src = img;
    *f = 1;
    if (!(cell > VIEW_SHRINK_ABOVE * VISION_VIEW_CELL)) return GS_OK;
    double s = VIEW_SHRINK_TO * VISION_VIEW_CELL / cell;
    int w = (int)lround(img->width * s), h = (int)lround(img->height * s);
    if (w < 8 || h < 8) return GS_OK;
    *f = (double)w / img->width;
    if ((*src = shrunk_find(shrunk, img, w, h))) return GS_OK;
    gs_image *c = cvshim_image_resize(img, w, h);
    if (!c) return gs_error_set(err, GS_ERR_NOMEM, "out of memory (the board's view)");
    if (!shrunk_keep(shrunk, img, w, h, c)) *own = c;
    *src = c;
    return GS_OK;
}

/* Photo pixel (x, y) in src of the point VISION_VIEW_HEIGHT above board
 * point (u, v) (cam: the camera of g; not ok: on the board). */
static void view_map(const vision_grid *g, const vision_cam *cam, double f, double u, double v, double *x, double *y)
{
    double dx, dy;
    vision_grid_map(g, u, v, x, y);
    vision_cam_offset(cam, u, v, VISION_VIEW_HEIGHT, &dx, &dy);
    *x = (*x + dx + 0.5) * f - 0.5; /* pixel centres under the shrink */
    *y = (*y + dy + 0.5) * f - 0.5;
}

/* The colour there (see view_map); false outside src. */
static bool view_sample(const gs_image *src, const vision_grid *g, const vision_cam *cam, double f, double u, double v,
                        float o[3])
{
    double x, y;
    view_map(g, cam, f, u, v, &x, &y);
    return gs_sample_bgr(src, x, y, o);
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* The wood's colour: the median, channel by channel, of the centres of
 * the grid's cells on the board (between four points, where even a
 * crowded board shows wood), five samples each; the photo's median when
 * none is seen. */
static gs_status view_wood(const gs_image *src, const vision_grid *g, double f, float wood[3], gs_error *err)
{
    static const double at[5][2] = {{0, 0}, {-0.12, 0}, {0.12, 0}, {0, -0.12}, {0, 0.12}};
    const vision_cam flat = {.ok = 0}; /* on the board itself: above it, an oblique photo shows the stones there */
    int n = g->size - 1, cap = n * n * 5, got = 0;
    float *s = malloc(sizeof *s * 3 * (size_t)(cap > 0 ? cap : 1));
    if (!s) return gs_error_set(err, GS_ERR_NOMEM, "out of memory (the board's view)");
    for (int v = 0; v < n; v++)
        for (int u = 0; u < n; u++)
            for (int k = 0; k < 5; k++) {
                float o[3];
                if (!view_sample(src, g, &flat, f, u + 0.5 + at[k][0], v + 0.5 + at[k][1], o)) continue;
                for (int c = 0; c < 3; c++) s[c * cap + got] = o[c];
                got++;
            }
    for (int c = 0; c < 3; c++) {
        if (got) qsort(s + c * cap, (size_t)got, sizeof *s, cmp_float);
        wood[c] = got ? s[c * cap + got / 2] : 128.0f;
    }
    free(s);
    return GS_OK;
}

/* A point is in the photo when the square of VIEW_SEEN_HALF cell round it
 * is: a board's corner point at the photo's edge is still read, a point
 * beyond it is not. */
#define VIEW_SEEN_HALF 0.15
bool vision_point_in_photo(const gs_image *img, const vision_grid *g, double u, double v)
{
    for (int k = 0; k < 4; k++) {
        double x, y;
        vision_grid_map(g, u + (k & 1 ? VIEW_SEEN_HALF : -VIEW_SEEN_HALF), v + (k & 2 ? VIEW_SEEN_HALF : -VIEW_SEEN_HALF),
                        &x, &y);
        if (!(x >= 0 && y >= 0 && x <= img->width - 1 && y <= img->height - 1)) return false;
    }
    return true;
}

/* View pixels between two mapped exactly (a third of a cell); those
 * between are interpolated: the mapping, a homography with a lens's bend
 * and the camera's slant, is linear to far under a pixel over that, and
 * mapping every pixel was a sixth of a scan's time. */
#define VIEW_MAP_STEP 4

/* The photo pixels of every VIEW_MAP_STEP-th view pixel and one past the
 * last, in *m (nx * ny pairs, the caller frees). */
static gs_status view_nodes(const vision_view *vw, const vision_grid *g, const vision_cam *cam, double f, double **m,
                            int *nx, gs_error *err)
{
    *nx = (vw->width - 1) / VIEW_MAP_STEP + 2;
    int ny = (vw->height - 1) / VIEW_MAP_STEP + 2;
    if (!(*m = malloc(sizeof **m * 2 * (size_t)*nx * ny)))
        return gs_error_set(err, GS_ERR_NOMEM, "out of memory (the board's view)");
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < *nx; i++) {
            double *p = *m + 2 * ((size_t)j * *nx + i);
            view_map(g, cam, f, view_at(vw->u0, i * VIEW_MAP_STEP), view_at(vw->v0, j * VIEW_MAP_STEP), p, p + 1);
        }
    return GS_OK;
}

/* How live each channel is, by the wood's level (VIEW_LIVE_LO..HI). */
static void view_live(const float wood[3], float live[3])
{
    for (int c = 0; c < 3; c++) {
        float l = (wood[c] - VIEW_LIVE_LO) / (VIEW_LIVE_HI - VIEW_LIVE_LO);
        live[c] = l < 0 ? 0 : l > 1 ? 1 : l;
    }
}

/* The input at one pixel: log2 of each channel over the wood's, clipped,
 * a dead channel filled from the live ones. */
static void view_input(const float o[3], const float wood[3], const float live[3], float x[3])
{
    float sum = 0, wsum = 0;
    for (int c = 0; c < 3; c++) {
        float v = log2f((o[c] + VIEW_NOISE_FLOOR) / (wood[c] + VIEW_NOISE_FLOOR));
        x[c] = v < VIEW_INPUT_LO ? VIEW_INPUT_LO : v > VIEW_INPUT_HI ? VIEW_INPUT_HI : v;
        sum += (live[c] + VIEW_LIVE_EPS) * x[c];
        wsum += live[c] + VIEW_LIVE_EPS;
    }
    for (int c = 0; c < 3; c++) x[c] = live[c] * x[c] + (1 - live[c]) * (sum / wsum);
}

static gs_status view_fill(vision_view *vw, const gs_image *src, const vision_grid *g, const vision_cam *cam, double f,
                           gs_error *err)
{
    double *m;
    int nx;
    gs_status st = view_nodes(vw, g, cam, f, &m, &nx, err);
    if (st != GS_OK) return st;
    size_t plane = (size_t)vw->width * vw->height;
    float live[3];
    view_live(vw->wood, live);
    for (int Y = 0; Y < vw->height; Y++) {
        int j = Y / VIEW_MAP_STEP;
        double ty = (double)(Y % VIEW_MAP_STEP) / VIEW_MAP_STEP;
        for (int X = 0; X < vw->width; X++) {
            int i = X / VIEW_MAP_STEP;
            double tx = (double)(X % VIEW_MAP_STEP) / VIEW_MAP_STEP, xy[2];
            const double *a = m + 2 * ((size_t)j * nx + i), *b = a + 2 * (size_t)nx;
            for (int k = 0; k < 2; k++)
                xy[k] = (1 - ty) * ((1 - tx) * a[k] + tx * a[2 + k]) + ty * ((1 - tx) * b[k] + tx * b[2 + k]);
            float o[3];
            size_t at = (size_t)Y * vw->width + X;
            if (!gs_sample_bgr(src, xy[0], xy[1], o))
                for (int c = 0; c < 3; c++) o[c] = vw->wood[c]; /* off the photo: as the wood */
            float x[3];
            view_input(o, vw->wood, live, x);
            for (int c = 0; c < 3; c++) {
                vw->bgr[at * 3 + c] = (uint8_t)(o[c] + 0.5f);
                vw->input[c * plane + at] = x[c];
            }
        }
    }
    free(m);
    return GS_OK;
}

gs_status vision_view_make(const gs_image *img, const vision_grid *g, int u0, int v0, int nu, int nv, vision_view *out,
                           gs_error *err)
{
    return vision_view_make_with(img, g, u0, v0, nu, nv, NULL, out, err);
}

gs_status vision_view_make_with(const gs_image *img, const vision_grid *g, int u0, int v0, int nu, int nv,
                                vision_shrunk *shrunk, vision_view *out, gs_error *err)
{
    memset(out, 0, sizeof *out);
    if (!img || !img->buf || !g || nu < 1 || nv < 1 || nu > 4 * GS_MAX_SIZE || nv > 4 * GS_MAX_SIZE)
        return gs_error_set(err, GS_ERR_USAGE, "no view of that board");
    out->u0 = u0;
    out->v0 = v0;
    out->nu = nu;
    out->nv = nv;
    out->width = (nu - 1) * VISION_VIEW_CELL + VISION_VIEW_WINDOW;
    out->height = (nv - 1) * VISION_VIEW_CELL + VISION_VIEW_WINDOW;
    size_t plane = (size_t)out->width * out->height;
    out->bgr = malloc(plane * 3);
    out->input = malloc(sizeof *out->input * plane * 3);
    out->inside = malloc((size_t)nu * nv);
    if (!out->bgr || !out->input || !out->inside) {
        vision_view_free(out);
        return gs_error_set(err, GS_ERR_NOMEM, "out of memory (the board's view)");
    }
    const gs_image *src;
    gs_image *own;
    double f;
    vision_cam cam;
    vision_cam_fit(&cam, g->H, img->width, img->height);
    out->turn = view_turn(&cam, u0, v0, nu, nv);
    gs_status st = view_source(img, g, shrunk, &src, &own, &f, err);
    if (st == GS_OK) st = view_wood(src, g, f, out->wood, err);
    if (st == GS_OK) st = view_fill(out, src, g, &cam, f, err);
    if (st == GS_OK) {
        for (int j = 0; j < nv; j++)
            for (int i = 0; i < nu; i++) out->inside[j * nu + i] = vision_point_in_photo(img, g, u0 + i, v0 + j);
    }
    gs_image_destroy(own);
    if (st != GS_OK) vision_view_free(out);
    return st;
}

void vision_view_free(vision_view *vw)
{
    if (!vw) return;
    free(vw->bgr);
    free(vw->input);
    free(vw->inside);
    vw->bgr = NULL;
    vw->input = NULL;
    vw->inside = NULL;
}
