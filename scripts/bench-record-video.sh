#!/usr/bin/env bash
# The record-video figure (issue 50): the CPU time of `goscribe record` on a
# video against FFmpeg's own decode-only time of the same video on one
# thread, in the same run, both pinned to one core; each the least of RUNS
# runs (a shared machine's other load only ever adds time).  Also the
# recorder's own decode-only pass (`goscribe bench record`: OpenCV's decode,
# its BGR conversion and the copies, no tracking), the floor the recorder
# cannot go under without changing how frames are decoded (cvshim/).
#   usage: scripts/bench-record-video.sh [GOSCRIBE] [VIDEO] [RUNS (5)]
#   VIDEO: default the 720-frame 1280x720 Gomrade video of eval-record.sh's
#   figure 2 (made by scripts/make-gomrade-video.sh into a temp folder).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build/goscribe}
video=${2:-}
runs=${3:-5}
[ -x "$bin" ] || { echo "bench-record-video: $bin is not built" >&2; exit 1; }
command -v ffmpeg >/dev/null || { echo "bench-record-video: ffmpeg not installed" >&2; exit 1; }
work=$(mktemp -d /tmp/goscribe-bench-record-video.XXXXXX)
trap 'rm -rf "$work"' EXIT
if [ -z "$video" ]; then
    video=$work/gomrade.mp4
    "$root/scripts/make-gomrade-video.sh" "$video" "$root/../shared/data" >/dev/null || exit 1
fi
core=$(( $(nproc) - 1 ))
# least user+sys CPU seconds of a command over $runs runs, on one core
least_cpu() {
    local best=999 t
    for _ in $(seq "$runs"); do
        /usr/bin/time -o "$work/t" -f "%U %S" taskset -c "$core" "$@" >/dev/null 2>&1
        t=$(awk '{print $1 + $2}' "$work/t")
        best=$(awk -v a="$best" -v b="$t" 'BEGIN { print (b < a) ? b : a }')
    done
    echo "$best"
}
ff=$(least_cpu ffmpeg -loglevel error -threads 1 -i "$video" -f null -)
rec=$(least_cpu "$bin" record "$video" -o "$work/r.sgf" --no-stdin --no-evidence -q)
# the recorder's own decode-only pass, in CPU seconds (bench record prints it)
dec=$(taskset -c "$core" "$bin" bench record "$video" 2>/dev/null |
      sed -n 's/^decode only .*(\([0-9.]*\) s wall, \([0-9.]*\) s CPU).*/\2/p')
frames=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$video" 2>/dev/null)
echo "video        $video (${frames:-?} frames)"
echo "ffmpeg       $ff s CPU (one thread, decode only: -threads 1 -f null)"
echo "record       $rec s CPU (goscribe record, the whole run)"
echo "decode pass  ${dec:-?} s CPU (goscribe bench record's decode-only pass: OpenCV's decode, BGR and copies)"
awk -v r="$rec" -v f="$ff" -v d="${dec:-0}" 'BEGIN {
    printf "record/ffmpeg %.2f   (decode pass/ffmpeg %.2f)   least of '"$runs"' runs, one core\n", r / f, d / f }'
