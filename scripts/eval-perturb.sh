#!/usr/bin/env bash
# scripts/eval-perturb.sh: how well `goscribe scan` holds up on photos it has
# not seen, made from the photos with ground truth by changes a real photo
# can have (the truth changed alike where a change moves the points).  A
# method that only fits the photos as they are loses much here; one that
# generalises reads about the same.  Prints eval-scan.py's TOTAL line per
# set, the unchanged photos first, and after it the boards answered with a
# wrong point left unmarked ("wrong": confidently wrong boards).
#
# usage: scripts/eval-perturb.sh [--binary GOSCRIBE] [--sets "SET ..."] [--no-as-is] [--keep DIR]
#                                [--jobs N] [PHOTOS_DIR]
#   PHOTOS_DIR  default ../shared/data/photos/goban-watcher (crowded boards
#               under coloured light, where the method is least settled)
#   --sets      which changed sets to make (default "mirror small dark jpeg";
#               "heldout" stands for the ten from persp to heavy, the ways
#               photos by other people differ from the visible ones):
#               mirror  left and right swapped (the truth's columns too)
#               small   75 % of the size (Lanczos)
#               dark    every channel at 60 % (an underexposed shot)
#               jpeg    recompressed at a low JPEG quality (ffmpeg -q:v 12)
#               persp   a camera lower and to one side (the far side and one
#                       side shrunk; every other photo the other side), the
#                       scene round the photo blurred in
#               tilt    turned in the plane by 7 degrees (alternately either way)
#               quarter turned by 90 degrees (alternately either way; the
#                       truth's grid turned with it)
#               half    turned by 180 degrees (the truth too)
#               crop    cut to the board and 0.75 cell round it (the corners
#                       from the binary's scan of the unchanged photo; photos
#                       it refuses are left out)
#               phone   enlarged to 4032 pixels on the longest side
#               tiny    shrunk to 640 pixels on the longest side
#               glare   a flash's bright elliptical highlight on the board
#               cast    a strong colour cast (tungsten, cold, green in turn)
#               night   at 35 % exposure with sensor noise
#               blur    slight defocus or motion blur (in turn: a Gaussian of
#                       1.3 px per 1000, a sideways smear of 1/200 of the photo)
#               heavy   recompressed at a very low JPEG quality (ffmpeg -q:v 25)
#   --no-as-is  leave out the unchanged photos' line
#   --keep DIR  keep the changed copies in DIR/SET and eval-scan.py's
#               verbose lines in DIR/SET.log (to compare binaries on the same
#               copies: eval-scan.py --binary B --verbose DIR/SET)
#   --jobs N    scans at once (default 1, so the median times compare)
# Needs ffmpeg (Debian package ffmpeg).  Takes about a minute per set on the
# 46 goban-watcher photos.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=""; dir=""; sets="mirror small dark jpeg"; keep=""; asis=1; jobs=1
heldout="persp tilt quarter half crop phone tiny glare cast night blur heavy"
while [ $# -gt 0 ]; do
    case "$1" in
        --binary) bin=$2; shift 2 ;;
        --sets) sets=$2; shift 2 ;;
        --keep) keep=$2; shift 2 ;;
        --no-as-is) asis=0; shift ;;
        --jobs) jobs=$2; shift 2 ;;
        -h|--help) sed -n '2,45p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "eval-perturb.sh: unknown option $1" >&2; exit 1 ;;
        *) dir=$1; shift ;;
    esac
done
sets=${sets//heldout/$heldout}
[ -n "$dir" ] || dir="$root/../shared/data/photos/goban-watcher"
[ -d "$dir" ] || { echo "eval-perturb.sh: $dir: no such folder" >&2; exit 1; }
command -v ffmpeg >/dev/null || { echo "eval-perturb.sh: needs ffmpeg (apt-get install ffmpeg)" >&2; exit 1; }
dir=$(cd "$dir" && pwd)
case "$jobs" in ''|*[!0-9]*|0) echo "eval-perturb.sh: --jobs takes a whole number of at least 1" >&2; exit 1 ;; esac
args=(--jobs "$jobs")
[ -n "$bin" ] && args+=(--binary "$bin")
scanbin=$bin
[ -n "$scanbin" ] || { if [ -x "$root/build/goscribe" ]; then scanbin="$root/build/goscribe"; else scanbin=$(command -v goscribe || true); fi; }
for s in $sets; do
    case "$s" in mirror|small|dark|jpeg|persp|tilt|quarter|half|crop|phone|tiny|glare|cast|night|blur|heavy) ;;
        *) echo "eval-perturb.sh: unknown set $s" >&2; exit 1 ;;
    esac
