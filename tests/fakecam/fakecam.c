/* tests/fakecam/fakecam.c: a fake V4L2 camera, loaded with LD_PRELOAD, so
 * the real capture/capture_v4l2.c (through the real libv4l2, its format
 * conversion included) can be tested without a camera.
 *
 * libv4l2 talks to the device with raw system calls (syscall(SYS_openat /
 * SYS_ioctl / SYS_close / SYS_mmap)), capture_v4l2.c with stat() and
 * select(), the device listing with glob("/dev/video*"): those are what is
 * wrapped.  The device is a memfd: libv4l2 maps its buffers with the real
 * mmap, and the fake writes each frame into them.  Frames are the JPEG
 * chunks of an MJPEG AVI, or raw YUYV frames of the same video, served at
 * the negotiated rate by the wall clock (a late reader drops frames, as
 * with a real camera), each with its capture time on CLOCK_MONOTONIC as
 * the timestamp.  What the board shows follows the wall clock from the
 * first STREAMON of the process (or from FAKECAM_HOLD), and stays on the
 * last frame at the end.
 * The camera can be unplugged for a while: from then on every ioctl of an
 * open handle fails with ENODEV, the device node is gone (open and stat:
 * ENOENT, not listed), then it comes back and can be opened again.
 *
 * Environment:
 *   FAKECAM_DEV      device path (default /dev/video42)
 *   FAKECAM_SIZE     WxH of the frames (required)
 *   FAKECAM_FPS      frame rate of the video, the rate offered (and half
 *                    of it); default 10
 *   FAKECAM_MJPEG    the MJPEG AVI whose chunks are the MJPG frames
 *   FAKECAM_YUYV     raw YUYV 4:2:2 frames (W*H*2 bytes each)
 *   FAKECAM_FORMATS  which to offer: MJPG, YUYV or MJPG,YUYV (default:
 *                    those with a file)
 *   FAKECAM_UNPLUG   AT_MS:FOR_MS: gone FOR_MS milliseconds from AT_MS
 *                    after the game starts (the first STREAMON)
 *   FAKECAM_HOLD     a file: the board stays on the first frame until it
 *                    exists, and the game starts then (a test waits for
 *                    the recorder to have seen the empty board, however
 *                    slowly a loaded machine lets it start)
 *   FAKECAM_LOG      a file the fake appends what happens to, one line
 *                    each (open, format set, streaming, unplug, replug,
 *                    frames served at close)
 * Test-only code: one process, state in globals behind a mutex. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <glob.h>
#include <linux/videodev2.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#define MAX_HANDLES 8
#define MAX_BUFS 16

typedef struct frames {
    uint32_t fourcc;
    uint8_t *data;           /* the whole file */
    size_t *off, *len;       /* each frame's bytes in it */
    long n;
    size_t max_len;
} frames;

typedef struct handle {
    int fd;                  /* a memfd; -1 = free slot */
    bool dead;               /* the camera was unplugged while open */
    uint32_t fourcc;
    unsigned interval;       /* frames per second served: fps or fps / 2 */
    size_t bufsize;          /* one buffer, page aligned */
    int nbufs;
    uint8_t *map;            /* the fake's own view of the buffers */
    int queue[MAX_BUFS], nq; /* queued by the reader, oldest first */
    bool streaming;
    double t_on;             /* STREAMON time, ms (monotonic) */
    long last_k;             /* last frame slot delivered */
    long served;
} handle;

static struct {
    pthread_mutex_t lock;
    bool ready;
    char dev[128];
    int width, height;
    unsigned fps;
    frames fmt[2];           /* offered formats, in ENUM_FMT order */
    int nfmt;
    double unplug_at, unplug_for;
    double t0;               /* first STREAMON, ms; 0 before */
    char hold[4096];         /* FAKECAM_HOLD; "" without */
    double show0;            /* when the game starts, ms; 0 before */
    bool was_gone;
    FILE *log;
    handle h[MAX_HANDLES];
} G = {.lock = PTHREAD_MUTEX_INITIALIZER};

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...)
{
    if (!G.log) return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(G.log, "%.1f ", G.t0 > 0 ? now_ms() - G.t0 : 0.0);
    vfprintf(G.log, fmt, ap);
    fputc('\n', G.log);
    fflush(G.log);
    va_end(ap);
}

