"""Run code of the doctor's when the target first imports torch, not before.

The bootstrap must not import torch itself: torch reads `TORCH_LOGS`, `OMP_NUM_THREADS`,
`CUDA_VISIBLE_DEVICES`, ... when it is imported and `torch._dynamo.config` reads `TORCHDYNAMO_*` when it
is, so a program that sets them at its top, before `import torch`, must be the one that imports it.
`on_torch_import` puts a one-shot finder first on `sys.meta_path`: when `torch` is looked up it calls
`before` (the environment as the program left it), lets the usual finders find torch, and calls
`after(torch)` once torch's `__init__` has run.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from collections.abc import Callable, Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType


class TorchImportWatcher(importlib.abc.MetaPathFinder):
    def __init__(self, before: Callable[[], None], after: Callable[[ModuleType], None]) -> None:
        self._before = before
        self._after = after
        self.import_error: BaseException | None = None  # torch's own import failed with this

    def find_spec(
        self, name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if name != "torch":
            return None
        sys.meta_path.remove(self)  # one shot: the real finders find torch from here on
        self._before()
        spec = importlib.util.find_spec("torch")
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        loader = spec.loader
        execute = loader.exec_module

        def exec_module(module: ModuleType) -> None:
            try:
                execute(module)
            except BaseException as error:
                self.import_error = error
                raise
            finally:
                del loader.exec_module  # the loader's own method again
            self._after(module)

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def on_torch_import(before: Callable[[], None], after: Callable[[ModuleType], None]) -> TorchImportWatcher:
    """Call `before()` as torch starts to be imported and `after(torch)` once it is; at once when torch
    already is (something ran at start-up that imported it)."""
    watcher = TorchImportWatcher(before, after)
    if "torch" in sys.modules:
        after(sys.modules["torch"])
    else:
        sys.meta_path.insert(0, watcher)
    return watcher


def stop_watching(watcher: TorchImportWatcher) -> None:
    if watcher in sys.meta_path:
        sys.meta_path.remove(watcher)
