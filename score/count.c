/* score/count.c: the count of a finished board (score.h, score_count_*):
 * a photo, an SGF, a grid file or scan's JSON in; the dead stones
 * (estimated, none, from the SGF's marks or the players' list); the area
 * count under the Chinese rules and its range over the doubt; then the
 * count drawn (count_draw.c) and written as SGF (count_sgf.c). */
#include "score/score_internal.h"

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
    o->plausible = SCORE_PLAUSIBLE;
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

/* The reading of a photo into out: the board, its doubt, each doubtful
 * point's next likeliest colour, and the doubtful points --plausible
 * leaves out of the range. */
static void take_reading(const vision_result *scan, const score_count_options *o, score_count_result *out)
{
    const vision_reading *rd = &scan->reading;
    out->source = "photo";
    out->pos = rd->pos;
    out->read_uncertain = rd->uncertain;
    int n = rd->pos.size * rd->pos.size;
    for (int i = 0; i < n; i++) {
        out->read_unsure[i] = rd->unsure[i] != 0;
        out->read_second[i] = rd->second[i] == VISION_SECOND_ANY ? SCORE_SECOND_ANY : rd->second[i];
    }
    score_count_leave_out(out, rd->second_p, o->plausible);
    out->read_black = gs_position_count(&out->pos, GS_BLACK);
    out->read_white = gs_position_count(&out->pos, GS_WHITE);
}

/* The grid of a photo given by its corners (checked as `scan --corners`
 * checks them: a quad no camera gives is refused). */
static gs_status corners_grid(const score_count_options *o, const gs_image *img, vision_grid *g, gs_error *err)
{
    int size = o->size_hint ? o->size_hint : 19;
    gs_error e;
    if (vision_grid_from_corners(g, size, (const double(*)[2])o->corners, &e) != GS_OK)
        return gs_error_set(err, GS_ERR_USAGE, "--corners: %s", e.msg);
    for (int k = 0; k < 4; k++)
        if (o->corners[k][0] < 0 || o->corners[k][1] < 0 || o->corners[k][0] > img->width - 1 ||
            o->corners[k][1] > img->height - 1)
            return gs_error_set(err, GS_ERR_USAGE, "--corners: corner %d (%.0f, %.0f) lies outside the %dx%d photo",
                                k + 1, o->corners[k][0], o->corners[k][1], img->width, img->height);
    return GS_OK;
}

/* The photo: loaded, its board found (or its corners taken) and read. */
static gs_status read_photo(const score_count_options *o, count_input *in, score_count_result *out, gs_error *err)
{
    in->img = cvshim_image_load_max(o->input, o->max_pixels, err);
    if (!in->img) return err ? err->status : GS_ERR_IO;
    in->scan = calloc(1, sizeof *in->scan);
    gs_status st = in->scan ? GS_OK : nomem(err);
    vision_detector *d = st == GS_OK ? vision_detector_open(NULL, o->model_file, err) : NULL;
    if (st == GS_OK && !d) st = err ? err->status : GS_ERR_NOMEM;
    vision_grid given;
    out->error_file = o->input;
    if (st == GS_OK && o->has_corners) st = corners_grid(o, in->img, &given, err);
    vision_request rq = {.size_hint = o->size_hint, .grid = o->has_corners ? &given : NULL};
    if (st == GS_OK) st = vision_detect_photo(d, in->img, &rq, in->scan, err);
    vision_detector_destroy(d);
    if (st == GS_OK) take_reading(in->scan, o, out);
    return st;
}

/* A grid file: `scan`'s text, its '?' marks read as doubt (either other
 * colour next: the text does not say which). */
static gs_status read_grid(const score_count_options *o, score_count_result *out, gs_error *err)
{
    out->source = "grid";
    gs_status st = gs_position_load_marked(&out->pos, out->read_unsure, o->input, err);
    for (int i = 0; st == GS_OK && i < out->pos.size * out->pos.size; i++) {
        out->read_second[i] = SCORE_SECOND_ANY;
        out->read_uncertain += out->read_unsure[i];
    }
    out->read_black = gs_position_count(&out->pos, GS_BLACK);
    out->read_white = gs_position_count(&out->pos, GS_WHITE);
    return st; /* the message names the file */
}

