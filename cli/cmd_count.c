/* cli/cmd_count.c: `goscribe count PHOTO|GAME.sgf|GRID.txt`: count a finished
 * board under the Chinese rules (area, in stones), with the dead stones
 * given by the players, taken from the SGF's TB/TW marks, or estimated
 * (rules/estimate.h) and then clearly marked as an estimate to confirm. */
#include "cvshim/cvshim.h"
#include "cli/cli.h"
#include "cli/cmd_count.h"
#include "sgf/sgf.h"
#include "rules/rules.h"
#include "vision/vision.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void count_usage(FILE *f)
{
    fprintf(f,
            "usage: goscribe count PHOTO|GAME.sgf|GRID.txt [--komi K] [--handicap N]\n"
            "                      [--dead auto|none|marks|POINTS] [--overlay OUT.png]\n"
            "                      [--sgf OUT.sgf] [--json] [--size 9|13|19]\n"
            "                      [--playouts N] [--seed S]\n"
            "\n"
            "Counts a finished board under the Chinese rules: each side's living stones\n"
            "plus the empty points they surround, dame split half each, in stones; the\n"
            "result in stones and in SGF form.  The input is a photo (the board is read\n"
            "as by `goscribe scan`), an SGF file (its final position) or a grid .txt.\n"
            "  --komi K        komi in SGF points, 7.5 = 3 3/4 stones (default: the\n"
            "                  SGF's KM, else 7.5; 0 with a handicap)\n"
            "  --handicap N    handicap stones; Black gives back N/2 stones (default:\n"
            "                  the SGF's HA, else 0)\n"
            "  --dead auto     estimate the dead stones (default): Benson's unconditional\n"
            "                  life, then ownership from random playouts, seki kept alive.\n"
            "                  Printed as an ESTIMATE that the players must confirm.\n"
            "  --dead none     every stone is alive (the players lifted the dead ones)\n"
            "  --dead marks    the dead stones the SGF's final TB/TW marks imply\n"
            "  --dead POINTS   the players' decision: points separated by commas, SGF\n"
            "                  (pd) or board coordinates (Q16, columns skip I); each names\n"
            "                  one stone and its whole chain is dead\n"
            "  --overlay F.png draw each side's area and the dead stones on the photo\n"
            "  --sgf OUT.sgf   write the position (AB/AW) with TB/TW, KM and RE\n"
            "  --json          print the count as one JSON object\n"
            "  --size N        board size hint for a photo\n"
            "  --playouts N    playouts for --dead auto (default 1000, at most 0.5 s CPU)\n"
            "  --seed S        random seed for --dead auto (default fixed: repeatable)\n"
            "exit codes: 0 counted, 1 usage or I/O error, 2 no board or no game in the input\n");
}

/* ---------------------------------------------------------------- input */

gs_status count_load_sgf(const char *path, count_sgf_input *out, gs_error *err)
{
    memset(out, 0, sizeof *out);
    sgf_game g;
    memset(&g, 0, sizeof g);
    gs_status st = sgf_game_load(path, &g, err);
    if (st != GS_OK) {
        sgf_game_free(&g);
        return st;
    }
    if (g.info.size < RULES_MIN_SIZE || g.info.size > RULES_MAX_SIZE) {
        int sz = g.info.size;
        sgf_game_free(&g);
        return gs_error_set(err, GS_ERR_NOBOARD, "board size %d cannot be counted (5..25)", sz);
    }
    rules_game *rg = rules_game_create(g.info.size, err);
    if (!rg) {
        sgf_game_free(&g);
        return err ? err->status : GS_ERR_NOMEM;
    }
    rules_game_set_ko_policy(rg, RULES_KO_FLAG_CYCLE);
    for (int y = 0; y < g.info.size && st == GS_OK; y++)
        for (int x = 0; x < g.info.size && st == GS_OK; x++) {
            gs_color c = gs_position_get(&g.setup, x, y);
            if (c != GS_EMPTY) st = rules_game_setup(rg, c, (gs_point){(int8_t)x, (int8_t)y}, err);
        }
    if (st == GS_OK && g.info.handicap > 0) rules_game_set_handicap(rg, g.info.handicap);
    for (size_t i = 0; i < g.move_count && st == GS_OK; i++) {
        const gs_move *m = &g.moves[i];
        if (m->pass) {
            rules_game_pass(rg, m->color);
            continue;
        }
        rules_legality l = rules_game_play(rg, m->color, m->pt, NULL);
        if (l != RULES_LEGAL) {
            char pt[3];
            sgf_point_format(m->pt, pt);
            st = gs_error_set(err, GS_ERR_FORMAT, "line %d: move %zu %s[%s] is illegal (%s)", g.move_info[i].line, i + 1,
                              m->color == GS_BLACK ? "B" : "W", pt, rules_legality_name(l));
        }
    }
    if (st == GS_OK) {
        rules_game_position(rg, &out->pos);
        out->komi = g.info.komi;
        out->has_komi = g.info.has_komi;
        out->handicap = g.info.handicap;
        snprintf(out->result, sizeof out->result, "%s", g.info.result);
        out->has_marks = g.has_final_marks;
        out->marks = g.final_marks;
    }
    rules_game_destroy(rg);
    sgf_game_free(&g);
    return st;
}

