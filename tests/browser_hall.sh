#!/bin/bash
# tests/browser_hall.sh GOSCRIBE_BINARY: a club evening end to end in the
# real browser.  Renders four short 9x9 games (one with two handicap
# stones), and `goscribe hall --config` records them at once, one recorder
# process per board, with the round's pairings from an OpenGotha file
# (tests/pairings/club-r3.xml); headless Chromium at 1920x1080 watches the
# round page and a board's page fill with names and moves, and makes a
# correction on a director's console while the game is recorded and one
# after its recorder has ended (tests/browser/cdp_hall.mjs).  The SGF files
# and the feed go to the SGF corpus (SGFC).  Skips when chromium or node is
# absent; ends every process it started.
# Screenshots: $GS_SHOTS_DIR (default /tmp)/goscribe-hall-{round,board}.png.
set -u
. "$(dirname "$0")/sgf_corpus.sh"
goscribe=${1:?usage: browser_hall.sh GOSCRIBE_BINARY}

chromium=
for c in ${GS_CHROMIUM:-/usr/bin/chromium /usr/bin/chromium-browser}; do
    [ -x "$c" ] && chromium=$c && break
done
if [ -z "$chromium" ]; then
    echo "skipped: chromium not installed (apt-get install chromium)"
    exit 0
fi
if ! command -v node >/dev/null 2>&1; then
    echo "skipped: node not installed (apt-get install nodejs)"
    exit 0
fi
here=$(cd "$(dirname "$0")" && pwd)
[ -x "$goscribe" ] || { echo "browser_hall: $goscribe: not an executable" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/goscribe-bhall-XXXXXX") || exit 1
mkdir -p "$work/chromium" "$work/games"
pid=
cleanup() {
    if [ -n "$pid" ]; then
        kill -TERM -- "-$pid" 2>/dev/null
        for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 -- "-$pid" 2>/dev/null || break; sleep 0.2; done
        kill -KILL -- "-$pid" 2>/dev/null
    fi
    keep_all_sgf "$work/games" browser_hall
    keep_sgf "$work/round.sgf" browser_hall-round_feed
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# four 9x9 games; the camera straight over Black's side (--rotation 0);
# both players confirm the end, so each record gets its result
. "$here/hall_games.sh"
if ! render_games "$goscribe" "$work" 6 2; then
    echo "browser_hall: FAIL: goscribe render failed:" >&2
    cat "$work"/render-*.log >&2
    exit 1
fi
cp "$here/pairings/club-r3.xml" "$work/"
cat > "$work/evening.conf" <<EOF
# the test's evening: round 3 of the club's file, every board paced like a camera
pairings = club-r3.xml
output = games
serve = 127.0.0.1:0
options = --frame-delay 45
[board 1]
source = g1.avi
[board 2]
source = g2.avi
[board 3]
source = g3.avi
[board 4]
source = g4.avi
EOF
# a second evening, one board, its moves shown 90 s late
mkdir -p "$work/delayed"
cat > "$work/delayed.conf" <<EOF
pairings = club-r3.xml
output = delayed
serve = 127.0.0.1:0
delay = 90s
[board 1]
source = g1.avi
options = --frame-delay 45
EOF

set -m
node "$here/browser/cdp_hall.mjs" --name browser_hall --goscribe "$goscribe" --workdir "$work" \
    --chromium "$chromium" --shots "${GS_SHOTS_DIR:-/tmp}" --profile "$work/chromium" \
    --total-ms 110000 ${GS_BROWSER_VERBOSE:+--verbose} &
pid=$!
set +m
limit=125
for ((i = 0; i < limit * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
done
if kill -0 "$pid" 2>/dev/null; then
    echo "browser_hall: FAIL: still running after $limit s, killed" >&2
    exit 1
fi
wait "$pid"
rc=$?
[ $rc -eq 0 ] || echo "browser_hall: FAIL (exit $rc)" >&2
exit $rc
