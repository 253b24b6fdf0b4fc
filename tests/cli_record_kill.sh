#!/usr/bin/env bash
# What an unlucky recording survives.  Broken frames: a rendered MJPEG AVI
# with frames zeroed or garbled (1 in the middle, 50 in a row, the first
# 3) records every move the intact file records, the skipped frames noted
# with their time and counted, exit 0; a broken end keeps the moves but no
# count; a file no frame of which decodes is one line, exit 1.  Kills:
# `goscribe record` killed (SIGKILL) at several moments of a slow
# recording leaves an SGF that parses and holds every move the recorder
# had printed (a move is printed only after it is on disk); SIGINT stops
# cleanly with the SGF complete.  Then a full disk (a folder given a
# capacity by tests/drivers/full_disk.c): no committed move is lost,
# evidence gives way to the SGF.
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
elif ! "$bin" render "$work/g9.sgf" -o "$work/intact.avi" --pace 1.5 --fps 8 --frame-size 640x360 --seed 2 >/dev/null 2>&1; then
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
        # 3: its count is not sure (the game goes on: --count-anyway counts it
        # as it stands and says so)
        [ $rc -eq 3 ] && grep -q "NOT SURE: Score:" "$work/b.log" || { echo "FAIL: $what: exit $rc"; fail=1; }
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

# ---- a full disk: tests/drivers/full_disk.c gives the folder $work/disk a
# capacity (LD_PRELOAD: no root, no mount).  The SGF comes first: evidence
# gives way, a save that fails goes to the fallback copy, the recording
# goes on, and nothing printed is lost.
shim=$(dirname "$bin")/libgs_full_disk.so
if [ ! -f "$shim" ]; then
    echo "note: disk-full cases skipped: $shim not built"
    exit $fail
