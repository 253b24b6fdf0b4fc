/* cli/cmd_count.c: `goscribe count PHOTO|GAME.sgf|GRID.txt`: count a finished
 * board under the Chinese rules (area, in stones), with the dead stones
 * given by the players, taken from the SGF's TB/TW marks, or estimated
 * (rules_estimate_dead) and then clearly marked as an estimate to confirm.
 * The work is score_count_run (record/record.h); this file parses the
 * options and prints the count as text or JSON. */
#include "cli/cli.h"
#include "record/record.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void count_usage(FILE *f)
{
    fprintf(f,
            "Usage: goscribe count PHOTO|GAME.sgf|GRID.txt [options]\n"
            "\n"
            "Counts a finished board under the Chinese rules: each side's living stones\n"
            "plus the empty points they surround, dame split half each, in stones; the\n"
            "result in stones and in SGF form.  The input is a photo (the board is read\n"
            "as by `goscribe scan`), an SGF file (its final position) or a grid .txt.\n"
            "The dead stones, by default: an SGF's final TB/TW marks when it has them,\n"
            "all stones alive when it records a counted result without marks (as\n"
            "`check`), else --dead auto.\n"
            "\n"
            "Options:\n"
            CLI_HELP_OPTION
            "  --komi K             komi in SGF points, 7.5 = 3 3/4 stones (default: the\n"
            "                       SGF's KM, else 7.5; 0 with a handicap)\n"
            "  --handicap N         handicap stones 0..9; Black gives back N/2 stones\n"
            "                       (default: the SGF's HA, else 0)\n"
            "  --dead auto          estimate the dead stones: Benson's unconditional life,\n"
            "                       then ownership from random playouts, seki kept alive;\n"
            "                       printed as an ESTIMATE that the players must confirm\n"
            "  --dead none          every stone is alive (the players lifted the dead ones)\n"
            "  --dead marks         the dead stones the SGF's final TB/TW marks imply\n"
            "  --dead POINTS        the players' decision: points separated by commas, SGF\n"
            "                       (pd) or board coordinates (Q16, columns skip I); each\n"
            "                       names one stone, its whole chain is dead\n"
            "  --overlay OUT.png    draw each side's area and the dead stones on the photo\n"
            "  --sgf OUT.sgf        write the position (AB/AW) with TB/TW, KM and RE\n"
            "  --json               print the count as one JSON object\n"
            CLI_SIZE_FOUND_HELP
            "  --playouts N         playouts for --dead auto (default 1000, at most 0.5 s CPU)\n"
            "  --seed S             random seed for --dead auto (default fixed: repeatable)\n"
            "  --plausible P        photo: a point read with doubt enters the Score's range\n"
            "                       only when its next likeliest colour has probability P\n"
            "                       or more (0..1, default 0: every one)\n"
            CLI_MAX_PIXELS_HELP
            "\n"
            "The Score line gives the result over the readings the doubt allows: each\n"
            "point read with doubt, and each chain of them, read as its next likeliest\n"
            "colour, and each chain whose life the estimate cannot settle counted both\n"
            "ways: \"B+8.5 (sure)\", \"B+8.5, between B+6.5 and B+10.5: Black wins either\n"
            "way\" or \"W+0.5 to B+1.5: check points D4 E5\"; exit code 3 when a reading\n"
            "the doubt allows changes the result.\n"
            CLI_EXIT_CODES CLI_EXIT_0 CLI_EXIT_1 CLI_EXIT_2 CLI_EXIT_3);
}

/* The command line: the library's options plus how to print. */
typedef struct count_args {
    score_count_options lib;
    bool json;
} count_args;

/* Reads the value v of option a into args; returns -1 when it is fine,
 * else the exit code (the error printed). */