/* One row of `scan --json` ("B . W ..."): size tokens into cells; of
 * "rows" '-' is a point off the photo (among "uncertain"), of "second"
 * '?' is either other colour (SCORE_SECOND_ANY). */
static bool json_row(const gs_json *row, int size, const char *tokens, uint8_t *cells)
{
    if (!row || row->type != GS_JSON_STR) return false;
    int k = 0;
    for (const char *c = row->str; *c; c++) {
        if (*c == ' ') continue;
        if (k == size || !strchr(tokens, *c)) return false;
        cells[k++] = *c == 'B' ? GS_BLACK : *c == 'W' ? GS_WHITE : *c == '?' ? SCORE_SECOND_ANY : GS_EMPTY;
    }
    return k == size;
}

/* "second_p" of a parsed `scan --json` (each point's second colour's
 * probability), when there: the doubtful points --plausible leaves out,
 * as for the photo (take_reading).  Without it none is left out. */
static const char *scan_json_second_p(const gs_json *j, const score_count_options *o, score_count_result *out)
{
    const gs_json *sp = gs_json_get(j, "second_p");
    int size = out->pos.size;
    float second_p[RULES_MAX_POINTS];
    if (!sp) return NULL;
    if (sp->type != GS_JSON_ARR || sp->n != size) return "\"second_p\" is not one array a row";
    for (int y = 0; y < size; y++) {
        const gs_json *row = sp->kids[y];
        if (row->type != GS_JSON_ARR || row->n != size) return "a row of \"second_p\" is not SIZE numbers";
        for (int x = 0; x < size; x++) {
            const gs_json *v = row->kids[x];
            if (v->type != GS_JSON_NUM || !(v->num >= 0 && v->num <= 1)) return "\"second_p\" holds something that is not a probability";
            second_p[y * size + x] = (float)v->num;
        }
    }
    score_count_leave_out(out, second_p, o->plausible);
    return NULL;
}

/* The board of a parsed `scan --json`: rows, "uncertain" and, when there,
 * "second" (each point's next likeliest colour); the first thing wrong. */
static const char *scan_json_board(const gs_json *j, const score_count_options *o, score_count_result *out)
{
    int size = (int)gs_json_get_num(j, "size", 0);
    const gs_json *rows = gs_json_get(j, "rows"), *unc = gs_json_get(j, "uncertain"), *sec = gs_json_get(j, "second");
    if (size < RULES_MIN_SIZE || size > RULES_MAX_SIZE) return "\"size\" is not a board size (5..25)";
    if (!rows || rows->type != GS_JSON_ARR || rows->n != size) return "\"rows\" is not one string a row";
    if (sec && (sec->type != GS_JSON_ARR || sec->n != size)) return "\"second\" is not one string a row";
    gs_position_clear(&out->pos, size);
    uint8_t second[RULES_MAX_POINTS];
    for (int y = 0; y < size; y++) {
        if (!json_row(rows->kids[y], size, ".BW-", out->pos.cell + y * size)) return "a row of \"rows\" is not SIZE tokens . B W";
        if (sec && !json_row(sec->kids[y], size, ".BW?", second + y * size)) return "a row of \"second\" is not SIZE tokens";
    }
    for (int k = 0; unc && k < unc->n; k++) {
        gs_point p;
        bool pass;
        const gs_json *v = unc->kids[k];
        if (v->type != GS_JSON_STR || !sgf_point_parse(v->str, strlen(v->str), size, &p, &pass) || pass)
            return "\"uncertain\" holds something that is not a point of the board";
        int i = p.y * size + p.x;
        out->read_uncertain += !out->read_unsure[i];
        out->read_unsure[i] = 1;
    }
    for (int i = 0; i < size * size; i++)
        out->read_second[i] = sec ? (gs_color)second[i] : SCORE_SECOND_ANY;
    return scan_json_second_p(j, o, out);
}

