#!/usr/bin/env bash
# `record VIDEO --resume` after the recording stopped part way (issue 50):
# the video is played again from its start, and the views of positions the
# record has passed are skipped until the view reaches its last move
# ("catching up" and "reached" notes); the resumed record equals the one
# recorded without a stop, move for move, and flags nothing.  Stopped by
# --max-frames at two moments and killed (SIGKILL) once.  (The long run,
# 10 random kills of a 60-move render: scripts/eval-resume.sh.)
#   usage: cli_record_resume.sh GOSCRIBE DATA_DIR
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/gs-record-resume.XXXXXX)
. "$here/sgf_corpus.sh"
trap 'keep_all_sgf "$work" cli_record_resume; rm -rf "$work"' EXIT
fail=0
moves_of() { tr -d '\n' < "$1" | grep -o ';[BW]\[[a-s]*\]' | tr -d ';\n'; }
printf '(;GM[1]FF[4]SZ[9]KM[7];B[ee];W[cc];B[gc];W[cg];B[gg];W[ce];B[eg];W[dd];B[ec];W[fe];B[ge];W[dg])\n' >"$work/g9.sgf"
"$bin" render "$work/g9.sgf" -o "$work/g.avi" --pace 1.5 --fps 8 --frame-size 480x320 --seed 2 -q >/dev/null 2>&1 ||
    { echo "FAIL: render"; exit 1; }
"$bin" record "$work/g.avi" -o "$work/full.sgf" --no-evidence --no-stdin -q >"$work/full.log" 2>&1 ||
    { echo "FAIL: the recording without a stop: exit $?"; cat "$work/full.log"; exit 1; }
want=$(moves_of "$work/full.sgf")
echo "without a stop: $want"
# resumed NAME: the resumed recording of $work/NAME.sgf, checked
resumed() {
    local name=$1 before
    before=$(moves_of "$work/$name.sgf")
    "$bin" record "$work/g.avi" -o "$work/$name.sgf" --resume --no-evidence --no-stdin -q >"$work/$name.log" 2>&1
    local rc=$? got
    got=$(moves_of "$work/$name.sgf")
    echo "$name: $(( ${#before} / 5 )) moves before the resume, $(( ${#got} / 5 )) after, exit $rc"
    [ $rc -eq 0 ] || { echo "FAIL: $name: exit $rc"; fail=1; }
    [ "$got" = "$want" ] || { echo "FAIL: $name: resumed $got"; grep -E 'move|FLAG|catch|reach' "$work/$name.log" | head; fail=1; }
    grep -q 'FLAG' "$work/$name.log" && { echo "FAIL: $name: flags"; grep FLAG "$work/$name.log"; fail=1; }
    if [ ${#before} -gt 5 ] && [ "$before" != "$want" ]; then
        grep -q 'views of the past are skipped' "$work/$name.log" || { echo "FAIL: $name: no catching-up note"; fail=1; }
        grep -q "the view reached the resumed record's position" "$work/$name.log" ||
            { echo "FAIL: $name: no note where it caught up"; fail=1; }
    fi
}
total=$(grep -c 'frame' "$work/g.truth.jsonl")
for at in $((total / 3)) $((total * 2 / 3)); do
    "$bin" record "$work/g.avi" -o "$work/stop$at.sgf" --no-evidence --no-stdin -q --max-frames "$at" >/dev/null 2>&1
    resumed "stop$at"
done
# killed half way through a slowed recording
"$bin" record "$work/g.avi" -o "$work/killed.sgf" --no-evidence --no-stdin -q --frame-delay 20 >/dev/null 2>&1 &
pid=$!
sleep "$(awk -v n="$total" 'BEGIN{print n * 0.02 / 2}')"
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
if [ -f "$work/killed.sgf" ]; then resumed killed; else echo "note: killed before the first save"; fi
exit $fail
