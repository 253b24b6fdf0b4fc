/* record/sgf_record.c: the game and its SGF tree: the start from the first
 * settled view, the resume of a file, each committed move, the set-up node
 * when the record follows the board (the saves: store.c). */
#include "record/record_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------ the file */

gs_status record_sgf_text(const record *r, char **out, size_t *len, gs_error *err)
{
    if (!r->sgf.tree) return gs_error_set(err, GS_ERR_USAGE, "no game yet");
    return sgf_write(r->sgf.tree, out, len, err);
}

sgf_node *rec_node_of_move(record *r, int move_number)
{
    const rec_sgf *s = &r->sgf;
    if (move_number > 0 && move_number < s->n_move_node && s->move_node[move_number]) return s->move_node[move_number];
    return move_number <= 0 ? s->root : s->last;
}

static void remember_node(record *r, int move_number, sgf_node *n)
{
    rec_sgf *s = &r->sgf;
    if (move_number >= s->cap_move_node) {
        int nc = s->cap_move_node ? s->cap_move_node * 2 : 256;
        while (nc <= move_number) nc *= 2;
        sgf_node **nn = realloc(s->move_node, (size_t)nc * sizeof *nn);
        if (!nn) {
            /* a late flag of this move would land on the last node */
            gs_error e;
            rec_check(r, gs_error_set(&e, GS_ERR_NOMEM, "out of memory"), &e);
            return;
        }
        memset(nn + s->cap_move_node, 0, (size_t)(nc - s->cap_move_node) * sizeof *nn);
        s->move_node = nn;
        s->cap_move_node = nc;
    }
    s->move_node[move_number] = n;
    if (move_number >= s->n_move_node) s->n_move_node = move_number + 1;
}

void rec_set_result(record *r)
{
    gs_error e;
    rec_check(r, sgf_node_set_text(r->sgf.root, "RE", r->result, &e), &e);
}

/* ------------------------------------------------------------ the game */

/* A fresh rules game with the record's komi. */
static gs_status create_game(record *r, int handicap, gs_error *err)
{
    rules_game_destroy(r->game);
    r->game = rules_game_create(r->size, err);
    if (!r->game) return err ? err->status : GS_ERR_NOMEM;
    double komi = r->opt.has_komi ? r->opt.komi : (handicap > 0 ? 0.0 : RULES_DEFAULT_KOMI);
    rules_game_set_komi(r->game, komi);
    return GS_OK;
}

gs_status rec_new_game_from(record *r, const gs_position *pos, gs_color to_move, int handicap, gs_error *err)
{
    /* the captures of the game left behind stay the players' */
    for (int c = GS_BLACK; r->game && c <= GS_WHITE; c++)
        r->captures_before[c] += rules_board_captures(rules_game_board(r->game), (gs_color)c);
    gs_status st = create_game(r, handicap, err);
    if (st != GS_OK) return st;
    /* callers pass a playable position (rec_playable): the SGF's set-up
     * and the game must hold the same stones */
    gs_error e;
    if (rules_game_start(r->game, pos, handicap, to_move, &e) != GS_OK)
        return gs_error_set(err, GS_ERR_INTERNAL, "the record's position: %s", e.msg);
    return GS_OK;
}

int rec_playable(const gs_position *view, gs_position *out)
{
    *out = *view;
    return rules_position_drop_airless(out);
}

/* The side to move on the first view: as given, else White after a
 * handicap, else from the stone counts (*guessed when they can mislead). */
static gs_color start_to_move(const record *r, int nb, int nw, int *handicap, bool *guessed)
{
    gs_color to_move = r->opt.to_move;
    *handicap = 0;
    *guessed = false;
    if (nw == 0 && nb >= 2 && nb <= 9) {
        *handicap = nb;
        if (to_move == GS_EMPTY) to_move = GS_WHITE;
    }
    if (to_move == GS_EMPTY) {
        if (nb == nw) to_move = GS_BLACK;
        else if (nb == nw + 1) to_move = GS_WHITE;
        else to_move = nb > nw ? GS_WHITE : GS_BLACK;
        /* counts can mislead (handicap games, passes): the first move seen
         * decides if it is the other colour */
        if (nb + nw > 0) *guessed = true;
    }
    return to_move;
}

