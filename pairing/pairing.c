/* pairing/pairing.c: a pairing file read (its format told by its first
 * character: OpenGotha XML or CSV). */
#include "pairing/pairing_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

gs_status pairing_parse(const char *name, const char *text, size_t len, int round, pairing_round *out,
                        gs_error *err)
{
    memset(out, 0, sizeof *out);
    out->size = 19;
    size_t i = 0;
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) i = 3; /* a UTF-8 byte-order mark */
    while (i < len && isspace((unsigned char)text[i])) i++;
    if (i == len) return gs_error_set(err, GS_ERR_FORMAT, "%s: empty file: no pairings", name);
    if (memchr(text, '\0', len)) return gs_error_set(err, GS_ERR_FORMAT, "%s: a binary file, not pairings", name);
    gs_status st = text[i] == '<' ? pairing_parse_opengotha(name, text, len, round, out, err)
                                  : pairing_parse_csv(name, text, len, out, err);
    if (st == GS_OK && out->nboards == 0) st = gs_error_set(err, GS_ERR_FORMAT, "%s: no board in it", name);
    if (st != GS_OK) pairing_round_free(out);
    return st;
}

gs_status pairing_read(const char *path, int round, pairing_round *out, gs_error *err)
{
    memset(out, 0, sizeof *out);
    char *text = NULL;
    size_t len = 0;
    gs_error e;
    if (gs_file_read(path, PAIRING_MAX_FILE, &text, &len, &e) != GS_OK)
        return gs_error_set(err, e.status, "%s: %s", path, e.msg);
    gs_status st = pairing_parse(path, text, len, round, out, err);
    free(text);
    return st;
}
