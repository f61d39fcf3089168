"""How a path is shown to people: the one function every format uses (`display_path`), so that what users read
names no machine's absolute path. A path under one of the report's roots is written relative to it (the program's
folder, the current directory, site-packages or the standard library), a library file relative to site-packages,
torch's own files as `<torch>/...`, and any other absolute path is cut to `…/NAME`. Relative paths and
pseudo-files (`<frozen runpy>`, `-m pkg.train`) are shown as they are."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence

LIBRARY_MARKERS = ("/site-packages/", "/dist-packages/")
TORCH_SHOWN = "<torch>"  # torch's install folder, as a path to one of its files is shown
ELLIPSIS = "…"
NEAR_LEVELS = 2  # a file this many folders up from the program's is shown as `../../x.py`; farther, as `…/x.py`
# An absolute POSIX path starting a token (not the `//` or `/path` of a URL, not `a/b`, not `x / y`): it ends at
# whitespace, a quote, a bracket or a comma; `file.py:12` keeps its line number.
_ABSOLUTE_PATH = re.compile(r"(?<![\w/:.~<>-])/[^\s\"'`<>()\[\]{},;|]+")


def display_path(path: str, roots: Sequence[str] = (), near: str | None = None) -> str:
    """`path` as people read it: relative to the first of `roots` it lies under (see `display_roots` for their
    order), else relative to site-packages, else relative to `near` (the program's folder) when at most
    NEAR_LEVELS folders up from it (`../lib/model.py`), else `…/NAME`; a path that is not absolute is returned
    unchanged."""
    if not path.startswith("/"):
        return path
    for root in roots:
        prefix = root.rstrip("/") + "/"
        if len(prefix) > 1 and path.startswith(prefix) and len(path) > len(prefix):
            return path[len(prefix) :]
    for marker in LIBRARY_MARKERS:
        if marker in path:
            return path.split(marker, 1)[1]
    if near and near.startswith("/") and near.strip("/"):
        relative = posixpath.relpath(path, near)
        # a folder shared two levels deep (a project's `lib` beside its `scripts`), not `/home` or `/work`: a path
        # climbing that high would spell out the machine's folders
        shared = posixpath.commonpath([path, near]).strip("/").split("/")
        if len(shared) >= 2 and relative.split("/").count("..") <= NEAR_LEVELS:
            return relative
    head, _, name = path.rstrip("/").rpartition("/")
    return f"{ELLIPSIS}/{name}" if head and name else path


def torch_path(path: str) -> str:
    """A file of torch's own install as `<torch>/_dynamo/...`; any other path as `display_path` shows it."""
    for marker in LIBRARY_MARKERS:
        if f"{marker}torch/" in path:
            return f"{TORCH_SHOWN}/{path.split(f'{marker}torch/', 1)[1]}"
    return display_path(path)


def display_roots(
    program_dir: str, library_roots: Sequence[str], base_dir: str | None = None, *, checkout_first: bool = False
) -> tuple[str, ...]:
    """The roots paths are shown relative to, in the order they are tried: the library roots (longest first: a
    venv's site-packages before its lib folder), then the program's folder and the current directory (`base_dir`).
    `checkout_first`: the current directory before the program's folder, as CI formats want (their paths must
    match the checkout)."""
    libraries = sorted((r for r in library_roots if r.strip("/")), key=len, reverse=True)
    user = [program_dir, base_dir or ""]
    if checkout_first:
        user.reverse()
    return tuple(r for r in (*libraries, *user) if r.startswith("/") and r.strip("/"))


def display_text(text: str, roots: Sequence[str] = (), near: str | None = None) -> str:
    """`text` with every absolute path in it shown as `display_path` shows it."""
    return _ABSOLUTE_PATH.sub(lambda match: display_path(match.group(0), roots, near), text)
