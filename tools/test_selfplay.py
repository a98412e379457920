"""The self-play generator service (tools/selfplay.py) end to end.

Starts the real datagen binary ($DATAGEN_BIN, else target/release/datagen) as
a service in a private runtime folder with tiny searches, and checks: a second
`start` is refused; `status` reports the file, net, games and positions;
`pause`/`resume` stop and continue the process; a clocked tools/match.py match
holds it for exactly as long as it plays, a node-limited one does not; a kill
in the middle of a game loses only that game (the supervisor restarts datagen,
which resumes after the whole games with the same seed); `stop` ends it and a
new `start` resumes the same file; `kiraly bench` holds it too.

`burst` (the generator for a borrowed machine, in the foreground): its parts
are whole games within their size, together exactly the games a plain
`datagen play` of that seed writes; it stops at its time; `import` joins the
parts into a data-folder file with its sidecar, refuses a part that is not
the manifest's, and `start` never resumes the imported file. Its default
parts fit the files and bytes the device tool brings back.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import selfplay  # noqa: E402  (the burst's defaults)
from test_datagen_pgn import datagen_path, read_records  # noqa: E402
from test_match import REPO, require_engine  # noqa: E402

SELFPLAY = os.path.join(REPO, "tools", "selfplay.py")
MATCH = os.path.join(REPO, "tools", "match.py")


def proc_state(pid):
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def wait_for(predicate, timeout=30.0, step=0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    return predicate()


class BurstDefaults(unittest.TestCase):
    def test_default_parts_fit_what_the_device_tool_brings_back(self):
        # The device tool brings back at most 8 files of at most 16 MiB each
        # and 64 MiB in all; beside the parts come the manifest and a log.
        self.assertLess(selfplay.BURST_PART_BYTES, 16 << 20)
        self.assertLessEqual(selfplay.BURST_MAX_PARTS + 2, 8)
        parts_and_beside = selfplay.BURST_MAX_PARTS * selfplay.BURST_PART_BYTES + (1 << 20)
        self.assertLessEqual(parts_and_beside, 64 << 20)


@unittest.skipUnless(sys.platform.startswith("linux"), "the service uses /proc and signals")
class SelfPlayService(unittest.TestCase):
    def setUp(self):
        self.datagen = datagen_path(self)
        self.tmp = tempfile.mkdtemp(prefix="kiraly-selfplay-test-")
        self.data = os.path.join(self.tmp, "data")
        self.env = {**os.environ, "KIRALY_SELFPLAY_RUNTIME": os.path.join(self.tmp, "run")}
        self.env.pop("KIRALY_NO_GENERATOR_PAUSE", None)

    def tearDown(self):
        self.sp("stop", check=False)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def sp(self, *args, check=True):
        out = subprocess.run([sys.executable, SELFPLAY, *args], env=self.env,
                             capture_output=True, text=True, timeout=60)
        if check:
            self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        return out

    def start(self):
        return self.sp("start", self.data, "--datagen", self.datagen, "--soft-nodes", "200",
                       "--hard-nodes", "2000", "--threads", "1", "--seed", "3",
                       "--chess960", "0.5")

    def pid(self):
        try:
            with open(os.path.join(self.tmp, "run", "datagen.pid"), encoding="utf-8") as f:
                pid = int(f.read())
            return pid if proc_state(pid) not in (None, "Z") else None
        except (OSError, ValueError):
            return None

    def data_files(self):
        if not os.path.isdir(self.data):
            return []
        return [f for f in os.listdir(self.data) if f.endswith(".kdat")]

    def data_file(self):
        files = self.data_files()
        self.assertEqual(len(files), 1, files)
        return os.path.join(self.data, files[0])

    def games(self):
        # `start` returns once datagen runs (or after 10 s); datagen, at the
        # lowest priority, creates its file a moment later, later still on a
        # loaded machine, so no file yet counts as no games yet.
        if not self.data_files():
            return 0
        return len(read_records(self.data_file()))

    def test_snapshot_copies_whole_games_only(self):
        self.start()
        self.assertTrue(wait_for(lambda: self.games() >= 2), "no games written")
        # While the service writes: the copy is whole games, a prefix of the file.
        live = os.path.join(self.tmp, "live-snap.kdat")
        out = self.sp("snapshot", live)
        self.assertRegex(out.stdout, r"live-snap.kdat: \d+ games, \d+ positions")
        self.sp("stop")
        with open(live, "rb") as f:
            copied = f.read()
        with open(self.data_file(), "rb") as f:
            whole = f.read()
        self.assertTrue(whole.startswith(copied))
        games = read_records(live)
        self.assertGreaterEqual(len(games), 2)
        self.assertIn(f": {len(games)} games,", out.stdout)
        # A file ending inside a record (a copy taken mid-write): the
        # snapshot leaves the cut record out, and datagen reads every game.
        cut = os.path.join(self.tmp, "cut.kdat")
        with open(cut, "wb") as f:
            f.write(whole + whole[:32 + 4 * 3])
        snap = os.path.join(self.tmp, "snap.kdat")
        self.sp("snapshot", snap, "--file", cut)
        with open(snap, "rb") as f:
            self.assertEqual(f.read(), whole)
        stats = subprocess.run([self.datagen, "stats", snap], capture_output=True, text=True)
        self.assertEqual(stats.returncode, 0, stats.stderr)
        self.assertIn(str(len(read_records(snap))), stats.stdout + stats.stderr)
        refused = self.sp("snapshot", cut, "--file", cut, check=False)
        self.assertEqual(refused.returncode, 1)

    def test_service_lifecycle(self):
        out = self.start()
        self.assertIn("new file", out.stdout)
        refused = self.sp("start", self.data, "--datagen", self.datagen, check=False)
        self.assertEqual(refused.returncode, 1)
        self.assertIn("already running", refused.stderr)

        first = self.pid()
        self.assertIsNotNone(first)
        self.assertTrue(wait_for(lambda: self.games() >= 3), "no games written")
        status = self.sp("status").stdout
        self.assertIn("running", status)
        self.assertIn(self.data_file(), status)
        self.assertRegex(status, r"net +[0-9a-f]{16} \(embedded\)")
        self.assertRegex(status, r"so far +\d+ games, \d+ positions, CPU")
        self.assertIn("Chess960 share 0.5", status)

        # pause / resume
        self.sp("pause")
        self.assertEqual(proc_state(first), "T")
        self.assertIn("paused by manual", self.sp("status").stdout)
        held = self.games()
        time.sleep(1.0)
        self.assertEqual(self.games(), held, "games written while paused")
        self.sp("resume")
        self.assertNotEqual(proc_state(first), "T")

        # a kill in the middle of a game: the supervisor restarts datagen,
        # which keeps every whole game and repeats none.
        before = self.games()
        os.kill(first, 9)
        second = wait_for(lambda: self.pid() if self.pid() not in (None, first) else None)
        self.assertIsNotNone(second, "datagen was not restarted")
        self.assertTrue(wait_for(lambda: self.games() > before + 2), "no games after the restart")

        # stop, then start resumes the same file
        self.sp("stop")
        self.assertIsNone(self.pid())
        self.assertIn("not running", self.sp("status").stdout)
        count = self.games()
        # Resumed by another build (the same code, one byte longer): the
        # sidecar and status name the build that writes now.
        other = os.path.join(self.tmp, "datagen-other")
        shutil.copy2(self.datagen, other)
        with open(other, "ab") as f:
            f.write(b"\0")
        out = self.sp("start", self.data, "--datagen", other, "--soft-nodes", "200",
                      "--hard-nodes", "2000", "--threads", "1", "--seed", "3",
                      "--chess960", "0.5")
        self.assertIn("resuming", out.stdout)
        with open(self.data_file()[:-len(".kdat")] + ".json", encoding="utf-8") as f:
            meta = json.load(f)
        resumed = [r["datagen"] for r in meta.get("resumed_with", [])]
        self.assertEqual(len(resumed), 1, meta)
        self.assertNotEqual(resumed[0], meta["datagen"])
        self.assertIn(f"datagen {resumed[0]},", self.sp("status").stdout)
        self.assertTrue(wait_for(lambda: self.games() > count), "the resumed run wrote nothing")
        self.sp("stop")
        self.assertEqual(len(read_records(self.data_file())), self.games())
        # The games are a function of the seed and their number only: a
        # fresh run of as many games with the same seed writes the same bytes,
        # so the kill and the restart lost and repeated nothing.
        reference = os.path.join(self.tmp, "reference.kdat")
        n = self.games()
        subprocess.run([self.datagen, "play", "--output", reference, "--net", "embedded",
                        "--soft-nodes", "200", "--hard-nodes", "2000", "--random-plies", "8",
                        "--chess960", "0.5", "--seed", "3", "--threads", "1", "--games", str(n)],
                       check=True, capture_output=True, timeout=300)
        with open(reference, "rb") as a, open(self.data_file(), "rb") as b:
            self.assertEqual(a.read(), b.read())

    def test_start_resumes_the_newest_file_with_its_settings(self):
        self.start()
        self.assertTrue(wait_for(lambda: self.games() >= 1), "no games written")
        self.sp("stop")
        first = self.data_file()
        other = self.sp("start", self.data, "--datagen", self.datagen, "--soft-nodes", "300",
                        "--hard-nodes", "3000", "--threads", "1", "--seed", "4")
        self.assertIn("new file", other.stdout)
        self.sp("stop")
        again = self.start()
        self.assertIn(f"resuming {first}", again.stdout)
        self.assertEqual(len(self.data_files()), 2)

    def burst(self, out, *extra):
        return self.sp("burst", out, "--datagen", self.datagen, "--soft-nodes", "200",
                       "--hard-nodes", "2000", "--threads", "1", "--chess960", "0.5", *extra)

    def test_burst_parts_import_and_no_resume(self):
        out = os.path.join(self.tmp, "out")
        result = self.burst(out, "--seconds", "30", "--seed", "3", "--part-bytes", "4000",
                            "--max-parts", "3")
        manifests = [n for n in os.listdir(out) if n.endswith(".json")]
        self.assertEqual(len(manifests), 1, os.listdir(out))
        with open(os.path.join(out, manifests[0]), encoding="utf-8") as f:
            manifest = json.load(f)
        parts = manifest["burst"]["parts"]
        # Three parts fill up long before 30 s: the size stops datagen.
        self.assertEqual(manifest["burst"]["stopped_by"], "size", result.stdout)
        self.assertEqual(len(parts), 3)
        self.assertEqual(sorted(n for n in os.listdir(out) if n.endswith(".kdat")),
                         [p["file"] for p in parts])
        joined = b""
        for part in parts:
            path = os.path.join(out, part["file"])
            with open(path, "rb") as f:
                data = f.read()
            self.assertLessEqual(len(data), 4000)
            games = read_records(path)
            self.assertEqual(len(games), part["games"])
            self.assertEqual(sum(len(g[1]) for g in games), part["positions"])
            joined += data
        self.assertEqual(manifest["games"], sum(p["games"] for p in parts))
        # The games are those a plain run of the seed writes, none cut.
        reference = os.path.join(self.tmp, "reference.kdat")
        subprocess.run([self.datagen, "play", "--output", reference, "--net", "embedded",
                        "--soft-nodes", "200", "--hard-nodes", "2000", "--random-plies", "8",
                        "--chess960", "0.5", "--seed", "3", "--threads", "1",
                        "--games", str(manifest["games"])],
                       check=True, capture_output=True, timeout=300)
        with open(reference, "rb") as f:
            self.assertEqual(joined, f.read())

        # A part that is not the manifest's is refused, and nothing is left.
        bad = os.path.join(self.tmp, "bad")
        shutil.copytree(out, bad)
        with open(os.path.join(bad, parts[1]["file"]), "r+b") as f:
            f.seek(40)
            f.write(b"\xff")
        refused = self.sp("import", os.path.join(bad, manifests[0]), self.data, check=False)
        self.assertEqual(refused.returncode, 1)
        self.assertIn("is not the part", refused.stderr)
        self.assertFalse(os.path.exists(self.data) and os.listdir(self.data))

        self.sp("import", os.path.join(out, manifests[0]), self.data)
        name = manifest["name"]
        with open(os.path.join(self.data, name + ".kdat"), "rb") as f:
            self.assertEqual(f.read(), joined)
        with open(os.path.join(self.data, name + ".json"), encoding="utf-8") as f:
            meta = json.load(f)
        self.assertEqual(meta["settings"], manifest["settings"])
        self.assertIn("burst", meta)
        self.assertIn(f"{name}.kdat: {manifest['games']} games", self.sp("status", self.data).stdout)
        again = self.sp("import", os.path.join(out, manifests[0]), self.data, check=False)
        self.assertEqual(again.returncode, 1)
        # Not a manifest: refused with a message, no traceback.
        wrong = self.sp("import", os.path.join(self.data, name + ".kdat"), self.data, check=False)
        self.assertEqual(wrong.returncode, 1)
        self.assertIn("is not a burst's manifest", wrong.stderr)
        # The service's settings are the burst's, but its seed is not: a
        # new file, not the burst's.
        self.assertIn("new file", self.start().stdout)

    def test_burst_stops_at_its_time(self):
        out = os.path.join(self.tmp, "out")
        started = time.monotonic()
        self.burst(out, "--seconds", "2", "--seed", "4")
        self.assertLess(time.monotonic() - started, 20)
        [manifest] = [n for n in os.listdir(out) if n.endswith(".json")]
        with open(os.path.join(out, manifest), encoding="utf-8") as f:
            burst = json.load(f)["burst"]
        self.assertEqual(burst["stopped_by"], "time")
        self.assertGreaterEqual(burst["wall_seconds"], 2)
        self.assertEqual(len(burst["parts"]), 1)
        self.assertGreater(burst["parts"][0]["games"], 0)

    def test_timed_work_holds_the_generator(self):
        engine = require_engine(self)
        self.start()
        pid = self.pid()
        self.assertTrue(wait_for(lambda: proc_state(pid) in ("R", "S")))

        seen = []
        def watch(stop):
            while not stop.is_set():
                seen.append(proc_state(pid))
                time.sleep(0.01)

        def run_match(limit):
            stop = threading.Event()
            seen.clear()
            watcher = threading.Thread(target=watch, args=(stop,))
            watcher.start()
            out = subprocess.run(
                [sys.executable, MATCH, "--engine", f"cmd={engine}", "name=a",
                 "--engine", f"cmd={engine}", "name=b", *limit, "--games", "2", "--quiet"],
                env=self.env, capture_output=True, text=True, timeout=120)
            stop.set()
            watcher.join()
            self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
            return out.stdout

        # While a clocked match plays, datagen is stopped the whole time ...
        stdout = run_match(["--tc", "0.5+0.02"])
        self.assertIn("generator paused", stdout)
        middle = seen[len(seen) // 4: 3 * len(seen) // 4]
        self.assertTrue(middle and all(s == "T" for s in middle), set(middle))
        # ... and runs again once it has finished.
        self.assertTrue(wait_for(lambda: proc_state(pid) != "T", timeout=5))
        # A node-limited match is not timed work.
        stdout = run_match(["--nodes", "2000"])
        self.assertNotIn("generator paused", stdout)
        self.assertNotIn("T", seen[len(seen) // 4: 3 * len(seen) // 4])

        # `kiraly bench` holds it too, and lets it go.
        bench = subprocess.run([engine, "bench", "4"], env=self.env, capture_output=True,
                               text=True, timeout=120)
        self.assertEqual(bench.returncode, 0)
        self.assertIn(f"generator {pid} paused", bench.stderr)
        self.assertTrue(wait_for(lambda: proc_state(pid) != "T", timeout=5))
        # The engine's own opt-out.
        quiet = subprocess.run([engine, "bench", "2"], capture_output=True, text=True,
                               env={**self.env, "KIRALY_NO_GENERATOR_PAUSE": "1"}, timeout=120)
        self.assertNotIn("paused", quiet.stderr)
        # A holder that dies without releasing does not hold for ever.
        holder = subprocess.Popen([sys.executable, SELFPLAY, "hold", "--", "sleep", "30"],
                                  env=self.env)
        self.assertTrue(wait_for(lambda: proc_state(pid) == "T", timeout=10))
        holder.kill()
        holder.wait()
        # (the `sleep` child lives on; its holder process is gone)
        self.assertTrue(wait_for(lambda: proc_state(pid) != "T", timeout=5),
                        "a dead holder kept the generator paused")


if __name__ == "__main__":
    unittest.main()
