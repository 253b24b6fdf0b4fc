#!/usr/bin/env python3
"""Scores one recorded render against its truth (figure 3 of
scripts/eval-record.sh), or sums the scores of several.

  eval-referee.py game NAME SIZE TRUTH.jsonl TRUTH.sgf RECORD.log RECORD.sgf CHECK.txt RESULTS.jsonl
      prints the game's lines and appends its score to RESULTS.jsonl
  eval-referee.py total RESULTS.jsonl
      prints the figure's totals

What is scored (issue 15):
  - the move list, in order, under the board symmetry that fits best (a
    camera that found the board itself cannot know which edge is which);
  - every seeded violation (left in place or corrected) against the
    recorder's flags: same code at its move (the recorder inserts a pass
    before the extra stone of a double move left in place, so later numbers
    are one higher per such double move), or one move off;
  - flags that match no violation and are not the unannounced passes of the
    game (a pass in the truth recorded as a double move) are false;
  - end-of-game signals: each made on the table must be recognised within
    SIGNAL_WINDOW_S after its stone lay there, as the same kind by the same
    player; recorded signals matching none are false;
  - the recorder's count (its RE and each side's stones) against `goscribe
    check` of the file it wrote;
  - every irregular view the recorder saw undone (flagged as corrected, or
    taken as a misread) with the confidence it was seen with, split by
    whether a seeded violation that was then put right stood on the board:
    the trade-off of RECORD_SURE, measured.
"""
import json
import re
import sys

SIGNAL_WINDOW_S = 8.0
LETTERS = "abcdefghijklmnopqrs"


def sgf_moves(path):
    text = open(path).read()
    return [(m.group(1), m.group(2)) for m in re.finditer(r";([BW])\[([a-s]{0,2})\]", text)]


def stones(moves):
    return [c + p for c, p in moves if p]


def symmetry(x, y, n, k):
    return [(x, y), (n - 1 - y, x), (n - 1 - x, n - 1 - y), (y, n - 1 - x),
            (n - 1 - x, y), (x, n - 1 - y), (y, x), (n - 1 - y, n - 1 - x)][k]


def compare_moves(truth, rec, n):
    best = None
    for k in range(8):
        same, first = 0, 0
        for i, (t, r) in enumerate(zip(truth, rec)):
            x, y = symmetry(LETTERS.index(t[1]), LETTERS.index(t[2]), n, k)
            if t[0] + LETTERS[x] + LETTERS[y] == r:
                same += 1
            elif not first:
                first = i + 1
        if best is None or same > best[0]:
            best = (same, first)
    return best


def log_time(line):
    m = re.match(r"\[(\d+):(\d+)\.(\d)\]", line)
    return int(m.group(1)) * 60 + int(m.group(2)) + int(m.group(3)) / 10 if m else 0.0


def score_violations(viol, flags, pass_moves, out):
    """viol: truth violations; flags: (code, move, line); returns counts."""
    used = [False] * len(flags)
    res = {"left": 0, "left_hit": 0, "corr": 0, "corr_hit": 0, "one_off": 0, "missed": 0}
    for v in viol:
        shift = sum(1 for w in viol if w["type"] == "double_move" and not w["corrected"] and w["move"] < v["move"])
        want = v["move"] + shift
        found, off = None, False
        for k, (code, mv, _) in enumerate(flags):
            if not used[k] and code == v["type"] and mv == want:
                found = k
                break
        if found is None:
            for k, (code, mv, _) in enumerate(flags):
                if not used[k] and code == v["type"] and abs(mv - want) == 1:
                    found, off = k, True
                    break
        kind = "corr" if v["corrected"] else "left"
        res[kind] += 1
        if found is not None:
            used[found] = True
            res[kind + "_hit"] += 0 if off else 1
            res["one_off"] += 1 if off else 0
        else:
            res["missed"] += 1
        how = "MISSED" if found is None else ("flagged one off (move %d)" % flags[found][1] if off
                                               else "flagged at the right move")
        out.append("    seeded %-15s %-9s move %3d: %s" % (v["type"], "corrected" if v["corrected"] else "left",
                                                            v["move"], how))
    passes, false = 0, []
    for k, (code, mv, line) in enumerate(flags):
        if used[k]:
            continue
        shift = 0
        for v in viol:
            if v["type"] == "double_move" and not v["corrected"] and v["move"] + shift < mv:
                shift += 1
        if code == "double_move" and (mv - shift) in pass_moves:
            passes += 1
            continue
        false.append((code, mv))
        out.append("    false flag: %s at move %d: %s" % (code, mv, line[:160]))
    res["passes"] = passes
    res["false"] = len(false)
    return res


