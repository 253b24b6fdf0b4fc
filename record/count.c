/* record/count.c: the count of a finished board (record.h, record_count_*):
 * a photo, an SGF or a grid file in; the dead stones (estimated, none,
 * from the SGF's marks or the players' list); the area count under the
 * Chinese rules; the count written as SGF and drawn over the photo. */
#include "record/record.h"

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

void record_count_options_init(record_count_options *o)
{
    memset(o, 0, sizeof *o);
    o->dead = RECORD_COUNT_DEAD_AUTO;
    o->handicap = -1;
}

const char *record_count_dead_name(record_count_dead d)
{
    switch (d) {
    case RECORD_COUNT_DEAD_AUTO: return "auto";
    case RECORD_COUNT_DEAD_NONE: return "none";
    case RECORD_COUNT_DEAD_MARKS: return "marks";
    case RECORD_COUNT_DEAD_POINTS: return "points";
    }
    return "?";
}

void record_count_stones_format(double v, char *buf, size_t len)
{
    long q = lround(fabs(v) * 4);
    long whole = q / 4, frac = q % 4;
    static const char *F[4] = {"", "1/4", "1/2", "3/4"};
    const char *sign = v < 0 && q ? "-" : "";
    if (frac == 0) snprintf(buf, len, "%s%ld", sign, whole);
    else if (whole == 0) snprintf(buf, len, "%s%s", sign, F[frac]);
    else snprintf(buf, len, "%s%ld %s", sign, whole, F[frac]);
}

/* ---------------------------------------------------------------- input */

/* Plays the main line of g on a new game; the final position in *pos. */
static gs_status replay_main_line(const sgf_game *g, gs_position *pos, gs_error *err)
{
    rules_game *rg = rules_game_create(g->info.size, err);
    if (!rg) return err ? err->status : GS_ERR_NOMEM;
    /* A count wants the position the players reached: repetitions are
     * played and flagged, never refused. */
    rules_game_set_ko_policy(rg, RULES_KO_FLAG_CYCLE);
    gs_status st = rules_game_start(rg, &g->setup, g->info.handicap, g->move_count ? g->moves[0].color : GS_EMPTY,
                                    err);
    for (size_t i = 0; i < g->move_count && st == GS_OK; i++) {
        const gs_move *m = &g->moves[i];
        rules_legality l = rules_game_apply(rg, m, NULL);
        if (l != RULES_LEGAL) {
            char pt[3];
            sgf_point_format(m->pt, pt);
            st = gs_error_set(err, GS_ERR_FORMAT, "line %d: move %zu %s[%s] is illegal (%s)", g->move_info[i].line,
                              i + 1, m->color == GS_BLACK ? "B" : "W", pt, rules_legality_name(l));
        }
    }
    if (st == GS_OK) rules_game_position(rg, pos);
    rules_game_destroy(rg);
    return st;
}

gs_status record_count_load_sgf(const char *path, record_count_sgf *out, gs_error *err)
{
    memset(out, 0, sizeof *out);
    sgf_game g;
    memset(&g, 0, sizeof g);
    gs_status st = sgf_game_load(path, &g, err);
    if (st == GS_OK && (g.info.size < RULES_MIN_SIZE || g.info.size > RULES_MAX_SIZE))
        st = gs_error_set(err, GS_ERR_NOBOARD, "board size %d cannot be counted (5..25)", g.info.size);
    if (st == GS_OK) st = replay_main_line(&g, &out->pos, err);
    if (st == GS_OK) {
        out->komi = g.info.komi;
        out->has_komi = g.info.has_komi;
        out->handicap = g.info.handicap;
        snprintf(out->result, sizeof out->result, "%s", g.info.result);
        out->has_marks = g.has_final_marks;
        out->marks = g.final_marks;
    }
    sgf_game_free(&g);
    return st;
}

static bool has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcasecmp(s + a - b, suf);
}

