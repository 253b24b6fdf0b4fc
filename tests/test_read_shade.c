/* tests/test_read_shade.c: the reading's look for a low lamp
 * (vision_shadows_clear, what vision_read_shade decides on a photo's
 * measures), table-driven.  Each case: a board as the rules read it, a
 * lamp, and the points that must be read empty and marked unsure.  Boards
 * are rows of
 *   '.'  empty wood
 *   'B'  a black stone (its glare on the lamp's side)
 *   'W'  a white stone (bright on the lamp's side, dim on the other)
 *   's'  a cast shadow read as black: dark on the side of the stone that
 *        casts it, the wood in half light on the other
 *   'u'  the same, read black but unsure already
 *   'b'  a black stone set off its point towards the lamp: a shadow's
 *        pattern, but with no stone beside it on that side to cast one
 * and the halves of each point's ring are made from its letter and the
 * lamp, as vision_read_shade measures them (brightness / wood's). */
#include "tests/testutil.h"

#include <string.h>

#include "vision/vision.h"
#include "vision/vision_internal.h"

/* where the lamp stands, as vision_stone_halves orders the halves */
typedef enum { LAMP_ABOVE = -1, LAMP_PU = 0, LAMP_MU = 1, LAMP_PV = 2, LAMP_MV = 3 } lamp;

typedef struct shade_case {
    const char *name;
    const char *board; /* rows of the letters above */
    lamp lamp;
    float white_lit, white_dim; /* a white stone's lamp side and other side */
    const char *expect;         /* same rows: '?' where the point must be read empty, marked */
} shade_case;

static int opposite(int side) { return side ^ 1; }

/* The halves of one point for its letter under lamp l. */
static void halves_of(char c, lamp l, float white_lit, float white_dim, float side[4])
{
    float all = c == 'W' ? (white_lit + white_dim) / 2 : c == '.' ? 1.0f : c == 's' || c == 'u' ? 0.2f : 0.02f;
    for (int d = 0; d < 4; d++) side[d] = all;
    if (l == LAMP_ABOVE) return;
    int lit = l, far = opposite(l);
    switch (c) {
    case 'W': side[lit] = white_lit; side[far] = white_dim; break;
    case 'B': side[lit] = 0.3f; break;                    /* glare */
    case 's':
    case 'u': side[lit] = 0.05f; side[far] = 0.5f; break; /* the caster's side dark */
    case 'b': side[far] = 0.5f; break;                    /* set off towards the lamp */
    default: break;
    }
}

/* The case's board: its letters, and the halves each letter has. */
typedef struct board_halves {
    const shade_case *c;
    char letter[GS_MAX_SIZE * GS_MAX_SIZE];
    int asked[GS_MAX_SIZE * GS_MAX_SIZE];
} board_halves;

static void case_halves(void *ctx, int i, float side[4])
{
    board_halves *b = ctx;
    b->asked[i]++;
    halves_of(b->letter[i], b->c->lamp, b->c->white_lit, b->c->white_dim, side);
}

/* Reads the rows into the reading r (every point sure but the 'u') and b;
 * returns N. */
static int setup(const shade_case *c, vision_reading *r, board_halves *b)
{
    memset(r, 0, sizeof *r);
    memset(b, 0, sizeof *b);
    b->c = c;
    int N = 0, i = 0;
    for (const char *s = c->board; *s; s++) {
        if (*s == '\n') continue;
        r->pos.cell[i] = (uint8_t)(*s == 'W' ? GS_WHITE : *s == '.' ? GS_EMPTY : GS_BLACK);
        r->confidence[i] = *s == 'u' ? 0.5f : 1;
        r->unsure[i] = *s == 'u';
        r->uncertain += *s == 'u';
        b->letter[i++] = *s;
    }
    while (N * N < i) N++;
    assert_int_equal(N * N, i);
    r->pos.size = N;
    return N;
}

/* Stones each casting its shadow over the point to its right (read black),
 * and a black stone right of a white one (its glare on the lamp's side). */
#define SHADOWS_RIGHT \
    ".........\n"    \
    ".Ws......\n"    \
    ".........\n"    \
    "...Bs....\n"    \
    ".........\n"    \
    ".....WBs.\n"    \
    ".........\n"    \
    ".Ws...Ws.\n"    \
    ".........\n"
/* no point doubted */
#define NOTHING ".........\n.........\n.........\n.........\n.........\n.........\n.........\n.........\n.........\n"

static const shade_case cases[] = {
    {"a lamp low on the left: each stone's shadow to its right is doubted, the stones are not",
     SHADOWS_RIGHT,
     LAMP_MU, 3.0f, 0.9f,
     ".........\n"
     "..?......\n"
     ".........\n"
     "....?....\n"
     ".........\n"
     ".......?.\n"
     ".........\n"
     "..?....?.\n"
     ".........\n"},
    {"the same board under a lamp above: nothing doubted",
     SHADOWS_RIGHT,
     LAMP_ABOVE, 1.4f, 1.4f,
     NOTHING},
    {"a lamp off to the left but not low (lit side 1.5 times the other): nothing doubted",
     SHADOWS_RIGHT,
     LAMP_MU, 1.8f, 1.2f,
     NOTHING},
    {"a lamp low at the top: shadows fall below the stones, an unsure one too",
     ".........\n"
     ".W...B...\n"
     ".s...u...\n"
     ".........\n"
     "...W.....\n"
     "...s.....\n"
     ".........\n"
     "......W..\n"
     "......B..\n",
     LAMP_MV, 3.0f, 0.9f,
     ".........\n"
     ".........\n"
     ".?...?...\n"
     ".........\n"
     ".........\n"
     "...?.....\n"
     ".........\n"
     ".........\n"
     ".........\n"},
    {"a shadow's pattern with no stone beside it on the lamp's side: kept",
     ".........\n"
     ".W.......\n"
     ".........\n"
     "...W.....\n"
     ".........\n"
     ".....W.b.\n"
     ".........\n"
     ".........\n"
     ".........\n",
     LAMP_MU, 3.0f, 0.9f,
     NOTHING},
    {"two white stones say nothing of the light: nothing doubted",
     ".........\n"
     ".Ws......\n"
     ".........\n"
     "...Bs....\n"
     ".........\n"
     ".........\n"
     ".........\n"
     ".Ws......\n"
     ".........\n",
     LAMP_MU, 3.0f, 0.9f,
     NOTHING},
};

static void test_shade_table(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const shade_case *c = &cases[k];
        vision_reading r;
        board_halves b;
        int N = setup(c, &r, &b);
        vision_reading before = r;
        vision_params P;
        vision_params_init(&P);
        int cleared = vision_shadows_clear(&P, case_halves, &b, N, &r), expected = 0, newly = 0, i = 0;
        for (const char *e = c->expect; *e; e++) {
            if (*e == '\n') continue;
            expected += *e == '?';
            newly += *e == '?' && !before.unsure[i];
            int doubted = r.confidence[i] < P.unsure;
            if (doubted != (*e == '?') || r.unsure[i] != doubted)
                fail_msg("%s: point %d,%d %s", c->name, i / N, i % N, doubted ? "doubted" : "not doubted");
            /* a shadow is read empty; every other point keeps its reading */
            assert_int_equal(r.pos.cell[i], *e == '?' ? GS_EMPTY : before.pos.cell[i]);
            /* only stones are measured (the wood's points cost nothing) */
            if (b.letter[i] == '.') assert_int_equal(b.asked[i], 0);
            i++;
        }
        assert_int_equal(i, N * N);
        assert_int_equal(cleared, expected);
        assert_int_equal(r.uncertain, before.uncertain + newly);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shade_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