static long real_syscall6(long n, long a, long b, long c, long d, long e, long f)
{
    static long (*real)(long, ...);
    if (!real) real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
    return real(n, a, b, c, d, e, f);
}

/* ------------------------------------------------------------ the frames */

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = n > 0 ? malloc((size_t)n) : NULL;
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) { free(p); p = NULL; }
    fclose(f);
    *len = p ? (size_t)n : 0;
    return p;
}

static void add_frame(frames *fr, size_t off, size_t len)
{
    if (fr->n % 256 == 0) {
        fr->off = realloc(fr->off, (size_t)(fr->n + 256) * sizeof *fr->off);
        fr->len = realloc(fr->len, (size_t)(fr->n + 256) * sizeof *fr->len);
        if (!fr->off || !fr->len) abort();
    }
    fr->off[fr->n] = off;
    fr->len[fr->n] = len;
    fr->n++;
    if (len > fr->max_len) fr->max_len = len;
}

/* The '##dc' chunks of an AVI (walking into RIFF and LIST chunks). */
static void avi_walk(frames *fr, size_t p, size_t end, size_t size)
{
    while (p + 8 <= end && p + 8 <= size) {
        const uint8_t *c = fr->data + p;
        size_t len = (size_t)c[4] | (size_t)c[5] << 8 | (size_t)c[6] << 16 | (size_t)c[7] << 24;
        if (!memcmp(c, "RIFF", 4) || !memcmp(c, "LIST", 4)) avi_walk(fr, p + 12, p + 8 + len, size);
        else if (c[2] == 'd' && (c[3] == 'c' || c[3] == 'b') && p + 8 + len <= size) add_frame(fr, p + 8, len);
        p += 8 + len + (len & 1);
    }
}

static bool load_mjpeg(frames *fr, const char *path)
{
    size_t size;
    fr->fourcc = V4L2_PIX_FMT_MJPEG;
    if (!(fr->data = slurp(path, &size))) return false;
    avi_walk(fr, 0, size, size);
    return fr->n > 0;
}

static bool load_yuyv(frames *fr, const char *path)
{
    size_t size, one = (size_t)G.width * (size_t)G.height * 2;
    fr->fourcc = V4L2_PIX_FMT_YUYV;
    if (!(fr->data = slurp(path, &size))) return false;
    for (size_t off = 0; off + one <= size; off += one) add_frame(fr, off, one);
    return fr->n > 0;
}

/* Reads the environment once (called with the lock held). */
static void setup(void)
{
    if (G.ready) return;
    G.ready = true;
    const char *e = getenv("FAKECAM_DEV");
    snprintf(G.dev, sizeof G.dev, "%s", e && *e ? e : "/dev/video42");
    e = getenv("FAKECAM_SIZE");
    if (!e || sscanf(e, "%dx%d", &G.width, &G.height) != 2 || G.width < 16 || G.height < 16) {
        fprintf(stderr, "fakecam: FAKECAM_SIZE=WxH is needed\n");
        G.nfmt = 0;
        return;
    }
    e = getenv("FAKECAM_FPS");
    G.fps = e && atoi(e) > 0 ? (unsigned)atoi(e) : 10;
    const char *offer = getenv("FAKECAM_FORMATS");
    const char *mj = getenv("FAKECAM_MJPEG"), *yu = getenv("FAKECAM_YUYV");
    if (mj && (!offer || strstr(offer, "MJPG"))) {
        if (load_mjpeg(&G.fmt[G.nfmt], mj)) G.nfmt++;
        else fprintf(stderr, "fakecam: %s: no MJPEG frames\n", mj);
    }
    if (yu && (!offer || strstr(offer, "YUYV"))) {
        if (load_yuyv(&G.fmt[G.nfmt], yu)) G.nfmt++;
        else fprintf(stderr, "fakecam: %s: no YUYV frames\n", yu);
    }
    e = getenv("FAKECAM_UNPLUG");
    if (e) sscanf(e, "%lf:%lf", &G.unplug_at, &G.unplug_for);
    e = getenv("FAKECAM_LOG");
    if (e) G.log = fopen(e, "a");
    e = getenv("FAKECAM_HOLD");
    snprintf(G.hold, sizeof G.hold, "%s", e ? e : "");
    for (int i = 0; i < MAX_HANDLES; i++) G.h[i].fd = -1;
}

