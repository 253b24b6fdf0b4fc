#!/usr/bin/env bash
# scripts/bench-hall.sh [--goscribe BIN] [--keep DIR] [--boards N]
#                       [--frame-size WxH] [--fps F] [VIDEO...]: a club
# evening's speed.  `goscribe hall --config` records the videos at once (one
# recorder process a board, as at a club), each at full speed, and for each
# board prints: frames, the video's frame rate, the recorder's wall time,
# frames per second, how many times real time that is, and whether the
# record is exactly the game played (its moves against the video's truth:
# VIDEO's .truth.sgf from `goscribe render`, or the .json of
# ../shared/tools/composite), and each recorder's CPU time: the cores the
# boards need between them to keep up with their videos, a figure other
# work on the machine does not change much, and from it how many such
# boards the machine's cores keep in real time.  Without VIDEOs, four 9x9
# games are rendered (tests/hall_games.sh) at --frame-size (default
# 640x360) and --fps (default 6), and --boards N (default 4) boards play
# them in turn.  Note `uptime` beside the figures: other work on the
# machine slows every board.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
gs=$root/build/goscribe
keep=
boards=4
size=640x360
rate=6
while [ $# -gt 0 ]; do
  case $1 in
    --goscribe) gs=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    --boards) boards=$2; shift 2 ;;
    --frame-size) size=$2; shift 2 ;;
    --fps) rate=$2; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
work=${keep:-$(mktemp -d /tmp/gs-bench-hall.XXXXXX)}
mkdir -p "$work/games"
[ -z "$keep" ] && trap 'rm -rf "$work"' EXIT
videos=("$@")
if [ ${#videos[@]} -eq 0 ]; then
  . "$root/tests/hall_games.sh"
  render_games "$gs" "$work" "$rate" 2 "$size" || { echo "bench-hall: render failed" >&2; exit 1; }
  for i in $(seq 1 "$boards"); do videos+=("$work/g$(( (i - 1) % 4 + 1 )).avi"); done
fi
n=${#videos[@]}
{
  echo "board,black,white"
  for i in $(seq 1 "$n"); do echo "$i,Black $i,White $i"; done
} > "$work/pairs.csv"
{
  echo "pairings = pairs.csv"
  echo "output = games"
  echo "serve = 127.0.0.1:0"
  for i in $(seq 1 "$n"); do
    v=$(readlink -f "${videos[$((i - 1))]}")
    # a handicap video of tests/hall_games.sh is board 3: pairs.csv says nothing of it
    printf '[board %d]\nsource = %s\n' "$i" "$v"
  done
} > "$work/evening.conf"

echo "uptime before: $(uptime)"
t0=$(date +%s.%N)
"$gs" hall --config "$work/evening.conf" --exit-when-done > "$work/hall.out" 2> "$work/hall.err"
rc=$?
t1=$(date +%s.%N)
echo "uptime after:  $(uptime)"
[ $rc -eq 0 ] || { echo "bench-hall: the hall exited $rc:" >&2; tail -5 "$work/hall.err" >&2; }

# the truth of a video: its moves as ";B[pd]" text
truth_moves() {
  local v=$1 base=${1%.*}
  if [ -f "$base.truth.sgf" ]; then grep -o ';[BW]\[[a-s]*\]' "$base.truth.sgf" | tr -d '\n'
  elif [ -f "$base.json" ]; then
    python3 -c 'import json,sys
print("".join(";%s[%s%s]" % (c, chr(97 + x), chr(97 + y)) for c, x, y in json.load(open(sys.argv[1]))["moves"]))' "$base.json"
  fi
}
printf '%-5s %-22s %7s %5s %8s %8s %7s %7s %8s %-22s\n' board video frames fps wall_s frames/s xreal cpu_s fr/cpu_s record
cores=0
all_rt=1
all_exact=1
for i in $(seq 1 "$n"); do
  v=${videos[$((i - 1))]}
  line=$(grep "^\[table $i\] recorder ended" "$work/hall.err")
  wall=$(sed -n 's/.* after \([0-9.]*\) s.*/\1/p' <<< "$line")
  cpu=$(sed -n 's/.* (CPU \([0-9.]*\) s).*/\1/p' <<< "$line")
  frames=$(sed -n 's/.* from \([0-9]*\) frames.*/\1/p' <<< "$line")
  vfps=$(/usr/bin/python3 -c 'import cv2,sys; print(round(cv2.VideoCapture(sys.argv[1]).get(cv2.CAP_PROP_FPS), 2))' "$v" 2>/dev/null || echo 0)
  got=$(grep -o ';[BW]\[[a-s]*\]' "$work/games/round-0-table-$i.sgf" 2>/dev/null | tr -d '\n')
  want=$(truth_moves "$v")
  nw=$(grep -o ';' <<< "$want" | wc -l); ng=$(grep -o ';' <<< "$got" | wc -l)
  if [ -z "$want" ]; then verdict="no truth ($ng moves)"
  elif [ "$got" = "$want" ]; then verdict="exact ($ng moves)"
  else
    verdict="DIFFERS ($ng of $nw)"; all_exact=0
  fi
  fps=$(python3 -c "print('%.1f' % ($frames / $wall))" 2>/dev/null || echo 0)
  xreal=$(python3 -c "print('%.2f' % ($frames / $wall / $vfps))" 2>/dev/null || echo 0)
  python3 -c "import sys; sys.exit(0 if $xreal >= 1 else 1)" 2>/dev/null || all_rt=0
  fcpu=$(python3 -c "print('%.1f' % ($frames / $cpu))" 2>/dev/null || echo 0)
  # the share of a core this board needs to keep up with its video
  cores=$(python3 -c "print($cores + $vfps / $fcpu)" 2>/dev/null || echo "$cores")
  printf '%-5s %-22s %7s %5s %8s %8s %7s %7s %8s %-22s\n' "$i" "$(basename "$v" | cut -c1-22)" "${frames:-?}" "$vfps" "${wall:-?}" "$fps" "$xreal" "${cpu:-?}" "$fcpu" "$verdict"
done
printf 'CPU: the boards need %.2f cores between them to record in real time (the machine has %d): about %d such boards fit in its cores\n' \
  "$cores" "$(nproc)" "$(python3 -c "print(int($(nproc) * $n / $cores) if $cores > 0 else 0)" 2>/dev/null || echo 0)"
printf 'evening: %d boards at once in %.1f s wall; every board at least real time: %s; every record exact: %s\n' \
  "$n" "$(python3 -c "print($t1 - $t0)")" "$([ $all_rt = 1 ] && echo yes || echo NO)" "$([ $all_exact = 1 ] && echo yes || echo NO)"
[ $rc -eq 0 ] && [ $all_rt = 1 ] && [ $all_exact = 1 ]
