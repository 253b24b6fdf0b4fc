#!/usr/bin/env bash
# The real V4L2 path (capture/capture_v4l2.c through libv4l2 and its format
# conversion) against a fake camera (tests/fakecam/fakecam.c, LD_PRELOAD)
# serving a rendered game: `goscribe devices` lists the camera's modes; a
# recording over MJPEG, with the camera unplugged for 2.5 s (a move or two
# played meanwhile) and plugged back, goes on with the same game and
# records every move the video file itself gives, the gap on the frames'
# own clock and in the SGF (GSGP); YUYV at a negotiated 4 fps works too.  The game starts once
# the recorder has seen the empty board (FAKECAM_HOLD), so a recorder that a
# loaded machine starts slowly still sees the first move played.  Under the
# sanitizer build (GS_SANITIZED) the ASan runtime is preloaded first.
#   usage: cli_fakecam.sh GOSCRIBE DATA_DIR
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
fail=0
for tool in cc python3 ffmpeg; do
    command -v $tool >/dev/null || { echo "skipped: $tool absent (scripts/deps.txt)"; exit 0; }
done
work=$(mktemp -d /tmp/gs-cli-fakecam.XXXXXX)
trap 'rm -rf "$work"' EXIT
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; fi; }

cc -shared -fPIC -O1 -Wall -Wextra -Werror -o "$work/fakecam.so" "$here/fakecam/fakecam.c" -ldl -lpthread \
    || { echo "FAIL: cannot build the fake camera"; exit 1; }
preload=$work/fakecam.so
if [ -n "${GS_SANITIZED:-}" ]; then
    # ASan must come first in the initial library list
    asan=$(gcc -print-file-name=libasan.so)
    [ -f "$asan" ] || { echo "FAIL: no ASan runtime for the sanitized binary"; exit 1; }
    preload="$asan $preload"
fi

printf '(;GM[1]FF[4]SZ[9]KM[7];B[ee];W[cc];B[gc];W[cg];B[gg];W[ce];B[eg];W[dd];B[ec];W[fe];B[ge];W[dg])\n' >"$work/g9.sgf"
"$bin" render "$work/g9.sgf" -o "$work/g.avi" --pace 2 --fps 8 --frame-size 640x360 --seed 2 >/dev/null 2>&1 \
    || { echo "FAIL: render"; exit 1; }
ffmpeg -loglevel error -y -i "$work/g.avi" -t 6 -f rawvideo -pix_fmt yuyv422 "$work/g.yuyv" \
    || { echo "FAIL: ffmpeg cannot make the YUYV frames"; exit 1; }
moves_of() { grep -o ';[BW]\[[a-s]*\]' "$1" | tr -d ';\n'; }
"$bin" record "$work/g.avi" -o "$work/file.sgf" --no-evidence --no-stdin -q >/dev/null 2>&1
want=$(moves_of "$work/file.sgf")
frames=$(wc -l <"$work/g.truth.jsonl")
dur=$(((frames + 7) / 8))
# The unplug: 2.5 s that begin when the last move has settled (no hand
# for 0.6 s) and in which one or two stones are played (two alternate in
# colour: their order is forced), the board settling again after them.
unplug=$(python3 - "$work/g.truth.jsonl" <<'EOF'
import json, sys
fr = [json.loads(l) for l in open(sys.argv[1])]
t = [f["t_ms"] for f in fr]; m = [f["moves"] for f in fr]; hand = [f["hand"] for f in fr]
def at(ms):
    return min(range(len(t)), key=lambda i: abs(t[i] - ms))
def quiet(a, b):
    idx = [i for i in range(len(fr)) if a <= t[i] <= b]
    return bool(idx) and not any(hand[i] for i in idx) and len({m[i] for i in idx}) == 1
for i in range(len(fr)):
    s = t[i]
    if s < 0.25 * t[-1] or s + 4500 > t[-1]:
        continue
    played = m[at(s + 2500)] - m[i]
    after = [q for q in t if s + 2500 <= q <= s + 4000 and quiet(q, q + 500) and m[at(q)] == m[at(s + 2500)]]
    if quiet(s - 600, s) and 1 <= played <= 2 and after:
        print("%d:2500" % s)
        break
EOF
)
[ -n "$unplug" ] || { echo "FAIL: the rendered game has no window for the unplug"; exit 1; }
echo "video: $frames frames (${dur} s), moves $want; unplugged at ${unplug%%:*} ms for 2.5 s"

cam() { env FAKECAM_SIZE=640x360 FAKECAM_FPS=8 FAKECAM_MJPEG="$work/g.avi" FAKECAM_YUYV="$work/g.yuyv" \
        FAKECAM_LOG="$work/fake.log" LD_PRELOAD="$preload" "$@"; }

