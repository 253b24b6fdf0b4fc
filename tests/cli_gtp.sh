#!/usr/bin/env bash
# `goscribe gtp`: option errors, then a rendered 9x9 game of 24 moves driven
# by a scripted GTP controller (tests/gtp_controller.py): genmove answers
# Black's moves as the camera sees them while play feeds White's; at move 12
# the controller asks White J1 where the board shows H3: refused with what
# the board shows, on stderr and in the SGF; both pass, the recording ends,
# and final_score equals `goscribe count --dead auto` of the recorded SGF
# (the dead-stone estimate: nobody lifted the dead stones).  Then the
# colours the other way with the video read at full speed (the board ahead
# of the controller: every answer from the record at once).
#   usage: cli_gtp.sh GOSCRIBE DATA_DIR
set -u
bin=$1
root=$(cd "$(dirname "$0")/.." && pwd)
ctl=$root/tests/gtp_controller.py
fail=0
work=$(mktemp -d /tmp/gs-cli-gtp.XXXXXX)
trap 'rm -rf "$work"' EXIT
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; fi; }

"$bin" gtp --help | grep -q -- '--move-timeout SEC' || { echo "FAIL: gtp --help"; fail=1; }
"$bin" gtp 2>/dev/null </dev/null; check "no source: exit 1" '[ $? -eq 1 ]'
"$bin" gtp /nonexistent/x.mp4 -o "$work/x.sgf" 2>/dev/null </dev/null; check "missing video: exit 1" '[ $? -eq 1 ]'
for bad in "--move-timeout abc" "--move-timeout -1" "--move-timeout" "--serve 0" "--final x.txt" "--bogus"; do
    # shellcheck disable=SC2086
    out=$("$bin" gtp /nonexistent/x.mp4 -o "$work/x.sgf" $bad 2>&1 </dev/null); rc=$?
    check "gtp $bad: exit 1" '[ $rc -eq 1 ]'
    check "gtp $bad: one line" '[ "$(printf "%s\n" "$out" | wc -l)" -eq 1 ]'
done

# the game (moves by GNU Go on 9x9), and the same with passes after it so
# that the video lasts while the controller's passes come in
moves=';B[gd];W[cc];B[ec];W[gg];B[cf];W[dd];B[eg];W[he];B[hd];W[db];B[hf];W[hg];B[ge];W[fb];B[hb];W[fh];B[eh];W[be];B[bf];W[ff];B[fg];W[gi];B[gf];W[hh]'
printf '(;GM[1]FF[4]SZ[9]KM[7]%s)\n' "$moves" >"$work/game.sgf"
printf '(;GM[1]FF[4]SZ[9]KM[7]%s;B[];W[];B[];W[];B[];W[])\n' "$moves" >"$work/render.sgf"
"$bin" render "$work/render.sgf" -o "$work/g.avi" --pace 2 --fps 8 --frame-size 320x240 --seed 3 --rotation 0 \
    >/dev/null 2>&1 || { echo "FAIL: render"; exit 1; }

python3 "$ctl" play-game --sgf "$work/game.sgf" --genmove B --wrong 12:J1 --passes --wait-end 60 \
    --transcript "$work/t1.txt" -- "$bin" gtp "$work/g.avi" -o "$work/rec.sgf" --komi 7 --frame-delay 10 \
    --no-evidence --black "Ann,3k" --white Bob >"$work/out1" 2>"$work/err1"
check "controller, genmove Black / play White: exit 0" '[ $? -eq 0 ]'
grep FAIL "$work/out1"
check "transcript well-formed" 'python3 "$ctl" check "$work/t1.txt" >/dev/null'
check "misplaced stone on stderr" 'grep -q "GTP play W J1 asked for move 12: the board shows White H3 instead" "$work/err1"'
check "misplaced stone in the SGF" 'grep -q "C\[GTP play W J1 asked for move 12: the board shows White H3 instead\]" "$work/rec.sgf"'
check "the players' names and rank in the SGF's root" 'grep -q "PB\[Ann\]" "$work/rec.sgf" && grep -q "BR\[3k\]" "$work/rec.sgf" && grep -q "PW\[Bob\]" "$work/rec.sgf" && ! grep -q "WR\[" "$work/rec.sgf"'
check "24 moves and two passes recorded" '[ "$(grep -o ";[BW]\[[a-s]*\]" "$work/rec.sgf" | wc -l)" -eq 26 ]'
# final_score counts the dead stones as `goscribe count` estimates them
# (nobody lifted any: the record's own count keeps them alive), and says so
score=$(sed -n 's/^final_score //p' "$work/out1")
want=$("$bin" count --dead auto --json "$work/rec.sgf" 2>/dev/null | python3 -c 'import json, sys; print(json.load(sys.stdin)["result"])')
check "final_score ($score) = count --dead auto of the recorded SGF ($want)" '[ -n "$score" ] && [ "$score" = "$want" ]'
check "final_score's basis said on stderr" 'grep -q "goscribe gtp: final_score $score.*dead-stone estimate" "$work/err1"'

python3 "$ctl" play-game --sgf "$work/game.sgf" --genmove W --transcript "$work/t2.txt" -- \
    "$bin" gtp "$work/g.avi" -o "$work/rec2.sgf" --komi 7 --no-evidence >"$work/out2" 2>"$work/err2"
check "controller, genmove White / play Black, board ahead: exit 0" '[ $? -eq 0 ]'
grep FAIL "$work/out2"
check "second transcript well-formed" 'python3 "$ctl" check "$work/t2.txt" >/dev/null'
# an operator's pass through --operator (a FIFO) while stdin speaks GTP
mkfifo "$work/in" "$work/op"
"$bin" gtp "$work/g.avi" -o "$work/op.sgf" --operator "$work/op" --frame-delay 150 --no-evidence \
    <"$work/in" >"$work/op.out" 2>"$work/op.err" &
pid=$!
exec 3>"$work/in" 4>"$work/op"
printf '1 genmove b\n' >&3
for _ in $(seq 100); do grep -q "^=1" "$work/op.out" && break; sleep 0.05; done
printf 'pass W\n' >&4
printf '2 genmove w\n3 quit\n' >&3
exec 3>&- 4>&-
for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill "$pid" 2>/dev/null
wait "$pid"
check "operator: exit 0" '[ $? -eq 0 ]'
check "operator: Black's move, then White's pass" 'grep -q "^=1 G6$" "$work/op.out" && grep -q "^=2 pass$" "$work/op.out"'
check "operator: the pass in the SGF" 'grep -q ";W\[\]" "$work/op.sgf"'

if [ "$fail" -ne 0 ]; then tail -n 5 "$work/err1" "$work/err2" "$work/op.err"; fi
exit $fail
