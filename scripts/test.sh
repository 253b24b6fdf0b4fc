#!/usr/bin/env bash
# The README's test command: installs what is missing, checks the layering,
# builds, runs every test, then runs the suite again under AddressSanitizer
# + UBSan.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
start=$SECONDS
"$root/scripts/install-deps.sh"
# The layering (no include circles, no include from a lower stage to a
# higher one, no other folder's private header) before anything is built.
python3 "$root/scripts/check-layers.py" "$root"
t=$SECONDS
"$root/scripts/build.sh"
# One test more than there are cores: many tests spend part of their time
# waiting (a camera in real time, servers, timeouts, sleeps), and the longest
# start first (tests/CMakeLists.txt, COST).
jobs=$(( $(nproc) + 1 ))
(cd "$root/build" && ctest --output-on-failure -j "$jobs")
plain=$((SECONDS - t))
echo "== plain build and suite: $plain s; again under AddressSanitizer + UBSan =="
t=$SECONDS
"$root/scripts/build.sh" --asan
# detect_stack_use_after_return: a pointer into a returned frame (gtp's
# player names once) is caught, not read as garbage; options already set in
# the environment are kept (ASan takes the last of a repeated one).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1:halt_on_error=1"
(cd "$root/build-asan" && GS_SANITIZED=1 ctest --output-on-failure -j "$jobs")
echo "== all passed in $((SECONDS - start)) s (plain build and suite $plain s, sanitized $((SECONDS - t)) s)"
