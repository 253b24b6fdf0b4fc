/* cli/cmd_render.c: `goscribe render GAME.sgf -o OUT.mp4|OUT_DIR`: a game
 * record as a synthetic camera video (or PNG frames) plus its truth. */
#include "cli/cli.h"
#include "calib/calib.h"
#include "sgf/sgf.h"
#include "samples/render.h"
#include "cvshim/cvshim.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void usage(FILE *f)
{
    fprintf(f,
        "usage: goscribe render GAME.sgf -o OUT.mp4|OUT.avi|OUT_DIR [options]\n"
        "\n"
        "Renders what a camera over the board would see while the game is played:\n"
        "a video (OUT.mp4 / OUT.avi) or numbered PNG frames (OUT_DIR/frame_000000.png),\n"
        "plus the truth: one JSON line per frame (OUT.truth.jsonl or OUT_DIR/truth.jsonl),\n"
        "the game as rendered (OUT.truth.sgf or OUT_DIR/truth.sgf) and the board grid\n"
        "at the start, before any camera bump or drift (OUT.truth.cal or OUT_DIR/truth.cal).\n"
        "Every look option below is drawn from --seed unless given.\n"
        "\n"
        "  -o, --output PATH   video file (.mp4, .avi, .mkv) or a directory for PNG frames\n"
        "  --seed N            seed of the look and the timeline (default 1)\n"
        "  --size WxH          frame size (default 1280x720)\n"
        "  --fps F             frames per second (default 30)\n"
        "  --moves N           render only the first N moves of the game\n"
        "  --pace X            play X times faster than natural (default 1)\n"
        "  --frames N          stop after N frames\n"
        "  --violate LIST      comma list: double_move,wrong_capture,missed_capture,\n"
        "                      moved_stone,ko (each placed once where it can happen)\n"
        "  --hover PCT         chance a move hovers before it lands (default 20)\n"
        "  --rest PCT          chance a pause has a hand resting on the edge (default 10)\n"
        "camera:\n"
        "  --tilt DEG (0..75)  --rotation DEG  --roll DEG  --fov DEG  --fill F (0.1..1.5)\n"
        "  --distance MM       --k1 K (lens, -0.5..0.5)\n"
        "  --bump MS|none      time of a small camera knock   --bump-deg DEG\n"
        "  --drift DEG_PER_MIN slow pan/tilt of the camera from the start (default 0)\n"
        "  --drift-dir DEG     which way the picture drifts (0 right, 90 down; seeded)\n"
        "board:\n"
        "  --cells jp|cn|sq    22x23.7 / 24x23 / 23x23 mm cells   --cell WxH (mm)\n"
        "  --line MM  --margin MM  --thickness MM  --no-stars  --wood B,G,R  --grain G\n"
        "stones:\n"
        "  --stone-height MM  --jitter MM\n"
        "light and sensor:\n"
        "  --kelvin K  --brightness B  --gradient G  --glare G  --flicker F  --slow A\n"
        "  --noise SIGMA  --blur 0|1  --motion-blur M  --jpeg Q (0 = off)\n"
        "\n"
        "Exit: 0 done, 1 usage or I/O error, 2 the SGF holds no game.\n");
}

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

static int parse_bgr(const char *s, double out[3])
{
    double b, g, r;
    char tail;
    if (sscanf(s, "%lf,%lf,%lf%c", &b, &g, &r, &tail) != 3) return -1;
    if (b < 0 || b > 255 || g < 0 || g > 255 || r < 0 || r > 255) return -1;
    out[0] = b;
    out[1] = g;
    out[2] = r;
    return 0;
}

