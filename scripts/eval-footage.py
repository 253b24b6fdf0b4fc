#!/usr/bin/python3
"""Scores one recording of a composite video (../shared/tools/composite) against
its truth, or sums the scores of several (scripts/eval-footage.sh).

  eval-footage.py game NAME TRUTH.json RECORD.sgf RECORD.log RESULTS.jsonl
      prints the video's lines and appends its score to RESULTS.jsonl
  eval-footage.py total RESULTS.jsonl
      prints the totals (exit 1 when any video falls short)

What is scored, in the picture's orientation (the truth's, and the record's
with the default --black-side near):
  - the stones recorded against the moves played, in order: how many are
    right before the first error, how many were recorded; passes recorded
    are listed apart (the truth has none: composite drops the SGF's passes);
  - every seeded violation (double move, wrong capture, missed capture,
    moved stone) against the recorder's flags: same code, at its move or
    one off.  A truth event's index is the 0-based index of the move it
    belongs to (a double move: of the move its extra stone would have
    been), so it is expected at move index + 1.  The recorder's move
    numbers count its passes: they are turned into stone numbers first;
  - referee flags matching no seeded violation are false;
  - end-of-game signals (SIGNAL lines, a resignation, a game over) are all
    false: composite's games simply stop.
"""
import json
import re
import sys

LETTERS = "abcdefghijklmnopqrs"
VIOLATIONS = ("double_move", "wrong_capture", "missed_capture", "moved_stone")


def sgf_moves(path):
    """[(colour, col, row) or (colour, None, None) for a pass], the main line."""
    text = open(path, encoding="utf-8", errors="replace").read()
    out = []
    for m in re.finditer(r";\s*([BW])\[([a-s]{0,2})\]", text):
        p = m.group(2)
        out.append((m.group(1), LETTERS.index(p[0]), LETTERS.index(p[1])) if len(p) == 2
                   else (m.group(1), None, None))
    return out


def human(col, row, size=19):
    return "ABCDEFGHJKLMNOPQRST"[col] + str(size - row)


def expected_move(index):
    return index + 1


def stone_number(move, pass_numbers):
    """The recorder's move number as a number among the stones played."""
    return move - sum(1 for p in pass_numbers if p < move)


def score(name, truth_path, sgf_path, log_path):
    truth = json.load(open(truth_path))
    played = [tuple(m) for m in truth["moves"]]
    rec = sgf_moves(sgf_path)
    pass_numbers = [i + 1 for i, m in enumerate(rec) if m[1] is None]
    stones = [m for m in rec if m[1] is not None]
    right = 0
    for t, r in zip(played, stones):
        if tuple(t) != r:
            break
        right += 1
    lines = open(log_path, encoding="utf-8", errors="replace").read().splitlines()
    flags = []
    for line in lines:
        m = re.search(r"\] FLAG ([a-z_]+) at move (\d+)", line)
        if m:
            flags.append({"code": m.group(1), "move": int(m.group(2)),
                          "stone": stone_number(int(m.group(2)), pass_numbers), "line": line})
    seeded = [(i, k) for i, k in truth["events"] if k in VIOLATIONS]
    used = [False] * len(flags)
    out = []
    hit = 0
    for idx, kind in seeded:
        want = expected_move(idx)
        found = None
        for off in (0, 1):
            for k, f in enumerate(flags):
                if not used[k] and f["code"] == kind and abs(f["stone"] - want) == off:
                    found = k
                    break
            if found is not None:
                break
        if found is None:
            near = [f for f in flags if abs(f["stone"] - want) <= 1]
            what = "MISSED" + (" (near it: %s)" % ", ".join("%s at %d" % (f["code"], f["move"]) for f in near)
                               if near else "")
        else:
            used[found] = True
            hit += 1
            what = "flagged at move %d" % flags[found]["move"]
        out.append("    seeded %-14s at move %3d: %s" % (kind, want, what))
    false = [f for k, f in enumerate(flags) if not used[k]]
    for f in false:
        out.append("    false event: %s at move %d: %s" % (f["code"], f["move"], f["line"][:170]))
    ends = [l for l in lines if "] SIGNAL " in l or re.search(r"\] (game over|.* resigns)", l)]
    for l in ends:
        out.append("    false end-of-game signal: %s" % l[:170])
    first_err = ""
    if right < min(len(played), len(stones)):
        t, r = played[right], stones[right]
        first_err = ", first error at move %d: played %s %s, recorded %s %s" % (
            right + 1, t[0], human(t[1], t[2]), r[0], human(r[1], r[2]))
    elif len(stones) < len(played):
        first_err = ", the record stops there"
    elif len(stones) > len(played):
        first_err = ", then %d more" % (len(stones) - len(played))
    passes = ", passes recorded at %s" % " ".join(str(p) for p in pass_numbers) if pass_numbers else ""
    exact = right == len(played) == len(stones)
    head = "%-22s moves right %3d/%d, recorded %d%s%s; violations flagged %d/%d; false events %d; " \
           "false end signals %d%s" % (name, right, len(played), len(stones), first_err, passes, hit, len(seeded),
                                       len(false), len(ends), "" if exact and hit == len(seeded) and not false
                                       and not ends else "  <-- FAILS")
    print(head)
    if out:
        print("\n".join(out))
    return {"name": name, "played": len(played), "right": right, "recorded": len(stones),
            "passes": len(pass_numbers), "seeded": len(seeded), "hit": hit, "false": len(false),
            "false_codes": ["%s@%d" % (f["code"], f["move"]) for f in false], "ends": len(ends), "exact": exact}


def total(path):
    rows = [json.loads(l) for l in open(path) if l.strip()]
    if not rows:
        print("total: no video recorded")
        return 1
    s = lambda k: sum(r[k] for r in rows)
    good = [r for r in rows if r["exact"] and r["hit"] == r["seeded"] and not r["false"] and not r["ends"]]
    print("total: %d videos, %d/%d pass; moves right before the first error %d/%d, recorded %d; "
          "violations flagged %d/%d; false referee events %d; false end-of-game signals %d; passes recorded %d" % (
              len(rows), len(good), len(rows), s("right"), s("played"), s("recorded"), s("hit"), s("seeded"),
              s("false"), s("ends"), s("passes")))
    return 0 if len(good) == len(rows) else 1


def main(argv):
    if len(argv) == 7 and argv[1] == "game":
        rec = score(*argv[2:6])
        with open(argv[6], "a") as f:
            f.write(json.dumps(rec) + "\n")
        return 0
    if len(argv) == 3 and argv[1] == "total":
        return total(argv[2])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
