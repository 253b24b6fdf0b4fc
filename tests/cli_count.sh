#!/usr/bin/env bash
# goscribe count: errors, the dead-stone modes on a real KGS game, the SGF it
# writes (read back by count and by check), and a real photo against its
# ground-truth grid.
set -u
gs=$1
data=$2
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
oneline() { [ "$(wc -l < "$1")" = 1 ]; }
# field FILE KEY[.SUB]: the value as JSON text (one vocabulary: doc/json.md)
field() { python3 -c 'import json,sys
v=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): v=v[k]
print(json.dumps(v, separators=(",", ":")))' "$1" "$2" 2>/dev/null; }
. "$(dirname "$0")/sgf_corpus.sh"
tmp=$(mktemp -d); trap 'keep_all_sgf "$tmp" cli_count; rm -rf "$tmp"' EXIT

"$gs" count --help | grep -q -- '--dead' && ok help || bad help
"$gs" count 2> "$tmp/err"; [ $? -eq 1 ] && oneline "$tmp/err" && ok "no input" || bad "no input"
"$gs" count "$tmp/missing.sgf" 2> "$tmp/err"; [ $? -eq 1 ] && oneline "$tmp/err" && ok "missing sgf" || bad "missing sgf"
"$gs" count "$tmp/missing.jpg" 2> "$tmp/err"; [ $? -eq 1 ] && oneline "$tmp/err" && ok "missing photo" || bad "missing photo"
echo "not an sgf" > "$tmp/junk.sgf"
"$gs" count "$tmp/junk.sgf" 2> "$tmp/err"; rc=$?
[ $rc -ne 0 ] && [ $rc -lt 128 ] && oneline "$tmp/err" && ok "junk sgf" || bad "junk sgf (rc $rc)"
: > "$tmp/empty.jpg"
"$gs" count "$tmp/empty.jpg" 2> "$tmp/err"; rc=$?
[ $rc -ne 0 ] && [ $rc -lt 128 ] && oneline "$tmp/err" && ok "empty photo" || bad "empty photo (rc $rc)"
"$gs" count x.sgf --frobnicate 2> "$tmp/err"; [ $? -eq 1 ] && oneline "$tmp/err" && ok "unknown option" || bad "unknown option"
"$gs" count x.sgf --komi abc 2> "$tmp/err"; [ $? -eq 1 ] && oneline "$tmp/err" && ok "bad komi" || bad "bad komi"
"$gs" count x.sgf --dead 2> "$tmp/err"; [ $? -eq 1 ] && oneline "$tmp/err" && ok "--dead without value" || bad "--dead without value"

# A hand-made finished 9x9 grid: walls two stones thick (a finished game's
# board is mostly stones), one dead stone of each side.
cat > "$tmp/split.txt" <<'EOF'
. . B B W W . . .
. . B B W W . . .
. . B B W W . . .
. . B B W W . . .
. W B B W W . B .
. . B B W W . . .
. . B B W W . . .
. . B B W W . . .
. . B B W W . . .
EOF
"$gs" count "$tmp/split.txt" > "$tmp/out" && ok "grid counts" || bad "grid counts"
grep -q "ESTIMATE .* players must confirm" "$tmp/out" && ok "estimate marked" || { bad "estimate marked"; cat "$tmp/out"; }
grep -q "White wins by 8 1/4 stones (W+16.5)" "$tmp/out" && ok "grid result" || { bad "grid result"; cat "$tmp/out"; }
grep -q "^Score: W+16.5 (sure)$" "$tmp/out" && ok "grid: nothing in doubt, the score sure" || { bad "grid score"; cat "$tmp/out"; }
"$gs" count "$tmp/split.txt" --plausible 2 2> "$tmp/err"; [ $? -eq 1 ] && oneline "$tmp/err" && ok "--plausible 2 refused" || bad "--plausible 2 refused"
# every stone alive: 43 dame, not finished, never sure (exit 3)
"$gs" count "$tmp/split.txt" --dead none --json > "$tmp/out" 2>/dev/null; rc=$?
[ $rc -eq 3 ] && [ "$(field "$tmp/out" result)" = '"W+7.5"' ] \
  && ok "--dead none" || { bad "--dead none (exit $rc)"; cat "$tmp/out"; }
