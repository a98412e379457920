"""tools/build_commit.sh: a commit's engine built from a temporary worktree.

Builds HEAD once (about half a minute with the dependencies built), into
target/commits unless $CARGO_TARGET_DIR says otherwise.
"""

import os
import shutil
import subprocess
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(REPO, "tools", "build_commit.sh")


def worktrees():
    out = subprocess.run(["git", "-C", REPO, "worktree", "list", "--porcelain"],
                         capture_output=True, text=True, check=True).stdout
    return sorted(line for line in out.splitlines() if line.startswith("worktree "))


class BuildCommit(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="kiraly-build-commit-test-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_head_builds_an_engine_and_leaves_no_worktree(self):
        before = worktrees()
        out = os.path.join(self.tmp, "bin", "kiraly-head")
        run = subprocess.run([SCRIPT, "HEAD", out], capture_output=True, text=True, timeout=1200)
        self.assertEqual(run.returncode, 0, run.stderr[-3000:])
        uci = subprocess.run([out], input="uci\nquit\n", capture_output=True, text=True,
                             timeout=30)
        self.assertIn("uciok", uci.stdout)
        self.assertEqual(worktrees(), before, "the temporary worktree is removed")

    def test_an_unknown_commit_is_refused(self):
        out = os.path.join(self.tmp, "kiraly-none")
        run = subprocess.run([SCRIPT, "no-such-commit-here", out], capture_output=True,
                             text=True, timeout=60)
        self.assertEqual(run.returncode, 2)
        self.assertIn("no commit", run.stderr)
        self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main()
