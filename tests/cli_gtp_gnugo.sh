#!/usr/bin/env bash
# `goscribe gtp` paired with GNU Go over GTP: GNU Go plays itself a 24-move
# 9x9 game (two instances, each told the other's moves with play: what the
# bridge will say to it), the game is rendered, then the test suite's
# controller pairs goscribe (Black: the person at the rendered board) with
# a fresh GNU Go (White): every response of both programs is well-formed
# with its id echoed, GNU Go's moves are each confirmed on the board, and
# the recorded SGF is the game.  Then the bridge script for people,
# scripts/gtp-bridge.py, runs the same pairing.  Skipped without gnugo
# (Debian package gnugo).
#   usage: cli_gtp_gnugo.sh GOSCRIBE DATA_DIR
set -u
bin=$1
root=$(cd "$(dirname "$0")/.." && pwd)
ctl=$root/tests/gtp_controller.py
gnugo=$(command -v gnugo || { [ -x /usr/games/gnugo ] && echo /usr/games/gnugo; })
if [ -z "$gnugo" ]; then echo "skipped: gnugo absent (Debian package gnugo)"; exit 0; fi
fail=0
work=$(mktemp -d /tmp/gs-cli-gtp-gnugo.XXXXXX)
trap 'rm -rf "$work"' EXIT
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; fi; }
engine="$gnugo --mode gtp --level 1 --seed 5"

# shellcheck disable=SC2086
python3 "$ctl" selfplay --size 9 --komi 7 --moves 24 -o "$work/game.sgf" -- $engine >/dev/null ||
    { echo "FAIL: GNU Go self-play"; exit 1; }
sed 's/)$/;B[];W[];B[];W[])/' "$work/game.sgf" >"$work/render.sgf"
"$bin" render "$work/render.sgf" -o "$work/g.avi" --pace 2 --fps 8 --frame-size 320x240 --seed 4 --rotation 0 \
    >/dev/null 2>&1 || { echo "FAIL: render"; exit 1; }
moves() { grep -o ";[BW]\[[a-s]*\]" "$1" | tr -d '\n'; }

python3 "$ctl" match --moves 24 --size 9 --komi 7 --transcript "$work/t.txt" --engine "$engine" -- \
    "$bin" gtp "$work/g.avi" -o "$work/rec.sgf" --komi 7 --frame-delay 3 --no-evidence >"$work/out" 2>"$work/err"
check "match: exit 0" '[ $? -eq 0 ]'
grep FAIL "$work/out"
check "transcript: every response well-formed, ids echoed" 'python3 "$ctl" check "$work/t.txt"'
check "transcript holds both programs" 'grep -q "^> goscribe " "$work/t.txt" && grep -q "^> gnugo " "$work/t.txt"'
check "GNU Go's moves all confirmed on the board" 'grep -q "^mismatches 0$" "$work/out"'
check "final scores answered" 'grep -Eq "^final_score goscribe [BW]\+[0-9.]+ gnugo [BW]\+[0-9.]+$" "$work/out"'
check "the recorded SGF is the game" '[ -n "$(moves "$work/game.sgf")" ] && [ "$(moves "$work/rec.sgf")" = "$(moves "$work/game.sgf")" ]'

# the bridge for people, without a person at the terminal
python3 "$root/scripts/gtp-bridge.py" --person B --size 9 --komi 7 --max-moves 24 --no-prompt \
    --engine "$engine" --transcript "$work/b.txt" -- "$bin" gtp "$work/g.avi" -o "$work/b.sgf" --komi 7 \
    --frame-delay 3 --no-evidence >"$work/b.out" 2>"$work/b.err"
check "bridge: exit 0" '[ $? -eq 0 ]'
check "bridge: shows GNU Go's moves to the person" 'grep -q "gnugo plays White [A-J][1-9]: place it on the board" "$work/b.out"'
check "bridge: game to its end" 'grep -q "game over: 24 moves played" "$work/b.out"'
check "bridge transcript well-formed" 'python3 "$ctl" check "$work/b.txt" >/dev/null'
check "bridge: the recorded SGF is the game" '[ "$(moves "$work/b.sgf")" = "$(moves "$work/game.sgf")" ]'
if [ "$fail" -ne 0 ]; then tail -n 5 "$work/err" "$work/b.err"; fi
exit $fail
