#!/usr/bin/env bash
# A network camera over HTTP (capture/net.c): a rendered game served by
# ffmpeg as MJPEG over HTTP, as phone camera apps serve it, is recorded move
# for move as the render played it, from a URL with credentials that reach
# no log line, SGF, evidence file or error; the stream carries no timestamps
# and the log says the times of play are the frames' arrival, the moves as
# far apart as in the video.  An address that never answers (a socket that
# listens and says nothing) is one line within a few seconds, a refused one
# at once, an unknown scheme one line naming it; calibrate says the same,
# and a hall's plan shows a URL source without its credentials.
#   usage: cli_record_http.sh GOSCRIBE DATA_DIR
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
for tool in ffmpeg python3; do
    command -v $tool >/dev/null || { echo "skipped: $tool absent (scripts/deps.txt)"; exit 0; }
done
work=$(mktemp -d /tmp/gs-cli-http.XXXXXX)
pids=()
. "$here/net_servers.sh"
. "$here/sgf_corpus.sh"
trap 'for p in "${pids[@]}"; do stop_pid "$p"; done; keep_all_sgf "$work" cli_record_http; rm -rf "$work"' EXIT
fail=0
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; fi; }
secret=s3cret-pw
lines() { printf '%s\n' "$1" | wc -l; }
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

# ---- a game over HTTP (the error cases below run while it plays) ----------
net_game "$bin" "$work" || { echo "FAIL: render"; cat "$work/render.log"; exit 1; }
want=$(moves_of "$work/g.truth.sgf")
gport=$(free_port)
serve_mjpeg "$work/g.avi" "$gport" || { echo "FAIL: ffmpeg does not serve MJPEG over HTTP"; exit 1; }
pids+=("$served")
"$bin" record "http://club:$secret@127.0.0.1:$gport/video?user=club&pwd=$secret" -o "$work/h.sgf" --no-stdin \
    >"$work/h.log" 2>"$work/h.err" &
rec=$!
pids+=("$rec")

# ---- addresses that do not give a stream -----------------------------------
port=$(free_port)
python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(8); time.sleep(60)' "$port" &
silent=$!
pids+=("$silent")
wait_listen "$port" 10 || { echo "FAIL: the silent socket does not listen"; exit 1; }
t0=$(date +%s.%N)
out=$("$bin" record "http://club:$secret@127.0.0.1:$port/video" -o "$work/x.sgf" --no-stdin 2>&1 </dev/null)
rc=$? secs=$(since "$t0")
echo "never answers: exit $rc after $secs s: $out"
check "never answers: exit 1 (got $rc)" '[ $rc -eq 1 ]'
check "never answers: one line" '[ "$(lines "$out")" -eq 1 ]'
check "never answers: within a few seconds (got $secs s)" 'awk -v s="$secs" "BEGIN { exit !(s < 9) }"'
check "never answers: says so, the URL without its credentials" \
    'case $out in *"http://***@127.0.0.1:$port/video: no answer within 5 s"*) true ;; *) false ;; esac'
stop_pid "$silent"

port=$(free_port)
t0=$(date +%s.%N)
out=$("$bin" record "rtsp://club:$secret@127.0.0.1:$port/cam" -o "$work/x.sgf" --no-stdin 2>&1 </dev/null)
rc=$? secs=$(since "$t0")
echo "refused: exit $rc after $secs s: $out"
check "refused: exit 1, one line, at once" '[ $rc -eq 1 ] && [ "$(lines "$out")" -eq 1 ] && awk -v s="$secs" "BEGIN { exit !(s < 3) }"'
check "refused: says so" 'case $out in *"rtsp://***@127.0.0.1:$port/cam: no video stream there"*) true ;; *) false ;; esac'

out=$("$bin" record "gopher://club:$secret@127.0.0.1/x" -o "$work/x.sgf" --no-stdin 2>&1 </dev/null)
rc=$?
check "unknown scheme: exit 1, one line naming it ($out)" \
    '[ $rc -eq 1 ] && [ "$(lines "$out")" -eq 1 ] && case $out in *"gopher://***@127.0.0.1/x: not a source goscribe reads"*) true ;; *) false ;; esac'