/* When the game starts (ms, 0 before): the first STREAMON, or with
 * FAKECAM_HOLD the moment its file is first seen after that. */
static double show_start(void)
{
    if (G.show0 > 0 || G.t0 == 0) return G.show0;
    if (!G.hold[0]) G.show0 = G.t0;
    else if (access(G.hold, F_OK) == 0) {
        G.show0 = now_ms();
        logf_("hold released");
    }
    return G.show0;
}

/* The camera is plugged in (not within the unplug window); says when it
 * goes and comes back. */
static bool present(void)
{
    double s0 = show_start();
    bool gone = G.unplug_for > 0 && s0 > 0 && now_ms() >= s0 + G.unplug_at && now_ms() < s0 + G.unplug_at + G.unplug_for;
    if (gone && !G.was_gone) {
        logf_("unplug");
        for (int i = 0; i < MAX_HANDLES; i++)
            if (G.h[i].fd >= 0) G.h[i].dead = true;
    }
    if (!gone && G.was_gone) logf_("replug");
    G.was_gone = gone;
    return G.nfmt > 0 && !gone;
}

static handle *find(int fd)
{
    if (fd < 0) return NULL;
    for (int i = 0; i < MAX_HANDLES; i++)
        if (G.h[i].fd == fd) return &G.h[i];
    return NULL;
}

static frames *format_of(uint32_t fourcc)
{
    for (int i = 0; i < G.nfmt; i++)
        if (G.fmt[i].fourcc == fourcc) return &G.fmt[i];
    return NULL;
}

/* ---------------------------------------------------------------- ioctls */

static void fill_pix(struct v4l2_pix_format *p, const frames *fr)
{
    p->width = (unsigned)G.width;
    p->height = (unsigned)G.height;
    p->pixelformat = fr->fourcc;
    p->field = V4L2_FIELD_NONE;
    p->bytesperline = fr->fourcc == V4L2_PIX_FMT_YUYV ? (unsigned)G.width * 2 : 0;
    p->sizeimage = (unsigned)fr->max_len;
    p->colorspace = V4L2_COLORSPACE_SRGB;
}

static int do_fmt(handle *h, unsigned long req, struct v4l2_format *f)
{
    if (f->type != V4L2_BUF_TYPE_VIDEO_CAPTURE) return -EINVAL;
    const frames *fr = req == VIDIOC_G_FMT ? format_of(h->fourcc) : format_of(f->fmt.pix.pixelformat);
    if (!fr) fr = &G.fmt[0];
    fill_pix(&f->fmt.pix, fr);
    if (req == VIDIOC_S_FMT) {
        if (h->nbufs) return -EBUSY;
        h->fourcc = fr->fourcc;
        logf_("s_fmt %.4s %dx%d", (const char *)&fr->fourcc, G.width, G.height);
    }
    return 0;
}

