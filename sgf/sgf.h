/* sgf/sgf.h: SGF FF[4] reader and writer: the game record's file format.
 *
 * Three layers:
 *  1. A general game tree (sgf_tree / sgf_node / sgf_prop): parse any FF[1-4]
 *     file, walk it, edit it, write it back.  Unknown properties are kept.
 *  2. Go helpers on top: points and passes, komi (with the Chinese-server
 *     quirk), a plain struct sgf_game (game info + setup stones + main-line
 *     moves + final TB/TW) for checkers and for --resume, and builders for a
 *     recording (new game, append move, referee event, final count).
 *  3. sgf_save(): written with gs_file_write_atomic (core/), so a crash at
 *     any moment leaves either the old or the new file.
 *
 * Ownership: an sgf_tree owns every node, property and string in it.  Node
 * and property handles (sgf_node *, const sgf_prop *) and the strings they
 * return stay valid until sgf_tree_destroy(), except that changing a
 * property's values (sgf_node_set / sgf_node_remove) invalidates the handles
 * and strings of that property only.  sgf_tree_destroy(NULL) is safe.
 * sgf_write() returns a malloc'ed buffer the caller free()s.  sgf_game owns
 * its moves array: free with sgf_game_free().
 *
 * Reader behaviour and limits
 *  - Grammar: Collection = GameTree+; GameTree = "(" Node+ GameTree* ")";
 *    Node = ";" Property*; Property = Ident Value+; Value = "[" text "]".
 *    Whitespace between tokens is skipped; text before the first "(" is
 *    ignored, and so is text after the last game tree.  Lower-case letters
 *    inside an identifier are dropped (FF[3] long names: "AddBlack" -> "AB").
 *  - Line breaks: LF, CRLF, CR and LFCR all count as one line for error
 *    positions; raw values keep them byte for byte.
 *  - Parsing is iterative (no recursion), so 200,000 nested variations or
 *    200,000 unmatched "(" cost heap, not stack; freeing is iterative too.
 *  - Limits: input file at most SGF_MAX_FILE_BYTES (64 MiB); property
 *    identifiers at most SGF_MAX_IDENT letters; nesting and value length are
 *    bounded only by the file size.
 *  - Errors: GS_ERR_FORMAT with "line L, column C: what" (1-based; columns
 *    count characters of the UTF-8 text), GS_ERR_IO for files,
 *    GS_ERR_NOMEM.  The reader never reads outside its input.
 *  - Character sets: the text is converted to UTF-8 (glibc iconv) before
 *    parsing, so GBK double-byte characters whose second byte is ']' or '\'
 *    are not mistaken for SGF syntax.  The charset comes from CA[] of the
 *    first root node: UTF-8, ISO-8859-1/Latin-1 (and other iconv names),
 *    GB2312/GBK/GB18030 all read as GB18030 (a superset).  Without CA[]:
 *    valid UTF-8 is UTF-8; otherwise, if every byte >= 0x80 belongs to a
 *    pair of bytes in 0xA1..0xFE (the EUC-CN form of GB2312 text) it is read
 *    as GB18030, else as Latin-1 (the FF[4] default).  A CA[] naming a
 *    charset iconv does not know, or bytes invalid in the named charset,
 *    fall back the same way.  After conversion every root's CA[] value is
 *    rewritten to "UTF-8" (the tree now holds UTF-8); sgf_tree_source_charset()
 *    tells what the file used.  A UTF-8 byte-order mark is skipped.
 *  - Values: sgf_prop_raw() is the text between '[' and ']' exactly as in
 *    the file (escapes and soft line breaks kept, converted to UTF-8);
 *    sgf_prop_text() is it unescaped as FF[4] Text: "\\" + newline (a soft
 *    line break) is removed, "\\x" becomes x, other whitespace than line
 *    breaks becomes a space, and every line break becomes "\n".
 *
 * Writer behaviour: values are written from their raw form, so a parsed tree
 * writes back to the same tree; values set through sgf_node_add_text() are
 * escaped ('\\' and ']' get a backslash).  Output is UTF-8, LF line breaks,
 * one node per line for nodes with more than a move, at most ~78 columns of
 * move nodes otherwise.  Writing is iterative as well.
 *
 * goscribe's private properties (FF[4] lets applications add upper-case
 * names; other viewers ignore and keep them; SGFC says "Warning 31/35:
 * unknown property" for each, nothing worse).  Three, each also said in
 * plain words in the node's C[] comment where it matters:
 *  - GSTM[2025-03-01T14:03:22.512Z]  on a move node: when the stone was
 *    seen played by the source's own clock (video position + start time,
 *    camera timestamp, photo time), UTC, ISO 8601 with milliseconds.
 *  - GSEV[code:detail]  on the node where a referee event happened, one
 *    value per event (a list if several).  `code` is a lower-case word
 *    (rules_event_code and the recorder's signal codes; readers must accept
 *    unknown ones); `detail` is free SimpleText (points, colours), may be
 *    empty, with ':' escaped in the raw value; split sgf_prop_text() at its
 *    first ':' to get code and detail.
 *  - GSRL[kind:color:warnings_black:warnings_white:time]  on the node a
 *    referee's ruling concerns, one value per ruling: kind as
 *    record_ruling_name ("void", "warn", ...), color B/W/-, the warnings
 *    each side has after the ruling, the time (GSTM form).  A ruling that
 *    raises a side's count gave it a warning; each warning costs a stone at
 *    the count (RULES.md, Art. 25).
 * Set-up nodes (AB/AW/AE) after the root appear only where the record had
 * to follow the board (a change no legal play explains, a referee's
 * correction); FF[4] allows them (never mixed with B/W in one node); SGFC
 * -r warns of every one (Warning 62: it checks for plain move sequences).
 * A colour change is a single AB or AW (FF[4]: adding overwrites), never
 * AE and AB on one point.
 *  - Final count: on the last node TB/TW mark each side's territory (empty
 *    points and dead stones), the count in words goes into C[] as its own
 *    paragraph starting "Count (", and RE[] into the root.
 */
