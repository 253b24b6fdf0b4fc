/* tests/test_sgf.c: the SGF reader and writer (sgf/sgf.h). */
#define _GNU_SOURCE
#include "testutil.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sgf/sgf.h"

/* ---------------------------------------------------------------- helpers */

static sgf_tree *parse_ok(const char *s, size_t len)
{
    sgf_tree *t = NULL;
    gs_error e = {0};
    gs_status st = sgf_parse(s, len, &t, &e);
    if (st != GS_OK) print_message("unexpected parse error: %s\n", e.msg);
    assert_int_equal(st, GS_OK);
    assert_non_null(t);
    return t;
}

static sgf_tree *parse_str(const char *s) { return parse_ok(s, strlen(s)); }

/* Parses s expecting GS_ERR_FORMAT with `where` in the message. */
static void parse_fails(const char *s, size_t len, const char *where)
{
    sgf_tree *t = (sgf_tree *)1;
    gs_error e = {0};
    gs_status st = sgf_parse(s, len, &t, &e);
    if (st == GS_OK) sgf_tree_destroy(t);
    assert_int_equal(st, GS_ERR_FORMAT);
    assert_null(t);
    if (where && !strstr(e.msg, where)) {
        print_message("error \"%s\" lacks \"%s\"\n", e.msg, where);
        fail();
    }
}

/* Next node in preorder, no recursion. */
static const sgf_node *next_pre(const sgf_node *n)
{
    if (sgf_node_child_count(n)) return sgf_node_child(n, 0);
    while (n) {
        if (sgf_node_next_sibling(n)) return sgf_node_next_sibling(n);
        n = sgf_node_parent(n);
    }
    return NULL;
}

/* True when both trees have the same shape, properties and raw values. */
static bool same_tree(const sgf_tree *a, const sgf_tree *b)
{
    if (sgf_tree_game_count(a) != sgf_tree_game_count(b)) return false;
    for (size_t g = 0; g < sgf_tree_game_count(a); g++) {
        const sgf_node *x = sgf_tree_root(a, g), *y = sgf_tree_root(b, g);
        while (x && y) {
            if (sgf_node_child_count(x) != sgf_node_child_count(y)) return false;
            if (sgf_node_prop_count(x) != sgf_node_prop_count(y)) return false;
            for (size_t i = 0; i < sgf_node_prop_count(x); i++) {
                const sgf_prop *p = sgf_node_prop(x, i), *q = sgf_node_prop(y, i);
                if (strcmp(sgf_prop_id(p), sgf_prop_id(q)) != 0) return false;
                if (sgf_prop_value_count(p) != sgf_prop_value_count(q)) return false;
                for (size_t j = 0; j < sgf_prop_value_count(p); j++) {
                    size_t l1, l2;
                    const char *v1 = sgf_prop_raw(p, j, &l1), *v2 = sgf_prop_raw(q, j, &l2);
                    if (l1 != l2 || memcmp(v1, v2, l1) != 0) return false;
                }
            }
            x = next_pre(x);
            y = next_pre(y);
            /* Stay inside game g: preorder of a root ends at NULL. */
        }
        if (x || y) return false;
    }
    return true;
}

/* Writes t and parses the text back; returns the new tree. */
static sgf_tree *reparse(const sgf_tree *t)
{
    char *buf = NULL;
    size_t len = 0;
    gs_error e = {0};
    assert_int_equal(sgf_write(t, &buf, &len, &e), GS_OK);
    assert_non_null(buf);
    assert_int_equal(strlen(buf), len);
    sgf_tree *u = parse_ok(buf, len);
    free(buf);
    return u;
}

static void assert_roundtrip(const sgf_tree *t)
{
    sgf_tree *u = reparse(t);
    assert_true(same_tree(t, u));
    sgf_tree_destroy(u);
}

/* ------------------------------------------------------------------ tests */

static void test_basic_tree(void **state)
{
    (void)state;
    sgf_tree *t = parse_str("garbage before (;GM[1]FF[4]SZ[9];B[ee];W[dd]) trailing junk");
    assert_int_equal(sgf_tree_game_count(t), 1);
    const sgf_node *r = sgf_tree_root(t, 0);
    assert_string_equal(sgf_node_get_text(r, "SZ"), "9");
    assert_int_equal(sgf_node_line(r), 1);
    assert_int_equal(sgf_node_column(r), 17);
    const sgf_node *b = sgf_node_child(r, 0);
    assert_string_equal(sgf_node_get_text(b, "B"), "ee");
    assert_ptr_equal(sgf_node_parent(b), r);
    assert_ptr_equal(sgf_node_main_line_last(r), sgf_node_child(b, 0));
    assert_ptr_equal(sgf_node_root(sgf_node_child(b, 0)), r);
    assert_null(sgf_node_child(r, 1));
    assert_null(sgf_node_find(r, "XX"));
    assert_string_equal(sgf_tree_source_charset(t), "UTF-8");
    assert_roundtrip(t);
    sgf_tree_destroy(t);
    sgf_tree_destroy(NULL);
}

