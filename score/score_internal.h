/* score/score_internal.h: what the files of score/ share; not part of the
 * public interface (score.h).
 *
 *   count.c       the count of an input: its reading, dead stones, count
 *   count_draw.c  the count drawn: over the photo, or a diagram
 *   count_sgf.c   the count written as SGF
 *   count_range.c the range over the readings the doubt allows
 *   fix.c         the count put right by hand (the count page)
 *   words.c, json.c, check.c: the words, the JSON, a recorded game
 */
#ifndef SCORE_INTERNAL_H
#define SCORE_INTERNAL_H

#include "score/score.h"

#include "rules/rules.h"

struct vision_grid;

/* The chains a change at the points changed reaches (into near, per
 * point): those that hold or touch a changed point, and those round the
 * empty regions that hold or touch one (an eye filled or opened). */
void score_near_chains(const gs_position *pos, const int *changed, int nchanged, uint8_t *near);

/* Sets mark[p] = v for every stone of the chain of the stone at start. */
void score_mark_chain(const gs_position *pos, int start, uint8_t *mark, uint8_t v);

/* The last stage of every count: whether it looks finished (an unfinished
 * one is never sure), and a confirmed one is sure. */
void score_count_finish(score_count_result *r);

/* The count drawn (count_draw.c): over photo with its grid, or, photo
 * NULL, as a diagram of the board.  A new image; NULL without memory. */
gs_image *score_count_draw(const score_count_result *r, const gs_image *photo, const struct vision_grid *grid);

#endif