/* Where Black sat and how that was decided, stated in the root (private
 * GSBS[SIDE:given|default], a line of its comment) and the log: readers
 * compare the record with the board in that orientation. */
static void state_orientation(record *r)
{
    const char *side = record_black_side_name(r->opt.black_side), *how = r->opt.black_side_given ? "given" : "default";
    char gsbs[32], words[300];
    snprintf(gsbs, sizeof gsbs, "%s:%s", side, how);
    if (r->opt.black_side_given)
        snprintf(words, sizeof words, "Orientation: Black sat at %s (--black-side %s); the record is turned so that "
                 "Black's side is at the bottom.", record_black_side_words(r->opt.black_side), side);
    else
        snprintf(words, sizeof words, "Orientation: not told where Black sat (--black-side): the record is the "
                 "camera's picture as it is, Black taken at its bottom edge.");
    gs_error e;
    rec_check(r, sgf_node_add_raw(r->sgf.root, "GSBS", gsbs, &e), &e);
    rec_check(r, sgf_append_comment(r->sgf.root, words, &e), &e);
    rec_event_add(r, RECORD_EV_NOTE, "orientation", 0, GS_BLACK, (gs_point){-1, -1}, "%s", words);
}

/* The SGF root: game info, the set-up stones, PL when White starts. */
static gs_status start_tree(record *r, const gs_position *pos, bool setup, gs_color to_move, int handicap,
                            gs_error *err)
{
    sgf_game_info info;
    sgf_game_info_init(&info);
    info.size = r->size;
    info.komi = rules_game_komi(r->game);
    info.has_komi = true;
    info.handicap = handicap;
    snprintf(info.black, sizeof info.black, "%s", r->black);
    snprintf(info.white, sizeof info.white, "%s", r->white);
    snprintf(info.black_rank, sizeof info.black_rank, "%s", r->black_rank);
    snprintf(info.white_rank, sizeof info.white_rank, "%s", r->white_rank);
    snprintf(info.event, sizeof info.event, "%s", r->event);
    snprintf(info.round, sizeof info.round, "%s", r->round);
    snprintf(info.place, sizeof info.place, "%s", r->place);
    /* the date of play, by the source's clock (a video's, a photo's) */
    time_t when = (time_t)(rec_now_ms(r) / 1000);
    struct tm tmv;
    if (localtime_r(&when, &tmv)) strftime(info.date, sizeof info.date, "%Y-%m-%d", &tmv);
    sgf_tree_destroy(r->sgf.tree);
    r->sgf.tree = sgf_new_game(&info, setup ? pos : NULL, &r->sgf.root, err);
    if (!r->sgf.tree) return err ? err->status : GS_ERR_NOMEM;
    gs_error e;
    if (to_move == GS_WHITE && setup) rec_check(r, sgf_node_add_raw(r->sgf.root, "PL", "W", &e), &e);
    if (r->table[0]) {
        char gn[96];
        snprintf(gn, sizeof gn, "Table %.80s", r->table);
        rec_check(r, sgf_node_set_text(r->sgf.root, "GN", gn, &e), &e);
    }
    state_orientation(r);
    r->sgf.last = r->sgf.root;
    return GS_OK;
}

void rec_keep_left_out(record *r, const gs_position *view, const gs_position *playable, int moves)
{
    for (int i = 0; i < r->size * r->size; i++) {
        if (view->cell[i] == GS_EMPTY || playable->cell[i] != GS_EMPTY) continue;
        r->ghost.move[i] = moves > 0 ? moves : 1;
        r->ghost.color[i] = view->cell[i];
        r->ghost.flagged[i] = true;
    }
}

