/* rules/classify.c: the referee's transition classifier (rules.h, layer 3).
 *
 * Given the confirmed game and a newly observed position it explains the
 * difference: one legal move, several moves in an alternating legal order
 * (every order that fits is counted; more than one is flagged, never
 * silently picked as "the" truth), or an irregular event with the article
 * of the rules.  Article numbers follow the 2002 rules in seeds/ (RULES.md):
 * Art. 2 play, 4 capture, 5 forbidden point, 6 repetition, 17 conduct of
 * play (17.1 double move, 17.2 take-back, 17.3 moved stone, 17.4 scattered
 * board), 18 wrong capture, 20 repetition rulings, 23.4 capturing before
 * pressing the clock.
 */
#include "rules/rules.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SEQ 6          /* new stones searched for an order */
#define MAX_LEAVES 20000   /* bound on the order search */
#define DISTURBED_MIN 6    /* unexplained changes that make a board "scattered" */

const char *rules_event_code(rules_event_type t)
{
    static const char *names[RULES_EV_COUNT_] = {
        "none", "double_move", "missed_capture", "wrong_capture", "suicide", "ko", "superko", "cycle",
        "moved_stone", "take_back", "out_of_turn", "stone_removed", "scattered", "ambiguous_order",
        "color_changed"};
    return ((int)t >= 0 && t < RULES_EV_COUNT_) ? names[t] : "unknown";
}

static const char *article_of(rules_event_type t)
{
    switch (t) {
    case RULES_EV_DOUBLE_MOVE: return "Art. 17.1";
    case RULES_EV_MISSED_CAPTURE: return "Art. 4";
    case RULES_EV_WRONG_CAPTURE: return "Art. 18";
    case RULES_EV_SUICIDE: return "Art. 5";
    case RULES_EV_KO: return "Art. 20.1";
    case RULES_EV_SUPERKO: return "Art. 6";
    case RULES_EV_CYCLE: return "Art. 20.3";
    case RULES_EV_MOVED_STONE: return "Art. 17.3";
    case RULES_EV_TAKE_BACK: return "Art. 17.2";
    case RULES_EV_OUT_OF_TURN: return "Art. 2";
    case RULES_EV_STONE_REMOVED: return "Art. 2";
    case RULES_EV_BOARD_DISTURBED: return "Art. 17.4";
    case RULES_EV_AMBIGUOUS_ORDER: return "Art. 2";
    case RULES_EV_COLOR_CHANGED: return "Art. 2";
    default: return "";
    }
}

typedef struct ctx {
    const rules_game *g;
    const gs_position *obs;
    gs_position cur;
    int n;
    rules_classification *out;
} ctx;

static rules_event *add_event(ctx *c, rules_event_type t, gs_color col, int move_number, const gs_point *pts,
                              int npts, const char *fmt, ...) __attribute__((format(printf, 7, 8)));

