/* samples/render.h: a synthetic camera over a Go board, for test videos and
 * the bundled demo.  Its output is footage (a video file or a folder of PNG
 * frames) that goes back in at the bottom of the data flow, through
 * capture/ into `goscribe record` and the tests, with the truth files
 * (what should be read from it) beside it.
 *
 * Three parts:
 *  - render_scene: the picture.  Given the physical state of the table at a
 *    moment (stones on the board with their small offsets, the hand, the
 *    time for lighting), renders what a camera above the board sees, as one
 *    BGR frame.  Everything random about the look (camera tilt/rotation/
 *    distance/lens/bump/drift, wood, lines, stone tints, light, sensor) comes from
 *    render_params, which render_params_from_seed() fills from a seed and a
 *    caller may then override field by field.
 *  - render_script: the timeline.  Turns a move list into what happens on
 *    the table over time: a hand reaches in from the mover's side, places the
 *    stone, withdraws, lifts each captured stone in its own trip; idle
 *    spells, hovering, resting on the board edge; and seeded violations
 *    (double move, wrong capture, missed capture, moved stone, ko retake)
 *    that change the timeline and are listed in the truth.
 *  - render_job: `goscribe render` as one call: an SGF game in, frames and
 *    truth files out (render_job_options; render_look for the look options
 *    given over the seed's draw).
 *
 * The board the script keeps is physical: a stone placed is on the board,
 * a stone is gone only when a hand lifted it.  Captures are found by a
 * liberty count on that physical board (not by the rules engine), because a
 * violation may leave the board in a state no legal game reaches.
 *
 * Geometry: world millimetres, board top at z = 0, board centre at the
 * origin, x to the right along a row, y down along a column (row 0 is the
 * top, SGF "aa" at the top-left).  Black sits on the +y side (below row
 * size-1), White on the -y side.  Board coordinates (u, v) are intersection
 * columns / rows as in vision_grid.
 *
 * Truth file (one JSON object per line, one line per frame, fields in this
 * order):
 *   frame        frame index from 0
 *   t_ms         time of the frame in ms (frame * 1000 / fps)
 *   position     size*size characters, row-major from the top-left:
 *                '.' empty, 'B' black, 'W' white: the stones physically on
 *                the board (a stone in a hand is not on it)
 *   hand         true when any part of a hand/sleeve is in the picture
 *   hand_covers  true when a hand covers at least one intersection
 *   covered      SGF points ("dd") whose image spot a hand covers
 *   moves        entries of the rendered sequence done so far (SGF moves
 *                and passes, plus double-move stones; render_script_placed)
 *   last_move    SGF point of the last stone placed ("" before the first)
 *   corners      image (x, y) of the outer intersections in vision_grid
 *                order ((0,0), (size-1,0), (size-1,size-1), (0,size-1)),
 *                board top plane, lens distortion applied
 *   violations   every seeded violation that has happened by this frame:
 *                {"type":"double_move","move":N,"point":"dd"}; move N is the
 *                1-based number of the move the violation belongs to in the
 *                rendered sequence (see render_violation)
 *
 * Ownership: create/destroy pairs; destroy(NULL) is safe.  The scene and the
 * script keep their own copies of what they are given.  Neither is
 * thread-safe; use one per thread.  render_job_run only borrows the
 * options (their strings included) for the call and keeps nothing.
 */
#ifndef RENDER_H
#define RENDER_H

#include "core/gs.h"
#include "vision/vision.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ parameters */

