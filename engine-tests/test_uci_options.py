"""Kiraly's `uci` handshake and option declarations against the UCI spec
(plain unittest, about 1 s).

    KIRALY_BIN=./kiraly python3 -m unittest engine-tests/test_uci_options.py

KIRALY_BIN defaults to <repo>/kiraly; the tests fail (they do not skip) when
that file is missing.

The grammar, from the UCI specification (April 2006):

    option name <id> type <t> [default <x>] [min <x>] [max <x>] [var <x>]*

with <t> one of check, spin, combo, button, string; <id> and <x> may contain
spaces, so a field runs until the next keyword.  `parse_option` below checks
that shape and the per-type rules (spin: integer default/min/max with
min <= default <= max; check: default true or false; combo: default is one of
its vars; button: no default; string: a default, `<empty>` for the empty
string).  Its own tests feed it hand-written bad lines, so a broken
declaration cannot slip through a lenient parser.
"""

import os
import sys
import subprocess
import unittest

import chess.engine

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from engine_binary import require_engine  # noqa: E402

TYPES = ("check", "spin", "combo", "button", "string")
KEYWORDS = ("name", "type", "default", "min", "max", "var")
ORDER = {k: i for i, k in enumerate(KEYWORDS)}


class BadOption(ValueError):
    pass


def parse_option(line):
    """Parse one `option` line; return a dict with name, type, default
    (converted: int for spin, bool for check, '' for `<empty>`), min, max and
    var (a list); raise BadOption for anything the spec does not allow."""
    tokens = line.split()
    if not tokens or tokens[0] != "option":
        raise BadOption("does not start with `option`")
    fields = []                          # [(keyword, [tokens])]
    for token in tokens[1:]:
        if token in KEYWORDS:
            fields.append((token, []))
        elif not fields:
            raise BadOption(f"{token!r} before `name`")
        else:
            fields[-1][1].append(token)
    keys = [k for k, _ in fields]
    if keys[:2] != ["name", "type"]:
        raise BadOption(f"must begin `name <id> type <t>`, got fields {keys}")
    last = -1
    for k in keys:
        if ORDER[k] < last or (ORDER[k] == last and k != "var"):
            raise BadOption(f"field `{k}` out of order or repeated: {keys}")
        last = ORDER[k]
    for k, words in fields:
        if not words:
            raise BadOption(f"empty `{k}` field")
    values = {k: " ".join(w) for k, w in fields if k != "var"}
    var = [" ".join(w) for k, w in fields if k == "var"]
    kind = values["type"]
    if kind not in TYPES:
        raise BadOption(f"unknown type {kind!r}")
    allowed = {"check": {"default"}, "spin": {"default", "min", "max"},
               "combo": {"default", "var"}, "button": set(), "string": {"default"}}[kind]
    extra = set(keys[2:]) - allowed
    if extra:
        raise BadOption(f"type {kind} does not take {sorted(extra)}")
    option = {"name": values["name"], "type": kind, "default": None, "min": None,
              "max": None, "var": var}
    if kind == "spin":
        for k in ("default", "min", "max"):
            if k not in values:
                raise BadOption(f"spin without `{k}`")
            try:
                option[k] = int(values[k])
            except ValueError:
                raise BadOption(f"spin {k} {values[k]!r} is not an integer") from None
        if not option["min"] <= option["default"] <= option["max"]:
            raise BadOption(f"spin needs min <= default <= max, got {option['min']} "
                            f"{option['default']} {option['max']}")
    elif kind == "check":
        if values.get("default") not in ("true", "false"):
            raise BadOption(f"check default must be true or false, got {values.get('default')!r}")
        option["default"] = values["default"] == "true"
    elif kind == "combo":
        if not var:
            raise BadOption("combo without `var`")
        if len(set(var)) != len(var):
            raise BadOption(f"combo with repeated vars {var}")
        if values.get("default") not in var:
            raise BadOption(f"combo default {values.get('default')!r} is not one of {var}")
        option["default"] = values["default"]
    elif kind == "string":
        if "default" not in values:
            raise BadOption("string without `default` (use `<empty>`)")
        option["default"] = "" if values["default"] == "<empty>" else values["default"]
    return option


def handshake(path, extra=b""):
    """Send `uci` (and `extra`), then `quit`; return stdout lines and the exit
    status."""
    proc = subprocess.run([path], input=b"uci\n" + extra + b"quit\n", capture_output=True,
                          timeout=30)
    return proc.stdout.decode("utf-8").splitlines(), proc.returncode, proc.stderr.decode()


