/* capture/video.c: the video-file backend (decoded through cvshim).
 *
 * The end of a video is the end of its stream, never one bad read: OpenCV
 * answers a frame it cannot decode exactly as it answers the end of the
 * file, so a failed read is taken for a broken frame (skipped, counted,
 * and the reading goes on) as long as the container declares more frames
 * than have gone by.  How many went by is told by the timestamps of the
 * frames around the gap (one failed read can swallow several broken
 * packets), and at least by the failed reads.  A video none of whose
 * frames decodes is refused at open. */
#include "capture/capture_impl.h"

#include "cvshim/cvshim.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Failed reads in a row taken for the end when the container does not say
 * how many frames it has (10 s at 30 fps). */
#define VIDEO_UNKNOWN_TRIES 300L
/* At most this many failed reads in a row even when it does (a failed
 * read at the end costs about a microsecond; a hostile frame count is no
 * reason to spin for long). */
#define VIDEO_MAX_RUN (1L << 20)

typedef struct video_impl {
    cvshim_video *v;
    gs_image *frame;
    long total;          /* frames the container declares, -1 unknown */
    double fps;          /* its nominal rate, 0 unknown */
    long pos;            /* container number of the last frame decoded, -1 before the first */
    double last_t;       /* that frame's time */
    bool have_first;     /* the first frame, decoded at open, not yet returned */
    double first_t;
    long first_skipped;  /* broken frames before it */
    int64_t start_ms;    /* time of play of position 0, -1 unknown */
    bool ended;
} video_impl;

/* More frames are to be expected after `bad` failed reads in a row. */
static bool more_frames(const video_impl *v, long bad)
{
    if (v->total < 0) return bad < VIDEO_UNKNOWN_TRIES;
    return v->pos + 1 + bad < v->total && bad < VIDEO_MAX_RUN;
}

/* The container number of a frame decoded at t after `bad` failed reads:
 * by the count of reads, or further by its timestamp (constant rate). */
static long frame_number(const video_impl *v, double t, long bad)
{
    long n = v->pos + 1 + bad;
    if (bad == 0 || !(v->fps > 0) || !(t >= 0 && t < 1e12)) return n;
    double by_time = floor(t * v->fps / 1000.0 + 0.5);
    if (by_time > (double)n && (v->total < 0 || by_time < (double)v->total)) n = (long)by_time;
    return n;
}

/* Decodes the next frame that can be: 1 (its time in *t, its number in
 * v->pos, the frames skipped before it in *skipped), 0 at the end, -1 on
 * an error. */
static int video_next(video_impl *v, double *t, long *skipped)
{
    long bad = 0;
    *skipped = 0;
    for (;;) {
        int r = cvshim_video_read(v->v, &v->frame, t);
        if (r < 0) return -1;
        if (r == 1) break;
        bad++;
        if (!more_frames(v, bad)) return 0;
    }
    long n = frame_number(v, *t, bad);
    *skipped = n - v->pos - 1;
    v->pos = n;
    /* some containers report no position: fall back to the nominal rate */
    if (!(*t > 0) && n > 0 && v->fps > 0) *t = (double)n * 1000.0 / v->fps;
    return 1;
}

/* The time of container frame n (nominal rate; 0 when unknown). */
static double frame_time(const video_impl *v, long n)
{
    return v->fps > 0 ? (double)n * 1000.0 / v->fps : 0;
}

/* Says which frames before frame v->pos (time t) were skipped. */
static void report_gap(capture_source *s, const video_impl *v, long skipped, double t, capture_info *info)
{
    long first = v->pos - skipped;
    double t0 = first > 0 ? frame_time(v, first) : 0;
    if (t0 > t) t0 = t;
    info->skipped = skipped;
    info->skipped_t_ms = t0;
    if (skipped == 1)
        capture_set_error(s, "1 frame could not be decoded (frame %ld, %.2f s): skipped", first, t0 / 1000.0);
    else
        capture_set_error(s, "%ld frames could not be decoded (frames %ld-%ld, %.2f-%.2f s): skipped", skipped, first,
                          v->pos - 1, t0 / 1000.0, frame_time(v, v->pos - 1) / 1000.0);
}

/* The end: frames the container declares beyond the last decoded one
 * could not be read (broken or missing: the file may be cut short). */
static capture_result video_end(capture_source *s, video_impl *v, capture_info *info)
{
    if (v->ended) return CAPTURE_END;
    v->ended = true;
    long tail = v->total > 0 ? v->total - 1 - v->pos : 0;
    /* By time too: a variable-rate video has fewer frames than its
     * duration times its nominal rate (which is how some containers count
     * them), yet its last frame comes at its end. */
    if (tail > 0 && v->fps > 0 && v->last_t > 0) {
        double left = (double)v->total - 1 - floor(v->last_t * v->fps / 1000.0 + 0.5);
        if (left < (double)tail) tail = left > 0 ? (long)left : 0;
    }
    if (tail > 0) {
        info->skipped = tail;
        info->skipped_t_ms = v->pos >= 0 ? frame_time(v, v->pos + 1) : 0;
        if (info->skipped_t_ms < v->last_t) info->skipped_t_ms = v->last_t;
        capture_set_error(s,
                          "the last %ld frame%s of the %ld the file declares (from %.2f s) could not be read: "
                          "the file is damaged or cut short",
                          tail, tail == 1 ? "" : "s", v->total, info->skipped_t_ms / 1000.0);
    }
    return CAPTURE_END;
}

