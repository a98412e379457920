"""The commands an OpenBench client runs on Kiraly (plain unittest).

    python3 -m unittest engine-tests/test_openbench.py

About 15 s when target/native is up to date (`make` builds incrementally; a
build from scratch takes a few minutes).  It builds from the source tree, so
KIRALY_BIN plays no part here.

What the client does with a public engine (OpenBench Client/utils.py and
Client/bench.py; see tools/OPENBENCH.md):

1. in the engine's `build.path` (here the repository root) it runs
   `make -j EXE=<Engine>-<sha8> CC=<compiler>`, where <compiler> is the entry
   of `build.compilers` found on the machine (`cargo` for Kiraly, passed as
   CC because its name has no `++`; newer clients run `make -j<cores>
   EXE=...` without CC for cargo), and takes the file named by EXE;
2. it runs `./<binary> bench` as many times at once as it has threads, with
   stderr merged into stdout, for at most 60 s, reads the node count and the
   speed from the output (last matching lines), and refuses the binary when
   the runs disagree or the count differs from the test's expected bench
   (taken from the `Bench: N` line of the commit message).

Here EXE is an absolute path in a temporary directory so that no file is left
in the work tree; the Makefile copies the binary there either way.
"""

import os
import re
import shutil
import stat
import subprocess
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
BENCH_LINE = re.compile(r"^(\d+) nodes (\d+) nps$")
MAX_BENCH_TIME_SECONDS = 60     # OpenBench's limit for one bench run
MAKE_TIMEOUT = 1200             # a build from scratch with fat LTO on 2 cores


def openbench_parse(output):
    """OpenBench's parse_stream_output(): scan the lines from the last one
    up, keep the first node count and the first speed found."""
    nps = bench = None
    for line in output.decode("ascii").strip().split("\n")[::-1]:
        line = re.sub(r"[^a-zA-Z0-9 ]+", " ", line)
        nps_pattern = r"(\d+\s+nps)|(nps\s+\d+)|(nodes second\s+\d+)"
        bench_pattern = r"(\d+\s+nodes)|(nodes\s+\d+)|(nodes searched\s+\d+)"
        re_nps = re.search(nps_pattern, line, re.IGNORECASE)
        re_bench = re.search(bench_pattern, line, re.IGNORECASE)
        if re_nps:
            nps = nps if nps else re_nps.group()
        if re_bench:
            bench = bench if bench else re_bench.group()
    nps = int(re.search(r"\d+", nps).group()) if nps else None
    bench = int(re.search(r"\d+", bench).group()) if bench else None
    return bench, nps


