"""The documentation against the repository and the binary (plain unittest,
about 1 s):

    KIRALY_BIN=./kiraly python3 -m unittest engine-tests/test_docs.py

* Every relative link in README.md, CHANGELOG.md and docs/*.md points at a
  file or folder of the repository that exists, and a link with an anchor
  (`file.md#heading`, `#heading`) at a heading of that Markdown file, with
  the heading turned into an anchor as GitHub does it. Links to web
  addresses are not followed.
* The option table of README.md (the section "UCI options") lists exactly
  the options the binary declares for `uci`: the same names, and for each
  the same type, default and range.

KIRALY_BIN defaults to <repo>/kiraly; the option test fails (it does not
skip) when that file is missing. The checkers are also fed hand-written
broken input, so a lenient checker cannot pass unnoticed.
"""

import glob
import os
import re
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from engine_binary import require_engine  # noqa: E402


def documents():
    """The Markdown files whose links are checked, relative to the repository."""
    paths = ["README.md", "CHANGELOG.md"]
    paths += sorted(os.path.relpath(p, REPO) for p in glob.glob(os.path.join(REPO, "docs", "*.md")))
    return paths


FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"`[^`\n]*`")
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")


def prose_lines(text):
    """The lines outside fenced code blocks, with (1-based number, line)."""
    inside = False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            inside = not inside
            continue
        if not inside:
            yield number, line


def links(text):
    """(line number, target) of every inline and reference link outside code."""
    found = []
    for number, line in prose_lines(text):
        line = CODE_SPAN.sub("", line)
        for m in INLINE_LINK.finditer(line):
            found.append((number, m.group(1)))
        m = REFERENCE_DEF.match(line)
        if m:
            found.append((number, m.group(1)))
    return found


