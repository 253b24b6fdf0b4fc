/* pairing/opengotha.c: the pairings of one round from OpenGotha's
 * tournament file (see pairing.h for the elements read).  A game names its
 * players by their key (OpenGotha's Player.getKeyString: name and first
 * name run together, spaces removed, upper case); the key is rebuilt from
 * each <Player> the same way. */
#include "pairing/pairing_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct og_player {
    char key[200];
    char shown[96];              /* "First Last" */
    char rank[16];
} og_player;

typedef struct og_game {
    int round, table, handicap, line;
    bool known_color;
    char white[200], black[200]; /* player keys */
    char result[8];
} og_game;

typedef struct og_file {
    const char *name;
    og_player *players;
    int nplayers;
    og_game *games;
    int ngames;
    double komi;
    bool has_komi;
} og_file;

/* Upper case of the ASCII letters and of the Latin-1 letters à..þ written
 * as UTF-8 (C3 A0..BE), spaces removed: OpenGotha's key, for the names a
 * club's players have. */
static void make_key(const char *s, char *out, size_t n)
{
    size_t k = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p && k + 2 < n; p++) {
        if (*p == ' ') continue;
        if (p[0] == 0xC3 && p[1] >= 0xA0 && p[1] <= 0xBE && p[1] != 0xB7) {
            out[k++] = (char)0xC3;
            out[k++] = (char)(*++p - 0x20);
            continue;
        }
        out[k++] = (char)toupper(*p);
    }
    out[k] = '\0';
}

static gs_status og_error(const og_file *f, int line, gs_error *err, const char *what, const char *detail)
{
    return gs_error_set(err, GS_ERR_FORMAT, "%s:%d: %s%s%s%s", f->name, line, what, detail ? " '" : "",
                        detail ? detail : "", detail ? "'" : "");
}

/* Grows an array of `size`-byte items holding n to hold one more. */
static bool grow(void **arr, int n, size_t size)
{
    if (n % 64) return true;
    void *p = realloc(*arr, (size_t)(n + 64) * size);
    if (!p) return false;
    *arr = p;
    return true;
}

static gs_status take_player(og_file *f, const pxml_elem *e, gs_error *err)
{
    const char *name = pxml_attr_get(e, "name"), *first = pxml_attr_get(e, "firstName");
    const char *rank = pxml_attr_get(e, "rank");
    if (!name || !*name) return og_error(f, e->line, err, "<Player> without a name", NULL);
    if (!grow((void **)&f->players, f->nplayers, sizeof *f->players))
        return gs_error_set(err, GS_ERR_NOMEM, "%s: out of memory", f->name);
    og_player *p = &f->players[f->nplayers];
    char both[400], shown[200];
    snprintf(both, sizeof both, "%s%s", name, first ? first : "");
    make_key(both, p->key, sizeof p->key);
    snprintf(shown, sizeof shown, "%s%s%s", first && *first ? first : "", first && *first ? " " : "", name);
    if (!pairing_copy_text(p->shown, sizeof p->shown, shown))
        return og_error(f, e->line, err, "player name too long or not UTF-8 text:", shown);
    if (!pairing_rank_norm(rank ? rank : "", p->rank, sizeof p->rank))
        return og_error(f, e->line, err, "not a rank (like 3D, 12K, 1P):", rank);
    f->nplayers++;
    return GS_OK;
}

/* RESULT_BLACKWINS -> "B+", ...; "" for no result or none SGF can say. */
static const char *og_result(const char *r)
{
    static const struct { const char *og, *sgf; } map[] = {
        {"RESULT_BLACKWINS", "B+"}, {"RESULT_WHITEWINS", "W+"}, {"RESULT_EQUAL", "0"},
        {"RESULT_BLACKWINS_BYDEF", "B+F"}, {"RESULT_WHITEWINS_BYDEF", "W+F"}};
    for (size_t i = 0; r && i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(r, map[i].og)) return map[i].sgf;
    return "";
}