"$gs" count "$tmp/split.txt" --dead B5,he --json > "$tmp/out" && [ "$(field "$tmp/out" result)" = '"W+16.5"' ] \
  && ok "--dead points (human and SGF)" || { bad "--dead points"; cat "$tmp/out"; }
"$gs" count "$tmp/split.txt" --dead A1 2> "$tmp/err"; [ $? -eq 1 ] && oneline "$tmp/err" && ok "--dead on an empty point" || bad "--dead on an empty point"
"$gs" count "$tmp/split.txt" --dead Z99 2> "$tmp/err"; [ $? -eq 1 ] && oneline "$tmp/err" && ok "--dead off the board" || bad "--dead off the board"
"$gs" count "$tmp/split.txt" --dead marks 2> "$tmp/err"; [ $? -eq 1 ] && oneline "$tmp/err" && ok "--dead marks needs an sgf" || bad "--dead marks needs an sgf"
"$gs" count "$tmp/split.txt" --corners 1,1,9,1,9,9,1,9 2> "$tmp/err"; [ $? -eq 1 ] && oneline "$tmp/err" && ok "--corners needs a photo" || bad "--corners needs a photo"
"$gs" count "$tmp/split.txt" --komi 5.5 --json > "$tmp/out" && [ "$(field "$tmp/out" result)" = '"W+14.5"' ] \
  && ok "--komi" || { bad "--komi"; cat "$tmp/out"; }
"$gs" count "$tmp/split.txt" --handicap 2 --json > "$tmp/out" && [ "$(field "$tmp/out" komi)" = 0 ] \
  && ok "--handicap: no komi by default" || { bad "--handicap"; cat "$tmp/out"; }
"$gs" count "$tmp/split.txt" --handicap 50 2> "$tmp/err"; [ $? -eq 1 ] && oneline "$tmp/err" && ok "--handicap 50 refused" || bad "--handicap 50 refused"
# A board that does not look finished says so before the figures.
"$gs" count "$tmp/split.txt" --dead none > "$tmp/out"
[ "$(grep -n 'NOT FINISHED' "$tmp/out" | cut -d: -f1)" = 2 ] && grep -q "43 dame points" "$tmp/out" \
  && ok "unfinished board said first" || { bad "unfinished board said first"; cat "$tmp/out"; }
"$gs" count "$tmp/split.txt" --dead none --json > "$tmp/out" 2>/dev/null
[ "$(field "$tmp/out" finished)" = false ] && [ "$(field "$tmp/out" result_sure)" = false ] \
  && ok "json: finished false, never sure" || { bad "json: finished false"; cat "$tmp/out"; }
# The SGF it writes holds the position, TB/TW and RE: read back, same count.
"$gs" count "$tmp/split.txt" --sgf "$tmp/out.sgf" > /dev/null && grep -q 'RE\[W+16.5\]' "$tmp/out.sgf" \
  && grep -q 'TB\[' "$tmp/out.sgf" && ok "--sgf writes RE and TB/TW" || bad "--sgf writes RE and TB/TW"
"$gs" count "$tmp/out.sgf" --dead marks --json > "$tmp/out" && [ "$(field "$tmp/out" result)" = '"W+16.5"' ] \
  && ok "--sgf read back with --dead marks" || { bad "--sgf read back"; cat "$tmp/out"; }
if "$gs" check --json "$tmp/out.sgf" > "$tmp/check" 2>/dev/null; then
  grep -q '"result":"W+16.5"' "$tmp/check" && ok "check agrees on the written SGF" || { bad "check agrees"; cat "$tmp/check"; }
fi

