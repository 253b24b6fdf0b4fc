/* tests/testvision.h: the detector's entry points as the tests of vision/
 * ask for them, each with a detector of the default parameters. */
#ifndef TESTVISION_H
#define TESTVISION_H

#include "vision/vision.h"

#include <stdlib.h>
#include <string.h>

/* The default parameters (vision_params_init). */
static inline const vision_params *test_params(void)
{
    static vision_params p;
    vision_params_init(&p);
    return &p;
}

/* One detection with the looks given (NULL: a photo's); *res malloc'd
 * inside, its grid and, when info is given, the finder's diagnostics
 * copied out; reading (may be NULL) gets the reading. */
static inline gs_status test_detect(const gs_image *img, const vision_request *rq, vision_grid *g,
                                    vision_grid_find_info *info, vision_reading *reading, gs_error *e)
{
    if (g) memset(g, 0, sizeof *g);
    vision_detector *d = vision_detector_create(NULL);
    vision_result *r = malloc(sizeof *r);
    gs_status st = d && r ? vision_detect_photo(d, img, rq, r, e) : gs_error_set(e, GS_ERR_NOMEM, "out of memory");
    if (d && r) {
        if (g) *g = r->grid;
        if (info) *info = r->info;
        if (reading) *reading = r->reading;
    }
    free(r);
    vision_detector_destroy(d);
    return st;
}

/* The board finder alone, a photo's search on the image as it is (no
 * brightening: what the finder's tests measure). */
static inline gs_status test_grid_find(const gs_image *img, int hint, vision_grid *g, vision_grid_find_info *info,
                                       gs_error *e)
{
    static const vision_looks search = {.wider = 1};
    const vision_request rq = {.size_hint = hint, .find_only = 1, .looks = &search};
    return test_detect(img, &rq, g, info, NULL, e);
}

/* A plain reading of every point of g (none of a photo's looks). */
static inline gs_status test_read(const gs_image *img, const vision_grid *g, vision_reading *out, gs_error *e)
{
    static const vision_looks none = {0};
    const vision_request rq = {.grid = g, .looks = &none};
    return test_detect(img, &rq, NULL, NULL, out, e);
}

/* A photo's whole detection (goscribe scan), into *res. */
static inline gs_status test_scan(const gs_image *img, vision_result *res, gs_error *e)
{
    vision_detector *d = vision_detector_create(NULL);
    gs_status st = d ? vision_detect_photo(d, img, NULL, res, e) : gs_error_set(e, GS_ERR_NOMEM, "out of memory");
    vision_detector_destroy(d);
    return st;
}

#endif
