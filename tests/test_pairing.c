/* tests/test_pairing.c: a round's pairings read from OpenGotha's tournament
 * file and from the plain CSV (tests/pairings/, written by hand in
 * OpenGotha's shape), and malformed files refused with one line naming the
 * file, the line and the problem. */
#include "testutil.h"

#include "pairing/pairing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *path_of(const char *name)
{
    static char p[512];
    snprintf(p, sizeof p, "%s/tests/pairings/%s", GS_SOURCE_DIR, name);
    return p;
}

static void expect_board(const pairing_round *r, int table, const char *black, const char *brank, const char *white,
                         const char *wrank, int handicap, double komi)
{
    const pairing_board *b = pairing_board_at(r, table);
    assert_non_null(b);
    assert_string_equal(b->black, black);
    assert_string_equal(b->black_rank, brank);
    assert_string_equal(b->white, white);
    assert_string_equal(b->white_rank, wrank);
    assert_int_equal(b->handicap, handicap);
    assert_true(b->has_komi);
    assert_true(b->komi == komi);
}

/* Round 3 of the club's file: four boards; the players named by their
 * keys (accents, '&' and spaces in names too), the tournament's komi for
 * even games, 0.5 with a handicap. */
static void test_opengotha_round(void **state)
{
    (void)state;
    pairing_round r;
    gs_error err = {0};
    assert_int_equal(pairing_read(path_of("club-r3.xml"), 0, &r, &err), GS_OK);
    assert_string_equal(r.format, "opengotha");
    assert_string_equal(r.event, "Spring Club Cup");
    assert_string_equal(r.place, "Utrecht");
    assert_string_equal(r.date, "2025-03-01");
    assert_int_equal(r.round, 3); /* the last round of the file */
    assert_int_equal(r.nboards, 4);
    expect_board(&r, 1, "J\xc3\xb6rg M\xc3\xbcller", "1k", "Anna de Vries", "2d", 0, 6.5);
    expect_board(&r, 2, "Chen Li", "3k", "Bram Jansen", "1d", 0, 6.5);
    expect_board(&r, 3, "Daan Bakker", "7k", "\xc3\x89lodie Martin", "5k", 2, 0.5);
    expect_board(&r, 4, "Finn Visser", "12k", "Eva Smit & Co", "10k", 0, 6.5);
    assert_false(pairing_board_at(&r, 4)->colors_known);
    assert_null(pairing_board_at(&r, 5));
    pairing_round_free(&r);
    /* an earlier round, with its results */
    assert_int_equal(pairing_read(path_of("club-r3.xml"), 1, &r, &err), GS_OK);
    assert_int_equal(r.nboards, 2);
    assert_string_equal(pairing_board_at(&r, 1)->result, "W+");
    pairing_round_free(&r);
    assert_int_equal(pairing_read(path_of("club-r3.xml"), 4, &r, &err), GS_ERR_USAGE);
    assert_non_null(strstr(err.msg, "no game of round 4 (the file pairs rounds 1 to 3)"));
}

static void test_csv_round(void **state)
{
    (void)state;
    pairing_round r;
    gs_error err = {0};
    assert_int_equal(pairing_read(path_of("club-r3.csv"), 0, &r, &err), GS_OK);
    assert_string_equal(r.format, "csv");
    assert_int_equal(r.nboards, 4);
    expect_board(&r, 1, "J\xc3\xb6rg M\xc3\xbcller", "1k", "Anna de Vries", "2d", 0, 6.5);
    expect_board(&r, 3, "Daan Bakker", "7k", "\xc3\x89lodie Martin", "5k", 2, 0.5);
    const pairing_board *b4 = pairing_board_at(&r, 4);
    assert_string_equal(b4->white, "Eva Smit, jr.");
    assert_false(b4->has_komi); /* an empty komi: the recorder's default */
    pairing_round_free(&r);
}

