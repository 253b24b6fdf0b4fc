/* vision/grid_geom.c: small geometry shared by the grid stages: 3x3
 * matrices, homogeneous lines, a homography fit, the grid model with lens
 * distortion. */
#include "vision/vision_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void vision_cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* Smallest-eigenvalue eigenvector of a symmetric 3x3 matrix by Jacobi. */
void vision_eig3_min(double A[3][3], double out[3])
{
    double V[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int sweep = 0; sweep < 30; sweep++) {
        double off = fabs(A[0][1]) + fabs(A[0][2]) + fabs(A[1][2]);
        if (off < 1e-15) break;
        for (int p = 0; p < 2; p++)
            for (int q = p + 1; q < 3; q++) {
                if (fabs(A[p][q]) < 1e-18) continue;
                double th = 0.5 * atan2(2 * A[p][q], A[q][q] - A[p][p]);
                double c = cos(th), s = sin(th);
                for (int k = 0; k < 3; k++) {
                    double akp = A[k][p], akq = A[k][q];
                    A[k][p] = c * akp - s * akq;
                    A[k][q] = s * akp + c * akq;
                }
                for (int k = 0; k < 3; k++) {
                    double apk = A[p][k], aqk = A[q][k];
                    A[p][k] = c * apk - s * aqk;
                    A[q][k] = s * apk + c * aqk;
                }
                for (int k = 0; k < 3; k++) {
                    double vkp = V[k][p], vkq = V[k][q];
                    V[k][p] = c * vkp - s * vkq;
                    V[k][q] = s * vkp + c * vkq;
                }
            }
    }
    int best = 0;
    for (int i = 1; i < 3; i++)
        if (A[i][i] < A[best][best]) best = i;
    for (int k = 0; k < 3; k++) out[k] = V[k][best];
}

void vision_grid_moved(const vision_grid *g, double du, double dv, int size, vision_grid *out)
{
    const double T[9] = {1, 0, du, 0, 1, dv, 0, 0, 1};
    vision_grid m = *g;
    vision_mat3_mul(g->H, T, m.H);
    m.size = size;
    const int n = size - 1;
    const double bc[4][2] = {{0, 0}, {n, 0}, {n, n}, {0, n}};
    for (int i = 0; i < 4; i++) vision_grid_map(&m, bc[i][0], bc[i][1], &m.corners[i][0], &m.corners[i][1]);
    *out = m;
}

bool vision_grid_corners_in(const vision_grid *a, const vision_grid *b, double uv[4][2])
{
    double inv[9];
    if (vision_mat3_inv(a->H, inv) != 0) return false;
    for (int i = 0; i < 4; i++) {
        double x = b->corners[i][0], y = b->corners[i][1];
        vision_undistort(a->k1, a->cx, a->cy, a->norm, x, y, &x, &y);
        vision_mat3_apply(inv, x, y, &uv[i][0], &uv[i][1]);
    }
    return true;
}

bool vision_grid_on_lattice(const vision_grid *a, const vision_grid *b, double tol, bool on_board)
{
    double uv[4][2];
    if (!vision_grid_corners_in(a, b, uv)) return false;
    for (int i = 0; i < 4; i++) {
        double u = uv[i][0], v = uv[i][1];
        if (fabs(u - lround(u)) > tol || fabs(v - lround(v)) > tol) return false;
        if (on_board && (lround(u) < 0 || lround(v) < 0 || lround(u) > a->size - 1 || lround(v) > a->size - 1))
            return false;
    }
    return true;
}

/* 3x3 helpers (row-major). */
void vision_mat3_mul(const double A[9], const double B[9], double C[9])
{
    double T[9];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) T[r * 3 + c] = A[r * 3] * B[c] + A[r * 3 + 1] * B[3 + c] + A[r * 3 + 2] * B[6 + c];
    memcpy(C, T, sizeof T);
}

int vision_mat3_inv(const double A[9], double B[9])
{
    double d = A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) + A[2] * (A[3] * A[7] - A[4] * A[6]);
    if (fabs(d) < 1e-300) return -1;
    double T[9] = {A[4] * A[8] - A[5] * A[7], A[2] * A[7] - A[1] * A[8], A[1] * A[5] - A[2] * A[4],
                   A[5] * A[6] - A[3] * A[8], A[0] * A[8] - A[2] * A[6], A[2] * A[3] - A[0] * A[5],
                   A[3] * A[7] - A[4] * A[6], A[1] * A[6] - A[0] * A[7], A[0] * A[4] - A[1] * A[3]};
    for (int i = 0; i < 9; i++) B[i] = T[i] / d;
    return 0;
}

