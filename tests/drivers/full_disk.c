/* tests/drivers/full_disk.c: a small disk for the tests, without root or
 * a mount: an LD_PRELOAD library that gives the folder $GS_FULL_DIR a
 * capacity of $GS_FULL_BYTES bytes.  The space used is what the files
 * under the folder hold now (so a removed or replaced file frees its
 * room, as on a real disk); a write() to a file there that would pass the
 * capacity writes what fits and then fails with ENOSPC, and statvfs() of
 * the folder reports the free space left.  Only write() is caught (the
 * recorder writes its files through it; stdio's own writes are not seen).
 *   LD_PRELOAD=libgs_full_disk.so GS_FULL_DIR=/abs/dir GS_FULL_BYTES=N cmd */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

static const char *full_dir(void)
{
    const char *d = getenv("GS_FULL_DIR");
    return d && d[0] == '/' ? d : NULL;
}

static long long capacity(void)
{
    const char *s = getenv("GS_FULL_BYTES");
    return s ? atoll(s) : 0;
}

static int is_under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == 0);
}

/* Bytes of the regular files under dir (two levels: the SGF's folder and
 * its evidence folder). */
static long long used_in(const char *dir, int depth)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    long long sum = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        char p[PATH_MAX];
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        struct stat st;
        if (lstat(p, &st) != 0) continue;
        if (S_ISREG(st.st_mode)) sum += st.st_size;
        else if (S_ISDIR(st.st_mode) && depth > 0) sum += used_in(p, depth - 1);
    }
    closedir(d);
    return sum;
}

ssize_t write(int fd, const void *buf, size_t n)
{
    static ssize_t (*real)(int, const void *, size_t);
    if (!real) real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    const char *dir = full_dir();
    char link[64], path[PATH_MAX];
    struct stat st;
    if (!dir || fd <= 2 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return real(fd, buf, n);
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t pl = readlink(link, path, sizeof path - 1);
    if (pl <= 0) return real(fd, buf, n);
    path[pl] = 0;
    if (!is_under(path, dir)) return real(fd, buf, n);
    long long room = capacity() - used_in(dir, 2);
    if (room <= 0) {
        errno = ENOSPC;
        return -1;
    }
    return real(fd, buf, (long long)n > room ? (size_t)room : n);
}

static void fix_statvfs(const char *path, struct statvfs *sv)
{
    const char *dir = full_dir();
    char abs[PATH_MAX];
    if (!dir || !realpath(path, abs) || !is_under(abs, dir) || sv->f_frsize == 0) return;
    long long room = capacity() - used_in(dir, 2);
    if (room < 0) room = 0;
    sv->f_blocks = (fsblkcnt_t)(capacity() / (long long)sv->f_frsize);
    sv->f_bfree = sv->f_bavail = (fsblkcnt_t)(room / (long long)sv->f_frsize);
}

int statvfs(const char *path, struct statvfs *sv)
{
    static int (*real)(const char *, struct statvfs *);
    if (!real) real = (int (*)(const char *, struct statvfs *))dlsym(RTLD_NEXT, "statvfs");
    int rc = real(path, sv);
    if (rc == 0) fix_statvfs(path, sv);
    return rc;
}

int statvfs64(const char *path, struct statvfs64 *sv)
{
    static int (*real)(const char *, struct statvfs64 *);
    if (!real) real = (int (*)(const char *, struct statvfs64 *))dlsym(RTLD_NEXT, "statvfs64");
    int rc = real(path, sv);
    /* (one layout on 64-bit targets, where the tests run) */
    if (rc == 0 && sizeof *sv == sizeof(struct statvfs)) fix_statvfs(path, (struct statvfs *)(void *)sv);
    return rc;
}
