"""What an exception's message says about CUDA graphs: torch's error for an output read after a later replay
overwrote it (torch/_inductor/cudagraph_trees.py `format_dealloc_msg`), with the line that made the output.
The exception comes from a text log's traceback or from the capture's record of how the target ended."""

from __future__ import annotations

import re

from torchcompile_doctor.events.model import CudagraphOverwritten, StackFrame
from torchcompile_doctor.events.parsers.graph_break_reason import parse_stack

_OVERWRITTEN = re.compile(
    r"accessing (?P<gradient>gradient )?tensor output of CUDAGraphs that has been overwritten by a subsequent run\. "
    r"Stack trace: (?P<stack>.*?)\. (?:To prevent overwriting|This can happen)",
    re.S,
)


def overwritten_output(message: str, stack: tuple[StackFrame, ...] = ()) -> CudagraphOverwritten | None:
    match = _OVERWRITTEN.search(message)
    if match is None:
        return None
    # torch writes the producing line's stack inline: `File "f.py", line 6, in f\n    return x * 2`
    frames = parse_stack(match["stack"].replace('File "', '\n  File "').split("\n"))
    said = message[: match.start("stack")].strip().removesuffix("Stack trace:").strip()
    return CudagraphOverwritten(said, frames[-1] if frames else None, stack, bool(match["gradient"]))


_USER_CODE = "\nfrom user code:\n"  # how torch ends the message of an exception raised while Dynamo traced


def traced_frames(message: str) -> tuple[StackFrame, ...]:
    """The frames of the `from user code:` section of an exception's message (an `InternalTorchDynamoError`, a
    break under `fullgraph=True`), outermost first: the line Dynamo was tracing, where the Python traceback of
    the same exception names only the call of the compiled function. Empty when the message has none."""
    _, found, section = message.partition(_USER_CODE)
    return parse_stack(section.split("\n\n", 1)[0].split("\n")) if found else ()
