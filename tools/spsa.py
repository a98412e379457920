#!/usr/bin/env python3
"""SPSA tuning of the search parameters, as OpenBench runs it, on one machine.

The tuning build of Kiraly (`cargo build --release --features tune
--target-dir target/tune`) declares every parameter of src/parameters.rs as a
UCI spin option. Each iteration plays two copies of that build against each
other through tools/match.py, one with every tuned parameter pushed up or
down by c_k (random signs), the other pushed the opposite way, and moves the
parameters towards the side that scored better.

The schedule and update are OpenBench's (OpenBench/spsa_utils.py and
Client/worker.py of its repository), so a tune here and one on an OpenBench
instance given the `--openbench` lines behave alike:

    N       iterations;  A = 0.1 * N  (OpenBench's A-ratio 0.1)
    alpha   0.602;       gamma 0.101
    per parameter, from its c_end and r_end:
        c   = c_end * N**gamma
        a   = r_end * c_end**2 * (A + N)**alpha
    iteration k = 1, 2, ..., N:
        c_k = max(c / k**gamma, 0.5)          (0.5: the least step of an integer)
        a_k = a / (A + k)**alpha
        r_k = a_k / c_k**2
        flip = +1 or -1 at random, per parameter
        plus  = theta + flip * c_k,  minus = theta - flip * c_k
        both rounded to integers by one shared random offset u in [0, 1):
            floor(x + u), then clamped to [min, max]
        play `pairs` colour-swapped game pairs, plus against minus;
        W, L: plus's wins and losses
        theta += r_k * c_k * (W - L) * flip  (= a_k / c_k * (W - L) * flip),
        clamped to [min, max]; theta stays a float.

So c_k falls to c_end at the last iteration, and r_k = a_k / c_k**2 falls to
r_end: one net win at the end moves a parameter by r_end * c_end.

Worked example (the one tools/test_spsa.py checks): N = 100, so A = 10; a
parameter with theta = 100, range 0..=1000, c_end = 5, r_end = 0.002.
    c   = 5 * 100**0.101                 = 7.96104
    a   = 0.002 * 25 * 110**0.602        = 0.847010
    k = 1:  c_1 = 7.96104 / 1**0.101     = 7.96104
            a_1 = 0.847010 / 11**0.602   = 0.199972
            r_1 = a_1 / c_1**2           = 0.00315522
    flip = +1: plus plays with 107.96, minus with 92.04; with u = 0.3 the
    engines get floor(108.26) = 108 and floor(92.34) = 92.
    Plus scores W - L = 2 over its pairs:
            theta = 100 + 0.00315522 * 7.96104 * 2 * (+1) = 100.050238
    At k = N = 100: c_100 = 5, r_100 = 0.002.

Commands:
    tools/spsa.py --engine target/tune/release/kiraly --tc 8+0.08 \\
        --book tools/books/noob_3moves_500.epd --iterations 2000 \\
        --concurrency 2 --state spsa.json       # start, or resume spsa.json
    tools/spsa.py --openbench                   # OpenBench's SPSA input lines
    tools/spsa.py --apply --state spsa.json     # theta into src/parameters.rs
    tools/spsa.py --apply --values optimal.txt  # an OpenBench tune's values

The state file is rewritten (atomically) after every iteration; running the
same command again after an interruption continues with the next iteration.
"""

import argparse
import fnmatch
import json
import math
import os
import random
import re
import shlex
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
MATCH = os.path.join(HERE, "match.py")
PARAMETERS_RS = os.path.join(REPO, "src", "parameters.rs")

ALPHA = 0.602
GAMMA = 0.101
A_RATIO = 0.1
R_END = 0.002
# OpenBench never perturbs an integer by less than this.
MIN_INT_C = 0.5
STATE_VERSION = 1

# `name = default, min..=max;` inside `parameters! { ... }` (literals may
# carry `_` separators).
DECLARATION = re.compile(
    r"^(?P<indent>\s*)(?P<name>[a-z][a-z0-9_]*)\s*=\s*(?P<default>[0-9][0-9_]*)\s*,"
    r"\s*(?P<min>[0-9][0-9_]*)\s*\.\.=\s*(?P<max>[0-9][0-9_]*)\s*;")


