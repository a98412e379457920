"""Tests of tools/spsa.py (plain unittest; no engine games: a stub in place of
the match, or tools/mock_engine.py through tools/match.py).

Run from the repository root:
    python3 -m unittest tools/test_spsa.py
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SPSA = os.path.join(HERE, "spsa.py")
MOCK = os.path.join(HERE, "mock_engine.py")
PARAMETERS_RS = os.path.join(REPO, "src", "parameters.rs")
sys.path.insert(0, HERE)

import spsa  # noqa: E402

# A Python process on this 2-core machine, shared with builds, has been seen
# to take 20 s to start; nothing here needs a fraction of this.
HUNG = 600


def one_parameter(value=100, lo=0, hi=1000, iterations=100, c_end=5.0, r_end=0.002):
    """A tune of one parameter: the worked example of spsa.py's docstring."""
    state = spsa.new_state([{"name": "x", "default": value, "min": lo, "max": hi}],
                           iterations, pairs=1, seed=1)
    state["params"][0].update(c_end=c_end, r_end=r_end)
    return state


class WorkedExample(unittest.TestCase):
    """N = 100 (A = 10), c_end = 5, r_end = 0.002, theta = 100; by hand:
    c = 5 * 100^0.101 = 7.961044, a = 0.05 * 110^0.602 = 0.847010,
    a_1 = a / 11^0.602 = 0.199972, r_1 = a_1 / c_1^2 = 0.00315522."""

    def test_schedule_at_the_first_and_last_iteration(self):
        state = one_parameter()
        self.assertAlmostEqual(state["A"], 10.0)
        c_1, r_1 = spsa.schedule(state, state["params"][0], 1)
        self.assertAlmostEqual(c_1, 7.961044, places=5)
        self.assertAlmostEqual(r_1, 0.00315522, places=7)
        # At the last iteration c_k = c_end and r_k = r_end, by construction.
        c_n, r_n = spsa.schedule(state, state["params"][0], 100)
        self.assertAlmostEqual(c_n, 5.0, places=9)
        self.assertAlmostEqual(r_n, 0.002, places=9)
        # Iteration 50: c = 7.961044 / 50^0.101 = 5.362583,
        # a_50 = 0.847010 / 60^0.602 = 0.072018, r = a_50 / c^2 = 0.00250434.
        c_50, r_50 = spsa.schedule(state, state["params"][0], 50)
        self.assertAlmostEqual(c_50, 5.362583, places=5)
        self.assertAlmostEqual(r_50, 0.00250434, places=7)

    def test_update_moves_theta_by_r_c_and_the_net_score(self):
        state = one_parameter()
        steps = [spsa.schedule(state, state["params"][0], 1)]
        # Plus (theta + c) won 3 and lost 1: theta rises by r_1 * c_1 * 2.
        spsa.update(state, [1], steps, wins=3, losses=1)
        self.assertAlmostEqual(state["params"][0]["value"], 100.050238, places=5)
        # The same score with plus on the other side (flip -1) undoes it.
        spsa.update(state, [-1], steps, wins=3, losses=1)
        self.assertAlmostEqual(state["params"][0]["value"], 100.0, places=9)
        # Draws and equal wins and losses leave theta where it is.
        spsa.update(state, [1], steps, wins=2, losses=2)
        self.assertAlmostEqual(state["params"][0]["value"], 100.0, places=9)

    def test_update_clamps_to_the_range(self):
        state = one_parameter(value=1000)
        steps = [spsa.schedule(state, state["params"][0], 1)]
        spsa.update(state, [1], steps, wins=5, losses=0)
        self.assertEqual(state["params"][0]["value"], 1000)

    def test_integer_perturbation_is_at_least_half_a_step(self):
        # c_end 0.2: the schedule would go below 0.5 late in the tune.
        state = one_parameter(c_end=0.2)
        c_k, _ = spsa.schedule(state, state["params"][0], 100)
        self.assertEqual(c_k, 0.5)

    def test_rounding_is_unbiased_and_clamped(self):
        # theta 100.3, c_1 = 7.961044: plus is 108.26 or 92.34 (by flip),
        # rounded by floor(x + u); over many draws plus - flip * c_1 averages
        # theta (nearest rounding would average about 100.0).
        state = one_parameter()
        state["params"][0]["value"] = 100.3
        c_1 = spsa.schedule(state, state["params"][0], 1)[0]
        total, draws = 0.0, 600
        for seed in range(draws):
            state["seed"] = seed
            flips, plus, minus, _ = spsa.perturbation(state, 1)
            self.assertLess(abs(plus["x"] - (100.3 + flips[0] * c_1)), 1.0)
            self.assertLess(abs(minus["x"] - (100.3 - flips[0] * c_1)), 1.0)
            total += plus["x"] - flips[0] * c_1
        self.assertAlmostEqual(total / draws, 100.3, delta=0.1)
        edge = one_parameter(value=0, lo=0, hi=3)
        for seed in range(50):
            edge["seed"] = seed
            _, plus, minus, _ = spsa.perturbation(edge, 1)
            self.assertTrue(0 <= plus["x"] <= 3 and 0 <= minus["x"] <= 3, (plus, minus))

    def test_step_plays_plus_against_minus_and_records_it(self):
        state = one_parameter()
        seen = []

        def play(plus, minus, pairs, seed):
            seen.append((plus["x"], minus["x"], pairs))
            return (2, 0, 0) if plus["x"] > minus["x"] else (0, 0, 2)

        for _ in range(20):
            spsa.step(state, play)
        # The higher value always wins, so theta climbs every iteration.
        self.assertEqual(state["iteration"], 20)
        self.assertEqual([h["iteration"] for h in state["history"]], list(range(1, 21)))
        self.assertGreater(state["params"][0]["value"], 100.5)
        self.assertTrue(all(pairs == 1 and abs(p - m) >= 10 for p, m, pairs in seen), seen)


