/* cli/cmd_check.c: `goscribe check GAME.sgf`: replays the main line through
 * the rules (rules_replay), lists illegal moves and counts the final board
 * with the dead stones taken from the last node's TB/TW marks. */
#include "cli/cli.h"
#include "sgf/sgf.h"
#include "rules/rules.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void help(FILE *f)
{
    fprintf(f,
            "usage: goscribe check GAME.sgf [--json] [--komi K] [--cycles forbid|flag]\n"
            "  Replays the main line under Chinese rules (captures, suicide, positional\n"
            "  superko), lists every illegal move (number, colour, point, rule), and counts\n"
            "  the final position by area: stones inside the other side's TB/TW marks of\n"
            "  the last node are dead; without marks every stone is alive.\n"
            "  --json      one JSON object: result, black, white, dame, komi, illegal, events...\n"
            "  --komi K    komi in points (SGF KM; 7.5 = 3 3/4 stones). Default: the file's KM,\n"
            "              else 7.5\n"
            "  --cycles    forbid (default): any repetition is illegal; flag: long cycles\n"
            "              (triple ko, eternal life) are played and reported as events\n"
            "exit: 0 checked (illegal moves are findings, not errors), 1 usage or I/O error,\n"
            "      2 the file holds no game or an unsupported board\n");
}

static void json_issue(const rules_replay_issue *e, int size, bool illegal)
{
    char sgf[3], h[8];
    rules_point_sgf(e->move.pt, sgf);
    rules_point_human(e->move.pt, size, h);
    printf("{\"move\":%d,\"color\":\"%s\",\"point\":", e->move_number, e->move.color == GS_BLACK ? "B" : "W");
    gs_json_write_string(stdout, e->move.pass ? "" : sgf);
    printf(",\"coord\":");
    gs_json_write_string(stdout, e->move.pass ? "pass" : h);
    if (illegal) {
        printf(",\"rule\":");
        gs_json_write_string(stdout, rules_legality_name(e->why));
    }
    printf(",\"type\":");
    gs_json_write_string(stdout, rules_event_code(e->event));
    printf(",\"article\":");
    gs_json_write_string(stdout, e->article ? e->article : "");
    printf(",\"text\":");
    gs_json_write_string(stdout, e->text);
    putchar('}');
}