static void test_escapes(void **state)
{
    (void)state;
    const char *s = "(;C[a \\] b \\\\ c \\: d\te]GC[x\\]])";
    sgf_tree *t = parse_str(s);
    const sgf_node *r = sgf_tree_root(t, 0);
    const sgf_prop *c = sgf_node_find(r, "C");
    size_t len;
    assert_string_equal(sgf_prop_raw(c, 0, &len), "a \\] b \\\\ c \\: d\te");
    assert_string_equal(sgf_prop_text(c, 0, NULL), "a ] b \\ c : d e");
    assert_string_equal(sgf_node_get_text(r, "GC"), "x]");
    assert_roundtrip(t);
    /* Setting text escapes it so it reads back the same. */
    sgf_node *rw = sgf_tree_root(t, 0);
    assert_int_equal(sgf_node_set_text(rw, "C", "end ] and \\ back", NULL), GS_OK);
    assert_int_equal(sgf_node_prop_count(rw), 2);
    assert_string_equal(sgf_prop_id(sgf_node_prop(rw, 0)), "C");
    sgf_tree *u = reparse(t);
    assert_string_equal(sgf_node_get_text(sgf_tree_root(u, 0), "C"), "end ] and \\ back");
    sgf_tree_destroy(u);
    /* Raw values with an unescaped ']' are refused. */
    gs_error e;
    assert_int_equal(sgf_node_add_raw(rw, "XX", "a]b", &e), GS_ERR_USAGE);
    assert_int_equal(sgf_node_add_raw(rw, "XX", "a\\", &e), GS_ERR_USAGE);
    assert_int_equal(sgf_node_add_raw(rw, "xx", "ab", &e), GS_ERR_USAGE);
    sgf_tree_destroy(t);
}

static void test_soft_line_breaks(void **state)
{
    (void)state;
    sgf_tree *t = parse_str("(;C[one\\\ntwo\\\r\nthree\nfour\r\nfive\rsix])");
    assert_string_equal(sgf_node_get_text(sgf_tree_root(t, 0), "C"), "onetwothree\nfour\nfive\nsix");
    assert_roundtrip(t);
    sgf_tree_destroy(t);
}

static void test_crlf_and_positions(void **state)
{
    (void)state;
    const char *s = "(;GM[1]\r\nSZ[19]\r\n;B[pd]\r\n;W[dd]\r\n)\r\n";
    sgf_tree *t = parse_str(s);
    const sgf_node *r = sgf_tree_root(t, 0);
    assert_int_equal(sgf_node_line(sgf_node_child(r, 0)), 3);
    assert_int_equal(sgf_node_line(sgf_node_child(sgf_node_child(r, 0), 0)), 4);
    assert_roundtrip(t);
    sgf_tree_destroy(t);
    /* Errors after CRLF lines: line 3, column 4 (the 'x'). */
    const char *bad = "(;GM[1]\r\nSZ[19]\r\n;B[x\r\n";
    parse_fails(bad, strlen(bad), "line 3, column 3:");
    parse_fails("(;GM[1]\r\n;B[aa]\r\n;W[bb]?)", strlen("(;GM[1]\r\n;B[aa]\r\n;W[bb]?)"), "line 3, column 7:");
    /* Columns count characters, not bytes. */
    parse_fails("(;C[\xc3\xa9\xc3\xa9]!)", 11, "line 1, column 8:");
}

static void test_compressed_points(void **state)
{
    (void)state;
    sgf_tree *t = parse_str("(;SZ[9]AB[aa:cc][ee]AW[ic:ga]TB[])");
    const sgf_node *r = sgf_tree_root(t, 0);
    gs_point pts[32];
    size_t n;
    assert_int_equal(sgf_prop_points(sgf_node_find(r, "AB"), 9, pts, 32, &n, NULL), GS_OK);
    assert_int_equal(n, 10);
    assert_int_equal(pts[0].x, 0);
    assert_int_equal(pts[8].x, 2);
    assert_int_equal(pts[8].y, 2);
    assert_int_equal(pts[9].x, 4);
    /* Corners given in any order. */
    assert_int_equal(sgf_prop_points(sgf_node_find(r, "AW"), 9, pts, 32, &n, NULL), GS_OK);
    assert_int_equal(n, 9);
    gs_error e;
    assert_int_equal(sgf_prop_points(sgf_node_find(r, "TB"), 9, pts, 32, &n, &e), GS_ERR_FORMAT);
    assert_int_equal(sgf_prop_points(sgf_node_find(r, "AB"), 2, pts, 32, &n, &e), GS_ERR_FORMAT);
    /* Max smaller than the count: count still reported, no overflow. */
    assert_int_equal(sgf_prop_points(sgf_node_find(r, "AB"), 9, pts, 3, &n, NULL), GS_OK);
    assert_int_equal(n, 10);

    sgf_game g;
    assert_int_equal(sgf_game_from_tree(t, &g, NULL), GS_ERR_FORMAT); /* TB[] empty point */
    sgf_game_free(&g);
    sgf_tree_destroy(t);

    t = parse_str("(;SZ[9]AB[aa:cc][ee]AW[ic:ga];B[];W[tt];B[ii]TB[hh:ii]TW[dd])");
    assert_int_equal(sgf_game_from_tree(t, &g, NULL), GS_OK);
    assert_int_equal(gs_position_count(&g.setup, GS_BLACK), 10);
    assert_int_equal(gs_position_count(&g.setup, GS_WHITE), 9);
    assert_int_equal(gs_position_get(&g.setup, 2, 2), GS_BLACK);
    assert_int_equal(gs_position_get(&g.setup, 7, 1), GS_WHITE);
    assert_int_equal(g.move_count, 3);
    assert_true(g.moves[0].pass);
    assert_true(g.moves[1].pass);
    assert_false(g.moves[2].pass);
    assert_true(g.has_final_marks);
    assert_int_equal(gs_position_count(&g.final_marks, GS_BLACK), 4);
    assert_int_equal(gs_position_count(&g.final_marks, GS_WHITE), 1);
    sgf_game_free(&g);
    sgf_tree_destroy(t);
}