class OpenBenchInput(unittest.TestCase):
    def declarations(self):
        """(name, default, min, max) of src/parameters.rs, read without
        spsa.py's pattern."""
        with open(PARAMETERS_RS, encoding="utf-8") as f:
            text = f.read()
        found = []
        for line in text.split("parameters! {", 1)[1].splitlines():
            if "..=" in line and line.rstrip().endswith(";") and "=" in line.split("..=")[0]:
                name, rest = line.split("=", 1)
                default, span = rest.split(",", 1)
                lo, hi = span.rstrip().rstrip(";").split("..=")
                found.append((name.strip(), *(int(x.replace("_", "")) for x in
                                                (default, lo, hi))))
        return found

    def test_a_line_for_every_parameter(self):
        out = subprocess.run([sys.executable, SPSA, "--openbench"], capture_output=True,
                             text=True, timeout=HUNG)
        self.assertEqual(out.returncode, 0, out.stderr)
        lines = out.stdout.splitlines()
        declared = self.declarations()
        self.assertGreaterEqual(len(declared), 50)
        self.assertEqual(len(lines), len(declared))
        # The local tuner's c_end and r_end are the ones OpenBench is given.
        state = spsa.new_state(spsa.read_parameters(), 100, 1, 1)
        for line, (name, default, lo, hi), tuned in zip(lines, declared, state["params"]):
            fields = [f.strip() for f in line.split(",")]
            self.assertEqual(fields[:5], [name, "int", str(default), str(lo), str(hi)], line)
            c_end, r_end = float(fields[5]), float(fields[6])
            self.assertEqual(c_end, max((hi - lo) / 20, 1), line)
            self.assertEqual(r_end, 0.002, line)
            self.assertEqual((tuned["name"], tuned["c_end"], tuned["r_end"]),
                             (name, c_end, r_end))

    def test_params_selects_by_name_and_glob(self):
        out = subprocess.run([sys.executable, SPSA, "--openbench", "--params",
                              "rfp_margin,stability_*"], capture_output=True, text=True,
                             timeout=HUNG)
        names = [line.split(",")[0] for line in out.stdout.splitlines()]
        self.assertEqual(names, ["rfp_margin"] + [f"stability_{i}_pct" for i in range(5)])
        bad = subprocess.run([sys.executable, SPSA, "--openbench", "--params", "no_such"],
                             capture_output=True, text=True, timeout=HUNG)
        self.assertNotEqual(bad.returncode, 0)
        self.assertIn("no_such", bad.stderr)


