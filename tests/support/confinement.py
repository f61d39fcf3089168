"""The test session reads nothing outside its clone (#34): an audit hook (`sys.addaudithook`) on every `open`,
`os.listdir` and `os.scandir` of the session's processes refuses a path outside the places a test may read:

- the clone (found from this file, never a machine's path), the virtual environment and the interpreter;
- this session's own temporary folder (TMPDIR is set to a fresh one for the session, so a path another session or
  another machine recorded under /tmp is outside it too);
- the machine's own system files (/dev, /proc, /sys, /etc, /usr), which no recording names.

A recorded capture names the folders of the machine that made it (`/work/wt-text3/tests/...`); a test that reads
such a path passes only where it was recorded. Refusing it here fails that test on every machine, the recording
machine included.

One kind of read is refused without failing: the doctor's own question to the disk for a file or an install dir
that a capture's source snapshot does not answer (`source_files.read_source_file`, `has_dist_info`: what
`doctor report` does on any machine). Refused, it reads as absent, which is what a machine that never had the
recording's folders answers; so a re-read gives the same report on every machine, and no test result can come
from a file outside the clone.

Every process the session starts (the CLI, a capture's target) carries the same hook, installed by the
`sitecustomize` of tests/support/confined/ (on PYTHONPATH); a refusal there goes to the session's log of refusals,
which fails the session at its end.

The policy is plain data so that it can be tested: `outside(path)` says whether a path is refused."""

from __future__ import annotations

import functools
import os
import sys
import sysconfig
import threading
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ROOTS_ENV = "DOCTOR_TEST_ALLOWED_ROOTS"  # os.pathsep-separated folders a child of the session may read
REFUSALS_ENV = "DOCTOR_TEST_REFUSALS"  # the file a child appends a refused path to
SITE_DIR = Path(__file__).resolve().parent / "confined"  # holds the children's sitecustomize.py
SYSTEM_ROOTS = ("/dev", "/proc", "/sys", "/etc", "/usr", "/lib", "/lib64", "/bin", "/run")
_AUDITED = frozenset({"open", "os.listdir", "os.scandir"})
# (file, function) of the doctor's disk questions that a refusal answers as "absent", as on a fresh machine
_PROBES = frozenset(
    {
        ("torchcompile_doctor/source_files.py", "read_source_file"),
        ("torchcompile_doctor/source_files.py", "has_dist_info"),
    }
)


def _real(path: str) -> str:
    return os.path.realpath(path)


def default_roots(temp: str) -> tuple[str, ...]:
    """The folders this session may read: the clone, the environment, the interpreter, its temp folder."""
    places = {
        str(REPO),
        sys.prefix,
        sys.base_prefix,
        sys.exec_prefix,
        sys.base_exec_prefix,
        temp,
        *(sysconfig.get_paths().get(key, "") for key in ("stdlib", "platstdlib", "purelib", "platlib")),
    }
    return tuple(sorted({_real(p) for p in places if p}))


@functools.lru_cache(maxsize=8192)
def _real_folder(folder: str) -> str:
    """A folder resolved once per process: a child opens thousands of files in a few hundred folders (importing
    torch), and resolving each whole path anew cost 0.3 s of CPU per child (a folder made a link after this
    process read from it is not seen as one: no test does that)."""
    return _real(folder)


def _real_file(path: str) -> str:
    """`os.path.realpath(path)`, its folder resolved once (above), the file itself where it is a link."""
    folder, name = os.path.split(path)
    if name in ("", ".", ".."):
        return _real(path)
    real = os.path.join(_real_folder(folder), name)
    return _real(real) if os.path.islink(real) else real


class Confinement:
    """Which paths a process of the test session may read (every root resolved, so a link cannot lead out)."""

    def __init__(self, roots: tuple[str, ...]) -> None:
        self.roots = tuple(sorted({_real(r) for r in roots}))
        self._places = frozenset((*self.roots, *SYSTEM_ROOTS))
        self._inside = tuple(root.rstrip("/") + "/" for root in self._places)

    def outside(self, path: str) -> bool:
        if not os.path.isabs(path):
            path = os.path.join(os.getcwd(), path)
        real = _real_file(path)
        return real not in self._places and not real.startswith(self._inside)


def _path_of(event: str, args: tuple[object, ...]) -> str | None:
    if not args:
        return None
    path = args[0]
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if isinstance(path, os.PathLike):
        path = os.fspath(path)
    return path if isinstance(path, str) and path else None


def _is_probe(code: object) -> bool:
    """The read is the doctor's question to the disk for a file a snapshot lacks (see the module's docstring)."""
    filename, name = getattr(code, "co_filename", ""), getattr(code, "co_name", "")
    return any(filename.endswith(file) and name == function for file, function in _PROBES)


def install(confinement: Confinement, refusals: str | None = None) -> None:
    """Refuse every audited read outside the confinement from now on, in this process: raise PermissionError,
    and append the path to `refusals` (a file) so that a refusal swallowed by the code under test still fails the
    session."""
    state = threading.local()  # per thread: a refusal's own log write is an open too

    def hook(event: str, args: tuple[object, ...]) -> None:
        if event not in _AUDITED or getattr(state, "busy", False):
            return
        path = _path_of(event, args)
        if path is None:
            return
        state.busy = True
        try:
            if not confinement.outside(path):
                return
            if refusals and not _is_probe(sys._getframe(1).f_code):
                try:
                    with open(refusals, "a", encoding="utf-8") as log:
                        test = os.environ.get("PYTEST_CURRENT_TEST", "")
                        log.write(f"{os.getpid()}\t{event}\t{path}\t{test}\n")
                except OSError:
                    pass
        finally:
            state.busy = False
        raise PermissionError(f"the test session reads nothing outside its clone: {event} {path}")

    sys.addaudithook(hook)


def install_from_environment() -> None:
    """In a child of the session: the roots and the refusals log the session handed down."""
    roots = os.environ.get(ROOTS_ENV)
    if roots:
        install(Confinement(tuple(roots.split(os.pathsep))), os.environ.get(REFUSALS_ENV))