static int do_enum(unsigned long req, void *arg)
{
    if (req == VIDIOC_ENUM_FMT) {
        struct v4l2_fmtdesc *d = arg;
        if (d->type != V4L2_BUF_TYPE_VIDEO_CAPTURE || d->index >= (unsigned)G.nfmt) return -EINVAL;
        uint32_t type = d->type, index = d->index;
        memset(d, 0, sizeof *d);
        d->type = type;
        d->index = index;
        d->pixelformat = G.fmt[index].fourcc;
        d->flags = d->pixelformat == V4L2_PIX_FMT_MJPEG ? V4L2_FMT_FLAG_COMPRESSED : 0;
        snprintf((char *)d->description, sizeof d->description, "%s",
                 d->pixelformat == V4L2_PIX_FMT_MJPEG ? "Motion-JPEG" : "YUYV 4:2:2");
        return 0;
    }
    if (req == VIDIOC_ENUM_FRAMESIZES) {
        struct v4l2_frmsizeenum *s = arg;
        if (s->index > 0 || !format_of(s->pixel_format)) return -EINVAL;
        s->type = V4L2_FRMSIZE_TYPE_DISCRETE;
        s->discrete.width = (unsigned)G.width;
        s->discrete.height = (unsigned)G.height;
        return 0;
    }
    struct v4l2_frmivalenum *iv = arg; /* VIDIOC_ENUM_FRAMEINTERVALS */
    if (iv->index > 1 || !format_of(iv->pixel_format) || iv->width != (unsigned)G.width || iv->height != (unsigned)G.height)
        return -EINVAL;
    iv->type = V4L2_FRMIVAL_TYPE_DISCRETE;
    iv->discrete.numerator = iv->index ? 2 : 1;
    iv->discrete.denominator = G.fps;
    return 0;
}

static int do_parm(handle *h, unsigned long req, struct v4l2_streamparm *p)
{
    if (p->type != V4L2_BUF_TYPE_VIDEO_CAPTURE) return -EINVAL;
    if (req == VIDIOC_S_PARM) {
        const struct v4l2_fract *t = &p->parm.capture.timeperframe;
        /* the nearest of fps and fps / 2 */
        double want = t->numerator ? (double)t->denominator / t->numerator : G.fps;
        h->interval = want < 0.75 * G.fps ? (G.fps + 1) / 2 : G.fps;
        logf_("s_parm %u fps", h->interval);
    }
    memset(&p->parm, 0, sizeof p->parm);
    p->parm.capture.capability = V4L2_CAP_TIMEPERFRAME;
    p->parm.capture.timeperframe.numerator = 1;
    p->parm.capture.timeperframe.denominator = h->interval;
    return 0;
}

static int do_reqbufs(handle *h, struct v4l2_requestbuffers *r)
{
    if (r->type != V4L2_BUF_TYPE_VIDEO_CAPTURE || r->memory != V4L2_MEMORY_MMAP) return -EINVAL;
    if (h->streaming) return -EBUSY;
    if (h->map) munmap(h->map, h->bufsize * (size_t)h->nbufs);
    h->map = NULL;
    h->nbufs = 0;
    h->nq = 0;
    if (r->count == 0) return 0;
    const frames *fr = format_of(h->fourcc);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    h->bufsize = (fr->max_len + page - 1) / page * page;
    h->nbufs = r->count > MAX_BUFS ? MAX_BUFS : (int)r->count;
    if (ftruncate(h->fd, (off_t)(h->bufsize * (size_t)h->nbufs)) != 0) return -ENOMEM;
    h->map = mmap(NULL, h->bufsize * (size_t)h->nbufs, PROT_READ | PROT_WRITE, MAP_SHARED, h->fd, 0);
    if (h->map == MAP_FAILED) { h->map = NULL; h->nbufs = 0; return -ENOMEM; }
    r->count = (unsigned)h->nbufs;
    logf_("reqbufs %d", h->nbufs);
    return 0;
}

static void fill_buf(const handle *h, struct v4l2_buffer *b, unsigned idx)
{
    b->index = idx;
    b->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    b->memory = V4L2_MEMORY_MMAP;
    b->m.offset = (uint32_t)(idx * h->bufsize);
    b->length = (uint32_t)h->bufsize;
    b->field = V4L2_FIELD_NONE;
    b->flags |= V4L2_BUF_FLAG_MAPPED | V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC;
}

/* The slot of the latest frame due on h's stream (-1 before the first). */
static long due_slot(const handle *h, double t)
{
    return t < h->t_on ? -1 : (long)((t - h->t_on) * h->interval / 1000.0);
}

