#!/usr/bin/env bash
# goscribe check: text and JSON output on a real KGS game, options, errors.
set -u
gs=$1
data=$2
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
. "$(dirname "$0")/sgf_corpus.sh"
tmp=$(mktemp -d); trap 'keep_all_sgf "$tmp" cli_check; rm -rf "$tmp"' EXIT
"$gs" check --help > /dev/null && ok help || bad help
"$gs" check 2> "$tmp/err"; [ $? -eq 1 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && ok "no file" || bad "no file"
"$gs" check "$tmp/missing.sgf" 2> "$tmp/err"; [ $? -eq 1 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && ok "missing file" || bad "missing file"
"$gs" check x.sgf --komi abc 2> "$tmp/err"; [ $? -eq 1 ] && ok "bad komi" || bad "bad komi"
printf '\377\330\377\340\000\020JFIF\000' > "$tmp/photo.jpg"
"$gs" check "$tmp/photo.jpg" 2> "$tmp/err"; rc=$?
[ $rc -eq 1 ] && grep -q "not an SGF file" "$tmp/err" && ok "a photo: not an SGF file" || { bad "a photo (rc $rc)"; cat "$tmp/err"; }
echo "not an sgf" > "$tmp/junk.sgf"
"$gs" check "$tmp/junk.sgf" 2> "$tmp/err"; rc=$?
[ $rc -ne 0 ] && [ $rc -lt 128 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && ok "junk file" || bad "junk file (rc $rc)"
# A hand-made game: suicide and ko retake are listed as illegal.
cat > "$tmp/bad.sgf" <<'SGF'
(;GM[1]FF[4]SZ[9]KM[7.5]RU[Chinese]AB[bc][cb][cd]AW[db][ec][dd]
;B[dc];W[cc];B[dc];W[aa];B[ba];W[ab])
SGF
"$gs" check --json "$tmp/bad.sgf" > "$tmp/out" && ok "bad.sgf runs" || bad "bad.sgf runs"
grep -q '"illegal_count":1' "$tmp/out" && grep -q '"rule":"ko"' "$tmp/out" && ok "ko listed" || { bad "ko listed"; cat "$tmp/out"; }
# Real games, when the shared data is there.
kgs=$data/games/kgs
if [ -d "$kgs" ]; then
  f=$kgs/tournament8/GNU-AyaBot.sgf
  "$gs" check --json "$f" > "$tmp/out" || bad "check json rc"
  for key in '"result":"W+0.5"' '"area":{"B":44,"W":37}' '"dame":0' '"komi":7.5' '"illegal":\[\]' '"events":\[' '"matches_record":true'; do
    grep -q "$key" "$tmp/out" && ok "json $key" || { bad "json $key"; cat "$tmp/out"; }
  done
  "$gs" check "$f" | grep -q "recorded RE\[W+0.50\]: matches" && ok "text matches" || bad "text matches"
  "$gs" check --komi 5.5 --json "$f" | grep -q '"result":"B+1.5"' && ok "--komi" || bad "--komi"
  # every game is covered by tests/test_rules_kgs.c through the same
  # rules_replay(); here one more file with dead stones, to keep this short.
  "$gs" check --json "$kgs/maproom-gnugo3pt6.sgf" | grep -q '"matches_record":true' && ok "maproom RE" || bad "maproom RE"
else
  echo "skipped: $kgs absent"
fi
exit $fail