/* What the reading of the input leaves for the later stages. */
typedef struct count_input {
    record_count_sgf *sgf;     /* an SGF input: what the file says */
    gs_image *img;             /* a photo input: the photo (for the overlay) */
    vision_scan_result *scan;  /* ... and its reading (the grid) */
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
static gs_status read_photo(const record_count_options *o, count_input *in, record_count_result *out, gs_error *err)
{
    in->img = cvshim_image_load_max(o->input, o->max_pixels, err);
    if (!in->img) return err ? err->status : GS_ERR_IO;
    in->scan = calloc(1, sizeof *in->scan);
    if (!in->scan) return nomem(err);
    vision_scan_options vo = {.size_hint = o->size_hint, .corners = NULL};
    gs_status st = vision_scan(in->img, &vo, in->scan, err);
    out->error_file = o->input;
    if (st == GS_OK) out->pos = in->scan->reading.pos;
    return st;
}

/* The board of o->input (an SGF, a grid file or a photo, by suffix) into
 * out->pos; the komi and handicap to count with (the options', else the
 * SGF's) into in->komi and out->handicap. */
/* out->error_file names the input for the messages about it; the photo
 * loader's and the usage messages stand alone. */
static gs_status read_input(const record_count_options *o, count_input *in, record_count_result *out,
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
        st = record_count_load_sgf(o->input, in->sgf, err);
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

gs_status record_count_estimate(const gs_position *pos, const rules_estimate_options *eo,
                                const rules_count_opts *co, rules_estimate_result *est, rules_count *cnt,
                                gs_error *err)
{
    gs_status st = rules_estimate_dead(pos, eo, est, err);
    if (st == GS_OK) st = rules_count_position(pos, est->dead, co, cnt, err);
    return st;
}

/* The dead stones o->dead asks for, then the count with them removed. */
static gs_status dead_and_count(const record_count_options *o, const count_input *in, record_count_result *out,
                                gs_error *err)
{
    rules_count_opts co;
    rules_count_opts_init(&co);
    co.komi = in->komi;
    co.handicap = out->handicap;
    out->error_file = o->input;
    switch (o->dead) {
    case RECORD_COUNT_DEAD_NONE:
        break;
    case RECORD_COUNT_DEAD_MARKS:
        if (!in->sgf || !in->sgf->has_marks)
            return gs_error_set(err, GS_ERR_USAGE, "--dead marks needs an SGF whose last node has TB/TW marks");
        rules_dead_from_marks(&out->pos, &in->sgf->marks, out->dead);
        break;
    case RECORD_COUNT_DEAD_POINTS: {
        gs_status st = parse_dead_points(o->dead_points ? o->dead_points : "", &out->pos, out->dead, err);
        if (st != GS_OK) return st;
        break;
    }
    case RECORD_COUNT_DEAD_AUTO: {
        rules_estimate_options eo;
        rules_estimate_default_options(&eo);
        if (o->playouts > 0) {
            eo.playouts = o->playouts;
            eo.time_budget_ms = -1; /* an explicit number of playouts is run in full */
        }
        if (o->seed) eo.seed = o->seed;
        gs_status st = record_count_estimate(&out->pos, &eo, &co, &out->est, &out->count, err);
        if (st != GS_OK) return st;
        out->estimate = true;
        int n = out->pos.size * out->pos.size;
        for (int i = 0; i < n; i++) {
            out->dead[i] = out->est.dead[i];
            out->seki[i] = out->est.status[i] == RULES_ESTIMATE_SEKI;
        }
        return GS_OK;
    }
    }
    return rules_count_position(&out->pos, out->dead, &co, &out->count, err);
}

/* -------------------------------------------------------------- overlay */

/* Each side's area (a square on every point it owns that holds no living
 * stone), the dame (a small square), dead stones (a red cross) and seki
 * (a ring), drawn on the photo in place. */
static void draw_overlay(gs_image *img, const vision_grid *g, const record_count_result *r)
{
    static const gs_bgr black = {20, 20, 20}, white = {245, 245, 245}, red = {0, 0, 255}, grey = {160, 120, 40},
                        seki = {0, 200, 255};
    int size = r->pos.size;
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++) {
            int i = y * size + x;
            double px, py, qx, qy;
            vision_grid_map(g, x, y, &px, &py);
            vision_grid_map(g, x + 1, y, &qx, &qy);
            double pitch = hypot(qx - px, qy - py);
            gs_color stone = (gs_color)r->pos.cell[i];
            gs_color own = (gs_color)r->count.owner.cell[i];
            bool dead = r->dead[i] != 0;
            if (stone == GS_EMPTY || dead) {
                if (own == GS_BLACK) gs_draw_square(img, px, py, pitch * 0.22, black, 0.85);
                else if (own == GS_WHITE) gs_draw_square(img, px, py, pitch * 0.22, white, 0.85);
                else if (stone == GS_EMPTY) gs_draw_square(img, px, py, pitch * 0.08, grey, 0.9);
            }
            if (dead) {
                double h = pitch * 0.3;
                gs_draw_line(img, px - h, py - h, px + h, py + h, fmax(2, pitch * 0.08), red);
                gs_draw_line(img, px - h, py + h, px + h, py - h, fmax(2, pitch * 0.08), red);
            } else if (r->seki[i]) {
                gs_draw_ring(img, px, py, pitch * 0.35, fmax(2, pitch * 0.06), seki);
            }
        }
}

/* ------------------------------------------------------------------ sgf */

/* The position (AB/AW) with the count: TB/TW, KM, RE and the count in
 * words as the root's comment. */
static gs_status write_sgf(const char *path, const record_count_result *r, gs_error *err)
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
    /* TB/TW: territory as KGS marks it, i.e. the area without living stones
     * (empty points and the points of dead stones). */
    gs_position terr;
    gs_position_clear(&terr, r->pos.size);
    for (int i = 0; i < r->pos.size * r->pos.size; i++)
        if (r->pos.cell[i] == GS_EMPTY || r->dead[i]) terr.cell[i] = r->count.owner.cell[i];
    char words[400], a[32], b[32];
    record_count_stones_format(r->count.black, a, sizeof a);
    record_count_stones_format(r->count.white, b, sizeof b);
    snprintf(words, sizeof words, "Count (Chinese rules, area): Black %s, White %s, dame %d. %s.%s", a, b,
             r->count.dame, r->count.text,
             r->estimate && (r->count.dead_black + r->count.dead_white)
                 ? " Dead stones: ESTIMATE \xe2\x80\x94 players must confirm."
                 : "");
    gs_status st = sgf_set_final_count(root, &terr, words, r->count.sgf, err);
    if (st == GS_OK) st = sgf_save(t, path, err);
    sgf_tree_destroy(t);
    return st;
}

/* ------------------------------------------------------------------ run */

gs_status record_count_run(const record_count_options *o, record_count_result *out, gs_error *err)
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
    }
    if (st == GS_OK && o->overlay_path) {
        draw_overlay(in.img, &in.scan->grid, out);
        st = gs_image_write_png(in.img, o->overlay_path, err);
    }
    if (st == GS_OK && o->sgf_path) {
        st = write_sgf(o->sgf_path, out, err);
        if (st != GS_OK) out->error_file = o->sgf_path;
    }
    count_input_free(&in);
    return st;
}