def read_parameters(path=PARAMETERS_RS):
    """The parameters declared in src/parameters.rs, in order:
    [{name, default, min, max}]."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    body = text[text.index("parameters! {"):]
    params = []
    for line in body.splitlines():
        m = DECLARATION.match(line)
        if m:
            params.append({"name": m["name"], "default": int(m["default"].replace("_", "")),
                           "min": int(m["min"].replace("_", "")),
                           "max": int(m["max"].replace("_", ""))})
        if line.strip() == "}":
            break
    if not params:
        raise SystemExit(f"spsa: no parameters found in {path}")
    return params


def default_c_end(lo, hi):
    """OpenBench users' usual perturbation at the end of a tune: a twentieth
    of the range, at least one step of an integer."""
    return max((hi - lo) / 20, 1.0)


def select(params, patterns):
    """The parameters whose names match any of the comma-separated glob
    patterns (all when none are given), in declaration order."""
    if not patterns:
        return list(params)
    wanted = [p.strip() for p in patterns.split(",") if p.strip()]
    chosen = [p for p in params if any(fnmatch.fnmatchcase(p["name"], w) for w in wanted)]
    unknown = [w for w in wanted if not any(fnmatch.fnmatchcase(p["name"], w) for p in params)]
    if unknown:
        raise SystemExit(f"spsa: no parameter matches {', '.join(unknown)}")
    return chosen


def number(x):
    """A float as OpenBench's input shows it: 9.0 as 9, 0.002 as 0.002 (the
    shortest text that reads back as the same float, as Rust prints it)."""
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def openbench_lines(params, r_end=R_END):
    """OpenBench's SPSA input, `name, int, value, min, max, c_end, r_end`,
    one line per parameter."""
    return [f"{p['name']}, int, {p['default']}, {p['min']}, {p['max']}, "
            f"{number(default_c_end(p['min'], p['max']))}, {number(r_end)}" for p in params]


# --- the algorithm ----------------------------------------------------------

def new_state(params, iterations, pairs, seed, r_end=R_END):
    """A tune at iteration 0: theta at the declared defaults."""
    return {
        "version": STATE_VERSION,
        "iterations": iterations,
        "pairs": pairs,
        "alpha": ALPHA,
        "gamma": GAMMA,
        "A": A_RATIO * iterations,
        "seed": seed,
        "iteration": 0,
        "params": [{"name": p["name"], "start": p["default"], "min": p["min"], "max": p["max"],
                    "c_end": default_c_end(p["min"], p["max"]), "r_end": r_end,
                    "value": float(p["default"])} for p in params],
        "history": [],
        "match": {},
    }


def schedule(state, param, k):
    """(c_k, r_k) of one parameter at iteration k (1-based)."""
    n, alpha, gamma, big_a = state["iterations"], state["alpha"], state["gamma"], state["A"]
    c = param["c_end"] * n ** gamma
    a = param["r_end"] * param["c_end"] ** 2 * (big_a + n) ** alpha
    c_k = max(c / k ** gamma, MIN_INT_C)
    a_k = a / (big_a + k) ** alpha
    return c_k, a_k / c_k ** 2


def clamp(x, lo, hi):
    return max(lo, min(hi, x))


def perturbation(state, k):
    """Iteration k's flips and the two engines' integer values. Drawn from
    the tune's seed and k alone, so a resumed tune replays the same draw."""
    rng = random.Random(f"{state['seed']}:{k}")
    flips, plus, minus, steps = [], {}, {}, []
    for p in state["params"]:
        c_k, r_k = schedule(state, p, k)
        flip = rng.choice((-1, 1))
        u = rng.random()
        up, down = p["value"] + flip * c_k, p["value"] - flip * c_k
        plus[p["name"]] = int(clamp(math.floor(up + u), p["min"], p["max"]))
        minus[p["name"]] = int(clamp(math.floor(down + u), p["min"], p["max"]))
        flips.append(flip)
        steps.append((c_k, r_k))
    return flips, plus, minus, steps


def update(state, flips, steps, wins, losses):
    """OpenBench's update: theta += r_k * c_k * (W - L) * flip, clamped."""
    for p, flip, (c_k, r_k) in zip(state["params"], flips, steps):
        p["value"] = clamp(p["value"] + r_k * c_k * (wins - losses) * flip, p["min"], p["max"])


def step(state, play):
    """Plays and applies the next iteration. `play(plus, minus, pairs,
    seed)` returns plus's (wins, draws, losses)."""
    k = state["iteration"] + 1
    flips, plus, minus, steps = perturbation(state, k)
    w, d, l = play(plus, minus, state["pairs"], random.Random(f"{state['seed']}:games:{k}")
                   .randrange(1 << 31))
    update(state, flips, steps, w, l)
    state["iteration"] = k
    state["history"].append({"iteration": k, "w": w, "d": d, "l": l,
                             "flips": flips_text(flips)})
    return w, d, l


def flips_text(flips):
    """The signs of an iteration, one character per parameter (`+-+`): a
    tune of many parameters and iterations keeps a small state file."""
    return "".join("+" if f > 0 else "-" for f in flips)


# --- the state file ---------------------------------------------------------