static int do_dqbuf(handle *h, struct v4l2_buffer *b)
{
    if (!h->streaming) return -EINVAL;
    double t = now_ms();
    long k = due_slot(h, t);
    if (k <= h->last_k || h->nq == 0) return -EAGAIN; /* nothing due, or nowhere to put it: dropped */
    int idx = h->queue[0];
    memmove(h->queue, h->queue + 1, (size_t)(--h->nq) * sizeof *h->queue);
    h->last_k = k;
    double at = h->t_on + (double)k * 1000.0 / h->interval; /* when it was captured */
    const frames *fr = format_of(h->fourcc);
    double s0 = show_start();
    long shown = s0 > 0 ? (long)((at - s0) * G.fps / 1000.0) : 0; /* held: the first frame */
    if (shown >= fr->n) shown = fr->n - 1; /* the game is over: the board stays */
    if (shown < 0) shown = 0;
    memcpy(h->map + (size_t)idx * h->bufsize, fr->data + fr->off[shown], fr->len[shown]);
    memset(b, 0, sizeof *b);
    fill_buf(h, b, (unsigned)idx);
    b->flags |= V4L2_BUF_FLAG_DONE;
    b->bytesused = (uint32_t)fr->len[shown];
    b->sequence = (uint32_t)k;
    b->timestamp.tv_sec = (long)(at / 1000.0);
    b->timestamp.tv_usec = (long)((at - (double)b->timestamp.tv_sec * 1000.0) * 1000.0);
    h->served++;
    return 0;
}

static int do_stream(handle *h, unsigned long req)
{
    if (req == VIDIOC_STREAMOFF) {
        h->streaming = false;
        h->nq = 0;
        return 0;
    }
    if (!h->nbufs) return -EINVAL;
    h->streaming = true;
    h->t_on = now_ms();
    h->last_k = -1;
    if (G.t0 == 0) G.t0 = h->t_on;
    logf_("streamon %.4s %u fps", (const char *)&h->fourcc, h->interval);
    return 0;
}

static int do_querycap(struct v4l2_capability *c)
{
    memset(c, 0, sizeof *c);
    snprintf((char *)c->driver, sizeof c->driver, "fakecam");
    snprintf((char *)c->card, sizeof c->card, "goscribe fake camera");
    snprintf((char *)c->bus_info, sizeof c->bus_info, "fake:%.26s", G.dev);
    c->version = 0x060100;
    c->device_caps = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING;
    c->capabilities = c->device_caps | V4L2_CAP_DEVICE_CAPS;
    return 0;
}

/* One ioctl on a fake handle: 0 or -errno. */
static int fake_ioctl(handle *h, unsigned long req, void *arg)
{
    if (h->dead || !present()) return -ENODEV;
    switch (req) {
    case VIDIOC_QUERYCAP: return do_querycap(arg);
    case VIDIOC_ENUM_FMT:
    case VIDIOC_ENUM_FRAMESIZES:
    case VIDIOC_ENUM_FRAMEINTERVALS: return do_enum(req, arg);
    case VIDIOC_G_FMT:
    case VIDIOC_S_FMT:
    case VIDIOC_TRY_FMT: return do_fmt(h, req, arg);
    case VIDIOC_G_PARM:
    case VIDIOC_S_PARM: return do_parm(h, req, arg);
    case VIDIOC_REQBUFS: return do_reqbufs(h, arg);
    case VIDIOC_QUERYBUF: {
        struct v4l2_buffer *b = arg;
        if (b->index >= (unsigned)h->nbufs) return -EINVAL;
        fill_buf(h, b, b->index);
        return 0;
    }
    case VIDIOC_QBUF: {
        struct v4l2_buffer *b = arg;
        if (b->index >= (unsigned)h->nbufs || h->nq >= MAX_BUFS) return -EINVAL;
        h->queue[h->nq++] = (int)b->index;
        return 0;
    }
    case VIDIOC_DQBUF: return do_dqbuf(h, arg);
    case VIDIOC_STREAMON:
    case VIDIOC_STREAMOFF: return do_stream(h, req);
    case VIDIOC_ENUMINPUT: {
        struct v4l2_input *in = arg;
        if (in->index > 0) return -EINVAL;
        memset(in, 0, sizeof *in);
        snprintf((char *)in->name, sizeof in->name, "Camera");
        in->type = V4L2_INPUT_TYPE_CAMERA;
        return 0;
    }
    case VIDIOC_G_INPUT: *(int *)arg = 0; return 0;
    case VIDIOC_S_INPUT: return *(int *)arg == 0 ? 0 : -EINVAL;
    case VIDIOC_QUERYCTRL:
    case VIDIOC_QUERY_EXT_CTRL:
    case VIDIOC_G_CTRL:
    case VIDIOC_S_CTRL: return -EINVAL; /* no controls */
    default: return -ENOTTY;
    }
}

