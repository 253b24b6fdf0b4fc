#!/usr/bin/env bash
# Every command's --help has one layout: "Usage: goscribe CMD ...", an
# "Options:" block and an "Exit codes:" block listing the codes it can
# return, each code worded the same in every command; the top-level help
# lists every code (3 too).  record's help does not promise a count at the
# end of a file unless the game ended; gtp's help lists --black-side and
# every recording option record --help lists (but the live broadcast,
# --final and --check, which gtp refuses); every command lists -h first
# among its options; the top-level help says count takes a grid .txt;
# render's help names every video extension render accepts;
# scripts/gtp-bridge.py --help prints its help (exit 0), a bad value one
# line (exit 1).
#   usage: cli_help.sh GOSCRIBE DATA_DIR
set -u
bin=$1
fail=0
work=$(mktemp -d /tmp/gs-cli-help.XXXXXX)
trap 'rm -rf "$work"' EXIT
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; fi; }

cmds=("" scan count record check calibrate render devices hall gtp bench "bench rules" "bench scan" "bench render"
      "bench record" "bench count")
: >"$work/codes"
for c in "${cmds[@]}"; do
    name=${c:-goscribe}
    # shellcheck disable=SC2086
    "$bin" $c --help >"$work/out" 2>"$work/err"
    rc=$?
    check "$name --help: exit 0 (got $rc)" '[ $rc -eq 0 ] && [ ! -s "$work/err" ]'
    check "$name --help: a Usage line first" 'head -1 "$work/out" | grep -qE "^Usage: goscribe ${c:+$c( |\$)}"'
    check "$name --help: an Options block" 'grep -q "^Options:$" "$work/out"'
    check "$name --help: -h, --help first among the options" \
        '[ "$(sed -n "/^Options:\$/{n;p;q}" "$work/out" | sed "s/  */ /g")" = " -h, --help this text" ] || [ -z "$c" ] ||
         [ "$c" = bench ]'
    check "$name --help: an Exit codes block after it" \
        'awk "/^Options:\$/{o=NR} /^Exit codes:\$/{e=NR} END{exit !(o && e > o)}" "$work/out"'
    # the codes: "  N  words" lines right after "Exit codes:"
    sed -n '/^Exit codes:$/,/^$/p' "$work/out" | grep -E '^  [0-9]  ' >"$work/mine"
    check "$name --help: codes 0 and 1 at least" 'grep -q "^  0  " "$work/mine" && grep -q "^  1  " "$work/mine"'
    cat "$work/mine" >>"$work/codes"
done
# one wording per code over every command
check "each exit code worded alike everywhere ($(sort -u "$work/codes" | tr '\n' '|'))" \
    '[ "$(sort -u "$work/codes" | cut -c1-3 | uniq -d | wc -l)" -eq 0 ]'
"$bin" --help >"$work/top"
for code in 0 1 2 3; do check "top-level help lists exit code $code" 'grep -q "^  $code  " "$work/top"'; done
check "scan and count list code 3" '"$bin" scan --help | grep -q "^  3  " && "$bin" count --help | grep -q "^  3  "'

"$bin" record --help >"$work/record"
check "record --help: no count promised at a file's end" '! grep -q "(and count)" "$work/record"'
check "record --help: a result only when the game ended" 'grep -q "only when it ended" "$work/record"'
"$bin" gtp --help >"$work/gtp"
check "gtp --help: --black-side" 'grep -q -- "--black-side" "$work/gtp"'
# every option record lists before its broadcast block, but --final
sed -n '/^Options:$/,/^Live broadcast/p' "$work/record" | grep -oE '^  (-[a-z], )?--[a-z-]+' | sed 's/.*--/--/' |
    grep -v -e '--final' -e '--check' | sort -u >"$work/recopts"
missing=$(while read -r o; do grep -q -- "$o" "$work/gtp" || echo "$o"; done <"$work/recopts")
check "gtp --help lists every recording option (missing: $missing)" '[ -z "$missing" ] && [ -s "$work/recopts" ]'
check "goscribe --help: count takes a grid .txt" '"$bin" --help | grep -q "^  count .*grid \.txt"'
# the extensions render accepts are those its refusal names (the code's own list)
"$bin" render /nonexistent.sgf -o "$work/x.webm" 2>"$work/ext" >/dev/null
exts=$(sed -n 's/.*unknown extension [^ ]* (\([^;)]*\).*/\1/p' "$work/ext" | grep -o '\.[a-z0-9]*' | sort -u | tr '\n' ' ')
"$bin" render --help | grep -- '-o, --output' >"$work/oline"
missing=$(for e in $exts; do grep -qF -- "$e" "$work/oline" || echo "$e"; done | tr '\n' ' ')
check "render --help names every video extension it accepts ($exts; missing: $missing)" \
    '[ -n "$exts" ] && [ -z "$missing" ] && grep -q "\.mov" <<< "$exts"'
bridge=$(dirname "$0")/../scripts/gtp-bridge.py
out=$(python3 "$bridge" --help 2>&1); rc=$?
check "gtp-bridge.py --help: its help, exit 0 (got $rc: $(head -1 <<< "$out"))" \
    '[ $rc -eq 0 ] && grep -q "^usage: gtp-bridge.py" <<< "$out" && grep -q -- "--person B|W" <<< "$out"'
out=$(python3 "$bridge" --size x -- goscribe gtp x 2>&1); rc=$?
check "gtp-bridge.py --size x: one line, exit 1 (got $rc: $out)" \
    '[ $rc -eq 1 ] && [ "$out" = "gtp-bridge: --size x: expected a number from 5 to 25" ]'
exit $fail