/* `goscribe scan --json`'s output: the board read, with its doubt. */
static gs_status read_scan_json(const score_count_options *o, score_count_result *out, gs_error *err)
{
    out->source = "scan";
    out->error_file = o->input;
    char *text = NULL;
    size_t len = 0;
    gs_status st = gs_file_read(o->input, 1u << 20, &text, &len, err);
    if (st != GS_OK) {
        out->error_file = NULL; /* the reader names the file */
        return st;
    }
    gs_json *j = gs_json_parse(text, len, err);
    free(text);
    if (!j) return GS_ERR_FORMAT;
    const char *bad = j->type == GS_JSON_OBJ ? scan_json_board(j, o, out) : "not the JSON of `goscribe scan --json`";
    gs_json_free(j);
    if (bad) return gs_error_set(err, GS_ERR_FORMAT, "%s (expected the output of `goscribe scan --json`)", bad);
    out->read_black = gs_position_count(&out->pos, GS_BLACK);
    out->read_white = gs_position_count(&out->pos, GS_WHITE);
    return GS_OK;
}

/* An SGF file: its final position, komi, handicap, result and marks. */
static gs_status read_sgf(const score_count_options *o, count_input *in, score_count_result *out, gs_error *err)
{
    out->source = "sgf";
    if (!(in->sgf = calloc(1, sizeof *in->sgf))) return nomem(err);
    out->error_file = o->input;
    gs_status st = score_count_load_sgf(o->input, in->sgf, err);
    if (st != GS_OK) return st;
    out->pos = in->sgf->pos;
    snprintf(out->file_result, sizeof out->file_result, "%s", in->sgf->result);
    return GS_OK;
}

/* The board of o->input (an SGF, a grid file, scan's JSON or a photo, by
 * suffix) into out->pos, with its doubt.  out->error_file names the input
 * for the messages about it; the loaders that name it themselves and the
 * usage messages stand alone. */
static gs_status read_input(const score_count_options *o, count_input *in, score_count_result *out,
                            gs_error *err)
{
    if (o->has_corners && (has_suffix(o->input, ".sgf") || has_suffix(o->input, ".txt") ||
                           has_suffix(o->input, ".json")))
        return gs_error_set(err, GS_ERR_USAGE, "count: --corners needs a photo as input (%s is not one)", o->input);
    if (has_suffix(o->input, ".sgf")) return read_sgf(o, in, out, err);
    if (has_suffix(o->input, ".txt")) return read_grid(o, out, err);
    if (has_suffix(o->input, ".json")) return read_scan_json(o, out, err);
    return read_photo(o, in, out, err);
}

/* The size checked, the komi and handicap to count with (the options',
 * else the SGF's) into in->komi and out->handicap. */
static gs_status count_setup(const score_count_options *o, count_input *in, score_count_result *out, gs_error *err)
{
    out->error_file = o->input;
    if (out->pos.size < RULES_MIN_SIZE || out->pos.size > RULES_MAX_SIZE)
        return gs_error_set(err, GS_ERR_NOBOARD, "board size %d cannot be counted", out->pos.size);
    out->error_file = NULL;
    const score_count_sgf *f = in->sgf;
    out->handicap = o->handicap >= 0 ? o->handicap : f ? f->handicap : 0;
    in->komi = o->has_komi        ? o->komi
               : f && f->has_komi ? f->komi
               : out->handicap > 0 ? 0
                                   : RULES_DEFAULT_KOMI;
    return GS_OK;
}

/* ------------------------------------------------------------ dead points */

