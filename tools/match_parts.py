"""One match played in parts, added up: the `--json` summaries that
`match.py` wrote for each part (the same two engines and conditions,
different seeds, perhaps in different sessions) become one result.

    python3 tools/match_parts.py PART.json PART.json ... [--sprt ELO0 ELO1]

Counts add: wins, draws and losses, and the pentanomial (complete pairs
only, so a part stopped between the two games of a pair adds that game to
W/D/L but not to the pairs). The Elo, its error and the LOS are the
pentanomial model's over all pairs; the LLR, with --sprt, is the normalized
GSPRT's of the whole, as `match.py --sprt` would give it.

Parts are only comparable when they measure the same thing, so the engines
must match in name and order; a part whose engines differ is refused.
The time control, book and options are not in the summary: keep them the
same (the scripts that play the parts fix them).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stats  # noqa: E402


class PartMismatch(ValueError):
    """Parts that do not measure the same pairing."""


def add_parts(parts):
    """Totals of match.py summaries (dicts): {first, second, games, wins,
    draws, losses, pentanomial, failures}."""
    if not parts:
        raise PartMismatch("no parts")
    total = None
    for index, part in enumerate(parts):
        pairings = part.get("pairings") or []
        if len(pairings) != 1:
            raise PartMismatch(f"part {index + 1}: {len(pairings)} pairings, expected one match")
        p = pairings[0]
        if total is None:
            total = {"first": p["first"], "second": p["second"], "games": 0, "wins": 0,
                     "draws": 0, "losses": 0, "pentanomial": [0] * 5, "failures": {}}
        elif (p["first"], p["second"]) != (total["first"], total["second"]):
            raise PartMismatch(
                f"part {index + 1} is {p['first']} vs {p['second']}, "
                f"the first part {total['first']} vs {total['second']}")
        for key in ("wins", "draws", "losses"):
            total[key] += p[key]
        total["pentanomial"] = [a + b for a, b in zip(total["pentanomial"], p["pentanomial"])]
        for engine, entry in part.get("engines", {}).items():
            failures = total["failures"].setdefault(engine, {})
            for kind, count in entry.get("failures", {}).items():
                failures[kind] = failures.get(kind, 0) + count
    total["games"] = total["wins"] + total["draws"] + total["losses"]
    return total


def report(total, sprt=None) -> str:
    w, d, l = total["wins"], total["draws"], total["losses"]
    games = total["games"]
    penta = total["pentanomial"]
    est = stats.pentanomial(penta)
    lines = [
        f"{total['first']} vs {total['second']}: {games} games, {w} / {d} / {l}, "
        f"score {100.0 * (w + d / 2) / games:.2f} %" if games else "no games",
        f"Elo {est.format_elo()} (95%, pentanomial over {sum(penta)} pairs {penta}), "
        f"nElo {est.format_nelo()}, LOS {100.0 * est.los:.2f} %",
    ]
    if sprt is not None:
        test = stats.SPRT(*sprt)
        llr = test.llr(penta=penta, wdl=(w, d, l))
        decision = test.decision(llr) or "no decision"
        lines.append(f"SPRT {test.describe()}: LLR {llr:.2f}, {decision}")
    for engine, failures in sorted(total["failures"].items()):
        text = ", ".join(f"{kind} {count}" for kind, count in sorted(failures.items()))
        lines.append(f"failures of {engine}: {text or 'none'}")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("parts", nargs="+", help="match.py --json files of the parts")
    ap.add_argument("--sprt", nargs=2, type=float, metavar=("ELO0", "ELO1"),
                    help="also give the normalized GSPRT's LLR of the whole")
    args = ap.parse_args(argv)
    parts = []
    for path in args.parts:
        with open(path, encoding="utf-8") as f:
            parts.append(json.load(f))
    try:
        total = add_parts(parts)
    except PartMismatch as e:
        print(f"match_parts: {e}", file=sys.stderr)
        return 2
    print(report(total, args.sprt))
    return 0


if __name__ == "__main__":
    sys.exit(main())