class OptionGrammar(unittest.TestCase):
    """The checker itself: good lines pass, broken ones are refused."""

    GOOD = [
        ("option name Hash type spin default 16 min 1 max 65536",
         {"name": "Hash", "type": "spin", "default": 16, "min": 1, "max": 65536}),
        ("option name Move Overhead type spin default 10 min 0 max 5000",
         {"name": "Move Overhead", "default": 10}),
        ("option name Contempt type spin default -10 min -100 max 100", {"default": -10}),
        ("option name Clear Hash type button", {"name": "Clear Hash", "type": "button"}),
        ("option name Ponder type check default false", {"default": False}),
        ("option name UCI_Chess960 type check default true", {"default": True}),
        ("option name SyzygyPath type string default <empty>", {"default": ""}),
        ("option name NalimovPath type string default c:\\my tables", {"default": "c:\\my tables"}),
        ("option name Style type combo default Normal var Solid var Normal var Very Risky",
         {"default": "Normal", "var": ["Solid", "Normal", "Very Risky"]}),
        ("option  name  Hash  type  spin  default  1  min  1  max  1", {"default": 1}),
    ]

    BAD = [
        "",
        "id name Hash type spin default 16 min 1 max 32",
        "option Hash type spin default 16 min 1 max 32",
        "option name type spin default 16 min 1 max 32",              # empty name
        "option name Hash",                                            # no type
        "option name Hash type",                                       # empty type
        "option name Hash type int default 16 min 1 max 32",           # unknown type
        "option type spin name Hash default 16 min 1 max 32",          # order
        "option name Hash default 16 type spin min 1 max 32",          # order
        "option name Hash type spin min 1 default 16 max 32",          # order
        "option name Hash type spin default 16 min 1",                 # no max
        "option name Hash type spin min 1 max 32",                     # no default
        "option name Hash type spin default 100 min 1 max 32",         # default > max
        "option name Hash type spin default 0 min 1 max 32",           # default < min
        "option name Hash type spin default 16 min 64 max 32",         # min > max
        "option name Hash type spin default 1.5 min 1 max 32",         # not an integer
        "option name Hash type spin default 16 min 1 max 32 extra",    # junk after max
        "option name Hash type spin default 16 min 1 max 32 max 64",   # repeated
        "option name Hash type spin default 16 min 1 max 32 var 8",    # var on spin
        "option name Hash type spin default min 1 max 32",             # empty default
        "option name Ponder type check",                               # no default
        "option name Ponder type check default yes",
        "option name Ponder type check default True",
        "option name Ponder type check default false min 0",
        "option name Style type combo default Risky var Solid var Normal",
        "option name Style type combo default Solid",                  # no vars
        "option name Style type combo var Solid var Normal",           # no default
        "option name Style type combo default Solid var Solid var Solid",
        "option name Clear Hash type button default true",
        "option name Clear Hash type button var x",
        "option name SyzygyPath type string",                          # no default
        "option name SyzygyPath type string default",                  # empty default
        "option name SyzygyPath type string default x min 1",
    ]

    def test_good_lines(self):
        for line, expected in self.GOOD:
            with self.subTest(line=line):
                option = parse_option(line)
                for key, value in expected.items():
                    self.assertEqual(option[key], value, key)

    def test_bad_lines(self):
        for line in self.BAD:
            with self.subTest(line=line):
                with self.assertRaises(BadOption):
                    parse_option(line)


