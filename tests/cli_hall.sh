#!/usr/bin/env bash
# tests/cli_hall.sh GOSCRIBE [DATA]: `goscribe hall --config`, a club
# evening from a CSV of pairings (tests/pairings/club-r3.csv): four rendered
# 9x9 games recorded at once, one recorder process a board, at full speed.
#   - a bad config or pairing file: exit 1, one line FILE:LINE: problem;
#   - --check prints the plan with the pairing's names;
#   - each record is exactly the game played, with the pairing's PB PW BR
#     WR, the handicap and komi, EV RO PC, and its result;
#   - one recorder killed (SIGKILL) mid-game: the others and the hall go
#     on, its file stays valid with every move saved, the feed says
#     "unfinished";
#   - the round's feed with curl: names in round.json, an unchanged poll
#     answers 304 (If-None-Match and If-Modified-Since), the round's SGF
#     holds the four games with their results;
#   - the JSON keys are doc/json.md's (tests/json_vocabulary.py).
# The network part skips without curl or libmicrohttpd.
set -u
gs=${1:?usage: cli_hall.sh GOSCRIBE}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/sgf_corpus.sh"
. "$here/hall_games.sh"
readme=$here/../doc/json.md
work=$(mktemp -d /tmp/gs-hall.XXXXXX)
hpid=
fail=0
cleanup() {
  [ -n "$hpid" ] && kill -INT "$hpid" 2>/dev/null && wait "$hpid" 2>/dev/null
  keep_all_sgf "$work/games" cli_hall
  keep_sgf "$work/round.sgf" cli_hall-round_feed
  rm -rf "$work"
}
trap cleanup EXIT
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }

