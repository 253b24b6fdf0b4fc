#!/usr/bin/env bash
# Configures and builds goscribe into build/ (or build-asan/ with --asan).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=build; extra=()
if [ "${1:-}" = "--asan" ]; then dir=build-asan; extra=(-DGS_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug); fi
# the build prints nothing of its own (its log is $dir/build.log): say what
# it is doing, as the first one takes a while
t0=$(date +%s)
echo "build: configuring $dir/ (cmake)..."
cmake -S "$root" -B "$root/$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${extra[@]}" >/dev/null
echo "build: compiling goscribe and its tests into $dir/ on $(nproc) cores (the first build takes about a minute on 2 cores; log: $dir/build.log)..."
cmake --build "$root/$dir" -j "$(nproc)" -- --no-print-directory >"$root/$dir/build.log" 2>&1 || { grep -E -v "^\[|^gmake" "$root/$dir/build.log" >&2; echo "build failed (full log: $dir/build.log)" >&2; exit 1; }
test -x "$root/$dir/goscribe"
echo "build: done in $(( $(date +%s) - t0 )) s: $dir/goscribe"
