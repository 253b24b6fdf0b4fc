/* capture/capture_v4l2.c: V4L2 cameras through libv4l2.
 *
 * libv4l2 converts whatever the camera sends (MJPEG, YUYV, ...) to BGR24, so
 * one code path serves every camera.  Buffers are mmap'd (streaming I/O).
 * When the camera disappears (ENODEV/EIO, or no frame for 3 s) the source
 * reports CAPTURE_LOST once and then tries to reopen the same path on every
 * read, so an unplugged camera can come back without losing the game. */
#include "capture/capture_impl.h"

#include "cvshim/cvshim.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <libv4l2.h>
#include <linux/videodev2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CAM_BUFFERS 4

typedef struct cam_buf {
    void *start;
    size_t length;
} cam_buf;

typedef struct cam_impl {
    char path[64];
    capture_options opt;
    int fd;                 /* -1 while lost */
    cam_buf bufs[CAM_BUFFERS];
    int n_bufs;
    int width, height, stride;
    gs_image *frame;
    double lost_since_ms;   /* gs_now_ms() when lost, 0 while streaming */
    bool have_base;
    double t_base, last_t;  /* first frame's timestamp, last frame's time from it (ms) */
} cam_impl;

static int xioctl(int fd, unsigned long req, void *arg)
{
    int r;
    do r = v4l2_ioctl(fd, req, arg);
    while (r == -1 && errno == EINTR);
    return r;
}

static void cam_teardown(cam_impl *c)
{
    if (c->fd < 0) return;
    /* Tearing down is best effort: the device may already be gone (that is
     * often why we are here), and nothing is left to do if a step fails. */
    enum v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    (void)xioctl(c->fd, VIDIOC_STREAMOFF, &type);
    for (int i = 0; i < c->n_bufs; i++)
        if (c->bufs[i].start && c->bufs[i].start != MAP_FAILED) (void)v4l2_munmap(c->bufs[i].start, c->bufs[i].length);
    c->n_bufs = 0;
    (void)v4l2_close(c->fd);
    c->fd = -1;
}

/* Asks for BGR frames (libv4l2 converts) of the size and rate requested
 * and within the pixel budget; on failure fills msg, returns the cause. */
static int cam_set_format(cam_impl *c, char *msg, size_t msglen)
{
    struct v4l2_format fmt;
    memset(&fmt, 0, sizeof fmt);
    fmt.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    if (xioctl(c->fd, VIDIOC_G_FMT, &fmt) < 0) {
        snprintf(msg, msglen, "%s: cannot query the format: %s", c->path, strerror(errno));
        return EIO;
    }
    if (c->opt.width > 0 && c->opt.height > 0) {
        fmt.fmt.pix.width = (unsigned)c->opt.width;
        fmt.fmt.pix.height = (unsigned)c->opt.height;
    }
    fmt.fmt.pix.pixelformat = V4L2_PIX_FMT_BGR24; /* libv4l2 converts */
    fmt.fmt.pix.field = V4L2_FIELD_ANY;
    if (xioctl(c->fd, VIDIOC_S_FMT, &fmt) < 0 || fmt.fmt.pix.pixelformat != V4L2_PIX_FMT_BGR24) {
        snprintf(msg, msglen, "%s: cannot get BGR frames from this camera", c->path);
        return EIO;
    }
    long long budget = cvshim_max_pixels(c->opt.max_pixels);
    if (fmt.fmt.pix.width < 1 || fmt.fmt.pix.height < 1 ||
        (long long)fmt.fmt.pix.width * fmt.fmt.pix.height > budget || fmt.fmt.pix.bytesperline > (1u << 20)) {
        snprintf(msg, msglen, "%s: the camera's %u x %u frames are over the pixel budget of %lld pixels", c->path,
                 fmt.fmt.pix.width, fmt.fmt.pix.height, budget);
        return EIO;
    }
    c->width = (int)fmt.fmt.pix.width;
    c->height = (int)fmt.fmt.pix.height;
    c->stride = fmt.fmt.pix.bytesperline >= fmt.fmt.pix.width * 3 ? (int)fmt.fmt.pix.bytesperline : c->width * 3;
    if (c->opt.fps > 0) {
        struct v4l2_streamparm parm;
        memset(&parm, 0, sizeof parm);
        parm.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        parm.parm.capture.timeperframe.numerator = 1000;
        double fps = c->opt.fps < 1000 ? c->opt.fps : 1000; /* clamped before the cast */
        parm.parm.capture.timeperframe.denominator = (unsigned)(fps * 1000.0 + 0.5);
        (void)xioctl(c->fd, VIDIOC_S_PARM, &parm); /* best effort: cameras may refuse */
    }
    return 0;
}