static int parse_value(const char *a, const char *v, count_args *args)
{
    score_count_options *o = &args->lib;
    long n = 0;
    int bad = 0;
    if (!strcmp(a, "--komi")) {
        bad = cli_parse_komi("count", v, &o->komi);
        o->has_komi = true;
    } else if (!strcmp(a, "--handicap")) {
        bad = cli_parse_whole("count", a, v, 0, 9, &n);
        o->handicap = (int)n;
    } else if (!strcmp(a, "--dead")) {
        o->dead = !strcmp(v, "none")    ? SCORE_COUNT_DEAD_NONE
                  : !strcmp(v, "marks") ? SCORE_COUNT_DEAD_MARKS
                  : !strcmp(v, "auto")  ? SCORE_COUNT_DEAD_AUTO
                                        : SCORE_COUNT_DEAD_POINTS;
        o->dead_points = o->dead == SCORE_COUNT_DEAD_POINTS ? v : NULL;
    } else if (!strcmp(a, "--overlay")) {
        o->overlay_path = v;
    } else if (!strcmp(a, "--sgf")) {
        o->sgf_path = v;
    } else if (!strcmp(a, "--size")) {
        bad = cli_parse_size("count", v, CLI_SIZE_FOUND, &n);
        o->size_hint = (int)n;
    } else if (!strcmp(a, "--playouts")) {
        bad = cli_parse_whole("count", a, v, 1, 1000000, &n);
        o->playouts = (int)n;
    } else if (!strcmp(a, "--plausible")) {
        if (cli_parse_double(v, 0, 1, &o->plausible) != 0) {
            cli_error("count: --plausible %s: expected a probability 0..1", v);
            return GS_EXIT_ERROR;
        }
    } else if (!strcmp(a, "--max-pixels")) {
        bad = cli_parse_max_pixels("count", v, &o->max_pixels);
    } else {
        bad = cli_parse_seed("count", v, &o->seed);
    }
    return bad ? GS_EXIT_ERROR : -1;
}

/* Parses argv into args; returns -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, count_args *args)
{
    memset(args, 0, sizeof *args);
    score_count_options_init(&args->lib);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a)) {
            count_usage(stdout);
            return GS_EXIT_OK;
        }
        if (!strcmp(a, "--json")) {
            args->json = true;
            continue;
        }
        if (!strcmp(a, "--komi") || !strcmp(a, "--handicap") || !strcmp(a, "--dead") || !strcmp(a, "--overlay") ||
            !strcmp(a, "--sgf") || !strcmp(a, "--size") || !strcmp(a, "--playouts") || !strcmp(a, "--seed") ||
            !strcmp(a, "--plausible") || !strcmp(a, "--max-pixels")) {
            const char *v = cli_value("count", argc, argv, &i);
            if (!v) return GS_EXIT_ERROR;
            int rc = parse_value(a, v, args);
            if (rc >= 0) return rc;
            continue;
        }
        if (a[0] == '-' && a[1]) {
            cli_error("count: unknown option %s (see goscribe count --help)", a);
            return GS_EXIT_ERROR;
        }
        if (args->lib.input) {
            cli_error("count: one board at a time (got %s and %s)", args->lib.input, a);
            return GS_EXIT_ERROR;
        }
        args->lib.input = a;
    }
    if (!args->lib.input) {
        cli_error("count: no photo or SGF given (see goscribe count --help)");
        return GS_EXIT_ERROR;
    }
    return -1;
}

/* Points of colour c with mask[i] set, in board coordinates (Q16). */
static void print_points(const gs_position *pos, const uint8_t *mask, gs_color c)
{
    int size = pos->size;
    for (int i = 0; i < size * size; i++) {
        if (!mask[i] || pos->cell[i] != c) continue;
        char buf[8];
        rules_point_human((gs_point){(int8_t)(i % size), (int8_t)(i / size)}, size, buf);
        printf(" %s", buf);
    }
}

/* Every point with mask set, in board coordinates (Q16), in board order. */
static void print_mask(const gs_position *pos, const uint8_t *mask)
{
    int size = pos->size;
    for (int i = 0; i < size * size; i++) {
        if (!mask[i]) continue;
        char buf[8];
        rules_point_human((gs_point){(int8_t)(i % size), (int8_t)(i / size)}, size, buf);
        printf(" %s", buf);
    }
}

/* The Score line: the result over the readings the doubt allows
 * (score_count_range): sure, or its range and whether the winner is. */
static void print_score(const score_count_result *r)
{
    const score_count_range *g = &r->range;
    const char *base = r->count.sgf;
    if (g->sure) {
        printf("Score: %s (sure)\n", base);
    } else if (g->unbounded) {
        printf("Score: %s to %s: every point is in doubt (the board's lines are); count a clearer photo\n",
               g->low_sgf, g->high_sgf);
    } else if (g->winner_sure) {
        /* from the smaller win to the larger */
        bool white = g->high < 0;
        printf("Score: %s, between %s and %s: %s wins either way; points that move it:", base,
               white ? g->high_sgf : g->low_sgf, white ? g->low_sgf : g->high_sgf, white ? "White" : "Black");
        print_mask(&r->pos, g->check);
        printf("\n");
    } else {
        printf("Score: %s to %s: check points", g->low_sgf, g->high_sgf);
        print_mask(&r->pos, g->winner);
        printf("\n");
    }
}

/* ---------------------------------------------------------------- print */

