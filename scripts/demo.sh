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
"$gs" render "$root/samples/games/classic.sgf" -o "$out/classic.avi" --moves "$moves" --pace 2 --fps 10 --size 960x540
echo "== recording the video: goscribe record $out/classic.avi -o $out/game.sgf =="
"$gs" record "$out/classic.avi" -o "$out/game.sgf" --no-stdin -q
echo "== comparing the record with the rendered game =="
# The camera cannot know which board edge the SGF calls the top, so the
# record may be a rotation or reflection of the original: try all eight.
moves_of() { grep -o ';[BW]\[[a-s][a-s]\]' "$1" | tr -d ';[]'; }
if paste -d' ' <(moves_of "$out/classic.truth.sgf") <(moves_of "$out/game.sgf") | awk -v n="$(moves_of "$out/classic.truth.sgf" | wc -l)" '
  BEGIN { a = "abcdefghijklmnopqrs" }
  function c(ch) { return index(a, ch) - 1 }
  NF == 2 { for (t = 0; t < 8; t++) {
      x = c(substr($1,2,1)); y = c(substr($1,3,1));
      if (t % 2) { s = x; x = y; y = s }
      if (int(t / 2) % 2) x = 18 - x
      if (int(t / 4)) y = 18 - y
      if (substr($1,1,1) == substr($2,1,1) && x == c(substr($2,2,1)) && y == c(substr($2,3,1))) ok[t]++ }
    rows++ }
  END { best = 0; for (t = 0; t < 8; t++) if (ok[t] > best) best = ok[t];
        printf "%d of %d rendered moves recorded exactly (up to the board'"'"'s orientation)\n", best, n;
        exit !(best == n && rows == n) }'; then
  echo "demo: OK, the record matches the game move for move: $out/game.sgf"
else
  echo "demo: the record differs from the rendered game (see $out/game.sgf)" >&2
  exit 1
fi
