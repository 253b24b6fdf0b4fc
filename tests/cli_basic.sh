#!/usr/bin/env bash
# Command-line contract: help, version, exit codes, one-line errors.
set -u
gs=$1
fail=0
check() { # name expected_rc actual_rc
  if [ "$2" != "$3" ]; then echo "FAIL $1: exit $3, expected $2"; fail=1; else echo "ok   $1"; fi
}
oneline() { # name file: stderr must be exactly one line
  n=$(wc -l < "$2")
  if [ "$n" != 1 ]; then echo "FAIL $1: $n lines on stderr"; cat "$2"; fail=1; else echo "ok   $1 (one line)"; fi
}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$gs" --version > "$tmp/out"; check version 0 $?
grep -q '^goscribe [0-9]' "$tmp/out" || { echo "FAIL version text"; fail=1; }
"$gs" --help > /dev/null; check help 0 $?
"$gs" > /dev/null 2>&1; check no-command 1 $?
"$gs" frobnicate 2> "$tmp/err"; check unknown-command 1 $?; oneline unknown-command "$tmp/err"
for c in scan count record check calibrate render bench devices hall; do
  "$gs" $c --help > /dev/null; check "$c --help" 0 $?
done
: > "$tmp/empty.jpg"
"$gs" scan "$tmp/empty.jpg" 2> "$tmp/err"; rc=$?
[ $rc -ne 0 ] && [ $rc -lt 128 ]; check "scan empty file" 0 $?; oneline "scan empty file" "$tmp/err"
"$gs" scan "$tmp/missing.jpg" 2> "$tmp/err"; rc=$?
[ $rc -ne 0 ] && [ $rc -lt 128 ]; check "scan missing file" 0 $?; oneline "scan missing file" "$tmp/err"
exit $fail
