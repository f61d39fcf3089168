"""The `cudagraphs` artifact: why a graph ran without CUDA graphs, how inductor partitioned it, which sizes got a
recording, and the calls that did not replay a graph. The wordings are torch's (2.11 to 2.15), from
torch/_inductor/cudagraph_utils.py (skip reasons, the distinct-sizes warning), cudagraph_trees.py (recordings,
warm-up/eager/recording calls, re-recording and its cause, the re-record limit: `skipping cudagraph due to function
N exceeding max re-recording limit (=L) on cudagraph node M due to REASON.`, 2.15's "re-recording threshold"),
output_code.py and compile_fx.py (skips decided at compile time) and scheduler.py (partitions and the reason of
each op that is not cudagraphable). The warnings of cudagraph_trees.py (`warnings.warn`: the fast path missed,
2.15's re-record limit) are classified here too (WARNING_KINDS), for events/messages/warnings.py.
"""

from __future__ import annotations

import re

from torchcompile_doctor.events.messages.base import KNOWN, LogMessage, MessageParser, compile_id_in_text
from torchcompile_doctor.events.model import (
    CudagraphPartitions,
    CudagraphRecording,
    CudagraphRun,
    CudagraphRunMode,
    CudagraphSizesWarning,
    CudagraphSkip,
    CudagraphSkipReason,
    NonCudagraphableOp,
    WarningKind,
)
from torchcompile_doctor.events.parsers.graph_break_reason import parse_stack

CUDAGRAPHS = frozenset({"cudagraphs"})
# An op's stack, which scheduler.py logs one record per line under the op, indented nine spaces.
OP_STACK_LINE = re.compile(r"^ {9}")

# the reason's words -> the reason (first match wins; torch's wordings of 2.11 and 2.13)
_REASONS = (
    (re.compile(r"re-record(?:ing)? (?:limit|threshold)"), CudagraphSkipReason.RERECORD_LIMIT),  # its cause follows
    (re.compile(r"mutated inputs|mutation on input|input storage mutation"), CudagraphSkipReason.MUTATED_INPUTS),
    (re.compile(r"cpu device|cpu ops|multiple devices|non-cuda device|DeviceCopy"), CudagraphSkipReason.CPU_DEVICE),
    (
        re.compile(r"symbolic shapes? inputs|cudagraph_skip_dynamic_graphs|dynamic shape ops"),
        CudagraphSkipReason.DYNAMIC_SHAPES,
    ),
    (
        re.compile(
            r"incompatible op|control flow operator|index_put_|sparsity|deterministic|CUDAGraph-unsafe|Conditional ops"
            r"|unbacked binding ops|custom partition op"
        ),
        CudagraphSkipReason.INCOMPATIBLE_OP,
    ),
    (re.compile(r"non-Tensor inputs"), CudagraphSkipReason.NON_TENSOR_INPUTS),
)
# a re-recording's cause (cudagraph_utils.log_data_ptr_mismatch): `static input data pointer changed.` then, per
# input, `input name: primals_2. data pointer changed from A to B. input stack trace: <its frames>`
_CHANGED_INPUT = re.compile(r"input name: (?P<name>[^.\s]+)\. .*?input stack trace: ?(?P<stack>.*)", re.S)
# `... exceeding max re-recording limit (=50) on cudagraph node 3 due to ...` (2.11-2.15); 2.15's `... reaching
# the cudagraph-managed input re-recording threshold (=8) ...` and `graph hit cudagraph_dynamic_shape_rerecord_limit=8`
_LIMIT = re.compile(r"(?:re-record(?:ing)? (?:limit|threshold)|rerecord_limit)\W*(?:\(=?\s*|of\s+|=\s*)?(?P<limit>\d+)")
_SKIP = re.compile(r"^(?:skipping cudagraphs? due to|disabling cudagraphs (?:for backward )?due to) ")
_FOUND_FROM = re.compile(r"\.?\s*Found from\s*:?\s*")
_STACK_OF_INPUT = re.compile(r"\.?\s*input stack trace:\s*")  # a re-record limit's cause: where the input was made


def skip_reason(detail: str) -> str:
    return next((reason for pattern, reason in _REASONS if pattern.search(detail)), CudagraphSkipReason.OTHER)


def _skip(message: LogMessage, match: re.Match[str]) -> CudagraphSkip:
    rest = message.text[match.end() :]
    while (nested := _SKIP.match(rest)) is not None:  # "skipping cudagraphs due to disabling cudagraphs due to ..."
        rest = rest[nested.end() :]
    found = _FOUND_FROM.search(rest) or _STACK_OF_INPUT.search(rest)
    detail, stack_text = (rest[: found.start()], rest[found.end() :]) if found else (rest, "")
    detail = detail.strip().split("\n")[0].strip().strip("[]'\"").rstrip(".")  # the cause's details: the stack
    limit = _LIMIT.search(detail)
    return CudagraphSkip(
        message.compile_id,
        skip_reason(detail),
        detail,
        parse_stack(stack_text.split("\n")),
        rerecord_limit=int(limit["limit"]) if limit else None,
    )


def _partitions(message: LogMessage, match: re.Match[str]) -> CudagraphPartitions:
    return CudagraphPartitions(message.compile_id, int(match["partitions"]), int(match["cudagraphable"]))