# devices: the camera and its native modes
cam "$bin" devices >"$work/dev.txt" 2>&1; rc=$?
check "devices: exit 0 (got $rc)" '[ $rc -eq 0 ]'
check "devices: the camera listed" 'grep -q "^/dev/video42  goscribe fake camera (fakecam)$" "$work/dev.txt"'
check "devices: MJPG mode with its rates" 'grep -Eq "^ +MJPG +640x360 +8 4 fps$" "$work/dev.txt"'
check "devices: YUYV mode with its rates" 'grep -Eq "^ +YUYV +640x360 +8 4 fps$" "$work/dev.txt"'
[ $fail -eq 0 ] || cat "$work/dev.txt"

# MJPEG, unplugged and plugged back; the game starts when the recorder has
# seen the empty board (at most 60 s), stdin closes after the game's end
rm -f "$work/fake.log" "$work/go"
(for _ in $(seq 600); do grep -q "start: empty 9x9 board" "$work/cam.log" 2>/dev/null && break; sleep 0.1; done
 touch "$work/go"; sleep $((dur + 3))) | cam FAKECAM_FORMATS=MJPG FAKECAM_UNPLUG="$unplug" FAKECAM_HOLD="$work/go" \
    "$bin" record /dev/video42 -o "$work/cam.sgf" --width 640 --height 360 --fps 8 --no-evidence >"$work/cam.log" 2>&1
rc=$?
got=$(moves_of "$work/cam.sgf")
check "MJPEG recording: exit 0 (got $rc)" '[ $rc -eq 0 ]'
check "every move of the file recorded through the camera: $got vs $want" '[ -n "$want" ] && [ "$got" = "$want" ]'
check "the loss noted" 'grep -q "camera lost (No such device); waiting for it to come back" "$work/cam.log"'
check "the return noted, same game" 'grep -q "camera back: carrying on with the same game" "$work/cam.log"'
check "one game in the SGF" '[ "$(grep -c "GM\[1\]" "$work/cam.sgf")" -eq 1 ]'
check "the gap in the SGF: GSGP with both ends, said in words" \
    'grep -Eq "GSGP\[[0-9TZ:.-]+/[0-9TZ:.-]+\]" "$work/cam.sgf" && grep -q "No picture from the camera from" "$work/cam.sgf"'
# the gap on the frames' own timestamps: [mm:ss.s] of the two event lines
# (not the gap's line, which quotes the loss, nor the stderr lines)
gap=$(awk '/^\[[0-9:.]*\] (\/dev\/video42: camera lost|camera back:)/ { split(substr($1, 2, length($1) - 2), hm, ":"); t = hm[1] * 60 + hm[2]
       if (a == "") a = t; else b = t } END { printf "%.1f", b - a }' "$work/cam.log")
check "the gap on the frames' timestamps is the unplug's 2.5 s (got $gap s)" 'awk -v g="$gap" "BEGIN { exit !(g >= 2.0 && g <= 4.5) }"'
check "the fake saw an unplug and a replug" 'grep -q " unplug$" "$work/fake.log" && grep -q " replug$" "$work/fake.log"'
check "opened and negotiated twice" '[ "$(grep -c "s_fmt MJPG 640x360" "$work/fake.log")" -eq 2 ] && [ "$(grep -c "streamon MJPG 8 fps" "$work/fake.log")" -eq 2 ]'
[ $fail -eq 0 ] || { cat "$work/cam.log"; cat "$work/fake.log"; }
echo "MJPEG: exit $rc, moves $got; $(grep -c 'frames served' "$work/fake.log") sessions: $(grep -o '[0-9]* frames served' "$work/fake.log" | tr '\n' ' ')"

# YUYV at 4 fps for 5 s (longer, up to 30 s, until the board is found: a
# loaded machine under the sanitizers starts slowly; the game held at its
# empty board meanwhile): converted by libv4l2, the board found
rm -f "$work/fake.log"
t0=$(date +%s.%N)
(sleep 5; for _ in $(seq 250); do grep -q "start: empty 9x9 board" "$work/y.log" 2>/dev/null && break; sleep 0.1; done) |
    cam FAKECAM_FORMATS=YUYV FAKECAM_HOLD="$work/never" "$bin" record /dev/video42 -o "$work/y.sgf" --fps 4 --no-evidence >"$work/y.log" 2>&1
rc=$?
secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%d", b - a + 0.999 }')
n=$(grep -o 'from [0-9]* frames' "$work/y.log" | tr -dc 0-9)
check "YUYV recording: exit 0 (got $rc)" '[ $rc -eq 0 ]'
check "YUYV negotiated at 4 fps" 'grep -q "s_fmt YUYV 640x360" "$work/fake.log" && grep -q "s_parm 4 fps" "$work/fake.log"'
check "YUYV: the board found" 'grep -q "start: empty 9x9 board" "$work/y.log"'
# 4 frames a second, not the camera's 8 (fewer when a loaded machine
# starts the recorder late)
check "YUYV: at most 4 frames a second (${n:-?} in $secs s)" '[ "${n:-0}" -ge 5 ] && [ "${n:-0}" -le $((4 * secs + 4)) ]'
[ $fail -eq 0 ] || { cat "$work/y.log"; cat "$work/fake.log"; }
echo "YUYV: exit $rc, ${n:-?} frames in $secs s"
exit $fail
