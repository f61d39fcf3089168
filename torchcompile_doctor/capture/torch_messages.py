"""The capture of what torch says to Python loggers and `warnings` rather than to TORCH_TRACE: the `cudagraphs`
artifact (why a graph ran without CUDA graphs, partitions, recordings, calls that missed the fast path) and the
warnings of its compile stack (TF32, the CUDA-graph fast path). Both go to the side channel as torch wrote them;
events/messages/ reads them, as it reads a job's text log. What the program prints does not change."""

from __future__ import annotations

import contextlib
import logging
import warnings
from collections.abc import Iterator
from typing import TextIO

from torchcompile_doctor.events.messages.warnings import COMPILE_STACK
from torchcompile_doctor.events.sidechannel import EventName, SideChannel

# torch's loggers of the `cudagraphs` artifact (torch 2.11-2.13: grep 'getArtifactLogger(__name__, "cudagraphs")'):
# skip reasons, partitions, recordings, calls that missed the fast path
CUDAGRAPH_LOG_MODULES = (
    "torch._inductor.cudagraph_trees",
    "torch._inductor.cudagraph_utils",
    "torch._inductor.scheduler",
)


class _TorchLogRecorder(logging.Handler):
    """Writes each record of one torch logger to the side channel, and prints nothing itself. To see the DEBUG
    records the logger's level is lowered and its propagation taken over: a record torch would have printed
    anyway is handed to the ancestors' handlers, as logging's own propagation would hand it, and no other."""

    def __init__(self, channel: SideChannel, logger: logging.Logger, artifact: str) -> None:
        super().__init__(level=logging.DEBUG)
        self._channel = channel
        self._logger = logger
        self._artifact = artifact
        self.was_level, self.was_propagating = logger.level, logger.propagate

    def emit(self, record: logging.LogRecord) -> None:
        try:
            from torch._guards import CompileContext

            compile_id = CompileContext.current_compile_id()
            self._channel.write(
                EventName.TORCH_LOG,
                module=record.name.removesuffix(f".__{self._artifact}"),
                artifact=self._artifact,
                level=record.levelname,
                compile_id=str(compile_id) if compile_id is not None else None,
                message=record.getMessage(),
            )
        except Exception:  # a record we cannot write must never break the user's program
            pass
        self._pass_on(record)

    def _pass_on(self, record: logging.LogRecord) -> None:
        logger = self._logger
        if logger.propagate or not self.was_propagating or logger.parent is None:
            return  # torch configured the logger again (set_logs, TORCH_LOGS): logging propagates it itself
        threshold = self.was_level or logger.parent.getEffectiveLevel()
        if record.levelno >= threshold:
            logger.parent.callHandlers(record)


@contextlib.contextmanager
def torch_log_capture(channel: SideChannel) -> Iterator[None]:
    """Record the `cudagraphs` artifact's records (all levels) without changing what the program prints."""
    recorders = []
    for module in CUDAGRAPH_LOG_MODULES:
        logger = logging.getLogger(f"{module}.__cudagraphs")
        recorder = _TorchLogRecorder(channel, logger, "cudagraphs")
        logger.addHandler(recorder)
        logger.setLevel(logging.DEBUG)
        logger.propagate = False
        recorders.append((logger, recorder))
    try:
        yield
    finally:
        for logger, recorder in recorders:
            logger.removeHandler(recorder)
            if logger.level == logging.DEBUG and not logger.propagate:  # still as we set it: as it was
                logger.setLevel(recorder.was_level)
                logger.propagate = recorder.was_propagating


@contextlib.contextmanager
def warning_capture(channel: SideChannel) -> Iterator[None]:
    """Record the warnings Python shows from torch's compile stack (the TF32 warning, the CUDA-graph fast-path
    warning). `warnings.showwarning` is the documented hook: the warning is shown by the function that was there
    (a user's replacement included), with the same arguments; warnings Python filters out never reach it."""
    previous = warnings.showwarning

    def show_and_record(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        try:
            if COMPILE_STACK.search(str(filename)):
                channel.write(
                    EventName.TORCH_WARNING,
                    category=getattr(category, "__name__", str(category)),
                    message=str(message),
                    file=str(filename),
                    line=int(lineno),
                )
        except Exception:  # a warning we cannot record must never break the user's program
            pass
        previous(message, category, filename, lineno, file, line)

    warnings.showwarning = show_and_record
    try:
        yield
    finally:
        if warnings.showwarning is show_and_record:  # the program did not replace it meanwhile
            warnings.showwarning = previous
