"""Kiraly driven the way lichess-bot drives a UCI engine (plain unittest).

Run from the repository root (about 20 s):

    KIRALY_BIN=./kiraly python3 -m unittest engine-tests/test_lichess_bot.py

KIRALY_BIN defaults to <repo>/kiraly; the tests fail (they do not skip) when
that file is missing: build it with `make`.

lichess-bot (lib/engine_wrapper.py) starts the engine with
`chess.engine.SimpleEngine.popen_uci([path], timeout=10, setpgrp=True, ...)`,
sends the `uci_options` of its config.yml with `engine.configure(...)`, plays
the first move of each side with `Limit(time=...)` and no pondering (the
lichess clocks only start after both first moves), every later move with
`engine.play(board, Limit(white_clock, black_clock, white_inc, black_inc),
info=INFO_ALL, ponder=True, draw_offered=False, root_moves=None)` and, when
the game is over, `ping()` and `quit()`.  test_full_clocked_game does the same
with one engine process per side, real clocks of 2 s + 0.05 s kept by the
test (the wall time of each play() call is charged; the engine is given its
clock less lichess-bot's move overhead, BOT_MOVE_OVERHEAD below), and the
options read from tools/lichess-bot/config-engine-section.yml;
test_full_clocked_game_chess960 plays a Chess960 game the same way.  Besides
the test's clock, the time from `go`/`ponderhit` to `bestmove` in the logged
UCI exchange must stay within the clock the engine itself was sent.

The whole UCI exchange (python-chess logs it at DEBUG level) is kept; when a
check fails, the message quotes its tail and names a file with all of it.
"""

import logging
import os
import re
import subprocess
import sys
import tempfile
import time
import unittest

import chess
import chess.engine

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from engine_binary import require_engine  # noqa: E402
CONFIG = os.path.join(REPO, "tools", "lichess-bot", "config-engine-section.yml")

BASE_TIME = 2.0        # seconds on each clock at the start
INCREMENT = 0.05       # seconds added after each move
FIRST_MOVE_TIME = 0.2  # lichess-bot gives 10 s for each side's first move; shortened here
MAX_PLIES = 300
# lichess-bot's own top-level `move_overhead` (default 1000 ms), which it takes
# off the mover's clock before passing the clocks to the engine.  On a 2-core
# machine python-chess itself (two threads in a Python process, next to one
# engine thinking and one pondering) adds tens of milliseconds per move
# between the engine's bestmove and play() returning, and a few hundred when
# other jobs load the machine; this keeps that latency, which is not the
# engine's, from flagging the test.  The engine's own share is checked
# separately from the timestamps of the UCI exchange.
BOT_MOVE_OVERHEAD = 0.2
# The engine's time from `go`/`ponderhit` to `bestmove`, as timestamped by
# python-chess' reader thread, may exceed the clock it was given by this much
# (reading latency) before it counts as the engine overstepping its clock,
# plus the machine's scheduling noise: the slowest `isready` round trip
# (python-chess' ping) of the idle engines before the game, at most
# NOISE_CAP.  A loaded machine delays the reader thread too, which is not the
# engine's time.
TIMING_SLACK = 0.03
NOISE_CAP = 0.5

LINE = re.compile(r"^(<UciProtocol \(pid=\d+\)>): (<<|>>) (.*)$")


# --- the YAML subset used by config-engine-section.yml -----------------------

def _strip_comment(text):
    """Drop a `# comment` that is outside quotes and preceded by a space."""
    quote = None
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "#" and (i == 0 or text[i - 1] in " \t"):
            return text[:i]
    return text


def _scalar(text, where):
    if text[:1] in "\"'":
        if len(text) < 2 or text[-1] != text[0]:
            raise ValueError(f"{where}: unterminated string {text!r}")
        return text[1:-1]
    if text in ("true", "false"):
        return text == "true"
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    if re.fullmatch(r"-?\d+\.\d*", text):
        return float(text)
    return text


