#!/usr/bin/env bash
# Evaluates board finding (stage 1 of scan) on the photos of ../shared/data:
# per folder, how many photos get the right board size, how far the found
# outer intersections are from the corners a person clicked (gomrade only;
# the single shots were clicked on larger originals, so one scale factor is
# fitted per photo), the grid's fit residual and the time of
# vision_grid_find (CPU time, so a busy machine does not inflate it), from
# `goscribe calibrate`'s summary line.
#
# usage: scripts/eval_grid.sh [GOSCRIBE_BINARY] [DATA_DIR]
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
gs=${1:-$here/build/goscribe}
data=${2:-$here/../shared/data}
[ -x "$gs" ] || { echo "eval_grid: no binary at $gs (build first or pass its path)" >&2; exit 1; }
[ -d "$data/photos" ] || { echo "eval_grid: no $data/photos" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# Pin to one core when possible: the budget is per photo on one core.
pin=""; command -v taskset > /dev/null && pin="taskset -c 0"

printf '%-28s %6s %8s %10s %10s %9s %9s\n' folder photos size_ok clicks_ok worst_click resid_max cpu_ms_med
total_n=0; total_ok=0; all_times=""
for dir in $(cd "$data/photos" && find . -name '*.txt' -printf '%h\n' | sort -u); do
  d="$data/photos/${dir#./}"
  clicks=""
  if [ -f "$d/board_extractor_state.yml" ]; then
    clicks=$(awk '/pts_clicks:/{on=1; next} on && /^[a-z]/{on=0} on {gsub(/[- ]/,""); if ($0 != "") printf "%s ", $0}' "$d/board_extractor_state.yml")
  fi
  n=0; ok=0; cok=0; cn=0; worst=0; rmax=0; times=""
  for img in "$d"/*.jpg "$d"/*.png; do
    [ -f "$img" ] || continue
    txt="${img%.*}.txt"; [ -f "$txt" ] || continue
    want=$(grep -c '[.BW]' "$txt")
    n=$((n + 1))
    line=$($pin "$gs" calibrate "$img" -o "$tmp/g.cal" 2> "$tmp/err")
    if [ $? -ne 0 ]; then echo "  ${img#$data/photos/}: $(cat "$tmp/err")"; continue; fi
    line=${line%%$'\n'*}   # the summary is the first line
    size=$(echo "$line" | awk '{print $2}' | cut -dx -f1)
    t=$(echo "$line" | sed 's/.* cpu \([0-9.]*\) ms.*/\1/')
    r=$(echo "$line" | sed 's/.* residual \([0-9.]*\) .*/\1/')
    times="$times $t"; all_times="$all_times $t"
    rmax=$(awk -v a="$rmax" -v b="$r" 'BEGIN{print (b > a) ? b : a}')
    if [ "$size" = "$want" ]; then ok=$((ok + 1)); else echo "  ${img#$data/photos/}: size $size, expected $want"; fi
    if [ -n "$clicks" ]; then
      cn=$((cn + 1))
      corners=$(echo "$line" | sed 's/.* corners \(.*\) confidence.*/\1/' | tr ',' ' ')
      e=$(echo "$corners $clicks $size" | awk '{
        for (i = 0; i < 8; i++) { f[i] = $(i + 1); c[i] = $(i + 9) } n = $17;
        num = 0; den = 0;
        for (i = 0; i < 8; i++) { num += f[i] * c[i]; den += c[i] * c[i] }
        s = num / den; cell = sqrt((f[2] - f[0])^2 + (f[3] - f[1])^2) / (n - 1); w = 0;
        for (i = 0; i < 4; i++) { b = 1e18;
          for (j = 0; j < 4; j++) { d = sqrt((f[2*i] - s*c[2*j])^2 + (f[2*i+1] - s*c[2*j+1])^2); if (d < b) b = d }
          if (b > w) w = b }
        printf "%.3f", w / cell }')
      worst=$(awk -v a="$worst" -v b="$e" 'BEGIN{print (b > a) ? b : a}')
      if awk -v e="$e" 'BEGIN{exit !(e < 0.3)}'; then cok=$((cok + 1)); else echo "  ${img#$data/photos/}: corners $e cells from the clicks"; fi
    fi
  done
  [ $n -gt 0 ] || continue
  med=$(echo $times | tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END{if (NR) print a[int((NR+1)/2)]; else print "-"}')
  if [ $cn -gt 0 ]; then cc="$cok/$cn"; wc=$worst; else cc="-"; wc="-"; fi
  printf '%-28s %6d %8s %10s %10s %9s %9s\n' "${dir#./}" $n "$ok/$n" "$cc" "$wc" "$rmax" "$med"
  total_n=$((total_n + n)); total_ok=$((total_ok + ok))
done
med=$(echo $all_times | tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END{if (NR) print a[int((NR+1)/2)]; else print "-"}')
printf '%-28s %6d %8s %10s %10s %9s %9s\n' total $total_n "$total_ok/$total_n" "" "" "" "$med"
