/* cli/cmd_count.h: what `goscribe count` shares with `goscribe bench count`
 * (cli/bench_count.c). Owned by the count subcommand. */
#ifndef CLI_CMD_COUNT_H
#define CLI_CMD_COUNT_H

#include "core/gs.h"

/* What an SGF file gives the count: its final position, komi (points),
 * handicap, result and the final TB/TW marks if any.  Plain data. */
typedef struct count_sgf_input {
    gs_position pos;
    double komi;          /* points; valid when has_komi */
    bool has_komi;
    int handicap;
    char result[64];      /* RE, "" if absent */
    bool has_marks;
    gs_position marks;    /* TB -> GS_BLACK, TW -> GS_WHITE */
} count_sgf_input;

/* Reads path and replays its main line through the rules engine.
 * GS_ERR_IO / GS_ERR_FORMAT / GS_ERR_NOBOARD with a message in err. */
gs_status count_load_sgf(const char *path, count_sgf_input *out, gs_error *err);

#endif
