#!/usr/bin/env bash
# Passes: a rendered game with two passes in the middle (a pass on camera
# is a pause: the board does not show it, the players say it).  Announced
# (`record --pass-at`, the times scripts/truth-passes.py reads from the
# render's truth) each is recorded as a pass and nothing is flagged; not
# announced, the board shows one colour's second stone in a view of its own,
# left while play goes on: an unannounced pass (a note), nothing flagged
# either.  `record`'s summary and `check` of its file count the flagged
# events and the end-of-game signals alike; check reads naturally
# (handicap, a draw).
#   usage: cli_record_pass.sh GOSCRIBE DATA_DIR
set -u
bin=$1
root=$(cd "$(dirname "$0")/.." && pwd)
fail=0
work=$(mktemp -d /tmp/gs-cli-record-pass.XXXXXX)
. "$(dirname "$0")/sgf_corpus.sh"
trap 'keep_all_sgf "$work" cli_record_pass; rm -rf "$work"' EXIT
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; fi; }

for bad in "5" "5:X" "x:W" "-1:B" "5:W;6:B" "5:WB"; do
    "$bin" record "$work" -o "$work/x.sgf" --pass-at "$bad" 2>"$work/bad.err" </dev/null
    rc=$?
    check "--pass-at $bad: exit 1, one line" '[ $rc -eq 1 ] && [ "$(wc -l <"$work/bad.err")" -eq 1 ]'
done

# White passes at move 4, Black at move 9; both confirm the end after move 11
printf '(;GM[1]FF[4]SZ[9]KM[7];B[ee];W[cc];B[gg];W[];B[cg];W[gc];B[ec];W[ce];B[];W[eg];B[dd])\n' >"$work/g.sgf"
"$bin" render "$work/g.sgf" -o "$work/g.avi" --pace 2 --fps 8 --frame-size 480x320 --seed 3 --end confirm -q \
    >/dev/null 2>&1 || { echo "FAIL: render"; exit 1; }
passes=$(python3 "$root/scripts/truth-passes.py" "$work/g.truth.jsonl" "$work/g.truth.sgf")
check "the truth's passes: White's then Black's ($passes)" '[[ $passes =~ ^[0-9.]+:W,[0-9.]+:B$ ]]'

# the colours of the moves, a pass marked p: "B W B Wp ..."
moves() { grep -o ';[BW]\[[a-z]*\]' "$1" | sed 's/^;//; s/\[\]$/p/; s/\[[a-z]*\]$//' | tr '\n' ' '; }
for mode in announced silent; do
    extra=()
    [ $mode = announced ] && extra=(--pass-at "$passes")
    "$bin" record "$work/g.avi" -o "$work/$mode.sgf" --no-evidence --no-stdin "${extra[@]}" \
        >"$work/$mode.log" 2>"$work/$mode.err"
    check "$mode: exit 0" '[ $? -eq 0 ]'
    check "$mode: 11 moves, the two passes where the game has them ($(moves "$work/$mode.sgf"))" \
        '[ "$(moves "$work/$mode.sgf")" = "B W B Wp B W B W Bp W B " ]'
    flags=$(sed -n 's/.*, \([0-9]*\) flagged (referee events), \([0-9]*\) end-of-game signals\{0,1\}, .*/\1 \2/p' "$work/$mode.err")
    checked=$("$bin" check "$work/$mode.sgf" | sed -n 's/^recorded: \([0-9]*\) flagged (referee events\{0,1\}), \([0-9]*\) end-of-game signals\{0,1\}, .*/\1 \2/p')
    check "$mode: record's summary ($flags) = check's count ($checked)" '[ -n "$flags" ] && [ "$flags" = "$checked" ]'
done
check "announced: no double move" '! grep -q "double_move" "$work/announced.sgf" "$work/announced.log"'
check "announced: each pass said as announced" '[ "$(grep -c "passes$" "$work/announced.log")" -eq 2 ]'
check "silent: each pass recorded as an unannounced pass, with a note, no double move" \
    '[ "$(grep -c "passes (not announced)$" "$work/silent.log")" -eq 2 ] && ! grep -q "FLAG double_move" "$work/silent.log"'

# a typed command the recorder cannot take is answered, never taken for
# another: `pass X` is no pass of the side to move (issue 50)
printf 'pass X\nresign Z\n' | "$bin" record "$work/g.avi" -o "$work/typed.sgf" --no-evidence >"$work/typed.log" 2>&1
check "typed: pass X and resign Z refused with a line each" \
    '[ "$(grep -c "unknown command \"\(pass X\|resign Z\)\"" "$work/typed.log")" -eq 2 ]'
check "typed: the moves as without them ($(moves "$work/typed.sgf"))" '[ "$(moves "$work/typed.sgf")" = "$(moves "$work/silent.sgf")" ]'

# check's words: a handicap is a number of stones, a draw is a draw
printf '(;GM[1]FF[4]SZ[9]HA[2]KM[0.5]AB[cg][gc];W[ee];B[cc])\n' >"$work/ha.sgf"
check "check: handicap 2 stones" '"$bin" check "$work/ha.sgf" | head -1 | grep -q ", handicap 2 stones$"'
printf '(;GM[1]FF[4]SZ[5]KM[5]AB[ca][cb][cc][cd][ce]AW[da][db][dc][dd][de])\n' >"$work/draw.sgf"
check "check: a draw said as one" '"$bin" check "$work/draw.sgf" | grep -q "^result: RE\[0\], a draw"'
[ $fail -eq 0 ] || tail -n 20 "$work"/*.log "$work"/*.err
exit $fail
