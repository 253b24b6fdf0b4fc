/* rules/estimate_benson.c: Benson's unconditional life (see rules/rules.h).
 *
 * Chains of colour c and the regions they enclose (maximal connected sets of
 * points that are not c) are found by flood fill; then, as in Benson (1976),
 * chains with fewer than two vital regions and regions touching a dropped
 * chain are removed until nothing changes.  A region is vital to a chain
 * when every empty point of it is a liberty of that chain.  Plain arrays on
 * the stack: at most 625 points. */
#include "rules/rules.h"

#include <string.h>

enum { MAXP = RULES_ESTIMATE_POINTS, MAXB = 16 /* chains bordering one region, kept at most */ };

typedef struct {
    int n, size;
    int nb[MAXP][4];
    int nn[MAXP];
} grid_t;

static void grid_init(grid_t *g, int size)
{
    g->size = size;
    g->n = size * size;
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++) {
            int i = y * size + x, k = 0;
            if (x > 0) g->nb[i][k++] = i - 1;
            if (x < size - 1) g->nb[i][k++] = i + 1;
            if (y > 0) g->nb[i][k++] = i - size;
            if (y < size - 1) g->nb[i][k++] = i + size;
            g->nn[i] = k;
        }
}

/* Labels the connected components of points for which in(cell) holds;
 * label -1 elsewhere.  Returns the number of components. */
static int label(const grid_t *g, const uint8_t *cell, int want_c, int c, int *lab)
{
    int stack[MAXP], count = 0;
    for (int i = 0; i < g->n; i++) lab[i] = -1;
    for (int i = 0; i < g->n; i++) {
        bool in = want_c ? cell[i] == c : cell[i] != c;
        if (!in || lab[i] >= 0) continue;
        int sp = 0;
        stack[sp++] = i;
        lab[i] = count;
        while (sp) {
            int p = stack[--sp];
            for (int k = 0; k < g->nn[p]; k++) {
                int q = g->nb[p][k];
                bool qin = want_c ? cell[q] == c : cell[q] != c;
                if (qin && lab[q] < 0) {
                    lab[q] = count;
                    stack[sp++] = q;
                }
            }
        }
        count++;
    }
    return count;
}

/* The regions of colour c's chains: for each region the chains bordering
 * it and whether it is vital to each. */
typedef struct regions_t {
    int nbord[MAXP];
    int bord[MAXP][MAXB];
    bool vital[MAXP][MAXB];
    bool has_empty[MAXP], overflow[MAXP];
} regions_t;

/* The chains bordering each region; a region with more than MAXB bordering
 * chains overflows and is dropped from the start (rare; only makes the
 * answer more cautious). */
static void find_borders(const grid_t *g, const int *chain, const int *region, const uint8_t *cell, regions_t *R)
{
    memset(R->overflow, 0, sizeof R->overflow);
    memset(R->nbord, 0, sizeof R->nbord);
    memset(R->has_empty, 0, sizeof R->has_empty);
    for (int i = 0; i < g->n; i++) {
        int r = region[i];
        if (r < 0) continue;
        if (cell[i] == GS_EMPTY) R->has_empty[r] = true;
        for (int k = 0; k < g->nn[i]; k++) {
            int q = g->nb[i][k];
            if (chain[q] < 0) continue;
            int ch = chain[q], j;
            for (j = 0; j < R->nbord[r] && R->bord[r][j] != ch; j++) {}
            if (j == R->nbord[r] && R->nbord[r] == MAXB) R->overflow[r] = true;
            else if (j == R->nbord[r]) {
                R->bord[r][R->nbord[r]] = ch;
                R->vital[r][R->nbord[r]] = true;
                R->nbord[r]++;
            }
        }
    }
}

/* Vital: the region has an empty point and every empty point of it touches
 * the chain. */
static void find_vital(const grid_t *g, const int *chain, const int *region, int nregions, const uint8_t *cell,
                       regions_t *R)
{
    for (int i = 0; i < g->n; i++) {
        int r = region[i];
        if (r < 0 || cell[i] != GS_EMPTY) continue;
        for (int j = 0; j < R->nbord[r]; j++) {
            if (!R->vital[r][j]) continue;
            bool touches = false;
            for (int k = 0; k < g->nn[i]; k++)
                if (chain[g->nb[i][k]] == R->bord[r][j]) touches = true;
            if (!touches) R->vital[r][j] = false;
        }
    }
    for (int r = 0; r < nregions; r++)
        if (!R->has_empty[r])
            for (int j = 0; j < R->nbord[r]; j++) R->vital[r][j] = false;
}

/* Benson's reduction: drop the chains with fewer than two vital regions
 * and the regions that touch a dropped chain, until nothing changes. */
static void reduce(const regions_t *R, int nchains, int nregions, bool *chain_in, bool *region_in)
{
    for (int k = 0; k < nchains; k++) chain_in[k] = true;
    for (int r = 0; r < nregions; r++) region_in[r] = !R->overflow[r];
    for (bool changed = true; changed;) {
        changed = false;
        int nvital[MAXP];
        memset(nvital, 0, sizeof(int) * (size_t)nchains);
        for (int r = 0; r < nregions; r++) {
            if (!region_in[r]) continue;
            for (int j = 0; j < R->nbord[r]; j++)
                if (R->vital[r][j]) nvital[R->bord[r][j]]++;
        }
        for (int k = 0; k < nchains; k++)
            if (chain_in[k] && nvital[k] < 2) {
                chain_in[k] = false;
                changed = true;
            }
        for (int r = 0; r < nregions; r++) {
            if (!region_in[r]) continue;
            for (int j = 0; j < R->nbord[r]; j++)
                if (!chain_in[R->bord[r][j]]) {
                    region_in[r] = false;
                    changed = true;
                    break;
                }
        }
    }
}

void rules_estimate_benson(const gs_position *pos, gs_color c, uint8_t *alive)
{
    if (!pos || !alive || pos->size < 2 || pos->size > GS_MAX_SIZE) return;
    grid_t g;
    grid_init(&g, pos->size);
    const uint8_t *cell = pos->cell;
    memset(alive, 0, (size_t)g.n);

    int chain[MAXP], region[MAXP];
    int nchains = label(&g, cell, 1, c, chain);
    int nregions = label(&g, cell, 0, c, region);
    if (nchains == 0 || nregions == 0) return;

    regions_t R;
    find_borders(&g, chain, region, cell, &R);
    find_vital(&g, chain, region, nregions, cell, &R);
    bool chain_in[MAXP], region_in[MAXP];
    reduce(&R, nchains, nregions, chain_in, region_in);
    for (int i = 0; i < g.n; i++) {
        if (chain[i] >= 0 && chain_in[chain[i]]) alive[i] = 1;
    }
    /* Regions left, vital to a living chain: the enemy can never live there. */
    for (int i = 0; i < g.n; i++) {
        int r = region[i];
        if (r < 0 || !region_in[r]) continue;
        for (int j = 0; j < R.nbord[r]; j++)
            if (R.vital[r][j] && chain_in[R.bord[r][j]]) {
                alive[i] = 2;
                break;
            }
    }
}
