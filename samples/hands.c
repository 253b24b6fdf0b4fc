/* samples/hands.c: a player's hand and sleeve over the board, as a few
 * shaded capsules (fingers, thumb, palm, wrist, sleeve): which
 * intersections they cover (the truth), the shadow they cast on the board,
 * and their drawing, with motion blur and any stone held. */
#include "samples/render_internal.h"

#include <string.h>

typedef struct capsule {
    vec3 a, b;          /* world end points */
    double ra, rb;      /* radii, mm */
    int colour;         /* 0 skin, 1 sleeve */
} capsule;

typedef struct icapsule {
    double ax, ay, bx, by, ra, rb;  /* image */
    int colour;
    double height;      /* mm above the board (for the shadow) */
} icapsule;

#define HAND_CAPS 6

/* The hand as capsules: fingers, thumb, palm, wrist, sleeve (low to high,
 * so later ones draw on top as a camera from above sees them). */
static int hand_capsules(const render_scene *s, const render_pose *ps, const render_hand *h, capsule *cap)
{
    double sgn = h->side == GS_WHITE ? -1 : 1;
    double yaw = h->yaw_deg * M_PI / 180;
    vec3 a = v3(sin(yaw) * sgn, cos(yaw) * sgn, 0);      /* towards the player */
    vec3 perp = v3(-a.y, a.x, 0);
    vec3 F = v3(h->x, h->y, -h->z);
    vec3 up = v3(0, 0, -1);
    vec3 K = vadd(vadd(F, vmul(a, 55)), vmul(up, 16));
    vec3 Wr = vadd(vadd(K, vmul(a, 75)), vmul(up, 22));
    /* shoulder: beyond the board edge on the player's side, high up */
    double edge = s->bh / 2 + 330;
    double along = fabs(a.y) > 0.2 ? (edge - fabs(Wr.y)) / fabs(a.y) : 300;
    if (along < 150) along = 150;
    vec3 S = vadd(vadd(Wr, vmul(a, along)), vmul(up, 260));
    vec3 W2 = vadd(Wr, vmul(vnorm(vsub(S, Wr)), 60));
    int n = 0;
    cap[n++] = (capsule){F, K, 9, 11, 0};
    cap[n++] = (capsule){vadd(F, vmul(perp, 14)), vadd(vadd(K, vmul(perp, 30)), vmul(up, 4)), 8, 10, 0};
    cap[n++] = (capsule){K, Wr, 36, 30, 0};
    cap[n++] = (capsule){Wr, W2, 28, 31, 0};
    cap[n++] = (capsule){vadd(Wr, vmul(vnorm(vsub(S, Wr)), 45)), S, 40, 50, 1};
    /* a camera close to a small board still looks down on the arm: keep
     * every part well below it */
    double maxh = 0.5 * -ps->C.z;
    for (int i = 0; i < n; i++) {
        if (-cap[i].a.z > maxh) cap[i].a.z = -maxh;
        if (-cap[i].b.z > maxh) cap[i].b.z = -maxh;
    }
    return n;
}

static int hand_icapsules(const render_scene *s, const render_pose *ps, const render_hand *h, icapsule *ic)
{
    capsule cap[HAND_CAPS];
    int n = hand_capsules(s, ps, h, cap), m = 0;
    for (int i = 0; i < n; i++) {
        double ax, ay, bx, by;
        vec3 A = cap[i].a, B = cap[i].b;
        /* clip the far end to stay in front of the camera */
        double za = vdot(vsub(A, ps->C), ps->az), zb = vdot(vsub(B, ps->C), ps->az);
        if (za < 20 && zb < 20) continue;
        if (zb < 20) { double t = (za - 20) / (za - zb); B = vadd(A, vmul(vsub(B, A), t)); zb = 20; }
        if (za < 20) { double t = (zb - 20) / (zb - za); A = vadd(B, vmul(vsub(A, B), t)); za = 20; }
        if (!render_pose_project(s, ps, A, &ax, &ay) || !render_pose_project(s, ps, B, &bx, &by)) continue;
        ic[m] = (icapsule){ax, ay, bx, by, cap[i].ra * s->fpx / za, cap[i].rb * s->fpx / zb, cap[i].colour,
                           -(A.z + B.z) / 2};
        m++;
    }
    return m;
}

