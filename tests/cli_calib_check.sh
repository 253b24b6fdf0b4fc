#!/usr/bin/env bash
# Calibration files are input like any other: an all-zero or 1e300
# homography, one that is not the corners', or nonsense sizes are refused
# by scan and record with one line and exit 1, never read as an empty
# board (exit 0); so are --corners a camera cannot give.  The true
# calibration of a rendered video is accepted by both.
#   usage: cli_calib_check.sh GOSCRIBE DATA_DIR
set -u
bin=$1
fail=0
work=$(mktemp -d /tmp/gs-cli-calib-check.XXXXXX)
trap 'rm -rf "$work"' EXIT
printf '(;GM[1]FF[4]SZ[9]KM[7];B[ee];W[cc];B[gc])\n' >"$work/g.sgf"
"$bin" render "$work/g.sgf" -o "$work/v.avi" --frame-size 640x360 --fps 8 --pace 3 --seed 3 >/dev/null 2>&1 \
    || { echo "FAIL: render"; exit 1; }
"$bin" render "$work/g.sgf" -o "$work/f" --frame-size 640x360 --frames 1 --seed 3 >/dev/null 2>&1 \
    || { echo "FAIL: render frames"; exit 1; }
photo=$work/f/frame_000000.png
good=$work/v.truth.cal

# expect NAME EXIT CMD...: exit code as given and, for 1, one line on stderr
expect() {
    local name=$1 want=$2; shift 2
    "$@" >"$work/out" 2>"$work/err" </dev/null
    local rc=$?
    if [ $rc -ne "$want" ]; then
        echo "FAIL: $name: exit $rc, expected $want"; cat "$work/err"; fail=1
    elif [ "$want" -eq 1 ] && [ "$(wc -l <"$work/err")" -ne 1 ]; then
        echo "FAIL: $name: not one line:"; cat "$work/err"; fail=1
    else
        echo "ok   $name: exit $rc $(head -c 160 "$work/err")"
    fi
}

expect "scan with the true calibration" 0 "$bin" scan "$photo" --calibration "$good"
expect "record with the true calibration" 0 "$bin" record "$work/v.avi" -o "$work/g.sgf" --calibration "$good" --no-stdin -q --no-evidence
# bad files, made from the good one
bad() { sed "s/^$1 .*/$1 $2/" "$good" >"$work/bad.cal"; }
for h in "0 0 0 0 0 0 0 0 0" "1e300 1e300 1e300 1e300 1e300 1e300 1e300 1e300 1e300" "1 0 0 0 1 0 0 0 1"; do
    bad homography "$h"
    expect "scan, homography $h" 1 "$bin" scan "$photo" --calibration "$work/bad.cal"
    grep -q "bad.cal: the homography does not map" "$work/err" || { echo "FAIL: the reason is not given"; fail=1; }
    expect "record, homography $h" 1 "$bin" record "$work/v.avi" -o "$work/b.sgf" --calibration "$work/bad.cal" --no-stdin -q
    [ -f "$work/b.sgf" ] && { echo "FAIL: record wrote an SGF from a broken calibration"; fail=1; }
done
bad image "640 0"
expect "image 640 0" 1 "$bin" scan "$photo" --calibration "$work/bad.cal"
bad corners "1 1 2 1 2 2 1 2"
expect "corners of a 1-pixel board" 1 "$bin" scan "$photo" --calibration "$work/bad.cal"
bad distortion "0.9 320 180 0.01"
expect "distortion radius 0.01" 1 "$bin" scan "$photo" --calibration "$work/bad.cal"
expect "record --corners 1e300" 1 "$bin" record "$work/v.avi" -o "$work/c.sgf" \
    --corners 1e300,0,2e300,0,2e300,1e300,0,1e300 --no-stdin -q
expect "scan --corners with a far corner" 1 "$bin" scan "$photo" --corners 10,10,600,10,600,350,10,1000000
exit $fail
