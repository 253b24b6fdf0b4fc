#!/usr/bin/env bash
# What an unlucky recording survives.  Broken frames: a rendered MJPEG AVI
# with frames zeroed or garbled (1 in the middle, 50 in a row, the first
# 3) records every move the intact file records, the skipped frames noted
# with their time and counted, exit 0; a broken end keeps the moves but no
# count; a file no frame of which decodes is one line, exit 1.  Kills:
# `goscribe record` killed (SIGKILL) at several moments of a slow
# recording leaves an SGF that parses and holds every move the recorder
# had printed (a move is printed only after it is on disk); SIGINT stops
# cleanly with the SGF complete.
#   usage: cli_record_kill.sh GOSCRIBE DATA_DIR
set -u
bin=$1
data=$2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/gs-record-kill.XXXXXX)
. "$here/sgf_corpus.sh"
trap 'keep_all_sgf "$work" cli_record_kill; rm -rf "$work"' EXIT
fail=0
checked=0

# ---- broken frames --------------------------------------------------------
moves_of() { grep -o ';[BW]\[[a-s]*\]' "$1" | tr -d ';\n'; }
printf '(;GM[1]FF[4]SZ[9]KM[7];B[ee];W[cc];B[gc];W[cg];B[gg];W[ce];B[eg];W[dd];B[ec];W[fe];B[ge];W[dg])\n' >"$work/g9.sgf"
if ! command -v python3 >/dev/null; then
    echo "note: python3 absent, broken-frame cases skipped"
elif ! "$bin" render "$work/g9.sgf" -o "$work/intact.avi" --pace 1.5 --fps 8 --size 640x360 --seed 2 >/dev/null 2>&1; then
    echo "FAIL: render of the test video"; fail=1
else
    "$bin" record "$work/intact.avi" -o "$work/intact.sgf" --no-evidence --no-stdin >"$work/intact.log" 2>&1 \
        || { echo "FAIL: intact video: exit $?"; cat "$work/intact.log"; fail=1; }
    want=$(moves_of "$work/intact.sgf")
    total=$(python3 "$here/avi_damage.py" "$work/intact.avi" zero 999999 | cut -d' ' -f1)
    echo "intact video: $total frames, moves $want"
    # case: how, which frames, how many the log must count, what it says of the first
    for case in "zero 100 1 (frame 100," "garble 60-109 50 (frames 60-109," "zero 0-2 3 (frames 0-2,"; do
        set -- $case
        how=$1 which=$2 n=$3 first=$4
        cp "$work/intact.avi" "$work/b.avi"
        python3 "$here/avi_damage.py" "$work/b.avi" "$how" "$which" >/dev/null
        "$bin" record "$work/b.avi" -o "$work/b.sgf" --no-evidence --no-stdin --count-anyway >"$work/b.log" 2>&1
        rc=$?
        got=$(moves_of "$work/b.sgf")
        what="$how frames $which"
        [ $rc -eq 0 ] || { echo "FAIL: $what: exit $rc"; fail=1; }
        [ "$got" = "$want" ] || { echo "FAIL: $what: moves $got, the intact video has $want"; fail=1; }
        grep -q "\] $n frames\? could not be decoded $first" "$work/b.log" \
            || { echo "FAIL: $what: no note of $n skipped frames"; cat "$work/b.log"; fail=1; }
        grep -q "(end of input, $n broken frames\? skipped)" "$work/b.log" \
            || { echo "FAIL: $what: the summary does not count them"; tail -1 "$work/b.log"; fail=1; }
        grep -q 'RE\[' "$work/b.sgf" || { echo "FAIL: $what: the game was not counted (--count-anyway)"; fail=1; }
        echo "$what: exit $rc, $(grep -c '] move ' "$work/b.log") moves as intact, $(grep -o "$n frames\? could not be decoded[^:]*" "$work/b.log")"
    done
    # the last 5 frames broken: the moves before them kept, no count even
    # with --count-anyway (what was played there is unknown)
    cp "$work/intact.avi" "$work/b.avi"
    python3 "$here/avi_damage.py" "$work/b.avi" zero "$((total - 5))-$((total - 1))" >/dev/null
    "$bin" record "$work/b.avi" -o "$work/b.sgf" --no-evidence --no-stdin --count-anyway >"$work/b.log" 2>&1
    rc=$?
    got=$(moves_of "$work/b.sgf")
    [ $rc -eq 0 ] || { echo "FAIL: broken end: exit $rc"; fail=1; }
    case $want in "$got"*) ;; *) echo "FAIL: broken end: moves $got not the start of $want"; fail=1 ;; esac
    grep -q 'the last 5 frames of the .* could not be read' "$work/b.log" || { echo "FAIL: broken end not said"; cat "$work/b.log"; fail=1; }
    grep -q 'RE\[' "$work/b.sgf" && { echo "FAIL: broken end: counted anyway"; fail=1; }
    # nothing decodes: one line, exit 1
    cp "$work/intact.avi" "$work/b.avi"
    python3 "$here/avi_damage.py" "$work/b.avi" zero "0-$((total - 1))" >/dev/null
    out=$("$bin" record "$work/b.avi" -o "$work/n.sgf" --no-evidence --no-stdin 2>&1 </dev/null)
    rc=$?
    [ $rc -eq 1 ] || { echo "FAIL: no frame decodes: exit $rc"; fail=1; }
    [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && case $out in *"none of its $total frames can be decoded"*) true ;; *) false ;; esac \
        || { echo "FAIL: no frame decodes: $out"; fail=1; }
