#!/usr/bin/env bash
# scripts/eval-compare.sh: two builds of goscribe point by point on every
# photo with a NAME.txt ground truth (default: ../shared/data/photos): how
# many points the new build puts right that the old one had wrong (fixed),
# how many it spoils (spoiled), and the photos where the two disagree on
# more than a tenth of the board or where one refuses and the other reads
# (a grid change, not a reading one: counted apart, named).  For a change
# to the reading: eval-scan.py gives the totals, this what they net.
#
# With --same, for a change that must not change any figure (a
# restructuring): `scan --json` of the two builds, its exit status and
# its message, identical on every image under the folders given (truth or
# not; the time fields ms, ms_grid and ms_read aside); names each image
# where they differ and exits 1 if any does.
#
# usage: scripts/eval-compare.sh OLD_GOSCRIBE NEW_GOSCRIBE [--verbose] [PHOTOS_DIR]
#        scripts/eval-compare.sh OLD_GOSCRIBE NEW_GOSCRIBE --same [--cache DIR] DIR...
#   --verbose  one line per point that changed (photo, row, column, old,
#              new, truth; '?' marks a point read as uncertain)
#   --cache DIR  (with --same) keep the old build's answers in DIR and take
#              them from there on the next run (the old build unchanged:
#              the caller's word)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
old=""; new=""; dir=""; verbose=0; same=0; cache=""; dirs=()
while [ $# -gt 0 ]; do
    case "$1" in
        --verbose) verbose=1; shift ;;
        --same) same=1; shift ;;
        --cache) cache=$2; shift 2 ;;
        -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "eval-compare.sh: unknown option $1" >&2; exit 1 ;;
        *) if [ -z "$old" ]; then old=$1; elif [ -z "$new" ]; then new=$1; else dir=$1; dirs+=("$1"); fi; shift ;;
    esac
done
[ -n "$old" ] && [ -n "$new" ] || { echo "usage: scripts/eval-compare.sh OLD_GOSCRIBE NEW_GOSCRIBE [--verbose] [PHOTOS_DIR]" >&2; exit 1; }
for b in "$old" "$new"; do [ -x "$b" ] || { echo "eval-compare.sh: $b: not an executable" >&2; exit 1; }; done

# --same: one build's answer on image $2 (stdout without the time fields,
# then the message and the exit status) into $3
answer() {
    local rc=0
    "$1" scan "$2" --json >"$3.out" 2>"$3.err" || rc=$?
    { grep -v -E '^ *"ms(_grid|_read)?":' "$3.out" || true; cat "$3.err"; echo "exit $rc"; } >"$3"
    rm -f "$3.out" "$3.err"
}
if [ "$same" = 1 ]; then
    [ ${#dirs[@]} -gt 0 ] || dirs=("$root/../shared/data/photos")
    [ -z "$cache" ] || mkdir -p "$cache"
    tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
    n=0; differ=""
    for d in "${dirs[@]}"; do
        [ -d "$d" ] || { echo "eval-compare.sh: $d: no such folder" >&2; exit 1; }
        while IFS= read -r img; do
            n=$((n + 1))
            key=$(printf '%s' "$img" | md5sum | cut -c1-16)
            if [ -n "$cache" ] && [ -f "$cache/$key" ]; then cp "$cache/$key" "$tmp/old"
            else answer "$old" "$img" "$tmp/old"; [ -z "$cache" ] || cp "$tmp/old" "$cache/$key"; fi
            answer "$new" "$img" "$tmp/new"
            cmp -s "$tmp/old" "$tmp/new" || { differ="$differ $img"; [ "$verbose" = 0 ] || diff "$tmp/old" "$tmp/new" >&2 || true; }
        done < <(find "$(cd "$d" && pwd)" -type f \( -iname '*.jpg' -o -iname '*.jpeg' -o -iname '*.png' \) | sort -V)
    done
    if [ -z "$differ" ]; then echo "$n images: scan --json identical"; exit 0; fi
    echo "$n images: scan --json differs on:$differ"
    exit 1
fi
[ -n "$dir" ] || dir="$root/../shared/data/photos"
[ -d "$dir" ] || { echo "eval-compare.sh: $dir: no such folder" >&2; exit 1; }
dir=$(cd "$dir" && pwd)

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fixed=0; spoiled=0; photos=0; apart=""
while IFS= read -r img; do
    truth="${img%.*}.txt"
    [ -f "$truth" ] || continue
    rel="${img#"$dir"/}"
    photos=$((photos + 1))
    "$old" scan "$img" >"$tmp/old" 2>/dev/null || true
    "$new" scan "$img" >"$tmp/new" 2>/dev/null || true
    n=$(awk 'NF { k++ } END { print k + 0 }' "$truth")
    lo=$(wc -l <"$tmp/old"); ln=$(wc -l <"$tmp/new")
    if [ "$lo" != "$n" ] || [ "$ln" != "$n" ]; then
        [ "$lo" = "$ln" ] || apart="$apart $rel(one build refuses it)"
        continue
    fi
    # per point: old, new, truth (tokens without the '?' compared)
    read -r f s < <(paste -d'|' "$tmp/old" "$tmp/new" "$truth" | awk -F'|' -v rel="$rel" -v verbose="$verbose" '
        { n = split($1, o, " "); split($2, w, " "); split($3, t, " ")
          for (i = 1; i <= n; i++) {
              a = o[i]; sub(/\?$/, "", a); b = w[i]; sub(/\?$/, "", b)
              if (a == b) continue
              if (a != t[i] && b == t[i]) f++
              if (a == t[i] && b != t[i]) s++
              if (verbose) printf "%s row %d col %d: %s -> %s, truth %s\n", rel, NR - 1, i - 1, o[i], w[i], t[i] > "/dev/stderr"
          } }
        END { print f + 0, s + 0 }')
    if [ $((f + s)) -gt $((n * n / 10)) ]; then
        apart="$apart $rel($f fixed/$s spoiled)"
        continue
    fi
    fixed=$((fixed + f)); spoiled=$((spoiled + s))
done < <(find "$dir" -type f \( -iname '*.jpg' -o -iname '*.jpeg' -o -iname '*.png' \) | sort -V)
echo "$photos photos: $fixed points fixed, $spoiled spoiled; grid changes:${apart:- none}"
