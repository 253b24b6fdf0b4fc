#!/usr/bin/python3
"""scripts/eval-scan.py: `goscribe scan --json` on every photo with a
NAME.txt truth grid beside it (default ../shared/data/photos), compared
point by point; per folder and in total:

  points right / all (a refused photo or a board of the wrong size counts
  every point wrong), boards exactly right, wrong points not marked
  uncertain ("unmarked": confidently wrong), points marked, photos refused
  (exit 2), "sure right" (points right and not marked: what a user can take
  without checking) and "sure" boards (right at every point, none marked).

The truth grids follow the photo's stored pixels; scan reads a photo as it
is displayed (its EXIF orientation applied, given back as "orientation"),
so the truth is turned alike before the comparison.

usage: scripts/eval-scan.py [--binary GOSCRIBE] [--jobs N] [--verbose] [DIR] [-- SCAN OPTIONS...]
"""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def oriented(grid, o):
    """A grid of rows (lists) in the stored frame, as displayed under EXIF orientation o."""
    n = len(grid)
    t = [[grid[r][c] for r in range(n)] for c in range(n)]  # transposed
    if o == 2:
        return [row[::-1] for row in grid]
    if o == 3:
        return [row[::-1] for row in grid[::-1]]
    if o == 4:
        return grid[::-1]
    if o == 5:
        return t
    if o == 6:
        return [row[::-1] for row in t]
    if o == 7:
        return [row[::-1] for row in t[::-1]]
    if o == 8:
        return t[::-1]
    return grid


def run(binary, img, extra):
    t0 = time.time()
    p = subprocess.run([binary, "scan", "--json", img] + extra, capture_output=True, text=True)
    ms = 1000 * (time.time() - t0)
    try:
        js = json.loads(p.stdout) if p.stdout.strip() else None
    except ValueError:
        js = None
    return p.returncode, js, p.stderr.strip(), ms


def judge(img, res):
    rc, js, err, ms = res
    truth = [l.split() for l in open(os.path.splitext(img)[0] + ".txt") if l.strip()]
    n = len(truth)
    out = dict(n=n * n, right=0, unmarked=0, marked=0, sure=0, rc=rc, err=err, ms=ms, answered=False)
    if js is None or rc not in (0, 3):
        return out
    out["answered"] = True
    if js.get("size") != n:
        out["unmarked"] = n * n  # a board of the wrong size: all of it confidently wrong
        return out
    truth = oriented(truth, js.get("orientation", 1))
    rows = [r.split() for r in js["rows"]]
    unsure = {(ord(p[1]) - 97, ord(p[0]) - 97) for p in js.get("uncertain", [])}
    for r in range(n):
        for c in range(n):
            ok = rows[r][c] == truth[r][c]
            m = (r, c) in unsure
            out["right"] += ok
            out["marked"] += m
            out["unmarked"] += (not ok) and not m
            out["sure"] += ok and not m
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "goscribe"))
    ap.add_argument("--jobs", type=int, default=1, help="scans at once (1: times comparable)")
    ap.add_argument("--verbose", action="store_true", help="one line per photo")
    ap.add_argument("dir", nargs="?", default=os.path.join(ROOT, "..", "shared", "data", "photos"))
    ap.add_argument("extra", nargs="*", help="options passed on to scan (after --)")
    a = ap.parse_args()
    if not os.access(a.binary, os.X_OK):
        sys.exit("eval-scan: no goscribe binary at %s (build first or use --binary)" % a.binary)
    imgs = sorted(p for p in glob.glob(os.path.join(a.dir, "**", "*"), recursive=True)
                  if p.lower().endswith((".jpg", ".jpeg", ".png")) and os.path.exists(os.path.splitext(p)[0] + ".txt"))
    if not imgs:
        sys.exit("eval-scan: no photos with a truth grid under %s" % a.dir)
    with ThreadPoolExecutor(a.jobs) as ex:
        results = list(ex.map(lambda p: run(a.binary, p, a.extra), imgs))
    folders = {}
    for img, res in zip(imgs, results):
        j = judge(img, res)
        rel = os.path.relpath(img, a.dir)
        folders.setdefault(os.path.dirname(rel), []).append(j)
        if a.verbose:
            print("%-45s %4d/%4d wrong %3d (unmarked %d, marked %d) %6.0f ms rc %d %s" % (
                rel, j["right"], j["n"], j["n"] - j["right"], j["unmarked"], j["marked"], j["ms"], j["rc"],
                "" if j["answered"] else j["err"][-90:]))
    fmt = "%-26s %6s %17s %8s %9s %9s %8s %8s %7s %16s %8s"
    print(fmt % ("folder", "photos", "points right", "", "boards", "unmarked", "marked", "refused", "median",
                 "sure right", "sure"))
    every = []
    for name in sorted(folders) + ["TOTAL"]:
        rows = folders[name] if name != "TOTAL" else every
        if name != "TOTAL":
            every.extend(rows)
        n = sum(r["n"] for r in rows)
        right = sum(r["right"] for r in rows)
        sure = sum(r["sure"] for r in rows)
        print("%-26s %6d %9d/%-7d %7.3f%% %4d/%-4d %9d %8d %8d %5.0f ms %8d %6.2f%% %4d/%-4d" % (
            name, len(rows), right, n, 100.0 * right / max(n, 1), sum(r["right"] == r["n"] for r in rows), len(rows),
            sum(r["unmarked"] for r in rows), sum(r["marked"] for r in rows), sum(r["rc"] == 2 for r in rows),
            statistics.median(r["ms"] for r in rows), sure, 100.0 * sure / max(n, 1),
            sum(r["sure"] == r["n"] for r in rows), len(rows)))


if __name__ == "__main__":
    main()