#ifndef GS_SGF_H
#define GS_SGF_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "core/gs.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SGF_MAX_FILE_BYTES ((size_t)64 * 1024 * 1024)
#define SGF_MAX_IDENT 32

typedef struct sgf_tree sgf_tree;  /* a collection of one or more games */
typedef struct sgf_node sgf_node;  /* one node (";" + properties) */
typedef struct sgf_prop sgf_prop;  /* one property: identifier + values */

/* ----------------------------------------------------------- tree: read */

/* Parses len bytes of SGF (need not be NUL-terminated).  On success *out is
 * a new tree the caller destroys; on failure *out is NULL and err says
 * "line L, column C: what". */
gs_status sgf_parse(const char *data, size_t len, sgf_tree **out, gs_error *err);

/* Reads and parses a file (at most SGF_MAX_FILE_BYTES).  Error messages
 * are prefixed with nothing: the caller adds the path. */
gs_status sgf_load(const char *path, sgf_tree **out, gs_error *err);

void sgf_tree_destroy(sgf_tree *t);

/* Charset the parsed file was decoded from ("UTF-8", "ISO-8859-1",
 * "GB18030", ...); "UTF-8" for trees built in memory.  Static storage. */
const char *sgf_tree_source_charset(const sgf_tree *t);

/* Number of game trees in the collection and the root node of game i. */
size_t sgf_tree_game_count(const sgf_tree *t);
sgf_node *sgf_tree_root(const sgf_tree *t, size_t i);

/* Navigation.  Children are in file order; child 0 is the main line. */
sgf_node *sgf_node_parent(const sgf_node *n);
size_t sgf_node_child_count(const sgf_node *n);
sgf_node *sgf_node_child(const sgf_node *n, size_t i);   /* NULL if none */
sgf_node *sgf_node_next_sibling(const sgf_node *n);       /* NULL if last */
sgf_node *sgf_node_root(const sgf_node *n);               /* game root */
/* Follows child 0 from n to the end of the main line. */
sgf_node *sgf_node_main_line_last(const sgf_node *n);
/* Position of the node's ';' in the source (1-based; 0 if built in memory). */
int sgf_node_line(const sgf_node *n);
int sgf_node_column(const sgf_node *n);

