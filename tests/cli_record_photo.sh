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
done
# a photo that cannot be read: refused naming why, not only "no board"
printf '\377\330\377\340 cut short' >"$work/cut.jpg"
"$bin" record "$work/cut.jpg" -o "$work/cut.sgf" --no-evidence --no-stdin -q 2>"$work/cut.err"
rc=$?
check "record of an unreadable photo: exit 2, one line saying why (got $rc: $(cat "$work/cut.err"))" \
    '[ $rc -eq 2 ] && [ "$(wc -l <"$work/cut.err")" -eq 1 ] && grep -q "no board found in 0 frames: .*cut.jpg" "$work/cut.err"'
if [ $n -eq 0 ]; then
    echo "skipped: no photos in $data/photos"
    exit 0
fi
[ $fail -eq 0 ] || cat "$work"/*.err
exit $fail