def slug(heading):
    """GitHub's anchor for a heading: the text without markup, lower case,
    without punctuation (letters, digits, `_`, `-` and spaces stay), spaces
    turned into hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)   # links keep their text
    text = re.sub(r"<[^>]+>", "", text)                          # inline HTML
    text = text.replace("`", "").replace("*", "")
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


def anchors(text):
    """Every anchor the headings of a Markdown text define (GitHub numbers
    repeated headings: `x`, `x-1`, `x-2`)."""
    seen = {}
    result = set()
    for _, line in prose_lines(text):
        m = HEADING.match(line)
        if not m:
            continue
        base = slug(m.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        result.add(base if n == 0 else f"{base}-{n}")
    return result


def broken_links(doc_path, text, repo=REPO):
    """Problems with the relative links of the document at `doc_path`
    (relative to `repo`) whose text is `text`; an empty list when all is well."""
    problems = []
    here = os.path.dirname(os.path.join(repo, doc_path))
    for number, target in links(text):
        where = f"{doc_path}:{number}: link {target!r}"
        if not target or SCHEME.match(target) or target.startswith("//"):
            if not target:
                problems.append(f"{where} is empty")
            continue
        path, _, anchor = target.partition("#")
        if path.startswith("/"):
            problems.append(f"{where} is absolute; links must be relative")
            continue
        if not path:                    # an anchor in the document itself
            if anchor not in anchors(text):
                problems.append(f"{where}: no heading of {doc_path} has the anchor #{anchor}")
            continue
        full = os.path.normpath(os.path.join(here, path))
        if os.path.commonpath([full, os.path.normpath(repo)]) != os.path.normpath(repo):
            problems.append(f"{where} leaves the repository")
            continue
        if not os.path.exists(full):
            problems.append(f"{where}: {os.path.relpath(full, repo)} does not exist")
            continue
        if anchor:
            if not full.endswith(".md") or not os.path.isfile(full):
                problems.append(f"{where}: an anchor into a file that is not Markdown")
                continue
            with open(full, encoding="utf-8") as f:
                if anchor not in anchors(f.read()):
                    problems.append(f"{where}: no heading of {os.path.relpath(full, repo)} "
                                    f"has the anchor #{anchor}")
    return problems


def section(text, title):
    """The lines of the `## title` section (up to the next heading of level 1 or 2)."""
    lines = text.splitlines()
    start = None
    for i, line in enumerate(lines):
        if start is None:
            if re.match(rf"^##\s+{re.escape(title)}\s*$", line):
                start = i + 1
        elif re.match(r"^#{1,2}\s", line):
            return lines[start:i]
    if start is None:
        raise ValueError(f"no `## {title}` section")
    return lines[start:]


def cells(row):
    """The cells of a Markdown table row (`|` inside code spans is not used here)."""
    row = row.strip()
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|"):
        row = row[:-1]
    return [c.strip() for c in row.split("|")]


def option_table(text):
    """{name: (type, default, range)} from the README's option table, with
    code marks removed and `<empty>` read as the empty string; raises
    ValueError on a malformed table or a repeated name."""
    rows = [line for line in section(text, "UCI options") if line.strip().startswith("|")]
    if len(rows) < 3:
        raise ValueError("the UCI options section has no table with rows")
    header = [c.lower() for c in cells(rows[0])]
    want = ["option", "type", "default", "range"]
    if header[:4] != want:
        raise ValueError(f"the option table's columns must begin {want}, got {header}")
    table = {}
    for row in rows[2:]:
        c = [x.strip("`") for x in cells(row)]
        if len(c) < 4:
            raise ValueError(f"short row {row!r}")
        name, kind, default, limits = c[:4]
        if name in table:
            raise ValueError(f"option {name!r} listed twice")
        table[name] = (kind, "" if default == "<empty>" else default, limits)
    return table


def declared_options(option_lines):
    """{name: (type, default, range)} from the engine's `option` lines, in the
    form option_table gives (spin range `min..max`, check default
    `true`/`false`, no default or range for a button)."""
    from test_uci_options import parse_option   # the UCI grammar checker
    result = {}
    for line in option_lines:
        o = parse_option(line)
        kind, default = o["type"], o["default"]
        if kind == "check":
            default = "true" if default else "false"
        elif default is None:
            default = ""
        limits = f"{o['min']}..{o['max']}" if kind == "spin" else ", ".join(o["var"])
        result[o["name"]] = (kind, str(default), limits)
    return result


def option_differences(table, declared):
    """What the README's table gets wrong about the declared options."""
    problems = []
    for name in sorted(declared.keys() - table.keys()):
        problems.append(f"option {name!r} is declared by the engine but not in the README's table")
    for name in sorted(table.keys() - declared.keys()):
        problems.append(f"option {name!r} is in the README's table but the engine does not declare it")
    for name in sorted(table.keys() & declared.keys()):
        for field, readme, engine in zip(("type", "default", "range"), table[name], declared[name]):
            if readme != engine:
                problems.append(f"option {name!r}: the README says {field} {readme!r}, "
                                f"the engine {engine!r}")
    return problems


class Links(unittest.TestCase):
    def test_documents_exist(self):
        for doc in ("README.md", "CHANGELOG.md", "docs/README.md"):
            self.assertTrue(os.path.isfile(os.path.join(REPO, doc)), doc)

    def test_relative_links_resolve(self):
        problems = []
        count = 0
        for doc in documents():
            with open(os.path.join(REPO, doc), encoding="utf-8") as f:
                text = f.read()
            count += len(links(text))
            problems += broken_links(doc, text)
        self.assertGreater(count, 20, "the link finder found almost no links")
        self.assertEqual(problems, [], "\n" + "\n".join(problems))