class Apply(unittest.TestCase):
    def test_apply_writes_rounded_clamped_defaults_and_nothing_else(self):
        tmp = tempfile.mkdtemp(prefix="spsa-test-")
        self.addCleanup(shutil.rmtree, tmp)
        rs = os.path.join(tmp, "parameters.rs")
        shutil.copy(PARAMETERS_RS, rs)
        state = spsa.new_state(spsa.select(spsa.read_parameters(rs),
                                           "rfp_margin,lmr_history_divisor,stability_0_pct,"
                                           "moves_to_go"), 10, 1, 1)
        values = {"rfp_margin": 83.6, "lmr_history_divisor": 13000.4,
                  "stability_0_pct": 999.0, "moves_to_go": 30.2}
        for p in state["params"]:
            p["value"] = values[p["name"]]
        path = os.path.join(tmp, "state.json")
        spsa.save_state(state, path)
        out = subprocess.run([sys.executable, SPSA, "--apply", "--state", path,
                              "--parameters-file", rs], capture_output=True, text=True,
                             timeout=HUNG)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("3 of 4 defaults changed", out.stdout)
        with open(PARAMETERS_RS, encoding="utf-8") as f:
            before = f.read().split("\n")
        with open(rs, encoding="utf-8") as f:
            after = f.read().split("\n")
        self.assertEqual(len(before), len(after))
        changed = {b: a for b, a in zip(before, after) if b != a}
        self.assertEqual(changed, {
            "    rfp_margin = 75, 20..=200;": "    rfp_margin = 84, 20..=200;",
            "    lmr_history_divisor = 12_288, 2_048..=32_768;":
                "    lmr_history_divisor = 13_000, 2_048..=32_768;",
            "    stability_0_pct = 135, 50..=250;": "    stability_0_pct = 250, 50..=250;",
        })
        self.assertEqual({p["name"]: p["default"] for p in spsa.read_parameters(rs)
                          if p["name"] in values},
                         {"rfp_margin": 84, "lmr_history_divisor": 13000,
                          "stability_0_pct": 250, "moves_to_go": 30})

    def test_apply_reads_openbench_optimal_values(self):
        tmp = tempfile.mkdtemp(prefix="spsa-test-")
        self.addCleanup(shutil.rmtree, tmp)
        rs = os.path.join(tmp, "parameters.rs")
        shutil.copy(PARAMETERS_RS, rs)
        values = os.path.join(tmp, "optimal.txt")
        with open(values, "w", encoding="utf-8") as f:
            f.write("rfp_margin, 91\naspiration_delta, 17\n")
        out = subprocess.run([sys.executable, SPSA, "--apply", "--values", values,
                              "--parameters-file", rs], capture_output=True, text=True,
                             timeout=HUNG)
        self.assertEqual(out.returncode, 0, out.stderr)
        got = {p["name"]: p["default"] for p in spsa.read_parameters(rs)}
        want = {p["name"]: p["default"] for p in spsa.read_parameters(PARAMETERS_RS)}
        want.update(rfp_margin=91, aspiration_delta=17)
        self.assertEqual(got, want)


class Resume(unittest.TestCase):
    """A tune through match.py with mock engines, killed mid-iteration and
    started again as a slice of a long tune: only the engine and the state
    named, the rest of the settings kept by the state."""

    ITERATIONS = 8

    def command(self, state):
        return [sys.executable, SPSA, "--engine", f"{sys.executable} {MOCK}",
                "--nodes", "1", "--params", "rfp_margin,lmr_quiet_base_1024",
                "--iterations", str(self.ITERATIONS), "--seed", "7", "--state", state,
                "--hash", "8", "--match-args", f"--maxmoves 3 --uci-timeout {HUNG // 2}"]

    def slice_command(self, state):
        return [sys.executable, SPSA, "--engine", f"{sys.executable} {MOCK}", "--state", state]

    def read(self, path):
        try:
            with open(path, encoding="utf-8") as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    def test_resume_after_a_kill(self):
        tmp = tempfile.mkdtemp(prefix="spsa-test-")
        self.addCleanup(shutil.rmtree, tmp)
        path = os.path.join(tmp, "state.json")
        first = subprocess.Popen(self.command(path), stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, start_new_session=True)
        deadline = time.monotonic() + HUNG
        try:
            while True:
                state = self.read(path)
                if state and state["iteration"] >= 2:
                    break
                self.assertIsNone(first.poll(), "the tune ended before it was killed")
                self.assertLess(time.monotonic(), deadline, "no iteration finished")
                time.sleep(0.05)
        finally:
            try:
                os.killpg(first.pid, signal.SIGKILL)   # the tune, match.py, its engines
            except ProcessLookupError:
                pass
            first.communicate()
        killed_at = self.read(path)["iteration"]
        self.assertLess(killed_at, self.ITERATIONS)

        second = subprocess.run(self.slice_command(path), capture_output=True, text=True,
                                timeout=HUNG)
        self.assertEqual(second.returncode, 0, second.stderr)
        self.assertIn(f"resuming {path} after iteration {killed_at}", second.stdout)
        played = re.findall(r"^iteration (\d+)/", second.stdout, re.M)
        self.assertEqual([int(k) for k in played],
                         list(range(killed_at + 1, self.ITERATIONS + 1)))

        state = self.read(path)
        self.assertEqual(state["iteration"], self.ITERATIONS)
        self.assertEqual([h["iteration"] for h in state["history"]],
                         list(range(1, self.ITERATIONS + 1)))
        # Each recorded iteration used the flips its seed gives, and theta is
        # the start plus the recorded updates.
        replay = json.loads(json.dumps(state))
        for p in replay["params"]:
            p["value"] = float(p["start"])
        for h in state["history"]:
            flips, _, _, steps = spsa.perturbation(replay, h["iteration"])
            self.assertEqual(spsa.flips_text(flips), h["flips"])
            self.assertEqual(2, h["w"] + h["d"] + h["l"])
            spsa.update(replay, flips, steps, h["w"], h["l"])
        for got, want in zip(state["params"], replay["params"]):
            self.assertAlmostEqual(got["value"], want["value"], places=9)
        self.assertEqual(state["match"]["nodes"], 1)
        self.assertEqual(state["match"]["hash"], 8)
        self.assertEqual(state["match"]["match_args"], f"--maxmoves 3 --uci-timeout {HUNG // 2}")


if __name__ == "__main__":
    unittest.main()
