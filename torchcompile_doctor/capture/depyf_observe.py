"""Observe-only depyf dump, made in the child while the target runs.

`depyf.prepare_debug` replaces the code torch runs with depyf's decompiled version, which on torch
2.13 / depyf 0.20 crashes some programs. Here torch's official bytecode hook only looks: it decompiles
the transformed bytecode of each new cache entry with depyf and writes it to the dump dir
(`__transformed_code_N_for_<fn>.py`, or a `.failed.txt` note when depyf cannot), and returns None so
torch runs its own bytecode. On exit it writes torch's complete C++ guard tree of each entry still
cached (`__guard_tree_N_for_<fn>.txt`). File names: events/dumps/layout.py; events/dumps/depyf_dump.py reads the result.
"""

from __future__ import annotations

import contextlib
import dis
import io
import json
import os
import re
import threading
import types
from collections.abc import Iterator
from dataclasses import dataclass

from torchcompile_doctor.events.dumps.layout import (
    DECOMPILE_FAILED_NAME,
    GUARD_TREE_NAME,
    OBSERVE_HEADER,
    TRANSFORMED_NAME,
)

_NOT_IN_FILE_NAME = re.compile(r"[^A-Za-z0-9_]")


def file_safe(name: str) -> str:
    """`<lambda>` -> `_lambda_`: depyf's own replacement, extended to anything unsafe in a file name."""
    return _NOT_IN_FILE_NAME.sub("_", name) or "_"


@dataclass
class _Compiled:
    code: types.CodeType  # the user's code object (what the cache entries hang on)
    transformed: types.CodeType  # what Dynamo produced for this entry
    function: str  # file-safe co_name
    index: int
    header: str


def _current_compile_id() -> str | None:
    try:
        from torch._guards import CompileContext

        compile_id = CompileContext.current_compile_id()
        return str(compile_id) if compile_id is not None else None
    except Exception:
        return None


class _ObservingHook:
    """The bytecode hook: writes files, never changes what runs, never raises."""

    def __init__(self, dump_dir: str) -> None:
        self.dump_dir = dump_dir
        self.compiled: list[_Compiled] = []
        self._next_index: dict[str, int] = {}
        self._lock = threading.Lock()

    def __call__(self, code: types.CodeType, new_code: types.CodeType) -> types.CodeType | None:
        try:
            self._observe(code, new_code)
        except Exception:  # observing must never break the user's program
            pass
        return None

    def _create(self, name: str, text: str) -> bool:
        try:
            with open(os.path.join(self.dump_dir, name), "x", encoding="utf-8") as stream:
                stream.write(text)
        except FileExistsError:
            return False
        return True

    def _claim_index(self, function: str) -> int:
        """The next N for this name with no file of ours yet (a reused dump dir keeps its files)."""
        with self._lock:
            index = self._next_index.get(function, 0)
            while any(
                os.path.lexists(os.path.join(self.dump_dir, pattern.format(index=index, function=function)))
                for pattern in (TRANSFORMED_NAME, DECOMPILE_FAILED_NAME, GUARD_TREE_NAME)
            ):
                index += 1
            self._next_index[function] = index + 1
            return index

    def _observe(self, code: types.CodeType, transformed: types.CodeType) -> None:
        function = file_safe(code.co_name)
        index = self._claim_index(function)
        header = OBSERVE_HEADER + json.dumps(
            {
                "function": code.co_name,
                "file": code.co_filename,
                "line": code.co_firstlineno,
                "index": index,
                "compile_id": _current_compile_id(),
            }
        )
        with self._lock:
            self.compiled.append(_Compiled(code, transformed, function, index, header))
        name = TRANSFORMED_NAME.format(index=index, function=function)
        try:
            from depyf import Decompiler

            source = Decompiler(transformed).decompile(overwite_fn_name=name[: -len(".py")])
        except Exception as error:  # depyf cannot read every bytecode torch makes; note it and go on
            listing = io.StringIO()
            with contextlib.suppress(Exception):
                dis.dis(transformed, file=listing)
            self._create(
                DECOMPILE_FAILED_NAME.format(index=index, function=function),
                f"{header}\n# depyf could not decompile this entry: {type(error).__name__}: {error}\n"
                f"# transformed bytecode:\n{listing.getvalue()}",
            )
            return
        self._create(name, f"{header}\n{source}")

    def write_guard_trees(self) -> None:
        """torch's C++ guard tree of each entry still cached (entries of modules already freed are gone)."""
        try:
            from torch._dynamo.eval_frame import _debug_get_cache_entry_list
        except Exception:
            return
        with self._lock:
            compiled = list(self.compiled)
        for item in compiled:
            try:
                cached = _debug_get_cache_entry_list(item.code)
                entry = next((e for e in cached if e.code is item.transformed), None)
                if entry is None:
                    continue
                tree = str(entry.guard_manager).strip("\n")
                self._create(
                    GUARD_TREE_NAME.format(index=item.index, function=item.function), f"{item.header}\n{tree}\n"
                )
            except Exception:
                continue


@contextlib.contextmanager
def observe_into(dump_dir: str) -> Iterator[None]:
    """Write a depyf-style dump of everything Dynamo compiles inside the block, without changing what
    runs. Raises OSError before the block only if `dump_dir` cannot be created."""
    import torch._dynamo.convert_frame

    os.makedirs(dump_dir, exist_ok=True)
    hook = _ObservingHook(dump_dir)
    handle = torch._dynamo.convert_frame.register_bytecode_hook(hook)
    try:
        yield
    finally:
        handle.remove()
        hook.write_guard_trees()
