/* samples/job.c: `goscribe render` as one call (render_job_run): read the
 * game, draw the look, build the scene and the timeline, then write every
 * frame (video or PNG folder) with its truth line, and at the end the truth
 * SGF and calibration.  The command line only parses and prints. */
#include "samples/render_internal.h"
#include "cvshim/cvshim.h"
#include "sgf/sgf.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

void render_job_options_init(render_job_options *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->width = 1280;
    o->height = 720;
    o->fps = 30;
    o->pace = 1;
    o->moves_limit = -1;
    o->frames_limit = -1;
    o->hover_pct = 20;
    o->rest_pct = 10;
}

/* Prefixes e's message with `what: ` (the file or step it belongs to). */
static gs_status prefixed(gs_error *e, gs_status st, const char *what)
{
    if (st == GS_OK) st = GS_ERR_INTERNAL;  /* a failure that did not say why */
    char inner[sizeof e->msg];
    snprintf(inner, sizeof inner, "%s", e->msg);
    return gs_error_set(e, st, "%s: %s", what, inner);
}

/* ------------------------------------------------------------- outputs */

static bool has_video_ext(const char *p)
{
    const char *d = strrchr(p, '.');
    const char *sl = strrchr(p, '/');
    if (!d || (sl && d < sl)) return false;
    return !strcasecmp(d, ".mp4") || !strcasecmp(d, ".avi") || !strcasecmp(d, ".mkv") || !strcasecmp(d, ".mov");
}

/* OUT.mp4 -> OUT + suffix; DIR -> DIR/name */
static void side_path(char *buf, size_t n, const char *out, bool video, const char *suffix, const char *name)
{
    if (video) {
        const char *d = strrchr(out, '.');
        snprintf(buf, n, "%.*s%s", (int)(d - out), out, suffix);
    } else {
        snprintf(buf, n, "%s/%s", out, name);
    }
}

/* Where the frames go: a video writer, or numbered PNG files in a folder. */
typedef struct frame_sink {
    const char *out;
    bool video;
    cvshim_writer *vw;
} frame_sink;

static gs_status sink_open_video(frame_sink *k, int w, int h, double fps, gs_error *e)
{
    /* find an unwritable path ourselves: one clear line, before the
     * video library prints its own attempts */
    FILE *probe = fopen(k->out, "wb");
    if (!probe) return gs_error_set(e, GS_ERR_IO, "%s: %s", k->out, strerror(errno));
    (void)fclose(probe);  /* an empty file, opened only to test the path */
    /* keep the video library's chatter off stderr unless the caller's
     * environment asks for it (0: an existing setting wins); a failure
     * only leaves its default, more talkative, log level */
    (void)setenv("OPENCV_LOG_LEVEL", "ERROR", 0);
    (void)setenv("OPENCV_FFMPEG_LOGLEVEL", "-8", 0);
    gs_error e2;
    k->vw = cvshim_writer_open(k->out, w, h, fps, &e2);
    if (!k->vw) return gs_error_set(e, GS_ERR_IO, "%s: %s", k->out, e2.msg);
    return GS_OK;
}

static gs_status sink_open_dir(frame_sink *k, gs_error *e)
{
    struct stat sb;
    if (stat(k->out, &sb) == 0) {
        if (!S_ISDIR(sb.st_mode))
            return gs_error_set(e, GS_ERR_IO, "%s: exists and is not a directory (use .mp4/.avi for a video)", k->out);
    } else if (mkdir(k->out, 0755) != 0) {
        return gs_error_set(e, GS_ERR_IO, "%s: cannot create directory: %s", k->out, strerror(errno));
    }
    return GS_OK;
}

static gs_status sink_write(frame_sink *k, const gs_image *frame, long f, gs_error *e)
{
    if (k->video) {
        if (cvshim_writer_write(k->vw, frame) != 0) return gs_error_set(e, GS_ERR_IO, "%s: cannot write frame %ld", k->out, f);
        return GS_OK;
    }
    char fp[4200];
    snprintf(fp, sizeof fp, "%s/frame_%06ld.png", k->out, f);
    return gs_image_write_png(frame, fp, e);
}

/* Finishes the video (a folder needs nothing). */
static gs_status sink_finish(frame_sink *k, gs_error *e)
{
    if (!k->vw) return GS_OK;
    int cr = cvshim_writer_close(k->vw);
    k->vw = NULL;
    if (cr != 0) return gs_error_set(e, GS_ERR_IO, "%s: cannot finish the video", k->out);
    return GS_OK;
}