/* Distance from (x, y) to capsule c, and its radius there. */
static double cap_dist(const icapsule *c, double x, double y, double *r, double *across)
{
    double dx = c->bx - c->ax, dy = c->by - c->ay;
    double l2 = dx * dx + dy * dy;
    double t = l2 > 0 ? ((x - c->ax) * dx + (y - c->ay) * dy) / l2 : 0;
    t = clampd(t, 0, 1);
    double px = c->ax + t * dx, py = c->ay + t * dy;
    *r = c->ra + t * (c->rb - c->ra);
    double ex = x - px, ey = y - py;
    if (across) {
        double l = sqrt(l2);
        *across = l > 0 ? (ex * -dy + ey * dx) / l : 0;
    }
    return sqrt(ex * ex + ey * ey);
}

/* The x range of row y that can lie within `extra` of capsule c: the
 * capsule's strip intersected with its slab along the axis (a tight
 * superset), so drawing visits only pixels near the shape. */
static bool cap_span(const icapsule *c, double y, double extra, double *xa, double *xb)
{
    double R = fmax(c->ra, c->rb) + extra;
    double dx = c->bx - c->ax, dy = c->by - c->ay, L = sqrt(dx * dx + dy * dy);
    double lo = -1e18, hi = 1e18, ry = y - c->ay;
    if (L < 1e-6) {
        double q = R * R - ry * ry;
        if (q < 0) return false;
        *xa = c->ax - sqrt(q);
        *xb = c->ax + sqrt(q);
        return true;
    }
    double ux = dx / L, uy = dy / L, nx = -uy, ny = ux;
    /* strip: |(x-ax) nx + ry ny| <= R */
    if (fabs(nx) > 1e-9) {
        double e1 = c->ax + (-R - ry * ny) / nx, e2 = c->ax + (R - ry * ny) / nx;
        lo = fmax(lo, fmin(e1, e2));
        hi = fmin(hi, fmax(e1, e2));
    } else if (fabs(ry * ny) > R) return false;
    /* slab: (x-ax) ux + ry uy in [-R, L+R] */
    if (fabs(ux) > 1e-9) {
        double e1 = c->ax + (-R - ry * uy) / ux, e2 = c->ax + (L + R - ry * uy) / ux;
        lo = fmax(lo, fmin(e1, e2));
        hi = fmin(hi, fmax(e1, e2));
    } else {
        double q = ry * uy;
        if (q < -R || q > L + R) return false;
    }
    if (lo > hi) return false;
    *xa = lo;
    *xb = hi;
    return true;
}

/* Image point and radius of a stone held between the fingertips. */
static bool held_stone(const render_scene *s, const render_pose *ps, const render_hand *h, double *x, double *y, double *r)
{
    vec3 P = v3(h->x, h->y, -(h->z - 2));
    if (!render_pose_project(s, ps, P, x, y)) return false;
    double z = vdot(vsub(P, ps->C), ps->az);
    *r = s->p.stone_mm / 2 * s->fpx / z;
    return true;
}

int render_hand_covers(const render_scene *s, const render_state *st, uint8_t *covered, bool *visible)
{
    int n = st->pos.size, count = 0;
    memset(covered, 0, (size_t)n * n);
    if (visible) *visible = false;
    if (!st->hand.present) return 0;
    const render_pose pst = render_pose_at(s, st->t_ms), *ps = &pst;
    icapsule ic[HAND_CAPS];
    int m = hand_icapsules(s, ps, &st->hand, ic);
    double hx = 0, hy = 0, hr = 0;
    bool held = st->hand.holding != GS_EMPTY && held_stone(s, ps, &st->hand, &hx, &hy, &hr);
    if (visible) {
        for (int k = 0; k < m && !*visible; k++) {
            double r = fmax(ic[k].ra, ic[k].rb);
            double x0 = fmin(ic[k].ax, ic[k].bx) - r, x1 = fmax(ic[k].ax, ic[k].bx) + r;
            double y0 = fmin(ic[k].ay, ic[k].by) - r, y1 = fmax(ic[k].ay, ic[k].by) + r;
            if (x1 < 0 || y1 < 0 || x0 >= s->W || y0 >= s->H) continue;
            /* the bounding box meets the frame; is the capsule itself in it? */
            double cx = clampd((ic[k].ax + ic[k].bx) / 2, 0, s->W - 1), cy = clampd((ic[k].ay + ic[k].by) / 2, 0, s->H - 1);
            double rr, d = cap_dist(&ic[k], cx, cy, &rr, NULL);
            if (d < rr) *visible = true;
            /* sample the frame border and corners too */
            for (int e = 0; e < 64 && !*visible; e++) {
                double fx = (e % 8 + 0.5) / 8.0 * s->W, fy = (e / 8 + 0.5) / 8.0 * s->H;
                if (cap_dist(&ic[k], fx, fy, &rr, NULL) < rr) *visible = true;
            }
            double ex = clampd(ic[k].ax, 0, s->W - 1), ey = clampd(ic[k].ay, 0, s->H - 1);
            if (cap_dist(&ic[k], ex, ey, &rr, NULL) < rr) *visible = true;
        }
    }
    for (int v = 0; v < n; v++)
        for (int u = 0; u < n; u++) {
            double x, y, wx, wy;
            render_board_to_world(s, u, v, &wx, &wy);
            if (!render_pose_project(s, ps, v3(wx, wy, 0), &x, &y)) continue;
            bool c = false;
            for (int k = 0; k < m && !c; k++) {
                /* covered = the pixel there is all hand, not an edge */
                double r, d = cap_dist(&ic[k], x, y, &r, NULL);
                if (d < r - 1) c = true;
            }
            if (!c && held) c = (x - hx) * (x - hx) + (y - hy) * (y - hy) < (hr - 1) * (hr - 1);
            if (c) {
                covered[v * n + u] = 1;
                count++;
            }
        }
    return count;
}

