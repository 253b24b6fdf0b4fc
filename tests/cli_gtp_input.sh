#!/usr/bin/env bash
# `goscribe gtp` under hostile input: unknown commands, bad colours and
# vertices, control characters and NUL bytes, a 1 MB line, a last line
# without its newline, then the end of input: one well-formed response with
# its id for every command line, and the engine exits by itself.  A
# controller that goes away while a command waits for the board, and
# SIGINT in the middle of a wait, end the engine at once with the SGF valid.
#   usage: cli_gtp_input.sh GOSCRIBE DATA_DIR
set -u
bin=$1
root=$(cd "$(dirname "$0")/.." && pwd)
ctl=$root/tests/gtp_controller.py
fail=0
work=$(mktemp -d /tmp/gs-cli-gtp-input.XXXXXX)
pid=
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; fi; }

printf '(;GM[1]FF[4]SZ[9];B[ee];W[cc];B[gc];W[cg];B[gg];W[ce])\n' >"$work/g.sgf"
"$bin" render "$work/g.sgf" -o "$work/g.avi" --pace 2 --fps 8 --frame-size 320x240 --seed 5 --rotation 0 \
    >/dev/null 2>&1 || { echo "FAIL: render"; exit 1; }

python3 - "$work/input" <<'EOF'
import sys
lines = [
    b"1 protocol_version", b"2 frobnicate", b"3 play b Z99", b"4 play q D4", b"5 genmove",
    b"6 boardsize -5", b"7 komi NaN", b"8 " + b"x" * 1000000, b"9 na\x00me", b"\x80\xff\xfe 10 foo",
    b"11 known_command\tplay", b"   ", b"# a comment", b"12 play b", b"13 name\r", b"\x01\x02\x03",
    b"14 final_status_list sometimes", b"15 undo", b"16 " + b"9" * 30, b"17 showboard # comment",
    b"18 loadsgf /nonexistent/x.sgf", b"19 genmove b", b"20 version",
]
open(sys.argv[1], "wb").write(b"\n".join(lines))  # the last line has no newline
EOF
python3 "$ctl" raw "$work/input" -- "$bin" gtp "$work/g.avi" -o "$work/raw.sgf" --no-evidence \
    >"$work/raw.out" 2>"$work/raw.err"
check "hostile input: every command answered, ids echoed, exit by itself" '[ $? -eq 0 ]'
grep FAIL "$work/raw.out"

# the controller goes away while loadsgf waits for a position the board never shows
printf '(;GM[1]FF[4]SZ[9];B[aa];W[ii])\n' >"$work/never.sgf"
python3 "$ctl" hangup "loadsgf $work/never.sgf" -- "$bin" gtp "$work/g.avi" -o "$work/h.sgf" --frame-delay 300 \
    --no-evidence >"$work/h.out" 2>"$work/h.err"
check "controller gone: the engine exits" '[ $? -eq 0 ]'
grep FAIL "$work/h.out"
check "controller gone: said so" 'grep -q "ended by output closed" "$work/h.err"'

# SIGINT while genmove waits: a clean stop
mkfifo "$work/in"
"$bin" gtp "$work/g.avi" -o "$work/s.sgf" --frame-delay 300 --no-evidence <"$work/in" >"$work/s.out" 2>"$work/s.err" &
pid=$!
exec 3>"$work/in"
printf '1 genmove w\n2 genmove w\n' >&3
# the board is seen (the SGF exists), no White stone yet: waited for, up
# to 30 s (a loaded machine under the sanitizers starts slowly)
for _ in $(seq 300); do [ -s "$work/s.sgf" ] && break; sleep 0.1; done
sleep 0.5
kill -INT "$pid"
for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
check "SIGINT: the engine stopped within 5 s" '! kill -0 "$pid" 2>/dev/null'
wait "$pid" 2>/dev/null
pid=
exec 3>&-
check "SIGINT: the waiting genmove answered" 'grep -q "^?[12] interrupted" "$work/s.out"'
check "SIGINT: said so" 'grep -q "ended by SIGINT" "$work/s.err"'
check "SIGINT: the SGF is valid" '"$bin" check "$work/s.sgf" >/dev/null'
exit $fail