gs_status rec_start_game(record *r, const gs_position *view, gs_error *err)
{
    if (r->size == 0) r->size = view->size;
    gs_position playable, *pos = &playable;
    int dropped = rec_playable(view, pos);
    int nb = gs_position_count(pos, GS_BLACK), nw = gs_position_count(pos, GS_WHITE);
    int handicap;
    gs_color to_move = start_to_move(r, nb, nw, &handicap, &r->to_move_guessed);
    gs_status st = rec_new_game_from(r, pos, to_move, handicap, err);
    if (st == GS_OK) st = start_tree(r, pos, nb + nw > 0, to_move, handicap, err);
    if (st != GS_OK) return st;
    r->started = true;
    rec_keep_left_out(r, view, pos, 0);
    gs_point none = {-1, -1};
    if (dropped)
        rec_event_add(r, RECORD_EV_NOTE, "airless", 0, GS_EMPTY, none,
                      "start: %d stone%s of the first view without liberties left out (misread, or no board holds them)",
                      dropped, dropped == 1 ? "" : "s");
    if (nb + nw == 0)
        rec_event_add(r, RECORD_EV_START, "start", 0, to_move, none, "start: empty %dx%d board, %s to move", r->size,
                      r->size, rules_color_name(to_move));
    else if (handicap)
        rec_event_add(r, RECORD_EV_START, "start", 0, to_move, none, "start: %d handicap stones, %s to move",
                      handicap, rules_color_name(to_move));
    else
        rec_event_add(r, RECORD_EV_START, "start", 0, to_move, none,
                      "start: %d black and %d white stones already on the board (setup), %s to move%s", nb, nw,
                      rules_color_name(to_move), r->to_move_guessed ? " (guessed from the counts)" : "");
    return rec_save(r, err);
}

/* ---------------------------------------------------------- the resume */

/* Reads the game to continue; *t and *g are the caller's to free. */
static gs_status resume_load(record *r, sgf_tree **t, sgf_game *g, gs_error *err)
{
    gs_error e;
    /* a process killed mid-save may have left its temp file: nobody else
     * writes this game now */
    int stale = gs_file_remove_stale_temps(r->sgf.path);
    if (stale > 0)
        rec_event_add(r, RECORD_EV_NOTE, "stale_temps", 0, GS_EMPTY, (gs_point){-1, -1},
                      "removed %d unfinished temp file%s of %s left by a killed recording", stale,
                      stale == 1 ? "" : "s", r->sgf.path);
    memset(g, 0, sizeof *g);
    *t = NULL;
    if (sgf_load(r->sgf.path, t, &e) != GS_OK)
        return gs_error_set(err, e.status == GS_ERR_IO ? GS_ERR_IO : GS_ERR_FORMAT, "%s: %s", r->sgf.path, e.msg);
    if (sgf_game_from_tree(*t, g, &e) != GS_OK) return gs_error_set(err, e.status, "%s: %s", r->sgf.path, e.msg);
    if (r->size && r->size != g->info.size)
        return gs_error_set(err, GS_ERR_USAGE, "%s: board size %d, not %d", r->sgf.path, g->info.size, r->size);
    if (g->info.result[0] && !r->opt.reopen)
        return gs_error_set(err, GS_ERR_USAGE,
                            "%s: the game is over (RE[%s]): --reopen to continue it (the result and the count "
                            "are removed)", r->sgf.path, g->info.result);
    return GS_OK;
}

/* A set-up node of the file: the game goes on from the position it
 * makes, as when the recorder wrote it (rec_resync_to). */
static gs_status resume_step(record *r, const sgf_game *g, const sgf_setup_step *st, gs_error *err)
{
    gs_position pos;
    rules_game_position(r->game, &pos);
    for (int i = 0; i < pos.size * pos.size; i++) {
        if (st->clear[i]) pos.cell[i] = GS_EMPTY;
        if (st->add.cell[i] != GS_EMPTY) pos.cell[i] = st->add.cell[i];
    }
    gs_color tm = st->to_move != GS_EMPTY ? st->to_move : rules_game_to_move(r->game);
    int moves = rec_game_moves(r);
    gs_position playable;
    (void)rec_playable(&pos, &playable); /* what the record did when it wrote the file */
    gs_status s = rec_new_game_from(r, &playable, tm, g->info.handicap, err);
    r->move_offset = moves;
    return s;
}

/* The file's game replayed into the rules engine (set-up nodes too, the
 * warnings of its rulings), each move's node kept. */
