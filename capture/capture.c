/* capture/capture.c: the source dispatch (capture_open) and the backends
 * of a folder of photos and of synthetic lists/callbacks.  The video-file
 * backend lives in video.c, the camera backend in capture_v4l2.c, the
 * network camera's in net.c, the source object they all fill in
 * (capture_new, errors, read, close) in source.c. */
#include "capture/capture_impl.h"

#include "cvshim/cvshim.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static int natural_qsort(const void *pa, const void *pb)
{
    return capture_natural_cmp(*(const char *const *)pa, *(const char *const *)pb);
}

/* ----------------------------------------------------------------- folder */

typedef struct folder_impl {
    char *dir;
    char **names;
    int n;
    int next;           /* next photo (a broken one is skipped) */
    long long max_pixels; /* pixel budget of a photo */
    gs_image *frame;
    int64_t last_ms;    /* the previous photo's time of play, -1 none yet */
} folder_impl;

static int is_image_name(const char *name)
{
    static const char *const ext[] = {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp", ".ppm", ".pgm"};
    if (name[0] == '.') return 0;
    const char *dot = strrchr(name, '.');
    if (!dot) return 0;
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++)
        if (!strcasecmp(dot, ext[i])) return 1;
    return 0;
}

/* The time in UTC to the millisecond (two photos a fraction of a second
 * apart must not read as the same time). */
static void utc_words(int64_t ms, char buf[32])
{
    time_t t = (time_t)(ms / 1000);
    struct tm tmv;
    char sec[24];
    if (!gmtime_r(&t, &tmv) || !strftime(sec, sizeof sec, "%Y-%m-%dT%H:%M:%S", &tmv)) snprintf(sec, sizeof sec, "?");
    snprintf(buf, 32, "%s.%03dZ", sec, (int)(ms % 1000));
}

/* Photos are played in name order, so a photo dated before the previous
 * one (file times of copies, a camera's clock reset) takes the previous
 * one's time: max(previous, its own), said in info->time_note. */
static void folder_monotone_time(folder_impl *f, const char *name, capture_info *info)
{
    if (info->unix_ms < 0) return;
    if (f->last_ms >= 0 && info->unix_ms < f->last_ms) {
        char own[32], prev[32];
        utc_words(info->unix_ms, own);
        utc_words(f->last_ms, prev);
        snprintf(info->time_note, sizeof info->time_note,
                 "%.40s: its time (%.28s) is before the previous photo's (%.28s): taken as that one's, as photos are "
                 "played in name order", name, own, prev);
        info->unix_ms = f->last_ms;
    }
    f->last_ms = info->unix_ms;
}

static capture_result folder_read(capture_source *s, const gs_image **frame, capture_info *info)
{
    folder_impl *f = s->impl;
    if (f->next >= f->n) return CAPTURE_END;
    const char *name = f->names[f->next++];
    size_t len = strlen(f->dir) + strlen(name) + 2;
    char *path = malloc(len);
    if (!path) { capture_set_error(s, "out of memory"); return CAPTURE_ERROR; }
    /* (a photo given alone in the working folder is named as it was given,
     * not as ./NAME) */
    if (strcmp(f->dir, ".")) snprintf(path, len, "%s/%s", f->dir, name);
    else snprintf(path, len, "%s", name);
    gs_error err = {0};
    gs_image_destroy(f->frame);
    f->frame = cvshim_image_load_max(path, f->max_pixels, &err);
    if (f->frame) info->unix_ms = capture_photo_time_ms(path);
    free(path);
    if (!f->frame) {
        /* one broken photo does not end the game: report and go on */
        capture_set_error(s, "%s (skipped)", err.msg); /* the message names the photo */
        return CAPTURE_LOST;
    }
    folder_monotone_time(f, name, info);
    *frame = f->frame;
    info->t_ms = (double)info->index * 1000.0;
    info->settled = true;
    snprintf(info->name, sizeof info->name, "%s", name);
    return CAPTURE_FRAME;
}

static void folder_close(capture_source *s)
{
    folder_impl *f = s->impl;
    if (!f) return;
    for (int i = 0; i < f->n; i++) free(f->names[i]);
    free(f->names);
    free(f->dir);
    gs_image_destroy(f->frame);
    free(f);
}

static const capture_ops folder_ops = {"folder", folder_read, folder_close};

static capture_source *folder_open(const char *dir, const capture_options *opt, gs_error *err)
{
    DIR *d = opendir(dir);
    if (!d) {
        gs_error_set(err, GS_ERR_IO, "%s: %s", dir, strerror(errno));
        return NULL;
    }
    folder_impl *f = calloc(1, sizeof *f);
    int cap = 0;
    if (!f || !(f->dir = strdup(dir))) goto nomem;
    f->max_pixels = opt ? opt->max_pixels : 0;
    f->last_ms = -1;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!is_image_name(e->d_name)) continue;
        if (f->n == cap) {
            cap = cap ? cap * 2 : 64;
            char **nn = realloc(f->names, (size_t)cap * sizeof *nn);
            if (!nn) goto nomem;
            f->names = nn;
        }
        if (!(f->names[f->n] = strdup(e->d_name))) goto nomem;
        f->n++;
    }
    (void)closedir(d); /* read-only: a failed close loses nothing */
    d = NULL;
    if (f->n == 0) {
        gs_error_set(err, GS_ERR_NOBOARD, "%s: no photos in this folder", dir);
        folder_close(&(capture_source){.impl = f});
        return NULL;
    }
    qsort(f->names, (size_t)f->n, sizeof *f->names, natural_qsort);
    capture_source *s = capture_new(CAPTURE_FOLDER, &folder_ops, f);
    if (!s) goto nomem;
    s->frame_count = f->n;
    snprintf(s->clock_note, sizeof s->clock_note,
             "times of play from each photo's EXIF DateTimeOriginal, else its file time, never before the previous "
             "photo's");
    return s;