static gs_status take_game(og_file *f, const pxml_elem *e, gs_error *err)
{
    if (!grow((void **)&f->games, f->ngames, sizeof *f->games))
        return gs_error_set(err, GS_ERR_NOMEM, "%s: out of memory", f->name);
    og_game *g = &f->games[f->ngames];
    memset(g, 0, sizeof *g);
    g->line = e->line;
    const char *rn = pxml_attr_get(e, "roundNumber"), *tn = pxml_attr_get(e, "tableNumber");
    const char *ha = pxml_attr_get(e, "handicap"), *kc = pxml_attr_get(e, "knownColor");
    const char *w = pxml_attr_get(e, "whitePlayer"), *b = pxml_attr_get(e, "blackPlayer");
    if (!rn || !pairing_parse_int(rn, 1, 999, &g->round))
        return og_error(f, e->line, err, "<Game> without a roundNumber 1..999:", rn);
    if (!tn || !pairing_parse_int(tn, 1, 9999, &g->table))
        return og_error(f, e->line, err, "<Game> without a tableNumber 1..9999:", tn);
    if (!pairing_parse_int(ha ? ha : "0", 0, 9, &g->handicap))
        return og_error(f, e->line, err, "handicap not 0..9:", ha);
    if (!w || !*w || !b || !*b) return og_error(f, e->line, err, "<Game> without whitePlayer and blackPlayer", NULL);
    make_key(w, g->white, sizeof g->white);
    make_key(b, g->black, sizeof g->black);
    g->known_color = !kc || strcmp(kc, "false");
    snprintf(g->result, sizeof g->result, "%s", og_result(pxml_attr_get(e, "result")));
    f->ngames++;
    return GS_OK;
}

static gs_status take_parameters(og_file *f, const pxml_elem *e, pairing_round *out, gs_error *err)
{
    const char *name = pxml_attr_get(e, "name"), *loc = pxml_attr_get(e, "location");
    const char *date = pxml_attr_get(e, "beginDate"), *komi = pxml_attr_get(e, "komi");
    const char *size = pxml_attr_get(e, "size");
    if (name && !pairing_copy_text(out->event, sizeof out->event, name))
        return og_error(f, e->line, err, "tournament name too long or not text", NULL);
    if (loc && !pairing_copy_text(out->place, sizeof out->place, loc))
        return og_error(f, e->line, err, "location too long or not text", NULL);
    if (date && strlen(date) == 10) snprintf(out->date, sizeof out->date, "%s", date);
    if (komi) {
        if (!pairing_parse_komi(komi, &f->komi)) return og_error(f, e->line, err, "komi is not a number of points:", komi);
        f->has_komi = true;
    }
    if (size && !pairing_parse_int(size, 5, 25, &out->size))
        return og_error(f, e->line, err, "board size not 5..25:", size);
    return GS_OK;
}

static const og_player *find_player(const og_file *f, const char *key)
{
    for (int i = 0; i < f->nplayers; i++)
        if (!strcmp(f->players[i].key, key)) return &f->players[i];
    return NULL;
}

/* The boards of round `round` from the games read. */
static gs_status build_round(og_file *f, int round, pairing_round *out, gs_error *err)
{
    out->round = round;
    for (int i = 0; i < f->ngames; i++) {
        const og_game *g = &f->games[i];
        if (g->round != round) continue;
        const og_player *w = find_player(f, g->white), *b = find_player(f, g->black);
        if (!w || !b)
            return og_error(f, g->line, err, "the game names a player who is not among the <Player>s:",
                            w ? g->black : g->white);
        pairing_board pb;
        memset(&pb, 0, sizeof pb);
        pb.table = g->table;
        pb.line = g->line;
        pb.handicap = g->handicap;
        pb.colors_known = g->known_color;
        snprintf(pb.black, sizeof pb.black, "%s", b->shown);
        snprintf(pb.white, sizeof pb.white, "%s", w->shown);
        snprintf(pb.black_rank, sizeof pb.black_rank, "%s", b->rank);
        snprintf(pb.white_rank, sizeof pb.white_rank, "%s", w->rank);
        snprintf(pb.result, sizeof pb.result, "%s", g->result);
        pb.has_komi = g->handicap > 0 || f->has_komi;
        pb.komi = g->handicap > 0 ? PAIRING_HANDICAP_KOMI : f->komi;
        if (!pairing_add_board(out, &pb, f->name, err)) return err ? err->status : GS_ERR_FORMAT;
    }
    return GS_OK;
}