class LinkChecker(unittest.TestCase):
    """The checker itself, on hand-written documents in the real repository."""

    DOC = "docs/example.md"

    def problems(self, text):
        return broken_links(self.DOC, text)

    def test_good_links_pass(self):
        text = ("# Title\n\n## Second part (`x.py`)\n\nSee [the README](../README.md),\n"
                "[the tests](../engine-tests/), [here](#second-part-xpy), [web](https://example.com),\n"
                "[mail](mailto:a@b.c) and [up](../README.md#uci-options).\n")
        self.assertEqual(self.problems(text), [])

    def test_broken_links_are_reported(self):
        cases = {
            "[x](missing.md)": "does not exist",
            "[x](../README.md#no-such-heading)": "anchor",
            "[x](#nowhere)": "anchor",
            "[x](/README.md)": "absolute",
            "[x](../../outside.md)": "leaves the repository",
            "[x]()": "empty",
            "[ref]: ../nothing-here.md": "does not exist",
            "![image](pic.png)": "does not exist",
            "[a [nested] text](nope.md)": "does not exist",
        }
        for line, why in cases.items():
            with self.subTest(line=line):
                problems = self.problems(f"# Title\n\n{line}\n")
                self.assertEqual(len(problems), 1, problems)
                self.assertIn(why, problems[0])

    def test_code_is_not_read_for_links(self):
        text = "# T\n\n`[x](missing.md)`\n\n```\n[y](missing.md)\n```\n"
        self.assertEqual(self.problems(text), [])

    def test_slugs_as_github_makes_them(self):
        self.assertEqual(slug("Statistics (`stats.py`)"), "statistics-statspy")
        self.assertEqual(slug("Win/draw/loss model"), "windrawloss-model")
        self.assertEqual(slug("Threads (Lazy SMP)"), "threads-lazy-smp")
        self.assertEqual(slug("Calibrating the strength limit (`calibrate_strength.sh`)"),
                         "calibrating-the-strength-limit-calibrate_strengthsh")
        self.assertEqual(anchors("# A\n## A\n```\n# B\n```\n"), {"a", "a-1"})


class OptionTable(unittest.TestCase):
    def test_readme_lists_exactly_the_declared_options(self):
        from test_uci_options import handshake
        lines, status, stderr = handshake(require_engine(self))
        self.assertEqual(status, 0, stderr)
        option_lines = [line for line in lines if line.startswith("option ")]
        self.assertGreater(len(option_lines), 5, lines)
        with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
            table = option_table(f.read())
        problems = option_differences(table, declared_options(option_lines))
        self.assertEqual(problems, [], "\n" + "\n".join(problems))


class OptionTableChecker(unittest.TestCase):
    """The table reader and the comparison on hand-written input."""

    README = ("# X\n\n## UCI options\n\n| option | type | default | range | meaning |\n"
              "| --- | --- | --- | --- | --- |\n"
              "| `Hash` | spin | 16 | 1..1024 | table size |\n"
              "| `Clear Hash` | button | | | empties it |\n"
              "| `Ponder` | check | false | | pondering |\n"
              "| `SyzygyPath` | string | `<empty>` | | tables |\n\n## Command line\n\n"
              "| `Other` | spin | 1 | 1..2 | not an option row |\n")
    DECLARED = ["option name Hash type spin default 16 min 1 max 1024",
                "option name Clear Hash type button",
                "option name Ponder type check default false",
                "option name SyzygyPath type string default <empty>"]

    def test_matching_table_passes(self):
        table = option_table(self.README)
        self.assertEqual(sorted(table), ["Clear Hash", "Hash", "Ponder", "SyzygyPath"])
        self.assertEqual(option_differences(table, declared_options(self.DECLARED)), [])

    def test_each_difference_is_reported(self):
        declared = declared_options(self.DECLARED)
        cases = [
            (self.README.replace("| `Ponder` | check | false | | pondering |\n", ""), "not in the README"),
            (self.README.replace("## Command line\n\n", ""), "does not declare"),
            (self.README.replace("| 16 | 1..1024 |", "| 32 | 1..1024 |"), "default"),
            (self.README.replace("| 16 | 1..1024 |", "| 16 | 1..2048 |"), "range"),
            (self.README.replace("| `Ponder` | check |", "| `Ponder` | spin |"), "type"),
        ]
        for text, why in cases:
            with self.subTest(why=why):
                problems = option_differences(option_table(text), declared)
                self.assertEqual(len(problems), 1, problems)
                self.assertIn(why, problems[0])

    def test_malformed_tables_are_refused(self):
        with self.assertRaises(ValueError):
            option_table("# X\n\n## Options\n")
        with self.assertRaises(ValueError):
            option_table(self.README.replace("| `Clear Hash` |", "| `Hash` |"))
        with self.assertRaises(ValueError):
            option_table(self.README.replace("| option | type |", "| name | type |"))


if __name__ == "__main__":
    unittest.main()
