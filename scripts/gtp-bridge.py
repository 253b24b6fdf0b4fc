#!/usr/bin/env python3
"""scripts/gtp-bridge.py: a person at a real board against a GTP engine
(GNU Go by default), with `goscribe gtp` watching the board.

The person's moves are read off the board by goscribe (genmove) and handed
to the engine (play); the engine's moves are shown to the person, who
places them, and goscribe answers the engine's `play` only when that stone
is on the board.  When the person places another point, goscribe says what
the board shows, the bridge tells the person and goes on with the board's
move (the engine takes back its own and is given the board's): the board is
the game, and goscribe's SGF holds it with a note.

usage: gtp-bridge.py [options] -- goscribe gtp SOURCE -o GAME.sgf [goscribe options]

options:
  --person B|W       the colour the person plays (default B)
  --engine "CMD"     the engine's command line (default "gnugo --mode gtp");
                     a program not on PATH is looked for in /usr/games too
  --size N           board size (default 19)
  --komi K           komi in points (default 7.5, i.e. 3 3/4 stones)
  --max-moves N      stop after N moves (default: until two passes or a
                     resignation)
  --transcript FILE  write every GTP exchange with both programs to FILE
  --no-prompt        read nothing from this terminal (scripts, tests)

While it is the person's turn, typing `pass`, `resign` or `end` and Enter
here tells goscribe (through a FIFO given to `goscribe gtp --operator`).
At the end the bridge prints goscribe's and the engine's final_score.
Coordinates are as the camera sees the board: column A at the left of the
picture, row 1 at its bottom.

Exit status: 0 when the game ran to its end (or to --max-moves), 1 when a
program failed or answered out of the protocol.
"""
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading


class GtpError(Exception):
    """A program answered with an error (ok False) or broke the protocol."""


class Gtp:
    """One GTP program on a pipe.  Every command gets the next id; every
    response is checked to be one well-formed GTP response with that id
    echoed (else GtpError), and kept in the transcript."""

    def __init__(self, argv, name, transcript):
        self.name = name
        self.transcript = transcript
        self.next_id = 1
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def send(self, command):
        """(ok, text) of one command."""
        cid = self.next_id
        self.next_id += 1
        try:
            self.proc.stdin.write(("%d %s\n" % (cid, command)).encode())
            self.proc.stdin.flush()
        except OSError as e:
            raise GtpError("%s: cannot send %r: %s" % (self.name, command, e))
        lines = []
        while True:
            raw = self.proc.stdout.readline()
            if not raw:
                raise GtpError("%s: output ended before the response to %r" % (self.name, command))
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            if line == "" and lines:
                break
            if line == "" and not lines:
                continue  # tolerated before a response (GTP 2: empty lines between responses)
            lines.append(line)
        self.transcript.append((self.name, cid, command, lines))
        head = lines[0]
        tag = "%d" % cid
        if head[:1] not in ("=", "?") or not head[1:].startswith(tag) or head[1 + len(tag):2 + len(tag)] not in ("", " "):
            raise GtpError("%s: malformed response to %d %s: %r" % (self.name, cid, command, head))
        text = "\n".join([head[2 + len(tag):]] + lines[1:])
        return head[0] == "=", text

    def ask(self, command):
        """The text of a successful response; GtpError for an error."""
        ok, text = self.send(command)
        if not ok:
            raise GtpError("%s: %s: %s" % (self.name, command, text))
        return text

    def close(self):
        if self.proc.poll() is None:
            try:
                self.send("quit")
            except GtpError:
                pass
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


def write_transcript(path, transcript):
    """One exchange a block: '> NAME ID COMMAND', the response lines, an
    empty line."""
    with open(path, "w") as f:
        for name, cid, command, lines in transcript:
            f.write("> %s %d %s\n" % (name, cid, command))
            for line in lines:
                f.write(line + "\n")
            f.write("\n")


def other(color):
    return "W" if color == "B" else "B"


def color_word(color):
    return "Black" if color == "B" else "White"


class Match:
    """goscribe (the board, whose moves are the person's) against an
    engine.  say() tells the person; operator(line) hands `pass B` or
    `resign W` to goscribe's record when the board cannot show it."""

    def __init__(self, board, engine, person="B", size=19, komi=7.5, max_moves=0, say=print, operator=None):
        self.board, self.engine, self.person = board, engine, person
        self.size, self.komi, self.max_moves = size, komi, max_moves
        self.say = say
        self.operator = operator or (lambda line: None)
        self.moves = []          # (colour, vertex) as played
        self.mismatches = 0      # engine moves placed elsewhere on the board
        self.end = ""

    def setup(self):
        for p in (self.board, self.engine):
            p.ask("boardsize %d" % self.size)
            p.ask("clear_board")
            p.ask("komi %g" % self.komi)

    def person_move(self, color):
        self.say("%s to play (you): place the stone on the board, or type pass / resign here" % color_word(color))
        vertex = self.board.ask("genmove %s" % color)
        if vertex.lower() != "resign":
            self.engine.ask("play %s %s" % (color, vertex))
        return vertex

    def engine_move(self, color):
        vertex = self.engine.ask("genmove %s" % color)
        low = vertex.lower()
        if low == "resign":
            self.operator("resign %s" % color)
            return vertex
        if low == "pass":
            self.say("%s passes" % self.engine.name)
            self.board.ask("play %s pass" % color)
            return vertex
        self.say("%s plays %s %s: place it on the board" % (self.engine.name, color_word(color), vertex))
        ok, text = self.board.send("play %s %s" % (color, vertex))
        if ok:
            return vertex
        if "the board shows" not in text:
            raise GtpError("%s: play %s %s: %s" % (self.board.name, color, vertex, text))
        # the stone went elsewhere: the board is the game
        self.mismatches += 1
        actual = self.board.ask("genmove %s" % color)
        self.say("%s; going on with %s (%s is told)" % (text, actual, self.engine.name))
        self.engine.ask("undo")
        self.engine.ask("play %s %s" % (color, actual))
        return actual

    def run(self):
        self.setup()
        color, passes = "B", 0
        while not self.max_moves or len(self.moves) < self.max_moves:
            mover = self.person_move if color == self.person else self.engine_move
            vertex = mover(color)
            if vertex.lower() == "resign":
                self.end = "%s resigns" % color_word(color)
                break
            self.moves.append((color, vertex))
            passes = passes + 1 if vertex.lower() == "pass" else 0
            if passes == 2:
                self.end = "two passes"
                break
            color = other(color)
        else:
            self.end = "%d moves played (--max-moves)" % len(self.moves)
        self.say("game over: %s" % self.end)
        return self.end

    def scores(self):
        """(goscribe's final_score, the engine's); None where it failed."""
        out = []
        for p in (self.board, self.engine):
            ok, text = p.send("final_score")
            out.append(text if ok else None)
        return out


