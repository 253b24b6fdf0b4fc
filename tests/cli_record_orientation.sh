#!/usr/bin/env bash
# A record states its orientation: where Black sat in the camera's picture
# and how that was decided (--black-side, or the default), in the output
# and in the SGF (GSBS[SIDE:given|default] and a root comment line); the
# default stays the picture as it is.  The arms that placed Black's stones
# tell where Black sat: not told, the recorder warns and names the side;
# told otherwise than they say, it warns that the record may be turned.
# The bundled render (samples/games/classic.sgf, the demo's look) has
# Black at the left edge of its picture.
#   usage: cli_record_orientation.sh GOSCRIBE DATA_DIR
set -u
bin=$1
root=$(cd "$(dirname "$0")/.." && pwd)
fail=0
work=$(mktemp -d /tmp/gs-cli-record-orientation.XXXXXX)
. "$(dirname "$0")/sgf_corpus.sh"
trap 'keep_all_sgf "$work" cli_record_orientation; rm -rf "$work"' EXIT
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; fi; }

"$bin" render "$root/samples/games/classic.sgf" -o "$work/c.avi" --moves 20 --pace 2 --fps 10 --frame-size 640x360 -q \
    >/dev/null 2>&1 || { echo "FAIL: render"; exit 1; }
moves_of() { grep -o ';[BW]\[[a-s]*\]' "$1" | tr -d ';[]' | tr '\n' ' '; }
for side in default left right; do
    extra=()
    [ $side != default ] && extra=(--black-side $side)
    "$bin" record "$work/c.avi" -o "$work/$side.sgf" --no-stdin --no-evidence "${extra[@]}" >"$work/$side.log" \
        2>"$work/$side.err"
    check "$side: exit 0" '[ $? -eq 0 ]'
done
# the default: the picture as it is, said so, and a warning naming the side
check "default: GSBS[near:default]" 'grep -q "GSBS\[near:default\]" "$work/default.sgf"'
check "default: the root comment says it was not told" 'grep -q "C\[Orientation: not told where Black sat" "$work/default.sgf"'
check "default: the output says so" 'grep -q "^orientation: Black at the bottom edge of the picture, near the camera (the default: not told)$" "$work/default.err"'
check "default: warns with the side the arms say (left)" \
    'grep -q "^goscribe: warning: not told where Black sat; the arms placing Black.s stones came from the left edge of the picture ([0-9]* of [0-9]*), not its bottom edge: if Black sat there, record with --black-side left" "$work/default.err"'
check "default: the note in the log too" 'grep -q "the arms placing Black.s stones came from the left edge" "$work/default.log"'
# told where Black sat, and the arms agree: no warning, the record is the game
check "left: GSBS[left:given]" 'grep -q "GSBS\[left:given\]" "$work/left.sgf"'
check "left: the output says it was given" 'grep -q "^orientation: Black at the left edge of the picture (given by --black-side)$" "$work/left.err"'
check "left: no warning" '! grep -q "warning" "$work/left.err"'
check "left: the record is the rendered game move for move" '[ "$(moves_of "$work/left.sgf")" = "$(moves_of "$work/c.truth.sgf")" ]'
# told otherwise: a warning that the record may be turned wrong
check "right: warns that the arms came from the left" \
    'grep -q "^goscribe: warning: told that Black sat at the right edge of the picture (--black-side right), but the arms placing Black.s stones came from the left edge" "$work/right.err"'
[ $fail -eq 0 ] || tail -n 3 "$work"/*.err
exit $fail
