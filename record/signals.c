/* record/signals.c: end-of-game signals seen on the margin outside the lines
 * (see record_margin in record.h): flagged, each once, never acted on.
 *
 * A signal is an act, not an object: a stone that appeared on the margin
 * during play (not there in the previous clear view, nor in the first one:
 * what lies there from the start is an object) and was held there for
 * REC_SIGNAL_VIEWS settled views in a row.  Who signals follows from the
 * stones: two new stones of one colour are that player resigning; a single
 * new stone of one colour by a corner is the other player confirming, when
 * the corner is that player's lower-right one (the players' sides are
 * learnt from where arms reach in when each plays: until they are known,
 * any corner is taken and the line says so). */
#include "record/record_internal.h"

#include <math.h>
#include <stdio.h>

/* clear settled views in a row a signal stone must be seen in */
#define REC_SIGNAL_VIEWS 3
/* a stone within this of where it was (cells) is the same stone */
#define REC_BLOB_MATCH 0.6
/* ... and beside an edge stone of its colour (whose lean is about this
 * far from a stone put there: half a stone) */
#define REC_BESIDE_MATCH 0.3
/* votes a player's side needs (and twice the other sides' together) */
#define REC_SIDE_VOTES 3

/* ------------------------------------------------------ players' sides */

/* One vote for the side the last move's hand came from, when exactly one
 * stone was played since the last clear view and the arms crossed one
 * side's margin clearly more than the others. */
static void vote_side(record *r, const track_margin_view *m)
{
    rec_margin *mg = &r->margin;
    int moves = rec_game_moves(r), k = rules_game_move_count(r->game) - 1;
    bool one = moves - mg->moves_seen == 1 && k >= 0;
    mg->moves_seen = moves;
    if (!one) return;
    gs_move mv = rules_game_move(r->game, k);
    if (mv.pass) return;
    int best = 0, second = 0;
    for (int s = 1; s < 4; s++)
        if (m->reach[s] > m->reach[best]) best = s;
    for (int s = 0; s < 4; s++)
        if (s != best && m->reach[s] > second) second = m->reach[s];
    if (m->reach[best] >= 2 && m->reach[best] >= 2 * second) mg->votes[mv.color][best]++;
}

/* The side player c sits at, -1 while not known (too few votes, or both
 * players' votes pointing to one side). */
static int known_side(const record *r, gs_color c)
{
    int side[3] = {-1, -1, -1};
    for (int col = GS_BLACK; col <= GS_WHITE; col++) {
        const int *v = r->margin.votes[col];
        int best = 0, rest = 0;
        for (int s = 1; s < 4; s++)
            if (v[s] > v[best]) best = s;
        for (int s = 0; s < 4; s++)
            if (s != best) rest += v[s];
        if (v[best] >= REC_SIDE_VOTES && v[best] > 2 * rest) side[col] = best;
    }
    if (side[GS_BLACK] >= 0 && side[GS_BLACK] == side[GS_WHITE]) return -1;
    return side[c];
}

/* ------------------------------------------------------ the stones seen */

/* Follows the stones of this clear view from the previous one: the same
 * stone (same colour, where it was) is seen once more; a new one starts
 * its count; one no longer seen is forgotten. */
static void follow_stones(record *r, const track_margin_view *m, double t_ms)
{
    rec_margin *mg = &r->margin;
    rec_margin_blob next[TRACK_MARGIN_MAX];
    bool used[TRACK_MARGIN_MAX] = {0};
    int nn = 0;
    for (int i = 0; i < m->n && nn < TRACK_MARGIN_MAX; i++) {
        const track_margin_stone *s = &m->stones[i];
        if (s->color != GS_BLACK && s->color != GS_WHITE) continue;
        int best = -1;
        double bd = REC_BLOB_MATCH;
        for (int j = 0; j < mg->n; j++) {
            double d = hypot(mg->b[j].s.u - s->u, mg->b[j].s.v - s->v);
            if (!used[j] && mg->b[j].s.color == s->color && d <= bd) {
                best = j;
                bd = d;
            }
        }
        rec_margin_blob b = {*s, 1, rec_game_moves(r), t_ms, !mg->started, false};
        if (best >= 0) {
            used[best] = true;
            b = mg->b[best];
            b.s = *s;
            b.views++;
        }
        next[nn++] = b;
    }
    for (int i = 0; i < nn; i++) mg->b[i] = next[i];
    mg->n = nn;
    mg->started = true;
}

/* A stone that counts: appeared during play, held long enough, not part
 * of a signal yet. */
static bool counts(const rec_margin_blob *b) { return !b->baseline && !b->flagged && b->views >= REC_SIGNAL_VIEWS; }

/* ------------------------------------------------------------ signals */

static void add_signal(record *r, const char *code, gs_color col, const char *words)
{
    rec_event_kept(r, RECORD_EV_SIGNAL, code, rec_game_moves(r), col, (gs_point){-1, -1}, words);
    gs_error e;
    rec_check(r, sgf_add_event(r->sgf.last, code, rec_color_letter(col), words, &e), &e);
}

/* Two new stones of colour c held on the margin: c resigns.  Returns true
 * when flagged now. */
