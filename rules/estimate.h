/* rules/estimate.h: estimate which stones are dead on a finished board,
 * without a neural network, so that the players can confirm a count.
 *
 * Two stages, both on a plain gs_position:
 *   1. Benson's unconditional life (rules_estimate_benson): chains that no
 *      sequence of moves can capture, and the small regions they enclose;
 *      enemy stones inside such a region are certainly dead.
 *   2. Monte-Carlo ownership: many random playouts from the position, both
 *      sides playing random legal moves that fill no own eye and (for
 *      chains of more than one stone) make no self-atari, to the end (with
 *      two answers a player would give to the last move first: take a chain
 *      it left in atari or save one of ours, and half the time play next to
 *      it, so that territory owners answer invasions); then
 *      the area owner of every point.  A whole chain is dead when its points
 *      end owned by the opponent in more than `dead_threshold` of the
 *      playouts.  Seki comes out of the same playouts: both chains survive
 *      and their shared liberties stay empty; such chains are reported in
 *      `seki` and live, their shared liberties are dame in the count.
 *
 * The result is an ESTIMATE for the players to confirm, never a verdict
 * (RULES.md Art. 8: dead and alive are what both players agree on).
 * Deterministic: the same position, options and seed give the same answer.
 * Everything is plain data owned by the caller; nothing is kept between
 * calls.
 */
#ifndef RULES_ESTIMATE_H
#define RULES_ESTIMATE_H

#include "core/gs.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RULES_ESTIMATE_POINTS (GS_MAX_SIZE * GS_MAX_SIZE)

typedef struct rules_estimate_options {
    int playouts;           /* playouts to run at most; 0 = default (1000) */
    double time_budget_ms;  /* stop early past this much CPU time of the
                               calling thread (not wall time, so the load of
                               the machine does not change the answer);
                               0 = default (500 ms), < 0 = no limit */
    double dead_threshold;  /* 0 = default (0.5): a chain is dead when the
                               opponent owns its points in more than this
                               share of the playouts (its likelier owner) */
    uint64_t seed;          /* 0 = default fixed seed */
    gs_color to_move;       /* side to move first in the playouts; GS_EMPTY =
                               alternate (half the playouts each side) */
} rules_estimate_options;

/* Per-point marks in rules_estimate_result.status. */
enum {
    RULES_ESTIMATE_ALIVE = 0,  /* stone alive, or empty point */
    RULES_ESTIMATE_DEAD = 1,   /* stone estimated dead */
    RULES_ESTIMATE_SEKI = 2,   /* stone alive in seki */
    RULES_ESTIMATE_SAFE = 3    /* stone unconditionally alive (Benson) */
};

typedef struct rules_estimate_result {
    int size;
    uint8_t status[RULES_ESTIMATE_POINTS];   /* RULES_ESTIMATE_* per point,
                                                row-major as gs_position */
    uint8_t dead[RULES_ESTIMATE_POINTS];     /* 1 = stone estimated dead (the
                                                mask a count takes) */
    float ownership[RULES_ESTIMATE_POINTS];  /* mean area owner over the
                                                playouts: +1 black .. -1 white */
    int playouts;                            /* playouts actually run */
    int dead_black, dead_white;              /* dead stones of each colour */
    int seki_stones;                         /* stones marked seki */
    int uncertain_chains;                    /* chains whose share was within
                                                0.15 of the threshold */
    uint8_t uncertain[RULES_ESTIMATE_POINTS]; /* 1 = stone of such a chain:
                                                the players should look at
                                                these first */
    int captured_stones;                     /* stones of chains without any
                                                liberty (left on the board
                                                after a capture, or misread):
                                                counted dead, included in
                                                dead_black / dead_white */
    double ms;                               /* wall time taken */
} rules_estimate_result;

/* Fills o with the defaults above. */
void rules_estimate_default_options(rules_estimate_options *o);

/* Benson's unconditional life for colour c: alive[i] = 1 for every stone of
 * an unconditionally alive chain of c, and 2 for every point (empty or enemy
 * stone) of a region that is vital to such a chain, where the enemy can never
 * live.  Other points 0.  alive has size*size entries. */
void rules_estimate_benson(const gs_position *pos, gs_color c, uint8_t *alive);

/* Estimates the dead stones of pos (opt NULL = defaults).  GS_ERR_USAGE for
 * a bad size.  out is filled completely. */
gs_status rules_estimate_dead(const gs_position *pos, const rules_estimate_options *opt,
                              rules_estimate_result *out, gs_error *err);

#ifdef __cplusplus
}
#endif
#endif
