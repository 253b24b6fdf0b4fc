/* record/recorder.c: settled positions -> rules referee -> SGF + events.
 * See recorder.h for the contract.  The SGF tree is grown node by node and
 * saved atomically after every change (sgf_save). */
#include "record/record.h"

#include "sgf/sgf.h"
#include "rules/rules.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define REC_NPTS (GS_MAX_SIZE * GS_MAX_SIZE)

struct record {
    record_options opt;
    char *sgf_path;
    char *evidence_dir;      /* NULL = none */
    bool evidence_ready;     /* directory created */
    int size;
    bool started, finished;
    rules_game *game;
    int move_offset;         /* moves recorded before the last resync */
    int last_capture_move;   /* number of the last move that captured */
    sgf_tree *tree;
    sgf_node *root, *last;   /* last = node new events attach to */
    /* node of each committed move (index = move number), for late flags */
    sgf_node **move_node;
    int n_move_node, cap_move_node;
    /* captured stones still on the board: cell colour and the move number
     * that captured them (0 = none) */
    uint8_t ghost_color[REC_NPTS];
    int ghost_move[REC_NPTS];
    bool ghost_flagged[REC_NPTS];
    /* points a referee ruling corrected in the record and the board has not
     * followed yet: read as the record says until it does */
    bool fix_pending[REC_NPTS];
    /* stones of the record seen empty with no capture explaining it: a
     * misread or a hand/shadow until confirmed (settled views in a row it
     * has been missing, time and move number when it was first missed) */
    int absent_views[REC_NPTS];
    double absent_t0[REC_NPTS];
    int absent_move[REC_NPTS];
    bool absent_flagged[REC_NPTS]; /* already flagged by another event */
    /* last irregular view flagged (not flagged twice), and whether the view
     * before this one was irregular (two in a row: resync to the board) */
    bool have_flagged;
    gs_position flagged_obs;
    bool have_pending;       /* an irregular view waiting for confirmation */
    gs_position pending_obs;
    gs_position last_obs;    /* last settled view, as seen */
    bool have_last_obs;
    bool to_move_guessed;
    bool ended;              /* end / two passes / resign: no more moves */
    gs_color resigned;
    bool forfeit;            /* lost on a second warning: no count */
    char result[24];
    gs_image *prev_frame, *cur_frame;
    double prev_t, cur_t;
    record_event *events;
    size_t n_events, cap_events, n_printed;
    int n_referee;
    rules_classification *cls;  /* big: kept on the heap */
    /* end-of-game signals already flagged, by colour (index gs_color) */
    bool confirm_seen[3], resign_seen[3];
};

void record_options_init(record_options *o)
{
    memset(o, 0, sizeof *o);
    o->to_move = GS_EMPTY;
}

/* ------------------------------------------------------------- helpers */

static const char *color_letter(gs_color c) { return c == GS_BLACK ? "B" : c == GS_WHITE ? "W" : "-"; }

static void fmt_time(double t_ms, char buf[24])
{
    if (!(t_ms >= 0) || t_ms > 3.6e9) t_ms = 0; /* keep the text short */
    int ds = (int)(t_ms / 100.0);
    snprintf(buf, 24, "%02d:%02d.%d", (ds / 600) % 100000, (ds / 10) % 60, ds % 10);
}

static int game_moves(const record *r) { return r->move_offset + (r->game ? rules_game_move_count(r->game) : 0); }

static void ensure_evidence_dir(record *r)
{
    if (!r->evidence_dir || r->evidence_ready) return;
    if (mkdir(r->evidence_dir, 0755) == 0 || errno == EEXIST) r->evidence_ready = true;
}

/* Saves the before/after frames of an event; fills prefix ("" if none). */
static void keep_evidence(record *r, int move_number, const char *code, char prefix[64])
{
    prefix[0] = 0;
    if (!r->evidence_dir || !r->cur_frame) return;
    ensure_evidence_dir(r);
    if (!r->evidence_ready) return;
    /* events of one move share a number; a counter keeps names unique */
    snprintf(prefix, 64, "%04d-%s-%zu", move_number, code, r->n_events);
    size_t len = strlen(r->evidence_dir) + 96;
    char *path = malloc(len);
    if (!path) { prefix[0] = 0; return; }
    gs_error e;
    if (r->prev_frame) {
        snprintf(path, len, "%s/%s-before.png", r->evidence_dir, prefix);
        gs_image_write_png(r->prev_frame, path, &e);
    }
    snprintf(path, len, "%s/%s-after.png", r->evidence_dir, prefix);
    gs_image_write_png(r->cur_frame, path, &e);
    snprintf(path, len, "%s/%s.txt", r->evidence_dir, prefix);
    FILE *f = fopen(path, "w");
    if (f) {
        char tb[24];
        fmt_time(r->prev_t, tb);
        fprintf(f, "event %s at move %d\nbefore %s (%.0f ms)\n", code, move_number, tb, r->prev_t);
        fmt_time(r->cur_t, tb);
        fprintf(f, "after %s (%.0f ms)\n", tb, r->cur_t);
        gs_position pos;
        char buf[REC_NPTS * 2 + 2];
        if (r->game) {
            rules_game_position(r->game, &pos);
            gs_position_format(&pos, buf, sizeof buf);
            fprintf(f, "record:\n%s\n", buf);
        }
        if (r->have_last_obs) {
            gs_position_format(&r->last_obs, buf, sizeof buf);
            fprintf(f, "seen:\n%s\n", buf);
        }
        fclose(f);
    }
    free(path);
}

/* Appends an event, prints its line, keeps evidence for referee events. */
static record_event *add_event(record *r, record_event_kind kind, const char *code, int move_number,
                                 gs_color color, gs_point pt, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

static record_event *add_event(record *r, record_event_kind kind, const char *code, int move_number,
                                 gs_color color, gs_point pt, const char *fmt, ...)
{
    if (r->n_events == r->cap_events) {
        size_t nc = r->cap_events ? r->cap_events * 2 : 64;
        record_event *ne = realloc(r->events, nc * sizeof *ne);
        if (!ne) return NULL;
        r->events = ne;
        r->cap_events = nc;
    }
    record_event *ev = &r->events[r->n_events];
    memset(ev, 0, sizeof *ev);
    ev->kind = kind;
    snprintf(ev->code, sizeof ev->code, "%s", code);
    ev->move_number = move_number;
    ev->color = color;
    ev->point = pt;
    ev->t_ms = r->cur_t;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ev->text, sizeof ev->text, fmt, ap);
    va_end(ap);
    if (kind == RECORD_EV_REFEREE || kind == RECORD_EV_SIGNAL) {
        r->n_referee += kind == RECORD_EV_REFEREE;
        keep_evidence(r, move_number, code, ev->evidence);
    }
    r->n_events++;
    return ev;
}

/* Prints the events not printed yet.  Called after the SGF was saved, so a
 * printed move is always in the file (the kill test relies on it). */
static void print_events(record *r)
{
    FILE *f = r->opt.out;
    for (; r->n_printed < r->n_events; r->n_printed++) {
        if (!f) continue;
        const record_event *ev = &r->events[r->n_printed];
        record_event_kind kind = ev->kind;
        int move_number = ev->move_number;
        gs_color color = ev->color;
        gs_point pt = ev->point;
        char tb[24];
        fmt_time(ev->t_ms, tb);
        static const char *const kinds[] = {"start", "move", "pass", "resign", "referee", "signal", "note", "end", "count", "ruling"};
        if (r->opt.json) {
            fprintf(f, "{\"t_ms\":%.0f,\"kind\":\"%s\",\"code\":", ev->t_ms, kinds[kind]);
            gs_json_write_string(f, ev->code);
            fprintf(f, ",\"move\":%d,\"color\":\"%s\"", move_number, color_letter(color));
            if (pt.x >= 0 && r->size > 0) {
                char h[8], s[3];
                rules_point_human(pt, r->size, h);
                rules_point_sgf(pt, s);
                fprintf(f, ",\"point\":\"%s\",\"sgf\":\"%s\"", h, s);
            }
            if (ev->evidence[0]) {
                fprintf(f, ",\"evidence\":");
                gs_json_write_string(f, ev->evidence);
            }
            fprintf(f, ",\"text\":");
            gs_json_write_string(f, ev->text);
            fprintf(f, "}\n");
        } else {
            const char *tag = kind == RECORD_EV_REFEREE ? "FLAG " : kind == RECORD_EV_SIGNAL ? "SIGNAL " : "";
            fprintf(f, "[%s] %s%s", tb, tag, ev->text);
            if (ev->evidence[0]) fprintf(f, " (evidence %s/%s-*.png)", r->evidence_dir, ev->evidence);
            fputc('\n', f);
        }
    }
    if (f) fflush(f);
}

static gs_status save(record *r, gs_error *err)
{
    if (!r->sgf_path || !r->tree) {
        print_events(r);
        return GS_OK;
    }
    gs_error e;
    gs_status st = sgf_save(r->tree, r->sgf_path, &e);
    print_events(r); /* also on failure: the operator must see what happened */
    if (st != GS_OK) return gs_error_set(err, GS_ERR_IO, "%s: %s", r->sgf_path, e.msg);
    return GS_OK;
}

static sgf_node *node_of_move(record *r, int move_number)
{
    if (move_number > 0 && move_number < r->n_move_node && r->move_node[move_number]) return r->move_node[move_number];
    return move_number <= 0 ? r->root : r->last;
}

