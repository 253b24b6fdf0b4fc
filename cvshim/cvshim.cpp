// cvshim/cvshim.cpp: the only C++ file; wraps OpenCV 4 behind task-level C
// functions (see cvshim.h). Every entry point catches exceptions.
#include "cvshim/cvshim.h"

#include <memory>
#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

namespace {

// The message, on one line (OpenCV's exception texts end in newlines),
// into err with status st.
void set_err(gs_error *err, gs_status st, const char *msg)
{
    if (!err) return;
    gs_error_set(err, st, "%s", msg);
    for (char *p = err->msg; *p; p++)
        if (*p == '\n' || *p == '\r') *p = ' ';
    for (size_t n = std::strlen(err->msg); n > 0 && err->msg[n - 1] == ' ';) err->msg[--n] = 0;
}

// A Mat as 8-bit grey or BGR: float samples (0..1) and 16-bit ones are
// scaled to 0..255 rather than cut; of two channels (grey and alpha) the
// grey is kept, of four (BGRA) the colour.
static cv::Mat grey_or_bgr8(const cv::Mat &m)
{
    cv::Mat src = m;
    if (src.depth() == CV_32F || src.depth() == CV_64F) src.convertTo(src, CV_8U, 255.0);
    else if (src.depth() == CV_16U || src.depth() == CV_16S) src.convertTo(src, CV_8U, 1.0 / 257);
    else if (src.depth() != CV_8U) src.convertTo(src, CV_8U);
    if (src.channels() == 2) cv::extractChannel(src, src, 0);
    else if (src.channels() == 4) cv::cvtColor(src, src, cv::COLOR_BGRA2BGR);
    return src;
}

// Copies a Mat into a freshly allocated gs_image, grey or BGR
// (grey_or_bgr8).
gs_image *image_from_mat(const cv::Mat &m)
{
    cv::Mat src = grey_or_bgr8(m);
    gs_image *img = gs_image_create(src.cols, src.rows, src.channels() == 1 ? 1 : 3);
    if (!img) return nullptr;
    for (int y = 0; y < src.rows; y++)
        std::memcpy(img->buf + (size_t)y * img->stride, src.ptr(y), (size_t)src.cols * img->channels);
    return img;
}

// A decoded picture as 8-bit BGR, whatever the file held: some decoders
// (a greyscale PFM) ignore IMREAD_COLOR and give one or two channels.
static cv::Mat decoded_bgr8(const cv::Mat &m)
{
    cv::Mat src = grey_or_bgr8(m);
    if (src.channels() == 1) cv::cvtColor(src, src, cv::COLOR_GRAY2BGR);
    return src;
}

// OpenCV's decoders report a broken file on std::cerr (loadsave.cpp) before
// returning an empty Mat: while one runs, std::cerr goes here, so the
// command's error stays one line and can say what the decoder found.  (The
// C program has no other writer to std::cerr.)
class cerr_capture {
  public:
    cerr_capture() : old_(std::cerr.rdbuf(text_.rdbuf())) {}
    ~cerr_capture() { std::cerr.rdbuf(old_); }
    cerr_capture(const cerr_capture &) = delete;
    cerr_capture &operator=(const cerr_capture &) = delete;
    // The decoder's reason ("Unexpected end of input stream"), "" if none.
    std::string reason() const
    {
        std::string s = text_.str();
        size_t b = s.find(" in function");
        size_t a = b == std::string::npos ? b : s.rfind(") ", b);
        if (a == std::string::npos || b <= a + 2) return "";
        return s.substr(a + 2, b - a - 2);
    }

  private:
    std::ostringstream text_;
    std::streambuf *old_;
};

// A Mat header over a gs_image's pixels (no copy; valid while img lives).
cv::Mat mat_view(const gs_image *img)
{
    return cv::Mat(img->height, img->width, img->channels == 1 ? CV_8UC1 : CV_8UC3, img->buf, (size_t)img->stride);
}

} // namespace

