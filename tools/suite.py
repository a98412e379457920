#!/usr/bin/env python3
"""EPD test-suite runner for UCI engines (WAC, STS, Arasan, ...).

Each EPD position is searched by one engine process (`ucinewgame` between
positions) with a fixed movetime, depth or node limit, and the engine's final
`bestmove` is scored:

* `bm m1 m2 ...` : solved when the bestmove is one of the listed moves;
* `am m1 ...`    : solved when the bestmove is none of them (both may be given);
* STS `c0 "f5=10, Be5+=2, ..."`: the bestmove earns the listed points (0 if
  not listed); a position with only point scores counts as solved when the
  move gets the maximum.

Prints one line per failed position (all positions with --verbose), then
`solved X / N` and, for suites with point scores, `points P / MAX`, with a
per-group breakdown (the id up to its last '.') for suites like STS.  Moves in
the EPD are SAN (or UCI); python-chess parses them.  Exit status 0 unless the
arguments are wrong or the engine cannot be started at all.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import repo_venv  # noqa: E402

repo_venv.require("chess")

import chess  # noqa: E402
from match import EngineConfig, EngineFailure, Limits, Logger, SearchInfo, UciEngine, resolve_cmd  # noqa: E402

POINTS_RE = re.compile(r"^\s*([^,=\s]+)\s*=\s*(\d+)\s*$")


def parse_points(board: chess.Board, text: str):
    """STS-style 'Move=points, ...' -> {Move: points}, or None if not that format."""
    if not isinstance(text, str) or "=" not in text:
        return None
    out = {}
    for part in text.split(","):
        m = POINTS_RE.match(part)
        if not m:
            return None
        try:
            mv = board.parse_san(m.group(1))
        except ValueError:
            try:
                mv = board.parse_uci(m.group(1))
            except ValueError:
                return None
        out[mv] = max(out.get(mv, 0), int(m.group(2)))
    return out or None


def move_list(board, value):
    if value is None:
        return []
    if isinstance(value, chess.Move):
        return [value]
    if isinstance(value, (list, tuple)):
        return [m for m in value if isinstance(m, chess.Move)]
    return []


def load_suite(path: str, chess960: bool = False):
    positions = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            try:
                board = chess.Board(chess960=chess960)
                ops = board.set_epd(line)
            except ValueError as e:
                print(f"warning: {path}:{lineno}: cannot parse EPD ({e}); skipped", file=sys.stderr)
                continue
            ident = ops.get("id") if isinstance(ops.get("id"), str) else f"#{lineno}"
            bm = move_list(board, ops.get("bm"))
            am = move_list(board, ops.get("am"))
            points = parse_points(board, ops.get("c0"))
            if not bm and not am and not points:
                print(f"warning: {path}:{lineno}: no bm, am or c0 points; skipped", file=sys.stderr)
                continue
            positions.append((ident, board, bm, am, points))
    return positions


def search(eng: UciEngine, board: chess.Board, go: str, timeout: float):
    eng.send("ucinewgame")
    eng.sync()
    eng.send(f"position fen {board.fen()}")
    t0 = time.monotonic()
    eng.send(go)
    info = SearchInfo()
    deadline = t0 + timeout
    stop_sent = False
    while True:
        now = time.monotonic()
        if now >= deadline:
            if stop_sent:
                raise EngineFailure("unresponsive", "no bestmove after stop")
            eng.send("stop")
            stop_sent = True
            deadline = now + 5.0
        answer = eng.poll_search(min(0.25, deadline - now), info)
        if answer is not None:
            ts, tok = answer
            return (tok[1] if len(tok) > 1 else ""), info, ts - t0


def group_of(ident: str) -> str:
    return ident.rsplit(".", 1)[0] if "." in ident else ""


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="example:\n  python3 tools/suite.py --engine ./kiraly --suite "
                                       "engine-tests/data/wac.epd --movetime 200\n"
                                       "  python3 tools/suite.py --engine /usr/games/stockfish --option Hash=64 "
                                       "--suite engine-tests/data/sts.epd --depth 10 --limit 100")
    p.add_argument("--engine", required=True, help="engine command (path, optionally with arguments)")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="UCI option, repeatable (e.g. --option Hash=64)")
    p.add_argument("--threads", type=int, help="shortcut for --option Threads=N")
    p.add_argument("--hash", type=int, help="shortcut for --option Hash=MB")
    p.add_argument("--suite", required=True, help="EPD file")
    lim = p.add_mutually_exclusive_group(required=True)
    lim.add_argument("--movetime", type=int, metavar="MS", help="time per position in milliseconds")
    lim.add_argument("--depth", type=int, help="depth per position")
    lim.add_argument("--nodes", type=int, help="nodes per position")
    p.add_argument("--limit", type=int, metavar="K", help="only the first K positions (after --start)")
    p.add_argument("--start", type=int, default=1, metavar="K", help="first position, 1-based (default 1)")
    p.add_argument("--timeout", type=float, metavar="SEC",
                   help="send stop after this long (default: 5 x movetime + 5 s, else 120 s)")
    p.add_argument("--chess960", action="store_true", help="set UCI_Chess960 and read X-FEN castling")
    p.add_argument("--verbose", "-v", action="store_true", help="print every position, not only failures")
    p.add_argument("--log", metavar="FILE", help="log all UCI traffic")
    args = p.parse_args(argv)

    options = {}
    for o in args.option:
        if "=" not in o:
            p.error(f"--option needs NAME=VALUE, got {o!r}")
        k, v = o.split("=", 1)
        options[k] = v
    if args.threads:
        options["Threads"] = str(args.threads)
    if args.hash:
        options["Hash"] = str(args.hash)
    if args.movetime is not None:
        go = f"go movetime {args.movetime}"
        timeout = args.timeout or (5 * args.movetime / 1000.0 + 5.0)
        limit_desc = f"movetime {args.movetime} ms"
    elif args.depth is not None:
        go = f"go depth {args.depth}"
        timeout = args.timeout or 120.0
        limit_desc = f"depth {args.depth}"
    else:
        go = f"go nodes {args.nodes}"
        timeout = args.timeout or 120.0
        limit_desc = f"nodes {args.nodes}"

    try:
        positions = load_suite(args.suite, args.chess960)
    except OSError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    positions = positions[max(0, args.start - 1):]
    if args.limit is not None:
        positions = positions[:args.limit]

    cfg = EngineConfig(0, "", resolve_cmd(args.engine, None), None, options,
                       Limits(movetime=args.movetime, nodes=args.nodes, depth=args.depth), False)
    log = Logger(args.log)

    def start_engine():
        e = UciEngine(cfg, log, "suite", 30.0, args.chess960)
        e.start()
        return e

    try:
        eng = start_engine()
    except EngineFailure as e:
        print(f"error: cannot start engine: {e}", file=sys.stderr)
        return 2
    name = eng.id_name or os.path.basename(cfg.cmd[0])
    print(f"{name}: {os.path.basename(args.suite)}, {len(positions)} positions, {limit_desc}"
          + (f", options {options}" if options else ""))
    sys.stdout.flush()

    solved = 0
    points = points_max = 0
    groups: dict = {}
    failures = 0
    t_start = time.monotonic()
    for n, (ident, board, bm, am, pts) in enumerate(positions, 1):
        err = None
        try:
            if eng is None:
                eng = start_engine()
            mv_str, info, used = search(eng, board, go, timeout)
        except EngineFailure as e:
            err = f"engine failure ({e.kind}): {e}"
            eng.kill()
            eng = None
            mv_str, info, used = "", SearchInfo(), 0.0
        try:
            move = board.parse_uci(mv_str) if mv_str else None
            if move is not None and move not in board.legal_moves:
                move = None
        except ValueError:
            move = None
        ok = move is not None
        if bm:
            ok = ok and move in bm
        if am:
            ok = ok and move not in am
        got = 0
        best = 0
        if pts:
            best = max(pts.values())
            got = pts.get(move, 0) if move is not None else 0
            points += got
            points_max += best
            if not bm and not am:
                ok = ok and got == best
        solved += ok
        g = groups.setdefault(group_of(ident), [0, 0, 0, 0])
        g[0] += ok
        g[1] += 1
        g[2] += got
        g[3] += best
        if not ok or args.verbose:
            played = board.san(move) if move is not None else (f"illegal {mv_str!r}" if mv_str else "nothing")
            want = []
            if bm:
                want.append("bm " + " ".join(board.san(m) for m in bm))
            if am:
                want.append("am " + " ".join(board.san(m) for m in am))
            if pts and not bm:
                want.append("best " + " ".join(board.san(m) for m, v in pts.items() if v == best))
            extra = f" points {got}/{best}" if pts else ""
            sc = info.comment_score()
            status = "ok  " if ok else "FAIL"
            print(f"{status} {n:4d} {ident}: played {played} ({'; '.join(want)}){extra}"
                  + (f" score {sc}" if sc else "") + f" {used:.2f}s" + (f" [{err}]" if err else ""))
            sys.stdout.flush()
        if not ok:
            failures += 1
    if eng is not None:
        eng.quit()

    total = len(positions)
    elapsed = time.monotonic() - t_start
    named = {k: v for k, v in groups.items() if k}
    if len(named) > 1:
        print("")
        print("per group:")
        width = max(len(k) for k in named)
        for k, (s, c, gp, gm) in groups.items():
            line = f"  {k or '(no id)':<{width}}  solved {s:4d} / {c:<4d}"
            if gm:
                line += f"  points {gp:5d} / {gm:<5d} ({100 * gp / gm:.1f} %)"
            print(line)
    print("")
    pct = f" ({100 * solved / total:.1f} %)" if total else ""
    print(f"solved {solved} / {total}{pct}")
    if points_max:
        print(f"points {points} / {points_max} ({100 * points / points_max:.1f} %)")
    print(f"time {elapsed:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