static void remember_node(record *r, int move_number, sgf_node *n)
{
    if (move_number >= r->cap_move_node) {
        int nc = r->cap_move_node ? r->cap_move_node * 2 : 256;
        while (nc <= move_number) nc *= 2;
        sgf_node **nn = realloc(r->move_node, (size_t)nc * sizeof *nn);
        if (!nn) return;
        memset(nn + r->cap_move_node, 0, (size_t)(nc - r->cap_move_node) * sizeof *nn);
        r->move_node = nn;
        r->cap_move_node = nc;
    }
    r->move_node[move_number] = n;
    if (move_number >= r->n_move_node) r->n_move_node = move_number + 1;
}

/* Flags a referee event: line, evidence, SGF GSEV + comment on the node of
 * the move concerned. */
static void flag(record *r, const char *code, int move_number, gs_color c, gs_point pt, const char *words,
                 const char *detail)
{
    /* one irregularity seen in several views is flagged once */
    for (size_t i = 0; i < r->n_events; i++) {
        const record_event *ev = &r->events[i];
        if (ev->kind == RECORD_EV_REFEREE && ev->move_number == move_number && !strcmp(ev->code, code) &&
            ev->point.x == pt.x && ev->point.y == pt.y)
            return;
    }
    char h[8] = "";
    if (pt.x >= 0) rules_point_human(pt, r->size, h);
    add_event(r, RECORD_EV_REFEREE, code, move_number, c, pt, "%s at move %d%s%s: %s", code, move_number,
              h[0] ? " " : "", h, words);
    gs_error e;
    sgf_node *n = node_of_move(r, move_number);
    if (n) sgf_add_event(n, code, detail, words, &e);
}

/* ---------------------------------------------------------- the game */

static gs_status new_game_from(record *r, const gs_position *pos, gs_color to_move, int handicap, gs_error *err)
{
    rules_game_destroy(r->game);
    r->game = rules_game_create(r->size, err);
    if (!r->game) return err ? err->status : GS_ERR_NOMEM;
    double komi = r->opt.has_komi ? r->opt.komi : (handicap > 0 ? 0.0 : RULES_DEFAULT_KOMI);
    rules_game_set_komi(r->game, komi);
    for (int y = 0; y < r->size; y++)
        for (int x = 0; x < r->size; x++) {
            gs_color c = gs_position_get(pos, x, y);
            if (c == GS_EMPTY) continue;
            gs_error e;
            rules_game_setup(r->game, c, (gs_point){(int8_t)x, (int8_t)y}, &e);
        }
    if (handicap > 0) rules_game_set_handicap(r->game, handicap);
    rules_game_set_to_move(r->game, to_move);
    return GS_OK;
}

static gs_status start_game(record *r, const gs_position *pos, gs_error *err)
{
    if (r->size == 0) r->size = pos->size;
    int nb = gs_position_count(pos, GS_BLACK), nw = gs_position_count(pos, GS_WHITE);
    int handicap = 0;
    gs_color to_move = r->opt.to_move;
    r->to_move_guessed = false;
    if (nw == 0 && nb >= 2 && nb <= 9) {
        handicap = nb;
        if (to_move == GS_EMPTY) to_move = GS_WHITE;
    }
    if (to_move == GS_EMPTY) {
        if (nb == nw) to_move = GS_BLACK;
        else if (nb == nw + 1) to_move = GS_WHITE;
        else {
            to_move = nb > nw ? GS_WHITE : GS_BLACK;
            r->to_move_guessed = true;
        }
        /* counts can mislead (handicap games, passes): the first move seen
         * decides if it is the other colour */
        if (nb + nw > 0) r->to_move_guessed = true;
    }
    gs_status st = new_game_from(r, pos, to_move, handicap, err);
    if (st != GS_OK) return st;
    sgf_game_info info;
    sgf_game_info_init(&info);
    info.size = r->size;
    info.komi = rules_game_komi(r->game);
    info.has_komi = true;
    info.handicap = handicap;
    if (r->opt.black) snprintf(info.black, sizeof info.black, "%s", r->opt.black);
    if (r->opt.white) snprintf(info.white, sizeof info.white, "%s", r->opt.white);
    time_t now = time(NULL);
    struct tm tmv;
    if (gmtime_r(&now, &tmv)) strftime(info.date, sizeof info.date, "%Y-%m-%d", &tmv);
    sgf_tree_destroy(r->tree);
    r->tree = sgf_new_game(&info, (nb + nw) ? pos : NULL, &r->root, err);
    if (!r->tree) return err ? err->status : GS_ERR_NOMEM;
    if (to_move == GS_WHITE && (nb + nw)) {
        gs_error e;
        sgf_node_add_raw(r->root, "PL", "W", &e);
    }
    r->last = r->root;
    r->started = true;
    if (nb + nw == 0)
        add_event(r, RECORD_EV_START, "start", 0, to_move, (gs_point){-1, -1}, "start: empty %dx%d board, %s to move",
                  r->size, r->size, rules_color_name(to_move));
    else if (handicap)
        add_event(r, RECORD_EV_START, "start", 0, to_move, (gs_point){-1, -1},
                  "start: %d handicap stones, %s to move", handicap, rules_color_name(to_move));
    else
        add_event(r, RECORD_EV_START, "start", 0, to_move, (gs_point){-1, -1},
                  "start: %d black and %d white stones already on the board (setup), %s to move%s", nb, nw,
                  rules_color_name(to_move), r->to_move_guessed ? " (guessed from the counts)" : "");
    return save(r, err);
}

/* Resume: the file's game is replayed into the rules engine and its tree
 * kept, so earlier comments and events survive. */
static gs_status resume_game(record *r, gs_error *err)
{
    gs_error e;
    sgf_tree *t = NULL;
    /* a process killed mid-save may have left its temp file: nobody else
     * writes this game now */
    int stale = gs_file_remove_stale_temps(r->sgf_path);
    if (stale > 0)
        add_event(r, RECORD_EV_NOTE, "stale_temps", 0, GS_EMPTY, (gs_point){-1, -1},
                  "removed %d unfinished temp file%s of %s left by a killed recording", stale, stale == 1 ? "" : "s",
                  r->sgf_path);
    if (sgf_load(r->sgf_path, &t, &e) != GS_OK)
        return gs_error_set(err, e.status == GS_ERR_IO ? GS_ERR_IO : GS_ERR_FORMAT, "%s: %s", r->sgf_path, e.msg);
    sgf_game g;
    memset(&g, 0, sizeof g);
    if (sgf_game_from_tree(t, &g, &e) != GS_OK) {
        sgf_tree_destroy(t);
        return gs_error_set(err, e.status, "%s: %s", r->sgf_path, e.msg);
    }
    if (r->size && r->size != g.info.size) {
        sgf_game_free(&g);
        sgf_tree_destroy(t);
        return gs_error_set(err, GS_ERR_USAGE, "%s: board size %d, not %d", r->sgf_path, g.info.size, r->size);
    }
    r->size = g.info.size;
    if (!r->opt.has_komi && g.info.has_komi) {
        r->opt.komi = g.info.komi;
        r->opt.has_komi = true;
    }
    gs_color first = g.move_count ? g.moves[0].color
                     : (g.info.handicap > 0 ? GS_WHITE : GS_BLACK);
    gs_status st = new_game_from(r, &g.setup, first, g.info.handicap, err);
    if (st != GS_OK) {
        sgf_game_free(&g);
        sgf_tree_destroy(t);
        return st;
    }
    /* walk the main line alongside the moves to know each move's node */
    sgf_node *n = sgf_tree_root(t, 0);
    r->root = n;
    size_t mi = 0;
    for (sgf_node *c = sgf_node_child(n, 0); c; c = sgf_node_child(c, 0)) {
        if (!sgf_node_find(c, "B") && !sgf_node_find(c, "W")) { n = c; continue; }
        if (mi >= g.move_count) break;
        const gs_move *m = &g.moves[mi++];
        if (m->pass) rules_game_pass(r->game, m->color);
        else rules_game_play(r->game, m->color, m->pt, NULL);
        remember_node(r, game_moves(r), c);
        n = c;
    }
    r->last = sgf_node_main_line_last(r->root);
    r->tree = t;
    r->started = true;
    add_event(r, RECORD_EV_START, "resume", game_moves(r), rules_game_to_move(r->game), (gs_point){-1, -1},
              "resumed %s: %d moves, %s to move", r->sgf_path, game_moves(r),
              rules_color_name(rules_game_to_move(r->game)));
    sgf_game_free(&g);
    return GS_OK;
}