static void print_text(const count_args *args, const score_count_result *r)
{
    score_count_dead mode = r->dead_used;
    const rules_count *c = &r->count;
    char a[32], b[32], k[32];
    printf("Count of %s (%dx%d, from %s)\n", args->lib.input, c->size, c->size, r->source);
    if (!r->looks_finished) printf("NOT FINISHED? %s; the figures below count it as it stands.\n", r->not_finished);
    if (!strcmp(r->source, "photo"))
        printf("Stones read: %d black, %d white (see --overlay)\n", r->read_black, r->read_white);
    if (r->read_uncertain >= c->size * c->size) {
        /* (listing every point says nothing) */
        printf("UNCERTAIN: every point read with doubt (the board's lines are in doubt)\n");
    } else if (r->read_uncertain) {
        printf("UNCERTAIN: %d point%s read with doubt:", r->read_uncertain, r->read_uncertain == 1 ? "" : "s");
        for (int c = GS_EMPTY; c <= GS_WHITE; c++) print_points(&r->pos, r->read_unsure, (gs_color)c);
        printf(" (the Score line says what they change)\n");
    }
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
        printf("Dead stones: %s\n", mode == SCORE_COUNT_DEAD_NONE    ? "none (all stones on the board are alive)"
                                  : mode == SCORE_COUNT_DEAD_MARKS ? "as the SGF's TB/TW marks say"
                                                                    : "as the players decided");
    }
    if (r->estimate && r->est.captured_stones)
        printf("  (%d stone%s without any liberty: captured but still on the board, or misread)\n",
               r->est.captured_stones, r->est.captured_stones == 1 ? "" : "s");
    if (ndead) {
        printf("  black %d%s", c->dead_black, c->dead_black ? ":" : "");
        print_points(&r->pos, r->dead, GS_BLACK);
        printf("\n  white %d%s", c->dead_white, c->dead_white ? ":" : "");
        print_points(&r->pos, r->dead, GS_WHITE);
        printf("\n");
    }
    if (r->estimate && r->est.uncertain_chains) {
        printf("Uncertain (the playouts were split; look at these first):");
        print_points(&r->pos, r->est.uncertain, GS_BLACK);
        print_points(&r->pos, r->est.uncertain, GS_WHITE);
        printf("\n");
    }
    if (r->estimate && r->est.seki_stones) {
        printf("Seki (alive, shared liberties are dame): black");
        print_points(&r->pos, r->seki, GS_BLACK);
        printf("; white");
        print_points(&r->pos, r->seki, GS_WHITE);
        printf("\n");
    }
    score_count_stones_format(c->black, a, sizeof a);
    printf("Black: %d stone%s + %d point%s surrounded%s = %s\n", c->black_stones, c->black_stones == 1 ? "" : "s",
           c->black_territory, c->black_territory == 1 ? "" : "s",
           c->dame ? " + half the dame" : "", a);
    score_count_stones_format(c->white, b, sizeof b);
    printf("White: %d stone%s + %d point%s surrounded%s = %s\n", c->white_stones, c->white_stones == 1 ? "" : "s",
           c->white_territory, c->white_territory == 1 ? "" : "s",
           c->dame ? " + half the dame" : "", b);
    printf("Dame: %d\n", c->dame);
    score_count_stones_format(c->komi / 2, k, sizeof k);
    printf("Komi: %s stone%s (KM %.1f)", k, fabs(c->komi / 2 - 1) < 1e-9 ? "" : "s", c->komi);
    if (r->handicap > 0) {
        char h[32];
        score_count_stones_format(r->handicap / 2.0, h, sizeof h);
        printf("; handicap %d: Black gives back %s", r->handicap, h);
    }
    printf("\n");
    for (int i = 0; i < r->nwarnings && i < SCORE_MAX_WARNINGS; i++)
        printf("Warning: %s at move %d (ruling %s): 1 stone\n", rules_color_name(r->warnings[i].color),
               r->warnings[i].move_number, r->warnings[i].ruling);
    char half[32];
    score_count_stones_format(c->size * c->size / 2.0, half, sizeof half);
    printf("Result: %s (%s)%s\n", c->text, c->sgf, r->estimate && ndead ? " \xe2\x80\x94 ESTIMATE" : "");
    print_score(r);
    printf("Rule: Chinese rules, area counting in stones (Art. 9, 11): break-even %s\n", half);
}

