#!/bin/bash
# tests/browser_serve.sh GOSCRIBE_BINARY SERVE_DRIVER: browser test of the
# live pages.  Headless Chromium opens the board page while a stand-in
# recorder (serve_driver) publishes a game, the referee console (refused
# without the token; a ruling with it ends up in the SGF) and the hall with
# two boards.  The work is done by tests/browser/cdp_test.mjs (Node, no npm
# package); this wrapper skips when chromium or node is absent and makes sure
# no process it started outlives it.
# Screenshots: $GS_SHOTS_DIR (default /tmp)/goscribe-{board,referee,hall}.png.
set -u
goscribe=${1:?usage: browser_serve.sh GOSCRIBE_BINARY SERVE_DRIVER}
driver=${2:?usage: browser_serve.sh GOSCRIBE_BINARY SERVE_DRIVER}

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
for f in "$goscribe" "$driver"; do
    [ -x "$f" ] || { echo "browser_serve: $f: not an executable" >&2; exit 1; }
done

# The test runs in its own process group so that everything it started
# (drivers, the hall, Chromium and its helpers) can be ended together.
profile=$(mktemp -d "${TMPDIR:-/tmp}/goscribe-chromium-XXXXXX") || exit 1
set -m
node "$here/browser/cdp_test.mjs" --goscribe "$goscribe" --driver "$driver" \
    --chromium "$chromium" --shots "${GS_SHOTS_DIR:-/tmp}" --profile "$profile" \
    ${GS_BROWSER_VERBOSE:+--verbose} &
pid=$!
set +m
cleanup() {
    kill -TERM -- "-$pid" 2>/dev/null
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        kill -0 -- "-$pid" 2>/dev/null || break
        sleep 0.2
    done
    kill -KILL -- "-$pid" 2>/dev/null
    rm -rf "$profile"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# cdp_test.mjs stops itself after 90 s; this is the backstop.
limit=110
for ((i = 0; i < limit * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
done
if kill -0 "$pid" 2>/dev/null; then
    echo "browser_serve: FAIL: still running after $limit s, killed" >&2
    exit 1
fi
wait "$pid"
rc=$?
[ $rc -eq 0 ] || echo "browser_serve: FAIL (exit $rc)" >&2
exit $rc
