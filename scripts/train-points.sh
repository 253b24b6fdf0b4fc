#!/usr/bin/env bash
# scripts/train-points.sh: trains the point model from a clean clone, in one
# command: installs Debian's python3-torch and python3-onnx when missing,
# builds the view tool, renders boards from the game records
# (train/renders.py), makes the training views (train/views.py) from the
# lattices of train/grids.tsv and the photos of ../shared/data, trains the
# model with its leave-one-source-out figures (train/train_points.py) and
# writes vision/points.onnx; rebuild goscribe to take it in.  Seeded: the
# same data and seed give the same views and windows (the model's weights
# may differ in the last digits between machines: torch's CPU kernels).
#
# usage: scripts/train-points.sh [--quick] [--seed S] [--epochs N]
#   --quick   the final model only, without the leave-one-source-out runs
#             (about a fifth of the time; how vision/points.onnx was
#             made: 24 epochs, temperature 1)
# The report (the figures of vision/points.md) is build/train/report.txt.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seed=1; epochs=24; quick=()
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) quick=(--no-loso); shift ;;
        --seed) seed=$2; shift 2 ;;
        --epochs) epochs=$2; shift 2 ;;
        -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "train-points.sh: unknown option $1" >&2; exit 1 ;;
    esac
done
data="$root/../shared/data"
[ -d "$data/photos" ] || { echo "train-points.sh: no photos at $data/photos (the shared data)" >&2; exit 1; }
py=/usr/bin/python3   # Debian's: its torch, onnx, cv2 and numpy
missing=()
for pkg in python3-torch python3-onnx python3-opencv python3-numpy opencv-doc; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "train-points: installing ${missing[*]}"
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
"$root/scripts/build.sh"
mkdir -p "$root/build/train"
t0=$(date +%s)
echo "train-points: rendering boards from the game records (a few minutes)..."
"$py" "$root/train/renders.py" --seed "$seed" --binary "$root/build/goscribe" --out "$root/build/train/renders"
echo "train-points: making the training views (a few minutes)..."
"$py" "$root/train/views.py" --seed "$seed" --out "$root/build/train/views.npz"
echo "train-points: training (the leave-one-source-out models, then the final one)..."
"$py" "$root/train/train_points.py" --views "$root/build/train/views.npz" --seed "$seed" --epochs "$epochs" \
    --out "$root/vision/points.onnx" --report "$root/build/train/report.txt" "${quick[@]}"
echo "train-points: done in $(( $(date +%s) - t0 )) s: vision/points.onnx (report: build/train/report.txt); run scripts/build.sh to take it in"