def find_program(argv):
    """argv with its program found on PATH or in /usr/games (Debian's
    place for gnugo)."""
    if argv and not shutil.which(argv[0]) and os.path.exists(os.path.join("/usr/games", argv[0])):
        return [os.path.join("/usr/games", argv[0])] + argv[1:]
    return argv


def read_person(fifo_path, person, stop):
    """The person's words on this terminal, handed to goscribe's operator
    FIFO as record commands."""
    with open(fifo_path, "w") as fifo:
        for line in sys.stdin:
            word = line.strip().lower()
            if stop.is_set():
                return
            if word in ("pass", "resign"):
                fifo.write("%s %s\n" % (word, person))
            elif word == "end":
                fifo.write("end\n")
            elif word:
                print("(type pass, resign or end)")
                continue
            fifo.flush()


def number(a, v, kind, lo, hi):
    """The value v of option a as kind (int or float) in lo..hi, or a
    one-line error."""
    try:
        n = kind(v)
    except ValueError:
        n = None
    if n is None or not lo <= n <= hi:
        raise SystemExit("gtp-bridge: %s %s: expected a number from %s to %s" % (a, v, lo, hi))
    return n


def parse_args(argv):
    opts = {"person": "B", "engine": "gnugo --mode gtp", "size": 19, "komi": 7.5, "max_moves": 0,
            "transcript": None, "prompt": True}
    cut = argv.index("--") if "--" in argv else len(argv)
    mine, goscribe = argv[:cut], argv[cut + 1:]
    if "-h" in mine or "--help" in mine:  # before anything else is asked of the line
        print(__doc__.rstrip("\n"))
        raise SystemExit(0)
    if cut == len(argv):
        raise SystemExit("usage: gtp-bridge.py [options] -- goscribe gtp SOURCE -o GAME.sgf [...] (see --help)")
    i = 0
    while i < len(mine):
        a = mine[i]
        if a == "--no-prompt":
            opts["prompt"] = False
            i += 1
            continue
        if i + 1 >= len(mine):
            raise SystemExit("gtp-bridge: %s needs a value" % a)
        v = mine[i + 1]
        if a == "--person" and v.upper() in ("B", "W"):
            opts["person"] = v.upper()
        elif a == "--engine":
            opts["engine"] = v
        elif a == "--size":
            opts["size"] = number(a, v, int, 5, 25)
        elif a == "--komi":
            opts["komi"] = number(a, v, float, -1000, 1000)
        elif a == "--max-moves":
            opts["max_moves"] = number(a, v, int, 0, 100000)
        elif a == "--transcript":
            opts["transcript"] = v
        else:
            raise SystemExit("gtp-bridge: unknown option or bad value: %s %s" % (a, v))
        i += 2
    if not goscribe:
        raise SystemExit("gtp-bridge: no goscribe command after --")
    return opts, goscribe


def main(argv):
    opts, goscribe = parse_args(argv)
    tmp = tempfile.mkdtemp(prefix="gtp-bridge.")
    fifo = os.path.join(tmp, "operator")
    os.mkfifo(fifo)
    transcript = []
    board = Gtp(find_program(goscribe) + ["--operator", fifo], "goscribe", transcript)
    engine = Gtp(find_program(shlex.split(opts["engine"])), os.path.basename(shlex.split(opts["engine"])[0]),
                 transcript)
    stop = threading.Event()
    if opts["prompt"]:
        threading.Thread(target=read_person, args=(fifo, opts["person"], stop), daemon=True).start()

    def operator(line):
        # without blocking: a goscribe that is gone has no reader on it
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            return
        try:
            os.write(fd, (line + "\n").encode())
        finally:
            os.close(fd)

    match = Match(board, engine, opts["person"], opts["size"], opts["komi"], opts["max_moves"],
                  say=lambda s: print("gtp-bridge: " + s, flush=True), operator=operator)
    status = 0
    try:
        match.run()
        ours, theirs = match.scores()
        print("gtp-bridge: final_score: goscribe %s, %s %s" % (ours, engine.name, theirs), flush=True)
        if match.mismatches:
            print("gtp-bridge: %d engine moves were placed elsewhere" % match.mismatches, flush=True)
    except GtpError as e:
        print("gtp-bridge: %s" % e, file=sys.stderr, flush=True)
        status = 1
    finally:
        stop.set()
        for p in (engine, board):
            rc = p.close()
            if rc not in (0, None) and p is board and status == 0:
                print("gtp-bridge: goscribe exited with status %s" % rc, file=sys.stderr)
                status = 1
        if opts["transcript"]:
            write_transcript(opts["transcript"], transcript)
        shutil.rmtree(tmp, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
