#!/usr/bin/env bash
# tests/cli_render.sh: `goscribe render` from the command line: errors are one
# line with exit 1, a small render writes frames and the truth.
set -u
bin=$1
root=$(cd "$(dirname "$0")/.." && pwd)
classic=$root/samples/games/classic.sgf
tmp=$(mktemp -d)
. "$(dirname "$0")/sgf_corpus.sh"
trap 'keep_all_sgf "$tmp" cli_render; rm -rf "$tmp"' EXIT
fail=0
pass=0
check() {  # check NAME WANT_EXIT CMD...  (errors must be one line)
    local name=$1 want=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" != "$want" ]; then
        echo "FAIL $name: exit $rc, wanted $want"; cat "$tmp/err"; fail=$((fail + 1)); return
    fi
    if [ "$want" != 0 ] && [ "$(wc -l <"$tmp/err")" != 1 ]; then
        echo "FAIL $name: stderr is not one line:"; cat "$tmp/err"; fail=$((fail + 1)); return
    fi
    pass=$((pass + 1))
}

check help 0 "$bin" render --help
check missing-sgf 1 "$bin" render "$tmp/nope.sgf" -o "$tmp/o1"
check no-output 1 "$bin" render "$classic"
check bad-size 1 "$bin" render "$classic" -o "$tmp/o2" --frame-size 12xfoo
check tiny-size 1 "$bin" render "$classic" -o "$tmp/o2" --frame-size 10x10
check bad-option 1 "$bin" render "$classic" -o "$tmp/o2" --frobnicate
check bad-violation 1 "$bin" render "$classic" -o "$tmp/o2" --violate teleport
check bad-tilt 1 "$bin" render "$classic" -o "$tmp/o2" --tilt 89
check unwritable-dir 1 "$bin" render "$classic" -o /proc/goscribe-no/frames --moves 2 --frame-size 160x120
check unwritable-video 1 "$bin" render "$classic" -o /proc/goscribe-no/out.mp4 --moves 2 --frame-size 160x120
echo "garbage (;SZ[19];B[zz" >"$tmp/bad.sgf"
check broken-sgf 1 "$bin" render "$tmp/bad.sgf" -o "$tmp/o3"
echo "(;GM[1]FF[4]SZ[19])" >"$tmp/nomoves.sgf"
check no-moves 2 "$bin" render "$tmp/nomoves.sgf" -o "$tmp/o3"
touch "$tmp/afile"
check output-is-file 1 "$bin" render "$classic" -o "$tmp/afile" --moves 2 --frame-size 160x120

# a small render to PNG frames: files, one truth line per frame
check frames 0 "$bin" render "$classic" -o "$tmp/f" --moves 4 --frame-size 160x120 --fps 8 --pace 3 --seed 5 --violate double_move
n=$(ls "$tmp/f"/frame_*.png 2>/dev/null | wc -l)
lines=$(wc -l <"$tmp/f/truth.jsonl" 2>/dev/null || echo 0)
if [ "$n" -lt 5 ] || [ "$n" != "$lines" ]; then echo "FAIL frames: $n frames, $lines truth lines"; fail=$((fail + 1)); else pass=$((pass + 1)); fi
if ! grep -q '"type":"double_move"' "$tmp/f/truth.jsonl"; then echo "FAIL: double_move not in the truth"; fail=$((fail + 1)); else pass=$((pass + 1)); fi
if ! grep -q 'GSEV\[double_move' "$tmp/f/truth.sgf"; then echo "FAIL: double_move not in the truth SGF"; fail=$((fail + 1)); else pass=$((pass + 1)); fi
if ! grep -q '^corners' "$tmp/f/truth.cal"; then echo "FAIL: no truth.cal"; fail=$((fail + 1)); else pass=$((pass + 1)); fi
# the truth SGF is a game the project itself reads back
check truth-sgf-reads 0 "$bin" render "$tmp/f/truth.sgf" -o "$tmp/f2" --frame-size 160x120 --frames 2
# same seed, same frames
check frames-again 0 "$bin" render "$classic" -o "$tmp/g" --moves 4 --frame-size 160x120 --fps 8 --pace 3 --seed 5 --violate double_move
if ! cmp -s "$tmp/f/frame_000007.png" "$tmp/g/frame_000007.png" || ! cmp -s "$tmp/f/truth.jsonl" "$tmp/g/truth.jsonl"; then
    echo "FAIL: same seed gave different output"; fail=$((fail + 1)); else pass=$((pass + 1)); fi

# a small video
check video 0 "$bin" render "$classic" -o "$tmp/v.mp4" --moves 2 --frame-size 160x120 --fps 10 --pace 3 -q
if [ -s "$tmp/err" ]; then echo "note: the video library said:"; cat "$tmp/err"; fi
if [ ! -s "$tmp/v.mp4" ] || [ ! -s "$tmp/v.truth.jsonl" ] || [ ! -s "$tmp/v.truth.sgf" ]; then
    echo "FAIL video: missing output"; ls -l "$tmp"; fail=$((fail + 1)); else pass=$((pass + 1)); fi

# a drifting camera: the truth corners follow it; nonsense is refused
check drift 0 "$bin" render "$classic" -o "$tmp/d" --moves 2 --frame-size 160x120 --fps 8 --pace 3 --drift 30
first=$(head -1 "$tmp/d/truth.jsonl" | grep -o '"corners":[^]]*]')
last=$(tail -1 "$tmp/d/truth.jsonl" | grep -o '"corners":[^]]*]')
if [ -z "$first" ] || [ "$first" = "$last" ]; then echo "FAIL drift: corners did not move ($first / $last)"; fail=$((fail + 1)); else pass=$((pass + 1)); fi
check drift-bad 1 "$bin" render "$classic" -o "$tmp/d2" --moves 2 --frame-size 160x120 --drift abc

# an output that is neither a video nor a folder name is refused, nothing made
check bad-extension 1 "$bin" render "$classic" -o "$tmp/x.xyz" --moves 2 --frame-size 160x120
if [ -e "$tmp/x.xyz" ] || ! grep -q "unknown extension .xyz" "$tmp/err"; then
    echo "FAIL bad-extension: $(cat "$tmp/err")"; fail=$((fail + 1)); else pass=$((pass + 1)); fi
# progress on stderr, none with -q
"$bin" render "$classic" -o "$tmp/p" --moves 2 --frame-size 160x120 --fps 8 --pace 3 > /dev/null 2> "$tmp/perr"
if ! grep -q "^render: 100% (frame" "$tmp/perr"; then echo "FAIL progress: $(cat "$tmp/perr")"; fail=$((fail + 1)); else pass=$((pass + 1)); fi
"$bin" render "$classic" -o "$tmp/p" --moves 2 --frame-size 160x120 --fps 8 --pace 3 -q > /dev/null 2> "$tmp/perr"
if [ -s "$tmp/perr" ]; then echo "FAIL -q: $(cat "$tmp/perr")"; fail=$((fail + 1)); else pass=$((pass + 1)); fi

check bench-help 0 "$bin" bench render --help
check bench-bad 1 "$bin" bench render --frame-size 1x1
echo "cli_render: $pass passed, $fail failed"
[ "$fail" = 0 ]
