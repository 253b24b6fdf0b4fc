#!/bin/bash
# tests/http_probes.sh GOSCRIBE HTTP_PROBE: hostile clients against the real
# servers, `goscribe hall` and `goscribe record --serve` (while it records a
# rendered game, announced to the hall), over loopback:
#   - ~75 malformed requests each: only 4xx/505 (or, for what is not HTTP at
#     all, a closed connection), and the server answers afterwards;
#   - the rules: a foreign Host header 421 (DNS rebinding), no token or a
#     wrong one 403, the token in the URL 403, a body that is not
#     application/json 415, the same requests done right 200;
#   - a socket trickling a header line every second is closed by the
#     absolute request deadline (10 s), not kept open line after line;
#   - 300 trickling sockets, from 30 addresses and then from one, do not
#     lock out a real client (every one of its requests answered 200);
#   - the recorder's frame rate at full speed without and with 300
#     trickling sockets, printed (scripts/load-record-serve.sh, with longer
#     runs, for the figure; this checks only that the attack does not
#     stall it).
# Skips without libmicrohttpd.  Takes about 40 s (50 s under the sanitizers).
#   usage: http_probes.sh GOSCRIBE HTTP_PROBE
set -u
bin=${1:?usage: http_probes.sh GOSCRIBE HTTP_PROBE}
probe=${2:?usage: http_probes.sh GOSCRIBE HTTP_PROBE}
fail=0
work=$(mktemp -d "${TMPDIR:-/tmp}/gs-http-probes.XXXXXX") || exit 1
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; fi; }
# runs the probe, shows what it printed, counts a failure
run_probe() {
    local what=$1
    shift
    echo "--- $what"
    "$probe" "$@" >"$work/probe.out" 2>&1
    local rc=$?
    sed 's/^/  /' "$work/probe.out"
    [ $rc -eq 0 ] || { echo "FAIL: $what (exit $rc)"; fail=1; }
}
# waits for a line matching the sed expression in a file; prints the match
wait_line() {
    local file=$1 expr=$2 got=
    for _ in $(seq 100); do
        got=$(sed -n "$expr" "$file" | head -1)
        [ -n "$got" ] && break
        sleep 0.1
    done
    printf '%s' "$got"
}
ulimit -n 4096 2>/dev/null || true

# --- the hall --------------------------------------------------------------
"$bin" hall --serve 127.0.0.1:0 --poll-ms 500 >"$work/hall.out" 2>&1 &
pids+=($!)
hall=$(wait_line "$work/hall.out" 's#^goscribe hall: \(http://127\.0\.0\.1:[0-9]*\)/ .*#\1#p')
if [ -z "$hall" ] && grep -q "libmicrohttpd" "$work/hall.out"; then
    echo "skipped: libmicrohttpd absent"
    exit 0
fi
htok=$(wait_line "$work/hall.out" 's#^goscribe hall: announce token \([0-9a-f]*\) .*#\1#p')
check "hall printed its address and a 32-digit token" '[ -n "$hall" ] && [ ${#htok} -eq 32 ]'
[ -n "$hall" ] && [ -n "$htok" ] || { cat "$work/hall.out"; exit 1; }

# --- a recorder, announced to the hall --------------------------------------
printf '(;GM[1]FF[4]SZ[9]KM[7];B[ee];W[cc];B[gc];W[cg];B[gg];W[ce];B[eg];W[dd];B[ec];W[fe];B[ge];W[dg])\n' >"$work/g9.sgf"
"$bin" render "$work/g9.sgf" -o "$work/g.avi" --pace 1 --fps 15 --frame-size 400x225 --seed 2 >/dev/null 2>&1 ||
    { echo "FAIL: render"; exit 1; }
"$bin" record "$work/g.avi" -o "$work/x.sgf" --serve 127.0.0.1:0 --hall "$hall" --no-stdin </dev/null 2>"$work/nohtok"
check "record --hall without --hall-token: exit 1 (got $?)" '[ $? -eq 1 ]'
check "record --hall without --hall-token says why" 'grep -q "hall-token" "$work/nohtok"'
# paced so that it records for ~20 s, while most probes run
"$bin" record "$work/g.avi" -o "$work/game.sgf" --serve 127.0.0.1:0 --token abcdefgh12345678 --board-name "Probe table" \
    --hall "$hall" --hall-token "$htok" --frame-delay 25 --no-stdin --linger 60 -q >"$work/rec.out" 2>"$work/rec.err" &
