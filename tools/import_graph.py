#!/usr/bin/env python3
"""Checks that the engine's modules import one another one way only, and
that no source file outgrows one concept.

Reads every `.rs` file under `src/`, collects the paths it names through
`crate::` (`kiraly::` in `main.rs`), and builds the graph between the crate's
top-level modules (`src/eval/*.rs` count as `eval`: a parent and its own
submodules use each other through `super::`, which stays inside it). Code under `#[cfg(test)]` is left
out: a unit test may drive its module through the layers above it.

A file of `src/` longer than MAX_LINES (800) lines fails the check too: past
that size a file has almost always grown a second concept, which wants a
file (or a folder of files) of its own.

    python3 tools/import_graph.py              # exit 1 and print any cycle or long file
    python3 tools/import_graph.py --edges      # also print the graph, layer by layer

Standard library only, so it runs before any set-up.
"""

import argparse
import os
import re
import sys

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")

# The longest a file of src/ may be, in lines.
MAX_LINES = 800

TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|::|[{},;*#\[\]()]|\S")


def strip_comments_and_strings(text):
    """Blanks out comments, string and char literals so their words don't count."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and not (i and (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'r(#*)"', text[i:])
            end = text.find('"' + m.group(1), i + len(m.group(0)))
            i = n if end < 0 else end + 1 + len(m.group(1))
            out.append('""')
        elif c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            out.append('""')
        elif c == "'" and re.match(r"'(\\.[^']*|[^\\'])'", text[i:i + 12]):
            m = re.match(r"'(\\.[^']*|[^\\'])'", text[i:i + 12])
            i += len(m.group(0))
            out.append("' '")
        else:
            out.append(c)
            i += 1
    return "".join(out)


def drop_cfg_test(tokens):
    """Removes items marked `#[cfg(test)]` (the attribute and the item after it)."""
    out, i = [], 0
    while i < len(tokens):
        if tokens[i:i + 7] == ["#", "[", "cfg", "(", "test", ")", "]"]:
            i += 7
            depth = 0
            while i < len(tokens):
                t = tokens[i]
                i += 1
                if t == "{":
                    depth += 1
                elif t == "}":
                    depth -= 1
                    if depth == 0:
                        break
                elif t == ";" and depth == 0:
                    break
            continue
        out.append(tokens[i])
        i += 1
    return out


def parse_tree(tokens, i):
    """Parses a use-tree at tokens[i]; returns (list of paths, next index)."""
    if i < len(tokens) and tokens[i] == "{":
        paths, i = [], i + 1
        while i < len(tokens) and tokens[i] != "}":
            sub, i = parse_tree(tokens, i)
            paths.extend(sub)
            if i < len(tokens) and tokens[i] == ",":
                i += 1
        return paths, i + 1
    if i < len(tokens) and re.match(r"[A-Za-z_]", tokens[i]):
        head = tokens[i]
        i += 1
        if i < len(tokens) and tokens[i] == "::":
            tails, i = parse_tree(tokens, i + 1)
            return [[head] + t for t in tails] or [[head]], i
        return [[head]], i
    return [[]], i


def modules(src=None):
    """Maps each top-level module name to its files."""
    src = SRC if src is None else src  # read at call time, so tests can point it elsewhere
    found = {}
    for root, _, files in os.walk(src):
        for f in files:
            if not f.endswith(".rs"):
                continue
            rel = os.path.relpath(os.path.join(root, f), src)
            found.setdefault(rel[:-3].split(os.sep)[0], []).append(rel)
    return found


def long_files(src=None, limit=MAX_LINES):
    """The files of `src` longer than `limit` lines, as (path, lines), longest first."""
    src = SRC if src is None else src  # read at call time, so tests can point it elsewhere
    found = []
    for files in modules(src).values():
        for rel in files:
            with open(os.path.join(src, rel), encoding="utf-8") as fh:
                lines = sum(1 for _ in fh)
            if lines > limit:
                found.append((rel, lines))
    return sorted(found, key=lambda f: (-f[1], f[0]))


def edges(src=None):
    src = SRC if src is None else src  # read at call time, so tests can point it elsewhere
    mods = modules(src)
    graph = {m: set() for m in mods}
    for mod, files in mods.items():
        for rel in files:
            with open(os.path.join(src, rel), encoding="utf-8") as fh:
                tokens = drop_cfg_test(TOKEN.findall(strip_comments_and_strings(fh.read())))
            for i, t in enumerate(tokens):
                if t == "kiraly" and mod == "main" and i + 1 < len(tokens) and tokens[i + 1] == "::":
                    start = i + 2  # the binary names the library by its crate name
                elif t == "crate" and i + 1 < len(tokens) and tokens[i + 1] == "::":
                    start = i + 2
                else:
                    continue
                if i and tokens[i - 1] == "::":
                    continue
                paths, _ = parse_tree(tokens, start)
                for p in paths:
                    if p and p[0] in mods and p[0] != mod and p[0] not in ("lib", "main"):
                        graph[mod].add(p[0])
    return graph


def find_cycle(graph):
    """Returns one cycle as a list of modules, or None."""
    state, stack = {}, []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                return stack[stack.index(n):] + [n]
            if n not in state:
                cycle = visit(n)
                if cycle:
                    return cycle
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state:
            cycle = visit(m)
            if cycle:
                return cycle
    return None


def layers(graph):
    """Each module's height: 0 for one that imports nothing of the crate."""
    height = {}

    def h(m):
        if m not in height:
            height[m] = 0
            height[m] = 1 + max((h(n) for n in graph[m]), default=-1)
        return height[m]

    for m in graph:
        h(m)
    return height


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--edges", action="store_true", help="print the graph, layer by layer")
    args = ap.parse_args()
    graph = edges()
    cycle = find_cycle(graph)
    if cycle:
        print("import cycle: " + " -> ".join(cycle))
        return 1
    too_long = long_files()
    if too_long:
        for rel, lines in too_long:
            print(f"src/{rel}: {lines} lines, more than {MAX_LINES}: split it by concept")
        return 1
    if args.edges:
        height = layers(graph)
        for m in sorted(graph, key=lambda m: (-height[m], m)):
            print(f"{height[m]:2} {m:12} -> {', '.join(sorted(graph[m])) or '-'}")
    print(f"no import cycle among {len(graph)} modules of src/, no file over {MAX_LINES} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
