#!/usr/bin/env bash
# Short fuzz run of image loading (header sizing, the pixel budget, OpenCV's
# decoders) as part of the suite: tests/fuzz/image_fuzz.c built with
# libFuzzer + ASan + UBSan by scripts/fuzz-input.sh and run on its seeds
# for GS_FUZZ_SECONDS (default 15).  Fails on any crash, sanitizer report
# or leak.  Arguments (binary, data dir) are unused.  Skipped in the
# suite's sanitizer pass: the target is a sanitizer build of its own.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v clang >/dev/null; then echo "skipped: clang not installed (scripts/deps.txt lists it)"; exit 0; fi
if [ -n "${GS_SANITIZED:-}" ]; then echo "note: already run in the plain suite (a sanitizer build of its own)"; exit 0; fi
exec "$root/scripts/fuzz-input.sh" --check image "${GS_FUZZ_SECONDS:-15}"
