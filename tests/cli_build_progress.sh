#!/usr/bin/env bash
# The demo (the README's first command) builds first, which takes about a
# minute on 2 cores with the compiler's output in a log: scripts/build.sh
# says what it is doing before each long step and when it is done, so the
# user does not stare at a silent terminal.  cmake is stood in for by a
# script that only notes it was called (nothing is rebuilt here).
#   usage: cli_build_progress.sh GOSCRIBE DATA_DIR
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
fail=0
work=$(mktemp -d /tmp/gs-cli-build-progress.XXXXXX)
trap 'rm -rf "$work"' EXIT
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; fi; }
mkdir "$work/bin"
printf '#!/bin/sh\ncase "$*" in *--build*) echo "CMAKE-BUILD" ;; *) echo "CMAKE-CONFIGURE" ;; esac\n' >"$work/bin/cmake"
chmod +x "$work/bin/cmake"
[ -x "$root/build/goscribe" ] || { echo "skipped: no build/goscribe beside the scripts"; exit 0; }
# build.sh sends the configure step to /dev/null and the build to its log:
# what the terminal shows is build.sh's own words; the log is kept aside
cp "$root/build/build.log" "$work/build.log.keep" 2>/dev/null
PATH="$work/bin:$PATH" bash "$root/scripts/build.sh" >"$work/out" 2>&1
rc=$?
[ -f "$work/build.log.keep" ] && cp "$work/build.log.keep" "$root/build/build.log"
sed 's/^/    /' "$work/out"
check "build.sh exit 0 (got $rc)" '[ $rc -eq 0 ]'
check "it says it configures before configuring" 'grep -q "^build: configuring" "$work/out"'
check "it says it compiles, how long that takes and where the log is, before the build" \
    'grep -q "^build: compiling goscribe .*about a minute.*log: build/build.log" "$work/out"'
check "and that it is done, in how long" 'grep -q "^build: done in [0-9]* s" "$work/out"'
exit $fail
