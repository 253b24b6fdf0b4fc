"""scripts/calls.py: which source file calls which, read from the code.

A small C tokenizer, enough for this tree: comments, strings and character
literals are dropped, preprocessor lines skipped, and at brace depth 0 an
identifier followed by a parameter list and a '{' is a function definition
(static or not).  A file "calls" another when it names a function that the
other defines without `static` and it does not define itself: a call, or a
function pointer handed on (a table of callbacks is a dependency as much as
a call).  Headers are left out: their inline helpers are reached through
the include graph, which check-layers.py reads apart.

Used by check-layers.py; `python3 scripts/calls.py [ROOT]` prints the edges.
"""
import os
import re
import sys

TOKEN = re.compile(r'''
    (?P<comment>/\*.*?\*/|//[^\n]*)
  | (?P<string>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
  | (?P<pp>^[ \t]*\#(?:\\\n|[^\n])*)
  | (?P<ident>[A-Za-z_]\w*)
  | (?P<punct>[{}()\[\];,=])
  | (?P<other>\S)
''', re.S | re.M | re.X)

# Words that look like a name followed by '(' but never define a function.
KEYWORDS = {'if', 'for', 'while', 'switch', 'return', 'sizeof', 'do', 'else', 'case',
            'defined', '__attribute__', 'alignof', '_Alignof', 'typeof', '__typeof__',
            'static_assert', '_Static_assert', 'catch', 'try', 'decltype', 'noexcept'}


def tokens(text):
    for m in TOKEN.finditer(text):
        kind = m.lastgroup
        if kind in ('comment', 'pp'):
            continue
        yield kind, m.group(kind)


def read_unit(path):
    """(defined, static, named): the functions the file defines with and
    without `static`, and every identifier it names."""
    with open(path, encoding='utf-8', errors='replace') as f:
        toks = list(tokens(f.read()))
    defined, static, named = set(), set(), set()
    depth = 0          # braces
    paren = 0          # parentheses at brace depth 0
    decl = []          # tokens of the current top-level declaration
    candidate = None   # (name, is_static) once "name (" ... ")" was seen
    for kind, text in toks:
        if kind == 'ident':
            named.add(text)
        if depth > 0:
            if text == '{':
                depth += 1
            elif text == '}':
                depth -= 1
            continue
        # brace depth 0: a declaration or a definition is being read
        if text == '(':
            if paren == 0 and candidate is None and decl and decl[-1][0] == 'ident' \
                    and decl[-1][1] not in KEYWORDS and not any(t == '=' for _, t in decl):
                candidate = (decl[-1][1], any(t == 'static' for _, t in decl))
            paren += 1
        elif text == ')':
            paren = max(0, paren - 1)
        elif text == '{':
            depth = 1
            if paren == 0 and candidate and (decl[-1][1] == ')' or decl[-1][0] == 'ident'):
                (static if candidate[1] else defined).add(candidate[0])
            elif text == '{' and decl and decl[0][1] == 'extern':
                depth = 0  # extern "C" { ... }: its inside is top level
            decl, candidate = [], None
            continue
        elif text == '}':
            decl, candidate = [], None  # closes extern "C"
            continue
        elif text == ';' and paren == 0:
            decl, candidate = [], None
            continue
        decl.append((kind, text))
    return defined, static, named


def sources(root, folders):
    for folder in folders:
        top = os.path.join(root, folder)
        for dirpath, _, files in os.walk(top):
            for f in sorted(files):
                if f.endswith(('.c', '.cpp')):
                    yield os.path.relpath(os.path.join(dirpath, f), root)


def call_graph(root, folders):
    """{file: {callee file: sorted names}} over the .c/.cpp files of folders."""
    units = {src: read_unit(os.path.join(root, src)) for src in sources(root, folders)}
    owner = {}
    for src, (defined, _, _) in units.items():
        for name in defined:
            owner.setdefault(name, src)
    graph = {}
    for src, (defined, static, named) in units.items():
        edges = {}
        for name in named - defined - static:
            dst = owner.get(name)
            if dst and dst != src:
                edges.setdefault(dst, []).append(name)
        graph[src] = {dst: sorted(names) for dst, names in edges.items()}
    return graph


def strongly_connected(nodes, succ):
    """Tarjan's components (lists of nodes), each of more than one node."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        work = [(v, iter(sorted(succ(v))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(succ(w)))))
                    advanced = True
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..'))
    folders = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d))
                     and d not in ('tests', 'scripts', 'doc', 'build', 'build-asan') and not d.startswith('.'))
    for src, edges in sorted(call_graph(root, folders).items()):
        for dst, names in sorted(edges.items()):
            print('%s -> %s: %s' % (src, dst, ', '.join(names)))


if __name__ == '__main__':
    sys.exit(main())
