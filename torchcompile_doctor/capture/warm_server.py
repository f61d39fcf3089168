"""The warm process of `doctor fix`'s plain run and trials (started as `python .../capture/_entry.py --warm`; its
parent's side is capture/warm.py). It imports torch and the modules torch.compile's first call imports, once, then
forks one capture child per request: each runs the target exactly as a cold capture child does
(capture/_bootstrap.py), in a process of its own (its own session, its own stdout and stderr files, the trial's
working directory and environment), so a run pays for its program, not for `import torch` and Dynamo's first
import of itself (2.5 s of CPU of a 3 s program).

Fresh as far as Dynamo is concerned: nothing here compiles or runs a tensor op, so no cache entry, guard, counter
or compile id exists before the program's own; torch's trace is opened afresh for the trial's TORCH_TRACE. What a
program could see differently is only what it sets in the environment for torch to read at import: the capture
records such settings (_bootstrap.py), and `doctor fix` then runs the plain run again and every trial cold. A child
ends as the interpreter ends a cold one in all its program sees (`leave`), without tearing torch down.

Protocol, one line each: the parent writes `ID JSON` (a request: the child's spec and how to start it); this process
answers `ready` once warm, `started ID PID` for each child and `exited PID CODE` when it ends (CODE as
subprocess gives it: negative for a signal). End of input ends it."""

from __future__ import annotations

import atexit
import contextlib
import gc
import importlib
import json
import os
import select
import signal
import sys
import sysconfig
import threading
from dataclasses import dataclass, replace
from typing import NoReturn

# What torch.compile's first call imports (torch 2.13: Dynamo, AOT autograd, their backends, inductor's compile
# entry), each a root that pulls in the rest; one that does not import is left to the program's first compile.
WARM_MODULES = (
    "torch._dynamo.convert_frame",
    "torch._dynamo.symbolic_convert",
    "torch._dynamo.output_graph",
    "torch._dynamo.backends.debugging",
    "torch._functorch.aot_autograd",
    "torch._inductor.compile_fx",
)
WARM_ARGUMENT = "--warm"  # `_entry.py --warm`: this process
POLL_S = 0.02  # how often ended children are looked for while no request comes


@dataclass(frozen=True)
class Request:
    """One child to start: its spec (capture/child_spec.py's JSON), its environment, working directory, and the
    files its stdout and stderr go to (None: this process's own stderr, where the parent sent it)."""

    spec: str
    env: dict[str, str]
    cwd: str | None
    stdout: str | None
    stderr: str | None


def _request(text: str) -> Request:
    raw = json.loads(text)
    return Request(str(raw["spec"]), dict(raw["env"]), raw.get("cwd"), raw.get("stdout"), raw.get("stderr"))


def request_line(ident: int, request: Request) -> bytes:
    """The line the parent writes for one child."""
    document = {
        "spec": request.spec,
        "env": request.env,
        "cwd": request.cwd,
        "stdout": request.stdout,
        "stderr": request.stderr,
    }
    return f"{ident} {json.dumps(document)}\n".encode()


def _say(line: str) -> None:
    os.write(1, (line + "\n").encode())


def _warm_up() -> dict[str, str]:
    """Import torch and WARM_MODULES; the variables those imports set (numpy's OPENBLAS_MAIN_FREE): a cold
    child's program finds them set too."""
    before = dict(os.environ)
    import torch  # noqa: F401 - the point of this process

    for name in WARM_MODULES:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: S112 - not warm here: the program's first compile imports it, as cold
            continue
    gc.collect()
    gc.freeze()  # what is left is shared with every child, untouched by its collections
    return {name: value for name, value in os.environ.items() if before.get(name) != value}


def _reap() -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        _say(f"exited {pid} {os.waitstatus_to_exitcode(status)}")


def serve() -> Request:
    """Answer requests until input ends (then exit); return only in a forked child, with its request (its
    environment with what importing torch set where the request does not set it)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops this process; a Ctrl-C is the parent's
    imports_set = _warm_up()
    _say("ready")
    pending = b""
    while True:
        readable, _, _ = select.select([0], [], [], POLL_S)
        _reap()
        if not readable:
            continue
        chunk = os.read(0, 1 << 16)
        if not chunk:
            sys.exit(0)
        pending += chunk
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            ident, _, text = line.decode().partition(" ")
            request = _request(text)
            pid = os.fork()
            if pid == 0:
                return replace(request, env={**imports_set, **request.env})
            _say(f"started {ident} {pid}")


def _redirect(fd: int, path: str | None, flags: int) -> None:
    """`fd` onto the file, or (None) onto this process's stderr, as the runner sends a cold child's output."""
    target = os.open(path, flags, 0o644) if path is not None else os.dup(2)
    os.dup2(target, fd)
    os.close(target)


def as_started(request: Request) -> None:
    """The forked child as a capture child started cold would be: its own session, stdin at EOF, its output
    files, its directory and environment, the default Ctrl-C, torch's logs and trace read from that environment."""
    os.setsid()
    signal.signal(signal.SIGINT, signal.default_int_handler)
    written = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    _redirect(1, request.stdout, written)
    _redirect(2, request.stderr, written)
    _redirect(0, os.devnull, os.O_RDONLY)
    if request.cwd:
        os.chdir(request.cwd)
    os.environ.clear()
    os.environ.update(request.env)
    import torch._logging._internal as torch_logs  # imported already (serve); this module must not import torch

    torch_logs.LOG_TRACE_HANDLER = None  # torch opens its trace where this trial's TORCH_TRACE says
    torch_logs._init_logs()
    _before_the_program.update(sys.modules)


_before_the_program: set[str] = set()  # in a forked child: the modules loaded when its program started


def _library_roots() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    return tuple(os.path.realpath(paths[key]) + os.sep for key in ("stdlib", "platstdlib", "purelib", "platlib"))


def _free_the_program() -> None:
    """Free what the program holds as the interpreter's teardown would: its `__main__` first, then the modules
    of its own it imported (not libraries), the last imported first; their objects' `__del__` run, their open
    files are flushed."""
    libraries = _library_roots()
    own = [
        module
        for name, module in reversed(list(sys.modules.items()))
        if name not in _before_the_program
        and not os.path.realpath(getattr(module, "__file__", None) or os.sep).startswith(libraries)
    ]
    for module in [sys.modules["__main__"], *own]:
        with contextlib.suppress(Exception):
            module.__dict__.clear()


def leave(code: int) -> NoReturn:
    """End a forked child as the interpreter ends a cold one, in all the program can see: its threads joined,
    every atexit handler run (the program's, then torch's, then logging's, which closes torch's trace), what the
    program holds freed, stdout and stderr flushed. torch and the libraries loaded before the fork are not torn
    down: that would write to, and so copy, every page the child shares with the warm process (0.4 s of CPU a
    trial) for nothing the program sees."""
    threading._shutdown()  # type: ignore[attr-defined]  # what the interpreter's exit does first
    atexit._run_exitfuncs()
    _free_the_program()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)
