#!/usr/bin/env bash
# `goscribe record --serve`: option errors, then a rendered 9x9 game with a
# seeded double move recorded while served: the live URL and the referee
# token are printed with the real port, /state.json and /game.sgf follow the
# game, a ruling is refused without the token and, with it, lands in the SGF
# (served and on disk).  Needs no browser (tests/browser_record.sh is the
# browser version); the network part skips without curl or libmicrohttpd.
#   usage: cli_record_serve.sh GOSCRIBE DATA_DIR
set -u
. "$(dirname "$0")/sgf_corpus.sh"
bin=$1
fail=0
work=$(mktemp -d /tmp/gs-cli-record-serve.XXXXXX)
rec=
cleanup() {
    [ -n "$rec" ] && kill "$rec" 2>/dev/null && wait "$rec" 2>/dev/null
    keep_all_sgf "$work" cli_record_serve
    rm -rf "$work"
}
trap cleanup EXIT
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; fi; }

"$bin" record --help | grep -q -- '--serve \[ADDR:\]PORT' || { echo "FAIL: record --help lacks --serve"; fail=1; }
for bad in "--serve 70000" "--serve host:" "--serve abc" "--mqtt localhost:1883" "--hall http://x:1" \
           "--board-name T" "--serve 0 --linger -1" "--serve 0 --token" "--serve 0 --hall http://x:1" \
           "--hall-token abcdefgh12345678" "--allow-host example.org" "--serve 0 --max-per-client 0"; do
    # shellcheck disable=SC2086
    "$bin" record "$work" -o "$work/x.sgf" $bad 2>/dev/null </dev/null
    check "record $bad: exit 1" '[ $? -eq 1 ]'
done

if ! command -v curl >/dev/null 2>&1; then
    echo "note: curl absent, live part skipped"
    exit $fail
fi
printf '(;GM[1]FF[4]SZ[9]KM[7];B[ee];W[cc];B[gc];W[cg];B[gg];W[ce];B[eg];W[dd];B[ec];W[fe];B[ge];W[dg])\n' >"$work/g9.sgf"
"$bin" render "$work/g9.sgf" -o "$work/g.avi" --correct double_move --pace 1.5 --fps 8 --frame-size 640x360 \
    --seed 2 >/dev/null 2>&1 || { echo "FAIL: render"; exit 1; }
# refused at start, with the reason (the source is fine)
for case in "--hall http://127.0.0.1:1|needs --hall-token" "--hall-token abcdefgh12345678 --hall ftp://x:1|hall address" \
            "--allow-host a:b|not a host name" "--token short|8 to 64" "--token abcdefgh12345678 --hall-token x --hall http://h:1|8 to 64"; do
    # shellcheck disable=SC2086
    "$bin" record "$work/g.avi" -o "$work/bad.sgf" --serve 127.0.0.1:0 ${case%%|*} --no-stdin -q </dev/null 2>"$work/bad.err"
    rc=$?
    check "record --serve ${case%%|*}: exit 1 (got $rc) saying '${case#*|}'" '[ $rc -eq 1 ] && grep -q -- "${case#*|}" "$work/bad.err"'
done
"$bin" record "$work/g.avi" -o "$work/game.sgf" --serve 127.0.0.1:0 --token abcdefgh12345678 \
    --frame-delay 25 --no-stdin --linger 30 -q >"$work/out" 2>"$work/err" &
rec=$!
url=
for _ in $(seq 100); do
    url=$(sed -n 's#^goscribe record: live \(http://127\.0\.0\.1:[0-9]*\)/$#\1#p' "$work/err")
    [ -n "$url" ] && break
    kill -0 "$rec" 2>/dev/null || break
    sleep 0.1
done
if [ -z "$url" ] && grep -q "libmicrohttpd not installed" "$work/err"; then
    echo "note: libmicrohttpd absent, live part skipped"
    exit $fail
fi
check "live URL printed with a real port" '[ -n "$url" ] && [ "${url##*:}" != 0 ]'
check "referee URL and token printed" 'grep -q "^goscribe record: referee $url/referee token abcdefgh12345678$" "$work/err"'
[ -n "$url" ] || { cat "$work/err"; exit 1; }
# wait for the flagged double move
ev=
for _ in $(seq 150); do
    ev=$(curl -s -H 'X-Goscribe-Token: abcdefgh12345678' "$url/api/events")
    case $ev in *double_move*) break ;; esac
    sleep 0.1
done
check "double move published to the referee" 'case $ev in *\"double_move\"*) true ;; *) false ;; esac'
check "state.json follows the game" 'curl -s "$url/state.json" | grep -q "\"status\":\"playing\""'
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    -d '{"event_id":1,"ruling":"void","warning":true}' "$url/api/ruling")
check "ruling without the token: 403 (got $code)" '[ "$code" = 403 ]'
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Authorization: Bearer abcdefgh12345678' \
    -d '{"event_id":1,"ruling":"void","warning":true}' "$url/api/ruling")
check "ruling as a form (what a cross-site page can send), even with the token: 415 (got $code)" '[ "$code" = 415 ]'
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Authorization: Bearer abcdefgh12345678' \
    -H 'Content-Type: application/json' \
    -d '{"event_id":1,"ruling":"void","warning":true,"note":"cli test"}' "$url/api/ruling")
check "ruling with the token: 200 (got $code)" '[ "$code" = 200 ]'
sgf=
for _ in $(seq 50); do
    sgf=$(curl -s "$url/game.sgf")
    case $sgf in *GSRL\[void:B:1:0:*) break ;; esac
    sleep 0.1
done
check "ruling in /game.sgf" 'case $sgf in *"move void, warning to Black (warning 1). cli test"*GSRL*|*GSRL*"move void, warning to Black (warning 1). cli test"*) true ;; *) false ;; esac'
for _ in $(seq 300); do
    grep -q "recording over" "$work/err" && break
    sleep 0.1
done
check "recording ended" 'grep -q "recording over" "$work/err"'
# the video simply ends: the recording is over, the game is not (no result)
check "state.json says unfinished" 'curl -s "$url/state.json" | grep -q "\"status\":\"unfinished\""'
check "state.json: no result" 'curl -s "$url/state.json" | grep -q "\"result\":\"\""'
check "state.json: no side to move after the end" 'curl -s "$url/state.json" | grep -q "\"to_move\":\"\""'
check "state.json: the warning counted" 'curl -s "$url/state.json" | grep -q "\"warnings\":{\"B\":1,\"W\":0}"'
# while the recorder lingers the record is closed: a ruling is refused, with why
code=$(curl -s -o "$work/late" -w '%{http_code}' -X POST -H 'Authorization: Bearer abcdefgh12345678' \
    -H 'Content-Type: application/json' -d '{"ruling":"warn","color":"W"}' "$url/api/ruling")
check "ruling after the end: 409 (got $code)" '[ "$code" = 409 ]'
check "ruling after the end: says why" 'grep -q "recording has ended" "$work/late"'
check "ruling in the SGF on disk" 'grep -q "GSRL\[void:B:1:0:" "$work/game.sgf"'
check "served SGF = file on disk" '[ "$(curl -s "$url/game.sgf")" = "$(cat "$work/game.sgf")" ]'
kill -INT "$rec"
wait "$rec"
rc=$?
rec=
check "SIGINT ends the lingering server cleanly (exit $rc)" '[ $rc -eq 0 ]'
check "no sanitizer report" '! grep -q "Sanitizer\|runtime error" "$work/err"'
[ $fail -eq 0 ] || { echo "--- stdout"; cat "$work/out"; echo "--- stderr"; cat "$work/err"; }
exit $fail
