#!/usr/bin/env bash
# Long fuzz run of the SGF reader: scripts/fuzz-sgf.sh [SECONDS] (default 600).
# Builds tests/fuzz/sgf_fuzz.c with libFuzzer + ASan + UBSan into build-fuzz/,
# keeps the grown corpus in build-fuzz/sgf-corpus (seeds: tests/fuzz/corpus),
# writes crashing inputs to build-fuzz/sgf-artifacts/ and reports executions,
# coverage and crashes.  Exit 1 if anything crashed.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-600}
out="$root/build-fuzz"
mkdir -p "$out/sgf-corpus" "$out/sgf-artifacts"
clang -g -O1 -std=c11 -D_DEFAULT_SOURCE -DGS_VERSION='"fuzz"' -I"$root" \
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  "$root/tests/fuzz/sgf_fuzz.c" "$root"/sgf/sgf*.c "$root"/rules/points.c "$root"/core/gs.c "$root"/core/buf.c "$root"/core/file.c -lm \
  -o "$out/sgf_fuzz" || { echo "cannot build the fuzz target"; exit 1; }
log="$out/sgf-fuzz.log"
start=$(date +%s)
"$out/sgf_fuzz" -max_total_time="$secs" -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix="$out/sgf-artifacts/" \
  "$out/sgf-corpus" "$root/tests/fuzz/corpus" > "$log" 2>&1
rc=$?
end=$(date +%s)
crashes=$(find "$out/sgf-artifacts" -type f | wc -l)
echo "sgf fuzz: $((end - start)) s wall, exit $rc"
grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log"
echo "last status: $(grep -E '^#[0-9]+' "$log" | tail -1)"
echo "corpus: $(ls "$out/sgf-corpus" | wc -l) inputs; crash/leak/timeout artifacts: $crashes (in $out/sgf-artifacts)"
[ $rc -eq 0 ] && [ "$crashes" -eq 0 ] || { echo "FAILED: see $log"; exit 1; }
echo "no crash, no sanitizer report"