static gs_status resume_replay(record *r, sgf_tree *t, const sgf_game *g, gs_error *err)
{
    gs_color first = g->to_move != GS_EMPTY ? g->to_move
                     : g->move_count          ? g->moves[0].color
                                              : (g->info.handicap > 0 ? GS_WHITE : GS_BLACK);
    gs_error e;
    gs_status st = create_game(r, g->info.handicap, err);
    if (st != GS_OK) return st;
    if (rules_game_start(r->game, &g->setup, g->info.handicap, first, &e) != GS_OK)
        return gs_error_set(err, e.status, "%s: %s", r->sgf.path, e.msg);
    /* (a resume keeps each position passed, for its catch-up) */
    if (r->catching_up) r->catching_up = rec_past_keep(r);
    /* walk the main line alongside the moves to know each move's node */
    r->sgf.root = sgf_tree_root(t, 0);
    size_t mi = 0, si = 0;
    for (sgf_node *c = sgf_node_child(r->sgf.root, 0); c && st == GS_OK; c = sgf_node_child(c, 0)) {
        if (si < g->step_count && (sgf_node_find(c, "AB") || sgf_node_find(c, "AW") || sgf_node_find(c, "AE"))) {
            st = resume_step(r, g, &g->steps[si++], err);
            if (st == GS_OK && r->catching_up) r->catching_up = rec_past_keep(r);
        }
        if (!sgf_node_find(c, "B") && !sgf_node_find(c, "W")) continue;
        if (mi >= g->move_count) break;
        /* an illegal move in the file leaves the game as it was (the rules
         * engine's contract): the replay goes on, as the record did */
        const gs_move *m = &g->moves[mi];
        (void)rules_game_apply(r->game, m, NULL);
        r->have_last_move = true;
        r->last_move = *m;
        r->last_move_ms = g->move_info[mi++].time_ms;
        remember_node(r, rec_game_moves(r), c);
        if (r->catching_up) r->catching_up = rec_past_keep(r);
    }
    if (st != GS_OK) return st;
    for (size_t i = g->note_count; i-- > 0;)
        if (g->notes[i].ruling) { /* the warnings after the last ruling */
            for (int k = 0; k < g->notes[i].warnings_black; k++) rules_game_add_warning(r->game, GS_BLACK);
            for (int k = 0; k < g->notes[i].warnings_white; k++) rules_game_add_warning(r->game, GS_WHITE);
            break;
        }
    r->sgf.last = sgf_node_main_line_last(r->sgf.root);
    return GS_OK;
}

gs_status rec_replay_tree(record *r, gs_error *err)
{
    sgf_game g;
    gs_error e;
    if (sgf_game_from_tree(r->sgf.tree, &g, &e) != GS_OK) return gs_error_set(err, e.status, "%s", e.msg);
    r->captures_before[GS_BLACK] = r->captures_before[GS_WHITE] = 0;
    r->move_offset = 0;
    r->have_last_move = false;
    if (r->sgf.move_node) memset(r->sgf.move_node, 0, (size_t)r->sgf.cap_move_node * sizeof *r->sgf.move_node);
    r->sgf.n_move_node = 0;
    gs_status st = resume_replay(r, r->sgf.tree, &g, err);
    sgf_game_free(&g);
    return st;
}

/* The game goes on: an earlier count (--reopen, --count-anyway) would
 * stand in the middle of it. */
static gs_status resume_reopen(record *r, const sgf_game *g, gs_error *err)
{
    gs_error e;
    if (sgf_node_find(r->sgf.last, "TB") || sgf_node_find(r->sgf.last, "TW") || g->info.result[0]) {
        rec_event_add(r, RECORD_EV_NOTE, "reopen", rec_game_moves(r), GS_EMPTY, (gs_point){-1, -1},
                      "%s%s%s: result and count removed, the game goes on", r->sgf.path,
                      g->info.result[0] ? ": RE " : "", g->info.result);
        if (sgf_clear_final_count(r->sgf.last, &e) != GS_OK) return gs_error_set(err, e.status, "%s", e.msg);
    }
    return GS_OK;
}

/* Resume: the file's game is replayed into the rules engine and its tree
 * kept, so earlier comments and events survive. */
gs_status rec_resume_game(record *r, gs_error *err)
{
    sgf_tree *t = NULL;
    sgf_game g;
    gs_status st = resume_load(r, &t, &g, err);
    if (st == GS_OK) {
        r->size = g.info.size;
        if (!r->opt.has_komi && g.info.has_komi) {
            r->opt.komi = g.info.komi;
            r->opt.has_komi = true;
        }
        r->catching_up = true; /* the source may show the game from its start */
        st = resume_replay(r, t, &g, err);
        if (st == GS_OK) st = resume_reopen(r, &g, err);
    }
    sgf_game_free(&g);
    if (st != GS_OK) {
        sgf_tree_destroy(t);
        return st;
    }
    r->sgf.tree = t;
    r->started = true;
    rec_event_add(r, RECORD_EV_START, "resume", rec_game_moves(r), rules_game_to_move(r->game), (gs_point){-1, -1},
                  "resumed %s: %d moves, %s to move", r->sgf.path, rec_game_moves(r),
                  rules_color_name(rules_game_to_move(r->game)));
    rec_store_check_fallback(r);
    return GS_OK;
}

