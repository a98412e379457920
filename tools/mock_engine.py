#!/usr/bin/env python3
"""A tiny scriptable UCI engine for testing tools/match.py and tools/suite.py.

It plays random legal moves (seeded) and can be told to misbehave:

  --fail illegal|null|crash|hang|slow|none   what to do on its N-th move of a game
                                        (null: `bestmove 0000` with legal moves left)
  --at N                                which of its own moves (1-based, default 1)
  --sleep MS                            thinking time per move (default 0)
  --slow-ms MS                          extra time used by --fail slow (default 2000)
  --score CP                            score reported in `info` (default: random small)
  --seed S                              random seed

Supports go ponder / ponderhit / stop and UCI_Chess960.
"""

import argparse
import random
import sys
import os
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import repo_venv  # noqa: E402

repo_venv.require("chess")

import chess  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--name", default="MockEngine")
    p.add_argument("--fail", default="none", choices=("none", "illegal", "null", "crash", "hang", "slow"))
    p.add_argument("--at", type=int, default=1)
    p.add_argument("--sleep", type=int, default=0)
    p.add_argument("--slow-ms", type=int, default=2000)
    p.add_argument("--score", type=int)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    rng = random.Random(a.seed)
    chess960 = False
    board = chess.Board()
    own_moves = 0
    pondering = False

    def out(s):
        sys.stdout.write(s + "\n")
        sys.stdout.flush()

    def answer():
        nonlocal own_moves
        own_moves += 1
        if own_moves == a.at and a.fail == "crash":
            sys.stderr.write("mock engine: simulated crash\n")
            sys.stderr.flush()
            sys.exit(3)
        if own_moves == a.at and a.fail == "hang":
            time.sleep(3600)
        if a.sleep:
            time.sleep(a.sleep / 1000.0)
        if own_moves == a.at and a.fail == "slow":
            time.sleep(a.slow_ms / 1000.0)
        moves = list(board.legal_moves)
        score = a.score if a.score is not None else rng.randint(-30, 30)
        out(f"info depth 1 seldepth 1 score cp {score} nodes 1 pv")
        if own_moves == a.at and a.fail == "illegal":
            out("bestmove a1h7")      # never legal for any piece
            return
        if own_moves == a.at and a.fail == "null":
            out("bestmove 0000")      # the null move: well formed, never legal
            return
        if not moves:
            out("bestmove 0000")
            return
        mv = rng.choice(moves)
        b2 = board.copy(stack=False)
        b2.push(mv)
        replies = list(b2.legal_moves)
        ponder = f" ponder {b2.uci(rng.choice(replies), chess960=chess960)}" if replies else ""
        out(f"bestmove {board.uci(mv, chess960=chess960)}{ponder}")

    for line in sys.stdin:
        tok = line.split()
        if not tok:
            continue
        cmd = tok[0]
        if cmd == "uci":
            out(f"id name {a.name}")
            out("id author test")
            out("option name Hash type spin default 16 min 1 max 1024")
            out("option name Threads type spin default 1 min 1 max 1")
            out("option name Ponder type check default false")
            out("option name UCI_Chess960 type check default false")
            out("uciok")
        elif cmd == "isready":
            out("readyok")
        elif cmd == "setoption":
            text = " ".join(tok)
            if "UCI_Chess960" in text:
                chess960 = text.endswith("true")
        elif cmd == "ucinewgame":
            own_moves = 0
        elif cmd == "position":
            if tok[1] == "startpos":
                board = chess.Board(chess960=chess960)
                rest = tok[2:]
            else:
                i = tok.index("moves") if "moves" in tok else len(tok)
                board = chess.Board(" ".join(tok[2:i]), chess960=chess960)
                rest = tok[i:]
            if rest and rest[0] == "moves":
                for m in rest[1:]:
                    board.push(board.parse_uci(m))
        elif cmd == "go":
            if "ponder" in tok:
                pondering = True
            else:
                answer()
        elif cmd == "ponderhit":
            if pondering:
                pondering = False
                answer()
        elif cmd == "stop":
            if pondering:
                pondering = False
                moves = list(board.legal_moves)
                out(f"bestmove {board.uci(moves[0], chess960=chess960) if moves else '0000'}")
        elif cmd == "quit":
            break


if __name__ == "__main__":
    main()