static void print_json(const count_args *args, const score_count_result *r)
{
    const rules_count *c = &r->count;
    gs_buf b = {0};
    gs_buf_puts(&b, "{\"input\":");
    gs_json_str(&b, args->lib.input);
    gs_buf_printf(&b, ",\"source\":\"%s\",\"size\":%d,\"rules\":\"chinese-area\",\"dead_mode\":\"%s\",\"estimate\":%s",
                  r->source, c->size, score_count_dead_name(r->dead_used), r->estimate ? "true" : "false");
    gs_buf_printf(&b, ",\"finished\":%s,\"not_finished\":", r->looks_finished ? "true" : "false");
    gs_json_str(&b, r->not_finished);
    int wb = 0, ww = 0;
    for (int i = 0; i < r->nwarnings && i < SCORE_MAX_WARNINGS; i++) {
        wb += r->warnings[i].color == GS_BLACK;
        ww += r->warnings[i].color == GS_WHITE;
    }
    score_json_count(&b, c, r->handicap, wb, ww);
    score_json_points(&b, "dead_points", &r->pos, r->dead, GS_EMPTY);
    score_json_points(&b, "seki_points", &r->pos, r->seki, GS_EMPTY);
    if (!strcmp(r->source, "photo")) {
        gs_buf_printf(&b, ",\"read_uncertain_count\":%d", r->read_uncertain);
        score_json_points(&b, "read_uncertain", &r->pos, r->read_unsure, GS_EMPTY);
    }
    const score_count_range *g = &r->range;
    gs_buf_printf(&b, ",\"result_low\":\"%s\",\"result_high\":\"%s\",\"result_sure\":%s,\"winner_sure\":%s", g->low_sgf,
                  g->high_sgf, g->sure ? "true" : "false", g->winner_sure ? "true" : "false");
    gs_buf_printf(&b, ",\"range_unbounded\":%s,\"range_readings\":%d,\"range_reruns\":%d,\"range_ms\":%.1f,\"range_cpu_ms\":%.1f",
                  g->unbounded ? "true" : "false", g->readings, g->reruns, g->ms, g->cpu_ms);
    score_json_points(&b, "check_points", &r->pos, g->check, GS_EMPTY);
    score_json_points(&b, "winner_points", &r->pos, g->winner, GS_EMPTY);
    if (r->estimate) {
        gs_buf_printf(&b, ",\"playouts\":%d,\"estimate_ms\":%.1f,\"uncertain_chains\":%d", r->est.playouts, r->est.ms,
                      r->est.uncertain_chains);
        score_json_points(&b, "uncertain_points", &r->pos, r->est.uncertain, GS_EMPTY);
        /* mean area owner per point over the playouts, +1 Black .. -1 White */
        gs_buf_puts(&b, ",\"ownership\":[");
        for (int y = 0; y < c->size; y++) {
            gs_buf_printf(&b, "%s[", y ? "," : "");
            for (int x = 0; x < c->size; x++) gs_buf_printf(&b, "%s%.2f", x ? "," : "", r->est.ownership[y * c->size + x]);
            gs_buf_puts(&b, "]");
        }
        gs_buf_puts(&b, "]");
    }
    if (!strcmp(r->source, "photo")) score_json_sides(&b, "read", r->read_black, r->read_white);
    gs_buf_puts(&b, ",\"recorded_result\":");
    gs_json_str(&b, r->file_result);
    gs_buf_printf(&b, ",\"ms\":%.1f}\n", r->ms);
    if (gs_buf_ok(&b) && b.p) fputs(b.p, stdout);
    else cli_error("count: out of memory for the JSON");
    gs_buf_free(&b);
}

int cmd_count(int argc, char **argv)
{
    count_args args;
    int rc = parse_args(argc, argv, &args);
    if (rc >= 0) return rc;
    score_count_result *r = calloc(1, sizeof *r);
    if (!r) {
        cli_error("count: out of memory");
        return GS_EXIT_ERROR;
    }
    gs_error err = {0};
    gs_status st = score_count_run(&args.lib, r, &err);
    if (st != GS_OK) {
        if (r->error_file) cli_error("%s: %s", r->error_file, err.msg);
        else cli_error("%s", err.msg);
        free(r);
        return gs_status_exit_code(st);
    }
    if (args.json) print_json(&args, r);
    else print_text(&args, r);
    if (!r->range.sure)
        fprintf(stderr, "goscribe: warning: the count is uncertain: %s to %s (%d point%s read with doubt, %d chain%s "
                "of unsettled life)\n", r->range.low_sgf, r->range.high_sgf, r->read_uncertain,
                r->read_uncertain == 1 ? "" : "s", r->estimate ? r->est.uncertain_chains : 0,
                r->estimate && r->est.uncertain_chains == 1 ? "" : "s");
    rc = r->range.sure ? GS_EXIT_OK : GS_EXIT_UNSURE;
    free(r);
    return rc;
}