/* ------------------------------------------------------------ changes */

gs_status rec_commit_move(record *r, gs_color c, gs_point p, bool pass, bool announced, gs_error *err)
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
    int num = rec_game_moves(r);
    int64_t when = rec_now_ms(r);
    sgf_node *n = sgf_add_move(r->sgf.last, c, p, pass, when, &e);
    r->have_last_move = true;
    r->last_move = (gs_move){c, pass ? (gs_point){-1, -1} : p, pass};
    r->last_move_ms = when;
    if (n) {
        r->sgf.last = n;
        remember_node(r, num, n);
    } else {
        rec_check(r, e.status, &e);
    }
    if (pass) {
        rec_event_add(r, RECORD_EV_PASS, "pass", num, c, (gs_point){-1, -1}, "move %d: %s passes%s", num,
                      rules_color_name(c), announced ? "" : " (not announced)");
    } else {
        char h[8];
        rules_point_human(p, r->size, h);
        if (res->ncaptured) r->last_capture_move = num;
        if (res->ncaptured)
            rec_event_add(r, RECORD_EV_MOVE, "move", num, c, p, "move %d: %s %s, captures %d", num,
                          rules_color_name(c), h, res->ncaptured);
        else
            rec_event_add(r, RECORD_EV_MOVE, "move", num, c, p, "move %d: %s %s", num, rules_color_name(c), h);
    }
    free(res);
    /* only passes the players said end the game: one inferred from the
     * board stands for a pass nobody announced, and play goes on */
    r->said_passes = pass && announced ? r->said_passes + 1 : 0;
    if (r->said_passes >= 2 && !r->ended) {
        r->ended = r->may_go_on = true;
        r->ended_at = num;
        rec_event_add(r, RECORD_EV_END, "two_passes", num, GS_EMPTY, (gs_point){-1, -1},
                      "game over: two passes in a row");
    }
    return GS_OK;
}

gs_status rec_resync_to(record *r, const gs_position *view, bool irregular, gs_error *err)
{
    gs_position rec, playable, *obs = &playable;
    rules_game_position(r->game, &rec);
    int dropped = rec_playable(view, obs);
    gs_color tm = rules_game_to_move(r->game);
    int cnt = 0;
    gs_error e;
    sgf_node *n = sgf_add_setup(r->sgf.last, &rec, obs, tm, &cnt, &e);
    if (!n) return gs_error_set(err, e.status, "%s", e.msg);
    r->sgf.last = n;
    int handicap = rules_game_handicap(r->game);
    int wb = rules_game_warnings(r->game, GS_BLACK), ww = rules_game_warnings(r->game, GS_WHITE);
    int moves = rec_game_moves(r);
    gs_status st = rec_new_game_from(r, obs, tm, handicap, err);
    if (st != GS_OK) return st;
    for (int i = 0; i < wb; i++) rules_game_add_warning(r->game, GS_BLACK);
    for (int i = 0; i < ww; i++) rules_game_add_warning(r->game, GS_WHITE);
    r->move_offset = moves;
    memset(&r->ghost, 0, sizeof r->ghost);
    memset(r->absent.views, 0, sizeof r->absent.views);
    memset(r->absent.flagged, 0, sizeof r->absent.flagged);
    rec_keep_left_out(r, view, obs, moves);
    if (!irregular) return GS_OK; /* a referee's correction: the ruling says why */
    rec_event_add(r, RECORD_EV_NOTE, "resync", moves, GS_EMPTY, (gs_point){-1, -1},
                  "record follows the board again: %d point%s set as seen (setup node)%s", cnt, cnt == 1 ? "" : "s",
                  dropped ? "; stones seen without liberties left out (misread, or no board holds them)" : "");
    rec_check(r,
              sgf_append_comment(n, "goscribe: the board changed in a way no legal play explains; the record "
                                    "follows the board from here.", &e),
              &e);
    return GS_OK;
}
