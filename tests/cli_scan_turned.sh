#!/usr/bin/env bash
# tests/cli_scan_turned.sh BINARY DATA_DIR: a photo turned a quarter or a
# half (a phone held sideways, a camera on a stand mounted turned) is read
# as surely as upright.  Each photo is read upright, then turned either way
# a quarter and a half: `scan` must print the same board turned alike and
# mark no more points than upright and 2.  Two photos: a render of the
# classic game seen at 40 degrees (always; it checks the turned reading's
# path, every render reading sure either way), and an oblique photo of a
# crowded board from goban-watcher under a green lamp, read with no point
# marked (the point model learned boards with the camera below them: read
# turned as they came, its copies had 20-43 points marked, right ones
# all); that one skips without the shared data.
set -u
bin=$1
data=${2:-}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
skip() { echo "skipped: $*"; exit 0; }
command -v ffmpeg >/dev/null || skip "ffmpeg absent"
fail=0

# the upright reading of $1 turned: cw a quarter clockwise, ccw anticlockwise, half
turned() {
    awk -v how="$2" '
        { for (i = 1; i <= NF; i++) t[NR, i] = $i; n = NF }
        END { for (r = 1; r <= n; r++) { line = ""
                for (c = 1; c <= n; c++) {
                    if (how == "cw") tok = t[n + 1 - c, r]
                    else if (how == "ccw") tok = t[c, n + 1 - r]
                    else tok = t[n + 1 - r, n + 1 - c]
                    line = line (c > 1 ? " " : "") tok }
                print line } }' "$1"
}

# check NAME PHOTO: upright, then turned three ways
check() {
    local name=$1 photo=$2 rc up how vf marks differ
    "$bin" scan "$photo" >"$tmp/$name.up" 2>"$tmp/$name.err"
    rc=$?
    [ "$rc" = 0 ] || [ "$rc" = 3 ] || { echo "FAIL $name upright: exit $rc: $(cat "$tmp/$name.err")"; fail=1; return; }
    up=$(grep -o '?' "$tmp/$name.up" | wc -l)
    sed 's/?//g' "$tmp/$name.up" >"$tmp/$name.plain"
    for how in cw ccw half; do
        case $how in
            cw) vf="transpose=1" ;;
            ccw) vf="transpose=2" ;;
            half) vf="transpose=1,transpose=1" ;;
        esac
        ffmpeg -v error -y -i "$photo" -vf "$vf" -q:v 2 "$tmp/$name.$how.jpg" || { echo "FAIL ffmpeg $how"; fail=1; return; }
        "$bin" scan "$tmp/$name.$how.jpg" >"$tmp/$name.$how" 2>"$tmp/$name.$how.err"
        rc=$?
        [ "$rc" = 0 ] || [ "$rc" = 3 ] || { echo "FAIL $name $how: exit $rc: $(cat "$tmp/$name.$how.err")"; fail=1; continue; }
        marks=$(grep -o '?' "$tmp/$name.$how" | wc -l)
        sed 's/?//g' "$tmp/$name.$how" >"$tmp/$name.$how.plain"
        turned "$tmp/$name.plain" "$how" >"$tmp/$name.$how.want"
        differ=$(paste -d' ' "$tmp/$name.$how.plain" "$tmp/$name.$how.want" |
            awk '{ n = NF / 2; for (i = 1; i <= n; i++) d += $i != $(i + n) } END { print d + 0 }')
        echo "$name turned $how: $differ points read otherwise than upright, $marks marked (upright $up)"
        [ "$differ" = 0 ] ||
            { echo "FAIL $name $how: read otherwise than upright"; paste -d'|' "$tmp/$name.$how.plain" "$tmp/$name.$how.want"; fail=1; }
        [ "$marks" -le $((up + 2)) ] || { echo "FAIL $name $how: $marks points marked (upright: $up)"; fail=1; }
    done
}

game="$(cd "$(dirname "$0")/.." && pwd)/samples/games/classic.sgf"
"$bin" render "$game" -o "$tmp/r" -q --seed 5 --frame-size 1280x960 --fps 1 --pace 40 --moves 120 \
    --tilt 40 --rotation 0 --roll 0 --bump none --drift 0 --rest 0 --hover 0 >/dev/null 2>&1 ||
    { echo "FAIL render"; exit 1; }
check render "$(ls "$tmp/r"/frame_*.png | tail -1)"

photo="$data/photos/goban-watcher/game1/1_jwerth_green_1.jpg"
if [ -f "$photo" ]; then
    check photo "$photo"
else
    echo "skipped: $photo absent (the shared data)"
fi
[ "$fail" = 0 ] && echo "cli_scan_turned: all checks passed"
exit $fail