/* ----------------------------------------------------------------- job */

typedef struct job {
    const render_job_options *o;
    sgf_game game;
    gs_move *mv;                /* the moves rendered */
    int nmoves;
    render_params p;
    render_scene *scene;
    render_script *sc;
    frame_sink sink;
    FILE *tf;                   /* the truth lines */
    gs_image *frame;
    long nframes;
} job;

/* The game, its board size checked, and the look drawn for it. */
static gs_status job_game(job *j, gs_error *e)
{
    const render_job_options *o = j->o;
    gs_status st = sgf_game_load(o->game_path, &j->game, e);
    if (st != GS_OK) return prefixed(e, st, o->game_path);
    int size = j->game.info.size;
    if (size < 5 || size > GS_MAX_SIZE)
        return gs_error_set(e, GS_ERR_NOBOARD, "%s: board size %d cannot be rendered (5..%d)", o->game_path, size,
                            GS_MAX_SIZE);
    render_params_from_seed(&j->p, o->seed, size, o->width, o->height);
    st = render_look_apply(&j->p, &o->look, e);
    if (st != GS_OK) return st;
    j->p.objects = o->objects;
    int nmoves = (int)j->game.move_count;
    if (nmoves == 0) return gs_error_set(e, GS_ERR_NOBOARD, "%s: the game has no moves to render", o->game_path);
    if (o->moves_limit >= 0 && o->moves_limit < nmoves) nmoves = (int)o->moves_limit;
    j->mv = calloc((size_t)nmoves + 1, sizeof *j->mv);
    if (!j->mv) return gs_error_set(e, GS_ERR_NOMEM, "render: out of memory");
    for (int i = 0; i < nmoves; i++) {
        j->mv[i].color = j->game.moves[i].color;
        j->mv[i].pt = j->game.moves[i].pt;
        j->mv[i].pass = j->game.moves[i].pass;
    }
    j->nmoves = nmoves;
    return GS_OK;
}

/* Tells the caller of each violation asked for that found no place. */
static void warn_left_out(const job *j)
{
    const render_job_options *o = j->o;
    const render_violation *vl;
    int nvl = render_script_violations(j->sc, &vl);
    for (int k = 0; k < 2 * RENDER_V_COUNT_; k++) {
        int t = k % RENDER_V_COUNT_;
        bool corr = k >= RENDER_V_COUNT_;
        if (!((corr ? o->corrected : o->violations) & (1u << t))) continue;
        bool placed = false;
        for (int i = 0; i < nvl; i++) placed = placed || (vl[i].type == (render_violation_type)t && vl[i].corrected == corr);
        if (placed || !o->warn) continue;
        char msg[160];
        snprintf(msg, sizeof msg, "no place for a%s %s in the moves rendered; left out", corr ? " corrected" : "",
                 render_violation_code((render_violation_type)t));
        o->warn(o->user, msg);
    }
}

/* The player the game's RE says resigned ("W+R": Black), else GS_EMPTY. */
static gs_color loser_by_result(const char *re)
{
    if (!re || (re[0] != 'B' && re[0] != 'W') || re[1] != '+' || (re[2] != 'R' && re[2] != 'r')) return GS_EMPTY;
    return re[0] == 'B' ? GS_WHITE : GS_BLACK;
}

/* The scene and the timeline. */
static gs_status job_scene(job *j, gs_error *e)
{
    const render_job_options *o = j->o;
    j->scene = render_scene_create(&j->p, e);
    if (!j->scene) return prefixed(e, e->status, "render");
    render_script_options so;
    render_script_options_init(&so, o->seed);
    render_script_options_geometry(&so, &j->p);
    so.pace = o->pace;
    so.hover_pct = o->hover_pct;
    so.rest_pct = o->rest_pct;
    so.violations = o->violations;
    so.corrected = o->corrected;
    so.end = o->end;
    so.resigner = o->resigner;
    if (so.end == RENDER_END_RESIGN && so.resigner == GS_EMPTY) so.resigner = loser_by_result(j->game.info.result);
    const gs_position *setup = &j->game.setup;
    if (gs_position_count(setup, GS_BLACK) + gs_position_count(setup, GS_WHITE) > 0) so.setup = *setup;
    j->sc = render_script_create(j->game.info.size, j->mv, j->nmoves, &so, e);
    if (!j->sc) return prefixed(e, e->status, o->game_path);
    warn_left_out(j);
    return GS_OK;
}