/* Maps the driver's buffers and queues them; on failure fills msg. */
static int cam_map_buffers(cam_impl *c, char *msg, size_t msglen)
{
    struct v4l2_requestbuffers req;
    memset(&req, 0, sizeof req);
    req.count = CAM_BUFFERS;
    req.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    req.memory = V4L2_MEMORY_MMAP;
    if (xioctl(c->fd, VIDIOC_REQBUFS, &req) < 0 || req.count < 1) {
        snprintf(msg, msglen, "%s: cannot allocate capture buffers", c->path);
        return EIO;
    }
    for (unsigned i = 0; i < req.count && i < CAM_BUFFERS; i++) {
        struct v4l2_buffer b;
        memset(&b, 0, sizeof b);
        b.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        b.memory = V4L2_MEMORY_MMAP;
        b.index = i;
        if (xioctl(c->fd, VIDIOC_QUERYBUF, &b) < 0) break;
        c->bufs[i].length = b.length;
        c->bufs[i].start = v4l2_mmap(NULL, b.length, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd, b.m.offset);
        if (c->bufs[i].start == MAP_FAILED) break;
        c->n_bufs = (int)i + 1;
        if (xioctl(c->fd, VIDIOC_QBUF, &b) < 0) break;
    }
    if (c->n_bufs < 1) {
        snprintf(msg, msglen, "%s: cannot map capture buffers", c->path);
        return EIO;
    }
    return 0;
}

/* A file that is no video4linux device (/dev/null, a tty, a disk) is
 * said so in one line here, before libv4l2, which would print lines of its
 * own on stderr about it.  0 when it may be one (libv4l2 decides). */
static int probe_v4l2(const char *path, char *msg, size_t msglen)
{
    int fd = open(path, O_RDWR | O_NONBLOCK);
    if (fd < 0) return 0; /* (libv4l2's open says why, as before) */
    struct v4l2_capability cap;
    memset(&cap, 0, sizeof cap);
    int e = ioctl(fd, VIDIOC_QUERYCAP, &cap) < 0 ? errno : 0;
    (void)close(fd); /* only looked at: nothing to lose */
    if (e != ENOTTY && e != EINVAL) return 0;
    snprintf(msg, msglen, "%s: not a camera (no video4linux device)", path);
    return ENODEV;
}

/* Opens and starts streaming; on failure fills msg and leaves fd = -1.
 * Returns the errno-ish cause (0 on success). */
static int cam_start(cam_impl *c, char *msg, size_t msglen)
{
    int pe = probe_v4l2(c->path, msg, msglen);
    if (pe) return pe;
    int fd = v4l2_open(c->path, O_RDWR | O_NONBLOCK, 0);
    if (fd < 0) {
        int e = errno;
        snprintf(msg, msglen, "%s: %s", c->path, strerror(e));
        return e ? e : EIO;
    }
    c->fd = fd;
    struct v4l2_capability cap;
    memset(&cap, 0, sizeof cap);
    int r = 0;
    if (xioctl(fd, VIDIOC_QUERYCAP, &cap) < 0 || !(cap.capabilities & V4L2_CAP_VIDEO_CAPTURE) ||
        !(cap.capabilities & V4L2_CAP_STREAMING)) {
        snprintf(msg, msglen, "%s: not a streaming video-capture device", c->path);
        r = ENODEV;
    }
    if (!r) r = cam_set_format(c, msg, msglen);
    if (!r) r = cam_map_buffers(c, msg, msglen);
    enum v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    if (!r && xioctl(fd, VIDIOC_STREAMON, &type) < 0) {
        snprintf(msg, msglen, "%s: cannot start streaming", c->path);
        r = EIO;
    }
    if (r) {
        cam_teardown(c);
        return r;
    }
    c->lost_since_ms = 0;
    return 0;
}

