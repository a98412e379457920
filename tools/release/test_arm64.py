"""The Linux ARM64 binary under qemu-user: what a bot on a Raspberry Pi or
an ARM64 server would see.

    python3 tools/release/test_arm64.py PATH/TO/aarch64/kiraly PATH/TO/host/kiraly

`make test-release` builds the ARM64 release binary and runs this
(tools/release/test_arm64.sh). It runs the binary with qemu-aarch64
($QEMU when set, else `qemu-aarch64` or `qemu-aarch64-static` on PATH)
and the ARM64 C library of Debian's libc6-arm64-cross
($QEMU_LD_PREFIX, default /usr/aarch64-linux-gnu). Unlike the Wine test,
a missing emulator is a failure: setup.sh installs it wherever apt can.

The checks:
- `bench` counts the same nodes as the host (x86-64) binary of the same
  commit: the node count identifies the search and the net, so it shows
  that the NEON output layer sums exactly as the x86 ones do; `eval` of a
  few positions prints the same text on both;
- a UCI transcript: `uci` (name with version and `(aarch64)`, the
  options), `Hash` and two `Threads`, `SyzygyPath` with two folders
  separated by `:`, `isready`, `position ... moves`, `go depth`,
  a tablebase ending, `go movetime`, `go infinite` and `stop`, `quit`;
  the transcript is printed;
- the end of standard input ends the engine like `quit`;
- a short game through python-chess between two engine processes with
  real clocks kept by the test, one side pondering and with two threads,
  as lichess-bot plays: every move legal, no clock below zero.
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

# qemu starts a process at once but runs it several times slower than the
# host; the machine running CI may be loaded too, so each wait has room.
START_TIMEOUT = 60.0
REPLY_TIMEOUT = 60.0
BENCH_TIMEOUT = 600.0
# Game clocks: seconds at the start and per move, and the game's length.
GAME_BASE = 10.0
GAME_INCREMENT = 0.1
GAME_PLIES = 40
# Positions whose `eval` text must be the same on both machines: the
# start, a middlegame with both evaluations' terms busy, a pawn ending.
EVAL_POSITIONS = [
    "startpos",
    "fen r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9",
    "fen 8/5k2/3p4/1p1Pp2p/pP2Pp1P/P4P1K/8/8 b - - 0 1",
]

EXE = None
HOST_EXE = None
QEMU = None


def find_qemu():
    """The qemu-user loader for ARM64 programs, or None."""
    if "QEMU" in os.environ:
        candidates = [os.environ["QEMU"]]
    else:
        candidates = [shutil.which("qemu-aarch64"), shutil.which("qemu-aarch64-static")]
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def arm64_command(*args):
    """The command line that runs the ARM64 binary with `args`."""
    prefix = os.environ.get("QEMU_LD_PREFIX", "/usr/aarch64-linux-gnu")
    return [QEMU, "-L", prefix, EXE, *args]


def Engine(command, transcript=None):
    """The ARM64 binary under qemu (`command`)."""
    return UciProcess(command, cwd=REPO, reply_timeout=REPLY_TIMEOUT, transcript=transcript)


def bench_nodes(command):
    """The node count `bench` prints as `N nodes M nps`."""
    out = subprocess.run(command + ["bench"], capture_output=True, text=True,
                         timeout=BENCH_TIMEOUT, cwd=REPO)
    if out.returncode != 0:
        raise AssertionError(f"{command} bench exited {out.returncode}: {out.stderr[-500:]}")
    found = re.findall(r"^(\d+) nodes (\d+) nps$", out.stdout + out.stderr, re.MULTILINE)
    if not found:
        raise AssertionError(f"{command} bench printed no `N nodes M nps`: {out.stdout[-500:]}")
    return int(found[-1][0]), int(found[-1][1])


def eval_text(command, position):
    """What `eval` prints for a position."""
    out = subprocess.run(command + ["position " + position, "eval"], capture_output=True,
                         text=True, timeout=REPLY_TIMEOUT, cwd=REPO)
    if out.returncode != 0:
        raise AssertionError(f"{command} eval exited {out.returncode}: {out.stderr[-500:]}")
    return out.stdout


class Arm64Binary(unittest.TestCase):
    def test_bench_counts_the_host_s_nodes(self):
        host_nodes, host_nps = bench_nodes([HOST_EXE])
        started = time.monotonic()
        nodes, nps = bench_nodes(arm64_command())
        print(f"\nbench: host {host_nodes} nodes ({host_nps} nps); ARM64 under qemu "
              f"{nodes} nodes ({nps} nps, {time.monotonic() - started:.1f} s)")
        self.assertEqual(nodes, host_nodes)

    def test_eval_prints_the_host_s_text(self):
        for position in EVAL_POSITIONS:
            host = eval_text([HOST_EXE], position)
            self.assertIn("NNUE evaluation", host)
            self.assertEqual(eval_text(arm64_command(), position), host, position)

    def test_uci_transcript(self):
        transcript = []
        engine = Engine(arm64_command(), transcript)
        try:
            self.run_transcript(engine)
        finally:
            engine.close()
            print("\n".join(["", "UCI transcript (ARM64 kiraly under qemu):"] + transcript))

    def run_transcript(self, e):
        e.send("uci")
        lines = e.expect(lambda l: l == "uciok", START_TIMEOUT, "uciok")
        names = [l for l in lines if l.startswith("id name ")]
        self.assertEqual(len(names), 1, lines)
        self.assertRegex(names[0], r"^id name Kiraly \d+\.\d+\.\d+ \(aarch64\)$")
        options = {m.group(1): l for l in lines
                   if (m := re.match(r"option name (.+?) type ", l))}
        for name in ("Hash", "Threads", "SyzygyPath", "MultiPV", "Move Overhead",
                     "UCI_LimitStrength", "UCI_Elo", "Ponder", "Use NNUE"):
            self.assertIn(name, options)

        e.send("setoption name Hash value 256")
        e.send("setoption name Threads value 2")
        e.send("isready")
        lines = e.expect(lambda l: l == "readyok", what="readyok after Hash 256")
        self.assertFalse([l for l in lines if "cannot" in l], lines)

        # Two tablebase folders separated by ':', the Linux separator.
        folders = []
        for name, tables in (("tb-a", ["KQvK", "KRvK"]), ("tb-b", ["KBvK"])):
            folder = os.path.join(TARGET, "arm64-test", name)
            os.makedirs(folder, exist_ok=True)
            for table in tables:
                for ext in (".rtbw", ".rtbz"):
                    shutil.copy(os.path.join(TB_SOURCE, table + ext), folder)
            folders.append(folder)
        e.send("setoption name SyzygyPath value " + ":".join(folders))
        e.send("isready")
        lines = e.expect(lambda l: l == "readyok", what="readyok after SyzygyPath")
        self.assertIn("info string found 3 tablebases, up to 3 pieces", lines)

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
        engine = Engine(arm64_command())
        try:
            engine.send("uci")
            engine.send("isready")
            engine.proc.stdin.close()
            engine.expect(lambda l: l == "readyok", START_TIMEOUT, "readyok")
            self.assertEqual(engine.proc.wait(timeout=REPLY_TIMEOUT), 0, engine.stderr)
        finally:
            engine.close()

    def test_short_game_on_the_clock(self):
        """Two processes; black ponders with two threads, as a bot might.
        The test keeps the clocks and charges each side the wall time of
        its play() call."""
        def start(threads):
            eng = chess.engine.SimpleEngine.popen_uci(arm64_command(),
                                                      timeout=START_TIMEOUT, cwd=REPO)
            eng.configure({"Threads": threads, "Hash": 32})
            return eng

        engines = {chess.WHITE: start(1), chess.BLACK: start(2)}
        pondering = {chess.WHITE: False, chess.BLACK: True}
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
                result = engines[side].play(board, limit, ponder=pondering[side])
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
        print(f"\nGame under qemu ({board.ply()} plies, {GAME_BASE:g} s + {GAME_INCREMENT:g} s, "
              f"clocks left: white {clock[chess.WHITE]:.1f} s, black {clock[chess.BLACK]:.1f} s, "
              f"result {board.result(claim_draw=True)}):\n{game}")
        self.assertTrue(board.ply() >= GAME_PLIES or board.is_game_over())


def main():
    global EXE, HOST_EXE, QEMU
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    EXE, HOST_EXE = (os.path.abspath(p) for p in sys.argv[1:])
    for path in (EXE, HOST_EXE):
        if not os.path.isfile(path):
            print(f"test_arm64.py: {path} not found; build it with `make test-release`")
            return 1
    QEMU = find_qemu()
    if QEMU is None:
        print("test-release: FAILED: qemu-aarch64 not found (Debian: apt-get install "
              "qemu-user, or tools/release/setup.sh --qemu); the ARM64 binary was not run")
        return 1
    print(f"test-release: testing {os.path.relpath(EXE, REPO)} with {QEMU}")
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(Arm64Binary)
    result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