static void test_passes(void **state)
{
    (void)state;
    gs_point p;
    bool pass;
    assert_true(sgf_point_parse("", 0, 19, &p, &pass));
    assert_true(pass);
    assert_true(sgf_point_parse("tt", 2, 19, &p, &pass));
    assert_true(pass);
    assert_int_equal(p.x, -1);
    assert_true(sgf_point_parse("tt", 2, 21, &p, &pass));   /* a real point on 21x21 */
    assert_false(pass);
    assert_int_equal(p.x, 19);
    assert_false(sgf_point_parse("ss", 2, 9, &p, &pass));
    assert_false(sgf_point_parse("abc", 3, 19, &p, &pass));
    assert_false(sgf_point_parse("a1", 2, 19, &p, &pass));
    assert_true(sgf_point_parse("pd", 2, 19, &p, &pass));
    assert_int_equal(p.x, 15);
    assert_int_equal(p.y, 3);
    char buf[3];
    sgf_point_format(p, buf);
    assert_string_equal(buf, "pd");

    sgf_tree *t = parse_str("(;SZ[19];B[pd];W[];B[tt];W[dp])");
    sgf_game g;
    assert_int_equal(sgf_game_from_tree(t, &g, NULL), GS_OK);
    assert_int_equal(g.move_count, 4);
    assert_int_equal(g.moves[0].color, GS_BLACK);
    assert_int_equal(g.moves[1].color, GS_WHITE);
    assert_true(g.moves[1].pass);
    assert_true(g.moves[2].pass);
    assert_int_equal(g.moves[3].pt.x, 3);
    assert_int_equal(g.moves[3].pt.y, 15);
    sgf_game_free(&g);
    sgf_tree_destroy(t);
}

static void test_variations(void **state)
{
    (void)state;
    const char *s = "(;GM[1](;B[aa];W[bb](;B[cc])(;B[dd]))(;B[ee]))(;GM[1];B[ff])";
    sgf_tree *t = parse_str(s);
    assert_int_equal(sgf_tree_game_count(t), 2);
    const sgf_node *r = sgf_tree_root(t, 0);
    assert_int_equal(sgf_node_child_count(r), 2);
    assert_string_equal(sgf_node_get_text(sgf_node_child(r, 1), "B"), "ee");
    const sgf_node *w = sgf_node_child(sgf_node_child(r, 0), 0);
    assert_int_equal(sgf_node_child_count(w), 2);
    assert_string_equal(sgf_node_get_text(sgf_node_child(w, 1), "B"), "dd");
    assert_string_equal(sgf_node_get_text(sgf_node_main_line_last(r), "B"), "cc");
    assert_roundtrip(t);
    /* The main line skips variations. */
    sgf_game g;
    assert_int_equal(sgf_game_from_tree(t, &g, NULL), GS_OK);
    assert_int_equal(g.move_count, 3);
    assert_int_equal(g.moves[2].pt.x, 2);
    sgf_game_free(&g);
    sgf_tree_destroy(t);
}

static void test_unknown_and_ff3_properties(void **state)
{
    (void)state;
    sgf_tree *t = parse_str("(;GM[1]XYZZY[keep me][and me]AddBlack[aa]\n;B[aa]FOO[])");
    const sgf_node *r = sgf_tree_root(t, 0);
    const sgf_prop *x = sgf_node_find(r, "XYZZY");
    assert_non_null(x);
    assert_int_equal(sgf_prop_value_count(x), 2);
    assert_string_equal(sgf_prop_text(x, 1, NULL), "and me");
    assert_null(sgf_prop_text(x, 2, NULL));
    assert_non_null(sgf_node_find(r, "AB"));   /* FF[3] long name */
    assert_non_null(sgf_node_find(sgf_node_child(r, 0), "FOO"));
    assert_roundtrip(t);
    sgf_tree_destroy(t);
}

