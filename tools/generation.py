#!/usr/bin/env python3
"""One generation of the built-in net: train, screen, accept.

    tools/generation.py train NAME --data F [--data F ...] --init START --seed S
    tools/generation.py screen NET --base ENGINE --seed S
    tools/generation.py accept NET --base ENGINE --seed S
    tools/generation.py keep NET

The recipe of the nets since generation 10 (nets/README.md), kept in one
place so that a new machine (whose data folder starts empty) and a reader of
the docs run the same thing:

* `train` runs the trainer (`make trainer` builds it) on the data files in
  the order given (the held-out share is the last games read, so the newest
  games go last), starting from START (a float checkpoint `epoch-N.f32`, a
  `.nnue`, or `embedded` for the built-in net): four king buckets with a
  factoriser, eight output buckets, 3 epochs, rate 0.0002 decayed to 0.003
  of it, lambda 0.1, batches of 16384. It writes OUT_DIR/nets/NAME/.
* `screen` plays the candidate NET (by `EvalFile`) against ENGINE's built-in
  net at 25,000 nodes a move, 600 games: cheap enough to run beside the
  self-play generator, which node-limited games do not pause.
* `accept` is the test a net must pass to be built in: 8+0.08, SPRT [0, 5]
  capped at 400 games, the generator paused by match.py while it plays.
  `--games` plays a part of fixed length instead (added to other parts by
  tools/match_parts.py).
* `keep` copies a candidate that passed its screen into the repository's
  nets/candidates/ as NAME-HASH.nnue (its hash checked by `datagen
  net-hash`), to be committed: the data folder goes with its machine, and a
  candidate whose clock test spans sessions must outlive it.

Both matches: `Hash 16`, `Threads 1`, two games at a time,
tools/books/noob_3moves_500.epd in random order; PGN and the JSON summary go
to OUT_DIR/matches/. Every command is printed before it runs; `--dry-run`
prints it only.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BOOK = os.path.join(REPO, "tools", "books", "noob_3moves_500.epd")
MATCH = os.path.join(REPO, "tools", "match.py")
DEFAULT_TRAINER = os.path.join(REPO, "target", "native", "release", "trainer")
CANDIDATES = os.path.join(REPO, "nets", "candidates")

# The generation recipe (docs/evaluation.md, "Training").
KING_BUCKETS = 4
OUTPUT_BUCKETS = 8
EPOCHS = 3
LEARNING_RATE = 0.0002
FINAL_LR_RATIO = 0.003
LAMBDA = 0.1
BATCH = 16384
SCREEN_NODES = 25000
SCREEN_GAMES = 600
ACCEPT_TC = "8+0.08"
ACCEPT_GAMES = 400
ACCEPT_SPRT = ("0", "5")


def trainer_command(args) -> list[str]:
    cmd = [args.trainer]
    for path in args.data:
        cmd += ["--data", path]
    cmd += ["--buckets", str(KING_BUCKETS), "--factoriser",
            "--output-buckets", str(OUTPUT_BUCKETS),
            "--init", args.init,
            "--out", os.path.join(args.out_dir, "nets", args.name),
            "--epochs", str(args.epochs),
            "--lr", str(args.lr), "--final-lr-ratio", str(FINAL_LR_RATIO),
            "--batch", str(BATCH), "--lambda", str(LAMBDA),
            "--seed", str(args.seed), "--threads", str(args.threads),
            "--progress-batches", "0"]
    return cmd


def candidate_name(net: str) -> str:
    """`nets/g13-a/final.nnue` is g13-a; any other file is its stem."""
    stem = os.path.splitext(os.path.basename(net))[0]
    return os.path.basename(os.path.dirname(os.path.abspath(net))) if stem == "final" else stem


def match_command(args, kind: str) -> list[str]:
    name = candidate_name(args.net)
    suffix = f"-part{args.part}" if args.part else ""
    out = os.path.join(args.out_dir, "matches", f"{name}-{kind}{suffix}")
    cmd = [sys.executable, MATCH,
           "--engine", f"cmd={os.path.abspath(args.base)}", f"name={name}",
           f"option.EvalFile={os.path.abspath(args.net)}",
           "--engine", f"cmd={os.path.abspath(args.base)}", "name=base",
           "--each", "option.Hash=16", "option.Threads=1"]
    if kind == "screen":
        cmd += ["--nodes", str(args.nodes), "--games", str(args.games or SCREEN_GAMES), "--quiet"]
    else:
        cmd += ["--tc", args.tc, "--games", str(args.games or ACCEPT_GAMES)]
        if not args.games:
            cmd += ["--sprt", f"elo0={ACCEPT_SPRT[0]}", f"elo1={ACCEPT_SPRT[1]}"]
    cmd += ["--concurrency", str(args.concurrency),
            "--openings", f"file={args.book}", "order=random", "--seed", str(args.seed),
            "--pgn", out + ".pgn", "--json", out + ".json"]
    return cmd


def run(cmd: list[str], dry_run: bool) -> int:
    print("generation: " + shlex.join(cmd), flush=True)
    if dry_run:
        return 0
    return subprocess.call(cmd)


def cmd_train(args) -> int:
    if not args.dry_run:
        os.makedirs(os.path.join(args.out_dir, "nets"), exist_ok=True)
    return run(trainer_command(args), args.dry_run)


def cmd_match(args, kind: str) -> int:
    if not args.dry_run:
        os.makedirs(os.path.join(args.out_dir, "matches"), exist_ok=True)
    return run(match_command(args, kind), args.dry_run)


def default_datagen() -> str:
    """$DATAGEN_BIN, else the service's profiled build, else the plain one."""
    for path in (os.environ.get("DATAGEN_BIN"),
                 os.path.join(REPO, "target", "pgo", "datagen-for-selfplay"),
                 os.path.join(REPO, "target", "release", "datagen")):
        if path and os.path.isfile(path):
            return path
    return "datagen"


