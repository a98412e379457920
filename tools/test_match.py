"""End-to-end tests of tools/match.py and tools/suite.py (plain unittest).

Run from the repository root:
    python3 -m unittest tools/test_match.py        # or: python3 tools/test_match.py

The real-engine tests play Kiraly: $MATCH_ENGINE, else ./kiraly in the
repository root (what `make` builds); they fail, never skip, when that file
is missing. They open with the repository's own book and run the repository's
WAC suite. The failure-handling tests use the scriptable tools/mock_engine.py.
Total time ~20-30 s.
"""

import json
import re
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import chess
import chess.pgn

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
MATCH = os.path.join(HERE, "match.py")
SUITE = os.path.join(HERE, "suite.py")
MOCK = os.path.join(HERE, "mock_engine.py")
BOOK = os.path.join(HERE, "books", "noob_3moves_500.epd")
WAC = os.path.join(REPO, "engine-tests", "data", "wac.epd")


def engine_path():
    """$MATCH_ENGINE (a path, or a command on PATH), else the repository's ./kiraly."""
    cand = os.environ.get("MATCH_ENGINE") or os.path.join(REPO, "kiraly")
    if os.sep not in cand:
        cand = shutil.which(cand) or cand
    return os.path.abspath(cand)


def require_engine(test):
    """The engine's path; fails the test when there is no such program."""
    path = engine_path()
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        test.fail(f"engine {path} not found or not executable: build it with `make` "
                  f"or set MATCH_ENGINE")
    return path


def require_file(test, path):
    """A file the repository ships; fails the test when it is missing."""
    if not os.path.isfile(path):
        test.fail(f"{path} is missing from the repository")
    return path


def mock(*extra):
    return "cmd=" + " ".join([sys.executable, MOCK] + list(extra))


# How long a run may take before it counts as hung: far beyond what any of
# them needs, since on a 2-core machine shared with builds a Python process
# has been seen to wait 20 s to start.
HUNG = 600


