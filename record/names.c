/* record/names.c: the record's words and its turn: the names of rulings
 * and of Black's side of the picture, and the turn from the picture's
 * points to the record's (Black's side at the bottom).  Below everything
 * else in record/: the recorder, its evidence and the loop use them. */
#include "record/record_internal.h"

#include <string.h>

static const char *const ruling_names[RECORD_RULING_COUNT_] = {"void", "restore", "remove_dead", "warn", "accept",
                                                               "pass", "end", "resign", "move", "result"};

const char *record_ruling_name(record_ruling_kind k)
{
    return (unsigned)k < RECORD_RULING_COUNT_ ? ruling_names[k] : NULL;
}

bool record_ruling_parse_kind(const char *name, record_ruling_kind *out)
{
    for (int i = 0; name && i < RECORD_RULING_COUNT_; i++)
        if (!strcmp(name, ruling_names[i])) {
            *out = (record_ruling_kind)i;
            return true;
        }
    return false;
}

static const char *const side_names[] = {"near", "far", "left", "right"};

const char *record_black_side_name(record_black_side s)
{
    return (unsigned)s < 4 ? side_names[s] : "near";
}

bool record_black_side_parse(const char *name, record_black_side *out)
{
    for (int i = 0; name && i < 4; i++)
        if (!strcmp(name, side_names[i])) {
            *out = (record_black_side)i;
            return true;
        }
    return false;
}

/* (u, v) of the picture -> the record, Black's side at the bottom; m =
 * size - 1.  Black at the left edge looks right: his left hand is the
 * picture's top, so the picture's top-left is his near-left corner, the
 * record's bottom-left. */
void record_orient_uv(record_black_side s, double m, double u, double v, double *ou, double *ov)
{
    switch (s) {
    case RECORD_BLACK_FAR: *ou = m - u; *ov = m - v; break;
    case RECORD_BLACK_LEFT: *ou = v; *ov = m - u; break;
    case RECORD_BLACK_RIGHT: *ou = m - v; *ov = u; break;
    default: *ou = u; *ov = v; break;
    }
}

gs_point record_orient_point(record_black_side s, int size, gs_point p)
{
    double u, v;
    record_orient_uv(s, size - 1, p.x, p.y, &u, &v);
    return (gs_point){(int8_t)u, (int8_t)v};
}

gs_point record_orient_point_back(record_black_side s, int size, gs_point p)
{
    /* left and right undo each other; near and far undo themselves */
    record_black_side inv = s == RECORD_BLACK_LEFT ? RECORD_BLACK_RIGHT : s == RECORD_BLACK_RIGHT ? RECORD_BLACK_LEFT : s;
    return record_orient_point(inv, size, p);
}

const char *record_black_side_words(record_black_side s)
{
    static const char *const words[] = {"the bottom edge of the picture, near the camera",
                                        "the top edge of the picture, far from the camera",
                                        "the left edge of the picture", "the right edge of the picture"};
    return (unsigned)s < 4 ? words[s] : words[0];
}
