"""The checks both release tests make of a cross-built binary
(test_windows.py under Wine, test_arm64.py under qemu): a UCI transcript,
the end of input, and a short game on the clock. What differs between the
two systems (how the binary is started, its `id name`, the tablebase path
separator, the `Hash` asked for) the test class says in its attributes."""

import os
import shutil
import time

import chess
import chess.engine

from uci_process import bestmove_of

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
TARGET = os.path.join(REPO, "target")
TB_SOURCE = os.path.join(REPO, "engine-tests", "data", "syzygy")

# Game clocks: seconds at the start and per move, and the game's length.
GAME_BASE = 10.0
GAME_INCREMENT = 0.1
GAME_PLIES = 40

# Options every release binary declares.
OPTIONS = ("Hash", "Threads", "SyzygyPath", "MultiPV", "Move Overhead",
           "UCI_LimitStrength", "UCI_Elo", "Ponder", "Use NNUE")


class ReleaseBinaryChecks:
    """Mixed into a `unittest.TestCase` that sets:

    - `SYSTEM`: how the printed transcript and game name the run
      ("kiraly.exe under Wine");
    - `ARCH`: the level `id name` ends with ("x86-64", "aarch64");
    - `HASH_MB` and `HASH_SECONDS`: the table asked for with two threads,
      and the most `isready` may take to make it resident;
    - `TB_SEPARATOR` and `SCRATCH`: the system's path separator in
      `SyzygyPath`, and the folder under target/ that holds the tables;
    - `START_TIMEOUT`, `REPLY_TIMEOUT`: seconds to wait for `uciok` and for
      any other reply;
    - `engine(transcript)`: a `UciProcess` of the binary;
    - `engine_command()`: the command line and the keyword arguments of
      `chess.engine.SimpleEngine.popen_uci` for the binary;
    - `tb_path(folder)`: a host folder as the binary sees it."""

    def tb_path(self, folder):
        return folder

    def test_uci_transcript(self):
        transcript = []
        engine = self.engine(transcript)
        try:
            self.run_transcript(engine)
        finally:
            engine.close()
            print("\n".join(["", f"UCI transcript ({self.SYSTEM}):"] + transcript))

    def run_transcript(self, e):
        e.send("uci")
        lines = e.expect(lambda l: l == "uciok", self.START_TIMEOUT, "uciok")
        names = [l for l in lines if l.startswith("id name ")]
        self.assertEqual(len(names), 1, lines)
        self.assertRegex(names[0], rf"^id name Kiraly \d+\.\d+\.\d+ \({self.ARCH}\)$")
        self.assertTrue(any(l.startswith("id author ") for l in lines), lines)
        options = {l.split(" type ")[0][len("option name "):]: l
                   for l in lines if l.startswith("option name ") and " type " in l}
        for name in OPTIONS:
            self.assertIn(name, options)
        self.assertIn("type spin default 16 min 1", options["Hash"])

        # A large table and a second search thread: the allocation must not
        # fail, and making it resident (a byte a page) must not take the
        # allocator's byte-by-byte zeroing.
        e.send(f"setoption name Hash value {self.HASH_MB}")
        e.send("setoption name Threads value 2")
        started = time.monotonic()
        e.send("isready")
        lines = e.expect(lambda l: l == "readyok", what=f"readyok after Hash {self.HASH_MB}")
        self.assertLess(time.monotonic() - started, self.HASH_SECONDS)
        self.assertFalse([l for l in lines if "cannot" in l], lines)

        # Two tablebase folders joined by the system's separator (on
        # Windows `;`: a `:` split would break them at the drive letters).
        folders = []
        for name, tables in (("tb-a", ["KQvK", "KRvK"]), ("tb-b", ["KBvK"])):
            folder = os.path.join(TARGET, self.SCRATCH, name)
            os.makedirs(folder, exist_ok=True)
            for table in tables:
                for ext in (".rtbw", ".rtbz"):
                    shutil.copy(os.path.join(TB_SOURCE, table + ext), folder)
            folders.append(self.tb_path(folder))
        e.send("setoption name SyzygyPath value " + self.TB_SEPARATOR.join(folders))
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
        self.assertEqual(e.proc.wait(timeout=self.REPLY_TIMEOUT), 0, e.stderr)

    def assert_legal(self, board, moves, best):
        for m in moves:
            board.push_uci(m)
        self.assertIn(chess.Move.from_uci(best), board.legal_moves, board.fen())

    def test_end_of_input_ends_the_engine(self):
        engine = self.engine()
        try:
            engine.send("uci")
            engine.send("isready")
            engine.proc.stdin.close()
            engine.expect(lambda l: l == "readyok", self.START_TIMEOUT, "readyok")
            self.assertEqual(engine.proc.wait(timeout=self.REPLY_TIMEOUT), 0, engine.stderr)
        finally:
            engine.close()

    def test_short_game_on_the_clock(self):
        """Two processes; black ponders with two threads, as a bot might.
        The test keeps the clocks and charges each side the wall time of
        its play() call."""
        def start(threads):
            command, options = self.engine_command()
            eng = chess.engine.SimpleEngine.popen_uci(command, timeout=self.START_TIMEOUT,
                                                      cwd=REPO, **options)
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
        print(f"\nGame of {self.SYSTEM} ({board.ply()} plies, {GAME_BASE:g} s + "
              f"{GAME_INCREMENT:g} s, clocks left: white {clock[chess.WHITE]:.1f} s, "
              f"black {clock[chess.BLACK]:.1f} s, result {board.result(claim_draw=True)}):"
              f"\n{game}")
        self.assertTrue(board.ply() >= GAME_PLIES or board.is_game_over())
