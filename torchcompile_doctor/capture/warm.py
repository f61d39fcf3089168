"""The parent's side of the warm process (capture/warm_server.py): started once per `doctor fix`, it imports torch
once, then forks the capture child of the plain run and of each trial. A child started here is waited for, polled
and stopped as the runner does a cold one (`WarmChild` answers as subprocess.Popen does: pid, poll, wait); it
leads a process group of its own, so stopping it stops what it started."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO

from torchcompile_doctor.capture.warm_server import Request, request_line
from torchcompile_doctor.errors import DoctorError

WARM_UP_S = 120.0  # the longest the warm process may take to import torch before the trials go cold
START_S = 30.0  # the longest a fork may take to be answered
GONE = -signal.SIGKILL  # the status of a child whose warm process ended before it did (nobody can wait for it)


class WarmChild:
    """One capture child forked by the warm process, as the runner waits for it."""

    def __init__(self, pid: int, processes: WarmProcesses) -> None:
        self.pid = pid
        self.returncode: int | None = None
        self._ended = threading.Event()
        self._processes = processes

    def ended(self, code: int) -> None:
        self.returncode = code
        self._ended.set()

    def poll(self) -> int | None:
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if not self._ended.wait(timeout):
            raise subprocess.TimeoutExpired(f"capture child {self.pid}", timeout or 0.0)
        assert self.returncode is not None
        return self.returncode


class WarmProcesses:
    """The warm process and the children it forked. `ready()` says whether it is warm (False: it failed to
    start, the trials go cold); `start` forks one child; `close` ends the warm process."""

    def __init__(self, command: list[str]) -> None:
        environment = {name: value for name, value in os.environ.items() if name != "TORCH_TRACE"}
        self._process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=environment,
            start_new_session=True,  # a Ctrl-C is the doctor's; it ends this process itself
        )
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._gone = threading.Event()
        self._next = 0
        self._started: dict[int, int] = {}  # request id -> pid
        self._answered = threading.Condition(self._lock)
        self._children: dict[int, WarmChild] = {}
        self._exited: dict[int, int] = {}  # pid -> status, for an exit read before its child was made
        self._reader = threading.Thread(target=self._read, args=(self._process.stdout,), daemon=True)
        self._reader.start()

    def _read(self, stream: IO[bytes] | None) -> None:
        assert stream is not None
        for raw in stream:
            words = raw.decode().split()
            if words == ["ready"]:
                self._ready.set()
            elif len(words) == 3 and words[0] == "started":
                with self._lock:
                    self._started[int(words[1])] = int(words[2])
                    self._answered.notify_all()
            elif len(words) == 3 and words[0] == "exited":
                self._exit(int(words[1]), int(words[2]))
        with self._lock:
            self._gone.set()
            self._answered.notify_all()
            waiting = [child for child in self._children.values() if child.returncode is None]
        for child in waiting:
            child.ended(GONE)
        self._ready.set()

    def _exit(self, pid: int, code: int) -> None:
        with self._lock:
            child = self._children.get(pid)
            if child is None:
                self._exited[pid] = code
        if child is not None:
            child.ended(code)

    def ready(self, timeout_s: float = WARM_UP_S) -> bool:
        """Whether the warm process is warm (waits for it)."""
        return self._ready.wait(timeout_s) and not self._gone.is_set()

    def start(self, spec: str, env: Mapping[str, str], cwd: str | None, stdout: Path, stderr: Path) -> WarmChild:
        """Fork a capture child that runs `spec` (DoctorError: the warm process cannot)."""
        request = Request(spec, dict(env), cwd, str(stdout), str(stderr))
        with self._lock:
            self._next += 1
            ident = self._next
            line = request_line(ident, request)
            stdin = self._process.stdin
            if self._gone.is_set() or stdin is None:
                raise DoctorError("the warm process of the trials has ended")
            stdin.write(line)
            stdin.flush()
            deadline = time.monotonic() + START_S
            while ident not in self._started and not self._gone.is_set() and time.monotonic() < deadline:
                self._answered.wait(deadline - time.monotonic())
            pid = self._started.pop(ident, None)
            if pid is None:
                raise DoctorError("the warm process of the trials did not start a trial")
            child = WarmChild(pid, self)
            self._children[pid] = child
            code = self._exited.pop(pid, None)
        if code is not None:
            child.ended(code)
        return child

    def close(self) -> None:
        """End the warm process at once, warm or still importing (its children have been waited for by then)."""
        self._process.kill()
        self._process.wait()
        self._reader.join(timeout=5.0)
        if self._process.stdin is not None:
            self._process.stdin.close()