/* The truth SGF: the rendered sequence, violations as referee events. */
static gs_status write_truth_sgf(const char *path, const sgf_game *g, const render_script *sc, uint64_t seed,
                                 gs_error *err)
{
    sgf_game_info info = g->info;
    const gs_move *pl;
    int np = render_script_placed(sc, &pl);
    bool partial = np < (int)g->move_count;
    if (partial) info.result[0] = 0;  /* the result belongs to the whole game */
    sgf_node *root = NULL;
    sgf_tree *t = sgf_new_game(&info, g->setup.size ? &g->setup : NULL, &root, err);
    if (!t) return err ? err->status : GS_ERR_NOMEM;
    char words[200];
    snprintf(words, sizeof words, "Truth of a synthetic video made by goscribe render (seed %llu)%s.",
             (unsigned long long)seed, partial ? "; only the opening of the game was rendered" : "");
    gs_status st = sgf_append_comment(root, words, err);
    sgf_node **nodes = calloc((size_t)np + 1, sizeof *nodes);
    if (!nodes) { sgf_tree_destroy(t); return gs_error_set(err, GS_ERR_NOMEM, "out of memory"); }
    nodes[0] = root;
    for (int i = 0; i < np && st == GS_OK; i++) {
        nodes[i + 1] = sgf_add_move(nodes[i], pl[i].color, pl[i].pt, pl[i].pass, -1, err);
        if (!nodes[i + 1]) st = err ? err->status : GS_ERR_NOMEM;
    }
    const render_violation *v;
    int nv = render_script_violations(sc, &v);
    for (int i = 0; i < nv && st == GS_OK; i++) {
        int at = v[i].move;
        if (v[i].type == RENDER_V_KO_RETAKE) at--;  /* the retake was taken back */
        if (at < 0) at = 0;
        if (at > np) at = np;
        char pt[3];
        sgf_point_format(v[i].point, pt);
        const char *what = "";
        switch (v[i].type) {
        case RENDER_V_DOUBLE_MOVE: what = "seeded violation: double move (the same player placed a second stone at once)"; break;
        case RENDER_V_WRONG_CAPTURE: what = "seeded violation: wrong capture (a stone that was not captured was lifted)"; break;
        case RENDER_V_MISSED_CAPTURE: what = "seeded violation: missed capture (captured stones were left on the board)"; break;
        case RENDER_V_MOVED_STONE: what = "seeded violation: moved stone (a stone was pushed to a neighbouring point)"; break;
        case RENDER_V_KO_RETAKE: what = "seeded violation: immediate ko retake (taken back at once)"; break;
        default: break;
        }
        st = sgf_add_event(nodes[at], render_violation_code(v[i].type), pt, what, err);
    }
    if (st == GS_OK) st = sgf_save(t, path, err);
    free(nodes);
    sgf_tree_destroy(t);
    return st;
}