# scan's output counted: its '?' marks are doubt (either other colour next),
# the range said; a bad character is one line naming the file once
sed '5s/^\. W /. W? /' "$tmp/split.txt" > "$tmp/marked.txt"
"$gs" count "$tmp/marked.txt" --json > "$tmp/out" 2>/dev/null; rc=$?
[ $rc -eq 0 ] && [ "$(field "$tmp/out" read_uncertain)" = '["be"]' ] && [ "$(field "$tmp/out" result)" = '"W+16.5"' ] \
  && ok "scan's text with '?' counted (the doubt listed)" || { bad "scan's text with '?' (exit $rc)"; cat "$tmp/out"; }
printf '. B . . .\n. B Z . .\n. . . . .\n. . . . .\n. . . . .\n' > "$tmp/badchar.txt"
"$gs" count "$tmp/badchar.txt" 2> "$tmp/err"; rc=$?
[ $rc -eq 1 ] && oneline "$tmp/err" && [ "$(grep -o "$tmp/badchar.txt" "$tmp/err" | wc -l)" = 1 ] \
  && grep -q "line 2: unexpected character 'Z'" "$tmp/err" && ok "a bad grid: the file named once" || { bad "bad grid message"; cat "$tmp/err"; }
# the range from the smaller win to the larger, on the Score line and stderr;
# 3: not sure, though the winner is
cat > "$tmp/dame.txt" <<'EOF'
. . B B . W W . .
. . B B . W W . .
. . B B . W W . .
. . B B . W W . .
. . B B .? W W . .
. . B B . W W . .
. . B B . W W . .
. . B B . W W . .
. . B B . W W . .
EOF
"$gs" count "$tmp/dame.txt" --dead none > "$tmp/out" 2> "$tmp/err"; rc=$?
[ $rc -eq 3 ] && grep -q "^Score: W+7.5, between W+6.5 and W+8.5: White wins either way; points that move it: E5$" "$tmp/out" \
  && grep -q "the count is not sure: W+6.5 to W+8.5 " "$tmp/err" \
  && ok "a range with one winner: exit 3, said from the smaller win to the larger" || { bad "range order (exit $rc)"; cat "$tmp/out" "$tmp/err"; }
# scan's JSON with "second_p": a point in doubt whose other colour is
# less likely than --plausible (default 0.05) is counted as read and said
# left out; one as likely as a place in doubt (0.45) enters the range
scan_json() { # P: dame.txt as scan --json, E5 in doubt, its second colour B with probability P
  python3 -c 'import json,sys
rows=[l.replace("?","").split() for l in open(sys.argv[1]) if l.strip()]
sp=[[0.0]*9 for _ in rows]; sp[4][4]=float(sys.argv[2])
sec=[["."]*9 for _ in rows]; sec[4][4]="B"
print(json.dumps({"size":9,"rows":[" ".join(r) for r in rows],"second":[" ".join(r) for r in sec],
  "second_p":sp,"uncertain":["ee"]}))' "$tmp/dame.txt" "$1"
}
scan_json 0.01 > "$tmp/unlikely.json"; scan_json 0.45 > "$tmp/likely.json"
"$gs" count "$tmp/unlikely.json" --dead none > "$tmp/out" 2>/dev/null; rc=$?
[ $rc -eq 0 ] && grep -q "^Score: W+7.5 (sure but for 1 point read with doubt whose other colour is under 5 % likely)$" "$tmp/out" \
  && grep -q "^Left out of the range (.*--plausible): .*E5" "$tmp/out" \
  && ok "second_p 0.01: left out of the range, said" || { bad "second_p 0.01 (exit $rc)"; cat "$tmp/out"; }
"$gs" count "$tmp/unlikely.json" --dead none --plausible 0 > "$tmp/out" 2>/dev/null; rc=$?
[ $rc -eq 3 ] && grep -q "^Score: W+7.5, between W+6.5 and W+7.5: .*E5$" "$tmp/out" \
  && ok "--plausible 0: every point in doubt in the range" || { bad "--plausible 0 (exit $rc)"; cat "$tmp/out"; }