def _op(message: LogMessage, match: re.Match[str]) -> NonCudagraphableOp:
    stack = parse_stack(message.text.split("\n")[1:])  # a text log may hold the op's stack lines in its record
    reason = match["reason"]
    return NonCudagraphableOp(message.compile_id, match["node"], reason, match["op"], stack, skip_reason(reason))


def _recording(message: LogMessage, match: re.Match[str]) -> CudagraphRecording:
    compile_id, _ = compile_id_in_text(message.text, message.compile_id)
    return CudagraphRecording(compile_id, match["key"])


_MODES = {
    "Running warmup": CudagraphRunMode.WARMUP,
    "Running eager": CudagraphRunMode.EAGER,
    "Recording": CudagraphRunMode.RECORD,
    "Re-recording": CudagraphRunMode.RERECORD,
}


def _run(message: LogMessage, match: re.Match[str]) -> CudagraphRun:
    compile_id, _ = compile_id_in_text(message.text, message.compile_id)
    cause = (match["rerecord_cause"] or "").strip()
    changed = _CHANGED_INPUT.search(cause)
    return CudagraphRun(
        compile_id,
        match["function"],
        _MODES[match["mode"]],
        reason=cause.split("\n")[0].rstrip(".") or None,
        changed_input=changed["name"] if changed else None,
        user_stack=parse_stack(changed["stack"].split("\n")) if changed else (),
    )


def _sizes(message: LogMessage, match: re.Match[str]) -> CudagraphSizesWarning:
    return CudagraphSizesWarning(message.compile_id, int(match["sizes"]))


def _rerecord_warning(message: LogMessage) -> CudagraphSkip:
    """A function re-recorded up to torch's limit, as a warning of the cudagraphs logger: it runs without CUDA
    graphs from then on, as after the skip message."""
    text = message.text.strip()
    limit = _LIMIT.search(text)
    return CudagraphSkip(
        message.compile_id,
        CudagraphSkipReason.RERECORD_LIMIT,
        text.split("\n")[0],
        rerecord_limit=int(limit["limit"]) if limit else None,
    )


# warnings of cudagraph_trees.py (`warnings.warn`), their kind (events/messages/warnings.py shows them)
WARNING_KINDS = (
    (
        re.compile(
            r"Unable to hit fast path of CUDAGraphs because (?:of pending, uninvoked backwards|outputs from a "
            r"previous step still require backward)"
        ),
        WarningKind.CUDAGRAPH_PENDING_BACKWARD,
    ),
    (re.compile(r"\bre-record\w*\b.*\b(?:limit|threshold)\b", re.I | re.S), WarningKind.CUDAGRAPH_RERECORD_LIMIT),
)


_ID = r"(?:\[[^\]]*\] )?"
PARSERS = [
    MessageParser("cudagraph_skip", CUDAGRAPHS, _SKIP, _skip),
    MessageParser(
        "cudagraph_partitions",
        CUDAGRAPHS,
        re.compile(r"^Created (?P<partitions>\d+) graph partitions: (?P<cudagraphable>\d+) cudagraphable"),
        _partitions,
    ),
    MessageParser("cudagraph_partition", CUDAGRAPHS, re.compile(r"^ +Partition \d+: \d+ nodes, "), lambda m, _: KNOWN),
    MessageParser(
        "non_cudagraphable_op",
        CUDAGRAPHS,
        re.compile(r"^ +(?P<node>\w+): reason=(?P<reason>.*?), ir=\w+(?:, fx=(?P<op>[\w.]+)\()?"),
        _op,
    ),
    MessageParser(
        "cudagraph_recording",
        CUDAGRAPHS,
        re.compile(_ID + r"Recording cudagraph tree for (?:graph without symints|symint key (?P<key>.+))$"),
        _recording,
    ),
    MessageParser(
        "cudagraph_run",
        CUDAGRAPHS,
        re.compile(
            _ID + r"(?P<mode>Running warmup|Running eager|Recording|Re-recording) function=(?P<function>[\w.]+)"
            r"(?:, mode=\w+, reason=(?P<rerecord_cause>.*))?",
            re.S,
        ),
        _run,
    ),
    MessageParser(
        "cudagraph_sizes",
        CUDAGRAPHS,
        re.compile(r"^CUDAGraph supports dynamic shapes by recording .*?We have observed (?P<sizes>\d+) distinct size"),
        _sizes,
    ),
    # a warning of the cudagraphs logger about re-recording up to a limit (not a skip: that one is parsed above)
    MessageParser(
        "cudagraph_rerecord_warning",
        CUDAGRAPHS,
        re.compile(
            r"^(?!skipping cudagraph)(?=.*(?:\bre-record\w*\b.*\b(?:limit|threshold)\b|rerecord_limit=\d))", re.I
        ),
        lambda m, _: _rerecord_warning(m),
    ),
    # known and not used: the annotation that turned CUDA graphs on, a partition below the minimum size
    MessageParser(
        "cudagraph_notes",
        CUDAGRAPHS,
        re.compile(r"^enabling cudagraphs due to|^Partition \d+ has \d+ kernels, below minimum size"),
        lambda m, _: KNOWN,
    ),
]