void score_mark_chain(const gs_position *pos, int start, uint8_t *mark, uint8_t v)
{
    int size = pos->size, stack[RULES_MAX_POINTS], sp = 0;
    uint8_t c = pos->cell[start], seen[RULES_MAX_POINTS] = {0};
    seen[start] = 1;
    stack[sp++] = start;
    while (sp) {
        int q = stack[--sp], x = q % size, y = q / size;
        mark[q] = v;
        int nb[4] = {x > 0 ? q - 1 : -1, x < size - 1 ? q + 1 : -1, y > 0 ? q - size : -1,
                     y < size - 1 ? q + size : -1};
        for (int k = 0; k < 4; k++)
            if (nb[k] >= 0 && !seen[nb[k]] && pos->cell[nb[k]] == c) {
                seen[nb[k]] = 1;
                stack[sp++] = nb[k];
            }
    }
}

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
        if (!ok || pass)
            st = gs_error_set(err, GS_ERR_USAGE, "--dead: '%s' is not a point of a %dx%d board", tok, size, size);
        else if (gs_position_get(pos, p.x, p.y) == GS_EMPTY)
            st = gs_error_set(err, GS_ERR_USAGE, "--dead: no stone at %s", tok);
        else
            score_mark_chain(pos, p.y * size + p.x, dead, 1);
    }
    free(copy);
    return st;
}

void score_count_leave_out(score_count_result *r, const float *second_p, double plausible)
{
    r->nleft_out = 0;
    r->plausible = plausible;
    for (int i = 0; i < r->pos.size * r->pos.size; i++) {
        r->left_out[i] = r->read_unsure[i] && second_p[i] < plausible;
        r->nleft_out += r->left_out[i];
    }
}

gs_status score_count_range_of(score_count_result *r, const rules_estimate_options *eo, const rules_count_opts *co,
                               gs_error *err)
{
    score_range_input ri = {.pos = &r->pos, .dead = r->dead, .est = r->estimate ? &r->est : NULL, .eo = eo,
                             .count = *co, .life_given = r->life_given};
    uint8_t doubt[RULES_MAX_POINTS] = {0};
    int nd = 0;
    for (int i = 0; i < r->pos.size * r->pos.size; i++) nd += doubt[i] = r->read_unsure[i] && !r->left_out[i];
    if (nd) {
        ri.doubt = doubt;
        ri.second = r->read_second;
    }
    return score_count_range_run(&ri, &r->range, err);
}

void score_count_finish(score_count_result *r)
{
    r->looks_finished = score_count_looks_finished(&r->pos, &r->count, r->estimate ? &r->est : NULL, r->not_finished,
                                                   sizeof r->not_finished);
    score_count_range *g = &r->range;
    if (r->confirmed) {
        /* someone looked and said the board is so: no reading is left */
        g->low = g->high = g->base;
        snprintf(g->low_sgf, sizeof g->low_sgf, "%s", r->count.sgf);
        snprintf(g->high_sgf, sizeof g->high_sgf, "%s", r->count.sgf);
        g->sure = g->winner_sure = true;
        g->unbounded = false;
        memset(g->check, 0, sizeof g->check);
        memset(g->winner, 0, sizeof g->winner);
        g->ncheck = g->nwinner = 0;
    } else if (!r->looks_finished) {
        /* a game going on may end any way: its count is never sure */
        g->sure = false;
    }
}

gs_status score_count_estimate(const gs_position *pos, const rules_estimate_options *eo,
                                const rules_count_opts *co, rules_estimate_result *est, rules_count *cnt,
                                gs_error *err)
{
    gs_status st = rules_estimate_dead(pos, eo, est, err);
    if (st == GS_OK) st = rules_count_position(pos, est->dead, co, cnt, err);
    return st;
}

/* Where the dead stones come from: the options', DEFAULT resolved (a
 * file that records a counted result is counted as `check` counts it:
 * its marks, or (none) every stone alive). */
static score_count_dead dead_mode(const score_count_options *o, const count_input *in)
{
    if (o->dead != SCORE_COUNT_DEAD_DEFAULT) return o->dead;
    double margin;
    bool counted = in->sgf && rules_parse_result_points(in->sgf->result, &margin);
    return in->sgf && in->sgf->has_marks ? SCORE_COUNT_DEAD_MARKS
           : counted                     ? SCORE_COUNT_DEAD_NONE
                                         : SCORE_COUNT_DEAD_AUTO;
}