"$gs" count "$tmp/likely.json" --dead none > "$tmp/out" 2>/dev/null; rc=$?
[ $rc -eq 3 ] && grep -q "^Score: W+7.5, between W+6.5 and W+7.5: .*E5$" "$tmp/out" \
  && ok "second_p 0.45: in the range" || { bad "second_p 0.45 (exit $rc)"; cat "$tmp/out"; }
sed 's/0.45/1.5/' "$tmp/likely.json" > "$tmp/badp.json"
"$gs" count "$tmp/badp.json" 2> "$tmp/err"; [ $? -eq 1 ] && oneline "$tmp/err" && grep -q "second_p" "$tmp/err" \
  && ok "a second_p that is no probability refused" || { bad "bad second_p"; cat "$tmp/err"; }
# the overlay of a grid or an SGF: a diagram of the board
"$gs" count "$tmp/split.txt" --overlay "$tmp/d.png" > /dev/null && [ "$(head -c 4 "$tmp/d.png" | tail -c 3)" = PNG ] \
  && ok "--overlay of a grid: a diagram" || bad "--overlay of a grid"
"$gs" count "$tmp/split.txt" --sgf "$tmp/d.sgf" > /dev/null && "$gs" count "$tmp/d.sgf" --overlay "$tmp/e.png" > /dev/null \
  && [ "$(head -c 4 "$tmp/e.png" | tail -c 3)" = PNG ] && ok "--overlay of an SGF: a diagram" || bad "--overlay of an SGF"
# an opening counted as it stands: never sure, and said
printf '. . . . . . . . .\n. . . . . . . . .\n. . B . . . B . .\n. . . . . . . . .\n. . . . B . . . .\n. . . . . . . . .\n. . B . . . B . .\n. . . . . . . . .\n. . . . . . . . .\n' > "$tmp/opening.txt"
"$gs" count "$tmp/opening.txt" > "$tmp/out" 2> "$tmp/err"; rc=$?
[ $rc -eq 3 ] && grep -q "^NOT FINISHED? 5 stones on 81 points" "$tmp/out" \
  && grep -q "^Score: B+73.5 (not sure: the game does not look finished)$" "$tmp/out" \
  && ok "an opening: counted with a warning, never sure (exit 3)" || { bad "an opening (exit $rc)"; cat "$tmp/out"; }
"$gs" count "$tmp/none.jpg" --serve 0 --token short 2> "$tmp/err"; [ $? -eq 1 ] && oneline "$tmp/err" \
  && grep -q "token must have 8 to 64" "$tmp/err" && ok "--serve: a bad token refused" || { bad "--serve: a bad token"; cat "$tmp/err"; }
"$gs" count "$tmp/opening.txt" --serve 0 2> "$tmp/err"; [ $? -eq 1 ] && oneline "$tmp/err" \
  && grep -q "serve needs a photo" "$tmp/err" && ok "--serve of a grid refused" || { bad "--serve of a grid"; cat "$tmp/err"; }
"$gs" count "$tmp/opening.txt" --token abcdefghij 2> "$tmp/err"; [ $? -eq 1 ] && oneline "$tmp/err" \
  && grep -q "go with --serve" "$tmp/err" && ok "--token without --serve refused" || bad "--token without --serve"