pids+=($!)
rec=$(wait_line "$work/rec.err" 's#^goscribe record: live \(http://127\.0\.0\.1:[0-9]*\)/$#\1#p')
check "recorder printed its address" '[ -n "$rec" ]'
[ -n "$rec" ] || { cat "$work/rec.err"; exit 1; }
listed=
for _ in $(seq 80); do
    if command -v curl >/dev/null && curl -s "$hall/state.json" | grep -q '"board":"Probe table"'; then listed=yes; break; fi
    sleep 0.1
done
command -v curl >/dev/null && check "the recorder announced itself with the hall's token" '[ -n "$listed" ]'

# the deadline probes run beside those that do not crowd the servers (a
# crowd would close the oldest waiting socket, theirs, before its deadline)
"$probe" deadline "$hall" --max-seconds 14 >"$work/dl.hall" 2>&1 &
dl_hall=$!
"$probe" deadline "$rec" --max-seconds 14 >"$work/dl.rec" 2>&1 &
dl_rec=$!
run_probe "hall: malformed requests" malformed "$hall" --kind hall --token "$htok"
run_probe "recorder: malformed requests" malformed "$rec" --kind board --token abcdefgh12345678
run_probe "hall: Host, token, content type" checks "$hall" --kind hall --token "$htok"
run_probe "recorder: Host, token, content type" checks "$rec" --kind board --token abcdefgh12345678
run_probe "hall: 300 trickling sockets from one address" trickle "$hall" --sockets 300 --sources 1 --seconds 3
run_probe "recorder: 300 trickling sockets from one address" trickle "$rec" --sockets 300 --sources 1 --seconds 3
for p in hall rec; do
    if [ $p = hall ]; then wait $dl_hall; else wait $dl_rec; fi
    rc=$?
    echo "--- $p: request deadline"
    sed 's/^/  /' "$work/dl.$p"
    [ $rc -eq 0 ] || { echo "FAIL: $p: request deadline"; fail=1; }
done
run_probe "hall: 300 trickling sockets from 30 addresses" trickle "$hall" --sockets 300 --sources 30 --seconds 5
run_probe "recorder: 300 trickling sockets from 30 addresses" trickle "$rec" --sockets 300 --sources 30 --seconds 5

# --- the recorder's rate, at full speed, without and with the attack --------
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
rate() {  # prints frames/s of one full-speed recording served on $port
    local t0 t1 frames
    t0=$(date +%s.%N)
    "$bin" record "$work/g.avi" -o "$work/rate.sgf" --serve "127.0.0.1:$port" --no-evidence --no-stdin \
        </dev/null 2>"$work/rate.err" >/dev/null
    t1=$(date +%s.%N)
    frames=$(sed -n 's/.* from \([0-9]*\) frames .*/\1/p' "$work/rate.err")
    python3 -c "print('%.0f' % (${frames:-0} / ($t1 - $t0)))"
}
# three runs of each (one under the sanitizers, where it is slow)
runs="1 2 3"
[ -n "${GS_SANITIZED:-}" ] && runs=1
base=() att=()
for _ in $runs; do base+=("$(rate)"); done
"$probe" trickle "http://127.0.0.1:$port" --sockets 300 --sources 30 --seconds 30 >/dev/null 2>&1 &
tp=$!
pids+=($tp)
sleep 0.5
for _ in $runs; do att+=("$(rate)"); done
kill $tp 2>/dev/null
median() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }
b=$(median "${base[@]}") a=$(median "${att[@]}")
frames=$(sed -n 's/.* from \([0-9]*\) frames .*/\1/p' "$work/rate.err")
echo "--- recorder frame rate at full speed, served (median of ${#base[@]} runs of $frames frames)"
echo "  without an attack: $b frames/s (${base[*]}); with 300 trickling sockets: $a frames/s (${att[*]})"
# only a stall is a failure here (a recorder waiting on the network would
# crawl); short runs on a shared 2-core machine vary by 2x either way
check "the attack does not stall the recorder ($a vs $b frames/s)" '[ "$a" -gt 0 ] && [ $((a * 8)) -ge "$b" ]'

check "no sanitizer report" '! grep -q "Sanitizer\|runtime error" "$work/rec.err" "$work/hall.out"'
[ $fail -eq 0 ] && echo "http_probes: all passed" || { echo "--- recorder stderr"; tail -20 "$work/rec.err"; }
exit $fail