static bool has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcasecmp(s + a - b, suf);
}

/* ------------------------------------------------------------ dead points */

/* Parses "pd,qd" / "Q16,D4" (commas or spaces); marks the whole chain of
 * each named stone in dead.  0 on success, else fills msg. */
static int parse_dead_points(const char *list, const gs_position *pos, uint8_t *dead, char *msg, size_t msglen)
{
    int size = pos->size;
    char *copy = strdup(list);
    if (!copy) {
        snprintf(msg, msglen, "out of memory");
        return -1;
    }
    int rc = 0;
    char *save = NULL;
    for (char *tok = strtok_r(copy, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
        gs_point p;
        bool pass = false, ok;
        if (strlen(tok) == 2 && islower((unsigned char)tok[0]) && islower((unsigned char)tok[1]))
            ok = sgf_point_parse(tok, 2, size, &p, &pass);
        else
            ok = rules_point_parse_human(tok, size, &p, &pass);
        if (!ok || pass) {
            snprintf(msg, msglen, "--dead: '%s' is not a point of a %dx%d board", tok, size, size);
            rc = -1;
            break;
        }
        gs_color c = gs_position_get(pos, p.x, p.y);
        if (c == GS_EMPTY) {
            snprintf(msg, msglen, "--dead: no stone at %s", tok);
            rc = -1;
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
    return rc;
}

/* --------------------------------------------------------------- output */

/* 184.5 -> "184 1/2", 0.75 -> "3/4", 12 -> "12" (quarters). */
static void fmt_stones(double v, char *buf, size_t len)
{
    long q = lround(fabs(v) * 4);
    long whole = q / 4, frac = q % 4;
    static const char *F[4] = {"", "1/4", "1/2", "3/4"};
    const char *sign = v < 0 && q ? "-" : "";
    if (frac == 0) snprintf(buf, len, "%s%ld", sign, whole);
    else if (whole == 0) snprintf(buf, len, "%s%s", sign, F[frac]);
    else snprintf(buf, len, "%s%ld %s", sign, whole, F[frac]);
}

/* Points of colour c with mask[i] set, as SGF or human coordinates. */
static void print_points(const gs_position *pos, const uint8_t *mask, gs_color c, bool json)
{
    int size = pos->size, k = 0;
    for (int i = 0; i < size * size; i++) {
        if (!mask[i] || pos->cell[i] != c) continue;
        gs_point p = {(int8_t)(i % size), (int8_t)(i / size)};
        char buf[8];
        if (json) {
            rules_point_sgf(p, buf);
            printf("%s\"%s\"", k ? ", " : "", buf);
        } else {
            rules_point_human(p, size, buf);
            printf(" %s", buf);
        }
        k++;
    }
}

typedef struct count_run {
    const char *input, *source, *dead_mode;
    gs_position pos;
    uint8_t dead[RULES_MAX_POINTS];
    uint8_t seki[RULES_MAX_POINTS];
    bool estimate;
    rules_estimate_result est;
    rules_count cnt;
    int handicap;
    const char *file_result;
    double ms;
} count_run;

static void print_text(const count_run *r)
{
    const rules_count *c = &r->cnt;
    char a[32], b[32], k[32];
    printf("Count of %s (%dx%d, from %s)\n", r->input, c->size, c->size, r->source);
    int ndead = c->dead_black + c->dead_white;
    if (r->estimate) {
        if (ndead) {
            printf("Dead stones: ESTIMATE \xe2\x80\x94 players must confirm (%d playouts, %.0f ms)\n",
                   r->est.playouts, r->est.ms);
        } else {
            printf("Dead stones: none found by the estimate (%d playouts) \xe2\x80\x94 players must confirm\n",
                   r->est.playouts);
        }
    } else {
        printf("Dead stones: %s\n", !strcmp(r->dead_mode, "none") ? "none (all stones on the board are alive)"
                                  : !strcmp(r->dead_mode, "marks") ? "as the SGF's TB/TW marks say"
                                                                   : "as the players decided");
    }
    if (r->estimate && r->est.captured_stones)
        printf("  (%d stone%s without any liberty: captured but still on the board, or misread)\n",
               r->est.captured_stones, r->est.captured_stones == 1 ? "" : "s");
    if (ndead) {
        printf("  black %d%s", c->dead_black, c->dead_black ? ":" : "");
        print_points(&r->pos, r->dead, GS_BLACK, false);
        printf("\n  white %d%s", c->dead_white, c->dead_white ? ":" : "");
        print_points(&r->pos, r->dead, GS_WHITE, false);
        printf("\n");
    }
    if (r->estimate && r->est.uncertain_chains) {
        printf("Uncertain (the playouts were split; look at these first):");
        print_points(&r->pos, r->est.uncertain, GS_BLACK, false);
        print_points(&r->pos, r->est.uncertain, GS_WHITE, false);
        printf("\n");
    }
    if (r->estimate && r->est.seki_stones) {
        printf("Seki (alive, shared liberties are dame): black");
        print_points(&r->pos, r->seki, GS_BLACK, false);
        printf("; white");
        print_points(&r->pos, r->seki, GS_WHITE, false);
        printf("\n");
    }
    fmt_stones(c->black, a, sizeof a);
    printf("Black: %d stones + %d points surrounded%s = %s\n", c->black_stones, c->black_territory,
           c->dame ? " + half the dame" : "", a);
    fmt_stones(c->white, b, sizeof b);
    printf("White: %d stones + %d points surrounded%s = %s\n", c->white_stones, c->white_territory,
           c->dame ? " + half the dame" : "", b);
    printf("Dame: %d\n", c->dame);
    fmt_stones(c->komi / 2, k, sizeof k);
    printf("Komi: %s stone%s (KM %.1f)", k, fabs(c->komi / 2 - 1) < 1e-9 ? "" : "s", c->komi);
    if (r->handicap > 0) {
        char h[32];
        fmt_stones(r->handicap / 2.0, h, sizeof h);
        printf("; handicap %d: Black gives back %s", r->handicap, h);
    }
    printf("\n");
    char half[32];
    fmt_stones(c->size * c->size / 2.0, half, sizeof half);
    printf("Result: %s (%s)%s\n", c->text, c->sgf, r->estimate && ndead ? " \xe2\x80\x94 ESTIMATE" : "");
    printf("Rule: Chinese rules, area counting in stones (Art. 9, 11): break-even %s\n", half);
}

static void print_json(const count_run *r)
{
    const rules_count *c = &r->cnt;
    printf("{\n  \"input\": ");
    gs_json_write_string(stdout, r->input);
    printf(",\n  \"source\": \"%s\",\n  \"size\": %d,\n", r->source, c->size);
    printf("  \"rule\": \"chinese-area\",\n  \"komi_points\": %g,\n  \"komi_stones\": %g,\n  \"handicap\": %d,\n",
           c->komi, c->komi / 2, r->handicap);
    printf("  \"dead_mode\": \"%s\",\n  \"estimate\": %s,\n", r->dead_mode, r->estimate ? "true" : "false");
    if (r->estimate) {
        printf("  \"playouts\": %d,\n  \"estimate_ms\": %.1f,\n  \"uncertain_chains\": %d,\n", r->est.playouts,
               r->est.ms, r->est.uncertain_chains);
        /* mean area owner per point over the playouts, +1 Black .. -1 White */
        printf("  \"ownership\": [");
        for (int y = 0; y < c->size; y++) {
            printf("%s\n    [", y ? "," : "");
            for (int x = 0; x < c->size; x++) printf("%s%.2f", x ? ", " : "", r->est.ownership[y * c->size + x]);
            printf("]");
        }
        printf("\n  ],\n");
    }
    printf("  \"black\": {\"stones\": %d, \"territory\": %d, \"area\": %g, \"dead\": %d},\n", c->black_stones,
           c->black_territory, c->black, c->dead_black);
    printf("  \"white\": {\"stones\": %d, \"territory\": %d, \"area\": %g, \"dead\": %d},\n", c->white_stones,
           c->white_territory, c->white, c->dead_white);
    printf("  \"dame\": %d,\n", c->dame);
    printf("  \"dead_black\": [");
    print_points(&r->pos, r->dead, GS_BLACK, true);
    printf("],\n  \"dead_white\": [");
    print_points(&r->pos, r->dead, GS_WHITE, true);
    printf("],\n  \"seki\": [");
    print_points(&r->pos, r->seki, GS_BLACK, true);
    if (r->estimate && r->est.seki_stones) {
        bool any_b = false;
        for (int i = 0; i < c->size * c->size; i++) any_b |= r->seki[i] && r->pos.cell[i] == GS_BLACK;
        bool any_w = false;
        for (int i = 0; i < c->size * c->size; i++) any_w |= r->seki[i] && r->pos.cell[i] == GS_WHITE;
        if (any_b && any_w) printf(", ");
    }
    print_points(&r->pos, r->seki, GS_WHITE, true);
    printf("],\n  \"margin_stones\": %g,\n  \"result\": ", c->margin_stones);
    gs_json_write_string(stdout, c->text);
    printf(",\n  \"re\": \"%s\",\n", c->sgf);
    if (r->file_result && *r->file_result) {
        printf("  \"file_re\": ");
        gs_json_write_string(stdout, r->file_result);
        printf(",\n");
    }
    printf("  \"ms\": %.1f\n}\n", r->ms);
}

/* -------------------------------------------------------------- overlay */

static void put_px(gs_image *img, int x, int y, const uint8_t bgr[3], double alpha)
{
    if (x < 0 || y < 0 || x >= img->width || y >= img->height) return;
    uint8_t *p = img->buf + (size_t)y * (size_t)img->stride + (size_t)x * (size_t)img->channels;
    if (img->channels < 3) {
        int grey = (bgr[0] + bgr[1] + bgr[2]) / 3;
        p[0] = (uint8_t)lround(p[0] * (1 - alpha) + grey * alpha);
        return;
    }
    for (int k = 0; k < 3; k++) p[k] = (uint8_t)lround(p[k] * (1 - alpha) + bgr[k] * alpha);
}

static void fill_square(gs_image *img, double cx, double cy, double half, const uint8_t bgr[3], double alpha)
{
    for (int y = (int)floor(cy - half); y <= (int)ceil(cy + half); y++)
        for (int x = (int)floor(cx - half); x <= (int)ceil(cx + half); x++) put_px(img, x, y, bgr, alpha);
}

static void draw_line(gs_image *img, double x0, double y0, double x1, double y1, double thick, const uint8_t bgr[3])
{
    double len = hypot(x1 - x0, y1 - y0);
    int steps = (int)ceil(len) + 1;
    for (int s = 0; s <= steps; s++) {
        double t = (double)s / steps;
        fill_square(img, x0 + (x1 - x0) * t, y0 + (y1 - y0) * t, thick / 2, bgr, 1.0);
    }
}

static void draw_ring(gs_image *img, double cx, double cy, double r, double thick, const uint8_t bgr[3])
{
    int steps = (int)ceil(2 * M_PI * r) + 8;
    for (int s = 0; s < steps; s++) {
        double a = 2 * M_PI * s / steps;
        fill_square(img, cx + r * cos(a), cy + r * sin(a), thick / 2, bgr, 1.0);
    }
}

static void draw_overlay(gs_image *img, const vision_grid *g, const count_run *r)
{
    static const uint8_t black[3] = {20, 20, 20}, white[3] = {245, 245, 245}, red[3] = {0, 0, 255},
                         grey[3] = {160, 120, 40}, seki[3] = {0, 200, 255};
    int size = r->pos.size;
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++) {
            int i = y * size + x;
            double px, py, qx, qy;
            vision_grid_map(g, x, y, &px, &py);
            vision_grid_map(g, x + 1, y, &qx, &qy);
            double pitch = hypot(qx - px, qy - py);
            gs_color stone = (gs_color)r->pos.cell[i];
            gs_color own = (gs_color)r->cnt.owner.cell[i];
            bool dead = r->dead[i] != 0;
            if (stone == GS_EMPTY || dead) {
                if (own == GS_BLACK) fill_square(img, px, py, pitch * 0.22, black, 0.85);
                else if (own == GS_WHITE) fill_square(img, px, py, pitch * 0.22, white, 0.85);
                else if (stone == GS_EMPTY) fill_square(img, px, py, pitch * 0.08, grey, 0.9);
            }
            if (dead) {
                double h = pitch * 0.3;
                draw_line(img, px - h, py - h, px + h, py + h, fmax(2, pitch * 0.08), red);
                draw_line(img, px - h, py + h, px + h, py - h, fmax(2, pitch * 0.08), red);
            } else if (r->seki[i]) {
                draw_ring(img, px, py, pitch * 0.35, fmax(2, pitch * 0.06), seki);
            }
        }
}

/* ------------------------------------------------------------------ sgf */

static gs_status write_sgf(const char *path, const count_run *r, gs_error *err)
{
    sgf_game_info info;
    sgf_game_info_init(&info);
    info.size = r->pos.size;
    info.komi = r->cnt.komi;
    info.has_komi = true;
    info.handicap = r->handicap;
    snprintf(info.rules, sizeof info.rules, "Chinese");
    snprintf(info.result, sizeof info.result, "%s", r->cnt.sgf);
    sgf_node *root = NULL;
    sgf_tree *t = sgf_new_game(&info, &r->pos, &root, err);
    if (!t) return err ? err->status : GS_ERR_NOMEM;
    /* TB/TW: territory as KGS marks it, i.e. the area without living stones
     * (empty points and the points of dead stones). */
    gs_position terr;
    gs_position_clear(&terr, r->pos.size);
    for (int i = 0; i < r->pos.size * r->pos.size; i++)
        if (r->pos.cell[i] == GS_EMPTY || r->dead[i]) terr.cell[i] = r->cnt.owner.cell[i];
    char words[400], a[32], b[32];
    fmt_stones(r->cnt.black, a, sizeof a);
    fmt_stones(r->cnt.white, b, sizeof b);
    snprintf(words, sizeof words, "Count (Chinese rules, area): Black %s, White %s, dame %d. %s.%s", a, b,
             r->cnt.dame, r->cnt.text,
             r->estimate && (r->cnt.dead_black + r->cnt.dead_white)
                 ? " Dead stones: ESTIMATE \xe2\x80\x94 players must confirm."
                 : "");
    gs_status st = sgf_set_final_count(root, &terr, words, r->cnt.sgf, err);
    if (st == GS_OK) st = sgf_save(t, path, err);
    sgf_tree_destroy(t);
    return st;
}

/* ------------------------------------------------------------------ main */

int cmd_count(int argc, char **argv)
{
    const char *input = NULL, *overlay = NULL, *sgf_out = NULL, *dead_arg = "auto";
    double komi = 0;
    bool have_komi = false, json = false;
    long handicap = -1, size_hint = 0, playouts = 0, seed = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a)) {
            count_usage(stdout);
            return GS_EXIT_OK;
        }
        if (!strcmp(a, "--json")) {
            json = true;
            continue;
        }
        if (!strcmp(a, "--komi") || !strcmp(a, "--handicap") || !strcmp(a, "--dead") || !strcmp(a, "--overlay") ||
            !strcmp(a, "--sgf") || !strcmp(a, "--size") || !strcmp(a, "--playouts") || !strcmp(a, "--seed")) {
            if (i + 1 >= argc) {
                cli_error("count: %s needs a value", a);
                return GS_EXIT_ERROR;
            }
            const char *v = argv[++i];
            if (!strcmp(a, "--komi")) {
                if (cli_parse_double(v, -1000, 1000, &komi) != 0) {
                    cli_error("count: --komi %s: expected a number of points (7.5 = 3 3/4 stones)", v);
                    return GS_EXIT_ERROR;
                }
                have_komi = true;
            } else if (!strcmp(a, "--handicap")) {
                if (cli_parse_int(v, 0, 99, &handicap) != 0) {
                    cli_error("count: --handicap %s: expected 0..99", v);
                    return GS_EXIT_ERROR;
                }
            } else if (!strcmp(a, "--dead")) {
                dead_arg = v;
            } else if (!strcmp(a, "--overlay")) {
                overlay = v;
            } else if (!strcmp(a, "--sgf")) {
                sgf_out = v;
            } else if (!strcmp(a, "--size")) {
                if (cli_parse_int(v, 5, GS_MAX_SIZE, &size_hint) != 0) {
                    cli_error("count: --size %s: expected 9, 13 or 19", v);
                    return GS_EXIT_ERROR;
                }
            } else if (!strcmp(a, "--playouts")) {
                if (cli_parse_int(v, 1, 1000000, &playouts) != 0) {
                    cli_error("count: --playouts %s: expected 1..1000000", v);
                    return GS_EXIT_ERROR;
                }
            } else {
                if (cli_parse_int(v, 1, 2147483647L, &seed) != 0) {
                    cli_error("count: --seed %s: expected a positive integer", v);
                    return GS_EXIT_ERROR;
                }
            }
            continue;
        }
        if (a[0] == '-' && a[1]) {
            cli_error("count: unknown option %s (see goscribe count --help)", a);
            return GS_EXIT_ERROR;
        }
        if (input) {
            cli_error("count: one board at a time (got %s and %s)", input, a);
            return GS_EXIT_ERROR;
        }
        input = a;
    }
    if (!input) {
        cli_error("count: no photo or SGF given (see goscribe count --help)");
        return GS_EXIT_ERROR;
    }

    double t0 = gs_now_ms();
    gs_error err = {0};
    count_run *r = calloc(1, sizeof *r);
    count_sgf_input *sin = calloc(1, sizeof *sin);
    vision_scan_result *scan = NULL;
    gs_image *img = NULL;
    int rc = GS_EXIT_OK;
    if (!r || !sin) {
        cli_error("count: out of memory");
        rc = GS_EXIT_ERROR;
        goto out;
    }
    r->input = input;
    r->dead_mode = dead_arg;
    bool is_sgf = has_suffix(input, ".sgf"), is_grid = has_suffix(input, ".txt");
    double file_komi = RULES_DEFAULT_KOMI;
    bool file_has_komi = false;
    int file_handicap = 0;
    if (is_sgf) {
        r->source = "sgf";
        gs_status st = count_load_sgf(input, sin, &err);
        if (st != GS_OK) {
            cli_error("%s: %s", input, err.msg);
            rc = gs_status_exit_code(st);
            goto out;
        }
        r->pos = sin->pos;
        file_komi = sin->komi;
        file_has_komi = sin->has_komi;
        file_handicap = sin->handicap;
        r->file_result = sin->result;
    } else if (is_grid) {
        r->source = "grid";
        gs_status st = gs_position_load(&r->pos, input, &err);
        if (st != GS_OK) {
            cli_error("%s: %s", input, err.msg);
            rc = gs_status_exit_code(st);
            goto out;
        }
    } else {
        r->source = "photo";
        img = cvshim_image_load(input, &err);
        if (!img) {
            cli_error("%s", err.msg);
            rc = gs_status_exit_code(err.status);
            goto out;
        }
        scan = calloc(1, sizeof *scan);
        if (!scan) {
            cli_error("count: out of memory");
            rc = GS_EXIT_ERROR;
            goto out;
        }
        vision_scan_options vo = {.size_hint = (int)size_hint, .corners = NULL};
        gs_status st = vision_scan(img, &vo, scan, &err);
        if (st != GS_OK) {
            cli_error("%s: %s", input, err.msg);
            rc = gs_status_exit_code(st);
            goto out;
        }
        r->pos = scan->reading.pos;
    }
    if (r->pos.size < RULES_MIN_SIZE || r->pos.size > RULES_MAX_SIZE) {
        cli_error("%s: board size %d cannot be counted", input, r->pos.size);
        rc = GS_EXIT_NOBOARD;
        goto out;
    }
    if (overlay && !img) {
        cli_error("count: --overlay needs a photo as input (%s is not one)", input);
        rc = GS_EXIT_ERROR;
        goto out;
    }

    r->handicap = handicap >= 0 ? (int)handicap : file_handicap;
    rules_count_opts co;
    rules_count_opts_init(&co);
    co.komi = have_komi ? komi : file_has_komi ? file_komi : r->handicap > 0 ? 0 : RULES_DEFAULT_KOMI;
    co.handicap = r->handicap;

    /* Dead stones. */
    if (!strcmp(dead_arg, "none")) {
        /* all alive */
    } else if (!strcmp(dead_arg, "marks")) {
        if (!is_sgf || !sin->has_marks) {
            cli_error("%s: --dead marks needs an SGF whose last node has TB/TW marks", input);
            rc = GS_EXIT_ERROR;
            goto out;
        }
        rules_dead_from_marks(&r->pos, &sin->marks, r->dead);
    } else if (!strcmp(dead_arg, "auto")) {
        rules_estimate_options eo;
        rules_estimate_default_options(&eo);
        if (playouts) {
            eo.playouts = (int)playouts;
            eo.time_budget_ms = -1; /* an explicit number of playouts is run in full */
        }
        if (seed) eo.seed = (uint64_t)seed;
        gs_status st = rules_estimate_dead(&r->pos, &eo, &r->est, &err);
        if (st != GS_OK) {
            cli_error("%s: %s", input, err.msg);
            rc = gs_status_exit_code(st);
            goto out;
        }
        r->estimate = true;
        int n = r->pos.size * r->pos.size;
        for (int i = 0; i < n; i++) {
            r->dead[i] = r->est.dead[i];
            r->seki[i] = r->est.status[i] == RULES_ESTIMATE_SEKI;
        }
    } else {
        char msg[200];
        if (parse_dead_points(dead_arg, &r->pos, r->dead, msg, sizeof msg) != 0) {
            cli_error("%s: %s", input, msg);
            rc = GS_EXIT_ERROR;
            goto out;
        }
        r->dead_mode = "points";
    }

    gs_status st = rules_count_position(&r->pos, r->dead, &co, &r->cnt, &err);
    if (st != GS_OK) {
        cli_error("%s: %s", input, err.msg);
        rc = gs_status_exit_code(st);
        goto out;
    }
    r->ms = gs_now_ms() - t0;

    if (overlay) {
        draw_overlay(img, &scan->grid, r);
        if (gs_image_write_png(img, overlay, &err) != GS_OK) {
            cli_error("%s", err.msg);
            rc = GS_EXIT_ERROR;
            goto out;
        }
    }
    if (sgf_out && write_sgf(sgf_out, r, &err) != GS_OK) {
        cli_error("%s: %s", sgf_out, err.msg);
        rc = GS_EXIT_ERROR;
        goto out;
    }
    if (json) print_json(r);
    else print_text(r);

out:
    gs_image_destroy(img);
    free(scan);
    free(sin);
    free(r);
    return rc;
}
