/* score/count.c: the count of a finished board (score.h, score_count_*):
 * a photo, an SGF or a grid file in; the dead stones (estimated, none,
 * from the SGF's marks or the players' list); the area count under the
 * Chinese rules; the count written as SGF and drawn over the photo. */
#include "score/score.h"

#include "cvshim/cvshim.h"
#include "rules/rules.h"
#include "sgf/sgf.h"
#include "vision/vision.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void score_count_options_init(score_count_options *o)
{
    memset(o, 0, sizeof *o);
    o->dead = SCORE_COUNT_DEAD_DEFAULT;
    o->handicap = -1;
}

const char *score_count_dead_name(score_count_dead d)
{
    switch (d) {
    case SCORE_COUNT_DEAD_AUTO: return "auto";
    case SCORE_COUNT_DEAD_NONE: return "none";
    case SCORE_COUNT_DEAD_MARKS: return "marks";
    case SCORE_COUNT_DEAD_POINTS: return "points";
    case SCORE_COUNT_DEAD_DEFAULT: return "default";
    }
    return "?";
}

/* ---------------------------------------------------------- in words */

/* ---------------------------------------------------------------- input */

/* The first illegal move of a file, named with its line: the count of a
 * position no legal play reaches would be a guess. */
static gs_status illegal_move_error(const char *path, const rules_replay_issue *is, gs_error *err)
{
    sgf_game g;
    int line = 0;
    gs_error e;
    if (sgf_game_load(path, &g, &e) == GS_OK && is->move_number >= 1 && (size_t)is->move_number <= g.move_count)
        line = g.move_info[is->move_number - 1].line;
    sgf_game_free(&g);
    char pt[3];
    sgf_point_format(is->move.pt, pt);
    return gs_error_set(err, GS_ERR_FORMAT,
                        "line %d: move %d %s[%s] is illegal (%s; `goscribe check` lists every illegal move)", line,
                        is->move_number, is->move.color == GS_BLACK ? "B" : "W", is->move.pass ? "" : pt,
                        rules_legality_name(is->why));
}

gs_status score_count_load_sgf(const char *path, score_count_sgf *out, gs_error *err)
{
    memset(out, 0, sizeof *out);
    score_check_result *r = malloc(sizeof *r);
    if (!r) return gs_error_set(err, GS_ERR_NOMEM, "count: out of memory");
    gs_status st = score_check_file(path, NULL, r, err);
    if (st == GS_OK && r->report.nillegal > 0) st = illegal_move_error(path, &r->report.illegal[0], err);
    if (st == GS_OK) {
        out->pos = r->report.final_position;
        out->komi = r->komi;
        out->has_komi = true;
        out->handicap = r->handicap;
        snprintf(out->result, sizeof out->result, "%s", r->recorded_result);
        out->has_marks = r->report.dead_from_marks;
        memcpy(out->marks_dead, r->dead, sizeof out->marks_dead);
        out->nwarnings = r->nwarnings;
        memcpy(out->warnings, r->warnings, sizeof out->warnings);
        out->warnings_black = r->warnings_black;
        out->warnings_white = r->warnings_white;
    }
    free(r);
    return st;
}

static bool has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcasecmp(s + a - b, suf);
}

/* What the reading of the input leaves for the later stages. */
typedef struct count_input {
    score_count_sgf *sgf;     /* an SGF input: what the file says */
    gs_image *img;             /* a photo input: the photo (for the overlay) */
    vision_result *scan;       /* ... and its reading (the grid) */
    double komi;               /* the komi to count with (points) */
} count_input;

static void count_input_free(count_input *in)
{
    free(in->sgf);
    gs_image_destroy(in->img);
    free(in->scan);
}

static gs_status nomem(gs_error *err) { return gs_error_set(err, GS_ERR_NOMEM, "count: out of memory"); }

/* The photo: loaded, its board found and read into out->pos. */
static gs_status read_photo(const score_count_options *o, count_input *in, score_count_result *out, gs_error *err)
{
    in->img = cvshim_image_load_max(o->input, o->max_pixels, err);
    if (!in->img) return err ? err->status : GS_ERR_IO;
    in->scan = calloc(1, sizeof *in->scan);
    vision_detector *d = vision_detector_create(NULL);
    if (!in->scan || !d) {
        vision_detector_destroy(d);
        return nomem(err);
    }
    vision_request rq = {.size_hint = o->size_hint};
    gs_status st = vision_detect_photo(d, in->img, &rq, in->scan, err);
    vision_detector_destroy(d);
    out->error_file = o->input;
    if (st == GS_OK) {
        out->pos = in->scan->reading.pos;
        memcpy(out->read_unsure, in->scan->reading.unsure, sizeof out->read_unsure);
        out->read_uncertain = in->scan->reading.uncertain;
    }
    return st;
}

