#!/usr/bin/env bash
# scripts/eval-scan.sh: evaluates `goscribe scan` on every photo that has a
# NAME.txt ground truth beside it (default: ../shared/data/photos) and prints,
# per folder and in total: intersections right, boards exactly right, time.
#
# usage: scripts/eval-scan.sh [--binary GOSCRIBE] [--corners-file FILE] [--verbose] [PHOTOS_DIR]
#   --binary        goscribe binary (default: build/goscribe, then PATH)
#   --corners-file  development only: lines "RELATIVE/PATH x1,y1,...,x4,y4" give
#                   corners for some photos (passed as --corners), to measure
#                   the reading stage alone; the real figure is without it
#   --verbose       one line per photo (wrong points, time)
# Columns: "unmarked" = wrong points of boards read that the output did not
# mark uncertain ('?'), "noboard" = photos refused (exit 2: no board),
# "sure right" = points right and not marked uncertain (what a user can take
# without checking), "sure" = boards right at every point with none marked.
# The time is the wall time of the whole command (start, decode, find, read).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=""; cfile=""; verbose=0; dir=""
while [ $# -gt 0 ]; do
    case "$1" in
        --binary) bin=$2; shift 2 ;;
        --corners-file) cfile=$2; shift 2 ;;
        --verbose) verbose=1; shift ;;
        -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "eval-scan.sh: unknown option $1" >&2; exit 1 ;;
        *) dir=$1; shift ;;
    esac
done
[ -n "$dir" ] || dir="$root/../shared/data/photos"
[ -d "$dir" ] || { echo "eval-scan.sh: $dir: no such folder" >&2; exit 1; }
dir=$(cd "$dir" && pwd)
if [ -z "$bin" ]; then
    if [ -x "$root/build/goscribe" ]; then bin="$root/build/goscribe"; else bin=$(command -v goscribe || true); fi
