"""When the Windows test (tools/release/test_windows.py) runs, skips or
fails: Wine is looked for on PATH (or $WINE), and where none is found the
test skips with exit 0, except in CI (the variable CI set), where it fails.

    python3 -m unittest tools/test_release_skip.py
"""

import importlib.util
import os
import stat
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "release", "test_windows.py")


def load_test_windows():
    spec = importlib.util.spec_from_file_location("test_windows", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_without_wine(ci):
    """test_windows.py on an existing file with no Wine to be found."""
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["WINE"] = os.path.join(tempfile.gettempdir(), "no-such-wine")
    if ci is not None:
        env["CI"] = ci
    return subprocess.run([sys.executable, SCRIPT, SCRIPT], env=env,
                          capture_output=True, text=True, timeout=60)


class WineOnPath(unittest.TestCase):
    def setUp(self):
        self.module = load_test_windows()
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def executable(self, name):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            f.write("#!/bin/sh\n")
        os.chmod(path, stat.S_IRWXU)
        return path

    def find(self):
        env = {k: v for k, v in os.environ.items() if k != "WINE"}
        env["PATH"] = self.dir.name
        with mock.patch.dict(os.environ, env, clear=True):
            return self.module.find_wine()

    def test_nothing_on_path_is_none(self):
        self.assertIsNone(self.find())

    def test_wine64_then_wine(self):
        wine = self.executable("wine")
        self.assertEqual(self.find(), wine)
        wine64 = self.executable("wine64")
        self.assertEqual(self.find(), wine64)

    def test_wine_variable_is_the_only_choice(self):
        self.executable("wine64")
        with mock.patch.dict(os.environ, {"WINE": "/nonexistent/wine"}):
            self.assertIsNone(self.module.find_wine())


class SkipOrFail(unittest.TestCase):
    def test_a_skip_passes_outside_ci(self):
        for ci in (None, "", "0", "false"):
            run = run_without_wine(ci)
            self.assertEqual(run.returncode, 0, f"CI={ci!r}: {run.stdout}{run.stderr}")
            self.assertIn("test-release: SKIPPED: Wine not found", run.stdout)

    def test_a_skip_fails_in_ci(self):
        for ci in ("1", "true"):
            run = run_without_wine(ci)
            self.assertEqual(run.returncode, 1, f"CI={ci!r}: {run.stdout}{run.stderr}")
            self.assertIn("test-release: FAILED: Wine not found", run.stdout)
            self.assertNotIn("SKIPPED", run.stdout)


if __name__ == "__main__":
    unittest.main()
