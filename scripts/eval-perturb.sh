#!/usr/bin/env bash
# scripts/eval-perturb.sh: how well `goscribe scan` holds up on photos it has
# not seen, made from the photos with ground truth by changes a real photo
# can have: the scene mirrored, a smaller photo, a darker one, heavier JPEG.
# A method that only fits the photos as they are loses much here; one that
# generalises reads about the same.  Prints eval-scan.sh's TOTAL line per
# set, the unchanged photos first.
#
# usage: scripts/eval-perturb.sh [--binary GOSCRIBE] [--sets "mirror small dark jpeg"] [--keep DIR] [PHOTOS_DIR]
#   PHOTOS_DIR  default ../shared/data/photos/goban-watcher (crowded boards
#               under coloured light, where the method is least settled)
#   --sets      which changed sets to make (default all four):
#               mirror  left and right swapped (the truth's columns too)
#               small   75 % of the size (Lanczos)
#               dark    every channel at 60 % (an underexposed shot)
#               jpeg    recompressed at a low JPEG quality (ffmpeg -q:v 12)
#   --keep DIR  keep the changed copies in DIR/SET (to look at one photo with
#               eval-scan.sh --verbose DIR/SET or goscribe scan --overlay)
# Needs ffmpeg (Debian package ffmpeg).  Takes about a minute per set on the
# 46 goban-watcher photos.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=""; dir=""; sets="mirror small dark jpeg"; keep=""
while [ $# -gt 0 ]; do
    case "$1" in
        --binary) bin=$2; shift 2 ;;
        --sets) sets=$2; shift 2 ;;
        --keep) keep=$2; shift 2 ;;
        -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "eval-perturb.sh: unknown option $1" >&2; exit 1 ;;
        *) dir=$1; shift ;;
    esac
done
[ -n "$dir" ] || dir="$root/../shared/data/photos/goban-watcher"
[ -d "$dir" ] || { echo "eval-perturb.sh: $dir: no such folder" >&2; exit 1; }
command -v ffmpeg >/dev/null || { echo "eval-perturb.sh: needs ffmpeg (apt-get install ffmpeg)" >&2; exit 1; }
dir=$(cd "$dir" && pwd)
args=()
[ -n "$bin" ] && args=(--binary "$bin")
for s in $sets; do
    case "$s" in mirror|small|dark|jpeg) ;; *) echo "eval-perturb.sh: unknown set $s" >&2; exit 1 ;; esac
done

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# one changed copy of photo $1 (truth $2) as $3 (.jpg) for set $4
make_copy() {
    local img=$1 truth=$2 out=$3 set=$4 vf
    case "$set" in
        mirror) vf=hflip ;;
        small) vf="scale=trunc(iw*0.75/2)*2:-2:flags=lanczos" ;;
        dark) vf="lutrgb=r=val*0.6:g=val*0.6:b=val*0.6" ;;
        jpeg) vf=null ;;
    esac
    local q=2
    [ "$set" = jpeg ] && q=12
    ffmpeg -nostdin -loglevel error -y -i "$img" -vf "$vf" -q:v "$q" "$out"
    if [ "$set" = mirror ]; then
        awk '{s = ""; for (i = NF; i >= 1; i--) s = s (i < NF ? " " : "") $i; print s}' "$truth" >"${out%.jpg}.txt"
    else
        cp "$truth" "${out%.jpg}.txt"
    fi
}

printf '%-8s %s\n' "set" "eval-scan.sh TOTAL: photos, points right, boards exact, time, unmarked wrong, refused, sure right, sure boards"
printf '%-8s %s\n' "as-is" "$("$root/scripts/eval-scan.sh" "${args[@]}" "$dir" 2>/dev/null | grep '^TOTAL' | sed 's/^TOTAL *//')"
for s in $sets; do
    n=0
    while IFS= read -r img; do
        t="${img%.*}.txt"
        [ -f "$t" ] || continue
        rel=${img#"$dir"/}
        mkdir -p "$tmp/$s/$(dirname "$rel")"
        make_copy "$img" "$t" "$tmp/$s/${rel%.*}.jpg" "$s"
        n=$((n + 1))
    done < <(find "$dir" -type f \( -iname '*.jpg' -o -iname '*.jpeg' -o -iname '*.png' \) | sort -V)
    [ "$n" -gt 0 ] || { echo "eval-perturb.sh: no photos with a .txt truth under $dir" >&2; exit 1; }
    printf '%-8s %s\n' "$s" "$("$root/scripts/eval-scan.sh" "${args[@]}" "$tmp/$s" 2>/dev/null | grep '^TOTAL' | sed 's/^TOTAL *//')"
    if [ -n "$keep" ]; then mkdir -p "$keep" && rm -rf "${keep:?}/$s" && mv "$tmp/$s" "$keep/$s"; else rm -rf "${tmp:?}/$s"; fi
done