/* The frame sink, the truth file and the frame buffer. */
static gs_status job_outputs(job *j, gs_error *e)
{
    const render_job_options *o = j->o;
    j->sink.out = o->out;
    j->sink.video = has_video_ext(o->out);
    gs_status st = j->sink.video ? sink_open_video(&j->sink, o->width, o->height, o->fps, e) : sink_open_dir(&j->sink, e);
    if (st != GS_OK) return st;
    char path[4096];
    side_path(path, sizeof path, o->out, j->sink.video, ".truth.jsonl", "truth.jsonl");
    j->tf = fopen(path, "w");
    if (!j->tf) return gs_error_set(e, GS_ERR_IO, "%s: %s", path, strerror(errno));
    j->frame = gs_image_create(o->width, o->height, 3);
    if (!j->frame) return gs_error_set(e, GS_ERR_NOMEM, "render: out of memory");
    return GS_OK;
}

/* Every frame of the timeline (or the first frames_limit): drawn, written,
 * its truth line. */
static gs_status job_frames(job *j, gs_error *e)
{
    const render_job_options *o = j->o;
    j->nframes = (long)ceil(render_script_duration_ms(j->sc) * o->fps / 1000.0);
    if (o->frames_limit > 0 && o->frames_limit < j->nframes) j->nframes = o->frames_limit;
    render_state rs;
    double last_told = gs_now_ms();
    for (long f = 0; f < j->nframes; f++) {
        if (o->progress && gs_now_ms() - last_told >= 1000) {
            last_told = gs_now_ms();
            o->progress(o->user, f, j->nframes);
        }
        double t = f * 1000.0 / o->fps;
        render_script_state(j->sc, t, &rs);
        rs.frame = (int)f;
        gs_status st = render_frame(j->scene, &rs, j->frame, e);
        if (st != GS_OK) return prefixed(e, st, "render");
        st = sink_write(&j->sink, j->frame, f, e);
        if (st == GS_OK) st = render_truth_line(j->tf, (int)f, j->scene, j->sc, &rs, e);
        if (st != GS_OK) return st;
    }
    if (o->progress) o->progress(o->user, j->nframes, j->nframes);
    return GS_OK;
}

/* The truth lines and the video closed, then the truth SGF and grid. */
static gs_status job_finish(job *j, gs_error *e)
{
    const render_job_options *o = j->o;
    int rc = fclose(j->tf);
    j->tf = NULL;
    if (rc != 0) return gs_error_set(e, GS_ERR_IO, "writing the truth: %s", strerror(errno));
    gs_status st = sink_finish(&j->sink, e);
    if (st != GS_OK) return st;
    char path[4096];
    side_path(path, sizeof path, o->out, j->sink.video, ".truth.sgf", "truth.sgf");
    st = render_truth_sgf_save(path, &j->game, j->sc, o->seed, e);
    if (st != GS_OK) return prefixed(e, st, path);
    side_path(path, sizeof path, o->out, j->sink.video, ".truth.cal", "truth.cal");
    st = render_truth_cal_save(path, j->scene, e);
    if (st != GS_OK) return prefixed(e, st, path);
    return GS_OK;
}

static void job_free(job *j)
{
    /* on a failure: whatever was written so far stays, unfinished; the
     * first error is the one reported, so these closes are not checked */
    if (j->tf) (void)fclose(j->tf);
    if (j->sink.vw) (void)cvshim_writer_close(j->sink.vw);
    gs_image_destroy(j->frame);
    render_script_destroy(j->sc);
    render_scene_destroy(j->scene);
    free(j->mv);
    sgf_game_free(&j->game);
}

gs_status render_job_run(const render_job_options *o, render_job_result *res, gs_error *err)
{
    job j;
    memset(&j, 0, sizeof j);
    j.o = o;
    gs_error e = {0};
    gs_status st = job_game(&j, &e);
    if (st == GS_OK) st = job_scene(&j, &e);
    if (st == GS_OK) st = job_outputs(&j, &e);
    if (st == GS_OK) st = job_frames(&j, &e);
    if (st == GS_OK) st = job_finish(&j, &e);
    if (st == GS_OK && res) {
        const render_violation *vl;
        res->frames = j.nframes;
        res->board_size = j.game.info.size;
        res->moves = j.nmoves;
        res->violations = render_script_violations(j.sc, &vl);
        res->corrected = 0;
        for (int i = 0; i < res->violations; i++) res->corrected += vl[i].corrected;
        const render_signal *sg;
        res->signals = render_script_signals(j.sc, &sg);
    }
    job_free(&j);
    if (st != GS_OK && err) *err = e;
    return st;
}
