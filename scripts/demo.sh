#!/usr/bin/env bash
# The README's main command: installs what is missing, builds, then runs the
# main job on the bundled default: the first moves of a public-domain classic
# (samples/games/classic.sgf) are rendered as synthetic camera footage with
# hands and lighting changes, goscribe records that video to SGF, and the
# record is compared with the game that was rendered.
#   scripts/demo.sh [MOVES]      (default 30 moves; output in build/demo/)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
moves=${1:-30}
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
gs="$root/build/goscribe"
out="$root/build/demo"
rm -rf "$out" && mkdir -p "$out"
echo "== rendering the first $moves moves of the bundled classic game (camera footage with hands) =="
"$gs" render "$root/samples/games/classic.sgf" -o "$out/classic.avi" --moves "$moves" --pace 2 --fps 10 --frame-size 960x540
# The camera of the bundled render looks at the board from White's left:
# in its picture Black sits at the left edge.  Said with --black-side, the
# record comes out the right way round, Black's side at the bottom.
# A pass is a pause on camera: the players say it.  The render's truth says
# when each pass of the game came, announced to the recorder as the
# players would (--pass-at SEC:B|W; none in the opening of this game).
passes=$(python3 "$root/scripts/truth-passes.py" "$out/classic.truth.jsonl" "$out/classic.truth.sgf")
echo "== recording the video: goscribe record $out/classic.avi -o $out/game.sgf --black-side left${passes:+ --pass-at $passes} =="
"$gs" record "$out/classic.avi" -o "$out/game.sgf" --no-stdin -q --black-side left ${passes:+--pass-at "$passes"} \
  --black "Shusaku,4d" --white "Inoue Gennan Inseki,8d" --event "Demo: the ear-reddening game (1846)"
echo "== comparing the record with the rendered game =="
moves_of() { grep -o ';[BW]\[[a-s]*\]' "$1" | tr -d ';[]'; }
n=$(moves_of "$out/classic.truth.sgf" | wc -l)
same=$(paste -d' ' <(moves_of "$out/classic.truth.sgf") <(moves_of "$out/game.sgf") | awk '$1 == $2' | wc -l)
got=$(moves_of "$out/game.sgf" | wc -l)
echo "$same of $n rendered moves recorded exactly ($got moves in the record)"
status=0
if [ "$same" -ne "$n" ] || [ "$got" -ne "$n" ]; then
  echo "demo: the record differs from the rendered game (see $out/game.sgf)" >&2
  status=1
fi
# the game is not over after these moves: the record must not claim a result
if grep -q 'RE\[' "$out/game.sgf"; then
  echo "demo: the record of an unfinished game has a result: $(grep -o 'RE\[[^]]*\]' "$out/game.sgf")" >&2
  status=1
fi
[ $status -eq 0 ] && echo "demo: OK, the record matches the game move for move and has no result (the game goes on): $out/game.sgf"
exit $status