out=$("$bin" calibrate "http://club:$secret@127.0.0.1:$port/video" -o "$work/x.cal" 2>&1 </dev/null)
rc=$?
check "calibrate, refused: exit 1, one line ($out)" '[ $rc -eq 1 ] && [ "$(lines "$out")" -eq 1 ]'
out=$("$bin" record "http://club:$secret@127.0.0.1:$port/a" "http://x:$secret@h/b" -o "$work/x.sgf" 2>&1 </dev/null)
check "two sources: said without credentials ($out)" 'case $out in *"more than one source (http://***@127.0.0.1:$port/a, http://***@h/b)"*) true ;; *) false ;; esac'
check "no credentials in any message" '! grep -q "$secret" <<< "$out"'

# a hall's source: the URL as it is (not a path from the config's folder),
# shown without its credentials
printf 'board,black,white\n1,Anna,Bram\n' >"$work/pairs.csv"
printf 'pairings = pairs.csv\n[board 1]\nsource = http://club:%s@127.0.0.1:%s/video\n' "$secret" "$port" >"$work/ev.conf"
out=$("$bin" hall --config "$work/ev.conf" --check 2>&1 </dev/null)
check "hall: the URL source kept and shown without credentials ($out)" \
    'grep -q " http://\*\*\*@127.0.0.1:$port/video" <<< "$out" && ! grep -q "$secret\|$work/http" <<< "$out"'
printf 'pairings = pairs.csv\n[board 1]\nsource http://club:%s@127.0.0.1/video\n' "$secret" >"$work/bad.conf"
out=$("$bin" hall --config "$work/bad.conf" --check 2>&1 </dev/null)
check "hall: a malformed line quoted without credentials ($out)" \
    'grep -q "bad.conf:3: expected KEY = VALUE, not .source http://\*\*\*@127.0.0.1/video." <<< "$out" && ! grep -q "$secret" <<< "$out"'

# ---- the game's end -------------------------------------------------------
wait_any 60 "$served" "$rec"
stop_pid "$served"
# the video served: the recorder waits for the stream to come back, and is
# stopped as an operator would stop it
wait_line 10 "$work/h.log" "stream lost" "$rec"
kill -INT "$rec" 2>/dev/null
wait "$rec"
rc=$?
got=$(moves_of "$work/h.sgf")
echo "HTTP: exit $rc, moves $got (the render's: $want)"
check "HTTP: exit 0 (got $rc)" '[ $rc -eq 0 ]'
check "HTTP: every move as played" '[ -n "$want" ] && [ "$got" = "$want" ]'
check "HTTP: the clock said (no timestamps: arrival)" \
    'grep -q "the stream carries no timestamps (MJPEG over HTTP has none): times of play are when each frame arrived" "$work/h.log"'
check "HTTP: the end of the stream said" 'grep -q "http://\*\*\*@127.0.0.1:$gport/video?user=\*\*\*&pwd=\*\*\*: stream lost" "$work/h.log"'
# the times of play: the first and last moves as far apart as in the video
span=$(python3 - "$work/h.sgf" "$work/g.truth.jsonl" <<'EOF'
import json, re, sys, datetime
t = [datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
     for s in re.findall(r"GSTM\[([^\]]*)\]", open(sys.argv[1]).read())]
fr = [json.loads(l) for l in open(sys.argv[2])]
n = fr[-1]["moves"]
first = next(f["t_ms"] for f in fr if f["moves"] >= 1); last = next(f["t_ms"] for f in fr if f["moves"] >= n)
print("%.1f %.1f" % (t[-1] - t[0] if len(t) > 1 else -1, (last - first) / 1000))
EOF
)
echo "HTTP: first to last move ${span% *} s by GSTM, ${span#* } s in the video"
# (within a fifth: frames without timestamps are dated on arrival, and a
# recorder that falls behind, as under the sanitizers on a loaded machine,
# reads a few in a burst; FFmpeg's own guess, 25 fps, would make it 0.4)
check "HTTP: times of play as the video's (${span% *} s vs ${span#* } s)" \
    'awk -v g="${span% *}" -v w="${span#* }" "BEGIN { exit !(g > 0.8 * w && g < 1.2 * w) }"'
check "HTTP: no credentials in the log, the messages, the SGF or the evidence" '! grep -rq "$secret" "$work"/h.*'
[ $fail -eq 0 ] || { cat "$work/h.log" "$work/h.err"; }
keep_sgf "$work/h.sgf" cli_record_http
exit $fail
