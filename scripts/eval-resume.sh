#!/usr/bin/env bash
# `record --resume` after a kill (issue 50): a game rendered from the
# bundled classic is recorded once without a stop, then again killed
# (SIGKILL) at KILLS random moments, each time resumed from the SGF the
# kill left with the same video played from its start.  Each resumed
# record must equal the uninterrupted one, move for move.
#   usage: scripts/eval-resume.sh [GOSCRIBE] [KILLS (10)] [MOVES (60)] [SEED (1)]
#   RESUME_VIDEO=FILE uses that video (its moves) instead of rendering one.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build/goscribe}
kills=${2:-10}
nmoves=${3:-60}
seed=${4:-1}
[ -x "$bin" ] || { echo "eval-resume: $bin is not built" >&2; exit 1; }
work=$(mktemp -d /tmp/goscribe-eval-resume.XXXXXX)
trap 'rm -rf "$work"' EXIT
video=${RESUME_VIDEO:-$work/game.avi}
if [ -z "${RESUME_VIDEO:-}" ]; then
    "$bin" render "$root/samples/games/classic.sgf" -o "$video" --moves "$nmoves" --frame-size 640x360 --fps 10 \
        --seed "$seed" -q || { echo "eval-resume: render failed" >&2; exit 1; }
fi
moves_of() { tr -d '\n' < "$1" | grep -o ';[BW]\[[a-z]*\]' | tr -d ';\n'; }
count_of() { tr -d '\n' < "$1" | grep -o ';[BW]\[[a-z]*\]' | wc -l; }
"$bin" record "$video" -o "$work/full.sgf" --no-evidence --no-stdin -q >/dev/null 2>&1
want=$(moves_of "$work/full.sgf")
echo "uninterrupted: $(count_of "$work/full.sgf") moves"
# how long a slowed recording takes (wall time): the kills fall within it
delay=5
t0=$(date +%s.%N)
"$bin" record "$video" -o "$work/timed.sgf" --no-evidence --no-stdin -q --frame-delay $delay >/dev/null 2>&1
span=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{print b - a}')
RANDOM=$seed
pass=0
for k in $(seq 1 "$kills"); do
    rm -f "$work/r.sgf"
    at=$(awk -v s="$span" -v r=$RANDOM 'BEGIN{printf "%.2f", 0.1 + (s - 0.2) * r / 32767}')
    "$bin" record "$video" -o "$work/r.sgf" --no-evidence --no-stdin -q --frame-delay $delay >/dev/null 2>&1 &
    pid=$!
    sleep "$at"
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    before=0
    [ -f "$work/r.sgf" ] && before=$(count_of "$work/r.sgf")
    if [ -f "$work/r.sgf" ]; then
        "$bin" record "$video" -o "$work/r.sgf" --resume --no-evidence --no-stdin -q > "$work/resume.log" 2>&1
    else
        "$bin" record "$video" -o "$work/r.sgf" --no-evidence --no-stdin -q > "$work/resume.log" 2>&1
    fi
    got=$(moves_of "$work/r.sgf")
    verdict=DIFFERS
    if [ "$got" = "$want" ]; then verdict=SAME; pass=$((pass + 1)); fi
    printf 'kill %2d at %5.2f s: %3d moves in the SGF, resumed: %3d moves, %s\n' "$k" "$at" "$before" \
        "$(count_of "$work/r.sgf")" "$verdict"
    if [ $verdict = DIFFERS ]; then
        echo "  want $want"
        echo "  got  $got"
        grep -E 'FLAG|catching|caught|resumed' "$work/resume.log" | head -5 | sed 's/^/  /'
    fi
done
echo "resume: $pass/$kills resumed records equal the uninterrupted one"
[ "$pass" -eq "$kills" ]
