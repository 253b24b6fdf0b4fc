#!/usr/bin/env bash
# Makes the test video of figure 2 of the recorder: the 12 Gomrade
# testing_sequence frames (../shared/data), each held 2 s, 1280x720,
# 30 fps, H.264 (720 frames).  Writes into OUT (default
# /tmp/goscribe-gomrade.mp4), never into the repository.
#   usage: scripts/make-gomrade-video.sh [OUT.mp4] [DATA_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-/tmp/goscribe-gomrade.mp4}
data=${2:-$root/../shared/data}
seq=$data/photos/gomrade/testing_sequence
[ -f "$seq/0.jpg" ] || { echo "make-gomrade-video: $seq/0.jpg absent" >&2; exit 1; }
command -v ffmpeg >/dev/null || { echo "make-gomrade-video: ffmpeg not installed (scripts/install-deps.sh)" >&2; exit 1; }
ffmpeg -loglevel error -y -framerate 1/2 -start_number 0 -i "$seq/%d.jpg" \
  -vf "scale=1280:720,fps=30,format=yuv420p" -c:v libx264 -preset medium -crf 20 \
  -frames:v 720 -r 30 "$out"
echo "$out"
