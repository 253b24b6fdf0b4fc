#!/usr/bin/env python3
"""scripts/check-layers.py: the layering of the tree stays true.

Reads every #include "..." of the project's C/C++ sources (tests aside) and
fails, naming each offence, when
  - a file includes a header of a higher stage than its own (the stages are
    listed below in the order a frame flows through them);
  - a file includes another folder's private header (each folder has one
    public header; the others are for its own files);
  - the includes form a circle (between folders or between files);
  - a file calls a function of a higher stage, the files of one folder
    call one another in a circle, or folders do (scripts/calls.py reads
    the calls: an include check cannot see them).
usage: scripts/check-layers.py [ROOT]   (exit 0 = clean, 1 = offences)
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import calls  # noqa: E402

# Data-flow order, lowest first: a folder may include its own files and the
# public headers of folders before it.  core/ is the ground floor (no
# OpenCV), cli/ the top floor (parse, call, print).
STAGES = [
    ('core', 'core/gs.h'),            # base types and small shared tools
    ('cvshim', 'cvshim/cvshim.h'),    # the one door to OpenCV (codecs, video, image tasks)
    ('capture', 'capture/capture.h'), # camera, video file, photo folder -> frames
    ('vision', 'vision/vision.h'),    # one image -> grid -> points
    ('calib', 'calib/calib.h'),       # a board's grid saved and loaded
    ('track', 'track/track.h'),       # frames over time -> settled views
    ('rules', 'rules/rules.h'),       # Chinese rules, referee, counting
    ('sgf', 'sgf/sgf.h'),             # the record's file format
    ('score', 'score/score.h'),       # a finished board counted, a game checked, the JSON words
    ('pairing', 'pairing/pairing.h'), # a round's pairings (the records' players)
    ('record', 'record/record.h'),    # settled views -> the game record
    ('session', 'session/session.h'),  # the recording loop: source -> tracker -> recorder, hooks
    ('broadcast', 'broadcast/broadcast.h'),  # pages, SSE, referee console, hall, MQTT
    ('gtp', 'gtp/gtp.h'),             # the recorder as a GTP engine
    ('samples', 'samples/render.h'),  # the renderer of synthetic footage
    ('cli', None),                    # the commands
]
RANK = {name: i for i, (name, _) in enumerate(STAGES)}
PUBLIC = {name: hdr for name, hdr in STAGES}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources(root):
    for folder, _ in STAGES:
        top = os.path.join(root, folder)
        for dirpath, _, files in os.walk(top):
            for f in sorted(files):
                if f.endswith(('.c', '.h', '.cpp')):
                    yield os.path.relpath(os.path.join(dirpath, f), root)


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..'))
    graph, bad = {}, []
    for src in sources(root):
        with open(os.path.join(root, src), encoding='utf-8', errors='replace') as f:
            incs = INCLUDE.findall(f.read())
        me = src.split('/')[0]
        graph[src] = []
        for inc in incs:
            them = inc.split('/')[0]
            if them not in RANK:
                bad.append('%s: includes "%s", which is in no stage folder' % (src, inc))
                continue
            graph[src].append(inc)
            if RANK[them] > RANK[me]:
                bad.append('%s: includes "%s" from a higher stage (%s is above %s)' % (src, inc, them, me))
            elif them != me and inc != PUBLIC[them]:
                bad.append('%s: includes "%s", private to %s/ (its public header is %s)' % (src, inc, them, PUBLIC[them]))
            if not os.path.exists(os.path.join(root, inc)):
                bad.append('%s: includes "%s", which does not exist' % (src, inc))
    bad += circles(graph)
    bad += call_offences(root)
    for line in bad:
        print('check-layers: ' + line)
    print('check-layers: %d files, %d includes, %s' % (
        len(graph), sum(len(v) for v in graph.values()), 'clean' if not bad else '%d offences' % len(bad)))
    return 1 if bad else 0


def call_offences(root):
    """Calls that go up a stage, and circles of calls between the files of
    one folder or between folders."""
    graph = calls.call_graph(root, [name for name, _ in STAGES])
    out = []
    for src, edges in sorted(graph.items()):
        me = src.split('/')[0]
        for dst, names in sorted(edges.items()):
            them = dst.split('/')[0]
            if RANK[them] > RANK[me]:
                out.append('%s: calls %s of %s, a higher stage (%s is above %s)' % (src, ', '.join(names[:3]), dst, them, me))
    for folder, _ in STAGES:
        mine = [src for src in graph if src.split('/')[0] == folder]
        for comp in calls.strongly_connected(mine, lambda v: [d for d in graph[v] if d.split('/')[0] == folder]):
            out.append('call circle in %s/: %s' % (folder, ', '.join(comp)))
    folders = folder_graph(graph)
    for comp in calls.strongly_connected([n for n, _ in STAGES], lambda v: folders.get(v, ())):
        out.append('call circle between folders: %s' % ', '.join(comp))
    return out


def folder_graph(graph):
    """{folder: the other folders its files reach} of a file graph (includes
    or calls: {file: its targets})."""
    folders = {}
    for src, targets in graph.items():
        for dst in targets:
            a, b = src.split('/')[0], dst.split('/')[0]
            if a != b:
                folders.setdefault(a, set()).add(b)
    return folders


def circles(graph):
    """Include circles between files (depth-first search, each circle once),
    and between folders (a folder that reaches itself through others)."""
    out, state, stack = [], {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in graph.get(n, []):
            if state.get(m) == 1:
                out.append('include circle: ' + ' -> '.join(stack[stack.index(m):] + [m]))
            elif m in graph and not state.get(m):
                visit(m)
        stack.pop()
        state[n] = 2

    for n in sorted(graph):
        if not state.get(n):
            visit(n)
    folders = folder_graph(graph)
    for a in sorted(folders):
        seen, todo = set(), list(folders[a])
        while todo:
            b = todo.pop()
            if b == a:
                out.append('folder circle: %s/ reaches itself through its includes' % a)
                break
            if b not in seen:
                seen.add(b)
                todo.extend(folders.get(b, ()))
    return out


if __name__ == '__main__':
    sys.exit(main())
