#!/usr/bin/env bash
# Measures the recorder's figures (issue 7):
#  1. real frame sequences of ../shared/data/photos recorded as folders of
#     photos: does each recording end on its last frame's true position,
#     how many moves and flags;
#  2. the 720-frame Gomrade H.264 video: recording fps vs decode-only on
#     one core, and the exact final position;
#  3. games rendered by the renderer, scored as a referee would (issue 15):
#     move lists, violations flagged, false flags, end-of-game signals, the
#     count against `goscribe check`; only
#     with FIG3=1 (minutes); FIG3_ONLY=PATTERN (a glob) runs the ones it names; FIG1=0 and
#     FIG2=0 skip the first two.
#   usage: scripts/eval-record.sh [GOSCRIBE] [DATA_DIR]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build/goscribe}
data=${2:-$root/../shared/data}
photos=$data/photos
work=$(mktemp -d /tmp/goscribe-eval-record.XXXXXX)
trap 'rm -rf "$work"' EXIT
[ -x "$bin" ] || { echo "eval-record: $bin is not built" >&2; exit 1; }
[ -d "$photos" ] || { echo "eval-record: $photos absent" >&2; exit 1; }

same_grid() { diff -q <(tr -d ' \n\r' < "$1") <(tr -d ' \n\r' < "$2") >/dev/null; }
ndiff() { paste -d '' <(tr -d ' \n\r' < "$1" | fold -w1) <(tr -d ' \n\r' < "$2" | fold -w1) | awk 'substr($0,1,1)!=substr($0,2,1){n++} END{print n+0}'; }

# seq NAME DIR PREFIX FIRST LAST [EXTRA_DIR]: symlinks frames FIRST..LAST
seq_run() {
    local name=$1 dir=$2 prefix=$3 first=$4 last=$5 extra=${6:-}
    local d=$work/$name
    mkdir -p "$d"
    local lastgrid=""
    for i in $(seq "$first" "$last"); do
        local f
        if [ -n "$prefix" ]; then f=$(printf '%s%03d' "$prefix" "$i"); else f=$i; fi
        for src in "$dir" $extra; do
            if [ -f "$src/$f.jpg" ]; then ln -s "$src/$f.jpg" "$d/$f.jpg"; lastgrid=$src/$f.txt; fi
        done
    done
    local n; n=$(ls "$d" | wc -l)
    "$bin" record "$d" -o "$work/$name.sgf" --final "$work/$name.final" --no-stdin -q > "$work/$name.log" 2>&1
    local rc=$?
    local moves flags
    moves=$(grep -c '] move ' "$work/$name.log")
    flags=$(grep -c '] FLAG ' "$work/$name.log")
    local verdict="DIFFERS"
    if [ $rc -eq 0 ] && same_grid "$work/$name.final" "$lastgrid"; then verdict="EXACT"; pass=$((pass+1)); fi
    total=$((total+1))
    local nd=-
    [ -f "$work/$name.final" ] && nd=$(ndiff "$work/$name.final" "$lastgrid")
    local signals
    signals=$(grep -c '] SIGNAL ' "$work/$name.log")
    printf '%-22s frames %2d  moves %3d  flags %2d  signals %d  final %-7s (%s points off)\n' "$name" "$n" "$moves" "$flags" "$signals" "$verdict" "$nd"
    if [ "$verdict" = DIFFERS ] && [ -f "$work/$name.final" ]; then
        # where: row/column from the top left, recorded vs the .txt
        paste -d ' ' <(tr -d ' \r' < "$work/$name.final") <(tr -d ' \r' < "$lastgrid") |
            awk '{ for (c = 1; c <= length($1); c++) if (substr($1,c,1) != substr($2,c,1))
                     printf "      row %d col %d: recorded %s, .txt %s\n", NR-1, c-1, substr($1,c,1), substr($2,c,1) }'
    fi
    grep -E '] (FLAG|SIGNAL) ' "$work/$name.log" | sed 's/^/      /' | cut -c1-150
}