/* Darkens the board under the hand: capsules pushed along the light and
 * blurred with height. */
static void draw_hand_shadow(const render_scene *s, const render_pose *ps, const render_hand *h, gs_image *out)
{
    capsule cap[HAND_CAPS];
    int n = hand_capsules(s, ps, h, cap);
    for (int i = 0; i < n; i++) {
        double ha = -cap[i].a.z, hb = -cap[i].b.z;
        vec3 A = v3(cap[i].a.x + s->shadow_dx * ha * 0.35, cap[i].a.y + s->shadow_dy * ha * 0.35, 0);
        vec3 B = v3(cap[i].b.x + s->shadow_dx * hb * 0.35, cap[i].b.y + s->shadow_dy * hb * 0.35, 0);
        icapsule c;
        double za = vdot(vsub(A, ps->C), ps->az), zb = vdot(vsub(B, ps->C), ps->az);
        if (za < 20 || zb < 20) continue;
        if (!render_pose_project(s, ps, A, &c.ax, &c.ay) || !render_pose_project(s, ps, B, &c.bx, &c.by)) continue;
        c.ra = (cap[i].ra + ha * 0.08) * s->fpx / za;
        c.rb = (cap[i].rb + hb * 0.08) * s->fpx / zb;
        double soft = fmax(1.5, (ha + hb) * 0.5 * 0.12 * s->fpx / ((za + zb) / 2));
        double strength = clampd(0.45 - (ha + hb) * 0.5 / 600, 0.12, 0.45);
        double r = fmax(c.ra, c.rb) + soft;
        int x0 = clampi((int)floor(fmin(c.ax, c.bx) - r), 0, out->width - 1), x1 = clampi((int)ceil(fmax(c.ax, c.bx) + r), 0, out->width - 1);
        int y0 = clampi((int)floor(fmin(c.ay, c.by) - r), 0, out->height - 1), y1 = clampi((int)ceil(fmax(c.ay, c.by) + r), 0, out->height - 1);
        if (fmax(c.ax, c.bx) + r < 0 || fmin(c.ax, c.bx) - r >= out->width || fmax(c.ay, c.by) + r < 0 || fmin(c.ay, c.by) - r >= out->height) continue;
        for (int y = y0; y <= y1; y++) {
            uint8_t *row = out->buf + (size_t)y * out->stride;
            double sa, sb;
            if (!cap_span(&c, y + 0.5, soft + 1, &sa, &sb)) continue;
            int xa = (int)fmax(x0, floor(sa)), xb = (int)fmin(x1, ceil(sb));
            for (int x = xa; x <= xb; x++) {
                double rr, d = cap_dist(&c, x + 0.5, y + 0.5, &rr, NULL);
                double a = clampd((rr - d) / soft + 0.5, 0, 1) * strength;
                if (a <= 0.003) continue;
                uint8_t *o = row + x * 3;
                for (int ch = 0; ch < 3; ch++) o[ch] = (uint8_t)(o[ch] * (1 - a));
            }
        }
    }
}

/* The stone held under the fingertips, drawn with the fingers (blur: the
 * edge's softness in pixels). */