done

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# The truth grid $1 turned: cw (clockwise a quarter), ccw, half, or mirror.
turn_truth() {
    awk -v how="$2" '
        { n++; for (i = 1; i <= NF; i++) g[n, i] = $i }
        END { for (r = 1; r <= n; r++) { s = ""
                for (c = 1; c <= n; c++) {
                    if (how == "cw") t = g[n + 1 - c, r]; else if (how == "ccw") t = g[c, n + 1 - r]
                    else if (how == "half") t = g[n + 1 - r, n + 1 - c]; else t = g[r, n + 1 - c]
                    s = s (c > 1 ? " " : "") t }
                print s } }' "$1"
}

# The filter that puts photo $1 (w x h) on a canvas an eighth larger on
# every side, the scene round it its own edges mirrored and blurred (a
# turned or tilted photo has no empty corners), for the warps after it.
surround() {
    local w=$1 h=$2 pw=$(($1 / 8)) ph=$(($2 / 8))
    echo "split[a][b];[a]pad=w=iw+2*$pw:h=ih+2*$ph:x=$pw:y=$ph,fillborders=left=$pw:right=$pw:top=$ph:bottom=$ph:mode=mirror,boxblur=24:2[bg];[bg][b]overlay=$pw:$ph"
}

# A bright ellipse centred at (cx, cy) of the frame with half axes (a, b),
# added to every channel (a flash's highlight on a glossy board).
glare_filter() {
    local e="230*exp(-(pow((X-$1*W)/($3*W),2)+pow((Y-$2*H)/($4*H),2)))"
    echo "format=gbrp,geq=r='min(255,r(X,Y)+$e)':g='min(255,g(X,Y)+$e)':b='min(255,b(X,Y)+$e)'"
}

# The crop of photo $1 (w x h) to its board and 0.75 cell round it, from
# the corners the binary finds; empty when it finds none.
crop_filter() {
    local json
    json=$("$scanbin" scan "$1" --json 2>/dev/null || true)
    [ -n "$json" ] || return 0
    printf '%s\n' "$json" | tr -d ' \n' | sed -n 's/.*"size":\([0-9]*\).*"corners":\[\[\([^]]*\)\],\[\([^]]*\)\],\[\([^]]*\)\],\[\([^]]*\)\]\].*/\1 \2 \3 \4 \5/p' |
        tr ',' ' ' | awk -v w="$2" -v h="$3" '{
            n = $1; x0 = x1 = $2; y0 = y1 = $3; side = 0
            for (i = 0; i < 4; i++) { x = $(2 + 2 * i); y = $(3 + 2 * i)
                if (x < x0) x0 = x; if (x > x1) x1 = x; if (y < y0) y0 = y; if (y > y1) y1 = y
                j = (i + 1) % 4; d = sqrt(($(2 + 2 * j) - x) ^ 2 + ($(3 + 2 * j) - y) ^ 2); if (d > side) side = d }
            m = 0.75 * side / (n - 1)
            x0 = int(x0 - m); y0 = int(y0 - m); x1 = int(x1 + m); y1 = int(y1 + m)
            if (x0 < 0) x0 = 0; if (y0 < 0) y0 = 0; if (x1 > w) x1 = w; if (y1 > h) y1 = h
            printf "crop=%d:%d:%d:%d\n", (x1 - x0) - (x1 - x0) % 2, (y1 - y0) - (y1 - y0) % 2, x0, y0 }'
}

