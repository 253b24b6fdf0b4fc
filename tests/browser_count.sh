#!/bin/bash
# tests/browser_count.sh GOSCRIBE_BINARY DATA_DIR page|hall: the count page on
# a phone in the real browser (headless Chromium at 390x844 with touch
# events through the DevTools protocol).
#   page: `count PHOTO --serve` on three photos where count alone is unsure,
#         each fixed by taps to the truth and confirmed, and a photo the
#         finder refuses read from four taps on its corners
#         (tests/browser/cdp_count.mjs);
#   hall: "count this board" on a board of a club evening: a photo uploaded
#         from the board's page, a chain set on its count page and the count
#         confirmed; the result reaches /round.sgf and the round's SSE stream
#         (tests/browser/cdp_count_hall.mjs).
# Skips when chromium, node or (page) the shared photos are absent; ends
# every process it started.  Screenshots: $GS_SHOTS_DIR (default /tmp).
set -u
goscribe=${1:?usage: browser_count.sh GOSCRIBE_BINARY DATA_DIR page|hall}
data=${2:?usage: browser_count.sh GOSCRIBE_BINARY DATA_DIR page|hall}
mode=${3:?usage: browser_count.sh GOSCRIBE_BINARY DATA_DIR page|hall}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/sgf_corpus.sh"

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
if [ "$mode" = page ] && [ ! -d "$data/photos/goban-watcher" ]; then
    echo "skipped: $data/photos/goban-watcher absent"
    exit 0
fi
[ -x "$goscribe" ] || { echo "browser_count: $goscribe: not an executable" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/goscribe-bcount-XXXXXX") || exit 1
mkdir -p "$work/chromium" "$work/games"
pid=
cleanup() {
    if [ -n "$pid" ]; then
        kill -TERM -- "-$pid" 2>/dev/null
        for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 -- "-$pid" 2>/dev/null || break; sleep 0.2; done
        kill -KILL -- "-$pid" 2>/dev/null
    fi
    keep_all_sgf "$work" "browser_count_$mode"
    keep_all_sgf "$work/games" "browser_count_$mode"
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

extra=()
if [ "$mode" = hall ]; then
    # one 9x9 game recorded by the hall (both players confirm the end), its
    # last frame the photo the phone takes of the finished board
    printf '(;GM[1]FF[4]SZ[9];B[ee];W[cc];B[gc];W[cg];B[gg];W[ce];B[eg];W[dd];B[ec];W[fe];B[ge];W[dg])\n' >"$work/g1.sgf"
    if ! "$goscribe" render "$work/g1.sgf" -o "$work/g1.avi" --pace 2 --fps 6 --frame-size 640x360 --seed 2 \
            --end confirm --rotation 0 -q >"$work/render.log" 2>&1 ||
       ! "$goscribe" render "$work/g1.sgf" -o "$work/frames" --pace 4 --fps 2 --frame-size 1024x768 --seed 3 \
            --rotation 0 -q >>"$work/render.log" 2>&1; then
        echo "browser_count: FAIL: goscribe render failed:" >&2
        cat "$work/render.log" >&2
        exit 1
    fi
    printf 'board,black,white\n1,Ann Black,Bob White\n' >"$work/pairs.csv"
    printf 'event = Count Test\nround = 1\npairings = pairs.csv\noutput = games\nserve = 127.0.0.1:0\n[board 1]\nsource = g1.avi\n' \
        >"$work/evening.conf"
    extra=(--photo "$(ls "$work"/frames/frame_*.png | tail -1)")
fi

set -m
script=cdp_count.mjs
[ "$mode" = hall ] && script=cdp_count_hall.mjs
node "$here/browser/$script" --name "browser_count_$mode" --goscribe "$goscribe" \
    --data "$data" --workdir "$work" --chromium "$chromium" --shots "${GS_SHOTS_DIR:-/tmp}" \
    --profile "$work/chromium" --total-ms 110000 "${extra[@]}" ${GS_BROWSER_VERBOSE:+--verbose} &
pid=$!
set +m
limit=125
for ((i = 0; i < limit * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
done
if kill -0 "$pid" 2>/dev/null; then
    echo "browser_count: FAIL: still running after $limit s, killed" >&2
    exit 1
fi
wait "$pid"
rc=$?
[ $rc -eq 0 ] || echo "browser_count: FAIL (exit $rc)" >&2
exit $rc
