"""Where a finding about a compiled function stands, and the name it calls the function by. A finding never
stands in torch's own code when the user's line is known: for a compiled function that is torch's (an
`nn.Sequential`'s forward, Dynamo's wrapper of a compiled module on torch 2.11) it is the user's line that called
it, named by what that line calls (`y = cm(x)`: `cm`)."""

from __future__ import annotations

from collections.abc import Iterable

from torchcompile_doctor.analysis.code import called_name
from torchcompile_doctor.analysis.index import UNKNOWN_FRAME, AnalysisIndex
from torchcompile_doctor.events.model import CompileId
from torchcompile_doctor.model.report import Location


def frame_view(index: AnalysisIndex, key: tuple[str, int, str]) -> tuple[Location, str]:
    """The location and name of a compiled function (a `frame_key`): its own code; for code of torch's, the
    user's line that called it."""
    file, line, co_name = key
    if index.code.is_torch(file):
        for metrics in index.log.metrics:
            if metrics.compile_id is None or index.frame_key(metrics.compile_id) != key:
                continue
            caller = index.code.last_user_frame(index.starts.get(metrics.compile_id, ()))
            if caller is not None:
                location = index.location(caller.file, caller.line, caller.function)
                called = called_name(location.source or caller.code)
                return location, called or f"the compiled code called at {location.where}"
    name = index.function_name(file, co_name, line)
    return index.location(file, line, name), name


def compiled_frame(index: AnalysisIndex, compile_ids: Iterable[CompileId]) -> tuple[Location, str] | None:
    """`frame_view` of the first of these compiles whose function a record names; None when none does (a text
    log without its trace)."""
    for compile_id in sorted(compile_ids):
        key = index.frame_key(compile_id)
        if key != UNKNOWN_FRAME:
            return frame_view(index, key)
    return None
