#!/usr/bin/env python3
"""Prints the passes of a render as `goscribe record --pass-at` wants them.

A rendered pass is a pause: the board does not show it, the players say
it.  This reads when each pass happened from the render's truth (the first
frame whose "moves" counts it, OUT.truth.jsonl) and who passed from the
game as rendered (OUT.truth.sgf), and prints "SEC:C,SEC:C,..." (nothing
when the game has no pass): the announcements a referee would have heard.
  usage: truth-passes.py TRUTH.jsonl TRUTH.sgf
"""
import json
import re
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1].strip())
    with open(sys.argv[2], encoding="utf-8", errors="replace") as f:
        sgf = f.read()
    size = int((re.search(r"SZ\[(\d+)\]", sgf) or [0, 19])[1])
    moves = re.findall(r";\s*([BW])\[([a-z]*)\]", sgf)
    passes, seen = [], 0
    with open(sys.argv[1], encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            for k in range(seen, min(d["moves"], len(moves))):
                colour, point = moves[k]
                if point == "" or (point == "tt" and size <= 19):
                    passes.append("%.1f:%s" % (d["t_ms"] / 1000.0, colour))
            seen = max(seen, d["moves"])
    print(",".join(passes))


if __name__ == "__main__":
    main()
