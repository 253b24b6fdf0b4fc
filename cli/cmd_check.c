/* cli/cmd_check.c: `goscribe check GAME.sgf`: replays the main line through
 * the rules, lists illegal moves and counts the final board with the dead
 * stones taken from the last node's TB/TW marks.  The work is
 * score_check_file (record/record.h); this file parses and prints. */
#include "cli/cli.h"
#include "record/record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void help(FILE *f)
{
    fprintf(f,
            "Usage: goscribe check GAME.sgf [options]\n"
            "\n"
            "Replays the main line under Chinese rules (captures, suicide, positional\n"
            "superko), lists every illegal move (number, colour, point, rule) and the\n"
            "referee events, signals and rulings the file records, and counts the final\n"
            "position by area: stones inside the other side's TB/TW marks of the last\n"
            "node are dead; without marks every stone is alive.  Illegal moves are\n"
            "findings, not errors.\n"
            "\n"
            "Options:\n"
            CLI_HELP_OPTION
            "  --json               one JSON object (doc/json.md): result, area, stones,\n"
            "                       territory, dead, dame, komi, warnings, illegal, events,\n"
            "                       rulings...\n"
            "  --komi K             komi in SGF points, 7.5 = 3 3/4 stones (default: the\n"
            "                       file's KM, else 7.5)\n"
            "  --cycles forbid|flag\n"
            "                       forbid (default): any repetition is illegal; flag: long\n"
            "                       cycles (triple ko, eternal life) are played and reported\n"
            CLI_EXIT_CODES CLI_EXIT_0 CLI_EXIT_1 CLI_EXIT_2);
}

/* One finding of the replay: an illegal move (with its rule) or a note. */
static void json_issue(gs_buf *b, const rules_replay_issue *e, int size, bool illegal)
{
    gs_buf_printf(b, "{\"move_number\":%d,\"color\":\"%s\"", e->move_number, score_json_color(e->move.color));
    score_json_point(b, e->move.pt, e->move.pass, size);
    if (illegal) {
        gs_buf_puts(b, ",\"rule\":");
        gs_json_str(b, rules_legality_name(e->why));
    }
    gs_buf_puts(b, ",\"code\":");
    gs_json_str(b, rules_event_code(e->event));
    gs_buf_puts(b, ",\"article\":");
    gs_json_str(b, e->article ? e->article : "");
    gs_buf_puts(b, ",\"text\":");
    gs_json_str(b, e->text);
    gs_buf_puts(b, "}");
}

/* The events (GSEV) and the rulings (GSRL) the file records. */
static void json_notes(gs_buf *b, const score_check_result *r)
{
    int n = r->nnotes < SCORE_MAX_NOTES ? r->nnotes : SCORE_MAX_NOTES;
    for (int pass = 0; pass < 2; pass++) {
        gs_buf_printf(b, ",\"%s\":[", pass ? "rulings" : "events");
        int k = 0;
        for (int i = 0; i < n; i++) {
            const score_check_note *x = &r->notes[i];
            if (x->ruling != (pass == 1)) continue;
            gs_buf_printf(b, "%s{\"move_number\":%d,\"%s\":", k++ ? "," : "", x->move_number,
                          x->ruling ? "ruling" : "code");
            gs_json_str(b, x->code);
            if (x->ruling) {
                gs_buf_printf(b, ",\"color\":\"%s\",\"warning\":%s}", score_json_color(x->color),
                              x->warned ? "true" : "false");
            } else {
                gs_buf_puts(b, ",\"detail\":");
                gs_json_str(b, x->detail);
                gs_buf_puts(b, "}");
            }
        }
        gs_buf_puts(b, "]");
    }
}

/* The command line: the library's options plus how to print. */
typedef struct check_args {
    const char *path;
    bool json;
    score_check_options lib;
} check_args;

