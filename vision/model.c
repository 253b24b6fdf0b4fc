/* vision/model.c: the point model (vision/points.onnx, trained by
 * scripts/train-points.sh; its card: vision/points.md): a view of a
 * lattice in (vision/view.c), at every window of it the probabilities of
 * four classes out: an empty intersection, a black stone, a white stone,
 * or no intersection at all (between the lines, past the board's edge, a
 * photo that is no board).  Its convolutions take no padding, so one run
 * over a view answers at every 4 view pixels: at each lattice point and at
 * the thirds of a cell between them.  The probabilities are calibrated
 * (a temperature fitted to readings of photo sources the model was
 * trained without), so 0.9 means right about nine times in ten. */
#include "vision/vision_internal.h"
#include "cvshim/cvshim.h"

#include <stdlib.h>
#include <string.h>

/* the model's bytes, generated from vision/points.onnx by the build */
extern const unsigned char vision_points_onnx[];
extern const size_t vision_points_onnx_len;

cvshim_net *vision_model_load(gs_error *err)
{
    return cvshim_net_load(vision_points_onnx, vision_points_onnx_len, err);
}

/* A model file is a few hundred KB; 64 MB bounds a wrong path's read. */
#define MODEL_FILE_MAX (64u << 20)

cvshim_net *vision_model_load_file(const char *path, gs_error *err)
{
    char *buf = NULL;
    size_t len = 0;
    gs_error e = {0};
    if (gs_file_read(path, MODEL_FILE_MAX, &buf, &len, &e) != GS_OK) {
        gs_error_set(err, e.status, "%s: %s", path, e.msg);
        return NULL;
    }
    cvshim_net *n = cvshim_net_load((const uint8_t *)buf, len, &e);
    free(buf);
    if (!n) gs_error_set(err, e.status, "%s: %s", path, e.msg);
    return n;
}

/* Planes of w x h turned k quarter turns clockwise into dst (h x w when
 * k is odd): dst's pixel (x, y) is src's pixel turned there. */
static void turn_planes(const float *src, int planes, int w, int h, int k, float *dst)
{
    int dw = k & 1 ? h : w, dh = k & 1 ? w : h;
    size_t plane = (size_t)w * h;
    for (int c = 0; c < planes; c++)
        for (int y = 0; y < dh; y++)
            for (int x = 0; x < dw; x++) {
                int sx = k == 0 ? x : k == 1 ? y : k == 2 ? w - 1 - x : w - 1 - y;
                int sy = k == 0 ? y : k == 1 ? h - 1 - x : k == 2 ? h - 1 - y : x;
                dst[c * plane + (size_t)y * dw + x] = src[c * plane + (size_t)sy * w + sx];
            }
}

/* Planes of w x h mirrored left to right into dst. */
static void mirror_planes(const float *src, int planes, int w, int h, float *dst)
{
    for (size_t r = 0; r < (size_t)planes * h; r++)
        for (int x = 0; x < w; x++) dst[r * w + x] = src[r * w + (w - 1 - x)];
}

/* The net over 3 planes of w x h; with mirrored, the mean of its answer
 * and of its answer over their mirror image, mirrored back.  The mirror
 * keeps the camera's side at the bottom, and the view's lattice is
 * symmetric ((n - 1) * CELL + WINDOW wide), so window x of the one is
 * window (cols - 1 - x) of the other. */
static gs_status run_net(cvshim_net *net, const float *in, int w, int h, int mirrored, float **p, int *oc, int *oh,
                         int *ow, gs_error *err)
{
    gs_status st = cvshim_net_run(net, in, 3, h, w, p, oc, oh, ow, err);
    if (st != GS_OK || !mirrored) return st;
    float *m = malloc(sizeof *m * 3 * (size_t)w * h), *q = NULL;
    int qc = 0, qh = 0, qw = 0;
    if (!m) st = gs_error_set(err, GS_ERR_NOMEM, "out of memory (the board's mirrored view)");
    if (st == GS_OK) {
        mirror_planes(in, 3, w, h, m);
        st = cvshim_net_run(net, m, 3, h, w, &q, &qc, &qh, &qw, err);
    }
    if (st == GS_OK && (qc != *oc || qh != *oh || qw != *ow))
        st = gs_error_set(err, GS_ERR_INTERNAL, "the point model answered its mirrored view in another shape");
    if (st == GS_OK)
        for (size_t r = 0; r < (size_t)*oc * *oh; r++)
            for (int x = 0; x < *ow; x++) (*p)[r * *ow + x] = 0.5f * ((*p)[r * *ow + x] + q[r * *ow + (*ow - 1 - x)]);
    free(m);
    free(q);
    if (st != GS_OK) {
        free(*p);
        *p = NULL;
    }
    return st;
}

/* The net over the view as the model learned boards (vw->turn), its answer
 * turned back; 3 windows a cell either way, the windows centred alike. */
static gs_status run_turned(cvshim_net *net, const vision_view *vw, int mirrored, float **p, int *oc, int *oh, int *ow,
                            gs_error *err)
{
    int k = vw->turn & 3;
    if (!k) return run_net(net, vw->input, vw->width, vw->height, mirrored, p, oc, oh, ow, err);
    float *in = malloc(sizeof *in * 3 * (size_t)vw->width * vw->height);
    if (!in) return gs_error_set(err, GS_ERR_NOMEM, "out of memory (the board's view)");
    turn_planes(vw->input, 3, vw->width, vw->height, k, in);
    int tw = k & 1 ? vw->height : vw->width, th = k & 1 ? vw->width : vw->height, tc = 0, trows = 0, tcols = 0;
    float *tp = NULL;
    gs_status st = run_net(net, in, tw, th, mirrored, &tp, &tc, &trows, &tcols, err);
    free(in);
    if (st != GS_OK) return st;
    float *back = malloc(sizeof *back * (size_t)tc * trows * tcols);
    if (!back) {
        free(tp);
        return gs_error_set(err, GS_ERR_NOMEM, "out of memory (the model's answer)");
    }
    turn_planes(tp, tc, tcols, trows, (4 - k) & 3, back);
    free(tp);
    *p = back;
    *oc = tc;
    *oh = k & 1 ? tcols : trows;
    *ow = k & 1 ? trows : tcols;
    return GS_OK;
}

gs_status vision_model_read(cvshim_net *net, const vision_view *vw, int mirrored, vision_probs *out, gs_error *err)
{
    memset(out, 0, sizeof *out);
    if (!net) return gs_error_set(err, GS_ERR_INTERNAL, "no point model");
    int oc = 0, oh = 0, ow = 0;
    float *p = NULL;
    gs_status st = run_turned(net, vw, mirrored, &p, &oc, &oh, &ow, err);
    if (st != GS_OK) return st;
    /* 3 windows a cell: (n - 1) * 3 + 1 of them along an axis */
    if (oc != VISION_CLASSES || oh != 3 * (vw->nv - 1) + 1 || ow != 3 * (vw->nu - 1) + 1) {
        free(p);
        return gs_error_set(err, GS_ERR_INTERNAL, "the point model answered %d x %d x %d for a view of %d x %d points",
                            oc, oh, ow, vw->nu, vw->nv);
    }
    out->p = p;
    out->rows = oh;
    out->cols = ow;
    return GS_OK;
}

void vision_probs_free(vision_probs *pr)
{
    if (!pr) return;
    free(pr->p);
    pr->p = NULL;
}