static capture_result video_read(capture_source *s, const gs_image **frame, capture_info *info)
{
    video_impl *v = s->impl;
    double t = 0;
    long skipped = 0;
    if (v->have_first) {
        v->have_first = false;
        t = v->first_t;
        skipped = v->first_skipped;
    } else {
        if (v->ended) return CAPTURE_END;
        int r = video_next(v, &t, &skipped);
        if (r == 0) return video_end(s, v, info);
        if (r < 0) {
            capture_set_error(s, "video decode failed after frame %ld", v->pos);
            return CAPTURE_ERROR;
        }
    }
    if (skipped > 0) report_gap(s, v, skipped, t, info);
    v->last_t = t;
    info->t_ms = t;
    info->unix_ms = v->start_ms >= 0 ? v->start_ms + (int64_t)(t + 0.5) : -1;
    *frame = v->frame;
    return CAPTURE_FRAME;
}

static void video_close(capture_source *s)
{
    video_impl *v = s->impl;
    if (!v) return;
    cvshim_video_close(v->v);
    gs_image_destroy(v->frame);
    free(v);
}

static const capture_ops video_ops = {"video", video_read, video_close};

/* The container's frame size against the budget, before any decoding. */
static gs_status check_size(cvshim_video *cv, const char *path, long long budget, gs_error *err)
{
    int w, h;
    cvshim_video_size(cv, &w, &h);
    if ((long long)w * h <= budget) return GS_OK;
    return gs_error_set(err, GS_ERR_FORMAT,
                        "%s: %d x %d video frames are %lld pixels, over the pixel budget of %lld (raise it with "
                        "--max-pixels N or GOSCRIBE_MAX_PIXELS)",
                        path, w, h, (long long)w * h, budget);
}

/* OpenCV opens many things as "video" (even a single broken .jpg): only a
 * file one of whose frames decodes is one.  That first frame is kept. */
static gs_status first_frame(video_impl *v, const char *path, gs_error *err)
{
    int r = video_next(v, &v->first_t, &v->first_skipped);
    if (r == 1) {
        v->have_first = true;
        return GS_OK;
    }
    if (r < 0) return gs_error_set(err, GS_ERR_FORMAT, "%s: video decode failed", path);
    if (v->total > 1)
        return gs_error_set(err, GS_ERR_FORMAT, "%s: not a readable video: none of its %ld frames can be decoded", path,
                            v->total);
    if (v->total < 0)
        return gs_error_set(err, GS_ERR_FORMAT, "%s: not a readable video: none of its first %ld frames can be decoded",
                            path, VIDEO_UNKNOWN_TRIES);
    return gs_error_set(err, GS_ERR_FORMAT, "%s: not a readable video or photo folder", path);
}

capture_source *capture_video_open(const char *path, const capture_options *opt, gs_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        gs_error_set(err, GS_ERR_IO, "%s: %s", path, strerror(errno));
        return NULL;
    }
    gs_error e2 = {0};
    cvshim_video *cv = cvshim_video_open(path, &e2);
    if (!cv) {
        gs_error_set(err, GS_ERR_FORMAT, "%s: %s", path, e2.msg);
        return NULL;
    }
    long long budget = cvshim_max_pixels(opt ? opt->max_pixels : 0);
    if (check_size(cv, path, budget, err) != GS_OK) {
        cvshim_video_close(cv);
        return NULL;
    }
    cvshim_video_set_max_pixels(cv, budget);
    video_impl *v = calloc(1, sizeof *v);
    capture_source *s = v ? capture_new(CAPTURE_VIDEO, &video_ops, v) : NULL;
    if (!s) {
        cvshim_video_close(cv);
        free(v);
        gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    v->v = cv;
    v->pos = -1;
    v->fps = cvshim_video_fps(cv);
    if (!(v->fps > 0 && v->fps < 1000)) v->fps = 0;
    v->total = cvshim_video_frame_count(cv);
    s->fps = v->fps;
    s->frame_count = v->total;
    if (first_frame(v, path, err) != GS_OK) {
        capture_close(s);
        return NULL;
    }
    double duration = v->fps > 0 && v->total > 0 ? (double)v->total * 1000.0 / v->fps : -1;
    v->start_ms = capture_video_start_ms(path, duration, s->clock_note, sizeof s->clock_note);
    return s;
}

capture_source *capture_open_video(const char *path, gs_error *err)
{
    return capture_video_open(path, NULL, err);
}
