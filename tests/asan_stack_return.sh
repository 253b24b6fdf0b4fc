#!/usr/bin/env bash
# The ASan run (scripts/test.sh, GS_SANITIZED=1) catches a read of a stack
# frame that has returned (ASAN_OPTIONS detect_stack_use_after_return=1):
# drivers/stack_escape reads one and must be stopped with that report.
# Without the option the sanitized suite let gtp's dead player names through
# (issue 40).  A plain build has no sanitizer to ask: skipped.
#   usage: asan_stack_return.sh STACK_ESCAPE
set -u
if [ -z "${GS_SANITIZED:-}" ]; then echo "skipped: not the sanitizer run (GS_SANITIZED unset)"; exit 0; fi
out=$("$1" 2>&1); rc=$?
if [ $rc -ne 0 ] && grep -q "stack-use-after-return" <<< "$out"; then
    echo "ok: a read of a returned stack frame is reported (ASAN_OPTIONS=${ASAN_OPTIONS:-})"
    exit 0
fi
echo "FAIL: the sanitizer run does not catch a stack-use-after-return (exit $rc; ASAN_OPTIONS=${ASAN_OPTIONS:-}"\
") : it needs detect_stack_use_after_return=1"
sed 's/^/    /' <<< "$out" | head -5
exit 1
