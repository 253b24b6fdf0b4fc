#!/usr/bin/env bash
# Load figure for the live broadcast: 200 viewers (GS_SERVE_LOAD_VIEWERS)
# hold /events on one board over loopback, half of them never reading,
# while a recorder-like frame loop publishes at 30 frames/s (a state change
# every frame, a 1280x720 camera frame, an event every 10th frame) for
# GS_SERVE_LOAD_SECONDS (default 10).  Prints the frame rate reached, the
# publish cost per frame and the event latency to the viewers.
# usage: scripts/load-serve.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
if [ ! -x "$build/tests/test_serve" ]; then
  cmake -S "$root" -B "$build" >/dev/null
  cmake --build "$build" -j2 --target test_serve >/dev/null
fi
ulimit -n 4096 2>/dev/null || true
GS_SERVE_TEST='test_many_viewers*' GS_SERVE_LOAD_SECONDS=${GS_SERVE_LOAD_SECONDS:-10} \
GS_SERVE_LOAD_VIEWERS=${GS_SERVE_LOAD_VIEWERS:-200} CMOCKA_MESSAGE_OUTPUT=stdout \
  "$build/tests/test_serve" | grep -v '^\[' || true
