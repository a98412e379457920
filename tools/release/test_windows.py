"""The Windows binary under Wine: what a Windows GUI would see.

    python3 tools/release/test_windows.py PATH/TO/kiraly.exe

`make test-release` builds the portable Windows binary and runs this. It
finds Wine as $WINE when set, else as `wine64` or `wine` on PATH; without
any it prints SKIPPED and why, and exits 0, except in CI (the environment
variable CI set, as CI services set it, and not `0` or `false`), where a
test that cannot run fails (exit 1). The Wine
prefix lives in target/wineprefix (its first creation takes 20-40 s).

The checks, each with Windows line endings (`\\r\\n`) as Windows GUIs send:
- a UCI transcript: `uci` (name with version and level, the options),
  a large `Hash` and two `Threads` (no Linux huge pages there),
  `SyzygyPath` with two folders separated by `;` (Windows drive letters
  contain `:`), `isready`, `position ... moves`, `go depth`, `go movetime`,
  `go infinite` and `stop`, `quit`; the transcript is printed;
- the end of standard input ends the engine like `quit`;
- a short game through python-chess between two engine processes with real
  clocks kept by the test, one side pondering and with two threads, as
  lichess-bot plays: every move legal, no clock below zero.

The checks are tools/release/release_checks.py's, which the ARM64 test
makes too; this file says how the binary runs under Wine.
"""

import os
import shutil
import subprocess
import sys
import time
import unittest

# The release tests' shared checks and engine process, beside this script
# (also when test_release_skip.py loads this file by its path).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from release_checks import REPO, TARGET, ReleaseBinaryChecks  # noqa: E402
from uci_process import UciProcess  # noqa: E402

# Wine starts a process in about a second once its prefix exists; the
# machine running CI may be loaded, so each wait has room to spare.
START_TIMEOUT = 60.0
REPLY_TIMEOUT = 30.0

EXE = None
WINE = None


def find_wine():
    """The Wine loader to run a 64-bit Windows program with, or None."""
    if "WINE" in os.environ:
        # Set, it is the only choice: WINE=none runs nothing (and says so).
        candidates = [os.environ["WINE"]]
    else:
        candidates = [shutil.which("wine64"), shutil.which("wine")]
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def in_ci():
    """Whether this runs in CI, where a skipped test must fail."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def wine_env():
    env = dict(os.environ)
    env["WINEPREFIX"] = os.path.join(TARGET, "wineprefix")
    # Wine's own diagnostics would mix with the engine's stderr.
    env["WINEDEBUG"] = "-all"
    # No window system is needed for a console program; keep Wine from
    # looking for one or offering to install Mono and Gecko.
    env.pop("DISPLAY", None)
    env["WINEDLLOVERRIDES"] = "mscoree,mshtml="
    return env


def windows_path(path):
    """A Linux path as the Windows program sees it: Wine maps Z: to /."""
    return "Z:" + os.path.abspath(path).replace("/", "\\")


def Engine(transcript=None):
    """The Windows binary under Wine, sent commands with Windows line endings."""
    return UciProcess([WINE, EXE], cwd=REPO, reply_timeout=REPLY_TIMEOUT, env=wine_env(),
                      newline=b"\r\n", transcript=transcript)


class WindowsBinary(ReleaseBinaryChecks, unittest.TestCase):
    SYSTEM = "kiraly.exe under Wine"
    ARCH = "x86-64"
    # 1 GiB: Windows reserves the whole table at once, so a failure to
    # allocate would show.
    HASH_MB = 1024
    HASH_SECONDS = 10.0
    TB_SEPARATOR = ";"
    SCRATCH = "wine-test"
    START_TIMEOUT = START_TIMEOUT
    REPLY_TIMEOUT = REPLY_TIMEOUT

    def engine(self, transcript=None):
        return Engine(transcript)

    def engine_command(self):
        return [WINE, EXE], {"env": wine_env()}

    def tb_path(self, folder):
        return windows_path(folder)


def main():
    global EXE, WINE
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    EXE = os.path.abspath(sys.argv[1])
    if not os.path.isfile(EXE):
        print(f"test_windows.py: {EXE} not found; build it with `make test-release`")
        return 1
    WINE = find_wine()
    if WINE is None:
        why = ("Wine not found on PATH (Debian: apt-get install wine wine64, "
               "or tools/release/setup.sh --wine); the Windows binary was built but not run")
        if in_ci():
            print(f"test-release: FAILED: {why}; CI is set, so a skip is a failure")
            return 1
        print(f"test-release: SKIPPED: {why}")
        return 0
    # The first start creates the Wine prefix (tens of seconds); done here
    # so that no timed check pays for it.
    started = time.monotonic()
    warm = subprocess.run([WINE, EXE], input=b"quit\r\n", capture_output=True,
                          env=wine_env(), timeout=300)
    print(f"test-release: {WINE} ready in {time.monotonic() - started:.1f} s "
          f"(exit {warm.returncode}), testing {os.path.relpath(EXE, REPO)}")
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(WindowsBinary)
    result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
    # Wine's server outlives the last program by seconds and writes into the
    # prefix meanwhile: wait for it, so that the prefix can be removed.
    server = os.path.join(os.path.dirname(WINE), "wineserver")
    if os.access(server, os.X_OK):
        subprocess.run([server, "-w"], env=wine_env(), timeout=60, check=False)
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
