#!/usr/bin/env bash
# Records composite videos of real games (../shared/tools/composite: a real
# board photo, real stone sprites, arms, light drift, noise, a camera bump,
# H.264; with --violations a double move, a wrong capture, a moved stone and
# a missed capture, each corrected 1.2-2 s later) and scores each recording
# against the video's truth (scripts/eval-footage.py): moves right before the
# first error, moves recorded vs played, seeded violations flagged at their
# move by kind, false referee events, false end-of-game signals.
#
#   usage: scripts/eval-footage.sh [--bin GOSCRIBE] [--data DIR] [--cache DIR] [--keep DIR] [ITEM...]
#   ITEM: VIDEO.mp4 (its truth VIDEO.json beside it), or GAME.sgf:SEED[:MOVES][:v] (a game of
#         DATA/games/kgs or a path; v = --violations), made with composite.py into the cache
#         folder (default build/footage) when absent.  No item: the default set below.
#   --keep DIR keeps each recording's SGF and log there.  Exit 1 when any video falls short.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/build/goscribe
data=$root/../shared/data
cache=$root/build/footage
keep=""
items=()
while [ $# -gt 0 ]; do
    case $1 in
        --bin) bin=$2; shift 2 ;;
        --data) data=$2; shift 2 ;;
        --cache) cache=$2; shift 2 ;;
        --keep) keep=$2; shift 2 ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        *) items+=("$1"); shift ;;
    esac
done
# two clean games and violations in others, several seeds; the 19x19 games of
# the KGS folder (passes dropped: a mid-game pass shows one colour playing twice)
[ ${#items[@]} -eq 0 ] && items=(
    tournament9/gopp-GNU.sgf:1
    2004-04-10-Shun9137-GnuGoCVS.sgf:2
    tournament9/indigoBot-GNU.sgf:6:120
    tournament9/GNU-AyaBot.sgf:3:130:v
    tournament9/Dar51-GNU.sgf:4:130:v
    2004-04-10-GnuGoCVS-inuyasha34.sgf:5::v
)
composite=$data/../tools/composite/composite.py
py=/usr/bin/python3
[ -x "$bin" ] || { echo "eval-footage: $bin is not built" >&2; exit 1; }
work=$(mktemp -d /tmp/goscribe-eval-footage.XXXXXX)
trap 'rm -rf "$work"' EXIT
results=$work/results.jsonl
: > "$results"

# make_video SPEC: the cached video of a game spec (its path on stdout)
make_video() {
    local game seed moves viol name opts=()
    IFS=: read -r game seed moves viol <<< "$1"
    [ -f "$game" ] || game=$data/games/kgs/$game
    [ -f "$game" ] || { echo "eval-footage: $1: no such game" >&2; return 1; }
    name=$(basename "$game" .sgf)_s${seed:-1}${moves:+_m$moves}${viol:+_v}
    opts=(--seed "${seed:-1}")
    [ -n "$moves" ] && opts+=(--moves "$moves")
    [ -n "$viol" ] && opts+=(--violations)
    if [ ! -f "$cache/$name.mp4" ] || [ ! -f "$cache/$name.json" ]; then
        [ -f "$composite" ] || { echo "eval-footage: $composite absent" >&2; return 1; }
        mkdir -p "$cache"
        echo "  making $name (composite.py ${opts[*]}) ..." >&2
        nice -n 10 "$py" "$composite" "$game" "$cache/$name.tmp.mp4" "$cache/$name.json" "${opts[@]}" >&2 &&
            mv "$cache/$name.tmp.mp4" "$cache/$name.mp4" || { echo "eval-footage: $name not made" >&2; return 1; }
    fi
    echo "$cache/$name.mp4"
}

for item in "${items[@]}"; do
    case $item in
        *.mp4) video=$item ;;
        *) video=$(make_video "$item") || continue ;;
    esac
    truth=${video%.mp4}.json
    name=$(basename "$video" .mp4)
    [ -f "$truth" ] || { echo "$name: no truth $truth" >&2; continue; }
    t0=$(date +%s)
    nice -n 10 "$bin" record "$video" -o "$work/$name.sgf" --no-stdin -q > "$work/$name.log" 2>&1
    rc=$?
    t1=$(date +%s)
    [ $rc -eq 0 ] || echo "$name: record exited $rc: $(tail -1 "$work/$name.log")"
    "$py" "$root/scripts/eval-footage.py" game "$name" "$truth" "$work/$name.sgf" "$work/$name.log" "$results"
    echo "    (recorded in $((t1 - t0)) s)"
    [ -n "$keep" ] && mkdir -p "$keep" && cp "$work/$name.sgf" "$work/$name.log" "$keep/"
done
"$py" "$root/scripts/eval-footage.py" total "$results"
