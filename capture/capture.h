/* capture/capture.h: where frames come from.
 *
 * One opaque capture_source hides a backend behind a small table of
 * functions (read / close); the backends are
 *   - a folder of photos, read in natural name order (2.jpg before 10.jpg),
 *     each photo flagged as a settled view (one photo file: a folder of
 *     that photo alone);
 *   - a video file (decoded through cvshim/cvshim.h);
 *   - a V4L2 camera through libv4l2 (BGR24 via libv4l2's conversion, so
 *     MJPEG and YUYV cameras both work), with frame timestamps, and reopened
 *     when it comes back after being unplugged;
 *   - a network camera: a URL FFmpeg reads (http(s):// MJPEG as phone
 *     camera apps serve it, rtsp:// as IP cameras do, ...), through
 *     cvshim/cvshim.h, with the stream's own timestamps, reconnected with
 *     backoff when the stream drops;
 *   - a synthetic source (an in-memory list or a callback), for tests.
 * Each source keeps its own last error (capture_last_error).  Nothing here
 * is global: two cameras can be open at once.
 *
 * Ownership: the source owns the frame it returns; the view stays valid until
 * the next capture_read or capture_close on that source.  The caller closes
 * every source it opened with capture_close (NULL is safe).
 */
#ifndef CAPTURE_H
#define CAPTURE_H

#include "core/gs.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct capture_source capture_source;

typedef enum capture_kind {
    CAPTURE_FOLDER = 0,
    CAPTURE_VIDEO,
    CAPTURE_CAMERA,
    CAPTURE_SYNTHETIC,
    CAPTURE_NETWORK
} capture_kind;

/* What capture_read returns. */
typedef enum capture_result {
    CAPTURE_END = 0,    /* no more frames (end of file / folder / list) */
    CAPTURE_FRAME = 1,  /* a frame is in *frame */
    CAPTURE_LOST = 2,   /* no frame now, keep calling: a camera gone
                           (unplugged; the next reads try to reopen it,
                           sleeping a little between attempts), a network
                           stream dropped (the next reads reconnect, with
                           backoff), or a photo
                           of a folder that could not be read (skipped);
                           capture_last_error says which.  (A video's
                           broken frames are skipped inside the read and
                           reported through capture_info.skipped.) */
    CAPTURE_ERROR = -1  /* hard error: see capture_last_error */
} capture_result;

/* Per-frame facts. */
typedef struct capture_info {
    long index;        /* 0-based frame number from this source */
    double t_ms;       /* timestamp: camera buffer time (from the source's
                          first frame, on the driver's clock: a gap while
                          unplugged shows), a network stream's own time
                          (its arrival time when it carries none; a gap
                          while it was lost shows), video position, or for
                          photo folders index * 1000 (no real clock) */
    bool settled;      /* true when the backend knows the frame is a settled
                          view (every photo of a folder) */
    char name[256];    /* file name for folders ("" otherwise) */
    long skipped;      /* video: frames just before this one that could not
                          be decoded and were skipped (0 almost always);
                          with CAPTURE_END, frames at the end of the file
                          that could not be read.  capture_last_error then
                          says which frames and when */
    double skipped_t_ms; /* the time of the first of them */
    int64_t unix_ms;   /* when the frame was taken, Unix ms by the source's
                          own clock, -1 when unknown: a camera's capture
                          timestamp as wall clock; a network stream's
                          time from the wall clock at its first frame;
                          a video's start
                          (capture_clock_note) + its position; a photo's
                          EXIF DateTimeOriginal, else its file time */
    char time_note[256]; /* "" unless the source did not take the frame's
                            own time: a folder's photo dated before the
                            previous one gets that one's time (times of
                            play never go backwards), said here */
} capture_info;

/* Options for opening; zero means "backend default". */
typedef struct capture_options {
    int width, height;     /* camera resolution request */
    double fps;            /* camera frame-rate request */
    int reopen_ms;         /* camera, network: how long to keep trying to
                              reopen an unplugged camera or reconnect a
                              dropped stream before CAPTURE_ERROR
                              (0 = default 10 minutes, <0 = never give up) */
    int timeout_ms;        /* network: how long a stream may take to answer
                              at open and to send each frame before it is
                              taken for dead (0 = default 5 s) */
    long long max_pixels;  /* pixel budget of a photo or frame: a bigger one
                              is refused (0 = cvshim_max_pixels(0), 50 MP
                              unless GOSCRIBE_MAX_PIXELS says otherwise) */
} capture_options;