/* The board of o->input (an SGF, a grid file or a photo, by suffix) into
 * out->pos; the komi and handicap to count with (the options', else the
 * SGF's) into in->komi and out->handicap. */
/* out->error_file names the input for the messages about it; the photo
 * loader's and the usage messages stand alone. */
static gs_status read_input(const score_count_options *o, count_input *in, score_count_result *out,
                            gs_error *err)
{
    gs_status st;
    double file_komi = RULES_DEFAULT_KOMI;
    bool file_has_komi = false;
    int file_handicap = 0;
    if (has_suffix(o->input, ".sgf")) {
        out->source = "sgf";
        if (!(in->sgf = calloc(1, sizeof *in->sgf))) return nomem(err);
        out->error_file = o->input;
        st = score_count_load_sgf(o->input, in->sgf, err);
        if (st != GS_OK) return st;
        out->pos = in->sgf->pos;
        file_komi = in->sgf->komi;
        file_has_komi = in->sgf->has_komi;
        file_handicap = in->sgf->handicap;
        snprintf(out->file_result, sizeof out->file_result, "%s", in->sgf->result);
    } else if (has_suffix(o->input, ".txt")) {
        out->source = "grid";
        out->error_file = o->input;
        st = gs_position_load(&out->pos, o->input, err);
        if (st != GS_OK) return st;
    } else {
        out->source = "photo";
        st = read_photo(o, in, out, err);
        if (st != GS_OK) return st;
        out->read_black = gs_position_count(&out->pos, GS_BLACK);
        out->read_white = gs_position_count(&out->pos, GS_WHITE);
    }
    out->error_file = o->input;
    if (out->pos.size < RULES_MIN_SIZE || out->pos.size > RULES_MAX_SIZE)
        return gs_error_set(err, GS_ERR_NOBOARD, "board size %d cannot be counted", out->pos.size);
    out->error_file = NULL;
    if (o->overlay_path && !in->img)
        return gs_error_set(err, GS_ERR_USAGE, "count: --overlay needs a photo as input (%s is not one)", o->input);
    out->handicap = o->handicap >= 0 ? o->handicap : file_handicap;
    in->komi = o->has_komi ? o->komi : file_has_komi ? file_komi : out->handicap > 0 ? 0 : RULES_DEFAULT_KOMI;
    return GS_OK;
}

/* ------------------------------------------------------------ dead points */

/* Parses "pd,qd" / "Q16,D4" (commas or spaces); marks the whole chain of
 * each named stone in dead. */
static gs_status parse_dead_points(const char *list, const gs_position *pos, uint8_t *dead, gs_error *err)
{
    int size = pos->size;
    char *copy = strdup(list);
    if (!copy) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    gs_status st = GS_OK;
    char *save = NULL;
    for (char *tok = strtok_r(copy, ", \t", &save); tok && st == GS_OK; tok = strtok_r(NULL, ", \t", &save)) {
        gs_point p;
        bool pass = false, ok;
        if (strlen(tok) == 2 && islower((unsigned char)tok[0]) && islower((unsigned char)tok[1]))
            ok = sgf_point_parse(tok, 2, size, &p, &pass);
        else
            ok = rules_point_parse_human(tok, size, &p, &pass);
        if (!ok || pass) {
            st = gs_error_set(err, GS_ERR_USAGE, "--dead: '%s' is not a point of a %dx%d board", tok, size, size);
            break;
        }
        gs_color c = gs_position_get(pos, p.x, p.y);
        if (c == GS_EMPTY) {
            st = gs_error_set(err, GS_ERR_USAGE, "--dead: no stone at %s", tok);
            break;
        }
        /* flood the chain */
        int stack[RULES_MAX_POINTS], sp = 0, start = p.y * size + p.x;
        dead[start] = 1;
        stack[sp++] = start;
        while (sp) {
            int q = stack[--sp], x = q % size, y = q / size;
            int nb[4] = {x > 0 ? q - 1 : -1, x < size - 1 ? q + 1 : -1, y > 0 ? q - size : -1,
                         y < size - 1 ? q + size : -1};
            for (int k = 0; k < 4; k++)
                if (nb[k] >= 0 && !dead[nb[k]] && pos->cell[nb[k]] == c) {
                    dead[nb[k]] = 1;
                    stack[sp++] = nb[k];
                }
        }
    }
    free(copy);
    return st;
}

