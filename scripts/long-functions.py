#!/usr/bin/env python3
"""scripts/long-functions.py: lists C functions longer than a limit.

A long function is a place to look: it should be named stages, or carry a
comment saying why it is one piece ("long because: ...", in the comment
just above it).  usage: scripts/long-functions.py [--limit N] [--strict] [PATH...]
--strict exits 1 when a function over the limit has no such comment."""
import os
import re
import sys

def functions(path):
    """Yields (name, first line, length, has_reason) of each top-level
    function definition: a signature starting at column 0 (possibly over
    several lines) followed by a brace block."""
    with open(path, encoding='utf-8', errors='replace') as f:
        lines = f.read().split('\n')
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line or line[0].isspace() or line.startswith(('#', '/', '*', '}', 'typedef', 'struct', 'enum')) \
                or '(' not in line or '=' in line.split('(')[0]:
            i += 1
            continue
        # the signature runs to the line holding '{' (or ends with ';': a prototype)
        j, sig = i, line
        while j < len(lines) and '{' not in lines[j] and not lines[j].rstrip().endswith(';') and j - i < 8:
            j += 1
            sig += ' ' + lines[j].strip() if j < len(lines) else ''
        m = re.match(r'^[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*\(', line)
        if j >= len(lines) or '{' not in lines[j] or not m or sig.split('{')[0].rstrip().endswith(';'):
            i += 1
            continue
        depth, k = 0, j
        while k < len(lines):
            depth += lines[k].count('{') - lines[k].count('}')
            if depth <= 0:
                break
            k += 1
        above = '\n'.join(lines[max(0, i - 12):i])
        yield m.group(1), i + 1, k - i + 1, 'long because' in above.lower()
        i = k + 1


def main():
    args = sys.argv[1:]
    limit, strict = 80, False
    if '--limit' in args:
        k = args.index('--limit')
        limit = int(args[k + 1])
        del args[k:k + 2]
    if '--strict' in args:
        strict = True
        args.remove('--strict')
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
    paths = args or [os.path.join(root, d) for d in
                     ('core', 'cvshim', 'capture', 'vision', 'calib', 'track', 'rules', 'sgf', 'pairing', 'record',
                      'broadcast', 'gtp', 'samples', 'cli')]
    found, unexplained = [], 0
    for top in paths:
        walk = [(top, [], [os.path.basename(top)])] if os.path.isfile(top) else os.walk(top)
        for dirpath, _, files in walk:
            for fn in sorted(files):
                if not fn.endswith(('.c', '.cpp')):
                    continue
                p = dirpath if os.path.isfile(dirpath) else os.path.join(dirpath, fn)
                for name, line, n, why in functions(p):
                    if n > limit:
                        found.append((n, os.path.relpath(p, root), line, name, why))
                        unexplained += not why
    for n, p, line, name, why in sorted(found, reverse=True):
        print('%5d lines  %s:%d  %s%s' % (n, p, line, name, '  (reason given)' if why else ''))
    print('long-functions: %d over %d lines, %d without a written reason' % (len(found), limit, unexplained))
    return 1 if strict and unexplained else 0


if __name__ == '__main__':
    sys.exit(main())
