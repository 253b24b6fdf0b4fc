/* pairing/pairing_internal.h: the pieces of pairing/ (not public).
 *   pairing.c    the format by its first character, shared checks
 *   opengotha.c  OpenGotha's tournament file
 *   csv.c        the plain CSV
 *   xml.c        a small XML reader: elements and their attributes */
#ifndef PAIRING_INTERNAL_H
#define PAIRING_INTERNAL_H

#include "pairing/pairing.h"

/* ------------------------------------------------------------------ XML */

#define PXML_MAX_ATTRS 48
#define PXML_MAX_DEPTH 64
#define PXML_MAX_VALUE 512

typedef struct pxml_attr {
    char name[48];
    char value[PXML_MAX_VALUE];  /* entities decoded, UTF-8 */
} pxml_attr;

/* One start tag (an empty element "<a/>" gives a start and an end). */
typedef struct pxml_elem {
    char name[48];
    int line;
    int depth;                   /* 1 = the root element */
    int nattrs;
    pxml_attr attrs[PXML_MAX_ATTRS];
} pxml_elem;

typedef struct pxml {
    const char *name;            /* the file, for errors */
    const char *p, *end;
    int line;
    int depth;
    char open[PXML_MAX_DEPTH][48];
    bool pending_end;            /* the last start tag was "<a/>" */
    bool seen_root;
} pxml;

void pxml_init(pxml *x, const char *name, const char *text, size_t len);
/* The next start tag into e: 1; 0 at the end of a well-formed document;
 * -1 with "FILE:LINE: what" in err. */
int pxml_next(pxml *x, pxml_elem *e, gs_error *err);
/* The attribute's value, NULL when absent. */
const char *pxml_attr_get(const pxml_elem *e, const char *name);

/* --------------------------------------------------------------- shared */

/* Copies s into dst (n bytes) when it fits and is UTF-8 text without
 * control characters; false otherwise. */
bool pairing_copy_text(char *dst, size_t n, const char *s);
/* A whole decimal number in [lo, hi] (spaces around allowed). */
bool pairing_parse_int(const char *s, int lo, int hi, int *out);
bool pairing_parse_komi(const char *s, double *out);
/* Appends a board (grows the array); false (err set) past
 * PAIRING_MAX_BOARDS, for a table already taken, or out of memory. */
bool pairing_add_board(pairing_round *r, const pairing_board *b, const char *name, gs_error *err);
/* A rank as SGF writes it: "3D" -> "3d"; "" stays; false when it is not
 * a rank (1..30k, 1..9d, 1..9p). */
bool pairing_rank_norm(const char *s, char *out, size_t n);

gs_status pairing_parse_opengotha(const char *name, const char *text, size_t len, int round, pairing_round *out,
                                  gs_error *err);
gs_status pairing_parse_csv(const char *name, const char *text, size_t len, pairing_round *out, gs_error *err);

#endif
