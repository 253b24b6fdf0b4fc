#!/usr/bin/env bash
# A network camera's stream that drops mid-game (Wi-Fi): the HTTP server
# (ffmpeg serving a rendered game as MJPEG) goes silent while the board is
# still (stopped: the recorder notices in 5 s), is killed and started again
# a few seconds of play later (one or two stones played meanwhile, as a
# camera that went on filming).  The recorder says the
# stream is lost, keeps the game, reconnects and goes on: the record equals
# the game as played, no move committed before the drop is lost, and the
# gap is in the SGF (GSGP[FROM/TO] and a comment on the last move before
# it, doc/sgf.md).
#   usage: cli_record_http_drop.sh GOSCRIBE DATA_DIR
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
for tool in ffmpeg python3; do
    command -v $tool >/dev/null || { echo "skipped: $tool absent (scripts/deps.txt)"; exit 0; }
done
work=$(mktemp -d /tmp/gs-cli-http-drop.XXXXXX)
pids=()
. "$here/net_servers.sh"
. "$here/sgf_corpus.sh"
trap 'for p in "${pids[@]}"; do stop_pid "$p"; done; keep_all_sgf "$work" cli_record_http_drop; rm -rf "$work"' EXIT
fail=0
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; fi; }

net_game "$bin" "$work" || { echo "FAIL: render"; cat "$work/render.log"; exit 1; }
want=$(moves_of "$work/g.truth.sgf")
# The drop: right after the recorder says move K (the board still for
# 0.9 s or more from K's stone on, so the kill comes before the next hand,
# a quarter of the game gone), the stream back 1-3 s of play after that
# still moment, one or two stones played from the drop to the first still
# view after it (two alternate in colour: their order is forced), as a
# camera that went on filming.  Prints "K RESUME_MS".
window=$(python3 - "$work/g.truth.jsonl" <<'EOF'
import json, sys
fr = [json.loads(l) for l in open(sys.argv[1])]
t = [f["t_ms"] for f in fr]; m = [f["moves"] for f in fr]; hand = [f["hand"] for f in fr]
def quiet(a, b):
    idx = [i for i in range(len(fr)) if a <= t[i] <= b]
    return bool(idx) and not any(hand[i] for i in idx) and len({m[i] for i in idx}) == 1
def still_after(ms):
    return next((i for i in range(len(fr)) if t[i] >= ms and quiet(t[i], t[i] + 500)), None)
def window():
    for i in range(1, len(fr)):
        if m[i] == m[i - 1] or t[i] < 0.25 * t[-1]:
            continue  # i: the frame K's stone came
        start = next(j for j in range(i, len(fr)) if not hand[j])
        end = next((j for j in range(start, len(fr)) if hand[j]), len(fr) - 1)
        if t[end] - t[start] < 900:
            continue
        for d in range(1000, 3100, 100):
            q = still_after(t[end] + d)
            if q is not None and t[q] + 3000 <= t[-1] and 1 <= m[q] - m[i] <= 2:
                return "%d %d" % (m[i], t[end] + d)
print(window() or "")
EOF
)
[ -n "$window" ] || { echo "FAIL: the rendered game has no window for the drop"; exit 1; }
read -r before resume_ms <<< "$window"
echo "the stream drops after move $before, back from ${resume_ms} ms of play"

port=$(free_port)
serve_mjpeg "$work/g.avi" "$port" || { echo "FAIL: ffmpeg does not serve MJPEG over HTTP"; exit 1; }
pids+=("$served")
"$bin" record "http://127.0.0.1:$port/video" -o "$work/d.sgf" --no-stdin --no-evidence >"$work/d.log" 2>"$work/d.err" &
rec=$!
pids+=("$rec")
wait_line 30 "$work/d.log" "] move $before: " "$rec" \
    || { echo "FAIL: move $before never recorded"; cat "$work/d.log" "$work/d.err"; exit 1; }
# the Wi-Fi gone: the server says nothing more (stopped), the recorder
# notices within its 5 s; then the server is killed and started again
kill -STOP "$served"
wait_line 10 "$work/d.log" "stream lost" "$rec"
stop_pid "$served"
serve_mjpeg "$work/g.avi" "$port" "$(awk -v r="$resume_ms" 'BEGIN { printf "%.2f", r / 1000 }')" \
    || { echo "FAIL: ffmpeg does not serve again"; exit 1; }
pids+=("$served")
wait_any 60 "$served" "$rec"
stop_pid "$served"
wait_line 10 "$work/d.log" "stream lost (the connection closed)" "$rec"
kill -INT "$rec" 2>/dev/null
wait "$rec"
rc=$?
got=$(moves_of "$work/d.sgf")
echo "dropped and back: exit $rc, moves $got (the render's: $want)"
check "exit 0 (got $rc)" '[ $rc -eq 0 ]'
check "the record equals the game as played" '[ -n "$want" ] && [ "$got" = "$want" ]'
check "the drop said" 'grep -q "http://127.0.0.1:$port/video: stream lost (no frame for 5 s); reconnecting" "$work/d.log"'
check "the end of the stream said" 'grep -q "http://127.0.0.1:$port/video: stream lost (the connection closed); reconnecting" "$work/d.log"'
check "back, the same game" 'grep -q "camera back: carrying on with the same game" "$work/d.log"'
check "both said on stderr too (a hall shows its recorders' stderr)" \
    'grep -q "^goscribe record: http://127.0.0.1:$port/video: stream lost (no frame for 5 s); reconnecting$" "$work/d.err" &&
     grep -q "^goscribe record: the camera is back after [0-9.]* s: carrying on with the same game$" "$work/d.err"'
check "one game in the SGF" '[ "$(grep -c "GM\[1\]" "$work/d.sgf")" -eq 1 ]'
# the gap in the record: on the last move before it, both ends, in order
gap=$(python3 - "$work/d.sgf" <<'EOF'
import re, sys, datetime
sgf = open(sys.argv[1]).read()
nodes = sgf.split(";")[2:]
for k, n in enumerate(nodes):
    g = re.search(r"GSGP\[([^\]/]*)/([^\]]*)\]", n)
    if g and g.group(2) != "..":
        a, b = (datetime.datetime.fromisoformat(x.replace("Z", "+00:00")).timestamp() for x in g.groups())
        print("%d %.1f %s" % (k + 1, b - a, "comment" if "No picture from the camera from" in n else "none"))
        break
EOF
)
echo "the gap in the SGF: after move ${gap%% *}, ${gap#* }"
read -r gap_after gap_s gap_comment <<< "$gap"
check "the gap in the SGF, on move $before (the last before the drop): move ${gap_after:-none}" '[ "${gap_after:-0}" = "$before" ]'
check "the gap lasts as long as the stream was away (${gap_s:-?} s)" 'awk -v g="${gap_s:-0}" "BEGIN { exit !(g > 5 && g < 10) }"'
check "the gap said in words there" '[ "${gap_comment:-}" = comment ]'
[ $fail -eq 0 ] || { cat "$work/d.log" "$work/d.err"; cat "$work/d.sgf"; }
keep_sgf "$work/d.sgf" cli_record_http_drop
exit $fail
