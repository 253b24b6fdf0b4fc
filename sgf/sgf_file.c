/* sgf/sgf_file.c: reading SGF files and writing them crash-safely. */
#include "sgf/sgf_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

gs_status sgf_load(const char *path, sgf_tree **out, gs_error *err)
{
    if (out) *out = NULL;
    if (!path || !out) return gs_error_set(err, GS_ERR_USAGE, "sgf_load: no path");
    FILE *f = fopen(path, "rb");
    if (!f) return gs_error_set(err, GS_ERR_IO, "cannot open: %s", strerror(errno));
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            if (cap > SGF_MAX_FILE_BYTES) {
                free(buf);
                fclose(f);
                return gs_error_set(err, GS_ERR_FORMAT, "file larger than %zu MiB, not read", SGF_MAX_FILE_BYTES >> 20);
            }
            size_t nc = cap ? cap * 2 : 65536;
            char *nb = realloc(buf, nc);
            if (!nb) {
                free(buf);
                fclose(f);
                return gs_error_set(err, GS_ERR_NOMEM, "out of memory reading the file");
            }
            buf = nb;
            cap = nc;
        }
        size_t r = fread(buf + len, 1, cap - len, f);
        len += r;
        if (r == 0) break;
    }
    bool bad = ferror(f);
    int e = errno;
    fclose(f);
    if (bad) {
        free(buf);
        return gs_error_set(err, GS_ERR_IO, "cannot read: %s", strerror(e));
    }
    if (len > SGF_MAX_FILE_BYTES) {
        free(buf);
        return gs_error_set(err, GS_ERR_FORMAT, "file larger than %zu MiB, not read", SGF_MAX_FILE_BYTES >> 20);
    }
    gs_status st = sgf_parse(buf, len, out, err);
    free(buf);
    return st;
}

static bool write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        p += w;
        n -= (size_t)w;
    }
    return true;
}

gs_status sgf_file_write_atomic(const char *path, const void *data, size_t len, gs_error *err)
{
    if (!path || !path[0] || (!data && len)) return gs_error_set(err, GS_ERR_USAGE, "no path or data to write");
    size_t pl = strlen(path);
    char *tmp = malloc(pl + 16);
    char *dircopy = strdup(path);
    if (!tmp || !dircopy) {
        free(tmp);
        free(dircopy);
        return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    }
    memcpy(tmp, path, pl);
    memcpy(tmp + pl, ".tmp-XXXXXX", 12);
    gs_status st = GS_OK;
    int fd = mkstemp(tmp);
    if (fd < 0) {
        st = gs_error_set(err, GS_ERR_IO, "cannot create a temporary file beside it: %s", strerror(errno));
        goto out;
    }
    if (fchmod(fd, 0644) != 0 || !write_all(fd, data, len) || fsync(fd) != 0) {
        st = gs_error_set(err, GS_ERR_IO, "cannot write: %s", strerror(errno));
        close(fd);
        unlink(tmp);
        goto out;
    }
    if (close(fd) != 0) {
        st = gs_error_set(err, GS_ERR_IO, "cannot write: %s", strerror(errno));
        unlink(tmp);
        goto out;
    }
    if (rename(tmp, path) != 0) {
        st = gs_error_set(err, GS_ERR_IO, "cannot replace the file: %s", strerror(errno));
        unlink(tmp);
        goto out;
    }
    /* The rename is durable only once the directory entry is on disk. */
    int dfd = open(dirname(dircopy), O_RDONLY | O_DIRECTORY);
    if (dfd >= 0) {
        if (fsync(dfd) != 0 && errno != EINVAL)
            st = gs_error_set(err, GS_ERR_IO, "cannot sync the directory: %s", strerror(errno));
        close(dfd);
    }
out:
    free(tmp);
    free(dircopy);
    return st;
}

gs_status sgf_save(const sgf_tree *t, const char *path, gs_error *err)
{
    char *buf;
    size_t len;
    gs_status st = sgf_write(t, &buf, &len, err);
    if (st != GS_OK) return st;
    st = sgf_file_write_atomic(path, buf, len, err);
    free(buf);
    return st;
}

int sgf_file_remove_stale_temps(const char *path)
{
    if (!path || !path[0]) return 0;
    char *dircopy = strdup(path), *basecopy = strdup(path);
    int removed = 0;
    if (!dircopy || !basecopy) goto out;
    const char *dname = dirname(dircopy), *bname = basename(basecopy);
    size_t bl = strlen(bname);
    DIR *d = opendir(dname);
    if (!d) goto out;
    struct dirent *de;
    while ((de = readdir(d))) {
        /* Exactly the names mkstemp made from "path.tmp-XXXXXX". */
        const char *n = de->d_name;
        if (strlen(n) != bl + 11 || strncmp(n, bname, bl) != 0 || strncmp(n + bl, ".tmp-", 5) != 0) continue;
        size_t dl = strlen(dname);
        char *full = malloc(dl + strlen(n) + 2);
        if (!full) break;
        snprintf(full, dl + strlen(n) + 2, "%s/%s", dname, n);
        if (unlink(full) == 0) removed++;
        free(full);
    }
    closedir(d);
out:
    free(dircopy);
    free(basecopy);
    return removed;
}
