"""Measured guard cost (child process, `doctor guards TARGET`): remember the last call of each
compiled function or module, then after the target has run, time that call as compiled, as compiled
with guard evaluation skipped (`torch.compiler.set_stance(skip_guard_eval_unsafe=True)`), and eagerly.

Re-running the last call can change the program's state (a counter in forward); the measurement runs
after the target has finished, with the trace paused, and its figures are per call: the median of rounds and
their spread (max - min), the compiled and the guards-skipped rounds taken in turn so a machine's drift touches
both alike. A difference within the spreads is noise, and the report says so rather than claim guards cost
something (or that skipping them made a call slower).
"""

from __future__ import annotations

import statistics
import time
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from torchcompile_doctor.capture.hooks import trace_paused
from torchcompile_doctor.events.sidechannel import EventName, SideChannel

ROUNDS = 7
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


def _calls_per_round(function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> int:
    calls, started = 0, time.perf_counter()
    while time.perf_counter() - started < ROUND_BUDGET_S and calls < MAX_CALLS:
        function(*args, **kwargs)
        calls += 1
    return calls


def _round_us(function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], calls: int) -> float:
    started = time.perf_counter()
    for _ in range(calls):
        function(*args, **kwargs)
    return (time.perf_counter() - started) / calls * 1e6


@dataclass(frozen=True)
class Timing:
    """Per-call microseconds over rounds: their median and spread (max - min)."""

    median_us: float
    spread_us: float

    @classmethod
    def of(cls, rounds: list[float]) -> Timing:
        return cls(statistics.median(rounds), max(rounds) - min(rounds))


def _timings(record: RecordedCall, kwargs: dict[str, Any]) -> tuple[Timing, Timing, Timing, int]:
    """Compiled, guards skipped, eager: the first two in turn, round by round."""
    import torch

    calls = _calls_per_round(record.compiled, record.args, kwargs)
    compiled, skipped = [], []
    for _ in range(ROUNDS):
        compiled.append(_round_us(record.compiled, record.args, kwargs, calls))
        with torch.compiler.set_stance("default", skip_guard_eval_unsafe=True):
            skipped.append(_round_us(record.compiled, record.args, kwargs, calls))
    eager = [_round_us(record.eager, record.args, kwargs, calls) for _ in range(ROUNDS)]
    return Timing.of(compiled), Timing.of(skipped), Timing.of(eager), calls


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
                compiled, skipped, eager, calls = _timings(record, kwargs)
            channel.write(
                EventName.GUARD_OVERHEAD,
                calls=calls,
                compiled_us=round(compiled.median_us, 3),
                skip_guards_us=round(skipped.median_us, 3),
                eager_us=round(eager.median_us, 3),
                compiled_spread_us=round(compiled.spread_us, 3),
                skip_guards_spread_us=round(skipped.spread_us, 3),
                rounds=ROUNDS,
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