def cmd_keep(args) -> int:
    try:
        check = subprocess.run([args.datagen, "net-hash", "--net", args.net],
                               capture_output=True, text=True)
    except OSError as e:
        print(f"generation: {args.datagen} (datagen, to check the net): {e}; "
              "build it with `cargo build --release -p datagen` or give --datagen",
              file=sys.stderr)
        return 2
    if check.returncode != 0:
        print(f"generation: {args.net} is not a net the engine loads: {check.stderr.strip()}",
              file=sys.stderr)
        return 1
    kept = os.path.join(args.dest, f"{candidate_name(args.net)}-{check.stdout.strip()[:8]}.nnue")
    with open(args.net, "rb") as f:
        data = f.read()
    if os.path.exists(kept):
        with open(kept, "rb") as f:
            if f.read() != data:
                print(f"generation: {kept} exists with other bytes; not replaced", file=sys.stderr)
                return 1
    else:
        os.makedirs(args.dest, exist_ok=True)
        with open(kept, "wb") as f:
            f.write(data)
    print(f"generation: kept {kept}: commit it before the machine goes")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="generation", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--seed", type=int, required=True)
    common.add_argument("--out-dir", default=".",
                        help="the data folder: nets/ and matches/ go there [default: .]")
    common.add_argument("--dry-run", action="store_true", help="print the command only")

    t = sub.add_parser("train", parents=[common], help="train a candidate net")
    t.add_argument("name", help="the run's name, e.g. g13-a (OUT_DIR/nets/NAME/)")
    t.add_argument("--data", action="append", required=True,
                   help="a data file; repeat, oldest first (the last games read are held out)")
    t.add_argument("--init", required=True,
                   help="start: a float checkpoint (epoch-N.f32), a .nnue, or embedded")
    t.add_argument("--lr", type=float, default=LEARNING_RATE)
    t.add_argument("--epochs", type=int, default=EPOCHS)
    t.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    t.add_argument("--trainer", default=DEFAULT_TRAINER,
                   help="trainer binary [default: target/native/release/trainer, from `make trainer`]")

    k = sub.add_parser("keep", help="copy a screened candidate into nets/candidates/ to commit")
    k.add_argument("net", help="the candidate .nnue")
    k.add_argument("--datagen", default=default_datagen(),
                   help="datagen binary, whose net-hash checks the file")
    k.add_argument("--dest", default=CANDIDATES, help="[default: the repository's nets/candidates]")

    for kind, text in (("screen", "the candidate against the built-in net at fixed nodes"),
                       ("accept", "the acceptance at 8+0.08, SPRT [0, 5] capped at 400 games")):
        m = sub.add_parser(kind, parents=[common], help=text)
        m.add_argument("net", help="the candidate .nnue (played by EvalFile)")
        m.add_argument("--base", required=True,
                       help="engine build with the current net built in (plays both sides)")
        m.add_argument("--games", type=int, default=0,
                       help=f"games [default: {SCREEN_GAMES} to screen; {ACCEPT_GAMES} to accept, "
                            "with the SPRT; a number given plays a fixed-length part, no SPRT]")
        m.add_argument("--concurrency", type=int, default=2)
        m.add_argument("--book", default=BOOK)
        m.add_argument("--part", type=int, default=0,
                       help="number of a part: NAME-KIND-partN.pgn and .json")
        if kind == "screen":
            m.add_argument("--nodes", type=int, default=SCREEN_NODES)
        else:
            m.add_argument("--tc", default=ACCEPT_TC)
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "train":
        return cmd_train(args)
    if args.command == "keep":
        return cmd_keep(args)
    return cmd_match(args, args.command)


if __name__ == "__main__":
    sys.exit(main())