def parse_simple_yaml(text):
    """Nested block mappings of scalars (quoted or plain strings, ints,
    floats, true/false) with comments: enough for the lichess-bot example, and
    strict about anything else (lists, tabs, bad indentation)."""
    root = {}
    stack = [(0, root)]            # (indent of the mapping's keys, mapping)
    pending = None                 # (indent, mapping) of a key awaiting children
    for number, raw in enumerate(text.splitlines(), 1):
        where = f"line {number}"
        if "\t" in raw:
            raise ValueError(f"{where}: tab character")
        line = _strip_comment(raw).rstrip()
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        body = line.strip()
        if body.startswith("- "):
            raise ValueError(f"{where}: lists are not part of this subset")
        if pending is not None:
            if indent <= pending[0]:
                raise ValueError(f"{where}: key without value or children above")
            stack.append((indent, pending[1]))
            pending = None
        while indent < stack[-1][0]:
            stack.pop()
        if indent != stack[-1][0]:
            raise ValueError(f"{where}: inconsistent indentation")
        key, sep, value = body.partition(":")
        if not sep or not key.strip() or (value and not value.startswith(" ")):
            raise ValueError(f"{where}: expected `key: value`, got {body!r}")
        key, value = key.strip(), value.strip()
        mapping = stack[-1][1]
        if key in mapping:
            raise ValueError(f"{where}: duplicate key {key!r}")
        if value:
            mapping[key] = _scalar(value, where)
        else:
            mapping[key] = {}
            pending = (indent, mapping[key])
    if pending is not None:
        raise ValueError("key without value or children at the end")
    return root


def load_engine_section():
    with open(CONFIG) as f:
        return parse_simple_yaml(f.read())["engine"]


# --- a record of python-chess' log, i.e. the UCI exchange ---------------------

class Transcript(logging.Handler):
    def __init__(self):
        super().__init__(level=logging.DEBUG)
        self.records = []
        self.start = time.monotonic()

    def emit(self, record):
        record.since_start = time.monotonic() - self.start
        self.records.append(record)

    def exchange(self, start=0):
        """(time, engine, direction, line) of the UCI lines logged since
        record number `start`."""
        out = []
        for record in self.records[start:]:
            m = LINE.match(record.getMessage())
            if m:
                out.append((record.since_start, m.group(1), m.group(2), m.group(3)))
        return out

    def lines(self):
        return [f"{getattr(r, 'since_start', 0.0):9.3f} {r.levelname:7} {r.getMessage()}"
                for r in self.records]

    def errors(self):
        return [r for r in self.records if r.levelno >= logging.ERROR]

    def dump(self, name):
        fd, path = tempfile.mkstemp(prefix=f"kiraly-{name}-", suffix=".log")
        with os.fdopen(fd, "w") as f:
            f.write("\n".join(self.lines()) + "\n")
        return path


