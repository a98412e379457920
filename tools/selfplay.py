#!/usr/bin/env python3
"""The self-play generator as a background service.

    tools/selfplay.py start DATA_DIR [--net embedded|FILE] [--soft-nodes 2000] ...
    tools/selfplay.py status
    tools/selfplay.py pause | resume | stop
    tools/selfplay.py hold -- COMMAND ...    # run COMMAND with the generator paused
    tools/selfplay.py snapshot DEST [--file FILE]   # the whole games so far, for training
    tools/selfplay.py burst OUT --seconds S [--datagen BIN] ...   # every core, then stop
    tools/selfplay.py import MANIFEST DATA_DIR      # a burst's parts into the data folder

`start` runs `datagen play` under a small supervisor that detaches from the
terminal, so one command keeps data piling up until `stop` (or the machine
goes). The supervisor lowers its own priority the two ways Linux needs: nice 19
for the processes and 19 for the autogroup, because Linux schedules each
session's group of processes as a unit and `nice` alone does not make the
group yield to a build or an editor in another session.

Each run appends to a `.kdat` file in DATA_DIR, beside a `.json` sidecar that
records who made it (datagen binary and commit, net hash, settings, seed) and
the CPU seconds spent on it. `start` resumes the newest file whose settings
and net match the ones asked for (datagen cuts a game left half-written by a
kill and continues after the whole games, with the same seed, so no game is
repeated); otherwise it starts a new file. The datagen binary is built from
this tree (unless --datagen names one) and copied into DATA_DIR/bin, so a
rebuild of the tree never changes a running generator; the sidecar lists
every build that wrote to the file.

Pausing. Timed work (tools/match.py with a clock, `kiraly bench` and
`speedtest`, `make bench`) holds the generator: it writes a hold file naming
its process into the service's runtime folder and stops datagen with SIGSTOP;
when the last live holder is gone, datagen continues (SIGCONT). A holder that
dies without releasing is noticed by the supervisor within a second. `pause`
is a hold without a process, lifted by `resume`. Node-limited work needs no
pause. KIRALY_NO_GENERATOR_PAUSE=1 turns holding off for a command.

The runtime folder is KIRALY_SELFPLAY_RUNTIME, else <tmp>/kiraly-selfplay-<uid>:
one service per user and machine, since it uses every core it is given.

Training reads a copy, never the running file: `snapshot` copies the whole
games the service's file (or --file) holds now to DEST and leaves out a game
being written, without pausing the generator (a plain `cp` can end inside a
record, which the trainer rejects).

A burst is the generator for a borrowed machine (the device tool's 16-core
lease): `burst` runs datagen on every core for a fixed time in the
foreground, then cuts its whole games into parts small enough for the files
that come back (BURST_PART_BYTES, at most BURST_MAX_PARTS of them) beside a
manifest that records what a sidecar records and each part's checksum.
`import` joins the parts into one file of the data folder with its sidecar;
`start` never resumes such a file (its seed belongs to the burst).

Standard library only (Linux: /proc, signals, flock).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HEADER_BYTES = 32
PLY_BYTES = 4
DEFAULT_SOFT_NODES = 2000
DEFAULT_HARD_NODES = 20000
DEFAULT_CHESS960 = 0.15
# Rate samples kept by the supervisor (one every SAMPLE_SECS) for `status`.
SAMPLE_SECS = 30
SAMPLES_KEPT = 40
RATE_WINDOW_SECS = 300
# A generator that keeps dying is given up after this many restarts in
# RESTART_WINDOW seconds (a broken binary or a full disk, not bad luck).
MAX_RESTARTS = 5
RESTART_WINDOW = 600
NO_PAUSE_ENV = "KIRALY_NO_GENERATOR_PAUSE"
# A burst's parts: under the 16 MiB a file the device tool brings back, and
# with the manifest and a log within the 8 files and 64 MiB in all it brings
# back. Four parts hold about 14M positions, over half an hour of 16 cores'
# datagen: more than one command of a lease (10 minutes) can write.
BURST_PART_BYTES = 15 << 20
BURST_MAX_PARTS = 4
# How long a stopped burst's datagen has to exit before it is killed.
BURST_STOP_SECS = 10

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The generator is built as `make` builds the engine: for this machine's
# CPU, profile-guided where the toolchain allows (tools/pgo_build.sh: about
# 3 % more positions a second, the same games).
DATAGEN_BUILT = os.path.join(REPO, "target", "pgo", "datagen-for-selfplay")
DATAGEN_BUILD = [os.path.join(REPO, "tools", "pgo_build.sh"), "--datagen", DATAGEN_BUILT]


def runtime_dir() -> str:
    return os.environ.get("KIRALY_SELFPLAY_RUNTIME") or os.path.join(
        tempfile.gettempdir(), f"kiraly-selfplay-{os.getuid()}")


def _path(name: str) -> str:
    return os.path.join(runtime_dir(), name)


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().strip()
    except OSError:
        return None


def _write_atomic(path: str, text: str) -> None:
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie has exited; only its parent has not reaped it yet.
    return _proc_state(pid) not in ("Z", "X", None)


def _proc_state(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def _proc_cpu_seconds(pid: int) -> float:
    """User plus system time of a live process, all its threads."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def datagen_pid() -> int | None:
    text = _read(_path("datagen.pid"))
    pid = int(text) if text and text.isdigit() else None
    return pid if pid and _alive(pid) else None


