#!/usr/bin/env bash
# A folder of photos is played in name order; the times of play (GSTM) come
# from each photo's EXIF time, else its file time.  File times out of that
# order (copied, touched, synced) must not make the game go backwards: each
# move's GSTM is not before the one before it, and the log says which
# photo's time was not used and what was taken instead.  Real photos of
# ../shared/data (copied, so their times can be set; skipped without them).
#   usage: cli_record_folder_clock.sh GOSCRIBE DATA_DIR
set -u
bin=$1
data=$2
fail=0
work=$(mktemp -d /tmp/gs-cli-record-folder-clock.XXXXXX)
. "$(dirname "$0")/sgf_corpus.sh"
trap 'keep_all_sgf "$work" cli_record_folder_clock; rm -rf "$work"' EXIT
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; fi; }

seq=$data/photos/gomrade/testing_sequence
if [ ! -f "$seq/3.jpg" ]; then echo "skipped: $seq absent"; exit 0; fi
mkdir "$work/f"
# name order 0 1 2 3 (one move each after 0); file times 0 < 2 < 3 < 1
stamp=(2026-03-01T12:00:00Z 2026-03-01T12:00:30Z 2026-03-01T12:00:10Z 2026-03-01T12:00:20Z)
for i in 0 1 2 3; do
    cp "$seq/$i.jpg" "$work/f/$i.jpg" && touch -d "${stamp[$i]}" "$work/f/$i.jpg"
done
"$bin" record "$work/f" -o "$work/g.sgf" --no-stdin --no-evidence -q >"$work/g.log" 2>&1
check "record exit 0" '[ $? -eq 0 ]'
times=$(grep -o 'GSTM\[[^]]*' "$work/g.sgf" | cut -c6-)
echo "GSTM: $(tr '\n' ' ' <<< "$times")"
check "3 moves timed" '[ "$(grep -c . <<< "$times")" -eq 3 ]'
check "the times of play never go backwards" '[ "$times" = "$(sort <<< "$times")" ]'
check "the first move at its photo's file time (12:00:30)" 'head -1 <<< "$times" | grep -q "T12:00:30"'
check "the log names the photo whose time was before the previous one" 'grep -q "2.jpg.*before the previous photo" "$work/g.log"'

# two photos a fraction of a second apart, out of order: the note gives
# both times to the millisecond, not one time "before" the same one
rm -rf "$work/f" && mkdir "$work/f"
for i in 0 1 2; do cp "$seq/$i.jpg" "$work/f/$i.jpg"; done
touch -d "2026-03-01T12:00:00.100Z" "$work/f/0.jpg"
touch -d "2026-03-01T12:00:00.900Z" "$work/f/1.jpg"
touch -d "2026-03-01T12:00:00.500Z" "$work/f/2.jpg"
"$bin" record "$work/f" -o "$work/h.sgf" --no-stdin --no-evidence -q >"$work/h.log" 2>&1
note=$(grep 'before the previous photo' "$work/h.log")
echo "note: ${note#*] }"
check "times under a second apart told apart" \
    'grep -q "its time (2026-03-01T12:00:00.500Z) is before the previous photo.s (2026-03-01T12:00:00.900Z)" <<< "$note"'
exit $fail
