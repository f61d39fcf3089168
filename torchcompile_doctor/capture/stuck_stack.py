"""Where a target stopped by `--timeout` was stuck: the child arms `faulthandler` on a real-time signal
(it dumps every thread's stack from C, so it works while the program is blocked in C code too); the
parent sends that signal just before stopping the child and reads the main thread's stack from the file.
"""

from __future__ import annotations

import faulthandler
import re
import signal
import threading
from typing import Any

# A real-time signal programs leave alone (SIGUSR1 often means "checkpoint and requeue" on clusters).
STACK_SIGNAL = signal.SIGRTMIN + 5
_HEADER = "main thread 0x{ident:016x}\n"
_THREAD = re.compile(r"^(?:Current thread|Thread) (0x[0-9a-fA-F]+)")
_FRAME = re.compile(r'^\s+File "(.*)", line (\d+) in (.+)$')

_armed: list[Any] = []  # the open file faulthandler writes to must stay open


def arm(path: str) -> None:
    """In the child: on STACK_SIGNAL, write every thread's stack to `path` (the main thread named first)."""
    stream = open(path, "w", encoding="utf-8")  # noqa: SIM115 - open for the life of the process
    stream.write(_HEADER.format(ident=threading.main_thread().ident or 0))
    stream.flush()
    faulthandler.register(STACK_SIGNAL, file=stream, all_threads=True, chain=False)
    _armed.append(stream)


def main_thread_stack(text: str) -> list[dict[str, Any]]:
    """The main thread's frames from a faulthandler dump, outermost first (as a traceback lists them)."""
    lines = text.splitlines()
    if not lines or not lines[0].startswith("main thread "):
        return []
    main = int(lines[0].split()[-1], 16)
    frames: list[dict[str, Any]] = []
    in_main = False
    for line in lines[1:]:
        thread = _THREAD.match(line)
        if thread:
            in_main = int(thread.group(1), 16) == main
            continue
        frame = _FRAME.match(line)
        if in_main and frame:
            frames.append({"file": frame.group(1), "line": int(frame.group(2)), "function": frame.group(3).strip()})
    return frames[::-1]
