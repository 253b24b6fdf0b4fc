/* samples/render_internal.h: helpers shared by the render_*.c files only
 * (not part of the public API). */
#ifndef RENDER_INTERNAL_H
#define RENDER_INTERNAL_H

#include <stdint.h>

#define RENDER_VARIANTS 8   /* stone looks per colour */

/* xorshift64* step on a caller-owned state (non-zero). */
uint64_t render_rng_next(uint64_t *s);
/* Uniform in [0, 1). */
double render_rng_uniform(uint64_t *s);
double render_rng_range(uint64_t *s, double lo, double hi);
/* A non-zero state derived from a seed and a salt (splitmix64). */
uint64_t render_rng_seed(uint64_t seed, uint64_t salt);

#endif