/* A buffer's capture time, from the source's first frame (the same clock
 * after a reopen: an unplugged camera's gap shows), never back in time;
 * and as wall clock. */
static void frame_time(cam_impl *c, const struct v4l2_buffer *b, capture_info *info)
{
    double ts = (double)b->timestamp.tv_sec * 1000.0 + (double)b->timestamp.tv_usec / 1000.0;
    bool mono = (b->flags & V4L2_BUF_FLAG_TIMESTAMP_MASK) == V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC;
    if (!(ts > 0)) {
        ts = gs_now_ms(); /* a driver without timestamps: the same monotonic clock */
        mono = true;
    }
    /* the wall clock when the frame was captured: the buffer's time is on
     * the monotonic clock, this long ago */
    info->unix_ms = mono ? gs_wall_ms() - (int64_t)(gs_now_ms() - ts + 0.5) : gs_wall_ms();
    if (!c->have_base) {
        c->t_base = ts;
        c->have_base = true;
    }
    double t = ts - c->t_base;
    if (t < c->last_t) {
        /* a camera that came back with its clock restarted */
        c->t_base = ts - c->last_t - 1;
        t = c->last_t + 1;
    }
    c->last_t = t;
    info->t_ms = t;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    (void)nanosleep(&ts, NULL); /* cut short by a signal: the caller's loop sees it */
}

static capture_result cam_read(capture_source *s, const gs_image **frame, capture_info *info)
{
    cam_impl *c = s->impl;
    if (c->fd < 0) {
        /* lost: try to reopen, a few times a second, until the deadline */
        int limit = c->opt.reopen_ms == 0 ? 600000 : c->opt.reopen_ms;
        if (limit > 0 && gs_now_ms() - c->lost_since_ms > limit) {
            capture_set_error(s, "%s: camera did not come back", c->path);
            return CAPTURE_ERROR;
        }
        char msg[256];
        if (cam_start(c, msg, sizeof msg) != 0) {
            sleep_ms(250);
            return CAPTURE_LOST;
        }
    }
    for (;;) {
        fd_set fds;
        FD_ZERO(&fds);
        FD_SET(c->fd, &fds);
        struct timeval tv = {3, 0};
        int r = select(c->fd + 1, &fds, NULL, NULL, &tv);
        if (r < 0 && errno == EINTR) {
            /* a signal (e.g. SIGINT): hand control back to the caller */
            capture_set_error(s, "%s: interrupted", c->path);
            return CAPTURE_LOST;
        }
        if (r <= 0) break; /* timeout or error: treat as gone */
        struct v4l2_buffer b;
        memset(&b, 0, sizeof b);
        b.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        b.memory = V4L2_MEMORY_MMAP;
        if (xioctl(c->fd, VIDIOC_DQBUF, &b) < 0) {
            if (errno == EAGAIN) continue;
            break;
        }
        if (b.index >= (unsigned)c->n_bufs) {
            errno = EIO; /* a buffer this source never mapped: the driver is confused, start again */
            break;
        }
        if (!c->frame || c->frame->width != c->width || c->frame->height != c->height) {
            gs_image_destroy(c->frame);
            c->frame = gs_image_create(c->width, c->height, 3);
            if (!c->frame) {
                (void)xioctl(c->fd, VIDIOC_QBUF, &b); /* the error below ends the source anyway */
                capture_set_error(s, "out of memory");
                return CAPTURE_ERROR;
            }
        }
        const uint8_t *src = c->bufs[b.index].start;
        size_t row = (size_t)c->width * 3, have = c->bufs[b.index].length;
        if (b.bytesused && b.bytesused < have) have = b.bytesused;
        for (int y = 0; y < c->height; y++) {
            size_t off = (size_t)y * (size_t)c->stride;
            if (off + row > have) break; /* a short frame: its last rows stay as they were */
            memcpy(c->frame->buf + (size_t)y * (size_t)c->frame->stride, src + off, row);
        }
        frame_time(c, &b, info);
        /* A buffer that cannot be queued again is one buffer fewer; when
         * none is left the reads time out and the camera is reopened. */
        (void)xioctl(c->fd, VIDIOC_QBUF, &b);
        *frame = c->frame;
        return CAPTURE_FRAME;
    }
    capture_set_error(s, "%s: camera lost (%s); waiting for it to come back", c->path, strerror(errno ? errno : ENODEV));
    cam_teardown(c);
    c->lost_since_ms = gs_now_ms();
    return CAPTURE_LOST;
}

