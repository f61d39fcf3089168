"""In-process capture for the Python API and the pytest plugin: torch's structured trace (the same
records TORCH_TRACE writes) is sent to a file of ours while a block of the caller's code runs.

Imports torch: only the API and the plugin use it, and only when a capture starts.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from pathlib import Path

from torchcompile_doctor.events.load import load_artifacts
from torchcompile_doctor.events.model import EventLog


class TraceCapture:
    """`with TraceCapture() as capture: ...`, then `capture.log()` is the EventLog of what ran inside."""

    def __init__(self) -> None:
        self.directory = Path(tempfile.mkdtemp(prefix="torchcompile-doctor-"))
        self.path = self.directory / "trace.log"
        self._handler: logging.Handler | None = None
        self._level = logging.NOTSET
        self._detached: list[logging.Handler] = []

    def __enter__(self) -> TraceCapture:
        from torch._logging import structured
        from torch._logging._internal import TorchLogsFormatter, trace_log

        handler = logging.FileHandler(self.path, mode="w", encoding="utf-8")
        handler.setFormatter(TorchLogsFormatter(trace=True))
        # File names in stacks are interned once per process: strings interned before this capture
        # are written first, or its stacks would name files by numbers we cannot resolve.
        for text, number in list(structured.INTERN_TABLE.items()):
            handler.handle(
                trace_log.makeRecord(
                    trace_log.name, logging.DEBUG, __file__, 0, "", (), None,
                    extra={"metadata": {"str": [text, number]}, "payload": None},
                )
            )  # fmt: skip
        self._level = trace_log.level
        trace_log.setLevel(logging.DEBUG)
        # Trace records never propagate; handlers mirrored from the root logger (pytest's log capture puts
        # its own on every logger) would print thousands of empty DEBUG lines in a failing test's report.
        self._detached = [h for h in trace_log.handlers if h in logging.getLogger().handlers]
        for mirrored in self._detached:
            trace_log.removeHandler(mirrored)
        trace_log.addHandler(handler)
        self._handler = handler
        return self

    def __exit__(self, *exc_info: object) -> None:
        from torch._logging._internal import trace_log

        if self._handler is not None:
            trace_log.removeHandler(self._handler)
            self._handler.close()
            trace_log.setLevel(self._level)
            for mirrored in self._detached:
                trace_log.addHandler(mirrored)
            self._handler = None

    def log(self) -> EventLog:
        return load_artifacts(self.path)

    def cleanup(self) -> None:
        shutil.rmtree(self.directory, ignore_errors=True)
