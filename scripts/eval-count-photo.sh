#!/usr/bin/env bash
# The count of a photo against the count of its true grid (issue 43): for
# every photo with a NAME.txt grid beside it, `goscribe count PHOTO --json`
# and `goscribe count NAME.txt --json` (same options), then per photo the
# true grid's result, the photo's result and its range (result_low ..
# result_high), whether the range holds the truth, its width (points) and
# the time the range took; a total line: contained N/M, exact N/M (the
# photo's result is the grid's), sure N/M, the median width and the median
# and largest time of the range.
# usage: scripts/eval-count-photo.sh [GOSCRIBE] [PHOTOS_DIR] [extra count options...]
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
gs=${1:-$here/build/goscribe}
dir=${2:-$here/../shared/data/photos/goban-watcher}
shift 2 2>/dev/null || shift $#
[ -x "$gs" ] || { echo "eval-count-photo: no goscribe binary at $gs (build first)" >&2; exit 1; }
[ -d "$dir" ] || { echo "eval-count-photo: no photos at $dir" >&2; exit 1; }

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
: > "$tmp/rows"
while IFS= read -r photo; do
  grid=${photo%.*}.txt
  [ -f "$grid" ] || continue
  "$gs" count "$photo" --json "$@" > "$tmp/p" 2> "$tmp/pe"; prc=$?
  "$gs" count "$grid" --json "$@" > "$tmp/g" 2> "$tmp/ge"; grc=$?
  printf '%s\t%s\t%s\t%s\t%s\n' "${photo#$dir/}" "$prc" "$grc" "$(head -c 100000 "$tmp/p" | tr -d '\n\t')" \
    "$(head -c 100000 "$tmp/g" | tr -d '\n\t')" >> "$tmp/rows"
done < <(find "$dir" -type f \( -iname '*.jpg' -o -iname '*.jpeg' -o -iname '*.png' \) | sort)

python3 - "$tmp/rows" <<'EOF'
import json, statistics, sys

def margin(re):  # SGF RE form -> Black's margin in points
    if re == "0":
        return 0.0
    return float(re[2:]) * (1 if re[0] == "B" else -1)

rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
total = contained = exact = sure = winner_ok = 0
widths, times = [], []
for name, prc, grc, ptext, gtext in rows:
    total += 1
    try:
        g = json.loads(gtext)
    except ValueError:
        print("FAIL %-44s the grid does not count (exit %s)" % (name, grc))
        continue
    try:
        p = json.loads(ptext)
    except ValueError:
        print("MISS %-44s truth %-8s photo not counted (exit %s)" % (name, g["result"], prc))
        continue
    t, r = margin(g["result"]), margin(p["result"])
    if "result_low" not in p:  # a goscribe before the range: its bound either way
        s = p.get("read_swing", 0)
        p.update(result_low="%+g" % (r - s), result_high="%+g" % (r + s), result_sure=s == 0,
                 winner_sure=r - s > 0 or r + s < 0, range_ms=0.0, range_cpu_ms=0.0, range_readings=0, range_reruns=0)
        lo, hi = r - s, r + s
    else:
        lo, hi = margin(p["result_low"]), margin(p["result_high"])
    inside = lo - 1e-9 <= t <= hi + 1e-9
    contained += inside
    exact += r == t
    sure += p["result_sure"]
    winner_ok += p["winner_sure"] and (t > 0) == (r > 0) and t != 0
    widths.append(hi - lo)
    times.append(p["range_cpu_ms"])
    rng = p["result"] + " (sure)" if p["result_sure"] else "%s..%s" % (p["result_low"], p["result_high"])
    print("%-4s %-44s truth %-8s photo %-8s range %-20s width %5.1f  %s  doubt %3d  range %6.1f ms CPU, %d readings, %d reruns"
          % ("ok" if inside else "MISS", name, g["result"], p["result"], rng, hi - lo,
             "winner sure" if p["winner_sure"] else "winner ?   ", p.get("read_uncertain_count", 0), p["range_cpu_ms"],
             p["range_readings"], p["range_reruns"]))
if total:
    print("contained %d/%d, exact %d/%d, sure %d/%d, winner sure and right %d/%d; median width %.1f points; "
          "range time (CPU) median %.1f ms, max %.1f ms"
          % (contained, total, exact, total, sure, total, winner_ok, total,
             statistics.median(widths) if widths else float("nan"),
             statistics.median(times) if times else float("nan"), max(times) if times else float("nan")))
EOF