void vision_mat3_apply(const double H[9], double x, double y, double *ox, double *oy)
{
    double w = H[6] * x + H[7] * y + H[8];
    *ox = (H[0] * x + H[1] * y + H[2]) / w;
    *oy = (H[3] * x + H[4] * y + H[5]) / w;
}

/* Least-squares homography (board -> image) from point pairs, h8 = 1,
 * with both sides normalised for conditioning. Returns 0 on success. */
int vision_fit_homography(const double (*src)[2], const double (*dst)[2], int n, double H[9])
{
    if (n < 4) return -1;
    double ms[2] = {0, 0}, md[2] = {0, 0}, ss = 0, sd = 0;
    for (int i = 0; i < n; i++) {
        ms[0] += src[i][0]; ms[1] += src[i][1]; md[0] += dst[i][0]; md[1] += dst[i][1];
    }
    for (int k = 0; k < 2; k++) { ms[k] /= n; md[k] /= n; }
    for (int i = 0; i < n; i++) {
        ss += hypot(src[i][0] - ms[0], src[i][1] - ms[1]);
        sd += hypot(dst[i][0] - md[0], dst[i][1] - md[1]);
    }
    ss = ss > 0 ? n / ss : 1;
    sd = sd > 0 ? n / sd : 1;
    double A[8][9];
    memset(A, 0, sizeof A);
    for (int i = 0; i < n; i++) {
        double u = (src[i][0] - ms[0]) * ss, v = (src[i][1] - ms[1]) * ss;
        double x = (dst[i][0] - md[0]) * sd, y = (dst[i][1] - md[1]) * sd;
        double r[2][9] = {{u, v, 1, 0, 0, 0, -u * x, -v * x, x}, {0, 0, 0, u, v, 1, -u * y, -v * y, y}};
        for (int k = 0; k < 2; k++)
            for (int a = 0; a < 8; a++)
                for (int b = 0; b < 9; b++) A[a][b] += r[k][a] * r[k][b];
    }
    double Hn[9];
    if (gs_solve(&A[0][0], 9, 8, Hn, 1e-12) != 0) return -1;
    Hn[8] = 1;
    /* Undo the normalisation: H = Td^-1 Hn Ts. */
    double Ts[9] = {ss, 0, -ss * ms[0], 0, ss, -ss * ms[1], 0, 0, 1};
    double Tdi[9] = {1 / sd, 0, md[0], 0, 1 / sd, md[1], 0, 0, 1};
    vision_mat3_mul(Hn, Ts, H);
    vision_mat3_mul(Tdi, H, H);
    return 0;
}

/* The grid model in working pixels: homography then radial distortion
 * about (cx, cy), as vision_grid_map does. */

void vision_model_map(const vision_gmodel *m, double u, double v, double *x, double *y)
{
    vision_mat3_apply(m->H, u, v, x, y);
    if (m->k1 != 0) {
        double dx = *x - m->cx, dy = *y - m->cy;
        double s = 1 + m->k1 * (dx * dx + dy * dy) / (m->norm * m->norm);
        *x = m->cx + dx * s;
        *y = m->cy + dy * s;
    }
}

/* Inverse of the distortion (fixed-point iteration). */
void vision_undistort(double k1, double cx, double cy, double norm, double x, double y, double *ux, double *uy)
{
    double dx = x - cx, dy = y - cy, px = dx, py = dy;
    double kn = k1 != 0 ? k1 / (norm * norm) : 0; /* one division, not two per round: it runs per line pixel */
    for (int it = 0; it < 6 && k1 != 0; it++) {
        double is = 1 / (1 + kn * (px * px + py * py));
        px = dx * is;
        py = dy * is;
    }
    *ux = cx + px;
    *uy = cy + py;
}

int vision_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int vision_cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

void vision_edge_point(int side, int k, int N, int *u, int *v)
{
    *u = side == 1 ? N - 1 : side == 3 ? 0 : k;
    *v = side == 0 ? 0 : side == 2 ? N - 1 : k;
}

/* Cell height / width on the board from the homography (board cells ->
 * pixels, origin moved to the image centre), for a camera with square
 * pixels and its principal point at the centre: the two board axes must be
 * perpendicular in space, which gives the focal length, and then the ratio
 * of the axes' lengths.  1 when the view is too frontal to tell. */
