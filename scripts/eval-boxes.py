#!/usr/bin/python3
"""scripts/eval-boxes.py: the board finder and the reader on photos whose
stones are labelled as boxes (../shared/data/photos/stone-boxes: YOLO
labels, class 0 black, 1 white; no corners, no empty points).

For each photo `goscribe scan --json PHOTO`; each labelled stone's box centre
is taken to the board through the grid found (the homography of its four
corners) and counts as found when it lies within TOL cells of an
intersection of the grid, that intersection is read with the stone's colour
and not marked uncertain, and no other box took that intersection first.
A refused photo finds none of its stones; its reason is tallied.

Prints per split and in total: photos, answered, refused, stones found /
labelled (the issue-48 figure), stones on an intersection at all (the
finder alone), stones read with the wrong colour or as empty, and the
stones on marked points.  --verbose: one line per photo.

usage: scripts/eval-boxes.py [--binary GOSCRIBE] [--jobs N] [--verbose]
                             [--tol CELLS] [DIR] [-- SCAN OPTIONS...]
"""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def homography(src, dst):
    """The 3x3 H with dst ~ H src for four point pairs (DLT)."""
    a = []
    for (x, y), (u, v) in zip(src, dst):
        a.append([x, y, 1, 0, 0, 0, -u * x, -u * y, -u])
        a.append([0, 0, 0, x, y, 1, -v * x, -v * y, -v])
    _, _, vt = np.linalg.svd(np.array(a, float))
    return vt[-1].reshape(3, 3)


def to_board(hinv, x, y):
    p = hinv @ np.array([x, y, 1.0])
    return p[0] / p[2], p[1] / p[2]


def labels_of(img):
    lab = os.path.join(os.path.dirname(os.path.dirname(img)), "labels",
                       os.path.splitext(os.path.basename(img))[0] + ".txt")
    boxes = []
    if os.path.exists(lab):
        for line in open(lab):
            f = line.split()
            if len(f) == 5:
                boxes.append((int(f[0]), float(f[1]), float(f[2])))
    return boxes


def scan(binary, img, extra):
    p = subprocess.run([binary, "scan", "--json", img] + extra, capture_output=True, text=True)
    try:
        return p.returncode, json.loads(p.stdout) if p.stdout.strip() else None, p.stderr.strip()
    except ValueError:
        return p.returncode, None, "unparsable output"


def judge(img, res, tol):
    """The per-photo counts for one scan result."""
    rc, js, err = res
    boxes = labels_of(img)
    out = dict(n=len(boxes), found=0, on=0, wrong=0, marked=0, rc=rc, err=err, answered=False)
    if js is None or rc not in (0, 3) or "rows" not in js:
        return out
    out["answered"] = True
    n = js["size"]
    rows = [r.split() for r in js["rows"]]
    unsure = set(unsure_points(js))
    corners = js["corners"]
    h = homography([(0, 0), (n - 1, 0), (n - 1, n - 1), (0, n - 1)], corners)
    hinv = np.linalg.inv(h)
    w, hgt = image_size(img, js)
    taken = set()
    for cls, cx, cy in boxes:
        u, v = to_board(hinv, cx * w, cy * hgt)
        iu, iv = int(round(u)), int(round(v))
        if abs(u - iu) > tol or abs(v - iv) > tol or not (0 <= iu < n and 0 <= iv < n) or (iu, iv) in taken:
            continue
        taken.add((iu, iv))
        out["on"] += 1
        tok = rows[iv][iu].rstrip("?")
        want = "B" if cls == 0 else "W"
        if (iv, iu) in unsure:
            out["marked"] += 1
        elif tok == want:
            out["found"] += 1
        else:
            out["wrong"] += 1
    return out


def unsure_points(js):
    """(row, col) of the points the scan marked uncertain."""
    return [(ord(p[1]) - 97, ord(p[0]) - 97) for p in js.get("uncertain", [])]  # SGF: column, row


def image_size(img, js):
    if "width" in js and "height" in js:
        return js["width"], js["height"]
    import cv2  # the scan's JSON may not say the size
    im = cv2.imread(img, cv2.IMREAD_UNCHANGED)
    return im.shape[1], im.shape[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "goscribe"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--tol", type=float, default=0.35,
                    help="cells a box centre may lie from an intersection (default 0.35: a lattice "
                         "half a cell off puts centres 0.5 away)")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("dir", nargs="?", default=os.path.join(ROOT, "..", "shared", "data", "photos", "stone-boxes"))
    ap.add_argument("extra", nargs="*", help="options passed on to scan (after --)")
    a = ap.parse_args()
    if not os.access(a.binary, os.X_OK):
        sys.exit("eval-boxes: no goscribe binary at %s (build first or use --binary)" % a.binary)
    imgs = sorted(glob.glob(os.path.join(a.dir, "**", "images", "*.jpg"), recursive=True))
    if not imgs:
        sys.exit("eval-boxes: no photos under %s/*/images" % a.dir)
    with ThreadPoolExecutor(a.jobs) as ex:
        results = list(ex.map(lambda p: scan(a.binary, p, a.extra), imgs))
    splits = {}
    for img, res in zip(imgs, results):
        j = judge(img, res, a.tol)
        split = os.path.relpath(img, a.dir).split(os.sep)[0]
        splits.setdefault(split, []).append((img, j))
        if a.verbose:
            print("%-70s rc %d  %3d/%3d found  on %3d  wrong %2d  marked %3d  %s" % (
                os.path.relpath(img, a.dir)[:70], j["rc"], j["found"], j["n"], j["on"], j["wrong"], j["marked"],
                j["err"][:90] if not j["answered"] else ""))
    print("%-8s %6s %8s %7s %18s %14s %7s %7s" % ("split", "photos", "answered", "refused", "stones found",
                                                  "on the grid", "wrong", "marked"))
    allrows = []
    for split in sorted(splits) + ["TOTAL"]:
        rows = [j for _, j in (splits[split] if split != "TOTAL" else allrows)]
        if split != "TOTAL":
            allrows.extend(splits[split])
        n = sum(r["n"] for r in rows)
        f = sum(r["found"] for r in rows)
        on = sum(r["on"] for r in rows)
        print("%-8s %6d %8d %7d %8d/%-6d %5.1f%% %7.1f%% %7d %7d" % (
            split, len(rows), sum(r["answered"] for r in rows), sum(r["rc"] == 2 for r in rows), f, n,
            100.0 * f / max(n, 1), 100.0 * on / max(n, 1), sum(r["wrong"] for r in rows),
            sum(r["marked"] for r in rows)))
    reasons = {}
    for _, j in allrows:
        if not j["answered"]:
            key = j["err"].split(":")[-1].strip()[:60] if j["err"] else "exit %d" % j["rc"]
            reasons[key] = reasons.get(key, 0) + 1
    for k, v in sorted(reasons.items(), key=lambda kv: -kv[1]):
        print("  refused %3d: %s" % (v, k))


if __name__ == "__main__":
    main()
