#!/usr/bin/env bash
# Short fuzz run of the SGF reader (sgf/sgf*.c) as part of the suite:
# builds tests/fuzz/sgf_fuzz.c with libFuzzer + ASan + UBSan and runs it on
# the seed corpus for GS_FUZZ_SECONDS (default 25).  Fails on any crash,
# sanitizer report or leak.  Arguments (binary, data dir) are unused.  Skipped in the
# suite's sanitizer pass: the target is a sanitizer build of its own.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${GS_FUZZ_SECONDS:-25}
if ! command -v clang > /dev/null; then
  echo "skipped: clang not installed (scripts/deps.txt lists it)"; exit 0
fi
# the target is a sanitizer build of its own: the suite's sanitizer pass
# would run the same fuzzing again
if [ -n "${GS_SANITIZED:-}" ]; then echo "note: already run in the plain suite (a sanitizer build of its own)"; exit 0; fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if ! clang -g -O1 -std=c11 -D_DEFAULT_SOURCE -DGS_VERSION='"fuzz"' -I"$root" \
     -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
     "$root/tests/fuzz/sgf_fuzz.c" "$root"/sgf/sgf*.c "$root"/rules/points.c "$root"/core/gs.c "$root"/core/buf.c "$root"/core/file.c -lm \
     -o "$tmp/sgf_fuzz" 2> "$tmp/build.log"; then
  echo "FAIL: cannot build the fuzz target"; cat "$tmp/build.log"; exit 1
fi
mkdir -p "$tmp/corpus"
# New inputs go to the temp corpus; the seeds in tests/fuzz/corpus stay as written.
"$tmp/sgf_fuzz" -max_total_time="$secs" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$tmp/" \
    "$tmp/corpus" "$root/tests/fuzz/corpus" > "$tmp/log" 2>&1
rc=$?
runs=$(grep -o 'Done [0-9]* runs' "$tmp/log" | tail -1)
cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$tmp/log" | tail -1)
if [ $rc -ne 0 ] || ls "$tmp"/crash-* "$tmp"/leak-* "$tmp"/timeout-* > /dev/null 2>&1; then
  echo "FAIL: fuzzer exit $rc"; tail -60 "$tmp/log"
  for f in "$tmp"/crash-* "$tmp"/leak-* "$tmp"/timeout-*; do [ -f "$f" ] && { echo "input $f:"; od -c "$f" | head -20; }; done
  exit 1
fi
echo "ok   sgf fuzz ${secs}s: ${runs:-?}, ${cov:-?}, no crash"
exit 0
