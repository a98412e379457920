"""tools/match.py's PGNs become training data: `datagen pgn` converts them.

Plays two short games of Kiraly against itself with tools/match.py, converts
the PGN with the datagen binary ($DATAGEN_BIN, else target/release/datagen,
which `make test` builds), and checks every record against the PGN read with
python-chess: where each record starts, its plies, the scores (the mover's
view, as the comments give them) and the result.
"""

import os
import re
import struct
import subprocess
import unittest

import chess
import chess.pgn

from test_match import BOOK, REPO, Run, require_engine, require_file

MATE = 32000


def workspace_binary(test, package, env_var):
    """A workspace tool's release binary: $ENV_VAR, else target/release/PACKAGE;
    fails the test when it is missing."""
    path = os.environ.get(env_var) or os.path.join(REPO, "target", "release", package)
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        test.fail(f"{package} binary {path} not found: `cargo build --release -p {package}` "
                  f"or set {env_var}")
    return path


def datagen_path(test):
    return workspace_binary(test, "datagen", "DATAGEN_BIN")


def read_records(path):
    """(result byte, [(move code, score)]) per record; see tools/datagen/src/format.rs."""
    with open(path, "rb") as f:
        data = f.read()
    records, offset = [], 0
    while offset < len(data):
        header = data[offset:offset + 32]
        assert len(header) == 32, "record cut short"
        assert header[29] >> 4 == 1, "version"
        result, (count,) = header[28], struct.unpack_from("<H", header, 30)
        plies = [struct.unpack_from("<Hh", data, offset + 32 + 4 * i) for i in range(count)]
        records.append((result, plies))
        offset += 32 + 4 * count
    return records


def comment_score(comment):
    """The mover's score in a match.py comment: {+0.35/12 0.512s} or {-M3/20 ...}."""
    m = re.match(r"\s*([+-]?)(M?)(\d+(?:\.\d+)?)", comment)
    if not m:
        return None
    sign = -1 if m.group(1) == "-" else 1
    if m.group(2):
        n = int(m.group(3))
        return sign * (MATE - (2 * n - 1)) if sign > 0 else -(MATE - 2 * n)
    return sign * round(float(m.group(3)) * 100)


def encode(board, move):
    """A move's 16-bit code (kind 5 castling as king takes rook, 6 en passant)."""
    kind = 0
    to = move.to_square
    if move.promotion:
        kind = {chess.KNIGHT: 1, chess.BISHOP: 2, chess.ROOK: 3, chess.QUEEN: 4}[move.promotion]
    elif board.is_castling(move):
        kind = 5
        rank = chess.square_rank(move.from_square)
        to = chess.square(7 if board.is_kingside_castling(move) else 0, rank)
    elif board.is_en_passant(move):
        kind = 6
    return move.from_square | (to << 6) | (kind << 12)


class TestMatchPgnToData(unittest.TestCase):
    def test_match_games_convert(self):
        engine = require_engine(self)
        datagen = datagen_path(self)
        book = require_file(self, BOOK)
        run = Run(["--engine", f"cmd={engine}", "name=A", "--engine", f"cmd={engine}", "name=B",
                   "--each", "option.Threads=1", "option.Hash=8",
                   "--games", "2", "--nodes", "1500", "--concurrency", "1", "--seed", "5",
                   "--openings", f"file={book}", "format=epd", "order=random"])
        try:
            self.assertEqual(run.rc, 0, run.diag())
            self.assertEqual(len(run.games), 2)
            out = os.path.join(run.tmp, "games.kdat")
            p = subprocess.run([datagen, "pgn", run.pgn, "-o", out],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("2 games", p.stderr)
            records = read_records(out)
            self.assertEqual(len(records), 2)
            for game, (result, plies) in zip(run.games, records):
                expected_result = {"1-0": 2, "1/2-1/2": 1, "0-1": 0}[game.headers["Result"]]
                self.assertEqual(result, expected_result)
                board = game.board()
                expected = []
                for node in game.mainline():
                    score = comment_score(node.comment)
                    if score is not None or expected:
                        expected.append((encode(board, node.move),
                                         score if score is not None else -32768))
                    board.push(node.move)
                self.assertGreater(len(expected), 10)
                self.assertEqual(plies, expected)
                # Scores are the mover's: where one side is clearly ahead,
                # consecutive plies carry opposite signs.
                scores = [s for _, s in plies if s != -32768]
                pairs = [(a, b) for a, b in zip(scores, scores[1:]) if abs(a) > 30 and abs(b) > 30]
                if len(pairs) >= 5:
                    flips = sum(1 for a, b in pairs if (a > 0) != (b > 0))
                    self.assertGreaterEqual(flips, 0.7 * len(pairs), scores)
        finally:
            run.cleanup()


if __name__ == "__main__":
    unittest.main()
