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
            "Usage: goscribe count PHOTO|GAME.sgf|GRID.txt|SCAN.json [options]\n"
            "\n"
            "Counts a finished board under the Chinese rules: each side's living stones\n"
            "plus the empty points they surround, dame split half each, in stones; the\n"
            "result in stones and in SGF form.  The input is a photo (the board is read\n"
            "as by `goscribe scan`), an SGF file (its final position), a grid .txt (the\n"
            "output of `goscribe scan`: a '?' after a token marks a point read with\n"
            "doubt) or the output of `goscribe scan --json`.  The dead stones, by\n"
            "default: an SGF's final TB/TW marks when it has them, all stones alive when\n"
            "it records a counted result without marks (as `check`), else --dead auto.\n"
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
            "  --overlay OUT.png    draw each side's area, the dead stones and the points\n"
            "                       to check: over the photo, or a diagram of the board\n"
            "  --sgf OUT.sgf        write the position (AB/AW) with TB/TW, KM and RE\n"
            "  --json               print the count as one JSON object\n"
            CLI_SIZE_CORNERS_HELP
            CLI_CORNERS_HELP
            "  --serve [ADDR:]PORT  open the count page (for a phone): the photo with the\n"
            "                       reading drawn on it; tap a point to set it, a stone's\n"
            "                       chain to kill it; Confirm writes the SGF (--sgf, else\n"
            "                       PHOTO.sgf) and prints the count, then the command ends\n"
            "  --token T            the count page's token (8 to 64 characters; default:\n"
            "                       random, printed)\n"
            "  --allow-host NAME    the count page also answers to the name NAME\n"
            "  --playouts N         playouts for --dead auto (default 1000, at most 0.5 s CPU)\n"
            "  --seed S             random seed for --dead auto (default fixed: repeatable)\n"
            "  --plausible P        photo: a point read with doubt enters the Score's range\n"
            "                       only when its next likeliest colour has probability P\n"
            "                       or more (0..1, default 0.05; 0: every one); the points\n"
            "                       left out are listed.  The probability is the point model's\n"
            CLI_MAX_PIXELS_HELP
            CLI_MODEL_HELP
            "\n"
            "The Score line gives the result over the readings the doubt allows: each\n"
            "point read with doubt, and each chain of them, read as its next likeliest\n"
            "colour, and each chain whose life the estimate cannot settle counted both\n"
            "ways: \"B+8.5 (sure)\", \"B+8.5, between B+6.5 and B+10.5: Black wins either\n"
            "way\" or \"W+0.5 to B+1.5: check points D4 E5\".  A board that does not look\n"
            "finished (few stones, a large open area, many dame, unsettled chains) is\n"
            "counted as it stands and never sure.  Exit code 3 whenever the result is\n"
            "not sure.\n"
            CLI_EXIT_CODES CLI_EXIT_0 CLI_EXIT_1 CLI_EXIT_2 CLI_EXIT_3);
}

