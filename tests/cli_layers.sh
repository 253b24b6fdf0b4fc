#!/usr/bin/env bash
# The layering check (scripts/check-layers.py): clean on this tree, and it
# does catch an upward include, a foreign private header and a circle in a
# copy of the tree.  Arguments (binary, data dir) are unused.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
command -v python3 > /dev/null || { echo "skipped: python3 not installed"; exit 0; }
fail() { echo "FAIL: $*"; exit 1; }
python3 "$root/scripts/check-layers.py" "$root" > /dev/null || fail "the tree itself is not clean"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/core" "$tmp/vision" "$tmp/record" "$tmp/track"
printf '#include "core/gs.h"\n' > "$tmp/vision/vision.h"
printf '#include "vision/vision.h"\n' > "$tmp/core/gs.h"           # core reaches up: upward + circle
printf '#include "track/track_internal.h"\n' > "$tmp/record/record.h" # another folder's private header
printf '\n' > "$tmp/track/track_internal.h"
out=$(python3 "$root/scripts/check-layers.py" "$tmp") && fail "a broken tree passed"
grep -q 'core/gs.h: includes "vision/vision.h" from a higher stage' <<< "$out" || fail "upward include not named: $out"
grep -q 'private to track/' <<< "$out" || fail "private header not named: $out"
grep -q 'include circle: ' <<< "$out" || fail "circle not named: $out"
# calls the includes do not show: two files of one folder calling each
# other, and a call from a lower stage to a higher one
tmp2=$(mktemp -d); trap 'rm -rf "$tmp" "$tmp2"' EXIT
mkdir -p "$tmp2/core" "$tmp2/vision" "$tmp2/track"
printf '\n' > "$tmp2/core/gs.h"; printf '\n' > "$tmp2/vision/vision.h"; printf '\n' > "$tmp2/track/track.h"
printf 'int b(void);\nint a(void) { return b(); }\n' > "$tmp2/vision/one.c"
printf 'int a(void);\nint b(void) { return a() + 1; }\n' > "$tmp2/vision/two.c"
printf 'int t(void) { return 0; }\n' > "$tmp2/track/t.c"
printf 'int t(void);\nstatic int s(void) { return t(); }\nint c(void) { return s(); }\n' > "$tmp2/core/c.c"
out=$(python3 "$root/scripts/check-layers.py" "$tmp2") && fail "a call circle passed"
grep -q 'call circle in vision/: vision/one.c, vision/two.c' <<< "$out" || fail "call circle not named: $out"
grep -q 'core/c.c: calls t of track/t.c, a higher stage' <<< "$out" || fail "upward call not named: $out"
echo "ok: the layering holds and the check names each kind of offence, calls included"