static void draw_held_stone(const render_scene *s, const render_pose *ps, const render_hand *h, double blur,
                            const int mul[3], gs_image *out)
{
    const render_params *p = &s->p;
    double sx, sy, sr;
    if (!held_stone(s, ps, h, &sx, &sy, &sr)) return;
    const double *t = h->holding == GS_WHITE ? p->white_bgr : p->black_bgr;
    int xs0 = clampi((int)(sx - sr - 2), 0, out->width - 1), xs1 = clampi((int)(sx + sr + 2), 0, out->width - 1);
    int ys0 = clampi((int)(sy - sr - 2), 0, out->height - 1), ys1 = clampi((int)(sy + sr + 2), 0, out->height - 1);
    if (!(sx + sr + 2 >= 0 && sx - sr - 2 < out->width && sy + sr + 2 >= 0 && sy - sr - 2 < out->height)) return;
    for (int y = ys0; y <= ys1; y++)
        for (int x = xs0; x <= xs1; x++) {
            double dx = x + 0.5 - sx, dy = y + 0.5 - sy, d = sqrt(dx * dx + dy * dy);
            double a = clampd((sr - d) / blur + 0.5, 0, 1);
            if (a <= 0) continue;
            double q = d / sr, shade = 0.65 + 0.4 * sqrt(fmax(0, 1 - q * q)) - 0.15 * (dx + dy) / (2 * sr);
            uint8_t *o = out->buf + (size_t)y * out->stride + x * 3;
            for (int ch = 0; ch < 3; ch++) o[ch] = u8(o[ch] * (1 - a) + t[ch] * mul[ch] / 256.0 * shade * a);
        }
}

/* One capsule of the hand in colour col (already lit), shaded as a
 * cylinder, its edge softened by blur pixels; a sleeve gets a weave.
 * False when it lies wholly outside the frame (nothing drawn). */
static bool draw_capsule(const icapsule *c, const double col[3], double blur, gs_image *out)
{
    double r = fmax(c->ra, c->rb) + blur;
    if (fmax(c->ax, c->bx) + r < 0 || fmin(c->ax, c->bx) - r >= out->width || fmax(c->ay, c->by) + r < 0 || fmin(c->ay, c->by) - r >= out->height) return false;
    int x0 = clampi((int)floor(fmin(c->ax, c->bx) - r), 0, out->width - 1), x1 = clampi((int)ceil(fmax(c->ax, c->bx) + r), 0, out->width - 1);
    int y0 = clampi((int)floor(fmin(c->ay, c->by) - r), 0, out->height - 1), y1 = clampi((int)ceil(fmax(c->ay, c->by) + r), 0, out->height - 1);
    for (int y = y0; y <= y1; y++) {
        uint8_t *row = out->buf + (size_t)y * out->stride;
        double sa, sb;
        if (!cap_span(c, y + 0.5, blur + 1, &sa, &sb)) continue;
        int xa = (int)fmax(x0, floor(sa)), xb = (int)fmin(x1, ceil(sb));
        for (int x = xa; x <= xb; x++) {
            double rr, across, d = cap_dist(c, x + 0.5, y + 0.5, &rr, &across);
            double a = clampd((rr - d) / blur + 0.5, 0, 1);
            if (a <= 0) continue;
            double q = clampd(d / fmax(rr, 0.5), 0, 1);
            double shade = 0.6 + 0.4 * sqrt(1 - q * q) + 0.12 * clampd(across / fmax(rr, 0.5), -1, 1);
            if (c->colour && ((x + 2 * y) & 3) == 0) shade *= 0.94;  /* cloth weave */
            uint8_t *o = row + x * 3;
            for (int ch = 0; ch < 3; ch++) o[ch] = u8(o[ch] * (1 - a) + col[ch] * shade * a);
        }
    }
    return true;
}

/* The hand's capsules, low to high, the held stone drawn with the fingers
 * (so the palm and sleeve pass over it; not drawn when the fingers are
 * wholly outside the frame). */
static void draw_hand(const render_scene *s, const render_pose *ps, const render_hand *h, const int mul[3], gs_image *out)
{
    const render_params *p = &s->p;
    icapsule ic[HAND_CAPS];
    int m = hand_icapsules(s, ps, h, ic);
    const double *sleeve = h->side == GS_WHITE ? p->sleeve2_bgr : p->sleeve_bgr;
    double blur = 1.0 + p->motion_blur * h->speed * s->fpx / 1000.0 * 0.5;
    for (int k = 0; k < m; k++) {
        const icapsule *c = &ic[k];
        const double *base = c->colour ? sleeve : p->skin_bgr;
        double col[3];
        for (int ch = 0; ch < 3; ch++) col[ch] = base[ch] * mul[ch] / 256.0;
        if (!draw_capsule(c, col, blur, out)) continue;
        if (k == 0 && h->holding != GS_EMPTY) draw_held_stone(s, ps, h, blur, mul, out);
    }
}

void render_hand_draw(const render_scene *s, const render_pose *ps, const render_hand *h, const int mul[3],
                      gs_image *out)
{
    draw_hand_shadow(s, ps, h, out);
    draw_hand(s, ps, h, mul, out);
}
