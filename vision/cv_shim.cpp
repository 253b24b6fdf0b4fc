// vision/cv_shim.cpp: the only C++ file; wraps OpenCV 4 behind task-level C
// functions (see cv_shim.h). Every entry point catches exceptions.
#include "vision/cv_shim.h"

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

void set_err(char *err, size_t errlen, const char *msg)
{
    if (err && errlen) std::snprintf(err, errlen, "%s", msg);
}

// Copies a BGR or grey Mat into a freshly allocated gs_image.
gs_image *image_from_mat(const cv::Mat &m)
{
    cv::Mat src = m;
    if (m.channels() == 4) cv::cvtColor(m, src, cv::COLOR_BGRA2BGR);
    if (src.depth() != CV_8U) src.convertTo(src, CV_8U);
    gs_image *img = gs_image_create(src.cols, src.rows, src.channels() == 1 ? 1 : 3);
    if (!img) return nullptr;
    for (int y = 0; y < src.rows; y++)
        std::memcpy(img->buf + (size_t)y * img->stride, src.ptr(y), (size_t)src.cols * img->channels);
    return img;
}

// A Mat header over a gs_image's pixels (no copy; valid while img lives).
cv::Mat mat_view(const gs_image *img)
{
    return cv::Mat(img->height, img->width, img->channels == 1 ? CV_8UC1 : CV_8UC3, img->buf, (size_t)img->stride);
}

} // namespace

struct cvshim_video {
    cv::VideoCapture cap;
    cv::Mat frame;
};

struct cvshim_writer {
    cv::VideoWriter w;
    int width, height;
};

extern "C" {

gs_image *cvshim_image_read(const char *path, char *err, size_t errlen)
{
    try {
        cv::Mat m = cv::imread(path, cv::IMREAD_COLOR);
        if (m.empty()) { set_err(err, errlen, "not a readable image (broken or unsupported format)"); return nullptr; }
        gs_image *img = image_from_mat(m);
        if (!img) set_err(err, errlen, "out of memory");
        return img;
    } catch (const std::exception &e) {
        set_err(err, errlen, e.what());
    } catch (...) {
        set_err(err, errlen, "unknown OpenCV failure");
    }
    return nullptr;
}

gs_image *cvshim_image_decode(const uint8_t *data, size_t len, char *err, size_t errlen)
{
    try {
        if (!data || len == 0) { set_err(err, errlen, "empty image data"); return nullptr; }
        cv::Mat buf(1, (int)len, CV_8UC1, const_cast<uint8_t *>(data));
        cv::Mat m = cv::imdecode(buf, cv::IMREAD_COLOR);
        if (m.empty()) { set_err(err, errlen, "not a decodable image"); return nullptr; }
        gs_image *img = image_from_mat(m);
        if (!img) set_err(err, errlen, "out of memory");
        return img;
    } catch (const std::exception &e) {
        set_err(err, errlen, e.what());
    } catch (...) {
        set_err(err, errlen, "unknown OpenCV failure");
    }
    return nullptr;
}

int cvshim_image_encode_jpeg(const gs_image *img, int quality, uint8_t **out, size_t *outlen)
{
    try {
        std::vector<uchar> buf;
        std::vector<int> params = {cv::IMWRITE_JPEG_QUALITY, quality};
        if (!cv::imencode(".jpg", mat_view(img), buf, params)) return -1;
        *out = static_cast<uint8_t *>(std::malloc(buf.size()));
        if (!*out) return -1;
        std::memcpy(*out, buf.data(), buf.size());
        *outlen = buf.size();
        return 0;
    } catch (...) {
        return -1;
    }
}

gs_image *cvshim_image_resize(const gs_image *src, int w, int h)
{
    try {
        cv::Mat dst;
        cv::resize(mat_view(src), dst, cv::Size(w, h), 0, 0,
                   (w < src->width) ? cv::INTER_AREA : cv::INTER_LINEAR);
        return image_from_mat(dst);
    } catch (...) {
        return nullptr;
    }
}

cvshim_video *cvshim_video_open(const char *path, char *err, size_t errlen)
{
    try {
        auto *v = new cvshim_video();
        if (!v->cap.open(path, cv::CAP_FFMPEG) && !v->cap.open(path, cv::CAP_ANY)) {
            delete v;
            set_err(err, errlen, "cannot open as a video (missing, broken or unsupported codec)");
            return nullptr;
        }
        return v;
    } catch (const std::exception &e) {
        set_err(err, errlen, e.what());
    } catch (...) {
        set_err(err, errlen, "unknown OpenCV failure");
    }
    return nullptr;
}

int cvshim_video_read(cvshim_video *v, gs_image **frame, double *t_ms)
{
    try {
        if (!v->cap.read(v->frame) || v->frame.empty()) return 0;
        if (t_ms) *t_ms = v->cap.get(cv::CAP_PROP_POS_MSEC);
        gs_image *img = *frame;
        int ch = v->frame.channels() == 1 ? 1 : 3;
        if (!img || img->width != v->frame.cols || img->height != v->frame.rows || img->channels != ch) {
            gs_image_destroy(img);
            *frame = img = image_from_mat(v->frame);
            return img ? 1 : -1;
        }
        cv::Mat dst = mat_view(img);
        if (v->frame.channels() == 4) cv::cvtColor(v->frame, dst, cv::COLOR_BGRA2BGR);
        else v->frame.copyTo(dst);
        return 1;
    } catch (...) {
        return -1;
    }
}

double cvshim_video_fps(const cvshim_video *v)
{
    try { return v->cap.get(cv::CAP_PROP_FPS); } catch (...) { return 0; }
}

long cvshim_video_frame_count(const cvshim_video *v)
{
    try {
        double n = v->cap.get(cv::CAP_PROP_FRAME_COUNT);
        return n > 0 ? (long)n : -1;
    } catch (...) {
        return -1;
    }
}

void cvshim_video_close(cvshim_video *v)
{
    try { delete v; } catch (...) {}
}

cvshim_writer *cvshim_writer_open(const char *path, int width, int height, double fps, char *err, size_t errlen)
{
    try {
        std::string p(path);
        auto ends = [&](const char *s) { size_t n = std::strlen(s); return p.size() >= n && p.compare(p.size() - n, n, s) == 0; };
        auto *w = new cvshim_writer();
        w->width = width;
        w->height = height;
        std::vector<int> fourccs;
        if (ends(".avi")) fourccs = {cv::VideoWriter::fourcc('M', 'J', 'P', 'G')};
        else fourccs = {cv::VideoWriter::fourcc('a', 'v', 'c', '1'), cv::VideoWriter::fourcc('H', '2', '6', '4'),
                        cv::VideoWriter::fourcc('m', 'p', '4', 'v')};
        for (int cc : fourccs)
            if (w->w.open(p, cv::CAP_FFMPEG, cc, fps, cv::Size(width, height), true)) return w;
        delete w;
        set_err(err, errlen, "cannot open video for writing (no encoder for this extension?)");
    } catch (const std::exception &e) {
        set_err(err, errlen, e.what());
    } catch (...) {
        set_err(err, errlen, "unknown OpenCV failure");
    }
    return nullptr;
}

int cvshim_writer_write(cvshim_writer *w, const gs_image *frame)
{
    try {
        if (frame->width != w->width || frame->height != w->height || frame->channels != 3) return -1;
        w->w.write(mat_view(frame));
        return 0;
    } catch (...) {
        return -1;
    }
}

int cvshim_writer_close(cvshim_writer *w)
{
    try {
        if (w) { w->w.release(); delete w; }
        return 0;
    } catch (...) {
        return -1;
    }
}

} // extern "C"
