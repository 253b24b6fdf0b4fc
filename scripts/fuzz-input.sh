#!/usr/bin/env bash
# Fuzzing of what goscribe reads from users besides SGF (scripts/fuzz-sgf.sh):
#   scripts/fuzz-input.sh calib|image [SECONDS]   long run (default 600 s)
#   scripts/fuzz-input.sh --build calib|image DIR builds DIR/NAME_fuzz only
#   scripts/fuzz-input.sh --check calib|image [SECONDS]
#                                                 the suite's short run (15 s;
#                                                 tests/cli_fuzz_NAME.sh)
# calib: tests/fuzz/calib_fuzz.c, the calibration reader and the reading of
# a board on the grids it accepts (calib/, vision/read.c); image:
# tests/fuzz/image_fuzz.c, header sizing and decoding under the pixel budget
# (cvshim/, OpenCV's decoders).  Built with clang, libFuzzer + ASan + UBSan;
# the C++ shim is compiled with -fsanitize=fuzzer-no-link so its code is
# covered, OpenCV itself is the system's.  A long run keeps its corpus in
# build-fuzz/NAME-corpus (seeds: tests/fuzz/NAME_corpus), crashing inputs in
# build-fuzz/NAME-artifacts/, and reports executions, coverage and crashes.
# Exit 1 if anything crashed.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
san=(-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined)
cflags=(-g -O1 -D_DEFAULT_SOURCE -DGS_VERSION='"fuzz"' -I"$root")

# build NAME DIR: DIR/NAME_fuzz, the compiler's messages in DIR/NAME-build.log
build() {
    local name=$1 dir=$2 log=$2/$1-build.log
    mkdir -p "$dir"
    case $name in
    calib)
        clang -std=c11 "${cflags[@]}" "${san[@]}" "$root/tests/fuzz/calib_fuzz.c" "$root"/calib/calib.c \
            "$root"/calib/validate.c "$root"/vision/read*.c "$root"/vision/params.c "$root"/vision/grid_common.c \
            "$root"/vision/grid_geom.c \
            "$root"/core/*.c -lpng -lm -o "$dir/calib_fuzz" >"$log" 2>&1 ;;
    image)
        # shellcheck disable=SC2046
        clang++ -std=c++17 "${cflags[@]}" -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined \
            $(pkg-config --cflags opencv4) -c "$root/cvshim/cvshim.cpp" -o "$dir/cvshim.o" >"$log" 2>&1 &&
        # shellcheck disable=SC2046
        clang++ "${cflags[@]}" "${san[@]}" -x c -std=c11 "$root/tests/fuzz/image_fuzz.c" "$root"/cvshim/image_header.c \
            "$root"/cvshim/image_load.c "$root"/core/*.c -x none "$dir/cvshim.o" \
            $(pkg-config --libs opencv4) -lpng -lm -o "$dir/image_fuzz" >>"$log" 2>&1 ;;
    *) echo "unknown fuzz target $name (calib or image)" >"$log"; return 1 ;;
    esac
}

if [ "${1:-}" = --build ]; then
    build "${2:?target}" "${3:?directory}" || { cat "$3/$2-build.log"; exit 1; }
    exit 0
fi
if [ "${1:-}" = --check ]; then
    # a short run in a temporary directory; the seeds stay as written
    name=${2:?target}
    secs=${3:-15}
    tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
    build "$name" "$tmp" || { echo "FAIL: cannot build the $name fuzz target"; cat "$tmp/$name-build.log"; exit 1; }
    mkdir "$tmp/corpus"
    "$tmp/${name}_fuzz" -max_total_time="$secs" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$tmp/" "$tmp/corpus" "$root/tests/fuzz/${name}_corpus" >"$tmp/log" 2>&1
    rc=$?
    runs=$(grep -o 'Done [0-9]* runs' "$tmp/log" | tail -1)
    cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$tmp/log" | tail -1)
    if [ $rc -ne 0 ] || ls "$tmp"/crash-* "$tmp"/leak-* "$tmp"/timeout-* "$tmp"/oom-* >/dev/null 2>&1; then
        echo "FAIL: $name fuzzer exit $rc"; tail -60 "$tmp/log"
        for f in "$tmp"/crash-* "$tmp"/leak-* "$tmp"/timeout-* "$tmp"/oom-*; do
            [ -f "$f" ] && { echo "input $f:"; od -c "$f" | head -20; }
        done
        exit 1
    fi
    echo "ok   $name fuzz ${secs}s: ${runs:-?}, ${cov:-?}, no crash"
    exit 0
fi
name=${1:?usage: fuzz-input.sh calib|image [SECONDS]}
secs=${2:-600}
out=$root/build-fuzz
mkdir -p "$out/$name-corpus" "$out/$name-artifacts"
build "$name" "$out" || { echo "cannot build the fuzz target:"; cat "$out/$name-build.log"; exit 1; }
log=$out/$name-fuzz.log
start=$(date +%s)
"$out/${name}_fuzz" -max_total_time="$secs" -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$out/$name-artifacts/" \
    "$out/$name-corpus" "$root/tests/fuzz/${name}_corpus" >"$log" 2>&1
rc=$?
end=$(date +%s)
crashes=$(find "$out/$name-artifacts" -type f | wc -l)
echo "$name fuzz: $((end - start)) s wall, exit $rc"
grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log"
echo "last status: $(grep -E '^#[0-9]+' "$log" | tail -1)"
echo "corpus: $(ls "$out/$name-corpus" | wc -l) inputs; crash/leak/timeout artifacts: $crashes (in $out/$name-artifacts)"
grep -q -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:' "$log" && echo "sanitizer reports: $(grep -c -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:' "$log")"
[ $rc -eq 0 ] && [ "$crashes" -eq 0 ] || { echo "FAILED: see $log"; exit 1; }
echo "no crash, no sanitizer report"