/* Each malformed text and the start of its one-line error. */
static void test_malformed(void **state)
{
    (void)state;
    static const struct { const char *text, *msg; } cases[] = {
        {"", "t: empty file"},
        {"board,black\n1,A\n", "t:1: the header lacks a column (board, black and white are needed): 'white'"},
        {"board,black,white,elo\n", "t:1: unknown column (columns: board, black, white, black_rank, white_rank, "
                                    "handicap, komi): 'elo'"},
        {"board,black,white\n1,A,B\nx,C,D\n", "t:3: board is not a number 1..9999: 'x'"},
        {"board,black,white\n1,A,B\n1,C,D\n", "t:3: board 1 given twice (also line 2)"},
        {"board,black,white,handicap\n1,A,B,12\n", "t:2: handicap is not 0..9: '12'"},
        {"board,black,white,komi\n1,A,B,6.3\n", "t:2: komi is not a number of points"},
        {"board,black,white,black_rank\n1,A,B,3x\n", "t:2: black_rank is not a rank"},
        {"board,black,white\n1,\"A,B\n", "t:2: quoted field not closed"},
        {"board,black,white\n1,,B\n", "t:2: black: a name of 1..95 bytes"},
        {"board,black,white\n# only a comment\n", "t: no board in it"},
        {"<Tournament><Players></Tournament>", "t:1: </Tournament> closes <Players>"},
        {"<Tournament>\n<Players>\n", "t:3: the file ends inside <Players>"},
        {"<Games/>", "t:1: not an OpenGotha tournament file (its root is <Games>, not <Tournament>)"},
        {"<Tournament><Player name=\"A\" rank=3D/></Tournament>", "t:1: an attribute value must be quoted"},
        {"<Tournament><Player name=\"A&B\"/></Tournament>", "t:1: '&' that starts no entity (write &amp;)"},
        {"<Tournament><Player name=\"A&eacute;\"/></Tournament>", "t:1: unknown entity"},
        {"<Tournament>\n<Players><Player name=\"A\" firstName=\"B\" rank=\"3D\"/></Players>\n<Games>\n"
         "<Game roundNumber=\"1\" tableNumber=\"1\" whitePlayer=\"AB\" blackPlayer=\"CD\"/></Games></Tournament>",
         "t:4: the game names a player who is not among the <Player>s: 'CD'"},
        {"<Tournament><Players/><Games/></Tournament>", "t: no <Game> in it: the round is not paired yet"},
        {"<Tournament><Player name=\"A\" rank=\"40K\"/></Tournament>", "t:1: not a rank (like 3D, 12K, 1P): '40K'"},
        {"<?xml version=\"1.0\" encoding=\"Shift_JIS\"?><Tournament/>", "t:1: encoding \"shift_jis\" not supported"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pairing_round r;
        gs_error err = {0};
        gs_status st = pairing_parse("t", cases[i].text, strlen(cases[i].text), 0, &r, &err);
        if (st == GS_OK || strncmp(err.msg, cases[i].msg, strlen(cases[i].msg)))
            print_message("case %zu: status %d, message \"%s\"\n", i, (int)st, err.msg);
        assert_int_not_equal(st, GS_OK);
        assert_memory_equal(err.msg, cases[i].msg, strlen(cases[i].msg));
        assert_null(strchr(err.msg, '\n'));
        pairing_round_free(&r);
    }
}

/* A Latin-1 file (what an older export may declare) reads as UTF-8. */
static void test_latin1_declared(void **state)
{
    (void)state;
    const char *text = "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<Tournament><Players>"
                       "<Player name=\"M\xfcller\" firstName=\"J\xf6rg\" rank=\"1K\"/>"
                       "<Player name=\"Li\" firstName=\"Chen\" rank=\"3K\"/></Players><Games>"
                       "<Game roundNumber=\"1\" tableNumber=\"2\" whitePlayer=\"M\xdcLLERJ\xd6RG\" blackPlayer=\"LICHEN\"/>"
                       "</Games></Tournament>";
    pairing_round r;
    gs_error err = {0};
    assert_int_equal(pairing_parse("t", text, strlen(text), 0, &r, &err), GS_OK);
    assert_string_equal(pairing_board_at(&r, 2)->white, "J\xc3\xb6rg M\xc3\xbcller");
    assert_false(pairing_board_at(&r, 2)->has_komi); /* the file gives no komi */
    pairing_round_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_opengotha_round),
        cmocka_unit_test(test_csv_round),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_latin1_declared),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
