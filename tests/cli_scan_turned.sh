#!/usr/bin/env bash
# tests/cli_scan_turned.sh BINARY DATA_DIR: a photo turned a quarter or a
# half (a phone held sideways, a camera on a stand mounted turned) is read
# as surely as upright.  An oblique photo of a crowded board from
# goban-watcher (green lamp) is read with no point marked; turned either way
# a quarter, and a half, `scan` must print the same board turned alike and
# mark no more points than 2 (the point model learned boards with the
# camera below them: read turned as they come, these copies had 20-43
# points marked, right ones all).  Skips without the shared data.
set -u
bin=$1
data=${2:-}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
skip() { echo "skipped: $*"; exit 0; }
command -v ffmpeg >/dev/null || skip "ffmpeg absent"
photo="$data/photos/goban-watcher/game1/1_jwerth_green_1.jpg"
[ -f "$photo" ] || skip "$photo absent (the shared data)"
fail=0
"$bin" scan "$photo" >"$tmp/up.txt" 2>"$tmp/up.err"
rc=$?
[ "$rc" = 0 ] || { echo "FAIL upright: exit $rc: $(cat "$tmp/up.err")"; exit 1; }

# the upright reading turned: cw a quarter clockwise, ccw anticlockwise, half
turned() {
    awk -v how="$1" '
        { for (i = 1; i <= NF; i++) t[NR, i] = $i; n = NF }
        END { for (r = 1; r <= n; r++) { line = ""
                for (c = 1; c <= n; c++) {
                    if (how == "cw") tok = t[n + 1 - c, r]
                    else if (how == "ccw") tok = t[c, n + 1 - r]
                    else tok = t[n + 1 - r, n + 1 - c]
                    line = line (c > 1 ? " " : "") tok }
                print line } }' "$tmp/up.txt"
}

for how in cw ccw half; do
    case $how in
        cw) vf="transpose=1" ;;
        ccw) vf="transpose=2" ;;
        half) vf="transpose=1,transpose=1" ;;
    esac
    ffmpeg -v error -y -i "$photo" -vf "$vf" -q:v 2 "$tmp/$how.jpg" || { echo "FAIL ffmpeg $how"; exit 1; }
    "$bin" scan "$tmp/$how.jpg" >"$tmp/$how.txt" 2>"$tmp/$how.err"
    rc=$?
    [ "$rc" = 0 ] || [ "$rc" = 3 ] || { echo "FAIL $how: exit $rc: $(cat "$tmp/$how.err")"; fail=1; continue; }
    marks=$(grep -o '?' "$tmp/$how.txt" | wc -l)
    sed 's/?//g' "$tmp/$how.txt" >"$tmp/$how.plain"
    turned "$how" >"$tmp/$how.want"
    differ=$(paste -d' ' "$tmp/$how.plain" "$tmp/$how.want" |
        awk '{ n = NF / 2; for (i = 1; i <= n; i++) d += $i != $(i + n) } END { print d + 0 }')
    echo "turned $how: $differ points read otherwise than upright, $marks marked"
    [ "$differ" = 0 ] || { echo "FAIL $how: read otherwise than upright"; paste -d'|' "$tmp/$how.plain" "$tmp/$how.want"; fail=1; }
    [ "$marks" -le 2 ] || { echo "FAIL $how: $marks points marked (upright: none)"; fail=1; }
done
[ "$fail" = 0 ] && echo "cli_scan_turned: all checks passed"
exit $fail
