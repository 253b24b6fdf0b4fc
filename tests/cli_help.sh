#!/usr/bin/env bash
# Every command's --help has one layout: "Usage: goscribe CMD ...", an
# "Options:" block and an "Exit codes:" block listing the codes it can
# return, each code worded the same in every command; the top-level help
# lists every code (3 too).  record's help does not promise a count at the
# end of a file unless the game ended; gtp's help lists --black-side and
# every recording option record --help lists (but the live broadcast and
# --final, which gtp refuses).
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
    grep -v -- '--final' | sort -u >"$work/recopts"
missing=$(while read -r o; do grep -q -- "$o" "$work/gtp" || echo "$o"; done <"$work/recopts")
check "gtp --help lists every recording option (missing: $missing)" '[ -z "$missing" ] && [ -s "$work/recopts" ]'
exit $fail
