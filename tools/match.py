#!/usr/bin/env python3
"""Kiraly match runner: plays UCI engines against each other (match, round-robin
or gauntlet) with real clocks, opening books played in colour-swapped pairs,
PGN output, adjudication, failure accounting, Elo/nElo/LOS/pentanomial
statistics and a fastchess-compatible GSPRT.  It is written in Python on
python-chess rather than wrapping cutechess-cli or fastchess because the
project's lichess-bot integration already depends on that same library (one
toolchain, one set of rules for both), because chess rules - legality, SAN,
repetition, the 50-move rule, insufficient material, PGN and Chess960 castling
- then come from a widely used, well-tested library instead of our own code,
and because it needs no separate C++ build: a checkout plus `pip install
chess` is enough on any developer machine or CI.  The UCI protocol itself is
driven directly over pipes by a small driver in this file (not by
chess.engine), so the runner measures every move's thinking time itself and
detects protocol errors, crashes and hangs.  All statistics live in
tools/stats.py.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import io
import json
import math
import os
import queue
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import repo_venv  # noqa: E402

repo_venv.require("chess")

import chess  # noqa: E402
import chess.pgn  # noqa: E402
import chess.syzygy  # noqa: E402

import stats  # noqa: E402
import selfplay  # noqa: E402

MATE_SCORE = 100000          # centipawn value used for "mate in N" in adjudication

USAGE_EXAMPLES = """\
examples:
  # SPRT of a new build against the old one at 8+0.08 (fastchess-style)
  python3 tools/match.py \\
      --engine cmd=./kiraly-new name=new --engine cmd=./kiraly-old name=old \\
      --each option.Hash=16 option.Threads=1 --tc 8+0.08 \\
      --openings file=tools/books/noob_3moves_500.epd format=epd order=random \\
      --sprt elo0=0 elo1=5 alpha=0.05 beta=0.05 --concurrency 2 --pgn sprt.pgn

  # gauntlet of Kiraly against a strength-limited Stockfish and Ethereal
  python3 tools/match.py --gauntlet --engine cmd=./kiraly name=Kiraly \\
      --engine cmd=/usr/games/stockfish name=SF2000 option.UCI_LimitStrength=true option.UCI_Elo=2000 \\
      --engine cmd=/usr/games/ethereal-chess name=Ethereal \\
      --each option.Hash=16 option.Threads=1 --tc 10+0.1 --rounds 50 \\
      --openings file=tools/books/noob_3moves_500.epd format=epd order=random