def save_state(state, path):
    """Writes the state so that a kill at any moment leaves either the old
    file or the new one, never a part."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".spsa-", suffix=".json", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(state, f, indent=1)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def load_state(path):
    with open(path, encoding="utf-8") as f:
        state = json.load(f)
    if state.get("version") != STATE_VERSION:
        raise SystemExit(f"spsa: {path} is not a state file of this version")
    return state


# --- games through tools/match.py -------------------------------------------

def match_player(engine, tc=None, nodes=None, book=None, concurrency=1, hash_mb=16,
                 extra=(), log=None):
    """A `play` function that runs tools/match.py: two instances of the
    tuning build, each given its values as `option.NAME=VALUE`."""
    def play(plus, minus, pairs, seed):
        with tempfile.TemporaryDirectory(prefix="spsa-") as tmp:
            result = os.path.join(tmp, "result.json")
            cmd = [sys.executable, MATCH, "--quiet", "--json", result, "--seed", str(seed),
                   "--rounds", str(pairs), "--concurrency", str(concurrency)]
            for name, values in (("plus", plus), ("minus", minus)):
                cmd += ["--engine", f"cmd={engine}", f"name={name}"]
                cmd += [f"option.{k}={v}" for k, v in values.items()]
            cmd += ["--each", f"option.Hash={hash_mb}", "option.Threads=1"]
            if tc:
                cmd += ["--tc", tc]
            if nodes:
                cmd += ["--nodes", str(nodes)]
            if book:
                cmd += ["--openings", f"file={book}", "format=" + ("pgn" if book.endswith(".pgn")
                                                                  else "epd"), "order=random"]
            cmd += list(extra)
            proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            if log:
                log.write(proc.stdout)
                log.write(proc.stderr)
                log.flush()
            if proc.returncode == 130:
                raise KeyboardInterrupt
            if proc.returncode != 0 or not os.path.exists(result):
                raise SystemExit(f"spsa: match.py failed ({proc.returncode}):\n"
                                 f"{proc.stderr.strip()[-2000:]}")
            with open(result, encoding="utf-8") as f:
                js = json.load(f)
            pairing = js["pairings"][0]
            for name, engine_js in js.get("engines", {}).items():
                failed = {k: v for k, v in engine_js.get("failures", {}).items() if v}
                if failed:
                    # Counted as losses, as OpenBench counts them; shown
                    # because a tuned value may be what makes it fail.
                    print(f"warning: {name} failed: {failed}", file=sys.stderr, flush=True)
            if pairing["games"] != 2 * pairs:
                raise SystemExit(f"spsa: match.py played {pairing['games']} of {2 * pairs} games")
            return pairing["wins"], pairing["draws"], pairing["losses"]
    return play


# --- progress ---------------------------------------------------------------

def progress_line(state, w, d, l, recent=50):
    hist = state["history"][-recent:]
    rw, rd, rl = (sum(h[x] for h in hist) for x in ("w", "d", "l"))
    return (f"iteration {state['iteration']}/{state['iterations']}: plus {w}-{d}-{l} "
            f"(W-L {w - l:+d}); last {len(hist)}: +{rw} ={rd} -{rl}")


def theta_lines(state):
    return [f"  {p['name']:<28} {p['value']:10.2f}  (start {p['start']}, "
            f"{p['value'] - p['start']:+.2f})" for p in state["params"]]


# --- applying the result to src/parameters.rs -------------------------------

def rust_literal(value, like):
    """`value` written as the literal `like` was: with `_` groups of three
    when it had them."""
    return f"{value:_}" if "_" in like else str(value)


def read_values(path):
    """`name, value` lines (OpenBench's optimal values of a tune)."""
    values = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                name, value = (x.strip() for x in line.split(","))
                values[name] = float(value)
    return values


def apply_values(path, values):
    """Rewrites the default of each named parameter in src/parameters.rs
    (the first number of its declaration, nothing else), clamped to its
    range. Returns the names changed."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    seen, changed = set(), []
    for i, line in enumerate(lines):
        m = DECLARATION.match(line)
        if not m or m["name"] not in values:
            continue
        lo, hi = int(m["min"].replace("_", "")), int(m["max"].replace("_", ""))
        new = int(clamp(round(values[m["name"]]), lo, hi))
        seen.add(m["name"])
        if new != int(m["default"].replace("_", "")):
            lines[i] = line[:m.start("default")] + rust_literal(new, m["default"]) \
                + line[m.end("default"):]
            changed.append(m["name"])
    missing = sorted(set(values) - seen)
    if missing:
        raise SystemExit(f"spsa: {path} declares no {', '.join(missing)}")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    return changed


# --- command line -----------------------------------------------------------

def parse_args(argv):
    p = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        epilog="See docs/tools.md, 'SPSA tuning of the search'.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--openbench", action="store_true",
                      help="print OpenBench's SPSA input for the parameters and exit")
    mode.add_argument("--apply", action="store_true",
                      help="write the state's values (or --values') into the parameters file "
                      "and exit")
    p.add_argument("--state", default="spsa-state.json",
                   help="state file: created, or resumed when it exists (default %(default)s)")
    p.add_argument("--values", metavar="FILE",
                   help="with --apply: `name, value` lines, as an OpenBench tune's "
                   "optimal values, instead of the state")
    p.add_argument("--parameters-file", default=PARAMETERS_RS,
                   help="the declarations to read and --apply to (default src/parameters.rs)")
    p.add_argument("--params", help="comma-separated names or globs to tune (default: all)")
    p.add_argument("--engine", help="the tuning build (`--features tune`); a command may "
                   "carry arguments")
    p.add_argument("--iterations", type=int, help="N, the iterations of the tune (default 1000)")
    p.add_argument("--pairs", type=int, help="colour-swapped game pairs per iteration "
                   "(default 1; OpenBench's Pairs-Per)")
    p.add_argument("--tc", help="time control for match.py, e.g. 8+0.08")
    p.add_argument("--nodes", type=int, help="node limit per move instead of (or with) --tc")
    p.add_argument("--book", help="opening book (EPD or PGN), played in random order")
    p.add_argument("--concurrency", type=int, default=1, help="games at once (default 1)")
    p.add_argument("--hash", type=int, help="Hash of each engine, MiB (default 16)")
    p.add_argument("--match-args",
                   help="more arguments for match.py, e.g. \"--maxmoves 200\"")
    p.add_argument("--seed", type=int, help="seed of the flips and openings (default random)")
    p.add_argument("--report-every", type=int, default=10,
                   help="print theta every this many iterations (default 10)")
    p.add_argument("--log", help="append match.py's output to this file")
    return p.parse_args(argv)


def run(args):
    if os.path.exists(args.state):
        state = load_state(args.state)
        for key in ("iterations", "pairs"):
            given = getattr(args, key)
            if given is not None and given != state[key]:
                raise SystemExit(f"spsa: {args.state} was started with --{key} {state[key]}")
        if args.params:
            names = [p["name"] for p in select(read_parameters(args.parameters_file),
                                               args.params)]
            if names != [p["name"] for p in state["params"]]:
                raise SystemExit(f"spsa: {args.state} tunes other parameters")
        print(f"resuming {args.state} after iteration {state['iteration']}", flush=True)
    else:
        params = select(read_parameters(args.parameters_file), args.params)
        seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
        state = new_state(params, args.iterations or 1000, args.pairs or 1, seed)
    # The games' settings come from this command line, else from the start
    # (a slice of a long tune names only the engine and the state).
    settings = state["match"]
    for key in ("engine", "tc", "nodes", "book", "hash", "match_args"):
        if getattr(args, key) is not None:
            settings[key] = getattr(args, key)
    if not settings.get("engine"):
        raise SystemExit("spsa: --engine is required (the `--features tune` build)")
    if not settings.get("tc") and not settings.get("nodes"):
        raise SystemExit("spsa: give --tc or --nodes")
    if not os.path.exists(args.state):
        save_state(state, args.state)
        print(f"new tune {args.state}: {len(state['params'])} parameters, "
              f"{state['iterations']} iterations of {state['pairs']} pair(s), "
              f"seed {state['seed']}", flush=True)
    log = open(args.log, "a", encoding="utf-8") if args.log else None
    play = match_player(settings["engine"], settings.get("tc"), settings.get("nodes"),
                        settings.get("book"), args.concurrency, settings.get("hash", 16),
                        shlex.split(settings.get("match_args", "")), log)
    try:
        while state["iteration"] < state["iterations"]:
            started = time.monotonic()
            w, d, l = step(state, play)
            save_state(state, args.state)
            print(progress_line(state, w, d, l) + f" ({time.monotonic() - started:.1f} s)",
                  flush=True)
            if state["iteration"] % args.report_every == 0 \
                    or state["iteration"] == state["iterations"]:
                print("\n".join(theta_lines(state)), flush=True)
    except KeyboardInterrupt:
        print(f"\ninterrupted; {args.state} holds iteration {state['iteration']}",
              file=sys.stderr)
        return 130
    finally:
        if log:
            log.close()
    print(f"done: {state['iterations']} iterations; "
          f"`tools/spsa.py --apply --state {args.state}` writes the values")
    return 0


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.openbench:
        params = select(read_parameters(args.parameters_file), args.params)
        print("\n".join(openbench_lines(params)))
        return 0
    if args.apply:
        if args.values:
            values = read_values(args.values)
        else:
            state = load_state(args.state)
            values = {p["name"]: p["value"] for p in state["params"]}
        changed = apply_values(args.parameters_file, values)
        print(f"{args.parameters_file}: {len(changed)} of {len(values)} defaults changed"
              + (f" ({', '.join(changed)})" if changed else ""))
        return 0
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
