"""tools/generation.py: the generation recipe's commands, and a tiny
generation end to end (datagen games, the trainer, a screen with the engine).

Binaries: $DATAGEN_BIN, $TRAINER_BIN (else target/release/trainer) and
$MATCH_ENGINE, as `make test-tools` sets them.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_datagen_pgn import datagen_path, workspace_binary  # noqa: E402
from test_match import REPO, require_engine  # noqa: E402

SCRIPT = os.path.join(REPO, "tools", "generation.py")


def dry(*args):
    out = subprocess.run([sys.executable, SCRIPT, *args, "--dry-run"],
                         capture_output=True, text=True, check=True)
    return out.stdout.split()


def flag(argv, name):
    return argv[argv.index(name) + 1]


class Recipe(unittest.TestCase):
    def test_train_runs_the_trainer_with_the_recipe(self):
        argv = dry("train", "g13-a", "--data", "old.kdat", "--data", "new.kdat",
                   "--init", "embedded", "--seed", "20261470", "--out-dir", "/d")
        self.assertEqual([argv[i + 1] for i, a in enumerate(argv) if a == "--data"],
                         ["old.kdat", "new.kdat"], "files in the order given")
        self.assertIn("--factoriser", argv)
        self.assertEqual(flag(argv, "--buckets"), "4")
        self.assertEqual(flag(argv, "--output-buckets"), "8")
        self.assertEqual(flag(argv, "--epochs"), "3")
        self.assertEqual(flag(argv, "--lr"), "0.0002")
        self.assertEqual(flag(argv, "--final-lr-ratio"), "0.003")
        self.assertEqual(flag(argv, "--lambda"), "0.1")
        self.assertEqual(flag(argv, "--init"), "embedded")
        self.assertEqual(flag(argv, "--seed"), "20261470")
        self.assertEqual(flag(argv, "--out"), os.path.join("/d", "nets", "g13-a"))

    def test_accept_is_an_sprt_at_8_0_08_unless_a_part(self):
        argv = dry("accept", "/d/nets/g13-a/final.nnue", "--base", "/b/kiraly", "--seed", "9",
                   "--out-dir", "/d")
        self.assertEqual(flag(argv, "--tc"), "8+0.08")
        self.assertEqual(flag(argv, "--games"), "400")
        self.assertEqual(argv[argv.index("--sprt") + 1:argv.index("--sprt") + 3],
                         ["elo0=0", "elo1=5"])
        self.assertIn("name=g13-a", argv)
        self.assertIn("option.EvalFile=/d/nets/g13-a/final.nnue", argv)
        self.assertEqual(argv.count("cmd=/b/kiraly"), 2, "both sides are the base build")
        self.assertEqual(flag(argv, "--json"), "/d/matches/g13-a-accept.json")
        self.assertNotIn("--nodes", argv)
        part = dry("accept", "/d/nets/g13-a/final.nnue", "--base", "/b/kiraly", "--seed", "9",
                   "--games", "100", "--part", "2", "--out-dir", "/d")
        self.assertNotIn("--sprt", part)
        self.assertEqual(flag(part, "--games"), "100")
        self.assertEqual(flag(part, "--json"), "/d/matches/g13-a-accept-part2.json")

    def test_screen_is_node_limited(self):
        argv = dry("screen", "cand.nnue", "--base", "/b/kiraly", "--seed", "9")
        self.assertEqual(flag(argv, "--nodes"), "25000")
        self.assertEqual(flag(argv, "--games"), "600")
        self.assertNotIn("--tc", argv)
        self.assertNotIn("--sprt", argv)


class KeepCandidate(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="kiraly-keep-test-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def keep(self, net, datagen=None):
        return subprocess.run([sys.executable, SCRIPT, "keep", net,
                               "--datagen", datagen or datagen_path(self),
                               "--dest", os.path.join(self.tmp, "kept")],
                              capture_output=True, text=True, timeout=60)

    def test_a_net_is_copied_under_its_name_and_hash(self):
        net = os.path.join(self.tmp, "nets", "g13-z", "final.nnue")
        os.makedirs(os.path.dirname(net))
        shutil.copy(os.path.join(REPO, "nets", "default.nnue"), net)
        for _ in range(2):  # keeping it again is no error
            out = self.keep(net)
            self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        hash_ = subprocess.run([datagen_path(self), "net-hash", "--net", net],
                               capture_output=True, text=True, check=True).stdout.strip()
        with open(net, "rb") as a, \
                open(os.path.join(self.tmp, "kept", f"g13-z-{hash_[:8]}.nnue"), "rb") as b:
            self.assertEqual(a.read(), b.read())

    def test_a_damaged_net_is_refused(self):
        with open(os.path.join(REPO, "nets", "default.nnue"), "rb") as f:
            data = bytearray(f.read())
        data[-1] ^= 1
        net = os.path.join(self.tmp, "bad.nnue")
        with open(net, "wb") as f:
            f.write(data)
        out = self.keep(net)
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "kept")))

    def test_a_missing_datagen_is_named(self):
        out = self.keep(os.path.join(REPO, "nets", "default.nnue"),
                        datagen=os.path.join(self.tmp, "no-datagen"))
        self.assertEqual(out.returncode, 2, out.stderr)
        self.assertIn("no-datagen", out.stderr)
        self.assertNotIn("Traceback", out.stderr)


class TinyGeneration(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="kiraly-generation-test-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_train_then_screen(self):
        datagen, engine = datagen_path(self), require_engine(self)
        trainer = workspace_binary(self, "trainer", "TRAINER_BIN")
        data = os.path.join(self.tmp, "games.kdat")
        subprocess.run([datagen, "play", "-o", data, "--games", "8", "--threads", "1",
                        "--soft-nodes", "200", "--hard-nodes", "2000", "--seed", "5",
                        "--net", "embedded"], check=True, capture_output=True, timeout=300)
        train = subprocess.run(
            [sys.executable, SCRIPT, "train", "tiny", "--data", data, "--init", "embedded",
             "--seed", "3", "--epochs", "1", "--threads", "1", "--trainer", trainer,
             "--out-dir", self.tmp], capture_output=True, text=True, timeout=300)
        self.assertEqual(train.returncode, 0, train.stdout + train.stderr)
        net = os.path.join(self.tmp, "nets", "tiny", "final.nnue")
        self.assertTrue(os.path.isfile(net), train.stdout + train.stderr)
        screen = subprocess.run(
            [sys.executable, SCRIPT, "screen", net, "--base", engine, "--seed", "4",
             "--nodes", "300", "--games", "2", "--out-dir", self.tmp],
            capture_output=True, text=True, timeout=300)
        self.assertEqual(screen.returncode, 0, screen.stdout + screen.stderr)
        with open(os.path.join(self.tmp, "matches", "tiny-screen.json"), encoding="utf-8") as f:
            summary = json.load(f)
        pairing = summary["pairings"][0]
        self.assertEqual((pairing["first"], pairing["second"]), ("tiny", "base"))
        self.assertEqual(pairing["wins"] + pairing["draws"] + pairing["losses"], 2)


if __name__ == "__main__":
    unittest.main()
