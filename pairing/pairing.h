/* pairing/pairing.h: a round's pairings read from the pairing program a Go
 * club uses: each board's players, ranks, handicap and komi, the event and
 * the round.  It is data for each game record's root (PB PW BR WR HA KM EV
 * RO PC), so it sits below record/ and broadcast/ and depends on core/ only.
 *
 * Two formats, told apart by their first character ('<' = XML):
 *  - OpenGotha's tournament file (File > Save, or Export > XML): a
 *    <Tournament> holding <Players><Player name= firstName= rank= .../>,
 *    <Games><Game roundNumber= tableNumber= whitePlayer= blackPlayer=
 *    handicap= result= knownColor=/> (players named by their key, name and
 *    first name run together without spaces, upper case) and
 *    <TournamentParameterSet><GeneralParameterSet name= location=
 *    beginDate= komi= size=/>.  The games of one round are taken (the last
 *    round of the file when none is asked for).
 *  - A plain CSV file, one board a line after a header naming the columns
 *    (any order, case ignored; separator ',' or ';'; "quoted" fields;
 *    lines starting with '#' are comments):
 *        board,black,white,black_rank,white_rank,handicap,komi
 *        1,Ann Smith,Bo Li,3d,2d,0,7.5
 *    board, black and white are required; the others may be absent or
 *    empty (handicap 0, komi as below).
 *
 * Komi: the file's (CSV column, OpenGotha's tournament komi for even
 * games); a handicap game without its own komi gets PAIRING_HANDICAP_KOMI
 * (the EGF convention OpenGotha pairs by); has_komi false when nothing
 * says (the recorder's default then applies).
 *
 * Errors: one line "FILE:LINE: what", GS_ERR_FORMAT for a malformed file,
 * GS_ERR_USAGE for a round the file does not hold, GS_ERR_IO when it
 * cannot be read.
 *
 * Ownership: pairing_round is plain data owning its boards array; free it
 * with pairing_round_free (safe on a zeroed or failed one).
 */
#ifndef PAIRING_PAIRING_H
#define PAIRING_PAIRING_H

#include <stdbool.h>
#include <stddef.h>

#include "core/gs.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PAIRING_MAX_BOARDS 1000
#define PAIRING_MAX_FILE (16u * 1024u * 1024u)
/* Komi of a handicap game when the file gives none (EGF rules). */
#define PAIRING_HANDICAP_KOMI 0.5

typedef struct pairing_board {
    int table;                   /* board / table number, 1.. */
    char black[96], white[96];   /* "First Last" (OpenGotha) or as written */
    char black_rank[16], white_rank[16]; /* "3d", "12k", "1p"; "" = none */
    int handicap;                /* 0 = even (1 = no komi, no stones) */
    double komi;                 /* used when has_komi */
    bool has_komi;
    bool colors_known;           /* false: OpenGotha leaves colours to nigiri */
    char result[8];              /* the file's result: "B+", "W+", "0", "B+F", "W+F", "" */
    int line;                    /* where the board is in the file */
} pairing_board;

typedef struct pairing_round {
    char format[12];             /* "opengotha" or "csv" */
    char event[128];             /* tournament name ("" for CSV) */
    char place[128];
    char date[16];               /* YYYY-MM-DD of the tournament's start, "" */
    int round;                   /* 1..; 0 when the file does not say (CSV) */
    int size;                    /* board size (19 unless the file says) */
    int nboards;
    pairing_board *boards;       /* in the file's order */
} pairing_round;

/* Reads the pairings of `round` (0 = the file's last; ignored for CSV)
 * from the file at path. */
gs_status pairing_read(const char *path, int round, pairing_round *out, gs_error *err);
/* The same from text already read; `name` is the file name errors give. */
gs_status pairing_parse(const char *name, const char *text, size_t len, int round, pairing_round *out,
                        gs_error *err);
void pairing_round_free(pairing_round *r);

/* The board at `table`, NULL when the round has none. */
const pairing_board *pairing_board_at(const pairing_round *r, int table);

#ifdef __cplusplus
}
#endif
#endif
