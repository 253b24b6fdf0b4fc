#!/bin/bash
# tests/browser_record.sh GOSCRIBE_BINARY: end-to-end browser test of
# `goscribe record --serve`.  Renders a short 9x9 game with a seeded double
# move (goscribe render), records it with the real recorder paced like a
# live camera, and lets headless Chromium watch the board page and make a
# ruling in the referee console (tests/browser/cdp_record.mjs).  Skips when
# chromium or node is absent; makes sure no process it started outlives it.
# Screenshots: $GS_SHOTS_DIR (default /tmp)/goscribe-record-{board,referee}.png.
set -u
. "$(dirname "$0")/sgf_corpus.sh"
goscribe=${1:?usage: browser_record.sh GOSCRIBE_BINARY}

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
[ -x "$goscribe" ] || { echo "browser_record: $goscribe: not an executable" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/goscribe-brec-XXXXXX") || exit 1
profile=$work/chromium
mkdir -p "$profile"
pid=
cleanup() {
    if [ -n "$pid" ]; then
        kill -TERM -- "-$pid" 2>/dev/null
        for _ in 1 2 3 4 5 6 7 8 9 10; do
            kill -0 -- "-$pid" 2>/dev/null || break
            sleep 0.2
        done
        kill -KILL -- "-$pid" 2>/dev/null
    fi
    keep_all_sgf "$work" browser_record
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# A 9x9 game of 12 moves; the renderer adds one double move (Black plays
# twice) and its truth says where.  Seed and pace are chosen so that every
# move settles on camera (1.5x natural speed at 8 fps).
printf '(;GM[1]FF[4]SZ[9]KM[7]PB[Black]PW[White];B[ee];W[cc];B[gc];W[cg];B[gg];W[ce];B[eg];W[dd];B[ec];W[fe];B[ge];W[dg])\n' >"$work/g9.sgf"
if ! "$goscribe" render "$work/g9.sgf" -o "$work/game.avi" --correct double_move --pace 1.5 --fps 8 \
        --frame-size 640x360 --seed 2 >"$work/render.log" 2>&1; then
    echo "browser_record: FAIL: goscribe render failed:" >&2
    cat "$work/render.log" >&2
    exit 1
fi
grep -q '"double_move"' "$work/game.truth.jsonl" || { echo "browser_record: FAIL: no double move rendered" >&2; exit 1; }

# Its own process group, so everything it started (the recorder, Chromium
# and its helpers) is ended together.
set -m
node "$here/browser/cdp_record.mjs" --name browser_record --goscribe "$goscribe" --video "$work/game.avi" \
    --workdir "$work" --chromium "$chromium" --shots "${GS_SHOTS_DIR:-/tmp}" --profile "$profile" \
    --total-ms 100000 ${GS_BROWSER_VERBOSE:+--verbose} &
pid=$!
set +m

# cdp_record.mjs stops itself after 100 s; this is the backstop.
limit=120
for ((i = 0; i < limit * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
done
if kill -0 "$pid" 2>/dev/null; then
    echo "browser_record: FAIL: still running after $limit s, killed" >&2
    exit 1
fi
wait "$pid"
rc=$?
[ $rc -eq 0 ] || echo "browser_record: FAIL (exit $rc)" >&2
exit $rc
