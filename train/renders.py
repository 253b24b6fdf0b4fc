#!/usr/bin/python3
"""train/renders.py: rendered boards for the point model's training, made
by `goscribe render` from the real game records of ../shared/data/games:
a frame of each game at a random move, with the look the seed draws
(camera tilt and turn, wood, stones, light, lens, noise, blur, JPEG), and
its truth (the grid, the position).  Real photos are few and come from few
boards; renders add boards, stones and light they do not have, with an
exact lattice.

usage: train/renders.py [--binary GOSCRIBE] [--data DIR] [--out DIR] [--count N] [--seed S]
Writes OUT/NNN/{frame.png, truth.json}: the frame (no hand over the board)
and {"size", "position" (row-major . B W), "H", "k1", "cx", "cy", "norm"}.
"""
import argparse
import glob
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read_cal(path):
    d = {}
    for line in open(path):
        f = line.split()
        if f and not f[0].startswith("#"):
            d[f[0]] = f[1:]
    dist = [float(x) for x in d["distortion"]]
    return dict(size=int(d["size"][0]), H=[float(x) for x in d["homography"]], k1=dist[0], cx=dist[1], cy=dist[2],
                norm=dist[3])


def one(binary, game, k, rng, out):
    """Renders game up to a random move; False when no clear frame came out."""
    tmp = tempfile.mkdtemp(prefix="gs-render-")
    try:
        w, h = rng.choice([(1280, 720), (1024, 768), (1600, 1200), (800, 600), (1280, 960)])
        moves = rng.randint(30, 320)
        args = [binary, "render", game, "-o", tmp, "-q", "--seed", str(rng.randint(1, 10 ** 6)),
                "--frame-size", "%dx%d" % (w, h), "--fps", "1", "--pace", "40", "--moves", str(moves),
                "--bump", "none", "--drift", "0", "--tilt", str(rng.randint(0, 55))]
        if rng.random() < 0.4:
            args.append("--objects")
        p = subprocess.run(args, capture_output=True, text=True)
        if p.returncode != 0:
            return False
        truth = [json.loads(l) for l in open(os.path.join(tmp, "truth.jsonl"))]
        clear = [t for t in truth if not t.get("hand") and not t.get("covered")]
        if not clear:
            return False
        t = clear[-1]
        g = read_cal(os.path.join(tmp, "truth.cal"))
        g["position"] = t["position"]
        d = os.path.join(out, "%03d" % k)
        os.makedirs(d, exist_ok=True)
        shutil.copy(os.path.join(tmp, "frame_%06d.png" % t["frame"]), os.path.join(d, "frame.png"))
        json.dump(g, open(os.path.join(d, "truth.json"), "w"))
        return True
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "goscribe"))
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "train", "renders"))
    ap.add_argument("--count", type=int, default=96)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    games = sorted(glob.glob(os.path.join(a.data, "games", "**", "*.sgf"), recursive=True))
    if not games:
        sys.exit("renders: no game records under %s/games" % a.data)
    shutil.rmtree(a.out, ignore_errors=True)
    made = 0
    for k in range(a.count * 2):
        if made == a.count:
            break
        made += one(a.binary, games[k % len(games)], made, rng, a.out)
        if k % 10 == 0:
            print("renders: %d of %d" % (made, a.count), file=sys.stderr)
    print("renders: %d frames in %s" % (made, a.out), file=sys.stderr)


if __name__ == "__main__":
    main()