kgs=$data/games/kgs
if [ -d "$kgs" ]; then
  f=$kgs/tournament8/GNU-AyaBot.sgf
  "$gs" count "$f" --dead marks --json > "$tmp/marks" && [ "$(field "$tmp/marks" result)" = '"W+0.5"' ] \
    && ok "kgs --dead marks gives RE" || { bad "kgs --dead marks"; cat "$tmp/marks"; }
  "$gs" count "$f" --dead auto --json > "$tmp/auto" && [ "$(field "$tmp/auto" result)" = '"W+0.5"' ] \
    && [ "$(field "$tmp/auto" dead_points)" = "$(field "$tmp/marks" dead_points)" ] \
    && ok "kgs --dead auto finds the marks' dead stones" || { bad "kgs --dead auto"; cat "$tmp/auto"; }
  [ "$(field "$tmp/auto" estimate)" = true ] && ok "json says estimate" || bad "json says estimate"
  # without --dead an SGF with marks is counted as `check` counts it
  "$gs" count "$f" --json > "$tmp/dflt" && [ "$(field "$tmp/dflt" dead_mode)" = '"marks"' ] \
    && [ "$(field "$tmp/dflt" result)" = "$("$gs" check --json "$f" > "$tmp/chk" && field "$tmp/chk" result)" ] \
    && ok "count = check on a file with marks" || { bad "count = check"; cat "$tmp/dflt"; }
  "$gs" count "$f" --dead E4 --json > "$tmp/pts" && [ "$(field "$tmp/pts" result)" = '"W+0.5"' ] \
    && ok "kgs --dead E4" || { bad "kgs --dead E4"; cat "$tmp/pts"; }
else
  echo "skipped: $kgs absent"
fi

photo=$data/photos/imago/t2/t2_101
if [ -f "$photo.jpg" ]; then
  # 0: no reading the doubt allows changes the result; 3: one does, the
  # range said
  rc=0; "$gs" count "$photo.jpg" --dead none --json --overlay "$tmp/ov.png" > "$tmp/p" 2> "$tmp/pe" || rc=$?
  case $rc in
    0) [ "$(field "$tmp/p" result_sure)" = true ] && [ "$(field "$tmp/p" result_low)" = "$(field "$tmp/p" result)" ] \
         && ok "photo counts, sure" || bad "exit 0 with a range" ;;
    3) [ "$(field "$tmp/p" result_sure)" = false ] \
         && { [ "$(field "$tmp/p" read_uncertain_count)" != 0 ] || [ "$(field "$tmp/p" finished)" = false ]; } \
         && grep -q "the count is not sure" "$tmp/pe" \
         && ok "photo counts, its range said (exit 3)" || { bad "exit 3 without the range said"; cat "$tmp/pe"; } ;;
    *) bad "photo counts (exit $rc)" ;;
  esac
  "$gs" count "$photo.txt" --dead none --json > "$tmp/g" 2>/dev/null; [ $? -eq 3 ] || bad "grid counts (not finished: exit 3)"
  for k in result area stones dame; do
    [ "$(field "$tmp/p" $k)" = "$(field "$tmp/g" $k)" ] && ok "photo = grid: $k" || { bad "photo = grid: $k"; grep "\"$k\"" "$tmp/p" "$tmp/g"; }
  done
  [ -s "$tmp/ov.png" ] && [ "$(head -c 4 "$tmp/ov.png" | tail -c 3)" = PNG ] && ok "overlay png" || bad "overlay png"
  [ "$(field "$tmp/p" read)" = '{"B":49,"W":48}' ] && ok "photo: stones read" || { bad "photo: stones read"; cat "$tmp/p"; }
  "$gs" count "$photo.jpg" --dead none > "$tmp/pt"
  grep -q "^NOT FINISHED? 97 stones on 361 points" "$tmp/pt" && ok "photo of a game going on said so" || { bad "photo not finished"; cat "$tmp/pt"; }
else
  echo "skipped: $photo.jpg absent"
fi

