/* record/occlusion.h: points covered by something reaching in from outside
 * the board (a hand resting on the edge, an arm, a sleeve).
 *
 * A settled view may hold a hand that stayed still for the settle time, so
 * stillness alone cannot keep hands out of the record.  A hand always
 * comes from outside the board; a stone never touches the outside.  So the
 * view is compared, on a lattice of board coordinates every quarter cell
 * from 1.5 cells outside the outer lines inwards, with a reference view
 * known to be clear, and the changed samples connected to the outer ring
 * of the lattice are what reached in.  Every intersection within about
 * half a cell of them is "covered": the recorder takes the record's value
 * there, and the view after the hand has left reads it.
 * A change over most of the board (light, camera moved) says nothing about
 * hands: no point is covered then.
 *
 * Ownership: occlusion_create returns an object freed by occlusion_destroy
 * (NULL safe); it keeps a copy of the reference view.
 */
#ifndef RECORD_OCCLUSION_H
#define RECORD_OCCLUSION_H

#include "core/gs.h"
#include "vision/vision.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct occlusion occlusion;

occlusion *occlusion_create(void);
void occlusion_destroy(occlusion *o);

/* Forgets the reference (the grid changed: board found again, new size). */
void occlusion_reset(occlusion *o);

/* Marks in covered[size*size] (1 = covered) the points of view `img`
 * under grid g that something from outside covers, and returns how many.
 * *reaching (may be NULL) tells whether anything from outside crosses the
 * outer lines at all, even too small to cover a point (fingers at the
 * edge): the margin is not to be trusted then.  When nothing reaches in
 * the view becomes the new reference; the first view (no reference yet)
 * is taken as clear.  On a copy failure (out of memory) nothing is marked. */
int occlusion_mark(occlusion *o, const gs_image *img, const vision_grid *g, uint8_t *covered, bool *reaching);

#ifdef __cplusplus
}
#endif

#endif
