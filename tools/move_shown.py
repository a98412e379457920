#!/usr/bin/env python3
"""The move played is the move shown: checks a tools/match.py --log.

Before every `bestmove` of every engine in the log, the last exact `info`
line sent since its `go` (no `lowerbound`/`upperbound`; the `multipv 1`
line under MultiPV) must have a principal variation that starts with the
move played: GUIs show that line, and match runners write its score into
the PGN comment of the move.

With --pgn (games played with --concurrency 1 and without --ponder, so
that the searches in the log are the moves of the PGN in order), each
scored move comment must also be that line's score and depth, e.g.
{+0.35/12 ...} for `info depth 12 ... score cp 35 ... pv <the move> ...`.

usage: python3 tools/move_shown.py LOG [--pgn FILE]
Prints the counts; exits 1 on any mismatch.
"""

import argparse
import sys


def exact_first_line(words):
    """Whether an `info` line (split) is an exact line-1 line with a PV."""
    if "pv" not in words or "score" not in words:
        return False
    if "lowerbound" in words or "upperbound" in words:
        return False
    if "multipv" in words:
        i = words.index("multipv")
        return i + 1 < len(words) and words[i + 1] == "1"
    return True


def field(words, name):
    i = words.index(name)
    return words[i + 1]


def comment_of(words):
    """The score/depth part of match.py's comment for this line."""
    i = words.index("score")
    kind, value = words[i + 1], int(words[i + 2])
    if kind == "mate":
        score = f"+M{abs(value)}" if value > 0 else f"-M{abs(value)}"
    else:
        score = f"{value / 100:+.2f}"
    return f"{score}/{field(words, 'depth')}"


def searches(log_path):
    """(tag, bestmove, last exact line-1 info line or None) per search, in order."""
    last = {}
    found = []
    with open(log_path, encoding="utf-8") as f:
        for raw in f:
            parts = raw.split()
            if len(parts) < 4:
                continue
            tag, direction, words = parts[1], parts[2], parts[3:]
            if direction == ">" and words[0] == "go":
                last[tag] = None
            elif direction == "<" and words[0] == "info" and exact_first_line(words):
                last[tag] = words
            elif direction == "<" and words[0] == "bestmove" and len(words) > 1:
                found.append((tag, words[1], last.get(tag)))
                last[tag] = None
    return found


def check_pgn(pgn_path, found):
    """Mismatches between the PGN move comments and the searches, in order."""
    import chess.pgn

    problems = []
    moves = 0
    queue = iter(found)
    with open(pgn_path, encoding="utf-8") as f:
        while (game := chess.pgn.read_game(f)) is not None:
            for node in game.mainline():
                comment = node.comment.strip()
                if not comment or comment == "book" or comment[0] not in "+-0":
                    continue
                moves += 1
                search = next(queue, None)
                if search is None:
                    problems.append(f"{node.move.uci()}: no search left in the log")
                    continue
                tag, best, line = search
                if best != node.move.uci():
                    problems.append(f"{node.move.uci()} {{{comment}}}: the log's search played {best}")
                elif line is None:
                    problems.append(f"{best} {{{comment}}}: no exact line in its search")
                elif not comment.startswith(comment_of(line) + " "):
                    problems.append(f"{best} {{{comment}}}: its line says {comment_of(line)}")
    return moves, problems


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("log", help="a tools/match.py --log file")
    p.add_argument("--pgn", help="the games' PGN (concurrency 1, no ponder)")
    args = p.parse_args()
    found = searches(args.log)
    mismatches = [(tag, best, line) for tag, best, line in found
                  if line is None or line[line.index("pv") + 1] != best]
    for tag, best, line in mismatches[:20]:
        print(f"mismatch {tag}: bestmove {best}, last exact line: {' '.join(line or [])}")
    print(f"{len(found)} searches, {len(mismatches)} whose last exact line does not start "
          f"with the move played")
    failed = bool(mismatches)
    if args.pgn:
        moves, problems = check_pgn(args.pgn, found)
        for problem in problems[:20]:
            print(f"pgn: {problem}")
        print(f"{moves} scored PGN moves, {len(problems)} whose comment is not the score "
              f"and depth of the line of the move")
        failed = failed or bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