/* The range of the count over the readings its doubt allows (a photo's
 * points read with doubt, the estimate's unsettled chains:
 * score_count_range_run); eo: the estimate's options, NULL without one. */
static gs_status count_range(const score_count_options *o, const count_input *in, const rules_count_opts *co,
                             const rules_estimate_options *eo, score_count_result *out, gs_error *err)
{
    score_range_input ri = {.pos = &out->pos, .dead = out->dead, .est = out->estimate ? &out->est : NULL, .eo = eo,
                             .count = *co};
    uint8_t doubt[RULES_MAX_POINTS] = {0};
    if (in->scan && out->read_uncertain) {
        const vision_reading *rd = &in->scan->reading;
        for (int i = 0; i < out->pos.size * out->pos.size; i++)
            doubt[i] = out->read_unsure[i] && rd->second_p[i] >= o->plausible;
        ri.doubt = doubt;
        ri.second = rd->second;
    }
    return score_count_range_run(&ri, &out->range, err);
}

gs_status score_count_estimate(const gs_position *pos, const rules_estimate_options *eo,
                                const rules_count_opts *co, rules_estimate_result *est, rules_count *cnt,
                                gs_error *err)
{
    gs_status st = rules_estimate_dead(pos, eo, est, err);
    if (st == GS_OK) st = rules_count_position(pos, est->dead, co, cnt, err);
    return st;
}

/* The dead stones o->dead asks for, then the count with them removed. */
static gs_status dead_and_count(const score_count_options *o, const count_input *in, score_count_result *out,
                                gs_error *err)
{
    rules_count_opts co;
    rules_count_opts_init(&co);
    co.komi = in->komi;
    co.handicap = out->handicap;
    if (in->sgf) { /* the file's warnings count, as in check */
        co.warnings_black = in->sgf->warnings_black;
        co.warnings_white = in->sgf->warnings_white;
        out->nwarnings = in->sgf->nwarnings;
        memcpy(out->warnings, in->sgf->warnings, sizeof out->warnings);
    }
    out->error_file = o->input;
    out->dead_used = o->dead;
    if (o->dead == SCORE_COUNT_DEAD_DEFAULT) {
        /* a file that records a counted result is counted as `check`
         * counts it: its marks, or (none) every stone alive */
        double margin;
        bool counted = in->sgf && rules_parse_result_points(in->sgf->result, &margin);
        out->dead_used = in->sgf && in->sgf->has_marks ? SCORE_COUNT_DEAD_MARKS
                         : counted                     ? SCORE_COUNT_DEAD_NONE
                                                       : SCORE_COUNT_DEAD_AUTO;
    }
    switch (out->dead_used) {
    case SCORE_COUNT_DEAD_DEFAULT: /* (resolved above) */
    case SCORE_COUNT_DEAD_NONE:
        break;
    case SCORE_COUNT_DEAD_MARKS:
        if (!in->sgf || !in->sgf->has_marks)
            return gs_error_set(err, GS_ERR_USAGE, "--dead marks needs an SGF whose last node has TB/TW marks");
        memcpy(out->dead, in->sgf->marks_dead, sizeof out->dead);
        break;
    case SCORE_COUNT_DEAD_POINTS: {
        gs_status st = parse_dead_points(o->dead_points ? o->dead_points : "", &out->pos, out->dead, err);
        if (st != GS_OK) return st;
        break;
    }
    case SCORE_COUNT_DEAD_AUTO: {
        rules_estimate_options eo;
        rules_estimate_default_options(&eo);
        if (o->playouts > 0) {
            eo.playouts = o->playouts;
            eo.time_budget_ms = -1; /* an explicit number of playouts is run in full */
        }
        if (o->seed) eo.seed = o->seed;
        gs_status st = score_count_estimate(&out->pos, &eo, &co, &out->est, &out->count, err);
        if (st != GS_OK) return st;
        out->estimate = true;
        int n = out->pos.size * out->pos.size;
        for (int i = 0; i < n; i++) {
            out->dead[i] = out->est.dead[i];
            out->seki[i] = out->est.status[i] == RULES_ESTIMATE_SEKI;
        }
        return count_range(o, in, &co, &eo, out, err);
    }
    }
    gs_status st = rules_count_position(&out->pos, out->dead, &co, &out->count, err);
    if (st == GS_OK) st = count_range(o, in, &co, NULL, out, err);
    return st;
}

/* -------------------------------------------------------------- overlay */

/* One point of the overlay: the owner's square where no living stone
 * stands, a small square on dame, a red cross on a dead stone, a ring on
 * seki, every stone read drawn in its colour (vision_draw_stone: a misread
 * stone shows at once) and a red square around a point read with doubt. */
