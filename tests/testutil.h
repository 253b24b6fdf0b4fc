/* tests/testutil.h: shared helpers for the cmocka tests. */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/gs.h"

/* Path of ../shared/data/SUB if it exists, else NULL (static buffer). Tests
 * that need real data call GS_REQUIRE_DATA, which skips with a message. */
const char *gs_test_data(const char *sub);

#define GS_REQUIRE_DATA(var, sub)                                                  \
    const char *var = gs_test_data(sub);                                           \
    if (!var) {                                                                    \
        print_message("skipped: %s/%s absent (shared data not beside this clone)\n", GS_DATA_DIR, sub); \
        skip();                                                                    \
    }

/* Applies edits "B cc, W gg, - cc" to p: put a black / white stone or
 * empty the point, each point in SGF letters. */
void gs_test_edit(gs_position *p, const char *ops);

/* Copies the SGF at path into the corpus the suite's SGF checker reads
 * ($GS_SGF_CORPUS/LABEL.sgf, see tests/sgf_validate.sh); nothing when the
 * variable is not set.  Labels are unique across the suite: start them
 * with the test's name. */
void gs_test_keep_sgf(const char *path, const char *label);

/* True when running under the sanitizer build (slow): heavy loops may sample. */
int gs_test_sanitized(void);

/* A TCP socket connected to 127.0.0.1:port from the loopback address
 * 127.0.1.SRC (SRC 1..255; 0 = the default 127.0.0.1), as many clients on
 * many machines would be; -1 when it cannot connect. */
int gs_test_connect_loopback(int port, int src);

struct render_params;
struct render_scene;
struct render_state;
struct vision_grid;
/* A rendered camera without the hard parts: the look of seed for board
 * size `size` at width x height with no bump, flicker or slow light change. */
void gs_test_still_params(struct render_params *p, uint64_t seed, int size, int width, int height);
/* The scene of look p (the caller destroys it with render_scene_destroy)
 * and, when grid is not NULL, its true grid at time 0.  Fails the test
 * when it cannot be made. */
struct render_scene *gs_test_scene(const struct render_params *p, struct vision_grid *grid);
/* gs_test_scene of gs_test_still_params. */
struct render_scene *gs_test_still_scene(uint64_t seed, int size, int width, int height, struct vision_grid *grid);
/* Where a stone lying on the margin of look p has its centre, in cells
 * outside the outer line: half the margin, not nearer than 0.45 cell. */
double gs_test_margin_out(const struct render_params *p);
/* A new frame of the scene's size showing st (the caller destroys it with
 * gs_image_destroy); fails the test when it cannot be rendered. */
gs_image *gs_test_frame(struct render_scene *sc, const struct render_state *st);
/* Throws nstones stones on a size x size board from a small LCG (its own
 * stream, not the renderer's seed), alternating colours; a point may be
 * hit twice. */
void gs_test_scatter_stones(struct render_state *st, int size, unsigned seed, int nstones);
/* How far the grid found, g, is from the renderer's: the worst distance
 * of one of its corners to the nearest of truth's, in truth's cells (the
 * finder names the corners by the picture, top edge first, the renderer
 * by the board). */
double gs_test_corner_error(const struct vision_grid *truth, const struct vision_grid *g);
/* The point (bu, bv) of truth nearest to point (u, v) of g: the board
 * point under a point the finder names otherwise. */
void gs_test_nearest_point(const struct vision_grid *truth, const struct vision_grid *g, int u, int v, int *bu, int *bv);

#endif