def supervisor_pid() -> int | None:
    text = _read(_path("supervisor.pid"))
    pid = int(text) if text and text.isdigit() else None
    return pid if pid and _alive(pid) else None


# ---------------------------------------------------------------- holds


def live_holds() -> dict[str, int]:
    """Hold name -> holder pid (0: a manual pause); dead holders are removed."""
    holds = {}
    folder = _path("holds")
    try:
        names = os.listdir(folder)
    except OSError:
        return holds
    for name in names:
        if ".tmp" in name:
            continue
        text = _read(os.path.join(folder, name))
        if text is None:
            continue
        pid = int(text) if text.isdigit() else 0
        if pid == 0 or _alive(pid):
            holds[name] = pid
        else:
            with contextlib.suppress(OSError):
                os.remove(os.path.join(folder, name))
    return holds


def _wait_stopped(pid: int, timeout: float = 2.0) -> None:
    """Returns once every thread of `pid` is stopped (or it is gone)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            states = {_proc_state_task(pid, t) for t in os.listdir(f"/proc/{pid}/task")}
        except OSError:
            return
        if states <= {"T", "t", None}:
            return
        time.sleep(0.002)


def _proc_state_task(pid: int, tid: str) -> str | None:
    try:
        with open(f"/proc/{pid}/task/{tid}/stat", encoding="utf-8") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def apply_holds() -> bool:
    """Stops or continues datagen as the live holds say; True when held."""
    held = bool(live_holds())
    pid = datagen_pid()
    if pid:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGSTOP if held else signal.SIGCONT)
        if held:
            _wait_stopped(pid)
    return held


def add_hold(name: str, pid: int) -> None:
    folder = _path("holds")
    os.makedirs(folder, exist_ok=True)
    _write_atomic(os.path.join(folder, name), str(pid))


def remove_hold(name: str) -> None:
    with contextlib.suppress(OSError):
        os.remove(os.path.join(_path("holds"), name))


@contextlib.contextmanager
def hold(reason: str = "hold", enabled: bool = True):
    """Pauses the generator (if a service runs) for the `with` block.

    Yields True when a running generator was paused. Nested and concurrent
    holds are counted by their files: the generator continues only when the
    last one is released.
    """
    if not enabled or os.environ.get(NO_PAUSE_ENV) == "1" or supervisor_pid() is None:
        yield False
        return
    name = f"{reason}-{os.getpid()}-{time.monotonic_ns()}"
    add_hold(name, os.getpid())
    try:
        apply_holds()
        yield True
    finally:
        remove_hold(name)
        apply_holds()


# ---------------------------------------------------------------- data files


def whole_games(f, offset: int, size: int):
    """The whole games of an open .kdat file from OFFSET (a game's start) up
    to SIZE bytes, as (start, end, plies); a game cut by SIZE is left out.
    Reads only the 32-byte game headers."""
    while offset + HEADER_BYTES <= size:
        f.seek(offset)
        header = f.read(HEADER_BYTES)
        plies = int.from_bytes(header[30:32], "little")
        end = offset + HEADER_BYTES + plies * PLY_BYTES
        if end > size:               # a game being written
            return
        yield offset, end, plies
        offset = end


class RecordCounter:
    """Counts whole games and positions of a .kdat file, reading only the
    32-byte game headers, and resumes where it stopped as the file grows."""

    def __init__(self, path: str):
        self.path = path
        self.offset = 0
        self.games = 0
        self.positions = 0

    def update(self) -> "RecordCounter":
        try:
            with open(self.path, "rb") as f:
                size = os.fstat(f.fileno()).st_size
                if size < self.offset:          # cut by a resumed run
                    self.offset = self.games = self.positions = 0
                for _, end, plies in whole_games(f, self.offset, size):
                    self.games += 1
                    self.positions += plies
                    self.offset = end
        except OSError:
            pass
        return self


def sidecar_path(data_file: str) -> str:
    return os.path.splitext(data_file)[0] + ".json"


def load_sidecar(data_file: str) -> dict:
    try:
        with open(sidecar_path(data_file), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def save_sidecar(data_file: str, meta: dict) -> None:
    _write_atomic(sidecar_path(data_file), json.dumps(meta, indent=2, sort_keys=True) + "\n")


def data_files(data_dir: str) -> list[str]:
    """The service's data files in DATA_DIR, oldest first."""
    files = [os.path.join(data_dir, n) for n in os.listdir(data_dir)
             if n.endswith(".kdat") and os.path.exists(sidecar_path(os.path.join(data_dir, n)))]
    return sorted(files, key=lambda p: (load_sidecar(p).get("created", ""), p))


def _sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _git_commit() -> str:
    try:
        return subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=10).stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def net_hash(datagen: str, net: str) -> str:
    out = subprocess.run([datagen, "net-hash", "--net", net], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"selfplay: {datagen} net-hash --net {net}: {out.stderr.strip()}")
    return out.stdout.strip()


