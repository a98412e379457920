"""One engine process spoken to line by line, for the release tests
(test_windows.py under Wine, test_arm64.py under qemu): every line in and
out goes into a transcript, and `expect` waits for a reply with a deadline."""

import queue
import subprocess
import threading
import time


class UciProcess:
    """`command` run in `cwd` with `env`; commands end in `newline` (Windows
    engines are sent CRLF) and replies lose it."""

    def __init__(self, command, *, cwd, reply_timeout, env=None, newline=b"\n", transcript=None):
        self.proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, env=env, cwd=cwd)
        self.newline = newline
        self.reply_timeout = reply_timeout
        self.lines = queue.Queue()
        self.transcript = transcript if transcript is not None else []
        self.stderr = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read(self):
        strip = self.newline.decode()
        for raw in self.proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip(strip)
            self.transcript.append("< " + line)
            self.lines.put(line)
        self.lines.put(None)

    def _read_stderr(self):
        for raw in self.proc.stderr:
            self.stderr.append(raw.decode("utf-8", "replace").rstrip())

    def send(self, command):
        self.transcript.append("> " + command)
        self.proc.stdin.write(command.encode() + self.newline)
        self.proc.stdin.flush()

    def expect(self, predicate, timeout=None, what="a reply"):
        """The lines up to and including the first that `predicate` accepts."""
        timeout = self.reply_timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout
        seen = []
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {what} within {timeout} s; got {seen[-5:]}; "
                                     f"stderr {self.stderr[-5:]}")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise AssertionError(f"engine exited before {what}; got {seen[-5:]}; "
                                     f"stderr {self.stderr[-5:]}")
            seen.append(line)
            if predicate(line):
                return seen

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def bestmove_of(lines):
    """The move of the `bestmove` line that ends `lines`."""
    return lines[-1].split()[1]
