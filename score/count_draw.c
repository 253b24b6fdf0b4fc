/* score/count_draw.c: a count drawn (count --overlay): each side's area,
 * the dead stones and seki, the stones as counted, the points read with
 * doubt and the points the Score line names; over the photo where the
 * board was read, or as a clean diagram of the board for a grid or an SGF.
 * A legend in a band below covers no point. */
#include "score/score_internal.h"

#include "vision/vision.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const gs_bgr INK = {20, 20, 20}, PAPER = {245, 245, 245}, RED = {0, 0, 255}, GREY = {160, 120, 40},
                    SEKI = {0, 200, 255}, CHECK = {0, 140, 255}, WOOD = {92, 179, 220};

/* The points the Score line names (score_count_score_line): those that
 * change the winner, or when the winner is sure those that move the
 * result. */
static const uint8_t *named_points(const score_count_result *r)
{
    return r->range.winner_sure ? r->range.check : r->range.winner;
}

/* A dead stone: the stone in its colour with a thin red cross over it, so
 * that its colour still shows. */
static void draw_dead(gs_image *img, double px, double py, double pitch, gs_color c)
{
    vision_draw_stone(img, px, py, pitch, c);
    double h = pitch * 0.2, t = fmax(1, pitch * 0.045);
    gs_draw_line(img, px - h, py - h, px + h, py + h, t, RED);
    gs_draw_line(img, px - h, py + h, px + h, py - h, t, RED);
}

/* One point: the owner's square where no living stone stands, a small
 * square on dame, every stone drawn in its colour (a misread stone shows
 * at once), a cross on a dead one, a ring on seki, a red box round a
 * point read with doubt and an orange ring round a point the Score line
 * names. */
static void draw_point(gs_image *img, const score_count_result *r, int i, double px, double py, double pitch)
{
    gs_color stone = (gs_color)r->pos.cell[i];
    gs_color own = (gs_color)r->count.owner.cell[i];
    bool dead = r->dead[i] != 0 && stone != GS_EMPTY;
    if (stone == GS_EMPTY || dead) {
        if (own == GS_BLACK) gs_draw_square(img, px, py, pitch * 0.22, INK, 0.85);
        else if (own == GS_WHITE) gs_draw_square(img, px, py, pitch * 0.22, PAPER, 0.85);
        else if (stone == GS_EMPTY) gs_draw_square(img, px, py, pitch * 0.08, GREY, 0.9);
    }
    if (dead) draw_dead(img, px, py, pitch, stone);
    else if (stone != GS_EMPTY) vision_draw_stone(img, px, py, pitch, stone);
    if (r->seki[i]) gs_draw_ring(img, px, py, pitch * 0.35, fmax(2, pitch * 0.06), SEKI);
    if (r->read_unsure[i]) gs_draw_box(img, px, py, pitch * 0.45, fmax(2, pitch * 0.06), RED);
    if (named_points(r)[i]) gs_draw_ring(img, px, py, pitch * 0.58, fmax(2, pitch * 0.08), CHECK);
}

#define LEGEND_ROWS 11

static int legend_scale(int width) { return width >= 1600 ? 3 : width >= 600 ? 2 : 1; }
static int legend_height(int width) { return LEGEND_ROWS * 14 * legend_scale(width) + 12 * legend_scale(width); }

/* A legend swatch: the mark k as drawn on the board, a cell of `cell`,
 * on a patch of wood as on a board (a stone's outline shows there as it
 * does on the board, not lost in the paper). */
static void draw_swatch(gs_image *img, int k, double cx, double cy, double cell)
{
    if (k < LEGEND_ROWS - 1) gs_draw_square(img, cx, cy, cell * 0.5, WOOD, 1);
    switch (k) {
    case 0: gs_draw_square(img, cx, cy, cell * 0.22, INK, 1); break;
    case 1: gs_draw_square(img, cx, cy, cell * 0.22, PAPER, 1); gs_draw_box(img, cx, cy, cell * 0.22, 1, INK); break;
    case 2: gs_draw_square(img, cx, cy, cell * 0.08, GREY, 1); break;
    case 3: draw_dead(img, cx, cy, cell, GS_BLACK); break;
    case 4: draw_dead(img, cx, cy, cell, GS_WHITE); break;
    case 5: gs_draw_ring(img, cx, cy, cell * 0.35, fmax(1, cell * 0.06), SEKI); break;
    case 6: vision_draw_stone(img, cx, cy, cell, GS_BLACK); break;
    case 7: vision_draw_stone(img, cx, cy, cell, GS_WHITE); break;
    case 8: gs_draw_box(img, cx, cy, cell * 0.42, fmax(1, cell * 0.06), RED); break;
    case 9: gs_draw_ring(img, cx, cy, cell * 0.45, fmax(1, cell * 0.08), CHECK); break;
    default: break;
    }
}