class KiralyOptions(unittest.TestCase):
    def test_handshake(self):
        """`id name`, `id author` and the options come before `uciok`, all
        option lines parse, names are unique, nothing else is said."""
        path = require_engine(self)
        lines, code, err = handshake(path)
        self.assertEqual(code, 0, f"exit status; stderr: {err}")
        self.assertIn("uciok", lines, lines)
        before = lines[:lines.index("uciok")]
        after = lines[lines.index("uciok") + 1:]
        ids = [l for l in before if l.split()[:1] == ["id"]]
        names = [l for l in ids if l.split()[:2] == ["id", "name"]]
        authors = [l for l in ids if l.split()[:2] == ["id", "author"]]
        self.assertEqual(len(names), 1, before)
        self.assertEqual(len(authors), 1, before)
        self.assertTrue(names[0].split(None, 2)[2:], f"empty {names[0]!r}")
        self.assertTrue(authors[0].split(None, 2)[2:], f"empty {authors[0]!r}")
        others = [l for l in before if l.split()[:1] not in (["id"], ["option"])]
        self.assertEqual(others, [], "lines other than id/option before uciok")
        self.assertFalse([l for l in after if l.startswith(("option", "id "))],
                         f"id/option after uciok: {after}")
        seen = set()
        for line in before:
            if line.startswith("option"):
                try:
                    option = parse_option(line)
                except BadOption as error:
                    self.fail(f"{line!r}: {error}")
                key = option["name"].lower()   # names are matched case-insensitively
                self.assertNotIn(key, seen, f"option {option['name']!r} declared twice")
                seen.add(key)
        self.assertIn("hash", seen)
        self.assertIn("threads", seen)

    def test_python_chess_agrees(self):
        """python-chess (what lichess-bot and the tools use) reads the same
        options with the same defaults, and the same id."""
        path = require_engine(self)
        lines, _, _ = handshake(path)
        ours = {}
        for line in lines:
            if line.startswith("option"):
                option = parse_option(line)
                ours[option["name"]] = option
            if line.startswith("id name "):
                name = line[len("id name "):].strip()
            if line.startswith("id author "):
                author = line[len("id author "):].strip()
        engine = chess.engine.SimpleEngine.popen_uci([path], timeout=10.0)
        try:
            theirs = dict(engine.options)
            ident = dict(engine.id)
        finally:
            engine.quit()
        self.assertEqual(ident.get("name"), name)
        self.assertEqual(ident.get("author"), author)
        self.assertEqual(sorted(theirs), sorted(ours))
        for key, mine in ours.items():
            with self.subTest(option=key):
                opt = theirs[key]
                self.assertEqual(opt.name, mine["name"])
                self.assertEqual(opt.type, mine["type"])
                # python-chess keeps the spec's `<empty>` placeholder as it is.
                default = opt.default
                if opt.type == "string" and default == "<empty>":
                    default = ""
                self.assertEqual(default, mine["default"])
                self.assertEqual(opt.min, mine["min"])
                self.assertEqual(opt.max, mine["max"])
                self.assertEqual(list(opt.var or []), mine["var"])

    def test_declared_values_accepted(self):
        """Every value the declarations allow is accepted without complaint
        (no `info string`), and values just outside a spin range are refused."""
        path = require_engine(self)
        lines, _, _ = handshake(path)
        options = [parse_option(l) for l in lines if l.startswith("option")]
        for option in options:
            name, kind = option["name"], option["type"]
            if kind == "spin":
                # A large table takes long to allocate (on this sandbox 1 GB
                # costs ~4 s of page faults): Hash is tried up to 256 MB only.
                values = sorted({option["min"], option["default"],
                                 min(option["max"], 256) if name.lower() == "hash"
                                 else option["max"]})
                good = [f"setoption name {name} value {v}" for v in values]
                bad = [f"setoption name {name} value {option['min'] - 1}",
                       f"setoption name {name} value {option['max'] + 1}"]
            elif kind == "check":
                good = [f"setoption name {name} value true", f"setoption name {name} value false"]
                bad = [f"setoption name {name} value maybe"]
            elif kind == "combo":
                good = [f"setoption name {name} value {v}" for v in option["var"]]
                bad = [f"setoption name {name} value not-a-var-of-{name.replace(' ', '-')}"]
            elif kind == "button":
                good, bad = [f"setoption name {name}"], []
            else:
                # A string is tried with its default: any other value of the
                # one string option, SyzygyPath, names directories, and one
                # that does not exist is rightly reported.
                default = option["default"] or "<empty>"
                good, bad = [f"setoption name {name} value {default}"], []
            if name.lower() == "threads":
                good = [g for g in good if not g.endswith(f" {option['max']}")] + \
                    [f"setoption name {name} value {min(option['max'], 4)}",
                     f"setoption name {name} value 1"]
            with self.subTest(option=name):
                for command in good:
                    out, code, err = handshake(path, command.encode() + b"\nisready\n")
                    tail = out[out.index("uciok") + 1:]
                    self.assertEqual(code, 0, command)
                    self.assertEqual(tail, ["readyok"], f"{command!r} answered {tail}; {err}")
                for command in bad:
                    out, code, err = handshake(path, command.encode() + b"\nisready\n")
                    tail = out[out.index("uciok") + 1:]
                    self.assertEqual(code, 0, command)
                    self.assertEqual(tail[-1:], ["readyok"], f"{command!r} answered {tail}")
                    self.assertTrue(any(l.startswith("info string") for l in tail),
                                    f"{command!r} was not refused: {tail}")


if __name__ == "__main__":
    unittest.main()
