#!/usr/bin/python3
"""train/make_grids.py: the lattice of every training photo, written once
to train/grids.tsv (committed), so that training is reproducible from a
clean clone without depending on the board finder of the day.

- Photos with a truth grid (imago, Gomrade, goban-watcher: NAME.txt): the
  finder's grid (`goscribe calibrate`), kept when `scan` on it reads at
  least MIN_AGREE of the points as the truth says (a lattice a line off
  reads far fewer).
- stone-boxes (stones as boxes): the finder's grid, then the lattice
  refitted to the boxes' centres (each centre to its nearest lattice
  point, a homography by least squares, twice); kept when at least
  MIN_BOXES_ON of the boxes then lie within BOX_TOL of a point.  The board
  may be cut off: no size is claimed, only the lattice.

usage: train/make_grids.py [--binary GOSCRIBE] [--data DIR] [--out FILE] [--jobs N]
Each row: source, photo path relative to DATA/photos, size (0: a lattice
of unknown extent), the 9 numbers of the homography board (u, v, 1) ->
image, k1 cx cy norm, and a note.
"""
import argparse
import glob
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MIN_AGREE = 0.97    # truth photos: the finder's lattice reads this share of points as the truth
BOX_TOL = 0.3       # cells: a box centre this near a lattice point sits on it
MIN_BOXES_ON = 0.9  # stone-boxes: this share of the boxes on the refitted lattice


def read_cal(path):
    d = {}
    for line in open(path):
        f = line.split()
        if f and not f[0].startswith("#"):
            d[f[0]] = f[1:]
    h = [float(x) for x in d["homography"]]
    dist = [float(x) for x in d.get("distortion", ["0", "0", "0", "1"])]
    return int(d["size"][0]), h, dist


def truth_agreement(binary, photo, cal, truth):
    p = subprocess.run([binary, "scan", photo, "--calibration", cal], capture_output=True, text=True)
    got = [t.rstrip("?") for t in p.stdout.split()]
    want = open(truth).read().split()
    if len(got) != len(want):
        return 0.0
    return sum(a == b for a, b in zip(got, want)) / len(want)


def boxes_of(photo):
    lab = os.path.join(os.path.dirname(os.path.dirname(photo)), "labels",
                       os.path.splitext(os.path.basename(photo))[0] + ".txt")
    out = []
    for line in open(lab):
        f = line.split()
        if len(f) == 5:
            out.append((int(f[0]), float(f[1]), float(f[2])))
    return out


def fit_h(src, dst):
    """Least-squares homography src -> dst (normalised DLT)."""
    src, dst = np.asarray(src, float), np.asarray(dst, float)

    def norm(p):
        c = p.mean(0)
        s = np.sqrt(2) / max(np.sqrt(((p - c) ** 2).sum(1)).mean(), 1e-9)
        return np.array([[s, 0, -s * c[0]], [0, s, -s * c[1]], [0, 0, 1]])
    ts, td = norm(src), norm(dst)
    a = []
    for (x, y), (u, v) in zip(src, dst):
        x, y, _ = ts @ [x, y, 1]
        u, v, _ = td @ [u, v, 1]
        a.append([x, y, 1, 0, 0, 0, -u * x, -u * y, -u])
        a.append([0, 0, 0, x, y, 1, -v * x, -v * y, -v])
    _, _, vt = np.linalg.svd(np.array(a))
    h = np.linalg.inv(td) @ vt[-1].reshape(3, 3) @ ts
    return h / h[2, 2]


def refit_to_boxes(h, boxes, w, hgt):
    """The lattice refitted to the box centres; (H, share of boxes on it)."""
    pts = np.array([(cx * w, cy * hgt) for _, cx, cy in boxes])
    share = 0.0
    for _ in range(3):
        hi = np.linalg.inv(h)
        q = np.c_[pts, np.ones(len(pts))] @ hi.T
        uv = q[:, :2] / q[:, 2:3]
        near = np.round(uv)
        ok = np.abs(uv - near).max(1) <= BOX_TOL
        share = ok.mean()
        if ok.sum() < 8:
            return h, share
        h = fit_h(near[ok], pts[ok])
    return h, share


def one(job):
    binary, data, src, photo = job
    rel = os.path.relpath(photo, os.path.join(data, "photos"))
    with tempfile.TemporaryDirectory() as tmp:
        cal = os.path.join(tmp, "g.cal")
        p = subprocess.run([binary, "calibrate", photo, "-o", cal], capture_output=True, text=True)
        if p.returncode != 0:
            return None, "%s: no grid (%s)" % (rel, p.stderr.strip()[-80:])
        size, h, dist = read_cal(cal)
        if src != "stone-boxes":
            truth = os.path.splitext(photo)[0] + ".txt"
            a = truth_agreement(binary, photo, cal, truth)
            if a < MIN_AGREE:
                return None, "%s: the finder's lattice reads %.1f %% as the truth" % (rel, 100 * a)
            return (src, rel, size, h, dist, "finder agree %.4f" % a), None
        import cv2
        im = cv2.imread(photo, cv2.IMREAD_COLOR | cv2.IMREAD_IGNORE_ORIENTATION)
        hh, share = refit_to_boxes(np.array(h).reshape(3, 3), boxes_of(photo), im.shape[1], im.shape[0])
        if share < MIN_BOXES_ON:
            return None, "%s: %.0f %% of the boxes on the lattice" % (rel, 100 * share)
        return (src, rel, 0, list(hh.ravel()), [0, 0, 0, 1], "boxes on %.3f" % share), None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "goscribe"))
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--out", default=os.path.join(ROOT, "train", "grids.tsv"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    a = ap.parse_args()
    jobs = []
    for src in ("imago", "gomrade", "goban-watcher"):
        for photo in sorted(glob.glob(os.path.join(a.data, "photos", src, "**", "*.jpg"), recursive=True)):
            if os.path.exists(os.path.splitext(photo)[0] + ".txt"):
                jobs.append((a.binary, a.data, src, photo))
    for photo in sorted(glob.glob(os.path.join(a.data, "photos", "stone-boxes", "*", "images", "*.jpg"))):
        jobs.append((a.binary, a.data, "stone-boxes", photo))
    with ThreadPoolExecutor(a.jobs) as ex:
        res = list(ex.map(one, jobs))
    rows = [r for r, _ in res if r]
    for _, why in res:
        if why:
            print("left out: " + why, file=sys.stderr)
    with open(a.out, "w") as f:
        f.write("# source\tphoto\tsize\tH (9)\tk1 cx cy norm\tnote  (train/make_grids.py)\n")
        for src, rel, size, h, dist, note in rows:
            f.write("%s\t%s\t%d\t%s\t%s\t%s\n" % (src, rel, size, " ".join("%.10g" % x for x in h),
                                                   " ".join("%.6g" % x for x in dist), note))
    print("make_grids: %d of %d photos have a lattice (%s)" % (len(rows), len(jobs), a.out), file=sys.stderr)


if __name__ == "__main__":
    main()
