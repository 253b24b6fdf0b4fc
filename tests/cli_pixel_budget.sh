#!/usr/bin/env bash
# The pixel budget from the command line: a 1.2 MB PNG that decodes to
# 20000 x 20000 (2.4 GB of pixels) is refused by scan, count, calibrate and
# record with one line and exit 1, before decoding (the process stays
# small); --max-pixels and GOSCRIBE_MAX_PIXELS move the budget; nonsense
# values are refused; a broken photo is one line with the decoder's reason.
#   usage: cli_pixel_budget.sh GOSCRIBE DATA_DIR
set -u
bin=$1
fail=0
if ! command -v python3 >/dev/null; then echo "skipped: python3 absent"; exit 0; fi
work=$(mktemp -d /tmp/gs-cli-budget.XXXXXX)
trap 'rm -rf "$work"' EXIT
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; fi; }

# A valid PNG of 20000 x 20000 black RGB pixels in 1.2 MB: one deflate block
# of 100 zero rows, flushed so it stands alone, repeated 200 times.
python3 - "$work/huge.png" <<'EOF'
import struct, sys, zlib
def chunk(t, d):
    return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
n = 20000
row = bytes(1 + 3 * n)
c = zlib.compressobj(9, zlib.DEFLATED, -15)
block = c.compress(row * 100) + c.flush(zlib.Z_FULL_FLUSH)
adler = 1
for _ in range(n):
    adler = zlib.adler32(row, adler)
idat = b'\x78\xda' + block * (n // 100) + zlib.compressobj(9, zlib.DEFLATED, -15).flush() + struct.pack('>I', adler)
with open(sys.argv[1], 'wb') as f:
    f.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', n, n, 8, 2, 0, 0, 0)) +
            chunk(b'IDAT', idat) + chunk(b'IEND', b''))
EOF
echo "huge.png: $(stat -c %s "$work/huge.png") bytes"

# run_rss OUT CMD...: runs CMD with its stderr in OUT, prints "EXIT MAXRSS_KB"
run_rss() {
    local out=$1; shift
    python3 -c 'import resource, subprocess, sys
with open(sys.argv[1], "w") as e:
    rc = subprocess.call(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=e, stdin=subprocess.DEVNULL)
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$out" "$@"
}

mkdir "$work/folder"
cp "$work/huge.png" "$work/folder/1.png"
for cmd in "scan $work/huge.png" "count $work/huge.png" "calibrate $work/huge.png -o $work/x.cal"; do
    # shellcheck disable=SC2086
    read -r rc rss <<<"$(run_rss "$work/err" "$bin" $cmd)"
    name=${cmd%% *}
    check "$name: exit 1 (got $rc)" '[ "$rc" = 1 ]'
    check "$name: one line" '[ "$(wc -l <"$work/err")" -eq 1 ]'
    check "$name: names the budget" 'grep -q "huge.png: 20000 x 20000 PNG is 400000000 pixels, over the pixel budget of 50000000" "$work/err"'
    check "$name: refused before decoding (max RSS $rss KB)" '[ "$rss" -lt 400000 ]'
    echo "$name: exit $rc, max RSS $((rss / 1024)) MB: $(cat "$work/err")"
done
read -r rc rss <<<"$(run_rss "$work/err" "$bin" record "$work/folder" -o "$work/r.sgf" --no-stdin --no-evidence)"
# (a folder none of whose photos can be read: exit 1, as scan says of the
# photo, one line with its reason; issue 50's one rule)
check "record of a folder of it: the photo refused (exit 1 as scan, got $rc)" \
    '[ "$rc" = 1 ] && [ "$(wc -l <"$work/err")" -eq 1 ] && grep -q "over the pixel budget" "$work/err"'
check "record: refused before decoding (max RSS $rss KB)" '[ "$rss" -lt 400000 ]'

# the budget moves: --max-pixels, then GOSCRIBE_MAX_PIXELS
printf '(;GM[1]FF[4]SZ[9];B[ee])\n' >"$work/g.sgf"
"$bin" render "$work/g.sgf" -o "$work/frames" --frame-size 320x240 --frames 1 >/dev/null 2>&1 || { echo "FAIL: render"; exit 1; }
small=$work/frames/frame_000000.png
out=$("$bin" scan "$small" --max-pixels 76799 2>&1); rc=$?
check "scan --max-pixels 76799: exit 1 (got $rc)" '[ $rc -eq 1 ]'
check "scan --max-pixels 76799: says so" 'case $out in *"320 x 240 PNG is 76800 pixels, over the pixel budget of 76799"*) true ;; *) false ;; esac'
"$bin" scan "$small" --max-pixels 76800 >/dev/null 2>&1; rc=$?
check "scan --max-pixels 76800: not refused (exit $rc)" '[ $rc -ne 1 ]'
GOSCRIBE_MAX_PIXELS=1000 "$bin" scan "$small" >/dev/null 2>"$work/err"; rc=$?
check "GOSCRIBE_MAX_PIXELS=1000: exit 1" '[ $rc -eq 1 ] && grep -q "over the pixel budget of 1000" "$work/err"'
GOSCRIBE_MAX_PIXELS=1000 "$bin" scan "$small" --max-pixels 76800 >/dev/null 2>&1; rc=$?
check "--max-pixels wins over GOSCRIBE_MAX_PIXELS (exit $rc)" '[ $rc -ne 1 ]'
"$bin" render "$work/g.sgf" -o "$work/v.avi" --frame-size 320x240 --frames 5 >/dev/null 2>&1
out=$("$bin" record "$work/v.avi" -o "$work/v.sgf" --max-pixels 1000 --no-stdin 2>&1); rc=$?
check "record --max-pixels 1000 on a video: exit 1" '[ $rc -eq 1 ]'
check "record: the video's frames named" 'case $out in *"320 x 240 video frames are 76800 pixels, over the pixel budget of 1000"*) true ;; *) false ;; esac'
# a header that passes and data that does not: the decoder's complaint
# becomes the reason on the one line (OpenCV would print it on its own)
printf 'P6\n16 12\n255\n/garbage' >"$work/cut.ppm"
"$bin" scan "$work/cut.ppm" >/dev/null 2>"$work/err"; rc=$?
check "broken PPM: exit 1 with one line (got $rc)" '[ $rc -eq 1 ] && [ "$(wc -l <"$work/err")" -eq 1 ]'
check "broken PPM: the decoder's reason given" 'grep -q "not a readable image (broken or unsupported format: Unexpected end of input stream)" "$work/err"'
for cmd in scan count calibrate record; do
    out=()
    case $cmd in calibrate | record) out=(-o "$work/y") ;; esac
    for bad in 0 -5 abc 1e3 ""; do
        "$bin" $cmd "$small" "${out[@]}" --max-pixels "$bad" >/dev/null 2>"$work/err" </dev/null; rc=$?
        check "$cmd --max-pixels '$bad': exit 1 with one line about it" \
            '[ $rc -eq 1 ] && [ "$(wc -l <"$work/err")" -eq 1 ] && grep -q -- "--max-pixels" "$work/err"'
    done
    "$bin" $cmd --help | grep -q -- '--max-pixels N' || { echo "FAIL: $cmd --help lacks --max-pixels"; fail=1; }
done
exit $fail
