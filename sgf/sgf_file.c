/* sgf/sgf_file.c: reading and saving SGF files (the bounded read and the
 * crash-safe write are core/file.c's). */
#include "sgf/sgf_internal.h"

#include <stdlib.h>

gs_status sgf_load(const char *path, sgf_tree **out, gs_error *err)
{
    if (out) *out = NULL;
    if (!path || !out) return gs_error_set(err, GS_ERR_USAGE, "sgf_load: no path");
    char *buf;
    size_t len;
    gs_status st = gs_file_read(path, SGF_MAX_FILE_BYTES, &buf, &len, err);
    if (st != GS_OK) return st;
    st = sgf_parse(buf, len, out, err);
    free(buf);
    return st;
}

gs_status sgf_save(const sgf_tree *t, const char *path, gs_error *err)
{
    char *buf;
    size_t len;
    gs_status st = sgf_write(t, &buf, &len, err);
    if (st != GS_OK) return st;
    st = gs_file_write_atomic(path, buf, len, err);
    free(buf);
    return st;
}
