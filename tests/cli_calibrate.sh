#!/usr/bin/env bash
# `goscribe calibrate`: writes a calibration file that loads back, one-line
# errors and exit codes (1 usage/IO, 2 no board).
set -u
gs=$1
data=$2
fail=0
check() { # name expected_rc actual_rc
  if [ "$2" != "$3" ]; then echo "FAIL $1: exit $3, expected $2"; fail=1; else echo "ok   $1"; fi
}
oneline() { # name file: stderr must be exactly one line
  n=$(wc -l < "$2")
  if [ "$n" != 1 ]; then echo "FAIL $1: $n lines on stderr"; cat "$2"; fail=1; else echo "ok   $1 (one line)"; fi
}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

"$gs" calibrate --help > "$tmp/out"; check help 0 $?
grep -q -- '-o' "$tmp/out" || { echo "FAIL help text"; fail=1; }
"$gs" calibrate 2> "$tmp/err"; check no-source 1 $?; oneline no-source "$tmp/err"
"$gs" calibrate "$tmp/missing.jpg" -o "$tmp/b.cal" 2> "$tmp/err"; check missing 1 $?; oneline missing "$tmp/err"
"$gs" calibrate x.jpg 2> "$tmp/err"; check no-output 1 $?; oneline no-output "$tmp/err"
"$gs" calibrate x.jpg -o "$tmp/b.cal" --size 7 2> "$tmp/err"; check bad-size 1 $?; oneline bad-size "$tmp/err"
"$gs" calibrate x.jpg -o "$tmp/b.cal" --bogus 2> "$tmp/err"; check bad-option 1 $?; oneline bad-option "$tmp/err"
: > "$tmp/empty.jpg"
"$gs" calibrate "$tmp/empty.jpg" -o "$tmp/b.cal" 2> "$tmp/err"; check empty-photo 1 $?; oneline empty-photo "$tmp/err"

# A plain grey picture (binary PPM): no board -> exit 2, one line.
{ printf 'P6\n320 240\n255\n'; head -c $((320 * 240 * 3)) /dev/zero | tr '\0' '\200'; } > "$tmp/wall.ppm"
"$gs" calibrate "$tmp/wall.ppm" -o "$tmp/b.cal" 2> "$tmp/err"; check no-board 2 $?; oneline no-board "$tmp/err"
[ ! -e "$tmp/b.cal" ] || { echo "FAIL no-board wrote a file"; fail=1; }

# --corners needs no board finding: any readable picture will do.
"$gs" calibrate "$tmp/wall.ppm" -o "$tmp/c.cal" --size 13 --corners 10,10,300,12,290,230,20,225 > "$tmp/out"
check corners 0 $?
grep -q '^size 13$' "$tmp/c.cal" || { echo "FAIL corners: no size line"; fail=1; }
grep -q '^corners 10.000 10.000 300.000 12.000' "$tmp/c.cal" || { echo "FAIL corners: corners line"; fail=1; }
"$gs" calibrate "$tmp/wall.ppm" -o "$tmp/c.cal" --corners 1,2,3 2> "$tmp/err"; check bad-corners 1 $?; oneline bad-corners "$tmp/err"
"$gs" calibrate "$tmp/wall.ppm" -o "$tmp/nodir/c.cal" --corners 10,10,300,12,290,230,20,225 2> "$tmp/err" > /dev/null
check unwritable 1 $?; oneline unwritable "$tmp/err"

photo="$data/photos/imago/t3/t3_000.jpg"
if [ -f "$photo" ]; then
  "$gs" calibrate "$photo" -o "$tmp/t3.cal" --overlay "$tmp/t3.png" > "$tmp/out"; check real-photo 0 $?
  grep -q '^goscribe-calibration 1$' "$tmp/t3.cal" || { echo "FAIL real-photo: header"; fail=1; }
  grep -q '^size 19$' "$tmp/t3.cal" || { echo "FAIL real-photo: size"; fail=1; }
  grep -q '^image 640 480$' "$tmp/t3.cal" || { echo "FAIL real-photo: image size"; fail=1; }
  [ -s "$tmp/t3.png" ] || { echo "FAIL real-photo: no overlay"; fail=1; }
  # a folder of photos is a source too
  "$gs" calibrate "$data/photos/imago/t3" -o "$tmp/f.cal" --frames 2 > "$tmp/out"; check folder 0 $?
  grep -q '^size 19$' "$tmp/f.cal" || { echo "FAIL folder: size"; fail=1; }
else
  echo "skipped: $photo absent (shared data not beside this clone)"
fi
exit $fail