int cmd_check(int argc, char **argv)
{
    const char *path = NULL;
    bool json = false, have_komi = false;
    double komi = 0;
    rules_ko_policy policy = RULES_KO_FORBID;
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            help(stdout);
            return GS_EXIT_OK;
        } else if (!strcmp(argv[i], "--json")) {
            json = true;
        } else if (!strcmp(argv[i], "--komi")) {
            if (i + 1 >= argc || cli_parse_double(argv[i + 1], -1000, 1000, &komi)) {
                cli_error("check: --komi wants a number of points (e.g. 7.5)");
                return GS_EXIT_ERROR;
            }
            i++;
            have_komi = true;
        } else if (!strcmp(argv[i], "--cycles")) {
            if (i + 1 < argc && !strcmp(argv[i + 1], "forbid")) policy = RULES_KO_FORBID;
            else if (i + 1 < argc && !strcmp(argv[i + 1], "flag")) policy = RULES_KO_FLAG_CYCLE;
            else {
                cli_error("check: --cycles wants forbid or flag");
                return GS_EXIT_ERROR;
            }
            i++;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            cli_error("check: unknown option '%s' (try goscribe check --help)", argv[i]);
            return GS_EXIT_ERROR;
        } else if (!path) {
            path = argv[i];
        } else {
            cli_error("check: one SGF file at a time ('%s' is extra)", argv[i]);
            return GS_EXIT_ERROR;
        }
    }
    if (!path) {
        cli_error("check: no SGF file given (usage: goscribe check GAME.sgf [--json] [--komi K])");
        return GS_EXIT_ERROR;
    }
    sgf_game sg;
    memset(&sg, 0, sizeof sg);
    gs_error err = {0};
    gs_status s = sgf_game_load(path, &sg, &err);
    if (s != GS_OK) {
        cli_error("%s: %s", path, err.msg);
        sgf_game_free(&sg);
        return gs_status_exit_code(s);
    }
    int size = sg.info.size;
    if (size < RULES_MIN_SIZE || size > RULES_MAX_SIZE) {
        cli_error("%s: board size %d not supported (5..25)", path, size);
        sgf_game_free(&sg);
        return GS_EXIT_NOBOARD;
    }
    if (!have_komi) komi = sg.info.has_komi ? sg.info.komi : RULES_DEFAULT_KOMI;
    rules_replay_report *rep = malloc(sizeof *rep);
    if (!rep) {
        cli_error("%s: out of memory", path);
        sgf_game_free(&sg);
        return GS_EXIT_ERROR;
    }
    rules_replay_input in = {
        .size = size,
        .komi = komi,
        .handicap = sg.info.handicap,
        .setup = &sg.setup,
        .moves = sg.moves,
        .nmoves = (int)sg.move_count,
        .final_marks = sg.has_final_marks ? &sg.final_marks : NULL,
        .ko_policy = policy,
    };
    s = rules_replay(&in, rep, &err);
    if (s != GS_OK) {
        cli_error("%s: %s", path, err.msg);
        free(rep);
        sgf_game_free(&sg);
        return s == GS_ERR_NOMEM ? GS_EXIT_ERROR : GS_EXIT_NOBOARD;
    }
    const rules_count *c = &rep->count;
    double rec;
    bool rec_numeric = rules_parse_result_points(sg.info.result, &rec);
    bool match = rec_numeric && fabs(rec - c->margin_stones * 2) < 1e-6;
    int nil = rep->nillegal < RULES_REPLAY_MAX_ITEMS ? rep->nillegal : RULES_REPLAY_MAX_ITEMS;
    int nev = rep->nevents < RULES_REPLAY_MAX_ITEMS ? rep->nevents : RULES_REPLAY_MAX_ITEMS;
    if (json) {
        printf("{\"file\":");
        gs_json_write_string(stdout, path);
        printf(",\"size\":%d,\"moves\":%zu,\"komi\":%g,\"handicap\":%d", size, sg.move_count, komi, sg.info.handicap);
        printf(",\"result\":");
        gs_json_write_string(stdout, c->sgf);
        printf(",\"result_text\":");
        gs_json_write_string(stdout, c->text);
        printf(",\"black\":%g,\"white\":%g,\"dame\":%d", c->black, c->white, c->dame);
        printf(",\"black_stones\":%d,\"white_stones\":%d,\"black_territory\":%d,\"white_territory\":%d",
               c->black_stones, c->white_stones, c->black_territory, c->white_territory);
        printf(",\"dead_black\":%d,\"dead_white\":%d,\"dead_from_marks\":%s", c->dead_black, c->dead_white,
               rep->dead_from_marks ? "true" : "false");
        printf(",\"margin_stones\":%g,\"recorded_result\":", c->margin_stones);
        gs_json_write_string(stdout, sg.info.result);
        printf(",\"matches_record\":%s", rec_numeric ? (match ? "true" : "false") : "null");
        printf(",\"illegal_count\":%d,\"illegal\":[", rep->nillegal);
        for (int i = 0; i < nil; i++) {
            if (i) putchar(',');
            json_issue(&rep->illegal[i], size, true);
        }
        printf("],\"events\":[");
        for (int i = 0; i < nev; i++) {
            if (i) putchar(',');
            json_issue(&rep->events[i], size, false);
        }
        printf("]}\n");
    } else {
        printf("%s: %dx%d, %zu moves, komi %g (%g stones)%s%s\n", path, size, size, sg.move_count, komi, komi / 2,
               sg.info.handicap ? ", handicap " : "", sg.info.handicap ? "yes" : "");
        if (rep->nillegal == 0) printf("illegal moves: none\n");
        else printf("illegal moves: %d\n", rep->nillegal);
        for (int i = 0; i < nil; i++) printf("  %s [%s]\n", rep->illegal[i].text, rep->illegal[i].article);
        for (int i = 0; i < nev; i++) printf("  note: %s [%s]\n", rep->events[i].text, rep->events[i].article);
        printf("count (%s): Black %g = %d stones + %d territory + %d/2 dame; White %g = %d + %d + %d/2\n",
               rep->dead_from_marks ? "dead stones from TB/TW marks" : "all stones alive", c->black, c->black_stones,
               c->black_territory, c->dame, c->white, c->white_stones, c->white_territory, c->dame);
        if (c->dead_black || c->dead_white)
            printf("dead stones removed: %d black, %d white\n", c->dead_black, c->dead_white);
        printf("result: %s (%s)", c->sgf, c->text);
        if (sg.info.result[0])
            printf("; recorded RE[%s]%s", sg.info.result, rec_numeric ? (match ? ": matches" : ": DIFFERS") : "");
        printf("\n");
    }
    free(rep);
    sgf_game_free(&sg);
    return GS_EXIT_OK;
}