typedef struct render_params {
    int width, height;          /* frame size in pixels */
    int board_size;             /* 9, 13, 19 (any 5..25) */

    /* camera */
    double tilt_deg;            /* 0 = straight down .. ~50 */
    double rotation_deg;        /* side the camera stands on / board turn in
                                   the image, 0 = Black's side at the bottom */
    double roll_deg;            /* extra turn of the camera about its axis */
    double fov_deg;             /* horizontal field of view */
    double fill;                /* fraction of the frame the board spans
                                   (sets the distance) */
    double distance_mm;         /* > 0: use this camera distance instead */
    double shift_x, shift_y;    /* board centre offset in the frame, as a
                                   fraction of width/height */
    double k1;                  /* radial lens distortion (vision_grid model) */
    double bump_ms;             /* < 0: no bump; else time of a sudden small
                                   camera knock that stays */
    double bump_deg;            /* size of that knock (rotation, degrees) */
    double drift_deg_min;       /* slow continuous pan/tilt of the camera
                                   about its own centre, degrees per minute
                                   from t = 0 (0 = none; seeds draw 0) */
    double drift_dir_deg;       /* which way the picture drifts: 0 = the
                                   board moves right in the image, 90 = down */

    /* board */
    double cell_w_mm, cell_h_mm; /* line spacing across / along (22 x 23.7) */
    double line_mm;             /* line width */
    double margin_mm;           /* from the outer line to the board's edge */
    double thickness_mm;        /* board thickness (sides seen when oblique) */
    int star_points;            /* draw hoshi */
    double wood_bgr[3];         /* base wood colour 0..255 */
    double grain;               /* 0..1 grain contrast */
    double line_bgr[3];
    double table_bgr[3];        /* what the board stands on */

    /* stones */
    double stone_mm;            /* diameter (22) */
    double stone_h_mm;          /* height (lens) */
    double jitter_mm;           /* random offset from the point (max) */
    double black_bgr[3];        /* slate tint */
    double white_bgr[3];        /* shell tint */

    /* light */
    double kelvin;              /* colour temperature (2800 .. 7500) */
    double brightness;          /* overall gain (1 = nominal) */
    double gradient;            /* 0..1 light falloff across the frame */
    double gradient_deg;        /* its direction */
    double glare;               /* 0..1 strength of a specular blob */
    double glare_x, glare_y;    /* its centre, fraction of width/height */
    double slow_amp;            /* slow brightness change amplitude (0..0.3) */
    double slow_period_ms;
    double flicker;             /* per-frame brightness flicker (0..0.1) */
    double light_deg;           /* direction shadows fall (world) */

    /* sensor */
    double noise;               /* noise sigma in grey levels */
    int blur;                   /* 0 none, 1 = 3x3 smoothing of the frame */
    double motion_blur;         /* 0..1: how much a moving hand smears */
    int jpeg_quality;           /* 0 = off; else 1..100 re-compression */

    /* hands */
    double skin_bgr[3];
    double sleeve_bgr[3];       /* Black's sleeve; White's is sleeve2 */
    double sleeve2_bgr[3];

    /* around the board */
    bool objects;               /* bowls with their lids, a lid, a stone
                                   lying on the table, a cable and papers
                                   beyond the board's edge (laid out from
                                   the seed; seeds draw none) */

    uint64_t seed;              /* PRNG seed of the scene (texture, noise) */
} render_params;

/* Fills p with a look drawn from seed: every field above varies.  size is
 * the board size, width/height the frame.  Preset cells: 22 x 23.7 mm
 * (Japanese) or 24 x 23 / 22 x 23.7 mixes; see render_params_cells(). */
void render_params_from_seed(render_params *p, uint64_t seed, int board_size, int width, int height);

/* Cell presets: "jp" 22 x 23.7 mm, "cn" 24 x 23 mm (wider than tall), "sq"
 * 23 x 23.  Returns false for an unknown name. */
bool render_params_cells(render_params *p, const char *preset);

/* ----------------------------------------------------------- table state */

/* A hand over the table.  The fingertips are at (x, y, z) mm; the arm comes
 * from the side of `side` (GS_BLACK: +y, GS_WHITE: -y). */
typedef struct render_hand {
    bool present;
    gs_color side;
    double x, y, z;             /* fingertip position, world mm */
    double yaw_deg;             /* arm direction off straight-from-the-side */
    gs_color holding;           /* stone between the fingers (GS_EMPTY none) */
    double speed;               /* image-plane speed hint for motion blur
                                   (mm per frame at the fingertips) */
} render_hand;

/* A stone lying on the board's margin, outside the lines (an end-of-game
 * signal): board coordinates of its centre (outside 0..size-1). */
#define RENDER_MARGIN_MAX 8
typedef struct render_margin_stone {
    double u, v;
    gs_color color;
    uint8_t variant;
} render_margin_stone;

