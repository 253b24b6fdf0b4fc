#!/usr/bin/env python3
"""tests/gtp_controller.py: a small GTP controller for the tests of
`goscribe gtp` (Python 3 standard library only).  The GTP client and the
engine-against-board match are scripts/gtp-bridge.py's (loaded from there);
this file adds the checks.

usage:
  gtp_controller.py play-game --sgf GAME.sgf --genmove B|W [--wrong N:VERTEX]
        [--passes] [--wait-end SEC] [--transcript FILE] -- ENGINE...
      genmove for one colour (the answers must be the game's moves), play for
      the other; at move N play is sent VERTEX instead and must be refused
      with what the board shows, then genmove must give the board's move;
      --passes: both sides pass at the end; --wait-end: wait (goscribe-status)
      until the recording has ended; prints "final_score S".
  gtp_controller.py selfplay --size N --komi K --moves N -o GAME.sgf -- ENGINE...
      two instances of ENGINE play each other, as the bridge will talk to the
      engine (play for the other side, genmove for its own); writes the game.
  gtp_controller.py match --moves N --komi K --size N --transcript FILE
        --engine "CMD" -- GOSCRIBE...
      the bridge's match (goscribe as Black, ENGINE as White) without a
      person; prints the moves and the number of misplaced engine moves.
  gtp_controller.py check TRANSCRIPT
      every response one well-formed GTP response, its id the command's.
  gtp_controller.py raw INPUT -- ENGINE...
      INPUT's bytes as they are, then end of input: every non-empty line
      (GTP 2 section 3.1) must get one well-formed response with its id,
      and the engine must exit by itself within 30 s.
  gtp_controller.py hangup COMMAND -- ENGINE...
      COMMAND waits for the board; the controller then goes away (closes
      its end of the engine's output): the engine must exit within 10 s.
Exit status 0 when every check held, 1 otherwise (each failure printed).
"""
import importlib.util
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("gtp_bridge", os.path.join(HERE, "..", "scripts", "gtp-bridge.py"))
bridge = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bridge)

COLS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what, flush=True)
    return cond


def split_engine(argv):
    if "--" not in argv:
        raise SystemExit("gtp_controller: no engine after --")
    i = argv.index("--")
    return argv[:i], argv[i + 1:]


def options(args, names):
    """--name value pairs (and bare flags in names with None) into a dict."""
    out, i = {}, 0
    while i < len(args):
        key = args[i].lstrip("-").replace("-", "_")
        if key not in names:
            raise SystemExit("gtp_controller: unknown option %s" % args[i])
        if names[key] is None:
            out[key] = True
            i += 1
        else:
            out[key] = names[key](args[i + 1])
            i += 2
    return out


def sgf_moves(path):
    """(size, komi, [(colour, vertex)]) of a simple SGF main line."""
    text = open(path).read()
    size = int((re.search(r"SZ\[(\d+)\]", text) or [0, 19])[1])
    km = re.search(r"KM\[([-0-9.]+)\]", text)
    moves = []
    for color, pt in re.findall(r";\s*([BW])\[([a-z]{0,2})\]", text):
        if not pt or (pt == "tt" and size <= 19):
            moves.append((color, "pass"))
        else:
            moves.append((color, "%s%d" % (COLS[ord(pt[0]) - 97], size - (ord(pt[1]) - 97))))
    return size, float(km[1]) if km else 7.5, moves


def sgf_point(vertex, size):
    if vertex.lower() == "pass":
        return ""
    x = COLS.index(vertex[0].upper())
    return chr(97 + x) + chr(97 + size - int(vertex[1:]))


# ------------------------------------------------------------- play-game


