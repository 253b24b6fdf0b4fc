#!/usr/bin/env bash
# tests/cli_man.sh GOSCRIBE [DATA]: every command's --help and its man page
# (doc/goscribe-CMD.1) name the same long options.
#   - the commands are those `goscribe --help` lists under "Commands:", and
#     each has a page; doc/goscribe.1 names every page;
#   - from the help: the --words on the option lines (indented at most 4
#     columns, starting with '-') of every block whose heading, at column 0
#     and ending in ':', says "options" ("Options:", "Recording options (...):",
#     "Camera options:"); a description's continuation lines are indented
#     deeper and do not count.  bench adds each mode's help (`bench MODE
#     --help`, the modes listed under "Modes:");
#   - from the page: the --words on the tag line of each .TP/.TQ of the
#     OPTIONS section (\- read as -, font escapes dropped);
#   - --help and --version are left out on both sides (every command has them);
#     every page lists -h, --help among its options;
#   - rendered by man at 80 columns (when man is there): an option's tag line
#     holds the option and its argument only (no words of its description
#     wrapped onto a line of their own), and bench's page lists each mode of
#     `goscribe bench --help` on a line of its own.
# Prints the options missing on each side and fails when any is.
set -u
gs=${1:?usage: cli_man.sh GOSCRIBE}
doc=$(cd "$(dirname "$0")/../doc" && pwd)
fail=0
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

help_options() { # help text on stdin -> long options, one a line
  awk '
    /^[^ \t].*:[ \t]*$/ { inblk = (tolower($0) ~ /options/); next }
    /^[^ \t]/ { inblk = 0; next }
    inblk && /^ +-/ {
      match($0, /^ +/); if (RLENGTH > 4) next
      line = $0
      while (match(line, /--[a-z0-9][-a-z0-9]*/)) {
        print substr(line, RSTART, RLENGTH); line = substr(line, RSTART + RLENGTH)
      }
    }'
}

man_options() { # man page -> long options of its OPTIONS section's tags
  awk '
    /^\.SH/ { inopt = ($0 ~ /OPTIONS/); tag = 0; next }
    inopt && /^\.T[PQ]/ { tag = 1; next }
    tag {
      tag = 0; line = $0
      gsub(/\\-/, "-", line); gsub(/\\f[BIRP]/, "", line); gsub(/\\f\(..|\\f\[[^]]*\]/, "", line)
      while (match(line, /--[a-z0-9][-a-z0-9]*/)) {
        print substr(line, RSTART, RLENGTH); line = substr(line, RSTART + RLENGTH)
      }
    }' "$1"
}

"$gs" --help > "$work/top.txt" 2>&1
cmds=$(awk '/^Commands:/ { c = 1; next } /^[^ \t]/ { c = 0 } c && /^  [a-z]/ { print $1 }' "$work/top.txt")
if [ -z "$cmds" ]; then echo "FAIL: no commands under \"Commands:\" in goscribe --help"; exit 1; fi
[ -f "$doc/goscribe.1" ] || { echo "FAIL: doc/goscribe.1 missing"; fail=1; }

for c in $cmds; do
  page=$doc/goscribe-$c.1
  if [ ! -f "$page" ]; then echo "FAIL: $c: no man page doc/goscribe-$c.1"; fail=1; continue; fi
  if [ -f "$doc/goscribe.1" ] && ! grep -q "goscribe\\\\-$c" "$doc/goscribe.1"; then
    echo "FAIL: doc/goscribe.1 does not name goscribe-$c"; fail=1
  fi
  "$gs" "$c" --help > "$work/$c.help" 2>&1
  if [ "$c" = bench ]; then
    for m in $(awk '/^Modes:/ { m = 1; next } /^[^ \t]/ { m = 0 } m && /^  [a-z]/ { print $1 }' "$work/$c.help"); do
      "$gs" bench "$m" --help >> "$work/$c.help" 2>&1
    done
  fi
  help_options < "$work/$c.help" | grep -vx -e --help -e --version | sort -u > "$work/$c.h"
  man_options "$page" | grep -vx -e --help -e --version | sort -u > "$work/$c.m"
  if [ ! -s "$work/$c.h" ] && [ "$c" != devices ]; then
    echo "FAIL: $c: no options found in its --help (has its layout changed?)"; fail=1
  fi
  only_help=$(comm -23 "$work/$c.h" "$work/$c.m" | tr '\n' ' ')
  only_man=$(comm -13 "$work/$c.h" "$work/$c.m" | tr '\n' ' ')
  if [ -n "$only_help" ]; then echo "FAIL: $c: in --help, not in doc/goscribe-$c.1: $only_help"; fail=1; fi
  if [ -n "$only_man" ]; then echo "FAIL: $c: in doc/goscribe-$c.1, not in --help: $only_man"; fail=1; fi
  [ -z "$only_help$only_man" ] && echo "ok: $c: $(wc -l < "$work/$c.h") options agree"
  if ! grep -q '^\\fB\\-h\\fR, \\fB\\-\\-help\\fR$' "$page"; then echo "FAIL: $c: doc/goscribe-$c.1 does not list -h, --help"; fail=1; fi
  if command -v man >/dev/null 2>&1; then
    MANWIDTH=80 man -l "$page" 2>/dev/null > "$work/$c.txt"
    # the OPTIONS section's lines at the tags' indent (7) are tags, each starting with -
    odd=$(awk '/^[A-Z]/ { o = ($0 ~ /^OPTIONS/) } o && /^       [^ -]/' "$work/$c.txt")
    if [ -n "$odd" ]; then echo "FAIL: $c: at 80 columns a tag line runs onto a line of its own: $odd"; fail=1; fi
  fi
done
if command -v man >/dev/null 2>&1; then
  for m in $(awk '/^Modes:/ { m = 1; next } /^[^ \t]/ { m = 0 } m && /^  [a-z]/ { print $1 }' "$work/bench.help"); do
    grep -qE "^ {7}$m {2,}[^ ]" "$work/bench.txt" || { echo "FAIL: bench: mode $m is not on a line of its own in man goscribe-bench"; fail=1; }
  done
else
  echo "note: man absent: the pages' layout at 80 columns not checked"
fi
exit $fail
