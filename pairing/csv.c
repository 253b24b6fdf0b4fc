/* pairing/csv.c: the pairings as a plain CSV file (header and columns in
 * pairing.h).  Fields may be "quoted" (a quote inside written twice); a
 * quoted field does not span lines. */
#include "pairing/pairing_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define CSV_MAX_FIELDS 16
#define CSV_FIELD 256

enum { COL_BOARD, COL_BLACK, COL_WHITE, COL_BRANK, COL_WRANK, COL_HANDICAP, COL_KOMI, COL_COUNT_ };
static const char *const col_names[COL_COUNT_] = {"board", "black", "white", "black_rank", "white_rank",
                                                  "handicap", "komi"};
#define CSV_COLUMNS "board, black, white, black_rank, white_rank, handicap, komi"

typedef struct csv_line {
    int n;
    char f[CSV_MAX_FIELDS][CSV_FIELD];
} csv_line;

typedef struct csv_reader {
    const char *name;
    char sep;
    int col[COL_COUNT_];         /* field index of each column, -1 = absent */
    bool have_header;
} csv_reader;

/* Splits line s (len bytes, no line break) into fields; NULL, or the problem. */
static const char *split(const char *s, size_t len, char sep, csv_line *out)
{
    out->n = 0;
    size_t i = 0;
    for (;;) {
        if (out->n == CSV_MAX_FIELDS) return "too many fields";
        char *f = out->f[out->n++];
        size_t k = 0;
        while (i < len && s[i] == ' ') i++;
        bool quoted = i < len && s[i] == '"';
        if (quoted) i++;
        for (; i < len; i++) {
            if (quoted && s[i] == '"') {
                if (i + 1 < len && s[i + 1] == '"') i++;
                else { quoted = false; continue; }
            } else if (!quoted && s[i] == sep) {
                break;
            } else if (!quoted && s[i] == '"') {
                return "a quote inside an unquoted field";
            }
            if (k + 1 >= CSV_FIELD) return "field too long";
            f[k++] = s[i];
        }
        if (quoted) return "quoted field not closed";
        while (k && f[k - 1] == ' ') k--;
        f[k] = '\0';
        if (i >= len) return NULL;
        i++; /* the separator */
    }
}

static gs_status csv_error(const csv_reader *r, int line, gs_error *err, const char *what, const char *value)
{
    return gs_error_set(err, GS_ERR_FORMAT, "%s:%d: %s%s%s%s", r->name, line, what, value ? " '" : "",
                        value ? value : "", value ? "'" : "");
}

/* The header: which field is which column. */
static gs_status take_header(csv_reader *r, const csv_line *h, int line, gs_error *err)
{
    for (int c = 0; c < COL_COUNT_; c++) r->col[c] = -1;
    for (int i = 0; i < h->n; i++) {
        int c = 0;
        while (c < COL_COUNT_ && strcasecmp(h->f[i], col_names[c])) c++;
        if (c == COL_COUNT_ && !strcasecmp(h->f[i], "table")) c = COL_BOARD;
        if (c == COL_COUNT_) return csv_error(r, line, err, "unknown column (columns: " CSV_COLUMNS "):", h->f[i]);
        if (r->col[c] >= 0) return csv_error(r, line, err, "column given twice:", h->f[i]);
        r->col[c] = i;
    }
    r->have_header = true;
    for (int c = 0; c <= COL_WHITE; c++)
        if (r->col[c] < 0) return csv_error(r, line, err, "the header lacks a column (board, black and white are "
                                            "needed):", col_names[c]);
    return GS_OK;
}

static const char *field(const csv_reader *r, const csv_line *l, int col)
{
    int i = r->col[col];
    return i >= 0 && i < l->n ? l->f[i] : "";
}

/* One board line. */
static gs_status take_board(csv_reader *r, const csv_line *l, int line, pairing_round *out, gs_error *err)
{
    pairing_board b;
    memset(&b, 0, sizeof b);
    b.line = line;
    b.colors_known = true;
    if (!pairing_parse_int(field(r, l, COL_BOARD), 1, 9999, &b.table))
        return csv_error(r, line, err, "board is not a number 1..9999:", field(r, l, COL_BOARD));
    if (!pairing_copy_text(b.black, sizeof b.black, field(r, l, COL_BLACK)) || !b.black[0])
        return csv_error(r, line, err, "black: a name of 1..95 bytes of UTF-8 text is needed:", field(r, l, COL_BLACK));
    if (!pairing_copy_text(b.white, sizeof b.white, field(r, l, COL_WHITE)) || !b.white[0])
        return csv_error(r, line, err, "white: a name of 1..95 bytes of UTF-8 text is needed:", field(r, l, COL_WHITE));
    if (!pairing_rank_norm(field(r, l, COL_BRANK), b.black_rank, sizeof b.black_rank))
        return csv_error(r, line, err, "black_rank is not a rank (like 3d, 12k, 1p):", field(r, l, COL_BRANK));
    if (!pairing_rank_norm(field(r, l, COL_WRANK), b.white_rank, sizeof b.white_rank))
        return csv_error(r, line, err, "white_rank is not a rank (like 3d, 12k, 1p):", field(r, l, COL_WRANK));
    const char *ha = field(r, l, COL_HANDICAP), *km = field(r, l, COL_KOMI);
    if (*ha && !pairing_parse_int(ha, 0, 9, &b.handicap))
        return csv_error(r, line, err, "handicap is not 0..9:", ha);
    if (*km && !pairing_parse_komi(km, &b.komi))
        return csv_error(r, line, err, "komi is not a number of points (like 6.5, 0.5, -3):", km);
    b.has_komi = *km || b.handicap > 0;
    if (!*km && b.handicap > 0) b.komi = PAIRING_HANDICAP_KOMI;
    return pairing_add_board(out, &b, r->name, err) ? GS_OK : (err ? err->status : GS_ERR_FORMAT);
}

gs_status pairing_parse_csv(const char *name, const char *text, size_t len, pairing_round *out, gs_error *err)
{
    snprintf(out->format, sizeof out->format, "csv");
    csv_reader r = {.name = name, .sep = 0};
    csv_line *l = malloc(sizeof *l);
    if (!l) return gs_error_set(err, GS_ERR_NOMEM, "%s: out of memory", name);
    gs_status st = GS_OK;
    size_t i = len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3) ? 3 : 0;
    for (int line = 1; st == GS_OK && i < len; line++) {
        const char *s = text + i;
        const char *nl = memchr(s, '\n', len - i);
        size_t n = nl ? (size_t)(nl - s) : len - i;
        i += n + 1;
        if (n && s[n - 1] == '\r') n--;
        size_t lead = 0;
        while (lead < n && isspace((unsigned char)s[lead])) lead++;
        if (lead == n || s[lead] == '#') continue;
        if (!r.sep) r.sep = memchr(s, ',', n) || !memchr(s, ';', n) ? ',' : ';';
        const char *bad = split(s, n, r.sep, l);
        if (bad) st = csv_error(&r, line, err, bad, NULL);
        else if (!r.have_header) st = take_header(&r, l, line, err);
        else st = take_board(&r, l, line, out, err);
    }
    free(l);
    return st;
}