/* Properties in file order. */
size_t sgf_node_prop_count(const sgf_node *n);
const sgf_prop *sgf_node_prop(const sgf_node *n, size_t i);
/* First property with this identifier, or NULL. */
const sgf_prop *sgf_node_find(const sgf_node *n, const char *id);

const char *sgf_prop_id(const sgf_prop *p);
size_t sgf_prop_value_count(const sgf_prop *p);           /* >= 1 */
/* Raw value i (see above), NUL-terminated; *len (if not NULL) gets its
 * length (values may contain NUL bytes). NULL if i is out of range. */
const char *sgf_prop_raw(const sgf_prop *p, size_t i, size_t *len);
/* Value i unescaped as Text (see above). NULL if i is out of range. */
const char *sgf_prop_text(const sgf_prop *p, size_t i, size_t *len);

/* Shortcut: text of the first value of property id on node n, or NULL. */
const char *sgf_node_get_text(const sgf_node *n, const char *id);

/* ---------------------------------------------------------- tree: build */

/* An empty collection (add games with sgf_tree_add_root). NULL on OOM. */
sgf_tree *sgf_tree_create(void);
/* Appends a new empty game root / child node.  NULL on OOM. */
sgf_node *sgf_tree_add_root(sgf_tree *t);
sgf_node *sgf_node_add_child(sgf_node *parent);

/* Appends one value to property id (created at the end of the node if
 * absent).  add_text escapes the plain text; add_raw stores the value as it
 * will be written (must not contain an unescaped ']'; for points "aa",
 * compressed lists "aa:cc", composed values).  id: 1..SGF_MAX_IDENT
 * upper-case letters, else GS_ERR_USAGE. */
gs_status sgf_node_add_text(sgf_node *n, const char *id, const char *text, gs_error *err);
gs_status sgf_node_add_raw(sgf_node *n, const char *id, const char *raw, gs_error *err);
/* Replaces every value of id by the one text value (creates it if absent). */
gs_status sgf_node_set_text(sgf_node *n, const char *id, const char *text, gs_error *err);
/* Removes property id from the node; no-op if absent. */
void sgf_node_remove(sgf_node *n, const char *id);

/* ------------------------------------------------------------ tree: write */

/* Serialises the whole collection. *out is malloc'ed and NUL-terminated
 * (*len excludes the NUL); the caller frees it. */
gs_status sgf_write(const sgf_tree *t, char **out, size_t *len, gs_error *err);

/* sgf_write + gs_file_write_atomic. */
gs_status sgf_save(const sgf_tree *t, const char *path, gs_error *err);

/* --------------------------------------------------------------- Go layer */

/* Parses a Go point value "pd" for a board of `size` (1..52).  Empty value,
 * or "tt" when size <= 19, is a pass: *pass = true, p = {-1,-1}.  Returns
 * false for anything else (wrong length, letter off the board). */
bool sgf_point_parse(const char *v, size_t len, int size, gs_point *p, bool *pass);

/* Writes the two letters of p (0..51) into buf[3] (NUL-terminated), as
 * rules_point_sgf does; a coordinate outside 0..51 is written as 'a'. */
void sgf_point_format(gs_point p, char buf[3]);

/* Expands every value of a point-list property (AB, AW, AE, TB, TW, ...):
 * single points and compressed rectangles "aa:cc".  Points are written to
 * out (up to max; *count gets the total number found, which may be larger).
 * GS_ERR_FORMAT (with the node's line) for a bad point. */
gs_status sgf_prop_points(const sgf_prop *p, int size, gs_point *out, size_t max,
                          size_t *count, gs_error *err);