def play_one(g, i, color, vertex, genmove, wrong, tally):
    """Move i (1-based) of the game through the engine; tally counts what
    held."""
    if color == genmove:
        got = g.ask("genmove %s" % color)
        tally["genmove"] += expect(got.upper() == vertex.upper(),
                                   "move %d: genmove %s gave %s, the game has %s" % (i, color, got, vertex))
        return
    if wrong and wrong[0] == i:
        ok, text = g.send("play %s %s" % (color, wrong[1]))
        want = "the board shows %s %s as move %d" % ("Black" if color == "B" else "White", vertex, i)
        tally["refused"] += expect(not ok and want in text, "move %d: play %s %s answered %s %r (wanted an error with %r)"
                                   % (i, color, wrong[1], "=" if ok else "?", text, want))
        got = g.ask("genmove %s" % color)
        expect(got.upper() == vertex.upper(), "move %d: after the misplaced play, genmove gave %s" % (i, got))
        return
    g.ask("play %s %s" % (color, vertex))
    tally["play"] += 1


def wait_end(g, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if "recording: ended" in g.ask("goscribe-status"):
            return True
        time.sleep(0.2)
    return expect(False, "the recording did not end in %g s" % seconds)


def play_game(args):
    mine, engine = split_engine(args)
    o = options(mine, {"sgf": str, "genmove": str, "wrong": str, "passes": None, "wait_end": float,
                       "transcript": str})
    size, komi, moves = sgf_moves(o["sgf"])
    wrong = None
    if "wrong" in o:
        n, v = o["wrong"].split(":")
        wrong = (int(n), v)
    transcript = []
    g = bridge.Gtp(engine, "goscribe", transcript)
    try:
        expect(g.ask("protocol_version") == "2", "protocol_version is not 2")
        g.ask("boardsize %d" % size)
        g.ask("clear_board")
        g.ask("komi %g" % komi)
        tally = {"genmove": 0, "play": 0, "refused": 0}
        for i, (color, vertex) in enumerate(moves, 1):
            play_one(g, i, color, vertex, o["genmove"].upper(), wrong, tally)
        print("moves %d: genmove %d as the game, play %d confirmed, misplaced play %d refused" %
              (len(moves), tally["genmove"], tally["play"], tally["refused"]), flush=True)
        if o.get("passes"):
            last = moves[-1][0] if moves else "W"
            for color in (bridge.other(last), last):
                g.ask("play %s pass" % color)
        if "wait_end" in o:
            wait_end(g, o["wait_end"])
        print("final_score %s" % g.ask("final_score"), flush=True)
        print("dead %s" % " ".join(g.ask("final_status_list dead").split()), flush=True)
    except bridge.GtpError as e:
        expect(False, str(e))
    rc = g.close()
    expect(rc == 0, "goscribe exited with status %s" % rc)
    if "transcript" in o:
        bridge.write_transcript(o["transcript"], transcript)
    return 0 if not failures else 1


# ------------------------------------------------------- selfplay, match


def selfplay(args):
    mine, engine = split_engine(args)
    o = options(mine, {"size": int, "komi": float, "moves": int, "o": str})
    transcript = []
    players = {c: bridge.Gtp(engine, "engine-" + c, transcript) for c in ("B", "W")}
    for p in players.values():
        p.ask("boardsize %d" % o["size"])
        p.ask("clear_board")
        p.ask("komi %g" % o["komi"])
    moves, color = [], "B"
    while len(moves) < o["moves"]:
        v = players[color].ask("genmove %s" % color)
        if v.lower() in ("pass", "resign"):
            break
        players[bridge.other(color)].ask("play %s %s" % (color, v))
        moves.append((color, v))
        color = bridge.other(color)
    for p in players.values():
        p.close()
    with open(o["o"], "w") as f:
        f.write("(;GM[1]FF[4]SZ[%d]KM[%g]" % (o["size"], o["komi"]))
        f.write("".join(";%s[%s]" % (c, sgf_point(v, o["size"])) for c, v in moves) + ")\n")
    print("selfplay: %d moves" % len(moves))
    return 0


def match(args):
    mine, goscribe = split_engine(args)
    o = options(mine, {"moves": int, "komi": float, "size": int, "transcript": str, "engine": str})
    transcript = []
    board = bridge.Gtp(goscribe, "goscribe", transcript)
    engine = bridge.Gtp(bridge.find_program(o["engine"].split()), "gnugo", transcript)
    m = bridge.Match(board, engine, "B", o["size"], o["komi"], o["moves"], say=lambda s: None)
    try:
        m.run()
        ours, theirs = m.scores()
        print("final_score goscribe %s gnugo %s" % (ours, theirs))
    except bridge.GtpError as e:
        expect(False, str(e))
    for p in (engine, board):
        rc = p.close()
        expect(rc == 0, "%s exited with status %s" % (p.name, rc))
    bridge.write_transcript(o["transcript"], transcript)
    print("moves %s" % " ".join("%s%s" % mv for mv in m.moves))
    print("mismatches %d" % m.mismatches)
    return 0 if not failures else 1


# ------------------------------------------------------ transcript check


def check(args):
    """Parses the blocks of write_transcript again, strictly."""
    lines = open(args[0]).read().split("\n")
    i, n = 0, 0
    while i < len(lines) and lines[i] != "":
        head = re.match(r"^> (\S+) (\d+) (.+)$", lines[i])
        if not expect(head, "line %d: not a command header: %r" % (i + 1, lines[i])):
            return 1
        cid = head[2]
        i += 1
        if not expect(i < len(lines) and re.match(r"^[=?]%s( |$)" % cid, lines[i]),
                      "line %d: the response to %s %s does not echo its id: %r" %
                      (i + 1, head[1], cid, lines[i] if i < len(lines) else "EOF")):
            return 1
        while i < len(lines) and lines[i] != "":
            expect(not lines[i].startswith("> "), "line %d: a response runs into the next command" % (i + 1))
            i += 1
        i += 1  # the empty line that ends the response
        n += 1
    expect(n > 0, "empty transcript")
    print("transcript: %d exchanges, all well-formed" % n)
    return 0 if not failures else 1


# ------------------------------------------------------- raw input, hangup


def expected_ids(data):
    """The ids of the responses GTP 2 (3.1) asks for the raw input: one
    per line that holds a command once control characters (but tab) are
    dropped, tabs made spaces and '#' comments cut; a line longer than
    4096 bytes is answered too (as too long)."""
    ids = []
    for raw in data.split(b"\n"):
        long_line = len(raw) > 4096
        if long_line:
            raw = raw[:4096]
        s = bytes(32 if b == 9 else b for b in raw if b == 9 or (b >= 32 and b != 127))
        s = s.split(b"#", 1)[0].strip()
        if not s and not long_line:
            continue
        tok = s.split()
        ids.append(tok[0].decode() if tok and tok[0].isdigit() and len(tok[0]) <= 18 else "")
    return ids


def raw(args):
    mine, engine = split_engine(args)
    data = open(mine[0], "rb").read()
    t0 = time.time()
    p = subprocess.Popen(engine, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        out, _ = p.communicate(data, timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        expect(False, "the engine did not exit within 30 s of the end of its input")
        return 1
    text = out.decode("utf-8", "replace")
    expect(text.endswith("\n\n") or not text, "the output does not end with an empty line")
    responses = [r for r in text.split("\n\n") if r]
    ids = expected_ids(data)
    expect(len(responses) == len(ids), "%d responses for %d commands" % (len(responses), len(ids)))
    for k, (r, cid) in enumerate(zip(responses, ids)):
        r = r.lstrip("\n")
        expect(re.match(r"^[=?]%s( |\n|$)" % re.escape(cid), r) is not None,
               "response %d (id %r) is malformed: %r" % (k + 1, cid, r[:80]))
    print("raw: %d commands answered, exit %d after %.1f s" % (len(responses), p.returncode, time.time() - t0))
    return 0 if not failures else 1


def hangup(args):
    mine, engine = split_engine(args)
    p = subprocess.Popen(engine, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    p.stdin.write(("1 %s\n" % mine[0]).encode())
    p.stdin.flush()
    time.sleep(1.0)
    p.stdout.close()  # the controller is gone
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        expect(False, "the engine still waited 10 s after its controller went away")
        return 1
    print("hangup: the engine exited with status %d" % p.returncode)
    return 0 if not failures else 1


MODES = {"play-game": play_game, "selfplay": selfplay, "match": match, "check": check, "raw": raw, "hangup": hangup}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in MODES:
        print(__doc__)
        sys.exit(1)
    sys.exit(MODES[sys.argv[1]](sys.argv[2:]))