static void test_charsets(void **state)
{
    (void)state;
    /* GBK: 0x95 0x5D is one character whose second byte is ']'. */
    const char gbk[] = "(;PB[\x95\x5d\xd6\xd0]CA[GBK]PW[\xce\xa7\xc6\xe5]C[\x81\x5c])";
    sgf_tree *t = parse_ok(gbk, sizeof gbk - 1);
    const sgf_node *r = sgf_tree_root(t, 0);
    assert_string_equal(sgf_node_get_text(r, "PB"), "\xe6\x98\xa1\xe4\xb8\xad");
    assert_string_equal(sgf_node_get_text(r, "PW"), "\xe5\x9b\xb4\xe6\xa3\x8b");
    assert_string_equal(sgf_node_get_text(r, "C"), "\xe4\xb9\x97");
    assert_string_equal(sgf_node_get_text(r, "CA"), "UTF-8");
    assert_string_equal(sgf_tree_source_charset(t), "GB18030");
    assert_roundtrip(t);
    sgf_tree_destroy(t);

    const char gb2312[] = "(;CA[gb2312]PW[\xce\xa7\xc6\xe5])";
    t = parse_ok(gb2312, sizeof gb2312 - 1);
    assert_string_equal(sgf_node_get_text(sgf_tree_root(t, 0), "PW"), "\xe5\x9b\xb4\xe6\xa3\x8b");
    sgf_tree_destroy(t);

    const char latin1[] = "(;CA[ISO-8859-1]PB[Ren\xe9 M\xfcller])";
    t = parse_ok(latin1, sizeof latin1 - 1);
    assert_string_equal(sgf_node_get_text(sgf_tree_root(t, 0), "PB"), "Ren\xc3\xa9 M\xc3\xbcller");
    assert_string_equal(sgf_tree_source_charset(t), "ISO-8859-1");
    sgf_tree_destroy(t);

    /* No CA: valid UTF-8 stays; else EUC-CN-shaped -> GB18030; else Latin-1. */
    t = parse_str("(;PB[Ren\xc3\xa9])");
    assert_string_equal(sgf_node_get_text(sgf_tree_root(t, 0), "PB"), "Ren\xc3\xa9");
    sgf_tree_destroy(t);
    t = parse_str("(;PB[Ren\xe9])");
    assert_string_equal(sgf_node_get_text(sgf_tree_root(t, 0), "PB"), "Ren\xc3\xa9");
    sgf_tree_destroy(t);
    t = parse_str("(;PB[\xce\xa7\xc6\xe5])");
    assert_string_equal(sgf_node_get_text(sgf_tree_root(t, 0), "PB"), "\xe5\x9b\xb4\xe6\xa3\x8b");
    sgf_tree_destroy(t);
    /* CA says UTF-8 but the bytes are not: read as Latin-1, not rejected. */
    t = parse_str("(;CA[UTF-8]PB[\xe9t\xe9])");
    assert_string_equal(sgf_node_get_text(sgf_tree_root(t, 0), "PB"), "\xc3\xa9t\xc3\xa9");
    sgf_tree_destroy(t);
    /* Unknown charset name: fallback rules. */
    t = parse_str("(;CA[no-such-charset]PB[abc])");
    assert_string_equal(sgf_node_get_text(sgf_tree_root(t, 0), "PB"), "abc");
    sgf_tree_destroy(t);
    /* A UTF-8 byte-order mark is skipped. */
    t = parse_str("\xef\xbb\xbf(;PB[x])");
    assert_string_equal(sgf_node_get_text(sgf_tree_root(t, 0), "PB"), "x");
    sgf_tree_destroy(t);
}

static void test_komi(void **state)
{
    (void)state;
    double k;
    assert_true(sgf_komi_parse("7.5", &k));
    assert_true(k == 7.5);
    assert_true(sgf_komi_parse("375", &k));
    assert_true(k == 7.5);
    assert_true(sgf_komi_parse("325", &k));
    assert_true(k == 6.5);
    assert_true(sgf_komi_parse(" 6.5 ", &k));
    assert_true(k == 6.5);
    assert_true(sgf_komi_parse("-2", &k));
    assert_true(k == -2);
    assert_true(sgf_komi_parse("0", &k));
    assert_true(k == 0);
    assert_false(sgf_komi_parse("", &k));
    assert_false(sgf_komi_parse("seven", &k));
    assert_false(sgf_komi_parse("7.5x", &k));
    assert_false(sgf_komi_parse("nan", &k));

    sgf_tree *t = parse_str("(;SZ[13]KM[375]HA[2]RU[Chinese]PB[b]PW[w]RE[B+3.5]DT[2024-01-01])");
    sgf_game g;
    assert_int_equal(sgf_game_from_tree(t, &g, NULL), GS_OK);
    assert_int_equal(g.info.size, 13);
    assert_true(g.info.has_komi);
    assert_true(g.info.komi == 7.5);
    assert_int_equal(g.info.handicap, 2);
    assert_string_equal(g.info.rules, "Chinese");
    assert_string_equal(g.info.result, "B+3.5");
    assert_string_equal(g.info.date, "2024-01-01");
    assert_int_equal(g.move_count, 0);
    sgf_game_free(&g);
    sgf_tree_destroy(t);

    gs_error e;
    t = parse_str("(;KM[lots])");
    assert_int_equal(sgf_game_from_tree(t, &g, &e), GS_ERR_FORMAT);
    assert_non_null(strstr(e.msg, "line 1, column 2"));
    sgf_game_free(&g);
    sgf_tree_destroy(t);
}

