#!/usr/bin/env bash
# tests/json_vocabulary.sh GOSCRIBE SERVE_DRIVER VOCAB: every command and
# page that prints JSON, checked against the one table of doc/json.md ("JSON:
# one vocabulary") by tests/json_vocabulary.py: scan --json, count --json
# (a grid, a photo, an SGF), check --json, record --json, a recording's
# /state.json, /events (SSE), /api/events, POST /api/ruling (its answer and
# a refusal), the hall's /state.json.  A rendered 9x9 game is the input, so
# no shared data is needed; the network part skips without curl or
# libmicrohttpd.
set -u
gs=${1:?usage: json_vocabulary.sh GOSCRIBE SERVE_DRIVER doc/json.md}
driver=${2:?}
readme=${3:?}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/sgf_corpus.sh"
fail=0
work=$(mktemp -d /tmp/gs-json.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  keep_all_sgf "$work" json_vocabulary
  rm -rf "$work"
}
trap cleanup EXIT
vocab() { python3 "$here/json_vocabulary.py" "$readme" "$@" || fail=1; }
bad() { echo "FAIL $1"; fail=1; }

# a short 9x9 game with a capture and a seeded double move, rendered twice:
# as a video (recorded) and as frames (a photo for scan and count)
printf '(;GM[1]FF[4]SZ[9]KM[7];B[ee];W[cc];B[dc];W[gg];B[cb];W[gc];B[bc];W[cg];B[cd])\n' > "$work/g.sgf"
"$gs" render "$work/g.sgf" -o "$work/g.avi" --violate double_move --pace 3 --fps 6 --frame-size 480x320 --seed 2 \
  > "$work/render.log" 2>&1 || { bad "render"; cat "$work/render.log"; exit 1; }
"$gs" render "$work/g.sgf" -o "$work/frames" --pace 3 --fps 2 --frame-size 480x320 --seed 2 -q > /dev/null 2>&1 \
  || { bad "render frames"; exit 1; }
photo=$(ls "$work/frames"/frame_*.png | tail -1)

"$gs" scan "$photo" --json > "$work/scan.json" 2>/dev/null && vocab "scan --json" "$work/scan.json" || bad "scan --json"
cat > "$work/grid.txt" <<'GRID'
. B . B W . W . .
. B B B W W W . .
. . . B W . . . .
. . . B W . . . .
. W . B W . . B .
. . . B W . . . .
. . . B W . . . .
. B B B W W W . .
. B . B W . W . .
GRID
# (exit 3: a count that is not sure, here a game that does not look finished)
sure_or_not() { "$@"; local rc=$?; [ $rc -eq 0 ] || [ $rc -eq 3 ]; }
sure_or_not "$gs" count "$work/grid.txt" --json --playouts 200 > "$work/count-grid.json" 2>/dev/null \
  && vocab "count --json (grid)" "$work/count-grid.json" || bad "count grid"
sure_or_not "$gs" count "$photo" --json --dead none > "$work/count-photo.json" 2>/dev/null \
  && vocab "count --json (photo)" "$work/count-photo.json" || bad "count photo"
sure_or_not "$gs" count "$work/scan.json" --json > "$work/count-scan.json" 2>/dev/null \
  && vocab "count --json (scan's JSON)" "$work/count-scan.json" || bad "count scan's JSON"

sure_or_not "$gs" record "$work/g.avi" -o "$work/rec.sgf" --json --no-stdin -q --count-anyway --black "Ann,2d" --white Bob \
  > "$work/record.jsonl" 2>"$work/record.err" && vocab "record --json" "$work/record.jsonl" || { bad "record --json"; cat "$work/record.err"; }
grep -q '"kind":"count"' "$work/record.jsonl" || bad "record --json: the count line"
"$gs" check --json "$work/rec.sgf" > "$work/check.json" && vocab "check --json" "$work/check.json" || bad "check --json"
sure_or_not "$gs" count "$work/rec.sgf" --json > "$work/count-sgf.json" 2>/dev/null \
  && vocab "count --json (sgf)" "$work/count-sgf.json" || bad "count sgf"
# the recorder's count, check and count of the file agree (one count)
r1=$(python3 -c 'import json,sys; print([json.loads(l)["result"] for l in open(sys.argv[1]) if "\"count\"" in l][0])' "$work/record.jsonl")
r2=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["result"])' "$work/check.json")
r3=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["result"])' "$work/count-sgf.json")
[ -n "$r1" ] && [ "$r1" = "$r2" ] && [ "$r2" = "$r3" ] && echo "ok   one count: record $r1, check $r2, count $r3" \
  || bad "one count: record $r1, check $r2, count $r3"

if ! command -v curl >/dev/null 2>&1; then
  echo "note: curl absent, the pages' JSON not checked"
  exit $fail
fi
# a recording served and lingering: its state, SSE, events, a refused ruling
"$gs" record "$work/g.avi" -o "$work/live.sgf" --no-stdin -q --serve 127.0.0.1:0 --token tok-123456789 \
  --linger 20 --black "Ann,2d" --white Bob --table 4 --event "Club night" > "$work/live.log" 2> "$work/live.err" &
