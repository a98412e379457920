"""The Windows binary under Wine: what a Windows GUI would see.

    python3 tools/release/test_windows.py PATH/TO/kiraly.exe

`make test-release` builds the portable Windows binary and runs this. It
finds Wine as $WINE when set, else as `wine64` or `wine` on PATH; without
any it prints SKIPPED and why, and exits 0, except in CI (the environment
variable CI set, as CI services set it, and not `0` or `false`), where a
test that cannot run fails (exit 1). The Wine
prefix lives in target/wineprefix (its first creation takes 20-40 s).

The checks, each with Windows line endings (`\\r\\n`) as Windows GUIs send:
- a UCI transcript: `uci` (name with version and level, the options),
  a large `Hash` and two `Threads` (no Linux huge pages there),
  `SyzygyPath` with two folders separated by `;` (Windows drive letters
  contain `:`), `isready`, `position ... moves`, `go depth`, `go movetime`,
  `go infinite` and `stop`, `quit`; the transcript is printed;
- the end of standard input ends the engine like `quit`;
- a short game through python-chess between two engine processes with real
  clocks kept by the test: every move legal, no clock below zero.
"""

import os
import re
import shutil
import subprocess
import sys
import time
import unittest

import chess
import chess.engine

# The shared engine process of the release tests, beside this script (also
# when test_release_skip.py loads this file by its path).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from uci_process import UciProcess, bestmove_of  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
TARGET = os.path.join(REPO, "target")
TB_SOURCE = os.path.join(REPO, "engine-tests", "data", "syzygy")

# Wine starts a process in about a second once its prefix exists; the
# machine running CI may be loaded, so each wait has room to spare.
START_TIMEOUT = 60.0
REPLY_TIMEOUT = 30.0
# Game clocks: seconds at the start and per move, and the game's length.
GAME_BASE = 10.0
GAME_INCREMENT = 0.1
GAME_PLIES = 40

EXE = None
WINE = None