/* Komi from a KM value, in points.  Handles the quirk of some Chinese
 * servers that write komi in hundredths of stones: a value >= 100 that is a
 * multiple of 25 is divided by 50 (375 -> 7.5, 325 -> 6.5, 275 -> 5.5).
 * Returns false if the value is not a number. */
bool sgf_komi_parse(const char *value, double *komi);

/* Game information (root properties).  Strings are UTF-8, NUL-terminated,
 * truncated at a character boundary if longer than the field; "" = absent. */
typedef struct sgf_game_info {
    int size;          /* SZ, 19 when absent */
    double komi;       /* KM in points, quirk handled; 0 when absent */
    bool has_komi;
    int handicap;      /* HA, 0 when absent */
    char rules[64];    /* RU */
    char black[128];   /* PB */
    char white[128];   /* PW */
    char black_rank[32]; /* BR */
    char white_rank[32]; /* WR */
    char date[64];     /* DT */
    char event[128];   /* EV */
    char round[64];    /* RO */
    char place[128];   /* PC */
    char result[64];   /* RE */
    char time_limit[64]; /* TM (raw text) */
} sgf_game_info;

/* Sets defaults: size 19, Chinese rules, everything else empty/0. */
void sgf_game_info_init(sgf_game_info *info);

/* What the file says about a move beside the move itself. */
typedef struct sgf_move_info {
    int64_t time_ms;   /* GSTM as Unix time in ms, -1 when absent */
    int line;          /* line of the node in the file (0 if built) */
} sgf_move_info;

/* A set-up node of the main line after the root: the stones it adds and
 * removes, played in order with the moves. */
typedef struct sgf_setup_step {
    size_t after_moves;      /* main-line moves before it */
    int line;
    gs_position add;         /* AB -> GS_BLACK, AW -> GS_WHITE, else GS_EMPTY */
    uint8_t clear[GS_MAX_SIZE * GS_MAX_SIZE]; /* AE: 1 = emptied */
    gs_color to_move;        /* PL; GS_EMPTY when absent */
} sgf_setup_step;

/* A referee event (GSEV) or ruling (GSRL) of the main line. */
typedef struct sgf_game_note {
    bool ruling;             /* GSRL; else GSEV */
    size_t after_moves;      /* main-line moves up to and including its node */
    int line;
    char code[32];           /* the event's code / the ruling's kind */
    char detail[96];         /* GSEV: its detail; GSRL: "" */
    gs_color color;          /* GSRL: the side concerned (GS_EMPTY: none) */
    int warnings_black;      /* GSRL: warnings after the ruling */
    int warnings_white;
    bool warned;             /* GSRL: it raised color's warnings */
    int64_t time_ms;         /* GSRL's time, -1 when absent */
} sgf_game_note;

/* A game read for checking or resuming: plain data, owns its arrays. */
typedef struct sgf_game {
    sgf_game_info info;
    gs_position setup;      /* AB/AW (and AE) of the root, expanded */
    gs_color to_move;       /* PL of the root; GS_EMPTY when absent */
    gs_move *moves;         /* main line, in order; malloc'ed */
    sgf_move_info *move_info; /* beside each move; malloc'ed */
    size_t move_count;
    sgf_setup_step *steps;  /* main-line set-up nodes after the root, in
                               order; malloc'ed */
    size_t step_count;
    sgf_game_note *notes;   /* GSEV and GSRL values of the main line, in
                               order; malloc'ed */
    size_t note_count;
    bool has_final_marks;   /* last main-line node has TB or TW */
    gs_position final_marks; /* TB -> GS_BLACK, TW -> GS_WHITE */
    char source_charset[24];
} sgf_game;

/* Reads game 0 of a tree/file into g.  Errors (GS_ERR_FORMAT with line and
 * column): SZ not a square size 1..25, bad KM/HA, a move off the board,
 * B and W in one node, bad AB/AW/AE/TB/TW point.  A file without any game
 * is GS_ERR_NOBOARD.  On failure g is left empty (safe to sgf_game_free). */
