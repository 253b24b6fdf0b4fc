#!/usr/bin/env python3
"""tests/json_vocabulary.py VOCAB LABEL FILE...: checks JSON output against
the one vocabulary of doc/json.md ("JSON: one vocabulary"): every key of every
object, at any depth, must be in the table, with a value of its form.  A FILE
holds one JSON value, or one per line (JSON lines; SSE "data: " lines too).
Prints one line per file; exit 1 on the first file that breaks the table."""
import json
import re
import sys

FORMS = {"string", "number", "bool", "bool or null", "point", "points", "color", "sides", "players", "grid",
         "object", "array"}


def table(readme):
    text = open(readme, encoding="utf-8").read()
    m = re.search(r"^## JSON: one vocabulary$(.*?)(?:^## |\Z)", text, re.S | re.M)
    if not m:
        sys.exit("json_vocabulary: no section \"## JSON: one vocabulary\" in " + readme)
    vocab = {}
    for line in m.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 4 or not cells[0].startswith("`"):
            continue
        form = cells[1]
        if form not in FORMS:
            sys.exit("json_vocabulary: vocabulary: unknown form %r for %s" % (form, cells[0]))
        for key in re.findall(r"`([a-z_]+)`", cells[0]):
            if key in vocab:
                sys.exit("json_vocabulary: vocabulary: %s twice in the table" % key)
            vocab[key] = form
    return vocab


def is_point(v):
    return isinstance(v, str) and (v == "" or re.fullmatch(r"[a-zA-Z]{2}", v) is not None)


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check_form(form, v):
    if form == "string":
        return isinstance(v, str)
    if form == "number":
        return is_number(v)
    if form == "bool":
        return isinstance(v, bool)
    if form == "bool or null":
        return v is None or isinstance(v, bool)
    if form == "point":
        return is_point(v)
    if form == "points":
        return isinstance(v, list) and all(is_point(p) and p for p in v)
    if form == "color":
        return v in ("B", "W", "")
    if form == "sides":
        return isinstance(v, dict) and set(v) == {"B", "W"} and all(is_number(x) for x in v.values())
    if form == "players":
        return isinstance(v, dict) and set(v) == {"B", "W"} and all(isinstance(x, dict) for x in v.values())
    if form == "grid":
        return isinstance(v, str) and re.fullmatch(r"[.BW]*", v) is not None and round(len(v) ** 0.5) ** 2 == len(v)
    if form == "object":
        return v is None or isinstance(v, dict)
    if form == "array":
        return isinstance(v, list)
    return False


def walk(v, vocab, path, errors, seen):
    if isinstance(v, list):
        for i, x in enumerate(v):
            walk(x, vocab, "%s[%d]" % (path, i), errors, seen)
        return
    if not isinstance(v, dict):
        return
    for k, x in v.items():
        here = path + "." + k if path else k
        form = vocab.get(k)
        if form is None:
            errors.append("%s: not in the JSON table (doc/json.md)" % here)
            continue
        seen.add(k)
        if not check_form(form, x):
            errors.append("%s: %s is not a %s" % (here, json.dumps(x)[:60], form))
            continue
        if form == "players":
            for side in x.values():
                walk(side, vocab, here, errors, seen)
        elif form in ("object", "array"):
            walk(x, vocab, here, errors, seen)


def documents(path):
    text = open(path, encoding="utf-8").read()
    try:
        return [json.loads(text)]
    except ValueError:
        pass
    docs = []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if line.startswith("data: "):
            line = line[6:]
        if not line.startswith("{"):
            continue
        try:
            docs.append(json.loads(line))
        except ValueError as e:
            raise SystemExit("json_vocabulary: %s line %d: not JSON: %s" % (path, n, e))
    return docs


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    vocab = table(sys.argv[1])
    label = sys.argv[2]
    status = 0
    for path in sys.argv[3:]:
        docs = documents(path)
        errors, seen = [], set()
        for d in docs:
            walk(d, vocab, "", errors, seen)
        if not docs:
            errors.append("no JSON at all")
        if errors:
            status = 1
            print("FAIL %s (%s): %d problems, e.g.:" % (label, path, len(errors)))
            for e in sorted(set(errors))[:8]:
                print("    " + e)
        else:
            print("ok   %s: %d objects, %d keys of the table: %s" % (label, len(docs), len(seen), " ".join(sorted(seen))))
    sys.exit(status)


if __name__ == "__main__":
    main()