fi
# (the shim is loaded before a sanitized binary's runtime, on purpose)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
moves_of() { # moves in an SGF per `goscribe check`, -1 when it does not parse
    if [ -f "$1" ] && "$bin" check "$1" > "$work/check.txt" 2>&1; then
        grep -o '[0-9]* moves' "$work/check.txt" | head -1 | tr -dc '0-9'
    else
        echo -1
    fi
}
printed_max() { grep -o 'move [0-9]*:' "$1" | tr -dc '0-9\n' | sort -n | tail -1; }
# every evidence a line names is on disk, every PNG there is whole
evidence_sound() {
    local what=$1 p f ok=0
    while IFS= read -r p; do
        [ -f "$p-after.png" ] || { echo "FAIL: $what: a line names $p-*.png, not on disk"; ok=1; }
    done < <(grep -o '(evidence [^ ]*-\*\.png)' "$work/out.txt" | sed 's/^(evidence //; s/-\*\.png)$//')
    for f in "$work"/disk/game.evidence/*.png; do
        [ -f "$f" ] || continue
        [ "$(tail -c 8 "$f" | od -An -tx1 | tr -d ' \n')" = 49454e44ae426082 ] ||
            { echo "FAIL: $what: $f is not a whole PNG"; ok=1; }
    done
    return $ok
}
# record DISK_BYTES [options]: the photos recorded into $work/disk/game.sgf
record_small() {
    local cap=$1
    shift
    rm -rf "$work/disk" "$work/fb"
    mkdir "$work/disk" "$work/fb"
    LD_PRELOAD=$shim GS_FULL_DIR=$work/disk GS_FULL_BYTES=$cap "$bin" record "$work/frames" \
        -o "$work/disk/game.sgf" --fallback "$work/fb" --no-stdin -q "$@" > "$work/out.txt" 2> "$work/err.txt"
}
# the reference: room enough
record_small 1000000000
ref_rc=$?
ref_moves=$(moves_of "$work/disk/game.sgf")
ref_size=$(stat -c %s "$work/disk/game.sgf" 2>/dev/null || echo 0)
first=$(grep -o '(evidence [^ ]*-\*\.png)' "$work/out.txt" | head -1 | sed 's/^(evidence //; s/-\*\.png)$//')
set_bytes=$(cat "$first"-* "$first".txt 2>/dev/null | wc -c)
echo "disk-full reference: exit $ref_rc, $ref_moves moves, SGF $ref_size bytes, first evidence $set_bytes bytes"
if [ "$ref_rc" -ne 0 ] || [ "$ref_moves" -le 0 ] || [ "$set_bytes" -le 0 ]; then
    echo "FAIL: the reference recording (no limit) did not give a game with evidence"; cat "$work/err.txt"; exit 1
fi

# 1. room for one evidence set and the SGF: the first set is kept, later
# ones give way (noted), the SGF gets every move, exit 0
record_small $((set_bytes + 512 * 1024))
rc=$?
m=$(moves_of "$work/disk/game.sgf")
dropped=$(grep -c 'not kept' "$work/out.txt")
echo "disk of one evidence set + 512 KiB: exit $rc, $m moves in the SGF, $dropped evidence sets not kept"
[ $rc -eq 0 ] || { echo "FAIL: exit $rc"; cat "$work/err.txt"; fail=1; }
[ "$m" = "$ref_moves" ] || { echo "FAIL: the SGF holds $m moves, not $ref_moves"; fail=1; }
[ "$dropped" -ge 1 ] || { echo "FAIL: no evidence gave way"; fail=1; }
grep -q 'not saved' "$work/out.txt" && { echo "FAIL: evidence took the SGF's room"; grep 'not saved' "$work/out.txt" | head -2; fail=1; }
grep -q '(evidence ' "$work/out.txt" || { echo "FAIL: not even the first evidence set was kept"; fail=1; }
evidence_sound "one set" || fail=1

# 1b. room for the first evidence set and the SGF once, not for both with
# the SGF's rewrite: the set would fit, but writing it would take the room
# the SGF needs; it gives way, the SGF gets every move
record_small $((set_bytes + ref_size))
rc=$?
m=$(moves_of "$work/disk/game.sgf")
echo "disk of the first evidence set + the SGF: exit $rc, $m moves in the SGF, $(grep -c 'not kept' "$work/out.txt") evidence sets not kept"
[ $rc -eq 0 ] || { echo "FAIL: exit $rc"; cat "$work/err.txt"; fail=1; }
[ "$m" = "$ref_moves" ] || { echo "FAIL: the SGF holds $m moves, not $ref_moves"; fail=1; }
grep -q 'not saved' "$work/out.txt" && { echo "FAIL: evidence took the SGF's room"; fail=1; }
evidence_sound "set + SGF" || fail=1

# 2. the disk fills in the middle of the game (room for the final SGF
# once, not for its rewrite): every later move says "not saved", the copy
# holds the whole game, the run fails naming it
record_small "$ref_size"
rc=$?
m=$(moves_of "$work/disk/game.sgf")
fb_moves=$(moves_of "$work/fb/game.fallback.sgf")
notes=$(grep -c 'not saved: disk full' "$work/out.txt")
printed=$(printed_max "$work/out.txt")
echo "disk of $ref_size bytes: exit $rc, $m moves in the SGF, $fb_moves in the fallback copy, $notes \"not saved\" lines, $printed printed"
echo "  $(tail -1 "$work/err.txt")"
[ $rc -ne 0 ] || { echo "FAIL: a failed final save exited 0"; fail=1; }
grep -q "not saved: disk full.*$work/fb/game.fallback.sgf" "$work/err.txt" || { echo "FAIL: the error does not name the fallback copy"; cat "$work/err.txt"; fail=1; }
[ "$fb_moves" = "$ref_moves" ] || { echo "FAIL: the fallback copy holds $fb_moves moves, not $ref_moves"; fail=1; }
[ "$m" -ge 0 ] || { echo "FAIL: the SGF on the full disk does not parse"; fail=1; }
[ "$notes" -ge 2 ] || { echo "FAIL: $notes \"not saved\" lines"; fail=1; }
ls "$work/disk" | grep -q 'tmp-' && { echo "FAIL: a temp file left on the full disk"; fail=1; }
evidence_sound "full disk" || fail=1
keep_sgf "$work/fb/game.fallback.sgf" cli_record_kill-fallback

# 3. killed while the disk is full: every printed move is in the SGF or
# the copy, both valid
rm -rf "$work/disk" "$work/fb" "$work/out.txt"
mkdir "$work/disk" "$work/fb"
LD_PRELOAD=$shim GS_FULL_DIR=$work/disk GS_FULL_BYTES=$ref_size "$bin" record "$work/frames" \
    -o "$work/disk/game.sgf" --fallback "$work/fb" --no-stdin -q --frame-delay 150 > "$work/out.txt" 2>/dev/null &
pid=$!
for _ in $(seq 600); do
    grep -q 'not saved' "$work/out.txt" 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
done
sleep 0.3
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
m=$(moves_of "$work/disk/game.sgf")
fb_moves=$(moves_of "$work/fb/game.fallback.sgf")
printed=$(printed_max "$work/out.txt")
printed=${printed:-0}
best=$(( m > fb_moves ? m : fb_moves ))
echo "killed on a full disk: $printed moves printed, $m in the SGF, $fb_moves in the fallback copy"
grep -q 'not saved' "$work/out.txt" || echo "note: killed before the disk was full"
[ "$best" -ge "$printed" ] || { echo "FAIL: printed moves lost"; fail=1; }
[ "$m" -ge 0 ] || { echo "FAIL: the SGF on the full disk does not parse after the kill"; fail=1; }
exit $fail
