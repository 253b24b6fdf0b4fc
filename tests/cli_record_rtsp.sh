#!/usr/bin/env bash
# An IP camera over RTSP (capture/net.c): a rendered game served by
# GStreamer's RTSP server (tests/drivers/rtsp_server.py, Debian packages of
# scripts/deps.txt) is recorded move for move as the render played it.  The
# recorder is made slower than the stream (--frame-delay: it falls behind
# by seconds), yet the times of play are the stream's own timestamps: the
# first and last moves as far apart as in the video, not as far as the
# recorder read them.  The URL's credentials reach no line or file.
#   usage: cli_record_rtsp.sh GOSCRIBE DATA_DIR
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
# GStreamer's Python bindings are Debian's: its own python3, whatever PATH says
py=/usr/bin/python3
for tool in ffmpeg python3 "$py"; do
    command -v "$tool" >/dev/null || { echo "skipped: $tool absent (scripts/deps.txt)"; exit 0; }
done
work=$(mktemp -d /tmp/gs-cli-rtsp.XXXXXX)
pids=()
. "$here/net_servers.sh"
. "$here/sgf_corpus.sh"
trap 'for p in "${pids[@]}"; do stop_pid "$p"; done; keep_all_sgf "$work" cli_record_rtsp; rm -rf "$work"' EXIT
fail=0
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; fi; }
secret=s3cret-pw

net_game "$bin" "$work" 6 || { echo "FAIL: render"; cat "$work/render.log"; exit 1; }
want=$(moves_of "$work/g.truth.sgf")
port=$(free_port)
"$py" "$here/drivers/rtsp_server.py" "$port" /game "$work/g.avi" >"$work/server.log" 2>&1 &
server=$!
pids+=("$server")
for _ in $(seq 200); do grep -q . "$work/server.log" && break; sleep 0.05; done
if grep -q "^missing: " "$work/server.log"; then
    echo "skipped: $(head -1 "$work/server.log") (scripts/deps.txt: gir1.2-gst-rtsp-server-1.0, python3-gi, gstreamer1.0-plugins-good)"
    exit 0
fi
grep -q "^ready" "$work/server.log" || { echo "FAIL: the RTSP server did not start"; cat "$work/server.log"; exit 1; }

t0=$(date +%s.%N)
"$bin" record "rtsp://club:$secret@127.0.0.1:$port/game" -o "$work/r.sgf" --no-stdin --frame-delay 120 \
    >"$work/r.log" 2>"$work/r.err" &
rec=$!
pids+=("$rec")
# the video played (the server then exits): the recorder, behind, reads on
# to the end of what was sent and waits for the stream to come back; it is
# stopped as an operator would stop it
wait_line 60 "$work/r.log" "stream lost" "$rec"
secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
kill -INT "$rec" 2>/dev/null
wait "$rec"
rc=$?
got=$(moves_of "$work/r.sgf")
echo "RTSP: exit $rc after $secs s, moves $got (the render's: $want)"
check "RTSP: exit 0 (got $rc)" '[ $rc -eq 0 ]'
check "RTSP: every move as played" '[ -n "$want" ] && [ "$got" = "$want" ]'
check "RTSP: the clock said (the stream's own timestamps)" \
    'grep -q "times of play from the stream'"'"'s own timestamps, from the wall clock at its first frame" "$work/r.log"'
span=$(python3 - "$work/r.sgf" "$work/g.truth.jsonl" "$work/r.log" <<'EOF'
import json, re, sys, datetime
t = [datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
     for s in re.findall(r"GSTM\[([^\]]*)\]", open(sys.argv[1]).read())]
fr = [json.loads(l) for l in open(sys.argv[2])]
n = fr[-1]["moves"]
first = next(f["t_ms"] for f in fr if f["moves"] >= 1); last = next(f["t_ms"] for f in fr if f["moves"] >= n)
print("%.1f %.1f" % (t[-1] - t[0] if len(t) > 1 else -1, (last - first) / 1000))
EOF
)
video=$(awk -v n="$(wc -l <"$work/g.truth.jsonl")" 'BEGIN { printf "%.1f", n / 10 + 2 }')
echo "RTSP: first to last move ${span% *} s by GSTM, ${span#* } s in the video; the ${video} s stream read in $secs s"
check "RTSP: the recorder fell behind the stream (read in $secs s, played in $video s)" \
    'awk -v s="$secs" -v v="$video" "BEGIN { exit !(s > v + 3) }"'
check "RTSP: times of play as the video's (${span% *} s vs ${span#* } s)" \
    'awk -v g="${span% *}" -v w="${span#* }" "BEGIN { exit !(g > w - 1 && g < w + 1) }"'
check "RTSP: no credentials in the log, the messages, the SGF or the evidence" '! grep -rq "$secret" "$work"/r.*'
[ $fail -eq 0 ] || { cat "$work/r.log" "$work/r.err" "$work/server.log"; }
keep_sgf "$work/r.sgf" cli_record_rtsp
exit $fail