/* Opens SPEC: the one entry point for every kind of source.  A URL
 * (capture_spec_is_network) -> network camera, a directory -> folder of
 * photos, a photo file (.jpg, .png, ... by its name) -> a folder of that
 * one photo, /dev/video* (or a bare number "0") -> camera, any other file
 * -> video.  NULL with err filled on failure (GS_ERR_IO for a missing path
 * / device or a stream that does not answer, GS_ERR_FORMAT for an
 * unreadable video or one whose frames are over the pixel budget,
 * GS_ERR_NOBOARD for a folder without images, GS_ERR_USAGE for a URL of a
 * scheme goscribe does not read).  A network source is open once its
 * first frame has come (within opt->timeout_ms), so an address that never
 * answers fails here, in a few seconds.  Messages name a URL as
 * capture_spec_shown does (never its credentials).
 *
 * A video's end is the end of its stream: a frame that cannot be decoded
 * is skipped (capture_info.skipped) and reading goes on up to the frame
 * count the container declares; a video none of whose first frames
 * decodes is refused at open with a message saying so.
 * capture_open_folder and capture_open_video use the default options. */
capture_source *capture_open(const char *spec, const capture_options *opt, gs_error *err);

capture_source *capture_open_folder(const char *dir, gs_error *err);
capture_source *capture_open_video(const char *path, gs_error *err);
capture_source *capture_open_camera(const char *dev, const capture_options *opt, gs_error *err);

/* Synthetic source over an in-memory list of n frames (not copied: they
 * must outlive the source).  fps sets the timestamps (index * 1000 / fps);
 * settled flags every frame as a settled view. */
capture_source *capture_open_list(const gs_image *const *frames, int n, double fps, bool settled, gs_error *err);

/* Synthetic source driven by a callback: fn is called for frame `index` and
 * returns a frame it owns (valid until its next call) or NULL at the end. */
typedef const gs_image *(*capture_frame_fn)(void *user, long index, double *t_ms);
capture_source *capture_open_callback(capture_frame_fn fn, void *user, double fps, bool settled, gs_error *err);

/* SPEC is a URL of a network source: "SCHEME://..." with SCHEME one of
 * http, https, rtsp, rtsps, rtmp, rtp, udp, tcp, srt (case-insensitive);
 * any other "SCHEME://" is refused by capture_open. */
bool capture_spec_is_network(const char *spec);

/* SPEC as it may be shown (a log line, a page, an error, the SGF): in
 * every URL it holds (a source, or a line of text quoting one), the
 * credentials (user:password@) become "***@", and so do the values of
 * query parameters named like secrets (user, pass, pwd, token, key, auth,
 * secret, sig: ?user=admin&pwd=x -> ?user=***&pwd=***); anything else as
 * it is.  Writes at most len bytes (NUL included) into buf and returns
 * buf. */
char *capture_spec_shown(const char *spec, char *buf, size_t len);

/* A live source (a camera, a network camera): frames come as the game is
 * played, it can be lost and come back, and it has no end of its own. */
bool capture_is_live(const capture_source *s);

/* Reads the next frame (see capture_result). */
capture_result capture_read(capture_source *s, const gs_image **frame, capture_info *info);

/* The source's last error message ("" when none). */
const char *capture_last_error(const capture_source *s);

capture_kind capture_get_kind(const capture_source *s);
/* Where the source's frame times (capture_info.unix_ms) come from, in a few
 * words ("the video's creation_time 2026-05-01T14:03:00Z", "the file's
 * modification time minus its duration", ...); "" when it has none. */
const char *capture_clock_note(const capture_source *s);
/* Nominal frame rate (0 when unknown, e.g. photo folders). */
double capture_fps(const capture_source *s);
/* Number of frames when known (folder, list, video container), else -1. */
long capture_frame_count(const capture_source *s);
/* Video: frames skipped so far because they could not be decoded (the
 * sum of capture_info.skipped); 0 for other sources. */
long capture_skipped_count(const capture_source *s);

/* Closes the source and frees everything it owns. NULL is safe. */
void capture_close(capture_source *s);

/* Sorts names in natural order ("t2_9" < "t2_10", "2.jpg" < "10.jpg"):
 * digit runs compare as numbers.  Usable as a qsort comparator on char*. */
int capture_natural_cmp(const char *a, const char *b);

/* ---- camera listing (`goscribe devices`) ---- */

typedef struct capture_mode {
    char fourcc[5];        /* "MJPG", "YUYV", ... */
    int width, height;
    double fps[8];         /* discrete frame rates, n_fps of them */
    int n_fps;
} capture_mode;

typedef struct capture_device {
    char path[64];         /* /dev/videoN */
    char card[64];         /* driver's name of the camera */
    char driver[32];
    capture_mode *modes;   /* n_modes, malloc'd; free with capture_devices_free */
    int n_modes;
} capture_device;

/* Lists V4L2 capture devices under /dev (video-capture capable only).
 * *out is malloc'd (NULL when none); free with capture_devices_free.
 * Returns the number found (0 = none), or -1 with err on failure. */
int capture_list_devices(capture_device **out, gs_error *err);
void capture_devices_free(capture_device *devs, int n);

#ifdef __cplusplus
}
#endif
#endif