/* The physical state of the table at one moment. */
typedef struct render_state {
    double t_ms;                /* time, drives light changes and the bump */
    int frame;                  /* frame index (flicker, noise) */
    gs_position pos;            /* stones on the board */
    float offset[GS_MAX_SIZE * GS_MAX_SIZE][2]; /* stone offsets from the
                                   point (x, y) in units of
                                   render_params.jitter_mm, each -1..1 */
    uint8_t variant[GS_MAX_SIZE * GS_MAX_SIZE]; /* stone look variant 0..7 */
    int nmargin;                /* stones on the margin */
    render_margin_stone margin[RENDER_MARGIN_MAX];
    render_hand hand;
} render_state;

/* Empty board of `size`, no hand. */
void render_state_init(render_state *st, int size);

/* ----------------------------------------------------------------- scene */

typedef struct render_scene render_scene;

/* Builds the scene (textures, camera). GS_ERR_USAGE for bad parameters.
 * Caller destroys. */
render_scene *render_scene_create(const render_params *p, gs_error *err);
void render_scene_destroy(render_scene *s);
const render_params *render_scene_params(const render_scene *s);

/* Renders st into out, which must be width x height x 3 (BGR). */
gs_status render_frame(render_scene *s, const render_state *st, gs_image *out, gs_error *err);

/* Image position of board point (u, v) (intersection units, may be
 * fractional) raised z mm above the board top, for the camera pose at time
 * t_ms (before or after the bump, with the drift up to t_ms).  Returns
 * false if it is behind the camera. */
bool render_project(const render_scene *s, double u, double v, double z_mm, double t_ms,
                    double *x, double *y);

/* The truth grid at time t_ms (bump and drift included) as a vision_grid:
 * corners, homography of the board top (undistorted), k1/cx/cy/norm,
 * cell_aspect; confidence 1. */
void render_grid(const render_scene *s, double t_ms, vision_grid *g);

/* Which intersections the hand in st covers in the picture: covered gets
 * size*size bytes (1 = covered).  Returns the number covered.  *visible (if
 * not NULL) tells whether any part of the hand is in the frame. */
int render_hand_covers(const render_scene *s, const render_state *st, uint8_t *covered, bool *visible);

/* ---------------------------------------------------------------- script */

typedef enum render_violation_type {
    RENDER_V_DOUBLE_MOVE = 0,   /* the mover plays a second stone at once */
    RENDER_V_WRONG_CAPTURE,     /* a stone not captured is lifted too */
    RENDER_V_MISSED_CAPTURE,    /* captured stones stay on the board */
    RENDER_V_MOVED_STONE,       /* a stone is pushed to a neighbouring point */
    RENDER_V_KO_RETAKE,         /* an immediate ko recapture */
    RENDER_V_COUNT_
} render_violation_type;

/* "double_move", "wrong_capture", "missed_capture", "moved_stone", "ko"
 * (codes as in rules_event_code / SGF GSEV). */
const char *render_violation_code(render_violation_type t);
/* Parses a code above (also "ko_retake"); false if unknown. */
bool render_violation_parse(const char *s, render_violation_type *t);

typedef struct render_violation {
    render_violation_type type;
    bool corrected;             /* put right 1.2..2 s later (after a
                                   hand-free, still view of it): the extra
                                   stone taken back (not in the rendered
                                   sequence), the stone lifted put back, the
                                   moved stone moved back, the captured
                                   stones lifted after the opponent's next
                                   move */
    double undone_ms;           /* when the board was put right (-1: never;
                                   a stone lifted wrongly is always put back,
                                   at once when not "corrected") */
    int move;                   /* 1-based move number in the rendered
                                   sequence (render_script_placed): the extra
                                   stone for double_move; the number the
                                   retake would have had for ko (the retake is
                                   taken back at once, so it is not in the
                                   sequence); the capturing move for
                                   wrong/missed capture; the move after which
                                   the stone was moved for moved_stone */
    gs_point point;             /* the stone concerned (extra stone, stone
                                   wrongly lifted, a stone left, the stone
                                   moved (its new point), the retaking stone) */
    double t_ms;                /* when it became visible on the board */
} render_violation;

/* How the rendered game ends on the table. */
typedef enum render_end {
    RENDER_END_NONE = 0,
    RENDER_END_CONFIRM,         /* both players confirm (RULES.md): first the
                                   side to move, then the other, each puts a
                                   stone of the other colour on the margin at
                                   their own lower-right corner */
    RENDER_END_RESIGN           /* a player puts two of their own stones on
                                   the margin (render_script_options.resigner) */
} render_end;