def score_signals(truth_sig, log_lines, out):
    rec = []
    for line in log_lines:
        if "] SIGNAL " not in line:
            continue
        kind = "resign_signal" if "resignation signal" in line else "confirm_signal"
        m = re.search(r"(Black|White) (confirms|resigns)", line)
        who = ("B" if m.group(1) == "Black" else "W") if m else "?"
        rec.append((log_time(line), kind, who, line))
    used = [False] * len(rec)
    hit = 0
    for s in truth_sig:
        t = s["t_ms"] / 1000.0
        found = None
        for k, (rt, kind, who, _) in enumerate(rec):
            if not used[k] and kind == s["type"] and who == s["color"] and t <= rt <= t + SIGNAL_WINDOW_S:
                found = k
                break
        if found is not None:
            used[found] = True
            hit += 1
            out.append("    signal %-14s by %s at %5.1f s: recognised %.1f s later, the right player" %
                       (s["type"], s["color"], t, rec[found][0] - t))
        else:
            out.append("    signal %-14s by %s at %5.1f s: NOT recognised" % (s["type"], s["color"], t))
    false = [r for k, r in enumerate(rec) if not used[k]]
    for rt, kind, who, line in false:
        out.append("    false signal at %.1f s: %s" % (rt, line[:160]))
    return hit, len(false)


def stones_count(words):
    """'53 1/2' (the recorder's words for a count) as 53.5."""
    whole, _, half = words.partition(" ")
    return int(whole) + (0.5 if half == "1/2" else 0.0)


def score_count(log_lines, check_text, out):
    rec = None
    for line in log_lines:
        m = re.search(r"count \(area, Chinese rules\): Black (\d+(?: 1/2)?), White (\d+(?: 1/2)?) stones.*"
                      r"\(RE ([^)]*)\)", line)
        if m:
            rec = (stones_count(m.group(1)), stones_count(m.group(2)), m.group(3))
    m1 = re.search(r"Black ([\d.]+) = .*; White ([\d.]+) = ", check_text)
    m2 = re.search(r"result: RE\[([^\]]*)\]", check_text)
    chk = (float(m1.group(1)), float(m1.group(2)), m2.group(1)) if m1 and m2 else None
    # None: the recorder wrote no count (the game did not end by passes or
    # `end`: a resignation is signalled for the referee, not counted), so
    # there is nothing for check to agree with
    agree = None if rec is None else (chk is not None and rec == chk)
    out.append("  count: recorder %s, check %s: %s" % (
        "%s (Black %g, White %g)" % (rec[2], rec[0], rec[1]) if rec else "none",
        "%s (Black %g, White %g)" % (chk[2], chk[0], chk[1]) if chk else "none",
        "no count written" if agree is None else "agree" if agree else "DIFFER"))
    return agree


def undone_views(viol, log_lines):
    """(confidence, real) of each irregular view seen undone."""
    spans = [(v["t_ms"] / 1000.0, v["undone_ms"] / 1000.0 + 4.0) for v in viol if "undone_ms" in v]
    res = []
    for line in log_lines:
        m = re.search(r"corrected after [\d.]+ s \([^)]*seen with confidence ([\d.]+)", line)
        if not m:
            m = re.search(r"taken as a misread \(lowest confidence ([\d.]+)\)", line)
        if not m:
            m = re.search(r"a misread or occlusion, no move \(lowest confidence ([\d.]+)\)", line)
        if not m:
            continue
        t = log_time(line)
        real = any(a - 1 <= t <= b for a, b in spans)
        res.append((float(m.group(1)), real))
    return res