static bool resign_signal(record *r, gs_color c)
{
    rec_margin *mg = &r->margin;
    int idx[TRACK_MARGIN_MAX], n = 0;
    for (int i = 0; i < mg->n; i++)
        if (mg->b[i].s.color == c && counts(&mg->b[i])) idx[n++] = i;
    if (n < 2 || r->resign_seen[c]) return false;
    r->resign_seen[c] = true;
    for (int k = 0; k < n; k++) mg->b[idx[k]].flagged = true;
    char words[300];
    snprintf(words, sizeof words,
             "resignation signal: %d %s stones put on the margin outside the lines (%s) and held: %s resigns? "
             "(Chinese rules: two of one's own stones on the margin)",
             n, c == GS_BLACK ? "black" : "white", track_margin_place_name(&mg->b[idx[0]].s), rules_color_name(c));
    add_signal(r, "resign_signal", c, words);
    return true;
}

/* A single new stone of colour c held by a corner: the other player
 * confirms the game is over, when it is their lower-right corner (or
 * their side is not known yet).  Returns true when flagged now. */
static bool confirm_signal(record *r, const track_margin_view *m, gs_color c)
{
    rec_margin *mg = &r->margin;
    gs_color who = gs_color_other(c);
    int pick = -1, fresh = 0;
    for (int i = 0; i < mg->n; i++) {
        if (mg->b[i].s.color != c || mg->b[i].baseline || mg->b[i].flagged) continue;
        fresh++;
        if (counts(&mg->b[i]) && mg->b[i].s.corner) pick = i;
    }
    if (fresh != 1 || pick < 0 || r->confirm_seen[who]) return false;
    int side = known_side(r, who);
    if (side >= 0 && mg->b[pick].s.corner_index != m->right_corner[side]) return false; /* not that player's corner */
    r->confirm_seen[who] = true;
    mg->b[pick].flagged = true;
    char words[300];
    snprintf(words, sizeof words,
             "end-of-game confirmation signal: a %s stone put outside the lines at the %s and held: %s confirms "
             "the game is over%s%s",
             c == GS_BLACK ? "black" : "white", track_margin_place_name(&mg->b[pick].s), rules_color_name(who),
             side >= 0 ? " (that player's lower-right corner)" : " (the players' sides are not known yet)",
             r->confirm_seen[c] ? "; both players have confirmed" : "");
    add_signal(r, "confirm_signal", who, words);
    return true;
}

/* A signal re-arms once no new stone of its colour is on the margin. */
static void rearm(record *r)
{
    bool seen[3] = {false, false, false};
    for (int i = 0; i < r->margin.n; i++)
        if (!r->margin.b[i].baseline) seen[r->margin.b[i].s.color] = true;
    for (int c = GS_BLACK; c <= GS_WHITE; c++) {
        if (!seen[c]) r->resign_seen[c] = false;
        if (!seen[c]) r->confirm_seen[gs_color_other((gs_color)c)] = false;
    }
}

/* Puts back into mv the stones of m dropped beside an edge stone of their
 * colour on board (the view as the margin sees it) that are new there
 * beside old stones (track_margin_stone_new_beside), or were so at an
 * earlier view and are followed since. */
static void keep_new_beside(const record *r, const gs_position *board, const track_margin_view *m,
                            track_margin_view *mv)
{
    const rec_margin *mg = &r->margin;
    for (int i = 0; i < m->n && mv->n < TRACK_MARGIN_MAX; i++) {
        const track_margin_stone *s = &m->stones[i];
        bool kept = false;
        for (int j = 0; j < mv->n && !kept; j++) kept = hypot(mv->stones[j].u - s->u, mv->stones[j].v - s->v) < 1e-9;
        if (kept) continue;
        bool followed = false;
        for (int j = 0; j < mg->n && !followed; j++)
            followed = !mg->b[j].baseline && mg->b[j].s.color == s->color &&
                       hypot(mg->b[j].s.u - s->u, mg->b[j].s.v - s->v) <= REC_BESIDE_MATCH;
        /* new only after an arm crossed that side's margin: putting a stone
         * there is an act, a lean seen again in a still view is not */
        bool put = m->reach[s->side & 3] > 0 && track_margin_stone_new_beside(s, board, &mg->board, &mg->raw);
        if (followed || put) mv->stones[mv->n++] = *s;
    }
}

/* The last view as the margin sees it: with the captured stones still
 * being lifted (the view is cleaned of them, but they still lean over the
 * margin while they lie there). */
static void margin_board(const record *r, gs_position *out)
{
    *out = r->last_obs;
    for (int i = 0; i < r->size * r->size; i++)
        if (r->ghost.move[i] && !r->ghost.lifted[i] && out->cell[i] == GS_EMPTY) out->cell[i] = r->ghost.color[i];
}

gs_status record_margin(record *r, const track_margin_view *m, double t_ms, gs_error *err)
{
    /* (a view of the past, on a resume, signals nothing now) */
    if (!r->started || r->finished || !m || !m->valid || r->catching_up) return GS_OK;
    r->cur_t = t_ms;
    track_margin_view mv = *m;
    gs_position board;
    if (r->have_last_obs) {
        margin_board(r, &board);
        track_margin_view_drop_beside(&mv, &board, r->margin.started ? &r->margin.board : NULL);
        if (r->margin.started) keep_new_beside(r, &board, m, &mv);
    }
    r->margin.raw = *m;
    if (r->have_last_obs) r->margin.board = board;
    vote_side(r, &mv);
    follow_stones(r, &mv, t_ms);
    rearm(r);
    bool added = false;
    for (int c = GS_BLACK; c <= GS_WHITE; c++) added |= resign_signal(r, (gs_color)c);
    for (int c = GS_BLACK; c <= GS_WHITE; c++) added |= confirm_signal(r, &mv, (gs_color)c);
    if (!added) return GS_OK;
    return rec_save(r, err);
}