class Run:
    def __init__(self, argv, timeout=HUNG):
        self.tmp = tempfile.mkdtemp(prefix="match-test-")
        self.pgn = os.path.join(self.tmp, "games.pgn")
        self.json = os.path.join(self.tmp, "result.json")
        # The handshake limit too: a mock engine is a Python process whose
        # start, on a machine that busy, takes longer than match.py's 30 s.
        cmd = [sys.executable, MATCH] + argv + ["--pgn", self.pgn, "--json", self.json,
                                               "--uci-timeout", str(HUNG // 2)]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        self.rc, self.out, self.err = p.returncode, p.stdout, p.stderr
        self.result = None
        if os.path.exists(self.json):
            with open(self.json) as f:
                self.result = json.load(f)
        self.games = []
        if os.path.exists(self.pgn):
            with open(self.pgn) as f:
                while True:
                    g = chess.pgn.read_game(f)
                    if g is None:
                        break
                    self.games.append(g)

    def cleanup(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def failures(self, name):
        return self.result["engines"][name]["failures"]

    def diag(self):
        return f"rc={self.rc}\nstdout:\n{self.out[-3000:]}\nstderr:\n{self.err[-3000:]}"


def check_pgn_games(test, run, names, counts=True):
    """Every game replays legally and its Result agrees with the JSON counts."""
    wins = draws = losses = 0
    first = names[0]
    for g in run.games:
        test.assertEqual(g.errors, [], "PGN parse errors")
        res = g.headers["Result"]
        test.assertIn(res, ("1-0", "0-1", "1/2-1/2"))
        test.assertIn(g.headers["White"], names)
        test.assertIn(g.headers["Black"], names)
        board = g.board()
        for mv in g.mainline_moves():
            test.assertTrue(board.is_legal(mv))
            board.push(mv)
        if board.is_checkmate():
            test.assertEqual(res, "0-1" if board.turn == chess.WHITE else "1-0")
        if res == "1/2-1/2":
            draws += 1
        elif (res == "1-0") == (g.headers["White"] == first):
            wins += 1
        else:
            losses += 1
    if counts:
        p = run.result["pairings"][0]
        test.assertEqual((p["wins"], p["draws"], p["losses"]), (wins, draws, losses))


class TestRealEngine(unittest.TestCase):
    def setUp(self):
        self.engine = require_engine(self)

    def test_short_match(self):
        engine = self.engine
        book = require_file(self, BOOK)
        argv = ["--engine", f"cmd={engine}", "name=A", "--engine", f"cmd={engine}", "name=B",
                "--each", "option.Threads=1", "option.Hash=16",
                "--games", "4", "--nodes", "2000", "--concurrency", "2", "--seed", "1",
                "--openings", f"file={book}", "format=epd", "order=random"]
        run = Run(argv)
        try:
            self.assertEqual(run.rc, 0, run.diag())
            self.assertEqual(len(run.games), 4, run.diag())
            self.assertEqual(run.result["games"], 4)
            p = run.result["pairings"][0]
            self.assertEqual(p["wins"] + p["draws"] + p["losses"], 4)
            self.assertEqual(sum(p["pentanomial"]), 2)
            self.assertEqual(p["model"], "pentanomial")
            for name in ("A", "B"):
                self.assertEqual(run.failures(name),
                                 {"time": 0, "illegal": 0, "crash": 0, "unresponsive": 0}, run.diag())
            check_pgn_games(self, run, ["A", "B"])
            # Both pairs started from book positions, each played with both colours.
            with open(book) as f:
                openings = {" ".join(line.split()[:4]) for line in f if line.strip()}
            starts = [" ".join(g.headers.get("FEN", "").split()[:4]) for g in run.games]
            for start in starts:
                self.assertIn(start, openings, "a game did not start from the book")
            counts = {start: starts.count(start) for start in starts}
            self.assertTrue(all(n % 2 == 0 for n in counts.values()), counts)
            # every engine move carries a "{score/depth time}" comment
            for g in run.games:
                for node in list(g.mainline())[:-1]:
                    if node.comment != "book":
                        self.assertRegex(node.comment, r"^([+-](\d+\.\d\d|M\d+)/\d+ )?\d+\.\d{3}s")
            self.assertIn("Results of A vs B", run.out)
            self.assertIn("Ptnml(0-2)", run.out)
        finally:
            run.cleanup()

    def test_clock_and_ponder(self):
        # 2 games of 12 moves at 10+0.1 with pondering (2 engine processes
        # busy per game), the engine's own settings (Move Overhead 10 ms).
        # The runner's clock counts the time its Python threads and the
        # engine wait to be scheduled, and on a 2-core machine shared with
        # builds one move has been charged 0.95 s at 1+0.05: a clock of
        # seconds absorbs such stalls, so a loss on time here means the
        # engine overspent its clock, not that the machine was busy. Bullet
        # without losses is tools/stress.sh's to show, on a machine kept
        # busy on purpose.
        engine = self.engine
        run = Run(["--engine", f"cmd={engine}", "name=A", "--engine", f"cmd={engine}", "name=B",
                   "--each", "option.Threads=1", "option.Hash=16",
                   "--games", "2", "--tc", "10+0.1", "--ponder", "--maxmoves", "12"])
        try:
            self.assertEqual(run.rc, 0, run.diag())
            self.assertEqual(len(run.games), 2)
            for name in ("A", "B"):
                self.assertEqual(sum(run.failures(name).values()), 0, run.diag())
            check_pgn_games(self, run, ["A", "B"])
            # The engines searched on their clocks rather than answering at
            # once (which would pass the check above trivially): over 12
            # moves of 10+0.1 a side thinks for several seconds in all.
            for g in run.games:
                spent = {chess.WHITE: 0.0, chess.BLACK: 0.0}
                for node in g.mainline():
                    m = re.search(r"(\d+\.\d{3})s$", node.comment)
                    if m:
                        spent[not node.turn()] += float(m.group(1))
                for side, seconds in spent.items():
                    self.assertGreater(seconds, 1.0, f"{chess.COLOR_NAMES[side]} thought "
                                       f"{seconds:.3f} s in all\n{run.diag()}")
        finally:
            run.cleanup()

    def test_suite_wac(self):
        # A node limit makes the search, so the score, the same on any load.
        # Kiraly solves 18 of the first 20 at 50,000 nodes (WAC.001 and
        # WAC.002 need more); a random mover solves none.
        wac = require_file(self, WAC)
        p = subprocess.run([sys.executable, SUITE, "--engine", self.engine, "--option", "Hash=16",
                            "--threads", "1", "--suite", wac, "--nodes", "50000", "--limit", "20"],
                           capture_output=True, text=True, timeout=HUNG)
        self.assertEqual(p.returncode, 0, p.stderr)
        m = re.search(r"solved (\d+) / 20", p.stdout)
        self.assertIsNotNone(m, p.stdout)
        self.assertGreaterEqual(int(m.group(1)), 16, p.stdout)


# The mock answers at once, but on a loaded 2-core machine a Python process
# may wait a few hundred milliseconds to be scheduled. The limits below leave
# the well-behaved mock seconds where it needs milliseconds, and put a second
# or more on each side of the misbehaving one's answer (a slow answer after
# 3 s: after the flag, at 2.05 s of its clock at most, and before the runner
# gives up 5 s after the flag), so the outcome does not depend on the load.


class TestFailureHandling(unittest.TestCase):
    """Misbehaving engines lose their games and are counted per engine."""

    def failure_case(self, kind, expect_term, extra_args=(), at="2"):
        run = Run(["--engine", mock("--seed", "2"), "name=good",
                   "--engine", mock("--fail", kind, "--at", at, "--slow-ms", "3000"), "name=bad",
                   "--games", "2", "--tc", "2+0", "--grace", "5000"] + list(extra_args))
        try:
            self.assertEqual(run.rc, 0, run.diag())
            self.assertEqual(len(run.games), 2, run.diag())
            p = run.result["pairings"][0]
            self.assertEqual((p["wins"], p["draws"], p["losses"]), (2, 0, 0), run.diag())
            self.assertEqual(p["pentanomial"], [0, 0, 0, 0, 1])
            f = run.failures("bad")
            counted = {"slow": "time", "hang": "unresponsive", "null": "illegal"}.get(kind, kind)
            self.assertEqual(f[counted], 2, run.diag())
            self.assertEqual(sum(f.values()), 2)
            self.assertEqual(sum(run.failures("good").values()), 0)
            for g in run.games:
                self.assertEqual(g.headers["Termination"], expect_term)
                loser = "White" if g.headers["White"] == "bad" else "Black"
                self.assertEqual(g.headers["Result"], "0-1" if loser == "White" else "1-0")
            check_pgn_games(self, run, ["good", "bad"])
        finally:
            run.cleanup()

    def test_illegal_move(self):
        self.failure_case("illegal", "illegal move")

    def test_null_move_with_legal_moves(self):
        # `bestmove 0000` parses (as the null move) but is no legal move.
        self.failure_case("null", "illegal move")

    def test_crash_and_restart(self):
        # the crashed engine must be restarted for the second game
        self.failure_case("crash", "abandoned")

    def test_unresponsive(self):
        self.failure_case("hang", "abandoned")

    def test_time_forfeit(self):
        self.failure_case("slow", "time forfeit")

    def test_movetime_overrun(self):
        run = Run(["--engine", mock(), "name=good", "--engine", mock("--fail", "slow", "--slow-ms", "3000"),
                   "name=bad", "--games", "1", "--movetime", "20", "--timemargin", "1000"])
        try:
            self.assertEqual(run.rc, 0, run.diag())
            self.assertEqual(run.failures("bad")["time"], 1, run.diag())
            self.assertEqual(run.games[0].headers["Result"], "1-0")
        finally:
            run.cleanup()


class TestMatchFeatures(unittest.TestCase):
    def test_sprt_stops_with_h1(self):
        run = Run(["--engine", mock(), "name=good", "--engine", mock("--fail", "illegal", "--at", "1"), "name=bad",
                   "--tc", "3+0.01", "--sprt", "elo0=0", "elo1=100", "--quiet"])
        try:
            self.assertEqual(run.rc, 0, run.diag())
            sp = run.result["sprt"]
            self.assertEqual(sp["decision"], "H1")
            self.assertGreaterEqual(sp["llr"], sp["upper"])
            # all pairs are WW: 10 pairs give LLR 3.20 > 2.94, 9 pairs 2.88
            self.assertEqual(run.result["pairings"][0]["pentanomial"], [0, 0, 0, 0, 10])
            self.assertIn("H1 accepted", run.out)
        finally:
            run.cleanup()

    def test_draw_adjudication(self):
        run = Run(["--engine", mock("--score", "0"), "name=a", "--engine", mock("--score", "0", "--seed", "5"),
                   "name=b", "--games", "2", "--movetime", "5", "--timemargin", "2000",
                   "--draw", "movenumber=1", "movecount=3", "score=10"])
        try:
            self.assertEqual(run.rc, 0, run.diag())
            for g in run.games:
                self.assertEqual(g.headers["Result"], "1/2-1/2")
                self.assertEqual(g.headers["Termination"], "adjudication")
                self.assertEqual(g.headers["PlyCount"], "6")
        finally:
            run.cleanup()

    def test_resign_adjudication(self):
        run = Run(["--engine", mock("--score", "-900"), "name=loser", "--engine", mock("--score", "900"),
                   "name=winner", "--games", "2", "--movetime", "5", "--timemargin", "2000",
                   "--resign", "movecount=3", "score=500"])
        try:
            self.assertEqual(run.rc, 0, run.diag())
            p = run.result["pairings"][0]
            self.assertEqual((p["wins"], p["losses"]), (0, 2))
            for g in run.games:
                self.assertEqual(g.headers["Termination"], "adjudication")
            self.assertEqual(sum(run.failures("loser").values()), 0)
        finally:
            run.cleanup()

    def test_chess960_gauntlet_with_ponder(self):
        run = Run(["--gauntlet", "--engine", mock("--seed", "1"), "name=g", "--engine", mock("--seed", "2"),
                   "name=o1", "--engine", mock("--seed", "3"), "name=o2", "--tc", "2+0.02", "--ponder",
                   "--timemargin", "2000",
                   "--rounds", "1", "--variant", "fischerandom", "--seed", "7", "--maxmoves", "40"])
        try:
            self.assertEqual(run.rc, 0, run.diag())
            self.assertEqual(len(run.games), 4)          # 2 pairings x 1 pair
            fens = set()
            for g in run.games:
                self.assertEqual(g.headers["Variant"], "Chess960")
                self.assertIn("g", (g.headers["White"], g.headers["Black"]))
                fens.add(g.headers.get("FEN"))
            self.assertEqual(len(fens), 1)                # same start for the whole round
            self.assertEqual(len(run.result["pairings"]), 2)
            for name in ("g", "o1", "o2"):
                self.assertEqual(sum(run.failures(name).values()), 0, run.diag())
            check_pgn_games(self, run, ["g", "o1", "o2"], counts=False)
        finally:
            run.cleanup()

    def test_help(self):
        p = subprocess.run([sys.executable, MATCH, "--help"], capture_output=True, text=True, timeout=HUNG)
        self.assertEqual(p.returncode, 0)
        for word in ("--engine", "--tc", "--sprt", "--openings", "--concurrency", "pentanomial"):
            self.assertIn(word, p.stdout)

    def test_bad_arguments(self):
        p = subprocess.run([sys.executable, MATCH, "--engine", mock(), "--engine", mock()],
                           capture_output=True, text=True, timeout=HUNG)
        self.assertEqual(p.returncode, 2)
        self.assertIn("no time control", p.stderr)


class TestPairBookkeeping(unittest.TestCase):
    """The counts every figure of a match comes from: W/D/L of the first
    engine, and the pentanomial of each pair of games on one opening."""

    def setUp(self):
        sys.path.insert(0, HERE)
        import match
        self.match = match

    def test_pairs_fill_their_pentanomial_bucket_in_either_order(self):
        ps = self.match.PairingStats(0, 1)
        # Pairs by round: WW, WD (draw first), DD, WL (loss first), LD, LL,
        # and WW again (so that the counts are not symmetric).
        games = [(1, 1.0), (1, 1.0), (2, 0.5), (2, 1.0), (3, 0.5), (3, 0.5),
                 (4, 0.0), (4, 1.0), (5, 0.0), (5, 0.5), (6, 0.0), (6, 0.0),
                 (7, 1.0), (7, 1.0)]
        for round_no, score in games:
            ps.add(round_no, score)
        self.assertEqual((ps.w, ps.d, ps.l), (6, 4, 4))
        self.assertEqual(ps.penta, [1, 1, 2, 1, 2])   # LL, LD, DD+WL, WD, WW
        self.assertEqual((ps.dd, ps.wl), (1, 1))
        self.assertEqual(ps.estimate().model, "pentanomial")
        ps.add(8, 1.0)                                  # half a pair: by games
        self.assertEqual(ps.estimate().model, "trinomial")

    def test_a_result_scores_for_the_first_engine_with_either_colour(self):
        score_for = self.match.score_for
        self.assertEqual((score_for("1-0", True), score_for("1-0", False)), (1.0, 0.0))
        self.assertEqual((score_for("0-1", True), score_for("0-1", False)), (0.0, 1.0))
        self.assertEqual(score_for("1/2-1/2", False), 0.5)
        self.assertIsNone(score_for("*", True))


class TestSuiteLogic(unittest.TestCase):
    def test_bm_am_points(self):
        epd = ('k7/8/1K6/8/8/8/8/7R b - - bm Kb8; id "t.1";\n'       # only move: solved
               '7k/8/6K1/8/8/8/8/R7 b - - am Kg8; id "t.2";\n'       # only move is the avoid move
               '7k/7p/8/8/8/8/8/K5R1 b - - c0 "h6=10, h5=3"; id "u.3";\n')
        # The mock plays seeded random moves: in u.3 (two legal moves) seed 1
        # plays h5 (3 points, not solved), seed 3 plays h6 (10 points, solved).
        for seed, solved, points in ((1, 1, 3), (3, 2, 10)):
            with tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, "s.epd")
                with open(path, "w") as f:
                    f.write(epd)
                p = subprocess.run([sys.executable, SUITE, "--engine", f"{sys.executable} {MOCK} --seed {seed}",
                                    "--suite", path, "--movetime", "10"],
                                   capture_output=True, text=True, timeout=HUNG)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("FAIL    2 t.2", p.stdout)
            self.assertNotIn(" t.1:", p.stdout)
            self.assertIn(f"solved {solved} / 3", p.stdout)
            self.assertIn(f"points {points} / 10", p.stdout)


class TestDocumentedFiles(unittest.TestCase):
    """The examples in docs/tools.md and the tools' --help run from a fresh
    clone: every file they name is in the repository."""

    def test_example_files_exist(self):
        named = []
        for doc in ("../docs/tools.md", "match.py", "suite.py"):
            with open(os.path.join(HERE, doc)) as f:
                text = f.read()
            named += re.findall(r"(?:file=|--suite |--book )((?:tools|engine-tests)/[\w./-]+)", text)
        self.assertGreaterEqual(len(named), 5, named)
        for path in named:
            self.assertTrue(os.path.isfile(os.path.join(REPO, path)), f"{path} is named but missing")

    def test_no_machine_paths(self):
        # The developers' data folder, which a user does not have.
        # Built from parts, so this file does not name the paths itself.
        pattern = re.compile("|".join(re.escape(p) for p in ("/" + "work/", "../" + "shared/")))
        for doc in ("../docs/tools.md", "../docs/data.md", "match.py", "suite.py",
                    "calibrate_strength.sh", "stress.sh"):
            with open(os.path.join(HERE, doc)) as f:
                found = [f"{doc}:{n}: {line.strip()}" for n, line in enumerate(f, 1) if pattern.search(line)]
            self.assertEqual(found, [])


if __name__ == "__main__":
    unittest.main()
