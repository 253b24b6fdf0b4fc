/* tests/fuzz/sgf_fuzz.c: libFuzzer target for the SGF reader.
 *
 * Each input is parsed; when it parses, it is written, parsed again (must
 * succeed and write the same bytes: the writer's output is a fixed point)
 * and read as a Go game.  Any crash, sanitizer report or abort() here is a
 * bug.  Built by tests/cli_fuzz_sgf.sh and scripts/fuzz-sgf.sh. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sgf/sgf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sgf_tree *t = NULL;
    gs_error e = {0};
    if (sgf_parse((const char *)data, size, &t, &e) != GS_OK) {
        /* Every failure must say where. */
        if (e.status == GS_ERR_FORMAT && strncmp(e.msg, "line ", 5) != 0) abort();
        return 0;
    }
    /* Walk every node and value once through the public API. */
    for (size_t g = 0; g < sgf_tree_game_count(t); g++) {
        const sgf_node *n = sgf_tree_root(t, g);
        while (n) {
            for (size_t i = 0; i < sgf_node_prop_count(n); i++) {
                const sgf_prop *p = sgf_node_prop(n, i);
                for (size_t j = 0; j < sgf_prop_value_count(p); j++) {
                    size_t len;
                    const char *v = sgf_prop_raw(p, j, &len);
                    gs_point pt;
                    bool pass;
                    sgf_point_parse(v, len, 19, &pt, &pass);
                    if (v[len] != '\0') abort();
                }
                size_t cnt;
                sgf_prop_points(p, 19, NULL, 0, &cnt, NULL);
            }
            if (sgf_node_child_count(n)) { n = sgf_node_child(n, 0); continue; }
            while (n && !sgf_node_next_sibling(n)) n = sgf_node_parent(n);
            if (n) n = sgf_node_next_sibling(n);
        }
    }
    sgf_game game;
    sgf_game_from_tree(t, &game, NULL);
    sgf_game_free(&game);

    char *b1 = NULL, *b2 = NULL;
    size_t l1 = 0, l2 = 0;
    if (sgf_write(t, &b1, &l1, NULL) != GS_OK) abort();
    sgf_tree *u = NULL;
    if (sgf_parse(b1, l1, &u, &e) != GS_OK) {
        fprintf(stderr, "written SGF does not parse: %s\n", e.msg);
        abort();
    }
    if (sgf_write(u, &b2, &l2, NULL) != GS_OK) abort();
    if (l1 != l2 || memcmp(b1, b2, l1) != 0) {
        fprintf(stderr, "second write differs\n");
        abort();
    }
    free(b1);
    free(b2);
    sgf_tree_destroy(u);
    sgf_tree_destroy(t);
    return 0;
}