class OpenBenchClient(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="kiraly-openbench-")
        cls.exe = os.path.join(cls.tmp, "Kiraly-test")
        started = time.monotonic()
        cls.make = subprocess.run(
            ["make", "-j", f"EXE={cls.exe}", "CC=cargo"], cwd=REPO,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=MAKE_TIMEOUT)
        cls.make_seconds = time.monotonic() - started
        cls.bench_cache = None

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def built(self):
        log = self.make.stdout.decode("utf-8", "replace")
        self.assertEqual(self.make.returncode, 0, f"make failed:\n{log[-4000:]}")
        self.assertTrue(os.path.isfile(self.exe), f"make did not produce {self.exe}:\n{log[-2000:]}")
        mode = os.stat(self.exe).st_mode
        self.assertTrue(mode & stat.S_IXUSR and os.access(self.exe, os.X_OK),
                        f"{self.exe} is not executable")
        return self.exe

    def run_bench(self, merged):
        """`./Kiraly-test bench` from the binary's directory, as the client
        runs it; stderr merged into stdout when `merged`."""
        return subprocess.Popen(
            ["./" + os.path.basename(self.exe), "bench"], cwd=self.tmp,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT if merged else subprocess.PIPE)

    def bench(self):
        """One plain run, checked line by line; returns the node count."""
        if self.bench_cache is None:
            self.built()
            started = time.monotonic()
            proc = self.run_bench(merged=False)
            out, err = proc.communicate(timeout=MAX_BENCH_TIME_SECONDS)
            seconds = time.monotonic() - started
            self.assertEqual(proc.returncode, 0, f"bench exit status; stderr: {err[-2000:]!r}")
            self.assertLess(seconds, MAX_BENCH_TIME_SECONDS)
            lines = out.decode("ascii").splitlines()
            self.assertTrue(lines, "bench printed nothing on stdout")
            m = BENCH_LINE.match(lines[-1])
            self.assertIsNotNone(m, f"last stdout line {lines[-1]!r} is not `N nodes M nps`")
            nodes, nps = int(m.group(1)), int(m.group(2))
            self.assertGreater(nodes, 0)
            self.assertGreater(nps, 0)
            type(self).bench_cache = (nodes, nps, seconds)
        return self.bench_cache[0]

    def test_make_exe(self):
        """`make -j EXE=<path> CC=cargo` in the repository root leaves an
        executable at <path>."""
        self.built()

    def test_make_says_how_it_built(self):
        """`make` builds with the profile of `bench` where llvm-profdata is
        found (tools/pgo_build.sh), else plainly, and says which."""
        self.built()
        log = self.make.stdout.decode("utf-8", "replace")
        self.assertRegex(log, r"pgo_build: (.* built with the profile of its training run|no llvm-profdata .*: plain build)")

    def test_build_without_llvm_profdata_is_plain(self):
        """Without llvm-profdata the build is the plain one, and stderr says
        so: a build never fails for want of a profile."""
        exe = os.path.join(self.tmp, "Kiraly-plain")
        proc = subprocess.run(
            [os.path.join(REPO, "tools", "pgo_build.sh"), exe],
            cwd=REPO, env={**os.environ, "LLVM_PROFDATA": "/nonexistent/llvm-profdata"},
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=MAKE_TIMEOUT)
        self.assertEqual(proc.returncode, 0, proc.stderr.decode("utf-8", "replace")[-2000:])
        self.assertIn(b"no llvm-profdata at /nonexistent/llvm-profdata", proc.stderr)
        self.assertTrue(os.access(exe, os.X_OK))

    def test_bench_output(self):
        """The last stdout line of `bench` is `N nodes M nps`."""
        self.bench()

    def test_bench_deterministic_under_the_client(self):
        """Two benches at once (a client started with 2 threads), output
        merged with stderr and read by OpenBench's own parser: both give the
        node count of the plain run and a speed."""
        nodes = self.bench()
        started = time.monotonic()
        procs = [self.run_bench(merged=True) for _ in range(2)]
        results = []
        for proc in procs:
            out, _ = proc.communicate(timeout=MAX_BENCH_TIME_SECONDS)
            self.assertEqual(proc.returncode, 0)
            results.append(openbench_parse(out))
        self.assertLess(time.monotonic() - started, MAX_BENCH_TIME_SECONDS)
        for bench, nps in results:
            self.assertEqual(bench, nodes, f"non-deterministic bench: {results} vs {nodes}")
            self.assertIsNotNone(nps)
            self.assertGreater(nps, 0)

    def test_readme_bench_matches(self):
        """README.md quotes the bench of the current source (the number that
        goes into commit messages as `Bench: N` and that OpenBench checks)."""
        nodes = self.bench()
        with open(os.path.join(REPO, "README.md")) as f:
            readme = f.read()
        m = re.search(r"`bench` node count at this version: \*\*(\d+)\*\*", readme)
        self.assertIsNotNone(m, "README.md no longer states the bench node count")
        self.assertEqual(int(m.group(1)), nodes,
                         "README.md's bench differs from `kiraly bench` of this source")

    def test_openbench_parser(self):
        """The copy of OpenBench's parser reads what it should."""
        self.assertEqual(openbench_parse(b"info depth 1\n10008819 nodes 2099165 nps\n"),
                         (10008819, 2099165))
        self.assertEqual(openbench_parse(b"Nodes searched: 123\nNodes/second: 456\n"), (123, 456))
        self.assertEqual(openbench_parse(b"nothing here\n"), (None, None))


if __name__ == "__main__":
    unittest.main()