int cmd_render(int argc, char **argv)
{
    const char *game_path = NULL, *out = NULL;
    long seed = 1, w = 1280, h = 720, moves_limit = -1, frames_limit = -1, hover = 20, rest = 10;
    double fps = 30, pace = 1;
    unsigned violations = 0;
    /* overrides, applied after the seed's draw */
    struct { const char *name; double lo, hi; double val; bool set; } num[] = {
        {"--tilt", 0, 75, 0, 0}, {"--rotation", -360, 720, 0, 0}, {"--roll", -180, 180, 0, 0},
        {"--fov", 10, 140, 0, 0}, {"--fill", 0.1, 1.5, 0, 0}, {"--distance", 100, 10000, 0, 0},
        {"--k1", -0.5, 0.5, 0, 0}, {"--bump-deg", 0, 10, 0, 0}, {"--line", 0.2, 5, 0, 0},
        {"--margin", 0, 100, 0, 0}, {"--thickness", 0, 300, 0, 0}, {"--grain", 0, 1, 0, 0},
        {"--stone-height", 1, 20, 0, 0}, {"--jitter", 0, 8, 0, 0}, {"--kelvin", 1500, 12000, 0, 0},
        {"--brightness", 0.1, 3, 0, 0}, {"--gradient", 0, 1, 0, 0}, {"--glare", 0, 1, 0, 0},
        {"--flicker", 0, 0.5, 0, 0}, {"--slow", 0, 0.5, 0, 0}, {"--noise", 0, 60, 0, 0},
        {"--blur", 0, 1, 0, 0}, {"--motion-blur", 0, 3, 0, 0}, {"--jpeg", 0, 100, 0, 0},
        {"--drift", -60, 60, 0, 0}, {"--drift-dir", -360, 720, 0, 0},
    };
    enum { N_NUM = sizeof num / sizeof num[0] };
    const char *cells = NULL, *cell_wh = NULL, *bump = NULL, *wood = NULL;
    bool no_stars = false;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a)) { usage(stdout); return GS_EXIT_OK; }
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        bool matched = false;
        for (int k = 0; k < (int)N_NUM; k++) {
            if (strcmp(a, num[k].name)) continue;
            if (!val || cli_parse_double(val, num[k].lo, num[k].hi, &num[k].val)) {
                cli_error("render: %s needs a number in %g..%g", a, num[k].lo, num[k].hi);
                return GS_EXIT_ERROR;
            }
            num[k].set = true;
            matched = true;
            i++;
            break;
        }
        if (matched) continue;
        if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            if (!val) { cli_error("render: %s needs a path", a); return GS_EXIT_ERROR; }
            out = val; i++;
        } else if (!strcmp(a, "--seed")) {
            if (!val || cli_parse_int(val, 0, 2147483647L, &seed)) { cli_error("render: --seed needs a whole number >= 0"); return GS_EXIT_ERROR; }
            i++;
        } else if (!strcmp(a, "--size")) {
            char tail;
            if (!val || sscanf(val, "%ldx%ld%c", &w, &h, &tail) != 2 || w < 64 || h < 48 || w > 7680 || h > 4320) {
                cli_error("render: --size needs WxH between 64x48 and 7680x4320, got '%s'", val ? val : "");
                return GS_EXIT_ERROR;
            }
            i++;
        } else if (!strcmp(a, "--fps")) {
            if (!val || cli_parse_double(val, 1, 240, &fps)) { cli_error("render: --fps needs a number in 1..240"); return GS_EXIT_ERROR; }
            i++;
        } else if (!strcmp(a, "--pace")) {
            if (!val || cli_parse_double(val, 0.05, 50, &pace)) { cli_error("render: --pace needs a number in 0.05..50"); return GS_EXIT_ERROR; }
            i++;
        } else if (!strcmp(a, "--moves")) {
            if (!val || cli_parse_int(val, 0, 100000, &moves_limit)) { cli_error("render: --moves needs a whole number >= 0"); return GS_EXIT_ERROR; }
            i++;
        } else if (!strcmp(a, "--frames")) {
            if (!val || cli_parse_int(val, 1, 10000000, &frames_limit)) { cli_error("render: --frames needs a whole number >= 1"); return GS_EXIT_ERROR; }
            i++;
        } else if (!strcmp(a, "--hover") || !strcmp(a, "--rest")) {
            long *dst = !strcmp(a, "--hover") ? &hover : &rest;
            if (!val || cli_parse_int(val, 0, 100, dst)) { cli_error("render: %s needs a percentage 0..100", a); return GS_EXIT_ERROR; }
            i++;
        } else if (!strcmp(a, "--violate")) {
            if (!val) { cli_error("render: --violate needs a list"); return GS_EXIT_ERROR; }
            char buf[256];
            snprintf(buf, sizeof buf, "%s", val);
            for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
                render_violation_type t;
                if (!render_violation_parse(tok, &t)) {
                    cli_error("render: unknown violation '%s' (double_move, wrong_capture, missed_capture, moved_stone, ko)", tok);
                    return GS_EXIT_ERROR;
                }
                violations |= 1u << t;
            }
            i++;
        } else if (!strcmp(a, "--cells")) {
            if (!val) { cli_error("render: --cells needs jp, cn or sq"); return GS_EXIT_ERROR; }
            cells = val; i++;
        } else if (!strcmp(a, "--cell")) {
            if (!val) { cli_error("render: --cell needs WxH in mm"); return GS_EXIT_ERROR; }
            cell_wh = val; i++;
        } else if (!strcmp(a, "--bump")) {
            if (!val) { cli_error("render: --bump needs a time in ms or 'none'"); return GS_EXIT_ERROR; }
            bump = val; i++;
        } else if (!strcmp(a, "--wood")) {
            if (!val) { cli_error("render: --wood needs B,G,R"); return GS_EXIT_ERROR; }
            wood = val; i++;
        } else if (!strcmp(a, "--no-stars")) {
            no_stars = true;
        } else if (a[0] == '-' && a[1]) {
            cli_error("render: unknown option '%s' (try goscribe render --help)", a);
            return GS_EXIT_ERROR;
        } else if (!game_path) {
            game_path = a;
        } else {
            cli_error("render: more than one game given ('%s')", a);
            return GS_EXIT_ERROR;
        }
    }
    if (!game_path) { cli_error("render: no GAME.sgf given (try goscribe render --help)"); return GS_EXIT_ERROR; }
    if (!out) { cli_error("render: no output given (-o OUT.mp4 or -o DIR)"); return GS_EXIT_ERROR; }

    gs_error err = {0};
    sgf_game game;
    memset(&game, 0, sizeof game);
    gs_status st = sgf_game_load(game_path, &game, &err);
    if (st != GS_OK) {
        cli_error("%s: %s", game_path, err.msg);
        sgf_game_free(&game);
        return gs_status_exit_code(st);
    }
    int size = game.info.size;
    if (size < 5 || size > GS_MAX_SIZE) {
        cli_error("%s: board size %d cannot be rendered (5..%d)", game_path, size, GS_MAX_SIZE);
        sgf_game_free(&game);
        return GS_EXIT_NOBOARD;
    }

    render_params p;
    render_params_from_seed(&p, (uint64_t)seed, size, (int)w, (int)h);
    double *fields[] = {&p.tilt_deg, &p.rotation_deg, &p.roll_deg, &p.fov_deg, &p.fill, &p.distance_mm,
                        &p.k1, &p.bump_deg, &p.line_mm, &p.margin_mm, &p.thickness_mm, &p.grain,
                        &p.stone_h_mm, &p.jitter_mm, &p.kelvin, &p.brightness, &p.gradient, &p.glare,
                        &p.flicker, &p.slow_amp, &p.noise, NULL, &p.motion_blur, NULL,
                        &p.drift_deg_min, &p.drift_dir_deg};
    for (int k = 0; k < (int)N_NUM; k++) {
        if (!num[k].set) continue;
        if (fields[k]) *fields[k] = num[k].val;
        else if (!strcmp(num[k].name, "--blur")) p.blur = num[k].val >= 0.5;
        else if (!strcmp(num[k].name, "--jpeg")) p.jpeg_quality = (int)num[k].val;
    }
    int rc = GS_EXIT_ERROR;
    if (cells && !render_params_cells(&p, cells)) { cli_error("render: --cells must be jp, cn or sq"); goto done_game; }
    if (cell_wh) {
        double cw, ch;
        char tail;
        if (sscanf(cell_wh, "%lfx%lf%c", &cw, &ch, &tail) != 2 || cw < 10 || cw > 60 || ch < 10 || ch > 60) {
            cli_error("render: --cell needs WxH in mm, each 10..60");
            goto done_game;
        }
        p.cell_w_mm = cw;
        p.cell_h_mm = ch;
    }
    if (bump) {
        double b;
        if (!strcmp(bump, "none")) p.bump_ms = -1;
        else if (!cli_parse_double(bump, 0, 1e9, &b)) p.bump_ms = b;
        else { cli_error("render: --bump needs a time in ms or 'none'"); goto done_game; }
    }
    if (wood && parse_bgr(wood, p.wood_bgr)) { cli_error("render: --wood needs B,G,R each 0..255"); goto done_game; }
    if (no_stars) p.star_points = 0;

    int nmoves = (int)game.move_count;
    if (nmoves == 0) {
        cli_error("%s: the game has no moves to render", game_path);
        rc = GS_EXIT_NOBOARD;
        goto done_game;
    }
    if (moves_limit >= 0 && moves_limit < nmoves) nmoves = (int)moves_limit;
    gs_move *mv = calloc((size_t)nmoves + 1, sizeof *mv);
    if (!mv) { cli_error("render: out of memory"); goto done_game; }
    for (int i = 0; i < nmoves; i++) {
        mv[i].color = game.moves[i].color;
        mv[i].pt = game.moves[i].pt;
        mv[i].pass = game.moves[i].pass;
    }

    render_scene *scene = NULL;
    render_script *sc = NULL;
    cvshim_writer *vw = NULL;
    FILE *tf = NULL;
    gs_image *frame = NULL;
    bool video = has_video_ext(out);
    char path[4096];

    scene = render_scene_create(&p, &err);
    if (!scene) { cli_error("render: %s", err.msg); goto done; }
    render_script_options so;
    render_script_options_init(&so, (uint64_t)seed);
    render_script_options_geometry(&so, &p);
    so.pace = pace;
    so.hover_pct = (int)hover;
    so.rest_pct = (int)rest;
    so.violations = violations;
    if (gs_position_count(&game.setup, GS_BLACK) + gs_position_count(&game.setup, GS_WHITE) > 0) so.setup = game.setup;
    sc = render_script_create(size, mv, nmoves, &so, &err);
    if (!sc) { cli_error("%s: %s", game_path, err.msg); goto done; }
    const render_violation *vl;
    int nvl = render_script_violations(sc, &vl);
    for (int t = 0; t < RENDER_V_COUNT_; t++) {
        if (!(violations & (1u << t))) continue;
        bool placed = false;
        for (int i = 0; i < nvl; i++) placed = placed || vl[i].type == (render_violation_type)t;
        if (!placed)
            fprintf(stderr, "goscribe: render: warning: no place for a %s in the moves rendered; left out\n",
                    render_violation_code((render_violation_type)t));
    }

    if (video) {
        /* find an unwritable path ourselves: one clear line, before the
         * video library prints its own attempts */
        FILE *probe = fopen(out, "wb");
        if (!probe) { cli_error("%s: %s", out, strerror(errno)); goto done; }
        fclose(probe);
        setenv("OPENCV_LOG_LEVEL", "ERROR", 0);
        setenv("OPENCV_FFMPEG_LOGLEVEL", "-8", 0);
        char msg[256];
        vw = cvshim_writer_open(out, (int)w, (int)h, fps, msg, sizeof msg);
        if (!vw) { cli_error("%s: %s", out, msg); goto done; }
    } else {
        struct stat sb;
        if (stat(out, &sb) == 0) {
            if (!S_ISDIR(sb.st_mode)) { cli_error("%s: exists and is not a directory (use .mp4/.avi for a video)", out); goto done; }
        } else if (mkdir(out, 0755) != 0) {
            cli_error("%s: cannot create directory: %s", out, strerror(errno));
            goto done;
        }
    }
    side_path(path, sizeof path, out, video, ".truth.jsonl", "truth.jsonl");
    tf = fopen(path, "w");
    if (!tf) { cli_error("%s: %s", path, strerror(errno)); goto done; }
    frame = gs_image_create((int)w, (int)h, 3);
    if (!frame) { cli_error("render: out of memory"); goto done; }

    long nframes = (long)ceil(render_script_duration_ms(sc) * fps / 1000.0);
    if (frames_limit > 0 && frames_limit < nframes) nframes = frames_limit;
    render_state rs;
    for (long f = 0; f < nframes; f++) {
        double t = f * 1000.0 / fps;
        render_script_state(sc, t, &rs);
        rs.frame = (int)f;
        if (render_frame(scene, &rs, frame, &err) != GS_OK) { cli_error("render: %s", err.msg); goto done; }
        if (video) {
            if (cvshim_writer_write(vw, frame) != 0) { cli_error("%s: cannot write frame %ld", out, f); goto done; }
        } else {
            char fp[4200];
            snprintf(fp, sizeof fp, "%s/frame_%06ld.png", out, f);
            if (gs_image_write_png(frame, fp, &err) != GS_OK) { cli_error("%s", err.msg); goto done; }
        }
        if (render_truth_line(tf, (int)f, scene, sc, &rs, &err) != GS_OK) { cli_error("%s", err.msg); goto done; }
    }
    if (fclose(tf) != 0) { tf = NULL; cli_error("writing the truth: %s", strerror(errno)); goto done; }
    tf = NULL;
    if (vw) {
        int cr = cvshim_writer_close(vw);
        vw = NULL;
        if (cr != 0) { cli_error("%s: cannot finish the video", out); goto done; }
    }
    side_path(path, sizeof path, out, video, ".truth.sgf", "truth.sgf");
    if (write_truth_sgf(path, &game, sc, (uint64_t)seed, &err) != GS_OK) { cli_error("%s: %s", path, err.msg); goto done; }
    calib_data cal;
    calib_init(&cal);
    cal.image_width = (int)w;
    cal.image_height = (int)h;
    render_grid(scene, 0, &cal.grid);
    side_path(path, sizeof path, out, video, ".truth.cal", "truth.cal");
    if (calib_save(&cal, path, &err) != GS_OK) { cli_error("%s: %s", path, err.msg); goto done; }
    printf("rendered %ld frames (%.1f s at %g fps, %dx%d board, %d moves, %d violations) to %s\n", nframes,
           nframes / fps, fps, size, size, nmoves, nvl, out);
    rc = GS_EXIT_OK;
done:
    if (tf) fclose(tf);
    if (vw) cvshim_writer_close(vw);
    gs_image_destroy(frame);
    render_script_destroy(sc);
    render_scene_destroy(scene);
    free(mv);
done_game:
    sgf_game_free(&game);
    return rc;
}