/* An end-of-game signal made on the table. */
typedef struct render_signal {
    bool resign;                /* false: a confirmation */
    gs_color color;             /* the player signalling (confirming or
                                   resigning), not the stones' colour */
    int move;                   /* entries of the rendered sequence done */
    double t_ms;                /* when its (last) stone was on the margin */
    int corner;                 /* confirmation: the corner (vision_grid
                                   order of board points: 0 (0,0), 1
                                   (size-1,0), 2 (size-1,size-1), 3
                                   (0,size-1)) it was put by */
} render_signal;

typedef struct render_script_options {
    uint64_t seed;
    double pace;                /* time scale: 1 = natural, 2 = twice as fast */
    double start_idle_ms;       /* empty board before the first move */
    double end_idle_ms;         /* after the last move */
    int hover_pct;              /* chance a move hovers first (0..100) */
    int rest_pct;               /* chance of resting a hand on the edge during
                                   a pause (0..100) */
    unsigned violations;        /* bit mask of 1u << render_violation_type:
                                   left in place */
    unsigned corrected;         /* the same, each put right 1.2..2 s later
                                   (placed at another move) */
    render_end end;             /* the end-of-game signals made after the
                                   last move */
    gs_color resigner;          /* RENDER_END_RESIGN: who (GS_EMPTY: the
                                   side to move) */
    /* board geometry the hands move over (copy from render_params) */
    double cell_w_mm, cell_h_mm, margin_mm, stone_h_mm, stone_mm;
    /* stones on the board before the first move (AB/AW, handicap);
       setup.size 0 = none, else it must equal the script's size */
    gs_position setup;
} render_script_options;

/* Defaults: pace 1, 800 ms idle before and after, hover 20 %, rest 10 %,
 * no violations, 22 x 23.7 mm cells, 15 mm margin, 8 mm stones. */
void render_script_options_init(render_script_options *o, uint64_t seed);
/* Copies the board geometry of p into o. */
void render_script_options_geometry(render_script_options *o, const render_params *p);

typedef struct render_script render_script;

/* Builds the timeline for moves (passes are a pause).  Each requested
 * violation is placed once at a seeded move where it can happen; one that
 * cannot happen in this game (no capture, no ko) is left out:
 * render_script_violations() lists those placed.  GS_ERR_USAGE for a move
 * off the board.  Caller destroys. */
render_script *render_script_create(int size, const gs_move *moves, int nmoves,
                                    const render_script_options *o, gs_error *err);
void render_script_destroy(render_script *sc);

double render_script_duration_ms(const render_script *sc);

/* The table at time t_ms (any order of calls; sequential calls are fast). */
void render_script_state(render_script *sc, double t_ms, render_state *st);

/* Number of stones placed by t_ms and the last one's point ({-1,-1} none). */
int render_script_moves_at(const render_script *sc, double t_ms, gs_point *last);

/* Violations placed, in time order. */
int render_script_violations(const render_script *sc, const render_violation **out);

/* End-of-game signals made, in time order. */
int render_script_signals(const render_script *sc, const render_signal **out);

/* The rendered sequence: the SGF moves rendered (passes included, as a
 * pause) plus double-move stones, in order: what the truth SGF records.
 * A retake taken back is not in it.  "moves" in the truth counts the
 * entries done by a frame's time. */
int render_script_placed(const render_script *sc, const gs_move **out);

/* ----------------------------------------------------------------- truth */

/* Writes one truth line (format above, '\n'-terminated) for frame `frame`
 * of st, the scene and the script. */
gs_status render_truth_line(FILE *f, int frame, const render_scene *s, const render_script *sc,
                            const render_state *st, gs_error *err);

/* ------------------------------------------------------------------- job */

/* Look fields a caller sets over the seed's draw (`goscribe render --tilt`
 * and friends), in render_params units; blur >= 0.5 turns the 3x3 blur on,
 * jpeg is the quality. */