/* The legend in a band below the picture: each mark as drawn on the board
 * (a swatch a row high), then what was read and the result. */
static void draw_legend(gs_image *img, int band_top, const score_count_result *r)
{
    int s = legend_scale(img->width), line = 14 * s, x0 = 4 * s, y0 = band_top + 4 * s;
    char last[96];
    if (!strcmp(r->source, "photo") || !strcmp(r->source, "scan"))
        snprintf(last, sizeof last, "READ: %d BLACK, %d WHITE STONES. RESULT %s%s", r->read_black, r->read_white,
                 r->count.sgf, r->range.sure ? " (SURE)" : "");
    else
        snprintf(last, sizeof last, "RESULT %s%s", r->count.sgf, r->range.sure ? " (SURE)" : "");
    const char *rows[LEGEND_ROWS] = {"BLACK AREA", "WHITE AREA", "DAME", "DEAD BLACK STONE", "DEAD WHITE STONE", "SEKI",
                                     "BLACK STONE", "WHITE STONE", "READ WITH DOUBT (CHECK IT)",
                                     "NAMED BY THE SCORE LINE (IT CHANGES THE RESULT)", last};
    for (int k = 0; k < LEGEND_ROWS; k++) {
        double cx = x0 + 7 * s, cy = y0 + k * line + 7 * s;
        draw_swatch(img, k, cx, cy, 13 * s);
        gs_draw_text(img, x0 + 17 * s, cy - 3.5 * s, s, rows[k], INK);
    }
}

/* A picture of width x body_height plus the legend band (light paper). */
static gs_image *with_band(int width, int body_height, int channels)
{
    gs_image *img = gs_image_create(width, body_height + legend_height(width), channels);
    if (img) memset(img->buf, 235, (size_t)img->stride * (size_t)img->height);
    return img;
}

/* Each point's marks through the grid g, then the coordinates. */
static void draw_points(gs_image *img, const vision_grid *g, const score_count_result *r)
{
    int size = r->pos.size;
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++) {
            double px, py, qx, qy;
            vision_grid_map(g, x, y, &px, &py);
            vision_grid_map(g, x + 1, y, &qx, &qy);
            draw_point(img, r, y * size + x, px, py, hypot(qx - px, qy - py));
        }
    vision_draw_coords(img, g, vision_grid_cell(g));
}

/* The board as a diagram: wood, lines and star points, cell px a cell. */
static gs_image *diagram(const score_count_result *r, vision_grid *g)
{
    int n = r->pos.size, cell = n > 13 ? 32 : n > 9 ? 44 : 56, margin = (int)(cell * 1.6);
    int side = (n - 1) * cell + 2 * margin;
    gs_image *img = with_band(side, side, 3);
    if (!img) return NULL;
    gs_draw_square(img, side / 2.0, side / 2.0, side / 2.0, WOOD, 1);
    double c[4][2] = {{margin, margin}, {margin + (n - 1) * cell, margin}, {margin + (n - 1) * cell, margin + (n - 1) * cell},
                      {margin, margin + (n - 1) * cell}};
    gs_error e;
    if (vision_grid_from_corners(g, n, (const double(*)[2])c, &e) != GS_OK) {
        gs_image_destroy(img);
        return NULL;
    }
    for (int k = 0; k < n; k++) {
        gs_draw_line(img, margin, margin + k * cell, margin + (n - 1) * cell, margin + k * cell, 1, INK);
        gs_draw_line(img, margin + k * cell, margin, margin + k * cell, margin + (n - 1) * cell, 1, INK);
    }
    int star = n >= 13 ? 3 : 2, mid = n / 2;
    int at[3] = {star, mid, n - 1 - star};
    for (int a = 0; a < 3 && n % 2; a++)
        for (int b = 0; b < 3; b++)
            if (n >= 13 || (a != 1) == (b != 1) || (a == 1 && b == 1))
                gs_draw_disc(img, margin + at[a] * cell, margin + at[b] * cell, cell * 0.1, INK, 1);
    return img;
}

gs_image *score_count_draw(const score_count_result *r, const gs_image *photo, const vision_grid *grid)
{
    vision_grid g;
    gs_image *img;
    if (photo && grid) {
        img = with_band(photo->width, photo->height, photo->channels);
        if (!img) return NULL;
        size_t row = (size_t)photo->width * (size_t)photo->channels;
        for (int y = 0; y < photo->height; y++)
            memcpy(img->buf + (size_t)y * (size_t)img->stride, photo->buf + (size_t)y * (size_t)photo->stride, row);
        g = *grid;
    } else if (!(img = diagram(r, &g))) {
        return NULL;
    }
    draw_points(img, &g, r);
    draw_legend(img, img->height - legend_height(img->width), r);
    return img;
}
