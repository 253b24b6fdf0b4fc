/* sgf/sgf_internal.h: what the sgf*.c files share; not a public API. */
#ifndef GS_SGF_INTERNAL_H
#define GS_SGF_INTERNAL_H

#include "sgf/sgf.h"

/* Converts SGF bytes to UTF-8 according to CA[] (see sgf.h, "Character
 * sets").  *out is malloc'ed (NUL-terminated, *outlen excludes the NUL);
 * *charset gets a static name of the source charset. */
gs_status sgf_decode_utf8(const char *data, size_t len, char **out, size_t *outlen,
                          const char **charset, gs_error *err);

/* True if data[0..len) is well-formed UTF-8 (no overlongs or surrogates). */
bool sgf_utf8_valid(const unsigned char *s, size_t len);

/* Marks the tree as decoded from `charset` (static string). */
void sgf_tree_set_source_charset(sgf_tree *t, const char *charset);

#endif