/* ------------------------------------------------------- the wrappers */

static long fake_open(const char *path, int flags)
{
    (void)flags;
    if (!present()) return -ENOENT;
    int slot = -1;
    for (int i = 0; i < MAX_HANDLES && slot < 0; i++)
        if (G.h[i].fd < 0) slot = i;
    if (slot < 0) return -EMFILE;
    int fd = memfd_create("fakecam", MFD_CLOEXEC);
    if (fd < 0) return -errno;
    handle *h = &G.h[slot];
    memset(h, 0, sizeof *h);
    h->fd = fd;
    h->fourcc = G.fmt[0].fourcc;
    h->interval = G.fps;
    logf_("open %s", path);
    return fd;
}

static void fake_close(handle *h)
{
    if (h->map) munmap(h->map, h->bufsize * (size_t)h->nbufs);
    logf_("close: %ld frames served%s", h->served, h->dead ? " (unplugged)" : "");
    h->fd = -1;
}

static long result(long r)
{
    if (r >= 0) return r;
    errno = (int)-r;
    return -1;
}

long syscall(long n, ...)
{
    va_list ap;
    va_start(ap, n);
    long a[6];
    for (int i = 0; i < 6; i++) a[i] = va_arg(ap, long);
    va_end(ap);
    const char *path = n == SYS_openat ? (const char *)a[1] : n == SYS_open ? (const char *)a[0] : NULL;
    if (path || n == SYS_ioctl || n == SYS_close || n == SYS_read) {
        pthread_mutex_lock(&G.lock);
        setup();
        long r = 0;
        bool mine = false;
        if (path && !strcmp(path, G.dev)) {
            mine = true;
            r = fake_open(path, (int)(n == SYS_openat ? a[2] : a[1]));
        } else if (!path) {
            handle *h = find((int)a[0]);
            if (h) {
                mine = true;
                if (n == SYS_ioctl) r = fake_ioctl(h, (unsigned long)a[1], (void *)a[2]);
                else if (n == SYS_read) r = -EINVAL; /* streaming only */
                else fake_close(h);
            }
        }
        pthread_mutex_unlock(&G.lock);
        if (mine) {
            if (n == SYS_close) return real_syscall6(SYS_close, a[0], 0, 0, 0, 0, 0);
            return result(r);
        }
    }
    return real_syscall6(n, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* close() from libc on a fake handle (nothing in the tree does it; kept
 * so a stale entry can never answer for a reused descriptor). */
int close(int fd)
{
    pthread_mutex_lock(&G.lock);
    handle *h = find(fd);
    if (h) fake_close(h);
    pthread_mutex_unlock(&G.lock);
    return (int)real_syscall6(SYS_close, fd, 0, 0, 0, 0, 0);
}

int stat(const char *path, struct stat *st)
{
    static int (*real)(const char *, struct stat *);
    if (!real) real = (int (*)(const char *, struct stat *))dlsym(RTLD_NEXT, "stat");
    pthread_mutex_lock(&G.lock);
    setup();
    int mine = !strcmp(path, G.dev), there = mine && present();
    pthread_mutex_unlock(&G.lock);
    if (!mine) return real(path, st);
    if (!there) { errno = ENOENT; return -1; }
    memset(st, 0, sizeof *st);
    st->st_mode = S_IFCHR | 0660;
    st->st_rdev = makedev(81, 42);
    return 0;
}

int glob(const char *pattern, int flags, int (*errfunc)(const char *, int), glob_t *g)
{
    static int (*real)(const char *, int, int (*)(const char *, int), glob_t *);
    if (!real) real = (int (*)(const char *, int, int (*)(const char *, int), glob_t *))dlsym(RTLD_NEXT, "glob");
    int r = real(pattern, flags, errfunc, g);
    pthread_mutex_lock(&G.lock);
    setup();
    bool add = !(flags & (GLOB_APPEND | GLOB_DOOFFS)) && (r == 0 || r == GLOB_NOMATCH) &&
               fnmatch(pattern, G.dev, FNM_PATHNAME) == 0 && present();
    pthread_mutex_unlock(&G.lock);
    if (!add) return r;
    if (r == GLOB_NOMATCH) memset(g, 0, sizeof *g);
    char **v = realloc(g->gl_pathv, (g->gl_pathc + 2) * sizeof *v);
    if (!v) return r;
    v[g->gl_pathc] = strdup(G.dev);
    v[g->gl_pathc + 1] = NULL;
    g->gl_pathv = v;
    g->gl_pathc++;
    return 0;
}

/* How long until h has a frame due (0: now, or the camera is gone and the
 * ioctl will say so). */
static double wait_ms(handle *h)
{
    if (h->dead || !present() || !h->streaming || h->nq == 0) return 0;
    double t = now_ms(), next = h->t_on + (double)(h->last_k + 1) * 1000.0 / h->interval;
    if (due_slot(h, t) > h->last_k) return 0;
    return next - t;
}

/* Sleeps; false when a signal cut it short (the caller says EINTR, as the
 * real calls would). */
static bool sleep_ms(double ms)
{
    if (!(ms > 0)) return true;
    struct timespec ts = {(time_t)(ms / 1000), (long)((ms - (double)(time_t)(ms / 1000) * 1000) * 1e6)};
    return nanosleep(&ts, NULL) == 0;
}

int select(int nfds, fd_set *rd, fd_set *wr, fd_set *ex, struct timeval *tv)
{
    static int (*real)(int, fd_set *, fd_set *, fd_set *, struct timeval *);
    if (!real) real = (int (*)(int, fd_set *, fd_set *, fd_set *, struct timeval *))dlsym(RTLD_NEXT, "select");
    int fake = -1;
    double wait = 0;
    pthread_mutex_lock(&G.lock);
    for (int fd = 0; rd && fd < nfds && fake < 0; fd++)
        if (FD_ISSET(fd, rd) && find(fd)) {
            fake = fd;
            wait = wait_ms(find(fd));
        }
    pthread_mutex_unlock(&G.lock);
    if (fake < 0) return real(nfds, rd, wr, ex, tv);
    double limit = tv ? tv->tv_sec * 1000.0 + tv->tv_usec / 1000.0 : 1e12;
    if (!sleep_ms(wait < limit ? wait : limit)) {
        errno = EINTR;
        return -1;
    }
    if (wr) FD_ZERO(wr);
    if (ex) FD_ZERO(ex);
    FD_ZERO(rd);
    if (wait > limit) return 0;
    FD_SET(fake, rd);
    return 1;
}

int poll(struct pollfd *fds, nfds_t n, int timeout)
{
    static int (*real)(struct pollfd *, nfds_t, int);
    if (!real) real = (int (*)(struct pollfd *, nfds_t, int))dlsym(RTLD_NEXT, "poll");
    if (n != 1) return real(fds, n, timeout);
    pthread_mutex_lock(&G.lock);
    handle *h = find(fds[0].fd);
    double wait = h ? wait_ms(h) : 0;
    bool gone = h && (h->dead || !present());
    pthread_mutex_unlock(&G.lock);
    if (!h) return real(fds, n, timeout);
    double limit = timeout < 0 ? 1e12 : timeout;
    if (!sleep_ms(wait < limit ? wait : limit)) {
        errno = EINTR;
        return -1;
    }
    fds[0].revents = wait > limit ? 0 : gone ? POLLERR : (short)(fds[0].events & (POLLIN | POLLRDNORM));
    return fds[0].revents ? 1 : 0;
}