static rules_event *add_event(ctx *c, rules_event_type t, gs_color col, int move_number, const gs_point *pts,
                              int npts, const char *fmt, ...)
{
    rules_classification *o = c->out;
    if (o->nevents >= RULES_CLASSIFY_MAX_EVENTS) return NULL;
    rules_event *e = &o->events[o->nevents++];
    memset(e, 0, offsetof(rules_event, points));
    e->type = t;
    e->color = col;
    e->move_number = move_number;
    e->article = article_of(t);
    if (npts > RULES_MAX_POINTS) npts = RULES_MAX_POINTS;
    e->npoints = npts;
    if (npts) memcpy(e->points, pts, (size_t)npts * sizeof *pts);
    char body[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    snprintf(e->text, sizeof e->text, "%s (%s)", body, e->article);
    return e;
}

/* "Q16", or "Q16, R17 and 3 more" for a list. */
static void list_points(const ctx *c, const gs_point *p, int n, char *buf, size_t len)
{
    buf[0] = 0;
    size_t used = 0;
    for (int i = 0; i < n && i < 4; i++) {
        char h[8];
        rules_point_human(p[i], c->n, h);
        int w = snprintf(buf + used, len - used, "%s%s", i ? " " : "", h);
        if (w < 0 || (size_t)w >= len - used) return;
        used += (size_t)w;
    }
    if (n > 4) snprintf(buf + used, len - used, " and %d more", n - 4);
}

static const char *cname(gs_color c) { return rules_color_name(c); }

/* ---------------------------------------------------------- order search */

typedef struct seq_state {
    ctx *c;
    int nA;
    gs_point A[MAX_SEQ];
    gs_color Acol[MAX_SEQ];
    rules_board *boards[MAX_SEQ + 1];
    rules_ko_policy policy;
    /* current path */
    int path[MAX_SEQ];
    bool path_cycle[MAX_SEQ];
    int ncap[MAX_SEQ];
    int16_t cap[MAX_SEQ][RULES_MAX_POINTS];
    /* best found */
    int best_score, norders, leaves;
    int best_path[MAX_SEQ];
    bool best_cycle[MAX_SEQ];
    int best_ncap[MAX_SEQ];
    int16_t best_cap[MAX_SEQ][RULES_MAX_POINTS];
    gs_position best_final;
} seq_state;

/* Compares the final board with the observation.  Returns the number of
 * irregular points (missed captures + stones removed without capture), or
 * -1 if the observation does not follow from this order at all. */
static int leaf_score(const seq_state *s, const rules_board *b, gs_position *final)
{
    const ctx *c = s->c;
    rules_board_get_position(b, final);
    int bad = 0;
    for (int i = 0; i < c->n * c->n; i++) {
        gs_color f = (gs_color)final->cell[i], o = (gs_color)c->obs->cell[i], k = (gs_color)c->cur.cell[i];
        if (f == o) continue;
        if (f == GS_EMPTY && o != GS_EMPTY) {
            /* still on the board though captured in the sequence */
            bool placed = false;
            for (int j = 0; j < s->nA; j++)
                if (s->A[j].y * c->n + s->A[j].x == i && s->Acol[j] == o) placed = true;
            if (k == o || placed) {
                bad++;
                continue;
            }
            return -1;
        }
        if (f != GS_EMPTY && o == GS_EMPTY && k == f) {
            bad++;  /* removed though not captured */
            continue;
        }
        return -1;
    }
    return bad;
}

static void search(seq_state *s, int depth, unsigned used, gs_color col)
{
    if (s->leaves >= MAX_LEAVES) return;
    if (depth == s->nA) {
        s->leaves++;
        gs_position fin;
        int sc = leaf_score(s, s->boards[depth], &fin);
        if (sc < 0) return;
        if (s->best_score < 0 || sc < s->best_score) {
            s->best_score = sc;
            s->norders = 0;
            memcpy(s->best_path, s->path, sizeof s->path);
            memcpy(s->best_cycle, s->path_cycle, sizeof s->path_cycle);
            memcpy(s->best_ncap, s->ncap, sizeof s->ncap);
            for (int d = 0; d < s->nA; d++) memcpy(s->best_cap[d], s->cap[d], (size_t)s->ncap[d] * sizeof(int16_t));
            s->best_final = fin;
        }
        if (sc == s->best_score) s->norders++;
        return;
    }
    rules_board *b = s->boards[depth];
    for (int i = 0; i < s->nA; i++) {
        if ((used >> i) & 1 || s->Acol[i] != col) continue;
        int idx = rules_board_index(b, s->A[i].x, s->A[i].y);
        rules_legality l = rules_board_check(b, idx, col);
        bool cyc = false;
        if (l == RULES_ILLEGAL_SUPERKO && s->policy == RULES_KO_FLAG_CYCLE) cyc = true;
        else if (l != RULES_LEGAL) continue;
        rules_board *nb = s->boards[depth + 1];
        if (rules_board_copy(nb, b) != GS_OK) continue;
        if (cyc) rules_board_set_superko(nb, false);
        if (rules_board_play(nb, idx, col) != RULES_LEGAL) continue;
        rules_board_set_superko(nb, true);
        const int16_t *cp;
        s->ncap[depth] = rules_board_last_captured(nb, &cp);
        memcpy(s->cap[depth], cp, (size_t)s->ncap[depth] * sizeof *cp);
        s->path[depth] = i;
        s->path_cycle[depth] = cyc;
        search(s, depth + 1, used | (1u << i), gs_color_other(col));
    }
}

/* The points where the best order's final board differs from the view,
 * flagged: captured stones still standing (missed capture), stones removed
 * that were not captured (wrong capture), and with a single move the
 * mover's own stones removed. */
static void flag_irregular_points(ctx *c, const seq_state *s, int nA, int base)
{
    gs_point *missed = malloc(sizeof(gs_point) * RULES_MAX_POINTS * 3);
    if (!missed) return; /* no memory: the moves stand, unflagged */
    gs_point *wrong = missed + RULES_MAX_POINTS, *own = wrong + RULES_MAX_POINTS;
    int nm = 0, nw = 0, no = 0;
    gs_color last = c->out->moves[nA - 1].move.color;
    for (int y = 0; y < c->n; y++)
        for (int x = 0; x < c->n; x++) {
            int i = y * c->n + x;
            gs_color f = (gs_color)s->best_final.cell[i], ob = (gs_color)c->obs->cell[i];
            gs_point p = {(int8_t)x, (int8_t)y};
            if (f == ob) continue;
            if (f == GS_EMPTY) missed[nm++] = p;
            else if (nA == 1 && f == last) own[no++] = p;
            else wrong[nw++] = p;
        }
    char l[80];
    if (nm) {
        list_points(c, missed, nm, l, sizeof l);
        add_event(c, RULES_EV_MISSED_CAPTURE, gs_position_get(c->obs, missed[0].x, missed[0].y), base + nA, missed,
                  nm,
                  "%d captured stone%s still on the board (%s): the capture must be completed, "
                  "capturing is part of the move", nm, nm == 1 ? "" : "s", l);
    }
    if (nw) {
        list_points(c, wrong, nw, l, sizeof l);
        add_event(c, RULES_EV_WRONG_CAPTURE, gs_position_get(&s->best_final, wrong[0].x, wrong[0].y), base + nA,
                  wrong, nw, "%d stone%s removed that still had liberties (%s): put them back, warning", nw,
                  nw == 1 ? "" : "s", l);
    }
    if (no) {
        list_points(c, own, no, l, sizeof l);
        add_event(c, RULES_EV_STONE_REMOVED, last, base + nA, own, no,
                  "%s's own stone%s removed for no reason (%s): a placed stone never moves", cname(last),
                  no == 1 ? "" : "s", l);
    }
    free(missed);
}

/* The best order found becomes the classification: its moves with their
 * captures, the irregular points, a cycle and an ambiguous order. */
static void take_best_order(ctx *c, const seq_state *s, const gs_point *A, const gs_color *Acol, int nA)
{
    rules_classification *o = c->out;
    const rules_board *b0 = s->boards[0];
    int base = rules_game_move_count(c->g);
    o->nmoves = nA;
    o->norders = s->norders;
    gs_point cyc_pts[MAX_SEQ];
    int ncyc = 0;
    for (int d = 0; d < nA; d++) {
        rules_classified_move *m = &o->moves[d];
        int i = s->best_path[d];
        m->move.color = Acol[i];
        m->move.pass = false;
        m->move.pt = A[i];
        m->ncaptured = s->best_ncap[d];
        for (int k = 0; k < m->ncaptured; k++) m->captured[k] = rules_board_point(b0, s->best_cap[d][k]);
        if (s->best_cycle[d]) cyc_pts[ncyc++] = A[i];
    }
    flag_irregular_points(c, s, nA, base);
    if (ncyc) {
        char l[80];
        list_points(c, cyc_pts, ncyc, l, sizeof l);
        add_event(c, RULES_EV_CYCLE, GS_EMPTY, base + 1, cyc_pts, ncyc,
                  "move at %s repeats an earlier whole-board position (triple ko, eternal life...): "
                  "the event may declare no result, a draw or a replay", l);
    }
    if (s->norders > 1) {
        gs_point pts[MAX_SEQ];
        for (int d = 0; d < nA; d++) pts[d] = A[d];
        add_event(c, RULES_EV_AMBIGUOUS_ORDER, GS_EMPTY, base + 1, pts, nA,
                  "%d new stones fit %d different playing orders; the order given is one of them, "
                  "confirm it from the record or the players", nA, s->norders);
    }
}

/* Tries to explain the added stones as legal moves in alternation starting
 * with the side to move.  Returns true and fills moves/events if it can. */
static bool explain_by_moves(ctx *c, const gs_point *A, const gs_color *Acol, int nA)
{
    const rules_game *g = c->g;
    seq_state *s = calloc(1, sizeof *s);
    if (!s) return false;
    s->c = c;
    s->nA = nA;
    memcpy(s->A, A, (size_t)nA * sizeof *A);
    memcpy(s->Acol, Acol, (size_t)nA * sizeof *Acol);
    s->policy = rules_game_ko_policy(g);
    s->best_score = -1;
    bool ok = true;
    for (int d = 0; d <= nA; d++)
        if (!(s->boards[d] = rules_board_clone(rules_game_board(g)))) ok = false;
    if (ok) search(s, 0, 0, rules_game_to_move(g));
    bool found = ok && s->best_score >= 0;
    if (found && nA >= 2) {
        /* Several moves plus stones lifted without being captured: that
         * is a disturbed board rather than a game. */
        int lifted = 0;
        for (int i = 0; i < c->n * c->n; i++)
            if (s->best_final.cell[i] != GS_EMPTY && c->obs->cell[i] == GS_EMPTY) lifted++;
        if (lifted >= 3) found = false;
    }
    if (found) take_best_order(c, s, A, Acol, nA);
    for (int d = 0; d <= nA; d++) rules_board_destroy(s->boards[d]);
    free(s);
    return found;
}

/* ------------------------------------------------------------ one stone */

/* The last stone actually played (not a pass), or -1. */
static int last_stone_move(const rules_game *g)
{
    int n = rules_game_move_count(g);
    return n > 0 && !rules_game_move(g, n - 1).pass ? n - 1 : -1;
}

/* The new stone p of col came with exactly one stone of its colour gone
 * (R[own]): the stone moved or, when it was the last move, was taken back. */
static void flag_moved_stone(ctx *c, gs_point p, gs_color col, gs_point from)
{
    const rules_game *g = c->g;
    char hp[8], hq[8];
    rules_point_human(p, c->n, hp);
    rules_point_human(from, c->n, hq);
    /* Never a capture: a new stone cannot capture one of its own colour. */
    int lm = last_stone_move(g);
    gs_point pts[2] = {from, p};
    if (col != rules_game_to_move(g) && lm >= 0 && rules_game_move(g, lm).color == col &&
        rules_game_move(g, lm).pt.x == from.x && rules_game_move(g, lm).pt.y == from.y) {
        add_event(c, RULES_EV_TAKE_BACK, col, lm + 1, pts, 2,
                  "%s's last stone (move %d) lifted from %s and put down at %s: take-back, "
                  "the stone goes back to %s, warning", cname(col), lm + 1, hq, hp, hq);
    } else {
        add_event(c, RULES_EV_MOVED_STONE, col, rules_game_move_count(g) + 1, pts, 2,
                  "a %s stone vanished from %s and one appeared at %s: moved stone "
                  "(or a stone knocked off while another was played); put it back",
                  cname(col), hq, hp);
    }
}

/* A stone of the side not to move: a double move after its own move, else
 * a stone added out of turn. */
static void flag_out_of_turn(ctx *c, gs_point p, gs_color col)
{
    const rules_game *g = c->g;
    gs_color t = rules_game_to_move(g);
    int num = rules_game_move_count(g) + 1, lm = rules_game_move_count(g) - 1;
    char hp[8];
    rules_point_human(p, c->n, hp);
    gs_point pts[1] = {p};
    if (lm >= 0 && rules_game_move(g, lm).color == col && !rules_game_move(g, lm).pass) {
        add_event(c, RULES_EV_DOUBLE_MOVE, col, num, pts, 1,
                  "%s played twice in a row (%s after move %d): double move or unannounced pass by %s",
                  cname(col), hp, lm + 1, cname(t));
    } else {
        add_event(c, RULES_EV_OUT_OF_TURN, col, num, pts, 1,
                  "%s stone added at %s but it is %s's turn: stone added out of turn", cname(col), hp, cname(t));
    }
}

/* The stones a suicide at p would leave without liberties: p and every
 * stone of col in a group touching p.  Returns how many (pts[0] = p). */
static int suicide_stones(const ctx *c, const rules_board *b, gs_point p, gs_color col, gs_point *pts)
{
    int np = 0;
    pts[np++] = p;
    for (int i = 0; i < c->n * c->n; i++) {
        int x = i % c->n, y = i / c->n;
        if (x == p.x && y == p.y) continue;
        if (c->cur.cell[i] != col) continue;
        int q = rules_board_index(b, x, y);
        int nb = 0;
        /* member of a group touching p with one liberty (p) */
        int qx[4] = {p.x - 1, p.x + 1, p.x, p.x}, qy[4] = {p.y, p.y, p.y - 1, p.y + 1};
        for (int k = 0; k < 4; k++) {
            int r = rules_board_index(b, qx[k], qy[k]);
            if (r != RULES_PASS && rules_board_at(b, r) == col &&
                rules_board_group_id(b, r) == rules_board_group_id(b, q))
                nb = 1;
        }
        if (nb) pts[np++] = (gs_point){(int8_t)x, (int8_t)y};
    }
    return np;
}

/* A stone of the side to move on a forbidden point (suicide, ko retake,
 * superko when repetitions are forbidden): flagged, true.  False for a
 * point the order search should try as a move. */
static bool flag_forbidden(ctx *c, gs_point p, gs_color col)
{
    const rules_game *g = c->g;
    int num = rules_game_move_count(g) + 1;
    char hp[8];
    rules_point_human(p, c->n, hp);
    const rules_board *b = rules_game_board(g);
    int idx = rules_board_index(b, p.x, p.y);
    rules_legality l = rules_board_check(b, idx, col);
    if (l == RULES_ILLEGAL_SUPERKO || l == RULES_ILLEGAL_KO) l = rules_game_check(g, col, p);
    if (l == RULES_ILLEGAL_SUICIDE) {
        gs_point pts[RULES_MAX_POINTS];
        int np = suicide_stones(c, b, p, col, pts);
        add_event(c, RULES_EV_SUICIDE, col, num, pts, np,
                  "%s at %s is a forbidden point: the stone%s would have no liberties and capture nothing; "
                  "the move is void and counts as a pass", cname(col), hp, np > 1 ? "s" : "");
        return true;
    }
    if (l == RULES_ILLEGAL_KO) {
        gs_point pts[1] = {p};
        add_event(c, RULES_EV_KO, col, num, pts, 1,
                  "%s at %s retakes the ko at once, recreating the position before %s's last move: "
                  "the move is void and counts as a pass", cname(col), hp, cname(gs_color_other(col)));
        return true;
    }
    if (l == RULES_ILLEGAL_SUPERKO && rules_game_ko_policy(g) == RULES_KO_FORBID) {
        gs_point pts[1] = {p};
        add_event(c, RULES_EV_SUPERKO, col, num, pts, 1,
                  "%s at %s recreates an earlier whole-board position: no repetition is allowed, "
                  "the move is void", cname(col), hp);
        return true;
    }
    return false; /* legal, occupied or off the board: the order search decides */
}

/* Single new stone: the irregular cases.  Returns true if it produced the
 * classification (irregular), false to let the order search handle a
 * legal move. */
static bool single_stone(ctx *c, gs_point p, gs_color col, const gs_point *R, const gs_color *Rcol, int nR)
{
    /* Exactly one stone of the same colour vanished: the stone moved (or,
     * if it was the last move, was taken back). */
    int own = -1, nown = 0;
    for (int i = 0; i < nR; i++)
        if (Rcol[i] == col) {
            own = i;
            nown++;
        }
    if (nR == 1 && nown == 1) {
        flag_moved_stone(c, p, col, R[own]);
        return true;
    }
    if (col != rules_game_to_move(c->g)) {
        flag_out_of_turn(c, p, col);
        return true;
    }
    return flag_forbidden(c, p, col);
}

/* Moves and, in the same view, a stone pushed to a neighbouring empty point
 * (a sleeve while playing): a removed stone with a new stone of its colour
 * beside it is taken as moved back, and the other new stones must be legal
 * moves in alternation. */
static bool moves_and_moved_stone(ctx *c, const gs_point *A, const gs_color *Acol, int nA, const gs_point *R,
                                  const gs_color *Rcol, int nR)
{
    gs_color t = rules_game_to_move(c->g), o = gs_color_other(t);
    for (int i = 0; i < nR; i++)
        for (int j = 0; j < nA; j++) {
            if (Acol[j] != Rcol[i] || abs(A[j].x - R[i].x) + abs(A[j].y - R[i].y) != 1) continue;
            gs_point A2[MAX_SEQ];
            gs_color A2col[MAX_SEQ];
            int n2 = 0, cnt[3] = {0, 0, 0};
            for (int k = 0; k < nA; k++)
                if (k != j) {
                    A2[n2] = A[k];
                    A2col[n2++] = Acol[k];
                    cnt[Acol[k]]++;
                }
            if (!(cnt[t] == cnt[o] || cnt[t] == cnt[o] + 1)) continue;
            gs_position obs2 = *c->obs;
            gs_position_set(&obs2, A[j].x, A[j].y, GS_EMPTY);
            gs_position_set(&obs2, R[i].x, R[i].y, Rcol[i]);
            ctx c2 = *c;
            c2.obs = &obs2;
            if (!explain_by_moves(&c2, A2, A2col, n2)) {
                c->out->nmoves = 0;
                c->out->nevents = 0;
                c->out->norders = 0;
                continue;
            }
            char hp[8], hq[8];
            rules_point_human(R[i], c->n, hq);
            rules_point_human(A[j], c->n, hp);
            gs_point pts[2] = {R[i], A[j]};
            /* numbered like a lone moved stone, as the move it would have
             * been after the view's first move: a push comes with the stone
             * being played (a sleeve), or just after it */
            add_event(c, RULES_EV_MOVED_STONE, Rcol[i], rules_game_move_count(c->g) + 2, pts, 2,
                      "a %s stone vanished from %s and one appeared at %s in the view that shows move %d: "
                      "moved stone; put it back", cname(Rcol[i]), hq, hp, rules_game_move_count(c->g) + 1);
            return true;
        }
    return false;
}

bool rules_classification_push_shape(const rules_game *g, const gs_position *observed,
                                     const rules_classification *cls)
{
    static const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
    gs_position cur;
    rules_game_position(g, &cur);
    int n = cur.size;
    for (int e = 0; e < cls->nevents; e++) {
        if (cls->events[e].type != RULES_EV_WRONG_CAPTURE && cls->events[e].type != RULES_EV_STONE_REMOVED) continue;
        for (int k = 0; k < cls->events[e].npoints; k++) {
            gs_point q = cls->events[e].points[k];
            gs_color c = gs_position_get(&cur, q.x, q.y);
            for (int d = 0; d < 4 && c != GS_EMPTY; d++) {
                int ax = q.x + dx[d], ay = q.y + dy[d];
                if (ax < 0 || ay < 0 || ax >= n || ay >= n) continue;
                if (gs_position_get(observed, ax, ay) == c && gs_position_get(&cur, ax, ay) == GS_EMPTY) return true;
            }
        }
    }
    return false;
}

/* -------------------------------------------------------------- classify */

/* How the view differs from the game's position: stones added (A), removed
 * (R) and changed colour (X, with the observed colour). */
typedef struct view_diff {
    gs_point A[RULES_MAX_POINTS], R[RULES_MAX_POINTS], X[RULES_MAX_POINTS];
    gs_color Acol[RULES_MAX_POINTS], Rcol[RULES_MAX_POINTS];
    int nA, nR, nX, nAc[3];
} view_diff;

static gs_status diff_view(const ctx *c, view_diff *d, gs_error *err)
{
    d->nA = d->nR = d->nX = 0;
    d->nAc[0] = d->nAc[1] = d->nAc[2] = 0;
    for (int y = 0; y < c->n; y++)
        for (int x = 0; x < c->n; x++) {
            gs_color a = gs_position_get(&c->cur, x, y), b = gs_position_get(c->obs, x, y);
            if (b > GS_WHITE) return gs_error_set(err, GS_ERR_USAGE, "observed position has a bad cell value");
            gs_point p = {(int8_t)x, (int8_t)y};
            if (a == b) continue;
            if (a == GS_EMPTY) {
                d->A[d->nA] = p;
                d->Acol[d->nA++] = b;
                d->nAc[b]++;
            } else if (b == GS_EMPTY) {
                d->R[d->nR] = p;
                d->Rcol[d->nR++] = a;
            } else {
                d->X[d->nX++] = p;
            }
        }
    return GS_OK;
}

/* Many changes and no legal sequence explains them. */
static void flag_disturbed(ctx *c, const view_diff *d)
{
    int num = rules_game_move_count(c->g) + 1;
    gs_point *all = malloc(sizeof(gs_point) * RULES_MAX_POINTS);
    int na = 0;
    if (all) {
        for (int i = 0; i < d->nA; i++) all[na++] = d->A[i];
        for (int i = 0; i < d->nR; i++) all[na++] = d->R[i];
        for (int i = 0; i < d->nX; i++) all[na++] = d->X[i];
    }
    /* no memory for the list: the event without its points */
    add_event(c, RULES_EV_BOARD_DISTURBED, GS_EMPTY, num, all ? all : d->A, all ? na : 0,
              "the board changed in %d places (%d stones added, %d removed, %d changed colour) and no legal "
              "sequence of moves explains it: board disturbed, replay from the record",
              d->nA + d->nR + d->nX, d->nA, d->nR, d->nX);
    free(all);
}

/* Only stones removed: the last stone lifted, a few stones removed for no
 * reason, or a disturbed board. */
static void flag_removed_only(ctx *c, const view_diff *d)
{
    const rules_game *g = c->g;
    int lm = last_stone_move(g), nR = d->nR;
    char l[80];
    if (nR == 1 && lm >= 0 && rules_game_move(g, lm).pt.x == d->R[0].x && rules_game_move(g, lm).pt.y == d->R[0].y) {
        rules_point_human(d->R[0], c->n, l);
        add_event(c, RULES_EV_STONE_REMOVED, d->Rcol[0], lm + 1, d->R, 1,
                  "%s's last stone (move %d, %s) was lifted off the board: a placed stone never moves "
                  "(a take-back if it is put down elsewhere)", cname(d->Rcol[0]), lm + 1, l);
        return;
    }
    if (nR >= DISTURBED_MIN) {
        flag_disturbed(c, d);
        return;
    }
    list_points(c, d->R, nR, l, sizeof l);
    add_event(c, RULES_EV_STONE_REMOVED, nR && d->Rcol[0] == d->Rcol[nR - 1] ? d->Rcol[0] : GS_EMPTY,
              rules_game_move_count(g) + 1, d->R, nR, "%d stone%s removed for no reason (%s): put back", nR,
              nR == 1 ? "" : "s", l);
}

/* The view explained as legal moves in alternation (new stones and stones
 * of the other colour where one stood, i.e. a capture then a move on the
 * emptied point); a stone of one's own colour "removed" beside a new
 * stone of that colour is more likely pushed there than the new stone a
 * move, and the push wins when it explains the view as well.  *alternates
 * gets whether the new stones alternate at all. */
static bool explain_view_by_moves(ctx *c, const view_diff *d, bool *alternates)
{
    gs_point AX[MAX_SEQ];
    gs_color AXcol[MAX_SEQ];
    int nAX = 0, nAXc[3] = {d->nAc[0], d->nAc[1], d->nAc[2]};
    for (int i = 0; i < d->nA && nAX < MAX_SEQ; i++) {
        AX[nAX] = d->A[i];
        AXcol[nAX++] = d->Acol[i];
    }
    for (int i = 0; i < d->nX && nAX < MAX_SEQ; i++) {
        AX[nAX] = d->X[i];
        AXcol[nAX] = gs_position_get(c->obs, d->X[i].x, d->X[i].y);
        nAXc[AXcol[nAX++]]++;
    }
    /* Alternation: the side to move has as many new stones as the other,
     * or one more. */
    gs_color t = rules_game_to_move(c->g), o = gs_color_other(t);
    *alternates = nAXc[t] == nAXc[o] || nAXc[t] == nAXc[o] + 1;
    if (!*alternates || d->nA + d->nX > MAX_SEQ || !explain_by_moves(c, AX, AXcol, nAX)) return false;
    rules_classification *out = c->out;
    if (d->nX == 0 && rules_classification_push_shape(c->g, c->obs, out)) {
        rules_classification *saved = malloc(sizeof *saved);
        if (saved) { /* no memory: the moves stand */
            memcpy(saved, out, sizeof *saved);
            out->nmoves = out->nevents = out->norders = 0;
            if (!moves_and_moved_stone(c, d->A, d->Acol, d->nA, d->R, d->Rcol, d->nR) ||
                out->nevents > saved->nevents)
                memcpy(out, saved, sizeof *saved);
            free(saved);
        }
    }
    return true;
}

/* No legal order: stones of both colours changed, or one side played
 * twice (a few new stones), or a disturbed board. */
static void flag_unexplained(ctx *c, const view_diff *d, bool alternates)
{
    int num = rules_game_move_count(c->g) + 1;
    char l[80];
    if (d->nX) {
        if (d->nA + d->nR + d->nX >= DISTURBED_MIN) {
            flag_disturbed(c, d);
            return;
        }
        list_points(c, d->X, d->nX, l, sizeof l);
        add_event(c, RULES_EV_COLOR_CHANGED, GS_EMPTY, num, d->X, d->nX,
                  "%d stone%s changed colour (%s): a stone was swapped or misread; check the board", d->nX,
                  d->nX == 1 ? "" : "s", l);
        return;
    }
    if (!alternates && d->nA <= 4) {
        gs_color t = rules_game_to_move(c->g), o = gs_color_other(t);
        gs_color extra = d->nAc[o] > d->nAc[t] ? o : t;
        gs_point pts[MAX_SEQ];
        int np = 0;
        for (int i = 0; i < d->nA && np < MAX_SEQ; i++)
            if (d->Acol[i] == extra) pts[np++] = d->A[i];
        list_points(c, pts, np, l, sizeof l);
        add_event(c, RULES_EV_DOUBLE_MOVE, extra, num, pts, np,
                  "%d new %s stones (%s) against %d %s: %s moved twice in a row "
                  "(double move or unannounced pass)", d->nAc[extra], cname(extra), l,
                  d->nAc[gs_color_other(extra)], cname(gs_color_other(extra)), cname(extra));
        return;
    }
    flag_disturbed(c, d);
}

gs_status rules_classify(const rules_game *g, const gs_position *observed, rules_classification *out, gs_error *err)
{
    memset(out, 0, offsetof(rules_classification, moves));
    out->norders = 0;
    out->nevents = 0;
    if (!g || !observed || observed->size != rules_game_size(g))
        return gs_error_set(err, GS_ERR_USAGE, "observed position size does not match the game");
    ctx c = {.g = g, .obs = observed, .n = observed->size, .out = out};
    rules_game_position(g, &c.cur);
    view_diff diff, *d = &diff;
    gs_status st = diff_view(&c, d, err);
    if (st != GS_OK) return st;
    bool alternates = false;
    if (d->nA + d->nR + d->nX == 0) out->unchanged = true;
    else if (d->nA == 0 && d->nX == 0) flag_removed_only(&c, d);
    else if (d->nA == 1 && d->nX == 0 && single_stone(&c, d->A[0], d->Acol[0], d->R, d->Rcol, d->nR)) {
        /* an irregular single stone, flagged */
    } else if (explain_view_by_moves(&c, d, &alternates)) {
        /* legal moves (perhaps with a pushed stone) */
    } else if (!(d->nX == 0 && d->nR >= 1 && d->nA >= 2 && d->nA <= MAX_SEQ &&
                 moves_and_moved_stone(&c, d->A, d->Acol, d->nA, d->R, d->Rcol, d->nR))) {
        flag_unexplained(&c, d, alternates);
    }
    return GS_OK;
}
