#!/usr/bin/env bash
# The options several commands share mean one thing and are checked in one
# place (cli/opts.c): --size is a board size everywhere (9, 13 or 19, what
# the board search finds; 5..25 only where a grid is given), refused before
# anything is read with one line naming the command and what it accepts;
# --corners, --komi, --max-pixels, --seed, --settle say the same in every
# command; render's picture size is --frame-size.
#   usage: cli_options.sh GOSCRIBE DATA_DIR
set -u
bin=$1
fail=0
work=$(mktemp -d /tmp/gs-cli-options.XXXXXX)
trap 'rm -rf "$work"' EXIT
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; fi; }
# refused CMD WANT ARGS...: exit 1, one line "goscribe: CMD: ..." holding WANT
refused() {
    local cmd=$1 want=$2; shift 2
    "$bin" "$@" </dev/null >/dev/null 2>"$work/err"
    local rc=$?
    check "$* -> exit 1 (got $rc)" '[ $rc -eq 1 ]'
    check "$* -> one line" '[ "$(wc -l <"$work/err")" -eq 1 ]'
    check "$* -> names $cmd and says '$want' ($(cat "$work/err"))" \
        'grep -q "^goscribe: $cmd: " "$work/err" && grep -qF -- "$want" "$work/err"'
}
missing=$work/absent.jpg
sizes="expected 9, 13 or 19"
for s in 7 25 abc 0; do
    # the source does not exist: the size is refused first, before any reading
    refused scan "$sizes" scan "$missing" --size $s
    refused calibrate "$sizes" calibrate "$missing" -o "$work/c.cal" --size $s
    refused record "$sizes" record "$missing" -o "$work/r.sgf" --size $s
    refused gtp "$sizes" gtp "$missing" -o "$work/g.sgf" --size $s
    refused count "$sizes" count "$missing" --size $s
    refused "bench record" "$sizes" bench record "$missing" --size $s
done
refused "bench rules" "expected a board size from 5 to 25" bench rules --size 26
# with a grid given, other sizes are fine (the error is then the missing file)
"$bin" scan "$missing" --size 7 --corners 1,1,100,1,100,100,1,100 2>"$work/err" >/dev/null
check "scan --size 7 with --corners: accepted (the file is what is missing)" '! grep -q -- "--size" "$work/err"'
"$bin" record "$missing" -o "$work/r.sgf" --size 7 --corners 1,1,100,1,100,100,1,100 2>"$work/err" >/dev/null </dev/null
check "record --size 7 with --corners: accepted" '! grep -q -- "--size" "$work/err"'
for c in scan calibrate record; do
    extra=(); [ $c != scan ] && extra=(-o "$work/x.out")
    refused $c "expected 8 numbers X1,Y1,X2,Y2,X3,Y3,X4,Y4" $c "$missing" "${extra[@]}" --corners 1,2,3
    refused $c "expected a number of pixels (1 to 10^12)" $c "$missing" "${extra[@]}" --max-pixels 0
done
refused record "expected a komi in SGF points" record "$missing" -o "$work/r.sgf" --komi x
refused count "expected a komi in SGF points" count "$missing" --komi x
refused check "expected a komi in SGF points" check "$missing" --komi x
refused count "expected a whole number from 0 to 2147483647" count "$missing" --seed -1
refused render "expected a whole number from 0 to 2147483647" render "$missing" -o "$work/v.avi" --seed -1
refused record "expected seconds from 0.01 to 60" record "$missing" -o "$work/r.sgf" --settle 0
refused "bench record" "expected seconds from 0.01 to 60" bench record "$missing" --settle 0
refused record "needs a value" record "$missing" -o "$work/r.sgf" --size
refused render "unknown option --size" render "$missing" -o "$work/v.avi" --size 640x360
refused render "expected WxH from 64x48 to 7680x4320" render "$missing" -o "$work/v.avi" --frame-size 10x10
refused "bench render" "expected WxH from 64x48 to 7680x4320" bench render --frame-size 10x10
# an option alone keeps bench scan's default photos (../shared/data/photos),
# which a folder without them names
here=$PWD; case $bin in /*) ;; *) bin=$here/$bin ;; esac
cd "$work" || exit 1
refused "bench scan" "no photos given and ../shared/data/photos not found" bench scan --repeat 1
cd "$here" || exit 1
# photos that cannot be read leave nothing to time: an error, not a median of none
: >"$work/empty.jpg"
printf 'not a jpeg' >"$work/broken.jpg"
refused "bench scan" "none of the 2 photos could be read" bench scan "$work/empty.jpg" "$work/broken.jpg" --repeat 1
refused hall "expected [ADDR:]PORT" hall --serve 70000
refused record "expected [ADDR:]PORT" record "$missing" -o "$work/r.sgf" --serve 70000
refused hall "expected a whole number from 1 to 512" hall --serve 0 --max-per-client 0
refused record "expected a whole number from 1 to 512" record "$missing" -o "$work/r.sgf" --serve 0 --max-per-client 0
exit $fail
