"""The Linux ARM64 binary under qemu-user: what a bot on a Raspberry Pi or
an ARM64 server would see.

    python3 tools/release/test_arm64.py PATH/TO/aarch64/kiraly PATH/TO/host/kiraly

`make test-release` builds the ARM64 release binary and runs this
(tools/release/test_arm64.sh). It runs the binary with qemu-aarch64
($QEMU when set, else `qemu-aarch64` or `qemu-aarch64-static` on PATH)
and the ARM64 C library of Debian's libc6-arm64-cross
($QEMU_LD_PREFIX, default /usr/aarch64-linux-gnu). Unlike the Wine test,
a missing emulator is a failure: setup.sh installs it wherever apt can.

The checks:
- `bench` counts the same nodes as the host (x86-64) binary of the same
  commit: the node count identifies the search and the net, so it shows
  that the NEON output layer sums exactly as the x86 ones do; `eval` of a
  few positions prints the same text on both;
- a UCI transcript: `uci` (name with version and `(aarch64)`, the
  options), `Hash` and two `Threads`, `SyzygyPath` with two folders
  separated by `:`, `isready`, `position ... moves`, `go depth`,
  a tablebase ending, `go movetime`, `go infinite` and `stop`, `quit`;
  the transcript is printed;
- the end of standard input ends the engine like `quit`;
- a short game through python-chess between two engine processes with
  real clocks kept by the test, one side pondering and with two threads,
  as lichess-bot plays: every move legal, no clock below zero.

The last three are tools/release/release_checks.py's, which the Windows
test makes too; this file says how the binary runs under qemu.
"""

import os
import re
import shutil
import subprocess
import sys
import time
import unittest

# The release tests' shared checks and engine process, beside this script
# (also when test_release_skip.py loads this file by its path).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from release_checks import REPO, ReleaseBinaryChecks  # noqa: E402
from uci_process import UciProcess  # noqa: E402

# qemu starts a process at once but runs it several times slower than the
# host; the machine running CI may be loaded too, so each wait has room.
START_TIMEOUT = 60.0
REPLY_TIMEOUT = 60.0
BENCH_TIMEOUT = 600.0
# Positions whose `eval` text must be the same on both machines: the
# start, a middlegame with both evaluations' terms busy, a pawn ending.
EVAL_POSITIONS = [
    "startpos",
    "fen r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9",
    "fen 8/5k2/3p4/1p1Pp2p/pP2Pp1P/P4P1K/8/8 b - - 0 1",
]

EXE = None
HOST_EXE = None
QEMU = None


def find_qemu():
    """The qemu-user loader for ARM64 programs, or None."""
    if "QEMU" in os.environ:
        candidates = [os.environ["QEMU"]]
    else:
        candidates = [shutil.which("qemu-aarch64"), shutil.which("qemu-aarch64-static")]
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def arm64_command(*args):
    """The command line that runs the ARM64 binary with `args`."""
    prefix = os.environ.get("QEMU_LD_PREFIX", "/usr/aarch64-linux-gnu")
    return [QEMU, "-L", prefix, EXE, *args]


def Engine(command, transcript=None):
    """The ARM64 binary under qemu (`command`)."""
    return UciProcess(command, cwd=REPO, reply_timeout=REPLY_TIMEOUT, transcript=transcript)


def bench_nodes(command):
    """The node count `bench` prints as `N nodes M nps`."""
    out = subprocess.run(command + ["bench"], capture_output=True, text=True,
                         timeout=BENCH_TIMEOUT, cwd=REPO)
    if out.returncode != 0:
        raise AssertionError(f"{command} bench exited {out.returncode}: {out.stderr[-500:]}")
    found = re.findall(r"^(\d+) nodes (\d+) nps$", out.stdout + out.stderr, re.MULTILINE)
    if not found:
        raise AssertionError(f"{command} bench printed no `N nodes M nps`: {out.stdout[-500:]}")
    return int(found[-1][0]), int(found[-1][1])


def eval_text(command, position):
    """What `eval` prints for a position."""
    out = subprocess.run(command + ["position " + position, "eval"], capture_output=True,
                         text=True, timeout=REPLY_TIMEOUT, cwd=REPO)
    if out.returncode != 0:
        raise AssertionError(f"{command} eval exited {out.returncode}: {out.stderr[-500:]}")
    return out.stdout


class Arm64Binary(ReleaseBinaryChecks, unittest.TestCase):
    SYSTEM = "ARM64 kiraly under qemu"
    ARCH = "aarch64"
    # Under qemu the pages are made resident several times slower.
    HASH_MB = 256
    HASH_SECONDS = 30.0
    TB_SEPARATOR = ":"
    SCRATCH = "arm64-test"
    START_TIMEOUT = START_TIMEOUT
    REPLY_TIMEOUT = REPLY_TIMEOUT

    def engine(self, transcript=None):
        return Engine(arm64_command(), transcript)

    def engine_command(self):
        return arm64_command(), {}

    def test_bench_counts_the_host_s_nodes(self):
        host_nodes, host_nps = bench_nodes([HOST_EXE])
        started = time.monotonic()
        nodes, nps = bench_nodes(arm64_command())
        print(f"\nbench: host {host_nodes} nodes ({host_nps} nps); ARM64 under qemu "
              f"{nodes} nodes ({nps} nps, {time.monotonic() - started:.1f} s)")
        self.assertEqual(nodes, host_nodes)

    def test_eval_prints_the_host_s_text(self):
        for position in EVAL_POSITIONS:
            host = eval_text([HOST_EXE], position)
            self.assertIn("NNUE evaluation", host)
            self.assertEqual(eval_text(arm64_command(), position), host, position)


def main():
    global EXE, HOST_EXE, QEMU
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    EXE, HOST_EXE = (os.path.abspath(p) for p in sys.argv[1:])
    for path in (EXE, HOST_EXE):
        if not os.path.isfile(path):
            print(f"test_arm64.py: {path} not found; build it with `make test-release`")
            return 1
    QEMU = find_qemu()
    if QEMU is None:
        print("test-release: FAILED: qemu-aarch64 not found (Debian: apt-get install "
              "qemu-user, or tools/release/setup.sh --qemu); the ARM64 binary was not run")
        return 1
    print(f"test-release: testing {os.path.relpath(EXE, REPO)} with {QEMU}")
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(Arm64Binary)
    result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