fi

# ---- kills ----------------------------------------------------------------
seq=$data/photos/gomrade/testing_sequence
if [ ! -f "$seq/0.jpg" ]; then echo "skipped: the kill cases ($seq absent)"; exit $fail; fi
if ! "$bin" check --help >/dev/null 2>&1; then echo "skipped: goscribe check not built"; exit $fail; fi
mkdir "$work/frames"
for i in $(seq 0 11); do ln -s "$seq/$i.jpg" "$work/frames/$i.jpg"; done
# Waits (at most 60 s) until the recorder has printed its start line, so the
# kill moments below count from a running recording, not from process start
# (which takes seconds under the sanitizers on a loaded machine).
wait_started() {
    for _ in $(seq 600); do
        grep -q 'start' "$work/out.txt" 2>/dev/null && return 0
        kill -0 "$1" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}
for delay_ms in 100 400 800 1200 1600; do
    rm -f "$work/game.sgf" "$work/out.txt"
    "$bin" record "$work/frames" -o "$work/game.sgf" --frame-delay 150 --no-evidence --no-stdin -q \
        > "$work/out.txt" 2>/dev/null &
    pid=$!
    wait_started "$pid" || echo "note: no start line before the kill"
    sleep "$(awk "BEGIN{print $delay_ms/1000}")"
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    printed=$(grep -o 'move [0-9]*:' "$work/out.txt" | tr -dc '0-9\n' | sort -n | tail -1)
    printed=${printed:-0}
    if [ ! -f "$work/game.sgf" ]; then
        if [ "$printed" -gt 0 ]; then echo "FAIL: killed at ${delay_ms} ms: no SGF but $printed moves printed"; fail=1; fi
        continue
    fi
    if ! "$bin" check "$work/game.sgf" > "$work/check.txt" 2>&1; then
        echo "FAIL: killed at ${delay_ms} ms: SGF does not parse:"; cat "$work/check.txt"; fail=1; continue
    fi
    moves=$(grep -o '[0-9]* moves' "$work/check.txt" | head -1 | tr -dc '0-9')
    moves=${moves:-0}
    echo "killed at ${delay_ms} ms: $printed moves printed, $moves in the SGF"
    if [ "$moves" -lt "$printed" ]; then echo "FAIL: the SGF lost committed moves"; fail=1; fi
    checked=$((checked + 1))
done
[ $checked -ge 3 ] || { echo "FAIL: only $checked kills left an SGF to check"; fail=1; }
# SIGINT finishes cleanly: exit 0, the SGF holds what was printed
rm -f "$work/game.sgf"
"$bin" record "$work/frames" -o "$work/game.sgf" --frame-delay 150 --no-evidence --no-stdin -q > "$work/out.txt" 2>&1 &
pid=$!
wait_started "$pid" || echo "note: no start line before SIGINT"
sleep 0.5
kill -INT "$pid"
wait "$pid"
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: SIGINT exit $rc"; fail=1; }
if grep -q 'no result after' "$work/out.txt"; then
    # a loaded machine let the recording reach its end before the signal
    echo "note: the recording ended before SIGINT came (a slow machine): stop line not checked"
else
    grep -q 'recording stopped' "$work/out.txt" || { echo "FAIL: no stop line after SIGINT"; cat "$work/out.txt"; fail=1; }
fi
"$bin" check "$work/game.sgf" >/dev/null 2>&1 || { echo "FAIL: SGF after SIGINT does not parse"; fail=1; }
ls "$work" | grep -q 'tmp-' && { echo "note: temp files left by SIGKILL: $(ls "$work" | grep tmp- | wc -l)"; }
exit $fail