class LichessBotStyle(unittest.TestCase):
    def setUp(self):
        self.transcript = Transcript()
        self.logger = logging.getLogger("chess.engine")
        self.old_level = self.logger.level
        self.logger.setLevel(logging.DEBUG)
        self.logger.addHandler(self.transcript)
        self.engines = []

    def tearDown(self):
        for engine in self.engines:
            try:
                engine.close()
            except Exception:
                pass
        self.logger.removeHandler(self.transcript)
        self.logger.setLevel(self.old_level)

    def problem(self, message, board=None):
        """Fail with the message, the position, the tail of the UCI exchange
        and the name of a file holding all of it."""
        path = self.transcript.dump(self.id().rsplit(".", 1)[-1])
        tail = "\n".join(self.transcript.lines()[-60:])
        where = ""
        if board is not None:
            where = (f"\nposition: {board.fen()}\nmoves: "
                     f"{' '.join(m.uci() for m in board.move_stack)}")
        self.fail(f"{message}{where}\nfull UCI log: {path}\nlast lines:\n{tail}")

    def start_engine(self, path, cfg):
        # As lichess-bot's UCIEngine: popen_uci with timeout 10 s, its own
        # process group, then configure() with the uci_options.  stderr is
        # piped so that python-chess logs it into the transcript.
        engine = chess.engine.SimpleEngine.popen_uci(
            [path], timeout=10.0, setpgrp=True, stderr=subprocess.PIPE,
            cwd=cfg.get("working_dir") or None)
        self.engines.append(engine)
        engine.configure(dict(cfg["uci_options"]))
        return engine

    # -- the example config itself ---------------------------------------------

    def test_config_section(self):
        """The example parses, has lichess-bot's keys, and its uci_options are
        exactly the settable options Kiraly declares, with valid values."""
        path = require_engine(self)
        with open(CONFIG) as f:
            text = f.read()
        cfg = parse_simple_yaml(text)
        self.assertEqual(list(cfg), ["engine"])
        eng = cfg["engine"]
        # The hand-written parser is cross-checked with PyYAML, a test
        # dependency (requirements.txt): missing, it fails.
        try:
            import yaml
        except ImportError:
            self.fail("PyYAML is missing: pip install -r requirements.txt")
        self.assertEqual(yaml.safe_load(text), cfg)
        self.assertEqual(eng["protocol"], "uci")
        self.assertEqual(eng["name"], "kiraly")
        self.assertIs(eng["ponder"], True)
        self.assertIs(eng["polyglot"]["enabled"], False)
        self.assertIs(eng["silence_stderr"], False)
        for source in ("chessdb_book", "lichess_cloud_analysis", "lichess_opening_explorer",
                       "online_egtb"):
            self.assertIs(eng["online_moves"][source]["enabled"], False, source)
        for tb in ("syzygy", "gaviota"):
            self.assertIs(eng["lichess_bot_tbs"][tb]["enabled"], False, tb)
        for key in ("resign_enabled", "offer_draw_enabled"):
            self.assertIs(eng["draw_or_resign"][key], False, key)
        self.assertEqual(list(eng["uci_options"]), ["Hash", "Threads", "Move Overhead", "SyzygyPath",
                                                    "SyzygyProbeDepth", "Syzygy50MoveRule",
                                                    "UCI_ShowWDL", "UCI_LimitStrength", "UCI_Elo",
                                                    "Use NNUE", "EvalFile"])

        engine = chess.engine.SimpleEngine.popen_uci([path], timeout=10.0, setpgrp=True)
        self.engines.append(engine)
        options = engine.options
        engine.quit()
        # What lichess-bot leaves to python-chess (remove_managed_options) and
        # buttons (no value) are not listed; every other option is.
        settable = {name for name, opt in options.items()
                    if not opt.is_managed() and opt.type != "button"}
        self.assertEqual(set(eng["uci_options"]), settable,
                         "uci_options should list exactly Kiraly's settable options")
        for name, value in eng["uci_options"].items():
            opt = options[name]
            self.assertFalse(opt.is_managed(), name)
            if opt.type == "spin":
                self.assertIsInstance(value, int, name)
                self.assertTrue(opt.min <= value <= opt.max, f"{name}={value} outside "
                                f"{opt.min}..{opt.max}")
            elif opt.type == "check":
                self.assertIsInstance(value, bool, name)
            elif opt.type == "string":
                self.assertIsInstance(value, str, name)
            elif opt.type == "combo":
                self.assertIn(value, opt.var, name)

    def test_yaml_subset_parser(self):
        self.assertEqual(parse_simple_yaml('a:\n  b c: 5   # x\n  d: "x # y"\ne: true\n'),
                         {"a": {"b c": 5, "d": "x # y"}, "e": True})
        for bad in ("a:\n  b: 1\n c: 2\n", "a: 1\na: 2\n", "a:\n- x\n", "a\n", "a:\n",
                    "a:\n\tb: 1\n", 'a: "x\n'):
            with self.assertRaises(ValueError, msg=repr(bad)):
                parse_simple_yaml(bad)

    # -- a complete game ---------------------------------------------------------

    def test_full_clocked_game(self):
        self.play_clocked_game(chess.Board(), "standard")

    def test_full_clocked_game_chess960(self):
        # lichess-bot plays variant `chess960` games on a chess960 Board;
        # python-chess then sets UCI_Chess960 and sends castling as king
        # takes rook.  Start position 413: rqnbnkbr.
        board = chess.Board.from_chess960_pos(413)
        self.assertTrue(board.chess960)
        self.play_clocked_game(board, "chess960 #413")

    def play_clocked_game(self, board, label):
        path = require_engine(self)
        cfg = load_engine_section()
        self.assertIs(cfg["ponder"], True)
        engines = {chess.WHITE: self.start_engine(path, cfg),
                   chess.BLACK: self.start_engine(path, cfg)}
        noise = 0.0
        for engine in engines.values():
            self.assertIn("name", engine.id)   # lichess-bot shows it in the chat
            for _ in range(5):
                started = time.perf_counter()
                engine.ping()
                noise = max(noise, time.perf_counter() - started)
        slack = TIMING_SLACK + min(noise, NOISE_CAP)
        last_go = {}      # engine -> the last `go` command it was sent

        clock = {chess.WHITE: BASE_TIME, chess.BLACK: BASE_TIME}
        lowest = dict(clock)
        searched = searched_with_info = ponderhit_with_info = ponderhits = 0
        slowest = slowest_engine = 0.0
        tightest = BASE_TIME    # least time the engine had left on its own clock at a bestmove
        while not board.is_game_over(claim_draw=True) and board.ply() < MAX_PLIES:
            side = board.turn
            name = "white" if side == chess.WHITE else "black"
            ply = board.ply() + 1
            first_move = board.ply() < 2
            if first_move:
                limit = chess.engine.Limit(time=FIRST_MOVE_TIME, clock_id="first move")
            else:
                # lichess-bot's game_clock_time(): the mover's clock less its move_overhead
                given = dict(clock)
                given[side] = max(0.0, given[side] - BOT_MOVE_OVERHEAD)
                limit = chess.engine.Limit(
                    white_clock=given[chess.WHITE], black_clock=given[chess.BLACK],
                    white_inc=INCREMENT, black_inc=INCREMENT)
            mark = len(self.transcript.records)
            started = time.perf_counter()
            try:
                result = engines[side].play(board, limit, info=chess.engine.INFO_ALL,
                                            ponder=not first_move, draw_offered=False,
                                            root_moves=None)
            except chess.engine.EngineError as error:   # includes illegal / unparsable bestmove
                self.problem(f"ply {ply} ({name}): engine error {error!r}", board)
            except chess.engine.EngineTerminatedError as error:
                self.problem(f"ply {ply} ({name}): engine died {error!r}", board)
            except TimeoutError:
                self.problem(f"ply {ply} ({name}): no bestmove in time", board)
            used = time.perf_counter() - started
            slowest = max(slowest, used)

            # The engine's side of it: from `go`/`ponderhit` to `bestmove`,
            # against the clock of its last `go` (for a ponderhit, the clocks
            # python-chess sent with `go ponder`, which then apply).
            begin = end = governing = None
            for stamp, who, way, text in self.transcript.exchange(mark):
                if way == "<<" and text.startswith("go "):
                    last_go[who] = text
                if way == "<<" and (text == "ponderhit" or text.startswith("go ")) and begin is None:
                    begin, mover, hit, governing = stamp, who, text == "ponderhit", last_go.get(who)
                if way == ">>" and text.startswith("bestmove") and begin is not None and who == mover \
                        and end is None:
                    end = stamp
            if begin is None or end is None or governing is None:
                self.problem(f"ply {ply} ({name}): no go/ponderhit ... bestmove in the log", board)
            think = end - begin
            slowest_engine = max(slowest_engine, think)
            if not first_move:
                m = re.search(r"\bwtime (-?\d+) btime (-?\d+)", governing)
                if m is None:
                    self.problem(f"ply {ply} ({name}): no clocks in {governing!r}", board)
                engine_clock = max(0, int(m.group(1 if side == chess.WHITE else 2))) / 1000
                tightest = min(tightest, engine_clock - think)
                if think > engine_clock + slack:
                    self.problem(f"ply {ply} ({name}): the engine took {think:.3f} s from "
                                 f"{'ponderhit' if hit else 'go'} to bestmove with "
                                 f"{engine_clock:.3f} s on its clock ({governing!r})", board)

            move = result.move
            if move is None or move not in board.legal_moves:
                self.problem(f"ply {ply} ({name}): bestmove {move} is not legal", board)
            if first_move:
                if used > FIRST_MOVE_TIME + 0.5:
                    self.problem(f"first move took {used:.3f} s with movetime "
                                 f"{FIRST_MOVE_TIME} s", board)
            else:
                clock[side] -= used
                lowest[side] = min(lowest[side], clock[side])
                if clock[side] < 0:
                    self.problem(f"ply {ply} ({name}) lost on time: {used:.3f} s for the move "
                                 f"({think:.3f} s of it between {'ponderhit' if hit else 'go'} "
                                 f"and bestmove), clock now {clock[side]:.3f} s", board)
                clock[side] += INCREMENT
            has_info = "score" in result.info and "pv" in result.info
            if hit:
                # python-chess drops the info lines sent while pondering; after
                # ponderhit an engine that has already searched long enough
                # answers with bestmove alone.
                ponderhits += 1
                ponderhit_with_info += has_info
            else:
                searched += 1
                searched_with_info += has_info
            if result.ponder is not None:
                after = board.copy(stack=False)
                after.push(move)
                if result.ponder not in after.legal_moves:
                    self.problem(f"ply {ply} ({name}): ponder move {result.ponder} "
                                 f"is not legal after {move}", board)
            board.push(move)

        # lichess-bot: send_game_result (nothing for UCI), then ping and quit.
        codes = {}
        for side, engine in engines.items():
            try:
                engine.ping()
                engine.quit()
                codes[side] = engine.returncode.result(timeout=10)
            except Exception as error:   # noqa: BLE001 - reported with the transcript
                self.problem(f"ping/quit of the {'white' if side else 'black'} engine failed: "
                             f"{error!r}", board)
        outcome = board.outcome(claim_draw=True)
        moves = board.ply()
        with_info = searched_with_info + ponderhit_with_info
        summary = (f"{moves} plies, {board.result(claim_draw=True)} "
                   f"({outcome.termination.name if outcome else 'ply cap'}), lowest clocks "
                   f"w {lowest[chess.WHITE]:.3f} s b {lowest[chess.BLACK]:.3f} s, slowest move "
                   f"{slowest:.3f} s (engine {slowest_engine:.3f} s), least left on the engine's "
                   f"clock {tightest:.3f} s, score+pv {with_info}/{moves} "
                   f"(after go {searched_with_info}/{searched}, after ponderhit "
                   f"{ponderhit_with_info}/{ponderhits})")
        print(f"\n  lichess-bot game ({label}): {summary}", file=sys.stderr)

        self.assertEqual(codes, {chess.WHITE: 0, chess.BLACK: 0},
                         f"engine exit status after quit; {summary}")
        errors = self.transcript.errors()
        if errors:
            self.problem("python-chess logged errors: "
                         + "; ".join(r.getMessage() for r in errors[:5]), board)
        protocol = [r.getMessage() for r in self.transcript.records
                    if "Unexpected engine output" in r.getMessage()]
        if protocol:
            self.problem(f"unexpected engine output: {protocol[:5]}", board)
        self.assertGreaterEqual(moves, 20, f"game too short to say much; {summary}")
        if with_info * 2 <= moves or searched_with_info < 0.9 * searched:
            self.problem(f"too few moves came with score and pv: {summary}", board)

    # -- analysis ------------------------------------------------------------

    def test_analysis(self):
        path = require_engine(self)
        cfg = load_engine_section()
        engine = self.start_engine(path, cfg)
        positions = [
            chess.Board(),
            chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"),
            chess.Board("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"),   # Rd8#
        ]
        game = chess.Board()
        for uci in ("e2e4", "c7c5", "g1f3", "d7d6", "d2d4", "c5d4", "f3d4"):
            game.push_uci(uci)
        positions.append(game)   # sent as `position startpos moves ...`
        for board in positions:
            try:
                infos = engine.analyse(board, chess.engine.Limit(depth=6), multipv=1)
            except chess.engine.EngineError as error:
                self.problem(f"analyse failed: {error!r}", board)
            self.assertIsInstance(infos, list)
            self.assertEqual(len(infos), 1)
            info = infos[0]
            if "score" not in info or not info.get("pv"):
                self.problem(f"analysis without score or pv: {info}", board)
            replay = board.copy()
            for move in info["pv"]:
                self.assertIn(move, replay.legal_moves, f"pv {info['pv']} from {board.fen()}")
                replay.push(move)
            if not info["score"].is_mate():   # a search may stop early once it sees a mate
                self.assertEqual(info.get("depth"), 6, f"`go depth 6` ended at {info}")
        mate = engine.analyse(positions[2], chess.engine.Limit(depth=6), multipv=1)[0]
        self.assertEqual(mate["score"].relative, chess.engine.Mate(1), mate)
        self.assertEqual(mate["pv"][0], chess.Move.from_uci("d1d8"), mate)
        engine.ping()
        engine.quit()
        self.assertEqual(engine.returncode.result(timeout=10), 0)
        if self.transcript.errors():
            self.problem("python-chess logged errors: "
                         + "; ".join(r.getMessage() for r in self.transcript.errors()[:5]))


if __name__ == "__main__":
    unittest.main()
