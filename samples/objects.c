/* samples/objects.c: things on the table around the board (render_params
 * .objects): a bowl with its lid on at each player's right, a lid lying
 * upside down, a stone lying on the table just beyond a corner, a cable
 * running close along one side and a sheet of paper beside another, all
 * beyond the board's edge.  They are laid out from the scene's seed (a
 * stream of its own: the rest of the look does not change).
 *
 * The flat ones (lid, stone, cable, paper) are painted into the table ring
 * of the static texture, so the board hides them where it stands in front;
 * the bowls are tall and are drawn into each frame by casting the rays of
 * the pixels around them against a cylinder (behind the board's top where
 * that is nearer). */
#include "samples/render_internal.h"

#include <string.h>

/* How far the texture's table ring reaches beyond the board's edge when
 * there are objects (mm). */
double render_objects_ring(const render_scene *s) { return s->p.objects ? 170 : 0; }

/* -------------------------------------------------------------- layout */

void render_objects_layout(render_scene *s)
{
    render_objects *o = &s->obj;
    memset(o, 0, sizeof *o);
    if (!s->p.objects) return;
    uint64_t r = render_rng_seed(s->p.seed, 17);
    double hx = s->bw / 2, hy = s->bh / 2;
    /* bowls at each player's right (Black at +y faces -y: right is +x),
     * with their lids on */
    for (int k = 0; k < 2; k++) {
        render_bowl *b = &o->bowl[k];
        double sg = k == 0 ? 1 : -1;
        b->r = render_rng_range(&r, 52, 64);
        b->h = render_rng_range(&r, 70, 88);
        b->x = sg * (hx + render_rng_range(&r, 12, 40) + b->r);
        b->y = sg * (hy - b->r - render_rng_range(&r, 0, 60));
        double dark = render_rng_range(&r, 0.2, 1);
        for (int c = 0; c < 3; c++) b->body[c] = (c == 2 ? 70 : c == 1 ? 45 : 30) * dark + 15;
        for (int c = 0; c < 3; c++) b->lid[c] = b->body[c] * render_rng_range(&r, 0.9, 1.3);
    }
    o->nbowls = 2;
    /* a lid lying upside down beside one side, a little way off */
    o->lid_r = render_rng_range(&r, 50, 60);
    double side = render_rng_uniform(&r) < 0.5 ? 1 : -1;
    o->lid_x = -side * (hx + render_rng_range(&r, 20, 50) + o->lid_r);
    o->lid_y = side * render_rng_range(&r, -hy * 0.4, hy * 0.4);
    /* a stone on the table beyond a corner, 4..25 mm off the edge */
    int corner = (int)(render_rng_uniform(&r) * 4);
    double cx = corner == 1 || corner == 2 ? 1 : -1, cy = corner >= 2 ? 1 : -1;
    o->stone_x = cx * (hx + render_rng_range(&r, 4, 25) + s->p.stone_mm / 2);
    o->stone_y = cy * (hy - render_rng_range(&r, -10, 30));
    o->stone_white = render_rng_uniform(&r) < 0.5;
    /* a cable along one side, 3..18 mm off its edge, then away */
    o->cable_side = (int)(render_rng_uniform(&r) * 4);
    o->cable_off = render_rng_range(&r, 3, 18);
    o->cable_w = render_rng_range(&r, 4, 7);
    double grey = render_rng_uniform(&r) < 0.5 ? 235 : 30;
    for (int c = 0; c < 3; c++) o->cable[c] = grey + render_rng_range(&r, -10, 10);
    /* a sheet of paper beside a side, 6..30 mm off its edge, turned a little */
    o->paper_side = (o->cable_side + 1 + (int)(render_rng_uniform(&r) * 3)) % 4;
    o->paper_off = render_rng_range(&r, 6, 30);
    o->paper_turn = render_rng_range(&r, -0.15, 0.15);
    o->paper_along = render_rng_range(&r, -0.3, 0.3);
}

