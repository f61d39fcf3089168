"""`dynamo_output_graph`: a graph handed to the backend. The graph text is not kept: only which user lines
its nodes came from (torch's `# File: path:line in fn` comments, counted) and which numbered module
children (`self.blocks[0..7]`) its parameters came from, which tell a block inlined many times."""

from __future__ import annotations

import re
from collections import Counter

from torchcompile_doctor.events.model import OutputGraph
from torchcompile_doctor.events.parsers import Parser
from torchcompile_doctor.events.parsers.common import compile_id_of
from torchcompile_doctor.events.reader import Record

_FILE_COMMENT = re.compile(r"# File: (.+?):(\d+) in (\S+), code: ")
# a parameter or buffer input of a numbered child: L_self_modules_blocks_modules_3_modules_norm_parameters_weight_
_NUMBERED_CHILD = re.compile(
    r"\b[Ll]_self_((?:modules_\w+?_)*?modules_\w+?)_modules_(\d+)_(?:modules|parameters|buffers)_"
)


def _module_lists(signature: str) -> tuple[tuple[str, int], ...]:
    children: dict[str, set[str]] = {}
    for match in _NUMBERED_CHILD.finditer(signature):
        path = match.group(1).removeprefix("modules_").replace("_modules_", ".")
        children.setdefault(path, set()).add(match.group(2))
    return tuple(sorted((path, len(numbers)) for path, numbers in children.items()))


def parse(record: Record, strings: dict[int, str]) -> OutputGraph:
    payload = record.payload or ""
    lines = Counter(
        (m.group(1), int(m.group(2)), m.group(3)) for m in _FILE_COMMENT.finditer(payload) if m.group(2).isdecimal()
    )
    body = record.meta.get("dynamo_output_graph")
    sizes = body.get("sizes") if isinstance(body, dict) else None
    # the graph's inputs: the metadata's `sizes` names them, else the forward signature of the payload
    inputs = " ".join(sizes) if isinstance(sizes, dict) else payload.partition("):")[0]
    return OutputGraph(
        compile_id_of(record.meta),
        inlined=tuple((file, line, function, n) for (file, line, function), n in lines.items()),
        module_lists=_module_lists(inputs),
    )


PARSER = Parser(frozenset({"dynamo_output_graph"}), needs_payload=True, parse=parse)