static void test_malformed(void **state)
{
    (void)state;
    static const struct { const char *in; const char *where; } cases[] = {
        {"", "line 1, column 1"},
        {"no sgf here", "no SGF game tree"},
        {"(;B[aa]", "line 1, column 8: unexpected end of file"},
        {"(;B[aa", "line 1, column 4: value of B"},
        {"(;B[aa]\n;W[bb]\n;B", "line 3, column 3"},
        {"(;B)", "line 1, column 4: property B has no value"},
        {"(;B[aa]))", NULL},            /* trailing ')' after the game: ignored -> OK below */
        {"(;GM[1]\n  ()\n)", "line 2, column 4: empty game tree"},
        {"(;a[b])", "line 1, column 3: property name without capital"},
        {"(;GM[1](;B[aa]);W[bb])", "line 1, column 16: node after a variation"},
        {"(;GM[1] 5 )", "line 1, column 9: unexpected character '5'"},
        {"(;ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJ[x])", "longer than 32"},
        {"(;GM[1]\x01)", "byte 0x01"},
        {"(;GM[1]((;B[aa])))", "line 1, column 9: game tree must start with a node"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (!cases[i].where) {
            sgf_tree *t = parse_str(cases[i].in);
            sgf_tree_destroy(t);
            continue;
        }
        parse_fails(cases[i].in, strlen(cases[i].in), cases[i].where);
    }
    /* NUL bytes and data not NUL-terminated. */
    const char nul[] = "(;C[a\0b])";
    sgf_tree *t = parse_ok(nul, sizeof nul - 1);
    size_t len;
    sgf_prop_raw(sgf_node_find(sgf_tree_root(t, 0), "C"), 0, &len);
    assert_int_equal(len, 3);
    sgf_tree_destroy(t);
    char *cut = malloc(6);
    memcpy(cut, "(;B[aa", 6);
    parse_fails(cut, 6, "never closes");
    free(cut);

    /* Go-level errors carry the node's position. */
    gs_error e;
    sgf_game g;
    t = parse_str("(;SZ[9]\n;B[aa]\n;W[jj])");
    assert_int_equal(sgf_game_from_tree(t, &g, &e), GS_ERR_FORMAT);
    assert_non_null(strstr(e.msg, "line 3, column 1"));
    assert_null(g.moves);
    sgf_tree_destroy(t);
    t = parse_str("(;SZ[9];B[aa]W[bb])");
    assert_int_equal(sgf_game_from_tree(t, &g, &e), GS_ERR_FORMAT);
    assert_non_null(strstr(e.msg, "both"));
    sgf_tree_destroy(t);
    t = parse_str("(;SZ[30])");
    assert_int_equal(sgf_game_from_tree(t, &g, &e), GS_ERR_FORMAT);
    sgf_tree_destroy(t);
    t = parse_str("(;SZ[19:13])");
    assert_int_equal(sgf_game_from_tree(t, &g, &e), GS_ERR_FORMAT);
    assert_non_null(strstr(e.msg, "rectangular"));
    sgf_tree_destroy(t);
    t = parse_str("(;GM[2])");
    assert_int_equal(sgf_game_from_tree(t, &g, &e), GS_ERR_FORMAT);
    sgf_tree_destroy(t);
    assert_int_equal(sgf_game_from_tree(NULL, &g, &e), GS_ERR_NOBOARD);
}

static void test_deep_nesting(void **state)
{
    (void)state;
    const size_t depth = 200000;
    /* Valid: every move is a variation of the previous one. */
    size_t cap = depth * 10 + 16;
    char *s = malloc(cap);
    size_t k = 0;
    for (size_t i = 0; i < depth; i++) {
        memcpy(s + k, i % 2 ? "(;W[aa]" : "(;B[bb]", 7);
        k += 7;
    }
    memset(s + k, ')', depth);
    k += depth;
    sgf_tree *t = parse_ok(s, k);
    const sgf_node *last = sgf_node_main_line_last(sgf_tree_root(t, 0));
    assert_string_equal(sgf_node_get_text(last, "W"), "aa");
    assert_roundtrip(t);
    sgf_tree_destroy(t);

    /* Invalid: 200,000 '(' in a row, and 200,000 unclosed trees. */
    memset(s, '(', depth);
    parse_fails(s, depth, "no SGF game tree");
    memcpy(s, "(;", 2);
    parse_fails(s, depth, "line 1, column 4: game tree must start with a node");
    k = 0;
    for (size_t i = 0; i < depth; i++) {
        memcpy(s + k, "(;", 2);
        k += 2;
    }
    parse_fails(s, k, "200000 game tree(s) not closed");
    free(s);

    /* A 200,000-move main line with a variation at every move. */
    t = sgf_tree_create();
    sgf_node *n = sgf_tree_add_root(t);
    for (size_t i = 0; i < depth && n; i++) {
        gs_point p = {(int8_t)(i % 19), (int8_t)((i / 19) % 19)};
        sgf_node *side = sgf_add_move(n, GS_WHITE, p, false, -1, NULL);
        assert_non_null(side);
        n = sgf_add_move(n, GS_BLACK, p, false, -1, NULL);
    }
    assert_non_null(n);
    assert_roundtrip(t);
    sgf_tree_destroy(t);
}

static void test_big_comment(void **state)
{
    (void)state;
    const size_t big = 10u * 1024 * 1024;
    char *s = malloc(big * 2 + 64);
    size_t k = 0;
    memcpy(s, "(;GM[1]C[", 9);
    k = 9;
    for (size_t i = 0; i < big; i++) {
        char c = (char)('a' + i % 26);
        if (i % 100 == 99) c = '\n';
        if (i % 1000 == 500) c = ']';
        if (c == ']') s[k++] = '\\';
        s[k++] = c;
    }
    memcpy(s + k, "];B[aa])", 8);
    k += 8;
    sgf_tree *t = parse_ok(s, k);
    free(s);
    size_t len;
    const char *text = sgf_prop_text(sgf_node_find(sgf_tree_root(t, 0), "C"), 0, &len);
    assert_int_equal(len, big);
    assert_int_equal(text[500], ']');
    assert_roundtrip(t);
    sgf_tree_destroy(t);
}

static void test_build_recording(void **state)
{
    (void)state;
    sgf_game_info info;
    sgf_game_info_init(&info);
    info.size = 9;
    info.komi = 7.5;
    info.has_komi = true;
    snprintf(info.black, sizeof info.black, "Li [5d] \\ test");
    snprintf(info.white, sizeof info.white, "Wang");
    snprintf(info.date, sizeof info.date, "2025-03-01");
    snprintf(info.event, sizeof info.event, "Club night");
    snprintf(info.round, sizeof info.round, "3");
    snprintf(info.place, sizeof info.place, "Beijing");
    gs_position setup;
    gs_position_clear(&setup, 9);
    gs_position_set(&setup, 2, 2, GS_BLACK);
    gs_position_set(&setup, 6, 6, GS_WHITE);
    sgf_node *root = NULL;
    gs_error e;
    sgf_tree *t = sgf_new_game(&info, &setup, &root, &e);
    assert_non_null(t);
    assert_ptr_equal(root, sgf_tree_root(t, 0));
    const int64_t t0 = 1740837802512;  /* 2025-03-01T14:03:22.512Z */
    gs_point p1 = {4, 4}, p2 = {3, 4}, none = {-1, -1};
    sgf_node *n = sgf_add_move(root, GS_BLACK, p1, false, t0, &e);
    assert_non_null(n);
    n = sgf_add_move(n, GS_WHITE, p2, false, t0 + 61000, &e);
    assert_int_equal(sgf_add_event(n, "double_move", "W dd:ee", "White played twice in a row.\nSecond move void, warning.", &e), GS_OK);
    assert_int_equal(sgf_add_event(n, "note", NULL, "Camera covered for 3 s.", &e), GS_OK);
    assert_int_equal(sgf_add_event(n, "Bad Code", NULL, "x", &e), GS_ERR_USAGE);
    n = sgf_add_move(n, GS_BLACK, none, true, -1, &e);
    n = sgf_add_move(n, GS_WHITE, none, true, t0 + 90000, &e);
    assert_null(sgf_add_move(n, GS_EMPTY, p1, false, -1, &e));
    gs_position area;
    gs_position_clear(&area, 9);
    for (int x = 0; x < 9; x++) gs_position_set(&area, x, 0, GS_BLACK);
    gs_position_set(&area, 8, 8, GS_WHITE);
    assert_int_equal(sgf_set_final_count(n, &area, "Black 41 points, White 40: Black wins by 1/4 stone.", "B+1.5", &e), GS_OK);

    char *buf;
    size_t len;
    assert_int_equal(sgf_write(t, &buf, &len, &e), GS_OK);
    assert_non_null(strstr(buf, "GM[1]FF[4]CA[UTF-8]AP[goscribe:"));
    assert_non_null(strstr(buf, "PB[Li [5d\\] \\\\ test]"));
    assert_non_null(strstr(buf, "GSTM[2025-03-01T14:03:22.512Z]"));
    assert_non_null(strstr(buf, "GSEV[double_move:W dd\\:ee][note:]"));
    assert_non_null(strstr(buf, "RE[B+1.5]"));
    assert_non_null(strstr(buf, ";B[]"));

    sgf_tree *u = parse_ok(buf, len);
    free(buf);
    assert_true(same_tree(t, u));
    sgf_game g;
    assert_int_equal(sgf_game_from_tree(u, &g, &e), GS_OK);
    assert_int_equal(g.info.size, 9);
    assert_true(g.info.komi == 7.5);
    assert_string_equal(g.info.black, "Li [5d] \\ test");
    assert_string_equal(g.info.rules, "Chinese");
    assert_string_equal(g.info.result, "B+1.5");
    assert_string_equal(g.info.place, "Beijing");
    assert_int_equal(gs_position_get(&g.setup, 2, 2), GS_BLACK);
    assert_int_equal(gs_position_get(&g.setup, 6, 6), GS_WHITE);
    assert_int_equal(g.move_count, 4);
    assert_true(g.move_info[0].time_ms == t0);
    assert_true(g.move_info[1].time_ms == t0 + 61000);
    assert_true(g.move_info[2].time_ms == -1);
    assert_true(g.moves[2].pass);
    assert_int_equal(g.moves[1].pt.x, 3);
    assert_true(g.has_final_marks);
    assert_int_equal(gs_position_count(&g.final_marks, GS_BLACK), 9);
    assert_int_equal(gs_position_get(&g.final_marks, 8, 8), GS_WHITE);
    sgf_game_free(&g);
    /* The event is readable both ways. */
    const sgf_node *ev = sgf_node_child(sgf_node_child(sgf_tree_root(u, 0), 0), 0);
    const sgf_prop *gsev = sgf_node_find(ev, "GSEV");
    assert_int_equal(sgf_prop_value_count(gsev), 2);
    assert_string_equal(sgf_prop_text(gsev, 0, NULL), "double_move:W dd:ee");
    assert_string_equal(sgf_node_get_text(ev, "C"), "White played twice in a row.\nSecond move void, warning.\n\nCamera covered for 3 s.");
    const sgf_node *fin = sgf_node_main_line_last(sgf_tree_root(u, 0));
    assert_string_equal(sgf_node_get_text(fin, "C"), "Black 41 points, White 40: Black wins by 1/4 stone.");
    sgf_tree_destroy(u);

    /* A second final count replaces the marks. */
    gs_position_clear(&area, 9);
    gs_position_set(&area, 0, 0, GS_WHITE);
    assert_int_equal(sgf_set_final_count(n, &area, NULL, "W+R", &e), GS_OK);
    assert_null(sgf_node_find(n, "TB"));
    assert_int_equal(sgf_prop_value_count(sgf_node_find(n, "TW")), 1);
    assert_string_equal(sgf_node_get_text(root, "RE"), "W+R");
    sgf_tree_destroy(t);

    /* Bad input to the builders. */
    info.size = 30;
    assert_null(sgf_new_game(&info, NULL, NULL, &e));
    assert_int_equal(e.status, GS_ERR_USAGE);
}

/* Where the record follows the board: a set-up node (a colour change is
 * one AW, never AE and AW on one point), read back as a step of the main
 * line with its PL; a ruling's GSRL read back with the warning it gave; the
 * count's words found and removed again for a game that goes on. */
static void test_setup_rulings_and_count_words(void **state)
{
    (void)state;
    sgf_game_info info;
    sgf_game_info_init(&info);
    info.size = 9;
    sgf_node *root = NULL;
    gs_error e;
    sgf_tree *t = sgf_new_game(&info, NULL, &root, &e);
    assert_non_null(t);
    sgf_node *n = sgf_add_move(root, GS_BLACK, (gs_point){2, 2}, false, -1, &e);
    n = sgf_add_move(n, GS_WHITE, (gs_point){3, 3}, false, -1, &e);
    gs_position from, to;
    gs_position_clear(&from, 9);
    gs_position_set(&from, 2, 2, GS_BLACK);
    gs_position_set(&from, 3, 3, GS_WHITE);
    to = from;
    gs_position_set(&to, 3, 3, GS_BLACK);   /* a colour change */
    gs_position_set(&to, 2, 2, GS_EMPTY);   /* a stone off */
    gs_position_set(&to, 5, 5, GS_WHITE);   /* a stone on */
    int changed = 0;
    sgf_node *st = sgf_add_setup(n, &from, &to, GS_BLACK, &changed, &e);
    assert_non_null(st);
    assert_int_equal(changed, 3);
    assert_int_equal(sgf_add_ruling(st, "warn", GS_WHITE, 0, 1, 1700000000000LL, "Referee: a warning to White.", &e),
                     GS_OK);
    assert_int_equal(sgf_add_ruling(st, "Bad", GS_WHITE, 0, 1, 0, NULL, &e), GS_ERR_USAGE);
    n = sgf_add_move(st, GS_BLACK, (gs_point){4, 4}, false, -1, &e);
    gs_position area;
    gs_position_clear(&area, 9);
    gs_position_set(&area, 0, 0, GS_BLACK);
    assert_int_equal(sgf_append_comment(n, "A player's remark.", &e), GS_OK);
    assert_int_equal(sgf_set_final_count(n, &area, SGF_COUNT_WORDS_PREFIX "area): Black wins.", "B+3", &e), GS_OK);
    char *buf;
    size_t len;
    assert_int_equal(sgf_write(t, &buf, &len, &e), GS_OK);
    assert_non_null(strstr(buf, "AB[dd]"));
    assert_null(strstr(buf, "AE[dd]"));     /* the colour change: AB alone */
    assert_non_null(strstr(buf, "AE[cc]"));
    assert_non_null(strstr(buf, "AW[ff]"));
    assert_non_null(strstr(buf, "GSRL[warn:W:0:1:2023-11-14T22:13:20.000Z]"));
    sgf_tree *u = parse_ok(buf, len);
    free(buf);
    sgf_game g;
    assert_int_equal(sgf_game_from_tree(u, &g, &e), GS_OK);
    assert_int_equal(g.move_count, 3);
    assert_int_equal(g.step_count, 1);
    assert_int_equal(g.steps[0].after_moves, 2);
    assert_int_equal(g.steps[0].to_move, GS_BLACK);
    assert_int_equal(gs_position_get(&g.steps[0].add, 3, 3), GS_BLACK);
    assert_int_equal(gs_position_get(&g.steps[0].add, 5, 5), GS_WHITE);
    assert_int_equal(g.steps[0].clear[2 * 9 + 2], 1);
    assert_int_equal(g.note_count, 1);
    assert_true(g.notes[0].ruling && g.notes[0].warned && g.notes[0].color == GS_WHITE);
    assert_int_equal(g.notes[0].warnings_white, 1);
    assert_int_equal(g.notes[0].after_moves, 2);
    assert_true(g.notes[0].time_ms == 1700000000000LL);
    sgf_game_free(&g);
    sgf_tree_destroy(u);
    /* the game goes on: the count off, the player's remark kept */
    assert_int_equal(sgf_clear_final_count(n, &e), GS_OK);
    assert_null(sgf_node_find(n, "TB"));
    assert_null(sgf_node_find(root, "RE"));
    assert_string_equal(sgf_node_get_text(n, "C"), "A player's remark.");
    assert_int_equal(sgf_remove_comment_paragraphs(n, "A player", &e), 1);
    assert_null(sgf_node_find(n, "C"));
    sgf_tree_destroy(t);
}

static void test_time_format(void **state)
{
    (void)state;
    char buf[32];
    sgf_time_format(0, buf);
    assert_string_equal(buf, "1970-01-01T00:00:00.000Z");
    sgf_time_format(1740837802512, buf);
    assert_string_equal(buf, "2025-03-01T14:03:22.512Z");
    int64_t ms;
    assert_true(sgf_time_parse(buf, &ms));
    assert_true(ms == 1740837802512);
    assert_true(sgf_time_parse("2025-03-01T14:03:22Z", &ms));
    assert_true(ms == 1740837802000);
    assert_true(sgf_time_parse("2025-03-01T14:03:22.5Z", &ms));
    assert_true(ms == 1740837802500);
    assert_false(sgf_time_parse("2025-03-01 14:03:22Z", &ms));
    assert_false(sgf_time_parse("2025-13-01T14:03:22Z", &ms));
    assert_false(sgf_time_parse("2025-03-01T14:03:22.512", &ms));
    assert_false(sgf_time_parse("", &ms));
}

static void test_atomic_write(void **state)
{
    (void)state;
    char dir[] = "/tmp/gs_sgf_atomicXXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/game.sgf", dir);
    gs_error e;
    assert_int_equal(gs_file_write_atomic(path, "(;GM[1])\n", 9, &e), GS_OK);
    assert_int_equal(gs_file_write_atomic(path, "(;GM[1];B[aa])\n", 15, &e), GS_OK);
    sgf_tree *t = NULL;
    assert_int_equal(sgf_load(path, &t, &e), GS_OK);
    assert_non_null(sgf_node_child(sgf_tree_root(t, 0), 0));
    assert_int_equal(sgf_save(t, path, &e), GS_OK);
    sgf_tree_destroy(t);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644);
    /* No temp file left behind. */
    char cmd[300];
    snprintf(cmd, sizeof cmd, "test $(ls -A %s | wc -l) -eq 1", dir);
    assert_int_equal(system(cmd), 0);
    sgf_game g;
    assert_int_equal(sgf_game_load(path, &g, &e), GS_OK);
    assert_int_equal(g.move_count, 1);
    sgf_game_free(&g);

    char bad[300];
    snprintf(bad, sizeof bad, "%s/no/such/dir/game.sgf", dir);
    assert_int_equal(gs_file_write_atomic(bad, "x", 1, &e), GS_ERR_IO);
    assert_int_equal(sgf_load(bad, &t, &e), GS_ERR_IO);
    assert_null(t);
    assert_int_equal(sgf_game_load(bad, &g, &e), GS_ERR_IO);
    unlink(path);
    rmdir(dir);
}

