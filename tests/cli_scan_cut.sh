#!/usr/bin/env bash
# tests/cli_scan_cut.sh BINARY DATA_DIR: a board the photo's edge cuts off
# is read where it is seen, with the missing side said: a rendered 19x19
# game cropped so its right third is gone; `scan` marks the points it does
# not see '-', names the side on stderr, exits 3 (an answer with doubt),
# reads the points it sees as the truth has them, and its JSON gives the
# side ("cut") and the count of points off the photo.  The same board
# uncropped is read whole (no '-', no side said), and its middle, which
# shows no edge line along an axis, is marked whole.
set -u
bin=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
skip() { echo "skipped: $*"; exit 0; }
command -v ffmpeg >/dev/null || skip "ffmpeg absent"
fail=0
game="$(cd "$(dirname "$0")/.." && pwd)/samples/games/classic.sgf"
"$bin" render "$game" -o "$tmp/r" -q --seed 5 --frame-size 1280x960 --fps 1 --pace 40 --moves 120 \
    --tilt 0 --rotation 0 --roll 0 --bump none --drift 0 --rest 0 --hover 0 >/dev/null 2>&1 ||
    { echo "FAIL render"; exit 1; }
last=$(ls "$tmp/r"/frame_*.png | tail -1)
truth=$(tail -1 "$tmp/r/truth.jsonl" | sed 's/.*"position":"\([.BW]*\)".*/\1/')
[ ${#truth} = 361 ] || { echo "FAIL truth position of ${#truth} points"; exit 1; }
# the truth as scan prints it: 19 rows of 19 tokens
printf '%s\n' "$truth" | fold -w 19 | sed 's/./& /g; s/ $//' >"$tmp/truth.txt"

# whole: no point off the photo
"$bin" scan "$last" >"$tmp/whole.txt" 2>"$tmp/whole.err"
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 3 ] || { echo "FAIL whole board: exit $rc: $(cat "$tmp/whole.err")"; fail=1; }
grep -q -- '-' "$tmp/whole.txt" && { echo "FAIL whole board: points marked off the photo"; fail=1; }
grep -q "cut off" "$tmp/whole.err" && { echo "FAIL whole board said cut off"; fail=1; }

# cut: the right 30 % of the picture gone
ffmpeg -v error -y -i "$last" -vf "crop=trunc(iw*0.7/2)*2:ih:0:0" "$tmp/cut.png" || { echo "FAIL crop"; exit 1; }
"$bin" scan "$tmp/cut.png" >"$tmp/cut.txt" 2>"$tmp/cut.err"
rc=$?
[ "$rc" = 3 ] || { echo "FAIL cut board: exit $rc, expected 3: $(cat "$tmp/cut.err")"; fail=1; }
grep -q "cut off at the right" "$tmp/cut.err" || { echo "FAIL cut board: the side not said: $(cat "$tmp/cut.err")"; fail=1; }
# compare point by point: '-' only in the right columns, the rest as the truth
read -r seen right offs wrongside < <(awk '
    FNR == NR { for (i = 1; i <= NF; i++) t[FNR, i] = $i; next }
    { for (i = 1; i <= NF; i++) { tok = $i
        if (tok == "-") { off++; if (i < 10) ws++; continue }
        sub(/\?$/, "", tok); seen++; r += (tok == t[FNR, i]) } }
    END { print seen + 0, r + 0, off + 0, ws + 0 }' "$tmp/truth.txt" "$tmp/cut.txt")
echo "cut board: $right of $seen points seen read right, $offs off the photo"
[ "$offs" -ge 19 ] && [ "$wrongside" = 0 ] || { echo "FAIL cut board: $offs points off the photo, $wrongside on the left half"; fail=1; }
[ "$seen" -ge 190 ] && [ $((right * 100)) -ge $((seen * 99)) ] ||
    { echo "FAIL cut board: $right of $seen seen points right"; paste -d'|' "$tmp/cut.txt" "$tmp/truth.txt"; fail=1; }
"$bin" scan "$tmp/cut.png" --json >"$tmp/cut.json" 2>/dev/null
grep -q '"cut": \["right"\]' "$tmp/cut.json" || { echo "FAIL cut board: JSON cut: $(grep '"cut"' "$tmp/cut.json")"; fail=1; }
grep -q "\"off_photo_count\": $offs," "$tmp/cut.json" || { echo "FAIL cut board: JSON off_photo_count"; fail=1; }

# the middle of the picture (60 % of each side): no edge line shows along
# at least one axis, so which lines these are cannot be told; every point
# seen is marked and the reason said (read unmarked, the lattice came out
# shifted: 42 wrong points unmarked)
ffmpeg -v error -y -i "$last" -vf "crop=trunc(iw*0.6/2)*2:trunc(ih*0.6/2)*2:trunc(iw*0.2/2)*2:trunc(ih*0.2/2)*2" \
    "$tmp/mid.png" || { echo "FAIL crop"; exit 1; }
"$bin" scan "$tmp/mid.png" >"$tmp/mid.txt" 2>"$tmp/mid.err"
rc=$?
[ "$rc" = 3 ] || { echo "FAIL middle crop: exit $rc, expected 3: $(cat "$tmp/mid.err")"; fail=1; }
grep -q "the photo shows \(neither the board's\|none of the board's\)" "$tmp/mid.err" ||
    { echo "FAIL middle crop: the unknown place not said: $(cat "$tmp/mid.err")"; fail=1; }
unmarked=$(grep -o '[.BW]\( \|$\)' "$tmp/mid.txt" | wc -l)
seen=$(grep -o '[.BW]' "$tmp/mid.txt" | wc -l)
[ "$seen" -gt 0 ] && [ "$unmarked" = 0 ] || { echo "FAIL middle crop: $unmarked of $seen points seen unmarked"; fail=1; }
[ "$fail" = 0 ] && echo "cli_scan_cut: all checks passed"
exit $fail