record *record_create(const record_options *opt, gs_error *err)
{
    record *r = calloc(1, sizeof *r);
    if (!r) {
        gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    record_options_init(&r->opt);
    if (opt) r->opt = *opt;
    r->size = r->opt.size;
    r->cls = malloc(sizeof *r->cls);
    if (!r->cls) goto nomem;
    if (r->size && (r->size < RULES_MIN_SIZE || r->size > GS_MAX_SIZE)) {
        gs_error_set(err, GS_ERR_USAGE, "board size %d out of range", r->size);
        record_destroy(r);
        return NULL;
    }
    if (r->opt.sgf_path) {
        if (!(r->sgf_path = strdup(r->opt.sgf_path))) goto nomem;
        if (!r->opt.evidence_dir) {
            size_t len = strlen(r->sgf_path);
            r->evidence_dir = malloc(len + 10);
            if (!r->evidence_dir) goto nomem;
            memcpy(r->evidence_dir, r->sgf_path, len + 1);
            if (len > 4 && !strcasecmp(r->evidence_dir + len - 4, ".sgf")) r->evidence_dir[len - 4] = 0;
            strcat(r->evidence_dir, ".evidence");
        }
    }
    if (r->opt.evidence_dir && r->opt.evidence_dir[0] && !(r->evidence_dir = strdup(r->opt.evidence_dir))) goto nomem;
    r->opt.sgf_path = r->opt.evidence_dir = NULL; /* use our copies */
    r->opt.black = r->opt.white = NULL;           /* only needed at start */
    if (opt) {
        r->opt.black = opt->black;
        r->opt.white = opt->white;
    }
    if (r->opt.resume) {
        if (!r->sgf_path) {
            gs_error_set(err, GS_ERR_USAGE, "--resume needs the SGF file");
            record_destroy(r);
            return NULL;
        }
        if (resume_game(r, err) != GS_OK) {
            record_destroy(r);
            return NULL;
        }
        print_events(r);
    }
    r->opt.black = r->opt.white = NULL;
    return r;
nomem:
    gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    record_destroy(r);
    return NULL;
}

void record_destroy(record *r)
{
    if (!r) return;
    rules_game_destroy(r->game);
    sgf_tree_destroy(r->tree);
    gs_image_destroy(r->prev_frame);
    gs_image_destroy(r->cur_frame);
    free(r->move_node);
    free(r->events);
    free(r->cls);
    free(r->sgf_path);
    free(r->evidence_dir);
    free(r);
}

/* Commits one move (already checked legal) to the game and the SGF. */
static gs_status commit_move(record *r, gs_color c, gs_point p, bool pass, bool announced, gs_error *err)
{
    gs_error e;
    rules_move_result *res = NULL;
    if (pass) {
        rules_game_pass(r->game, c);
    } else {
        res = malloc(sizeof *res);
        if (!res) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
        rules_legality l = rules_game_play(r->game, c, p, res);
        if (l != RULES_LEGAL) {
            free(res);
            return gs_error_set(err, GS_ERR_INTERNAL, "move not legal: %s", rules_legality_name(l));
        }
    }
    int num = game_moves(r);
    sgf_node *n = sgf_add_move(r->last, c, p, pass, gs_wall_ms(), &e);
    if (n) {
        r->last = n;
        remember_node(r, num, n);
    }
    if (pass) {
        add_event(r, RECORD_EV_PASS, "pass", num, c, (gs_point){-1, -1}, "move %d: %s passes%s", num, rules_color_name(c),
                  announced ? "" : " (not announced)");
    } else {
        char h[8];
        rules_point_human(p, r->size, h);
        if (res->ncaptured) r->last_capture_move = num;
        if (res->ncaptured)
            add_event(r, RECORD_EV_MOVE, "move", num, c, p, "move %d: %s %s, captures %d", num, rules_color_name(c), h,
                      res->ncaptured);
        else
            add_event(r, RECORD_EV_MOVE, "move", num, c, p, "move %d: %s %s", num, rules_color_name(c), h);
    }
    free(res);
    if (rules_game_two_passes(r->game)) {
        r->ended = true;
        add_event(r, RECORD_EV_END, "two_passes", num, GS_EMPTY, (gs_point){-1, -1}, "game over: two passes in a row");
    }
    return GS_OK;
}

/* Observed position with unreadable points and captured-but-not-yet-lifted
 * stones (ghosts) replaced by what the record says. */
static void clean_view(record *r, const gs_position *pos, const uint8_t *uncertain, gs_position *out)
{
    gs_position rec;
    rules_game_position(r->game, &rec);
    *out = *pos;
    int n = r->size * r->size;
    for (int i = 0; i < n; i++) {
        if (uncertain && uncertain[i]) out->cell[i] = rec.cell[i];
        if (r->fix_pending[i]) {
            if (pos->cell[i] == rec.cell[i]) r->fix_pending[i] = false; /* the board followed */
            else out->cell[i] = rec.cell[i];
        }
        if (r->ghost_move[i]) {
            if (out->cell[i] == r->ghost_color[i] && rec.cell[i] == GS_EMPTY) {
                out->cell[i] = GS_EMPTY; /* still there, being lifted */
            } else {
                r->ghost_move[i] = 0;    /* lifted (or changed): done */
                r->ghost_flagged[i] = false;
            }
        }
    }
}

/* Flags captures still on the board when the opponent moves (or at the
 * end): a missed capture belongs to the capturing move. */
static void flag_ghosts(record *r, const char *why)
{
    int n = r->size * r->size;
    for (int i = 0; i < n; i++) {
        if (!r->ghost_move[i] || r->ghost_flagged[i]) continue;
        int mv = r->ghost_move[i];
        gs_color c = (gs_color)r->ghost_color[i];
        int cnt = 0;
        char detail[160] = "";
        size_t dl = 0;
        gs_point first = {-1, -1};
        for (int j = i; j < n; j++) {
            if (r->ghost_move[j] != mv || r->ghost_flagged[j]) continue;
            r->ghost_flagged[j] = true;
            gs_point p = {(int8_t)(j % r->size), (int8_t)(j / r->size)};
            if (cnt == 0) first = p;
            char s[3];
            rules_point_sgf(p, s);
            if (dl + 4 < sizeof detail) dl += (size_t)snprintf(detail + dl, sizeof detail - dl, "%s%s", cnt ? " " : "", s);
            cnt++;
        }
        char words[200];
        snprintf(words, sizeof words, "%d captured %s stone%s still on the board %s (Art. 4: captured stones are removed)",
                 cnt, c == GS_BLACK ? "black" : "white", cnt > 1 ? "s" : "", why);
        flag(r, "missed_capture", mv, c, first, words, detail);
    }
}

static bool pos_equal(const gs_position *a, const gs_position *b)
{
    return a->size == b->size && !memcmp(a->cell, b->cell, (size_t)a->size * (size_t)a->size);
}

/* Ghosts (captured stones still seen) read as the empty points they are
 * in the record. */
static void drop_ghosts(record *r, gs_position *p)
{
    gs_position rec;
    rules_game_position(r->game, &rec);
    for (int i = 0; i < r->size * r->size; i++)
        if (r->ghost_move[i] && p->cell[i] == r->ghost_color[i] && rec.cell[i] == GS_EMPTY) p->cell[i] = GS_EMPTY;
}

/* Stones the record says were captured but are still seen: being lifted. */
static void mark_ghosts(record *r, const gs_position *obs)
{
    gs_position rec;
    rules_game_position(r->game, &rec);
    for (int i = 0; i < r->size * r->size; i++)
        if (obs->cell[i] != GS_EMPTY && rec.cell[i] == GS_EMPTY) {
            r->ghost_move[i] = game_moves(r);
            r->ghost_color[i] = obs->cell[i];
            r->ghost_flagged[i] = false;
        }
}

/* Tries to explain obs from the record as stones added in alternation,
 * with passes inserted where one colour played twice (a double move or an
 * unannounced pass), captures included.  Fills moves (color, point, pass)
 * and returns their count, or -1 if the change is not of that kind. */
typedef struct plan_move { gs_color c; gs_point p; bool pass; } plan_move;

static int plan_additions(record *r, const gs_position *obs, plan_move *plan, int max)
{
    gs_position rec;
    rules_game_position(r->game, &rec);
    int n = r->size * r->size;
    gs_point add[2][REC_NPTS];
    int nadd[2] = {0, 0};
    for (int i = 0; i < n; i++) {
        if (obs->cell[i] == rec.cell[i] || obs->cell[i] == GS_EMPTY) continue;
        if (rec.cell[i] != GS_EMPTY) return -1; /* a stone changed colour */
        int k = obs->cell[i] == GS_BLACK ? 0 : 1;
        add[k][nadd[k]++] = (gs_point){(int8_t)(i % r->size), (int8_t)(i / r->size)};
    }
    if (nadd[0] + nadd[1] == 0 || nadd[0] + nadd[1] > max / 2) return -1;
    rules_game *g = rules_game_clone(r->game);
    if (!g) return -1;
    int np = 0;
    bool used[2][REC_NPTS];
    memset(used, 0, sizeof used);
    int left[2] = {nadd[0], nadd[1]};
    gs_color c = rules_game_to_move(g);
    while (left[0] + left[1] > 0 && np < max) {
        int k = c == GS_BLACK ? 0 : 1;
        int pick = -1;
        if (left[k] > 0) {
            for (int j = 0; j < nadd[k] && pick < 0; j++)
                if (!used[k][j] && rules_game_check(g, c, add[k][j]) == RULES_LEGAL) pick = j;
            if (pick < 0) break; /* none legal: not explainable this way */
            used[k][pick] = true;
            left[k]--;
            rules_game_play(g, c, add[k][pick], NULL);
            plan[np++] = (plan_move){c, add[k][pick], false};
        } else {
            rules_game_pass(g, c);
            plan[np++] = (plan_move){c, {-1, -1}, true};
        }
        c = gs_color_other(c);
    }
    bool ok = left[0] + left[1] == 0;
    if (ok) {
        /* every stone removed in obs must have been captured; captured
         * stones still seen are tolerated (ghosts, flagged later) */
        gs_position after;
        rules_game_position(g, &after);
        for (int i = 0; i < n && ok; i++)
            if (after.cell[i] != obs->cell[i] && !(after.cell[i] == GS_EMPTY && rec.cell[i] == obs->cell[i])) ok = false;
    }
    rules_game_destroy(g);
    return ok ? np : -1;
}

/* The pending view was real, and play went on from it: obs follows from
 * the pending view (its stones added as a plan) by moves with no more
 * referee events than obs directly from the record (direct_events).  E.g.
 * a stone played after an unannounced pass, seen once, then captured by
 * the next move: the capture hides it from every later view. */
static bool pending_continues(record *r, const gs_position *obs, int direct_events)
{
    plan_move plan[2 * RULES_CLASSIFY_MAX_MOVES * 4];
    int np = plan_additions(r, &r->pending_obs, plan, (int)(sizeof plan / sizeof plan[0]));
    if (np <= 0) return false;
    rules_game *g = rules_game_clone(r->game);
    rules_classification *cls = malloc(sizeof *cls);
    bool ok = g && cls;
    for (int i = 0; i < np && ok; i++) {
        if (plan[i].pass) rules_game_pass(g, plan[i].c);
        else ok = rules_game_play(g, plan[i].c, plan[i].p, NULL) == RULES_LEGAL;
    }
    gs_error e;
    if (ok) ok = rules_classify(g, obs, cls, &e) == GS_OK && cls->nmoves > 0 && cls->nevents <= direct_events;
    free(cls);
    rules_game_destroy(g);
    return ok;
}

/* Makes the record follow the board after an irregular change it could not
 * explain: a setup node (AB/AW/AE) with the seen position, the game
 * restarted from it (same side to move). */
static gs_status resync_to(record *r, const gs_position *obs, bool irregular, gs_error *err)
{
    gs_position rec;
    rules_game_position(r->game, &rec);
    gs_error e;
    sgf_node *n = sgf_node_add_child(r->last);
    if (!n) return gs_error_set(err, GS_ERR_NOMEM, "out of memory");
    int cnt = 0;
    for (int i = 0; i < r->size * r->size; i++) {
        if (rec.cell[i] == obs->cell[i]) continue;
        char s[3];
        rules_point_sgf((gs_point){(int8_t)(i % r->size), (int8_t)(i / r->size)}, s);
        const char *id = obs->cell[i] == GS_BLACK ? "AB" : obs->cell[i] == GS_WHITE ? "AW" : "AE";
        if (rec.cell[i] != GS_EMPTY && obs->cell[i] != GS_EMPTY) sgf_node_add_raw(n, "AE", s, &e); /* colour swap */
        sgf_node_add_raw(n, id, s, &e);
        cnt++;
    }
    gs_color tm = rules_game_to_move(r->game);
    char pl[2] = {tm == GS_WHITE ? 'W' : 'B', 0};
    sgf_node_add_raw(n, "PL", pl, &e);
    r->last = n;
    int handicap = rules_game_handicap(r->game);
    int wb = rules_game_warnings(r->game, GS_BLACK), ww = rules_game_warnings(r->game, GS_WHITE);
    int moves = game_moves(r);
    gs_status st = new_game_from(r, obs, tm, handicap, err);
    if (st != GS_OK) return st;
    for (int i = 0; i < wb; i++) rules_game_add_warning(r->game, GS_BLACK);
    for (int i = 0; i < ww; i++) rules_game_add_warning(r->game, GS_WHITE);
    r->move_offset = moves;
    memset(r->ghost_move, 0, sizeof r->ghost_move);
    memset(r->absent_views, 0, sizeof r->absent_views);
    memset(r->absent_flagged, 0, sizeof r->absent_flagged);
    if (!irregular) return GS_OK; /* a referee's correction: the ruling says why */
    add_event(r, RECORD_EV_NOTE, "resync", moves, GS_EMPTY, (gs_point){-1, -1},
              "record follows the board again: %d point%s set as seen (setup node)", cnt, cnt == 1 ? "" : "s");
    sgf_append_comment(n, "goscribe: the board changed in a way no legal play explains; the record follows the board from here.", &e);
    return GS_OK;
}

static gs_status resync(record *r, const gs_position *obs, gs_error *err) { return resync_to(r, obs, true, err); }

static void keep_frame(record *r, const gs_image *frame, double t_ms)
{
    /* prev = the settled view before this one, cur = this one */
    gs_image_destroy(r->prev_frame);
    r->prev_frame = r->cur_frame;
    r->prev_t = r->cur_t;
    r->cur_frame = frame ? gs_image_copy(frame) : NULL;
    r->cur_t = t_ms;
}

static void flag_classified_events(record *r, const rules_classification *cls, int base_move)
{
    for (int i = 0; i < cls->nevents; i++) {
        const rules_event *ev = &cls->events[i];
        if (ev->type == RULES_EV_MISSED_CAPTURE) continue; /* handled as ghosts */
        if ((ev->type == RULES_EV_STONE_REMOVED || ev->type == RULES_EV_WRONG_CAPTURE) && ev->npoints > 0) {
            bool all_flagged = true; /* the same stones, still away: flagged once */
            for (int j = 0; j < ev->npoints; j++)
                all_flagged &= r->absent_flagged[ev->points[j].y * r->size + ev->points[j].x];
            if (all_flagged) continue;
        }
        char detail[200] = "";
        size_t dl = 0;
        for (int j = 0; j < ev->npoints && dl + 4 < sizeof detail; j++) {
            char s[3];
            rules_point_sgf(ev->points[j], s);
            dl += (size_t)snprintf(detail + dl, sizeof detail - dl, "%s%s", j ? " " : "", s);
        }
        int mv = ev->move_number > 0 ? r->move_offset + ev->move_number : base_move;
        /* a stone shifted or knocked off between moves belongs to the move
         * after which it happened (the node the referee looks at) */
        if (ev->move_number <= 0 && (ev->type == RULES_EV_MOVED_STONE || ev->type == RULES_EV_STONE_REMOVED ||
                                     ev->type == RULES_EV_BOARD_DISTURBED || ev->type == RULES_EV_COLOR_CHANGED) &&
            game_moves(r) > 0 && base_move == game_moves(r) + 1)
            mv = game_moves(r);
        /* a moved stone is numbered by the stone that appeared (the move it
         * would have been): the shift happened after the move before it */
        if (ev->type == RULES_EV_MOVED_STONE && ev->move_number > 1) mv = r->move_offset + ev->move_number - 1;
        gs_point p = ev->npoints ? ev->points[0] : (gs_point){-1, -1};
        const char *code = rules_event_code(ev->type);
        if (ev->type == RULES_EV_STONE_REMOVED || ev->type == RULES_EV_WRONG_CAPTURE ||
            ev->type == RULES_EV_MOVED_STONE)
            for (int j = 0; j < ev->npoints; j++) /* a later confirmed absence there is not flagged again */
                r->absent_flagged[ev->points[j].y * r->size + ev->points[j].x] = true;
        /* a removal held back as a possible misread belongs to the move
         * after which the stone was first missed */
        int removed_after = game_moves(r);
        if (ev->type == RULES_EV_STONE_REMOVED && p.x >= 0) {
            int pi = p.y * r->size + p.x;
            if (r->absent_views[pi] > 0 && r->absent_move[pi] <= game_moves(r)) {
                removed_after = r->absent_move[pi];
                if (removed_after > 0) mv = removed_after;
            }
        }
        if (ev->type == RULES_EV_STONE_REMOVED && r->last_capture_move > 0 &&
            (r->last_capture_move == game_moves(r) || r->last_capture_move == removed_after)) {
            /* lifted while the last move's captures were being taken off
             * and before any other move: part of that capture */
            char words[300];
            snprintf(words, sizeof words,
                     "%.200s; lifted while move %d's captures were being removed: a wrong capture (Art. 18, warning)",
                     ev->text, r->last_capture_move);
            flag(r, "wrong_capture", r->last_capture_move, ev->color, p, words, detail);
            continue;
        }
        flag(r, code, mv, ev->color, p, ev->text, detail);
    }
}


/* Commits the moves of a successful classification in r->cls. */
static gs_status commit_classified(record *r, const gs_position *obs, gs_error *err)
{
    rules_classification *cls = r->cls;
    int base = game_moves(r) + 1;
    /* captures from before still on the board while a new move comes */
    flag_ghosts(r, "when the next move was played");
    int nm = cls->nmoves;
    rules_classified_move moves[RULES_CLASSIFY_MAX_MOVES];
    memcpy(moves, cls->moves, (size_t)nm * sizeof moves[0]);
    for (int i = 0; i < nm; i++) {
        gs_status st = commit_move(r, moves[i].move.color, moves[i].move.pt, moves[i].move.pass, false, err);
        if (st != GS_OK) return st;
    }
    mark_ghosts(r, obs);
    flag_classified_events(r, cls, base);
    return GS_OK;
}

/* Commits a plan of plan_additions (stones out of alternation), flagging
 * each inserted pass as a double move. */
static gs_status commit_plan(record *r, const gs_position *obs, const plan_move *plan, int np, gs_error *err)
{
    flag_ghosts(r, "when the next move was played");
    int adds = 0;
    for (int i = 0; i < np; i++) adds += !plan[i].pass;
    for (int i = 0; i < np; i++) {
        int num = game_moves(r) + 1;
        gs_status st = commit_move(r, plan[i].c, plan[i].p, plan[i].pass, false, err);
        if (st != GS_OK) return st;
        if (plan[i].pass) {
            char words[200];
            snprintf(words, sizeof words,
                     "%s played twice in a row (%d stones appeared at once); "
                     "recorded as an unannounced pass by %s (Art. 18: double move, warning)",
                     rules_color_name(gs_color_other(plan[i].c)), adds, rules_color_name(plan[i].c));
            /* the point is the second stone in a row: what a "void" ruling takes off */
            gs_point second = i + 1 < np && !plan[i + 1].pass ? plan[i + 1].p : (gs_point){-1, -1};
            char detail[4] = "";
            if (second.x >= 0) rules_point_sgf(second, detail);
            flag(r, "double_move", num, gs_color_other(plan[i].c), second, words, detail[0] ? detail : NULL);
        }
    }
    mark_ghosts(r, obs);
    return GS_OK;
}

/* Stones of the record missing from p with a new stone of their colour on
 * a neighbouring point (each new stone used once): pushed there. */
static int find_pushes(record *r, const gs_position *p, gs_point *from, gs_point *to, int max)
{
    static const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
    gs_position rec;
    rules_game_position(r->game, &rec);
    bool used[REC_NPTS] = {0};
    int n = 0;
    for (int i = 0; i < r->size * r->size && n < max; i++) {
        if (rec.cell[i] == GS_EMPTY || p->cell[i] != GS_EMPTY) continue;
        int x = i % r->size, y = i / r->size;
        for (int d = 0; d < 4; d++) {
            int ax = x + dx[d], ay = y + dy[d];
            if (ax < 0 || ay < 0 || ax >= r->size || ay >= r->size) continue;
            int j = ay * r->size + ax;
            if (used[j] || rec.cell[j] != GS_EMPTY || p->cell[j] != rec.cell[i]) continue;
            used[j] = true;
            from[n] = (gs_point){(int8_t)x, (int8_t)y};
            to[n++] = (gs_point){(int8_t)ax, (int8_t)ay};
            break;
        }
    }
    return n;
}

/* Stones a pending view showed lifted and the next view shows back: a
 * stone next to a plan move of the other colour was lifted as if that move
 * had captured it: a wrong capture, corrected (RULES.md: warning, stones
 * put back), flagged at that move.  Others were a misread or an occlusion. */
static void flag_restored(record *r, const int *restored, int n, const plan_move *plan, int np, int base)
{
    for (int k = 0; k < n; k++) {
        int i = restored[k];
        gs_point q = {(int8_t)(i % r->size), (int8_t)(i / r->size)};
        gs_position rec;
        rules_game_position(r->game, &rec);
        gs_color c = (gs_color)rec.cell[i];
        for (int j = 0; j < np; j++) {
            if (plan[j].pass || plan[j].c == c || abs(plan[j].p.x - q.x) + abs(plan[j].p.y - q.y) != 1) continue;
            char human[8], words[300], s2[3];
            rules_point_human(q, r->size, human);
            rules_point_sgf(q, s2);
            snprintf(words, sizeof words,
                     "%s stone at %s lifted as if captured by move %d, then put back: a wrong capture (Art. 18: "
                     "warning, stones put back)", rules_color_name(c), human, base + j);
            flag(r, "wrong_capture", base + j, c, q, words, s2);
            break;
        }
    }
}

/* Every change the pending view showed is still there in obs: the pending
 * view really happened (it is not a misread), e.g. a double move followed by
 * the opponent's stone, which alone would look like two moves in order. */
static bool pending_persists(record *r, const gs_position *obs)
{
    gs_position rec;
    rules_game_position(r->game, &rec);
    int n = r->size * r->size, changes = 0;
    for (int i = 0; i < n; i++) {
        if (r->pending_obs.cell[i] == rec.cell[i]) continue;
        changes++;
        if (obs->cell[i] != r->pending_obs.cell[i]) return false;
    }
    return changes > 0;
}

static bool is_illegal_move_event(rules_event_type t)
{
    return t == RULES_EV_KO || t == RULES_EV_SUPERKO || t == RULES_EV_SUICIDE || t == RULES_EV_CYCLE;
}

/* The heart of the recorder: how does obs follow from the record?
 *  - legal moves: commit them;
 *  - an illegal move (ko retake, suicide): flag at once, wait for the stone
 *    to be lifted;
 *  - anything else irregular is held as pending until the next settled view
 *    confirms it (a misread or a change undone at once is then dropped):
 *    confirmed, stones added out of turn are followed with flagged passes,
 *    other changes are flagged and the record follows the board (setup
 *    node).  at_end: no later view will come, so confirm now. */
static gs_status classify_and_commit(record *r, const gs_position *obs_in, bool at_end, gs_error *err)
{
    gs_error e;
    gs_position cur = *obs_in;
    const gs_position *obs = &cur;
    for (int round = 0; round < 3; round++) {
        /* a move just committed from a pending view may have captured
         * stones this view still shows: being lifted, not new stones */
        if (round > 0) drop_ghosts(r, &cur);
        if (r->have_flagged && pos_equal(obs, &r->flagged_obs)) return GS_OK;
        if (rules_classify(r->game, obs, r->cls, &e) != GS_OK) return gs_error_set(err, e.status, "%s", e.msg);
        rules_classification *cls = r->cls;
        bool confirm_pending = false;
        if (cls->nmoves > 0 && r->have_pending && pending_persists(r, obs)) confirm_pending = true;
        /* play may have gone on from the pending view: its stone captured
         * at once, or hidden by a wrong capture.  It stands when that
         * explains this view with no more referee events than a direct
         * reading (a misread stone then rarely fits: its vanishing would
         * be an event) */
        if (!confirm_pending && cls->nmoves > 0 && r->have_pending && pending_continues(r, obs, cls->nevents))
            confirm_pending = true;
        /* moves that leave a stone "removed" beside a new stone of its own
         * colour are more likely a push with other moves (out of turn
         * too): judged as irregular, with the next view */
        bool pushed = cls->nmoves > 0 && !confirm_pending && rules_classification_push_shape(r->game, obs, cls);
        if (!confirm_pending && !pushed && (cls->unchanged || cls->nmoves > 0)) {
            if (r->have_pending && !(at_end && round == 0))
                add_event(r, RECORD_EV_NOTE, "unconfirmed", game_moves(r), GS_EMPTY, (gs_point){-1, -1},
                          "an irregular view was not confirmed by the next one: ignored (misread, or undone at once)");
            r->have_pending = false;
            r->have_flagged = false;
            if (cls->unchanged) return GS_OK;
            bool moved = false;
            gs_point dest = {-1, -1};
            for (int i = 0; i < cls->nevents; i++)
                if (cls->events[i].type == RULES_EV_MOVED_STONE && cls->events[i].npoints == 2) {
                    moved = true;
                    dest = cls->events[i].points[1];
                }
            gs_status st = commit_classified(r, obs, err);
            if (st != GS_OK) return st;
            /* a stone pushed while the moves were played: flagged, and the
             * record follows the board (as for a moved stone alone) */
            if (moved) {
                r->ghost_move[dest.y * r->size + dest.x] = 0; /* pushed there, not captured */
                gs_position fol = *obs;
                drop_ghosts(r, &fol);
                st = resync(r, &fol, err);
                if (st != GS_OK) return st;
            }
            return save(r, err);
        }
        bool illegal = false;
        for (int i = 0; i < cls->nevents && !pushed; i++) illegal |= is_illegal_move_event(cls->events[i].type);
        if (illegal && !confirm_pending) { /* confirmed: judged again after the pending view */
            r->have_pending = false;
            flag_classified_events(r, cls, game_moves(r) + 1);
            r->have_flagged = true;
            r->flagged_obs = *obs;
            return save(r, err);
        }
        if (!r->have_pending && !at_end && !confirm_pending) {
            r->have_pending = true;
            r->pending_obs = *obs;
            return GS_OK;
        }
        /* confirmed: the pending view (or this one at the end) stands */
        gs_position p = r->have_pending ? r->pending_obs : *obs;
        /* a stone the pending view lacked and this view shows back was
         * lifted and put back (a wrong capture corrected): the rest stands */
        int restored[REC_NPTS], nrestored = 0;
        if (r->have_pending) {
            gs_position rec;
            rules_game_position(r->game, &rec);
            /* (a stone it added and this view lacks may have been captured
             * since: it stays) */
            for (int i = 0; i < r->size * r->size; i++)
                if (rec.cell[i] != GS_EMPTY && p.cell[i] == GS_EMPTY && obs->cell[i] == rec.cell[i]) {
                    restored[nrestored++] = i;
                    p.cell[i] = rec.cell[i];
                }
            if (pos_equal(&p, &rec)) { /* all of it undone */
                r->have_pending = false;
                continue;
            }
        }
        r->have_pending = false;
        plan_move plan[2 * RULES_CLASSIFY_MAX_MOVES * 4];
        int np = plan_additions(r, &p, plan, (int)(sizeof plan / sizeof plan[0]));
        if (np > 0) {
            int base = game_moves(r) + 1;
            gs_status st = commit_plan(r, &p, plan, np, err);
            if (st != GS_OK) return st;
            flag_restored(r, restored, nrestored, plan, np, base);
            st = save(r, err);
            if (st != GS_OK) return st;
            if (pos_equal(&p, obs)) return GS_OK;
            continue; /* now see how this view follows from the plan */
        }
        /* stones pushed to a neighbouring point while moves were played
         * (out of alternation too): the moves stand, each push is flagged
         * and the record follows the board */
        gs_point from[8], to[8];
        int npush = find_pushes(r, &p, from, to, 8);
        if (npush > 0) {
            gs_position back = p;
            for (int k = 0; k < npush; k++) {
                gs_position_set(&back, to[k].x, to[k].y, GS_EMPTY);
                gs_position_set(&back, from[k].x, from[k].y, gs_position_get(&p, to[k].x, to[k].y));
            }
            np = plan_additions(r, &back, plan, (int)(sizeof plan / sizeof plan[0]));
            if (np > 0) {
                /* flagged at the view's first stone played (the push comes
                 * with it, or just after it) */
                int at = game_moves(r) + 1;
                for (int k = 0; k < np && plan[k].pass; k++) at++;
                gs_status st = commit_plan(r, &back, plan, np, err);
                if (st != GS_OK) return st;
                for (int k = 0; k < npush; k++) {
                    char hf[8], ht[8], words[240], d[8];
                    rules_point_human(from[k], r->size, hf);
                    rules_point_human(to[k], r->size, ht);
                    rules_point_sgf(from[k], d);
                    rules_point_sgf(to[k], d + 3);
                    d[2] = ' ';
                    gs_color c = gs_position_get(&p, to[k].x, to[k].y);
                    snprintf(words, sizeof words,
                             "a %s stone vanished from %s and one appeared at %s: moved stone; put it back "
                             "(Art. 17.3)", c == GS_BLACK ? "Black" : "White", hf, ht);
                    flag(r, "moved_stone", at, c, to[k], words, d);
                }
                gs_position fol = p;
                drop_ghosts(r, &fol);
                st = resync(r, &fol, err);
                if (st != GS_OK) return st;
                st = save(r, err);
                if (st != GS_OK || pos_equal(&p, obs)) return st;
                continue;
            }
        }
        if (rules_classify(r->game, &p, r->cls, &e) != GS_OK) return gs_error_set(err, e.status, "%s", e.msg);
        flag_classified_events(r, r->cls, game_moves(r) + 1);
        if (r->cls->nevents == 0)
            flag(r, "scattered", game_moves(r) + 1, GS_EMPTY, (gs_point){-1, -1},
                 "the board changed in a way no legal play explains", NULL);
        gs_status st = resync(r, &p, err);
        if (st != GS_OK) return st;
        st = save(r, err);
        if (st != GS_OK || pos_equal(&p, obs)) return st;
    }
    return GS_OK;
}

/* A stone of the record that vanishes with no capture explaining it is a
 * misread or an occlusion (shadow, hand, glare) until it has stayed away
 * REC_ABSENT_VIEWS settled views in a row (or REC_ABSENT_MS and two
 * views): until then the view is read with the stone in place, so the
 * record never follows a board missing a stone it will see again, and the
 * stone coming back is no new move.  Confirmed, the absence goes through
 * classify_and_commit like any change (stone_removed, record follows). */
#define REC_ABSENT_VIEWS 4
#define REC_ABSENT_MS 30000.0

static bool any_absent(const record *r)
{
    for (int i = 0; i < r->size * r->size; i++)
        if (r->absent_views[i] > 0) return true;
    return false;
}

static bool view_is_clean(const rules_classification *cls)
{
    return cls->unchanged || (cls->nmoves > 0 && cls->nevents == 0);
}

/* Absences confirmed (or all of them when force: the game ends) are
 * flagged once, as stone_removed at the move after which the stone was
 * first missed (wrong_capture when that move captured), and the record
 * follows the board there (setup node). */
static gs_status confirm_absences(record *r, const gs_position *obs, bool force, double t_ms, gs_error *err)
{
    gs_position rec;
    rules_game_position(r->game, &rec);
    gs_position target = rec;
    int n = r->size * r->size, cnt = 0, nconf = 0, mv = 0;
    gs_point first = {-1, -1};
    gs_color col = GS_EMPTY;
    char detail[160] = "", human[8] = "";
    size_t dl = 0;
    for (int i = 0; i < n; i++) {
        if (rec.cell[i] == GS_EMPTY || obs->cell[i] != GS_EMPTY || r->absent_views[i] == 0) continue;
        bool confirmed = force || r->absent_views[i] > REC_ABSENT_VIEWS ||
                         (r->absent_views[i] >= 2 && t_ms - r->absent_t0[i] >= REC_ABSENT_MS);
        if (!confirmed) continue;
        gs_point p = {(int8_t)(i % r->size), (int8_t)(i / r->size)};
        target.cell[i] = GS_EMPTY;
        nconf++;
        if (r->absent_flagged[i]) continue; /* the record follows, no second flag */
        if (cnt == 0) {
            first = p;
            col = (gs_color)rec.cell[i];
            mv = r->absent_move[i];
            rules_point_human(p, r->size, human);
        }
        char s2[3];
        rules_point_sgf(p, s2);
        if (dl + 4 < sizeof detail) dl += (size_t)snprintf(detail + dl, sizeof detail - dl, "%s%s", cnt ? " " : "", s2);
        cnt++;
    }
    if (!nconf) return GS_OK;
    char words[300];
    if (cnt == 0) {
        /* flagged already */
    } else if (r->last_capture_move > 0 && r->last_capture_move == mv) {
        snprintf(words, sizeof words,
                 "%d %s stone%s (%s) lifted while move %d's captures were being removed: a wrong capture "
                 "(Art. 18, warning)", cnt, col == GS_BLACK ? "black" : "white", cnt > 1 ? "s" : "", human, mv);
        flag(r, "wrong_capture", mv, col, first, words, detail);
    } else {
        snprintf(words, sizeof words,
                 "%d %s stone%s (%s) removed from the board for no reason, gone for %d settled views: put it back "
                 "(Art. 17.3)", cnt, col == GS_BLACK ? "black" : "white", cnt > 1 ? "s" : "", human,
                 r->absent_views[first.y * r->size + first.x]);
        flag(r, "stone_removed", mv > 0 ? mv : game_moves(r), col, first, words, detail);
    }
    /* resync_to clears every absence: the ones not confirmed yet are
     * counted again from the next view (still held by the caller now) */
    int keep[REC_NPTS];
    double keep_t[REC_NPTS];
    int keep_mv[REC_NPTS];
    memcpy(keep, r->absent_views, sizeof keep);
    memcpy(keep_t, r->absent_t0, sizeof keep_t);
    memcpy(keep_mv, r->absent_move, sizeof keep_mv);
    bool keep_fl[REC_NPTS];
    memcpy(keep_fl, r->absent_flagged, sizeof keep_fl);
    gs_status st = resync_to(r, &target, true, err);
    for (int i = 0; i < n; i++)
        if (target.cell[i] != GS_EMPTY) {
            r->absent_views[i] = keep[i];
            r->absent_t0[i] = keep_t[i];
            r->absent_move[i] = keep_mv[i];
            r->absent_flagged[i] = keep_fl[i];
        }
    if (st != GS_OK) return st;
    return save(r, err);
}

/* A stone gained at a neighbour of point i in obs (a move that might have
 * lifted i as a capture, right or wrong). */
static bool beside_new_stone(const record *r, const gs_position *rec, const gs_position *obs, int i)
{
    static const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
    int x = i % r->size, y = i / r->size;
    for (int d = 0; d < 4; d++) {
        int ax = x + dx[d], ay = y + dy[d];
        if (ax < 0 || ay < 0 || ax >= r->size || ay >= r->size) continue;
        int j = ay * r->size + ax;
        if (obs->cell[j] != GS_EMPTY && rec->cell[j] != obs->cell[j]) return true;
    }
    return false;
}

static gs_status hold_absences(record *r, gs_position *obs, double t_ms, gs_error *err)
{
    gs_position rec;
    rules_game_position(r->game, &rec);
    int n = r->size * r->size, missing = 0;
    for (int i = 0; i < n; i++) {
        bool gone = rec.cell[i] != GS_EMPTY && obs->cell[i] == GS_EMPTY;
        if (gone) {
            missing++;
            continue;
        }
        if (r->absent_views[i] > 0 && obs->cell[i] == rec.cell[i]) {
            char h[8];
            gs_point p = {(int8_t)(i % r->size), (int8_t)(i / r->size)};
            rules_point_human(p, r->size, h);
            add_event(r, RECORD_EV_NOTE, "misread", game_moves(r), (gs_color)rec.cell[i], p,
                      "stone at %s not seen for %d view%s and back: a misread or occlusion, no move", h,
                      r->absent_views[i], r->absent_views[i] == 1 ? "" : "s");
        }
        r->absent_views[i] = 0;
        if (obs->cell[i] == rec.cell[i]) r->absent_flagged[i] = false;
    }
    if (!missing) return GS_OK;
    gs_error e;
    if (rules_classify(r->game, obs, r->cls, &e) != GS_OK) return GS_OK;
    if (view_is_clean(r->cls)) {
        /* captured by a legal move: nothing is missing */
        memset(r->absent_views, 0, sizeof r->absent_views);
        return GS_OK;
    }
    /* a plain removal is held; in a view with other changes, a stone gone
     * beside a stone just put down (a capture, right or wrong, or a moved
     * stone) is judged as seen, one away from every new stone is held; a
     * stone already held stays held whatever the later views add */
    bool plain = true;
    for (int i = 0; i < r->cls->nevents; i++) plain &= r->cls->events[i].type == RULES_EV_STONE_REMOVED;
    for (int i = 0; i < n; i++) {
        if (rec.cell[i] == GS_EMPTY || obs->cell[i] != GS_EMPTY) continue;
        if (r->absent_views[i] == 0) {
            /* not held: the view goes through as seen; a stone already
             * flagged (wrong capture, ...) and still away is held though:
             * its absence is confirmed later, with no second flag */
            if (!plain && !r->absent_flagged[i] && beside_new_stone(r, &rec, obs, i)) continue;
            r->absent_t0[i] = t_ms;
            r->absent_move[i] = game_moves(r);
        }
        r->absent_views[i]++;
    }
    gs_status st = confirm_absences(r, obs, false, t_ms, err);
    if (st != GS_OK) return st;
    /* the stones still held go back in place, but only when that makes the
     * view a plain one (no change or legal moves): otherwise the view is
     * irregular anyway and goes through as seen */
    rules_game_position(r->game, &rec);
    gs_position held = *obs;
    int nheld = 0;
    for (int i = 0; i < n; i++)
        if (rec.cell[i] != GS_EMPTY && obs->cell[i] == GS_EMPTY && r->absent_views[i] > 0) {
            held.cell[i] = rec.cell[i];
            nheld++;
        }
    if (!nheld) return GS_OK;
    if (rules_classify(r->game, &held, r->cls, &e) != GS_OK || !view_is_clean(r->cls)) return GS_OK;
    *obs = held;
    return GS_OK;
}

static gs_status observe_impl(record *r, const gs_position *pos, const uint8_t *uncertain, double t_ms,
                              const gs_image *frame, gs_error *err)
{
    if (r->finished) return GS_OK;
    if (r->size && pos->size != r->size)
        return gs_error_set(err, GS_ERR_USAGE, "position of size %d on a %dx%d record", pos->size, r->size, r->size);
    keep_frame(r, frame, t_ms);
    if (!r->started) {
        r->last_obs = *pos;
        r->have_last_obs = true;
        return start_game(r, pos, err);
    }
    gs_position obs;
    clean_view(r, pos, uncertain, &obs);
    r->last_obs = obs;
    r->have_last_obs = true;
    if (r->ended) return GS_OK; /* after the end: dead stones being lifted */
    if (r->have_flagged && pos_equal(&obs, &r->flagged_obs)) return GS_OK;
    gs_error e;
    rules_classification *cls = r->cls;
    if (r->to_move_guessed && game_moves(r) == 0) {
        /* the side to move was a guess: the first stone may say otherwise */
        if (rules_classify(r->game, &obs, cls, &e) != GS_OK) return gs_error_set(err, e.status, "%s", e.msg);
        if (cls->unchanged) return GS_OK;
        r->to_move_guessed = false;
        if (cls->nmoves == 0) {
            gs_color tm = rules_game_to_move(r->game);
            rules_game_set_to_move(r->game, gs_color_other(tm));
            if (rules_classify(r->game, &obs, cls, &e) == GS_OK && cls->nmoves > 0 && cls->nevents == 0) {
                add_event(r, RECORD_EV_NOTE, "to_move", 0, gs_color_other(tm), (gs_point){-1, -1},
                          "%s moves first (the stone counts alone could not tell)",
                          rules_color_name(gs_color_other(tm)));
                gs_error e2;
                sgf_node_set_text(r->root, "PL", gs_color_other(tm) == GS_WHITE ? "W" : "B", &e2);
            } else {
                rules_game_set_to_move(r->game, tm);
            }
        }
    }
    gs_status hs = hold_absences(r, &obs, t_ms, err);
    if (hs != GS_OK) return hs;
    return classify_and_commit(r, &obs, false, err);
}

gs_status record_observe(record *r, const gs_position *pos, const uint8_t *uncertain, double t_ms,
                           const gs_image *frame, gs_error *err)
{
    gs_status st = observe_impl(r, pos, uncertain, t_ms, frame, err);
    print_events(r); /* lines of events that needed no save */
    return st;
}

gs_status record_pass(record *r, gs_color c, double t_ms, gs_error *err)
{
    if (!r->started || r->finished || r->ended) return GS_OK;
    r->cur_t = t_ms;
    if (c == GS_EMPTY) c = rules_game_to_move(r->game);
    if (c != rules_game_to_move(r->game)) {
        /* a pass of the side not to move: the other side passed first */
        gs_status st = commit_move(r, gs_color_other(c), (gs_point){-1, -1}, true, true, err);
        if (st != GS_OK) return st;
    }
    gs_status st = commit_move(r, c, (gs_point){-1, -1}, true, true, err);
    if (st != GS_OK) return st;
    return save(r, err);
}

gs_status record_resign(record *r, gs_color c, double t_ms, gs_error *err)
{
    if (!r->started || r->finished) return GS_OK;
    r->cur_t = t_ms;
    if (c == GS_EMPTY) c = rules_game_to_move(r->game);
    rules_game_resign(r->game, c);
    r->resigned = c;
    r->ended = true;
    snprintf(r->result, sizeof r->result, "%s+R", c == GS_BLACK ? "W" : "B");
    add_event(r, RECORD_EV_RESIGN, "resign", game_moves(r), c, (gs_point){-1, -1}, "%s resigns: %s", rules_color_name(c),
              r->result);
    gs_error e;
    sgf_node_set_text(r->root, "RE", r->result, &e);
    return save(r, err);
}

static const char *const ruling_kind_names[] = {"void", "restore", "remove_dead", "warn",
                                                  "accept", "pass", "end", "resign"};

gs_status record_apply_ruling(record *r, const record_ruling *ru, double t_ms, gs_error *err)
{
    if ((unsigned)ru->kind > RECORD_RULING_RESIGN) return gs_error_set(err, GS_ERR_USAGE, "unknown ruling %d", (int)ru->kind);
    const char *kname = ruling_kind_names[ru->kind];
    if (!r->started || r->finished) {
        add_event(r, RECORD_EV_NOTE, "ruling_ignored", game_moves(r), ru->color, (gs_point){-1, -1},
                  "referee ruling (%s) ignored: %s", kname, r->started ? "the record is closed" : "no game yet");
        print_events(r);
        return GS_OK;
    }
    r->cur_t = t_ms;
    gs_error e;
    gs_status st;
    /* 1. the position the referee asks for */
    gs_position rec, want;
    rules_game_position(r->game, &rec);
    want = rec;
    bool takes_off = ru->kind == RECORD_RULING_VOID || ru->kind == RECORD_RULING_REMOVE_DEAD || ru->kind == RECORD_RULING_PASS;
    int changed = 0;
    for (int i = 0; i < ru->npoints && ru->points; i++) {
        gs_point p = ru->points[i];
        if (p.x < 0 || p.y < 0 || p.x >= r->size || p.y >= r->size) continue;
        int k = p.y * r->size + p.x;
        if (takes_off && want.cell[k] != GS_EMPTY) {
            want.cell[k] = GS_EMPTY;
            changed++;
        } else if (ru->kind == RECORD_RULING_RESTORE && ru->before && ru->before->size == r->size &&
                   ru->before->cell[k] != GS_EMPTY && want.cell[k] == GS_EMPTY) {
            want.cell[k] = ru->before->cell[k];
            changed++;
        }
    }
    if (changed) {
        st = resync_to(r, &want, false, err);
        if (st != GS_OK) return st;
        for (int k = 0; k < r->size * r->size; k++)
            if (want.cell[k] != rec.cell[k]) r->fix_pending[k] = true;
        /* whatever irregular view was waiting is settled by the ruling */
        r->have_pending = false;
        r->have_flagged = false;
    }
    /* 2. a pass in place of the void move */
    if (ru->kind == RECORD_RULING_PASS && !r->ended) {
        gs_color c = ru->color == GS_EMPTY ? rules_game_to_move(r->game) : ru->color;
        if (c != rules_game_to_move(r->game)) {
            st = commit_move(r, gs_color_other(c), (gs_point){-1, -1}, true, true, err);
            if (st != GS_OK) return st;
        }
        st = commit_move(r, c, (gs_point){-1, -1}, true, true, err);
        if (st != GS_OK) return st;
    }
    /* 3. the warning, counted by the rules engine (one stone at the count) */
    bool warned = ru->warning && (ru->color == GS_BLACK || ru->color == GS_WHITE);
    if (warned) rules_game_add_warning(r->game, ru->color);
    int wb = rules_game_warnings(r->game, GS_BLACK), ww = rules_game_warnings(r->game, GS_WHITE);
    /* 4. the ruling in the SGF: words + GSRL on the node it concerns */
    sgf_node *n = r->last;
    char tbuf[32], val[96];
    sgf_time_format(ru->unix_ms > 0 ? ru->unix_ms : gs_wall_ms(), tbuf);
    snprintf(val, sizeof val, "%s:%s:%d:%d:%s", kname, color_letter(ru->color), wb, ww, tbuf);
    sgf_node_add_raw(n, "GSRL", val, &e);
    char words[400];
    if (ru->words && ru->words[0]) snprintf(words, sizeof words, "%s", ru->words);
    else snprintf(words, sizeof words, "Referee: %s%s%s (warnings: Black %d, White %d)", kname,
                  warned ? ", warning to " : "", warned ? rules_color_name(ru->color) : "", wb, ww);
    sgf_append_comment(n, words, &e);
    add_event(r, RECORD_EV_RULING, kname, game_moves(r), ru->color,
              ru->npoints && ru->points ? ru->points[0] : (gs_point){-1, -1}, "%s", words);
    /* 5. how the game goes on */
    int nwarn = warned ? rules_game_warnings(r->game, ru->color) : 0;
    if (warned && nwarn >= 2 && r->resigned == GS_EMPTY && !r->forfeit) {
        /* Chinese rules (RULES.md, Art. 25): two warnings lose the game */
        gs_color loser = ru->color;
        r->forfeit = true;
        r->ended = true;
        snprintf(r->result, sizeof r->result, "%s+F", loser == GS_BLACK ? "W" : "B");
        char why[200];
        snprintf(why, sizeof why, "%s has received a second warning and loses the game (two warnings lose, "
                 "Chinese rules): %s", rules_color_name(loser), r->result);
        add_event(r, RECORD_EV_END, "forfeit", game_moves(r), loser, (gs_point){-1, -1}, "%s", why);
        sgf_append_comment(n, why, &e);
        sgf_node_set_text(r->root, "RE", r->result, &e);
    } else if (ru->kind == RECORD_RULING_RESIGN && !r->forfeit && r->resigned == GS_EMPTY) {
        gs_color c = ru->color == GS_EMPTY ? rules_game_to_move(r->game) : ru->color;
        rules_game_resign(r->game, c);
        r->resigned = c;
        r->ended = true;
        snprintf(r->result, sizeof r->result, "%s+R", c == GS_BLACK ? "W" : "B");
        add_event(r, RECORD_EV_RESIGN, "resign", game_moves(r), c, (gs_point){-1, -1}, "%s resigns (referee): %s",
                  rules_color_name(c), r->result);
        sgf_node_set_text(r->root, "RE", r->result, &e);
    } else if (ru->kind == RECORD_RULING_END && !r->ended) {
        flag_ghosts(r, "at the end of the game");
        r->ended = true;
        add_event(r, RECORD_EV_END, "end", game_moves(r), GS_EMPTY, (gs_point){-1, -1},
                  "game over (referee) after %d moves: lift the dead stones, the last settled view is counted",
                  game_moves(r));
    }
    return save(r, err);
}

gs_status record_note(record *r, const char *code, const char *text, double t_ms, gs_error *err)
{
    r->cur_t = t_ms;
    add_event(r, RECORD_EV_NOTE, code, game_moves(r), GS_EMPTY, (gs_point){-1, -1}, "%s", text);
    if (!r->started) {
        print_events(r);
        return GS_OK;
    }
    gs_error e;
    sgf_append_comment(r->last, text, &e);
    return save(r, err);
}

gs_status record_finish(record *r, double t_ms, gs_error *err)
{
    if (r->finished) return GS_OK;
    r->cur_t = t_ms > 0 ? t_ms : r->cur_t;
    if (!r->started) {
        r->finished = true;
        return gs_error_set(err, GS_ERR_NOBOARD, "no settled view of the board: nothing recorded");
    }
    if (!r->ended) {
        flag_ghosts(r, "at the end of the game");
        /* the last view must be the record's last position: follow it if
         * an unexplained change is still waiting */
        if (r->have_flagged && r->have_last_obs) {
            /* an illegal stone (flagged) still stands: the record follows */
            gs_position rec;
            rules_game_position(r->game, &rec);
            r->have_flagged = false;
            if (!pos_equal(&rec, &r->last_obs)) resync(r, &r->last_obs, err);
        } else if ((r->have_pending || any_absent(r)) && r->have_last_obs) {
            /* no later view will come: a change still held (or a stone
             * still missing) is confirmed now */
            if (any_absent(r)) confirm_absences(r, &r->last_obs, true, t_ms, err);
            classify_and_commit(r, &r->last_obs, true, err);
        }
    }
    if (!r->ended)
        add_event(r, RECORD_EV_END, "end", game_moves(r), GS_EMPTY, (gs_point){-1, -1}, "end of the game after %d moves",
                  game_moves(r));
    r->ended = true;
    r->finished = true;
    if (r->resigned == GS_EMPTY && !r->forfeit && r->have_last_obs) {
        rules_count_opts o;
        rules_count_opts_init(&o);
        o.komi = rules_game_komi(r->game);
        o.handicap = rules_game_handicap(r->game);
        o.warnings_black = rules_game_warnings(r->game, GS_BLACK);
        o.warnings_white = rules_game_warnings(r->game, GS_WHITE);
        rules_count *cnt = malloc(sizeof *cnt);
        gs_error e;
        if (cnt && rules_count_position(&r->last_obs, NULL, &o, cnt, &e) == GS_OK) {
            snprintf(r->result, sizeof r->result, "%s", cnt->sgf);
            char words[300];
            snprintf(words, sizeof words, "count (area, Chinese rules): Black %.1f, White %.1f stones, komi %.1f: %s",
                     cnt->black, cnt->white, o.komi, cnt->text);
            add_event(r, RECORD_EV_COUNT, "count", game_moves(r), cnt->winner, (gs_point){-1, -1}, "%s (RE %s)", words,
                      cnt->sgf);
            sgf_set_final_count(r->last, &cnt->owner, words, cnt->sgf, &e);
        }
        free(cnt);
    }
    return save(r, err);
}

gs_status record_end_game(record *r, double t_ms, gs_error *err)
{
    if (!r->started || r->finished || r->ended) return GS_OK;
    r->cur_t = t_ms;
    flag_ghosts(r, "at the end of the game");
    r->ended = true;
    add_event(r, RECORD_EV_END, "end", game_moves(r), GS_EMPTY, (gs_point){-1, -1},
              "game over after %d moves: lift the dead stones, the last settled view is counted", game_moves(r));
    return save(r, err);
}

gs_status record_stop(record *r, double t_ms, gs_error *err)
{
    if (r->finished) return GS_OK;
    if (r->ended || !r->started) return record_finish(r, t_ms, err);
    r->cur_t = t_ms > 0 ? t_ms : r->cur_t;
    r->finished = true;
    add_event(r, RECORD_EV_END, "stop", game_moves(r), GS_EMPTY, (gs_point){-1, -1},
              "recording stopped after %d moves (game not finished: no count)", game_moves(r));
    return save(r, err);
}

int record_move_count(const record *r) { return game_moves(r); }
bool record_started(const record *r) { return r->started; }
bool record_finished(const record *r) { return r->finished; }
gs_color record_to_move(const record *r) { return r->game ? rules_game_to_move(r->game) : GS_BLACK; }

void record_position(const record *r, gs_position *out)
{
    if (r->game) rules_game_position(r->game, out);
    else gs_position_clear(out, r->size ? r->size : 19);
}

size_t record_events(const record *r, const record_event **ev)
{
    *ev = r->events;
    return r->n_events;
}

int record_referee_count(const record *r) { return r->n_referee; }
int record_warnings(const record *r, gs_color c) { return r->game ? rules_game_warnings(r->game, c) : 0; }
bool record_ended(const record *r) { return r->ended; }

void record_frames(const record *r, const gs_image **before, const gs_image **after)
{
    if (before) *before = r->prev_frame;
    if (after) *after = r->cur_frame;
}

gs_status record_sgf_text(const record *r, char **out, size_t *len, gs_error *err)
{
    if (!r->tree) return gs_error_set(err, GS_ERR_USAGE, "no game yet");
    return sgf_write(r->tree, out, len, err);
}
const char *record_result(const record *r) { return r->result; }

gs_status record_margin(record *r, const track_margin_view *m, double t_ms, gs_error *err)
{
    if (!r->started || r->finished || !m || !m->valid) return GS_OK;
    r->cur_t = t_ms;
    track_margin_view mv = *m;
    if (r->have_last_obs) track_margin_view_drop_beside(&mv, &r->last_obs);
    m = &mv;
    int count[3] = {0, 0, 0}, corner[3] = {0, 0, 0};
    const track_margin_stone *first[3] = {NULL, NULL, NULL}, *first_corner[3] = {NULL, NULL, NULL};
    for (int i = 0; i < m->n; i++) {
        const track_margin_stone *s = &m->stones[i];
        if (s->color != GS_BLACK && s->color != GS_WHITE) continue;
        count[s->color]++;
        if (!first[s->color]) first[s->color] = s;
        if (s->corner) {
            corner[s->color]++;
            if (!first_corner[s->color]) first_corner[s->color] = s;
        }
    }
    bool added = false;
    gs_error e;
    for (int c = GS_BLACK; c <= GS_WHITE; c++) {
        gs_color col = (gs_color)c, other = gs_color_other(col);
        char words[300];
        if (count[c] >= 2) {
            if (!r->resign_seen[c]) {
                r->resign_seen[c] = true;
                snprintf(words, sizeof words,
                         "resignation signal: %d %s stones on the margin outside the lines (%s): %s resigns? "
                         "(Chinese rules: two of one's own stones on the margin)",
                         count[c], c == GS_BLACK ? "black" : "white", track_margin_place_name(first[c]),
                         rules_color_name(col));
                add_event(r, RECORD_EV_SIGNAL, "resign_signal", game_moves(r), col, (gs_point){-1, -1}, "%s", words);
                sgf_add_event(r->last, "resign_signal", color_letter(col), words, &e);
                added = true;
            }
        } else if (count[c] == 0) {
            r->resign_seen[c] = false;
        }
        /* a single stone of colour c near a corner: the other player confirms */
        if (count[c] == 1 && corner[c] == 1) {
            if (!r->confirm_seen[other]) {
                r->confirm_seen[other] = true;
                snprintf(words, sizeof words,
                         "end-of-game confirmation signal: a %s stone outside the lines at the %s: %s confirms "
                         "the game is over%s",
                         c == GS_BLACK ? "black" : "white", track_margin_place_name(first_corner[c]),
                         rules_color_name(other),
                         r->confirm_seen[col] ? " (both players have confirmed)" : "");
                add_event(r, RECORD_EV_SIGNAL, "confirm_signal", game_moves(r), other, (gs_point){-1, -1}, "%s", words);
                sgf_add_event(r->last, "confirm_signal", color_letter(other), words, &e);
                added = true;
            }
        } else if (count[c] == 0) {
            r->confirm_seen[other] = false;
        }
    }
    if (!added) return GS_OK;
    return save(r, err);
}