fi
[ -n "$bin" ] && [ -x "$bin" ] || { echo "eval-scan.sh: goscribe binary not found (use --binary)" >&2; exit 1; }

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
results="$tmp/results"; : >"$results"
while IFS= read -r img; do
    truth="${img%.*}.txt"
    [ -f "$truth" ] || continue
    rel="${img#"$dir"/}"
    folder=$(dirname "$rel")
    args=()
    if [ -n "$cfile" ]; then
        c=$(awk -v p="$rel" '$1 == p { print $2 }' "$cfile")
        [ -n "$c" ] && args=(--corners "$c" --size "$(awk 'NF { n++ } END { print n }' "$truth")")
    fi
    t0=$(date +%s%N)
    rc=0
    "$bin" scan --json "$img" "${args[@]}" >"$tmp/out" 2>"$tmp/err" || rc=$?
    t1=$(date +%s%N)
    ms=$(( (t1 - t0) / 1000000 ))
    # Compare point by point; a failed scan counts every point as wrong.
    # The JSON's rows follow the photo as displayed (its EXIF orientation
    # applied, given back as "orientation"); the truth is in the stored
    # frame, so it is turned alike first (imago t1's photos carry
    # orientation 6).  A point among "uncertain" (a '?' in the plain
    # output; '-', a point off the photo, too) counts as read (right or
    # wrong); wrong points without the mark are counted apart ("unmarked":
    # confidently wrong).
    read -r right total unmarked marked < <(awk -v rc="$rc" '
        FNR == NR { if (NF) { nt++; for (i = 1; i <= NF; i++) g[nt, i] = $i }; next }
        /"orientation":/ { o = $2 + 0 }
        /"rows": \[/ { inrows = 1; next }
        inrows && /\]/ { inrows = 0 }
        inrows { gsub(/[",]/, ""); no++; for (i = 1; i <= NF; i++) { t[no, i] = $i; q[no, i] = ($i == "-") }; nc = NF }
        /"uncertain": \[/ { s = $0; sub(/.*\[/, "", s); sub(/\].*/, "", s); gsub(/[" ]/, "", s)
            k = split(s, pts, ","); for (j = 1; j <= k; j++) if (length(pts[j]) == 2)
                q[index(L, substr(pts[j], 2, 1)), index(L, substr(pts[j], 1, 1))] = 1 }
        BEGIN { L = "abcdefghijklmnopqrstuvwxy" }
        END { n = nt; r = 0; u = 0; m = 0
              if ((rc == 0 || rc == 3) && no == n && nc == n) {
                  for (y = 1; y <= n; y++) for (x = 1; x <= n; x++) {
                      # the stored truth as displayed under orientation o (EXIF)
                      if (o == 2) w = g[y, n + 1 - x]; else if (o == 3) w = g[n + 1 - y, n + 1 - x]
                      else if (o == 4) w = g[n + 1 - y, x]; else if (o == 5) w = g[x, y]
                      else if (o == 6) w = g[n + 1 - x, y]; else if (o == 7) w = g[n + 1 - x, n + 1 - y]
                      else if (o == 8) w = g[x, n + 1 - y]; else w = g[y, x]
                      r += (w == t[y, x]); u += (w != t[y, x] && !q[y, x]); m += q[y, x] }
              } else if (rc == 0 || rc == 3) u = n * n  # a board of the wrong size: all of it confidently wrong
              print r, n * n, u, m }' "$truth" "$tmp/out")
    # points right without a '?': the marked ones less those marked wrong
    sure=$(( right > 0 ? right - (marked - (total - right - unmarked)) : 0 ))
    echo "$folder $rel $right $total $ms $rc $unmarked $marked $sure" >>"$results"
    done_n=$(wc -l < "$results")
    [ "$verbose" = 1 ] || [ $((done_n % 10)) -ne 0 ] || echo "eval-scan: $done_n photos scanned ..." >&2
    if [ "$verbose" = 1 ]; then
        printf '%-45s %4d/%4d wrong %4d (unmarked %d, marked ? %d)  %5d ms  rc %d %s\n' "$rel" "$right" "$total" $((total - right)) "$unmarked" "$marked" "$ms" "$rc" "$(head -c 80 "$tmp/err")"
    fi
done < <(find "$dir" -type f \( -iname '*.jpg' -o -iname '*.jpeg' -o -iname '*.png' \) | sort -V)

awk '
function line(name, n, r, t, e, ms, u, nb, sr, se) {
    printf "%-28s %6d %9d/%-6d %8.3f%% %5d/%-3d %6.1f%% %8.0f ms %6.0f ms %8d %6d %9d %7.3f%% %4d/%-3d\n", name, n, r, t, t ? 100 * r / t : 0, e, n, n ? 100 * e / n : 0, n ? ms / n : 0, med(name), u, nb, sr, t ? 100 * sr / t : 0, se, n
}
function med(name,   k, m, i, j, x) { m = 0; for (k = 1; k <= cnt; k++) if (name == "TOTAL" || fold[k] == name) a[++m] = msv[k];
    for (i = 2; i <= m; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
    return m ? (m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2) : 0 }
{ cnt++; fold[cnt] = $1; msv[cnt] = $5
  if (!($1 in n)) order[++nf] = $1
  n[$1]++; r[$1] += $3; t[$1] += $4; e[$1] += ($3 == $4 && ($6 == 0 || $6 == 3)); ms[$1] += $5; u[$1] += $7; nb[$1] += ($6 == 2); sr[$1] += $9; se[$1] += ($9 == $4)
  SR += $9; SE += ($9 == $4)
  N++; R += $3; T += $4; E += ($3 == $4 && ($6 == 0 || $6 == 3)); MS += $5; U += $7; NB += ($6 == 2) }
END {
    printf "%-28s %6s %16s %9s %9s %7s %11s %9s %8s %6s %18s %8s\n", "folder", "photos", "points right", "", "boards", "exact", "mean time", "median", "unmarked", "noboard", "sure right", "sure"
    for (i = 1; i <= nf; i++) { f = order[i]; line(f, n[f], r[f], t[f], e[f], ms[f], u[f], nb[f], sr[f], se[f]) }
    line("TOTAL", N, R, T, E, MS, U, NB, SR, SE)
}' "$results"