typedef enum render_look_field {
    RENDER_LOOK_TILT, RENDER_LOOK_ROTATION, RENDER_LOOK_ROLL, RENDER_LOOK_FOV, RENDER_LOOK_FILL,
    RENDER_LOOK_DISTANCE, RENDER_LOOK_K1, RENDER_LOOK_BUMP_DEG, RENDER_LOOK_LINE, RENDER_LOOK_MARGIN,
    RENDER_LOOK_THICKNESS, RENDER_LOOK_GRAIN, RENDER_LOOK_STONE_HEIGHT, RENDER_LOOK_JITTER,
    RENDER_LOOK_KELVIN, RENDER_LOOK_BRIGHTNESS, RENDER_LOOK_GRADIENT, RENDER_LOOK_GLARE,
    RENDER_LOOK_FLICKER, RENDER_LOOK_SLOW, RENDER_LOOK_NOISE, RENDER_LOOK_BLUR, RENDER_LOOK_MOTION_BLUR,
    RENDER_LOOK_JPEG, RENDER_LOOK_DRIFT, RENDER_LOOK_DRIFT_DIR,
    RENDER_LOOK_COUNT_
} render_look_field;

/* What a caller changes in the seed's look.  The text fields are the
 * command's own words, checked when the look is applied (after the game is
 * read, since the seed's draw needs its board size); NULL = not given. */
typedef struct render_look {
    bool set[RENDER_LOOK_COUNT_];
    double val[RENDER_LOOK_COUNT_];
    const char *cells;          /* preset "jp", "cn" or "sq" (render_params_cells) */
    const char *cell;           /* "WxH" cell size in mm, each 10..60 */
    const char *bump;           /* time of the knock in ms, or "none" */
    const char *wood;           /* "B,G,R" wood colour, each 0..255 */
    bool no_stars;              /* no star points */
} render_look;

/* Applies look over p (numbers, then cells, cell, bump, wood, stars).
 * GS_ERR_USAGE with the option's message ("render: --cells must be jp, cn
 * or sq") for a text field that does not parse. */
gs_status render_look_apply(render_params *p, const render_look *look, gs_error *err);

/* A whole render, as `goscribe render` does it: the game's main line ->
 * frames (a video when out ends in .mp4/.avi/.mkv/.mov, else numbered PNG
 * files in the directory out) + the truth beside them (OUT.truth.jsonl,
 * .truth.sgf, .truth.cal, or DIR/truth.jsonl, truth.sgf, truth.cal). */
typedef struct render_job_options {
    const char *game_path;      /* SGF file */
    const char *out;            /* video file or frame directory */
    uint64_t seed;              /* the look and the timeline */
    int width, height;          /* frame size */
    double fps;
    double pace;                /* render_script_options.pace */
    long moves_limit;           /* < 0: every move */
    long frames_limit;          /* <= 0: every frame of the timeline */
    int hover_pct, rest_pct;
    unsigned violations;        /* bit mask of 1u << render_violation_type */
    unsigned corrected;         /* the same, put right 1.2..2 s later */
    render_end end;             /* end-of-game signals after the last move */
    gs_color resigner;          /* RENDER_END_RESIGN: who (GS_EMPTY: the
                                   loser by the game's RE when it says
                                   so, else the side to move) */
    bool objects;               /* things on the table around the board */
    render_look look;
    /* Told of each violation asked for that the game has no place for
       (it is left out); NULL: not told. */
    void (*warn)(void *user, const char *msg);
    void *user;
    /* Told about once a second of the frames written so far out of all of
       them (long work: a person wants to see it move); NULL: not told. */
    void (*progress)(void *user, long frame, long total);
} render_job_options;

/* The command's defaults: seed 1, 1280x720, 30 fps, pace 1, every move and
 * frame, hover 20 %, rest 10 %, no violations, the seed's look. */
void render_job_options_init(render_job_options *o);

typedef struct render_job_result {
    long frames;                /* frames written */
    int board_size;
    int moves;                  /* game moves rendered */
    int violations;             /* violations placed */
    int corrected;              /* ... of which corrected */
    int signals;                /* end-of-game signals made */
} render_job_result;

/* Runs the job.  The error message is the whole line to show (it names
 * the file or option).  GS_ERR_NOBOARD when the game cannot be rendered
 * (no game, a board size outside 5..GS_MAX_SIZE, no moves); the SGF
 * reader's status for an unreadable game; GS_ERR_USAGE, GS_ERR_IO or
 * GS_ERR_NOMEM otherwise.  On failure files already written stay. */
gs_status render_job_run(const render_job_options *o, render_job_result *res, gs_error *err);

#ifdef __cplusplus
}
#endif
#endif