gs_status sgf_game_from_tree(const sgf_tree *t, sgf_game *g, gs_error *err);
gs_status sgf_game_load(const char *path, sgf_game *g, gs_error *err);
void sgf_game_free(sgf_game *g);

/* ------------------------------------------------------ recording builders */

/* Creates a tree holding one game whose root carries GM[1] FF[4] CA[UTF-8]
 * AP[goscribe:VERSION] SZ KM RU HA PB BR PW WR DT EV RO PC TM RE (empty
 * fields and HA 0 are left out; KM written when has_komi) and AB/AW from
 * `setup` (NULL = none).  *root (if not NULL) gets the root node.  Caller
 * destroys. */
sgf_tree *sgf_new_game(const sgf_game_info *info, const gs_position *setup,
                       sgf_node **root, gs_error *err);

/* Appends a move node under `parent` (usually the last main-line node):
 * B[pd] or W[pd], a pass as B[] / W[]; time_ms >= 0 (Unix ms) adds GSTM.
 * Returns the new node, NULL on error (err filled). */
sgf_node *sgf_add_move(sgf_node *parent, gs_color color, gs_point pt, bool pass,
                       int64_t time_ms, gs_error *err);

/* Appends a set-up node under `parent` taking the board from `from` to
 * `to`: AB / AW for each point that gets a stone (a colour change too),
 * AE for each point emptied, and PL[to_move] (GS_EMPTY: none).  *changed
 * (if not NULL) gets the number of points set.  NULL on error. */
sgf_node *sgf_add_setup(sgf_node *parent, const gs_position *from, const gs_position *to, gs_color to_move,
                        int *changed, gs_error *err);

/* Records a referee event on node n: appends `words` (plain language, one
 * or more lines) to the node's C[] comment (a blank line apart from earlier
 * text) and adds GSEV[code:detail].  code: lower-case letters, digits, '_'.
 * detail may be NULL. */
gs_status sgf_add_event(sgf_node *n, const char *code, const char *detail,
                        const char *words, gs_error *err);

/* Records a referee's ruling on node n: GSRL[kind:color:wb:ww:time] (see
 * above; kind lower-case letters and '_', color GS_EMPTY written "-") and
 * `words` appended to C[] (NULL: none). */
gs_status sgf_add_ruling(sgf_node *n, const char *kind, gs_color color, int warnings_black, int warnings_white,
                         int64_t unix_ms, const char *words, gs_error *err);

/* Appends plain text to the node's C[] comment (blank line apart). */
gs_status sgf_append_comment(sgf_node *n, const char *text, gs_error *err);

/* Removes from the node's C[] comment every paragraph (text between blank
 * lines) that starts with `prefix`; C[] goes when nothing is left.
 * Returns the number of paragraphs removed. */
int sgf_remove_comment_paragraphs(sgf_node *n, const char *prefix, gs_error *err);

/* The paragraph every final count in words starts with (see above). */
#define SGF_COUNT_WORDS_PREFIX "Count ("

/* The count on the final node n: TB for every cell of `area` that is
 * GS_BLACK, TW for every GS_WHITE (replacing earlier TB/TW), `words`
 * appended to C[] (it should start with SGF_COUNT_WORDS_PREFIX, so that
 * sgf_clear_final_count finds it), and RE[result] set on the game root
 * (NULL leaves RE). */
gs_status sgf_set_final_count(sgf_node *n, const gs_position *area, const char *words,
                              const char *result, gs_error *err);

/* Undoes sgf_set_final_count: TB/TW and the count paragraphs off node n,
 * RE off the root.  For a game that goes on (a resumed recording). */
gs_status sgf_clear_final_count(sgf_node *n, gs_error *err);

/* Formats Unix ms as the GSTM text "YYYY-MM-DDTHH:MM:SS.mmmZ" (buf >= 32)
 * and parses it back (false if malformed). */
void sgf_time_format(int64_t unix_ms, char buf[32]);
bool sgf_time_parse(const char *text, int64_t *unix_ms);

#ifdef __cplusplus
}
#endif
#endif
