"""How often each compiled callable was called, at which call Dynamo last compiled during it, and how long its
calls took when they compiled nothing (the steady state users pay on every step): the trace has the compiles but
not the calls, and the warm-up a training loop pays is counted in calls."""

from __future__ import annotations

import statistics
import threading
import time
import types
from collections import deque
from collections.abc import Callable
from typing import Any

from torchcompile_doctor.events.sidechannel import EventName, SideChannel


def _compile_attempts() -> int:
    """How many compile ids Dynamo has handed out (every compile and recompile of a frame): its counter per
    frame, summed. Dynamo's `frames.total` counts more: a frame it looks at and leaves alone (a non-recursive
    `torch.compiler.disable` wrapper, on every call) counts there without compiling anything."""
    try:
        from torch._dynamo.convert_frame import FRAME_COMPILE_COUNTER
    except ImportError:  # a release without it: the coarser count
        from torch._dynamo.utils import counters

        return counters["frames"]["total"]
    return sum(FRAME_COMPILE_COUNTER.values())


STEADY_SAMPLE = 256  # the latest calls that compiled nothing, kept per function for their median


class CallCounts:
    """Per compiled function (its code object): calls, and the number of the last call during which Dynamo
    converted a frame. A reset() clears torch's counter; any change of it during a call is a compile."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: dict[tuple[str, int, str], list[int]] = {}  # code -> [calls, last compile call]
        # code -> the durations of its latest calls that compiled nothing (a bounded sample: a long loop stays cheap)
        self._steady: dict[tuple[str, int, str], deque[float]] = {}

    def call(self, code: types.CodeType, run: Callable[[], Any]) -> Any:
        key = (code.co_filename, code.co_firstlineno, code.co_name)
        with self._lock:
            counts = self._counts.setdefault(key, [0, 0])
            counts[0] += 1
            number = counts[0]
        before = _compile_attempts()
        started = time.perf_counter()
        try:
            return run()
        finally:
            took = time.perf_counter() - started
            compiled = _compile_attempts() != before
            with self._lock:
                if compiled:
                    counts[1] = max(counts[1], number)
                else:
                    self._steady.setdefault(key, deque(maxlen=STEADY_SAMPLE)).append(took)

    def write(self, channel: SideChannel) -> None:
        with self._lock:
            counted = list(self._counts.items())
            steady = {key: list(times) for key, times in self._steady.items()}
        for (file, line, function), (calls, last_compile) in counted:
            times = steady.get((file, line, function), [])
            channel.write(
                EventName.CALL_COUNT,
                function_file=file,
                function_line=line,
                function=function,
                calls=calls,
                last_compile_call=last_compile or None,
                steady_calls=len(times),
                steady_median_s=statistics.median(times) if times else None,
            )