# one changed copy of photo $1 (truth $2) as $3 (.jpg) for set $4, the
# photo's index $5 choosing between a set's variants; 1 when the set
# leaves the photo out
make_copy() {
    local img=$1 truth=$2 out=$3 set=$4 k=$5 vf="" fc="" turn="" q=2 w h long
    read -r w h < <(ffprobe -v error -select_streams v:0 -show_entries stream=width,height -of csv=p=0:s=x "$img" | tr x ' ')
    long=$((w > h ? w : h))
    case "$set" in
        mirror) vf=hflip; turn=mirror ;;
        small) vf="scale=trunc(iw*0.75/2)*2:-2:flags=lanczos" ;;
        dark) vf="lutrgb=r=val*0.6:g=val*0.6:b=val*0.6" ;;
        jpeg) vf=null; q=12 ;;
        heavy) vf=null; q=25 ;;
        persp)
            if [ $((k % 2)) = 0 ]; then
                fc="$(surround "$w" "$h"),perspective=x0=0.10*W:y0=0.05*H:x1=0.84*W:y1=0.13*H:x2=0:y2=H:x3=W:y3=0.95*H:sense=destination"
            else
                fc="$(surround "$w" "$h"),perspective=x0=0.16*W:y0=0.13*H:x1=0.90*W:y1=0.05*H:x2=0:y2=0.95*H:x3=W:y3=H:sense=destination"
            fi ;;
        tilt)
            local a=0.122
            [ $((k % 2)) = 0 ] || a=-0.122
            fc="$(surround "$w" "$h"),rotate=$a:c=black" ;;
        quarter)
            if [ $((k % 2)) = 0 ]; then vf=transpose=clock; turn=cw; else vf=transpose=cclock; turn=ccw; fi ;;
        half) vf="hflip,vflip"; turn=half ;;
        crop) vf=$(crop_filter "$img" "$w" "$h"); [ -n "$vf" ] || return 1 ;;
        phone) vf="scale=w=$((w * 4032 / long / 2 * 2)):h=$((h * 4032 / long / 2 * 2)):flags=lanczos" ;;
        tiny) vf="scale=w=$((w * 640 / long / 2 * 2)):h=$((h * 640 / long / 2 * 2)):flags=area" ;;
        glare)
            if [ $((k % 2)) = 0 ]; then vf=$(glare_filter 0.45 0.40 0.16 0.09); else vf=$(glare_filter 0.60 0.55 0.13 0.11); fi ;;
        cast)
            case $((k % 3)) in
                0) vf="colorchannelmixer=rr=1:gg=0.7:bb=0.4" ;;
                1) vf="colorchannelmixer=rr=0.5:gg=0.75:bb=1" ;;
                2) vf="colorchannelmixer=rr=0.65:gg=1:bb=0.55" ;;
            esac ;;
        night) vf="lutrgb=r=val*0.35:g=val*0.35:b=val*0.35,format=gbrp,noise=alls=8:all_seed=$((4242 + k))" ;;
        blur)
            if [ $((k % 2)) = 0 ]; then
                vf="gblur=sigma=$(awk -v l="$long" 'BEGIN { printf "%.2f", 1.3 * l / 1000 }')"
            else
                local t="1" i taps=$((2 * (long / 400) + 1))
                for ((i = 1; i < taps; i++)); do t="$t 1"; done
                local m="m='$t':rdiv=1/$taps:mode=row"
                vf="convolution=0${m//:/:0}:1${m//:/:1}:2${m//:/:2}"
            fi ;;
    esac
    if [ -n "$fc" ]; then
        ffmpeg -nostdin -loglevel error -y -i "$img" -filter_complex "$fc" -q:v "$q" "$out"
    else
        ffmpeg -nostdin -loglevel error -y -i "$img" -vf "$vf" -q:v "$q" "$out"
    fi
    if [ -n "$turn" ]; then turn_truth "$truth" "$turn" >"${out%.jpg}.txt"; else cp "$truth" "${out%.jpg}.txt"; fi
}

# eval-scan.py's TOTAL line for folder $1, and the boards answered with a
# wrong point left unmarked; its verbose lines into $2
score_set() {
    /usr/bin/python3 "$root/scripts/eval-scan.py" "${args[@]}" --verbose "$1" >"$2" 2>/dev/null || true
    local total wrong
    total=$(grep '^TOTAL' "$2" | sed 's/^TOTAL *//')
    wrong=$(awk '/unmarked [0-9]+,/ { u = $0; sub(/.*unmarked /, "", u); sub(/,.*/, "", u); r = $0; sub(/.* rc /, "", r); sub(/ .*/, "", r)
                  if (u + 0 > 0 && (r == 0 || r == 3)) n++ } END { print n + 0 }' "$2")
    echo "$total  wrong $wrong"
}

printf '%-8s %s\n' "set" "eval-scan.py TOTAL: photos, points right, boards exact, unmarked wrong, marked, refused, median time, sure right, sure boards; wrong boards"
[ "$asis" = 0 ] || printf '%-8s %s\n' "as-is" "$(score_set "$dir" "$tmp/as-is.log")"
for s in $sets; do
    n=0
    while IFS= read -r img; do
        t="${img%.*}.txt"
        [ -f "$t" ] || continue
        rel=${img#"$dir"/}
        mkdir -p "$tmp/$s/$(dirname "$rel")"
        make_copy "$img" "$t" "$tmp/$s/${rel%.*}.jpg" "$s" "$n" || continue
        n=$((n + 1))
    done < <(find "$dir" -type f \( -iname '*.jpg' -o -iname '*.jpeg' -o -iname '*.png' \) | sort -V)
    [ "$n" -gt 0 ] || { echo "eval-perturb.sh: no photos with a .txt truth under $dir" >&2; exit 1; }
    printf '%-8s %s\n' "$s" "$(score_set "$tmp/$s" "$tmp/$s.log")"
    if [ -n "$keep" ]; then
        mkdir -p "$keep" && rm -rf "${keep:?}/$s" && mv "$tmp/$s" "$keep/$s" && mv "$tmp/$s.log" "$keep/$s.log"
    else
        rm -rf "${tmp:?}/$s"
    fi
done