/* ------------------------------------------------- round trip of real games */

static int files_seen, files_failed, files_marked;

static int visit(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    size_t n = strlen(path);
    if (type != FTW_F || n < 4 || strcmp(path + n - 4, ".sgf") != 0) return 0;
    files_seen++;
    gs_error e = {0};
    sgf_tree *t = NULL;
    if (sgf_load(path, &t, &e) != GS_OK) {
        print_message("%s: %s\n", path, e.msg);
        files_failed++;
        return 0;
    }
    sgf_tree *u = reparse(t);
    if (!same_tree(t, u)) {
        print_message("%s: differs after write + parse\n", path);
        files_failed++;
    }
    /* Writing the re-read tree gives the same bytes (a fixed point). */
    char *b1, *b2;
    size_t l1, l2;
    assert_int_equal(sgf_write(t, &b1, &l1, NULL), GS_OK);
    assert_int_equal(sgf_write(u, &b2, &l2, NULL), GS_OK);
    if (l1 != l2 || memcmp(b1, b2, l1) != 0) {
        print_message("%s: second write differs\n", path);
        files_failed++;
    }
    free(b1);
    free(b2);
    sgf_game g;
    if (sgf_game_from_tree(t, &g, &e) != GS_OK) {
        print_message("%s: %s\n", path, e.msg);
        files_failed++;
    } else if (g.has_final_marks) {
        files_marked++;
    }
    sgf_game_free(&g);
    sgf_tree_destroy(u);
    sgf_tree_destroy(t);
    return 0;
}