static void draw_point(gs_image *img, const score_count_result *r, int i, double px, double py, double pitch)
{
    static const gs_bgr black = {20, 20, 20}, white = {245, 245, 245}, red = {0, 0, 255}, grey = {160, 120, 40},
                        seki = {0, 200, 255};
    gs_color stone = (gs_color)r->pos.cell[i];
    gs_color own = (gs_color)r->count.owner.cell[i];
    bool dead = r->dead[i] != 0;
    if (stone == GS_EMPTY || dead) {
        if (own == GS_BLACK) gs_draw_square(img, px, py, pitch * 0.22, black, 0.85);
        else if (own == GS_WHITE) gs_draw_square(img, px, py, pitch * 0.22, white, 0.85);
        else if (stone == GS_EMPTY) gs_draw_square(img, px, py, pitch * 0.08, grey, 0.9);
    }
    if (stone != GS_EMPTY && !dead) vision_draw_stone(img, px, py, pitch, stone);
    if (dead) {
        double h = pitch * 0.3;
        gs_draw_line(img, px - h, py - h, px + h, py + h, fmax(2, pitch * 0.08), red);
        gs_draw_line(img, px - h, py + h, px + h, py - h, fmax(2, pitch * 0.08), red);
    } else if (r->seki[i]) {
        gs_draw_ring(img, px, py, pitch * 0.35, fmax(2, pitch * 0.06), seki);
    }
    if (r->read_unsure[i]) gs_draw_box(img, px, py, pitch * 0.45, fmax(2, pitch * 0.06), red);
}

#define LEGEND_ROWS 9

static int legend_scale(const gs_image *img) { return img->width >= 1600 ? 3 : img->width >= 800 ? 2 : 1; }

/* The legend in a band below the photo (legend_band_height): what each
 * mark means, and the stones read; it covers no point of the board. */
static void draw_legend(gs_image *img, int band_top, const score_count_result *r)
{
    static const gs_bgr black = {20, 20, 20}, white = {245, 245, 245}, red = {0, 0, 255}, grey = {160, 120, 40},
                        seki = {0, 200, 255};
    int s = legend_scale(img), line = 10 * s, x0 = 4 * s, y0 = band_top + 4 * s;
    char read[64];
    snprintf(read, sizeof read, "READ: %d BLACK, %d WHITE STONES", r->read_black, r->read_white);
    const char *rows[LEGEND_ROWS] = {"BLACK AREA", "WHITE AREA", "DAME", "DEAD STONE", "SEKI", "BLACK STONE",
                                     "WHITE STONE", "READ WITH DOUBT (CHECK IT)", read};
    for (int k = 0; k < LEGEND_ROWS; k++) {
        double cx = x0 + 6 * s, cy = y0 + 2 * s + k * line + 4 * s;
        switch (k) {
        case 0: gs_draw_square(img, cx, cy, 3 * s, black, 1); break;
        case 1: gs_draw_square(img, cx, cy, 3 * s, white, 1); gs_draw_box(img, cx, cy, 3 * s, 1, black); break;
        case 2: gs_draw_square(img, cx, cy, 1.5 * s, grey, 1); break;
        case 3:
            gs_draw_line(img, cx - 3 * s, cy - 3 * s, cx + 3 * s, cy + 3 * s, s, red);
            gs_draw_line(img, cx - 3 * s, cy + 3 * s, cx + 3 * s, cy - 3 * s, s, red);
            break;
        case 4: gs_draw_ring(img, cx, cy, 3 * s, s, seki); break;
        case 5: vision_draw_stone(img, cx, cy, 9 * s, GS_BLACK); break;
        case 6: vision_draw_stone(img, cx, cy, 9 * s, GS_WHITE); break;
        case 7: gs_draw_box(img, cx, cy, 3.5 * s, s, red); break;
        default: break;
        }
        gs_draw_text(img, x0 + 12 * s, cy - 3.5 * s, s, rows[k], black);
    }
}

/* The photo with each point's marks (draw_point), the coordinates around
 * the grid, and below it a band of light paper holding the legend (a new
 * image; NULL when out of memory). */
