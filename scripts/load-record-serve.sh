#!/usr/bin/env bash
# Load figure for `goscribe record --serve`: the recorder's frame rate on a
# rendered 1280x720 video recorded at full speed (no --frame-delay), without
# the server, with the server and no viewer, with N viewers (GS_LOAD_VIEWERS,
# default 200, from 100 loopback addresses as from 100 machines) holding
# /events over loopback, half of them reading everything and half never
# reading, and under an attack of 300 sockets trickling a header line every
# 2 s from 30 addresses (tests/drivers/http_probe.c: they are closed and
# reopened all along; a real client's requests must all be answered).  The
# video (GS_LOAD_FRAMES frames, default 2400, of samples/games/classic.sgf)
# is rendered once and kept in $GS_LOAD_DIR (default /tmp/goscribe-load).
# usage: scripts/load-record-serve.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
bin=$build/goscribe
probe=$build/tests/http_probe
if [ ! -x "$bin" ] || [ ! -x "$probe" ]; then
    cmake -S "$root" -B "$build" >/dev/null
    cmake --build "$build" -j2 --target goscribe http_probe >/dev/null
fi
dir=${GS_LOAD_DIR:-/tmp/goscribe-load}
frames=${GS_LOAD_FRAMES:-2400}
viewers=${GS_LOAD_VIEWERS:-200}
mkdir -p "$dir"
video=$dir/load-$frames.avi
if [ ! -s "$video" ]; then
    echo "rendering $frames frames (1280x720, 30 fps) to $video ..."
    "$bin" render "$root/samples/games/classic.sgf" -o "$video" --moves 80 --pace 3 --fps 30 \
        --frame-size 1280x720 --frames "$frames" --seed 5 >/dev/null
fi
ulimit -n 4096 2>/dev/null || true
cat >"$dir/viewers.py" <<'PY'
# N SSE viewers on /events: even ones read everything, odd ones never read.
import selectors, socket, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
socks, t0 = [], time.time()
while len(socks) < n and time.time() - t0 < 30:
    s = socket.socket()
    try:
        s.bind(("127.0.1.%d" % (1 + len(socks) % 100), 0))  # one address holds only so many
        s.connect(("127.0.0.1", port))
    except OSError:
        s.close(); time.sleep(0.005); continue
    s.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
    socks.append(s)
t_conn = time.time() - t0
sel = selectors.DefaultSelector()
for s in socks[::2]:
    s.setblocking(False); sel.register(s, selectors.EVENT_READ)
msgs, live = 0, len(socks[::2])
while live:
    for key, _ in sel.select(timeout=1):
        try: d = key.fileobj.recv(65536)
        except OSError: d = b""
        if not d: sel.unregister(key.fileobj); live -= 1; continue
        msgs += d.count(b"data:")
print("viewers: %d connected in %.2f s, the %d readers got %d messages" % (len(socks), t_conn, len(socks[::2]), msgs))
PY
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
run() {  # label, extra args: prints frames/s of the whole run
    local t0 t1
    t0=$(date +%s.%N)
    "$bin" record "$video" -o "$dir/load.sgf" --no-stdin -q --no-evidence "$@" >/dev/null
    t1=$(date +%s.%N)
    python3 -c "print('%-28s %6.1f frames/s (%d frames in %.2f s)' % ('$label', $frames / ($t1 - $t0), $frames, $t1 - $t0))"
}
label="no server" run
label="--serve, no viewer" run --serve "127.0.0.1:$port"
python3 "$dir/viewers.py" "$port" "$viewers" &
vp=$!
sleep 0.2
label="--serve, $viewers viewers" run --serve "127.0.0.1:$port"
wait "$vp"
"$probe" trickle "http://127.0.0.1:$port" --sockets 300 --sources 30 --seconds 600 >"$dir/trickle.out" &
tp=$!
sleep 0.2
label="--serve, 300 trickling" run --serve "127.0.0.1:$port"
kill -INT "$tp" 2>/dev/null || true
wait "$tp" 2>/dev/null || true  # "refused": a request after the recorder had gone
grep -v "^FAIL: real client request [0-9]*: refused$" "$dir/trickle.out" || true