if [ "${FIG1:-1}" != 0 ]; then
echo "== figure 1: real frame sequences (folders of photos) =="
pass=0; total=0
i2=$photos/imago/t2; i3=$photos/imago/t3
seq_run t2_000-011 "$i2" t2_ 0 11 "$i2/skip"
seq_run t2_050-054 "$i2" t2_ 50 54 "$i2/skip"
seq_run t2_075-079 "$i2" t2_ 75 79 "$i2/skip"
seq_run t2_100-104 "$i2" t2_ 100 104 "$i2/skip"
seq_run t3_000-011 "$i3" t3_ 0 11
seq_run t3_050-051 "$i3" t3_ 50 51
seq_run gomrade_0-11 "$photos/gomrade/testing_sequence" "" 0 11
echo "figure 1: $pass/$total sequences end on the last frame's true position"

fi

if [ "${FIG2:-1}" != 0 ]; then
echo
echo "== figure 2: 1280x720 30 fps H.264 Gomrade video (each frame held 2 s) =="
video=$work/gomrade.mp4
if "$root/scripts/make-gomrade-video.sh" "$video" "$data" >/dev/null; then
    "$bin" bench record "$video" --expect "$photos/gomrade/testing_sequence/11.txt"
else
    echo "figure 2: not measured (no ffmpeg)"
fi

fi

echo
echo "== figure 3: rendered games (goscribe render): referee events and signals =="
# Games rendered from KGS records over 9x9, 13x13 and 19x19 (over 1,000
# moves), each under its own seed: hands hovering and resting, a slow light
# change with flicker, a slight camera drift and one bump, bowls, lids, a
# stone, a cable and papers around the board, every kind of violation left
# in place and again corrected 1-2 s later, and an end: both players
# confirming, or one resigning.  Each recording is scored against the truth
# by scripts/eval-referee.py (move list, each violation flagged at its move,
# false flags, the end-of-game signals and who made them, the recorder's
# count against goscribe check of its file, and the confidence of every
# irregular view it saw undone: the trade-off of RECORD_SURE).
#   FIG3=1 runs it (long: tens of minutes); FIG3_ONLY=GLOB the games it
#   names, FIG3_SKIP=GLOB all but those; FIG3_VSEEDS="1 2": the 9x9 and 13x13 violation games again under
#   other seeds; FIG3_KEEP=DIR keeps each game's files there (render,
#   truth, log, SGF); FIG3_REUSE=DIR records the renders kept so instead
#   of rendering again, when game and options are the same (the renderer
#   itself unchanged: the caller's word).
if [ "${FIG3:-0}" != 1 ]; then
    echo "figure 3: skipped (rendering takes minutes: run with FIG3=1)"
elif ! "$bin" render --help >/dev/null 2>&1; then
    echo "figure 3: not measured (renderer not built)"