def settings_of(args, net_id: str) -> dict:
    """What makes two runs' data alike enough to share a file."""
    return {
        "net": net_id,
        "soft_nodes": args.soft_nodes,
        "hard_nodes": args.hard_nodes,
        "chess960": args.chess960,
        "random_plies": args.random_plies,
        "book": os.path.abspath(args.book) if args.book else None,
    }


# ---------------------------------------------------------------- commands


def datagen_binary(given: str | None) -> str | None:
    """The datagen binary to run: GIVEN, else built from this tree for this
    machine's CPU. None (and a message) when there is none."""
    if given:
        source = os.path.abspath(given)
    else:
        # Built from this tree first: a binary left over from an older
        # checkout would write what the older code wrote (it once wrote
        # Chess960 games without their castling flag).
        # For this machine's CPU, as `make` builds the engine: the net's
        # AVX2 kernels and the bit instructions (popcnt, BMI2) that a
        # portable build leaves out, and the profile of a few games. The
        # data is the same integer for integer whatever the build.
        if shutil.which("cargo") is None:
            print("selfplay: no cargo here to build datagen; name a binary with --datagen",
                  file=sys.stderr)
            return None
        source = DATAGEN_BUILT
        os.makedirs(os.path.dirname(source), exist_ok=True)
        build = subprocess.run(DATAGEN_BUILD, cwd=REPO, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
        if build.returncode != 0:
            print(f"selfplay: {' '.join(DATAGEN_BUILD)} failed:\n{build.stderr[-2000:]}",
                  file=sys.stderr)
            return None
    if not os.access(source, os.X_OK):
        print(f"selfplay: no datagen binary at {source}", file=sys.stderr)
        return None
    return source


def play_command(datagen: str, output: str, args, seed: int) -> list[str]:
    """`datagen play` with the settings of `start` and `burst`."""
    command = [datagen, "play", "--output", output, "--net", args.net,
               "--soft-nodes", str(args.soft_nodes), "--hard-nodes", str(args.hard_nodes),
               "--random-plies", str(args.random_plies), "--chess960", str(args.chess960),
               "--seed", str(seed), "--progress-secs", "60"]
    if args.threads:
        command += ["--threads", str(args.threads)]
    if args.book:
        command += ["--book", os.path.abspath(args.book)]
    return command


def cmd_start(args) -> int:
    data_dir = os.path.abspath(args.data_dir)
    os.makedirs(data_dir, exist_ok=True)
    os.makedirs(runtime_dir(), exist_ok=True)
    lock = open(_path("lock"), "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        print(f"selfplay: already running (supervisor {supervisor_pid()}); "
              f"`{sys.argv[0]} status` tells more, `stop` ends it", file=sys.stderr)
        return 1
    source = datagen_binary(args.datagen)
    if source is None:
        return 2
    # A private copy, named by its contents: a rebuild of the tree never
    # swaps the binary under a running or restarting generator.
    bin_dir = os.path.join(data_dir, "bin")
    os.makedirs(bin_dir, exist_ok=True)
    datagen = os.path.join(bin_dir, f"datagen-{_sha256(source)[:12]}")
    if not os.path.exists(datagen):
        shutil.copy2(source, datagen + ".tmp")
        os.replace(datagen + ".tmp", datagen)
    net_id = net_hash(datagen, args.net)
    wanted = settings_of(args, net_id)

    data_file = None
    existing = data_files(data_dir)
    if not args.new_file:
        # The newest file with these settings, even if another setting wrote
        # a newer one since: an experiment at other settings in between does
        # not split the main file.
        # A burst's file is never resumed: its seed is the burst's.
        matching = [f for f in existing
                    if load_sidecar(f).get("settings") == wanted and "burst" not in load_sidecar(f)]
        data_file = matching[-1] if matching else None
    if data_file is None:
        seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "little")
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
        name = f"selfplay-{stamp}-{net_id[:8]}-s{args.soft_nodes}-seed{seed}.kdat"
        data_file = os.path.join(data_dir, name)
        save_sidecar(data_file, {
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "settings": wanted,
            "seed": seed,
            "net_spec": args.net,
            "commit": _git_commit(),
            "datagen": os.path.basename(datagen),
            "cpu_seconds": 0.0,
        })
        action = "new file"
    else:
        action = "resuming"
    meta = load_sidecar(data_file)
    if (meta.get("resumed_with") or [meta])[-1].get("datagen") != os.path.basename(datagen):
        # Which builds wrote the file, in order, for the ledger.
        meta.setdefault("resumed_with", []).append({
            "datagen": os.path.basename(datagen), "commit": _git_commit(),
            "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
        save_sidecar(data_file, meta)
    command = play_command(datagen, data_file, args, meta["seed"])
    service = {"data_dir": data_dir, "data_file": data_file, "command": command,
               "started": time.time(), "samples": []}
    _write_atomic(_path("service.json"), json.dumps(service, indent=2) + "\n")
    log = open(os.path.join(data_dir, "selfplay.log"), "a", encoding="utf-8")
    supervisor = subprocess.Popen(
        [sys.executable, os.path.abspath(__file__), "_supervise"],
        stdin=subprocess.DEVNULL, stdout=log, stderr=log,
        start_new_session=True, pass_fds=(lock.fileno(),),
        env={**os.environ, "KIRALY_SELFPLAY_LOCK_FD": str(lock.fileno()),
             "KIRALY_SELFPLAY_RUNTIME": runtime_dir()})
    _write_atomic(_path("supervisor.pid"), str(supervisor.pid))
    # Until the supervisor has started datagen, status would say stopped.
    deadline = time.monotonic() + 10
    while datagen_pid() is None and supervisor.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    if supervisor.poll() is not None:
        print(f"selfplay: the supervisor exited at once; see {data_dir}/selfplay.log", file=sys.stderr)
        return 1
    print(f"selfplay: started ({action} {data_file}, net {net_id}, supervisor {supervisor.pid})")
    return 0


def _set_lowest_priority() -> None:
    os.nice(19 - os.nice(0))
    # The autogroup of this new session: its processes as a whole yield to
    # every other session's (Linux without autogroup has no such file).
    with contextlib.suppress(OSError):
        with open(f"/proc/{os.getpid()}/autogroup", "w", encoding="utf-8") as f:
            f.write("19")


def cmd_supervise(_args) -> int:
    """The detached supervisor: runs datagen, restarts it when it dies,
    enforces the holds, keeps the CPU ledger and the rate samples."""
    _set_lowest_priority()
    service = json.loads(_read(_path("service.json")))
    data_file = service["data_file"]
    stopping = {"now": False}

    def on_term(_sig, _frame):
        stopping["now"] = True
    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)

    def log(message: str) -> None:
        print(time.strftime("%Y-%m-%d %H:%M:%S ", time.gmtime()) + message, flush=True)

    counter = RecordCounter(data_file).update()
    samples = []
    restarts = []
    log(f"supervisor {os.getpid()}: {' '.join(service['command'])}")
    while not stopping["now"]:
        meta = load_sidecar(data_file)
        cpu_before = float(meta.get("cpu_seconds", 0.0))
        child = subprocess.Popen(service["command"], stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=sys.stderr)
        _write_atomic(_path("datagen.pid"), str(child.pid))
        apply_holds()
        last_sample = 0.0
        cpu_seen = 0.0
        exited = None       # (exit code, CPU seconds) once reaped
        while exited is None:
            # wait4 rather than Popen.poll: it also returns the CPU time.
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid == child.pid:
                exited = (os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime)
                break
            if stopping["now"]:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(child.pid, signal.SIGCONT)
                    os.kill(child.pid, signal.SIGTERM)
                _, status, usage = os.wait4(child.pid, 0)
                exited = (os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime)
                break
            apply_holds()
            cpu_seen = max(cpu_seen, _proc_cpu_seconds(child.pid))
            now = time.time()
            if now - last_sample >= SAMPLE_SECS:
                last_sample = now
                counter.update()
                samples = (samples + [[now, counter.positions, counter.games]])[-SAMPLES_KEPT:]
                service["samples"] = samples
                _write_atomic(_path("service.json"), json.dumps(service, indent=2) + "\n")
                meta = load_sidecar(data_file)
                meta["cpu_seconds"] = round(cpu_before + cpu_seen, 1)
                meta["games"], meta["positions"] = counter.games, counter.positions
                save_sidecar(data_file, meta)
            time.sleep(0.5)
        code, cpu = exited
        with contextlib.suppress(OSError):
            os.remove(_path("datagen.pid"))
        meta = load_sidecar(data_file)
        meta["cpu_seconds"] = round(cpu_before + max(cpu, cpu_seen), 1)
        counter.update()
        meta["games"], meta["positions"] = counter.games, counter.positions
        save_sidecar(data_file, meta)
        if stopping["now"]:
            break
        now = time.time()
        restarts = [t for t in restarts if now - t < RESTART_WINDOW] + [now]
        log(f"datagen exited with status {code}")
        if code == 0 or len(restarts) > MAX_RESTARTS:
            log("giving up" if code else "datagen finished")
            break
        time.sleep(1)
        log("restarting datagen (it resumes after the last whole game)")
    log("supervisor stopped")
    for name in ("supervisor.pid", "service.json"):
        with contextlib.suppress(OSError):
            os.remove(_path(name))
    return 0


def cmd_stop(_args) -> int:
    pid = supervisor_pid()
    if pid is None:
        print("selfplay: not running")
        return 0
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 30
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    if _alive(pid):
        print(f"selfplay: supervisor {pid} did not stop in 30 s", file=sys.stderr)
        return 1
    print("selfplay: stopped")
    return 0


def cmd_pause(_args) -> int:
    if supervisor_pid() is None:
        print("selfplay: not running", file=sys.stderr)
        return 1
    add_hold("manual", 0)
    apply_holds()
    print("selfplay: paused (resume with `resume`)")
    return 0


def cmd_resume(_args) -> int:
    remove_hold("manual")
    held = apply_holds()
    others = ", ".join(live_holds())
    print("selfplay: " + (f"still held by {others}" if held else "running"))
    return 0


def cmd_hold(args) -> int:
    command = args.argv[1:] if args.argv[:1] == ["--"] else args.argv
    if not command:
        print("selfplay: hold needs a command", file=sys.stderr)
        return 2
    with hold(os.path.basename(command[0])):
        return subprocess.call(command)


def running_service(pid: int | None) -> dict:
    """What `start` recorded of the service whose supervisor is `pid` (its
    data file, folder and rate samples); empty when none runs (`pid` None)."""
    return json.loads(_read(_path("service.json")) or "{}") if pid else {}


def snapshot(source: str, dest: str) -> RecordCounter:
    """Copies the whole games of SOURCE to DEST (a game still being written at
    its end is left out). The file only grows at its end (a resumed run cuts
    no more than a record left half-written), so the bytes of its whole games
    stay as they are while we copy them."""
    counter = RecordCounter(source).update()
    remaining = counter.offset
    tmp = dest + ".part"
    with open(source, "rb") as src, open(tmp, "wb") as out:
        while remaining > 0:
            chunk = src.read(min(remaining, 1 << 20))
            if not chunk:
                raise OSError(f"{source} shrank while it was copied")
            out.write(chunk)
            remaining -= len(chunk)
    os.replace(tmp, dest)
    return counter


def cmd_snapshot(args) -> int:
    source = args.file
    if source is None:
        source = running_service(supervisor_pid()).get("data_file")
        if source is None:
            print("selfplay: not running; name the file with --file", file=sys.stderr)
            return 1
    if os.path.abspath(source) == os.path.abspath(args.dest):
        print("selfplay: the snapshot must not overwrite its source", file=sys.stderr)
        return 1
    try:
        counter = snapshot(source, args.dest)
    except OSError as e:
        print(f"selfplay: {e}", file=sys.stderr)
        return 1
    print(f"selfplay: {args.dest}: {counter.games} games, {counter.positions} positions "
          f"({counter.offset} bytes) of {source}")
    return 0


def split_whole_games(source: str, prefix: str, part_bytes: int, max_parts: int) -> list[dict]:
    """Copies the whole games of SOURCE into PREFIX.partNN.kdat files of at
    most PART_BYTES each (a game is never split; one longer than that gets a
    part of its own), at most MAX_PARTS of them; games past those are left
    out. Returns each part's file name, games, positions, bytes and sha256."""
    parts: list[dict] = []
    out = None
    digest = None

    def close():
        if out is not None:
            out.close()
            parts[-1]["sha256"] = digest.hexdigest()

    with open(source, "rb") as src:
        size = os.fstat(src.fileno()).st_size
        for start, end, plies in whole_games(src, 0, size):
            if out is None or parts[-1]["bytes"] + (end - start) > part_bytes:
                if len(parts) == max_parts:
                    break
                close()
                name = f"{os.path.basename(prefix)}.part{len(parts) + 1:02d}.kdat"
                out = open(os.path.join(os.path.dirname(prefix), name), "wb")
                digest = hashlib.sha256()
                parts.append({"file": name, "games": 0, "positions": 0, "bytes": 0})
            src.seek(start)
            record = src.read(end - start)
            out.write(record)
            digest.update(record)
            part = parts[-1]
            part["games"] += 1
            part["positions"] += plies
            part["bytes"] += end - start
    close()
    return parts


def _cpu_model() -> str:
    with contextlib.suppress(OSError):
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    return "unknown"


def cmd_burst(args) -> int:
    out_dir = os.path.abspath(args.out)
    os.makedirs(out_dir, exist_ok=True)
    datagen = datagen_binary(args.datagen)
    if datagen is None:
        return 2
    net_id = net_hash(datagen, args.net)
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "little")
    # The cores this process may run on: a container's share, not the host's.
    args.threads = args.threads or len(os.sched_getaffinity(0))
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    name = f"burst-{stamp}-{net_id[:8]}-s{args.soft_nodes}-seed{seed}"
    # Whole games are cut into parts only at the end: datagen writes one
    # file, outside OUT, which must hold nothing but what is to come back.
    work = tempfile.mkdtemp(prefix="kiraly-burst-")
    work_file = os.path.join(work, name + ".kdat")
    command = play_command(datagen, work_file, args, seed)
    # Room below the parts' total for the games that finish meanwhile.
    size_limit = args.max_parts * args.part_bytes - min(1 << 20, args.part_bytes // 2)
    print(f"selfplay: burst of {args.seconds:g} s on {args.threads} threads: {' '.join(command)}",
          flush=True)
    started = time.monotonic()
    child = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    reason = "time"
    exited = None
    while exited is None:
        # wait4 rather than Popen.poll: it also returns the CPU time.
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid == child.pid:
            exited = (os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime)
            reason = "datagen exited"
            break
        full = os.path.exists(work_file) and os.path.getsize(work_file) >= size_limit
        if full or time.monotonic() - started >= args.seconds:
            reason = "size" if full else "time"
            child.send_signal(signal.SIGTERM)
            deadline = time.monotonic() + BURST_STOP_SECS
            while time.monotonic() < deadline:
                pid, status, usage = os.wait4(child.pid, os.WNOHANG)
                if pid == child.pid:
                    break
                time.sleep(0.05)
            else:
                child.kill()
                _, status, usage = os.wait4(child.pid, 0)
            exited = (os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime)
            break
        time.sleep(0.5)
    wall = time.monotonic() - started
    code, cpu = exited
    parts = split_whole_games(work_file, os.path.join(out_dir, name), args.part_bytes,
                              args.max_parts) if os.path.exists(work_file) else []
    written = RecordCounter(work_file).update()
    shutil.rmtree(work, ignore_errors=True)
    games = sum(p["games"] for p in parts)
    positions = sum(p["positions"] for p in parts)
    left_out = written.games - games
    manifest = {
        "name": name,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "settings": settings_of(args, net_id),
        "seed": seed,
        "net_spec": args.net,
        "commit": _git_commit(),
        "datagen": f"datagen-{_sha256(datagen)[:12]}",
        "cpu_seconds": round(cpu, 1),
        "games": games,
        "positions": positions,
        "burst": {"wall_seconds": round(wall, 1), "threads": args.threads,
                  "cpus": len(os.sched_getaffinity(0)), "cpu_model": _cpu_model(), "stopped_by": reason,
                  "games_left_out": left_out, "parts": parts},
    }
    _write_atomic(os.path.join(out_dir, name + ".json"), json.dumps(manifest, indent=2) + "\n")
    print(f"selfplay: burst {name}: {games} games, {positions} positions in {len(parts)} part(s), "
          f"{wall:.0f} s, CPU {_hours(cpu)} ({positions / max(wall, 1e-9):.0f} positions/s); "
          f"manifest {os.path.join(out_dir, name + '.json')}")
    if left_out:
        print(f"selfplay: {left_out} game(s) found no room in {args.max_parts} part(s)",
              file=sys.stderr)
    if reason == "datagen exited" and code != 0:
        print(f"selfplay: datagen exited with status {code} before the end", file=sys.stderr)
        return 1
    return 0


def cmd_import(args) -> int:
    try:
        with open(args.manifest, encoding="utf-8") as f:
            manifest = json.load(f)
        _ = (manifest["name"], manifest["burst"]["parts"])  # the keys import reads
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"selfplay: {args.manifest} is not a burst's manifest ({e!r})", file=sys.stderr)
        return 1
    folder = os.path.dirname(os.path.abspath(args.manifest))
    data_dir = os.path.abspath(args.data_dir)
    os.makedirs(data_dir, exist_ok=True)
    dest = os.path.join(data_dir, manifest["name"] + ".kdat")
    if os.path.exists(dest) or os.path.exists(sidecar_path(dest)):
        print(f"selfplay: {dest} exists already", file=sys.stderr)
        return 1
    tmp = dest + ".part"
    with open(tmp, "wb") as out:
        for part in manifest["burst"]["parts"]:
            path = os.path.join(folder, part["file"])
            with open(path, "rb") as f:
                data = f.read()
            counter = RecordCounter(path).update()
            if (hashlib.sha256(data).hexdigest() != part["sha256"] or counter.offset != len(data)
                    or (counter.games, counter.positions) != (part["games"], part["positions"])):
                out.close()
                os.remove(tmp)
                print(f"selfplay: {path} is not the part the manifest describes", file=sys.stderr)
                return 1
            out.write(data)
    meta = {k: v for k, v in manifest.items() if k != "name"}
    meta["imported"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    save_sidecar(dest, meta)
    os.replace(tmp, dest)
    print(f"selfplay: {dest}: {manifest['games']} games, {manifest['positions']} positions "
          f"from {len(manifest['burst']['parts'])} part(s)")
    return 0


def _hours(seconds: float) -> str:
    return f"{seconds / 3600:.2f} h"


def cmd_status(args) -> int:
    pid = supervisor_pid()
    service = running_service(pid)
    data_dir = args.data_dir or service.get("data_dir")
    if pid is None:
        print("selfplay: not running")
    else:
        gen = datagen_pid()
        holds = live_holds()
        state = ("paused by " + ", ".join(holds)) if holds and gen else "running" if gen else "restarting"
        print(f"selfplay: {state} (supervisor {pid}, datagen {gen or '-'})")
        data_file = service["data_file"]
        meta = load_sidecar(data_file)
        counter = RecordCounter(data_file).update()
        s = meta.get("settings", {})
        print(f"  file       {data_file}")
        # The build running now: the last that resumed the file, else its first.
        build = (meta.get("resumed_with") or [meta])[-1]
        print(f"  net        {s.get('net')} ({meta.get('net_spec')}), datagen {build.get('datagen')}, "
              f"commit {build.get('commit')}")
        print(f"  settings   soft nodes {s.get('soft_nodes')}, hard nodes {s.get('hard_nodes')}, "
              f"Chess960 share {s.get('chess960')}, random plies {s.get('random_plies')}, seed {meta.get('seed')}")
        print(f"  so far     {counter.games} games, {counter.positions} positions, "
              f"CPU {_hours(float(meta.get('cpu_seconds', 0)))}")
        samples = service.get("samples", [])
        recent = [x for x in samples if samples and x[0] >= samples[-1][0] - RATE_WINDOW_SECS]
        if len(recent) >= 2 and recent[-1][0] > recent[0][0]:
            (t0, p0, _), (t1, p1, _) = recent[0], recent[-1]
            print(f"  rate       {(p1 - p0) / (t1 - t0):.0f} positions/s over the last "
                  f"{(t1 - t0) / 60:.1f} min (wall clock, pauses included)")
        else:
            print("  rate       (measured after the first minute)")
    if data_dir and os.path.isdir(data_dir):
        files = data_files(data_dir)
        total_pos = total_games = 0
        total_cpu = 0.0
        print(f"  folder     {data_dir}: {len(files)} file(s)")
        for f in files:
            meta = load_sidecar(f)
            c = RecordCounter(f).update()
            total_pos += c.positions
            total_games += c.games
            total_cpu += float(meta.get("cpu_seconds", 0))
            print(f"    {os.path.basename(f)}: {c.games} games, {c.positions} positions, "
                  f"net {meta.get('settings', {}).get('net')}, CPU {_hours(float(meta.get('cpu_seconds', 0)))}")
        print(f"  in all     {total_games} games, {total_pos} positions, CPU {_hours(total_cpu)}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="selfplay", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True,
                           metavar="{start,status,pause,resume,stop,hold,snapshot,burst,import}")

    def play_settings(parser, what):
        parser.add_argument("--net", default="embedded",
                            help="net to play with: embedded or a .nnue file")
        parser.add_argument("--soft-nodes", type=int, default=DEFAULT_SOFT_NODES)
        parser.add_argument("--hard-nodes", type=int, default=DEFAULT_HARD_NODES)
        parser.add_argument("--chess960", type=float, default=DEFAULT_CHESS960,
                            help="share of games from Chess960 / double Chess960 starts")
        parser.add_argument("--random-plies", type=int, default=8)
        parser.add_argument("--book", help="EPD/FEN openings for the standard games")
        parser.add_argument("--threads", type=int, help="games at once [default: every core]")
        parser.add_argument("--seed", type=int, help=f"seed of {what} [default: random]")
        parser.add_argument("--datagen", help="datagen binary [default: built from this tree for "
                            "this CPU first, by tools/pgo_build.sh --datagen]")

    s = sub.add_parser("start", help="start the generator in the background")
    s.add_argument("data_dir", help="the folder the data lives in (outside the repository)")
    play_settings(s, "a new file")
    s.add_argument("--new-file", action="store_true", help="start a new file even if one matches")
    b = sub.add_parser("burst", help="generate on every core for a fixed time, in parts")
    b.add_argument("out", help="the folder the parts and the manifest go to")
    b.add_argument("--seconds", type=float, required=True, help="how long datagen plays")
    play_settings(b, "the burst (never the service's: the games would repeat)")
    b.add_argument("--part-bytes", type=int, default=BURST_PART_BYTES,
                   help=f"size of a part at most [default: {BURST_PART_BYTES}]")
    b.add_argument("--max-parts", type=int, default=BURST_MAX_PARTS,
                   help=f"parts at most; datagen stops when they are full [default: {BURST_MAX_PARTS}]")
    im = sub.add_parser("import", help="join a burst's parts into a file of the data folder")
    im.add_argument("manifest", help="the burst's manifest (its parts lie beside it)")
    im.add_argument("data_dir", help="the data folder")
    st = sub.add_parser("status", help="what the generator has made and how fast")
    st.add_argument("data_dir", nargs="?", help="also list this folder when not running")
    sub.add_parser("pause", help="pause until `resume`")
    sub.add_parser("resume", help="lift `pause` (timed work may still hold it)")
    sub.add_parser("stop", help="stop the generator (a game in progress is lost)")
    h = sub.add_parser("hold", help="run a command with the generator paused")
    h.add_argument("argv", nargs=argparse.REMAINDER, metavar="-- COMMAND ...")
    sn = sub.add_parser("snapshot", help="copy the whole games written so far (for training)")
    sn.add_argument("dest", help="the copy to write")
    sn.add_argument("--file", help="the data file [default: the running service's]")
    sub.add_parser("_supervise")
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    return {
        "start": cmd_start, "status": cmd_status, "pause": cmd_pause, "resume": cmd_resume,
        "stop": cmd_stop, "hold": cmd_hold, "snapshot": cmd_snapshot,
        "burst": cmd_burst, "import": cmd_import,
        "_supervise": cmd_supervise,
    }[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