gw=$data/photos/goban-watcher/game1/1_jwerth_green_1
if [ -f "$gw.jpg" ]; then
  rc_p=0; "$gs" count "$gw.jpg" --json > "$tmp/p" 2>/dev/null || rc_p=$?
  # scan's output, text and JSON, counted as the photo is (JSON: the same
  # range and exit code, sure or not, whatever the reading's doubt)
  "$gs" scan "$gw.jpg" --json > "$tmp/scan.json" 2>/dev/null
  "$gs" count "$tmp/scan.json" --json > "$tmp/s" 2>/dev/null; rc=$?
  for k in result read_uncertain result_low result_high; do
    [ $rc -eq $rc_p ] && [ "$(field "$tmp/p" $k)" = "$(field "$tmp/s" $k)" ] && ok "scan --json counted as the photo: $k" \
      || bad "scan --json counted: $k (exit $rc, the photo's $rc_p)"
  done
  # scan's text has no probabilities: each '?' enters the range, as for
  # the photo counted with --plausible 0
  "$gs" scan "$gw.jpg" > "$tmp/scan.txt" 2>/dev/null
  rc_p0=0; "$gs" count "$gw.jpg" --plausible 0 --json > "$tmp/p0" 2>/dev/null || rc_p0=$?
  "$gs" count "$tmp/scan.txt" --json > "$tmp/t" 2>/dev/null; rc=$?
  [ $rc -eq $rc_p0 ] && [ "$(field "$tmp/p0" read_uncertain)" = "$(field "$tmp/t" read_uncertain)" ] \
    && [ "$(field "$tmp/p0" result_low)" = "$(field "$tmp/t" result_low)" ] \
    && [ "$(field "$tmp/p0" result_high)" = "$(field "$tmp/t" result_high)" ] \
    && [ "$(field "$tmp/p" result)" = "$(field "$tmp/t" result)" ] && ok "scan's text counted as the photo: its '?' points in doubt" \
    || bad "scan's text counted (exit $rc, the photo's with --plausible 0 $rc_p0)"
  # --plausible: what it leaves out is listed and said on the Score line.
  # At 1 every point in doubt on the photo is left out; the photo is the
  # first of game 2 that scan reads with doubt (exit 3), which one hangs
  # on the model
  doubtful=
  for f in "$data"/photos/goban-watcher/game2/*.jpg; do
    "$gs" scan "$f" > /dev/null 2>&1; [ $? -eq 3 ] && { doubtful=$f; break; }
  done
  if [ -n "$doubtful" ]; then
    "$gs" count "$doubtful" --plausible 1 > "$tmp/out" 2>/dev/null
    grep -q "^Left out of the range (.*--plausible)" "$tmp/out" && grep -Eq "^Score: .*whose other colour is under 100 % likely" "$tmp/out" \
      && ok "--plausible: the points left out said" || { bad "--plausible ($doubtful)"; cat "$tmp/out"; }
  else
    bad "--plausible: no photo of goban-watcher game 2 read with doubt to count"
  fi
  # --corners: the board read where its corners are said to be
  corners=$(python3 -c 'import json,sys; print(",".join("%.1f,%.1f" % tuple(c) for c in json.load(open(sys.argv[1]))["corners"]))' "$tmp/scan.json")
  "$gs" count "$gw.jpg" --corners "$corners" --json > "$tmp/c" 2>/dev/null; rc=$?
  [ $rc -le 3 ] && [ "$(field "$tmp/c" read)" = "$(field "$tmp/p" read)" ] && ok "--corners: the same board read" \
    || bad "--corners (exit $rc)"
  "$gs" count "$gw.jpg" --corners 1,1,2,1,2,2,1,2 2> "$tmp/err"; [ $? -eq 1 ] && oneline "$tmp/err" \
    && grep -q -- "--corners: the four corners" "$tmp/err" && ok "--corners: a degenerate quad refused" || { bad "--corners degenerate"; cat "$tmp/err"; }
  "$gs" count "$gw.jpg" --corners 1,1,9000,1,9000,9000,1,9000 2> "$tmp/err"; [ $? -eq 1 ] && oneline "$tmp/err" \
    && grep -q "outside the" "$tmp/err" && ok "--corners: outside the photo refused" || { bad "--corners outside"; cat "$tmp/err"; }
else
  echo "skipped: $gw.jpg absent"
fi
exit $fail