/* The command line: the library's options plus how to print. */
typedef struct count_args {
    score_count_options lib;
    bool json;
    long size;
    cli_count_serve serve;   /* --serve, --token, --allow-host */
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
        bad = cli_parse_size("count", v, CLI_SIZE_CORNERS, &args->size);
        o->size_hint = (int)args->size;
    } else if (!strcmp(a, "--corners")) {
        bad = cli_parse_corners("count", v, o->corners);
        o->has_corners = !bad;
    } else if (!strcmp(a, "--serve")) {
        bad = cli_parse_serve("count", v, args->serve.bind, sizeof args->serve.bind, &args->serve.port);
        args->serve.on = !bad;
    } else if (!strcmp(a, "--token")) {
        args->serve.token = v;
    } else if (!strcmp(a, "--allow-host")) {
        bad = cli_add_allow_host("count", v, args->serve.hosts, &args->serve.nhosts);
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
    } else if (!strcmp(a, "--model")) {
        o->model_file = v;
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
        static const char *const valued[] = {"--komi", "--handicap", "--dead", "--overlay", "--sgf", "--size",
                                             "--playouts", "--seed", "--plausible", "--max-pixels", "--corners",
                                             "--serve", "--token", "--allow-host", "--model", NULL};
        int k = 0;
        while (valued[k] && strcmp(a, valued[k])) k++;
        if (valued[k]) {
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
    if (cli_check_size("count", args->size, CLI_SIZE_CORNERS, args->lib.has_corners)) return GS_EXIT_ERROR;
    if ((args->serve.token || args->serve.nhosts) && !args->serve.on) {
        cli_error("count: --token and --allow-host go with --serve");
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

/* ---------------------------------------------------------------- print */

/* The Score line (score_count_score_line). */
static void print_score(const score_count_result *r)
{
    gs_buf b = {0};
    score_count_score_line(&b, r);
    if (gs_buf_ok(&b) && b.p) printf("%s\n", b.p);
    gs_buf_free(&b);
}

/* What was read: the stones, the points in doubt, those --plausible
 * leaves out, those someone set by hand. */
static void print_reading(const score_count_result *r)
{
    int n = r->pos.size * r->pos.size;
    if (strcmp(r->source, "sgf"))
        printf("Stones read: %d black, %d white (see --overlay)\n", r->read_black, r->read_white);
    if (r->read_uncertain >= n) {
        /* (listing every point says nothing) */
        printf("UNCERTAIN: every point read with doubt (the board's lines are in doubt)\n");
    } else if (r->read_uncertain) {
        printf("UNCERTAIN: %d point%s read with doubt:", r->read_uncertain, r->read_uncertain == 1 ? "" : "s");
        for (int c = GS_EMPTY; c <= GS_WHITE; c++) print_points(&r->pos, r->read_unsure, (gs_color)c);
        printf(" (the Score line says what they change)\n");
    }
    if (r->nleft_out) {
        printf("Left out of the range (their next likeliest colour is less likely than --plausible):");
        for (int c = GS_EMPTY; c <= GS_WHITE; c++) print_points(&r->pos, r->left_out, (gs_color)c);
        printf("\n");
    }
    if (r->nfixed) {
        printf("Set by hand:");
        for (int c = GS_EMPTY; c <= GS_WHITE; c++) print_points(&r->pos, r->fixed, (gs_color)c);
        printf("\n");
    }
    if (r->confirmed)
        printf("Confirmed by hand on the count page%s%s\n", r->confirmed_by[0] ? " by " : "", r->confirmed_by);
}

/* Where the dead stones come from, which they are, and the chains the
 * estimate could not settle or found in seki. */
static void print_dead(const score_count_result *r)
{
    const rules_count *c = &r->count;
    int ndead = c->dead_black + c->dead_white;
    if (r->confirmed)
        printf("Dead stones: as confirmed by hand\n");
    else if (r->estimate && ndead)
        printf("Dead stones: ESTIMATE \xe2\x80\x94 players must confirm (%d playouts, %.0f ms)\n", r->est.playouts,
               r->est.ms);
    else if (r->estimate)
        printf("Dead stones: none found by the estimate (%d playouts) \xe2\x80\x94 players must confirm\n",
               r->est.playouts);
    else
        printf("Dead stones: %s\n", r->dead_used == SCORE_COUNT_DEAD_NONE    ? "none (all stones on the board are alive)"
                                    : r->dead_used == SCORE_COUNT_DEAD_MARKS ? "as the SGF's TB/TW marks say"
                                                                             : "as the players decided");
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
}

/* Each side's area, dame, komi, handicap and warnings. */
static void print_figures(const score_count_result *r)
{
    const rules_count *c = &r->count;
    char a[32], b[32], k[32];
    score_count_stones_format(c->black, a, sizeof a);
    printf("Black: %d stone%s + %d point%s surrounded%s = %s\n", c->black_stones, c->black_stones == 1 ? "" : "s",
           c->black_territory, c->black_territory == 1 ? "" : "s", c->dame ? " + half the dame" : "", a);
    score_count_stones_format(c->white, b, sizeof b);
    printf("White: %d stone%s + %d point%s surrounded%s = %s\n", c->white_stones, c->white_stones == 1 ? "" : "s",
           c->white_territory, c->white_territory == 1 ? "" : "s", c->dame ? " + half the dame" : "", b);
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
}

static void print_text(const count_args *args, const score_count_result *r)
{
    const rules_count *c = &r->count;
    printf("Count of %s (%dx%d, from %s)\n", args->lib.input, c->size, c->size, r->source);
    if (!r->looks_finished) printf("NOT FINISHED? %s; the figures below count it as it stands.\n", r->not_finished);
    print_reading(r);
    print_dead(r);
    print_figures(r);
    char half[32];
    score_count_stones_format(c->size * c->size / 2.0, half, sizeof half);
    bool estimate = r->estimate && !r->confirmed && c->dead_black + c->dead_white;
    printf("Result: %s (%s)%s\n", c->text, c->sgf, estimate ? " \xe2\x80\x94 ESTIMATE" : "");
    print_score(r);
    printf("Rule: Chinese rules, area counting in stones (Art. 9, 11): break-even %s\n", half);
}

static void print_json(const count_args *args, const score_count_result *r)
{
    gs_buf b = {0};
    gs_buf_puts(&b, "{\"input\":");
    gs_json_str(&b, args->lib.input);
    score_json_count_result(&b, r);
    gs_buf_printf(&b, ",\"ms\":%.1f}\n", r->ms);
    if (gs_buf_ok(&b) && b.p) fputs(b.p, stdout);
    else cli_error("count: out of memory for the JSON");
    gs_buf_free(&b);
}

/* The warning on stderr of a count that is not sure: its range and why. */
static void warn_unsure(const score_count_result *r)
{
    char range[64];
    score_count_range_text(&r->range, range, sizeof range);
    int chains = r->estimate ? r->est.uncertain_chains : 0;
    fprintf(stderr, "goscribe: warning: the count is not sure: %s (%d point%s read with doubt, %d chain%s of unsettled "
            "life%s)\n", range, r->read_uncertain, r->read_uncertain == 1 ? "" : "s", chains, chains == 1 ? "" : "s",
            r->looks_finished ? "" : "; the game does not look finished");
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
    gs_status st = GS_OK;
    if (args.serve.on) {
        rc = cli_count_serve_run(&args.serve, &args.lib, r);
        if (rc >= 0) {
            free(r);
            return rc;
        }
    } else {
        st = score_count_run(&args.lib, r, &err);
    }
    if (st != GS_OK) {
        if (r->error_file) cli_error("%s: %s", r->error_file, err.msg);
        else cli_error("%s", err.msg);
        free(r);
        return gs_status_exit_code(st);
    }
    if (args.json) print_json(&args, r);
    else print_text(&args, r);
    /* the one rule of exit code 3: the answer is not sure (the output
     * says what to check) */
    if (!r->range.sure) warn_unsure(r);
    rc = r->range.sure ? GS_EXIT_OK : GS_EXIT_UNSURE;
    free(r);
    return rc;
}