/* --------------------------------------------------------- flat things */

/* Where a side's edge is and which way is out, in world mm: side 0 top
 * (-y), 1 right (+x), 2 bottom (+y), 3 left (-x). */
static void side_frame(const render_scene *s, int side, double *ox, double *oy, double *ax, double *ay, double *dist)
{
    double hx = s->bw / 2, hy = s->bh / 2;
    static const double nx[4] = {0, 1, 0, -1}, ny[4] = {-1, 0, 1, 0};
    *ox = nx[side];
    *oy = ny[side];
    *ax = -ny[side];
    *ay = nx[side];
    *dist = side % 2 ? hx : hy;
}

/* How much of an object covers the table at world (wx, wy), and its
 * colour there (0: none). */
static double flat_cover(const render_scene *s, double wx, double wy, double col[3])
{
    const render_objects *o = &s->obj;
    /* the paper: a rectangle 148 x 210 mm, its long side along the edge */
    double ox, oy, ax, ay, d;
    side_frame(s, o->paper_side, &ox, &oy, &ax, &ay, &d);
    double len = o->paper_side % 2 ? s->bh : s->bw;
    double px = ox * (d + o->paper_off + 74) + ax * o->paper_along * len;
    double py = oy * (d + o->paper_off + 74) + ay * o->paper_along * len;
    double c = cos(o->paper_turn), sn = sin(o->paper_turn);
    double rx = wx - px, ry = wy - py;
    double a = (rx * ax + ry * ay) * c + (rx * ox + ry * oy) * sn, b = -(rx * ax + ry * ay) * sn + (rx * ox + ry * oy) * c;
    if (fabs(a) < 105 && fabs(b) < 74) {
        /* print: a few grey lines */
        bool ink = fabs(a) < 85 && fabs(b) < 60 && fmod(b + 200, 7) < 1.6 && fmod(a + 300, 23) > 4;
        for (int k = 0; k < 3; k++) col[k] = ink ? 90 : 232 - 6 * k;
        return 1;
    }
    /* the lid, upside down: a disc with a darker rim */
    double dl = hypot(wx - o->lid_x, wy - o->lid_y);
    if (dl < o->lid_r) {
        for (int k = 0; k < 3; k++) col[k] = o->bowl[1].lid[k] * (dl > o->lid_r - 5 ? 0.7 : 1.0);
        return 1;
    }
    /* the stone: a shaded disc */
    double ds = hypot(wx - o->stone_x, wy - o->stone_y), R = s->p.stone_mm / 2;
    if (ds < R) {
        const double *t = o->stone_white ? s->p.white_bgr : s->p.black_bgr;
        double sh = 0.75 + 0.3 * sqrt(fmax(0, 1 - (ds / R) * (ds / R)));
        for (int k = 0; k < 3; k++) col[k] = t[k] * sh;
        return 1;
    }
    /* the cable: along its side at cable_off from the edge, bending away
     * past the middle */
    side_frame(s, o->cable_side, &ox, &oy, &ax, &ay, &d);
    double along = wx * ax + wy * ay, out = wx * ox + wy * oy - d;
    double want = o->cable_off + (along > 0 ? along * along / 300.0 : 0);
    if (fabs(out - want) < o->cable_w / 2 && along > -len) {
        for (int k = 0; k < 3; k++) col[k] = o->cable[k];
        return 1;
    }
    return 0;
}

void render_objects_paint(render_scene *s, double wx, double wy, double c[3])
{
    if (!s->p.objects) return;
    double col[3];
    if (flat_cover(s, wx, wy, col) > 0) memcpy(c, col, sizeof col);
}

/* --------------------------------------------------------------- bowls */

/* Where the ray C + t d first meets bowl b (a cylinder standing on the
 * table with its lid on top); *top when it is the lid's top.  <= 0: none. */