def game(argv):
    name, size, tj, tsgf, log, rsgf, check, results = argv
    n = int(size)
    last = json.loads(open(tj).read().strip().splitlines()[-1])
    viol = last.get("violations", [])
    truth_sig = last.get("signals", [])
    tm = sgf_moves(tsgf)
    pass_moves = {i + 1 for i, (c, p) in enumerate(tm) if not p}
    ts, rs = stones(tm), stones(sgf_moves(rsgf))
    same, first = compare_moves(ts, rs, n)
    identical = same == len(ts) and len(ts) == len(rs)
    lines = open(log).read().splitlines()
    out = ["  %d of %d truth moves matched in order (%d recorded)%s" % (
        same, len(ts), len(rs), ": IDENTICAL" if identical else (", first difference at stone %d" % first if first else ""))]
    flags = []
    for line in lines:
        m = re.search(r"\] FLAG ([a-z_]+) at move (\d+)", line)
        if m:
            flags.append((m.group(1), int(m.group(2)), line))
    v = score_violations(viol, flags, pass_moves, out)
    out.append("  violations flagged at their move %d/%d (left %d/%d, corrected %d/%d), one off %d, missed %d; "
               "unannounced truth passes flagged %d; false flags %d" % (
                   v["left_hit"] + v["corr_hit"], v["left"] + v["corr"], v["left_hit"], v["left"], v["corr_hit"],
                   v["corr"], v["one_off"], v["missed"], v["passes"], v["false"]))
    sig_hit, sig_false = score_signals(truth_sig, lines, out)
    out.append("  end-of-game signals recognised %d/%d at the right moment by the right player; false signals %d" % (
        sig_hit, len(truth_sig), sig_false))
    agree = score_count(lines, open(check).read(), out)
    und = undone_views(viol, lines)
    print("\n".join(out))
    rec = {"name": name, "size": n, "moves": len(ts), "identical": identical, "sig": len(truth_sig),
           "sig_hit": sig_hit, "sig_false": sig_false, "agree": agree, "undone": und}
    rec.update(v)
    with open(results, "a") as f:
        f.write(json.dumps(rec) + "\n")


def total(argv):
    rows = [json.loads(l) for l in open(argv[0]) if l.strip()]
    if not rows:
        print("figure 3: no game recorded")
        return
    sz = {}
    for r in rows:
        sz[r["size"]] = sz.get(r["size"], 0) + r["moves"]
    s = lambda k: sum(r[k] for r in rows)
    print("figure 3 totals: %d games, %d truth moves (%s)" % (
        len(rows), s("moves"), ", ".join("%dx%d %d" % (k, k, sz[k]) for k in sorted(sz))))
    print("  move lists identical to the games: %d/%d" % (sum(r["identical"] for r in rows), len(rows)))
    print("  seeded violations flagged at their move: %d/%d (left in place %d/%d, corrected after 1-2 s %d/%d); "
          "one move off %d; missed %d" % (s("left_hit") + s("corr_hit"), s("left") + s("corr"), s("left_hit"),
                                          s("left"), s("corr_hit"), s("corr"), s("one_off"), s("missed")))
    print("  false referee events: %d (unannounced passes of the games flagged as such: %d)" % (s("false"), s("passes")))
    print("  end-of-game signals recognised at the right moment by the right player: %d/%d; false signals: %d" % (
        s("sig_hit"), s("sig"), s("sig_false")))
    counted = [r for r in rows if r["agree"] is not None]
    print("  recorder's count and goscribe check agree: %d/%d files the recorder counted (%d without a count: "
          "the game not ended by passes)" % (sum(1 for r in counted if r["agree"]), len(counted),
                                             len(rows) - len(counted)))
    und = [u for r in rows for u in r["undone"]]
    real = sorted(c for c, ok in und if ok)
    noise = sorted(c for c, ok in und if not ok)
    print("  irregular views seen undone: %d while a seeded violation stood (confidence %s), %d other "
          "(misread-like noise, confidence %s)" % (
              len(real), "%.2f..%.2f" % (real[0], real[-1]) if real else "-", len(noise),
              "%.2f..%.2f" % (noise[0], noise[-1]) if noise else "-"))
    for th in (0.5, 0.6, 0.7, 0.8, 0.9):
        print("    RECORD_SURE %.1f would flag %d/%d of the corrected ones and %d of the others" % (
            th, sum(c >= th for c in real), len(real), sum(c >= th for c in noise)))


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "game" and len(sys.argv) == 10:
        game(sys.argv[2:])
    elif len(sys.argv) == 3 and sys.argv[1] == "total":
        total(sys.argv[2:])
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)
