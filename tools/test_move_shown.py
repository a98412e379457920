"""tools/move_shown.py: the checker of "the move played is the move shown".

A hand-written log and PGN check the checker (a mismatch and a wrong
comment are caught, MultiPV and bound lines are read as GUIs read them);
then two clocked games of Kiraly against itself through tools/match.py
(the engine as in test_match.py: $MATCH_ENGINE, else ./kiraly) must show
every move played and carry each move's own score into its PGN comment.
"""

import os
import subprocess
import sys
import tempfile
import unittest

from test_match import BOOK, HERE, Run, require_engine, require_file

CHECKER = os.path.join(HERE, "move_shown.py")

# Two searches of engine A: the first shows e2e4 last (a multipv 2 line and
# a bound line after it do not count), the second plays d7d5 after showing
# only e7e5.
LOG = """\
     0.001 w0:A > position startpos
     0.001 w0:A > go wtime 1000 btime 1000
     0.010 w0:A < info depth 5 seldepth 6 multipv 1 score cp 30 nodes 1 nps 1 hashfull 0 time 1 pv e2e4 e7e5
     0.010 w0:A < info depth 5 seldepth 6 multipv 2 score cp 20 nodes 1 nps 1 hashfull 0 time 1 pv d2d4
     0.011 w0:A < info depth 6 seldepth 6 score cp 50 lowerbound nodes 1 nps 1 hashfull 0 time 1 pv g1f3
     0.012 w0:A < bestmove e2e4 ponder e7e5
     0.013 w0:A > position startpos moves e2e4
     0.013 w0:A > go wtime 1000 btime 1000
     0.020 w0:A < info depth 7 seldepth 9 score cp -20 nodes 1 nps 1 hashfull 0 time 1 pv e7e5 g1f3
     0.021 w0:A < bestmove d7d5
"""

PGN = """\
[Event "?"]
[White "A"]
[Black "A"]
[Result "*"]

1. e4 {+0.30/5 0.011s} 1... d5 {-0.20/7 0.008s} *
"""


def check(*args):
    return subprocess.run([sys.executable, CHECKER, *args], capture_output=True, text=True,
                          timeout=60)


class TestChecker(unittest.TestCase):
    def test_a_move_not_shown_is_caught(self):
        with tempfile.TemporaryDirectory() as tmp:
            log = os.path.join(tmp, "log.txt")
            with open(log, "w") as f:
                f.write(LOG)
            p = check(log)
            self.assertEqual(p.returncode, 1, p.stdout)
            self.assertIn("2 searches, 1 whose", p.stdout)
            self.assertIn("bestmove d7d5", p.stdout)

    def test_a_comment_from_another_line_is_caught(self):
        with tempfile.TemporaryDirectory() as tmp:
            log, pgn = os.path.join(tmp, "log.txt"), os.path.join(tmp, "g.pgn")
            with open(log, "w") as f:
                f.write(LOG.replace("bestmove d7d5", "bestmove e7e5"))
            with open(pgn, "w") as f:
                f.write(PGN.replace("1... d5", "1... e5"))
            self.assertEqual(check(log, "--pgn", pgn).returncode, 0)
            with open(pgn, "w") as f:
                f.write(PGN.replace("1... d5 {-0.20/7", "1... e5 {-0.25/7"))
            p = check(log, "--pgn", pgn)
            self.assertEqual(p.returncode, 1, p.stdout)
            self.assertIn("its line says -0.20/7", p.stdout)


class TestMatchComment(unittest.TestCase):
    def test_the_comment_is_the_last_exact_line_1(self):
        import match

        info = match.SearchInfo()
        for line in ["depth 9 score cp 12 pv e2e4",
                     "depth 9 multipv 2 score cp 5 pv d2d4",
                     "depth 10 score cp 40 lowerbound pv g1f3",
                     "depth 10 score cp -3 upperbound pv e2e4"]:
            info.update(line.split())
        self.assertEqual(info.comment_score(), "+0.12/9")


class TestClockedGames(unittest.TestCase):
    def test_every_move_played_is_shown_with_its_score(self):
        engine = require_engine(self)
        book = require_file(self, BOOK)
        with tempfile.TemporaryDirectory() as tmp:
            log = os.path.join(tmp, "uci.log")
            run = Run(["--engine", f"cmd={engine}", "name=A", "--engine", f"cmd={engine}", "name=B",
                       "--each", "option.Threads=1", "option.Hash=8",
                       "--games", "2", "--tc", "1+0.01", "--concurrency", "1", "--seed", "41",
                       "--openings", f"file={book}", "format=epd", "order=random",
                       "--log", log])
            try:
                self.assertEqual(run.rc, 0, run.diag())
                p = check(log, "--pgn", run.pgn)
                self.assertEqual(p.returncode, 0, p.stdout)
                searches = int(p.stdout.split()[0])
                self.assertGreater(searches, 60, p.stdout)
            finally:
                run.cleanup()


if __name__ == "__main__":
    unittest.main()