# ---- bad input: one line naming the file and the line, exit 1
cp "$here/pairings/club-r3.csv" "$work/pairs.csv"
expect_error() { # LABEL CONFIG-TEXT EXPECTED-START
  printf '%b' "$2" > "$work/bad.conf"
  local out rc
  out=$("$gs" hall --config "$work/bad.conf" --check 2>&1); rc=$?
  if [ $rc -eq 1 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && [[ "$out" == "goscribe: $3"* ]]; then ok "$1"
  else bad "$1: exit $rc: $out"; fi
}
expect_error "unknown key" 'pairings = pairs.csv\nsorce = x.avi\n' "$work/bad.conf:2: unknown key 'sorce'"
expect_error "board not paired" 'pairings = pairs.csv\n[board 9]\nsource = x.avi\n' "$work/bad.conf:2: board 9 is not in the round's pairings"
expect_error "a board without a source" 'pairings = pairs.csv\n[board 1]\nsgf = a.sgf\n' "$work/bad.conf:2: [board 1] has no source"
expect_error "the hall's own option" 'pairings = pairs.csv\noptions = --black X\n' "$work/bad.conf:2: options: --black is the hall's to give"
expect_error "a bad delay" 'delay = 5 hours\n' "$work/bad.conf:1: delay: expected seconds or minutes"
printf 'board,black,white,handicap\n1,A,B,0\n2,C,D,ten\n' > "$work/badpairs.csv"
expect_error "a malformed CSV" 'pairings = badpairs.csv\n[board 1]\nsource = x.avi\n' "$work/badpairs.csv:3: handicap is not 0..9: 'ten'"
printf '<Tournament>\n<Players>\n</Tournament>\n' > "$work/bad.xml"
expect_error "a malformed OpenGotha file" 'pairings = bad.xml\n[board 1]\nsource = x.avi\n' "$work/bad.xml:3: </Tournament> closes <Players>"

# ---- the evening
render_games "$gs" "$work" 6 2 || { bad "render"; cat "$work"/render-*.log; exit 1; }
cat > "$work/evening.conf" <<EOF
event = Club evening   # the CSV names no event
round = 3
place = De Zwarte Steen
pairings = pairs.csv
output = games
serve = 127.0.0.1:0
[board 1]
source = g1.avi
[board 2]
source = g2.avi
[board 3]
source = g3.avi
[board 4]
source = g4.avi
options = --frame-delay 60   # slower: its recorder is killed mid-game
EOF
mkdir -p "$work/games"
plan=$("$gs" hall --config "$work/evening.conf" --check)
if grep -q '^table 3: Daan Bakker 7k (Black) vs Élodie Martin 5k (White), handicap 2, komi 0.5: ' <<< "$plan" &&
   grep -q '^table 4: Finn Visser 12k (Black) vs Eva Smit, jr. 10k (White), handicap 0, komi default 7.5' <<< "$plan"; then
  ok "--check: the plan with the pairing's names"
else bad "--check: $plan"; fi

# ---- --check tries every board as the evening would run it: one line a
# problem naming the board and what is wrong, exit 1; a good config exit 0
cat > "$work/check.conf" <<EOF
pairings = pairs.csv
output = games
serve = 127.0.0.1:0
[board 1]
source = /dev/video9     # no such camera
[board 2]
source = gone.avi        # no such file
[board 3]
source = http://127.0.0.1:9/video   # a closed port
[board 4]
source = g4.avi
options = --bogus 3
EOF
"$gs" hall --config "$work/check.conf" --check > "$work/check.out" 2> "$work/check.err"; rc=$?
c=$work/check.conf
if [ $rc = 1 ] && [ "$(wc -l < "$work/check.err")" = 4 ] &&
   grep -qx "goscribe: $c:4: \[board 1\] /dev/video9: no such camera" "$work/check.err" &&
   grep -qx "goscribe: $c:6: \[board 2\] $work/gone.avi: No such file or directory" "$work/check.err" &&
   grep -q "^goscribe: $c:8: \[board 3\] http://127.0.0.1:9/video: ." "$work/check.err" &&
   grep -qx "goscribe: $c:10: \[board 4\] record: unknown option --bogus (see goscribe record --help)" "$work/check.err" &&
   grep -q "^check: 4 problems" "$work/check.out"; then
  ok "--check: a missing camera, a missing file, a dead address, a bad option: four lines, exit 1"
else bad "--check of four bad boards: exit $rc: $(cat "$work/check.err" "$work/check.out")"; fi
# a camera's password in its address is never printed
printf 'pairings = pairs.csv\noutput = games\n[board 2]\nsource = http://admin:secret@127.0.0.1:9/video\n' > "$work/cred.conf"
out=$("$gs" hall --config "$work/cred.conf" --serve 127.0.0.1:0 --check 2>&1); rc=$?
[ $rc = 1 ] && ! grep -q secret <<< "$out" && [ "$(grep -c 'http://\*\*\*@127.0.0.1:9/video' <<< "$out")" = 2 ] \
  && ok "--check: an address's password hidden in the plan and the problem" || bad "--check with a password: exit $rc: $out"
# the files: a missing output folder, a file to resume that is no game
printf 'not a game\n' > "$work/games/round-3-table-2.sgf"
printf 'pairings = pairs.csv\nround = 3\noutput = nowhere\n[board 1]\nsource = g1.avi\n' > "$work/files1.conf"
printf 'pairings = pairs.csv\nround = 3\noutput = games\n[board 2]\nsource = g2.avi\n' > "$work/files2.conf"
"$gs" hall --config "$work/files1.conf" --serve 127.0.0.1:0 --check > /dev/null 2> "$work/files1.err"; rc1=$?
"$gs" hall --config "$work/files2.conf" --serve 127.0.0.1:0 --check > /dev/null 2> "$work/files2.err"; rc2=$?
rm -f "$work/games/round-3-table-2.sgf"
if [ $rc1 = 1 ] && [ "$(cat "$work/files1.err")" = "goscribe: $work/files1.conf:4: [board 1] $work/nowhere/round-3-table-1.sgf: cannot be written: its folder $work/nowhere: No such file or directory" ] &&
   [ $rc2 = 1 ] && [ "$(wc -l < "$work/files2.err")" = 1 ] && grep -q "^goscribe: $work/files2.conf:4: \[board 2\] $work/games/round-3-table-2.sgf: " "$work/files2.err"; then
  ok "--check: a missing output folder, a file to resume that holds no game: one line each"
else bad "--check of the files: exit $rc1 $rc2: $(cat "$work/files1.err" "$work/files2.err")"; fi
"$gs" hall --config "$work/evening.conf" --check > "$work/check.out" 2> "$work/check.err"; rc=$?
[ $rc = 0 ] && [ ! -s "$work/check.err" ] && grep -q "^check: ready" "$work/check.out" \
  && ok "--check of the evening's config: exit 0, no problem" || bad "--check of a good config: exit $rc: $(cat "$work/check.err")"
ls "$work/games" | grep -q . && bad "--check wrote into games/: $(ls "$work/games")"

"$gs" hall --config "$work/evening.conf" > "$work/hall.out" 2> "$work/hall.err" &
hpid=$!
url=
for _ in $(seq 100); do
  url=$(sed -n 's/^goscribe hall: \(http:[^ ]*\)\/ .*/\1/p' "$work/hall.out")
  [ -n "$url" ] && break
  sleep 0.1
done
# its first lines count in words: no "(0 board addresses)" (issue 50)
if [ -n "$url" ]; then
  if grep -q '^goscribe hall: http:[^ ]* (no board address: boards announce themselves)$' "$work/hall.out" &&
     grep -q '^goscribe hall: round .*, 4 boards, delay' "$work/hall.out"; then
    ok "the hall's first lines: no board address given, 4 boards"
  else bad "the hall's first lines: $(head -3 "$work/hall.out")"; fi
fi
net=1
if [ -z "$url" ]; then
  echo "note: the hall did not start ($(head -1 "$work/hall.err")): the feed not checked"; net=0
elif ! command -v curl >/dev/null 2>&1; then
  echo "note: curl absent: the feed not checked"; net=0
fi
if [ $net = 1 ]; then
  curl -s "$url/round.json" > "$work/round-start.json"
  python3 - "$work/round-start.json" <<'PY' && ok "round.json names every board's players" || bad "round.json at the start: $(cat "$work/round-start.json")"
import json, sys
r = json.load(open(sys.argv[1]))
names = [(b["table"], b["players"]["B"]["name"], b["players"]["W"]["name"]) for b in r["boards"]]
assert names == [("1", "Jörg Müller", "Anna de Vries"), ("2", "Chen Li", "Bram Jansen"),
                 ("3", "Daan Bakker", "Élodie Martin"), ("4", "Finn Visser", "Eva Smit, jr.")], names
assert r["event"] == "Club evening" and r["round"] == "3" and r["place"] == "De Zwarte Steen", r
PY
fi
# board 4's recorder dies (SIGKILL, as the kernel kills: a sanitizer build would catch a SIGSEGV itself) after a few moves: the evening goes on
t4=$work/games/round-3-table-4.sgf
for _ in $(seq 600); do
  [ -f "$t4" ] && [ "$(grep -o ';[BW]\[' "$t4" | wc -l)" -ge 3 ] && break
  sleep 0.1
done
pid4=$(sed -n 's/^\[table 4\] recorder started (pid \([0-9]*\)).*/\1/p' "$work/hall.err")
[ -n "$pid4" ] && kill -KILL "$pid4"
# every other recorder ends (the end of its video); nothing changes after
for _ in $(seq 900); do
  [ "$(grep -c 'recorder ended' "$work/hall.err")" -ge 3 ] && grep -q '^\[table 4\] recorder crashed' "$work/hall.err" && break
  kill -0 $hpid 2>/dev/null || break
  sleep 0.1
done
grep -c 'recorder ended' "$work/hall.err" | grep -qx 3 && grep -q '^\[table 4\] recorder crashed, given up (signal 9)' "$work/hall.err" \
  && kill -0 $hpid && ok "four recorders at once; one crashed, the other three and the hall went on" \
  || { bad "the recorders: $(tail -5 "$work/hall.err")"; }
moves4=$(game_moves "$t4"); full4=$(game_moves "$work/g4.sgf")
[ -n "$moves4" ] && [ "${full4#"$moves4"}" != "$full4" ] && "$gs" check "$t4" > /dev/null \
  && ok "table 4's file after the crash: valid, every move saved before it ($(grep -o ';[BW]' <<< "$moves4" | wc -l) of 12)" \
  || bad "table 4 after the crash: $moves4"
for n in 1 2 3; do
  f=$work/games/round-3-table-$n.sgf
  want=$(game_moves "$work/g$n.sgf"); got=$(game_moves "$f")
  [ -n "$want" ] && [ "$want" = "$got" ] && ok "table $n: the record is the game played ($(grep -o ';[BW]' <<< "$got" | wc -l) moves)" \
    || bad "table $n: recorded $got, played $want"
done
props() { # FILE PROP... : each PROP[...] on the root
  local f=$1 p; shift
  for p in "$@"; do grep -qF "$p" "$f" || { echo "missing $p"; return 1; }; done
}
props "$work/games/round-3-table-1.sgf" 'PB[Jörg Müller]' 'BR[1k]' 'PW[Anna de Vries]' 'WR[2d]' 'KM[6.5]' \
  'EV[Club evening]' 'RO[3]' 'PC[De Zwarte Steen]' 'GN[Table 1]' 'RE[' && ok "table 1's SGF: the pairing's game information" || bad "table 1's SGF"
props "$work/games/round-3-table-3.sgf" 'PB[Daan Bakker]' 'PW[Élodie Martin]' 'HA[2]' 'KM[0.5]' 'AB[cc][gg]' 'RE[' \
  && ok "table 3's SGF: handicap 2, komi 0.5" || bad "table 3's SGF"
props "$t4" 'PW[Eva Smit, jr.]' 'WR[10k]' 'KM[7.5]' && ok "table 4's SGF: a name with a comma, the default komi" || bad "table 4's SGF"

if [ $net = 1 ]; then
  sleep 0.5 # the hall looks at the files five times a second
  curl -s -D "$work/h1" "$url/round.sgf" -o "$work/round.sgf"
  etag=$(sed -n 's/^ETag: \(.*\)\r$/\1/p' "$work/h1"); lm=$(sed -n 's/^Last-Modified: \(.*\)\r$/\1/p' "$work/h1")
  c1=$(curl -s -D "$work/h304" -o /dev/null -w '%{http_code}' -H "If-None-Match: $etag" "$url/round.sgf")
  c2=$(curl -s -o /dev/null -w '%{http_code}' -H "If-Modified-Since: $lm" "$url/round.sgf")
  c3=$(curl -s -o /dev/null -w '%{http_code}' -H 'If-None-Match: "0000000000000000"' "$url/round.sgf")
  [ -n "$etag" ] && [ "$c1" = 304 ] && [ "$c2" = 304 ] && [ "$c3" = 200 ] && ok "an unchanged poll answers 304 (ETag $etag)" \
    || bad "304: ETag [$etag] Last-Modified [$lm]: $c1 $c2 $c3"
  # RFC 9110 8.6: a 304's Content-Length, if any, is the 200's (never 0)
  grep -qi '^Content-Length:' "$work/h304" && bad "the 304 carries a Content-Length: $(tr -d '\r' < "$work/h304" | tr '\n' '|')" \
    || ok "the 304 carries no Content-Length ($(grep -ci '^ETag:' "$work/h304") ETag)"
  [ "$(grep -c 'GSST\[ended\]' "$work/round.sgf")" = 3 ] && [ "$(grep -c 'GSST\[unfinished\]' "$work/round.sgf")" = 1 ] \
    && [ "$(grep -c '^(' "$work/round.sgf")" = 4 ] && [ "$(grep -c 'RE\[' "$work/round.sgf")" = 3 ] \
    && ok "round.sgf: the four games, three ended with their RE, the crashed one unfinished" \
    || bad "round.sgf: $(head -c 600 "$work/round.sgf")"
  curl -s "$url/round.json" > "$work/round.json"; python3 "$here/json_vocabulary.py" "$readme" "round.json" "$work/round.json" || fail=1
  curl -s "$url/board/3.json" > "$work/board3.json"; python3 "$here/json_vocabulary.py" "$readme" "/board/T.json" "$work/board3.json" || fail=1
  curl -s -N --max-time 1 "$url/round/events" > "$work/events.txt"; python3 "$here/json_vocabulary.py" "$readme" "/round/events" "$work/events.txt" || fail=1
  code=$(curl -s -o "$work/refused.json" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    -d '{"ruling":"result","result":"B+R"}' "$url/board/1/api/correct")
  [ "$code" = 403 ] && ok "a correction without the token: 403" || bad "a correction without the token: $code"
fi
kill -INT $hpid; wait $hpid; rc=$?; hpid=
[ $rc = 0 ] && ok "the hall stops on SIGINT (exit 0)" || bad "the hall's exit: $rc"

# ---- an evening whose recorder refuses its options: the hall's line says
# why in full (it was cut at 60 characters)
if [ $net = 1 ]; then
  mkdir -p "$work/bogus"
  printf 'pairings = pairs.csv\nround = 3\noutput = bogus\nserve = 127.0.0.1:0\n[board 1]\nsource = g1.avi\noptions = --bogus 3\n' \
    > "$work/bogus.conf"
  timeout 60 "$gs" hall --config "$work/bogus.conf" --exit-when-done > /dev/null 2> "$work/bogus.err"; rc=$?
  [ $rc = 1 ] && grep -qE '^\[table 1\] recorder stopped \(exit 1\) after [0-9.]+ s \(CPU [0-9.]+ s\): goscribe: record: unknown option --bogus \(see goscribe record --help\)$' "$work/bogus.err" \
    && ok "a recorder that refuses its options: the hall says why, whole; exit 1" || bad "the refused recorder: exit $rc: $(cat "$work/bogus.err")"
fi
exit $fail