static double bowl_hit(const render_scene *s, const render_bowl *b, vec3 C, vec3 d, bool *top, vec3 *n)
{
    double zt = s->p.thickness_mm - b->h, zb = s->p.thickness_mm; /* z points down */
    double best = -1;
    /* the lid's top: the plane z = zt */
    if (fabs(d.z) > 1e-9) {
        double t = (zt - C.z) / d.z;
        double x = C.x + t * d.x - b->x, y = C.y + t * d.y - b->y;
        if (t > 0 && x * x + y * y <= b->r * b->r) {
            best = t;
            *top = true;
            *n = v3(0, 0, -1);
        }
    }
    /* the side */
    double ox = C.x - b->x, oy = C.y - b->y;
    double A = d.x * d.x + d.y * d.y, B = 2 * (ox * d.x + oy * d.y), Cc = ox * ox + oy * oy - b->r * b->r;
    double disc = B * B - 4 * A * Cc;
    if (A > 1e-12 && disc >= 0) {
        double t = (-B - sqrt(disc)) / (2 * A), z = C.z + t * d.z;
        if (t > 0 && z >= zt && z <= zb && (best < 0 || t < best)) {
            best = t;
            *top = false;
            *n = vnorm(v3(ox + t * d.x, oy + t * d.y, 0));
        }
    }
    return best;
}

/* The ray's parameter where it meets the board's top (<= 0: it does not). */
static double board_top_hit(const render_scene *s, vec3 C, vec3 d)
{
    if (!(d.z > 1e-9)) return -1;
    double t = -C.z / d.z, x = C.x + t * d.x, y = C.y + t * d.y;
    return fabs(x) <= s->bw / 2 && fabs(y) <= s->bh / 2 ? t : -1;
}

/* The image box bowl b can cover under pose ps. */
static bool bowl_box(const render_scene *s, const render_pose *ps, const render_bowl *b, int box[4])
{
    double x0 = 1e9, y0 = 1e9, x1 = -1e9, y1 = -1e9;
    for (int k = 0; k < 16; k++) {
        double a = k * M_PI / 8, x, y;
        for (int lv = 0; lv < 2; lv++) {
            vec3 P = v3(b->x + b->r * cos(a), b->y + b->r * sin(a), s->p.thickness_mm - (lv ? b->h : 0));
            if (!render_pose_project(s, ps, P, &x, &y)) return false;
            x0 = fmin(x0, x);
            y0 = fmin(y0, y);
            x1 = fmax(x1, x);
            y1 = fmax(y1, y);
        }
    }
    box[0] = clampi((int)x0 - 2, 0, s->W - 1);
    box[1] = clampi((int)y0 - 2, 0, s->H - 1);
    box[2] = clampi((int)x1 + 2, 0, s->W - 1);
    box[3] = clampi((int)y1 + 2, 0, s->H - 1);
    return x1 >= 0 && y1 >= 0 && x0 < s->W && y0 < s->H;
}

void render_objects_draw(const render_scene *s, const render_pose *ps, const int mul[3], gs_image *out)
{
    const render_objects *o = &s->obj;
    for (int k = 0; k < o->nbowls; k++) {
        const render_bowl *b = &o->bowl[k];
        int box[4];
        if (!bowl_box(s, ps, b, box)) continue;
        for (int y = box[1]; y <= box[3]; y++) {
            uint8_t *row = out->buf + (size_t)y * out->stride;
            for (int x = box[0]; x <= box[2]; x++) {
                vec3 d = render_pose_pixel_ray(s, ps, x, y), n;
                bool top = false;
                double t = bowl_hit(s, b, ps->C, d, &top, &n);
                if (t <= 0) continue;
                double tb = board_top_hit(s, ps->C, d);
                if (tb > 0 && tb < t) continue; /* the board stands in front */
                double lit = 0.55 + 0.45 * fmax(0, top ? 0.6 : vdot(n, s->light));
                const double *c = top ? b->lid : b->body;
                for (int ch = 0; ch < 3; ch++) row[x * 3 + ch] = u8(c[ch] * lit * mul[ch] / 256.0);
            }
        }
    }
}