def find_wine():
    """The Wine loader to run a 64-bit Windows program with, or None."""
    if "WINE" in os.environ:
        # Set, it is the only choice: WINE=none runs nothing (and says so).
        candidates = [os.environ["WINE"]]
    else:
        candidates = [shutil.which("wine64"), shutil.which("wine")]
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def in_ci():
    """Whether this runs in CI, where a skipped test must fail."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def wine_env():
    env = dict(os.environ)
    env["WINEPREFIX"] = os.path.join(TARGET, "wineprefix")
    # Wine's own diagnostics would mix with the engine's stderr.
    env["WINEDEBUG"] = "-all"
    # No window system is needed for a console program; keep Wine from
    # looking for one or offering to install Mono and Gecko.
    env.pop("DISPLAY", None)
    env["WINEDLLOVERRIDES"] = "mscoree,mshtml="
    return env


def windows_path(path):
    """A Linux path as the Windows program sees it: Wine maps Z: to /."""
    return "Z:" + os.path.abspath(path).replace("/", "\\")


def Engine(transcript=None):
    """The Windows binary under Wine, sent commands with Windows line endings."""
    return UciProcess([WINE, EXE], cwd=REPO, reply_timeout=REPLY_TIMEOUT, env=wine_env(),
                      newline=b"\r\n", transcript=transcript)


class WindowsBinary(unittest.TestCase):
    def test_uci_transcript(self):
        transcript = []
        engine = Engine(transcript)
        try:
            self.run_transcript(engine)
        finally:
            engine.close()
            print("\n".join(["", "UCI transcript (kiraly.exe under Wine):"] + transcript))

    def run_transcript(self, e):
        e.send("uci")
        lines = e.expect(lambda l: l == "uciok", START_TIMEOUT, "uciok")
        names = [l for l in lines if l.startswith("id name ")]
        self.assertEqual(len(names), 1, lines)
        self.assertRegex(names[0], r"^id name Kiraly \d+\.\d+\.\d+ \(x86-64\)$")
        self.assertTrue(any(l.startswith("id author ") for l in lines), lines)
        options = {m.group(1): l for l in lines
                   if (m := re.match(r"option name (.+?) type ", l))}
        for name in ("Hash", "Threads", "SyzygyPath", "MultiPV", "Move Overhead",
                     "UCI_LimitStrength", "UCI_Elo", "Ponder"):
            self.assertIn(name, options)
        self.assertIn("type spin default 16 min 1", options["Hash"])

        # A table of 1 GiB and a second search thread: the allocation must
        # not fail, and making it resident (a byte a page) must not take
        # the allocator's byte-by-byte zeroing.
        e.send("setoption name Hash value 1024")
        e.send("setoption name Threads value 2")
        started = time.monotonic()
        e.send("isready")
        lines = e.expect(lambda l: l == "readyok", what="readyok after Hash 1024")
        self.assertLess(time.monotonic() - started, 10.0)
        self.assertFalse([l for l in lines if "cannot" in l], lines)

        # Two tablebase folders separated by ';', the Windows separator; a
        # ':' split would break them at the drive letters.
        folders = []
        for name, tables in (("tb-a", ["KQvK", "KRvK"]), ("tb-b", ["KBvK"])):
            folder = os.path.join(TARGET, "wine-test", name)
            os.makedirs(folder, exist_ok=True)
            for table in tables:
                for ext in (".rtbw", ".rtbz"):
                    shutil.copy(os.path.join(TB_SOURCE, table + ext), folder)
            folders.append(windows_path(folder))
        e.send("setoption name SyzygyPath value " + ";".join(folders))
        e.send("isready")
        lines = e.expect(lambda l: l == "readyok", what="readyok after SyzygyPath")
        self.assertIn("info string found 3 tablebases, up to 3 pieces", lines)
        self.assertFalse([l for l in lines if "SyzygyPath:" in l], lines)

        e.send("ucinewgame")
        e.send("isready")
        e.expect(lambda l: l == "readyok", what="readyok after ucinewgame")

        moves = ["e2e4", "e7e5", "g1f3", "b8c6"]
        e.send("position startpos moves " + " ".join(moves))
        e.send("go depth 8")
        lines = e.expect(lambda l: l.startswith("bestmove"), what="bestmove for go depth 8")
        self.assertTrue(any(l.startswith("info depth 8 ") for l in lines), lines)
        self.assert_legal(chess.Board(), moves, bestmove_of(lines))

        # The rook ending is in the tables: the engine must find it won.
        fen = "8/8/8/4k3/8/8/8/R3K3 w - - 0 1"
        e.send("position fen " + fen)
        e.send("go depth 6")
        lines = e.expect(lambda l: l.startswith("bestmove"), what="bestmove in KRvK")
        last = [l for l in lines if l.startswith("info depth")][-1]
        self.assertRegex(last, r" tbhits [1-9]")
        self.assertRegex(last, r" score (mate \d+|cp \d{4,})")
        self.assert_legal(chess.Board(fen), [], bestmove_of(lines))

        e.send("position startpos moves e2e4")
        started = time.monotonic()
        e.send("go movetime 1000")
        lines = e.expect(lambda l: l.startswith("bestmove"), what="bestmove for go movetime")
        elapsed = time.monotonic() - started
        self.assertGreater(elapsed, 0.5)
        self.assertLess(elapsed, 3.0)
        self.assert_legal(chess.Board(), ["e2e4"], bestmove_of(lines))

        e.send("position startpos moves d2d4 g8f6")
        e.send("go infinite")
        time.sleep(1.0)
        self.assertTrue(all(not l.startswith("bestmove") for l in list(e.lines.queue)))
        started = time.monotonic()
        e.send("stop")
        lines = e.expect(lambda l: l.startswith("bestmove"), what="bestmove after stop")
        self.assertLess(time.monotonic() - started, 2.0)
        self.assert_legal(chess.Board(), ["d2d4", "g8f6"], bestmove_of(lines))

        e.send("quit")
        self.assertEqual(e.proc.wait(timeout=REPLY_TIMEOUT), 0, e.stderr)

    def assert_legal(self, board, moves, best):
        for m in moves:
            board.push_uci(m)
        self.assertIn(chess.Move.from_uci(best), board.legal_moves, board.fen())

    def test_end_of_input_ends_the_engine(self):
        engine = Engine()
        try:
            engine.send("uci")
            engine.send("isready")
            engine.proc.stdin.close()
            engine.expect(lambda l: l == "readyok", START_TIMEOUT, "readyok")
            self.assertEqual(engine.proc.wait(timeout=REPLY_TIMEOUT), 0, engine.stderr)
        finally:
            engine.close()

    def test_short_game_on_the_clock(self):
        """Two processes, the second with two threads; the test keeps the
        clocks and charges each side the wall time of its play() call."""
        def start(threads):
            eng = chess.engine.SimpleEngine.popen_uci([WINE, EXE], env=wine_env(),
                                                      timeout=START_TIMEOUT, cwd=REPO)
            eng.configure({"Threads": threads, "Hash": 32})
            return eng

        engines = {chess.WHITE: start(1), chess.BLACK: start(2)}
        board = chess.Board()
        clock = {chess.WHITE: GAME_BASE, chess.BLACK: GAME_BASE}
        try:
            for e in engines.values():
                e.ping()
            while not board.is_game_over() and board.ply() < GAME_PLIES:
                side = board.turn
                limit = chess.engine.Limit(white_clock=clock[chess.WHITE],
                                           black_clock=clock[chess.BLACK],
                                           white_inc=GAME_INCREMENT, black_inc=GAME_INCREMENT)
                started = time.monotonic()
                result = engines[side].play(board, limit)
                clock[side] -= time.monotonic() - started
                self.assertGreater(clock[side], 0.0,
                                   f"{'white' if side else 'black'} lost on time at ply "
                                   f"{board.ply()}")
                clock[side] += GAME_INCREMENT
                self.assertIsNotNone(result.move)
                self.assertIn(result.move, board.legal_moves, board.fen())
                board.push(result.move)
        finally:
            for e in engines.values():
                e.quit()
        game = chess.Board().variation_san(board.move_stack)
        print(f"\nGame under Wine ({board.ply()} plies, {GAME_BASE:g} s + {GAME_INCREMENT:g} s, "
              f"clocks left: white {clock[chess.WHITE]:.1f} s, black {clock[chess.BLACK]:.1f} s, "
              f"result {board.result(claim_draw=True)}):\n{game}")
        self.assertTrue(board.ply() >= GAME_PLIES or board.is_game_over())


def main():
    global EXE, WINE
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    EXE = os.path.abspath(sys.argv[1])
    if not os.path.isfile(EXE):
        print(f"test_windows.py: {EXE} not found; build it with `make test-release`")
        return 1
    WINE = find_wine()
    if WINE is None:
        why = ("Wine not found on PATH (Debian: apt-get install wine wine64, "
               "or tools/release/setup.sh --wine); the Windows binary was built but not run")
        if in_ci():
            print(f"test-release: FAILED: {why}; CI is set, so a skip is a failure")
            return 1
        print(f"test-release: SKIPPED: {why}")
        return 0
    # The first start creates the Wine prefix (tens of seconds); done here
    # so that no timed check pays for it.
    started = time.monotonic()
    warm = subprocess.run([WINE, EXE], input=b"quit\r\n", capture_output=True,
                          env=wine_env(), timeout=300)
    print(f"test-release: {WINE} ready in {time.monotonic() - started:.1f} s "
          f"(exit {warm.returncode}), testing {os.path.relpath(EXE, REPO)}")
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(WindowsBinary)
    result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