else
    kgs=$data/games/kgs
    # the look: hands, light, drift, a bump, things around a board with the
    # rules' 2.5 cm margin; every violation, left and corrected
    look="--frame-size 640x360 --fps 10 --pace 1 --hover 30 --rest 25 --slow 0.15 --flicker 0.03 --drift 0.15 --bump-deg 2 --margin 25 --objects"
    viol="--violate double_move,wrong_capture,missed_capture,moved_stone,ko --correct double_move,wrong_capture,missed_capture,moved_stone"
    specs=("exbot9:$kgs/tournament10/ExBot-GNU.sgf:--seed 5 $look --bump 30000 $viol --end confirm"
           "neurogo9:$kgs/tournament10/GNU-NeuroGo.sgf:--seed 3 $look --bump 40000 $viol --end resign"
           "tlsbot9:$kgs/tournament10/tlsBot-GNU.sgf:--seed 21 $look --bump 50000 $viol --end confirm"
           "firstgo9:$kgs/tournament8/firstgo-GNU.sgf:--seed 8 $look --bump 25000 $viol --end confirm"
           "housebot13:$kgs/tournament10/TheGNUGo-HouseBot.sgf:--seed 7 $look --bump 60000 $viol --end confirm"
           "dariush13:$kgs/tournament10/TheGNUGo-Dariush.sgf:--seed 13 $look --bump 90000 $viol --end resign"
           "viking13:$kgs/tournament11/GNU-viking5-1.sgf:--seed 17 $look --bump 45000 $viol --end confirm"
           "shun19:$kgs/2004-04-10-Shun9137-GnuGoCVS.sgf:--seed 11 ${look/640x360/960x540} --bump 90000 $viol --end confirm"
           "gopp19:$kgs/tournament9/gopp-GNU.sgf:--seed 19 ${look/640x360/960x540} --bump 150000 $viol --end resign")
    for sd in ${FIG3_VSEEDS:-}; do
        specs+=("violations9s$sd:$kgs/tournament10/ExBot-GNU.sgf:--seed $sd $look --bump 30000 $viol --end confirm"
                "violations13s$sd:$kgs/tournament10/TheGNUGo-HouseBot.sgf:--seed $sd $look --bump 60000 $viol --end resign")
    done
    # the same game (however the data folder was reached: another checkout's
    # ../shared/data) and the same options
    same_opts() {
        local ga oa gb ob
        [ -f "$1" ] && read -r ga oa < "$1" && read -r gb ob < "$2" || return 1
        [ "$(realpath -m "$ga")" = "$(realpath -m "$gb")" ] && [ "$oa" = "$ob" ]
    }
    results=$work/fig3.results.jsonl
    : > "$results"
    for spec in "${specs[@]}"; do
        name=${spec%%:*}; rest=${spec#*:}; game=${rest%%:*}; opts=${rest#*:}
        # shellcheck disable=SC2053
        [ -n "${FIG3_ONLY:-}" ] && [[ $name != $FIG3_ONLY ]] && continue
        # shellcheck disable=SC2053
        [ -n "${FIG3_SKIP:-}" ] && [[ $name == $FIG3_SKIP ]] && { echo "  $name: skipped (FIG3_SKIP)"; continue; }
        [ -f "$game" ] || { echo "  $name: $game absent"; continue; }
        t0=$(date +%s)
        printf '%s\n' "$game $opts" > "$work/$name.opts"
        reuse=${FIG3_REUSE:-}
        if [ -n "$reuse" ] && same_opts "$reuse/$name.opts" "$work/$name.opts" &&
            cp "$reuse/$name.mp4" "$reuse/$name.truth.jsonl" "$reuse/$name.truth.sgf" "$work/" 2>/dev/null; then
            echo "  $name: the render kept in $reuse (same game and options)"
        else
            # shellcheck disable=SC2086
            "$bin" render "$game" -o "$work/$name.mp4" $opts 2>&1 | sed 's/^/  /'
        fi
        t1=$(date +%s)
        echo "  $name: recording the video ..." >&2
        # the passes of the game, announced as its players did (a pass is
        # a pause on camera: only the word tells it from a double move)
        passes=$(python3 "$root/scripts/truth-passes.py" "$work/$name.truth.jsonl" "$work/$name.truth.sgf")
        "$bin" record "$work/$name.mp4" -o "$work/$name.sgf" --no-stdin -q ${passes:+--pass-at "$passes"} \
            > "$work/$name.log" 2>&1
        t2=$(date +%s)
        "$bin" check "$work/$name.sgf" > "$work/$name.check" 2>&1
        n=$(grep -o 'SZ\[[0-9]*\]' "$game" | head -1 | tr -dc 0-9)
        echo "  $name: rendered in $((t1-t0)) s, recorded in $((t2-t1)) s: $(grep -c '] move ' "$work/$name.log") moves, $(grep -c '] FLAG ' "$work/$name.log") flags, $(grep -c '] SIGNAL ' "$work/$name.log") signals, $(grep -c 'board found again' "$work/$name.log") re-finds"
        python3 "$root/scripts/eval-referee.py" game "$name" "$n" "$work/$name.truth.jsonl" "$work/$name.truth.sgf" \
            "$work/$name.log" "$work/$name.sgf" "$work/$name.check" "$results"
        [ -n "${FIG3_KEEP:-}" ] && cp "$work/$name".* "$FIG3_KEEP"/ 2>/dev/null
    done
    python3 "$root/scripts/eval-referee.py" total "$results"
fi
