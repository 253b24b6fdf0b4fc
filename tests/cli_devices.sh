#!/usr/bin/env bash
# `goscribe devices`: lists cameras, or says "no cameras found" (exit 2);
# a missing camera for `record` is one line and exit 1.
#   usage: cli_devices.sh GOSCRIBE DATA_DIR
set -u
bin=$1
fail=0
"$bin" devices --help | grep -q 'Usage: goscribe devices' || { echo "FAIL: devices --help"; fail=1; }
out=$("$bin" devices 2>&1); rc=$?
if ls /dev/video* >/dev/null 2>&1; then
    [ $rc -eq 0 ] || [ $rc -eq 2 ] || { echo "FAIL: devices exit $rc"; fail=1; }
else
    [ $rc -eq 2 ] || { echo "FAIL: devices without cameras: exit $rc"; fail=1; }
    [ "$out" = "goscribe: devices: no cameras found" ] || { echo "FAIL: devices said: $out"; fail=1; }
fi
"$bin" devices --bogus >/dev/null 2>&1; [ $? -eq 1 ] || { echo "FAIL: devices --bogus"; fail=1; }
out=$("$bin" record /dev/video93 -o /tmp/gs-never.sgf 2>&1 </dev/null); rc=$?
[ $rc -eq 1 ] || { echo "FAIL: missing camera exit $rc"; fail=1; }
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || { echo "FAIL: missing camera: more than one line: $out"; fail=1; }
[ -e /tmp/gs-never.sgf ] && { echo "FAIL: SGF written for a missing camera"; fail=1; }
exit $fail