struct cvshim_video {
    cv::VideoCapture cap;
    cv::Mat frame;
    long long max_pixels = CVSHIM_MAX_PIXELS_DEFAULT;
};

struct cvshim_writer {
    cv::VideoWriter w;
    int width, height;
};

// A dnn::Net keeps its layers' buffers between runs, so one net runs one
// input at a time; the mutex makes a net shared by threads wait its turn.
struct cvshim_net {
    cv::dnn::Net net;
    std::mutex lock;
};

extern "C" {

// The picture turned as EXIF orientation o says it is displayed.
static cv::Mat oriented(const cv::Mat &m, int o)
{
    cv::Mat r;
    switch (o) {
    case 2: cv::flip(m, r, 1); return r;
    case 3: cv::rotate(m, r, cv::ROTATE_180); return r;
    case 4: cv::flip(m, r, 0); return r;
    case 5: cv::transpose(m, r); return r;
    case 6: cv::rotate(m, r, cv::ROTATE_90_CLOCKWISE); return r;
    case 7: cv::transpose(m, r); cv::rotate(r, r, cv::ROTATE_180); return r;
    case 8: cv::rotate(m, r, cv::ROTATE_90_COUNTERCLOCKWISE); return r;
    default: return m;
    }
}

// imdecode's flag for a reduction of 2, 4 or 8 (JPEG: DCT scaling).
static int reduced_flag(int k)
{
    return k == 8 ? cv::IMREAD_REDUCED_COLOR_8 : k == 4 ? cv::IMREAD_REDUCED_COLOR_4 : k == 2 ? cv::IMREAD_REDUCED_COLOR_2
                                                                                              : cv::IMREAD_COLOR;
}

gs_image *cvshim_image_decode_as(const uint8_t *data, size_t len, const cvshim_decode *how, cvshim_decoded *done,
                                 gs_error *err)
{
    try {
        cvshim_decode dflt = {};
        if (!how) how = &dflt;
        long long max_pixels = how->max_pixels;
        int reduce = how->reduce == 2 || how->reduce == 4 || how->reduce == 8 ? how->reduce : 1;
        if (!data || len == 0) { set_err(err, GS_ERR_FORMAT, "empty image data"); return nullptr; }
        if (len > (size_t)INT_MAX) { set_err(err, GS_ERR_FORMAT, "image data larger than 2 GB"); return nullptr; }
        // The size the header declares is checked before OpenCV allocates
        // anything for the pixels.
        if (cvshim_image_check_budget(data, len, max_pixels, err) != GS_OK) return nullptr;
        if (cvshim_image_check_complete(data, len, err) != GS_OK) return nullptr;
        int fw = 0, fh = 0;
        cvshim_image_header_size(data, len, &fw, &fh, nullptr);
        if (how->reduce <= 0 && how->min_side > 0)
            while (reduce < 8 && std::max(fw, fh) / (2 * reduce) >= how->min_side) reduce *= 2;
        int o = how->stored ? 1 : cvshim_image_orientation(data, len);
        cv::Mat buf(1, (int)len, CV_8UC1, const_cast<uint8_t *>(data));
        cv::Mat m;
        std::string why;
        {
            cerr_capture quiet;
            // the orientation is applied here, not by OpenCV, so it is known
            m = cv::imdecode(buf, reduced_flag(reduce) | cv::IMREAD_IGNORE_ORIENTATION);
            why = quiet.reason();
        }
        if (m.empty()) {
            std::string msg = "not a readable image (broken or unsupported format" + (why.empty() ? "" : ": " + why) + ")";
            set_err(err, GS_ERR_FORMAT, msg.c_str());
            return nullptr;
        }
        // A decoder that went past what the header said is refused too.
        if ((long long)m.cols * m.rows > cvshim_max_pixels(max_pixels)) {
            set_err(err, GS_ERR_FORMAT, "the image decodes larger than the pixel budget");
            return nullptr;
        }
        gs_image *img = image_from_mat(oriented(decoded_bgr8(m), o));
        if (!img) { set_err(err, GS_ERR_NOMEM, "out of memory"); return nullptr; }
        if (done) {
            bool turned = o >= 5;
            done->orientation = o;
            done->reduce = reduce;
            done->full_width = turned ? fh : fw;
            done->full_height = turned ? fw : fh;
        }
        return img;
    } catch (const cv::Exception &e) {
        // its own limits (OPENCV_IO_MAX_IMAGE_*) and asserts: the short text
        set_err(err, GS_ERR_FORMAT, ("not a readable image (OpenCV: " + e.err + ")").c_str());
    } catch (const std::exception &e) {
        set_err(err, GS_ERR_FORMAT, e.what());
    } catch (...) {
        set_err(err, GS_ERR_FORMAT, "unknown OpenCV failure");
    }
    return nullptr;
}

gs_image *cvshim_image_decode_max(const uint8_t *data, size_t len, long long max_pixels, gs_error *err)
{
    cvshim_decode how = {};
    how.max_pixels = max_pixels;
    return cvshim_image_decode_as(data, len, &how, nullptr, err);
}

gs_image *cvshim_image_decode(const uint8_t *data, size_t len, gs_error *err)
{
    return cvshim_image_decode_max(data, len, 0, err);
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

gs_image *cvshim_image_scaled(const gs_image *src, double gain)
{
    try {
        cv::Mat dst;
        mat_view(src).convertTo(dst, -1, gain, 0); /* saturating, rounded */
        return image_from_mat(dst);
    } catch (...) {
        return nullptr;
    }
}

cvshim_video *cvshim_video_open(const char *path, gs_error *err)
{
    try {
        // FFmpeg would print a line per broken frame on stderr; the capture
        // layer says which frames were skipped instead.  Read once, when
        // OpenCV first starts FFmpeg; a value the user set is kept.
        (void)setenv("OPENCV_FFMPEG_LOGLEVEL", "-8", 0); /* no memory: FFmpeg only stays talkative */
        auto *v = new cvshim_video();
        v->max_pixels = cvshim_max_pixels(0);
        if (!v->cap.open(path, cv::CAP_FFMPEG)) {
            delete v;
            set_err(err, GS_ERR_IO, "cannot open as a video (missing, broken or unsupported codec)");
            return nullptr;
        }
        return v;
    } catch (const std::exception &e) {
        set_err(err, GS_ERR_IO, e.what());
    } catch (...) {
        set_err(err, GS_ERR_IO, "unknown OpenCV failure");
    }
    return nullptr;
}

cvshim_video *cvshim_stream_open(const char *url, int open_timeout_ms, int read_timeout_ms, gs_error *err)
{
    try {
        (void)setenv("OPENCV_FFMPEG_LOGLEVEL", "-8", 0); /* as for a file: FFmpeg's lines could name the URL */
        auto *v = new cvshim_video();
        v->max_pixels = cvshim_max_pixels(0);
        const std::vector<int> params = {cv::CAP_PROP_OPEN_TIMEOUT_MSEC, open_timeout_ms, cv::CAP_PROP_READ_TIMEOUT_MSEC,
                                         read_timeout_ms};
        if (!v->cap.open(url, cv::CAP_FFMPEG, params)) {
            delete v;
            set_err(err, GS_ERR_IO, "no video stream could be opened");
            return nullptr;
        }
        return v;
    } catch (...) {
        /* OpenCV's texts may quote the URL: none of them is passed on */
        set_err(err, GS_ERR_IO, "OpenCV failed to open the stream");
    }
    return nullptr;
}

int cvshim_video_read(cvshim_video *v, gs_image **frame, double *t_ms)
{
    try {
        // OpenCV copies its converted picture into the Mat it is given: a
        // header over the caller's frame takes it in place when the size and
        // type match (no second copy); otherwise retrieve allocates anew.
        gs_image *img = *frame;
        if (img) v->frame = mat_view(img);
        else v->frame.release();
        if (!v->cap.grab() || !v->cap.retrieve(v->frame) || v->frame.empty()) return 0;
        if ((long long)v->frame.cols * v->frame.rows > v->max_pixels) return 0;
        if (t_ms) *t_ms = v->cap.get(cv::CAP_PROP_POS_MSEC);
        if (img && v->frame.data == img->buf) return 1; /* decoded into the caller's frame */
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
        if (!(n > 0)) return -1;
        return n < 1e15 ? (long)n : (long)1e15; /* a hostile header: clamped before the cast */
    } catch (...) {
        return -1;
    }
}

void cvshim_video_size(const cvshim_video *v, int *width, int *height)
{
    *width = *height = 0;
    try {
        double w = v->cap.get(cv::CAP_PROP_FRAME_WIDTH), h = v->cap.get(cv::CAP_PROP_FRAME_HEIGHT);
        if (w >= 1 && h >= 1 && w <= INT_MAX && h <= INT_MAX) {
            *width = (int)w;
            *height = (int)h;
        }
    } catch (...) {
    }
}

void cvshim_video_set_max_pixels(cvshim_video *v, long long max_pixels)
{
    v->max_pixels = cvshim_max_pixels(max_pixels);
}

void cvshim_video_close(cvshim_video *v)
{
    try { delete v; } catch (...) {}
}

cvshim_writer *cvshim_writer_open(const char *path, int width, int height, double fps, gs_error *err)
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
        set_err(err, GS_ERR_IO, "cannot open video for writing (no encoder for this extension?)");
    } catch (const std::exception &e) {
        set_err(err, GS_ERR_IO, e.what());
    } catch (...) {
        set_err(err, GS_ERR_IO, "unknown OpenCV failure");
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


// ---- board finding (vision/) ----

// The Hough transform's segments as the C side's array (malloc'd, one
// spare entry so an empty result is not a NULL); NULL when out of memory.
static cvshim_segment *segments_of(const std::vector<cv::Vec4i> &lines)
{
    cvshim_segment *out = (cvshim_segment *)std::malloc(sizeof(cvshim_segment) * (lines.size() + 1));
    if (!out) return nullptr;
    for (size_t i = 0; i < lines.size(); i++)
        out[i] = cvshim_segment{(float)lines[i][0], (float)lines[i][1], (float)lines[i][2], (float)lines[i][3]};
    return out;
}

gs_status cvshim_board_lines(const gs_image *img, int max_side, double *scale, gs_image **response, gs_image **grey,
                             cvshim_segment **segs, int *nsegs, gs_error *err)
{
    *response = nullptr;
    *grey = nullptr;
    *segs = nullptr;
    *nsegs = 0;
    try {
        cv::Mat src = mat_view(img), g;
        if (img->channels == 3) cv::cvtColor(src, g, cv::COLOR_BGR2GRAY);
        else g = src.clone();
        double s = 1.0;
        int longest = std::max(g.cols, g.rows);
        if (max_side > 0 && longest > max_side) {
            s = (double)max_side / longest;
            cv::Mat small;
            cv::resize(g, small, cv::Size(), s, s, cv::INTER_AREA);
            g = small;
        }
        *scale = s;
        // Black-hat: closing minus image = dark structures thinner than the
        // kernel. Grid lines are 1-3 px wide at this scale.
        cv::Mat bh;
        cv::Mat k = cv::getStructuringElement(cv::MORPH_RECT, cv::Size(7, 7));
        cv::morphologyEx(g, bh, cv::MORPH_BLACKHAT, k);
        // Binarise relative to the response's own spread so dim photos work,
        // keeping only ridge pixels (maximal across the line): 1-px lines
        // make the Hough transform both faster and sharper.
        cv::Scalar mean, sd;
        cv::meanStdDev(bh, mean, sd);
        double t = std::max(6.0, mean[0] + 2.0 * sd[0]);
        cv::Mat bin(bh.size(), CV_8U, cv::Scalar(0));
        for (int y = 1; y < bh.rows - 1; y++) {
            const uchar *p = bh.ptr(y), *pu = bh.ptr(y - 1), *pd = bh.ptr(y + 1);
            uchar *o = bin.ptr(y);
            for (int x = 1; x < bh.cols - 1; x++) {
                int q = p[x];
                if (q < t) continue;
                if ((q >= p[x - 1] && q >= p[x + 1]) || (q >= pu[x] && q >= pd[x])) o[x] = 255;
            }
        }
        std::vector<cv::Vec4i> lines;
        int minlen = std::max(12, std::max(g.cols, g.rows) / 40);
        cv::HoughLinesP(bin, lines, 1, CV_PI / 180, 20, minlen, 3);
        cvshim_segment *out = segments_of(lines);
        gs_image *r = image_from_mat(bh);
        gs_image *gr = image_from_mat(g);
        if (!out || !r || !gr) {
            std::free(out);
            gs_image_destroy(r);
            gs_image_destroy(gr);
            set_err(err, GS_ERR_NOMEM, "out of memory");
            return err ? err->status : GS_ERR_INTERNAL;
        }
        *segs = out;
        *nsegs = (int)lines.size();
        *response = r;
        *grey = gr;
        return GS_OK;
    } catch (const std::exception &e) {
        set_err(err, GS_ERR_INTERNAL, e.what());
    } catch (...) {
        set_err(err, GS_ERR_INTERNAL, "unknown OpenCV failure");
    }
    return err ? err->status : GS_ERR_INTERNAL;
}

gs_status cvshim_map_segments(const gs_image *map, int minlen, int maxgap, cvshim_segment **segs, int *nsegs,
                              gs_error *err)
{
    *segs = nullptr;
    *nsegs = 0;
    try {
        if (!map || map->channels != 1) {
            set_err(err, GS_ERR_INTERNAL, "map_segments: a 1-channel map is needed");
            return err ? err->status : GS_ERR_INTERNAL;
        }
        std::vector<cv::Vec4i> lines;
        cv::HoughLinesP(mat_view(map), lines, 1, CV_PI / 360, std::max(8, minlen / 2), std::max(2, minlen), maxgap);
        cvshim_segment *out = segments_of(lines);
        if (!out) {
            set_err(err, GS_ERR_NOMEM, "out of memory");
            return err ? err->status : GS_ERR_INTERNAL;
        }
        *segs = out;
        *nsegs = (int)lines.size();
        return GS_OK;
    } catch (const std::exception &e) {
        set_err(err, GS_ERR_INTERNAL, e.what());
    } catch (...) {
        set_err(err, GS_ERR_INTERNAL, "unknown OpenCV failure");
    }
    return err ? err->status : GS_ERR_INTERNAL;
}

// ---- following a drifting board (track/tracker.c) ----

gs_status cvshim_patch_shifts(const gs_image *ref, const gs_image *cur, int side, int n, double (*shift)[2],
                              double *peak, gs_error *err)
{
    try {
        if (!ref || !cur || side < 8 || n < 1 || ref->channels != 1 || cur->channels != 1 || ref->width != side ||
            cur->width != side || ref->height < n * side || cur->height < n * side) {
            set_err(err, GS_ERR_INTERNAL, "patch_shifts: patches must be side x side grey, stacked");
            return err ? err->status : GS_ERR_INTERNAL;
        }
        cv::Mat win;
        cv::createHanningWindow(win, cv::Size(side, side), CV_32F);
        cv::Mat a, b;
        for (int i = 0; i < n; i++) {
            cv::Rect r(0, i * side, side, side);
            mat_view(ref)(r).convertTo(a, CV_32F);
            mat_view(cur)(r).convertTo(b, CV_32F);
            double resp = 0;
            cv::Point2d d = cv::phaseCorrelate(a, b, win, &resp);
            shift[i][0] = d.x;
            shift[i][1] = d.y;
            peak[i] = std::isfinite(resp) ? resp : 0;
        }
        return GS_OK;
    } catch (const std::exception &e) {
        set_err(err, GS_ERR_INTERNAL, e.what());
    } catch (...) {
        set_err(err, GS_ERR_INTERNAL, "unknown OpenCV failure");
    }
    return err ? err->status : GS_ERR_INTERNAL;
}

// ---- the point model (vision/model.c) ----

cvshim_net *cvshim_net_load(const uint8_t *onnx, size_t len, gs_error *err)
{
    try {
        if (!onnx || len == 0) { set_err(err, GS_ERR_FORMAT, "no model data"); return nullptr; }
        /* read before the handle is made: a file that is no model throws
         * here, with nothing to free */
        cv::dnn::Net net = cv::dnn::readNetFromONNX(reinterpret_cast<const char *>(onnx), len);
        if (net.empty()) {
            set_err(err, GS_ERR_FORMAT, "the model is empty");
            return nullptr;
        }
        std::unique_ptr<cvshim_net> n(new cvshim_net);
        n->net = net;
        n->net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
        n->net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
        return n.release();
    } catch (const cv::Exception &e) {
        set_err(err, GS_ERR_FORMAT, ("the model cannot be loaded (OpenCV: " + e.err + ")").c_str());
    } catch (const std::bad_alloc &) {
        set_err(err, GS_ERR_NOMEM, "out of memory (the model)");
    } catch (const std::exception &e) {
        set_err(err, GS_ERR_FORMAT, e.what());
    } catch (...) {
        set_err(err, GS_ERR_FORMAT, "unknown OpenCV failure loading the model");
    }
    return nullptr;
}

gs_status cvshim_net_run(cvshim_net *n, const float *in, int c, int h, int w, float **out, int *oc, int *oh, int *ow,
                         gs_error *err)
{
    *out = nullptr;
    try {
        if (!n || !in || c < 1 || h < 1 || w < 1) {
            set_err(err, GS_ERR_INTERNAL, "net_run: no input");
            return err ? err->status : GS_ERR_INTERNAL;
        }
        const int shape[4] = {1, c, h, w};
        cv::Mat blob(4, shape, CV_32F, const_cast<float *>(in));
        cv::Mat res;
        {
            std::lock_guard<std::mutex> hold(n->lock);
            n->net.setInput(blob);
            res = n->net.forward().clone();
        }
        if (res.dims != 4 || res.size[0] != 1 || !res.isContinuous()) {
            set_err(err, GS_ERR_INTERNAL, "net_run: the model's output is not 1 x C x H x W");
            return err ? err->status : GS_ERR_INTERNAL;
        }
        size_t count = (size_t)res.size[1] * res.size[2] * res.size[3];
        float *o = static_cast<float *>(std::malloc(sizeof(float) * count));
        if (!o) {
            set_err(err, GS_ERR_NOMEM, "out of memory");
            return GS_ERR_NOMEM;
        }
        std::memcpy(o, res.ptr<float>(), sizeof(float) * count);
        *out = o;
        *oc = res.size[1];
        *oh = res.size[2];
        *ow = res.size[3];
        return GS_OK;
    } catch (const std::bad_alloc &) {
        set_err(err, GS_ERR_NOMEM, "out of memory (the model's run)");
    } catch (const std::exception &e) {
        set_err(err, GS_ERR_INTERNAL, e.what());
    } catch (...) {
        set_err(err, GS_ERR_INTERNAL, "unknown OpenCV failure running the model");
    }
    return err ? err->status : GS_ERR_INTERNAL;
}

void cvshim_net_free(cvshim_net *n)
{
    delete n;
}

} // extern "C"