static gs_image *draw_overlay(const gs_image *photo, const vision_result *scan, const score_count_result *r)
{
    int s = legend_scale(photo), band = LEGEND_ROWS * 10 * s + 12 * s;
    gs_image *img = gs_image_create(photo->width, photo->height + band, photo->channels);
    if (!img) return NULL;
    size_t row = (size_t)photo->width * (size_t)photo->channels;
    for (int y = 0; y < img->height; y++) {
        uint8_t *d = img->buf + (size_t)y * (size_t)img->stride;
        if (y < photo->height) memcpy(d, photo->buf + (size_t)y * (size_t)photo->stride, row);
        else memset(d, 235, row);
    }
    const vision_grid *g = &scan->grid;
    int size = r->pos.size;
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++) {
            double px, py, qx, qy;
            vision_grid_map(g, x, y, &px, &py);
            vision_grid_map(g, x + 1, y, &qx, &qy);
            draw_point(img, r, y * size + x, px, py, hypot(qx - px, qy - py));
        }
    vision_draw_coords(img, g, vision_grid_cell(g));
    draw_legend(img, photo->height, r);
    return img;
}

/* ------------------------------------------------------------------ sgf */

void score_count_marks(const gs_position *pos, const uint8_t *dead, const rules_count *c, gs_position *marks)
{
    gs_position_clear(marks, pos->size);
    for (int i = 0; i < pos->size * pos->size; i++) {
        bool is_dead = dead && dead[i] && pos->cell[i] != GS_EMPTY;
        if (pos->cell[i] != GS_EMPTY && !is_dead) continue; /* a living stone: no mark */
        marks->cell[i] = c->owner.cell[i];
        /* a dead stone on a dame point still needs its mark, or a reader
         * would take it for alive */
        if (is_dead && marks->cell[i] == GS_EMPTY) marks->cell[i] = (uint8_t)gs_color_other((gs_color)pos->cell[i]);
    }
}

/* The position (AB/AW) with the count: TB/TW, KM, RE and the count in
 * words as the root's comment. */
static gs_status write_sgf(const char *path, const score_count_result *r, gs_error *err)
{
    sgf_game_info info;
    sgf_game_info_init(&info);
    info.size = r->pos.size;
    info.komi = r->count.komi;
    info.has_komi = true;
    info.handicap = r->handicap;
    snprintf(info.rules, sizeof info.rules, "Chinese");
    snprintf(info.result, sizeof info.result, "%s", r->count.sgf);
    sgf_node *root = NULL;
    sgf_tree *t = sgf_new_game(&info, &r->pos, &root, err);
    if (!t) return err ? err->status : GS_ERR_NOMEM;
    gs_position terr;
    score_count_marks(&r->pos, r->dead, &r->count, &terr);
    char words[600];
    int nw = r->nwarnings < SCORE_MAX_WARNINGS ? r->nwarnings : SCORE_MAX_WARNINGS;
    score_count_words(&r->count, r->handicap, r->warnings, nw, r->estimate, words, sizeof words);
    gs_status st = GS_OK;
    /* the warnings the count took, so that `check` of this file takes them */
    int wb = 0, ww = 0;
    for (int i = 0; i < nw && st == GS_OK; i++) {
        wb += r->warnings[i].color == GS_BLACK;
        ww += r->warnings[i].color == GS_WHITE;
        st = sgf_add_ruling(root, r->warnings[i].ruling, r->warnings[i].color, wb, ww, r->warnings[i].unix_ms, NULL,
                            err);
    }
    if (st == GS_OK) st = sgf_set_final_count(root, &terr, words, r->count.sgf, err);
    if (st == GS_OK) st = sgf_save(t, path, err);
    sgf_tree_destroy(t);
    return st;
}

/* ------------------------------------------------------------------ run */

gs_status score_count_run(const score_count_options *o, score_count_result *out, gs_error *err)
{
    memset(out, 0, sizeof *out);
    if (!o || !o->input) return gs_error_set(err, GS_ERR_USAGE, "count: no input given");
    double t0 = gs_now_ms();
    count_input in = {0};
    gs_status st = read_input(o, &in, out, err);
    if (st == GS_OK) st = dead_and_count(o, &in, out, err);
    if (st == GS_OK) {
        out->ms = gs_now_ms() - t0;
        out->error_file = NULL;
        out->looks_finished = score_count_looks_finished(&out->count, out->estimate ? &out->est : NULL,
                                                          out->not_finished, sizeof out->not_finished);
    }
    if (st == GS_OK && o->overlay_path) {
        gs_image *ov = draw_overlay(in.img, in.scan, out);
        st = ov ? gs_image_write_png(ov, o->overlay_path, err) : gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        gs_image_destroy(ov);
    }
    if (st == GS_OK && o->sgf_path) {
        st = write_sgf(o->sgf_path, out, err);
        if (st != GS_OK) out->error_file = o->sgf_path;
    }
    count_input_free(&in);
    return st;
}
