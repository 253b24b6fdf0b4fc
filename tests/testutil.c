#include "tests/testutil.h"

#include "samples/render.h"
#include "vision/vision.h"

#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

const char *gs_test_data(const char *sub)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", GS_DATA_DIR, sub);
    struct stat st;
    return stat(path, &st) == 0 ? path : NULL;
}

int gs_test_sanitized(void)
{
    const char *s = getenv("GS_SANITIZED");
    return s && *s == '1';
}

void gs_test_keep_sgf(const char *path, const char *label)
{
    const char *dir = getenv("GS_SGF_CORPUS");
    if (!dir || !*dir) return;
    char *data = NULL;
    size_t len = 0;
    gs_error e;
    if (gs_file_read(path, 64u << 20, &data, &len, &e) != GS_OK) {
        print_message("gs_test_keep_sgf: %s: %s\n", path, e.msg);
        return;
    }
    char out[4096];
    snprintf(out, sizeof out, "%s/%s.sgf", dir, label);
    /* a corpus copy that cannot be written shows as a missing file in
     * sgf_validate, not as a failure of this test */
    if (gs_file_write_atomic(out, data, len, &e) != GS_OK) print_message("gs_test_keep_sgf: %s: %s\n", out, e.msg);
    free(data);
}

void gs_test_edit(gs_position *p, const char *ops)
{
    for (const char *s = ops; *s;) {
        while (*s == ' ' || *s == ',') s++;
        if (!*s) break;
        gs_position_set(p, s[2] - 'a', s[3] - 'a', s[0] == 'B' ? GS_BLACK : s[0] == 'W' ? GS_WHITE : GS_EMPTY);
        s += 4;
    }
}

int gs_test_connect_loopback(int port, int src)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    struct sockaddr_in me = {0}, sa = {0};
    me.sin_family = sa.sin_family = AF_INET;
    me.sin_addr.s_addr = htonl(0x7f000100u | (uint32_t)(src & 0xff));
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if ((src && bind(fd, (struct sockaddr *)&me, sizeof me)) || connect(fd, (struct sockaddr *)&sa, sizeof sa)) {
        close(fd);
        return -1;
    }
    return fd;
}

void gs_test_still_params(render_params *p, uint64_t seed, int size, int width, int height)
{
    render_params_from_seed(p, seed, size, width, height);
    p->bump_ms = -1;
    p->flicker = 0;
    p->slow_amp = 0;
}

render_scene *gs_test_scene(const render_params *p, vision_grid *grid)
{
    gs_error e = {0};
    render_scene *sc = render_scene_create(p, &e);
    if (!sc) print_message("render_scene_create: %s\n", e.msg);
    assert_non_null(sc);
    if (grid) render_grid(sc, 0, grid);
    return sc;
}

render_scene *gs_test_still_scene(uint64_t seed, int size, int width, int height, vision_grid *grid)
{
    render_params p;
    gs_test_still_params(&p, seed, size, width, height);
    return gs_test_scene(&p, grid);
}

double gs_test_margin_out(const render_params *p)
{
    double o = 0.5 * p->margin_mm / p->cell_h_mm;
    return o < 0.45 ? 0.45 : o;
}

gs_image *gs_test_frame(render_scene *sc, const render_state *st)
{
    const render_params *p = render_scene_params(sc);
    gs_image *img = gs_image_create(p->width, p->height, 3);
    assert_non_null(img);
    gs_error e = {0};
    gs_status s = render_frame(sc, st, img, &e);
    if (s != GS_OK) print_message("render_frame: %s\n", e.msg);
    assert_int_equal(s, GS_OK);
    return img;
}

void gs_test_scatter_stones(render_state *st, int size, unsigned seed, int nstones)
{
    unsigned r = seed * 2654435761u + 1;
    for (int k = 0; k < nstones; k++) {
        r = r * 1103515245u + 12345u;
        int u = (int)((r >> 8) % (unsigned)size);
        r = r * 1103515245u + 12345u;
        int v = (int)((r >> 8) % (unsigned)size);
        gs_position_set(&st->pos, u, v, (k & 1) ? GS_WHITE : GS_BLACK);
    }
}

double gs_test_corner_error(const vision_grid *truth, const vision_grid *g)
{
    double cell = hypot(truth->corners[1][0] - truth->corners[0][0], truth->corners[1][1] - truth->corners[0][1]) /
                  (truth->size - 1),
           worst = 0;
    for (int i = 0; i < 4; i++) {
        double best = 1e300;
        for (int j = 0; j < 4; j++)
            best = fmin(best, hypot(g->corners[i][0] - truth->corners[j][0], g->corners[i][1] - truth->corners[j][1]));
        worst = fmax(worst, best / cell);
    }
    return worst;
}

void gs_test_nearest_point(const vision_grid *truth, const vision_grid *g, int u, int v, int *bu, int *bv)
{
    double x, y, bd = 1e300;
    vision_grid_map(g, u, v, &x, &y);
    for (int b = 0; b < truth->size; b++)
        for (int a = 0; a < truth->size; a++) {
            double tx, ty;
            vision_grid_map(truth, a, b, &tx, &ty);
            double d = hypot(tx - x, ty - y);
            if (d < bd) { bd = d; *bu = a; *bv = b; }
        }
}
