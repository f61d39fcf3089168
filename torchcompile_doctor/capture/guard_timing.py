"""Measured guard cost (child process, `doctor guards TARGET`): remember the last call of each
compiled function or module, then after the target has run, time that call as compiled, as compiled
with guard evaluation skipped (`torch.compiler.set_stance(skip_guard_eval_unsafe=True)`), and eagerly.

Re-running the last call can change the program's state (a counter in forward); the measurement runs
after the target has finished, with the trace paused, and its figures are per call (best of rounds).
"""

from __future__ import annotations

import time
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from torchcompile_doctor.capture.hooks import trace_paused
from torchcompile_doctor.events.sidechannel import EventName, SideChannel

ROUNDS = 5
ROUND_BUDGET_S = 0.05  # calls per round are chosen so a round takes about this long
MAX_CALLS = 2000


@dataclass
class RecordedCall:
    compiled: Callable[..., Any]
    eager: Callable[..., Any]
    code: types.CodeType  # the user's code object (for the frame's file and line)
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] | None = None
    grad_enabled: bool = True
    seen: bool = False


class CallRecorder:
    """Keeps the last arguments each compiled callable was called with."""

    def __init__(self) -> None:
        self.calls: list[RecordedCall] = []

    def track(self, compiled: Callable[..., Any], eager: Callable[..., Any], code: types.CodeType) -> RecordedCall:
        record = RecordedCall(compiled, eager, code)
        self.calls.append(record)
        return record

    @staticmethod
    def note(record: RecordedCall, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        import torch

        record.args, record.kwargs, record.seen = args, kwargs, True
        record.grad_enabled = torch.is_grad_enabled()


def _per_call_us(function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[float, int]:
    calls, started = 0, time.perf_counter()
    while time.perf_counter() - started < ROUND_BUDGET_S and calls < MAX_CALLS:
        function(*args, **kwargs)
        calls += 1
    best = float("inf")
    for _ in range(ROUNDS):
        started = time.perf_counter()
        for _ in range(calls):
            function(*args, **kwargs)
        best = min(best, (time.perf_counter() - started) / calls)
    return best * 1e6, calls


def measure(recorder: CallRecorder, channel: SideChannel) -> None:
    import torch

    for record in recorder.calls:
        if not record.seen:
            continue
        code = record.code
        fields = {
            "function_file": code.co_filename,
            "function_line": code.co_firstlineno,
            "function": code.co_name,
        }
        try:
            with trace_paused(), torch.set_grad_enabled(record.grad_enabled):
                kwargs = record.kwargs or {}
                for _ in range(3):  # warm: any recompile happens here, not in the timing
                    record.compiled(*record.args, **kwargs)
                compiled_us, calls = _per_call_us(record.compiled, record.args, kwargs)
                with torch.compiler.set_stance("default", skip_guard_eval_unsafe=True):
                    skip_us, _ = _per_call_us(record.compiled, record.args, kwargs)
                eager_us, _ = _per_call_us(record.eager, record.args, kwargs)
            channel.write(
                EventName.GUARD_OVERHEAD,
                calls=calls,
                compiled_us=round(compiled_us, 3),
                skip_guards_us=round(skip_us, 3),
                eager_us=round(eager_us, 3),
                **fields,
            )
        except Exception as error:  # measuring is optional; the report says why it is missing
            channel.write(
                EventName.GUARD_OVERHEAD,
                calls=0,
                compiled_us=0.0,
                skip_guards_us=None,
                eager_us=None,
                error=f"{type(error).__name__}: {error}"[:300],
                **fields,
            )
