/* capture/capture_impl.h: private to capture/: the source object and the
 * table of functions each backend fills in. */
#ifndef CAPTURE_IMPL_H
#define CAPTURE_IMPL_H

#include "capture/capture.h"

typedef struct capture_ops {
    const char *name;
    /* Fills *frame (owned by the backend) and info (index preset). */
    capture_result (*read)(capture_source *s, const gs_image **frame, capture_info *info);
    /* Frees s->impl and whatever it holds (not s itself). */
    void (*close)(capture_source *s);
} capture_ops;

struct capture_source {
    capture_kind kind;
    const capture_ops *ops;
    void *impl;
    long next_index;
    double fps;
    long frame_count;
    long skipped;           /* frames a video backend skipped (broken) */
    char last_error[320];
    char clock_note[160];   /* capture_clock_note */
};

/* clock.c: the time of play a file gives (Unix ms, -1 unknown).  A video's
 * start: its container's creation_time (MP4/MOV mvhd) when present, else
 * its file time minus its duration (frames / fps); note says which.  A
 * photo: EXIF DateTimeOriginal (as local time), else its file time. */
int64_t capture_video_start_ms(const char *path, double duration_ms, char *note, size_t notelen);
int64_t capture_photo_time_ms(const char *path);

/* source.c: a new source over impl (NULL on no memory), and its last error. */
capture_source *capture_new(capture_kind kind, const capture_ops *ops, void *impl);
void capture_set_error(capture_source *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* video.c: a video file with the options of capture_open. */
capture_source *capture_video_open(const char *path, const capture_options *opt, gs_error *err);

/* net.c: a network camera (a URL) with the options of capture_open; the
 * length of SPEC's scheme when it starts "SCHEME://" (any scheme), else 0. */
capture_source *capture_open_network(const char *url, const capture_options *opt, gs_error *err);
size_t capture_url_scheme_len(const char *spec);

#endif