nomem:
    if (d) (void)closedir(d);
    if (f) folder_close(&(capture_source){.impl = f});
    gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    return NULL;
}

/* One photo file as a folder holding only it: a one-photo recording. */
static capture_source *photo_open(const char *path, const capture_options *opt, gs_error *err)
{
    folder_impl *f = calloc(1, sizeof *f);
    const char *slash = strrchr(path, '/');
    if (!f || !(f->names = calloc(1, sizeof *f->names))) goto nomem;
    f->dir = slash ? strndup(path, (size_t)(slash == path ? 1 : slash - path)) : strdup(".");
    if (!f->dir || !(f->names[0] = strdup(slash ? slash + 1 : path))) goto nomem;
    f->n = 1;
    f->max_pixels = opt ? opt->max_pixels : 0;
    f->last_ms = -1;
    capture_source *s = capture_new(CAPTURE_FOLDER, &folder_ops, f);
    if (!s) goto nomem;
    s->frame_count = 1;
    snprintf(s->clock_note, sizeof s->clock_note, "time of play from the photo's EXIF DateTimeOriginal, else its file time");
    return s;
nomem:
    if (f) folder_close(&(capture_source){.impl = f});
    gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    return NULL;
}

capture_source *capture_open_folder(const char *dir, gs_error *err)
{
    return folder_open(dir, NULL, err);
}

/* -------------------------------------------------------------- synthetic */

typedef struct synth_impl {
    const gs_image *const *list;
    int n;
    capture_frame_fn fn;
    void *user;
    bool settled;
} synth_impl;

static capture_result synth_read(capture_source *s, const gs_image **frame, capture_info *info)
{
    synth_impl *y = s->impl;
    double t = s->fps > 0 ? (double)info->index * 1000.0 / s->fps : (double)info->index * 1000.0;
    const gs_image *img;
    if (y->fn) {
        img = y->fn(y->user, info->index, &t);
    } else {
        img = info->index < y->n ? y->list[info->index] : NULL;
    }
    if (!img) return CAPTURE_END;
    *frame = img;
    info->t_ms = t;
    info->settled = y->settled;
    return CAPTURE_FRAME;
}

static void synth_close(capture_source *s) { free(s->impl); }

static const capture_ops synth_ops = {"synthetic", synth_read, synth_close};

static capture_source *synth_open(const gs_image *const *list, int n, capture_frame_fn fn, void *user,
                                  double fps, bool settled, gs_error *err)
{
    synth_impl *y = calloc(1, sizeof *y);
    capture_source *s = y ? capture_new(CAPTURE_SYNTHETIC, &synth_ops, y) : NULL;
    if (!s) {
        free(y);
        gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    y->list = list;
    y->n = n;
    y->fn = fn;
    y->user = user;
    y->settled = settled;
    s->fps = fps > 0 ? fps : 0;
    s->frame_count = fn ? -1 : n;
    return s;
}

capture_source *capture_open_list(const gs_image *const *frames, int n, double fps, bool settled, gs_error *err)
{
    if (n < 0 || (n > 0 && !frames)) {
        gs_error_set(err, GS_ERR_USAGE, "frame list: bad arguments");
        return NULL;
    }
    return synth_open(frames, n, NULL, NULL, fps, settled, err);
}

capture_source *capture_open_callback(capture_frame_fn fn, void *user, double fps, bool settled, gs_error *err)
{
    if (!fn) {
        gs_error_set(err, GS_ERR_USAGE, "frame callback: none given");
        return NULL;
    }
    return synth_open(NULL, 0, fn, user, fps, settled, err);
}

/* ------------------------------------------------------------- dispatch */

static int is_camera_spec(const char *spec)
{
    if (!strncmp(spec, "/dev/video", 10) || !strncmp(spec, "/dev/v4l/", 9)) return 1;
    if (!*spec) return 0;
    for (const char *p = spec; *p; p++)
        if (!isdigit((unsigned char)*p)) return 0;
    return 1; /* bare number: camera index */
}

capture_source *capture_open(const char *spec, const capture_options *opt, gs_error *err)
{
    if (!spec || !*spec) {
        gs_error_set(err, GS_ERR_USAGE, "no source given");
        return NULL;
    }
    struct stat st;
    int exists = stat(spec, &st) == 0;
    /* "SCHEME://...": a URL (an unknown scheme is refused there, by name) */
    if (!exists && capture_url_scheme_len(spec)) return capture_open_network(spec, opt, err);
    if (exists && S_ISDIR(st.st_mode)) return folder_open(spec, opt, err);
    /* a photo (by its name) is a one-photo recording, not a one-frame video */
    if (exists && S_ISREG(st.st_mode) && is_image_name(strrchr(spec, '/') ? strrchr(spec, '/') + 1 : spec))
        return photo_open(spec, opt, err);
    if ((exists && S_ISCHR(st.st_mode)) || (!exists && is_camera_spec(spec))) {
        char dev[64];
        if (isdigit((unsigned char)spec[0])) snprintf(dev, sizeof dev, "/dev/video%s", spec);
        else snprintf(dev, sizeof dev, "%s", spec);
        return capture_open_camera(dev, opt, err);
    }
    return capture_video_open(spec, opt, err);
}
