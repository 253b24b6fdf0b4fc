#!/usr/bin/env bash
# The dead-stone evaluation of `goscribe count` (issue 8): for every KGS game
# with final TB/TW marks and a numeric RE, count the final position with
# --dead auto and compare (a) the dead stones with those the marks imply
# (--dead marks) and (b) the result with RE.  Prints one line per game, then
# x/N and the time per game.
# usage: scripts/eval-count.sh [GOSCRIBE] [GAMES_DIR] [extra count options...]
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
gs=${1:-$here/build/goscribe}
dir=${2:-$here/../shared/data/games/kgs}
shift 2 2>/dev/null || shift $#
[ -x "$gs" ] || { echo "eval-count: no goscribe binary at $gs (build first)" >&2; exit 1; }
[ -d "$dir" ] || { echo "eval-count: no games at $dir" >&2; exit 1; }

field() { # JSON text, key -> its value (doc/json.md "JSON: one vocabulary"); strings bare, lists as JSON
  python3 -c 'import json,sys
v=json.loads(sys.argv[1])[sys.argv[2]]
print(v if isinstance(v, str) else json.dumps(v, separators=(",", ":")))' "$1" "$2" 2>/dev/null
}
norm_re() { # W+30.50 -> W+30.5, B+7.0 -> B+7
  sed -E -e 's/(\.[0-9]*[1-9])0+$/\1/' -e 's/\.0+$//' <<< "$1"
}

total=0; same_dead=0; same_re=0; both=0; ms_sum=0; ms_max=0; cpu_sum=0; cpu_max=0; est_sum=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
TIMEFORMAT='%3U %3S'
while IFS= read -r f; do
  re=$(grep -o 'RE\[[^]]*\]' "$f" | head -1 | sed -e 's/^RE\[//' -e 's/\]$//')
  [[ "$re" =~ ^[BW]\+[0-9.]+$ ]] || continue
  grep -q 'T[BW]\[' "$f" || continue
  total=$((total + 1))
  truth=$("$gs" count "$f" --dead marks --json 2>&1) || { echo "FAIL $f: $truth"; continue; }
  t0=$(date +%s%N)
  { time "$gs" count "$f" --dead auto --json "$@" > "$tmp/est" 2>&1; } 2> "$tmp/time" || { echo "FAIL $f: $(cat "$tmp/est")"; continue; }
  t1=$(date +%s%N)
  est=$(cat "$tmp/est")
  ms=$(( (t1 - t0) / 1000000 ))
  cpu=$(awk '{printf "%d", ($1 + $2) * 1000}' "$tmp/time")
  ems=$(field "$est" estimate_ms)
  ms_sum=$((ms_sum + ms)); [ $ms -gt $ms_max ] && ms_max=$ms
  cpu_sum=$((cpu_sum + cpu)); [ $cpu -gt $cpu_max ] && cpu_max=$cpu
  est_sum=$(awk -v a="$est_sum" -v b="$ems" 'BEGIN{print a + b}')
  d_ok=0; r_ok=0
  if [ "$(field "$truth" dead_points)" = "$(field "$est" dead_points)" ]; then d_ok=1; same_dead=$((same_dead + 1)); fi
  got=$(field "$est" result); want=$(norm_re "$re")
  [ "$got" = "$want" ] && { r_ok=1; same_re=$((same_re + 1)); }
  [ $d_ok = 1 ] && [ $r_ok = 1 ] && both=$((both + 1))
  status=$([ $d_ok = 1 ] && [ $r_ok = 1 ] && echo ok || echo MISS)
  printf '%-4s %-45s RE %-9s got %-9s dead %s  process %s ms wall, %s ms CPU; estimate %s ms, %s playouts\n' "$status" "${f#$dir/}" "$want" "$got" \
    "$([ $d_ok = 1 ] && echo same || echo "differ: marks $(field "$truth" dead_points) est $(field "$est" dead_points)")" \
    "$ms" "$cpu" "$ems" "$(field "$est" playouts)"
done < <(find "$dir" -name '*.sgf' | sort)
[ $total -gt 0 ] || { echo "eval-count: no game with TB/TW marks and a numeric RE in $dir"; exit 1; }
echo "same dead stones and RE reproduced: $both/$total  (dead stones same: $same_dead/$total, RE reproduced: $same_re/$total)"
echo "time per game, whole goscribe count --dead auto process (start-up and file reading included):"
echo "  CPU (user+sys): mean $((cpu_sum / total)) ms, max $cpu_max ms; wall: mean $((ms_sum / total)) ms, max $ms_max ms"
echo "  estimate alone (in-process wall): mean $(awk -v a="$est_sum" -v n="$total" 'BEGIN{printf "%.1f", a / n}') ms"
