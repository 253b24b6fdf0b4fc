#!/usr/bin/python3
"""train/views.py: the point model's training views, from the lattices of
train/grids.tsv, the photos of ../shared/data and negatives from Debian's
opencv-doc, through train/board_dump.c (the view the program makes).

Each view is a square sampling of a lattice (vision_view: 12 px a cell,
each lattice point at the centre of the model's window of
VISION_VIEW_WINDOW px), stored with a label per point of the photo's true
lattice:
  0 empty, 1 black, 2 white: an intersection of the board;
  3 none: no intersection there (past the board's edge: the margin, the
    table; a photo that is no board);
  -1 unknown (stone-boxes: past the stones' hull, where the labels may
    not reach and the board may end).
Rendered boards (train/renders.py) are viewed as they are.  Views are
made of each photo as it is, of changed copies (darker, a
colour cast, noise, blur, heavy JPEG, a flash's glare: what other
people's photos have), and of the lattice moved off the board's (the
input is then normalised by a wrong lattice's "wood", as the finder's
wrong candidates are).

usage: train/views.py [--grids train/grids.tsv] [--data DIR] [--out FILE.npz]
                      [--renders DIR] [--copies N] [--seed S]
Writes one .npz: the views (uint8 B, G, R), their wood colours, and per
view its source, lattice shift and labels.
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

import cv2
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NEG_DIR = "/usr/share/doc/opencv-doc/examples/data"
MARGIN = 3          # lattice points past each side of a known board (the margin, the table)
HULL_GROW = 0.6     # stone-boxes: points this far (cells) outside the stones' hull still count as known


def parse_grids(path):
    rows = []
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        f = line.rstrip("\n").split("\t")
        rows.append(dict(source=f[0], photo=f[1], size=int(f[2]), H=[float(x) for x in f[3].split()],
                         dist=[float(x) for x in f[4].split()]))
    return rows


def truth_labels(photo, size):
    """Labels over the lattice -MARGIN .. size-1+MARGIN (row-major)."""
    want = open(os.path.splitext(photo)[0] + ".txt").read().split()
    n = size + 2 * MARGIN
    lab = np.full((n, n), 3, np.int8)
    code = {".": 0, "B": 1, "W": 2}
    for i, t in enumerate(want):
        lab[MARGIN + i // size, MARGIN + i % size] = code[t]
    return -MARGIN, -MARGIN, lab


def box_labels(photo, h, w, hgt):
    """Labels over the box hull's bounding lattice: boxes their colour,
    other points in the hull (grown a little) empty, the rest unknown."""
    lab_path = os.path.join(os.path.dirname(os.path.dirname(photo)), "labels",
                            os.path.splitext(os.path.basename(photo))[0] + ".txt")
    hi = np.linalg.inv(np.array(h).reshape(3, 3))
    pts, cls = [], []
    for line in open(lab_path):
        f = line.split()
        if len(f) == 5:
            q = hi @ [float(f[1]) * w, float(f[2]) * hgt, 1]
            pts.append((q[0] / q[2], q[1] / q[2]))
            cls.append(int(f[0]))
    pts = np.array(pts)
    near = np.round(pts).astype(int)
    ok = np.abs(pts - near).max(1) <= 0.3
    if ok.sum() < 8:
        return None
    lo, hi_ = near[ok].min(0) - 2, near[ok].max(0) + 2
    nu, nv = hi_ - lo + 1
    if nu > 40 or nv > 40:
        return None
    lab = np.full((nv, nu), -1, np.int8)
    hull = cv2.convexHull(pts[ok].astype(np.float32))
    for j in range(nv):
        for i in range(nu):
            d = cv2.pointPolygonTest(hull, (float(lo[0] + i), float(lo[1] + j)), True)
            if d >= -HULL_GROW:
                lab[j, i] = 0
    for (u, v), c, k in zip(near, cls, ok):
        if k:
            lab[v - lo[1], u - lo[0]] = 1 + c
    return int(lo[0]), int(lo[1]), lab


def changed(img, kind, rng):
    """A copy of img as another camera or light might have made it."""
    f = img.astype(np.float32)
    if kind == "dark":
        f *= rng.uniform(0.35, 0.7)
    elif kind == "cast":
        f *= np.array(rng.choice([[0.4, 0.7, 1.0], [1.0, 0.75, 0.5], [0.55, 1.0, 0.65], [1.0, 0.6, 1.0]]), np.float32)
    elif kind == "night":
        f = f * rng.uniform(0.3, 0.45) + rng.normal(0, rng.uniform(4, 9), f.shape)
    elif kind == "blur":
        s = rng.uniform(0.6, 1.6) * max(img.shape) / 1000
        f = cv2.GaussianBlur(f, (0, 0), s)
    elif kind == "glare":
        h, w = img.shape[:2]
        yy, xx = np.mgrid[0:h, 0:w]
        cx, cy = rng.uniform(0.3, 0.7) * w, rng.uniform(0.3, 0.7) * h
        rx, ry = rng.uniform(0.08, 0.2) * w, rng.uniform(0.06, 0.15) * h
        g = np.exp(-(((xx - cx) / rx) ** 2 + ((yy - cy) / ry) ** 2))
        f = f + (255 - f) * (rng.uniform(0.5, 0.9) * g)[..., None]
    elif kind == "gradient":
        h, w = img.shape[:2]
        a = rng.uniform(0, 2 * np.pi)
        yy, xx = np.mgrid[0:h, 0:w]
        t = (np.cos(a) * (xx / w - 0.5) + np.sin(a) * (yy / h - 0.5))
        f *= (1 + rng.uniform(0.4, 0.9) * t)[..., None]
    out = np.clip(f, 0, 255).astype(np.uint8)
    if kind in ("jpeg", "night", "dark"):
        q = int(rng.uniform(8, 35)) if kind == "jpeg" else int(rng.uniform(40, 80))
        out = cv2.imdecode(cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])[1], cv2.IMREAD_COLOR)
    return out


KINDS = ["dark", "cast", "night", "blur", "glare", "gradient", "jpeg"]


class Dumper:
    """Runs train/board_dump over a list of jobs in one process."""

    def __init__(self, binary, tmp):
        # a copy: a rebuild while the views are made must not pull the tool away
        self.binary = os.path.join(tmp, "gs_board_dump")
        shutil.copy(binary, self.binary)

    def run(self, jobs):
        text = "".join(" ".join(str(x) for x in j) + "\n" for j in jobs)
        p = subprocess.run([self.binary], input=text, capture_output=True, text=True)
        return [json.loads(l) for l in p.stdout.splitlines()]


def negative_quads(img, rng, k):
    """k random lattices over an ordinary photo (size 19, a 10-90 % span)."""
    h, w = img.shape[:2]
    out = []
    for _ in range(k):
        s = rng.uniform(0.35, 0.95) * min(w, h)
        cx, cy = rng.uniform(s / 2, w - s / 2), rng.uniform(s / 2, h - s / 2)
        a = rng.uniform(-0.3, 0.3)
        pts = []
        for ux, uy in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
            x = ux * s / 2 * rng.uniform(0.75, 1.0)
            y = uy * s / 2 * rng.uniform(0.75, 1.0)
            pts.append((cx + np.cos(a) * x - np.sin(a) * y, cy + np.sin(a) * x + np.cos(a) * y))
        src = np.array([[0, 0], [18, 0], [18, 18], [0, 18]], np.float32)
        out.append(cv2.getPerspectiveTransform(src, np.array(pts, np.float32)).ravel().tolist())
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--grids", default=os.path.join(ROOT, "train", "grids.tsv"))
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--dump", default=os.path.join(ROOT, "build", "gs_board_dump"))
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "train", "views.npz"))
    ap.add_argument("--copies", type=int, default=2, help="changed copies of each photo (default 2)")
    ap.add_argument("--renders", default=os.path.join(ROOT, "build", "train", "renders"),
                    help="rendered boards (train/renders.py; none there: none used)")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    views = []  # dicts: img, wood, source, lab, du, dv, inside, name, kind
    tmp = tempfile.mkdtemp(prefix="gs-views-")
    dumper = Dumper(a.dump, tmp)
    rows = parse_grids(a.grids)
    for n_row, r in enumerate(rows):
        photo = os.path.join(a.data, "photos", r["photo"])
        img = cv2.imread(photo, cv2.IMREAD_COLOR | cv2.IMREAD_IGNORE_ORIENTATION)  # the frame of the stored pixels, as the truth grids and grids.tsv
        if img is None:
            print("views: cannot read %s" % photo, file=sys.stderr)
            continue
        h_, w_ = img.shape[:2]
        if r["source"] == "stone-boxes":
            bl = box_labels(photo, r["H"], w_, h_)
            if bl is None:
                continue
            lu0, lv0, lab = bl
        else:
            lu0, lv0, lab = truth_labels(photo, r["size"])
        nv, nu = lab.shape
        srcs = [(photo, "as is")]
        for k in rng.choice(len(KINDS), a.copies, replace=False):
            p = os.path.join(tmp, "c%d.png" % len(srcs))
            cv2.imwrite(p, changed(img, KINDS[k], rng))
            srcs.append((p, KINDS[k]))
        jobs = []
        for p, kind in srcs:
            shift = (0.0, 0.0) if kind == "as is" or rng.random() < 0.6 else tuple(rng.choice([-0.5, 0.5], 2))
            jobs.append((p, os.path.join(tmp, "v%d.png" % len(jobs)), lu0, lv0, nu, nv, shift[0], shift[1],
                         *r["H"], *r["dist"]))
        for j, res in zip(jobs, dumper.run(jobs)):
            if "error" in res:
                print("views: %s: %s" % (r["photo"], res["error"]), file=sys.stderr)
                continue
            v = cv2.imread(res["out"])
            views.append(dict(img=v, wood=np.array(res["wood"], np.float32), source=r["source"], lab=lab,
                              du=j[6], dv=j[7], inside=np.array([c == "1" for c in res["inside"]]).reshape(nv, nu),
                              name=r["photo"], kind=dict(srcs)[j[0]]))
        if n_row % 25 == 0:
            print("views: %d of %d photos, %d views" % (n_row + 1, len(rows), len(views)), file=sys.stderr)
    for d in sorted(glob.glob(os.path.join(a.renders, "*", "truth.json"))):
        t = json.load(open(d))
        n = t["size"]
        lab = np.full((n + 2 * MARGIN, n + 2 * MARGIN), 3, np.int8)
        for i, c in enumerate(t["position"]):
            lab[MARGIN + i // n, MARGIN + i % n] = {".": 0, "B": 1, "W": 2}[c]
        frame = os.path.join(os.path.dirname(d), "frame.png")
        job = (frame, os.path.join(tmp, "r.png"), -MARGIN, -MARGIN, n + 2 * MARGIN, n + 2 * MARGIN, 0, 0, *t["H"],
               t["k1"], t["cx"], t["cy"], t["norm"])
        res = dumper.run([job])[0]
        if "error" in res:
            print("views: %s: %s" % (frame, res["error"]), file=sys.stderr)
            continue
        views.append(dict(img=cv2.imread(res["out"]), wood=np.array(res["wood"], np.float32), source="renders",
                          lab=lab, du=0.0, dv=0.0, name=os.path.relpath(frame, a.renders), kind="as is",
                          inside=np.array([c == "1" for c in res["inside"]]).reshape(n + 2 * MARGIN, n + 2 * MARGIN)))
    negs = sorted(p for p in glob.glob(os.path.join(NEG_DIR, "*")) if p.lower().endswith((".jpg", ".png")))
    for p in negs:
        img = cv2.imread(p, cv2.IMREAD_COLOR | cv2.IMREAD_IGNORE_ORIENTATION)
        if img is None or min(img.shape[:2]) < 64:
            continue
        for hq in negative_quads(img, rng, 2):
            res = dumper.run([(p, os.path.join(tmp, "n.png"), 0, 0, 19, 19, 0, 0, *hq, 0, 0, 0, 1)])[0]
            if "error" in res:
                continue
            views.append(dict(img=cv2.imread(res["out"]), wood=np.array(res["wood"], np.float32), source="negative",
                              lab=np.full((19, 19), 3, np.int8), du=0.0, dv=0.0,
                              inside=np.array([c == "1" for c in res["inside"]]).reshape(19, 19),
                              name=os.path.basename(p), kind="as is"))
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    np.savez_compressed(a.out, views=np.array(views, dtype=object), allow_pickle=True)
    print("views: %d views written to %s" % (len(views), a.out), file=sys.stderr)


if __name__ == "__main__":
    main()
