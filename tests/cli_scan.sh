#!/usr/bin/env bash
# tests/cli_scan.sh BINARY DATA_DIR: `goscribe scan` error paths and output shape.
set -u
bin=$1; data=${2:-}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # name expected_rc actual_rc stderr_file
    local lines; lines=$(wc -l <"$4")
    if [ "$3" -ne "$2" ]; then echo "FAIL $1: exit $3, expected $2"; fail=1; fi
    if [ "$2" -ne 0 ] && [ "$lines" -ne 1 ]; then echo "FAIL $1: $lines lines on stderr, expected 1"; cat "$4"; fail=1; fi
}
run() { "$bin" scan "$@" >"$tmp/out" 2>"$tmp/err"; echo $?; }

: >"$tmp/empty.jpg"
check "empty file" 1 "$(run "$tmp/empty.jpg")" "$tmp/err"
check "missing file" 1 "$(run "$tmp/nope.jpg")" "$tmp/err"
printf 'this is not an image' >"$tmp/text.png"
check "broken file" 1 "$(run "$tmp/text.png")" "$tmp/err"
check "no photo" 1 "$(run)" "$tmp/err"
check "--size 7x" 1 "$(run "$tmp/empty.jpg" --size 7x)" "$tmp/err"
check "--size 7 without corners" 1 "$(run "$tmp/empty.jpg" --size 7)" "$tmp/err"
check "--corners 3 points" 1 "$(run "$tmp/empty.jpg" --corners 1,2,3,4,5,6)" "$tmp/err"
check "--corners junk" 1 "$(run "$tmp/empty.jpg" --corners a,b,c,d,e,f,g,h)" "$tmp/err"
check "unknown option" 1 "$(run "$tmp/empty.jpg" --frobnicate)" "$tmp/err"
"$bin" scan --help >"$tmp/out" 2>&1 || { echo "FAIL --help exit"; fail=1; }
grep -q "Usage: goscribe scan" "$tmp/out" || { echo "FAIL --help text"; fail=1; }

# A uniform grey picture (a PNG made by hand: 64x48 grey, stored blocks) holds no board.
python3 - "$tmp/blank.png" <<'PY' 2>/dev/null || printf '' >"$tmp/blank.png"
import struct, sys, zlib
w, h = 64, 48
raw = b"".join(b"\x00" + bytes([128, 128, 128]) * w for _ in range(h))
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
open(sys.argv[1], "wb").write(png)
PY
if [ -s "$tmp/blank.png" ]; then
    check "blank image" 2 "$(run "$tmp/blank.png")" "$tmp/err"
else
    echo "skipped: blank image (python3 absent to make the PNG)"
fi

photo="$data/photos/imago/t2/t2_000.jpg"
if [ -f "$photo" ]; then
    rc=$(run "$photo" --overlay "$tmp/ov.png")
    check "real photo" 0 "$rc" "$tmp/err"
    shape=$(awk '{ if (NF != 19) bad = 1; for (i = 1; i <= NF; i++) if ($i !~ /^[.BW][?]?$/) bad = 1 } END { print NR, bad + 0 }' "$tmp/out")
    [ "$shape" = "19 0" ] || { echo "FAIL real photo: output shape $shape, expected 19 lines of 19 tokens"; fail=1; }
    [ -s "$tmp/ov.png" ] || { echo "FAIL overlay not written"; fail=1; }
    rc=$(run "$photo" --json)
    check "json" 0 "$rc" "$tmp/err"
    grep -q '"corners"' "$tmp/out" && grep -q '"confidence"' "$tmp/out" && grep -q '"uncertain"' "$tmp/out" || { echo "FAIL json fields"; fail=1; }
    rc=$(run "$photo" --overlay "$tmp/no/such/dir/ov.png")
    check "overlay unwritable" 1 "$rc" "$tmp/err"
    # --model: the built-in model from its file reads alike; a missing or
    # broken model file is one line naming it
    model="$(dirname "$0")/../vision/points.onnx"
    run "$photo" >/dev/null; cp "$tmp/out" "$tmp/builtin"
    rc=$(run "$photo" --model "$model")
    check "--model vision/points.onnx" 0 "$rc" "$tmp/err"
    cmp -s "$tmp/out" "$tmp/builtin" || { echo "FAIL --model with the built-in model's file reads otherwise"; fail=1; }
    rc=$(run "$photo" --model "$tmp/nope.onnx")
    check "--model missing" 1 "$rc" "$tmp/err"
    grep -q "nope.onnx" "$tmp/err" || { echo "FAIL --model missing: the file is not named"; fail=1; }
    rc=$(run "$photo" --model "$tmp/text.png")
    check "--model not a model" 1 "$rc" "$tmp/err"
else
    echo "skipped: $photo absent (shared data not beside this clone)"
fi
[ "$fail" = 0 ] && echo "cli_scan: all checks passed"
exit $fail
