"""Tests of tools/match_parts.py: parts of one match added up.

Run: python3 -m unittest tools/test_match_parts.py (standard library only).
"""

import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import match_parts  # noqa: E402
import stats  # noqa: E402


def part(first, second, wins, draws, losses, penta, failures=None):
    """A summary shaped as match.py --json writes it."""
    failures = failures or {}
    return {
        "pairings": [{"first": first, "second": second, "games": wins + draws + losses,
                      "wins": wins, "draws": draws, "losses": losses, "pentanomial": penta}],
        "engines": {name: {"failures": failures.get(name, {"time": 0, "crash": 0})}
                    for name in (first, second)},
    }


# Generation 11's acceptance at 8+0.08, played in two sessions (seeds
# 20261452 and 20261453): the first part stopped after 167 games, so one
# game is outside the pairs.
PART_1 = part("new", "old", 30, 118, 19, [1, 14, 44, 22, 2])
PART_2 = part("new", "old", 39, 158, 37, [5, 22, 58, 30, 2], {"old": {"time": 1, "crash": 0}})


class AddParts(unittest.TestCase):
    def test_counts_and_pairs_add(self):
        total = match_parts.add_parts([PART_1, PART_2])
        self.assertEqual((total["wins"], total["draws"], total["losses"]), (69, 276, 56))
        self.assertEqual(total["games"], 401)
        self.assertEqual(total["pentanomial"], [6, 36, 102, 52, 4])
        self.assertEqual(total["failures"]["old"], {"time": 1, "crash": 0})
        self.assertEqual(total["failures"]["new"], {"time": 0, "crash": 0})

    def test_one_part_is_itself(self):
        total = match_parts.add_parts([PART_2])
        self.assertEqual(total["pentanomial"], [5, 22, 58, 30, 2])
        self.assertEqual(total["games"], 234)

    def test_other_engines_are_refused(self):
        swapped = part("old", "new", 37, 158, 39, [2, 30, 58, 22, 5])
        with self.assertRaises(match_parts.PartMismatch):
            match_parts.add_parts([PART_1, swapped])
        with self.assertRaises(match_parts.PartMismatch):
            match_parts.add_parts([])
        gauntlet = {"pairings": PART_1["pairings"] * 2}
        with self.assertRaises(match_parts.PartMismatch):
            match_parts.add_parts([gauntlet])


class Report(unittest.TestCase):
    def run_cli(self, *args):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = match_parts.main(list(args))
        return rc, out.getvalue(), err.getvalue()

    def test_cli_gives_the_whole_match(self):
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for i, p in enumerate((PART_1, PART_2)):
                path = os.path.join(tmp, f"part{i}.json")
                with open(path, "w", encoding="utf-8") as f:
                    json.dump(p, f)
                paths.append(path)
            rc, out, _ = self.run_cli(*paths, "--sprt", "0", "5")
        self.assertEqual(rc, 0)
        self.assertIn("401 games, 69 / 276 / 56", out)
        est = stats.pentanomial([6, 36, 102, 52, 4])
        self.assertIn(f"Elo {est.format_elo()}", out)
        self.assertIn("+10.43 +/- 19.24", out)
        llr = stats.SPRT(0, 5).llr(penta=[6, 36, 102, 52, 4])
        self.assertIn(f"LLR {llr:.2f}, no decision", out)
        self.assertIn("LLR 0.26", out)
        self.assertIn("failures of old: crash 0, time 1", out)

    def test_cli_refuses_mismatched_parts(self):
        with tempfile.TemporaryDirectory() as tmp:
            a, b = os.path.join(tmp, "a.json"), os.path.join(tmp, "b.json")
            with open(a, "w", encoding="utf-8") as f:
                json.dump(PART_1, f)
            with open(b, "w", encoding="utf-8") as f:
                json.dump(part("new", "other", 1, 0, 1, [0, 1, 0, 0, 0]), f)
            rc, out, err = self.run_cli(a, b)
        self.assertEqual(rc, 2)
        self.assertEqual(out, "")
        self.assertIn("new vs other", err)


if __name__ == "__main__":
    unittest.main()
