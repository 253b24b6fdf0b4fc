#!/usr/bin/env bash
# One photo read three ways must read alike: `scan PHOTO`, `record` of a
# folder holding only that photo and `record PHOTO` (a photo file is a
# one-photo recording, not a one-frame video) give the same position, and
# `record --count-anyway` counts it as `count PHOTO` does (the dead stones
# estimated alike, the same RE) and keeps its doubt: where count is not sure
# (exit 3), record says NOT SURE with count's Score line, in its log and its
# SGF comment, and exits 3 too.  Real photos of ../shared/data (skipped
# without it).
#   usage: cli_record_photo.sh GOSCRIBE DATA_DIR
set -u
bin=$1
data=$2
fail=0
work=$(mktemp -d /tmp/gs-cli-record-photo.XXXXXX)
. "$(dirname "$0")/sgf_corpus.sh"
trap 'keep_all_sgf "$work" cli_record_photo; rm -rf "$work"' EXIT
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; fi; }

photos="goban-watcher/game1/1_jwerth_1 goban-watcher/game1/1_jwerth_violet_2 imago/t1/t1_005 gomrade/1/11"
n=0
for p in $photos; do
    jpg=$data/photos/$p.jpg
    [ -f "$jpg" ] || continue
    n=$((n + 1))
    name=$(basename "$p")
    "$bin" scan "$jpg" 2>/dev/null | tr -d '?' >"$work/$name.scan"
    mkdir -p "$work/$name"
    ln -s "$jpg" "$work/$name/$name.jpg"
    "$bin" record "$work/$name" -o "$work/$name-dir.sgf" --final "$work/$name.dir" --no-evidence --no-stdin -q \
        >/dev/null 2>"$work/$name.err"
    check "$p: record of a one-photo folder (exit $?)" '[ -s "$work/$name.dir" ]'
    check "$p: the folder's recording reads as scan does" 'diff "$work/$name.scan" "$work/$name.dir"'
    "$bin" record "$jpg" -o "$work/$name-file.sgf" --final "$work/$name.file" --no-evidence --no-stdin -q \
        --count-anyway >"$work/$name.log" 2>>"$work/$name.err"
    rrc=$?
    check "$p: record PHOTO accepted (exit $rrc)" '[ -s "$work/$name.file" ]'
    check "$p: record PHOTO reads as scan does" 'diff "$work/$name.scan" "$work/$name.file"'
    "$bin" count "$jpg" --json >"$work/$name.json" 2>/dev/null
    crc=$?
    score=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["score_line"])' "$work/$name.json")
    check "$p: record --count-anyway exits as count does ($rrc, count $crc)" '[ $rrc -eq $crc ]'
    if [ $crc -eq 3 ]; then
        check "$p: record keeps the count's doubt in its log ($score)" 'grep -qF "NOT SURE: $score" "$work/$name.log"'
        check "$p: ... and in its SGF comment" 'grep -qF "NOT SURE: $score." "$work/$name-file.sgf"'
    else
        check "$p: a sure count is not said to be unsure" '! grep -q "NOT SURE" "$work/$name.log"'
    fi
    want=$(sed -n 's/.*"result":"\([^"]*\)".*/\1/p' "$work/$name.json")
    got=$(sed -n 's/.*RE\[\([^]]*\)\].*/\1/p' "$work/$name-file.sgf")
    check "$p: record --count-anyway (RE $got) = count PHOTO ($want)" '[ -n "$want" ] && [ "$got" = "$want" ]'
    check "$p: the estimate said so" 'grep -q "ESTIMATE" "$work/$name.log" || ! grep -q "dead stones removed" "$work/$name-file.sgf"'
    # one photo shows no arms: the orientation is said once in the log (not
    # told) and once in the summary, no warning (issue 50: four times)
    "$bin" record "$jpg" -o "$work/$name-o.sgf" --no-evidence --no-stdin >"$work/$name.olog" 2>"$work/$name.oerr"
    said=$(cat "$work/$name.olog" "$work/$name.oerr" | grep -ci "where Black sat\|^orientation:")
    check "$p: the orientation said twice, not warned ($said)" '[ "$said" -eq 2 ] && ! grep -q warning "$work/$name.oerr"'
done
# a photo that cannot be read: refused naming why, the file named once,
# with the exit code scan and count give it (1: a broken file, README's
# exit codes; issue 50), and so is a folder none of whose photos can be read
printf '\377\330\377\340 cut short' >"$work/cut.jpg"
: >"$work/empty.jpg"
for f in cut.jpg empty.jpg; do
    "$bin" record "$work/$f" -o "$work/cut.sgf" --no-evidence --no-stdin -q 2>"$work/cut.err" >/dev/null
    rc=$?
    line=$(cat "$work/cut.err")
    "$bin" scan "$work/$f" >/dev/null 2>&1
    src=$?
    "$bin" count "$work/$f" >/dev/null 2>&1
    crc=$?
    check "record of an unreadable photo ($f): exit $rc as scan ($src) and count ($crc), one line naming the file once ($line)" \
        '[ $rc -eq 1 ] && [ $src -eq 1 ] && [ $crc -eq 1 ] && [ "$(wc -l <"$work/cut.err")" -eq 1 ] &&
         [ "$(grep -o "$f" <<< "$line" | wc -l)" -eq 1 ]'
done
mkdir "$work/broken" && cp "$work/cut.jpg" "$work/empty.jpg" "$work/broken/"
"$bin" record "$work/broken" -o "$work/cut.sgf" --no-evidence --no-stdin -q 2>"$work/cut.err" >/dev/null
rc=$?
check "a folder of unreadable photos: exit 1, one line ($rc: $(cat "$work/cut.err"))" \
    '[ $rc -eq 1 ] && [ "$(wc -l <"$work/cut.err")" -eq 1 ] && grep -q "none of its 2 photos can be read" "$work/cut.err"'
# not a camera: one line, not libv4l2's own lines too
"$bin" record /dev/null -o "$work/cut.sgf" --no-stdin 2>"$work/null.err" >/dev/null
rc=$?
check "record /dev/null: exit 1, one line ($(cat "$work/null.err"))" \
    '[ $rc -eq 1 ] && [ "$(wc -l <"$work/null.err")" -eq 1 ] && grep -q "not a camera" "$work/null.err"'
# a bad GOSCRIBE_MAX_PIXELS is refused, not ignored
GOSCRIBE_MAX_PIXELS=abc "$bin" scan "$work/cut.jpg" 2>"$work/env.err" >/dev/null
rc=$?
check "GOSCRIBE_MAX_PIXELS=abc: exit 1, one line naming it ($(cat "$work/env.err"))" \
    '[ $rc -eq 1 ] && [ "$(wc -l <"$work/env.err")" -eq 1 ] && grep -q "^goscribe: GOSCRIBE_MAX_PIXELS=abc: " "$work/env.err"'
if [ $n -eq 0 ]; then
    echo "skipped: no photos in $data/photos"
    exit 0
fi
[ $fail -eq 0 ] || cat "$work"/*.err
exit $fail
