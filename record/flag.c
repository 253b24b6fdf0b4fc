/* record/flag.c: a referee flag or an end-of-game signal as the record
 * keeps it: the event line, the frames before and after as evidence, the
 * GSEV on its move's node; and the move an event belongs to. */
#include "record/record_internal.h"

#include <stdio.h>
#include <string.h>

record_event *rec_event_kept(record *r, record_event_kind kind, const char *code, int move_number, gs_color color,
                             gs_point pt, const char *text)
{
    record_event *ev = rec_event_add(r, kind, code, move_number, color, pt, "%s", text);
    if (!ev) return NULL;
    size_t at = (size_t)(ev - r->log.ev);
    rec_evidence_keep(r, move_number, code, pt, at, ev->evidence);
    if (r->evid.dropped[0]) { /* why the evidence is missing, after its event */
        char why[sizeof r->evid.dropped];
        memcpy(why, r->evid.dropped, sizeof why);
        r->evid.dropped[0] = 0;
        rec_event_add(r, RECORD_EV_NOTE, "evidence_dropped", move_number, GS_EMPTY, (gs_point){-1, -1}, "%s", why);
    }
    return &r->log.ev[at]; /* (the note may have moved the log) */
}

void rec_flag(record *r, const char *code, int move_number, gs_color c, gs_point pt, const char *words,
              const char *detail)
{
    for (size_t i = 0; i < r->log.n; i++) {
        const record_event *ev = &r->log.ev[i];
        if (ev->kind == RECORD_EV_REFEREE && ev->move_number == move_number && !strcmp(ev->code, code) &&
            ev->point.x == pt.x && ev->point.y == pt.y)
            return;
    }
    char h[8] = "";
    if (pt.x >= 0) rules_point_human(pt, r->size, h);
    char text[sizeof r->log.ev[0].text];
    snprintf(text, sizeof text, "%s at move %d%s%s: %s", code, move_number, h[0] ? " " : "", h, words);
    rec_event_kept(r, RECORD_EV_REFEREE, code, move_number, c, pt, text);
    sgf_node *n = rec_node_of_move(r, move_number);
    gs_error e;
    if (n) rec_check(r, sgf_add_event(n, code, detail, words, &e), &e);
}

int rec_event_move(const record *r, const rules_event *ev, int base_move)
{
    int mv = ev->move_number > 0 ? r->move_offset + ev->move_number : base_move;
    /* a stone shifted or knocked off between moves belongs to the move
     * after which it happened (the node the referee looks at) */
    if (ev->move_number <= 0 && (ev->type == RULES_EV_MOVED_STONE || ev->type == RULES_EV_STONE_REMOVED ||
                                 ev->type == RULES_EV_BOARD_DISTURBED || ev->type == RULES_EV_COLOR_CHANGED) &&
        rec_game_moves(r) > 0 && base_move == rec_game_moves(r) + 1)
        mv = rec_game_moves(r);
    /* a moved stone is numbered by the stone that appeared (the move it
     * would have been): the shift happened after the move before it */
    if (ev->type == RULES_EV_MOVED_STONE && ev->move_number > 1) mv = r->move_offset + ev->move_number - 1;
    return mv;
}