static void cam_close(capture_source *s)
{
    cam_impl *c = s->impl;
    if (!c) return;
    cam_teardown(c);
    gs_image_destroy(c->frame);
    free(c);
}

static const capture_ops cam_ops = {"camera", cam_read, cam_close};

capture_source *capture_open_camera(const char *dev, const capture_options *opt, gs_error *err)
{
    struct stat st;
    if (stat(dev, &st) != 0) {
        gs_error_set(err, GS_ERR_IO, "%s: no such camera", dev);
        return NULL;
    }
    cam_impl *c = calloc(1, sizeof *c);
    if (!c) {
        gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    c->fd = -1;
    snprintf(c->path, sizeof c->path, "%s", dev);
    if (opt) c->opt = *opt;
    char msg[256];
    if (cam_start(c, msg, sizeof msg) != 0) {
        gs_error_set(err, GS_ERR_IO, "%s", msg);
        cam_close(&(capture_source){.impl = c});
        return NULL;
    }
    capture_source *s = capture_new(CAPTURE_CAMERA, &cam_ops, c);
    if (!s) {
        cam_close(&(capture_source){.impl = c});
        gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    s->fps = c->opt.fps;
    snprintf(s->clock_note, sizeof s->clock_note, "times of play from the camera's capture timestamps (wall clock)");
    return s;
}

/* ---------------------------------------------------------------- listing */

static void fourcc_str(uint32_t f, char out[5])
{
    for (int i = 0; i < 4; i++) {
        char ch = (char)((f >> (8 * i)) & 0xff);
        out[i] = (ch >= 32 && ch < 127) ? ch : '?';
    }
    out[4] = 0;
}

static int add_mode(capture_device *d, int *cap, const capture_mode *m)
{
    if (d->n_modes == *cap) {
        int nc = *cap ? *cap * 2 : 16;
        capture_mode *nm = realloc(d->modes, (size_t)nc * sizeof *nm);
        if (!nm) return -1;
        d->modes = nm;
        *cap = nc;
    }
    d->modes[d->n_modes++] = *m;
    return 0;
}

static void list_rates(int fd, uint32_t pixfmt, int w, int h, capture_mode *m)
{
    struct v4l2_frmivalenum iv;
    memset(&iv, 0, sizeof iv);
    iv.pixel_format = pixfmt;
    iv.width = (unsigned)w;
    iv.height = (unsigned)h;
    for (iv.index = 0; m->n_fps < 8 && v4l2_ioctl(fd, VIDIOC_ENUM_FRAMEINTERVALS, &iv) == 0; iv.index++) {
        if (iv.type == V4L2_FRMIVAL_TYPE_DISCRETE) {
            if (iv.discrete.numerator) m->fps[m->n_fps++] = (double)iv.discrete.denominator / iv.discrete.numerator;
        } else {
            if (iv.stepwise.min.numerator) m->fps[m->n_fps++] = (double)iv.stepwise.min.denominator / iv.stepwise.min.numerator;
            break;
        }
    }
}

/* Lists the native formats (no libv4l2 emulation) so the user sees what the
 * camera really offers. */
static int list_one(const char *path, capture_device *d)
{
    int fd = v4l2_open(path, O_RDWR | O_NONBLOCK, 0);
    if (fd < 0) return -1;
    struct v4l2_capability cap;
    memset(&cap, 0, sizeof cap);
    /* Closing a device only listed, never streamed, cannot lose anything:
     * its status is not looked at. */
    if (v4l2_ioctl(fd, VIDIOC_QUERYCAP, &cap) < 0) { (void)v4l2_close(fd); return -1; }
    uint32_t caps = (cap.capabilities & V4L2_CAP_DEVICE_CAPS) ? cap.device_caps : cap.capabilities;
    if (!(caps & V4L2_CAP_VIDEO_CAPTURE)) { (void)v4l2_close(fd); return -1; }
    memset(d, 0, sizeof *d);
    snprintf(d->path, sizeof d->path, "%s", path);
    snprintf(d->card, sizeof d->card, "%s", (const char *)cap.card);
    snprintf(d->driver, sizeof d->driver, "%s", (const char *)cap.driver);
    int mcap = 0;
    struct v4l2_fmtdesc fd_;
    memset(&fd_, 0, sizeof fd_);
    fd_.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    for (fd_.index = 0; v4l2_ioctl(fd, VIDIOC_ENUM_FMT, &fd_) == 0; fd_.index++) {
        if (fd_.flags & V4L2_FMT_FLAG_EMULATED) continue;
        struct v4l2_frmsizeenum fs;
        memset(&fs, 0, sizeof fs);
        fs.pixel_format = fd_.pixelformat;
        for (fs.index = 0; v4l2_ioctl(fd, VIDIOC_ENUM_FRAMESIZES, &fs) == 0; fs.index++) {
            capture_mode m;
            memset(&m, 0, sizeof m);
            fourcc_str(fd_.pixelformat, m.fourcc);
            if (fs.type == V4L2_FRMSIZE_TYPE_DISCRETE) {
                m.width = (int)fs.discrete.width;
                m.height = (int)fs.discrete.height;
            } else {
                m.width = (int)fs.stepwise.max_width;
                m.height = (int)fs.stepwise.max_height;
            }
            list_rates(fd, fd_.pixelformat, m.width, m.height, &m);
            if (add_mode(d, &mcap, &m) < 0) break;
            if (fs.type != V4L2_FRMSIZE_TYPE_DISCRETE) break;
        }
    }
    (void)v4l2_close(fd);
    return 0;
}

int capture_list_devices(capture_device **out, gs_error *err)
{
    *out = NULL;
    glob_t g;
    memset(&g, 0, sizeof g);
    int gr = glob("/dev/video*", 0, NULL, &g);
    if (gr == GLOB_NOMATCH) return 0;
    if (gr != 0) {
        gs_error_set(err, GS_ERR_IO, "/dev: cannot list video devices");
        return -1;
    }
    /* glob sorts lexically; put video2 before video10 */
    char **paths = g.gl_pathv;
    size_t n = g.gl_pathc;
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && capture_natural_cmp(paths[j - 1], paths[j]) > 0; j--) {
            char *t = paths[j];
            paths[j] = paths[j - 1];
            paths[j - 1] = t;
        }
    capture_device *devs = calloc(n ? n : 1, sizeof *devs);
    if (!devs) {
        globfree(&g);
        gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        return -1;
    }
    int found = 0;
    for (size_t i = 0; i < n; i++)
        if (list_one(paths[i], &devs[found]) == 0) found++;
    globfree(&g);
    if (!found) {
        free(devs);
        return 0;
    }
    *out = devs;
    return found;
}

void capture_devices_free(capture_device *devs, int n)
{
    if (!devs) return;
    for (int i = 0; i < n; i++) free(devs[i].modes);
    free(devs);
}
