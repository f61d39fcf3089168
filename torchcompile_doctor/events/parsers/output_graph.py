"""`dynamo_output_graph`: a graph handed to the backend. The graph text is not kept: only which user lines
its nodes came from (torch's `# File: path:line in fn` comments, counted), which numbered module
children (`self.blocks[0..7]`) its parameters came from, which tell a block inlined many times, and what each
user line's nodes call (which line an operator a perf hint names came from)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from torchcompile_doctor.events.model import OutputGraph
from torchcompile_doctor.events.parsers.base import Parser
from torchcompile_doctor.events.parsers.common import PayloadMemo, compile_id_of, shared
from torchcompile_doctor.events.reader import Record

_FILE_COMMENT = re.compile(r"# File: (.+?):(\d+) in (\S+), code: ")
_INPUT_NAME = re.compile(r"\b[Ll]_\w+")
# a node whose result is a float32 CUDA tensor made by a matmul-class call (what TF32 speeds up)
_FP32_GPU_MATMUL = re.compile(
    r'^\s*\w+: "f32\[[^"]*\]cuda[^"]*" = (?:\S+ @ \S+|(?:torch\.(?:_C\._nn\.|nn\.functional\.)?'
    r"(?:linear|matmul|mm|bmm|addmm|baddbmm|einsum|scaled_dot_product_attention))\()",
    re.M,
)
# a name called in a node's expression: `scores.topk(5)`, `torch.sort(x)`, `torch.ops.aten.sort.default(x)`; a match
# starts at a word's start only (`\b`: a start inside a word can never match, and trying each one was quadratic);
# the word is taken whole (`\w++`): what follows a shorter part of it is a word character, never `.` or `(`, so
# giving characters back could never match, and it cost two thirds of the scan of a graph's long input names
_CALLED = re.compile(r"\b(\w++)(?:\.default)?\(")


def _numbered_child(name: str) -> tuple[str, str] | None:
    """("model.layers", "3") for the graph input of a numbered child's parameter or buffer,
    `l_self_modules_model_modules_layers_modules_3_modules_norm_parameters_weight_` (the root may be any local:
    self, args_0, ...); None for an input of no numbered child."""
    parts = name.split("_modules_")
    for index in range(2, len(parts)):
        number = parts[index].split("_", 1)[0]
        if number.isdecimal() and (parts[index] == number or parts[index][len(number)] == "_"):
            return ".".join(parts[1:index]), number
    return None


def _module_lists(inputs: str) -> tuple[tuple[str, int], ...]:
    children: dict[str, set[str]] = {}
    for match in _INPUT_NAME.finditer(inputs):
        found = _numbered_child(match.group(0))
        if found is not None:
            children.setdefault(found[0], set()).add(found[1])
    return tuple(sorted((path, len(numbers)) for path, numbers in children.items()))


def _calls(payload: str) -> tuple[tuple[str, int, str, str], ...]:
    """(file, line, function, name) of each name the nodes under a `# File:` comment call."""
    calls: dict[tuple[str, int, str, str], None] = {}
    where = None
    for text in payload.splitlines():
        comment = _FILE_COMMENT.search(text) if "# File: " in text else None  # (a plain find skips most lines)
        if comment:
            where = (
                (comment.group(1), int(comment.group(2)), comment.group(3)) if comment.group(2).isdecimal() else None
            )
        elif where is not None:
            # a node: `topk = scores.topk(5, dim = -1);  scores = None` (its first statement's right-hand side)
            _, assigned, expression = text.split(";")[0].partition(" = ")
            if assigned:
                calls.update(dict.fromkeys(shared((*where, name)) for name in _CALLED.findall(expression)))
    return tuple(calls)


def _of_text(payload: str) -> OutputGraph:
    """What the graph's text tells (no compile id; its inputs from the forward signature)."""
    lines = Counter(
        (m.group(1), int(m.group(2)), m.group(3)) for m in _FILE_COMMENT.finditer(payload) if m.group(2).isdecimal()
    )
    return OutputGraph(
        None,
        inlined=tuple(shared((file, line, function, n)) for (file, line, function), n in lines.items()),
        module_lists=_module_lists(payload.partition("):")[0]),
        fp32_gpu_matmuls=len(_FP32_GPU_MATMUL.findall(payload)) if "cuda" in payload else 0,  # (a match names it)
        calls=_calls(payload),
    )


# the same graph compiled again (a reset, another copy of a function, a recompile that traced the same code) is
# read once
_GRAPHS = PayloadMemo(_of_text)


def parse(record: Record, strings: dict[int, str]) -> OutputGraph:
    graph = _GRAPHS(record)
    body = record.meta.get("dynamo_output_graph")
    sizes = body.get("sizes") if isinstance(body, dict) else None
    # the graph's inputs: the metadata's `sizes` names them, else the forward signature of the payload
    module_lists = _module_lists(" ".join(sizes)) if isinstance(sizes, dict) else graph.module_lists
    return replace(graph, compile_id=compile_id_of(record.meta), module_lists=module_lists)


PARSER = Parser(frozenset({"dynamo_output_graph"}), needs_payload=True, parse=parse)