key=value arguments:
  --engine   cmd=PATH (required) name=NAME dir=WORKDIR args="EXTRA ARGS"
             option.NAME=VALUE ... tc=.. movetime=.. nodes=.. depth=.. ponder=true|false
  --each     same keys, applied to every engine (an engine's own keys win)
  --openings file=PATH format=epd|pgn order=sequential|random plies=N start=K
  --draw     movenumber=N movecount=M score=CP   (draw if |score| <= CP for M moves
             of both engines, once move N is reached)
  --resign   movecount=M score=CP twosided=false (lose if own score <= -CP for M moves)
  --sprt     elo0=E0 elo1=E1 alpha=0.05 beta=0.05 model=normalized|logistic

time controls: --tc 10+0.1 (seconds + increment), --tc 40/60+0 (40 moves in 60 s,
repeating), --tc 1:30+1 (minutes:seconds), --movetime MS, --nodes N, --depth N.
--nodes/--depth may be combined with --tc or --movetime.  The runner keeps the
clocks itself: thinking time is the wall time from sending `go` (or `ponderhit`)
to reading `bestmove`; a side whose clock drops below -timemargin ms loses on
time (with --movetime: when it uses more than movetime + timemargin), or draws
if the opponent has no mating material.  At the flag the engine is sent `stop`;
one that has still not answered --grace ms later (with --movetime: at least
5 x movetime; with only nodes/depth limits: after --move-timeout s) is killed,
loses as "unresponsive" and is restarted for its next game, as is one that
crashed (EOF on its stdout).  Illegal or unparsable moves, crashes, hangs and
time forfeits lose the game and are counted per engine.

games: without --games/--rounds one round is played, or rounds until the SPRT
decides with --sprt.  Checkmate, stalemate, insufficient material, 3-fold
repetition and the 50-move rule end games (draws as soon as they can be claimed
from the position on the board).  Ctrl-C stops the games in progress and prints
the summary.  PGN move comments are {score/depth time}, e.g. {+0.35/12 0.512s},
from the mover's point of view.

statistics: W/D/L are given from the first engine's point of view.  Elo error
bars are 95 % intervals from the pentanomial (game pair) variance when every
game belongs to a complete pair, else from the trinomial (per game) variance;
nElo and LOS use the same model; the GSPRT uses the pentanomial counts of the
complete pairs (as fastchess does).  Ptnml counts are [LL, LD, DD+WL, WD, WW].
"""


# ---------------------------------------------------------------------------
# Command line helpers
# ---------------------------------------------------------------------------

class UsageError(Exception):
    pass


def parse_kv(tokens, what):
    out = {}
    for tok in tokens:
        if "=" not in tok:
            raise UsageError(f"{what}: expected key=value, got {tok!r}")
        k, v = tok.split("=", 1)
        out[k.strip()] = v
    return out


def parse_bool(v: str) -> bool:
    if v.lower() in ("1", "true", "yes", "on"):
        return True
    if v.lower() in ("0", "false", "no", "off"):
        return False
    raise UsageError(f"not a boolean: {v!r}")


def parse_seconds(s: str) -> float:
    if ":" in s:
        parts = s.split(":")
        val = 0.0
        for p in parts:
            val = val * 60 + float(p)
        return val
    return float(s)


@dataclass
class Limits:
    base_ms: Optional[int] = None   # clock time, None = no clock
    inc_ms: int = 0
    moves: int = 0                  # moves per period (movestogo), 0 = sudden death
    movetime: Optional[int] = None
    nodes: Optional[int] = None
    depth: Optional[int] = None

    @property
    def has_clock(self) -> bool:
        return self.base_ms is not None

    def describe(self) -> str:
        parts = []
        if self.has_clock:
            base = f"{self.base_ms / 1000:g}"
            inc = f"+{self.inc_ms / 1000:g}" if self.inc_ms else ""
            parts.append(f"tc {self.moves}/{base}{inc}" if self.moves else f"tc {base}{inc}")
        if self.movetime is not None:
            parts.append(f"movetime {self.movetime} ms")
        if self.nodes is not None:
            parts.append(f"nodes {self.nodes}")
        if self.depth is not None:
            parts.append(f"depth {self.depth}")
        return ", ".join(parts) or "none"

    def pgn_tag(self) -> str:
        """PGN TimeControl tag value (standard syntax where possible)."""
        if self.has_clock:
            base = f"{self.base_ms / 1000:g}"
            inc = f"+{self.inc_ms / 1000:g}" if self.inc_ms else ""
            return f"{self.moves}/{base}{inc}" if self.moves else f"{base}{inc}"
        if self.movetime is not None:
            return f"*{self.movetime / 1000:g}"     # PGN: "*" = fixed time per move
        return "-"


def parse_tc(s: str):
    m = re.fullmatch(r"\s*(?:(\d+)/)?([0-9.:]+)(?:\+([0-9.]+))?\s*", s)
    if not m:
        raise UsageError(f"bad time control {s!r} (use e.g. 10+0.1 or 40/60+0)")
    moves = int(m.group(1) or 0)
    base = parse_seconds(m.group(2))
    inc = float(m.group(3) or 0)
    if base <= 0:
        raise UsageError(f"time control {s!r}: base time must be positive")
    return moves, int(round(base * 1000)), int(round(inc * 1000))


def build_limits(d: dict) -> Limits:
    lim = Limits()
    if d.get("tc") and d.get("movetime"):
        raise UsageError("use either a clock time control (tc) or movetime, not both")
    if d.get("tc"):
        lim.moves, lim.base_ms, lim.inc_ms = parse_tc(d["tc"])
    if d.get("movetime"):
        lim.movetime = int(d["movetime"])
    if d.get("nodes"):
        lim.nodes = int(d["nodes"])
    if d.get("depth"):
        lim.depth = int(d["depth"])
    if not (lim.has_clock or lim.movetime or lim.nodes or lim.depth):
        raise UsageError("no time control: give --tc, --movetime, --nodes or --depth")
    return lim


@dataclass
class EngineConfig:
    index: int
    name: str
    cmd: list
    workdir: Optional[str]
    options: dict
    limits: Limits
    ponder: bool


# ---------------------------------------------------------------------------
# Small UCI driver
# ---------------------------------------------------------------------------

class EngineFailure(Exception):
    """kind is 'crash' or 'unresponsive'."""

    def __init__(self, kind: str, msg: str):
        super().__init__(msg)
        self.kind = kind


class Logger:
    def __init__(self, path: Optional[str]):
        self.lock = threading.Lock()
        self.f = open(path, "a", encoding="utf-8") if path else None
        self.t0 = time.monotonic()

    def __call__(self, tag: str, direction: str, line: str):
        if self.f:
            with self.lock:
                self.f.write(f"{time.monotonic() - self.t0:10.3f} {tag} {direction} {line}\n")
                self.f.flush()


@dataclass
class SearchInfo:
    depth: Optional[int] = None
    seldepth: Optional[int] = None
    score_cp: Optional[int] = None
    mate: Optional[int] = None
    nodes: Optional[int] = None

    def update(self, tokens):
        """Update from the tokens of an `info` line (after the word info)."""
        if not tokens or tokens[0] == "string":
            return
        if "multipv" in tokens:
            i = tokens.index("multipv")
            if i + 1 < len(tokens) and tokens[i + 1] != "1":
                return
        # A bound line (an aspiration window that failed) is not the score
        # of a move: the comment keeps the last exact line's.
        head = tokens[:tokens.index("pv")] if "pv" in tokens else tokens
        if "lowerbound" in head or "upperbound" in head:
            return
        i = 0
        new_score = None
        depth = None
        while i < len(tokens):
            t = tokens[i]
            if t == "pv":
                break
            try:
                if t == "depth":
                    depth = int(tokens[i + 1])
                    i += 1
                elif t == "seldepth":
                    self.seldepth = int(tokens[i + 1])
                    i += 1
                elif t == "nodes":
                    self.nodes = int(tokens[i + 1])
                    i += 1
                elif t == "score" and i + 2 < len(tokens):
                    kind, val = tokens[i + 1], int(tokens[i + 2])
                    new_score = ("cp", val) if kind == "cp" else ("mate", val) if kind == "mate" else None
                    i += 2
            except (ValueError, IndexError):
                pass
            i += 1
        if depth is not None:
            self.depth = depth
        if new_score is not None:
            if new_score[0] == "cp":
                self.score_cp, self.mate = new_score[1], None
            else:
                self.mate, self.score_cp = new_score[1], None

    def cp(self) -> Optional[int]:
        """Score in centipawns (mate as +-(MATE_SCORE - distance)), or None."""
        if self.mate is not None:
            return MATE_SCORE - abs(self.mate) if self.mate > 0 else -(MATE_SCORE - abs(self.mate))
        return self.score_cp

    def comment_score(self) -> str:
        if self.mate is not None:
            s = f"+M{abs(self.mate)}" if self.mate > 0 else f"-M{abs(self.mate)}"
        elif self.score_cp is not None:
            s = f"{self.score_cp / 100:+.2f}"
        else:
            return ""
        return f"{s}/{self.depth}" if self.depth is not None else s


class UciEngine:
    def __init__(self, cfg: EngineConfig, log: Logger, tag: str, uci_timeout: float, chess960: bool):
        self.cfg = cfg
        self.log = log
        self.tag = tag
        self.uci_timeout = uci_timeout
        self.chess960 = chess960
        self.proc: Optional[subprocess.Popen] = None
        self.q: queue.Queue = queue.Queue()
        self.eof = False
        self.id_name: Optional[str] = None
        self.options: dict = {}            # lower-case name -> declared name
        self.stderr_tail: list = []
        self.ponder_ok = False
        # pondering state: (predicted move, board after it) while a `go ponder` runs
        self.pondering: Optional[chess.Move] = None
        self.ponder_info = SearchInfo()

    # -- process handling ---------------------------------------------------
    def start(self, warn: bool = False):
        """Launch the process, do the uci/isready handshake and set options
        (warn=True: report options the engine does not declare)."""
        self.warn = warn
        try:
            # A process group of its own keeps the terminal's Ctrl-C away
            # from the engines, as before; but no setsid(): with Linux
            # autogroup scheduling each setsid() starts a scheduling group,
            # and an engine in its own group waits behind busy groups each
            # time it wakes (measured under load: 150-1600 ms stalls and
            # time losses at 1+0.01, none in the runner's own group, the
            # way GUIs such as cutechess start engines).
            self.proc = subprocess.Popen(
                self.cfg.cmd, cwd=self.cfg.workdir, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, bufsize=0, process_group=0)
        except OSError as e:
            raise EngineFailure("crash", f"cannot start {' '.join(self.cfg.cmd)}: {e}") from e
        threading.Thread(target=self._reader, daemon=True).start()
        threading.Thread(target=self._stderr_reader, daemon=True).start()
        self.send("uci")
        deadline = time.monotonic() + self.uci_timeout
        while True:
            line = self._get(deadline, "uciok")
            if line == "uciok":
                break
            if line.startswith("id name "):
                self.id_name = line[8:].strip()
            elif line.startswith("option name "):
                m = re.match(r"option name (.+?) type ", line)
                if m:
                    self.options[m.group(1).strip().lower()] = m.group(1).strip()
        for name, value in self.cfg.options.items():
            self.setoption(name, value)
        if self.chess960:
            self.setoption("UCI_Chess960", "true")
        self.ponder_ok = self.cfg.ponder and "ponder" in self.options
        if self.cfg.ponder:
            self.setoption("Ponder", "true" if self.ponder_ok else "false", quiet=True)
        self.sync()

    def setoption(self, name, value, quiet=False):
        if name.lower() not in self.options and not quiet and getattr(self, "warn", False):
            print(f"warning: {self.cfg.name} has no UCI option {name!r}; sending it anyway",
                  file=sys.stderr)
        self.send(f"setoption name {self.options.get(name.lower(), name)} value {value}")

    def _reader(self):
        out = self.proc.stdout
        try:
            for raw in out:
                line = raw.decode("utf-8", "replace").rstrip("\r\n")
                ts = time.monotonic()
                self.log(self.tag, "<", line)
                self.q.put((ts, line))
        except (OSError, ValueError):
            pass
        self.q.put((time.monotonic(), None))

    def _stderr_reader(self):
        try:
            for raw in self.proc.stderr:
                line = raw.decode("utf-8", "replace").rstrip("\r\n")
                self.log(self.tag, "!", line)
                self.stderr_tail = (self.stderr_tail + [line])[-20:]
        except (OSError, ValueError):
            pass

    def send(self, line: str):
        self.log(self.tag, ">", line)
        if self.proc is None or self.eof:
            raise EngineFailure("crash", f"{self.cfg.name}: engine is not running")
        try:
            self.proc.stdin.write((line + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError) as e:
            raise EngineFailure("crash", f"{self.cfg.name}: write failed ({e})") from e

    def _crash_message(self) -> str:
        code = self.proc.poll() if self.proc else None
        msg = f"{self.cfg.name} terminated (exit code {code})" if code is not None else \
            f"{self.cfg.name} closed its output"
        if self.stderr_tail:
            msg += "; stderr: " + " | ".join(self.stderr_tail[-3:])
        return msg

    def _get(self, deadline: float, waiting_for: str) -> str:
        """Next line before the deadline or raise EngineFailure."""
        if self.eof:
            raise EngineFailure("crash", self._crash_message())
        try:
            _, line = self.q.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise EngineFailure("unresponsive", f"{self.cfg.name}: no {waiting_for} in time") from None
        if line is None:
            self.eof = True
            time.sleep(0.05)        # let the exit code settle for the message
            raise EngineFailure("crash", self._crash_message())
        return line

    def get_timed(self, timeout: float):
        """(timestamp, line) or None on timeout; raises on EOF."""
        if self.eof:
            raise EngineFailure("crash", self._crash_message())
        try:
            ts, line = self.q.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return None
        if line is None:
            self.eof = True
            time.sleep(0.05)
            raise EngineFailure("crash", self._crash_message())
        return ts, line

    def poll_search(self, timeout: float, info: SearchInfo):
        """Waits up to `timeout` s for one line of a running search. An
        `info` line is folded into `info`; a `bestmove` line returns
        (timestamp, tokens); anything else, or nothing, returns None."""
        item = self.get_timed(timeout)
        if item is None:
            return None
        ts, line = item
        if line.startswith("info "):
            info.update(line.split()[1:])
        elif line.startswith("bestmove"):
            return ts, line.split()
        return None

    def drain(self):
        while True:
            try:
                ts, line = self.q.get_nowait()
            except queue.Empty:
                return
            if line is None:
                self.eof = True
                return

    def sync(self, timeout: Optional[float] = None):
        self.send("isready")
        deadline = time.monotonic() + (timeout or self.uci_timeout)
        while self._get(deadline, "readyok") != "readyok":
            pass

    def new_game(self):
        self.pondering = None
        self.send("ucinewgame")
        self.sync()

    def stop_and_discard(self, grace: float):
        """Stop a running (ponder) search and swallow its bestmove."""
        self.send("stop")
        deadline = time.monotonic() + grace
        while not self._get(deadline, "bestmove after stop").startswith("bestmove"):
            pass
        self.pondering = None

    def alive(self) -> bool:
        return self.proc is not None and not self.eof and self.proc.poll() is None

    def quit(self):
        if self.proc is None:
            return
        if self.alive():
            try:
                self.send("quit")
            except EngineFailure:
                pass
            try:
                self.proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                pass
        self.kill()

    def kill(self):
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                self.proc.kill()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                f.close()
            except (OSError, ValueError):
                pass
        self.eof = True


# ---------------------------------------------------------------------------
# Openings
# ---------------------------------------------------------------------------

@dataclass
class Opening:
    board: chess.Board                      # root position
    moves: list = field(default_factory=list)   # book moves played from the root


def board_from_fen_line(line: str, chess960: bool) -> chess.Board:
    parts = line.split()
    if len(parts) >= 6 and parts[4].isdigit() and parts[5].isdigit():
        return chess.Board(" ".join(parts[:6]), chess960=chess960)
    board = chess.Board(None, chess960=chess960)
    board.set_epd(line)
    return board


class OpeningBook:
    def __init__(self, spec: dict, chess960: bool, seed: int):
        self.path = spec.get("file")
        if not self.path:
            raise UsageError("--openings needs file=PATH")
        fmt = spec.get("format") or ("pgn" if self.path.lower().endswith(".pgn") else "epd")
        if fmt not in ("epd", "pgn"):
            raise UsageError("--openings format must be epd or pgn")
        self.fmt = fmt
        self.plies = int(spec["plies"]) if spec.get("plies") else None
        self.chess960 = chess960
        order = spec.get("order", "sequential")
        if order not in ("sequential", "random"):
            raise UsageError("--openings order must be sequential or random")
        start = int(spec.get("start", 1))
        with open(self.path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        if fmt == "epd":
            self.entries = [ln.strip() for ln in text.splitlines()
                            if ln.strip() and not ln.lstrip().startswith("#")]
        else:
            self.entries = self._split_pgn(text)
        if not self.entries:
            raise UsageError(f"no openings found in {self.path}")
        self.order = list(range(len(self.entries)))
        if order == "random":
            random.Random(seed).shuffle(self.order)
        self.offset = (start - 1) % len(self.entries)
        self.cache: dict = {}
        self.lock = threading.Lock()

    @staticmethod
    def _split_pgn(text: str):
        games, cur, has_moves = [], [], False
        for line in text.splitlines():
            s = line.strip()
            if s.startswith("[") and has_moves:
                games.append("\n".join(cur))
                cur, has_moves = [], False
            if s and not s.startswith("[") and not s.startswith("%"):
                has_moves = True
            cur.append(line)
        if cur and has_moves:
            games.append("\n".join(cur))
        return games

    def __len__(self):
        return len(self.entries)

    def _parse(self, idx: int) -> Opening:
        entry = self.entries[idx]
        if self.fmt == "epd":
            board = board_from_fen_line(entry, self.chess960)
            return Opening(board, [])
        game = chess.pgn.read_game(io.StringIO(entry))
        if game is None:
            raise ValueError("unreadable PGN game")
        board = game.board()
        if self.chess960 and not board.chess960:
            board = chess.Board(board.fen(), chess960=True)
        moves = list(game.mainline_moves())
        if self.plies is not None:
            moves = moves[:self.plies]
        # validate
        b = board.copy()
        for mv in moves:
            if not b.is_legal(mv):
                raise ValueError(f"illegal book move {mv}")
            b.push(mv)
        return Opening(board, moves)

    def get(self, round_index: int) -> Opening:
        """Opening for round round_index (0-based); invalid entries are skipped."""
        with self.lock:
            for k in range(len(self.entries)):
                idx = self.order[(self.offset + round_index + k) % len(self.entries)]
                if idx not in self.cache:
                    try:
                        op = self._parse(idx)
                        b = op.board.copy()
                        for mv in op.moves:
                            b.push(mv)
                        if not b.is_valid() or b.is_game_over():
                            raise ValueError("position is invalid or game over")
                        self.cache[idx] = op
                    except (ValueError, IndexError) as e:
                        print(f"warning: skipping opening #{idx + 1} of {self.path}: {e}", file=sys.stderr)
                        self.cache[idx] = None
                if self.cache[idx] is not None:
                    return self.cache[idx]
        raise UsageError(f"no valid opening in {self.path}")


class RandomChess960:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.positions: list = []
        self.lock = threading.Lock()

    def get(self, round_index: int) -> Opening:
        with self.lock:
            while len(self.positions) <= round_index:
                self.positions.append(self.rng.randrange(960))
            return Opening(chess.Board.from_chess960_pos(self.positions[round_index]), [])


class StartPosition:
    def get(self, round_index: int) -> Opening:
        return Opening(chess.Board(), [])


# ---------------------------------------------------------------------------
# Games
# ---------------------------------------------------------------------------

@dataclass
class Job:
    number: int          # 1-based game number
    round: int           # 1-based round (one opening pair per pairing)
    pairing: tuple       # (first engine index, second engine index)
    game_in_pair: int    # 0: first engine has white, 1: colours swapped
    white: int
    black: int


@dataclass
class GameResult:
    job: Job
    result: str                       # "1-0", "0-1", "1/2-1/2" or "*" (aborted)
    termination: str                  # PGN Termination tag
    reason: str                       # human-readable reason
    failure: Optional[tuple] = None   # (engine index, kind) for time/illegal/crash/unresponsive
    pgn: str = ""
    plies: int = 0
    duration: float = 0.0
    extra_failures: list = field(default_factory=list)   # (engine index, kind) not deciding the game


COLOR_NAME = {chess.WHITE: "White", chess.BLACK: "Black"}


def fmt_secs(s: float) -> str:
    return f"{s:.3f}s"


class Match:
    def __init__(self, args, engines: list, book, pairings: list, total_pairs_per_pairing: Optional[int],
                 games_per_pairing: Optional[int], log: Logger):
        self.args = args
        self.engines = engines
        self.book = book
        self.pairings = pairings
        self.pairs_per_pairing = total_pairs_per_pairing
        self.games_per_pairing = games_per_pairing
        self.log = log
        self.stop = threading.Event()
        self.fatal: Optional[str] = None
        self.job_lock = threading.Lock()
        self.job_iter = self._jobs()
        self.results: queue.Queue = queue.Queue()
        self.draw = args.draw_adj
        self.resign = args.resign_adj

    # -- scheduling ---------------------------------------------------------
    def _jobs(self):
        number = 0
        rnd = 0
        while self.pairs_per_pairing is None or rnd < self.pairs_per_pairing:
            rnd += 1
            for (a, b) in self.pairings:
                for g in (0, 1):
                    if self.games_per_pairing is not None and (rnd - 1) * 2 + g >= self.games_per_pairing:
                        continue
                    number += 1
                    white, black = (a, b) if g == 0 else (b, a)
                    yield Job(number, rnd, (a, b), g, white, black)

    def next_job(self) -> Optional[Job]:
        with self.job_lock:
            if self.stop.is_set():
                return None
            return next(self.job_iter, None)

    # -- worker ---------------------------------------------------------------
    def worker(self, wid: int):
        pool: dict = {}
        start_failures = {}
        tb = None
        if self.args.tb:
            tb = chess.syzygy.open_tablebase(self.args.tb)
        try:
            while not self.stop.is_set():
                job = self.next_job()
                if job is None:
                    break
                players = {}
                start_error = None
                for color, idx in ((chess.WHITE, job.white), (chess.BLACK, job.black)):
                    eng = pool.get(idx)
                    try:
                        if eng is None or not eng.alive():
                            if eng is not None:
                                eng.kill()
                            eng = UciEngine(self.engines[idx], self.log, f"w{wid}:{self.engines[idx].name}",
                                            self.args.uci_timeout, self.args.chess960)
                            pool[idx] = eng
                            eng.start()
                        eng.new_game()
                        start_failures[idx] = 0
                    except EngineFailure as e:
                        eng.kill()
                        pool.pop(idx, None)
                        start_failures[idx] = start_failures.get(idx, 0) + 1
                        if start_failures[idx] >= 3:
                            self.fatal = f"{self.engines[idx].name} failed to start 3 times in a row: {e}"
                            self.stop.set()
                        if start_error is None:
                            start_error = (color, idx, e)
                    players[color] = eng
                if start_error is not None:
                    color, idx, e = start_error
                    res = self._forfeit_result(job, color, idx, e)
                else:
                    res = self.play(job, players, tb)
                for idx in (job.white, job.black):
                    eng = pool.get(idx)
                    if eng is not None and not eng.alive():
                        eng.kill()
                        pool.pop(idx, None)
                for idx, _kind in ([res.failure] if res.failure else []) + res.extra_failures:
                    if _kind in ("crash", "unresponsive") and idx in pool:
                        pool.pop(idx).kill()
                self.results.put(res)
        except Exception as e:  # noqa: BLE001 - report unexpected bugs instead of hanging
            import traceback
            traceback.print_exc()
            self.fatal = f"worker {wid} failed: {e!r}"
            self.stop.set()
        finally:
            for eng in pool.values():
                eng.quit()
            if tb is not None:
                tb.close()
            self.results.put(None)

    def _forfeit_result(self, job: Job, color, idx, e: EngineFailure) -> GameResult:
        result = "0-1" if color == chess.WHITE else "1-0"
        kind = e.kind
        reason = f"{COLOR_NAME[color]} engine failed to start ({e})" if kind == "crash" else \
            f"{COLOR_NAME[color]} engine does not respond ({e})"
        opening = self.book.get(job.round - 1)
        game = self._pgn_game(job, opening)
        game.headers["Result"] = result
        game.headers["Termination"] = "abandoned"
        game.comment = reason
        return GameResult(job, result, "abandoned", reason, (idx, kind), self._export(game), 0)

    # -- PGN ------------------------------------------------------------------
    def _pgn_game(self, job: Job, opening: Opening) -> chess.pgn.Game:
        game = chess.pgn.Game()
        h = game.headers
        h["Event"] = self.args.event
        h["Site"] = self.args.site
        h["Date"] = datetime.date.today().strftime("%Y.%m.%d")
        h["Round"] = str(job.round)
        h["White"] = self.engines[job.white].name
        h["Black"] = self.engines[job.black].name
        h["Result"] = "*"
        game.setup(opening.board)
        lw, lb = self.engines[job.white].limits, self.engines[job.black].limits
        if lw.pgn_tag() == lb.pgn_tag():
            h["TimeControl"] = lw.pgn_tag()
        else:
            h["WhiteTimeControl"] = lw.pgn_tag()
            h["BlackTimeControl"] = lb.pgn_tag()
        return game

    @staticmethod
    def _export(game: chess.pgn.Game) -> str:
        exporter = chess.pgn.StringExporter(headers=True, variations=True, comments=True)
        text = game.accept(exporter)
        # cutechess-style comments without inner padding: {+0.35/12 0.512s}
        head, sep, body = text.partition("\n\n")
        return head + sep + body.replace("{ ", "{").replace(" }", "}")

    # -- one game ---------------------------------------------------------------
    def _go_command(self, cfg: dict, side, clocks, moves_made) -> tuple:
        """(go command, flag time in ms or None, hard timeout in ms) for the
        side to move; cfg maps colour -> EngineConfig."""
        lim = cfg[side].limits
        a = self.args
        parts = ["go"]
        flag_ms = None
        if lim.has_clock:
            lw = cfg[chess.WHITE].limits
            lb = cfg[chess.BLACK].limits
            parts += ["wtime", str(max(1, int(clocks[chess.WHITE]))),
                      "btime", str(max(1, int(clocks[chess.BLACK]))),
                      "winc", str(lw.inc_ms if lw.has_clock else 0),
                      "binc", str(lb.inc_ms if lb.has_clock else 0)]
            if lim.moves:
                parts += ["movestogo", str(lim.moves - moves_made[side] % lim.moves)]
            flag_ms = clocks[side] + a.timemargin
            hard_ms = flag_ms + a.grace
        elif lim.movetime is not None:
            parts += ["movetime", str(lim.movetime)]
            flag_ms = lim.movetime + a.timemargin
            hard_ms = max(5 * lim.movetime, flag_ms + a.grace)
        else:
            hard_ms = a.move_timeout * 1000
        if lim.nodes is not None:
            parts += ["nodes", str(lim.nodes)]
        if lim.depth is not None:
            parts += ["depth", str(lim.depth)]
        return " ".join(parts), flag_ms, hard_ms

    def _wait_bestmove(self, eng: UciEngine, t0: float, flag_ms, hard_ms, info: SearchInfo):
        """Wait for bestmove.  Returns (tokens, t_received, flagged).  Raises
        EngineFailure on EOF or when the hard deadline passes, or returns None
        if the match is being stopped."""
        flag_at = t0 + flag_ms / 1000.0 if flag_ms is not None else None
        hard_at = t0 + hard_ms / 1000.0
        stop_sent = False
        while True:
            now = time.monotonic()
            if self.stop.is_set():
                return None
            if flag_at is not None and not stop_sent and now >= flag_at:
                eng.send("stop")     # the side has lost on time; make it answer
                stop_sent = True
            if now >= hard_at:
                raise EngineFailure("unresponsive", f"{eng.cfg.name}: no bestmove within "
                                    f"{hard_ms / 1000:.1f} s")
            until = hard_at
            if flag_at is not None and not stop_sent:
                until = min(until, flag_at)
            answer = eng.poll_search(min(until - now, 0.25), info)
            if answer is not None:
                ts, tokens = answer
                return tokens, ts, stop_sent

    def play(self, job: Job, players: dict, tb) -> GameResult:
        a = self.args
        c960 = a.chess960
        opening = self.book.get(job.round - 1)
        cfg = {chess.WHITE: self.engines[job.white], chess.BLACK: self.engines[job.black]}
        board = opening.board.copy()
        root_fen = board.fen()
        startpos = (not c960) and root_fen == chess.STARTING_FEN
        uci_moves = []
        game = self._pgn_game(job, opening)
        node = game
        for mv in opening.moves:
            uci_moves.append(board.uci(mv, chess960=c960))
            board.push(mv)
            node = node.add_variation(mv, comment="book")
        clocks = {c: float(cfg[c].limits.base_ms or 0) for c in (chess.WHITE, chess.BLACK)}
        moves_made = {chess.WHITE: 0, chess.BLACK: 0}
        last_cp = {chess.WHITE: [], chess.BLACK: []}     # per side: recent scores (own view)
        draw_count = 0
        pending_ponder = {chess.WHITE: None, chess.BLACK: None}
        start_time = time.monotonic()
        result = termination = reason = None
        failure = None
        extra = []

        def position_cmd(moves):
            base = "position startpos" if startpos else f"position fen {root_fen}"
            return base + (" moves " + " ".join(moves) if moves else "")

        def lose(side, term, why, kind=None, idx=None):
            nonlocal result, termination, reason, failure
            result = "0-1" if side == chess.WHITE else "1-0"
            termination, reason = term, why
            if kind:
                failure = (idx, kind)

        def go_command(side):
            return self._go_command(cfg, side, clocks, moves_made)

        while True:
            # ---- end of game by the rules ----
            outcome = board.outcome(claim_draw=False)
            if outcome is not None:
                term = "normal"
                if outcome.termination == chess.Termination.CHECKMATE:
                    result = "1-0" if outcome.winner == chess.WHITE else "0-1"
                    why = f"{COLOR_NAME[outcome.winner]} mates"
                else:
                    result = "1/2-1/2"
                    why = {chess.Termination.STALEMATE: "Draw by stalemate",
                           chess.Termination.INSUFFICIENT_MATERIAL: "Draw by insufficient mating material",
                           chess.Termination.SEVENTYFIVE_MOVES: "Draw by 75-move rule",
                           chess.Termination.FIVEFOLD_REPETITION: "Draw by 5-fold repetition",
                           }.get(outcome.termination, "Draw")
                termination, reason = term, why
                break
            if board.is_repetition(3):
                result, termination, reason = "1/2-1/2", "normal", "Draw by 3-fold repetition"
                break
            if board.is_fifty_moves():
                result, termination, reason = "1/2-1/2", "normal", "Draw by fifty moves rule"
                break
            # ---- adjudication ----
            if tb is not None and not board.castling_rights and \
                    chess.popcount(board.occupied) <= a.tb_pieces:
                try:
                    wdl = tb.probe_wdl(board)
                except (KeyError, IndexError, ValueError, OSError):
                    wdl = None
                if wdl is not None:
                    termination = "adjudication"
                    if wdl == 2:
                        result = "1-0" if board.turn == chess.WHITE else "0-1"
                        reason = f"{COLOR_NAME[board.turn]} wins by TB adjudication"
                    elif wdl == -2:
                        result = "0-1" if board.turn == chess.WHITE else "1-0"
                        reason = f"{COLOR_NAME[not board.turn]} wins by TB adjudication"
                    else:
                        result, reason = "1/2-1/2", "Draw by TB adjudication"
                    break
            if a.maxmoves and len(board.move_stack) >= 2 * a.maxmoves:
                result, termination, reason = "1/2-1/2", "adjudication", "Draw by maximum game length"
                break
            if self.draw and draw_count >= 2 * self.draw["movecount"]:
                result, termination, reason = "1/2-1/2", "adjudication", "Draw by adjudication"
                break
            if self.resign:
                n = self.resign["movecount"]
                thr = self.resign["score"]
                done = False
                for side in (chess.WHITE, chess.BLACK):
                    own = last_cp[side][-n:]
                    opp = last_cp[not side][-n:]
                    if len(own) == n and all(s is not None and s <= -thr for s in own):
                        if not self.resign["twosided"] or (
                                len(opp) == n and all(s is not None and s >= thr for s in opp)):
                            result = "0-1" if side == chess.WHITE else "1-0"
                            termination = "adjudication"
                            reason = f"{COLOR_NAME[side]} resigns (adjudication)"
                            done = True
                            break
                if done:
                    break
            if self.stop.is_set():
                result = "*"
                termination, reason = "unterminated", "match stopped"
                break

            side = board.turn
            eng = players[side]
            idx = cfg[side].index
            other = players[not side]
            info = SearchInfo()
            try:
                # ---- let the opponent ponder on its expected move ----
                pp = pending_ponder[not side]
                pending_ponder[not side] = None
                if pp is not None and other.ponder_ok and board.is_legal(pp):
                    b2 = board.copy(stack=False)
                    ponder_uci = board.uci(pp, chess960=c960)
                    b2.push(pp)
                    if b2.outcome(claim_draw=False) is None:
                        go, _, _ = go_command(not side)
                        other.send(position_cmd(uci_moves + [ponder_uci]))
                        other.send(go.replace("go", "go ponder", 1))
                        other.pondering = pp
                        other.ponder_info = SearchInfo()
                # ---- our own move ----
                go, flag_ms, hard_ms = go_command(side)
                if eng.pondering is not None:
                    last = board.peek() if board.move_stack else None
                    if last == eng.pondering:
                        t0 = time.monotonic()   # taken before the write: the reply
                        eng.send("ponderhit")   # can be read before send() returns
                        info = eng.ponder_info
                        eng.pondering = None
                    else:
                        eng.stop_and_discard(a.grace / 1000.0)
                        t0 = None
                else:
                    t0 = None
                if t0 is None:
                    eng.drain()
                    eng.send(position_cmd(uci_moves))
                    t0 = time.monotonic()
                    eng.send(go)
                got = self._wait_bestmove(eng, t0, flag_ms, hard_ms, info)
            except EngineFailure as e:
                # A failure of the pondering opponent while sending it commands
                # is attributed correctly by checking which engine died.
                culprit = side
                if not other.alive() and eng.alive():
                    culprit = not side
                cidx = cfg[culprit].index
                if e.kind == "crash":
                    lose(culprit, "abandoned", f"{COLOR_NAME[culprit]}'s engine crashed: {e}", "crash", cidx)
                else:
                    lose(culprit, "abandoned", f"{COLOR_NAME[culprit]}'s engine stopped responding: {e}",
                         "unresponsive", cidx)
                break
            if got is None:      # match stopped
                try:
                    eng.stop_and_discard(1.0)
                except EngineFailure:
                    pass
                result, termination, reason = "*", "unterminated", "match stopped"
                break
            tokens, t_recv, _stop_sent = got
            elapsed_ms = (t_recv - t0) * 1000.0
            # ---- clocks ----
            lim = cfg[side].limits
            timed_out = False
            if lim.has_clock:
                clocks[side] -= elapsed_ms
                timed_out = clocks[side] < -a.timemargin
            elif lim.movetime is not None:
                timed_out = elapsed_ms > lim.movetime + a.timemargin
            # Decided on the measured time only (a `stop` sent at the flag may
            # cross a bestmove that was already on its way).
            if timed_out:
                if board.has_insufficient_material(not side):
                    result, termination = "1/2-1/2", "time forfeit"
                    reason = f"Draw by timeout vs insufficient material ({COLOR_NAME[side]} flagged)"
                    extra.append((idx, "time"))
                else:
                    lose(side, "time forfeit", f"{COLOR_NAME[side]} loses on time "
                         f"({elapsed_ms / 1000:.3f}s used)", "time", idx)
                break
            # ---- the move ----
            mv_str = tokens[1] if len(tokens) > 1 else ""
            try:
                move = board.parse_uci(mv_str)
            except ValueError:
                move = None
            if move is None or move not in board.legal_moves:
                lose(side, "illegal move", f"{COLOR_NAME[side]} makes an illegal move: {mv_str or '(none)'}",
                     "illegal", idx)
                break
            if lim.has_clock:
                clocks[side] += lim.inc_ms
                moves_made[side] += 1
                if lim.moves and moves_made[side] % lim.moves == 0:
                    clocks[side] += lim.base_ms
            else:
                moves_made[side] += 1
            # pondering on the reply
            if eng.ponder_ok and len(tokens) >= 4 and tokens[2] == "ponder":
                b2 = board.copy(stack=False)
                b2.push(move)
                try:
                    pending_ponder[side] = b2.parse_uci(tokens[3])
                except ValueError:
                    pending_ponder[side] = None
            cp = info.cp()
            last_cp[side].append(cp)
            if self.draw:
                if cp is not None and abs(cp) <= self.draw["score"] and \
                        board.fullmove_number >= self.draw["movenumber"]:
                    draw_count += 1
                else:
                    draw_count = 0
            comment = info.comment_score()
            comment = f"{comment} {fmt_secs(elapsed_ms / 1000)}" if comment else fmt_secs(elapsed_ms / 1000)
            uci_moves.append(board.uci(move, chess960=c960))
            board.push(move)
            node = node.add_variation(move, comment=comment)

        # ---- stop a pondering engine ----
        for c in (chess.WHITE, chess.BLACK):
            e = players[c]
            if e.pondering is not None and e.alive():
                try:
                    e.stop_and_discard(a.grace / 1000.0)
                except EngineFailure as ex:
                    extra.append((cfg[c].index, ex.kind))
        game.headers["Result"] = result
        game.headers["Termination"] = termination
        game.headers["PlyCount"] = str(len(board.move_stack))
        game.headers["GameDuration"] = time.strftime("%H:%M:%S", time.gmtime(time.monotonic() - start_time))
        if node is game or node.comment == "book":
            game.comment = reason
        else:
            node.comment = f"{node.comment}, {reason}" if node.comment else reason
        return GameResult(job, result, termination, reason, failure, self._export(game) if result != "*" else "",
                          len(board.move_stack), time.monotonic() - start_time, extra)


# ---------------------------------------------------------------------------
# Results bookkeeping
# ---------------------------------------------------------------------------

class PairingStats:
    def __init__(self, a: int, b: int):
        self.a, self.b = a, b
        self.w = self.d = self.l = 0
        self.penta = [0, 0, 0, 0, 0]     # LL, LD, DD+WL, WD, WW
        self.dd = self.wl = 0
        self.open_pairs: dict = {}

    @property
    def games(self):
        return self.w + self.d + self.l

    @property
    def pairs(self):
        return sum(self.penta)

    def add(self, round_no: int, score_a: float):
        if score_a == 1.0:
            self.w += 1
        elif score_a == 0.0:
            self.l += 1
        else:
            self.d += 1
        lst = self.open_pairs.setdefault(round_no, [])
        lst.append(score_a)
        if len(lst) == 2:
            del self.open_pairs[round_no]
            total = lst[0] + lst[1]
            self.penta[int(round(total * 2))] += 1
            if total == 1.0:
                if lst[0] == 0.5:
                    self.dd += 1
                else:
                    self.wl += 1

    def estimate(self) -> stats.EloEstimate:
        if self.pairs > 0 and 2 * self.pairs == self.games:
            return stats.pentanomial(self.penta)
        return stats.trinomial(self.w, self.d, self.l)


def score_for(result: str, white_is_a: bool) -> Optional[float]:
    s = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}.get(result)
    if s is None:
        return None
    return s if white_is_a else 1.0 - s


FAILURE_KINDS = ("time", "illegal", "crash", "unresponsive")
FAILURE_LABEL = {"time": "time forfeits", "illegal": "illegal moves", "crash": "crashes",
                 "unresponsive": "unresponsive"}


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="match.py",
        description="Play UCI engines against each other (match, round-robin or gauntlet) "
                    "with real clocks, opening pairs, PGN output, adjudication and SPRT.",
        epilog=USAGE_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--engine", nargs="+", action="append", metavar="KEY=VALUE", default=[],
                   help="an engine: cmd=PATH [name=NAME] [dir=DIR] [args=ARGS] [option.NAME=VALUE ...] "
                        "[tc=..] [movetime=..] [nodes=..] [depth=..] [ponder=true]; repeat for each engine")
    p.add_argument("--each", nargs="+", metavar="KEY=VALUE", default=[],
                   help="keys applied to every engine, e.g. option.Hash=16 option.Threads=1")
    p.add_argument("--gauntlet", action="store_true",
                   help="first engine plays every other engine (default with >2 engines: round-robin)")
    g = p.add_argument_group("time control")
    g.add_argument("--tc", help="clock: BASE[+INC] or MOVES/BASE[+INC], seconds (BASE may be m:ss)")
    g.add_argument("--movetime", type=int, metavar="MS", help="fixed time per move in milliseconds")
    g.add_argument("--nodes", type=int, metavar="N", help="node limit per move")
    g.add_argument("--depth", type=int, metavar="N", help="depth limit per move")
    g.add_argument("--timemargin", type=int, default=50, metavar="MS",
                   help="a clock may go this far below zero before the side loses on time (default 50)")
    g.add_argument("--grace", type=int, default=5000, metavar="MS",
                   help="after flagging, wait this long for bestmove before declaring the engine "
                        "unresponsive (default 5000)")
    g.add_argument("--move-timeout", type=float, default=60.0, metavar="SEC",
                   help="unresponsive limit per move with only nodes/depth limits (default 60)")
    g.add_argument("--uci-timeout", type=float, default=30.0, metavar="SEC",
                   help="limit for uci/isready handshakes (default 30)")
    g.add_argument("--ponder", action="store_true",
                   help="let engines ponder (go ponder / ponderhit); each game then keeps both engines busy")
    g = p.add_argument_group("games")
    g.add_argument("--games", type=int, help="games per pairing (pairs of games, colours swapped)")
    g.add_argument("--rounds", type=int, help="rounds; a round plays one opening twice per pairing")
    g.add_argument("--concurrency", type=int, default=1, help="games played at the same time (default 1)")
    g.add_argument("--openings", nargs="+", metavar="KEY=VALUE",
                   help="file=PATH format=epd|pgn order=sequential|random plies=N start=K")
    g.add_argument("--seed", type=int, help="seed for random opening order / Chess960 positions")
    g.add_argument("--variant", choices=("standard", "fischerandom", "chess960"), default="standard")
    g.add_argument("--chess960", action="store_true", help="same as --variant fischerandom")
    g = p.add_argument_group("adjudication (off by default)")
    g.add_argument("--draw", nargs="+", metavar="KEY=VALUE", help="movenumber=N movecount=M score=CP")
    g.add_argument("--resign", nargs="+", metavar="KEY=VALUE", help="movecount=M score=CP [twosided=true]")
    g.add_argument("--maxmoves", type=int, metavar="N", help="adjudicate a draw after N full moves")
    g.add_argument("--tb", metavar="DIR", help="Syzygy tablebases for adjudication")
    g.add_argument("--tb-pieces", type=int, default=7, metavar="N", help="max pieces for TB adjudication")
    g = p.add_argument_group("statistics and output")
    g.add_argument("--sprt", nargs="+", metavar="KEY=VALUE",
                   help="elo0=E0 elo1=E1 [alpha=0.05] [beta=0.05] [model=normalized|logistic]; "
                        "stops when a bound is crossed (two engines only)")
    g.add_argument("--pgn", metavar="FILE", help="append finished games to this PGN file")
    g.add_argument("--json", metavar="FILE", help="write the final results as JSON")
    g.add_argument("--log", metavar="FILE", help="log all UCI traffic with timestamps")
    g.add_argument("--no-pause-generator", action="store_true",
                   help="leave the self-play generator (tools/selfplay.py) running during a "
                        "clocked match (by default it is paused while the games run)")
    g.add_argument("--event", default="Kiraly match", help="PGN Event tag")
    g.add_argument("--site", default="?", help="PGN Site tag")
    g.add_argument("--quiet", action="store_true", help="no per-game lines, only the summary")
    return p


def resolve_cmd(cmd: str, workdir: Optional[str]) -> list:
    if os.path.exists(cmd):
        return [os.path.abspath(cmd)]
    parts = shlex.split(cmd)
    if not parts:
        raise UsageError("empty engine command")
    exe = parts[0]
    if os.sep in exe:
        if not os.path.isabs(exe) and not (workdir and os.path.exists(os.path.join(workdir, exe))):
            exe = os.path.abspath(exe)
    else:
        found = shutil.which(exe) or (shutil.which(exe, path="/usr/games") if os.path.isdir("/usr/games") else None)
        if found:
            exe = found
    return [exe] + parts[1:]


def configure(args):
    if args.chess960 or args.variant in ("fischerandom", "chess960"):
        args.chess960 = True
    if len(args.engine) < 2:
        raise UsageError("need at least two --engine")
    each = parse_kv(args.each, "--each")
    global_limits = {"tc": args.tc, "movetime": args.movetime and str(args.movetime),
                     "nodes": args.nodes and str(args.nodes), "depth": args.depth and str(args.depth)}
    engines = []
    for i, toks in enumerate(args.engine):
        kv = dict(each)
        kv.update(parse_kv(toks, "--engine"))
        if "cmd" not in kv:
            raise UsageError("--engine needs cmd=PATH")
        workdir = kv.get("dir")
        cmd = resolve_cmd(kv["cmd"], workdir)
        if kv.get("args"):
            cmd += shlex.split(kv["args"])
        options = {k[7:]: v for k, v in kv.items() if k.startswith("option.")}
        unknown = [k for k in kv if not k.startswith("option.") and
                   k not in ("cmd", "name", "dir", "args", "tc", "movetime", "nodes", "depth", "ponder")]
        if unknown:
            raise UsageError(f"unknown engine key(s): {', '.join(unknown)}")
        lim_d = dict(global_limits)
        for k in ("tc", "movetime", "nodes", "depth"):
            if k in kv:
                lim_d[k] = kv[k]
        if "tc" in kv and "movetime" not in kv:
            lim_d["movetime"] = None
        if "movetime" in kv and "tc" not in kv:
            lim_d["tc"] = None
        limits = build_limits(lim_d)
        ponder = parse_bool(kv["ponder"]) if "ponder" in kv else args.ponder
        engines.append(EngineConfig(i, kv.get("name", ""), cmd, workdir, options, limits, ponder))

    def adj(tokens, keys, what):
        if not tokens:
            return None
        kv = parse_kv(tokens, what)
        for k in kv:
            if k not in keys:
                raise UsageError(f"{what}: unknown key {k}")
        return kv

    d = adj(args.draw, ("movenumber", "movecount", "score"), "--draw")
    if d is not None:
        try:
            args.draw_adj = {"movenumber": int(d.get("movenumber", 0)), "movecount": int(d["movecount"]),
                             "score": int(d["score"])}
        except KeyError as e:
            raise UsageError(f"--draw needs {e.args[0]}=") from None
    else:
        args.draw_adj = None
    r = adj(args.resign, ("movecount", "score", "twosided"), "--resign")
    if r is not None:
        try:
            args.resign_adj = {"movecount": int(r["movecount"]), "score": int(r["score"]),
                               "twosided": parse_bool(r.get("twosided", "false"))}
        except KeyError as e:
            raise UsageError(f"--resign needs {e.args[0]}=") from None
    else:
        args.resign_adj = None
    s = adj(args.sprt, ("elo0", "elo1", "alpha", "beta", "model"), "--sprt")
    if s is not None:
        if len(engines) != 2:
            raise UsageError("--sprt needs exactly two engines")
        try:
            args.sprt_obj = stats.SPRT(float(s["elo0"]), float(s["elo1"]), float(s.get("alpha", 0.05)),
                                       float(s.get("beta", 0.05)), s.get("model", "normalized"))
        except KeyError as e:
            raise UsageError(f"--sprt needs {e.args[0]}=") from None
        except ValueError as e:
            raise UsageError(str(e)) from None
    else:
        args.sprt_obj = None
    if args.concurrency < 1:
        raise UsageError("--concurrency must be >= 1")
    if args.timemargin < 0 or args.grace < 0:
        raise UsageError("--timemargin and --grace must be >= 0")
    return engines


def probe_engines(engines, args, log):
    """Start each engine once: check it speaks UCI, learn its name and options."""
    for cfg in engines:
        eng = UciEngine(cfg, log, f"probe:{cfg.index}", args.uci_timeout, args.chess960)
        try:
            eng.start(warn=True)
        except EngineFailure as e:
            eng.kill()
            raise UsageError(f"engine #{cfg.index + 1} ({' '.join(cfg.cmd)}) does not start: {e}") from None
        if not cfg.name:
            cfg.name = eng.id_name or os.path.basename(cfg.cmd[0])
        if args.chess960 and "uci_chess960" not in eng.options:
            print(f"warning: {cfg.name} does not declare UCI_Chess960", file=sys.stderr)
        if cfg.ponder and not eng.ponder_ok:
            print(f"warning: {cfg.name} has no Ponder option; it will not ponder", file=sys.stderr)
        eng.quit()
    seen = {}
    for cfg in engines:
        seen[cfg.name] = seen.get(cfg.name, 0) + 1
    count = {}
    for cfg in engines:
        if seen[cfg.name] > 1:
            count[cfg.name] = count.get(cfg.name, 0) + 1
            cfg.name = f"{cfg.name} #{count[cfg.name]}"


def progress_line(ps: PairingStats, names, sprt) -> str:
    est = ps.estimate()
    n = ps.games
    score = (ps.w + 0.5 * ps.d) / n if n else 0.0
    line = (f"Score of {names[ps.a]} vs {names[ps.b]}: W {ps.w} D {ps.d} L {ps.l}  "
            f"[{100 * score:.1f}%] {n}  Elo {est.format_elo()}")
    if sprt is not None:
        llr = sprt.llr(penta=ps.penta, wdl=(ps.w, ps.d, ps.l))
        line += f"  LLR {llr:+.2f} ({sprt.lower:.2f}, {sprt.upper:.2f})"
    return line


def summary(pstats, names, engines, failures, args, sprt_state, standings) -> tuple:
    out = []
    js = {"pairings": [], "engines": {}, "sprt": None}
    for ps in pstats.values():
        est = ps.estimate()
        n = ps.games
        score = (ps.w + 0.5 * ps.d) / n if n else float("nan")
        a, b = names[ps.a], names[ps.b]
        out.append("")
        out.append(f"Results of {a} vs {b} ({engines[ps.a].limits.describe()}"
                   + (f" vs {engines[ps.b].limits.describe()}"
                      if engines[ps.b].limits.describe() != engines[ps.a].limits.describe() else "") + "):")
        out.append(f"  Games: {n}, Wins: {ps.w}, Draws: {ps.d}, Losses: {ps.l}, "
                   f"Score: {100 * score:.2f} %" if n else "  Games: 0")
        if n:
            out.append(f"  Elo: {est.format_elo()} (95%, {est.model}), nElo: {est.format_nelo()}")
            out.append(f"  LOS: {100 * est.los:.2f} % (W/L only: {100 * stats.los_wl(ps.w, ps.l):.2f} %), "
                       f"DrawRatio: {100 * ps.d / n:.2f} %")
            out.append(f"  Ptnml(0-2) [LL, LD, DD+WL, WD, WW]: {ps.penta}  (DD {ps.dd}, WL {ps.wl}; "
                       f"{ps.pairs} complete pairs)")
        entry = {"first": a, "second": b, "games": n, "wins": ps.w, "draws": ps.d, "losses": ps.l,
                 "pentanomial": ps.penta, "dd": ps.dd, "wl": ps.wl, "model": est.model,
                 "score": score if n else None,
                 "elo": est.elo, "elo_error": est.elo_error, "nelo": est.nelo, "nelo_error": est.nelo_error,
                 "los": est.los, "los_wl": stats.los_wl(ps.w, ps.l)}
        if args.sprt_obj is not None:
            sp = args.sprt_obj
            llr = sp.llr(penta=ps.penta, wdl=(ps.w, ps.d, ps.l))
            verdict = sprt_state.get("decision")
            out.append(f"  SPRT: LLR {llr:.2f} ({sp.lower:.2f}, {sp.upper:.2f}) [{sp.elo0:.2f}, {sp.elo1:.2f}] "
                       f"{sp.model} -> " + (f"{verdict} accepted" if verdict else "no decision"))
            js["sprt"] = {"llr": llr, "lower": sp.lower, "upper": sp.upper, "elo0": sp.elo0, "elo1": sp.elo1,
                          "model": sp.model, "decision": verdict}
        js["pairings"].append({k: (None if isinstance(v, float) and not math.isfinite(v) else v)
                               for k, v in entry.items()})
    if len(engines) > 2:
        out.append("")
        out.append("Standings:")
        order = sorted(range(len(engines)), key=lambda i: -standings[i][0])
        for rank, i in enumerate(order, 1):
            pts, g = standings[i]
            pct = f"{100 * pts / g:.1f} %" if g else "-"
            out.append(f"  {rank:2d}. {names[i]:<24} {pts:6.1f} / {g:<5d} {pct}")
    out.append("")
    out.append("Failures per engine:")
    for i, cfg in enumerate(engines):
        f = failures[i]
        out.append(f"  {names[i]}: " + ", ".join(f"{FAILURE_LABEL[k]} {f[k]}" for k in FAILURE_KINDS))
        js["engines"][names[i]] = {"failures": dict(f), "points": standings[i][0], "games": standings[i][1]}
    return "\n".join(out), js


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


def main(argv=None) -> int:
    # Engine output is time-stamped by reader threads; a short GIL switch
    # interval keeps the delay between a line's arrival and its timestamp
    # well below a millisecond even with several games running.
    sys.setswitchinterval(0.0005)
    # Ctrl-C and SIGTERM stop the games and print the summary (SIGINT is
    # re-armed because shells start background jobs with it ignored).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _raise_interrupt)
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        engines = configure(args)
    except UsageError as e:
        parser.error(str(e))
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(1 << 31)
    log = Logger(args.log)
    try:
        probe_engines(engines, args, log)
        if args.openings:
            book = OpeningBook(parse_kv(args.openings, "--openings"), args.chess960, args.seed)
        elif args.chess960:
            book = RandomChess960(args.seed)
        else:
            book = StartPosition()
        book.get(0)
    except (UsageError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2

    n = len(engines)
    if n == 2:
        pairings = [(0, 1)]
    elif args.gauntlet:
        pairings = [(0, i) for i in range(1, n)]
    else:
        pairings = [(i, j) for i in range(n) for j in range(i + 1, n)]
    games_per = args.games
    rounds = args.rounds
    if games_per is not None and rounds is not None:
        parser.error("give --games or --rounds, not both")
    if games_per is not None:
        rounds = (games_per + 1) // 2
    elif rounds is None and args.sprt_obj is None:
        rounds = 1
    total_games = None if rounds is None else sum(
        min(2, (games_per if games_per is not None else 2 * rounds) - 2 * r) * len(pairings)
        for r in range(rounds))

    busy = args.concurrency * (2 if any(e.ponder for e in engines) else 1)
    if busy > (os.cpu_count() or 1):
        print(f"warning: up to {busy} engines may think at once on {os.cpu_count()} cores", file=sys.stderr)

    names = [e.name for e in engines]
    print(f"Match: {', '.join(names)}; {'gauntlet' if args.gauntlet and n > 2 else 'round-robin' if n > 2 else 'match'}"
          f", {total_games if total_games is not None else 'unlimited (SPRT)'} games, "
          f"concurrency {args.concurrency}, seed {args.seed}")
    for e in engines:
        print(f"  {e.name}: {' '.join(e.cmd)}  [{e.limits.describe()}]"
              + (f" options {e.options}" if e.options else ""))
    if args.sprt_obj is not None:
        print(f"SPRT: {args.sprt_obj.describe()}")
    sys.stdout.flush()

    # Clocked games are timed work: a running self-play generator is paused
    # for as long as they run (node- and depth-limited games need no pause).
    clocked = any(e.limits.has_clock or e.limits.movetime is not None for e in engines)
    generator_pause = contextlib.ExitStack()
    if generator_pause.enter_context(selfplay.hold("match", clocked and not args.no_pause_generator)):
        print("Self-play generator paused for the match")
    match = Match(args, engines, book, pairings, rounds, games_per, log)
    pstats = {p: PairingStats(*p) for p in pairings}
    failures = {i: {k: 0 for k in FAILURE_KINDS} for i in range(n)}
    standings = {i: [0.0, 0] for i in range(n)}
    sprt_state = {"decision": None}
    pgn_file = open(args.pgn, "a", encoding="utf-8") if args.pgn else None
    workers = [threading.Thread(target=match.worker, args=(w,), daemon=True) for w in range(args.concurrency)]
    for t in workers:
        t.start()
    finished_workers = 0
    interrupted = False
    counters = {"played": 0, "late": 0}

    def handle(res: GameResult):
        if res.result == "*":
            return
        if sprt_state["decision"] is not None:
            counters["late"] += 1        # finished after the SPRT decision: not counted
            return
        counters["played"] += 1
        job = res.job
        ps = pstats[job.pairing]
        s = score_for(res.result, job.white == job.pairing[0])
        ps.add(job.round, s)
        standings[job.pairing[0]][0] += s
        standings[job.pairing[1]][0] += 1.0 - s
        standings[job.pairing[0]][1] += 1
        standings[job.pairing[1]][1] += 1
        for idx, kind in ([res.failure] if res.failure else []) + res.extra_failures:
            failures[idx][kind] += 1
        if pgn_file:
            pgn_file.write(res.pgn + "\n\n")
            pgn_file.flush()
        if not args.quiet:
            print(f"Finished game {job.number} ({names[job.white]} vs {names[job.black]}): "
                  f"{res.result} {{{res.reason}}}")
            print(progress_line(ps, names, args.sprt_obj))
            sys.stdout.flush()
        if args.sprt_obj is not None and sprt_state["decision"] is None:
            sp = args.sprt_obj
            decision = sp.decision(sp.llr(penta=ps.penta, wdl=(ps.w, ps.d, ps.l)))
            if decision:
                sprt_state["decision"] = decision
                print(f"SPRT: {decision} accepted "
                      f"({'elo1' if decision == 'H1' else 'elo0'} = "
                      f"{sp.elo1 if decision == 'H1' else sp.elo0:g}); stopping")
                match.stop.set()

    try:
        while finished_workers < len(workers):
            try:
                res = match.results.get(timeout=0.5)
            except queue.Empty:
                continue
            if res is None:
                finished_workers += 1
            else:
                handle(res)
    except KeyboardInterrupt:
        interrupted = True
        print("\ninterrupted: stopping games (Ctrl-C again to quit at once)", file=sys.stderr)
        match.stop.set()
        try:
            for t in workers:
                t.join(timeout=15)
        except KeyboardInterrupt:
            pass
        while True:              # games that finished before the interrupt
            try:
                res = match.results.get_nowait()
            except queue.Empty:
                break
            if res is not None:
                handle(res)
    generator_pause.close()
    played, late = counters["played"], counters["late"]
    if pgn_file:
        pgn_file.close()
    text, js = summary(pstats, names, engines, failures, args, sprt_state, standings)
    if late:
        print(f"({late} game(s) that finished after the SPRT decision are not counted)")
    print(text)
    js["games"] = played
    js["interrupted"] = interrupted
    js["seed"] = args.seed
    if match.fatal:
        print(f"error: {match.fatal}", file=sys.stderr)
        js["error"] = match.fatal
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(js, f, indent=2)
    sys.stdout.flush()
    if match.fatal:
        return 1
    return 130 if interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