/* The round asked for, or the file's last; an error when it has none. */
static gs_status pick_round(const og_file *f, int *round, gs_error *err)
{
    int lo = 0, hi = 0;
    for (int i = 0; i < f->ngames; i++) {
        if (!lo || f->games[i].round < lo) lo = f->games[i].round;
        if (f->games[i].round > hi) hi = f->games[i].round;
    }
    if (!hi) return gs_error_set(err, GS_ERR_FORMAT, "%s: no <Game> in it: the round is not paired yet", f->name);
    if (*round == 0) *round = hi;
    for (int i = 0; i < f->ngames; i++)
        if (f->games[i].round == *round) return GS_OK;
    return gs_error_set(err, GS_ERR_USAGE, "%s: no game of round %d (the file pairs rounds %d to %d)", f->name,
                        *round, lo, hi);
}

/* Every element of the document taken in. */
static gs_status walk(og_file *f, pxml *x, pairing_round *out, gs_error *err)
{
    pxml_elem *ep = malloc(sizeof *ep); /* ~27 KiB: not on the stack */
    if (!ep) return gs_error_set(err, GS_ERR_NOMEM, "%s: out of memory", f->name);
    gs_status st = GS_OK;
    int k;
    while (st == GS_OK && (k = pxml_next(x, ep, err)) == 1) {
        if (ep->depth == 1 && strcmp(ep->name, "Tournament"))
            st = gs_error_set(err, GS_ERR_FORMAT, "%s:%d: not an OpenGotha tournament file (its root is <%s>, not "
                              "<Tournament>)", f->name, ep->line, ep->name);
        else if (!strcmp(ep->name, "Player")) st = take_player(f, ep, err);
        else if (!strcmp(ep->name, "Game")) st = take_game(f, ep, err);
        else if (!strcmp(ep->name, "GeneralParameterSet")) st = take_parameters(f, ep, out, err);
    }
    if (st == GS_OK && k < 0) st = err ? err->status : GS_ERR_FORMAT;
    free(ep);
    return st;
}

/* The encoding the XML declaration names ("" when none), lower case. */
static void declared_encoding(const char *text, size_t len, char *out, size_t n)
{
    out[0] = '\0';
    const char *end = text + len;
    while (text < end && isspace((unsigned char)*text)) text++;
    if (end - text < 5 || memcmp(text, "<?xml", 5)) return;
    const char *close = strstr(text, "?>");
    const char *enc = strstr(text, "encoding");
    if (!close || !enc || enc > close) return;
    enc = strpbrk(enc, "\"'");
    if (!enc || enc > close) return;
    size_t k = 0;
    for (enc++; enc < close && *enc != '"' && *enc != '\'' && k + 1 < n; enc++) out[k++] = (char)tolower((unsigned char)*enc);
    out[k] = '\0';
}

/* Latin-1 bytes as UTF-8 (malloc'd, the caller frees). */
static char *latin1_to_utf8(const char *text, size_t len, size_t *outlen)
{
    char *u = malloc(2 * len + 1);
    if (!u) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c < 0x80) u[k++] = (char)c;
        else {
            u[k++] = (char)(0xC0 | c >> 6);
            u[k++] = (char)(0x80 | (c & 0x3F));
        }
    }
    u[k] = '\0';
    *outlen = k;
    return u;
}

gs_status pairing_parse_opengotha(const char *name, const char *text, size_t len, int round, pairing_round *out,
                                  gs_error *err)
{
    char enc[32];
    declared_encoding(text, len, enc, sizeof enc);
    char *converted = NULL;
    if (!strcmp(enc, "iso-8859-1") || !strcmp(enc, "iso-8859-15") || !strcmp(enc, "latin1")) {
        if (!(converted = latin1_to_utf8(text, len, &len))) return gs_error_set(err, GS_ERR_NOMEM, "%s: out of memory", name);
        text = converted;
    } else if (enc[0] && strcmp(enc, "utf-8") && strcmp(enc, "utf8")) {
        return gs_error_set(err, GS_ERR_FORMAT, "%s:1: encoding \"%s\" not supported (UTF-8 or ISO-8859-1)", name, enc);
    }
    snprintf(out->format, sizeof out->format, "opengotha");
    og_file f;
    memset(&f, 0, sizeof f);
    f.name = name;
    pxml x;
    pxml_init(&x, name, text, len);
    gs_status st = walk(&f, &x, out, err);
    if (st == GS_OK) st = pick_round(&f, &round, err);
    if (st == GS_OK) st = build_round(&f, round, out, err);
    free(f.players);
    free(f.games);
    free(converted);
    return st;
}