pids+=($!)
url=
for _ in $(seq 100); do
  url=$(sed -n 's/^goscribe record: live \(http[^ ]*\)\/$/\1/p' "$work/live.err")
  [ -n "$url" ] && break
  grep -q "libmicrohttpd" "$work/live.err" && break
  sleep 0.1
done
if [ -z "$url" ]; then
  echo "note: no live server ($(head -1 "$work/live.err")): the pages' JSON not checked"
  exit $fail
fi
for _ in $(seq 200); do grep -q "recording over" "$work/live.err" && break; sleep 0.1; done
curl -s "$url/state.json" > "$work/state.json" && vocab "/state.json" "$work/state.json" || bad "/state.json"
python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); assert s["players"]["B"]=={"name":"Ann","rank":"2d"} and s["table"]=="4" and s["to_move"]=="" and s["captures"]["B"]==1, s' \
  "$work/state.json" && echo "ok   /state.json: players, table, side to move after the end, captures" || bad "/state.json values"
curl -s -N --max-time 1 "$url/events" > "$work/sse.txt"; vocab "/events (SSE)" "$work/sse.txt"
curl -s -H 'X-Goscribe-Token: tok-123456789' "$url/api/events" > "$work/api-events.json" && vocab "/api/events" "$work/api-events.json" || bad "/api/events"
code=$(curl -s -o "$work/late.json" -w '%{http_code}' -X POST -H 'X-Goscribe-Token: tok-123456789' \
  -H 'Content-Type: application/json' -d '{"ruling":"warn","color":"W","event_id":1}' "$url/api/ruling")
[ "$code" = 409 ] && vocab "POST /api/ruling (refused)" "$work/late.json" || bad "ruling after the end: $code"

# the count page: its state, and its answer to a change
"$gs" count "$photo" --serve 127.0.0.1:0 --token tok-count-1234 --sgf "$work/page.sgf" > "$work/page.out" 2>&1 &
pids+=($!)
purl=
for _ in $(seq 100); do purl=$(sed -n 's/^goscribe count: page \(http[^ ]*\)\/ .*/\1/p' "$work/page.out"); [ -n "$purl" ] && break; sleep 0.1; done
if [ -n "$purl" ]; then
  curl -s -H 'X-Goscribe-Token: tok-count-1234' "$purl/api/state" > "$work/page-state.json" \
    && vocab "count page api/state" "$work/page-state.json" || bad "count page state"
  curl -s -X POST -H 'X-Goscribe-Token: tok-count-1234' -H 'Content-Type: application/json' -d '{"point":"ee","color":""}' \
    "$purl/api/point" > "$work/page-point.json" && vocab "count page api/point" "$work/page-point.json" || bad "count page point"
  grep -q '"fixed_points":\["ee"\]' "$work/page-point.json" || bad "count page: the point set is not listed"
else
  bad "count --serve did not start: $(cat "$work/page.out")"
fi

# a ruling answered, its SSE message: the stand-in recorder
"$driver" --name "Table 9" --size 9 --token tok-abcdefghijk --interval-ms 50 --timeout 30 --wait-go \
  > "$work/driver.out" 2>&1 < <(sleep 30) &
pids+=($!)
durl=
for _ in $(seq 100); do durl=$(sed -n 's/^url //p' "$work/driver.out"); [ -n "$durl" ] && break; sleep 0.1; done
if [ -n "$durl" ]; then
  printf '{"ruling":"warn","color":"B","note":"json test"}' > "$work/ruling-body.json"
  vocab "POST /api/ruling (body)" "$work/ruling-body.json"
  curl -s -X POST -H 'Authorization: Bearer tok-abcdefghijk' -H 'Content-Type: application/json' \
    --data @"$work/ruling-body.json" "$durl/api/ruling" \
    > "$work/ruling.json" && vocab "POST /api/ruling (answer)" "$work/ruling.json" || bad "ruling answer"
  curl -s -N --max-time 1 "$durl/events" > "$work/sse2.txt"; vocab "/events (SSE, a ruling)" "$work/sse2.txt"
  grep -q '"type":"ruling"' "$work/sse2.txt" || bad "the SSE ruling message"
  # the hall: one board live, one that does not answer
  "$gs" hall --serve 127.0.0.1:0 --board "$url" --board http://127.0.0.1:9 --poll-ms 200 > "$work/hall.out" 2>&1 &
  pids+=($!)
  hurl=
  for _ in $(seq 100); do hurl=$(sed -n 's/^goscribe hall: \(http[^ ]*\)\/ .*/\1/p' "$work/hall.out"); [ -n "$hurl" ] && break; sleep 0.1; done
  for _ in $(seq 50); do curl -s "$hurl/state.json" > "$work/hall.json"; grep -q '"online":true' "$work/hall.json" && break; sleep 0.1; done
  vocab "hall /state.json" "$work/hall.json"
  grep -q '"status":"unreachable"' "$work/hall.json" && grep -q 'unreachable: ' "$work/hall.json" \
    && echo "ok   the hall lists the unreachable board, with why" || { bad "hall: unreachable board"; cat "$work/hall.json"; }
else
  bad "serve_driver did not start: $(cat "$work/driver.out")"
fi
exit $fail
