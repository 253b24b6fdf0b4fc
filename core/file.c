/* core/file.c: whole-file reads with a size bound, and the one crash-safe
 * file writer (used by the SGF record and calibration files alike). */
#include "core/gs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

gs_status gs_file_read(const char *path, size_t max_bytes, char **out, size_t *len, gs_error *err)
{
    *out = NULL;
    if (len) *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return gs_error_set(err, GS_ERR_IO, "cannot open: %s", strerror(errno));
    char *buf = NULL;
    size_t n = 0, cap = 0;
    gs_status st = GS_OK;
    for (;;) {
        if (n == cap) {
            if (cap > max_bytes) break;
            size_t nc = cap ? cap * 2 : 65536;
            char *nb = realloc(buf, nc + 1);
            if (!nb) { st = gs_error_set(err, GS_ERR_NOMEM, "out of memory reading the file"); break; }
            buf = nb;
            cap = nc;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0) break;
    }
    if (st == GS_OK && ferror(f)) st = gs_error_set(err, GS_ERR_IO, "cannot read: %s", strerror(errno));
    fclose(f);
    if (st == GS_OK && n > max_bytes)
        st = gs_error_set(err, GS_ERR_FORMAT, "file larger than %zu bytes, not read", max_bytes);
    if (st != GS_OK) { free(buf); return st; }
    if (!buf && !(buf = malloc(1))) return gs_error_set(err, GS_ERR_NOMEM, "out of memory reading the file");
    buf[n] = '\0';
    *out = buf;
    if (len) *len = n;
    return GS_OK;
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

/* A failed step of gs_file_write_atomic: the message, the temp file
 * removed (fd closed first when open), errno kept as the step left it. */
static gs_status atomic_fail(gs_error *err, const char *what, int fd, const char *tmp)
{
    int cause = errno;
    gs_error_set(err, GS_ERR_IO, "%s: %s", what, strerror(cause));
    if (fd >= 0) close(fd);
    if (tmp) unlink(tmp);
    errno = cause;
    return GS_ERR_IO;
}

gs_status gs_file_write_atomic(const char *path, const void *data, size_t len, gs_error *err)
{
    if (!path || !path[0] || (!data && len)) return gs_error_set(err, GS_ERR_USAGE, "no path or data to write");
    size_t pl = strlen(path);
    char *tmp = malloc(pl + 16);
    char *dircopy = strdup(path);
    if (!tmp || !dircopy) {
        free(tmp);
        free(dircopy);
        errno = ENOMEM;
        return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    }
    memcpy(tmp, path, pl);
    memcpy(tmp + pl, ".tmp-XXXXXX", 12);
    gs_status st = GS_OK;
    int fd = mkstemp(tmp);
    if (fd < 0) {
        st = atomic_fail(err, "cannot create a temporary file beside it", -1, NULL);
    } else if (fchmod(fd, 0644) != 0 || !write_all(fd, data, len) || fsync(fd) != 0) {
        st = atomic_fail(err, "cannot write", fd, tmp);
    } else if (close(fd) != 0) {
        st = atomic_fail(err, "cannot write", -1, tmp);
    } else if (rename(tmp, path) != 0) {
        st = atomic_fail(err, "cannot replace the file", -1, tmp);
    } else {
        /* The rename is durable only once the directory entry is on disk. */
        int dfd = open(dirname(dircopy), O_RDONLY | O_DIRECTORY);
        if (dfd >= 0) {
            if (fsync(dfd) != 0 && errno != EINVAL) st = atomic_fail(err, "cannot sync the directory", dfd, NULL);
            else close(dfd);
        }
    }
    int cause = errno;
    free(tmp);
    free(dircopy);
    errno = cause;
    return st;
}

int gs_file_remove_stale_temps(const char *path)
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