double vision_estimate_aspect(const double H[9], double cx, double cy)
{
    /* T = translate(-cx, -cy) * H */
    double h1[3] = {H[0] - cx * H[6], H[3] - cy * H[6], H[6]};
    double h2[3] = {H[1] - cx * H[7], H[4] - cy * H[7], H[7]};
    double ww = h1[2] * h2[2];
    double f2 = ww != 0 ? -(h1[0] * h2[0] + h1[1] * h2[1]) / ww : -1;
    if (!(f2 > 0)) return 1.0;
    double f = sqrt(f2);
    double l1 = sqrt(h1[0] * h1[0] / f2 + h1[1] * h1[1] / f2 + h1[2] * h1[2]);
    double l2 = sqrt(h2[0] * h2[0] / f2 + h2[1] * h2[1] / f2 + h2[2] * h2[2]);
    double a = l2 / l1;
    /* a focal length far outside what cameras have means a frontal view
     * where this is ill-conditioned */
    if (f < 0.3 * cx || f > 20 * cx || !(a > 0.8 && a < 1.25)) return 1.0;
    return a;
}

/* ------------------------------------------------------------ camera model */

void vision_cam_fit(vision_cam *c, const double H[9], int width, int height)
{
    memset(c, 0, sizeof *c);
    c->cx = width / 2.0;
    c->cy = height / 2.0;
    /* A = T(-c) H: homography in principal-point-centred pixels. */
    double a[3][3];
    for (int j = 0; j < 3; j++) {
        a[0][j] = H[j] - c->cx * H[6 + j];
        a[1][j] = H[3 + j] - c->cy * H[6 + j];
        a[2][j] = H[6 + j];
    }
    double dim = width > height ? width : height;
    double f2s[2];
    int nf = 0;
    /* Orthogonal columns and equal column norms each give f^2 when the view
     * is oblique enough; near-frontal views make them ill-conditioned, and
     * then the offsets are tiny whatever f is. */
    double den = a[2][0] * a[2][1];
    if (fabs(den) > 1e-12) {
        double f2 = -(a[0][0] * a[0][1] + a[1][0] * a[1][1]) / den;
        if (f2 > 0.09 * dim * dim && f2 < 25 * dim * dim) f2s[nf++] = f2;
    }
    den = a[2][0] * a[2][0] - a[2][1] * a[2][1];
    if (fabs(den) > 1e-12) {
        double f2 = (a[0][1] * a[0][1] + a[1][1] * a[1][1] - a[0][0] * a[0][0] - a[1][0] * a[1][0]) / den;
        if (f2 > 0.09 * dim * dim && f2 < 25 * dim * dim) f2s[nf++] = f2;
    }
    double f = dim;
    if (nf == 1) f = sqrt(f2s[0]);
    if (nf == 2) f = sqrt(sqrt(f2s[0] * f2s[1]));
    c->f = f;
    double m[3][3];
    for (int j = 0; j < 3; j++) {
        m[0][j] = a[0][j] / f;
        m[1][j] = a[1][j] / f;
        m[2][j] = a[2][j];
    }
    double n1 = sqrt(m[0][0] * m[0][0] + m[1][0] * m[1][0] + m[2][0] * m[2][0]);
    double n2 = sqrt(m[0][1] * m[0][1] + m[1][1] * m[1][1] + m[2][1] * m[2][1]);
    if (n1 < 1e-12 || n2 < 1e-12) return;
    double lam = 2 / (n1 + n2);
    if (m[2][2] * lam < 0) lam = -lam; /* board in front of the camera */
    for (int i = 0; i < 3; i++) {
        c->r1[i] = lam * m[i][0];
        c->r2[i] = lam * m[i][1];
        c->t[i] = lam * m[i][2];
    }
    double *r1 = c->r1, *r2 = c->r2;
    double n[3] = {r1[1] * r2[2] - r1[2] * r2[1], r1[2] * r2[0] - r1[0] * r2[2], r1[0] * r2[1] - r1[1] * r2[0]};
    double nn = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (nn < 1e-12) return;
    /* Stones grow toward the camera, which sits at the origin. */
    double s = (n[0] * c->t[0] + n[1] * c->t[1] + n[2] * c->t[2]) > 0 ? -1 : 1;
    for (int i = 0; i < 3; i++) c->n[i] = s * n[i] / nn;
    c->ok = 1;
}

/* Image displacement of a point h cells above board point (u,v). */
void vision_cam_offset(const vision_cam *c, double u, double v, double h, double *dx, double *dy)
{
    *dx = *dy = 0;
    if (!c->ok) return;
    double X[3], Y[3];
    for (int i = 0; i < 3; i++) {
        X[i] = c->t[i] + u * c->r1[i] + v * c->r2[i];
        Y[i] = X[i] + h * c->n[i];
    }
    if (X[2] <= 1e-9 || Y[2] <= 1e-9) return;
    *dx = c->f * (Y[0] / Y[2] - X[0] / X[2]);
    *dy = c->f * (Y[1] / Y[2] - X[1] / X[2]);
}