/* Parses argv into args; returns -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, check_args *a)
{
    memset(a, 0, sizeof *a);
    a->lib.ko_policy = RULES_KO_FORBID;
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            help(stdout);
            return GS_EXIT_OK;
        } else if (!strcmp(argv[i], "--json")) {
            a->json = true;
        } else if (!strcmp(argv[i], "--komi")) {
            const char *v = cli_value("check", argc, argv, &i);
            if (!v || cli_parse_komi("check", v, &a->lib.komi)) return GS_EXIT_ERROR;
            a->lib.has_komi = true;
        } else if (!strcmp(argv[i], "--cycles")) {
            const char *v = cli_value("check", argc, argv, &i);
            if (v && !strcmp(v, "forbid")) a->lib.ko_policy = RULES_KO_FORBID;
            else if (v && !strcmp(v, "flag")) a->lib.ko_policy = RULES_KO_FLAG_CYCLE;
            else {
                if (v) cli_error("check: --cycles %s: expected forbid or flag", v);
                return GS_EXIT_ERROR;
            }
        } else if (argv[i][0] == '-' && argv[i][1]) {
            cli_error("check: unknown option %s (see goscribe check --help)", argv[i]);
            return GS_EXIT_ERROR;
        } else if (!a->path) {
            a->path = argv[i];
        } else {
            cli_error("check: one SGF file at a time ('%s' is extra)", argv[i]);
            return GS_EXIT_ERROR;
        }
    }
    if (!a->path) {
        cli_error("check: no SGF file given (see goscribe check --help)");
        return GS_EXIT_ERROR;
    }
    return -1;
}

static void print_json(const char *path, const score_check_result *r)
{
    const rules_replay_report *rep = &r->report;
    int nil = rep->nillegal < RULES_REPLAY_MAX_ITEMS ? rep->nillegal : RULES_REPLAY_MAX_ITEMS;
    int nev = rep->nevents < RULES_REPLAY_MAX_ITEMS ? rep->nevents : RULES_REPLAY_MAX_ITEMS;
    gs_buf b = {0};
    gs_buf_puts(&b, "{\"input\":");
    gs_json_str(&b, path);
    gs_buf_printf(&b, ",\"size\":%d,\"moves\":%zu,\"setup_nodes\":%d", r->size, r->moves, r->setup_steps);
    score_json_count(&b, &rep->count, r->handicap >= 2 ? r->handicap : 0, r->warnings_black, r->warnings_white);
    gs_buf_printf(&b, ",\"dead_from_marks\":%s", rep->dead_from_marks ? "true" : "false");
    score_json_points(&b, "dead_points", &rep->final_position, r->dead, GS_EMPTY);
    gs_buf_printf(&b, ",\"finished\":%s,\"not_finished\":", r->looks_finished ? "true" : "false");
    gs_json_str(&b, r->not_finished);
    gs_buf_puts(&b, ",\"recorded_result\":");
    gs_json_str(&b, r->recorded_result);
    gs_buf_printf(&b, ",\"matches_record\":%s", r->recorded_numeric ? (r->matches_record ? "true" : "false") : "null");
    gs_buf_printf(&b, ",\"illegal_count\":%d,\"illegal\":[", rep->nillegal);
    for (int i = 0; i < nil; i++) {
        if (i) gs_buf_puts(&b, ",");
        json_issue(&b, &rep->illegal[i], r->size, true);
    }
    gs_buf_puts(&b, "],\"notes\":[");
    for (int i = 0; i < nev; i++) {
        if (i) gs_buf_puts(&b, ",");
        json_issue(&b, &rep->events[i], r->size, false);
    }
    gs_buf_puts(&b, "]");
    json_notes(&b, r);
    gs_buf_puts(&b, ",\"text\":");
    gs_json_str(&b, r->words);
    gs_buf_puts(&b, "}\n");
    if (gs_buf_ok(&b) && b.p) fputs(b.p, stdout);
    else cli_error("check: out of memory for the JSON");
    gs_buf_free(&b);
}

static void print_text(const char *path, const score_check_result *r)
{
    const rules_replay_report *rep = &r->report;
    const rules_count *c = &rep->count;
    int nil = rep->nillegal < RULES_REPLAY_MAX_ITEMS ? rep->nillegal : RULES_REPLAY_MAX_ITEMS;
    int nev = rep->nevents < RULES_REPLAY_MAX_ITEMS ? rep->nevents : RULES_REPLAY_MAX_ITEMS;
    printf("%s: %dx%d, %zu moves, komi %g (%g stones)", path, r->size, r->size, r->moves, r->komi, r->komi / 2);
    if (r->handicap >= 2) printf(", handicap %d stones", r->handicap);
    printf("\n");
    if (rep->nillegal == 0) printf("illegal moves: none\n");
    else printf("illegal moves: %d\n", rep->nillegal);
    for (int i = 0; i < nil; i++) printf("  %s [%s]\n", rep->illegal[i].text, rep->illegal[i].article);
    for (int i = 0; i < nev; i++) printf("  note: %s [%s]\n", rep->events[i].text, rep->events[i].article);
    /* the recorder's words: flagged referee events, end-of-game signals
     * (both GSEV in the file) and rulings (GSRL), counted apart */
    int nflag = 0, nsig = 0, ngsrl = 0;
    for (int i = 0; i < r->nnotes && i < SCORE_MAX_NOTES; i++) {
        if (r->notes[i].ruling) ngsrl++;
        else if (record_event_is_signal(r->notes[i].code)) nsig++;
        else nflag++;
    }
    if (nflag || nsig || ngsrl)
        printf("recorded: %d flagged (referee event%s), %d end-of-game signal%s, %d ruling%s\n", nflag,
               nflag == 1 ? "" : "s", nsig, nsig == 1 ? "" : "s", ngsrl, ngsrl == 1 ? "" : "s");
    if (r->setup_steps) printf("set-up nodes after the root: %d (replayed in order)\n", r->setup_steps);
    for (int i = 0; i < r->nwarnings && i < SCORE_MAX_WARNINGS; i++)
        printf("warning: %s at move %d (ruling %s): 1 stone at the count\n", rules_color_name(r->warnings[i].color),
               r->warnings[i].move_number, r->warnings[i].ruling);
    if (!r->looks_finished) printf("not finished? %s\n", r->not_finished);
    printf("count (%s): Black %g = %d stones + %d territory + %d/2 dame; White %g = %d + %d + %d/2\n",
           rep->dead_from_marks ? "dead stones from TB/TW marks" : "all stones alive", c->black, c->black_stones,
           c->black_territory, c->dame, c->white, c->white_stones, c->white_territory, c->dame);
    if (c->dead_black || c->dead_white)
        printf("dead stones removed: %d black, %d white\n", c->dead_black, c->dead_white);
    if (c->winner == GS_EMPTY) printf("result: RE[%s], a draw (the count equals the break-even)", c->sgf);
    else printf("result: RE[%s], %s", c->sgf, c->text);
    if (r->recorded_result[0])
        printf("; recorded RE[%s]%s", r->recorded_result,
               r->recorded_numeric ? (r->matches_record ? ": matches" : ": DIFFERS") : "");
    printf("\n");
}

int cmd_check(int argc, char **argv)
{
    check_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0) return rc;
    score_check_result *r = malloc(sizeof *r);
    if (!r) {
        cli_error("%s: out of memory", a.path);
        return GS_EXIT_ERROR;
    }
    gs_error err = {0};
    gs_status s = score_check_file(a.path, &a.lib, r, &err);
    if (s != GS_OK) {
        cli_error("%s: %s", a.path, err.msg);
        free(r);
        return gs_status_exit_code(s);
    }
    if (a.json) print_json(a.path, r);
    else print_text(a.path, r);
    free(r);
    return GS_EXIT_OK;
}