static void test_roundtrip_shared_games(void **state)
{
    (void)state;
    GS_REQUIRE_DATA(dir, "games");
    files_seen = files_failed = files_marked = 0;
    assert_int_equal(nftw(dir, visit, 16, FTW_PHYS), 0);
    print_message("%d SGF files, %d with final TB/TW, %d failures\n", files_seen, files_marked, files_failed);
    assert_true(files_seen > 0);
    assert_true(files_marked > 0);
    assert_int_equal(files_failed, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic_tree),
        cmocka_unit_test(test_escapes),
        cmocka_unit_test(test_soft_line_breaks),
        cmocka_unit_test(test_crlf_and_positions),
        cmocka_unit_test(test_compressed_points),
        cmocka_unit_test(test_passes),
        cmocka_unit_test(test_variations),
        cmocka_unit_test(test_unknown_and_ff3_properties),
        cmocka_unit_test(test_charsets),
        cmocka_unit_test(test_komi),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_deep_nesting),
        cmocka_unit_test(test_big_comment),
        cmocka_unit_test(test_build_recording),
        cmocka_unit_test(test_setup_rulings_and_count_words),
        cmocka_unit_test(test_time_format),
        cmocka_unit_test(test_atomic_write),
        cmocka_unit_test(test_roundtrip_shared_games),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