/* The estimate (--dead auto) with its count; its options into eo. */
static gs_status estimate_and_count(const score_count_options *o, const rules_count_opts *co,
                                    rules_estimate_options *eo, score_count_result *out, gs_error *err)
{
    rules_estimate_default_options(eo);
    if (o->playouts > 0) {
        eo->playouts = o->playouts;
        eo->time_budget_ms = -1; /* an explicit number of playouts is run in full */
    }
    if (o->seed) eo->seed = o->seed;
    gs_status st = score_count_estimate(&out->pos, eo, co, &out->est, &out->count, err);
    if (st != GS_OK) return st;
    out->estimate = true;
    for (int i = 0; i < out->pos.size * out->pos.size; i++) {
        out->dead[i] = out->est.dead[i];
        out->seki[i] = out->est.status[i] == RULES_ESTIMATE_SEKI;
    }
    return GS_OK;
}

/* The dead stones o->dead asks for, then the count with them removed and
 * its range. */
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
    out->dead_used = dead_mode(o, in);
    gs_status st = GS_OK;
    rules_estimate_options eo;
    if (out->dead_used == SCORE_COUNT_DEAD_MARKS) {
        if (!in->sgf || !in->sgf->has_marks)
            return gs_error_set(err, GS_ERR_USAGE, "--dead marks needs an SGF whose last node has TB/TW marks");
        memcpy(out->dead, in->sgf->marks_dead, sizeof out->dead);
    } else if (out->dead_used == SCORE_COUNT_DEAD_POINTS) {
        st = parse_dead_points(o->dead_points ? o->dead_points : "", &out->pos, out->dead, err);
    }
    if (st == GS_OK && out->dead_used == SCORE_COUNT_DEAD_AUTO) st = estimate_and_count(o, &co, &eo, out, err);
    else if (st == GS_OK) st = rules_count_position(&out->pos, out->dead, &co, &out->count, err);
    if (st == GS_OK) st = score_count_range_of(out, out->estimate ? &eo : NULL, &co, err);
    return st;
}

/* ------------------------------------------------------------------ run */

/* The count of a board read into out (and in): its setup, dead stones,
 * count, range and finish. */
static gs_status count_board(const score_count_options *o, count_input *in, score_count_result *out, gs_error *err)
{
    double t0 = gs_now_ms();
    gs_status st = count_setup(o, in, out, err);
    if (st == GS_OK) st = dead_and_count(o, in, out, err);
    if (st == GS_OK) {
        out->ms += gs_now_ms() - t0;
        out->error_file = NULL;
        score_count_finish(out);
    }
    return st;
}

gs_status score_count_reading(const vision_result *scan, const score_count_options *o, score_count_result *out,
                              gs_error *err)
{
    memset(out, 0, sizeof *out);
    if (!o || !scan) return gs_error_set(err, GS_ERR_USAGE, "count: no reading given");
    take_reading(scan, o, out);
    count_input in = {0};
    gs_status st = count_board(o, &in, out, err);
    count_input_free(&in);
    return st;
}

/* The overlay o asks for: over the photo, or a diagram. */
static gs_status write_overlay(const score_count_options *o, const count_input *in, const score_count_result *r,
                               gs_error *err)
{
    gs_image *ov = score_count_draw(r, in->img, in->scan ? &in->scan->grid : NULL);
    gs_status st = ov ? gs_image_write_png(ov, o->overlay_path, err) : nomem(err);
    gs_image_destroy(ov);
    return st;
}

gs_status score_count_run(const score_count_options *o, score_count_result *out, gs_error *err)
{
    memset(out, 0, sizeof *out);
    if (!o || !o->input) return gs_error_set(err, GS_ERR_USAGE, "count: no input given");
    double t0 = gs_now_ms();
    count_input in = {0};
    gs_status st = read_input(o, &in, out, err);
    out->ms = gs_now_ms() - t0;
    if (st == GS_OK) st = count_board(o, &in, out, err);
    if (st == GS_OK && o->overlay_path) st = write_overlay(o, &in, out, err);
    if (st == GS_OK && o->sgf_path) {
        st = score_count_write_sgf(o->sgf_path, out, err);
        if (st != GS_OK) out->error_file = o->sgf_path;
    }
    count_input_free(&in);
    return st;
}
