"""`compilation_metrics`: one per compile (including failed and refused ones); `bwd_compilation_metrics`: inductor's
lazy compile of a graph's backward at its first backward call (its Triton kernels' time included)."""

from __future__ import annotations

import re
import sys
from typing import Any

from torchcompile_doctor.events.model import BackwardCompilationMetrics, CompilationMetrics, CompileId
from torchcompile_doctor.events.parsers.base import Parser
from torchcompile_doctor.events.parsers.common import GB_LINK, as_float, as_int, as_str, compile_id_of
from torchcompile_doctor.events.reader import Record


def parse(record: Record, strings: dict[int, str]) -> CompilationMetrics | None:
    body = record.meta.get("compilation_metrics")
    return _metrics(body, record.meta) if isinstance(body, dict) else None


def _metrics(body: dict[str, Any], meta: dict[str, Any]) -> CompilationMetrics:
    compile_id = compile_id_of(meta)
    if compile_id is None and isinstance(body.get("compile_id"), str):
        compile_id = CompileId.parse(body["compile_id"])
    return CompilationMetrics(
        compile_id=compile_id,
        co_name=_text(body.get("co_name")),
        co_filename=_text(body.get("co_filename")),
        co_firstlineno=as_int(body.get("co_firstlineno")),
        cache_size=as_int(body.get("cache_size")),
        guard_count=as_int(body.get("guard_count")),
        guard_latency_us=as_float(body.get("guard_latency_us")),
        graph_op_count=as_int(body.get("graph_op_count")),
        compile_time_s=_compile_seconds(body),
        fail_type=_text(body.get("fail_type")),
        fail_reason=_text(body.get("fail_reason")),
        fail_file=_text(body.get("fail_user_frame_filename")),
        fail_line=as_int(body.get("fail_user_frame_lineno")),
        start_time_us=as_int(body.get("start_time_us")),
        backend_compile_s=_seconds(body, "backend_compile_time_s", "aot_autograd_cumulative_compile_time_us"),
        inductor_compile_s=_seconds(body, "inductor_compile_time_s", "inductor_cumulative_compile_time_us"),
        code_gen_s=_seconds(body, "code_gen_time_s", "inductor_code_gen_cumulative_compile_time_us"),
        async_compile_s=_micros(body.get("triton_compile_time_us")),
        fx_cache=(
            _count(body, "inductor_fx_local_cache_hit_count"),
            _count(body, "inductor_fx_local_cache_miss_count"),
        ),
        aot_cache=(
            _count(body, "aotautograd_local_cache_hit_count"),
            _count(body, "aotautograd_local_cache_miss_count"),
        ),
        kernel_compiler="triton" if _compiled_triton(body) else None,
        autotune_s=_micros(body.get("compile_time_autotune_time_us")),
        torch_version=_text(body.get("pytorch_version")),
        **_backend_failure(body),
        **_fail_reason(as_str(body.get("fail_reason")) or ""),
    )


def _text(value: object) -> str | None:
    """A text field, one copy per distinct text: every compile of a function repeats its name, file and failure."""
    return sys.intern(value) if isinstance(value, str) else None


def _compiled_triton(body: dict[str, Any]) -> bool:
    """torch listed the Triton kernels it compiled, with their times. (`triton_compile_time_us` is no evidence:
    torch 2.13 fills it on a CPU too, with the time of the C++ kernels' async compile.)"""
    kernels = body.get("triton_kernel_compile_times_us")
    return isinstance(kernels, (str, list)) and "triton_" in str(kernels)


_BACKEND_RAISED = re.compile(r"^backend=(?P<quote>['\"])(?P<name>.+?)(?P=quote) raised:\n?(?P<error>.*)", re.S)


def _backend_failure(body: dict[str, Any]) -> dict[str, Any]:
    """The backend that raised and its error, for a BackendCompilerFailed (`backend='x' raised:\nError: ...`)."""
    reason = as_str(body.get("fail_reason")) or ""
    match = _BACKEND_RAISED.match(reason) if body.get("fail_type") == "BackendCompilerFailed" else None
    if match is None:
        return {}
    error = match["error"].strip().split("\n\n")[0].strip()
    return {"failed_backend": match["name"], "backend_error": error or None}


# how torch says a function hit the recompile limit (the limit's old name, cache_size_limit, included)
LIMIT_MARKERS = ("recompile limit exceeded", "cache limit exceeded", "recompile_limit", "cache_size_limit")
_LIMIT = re.compile(r"currently set to (\d+)")
_EXPLANATION = re.compile(r"Explanation: (.+)")


def _fail_reason(reason: str) -> dict[str, Any]:
    """What a failed compile's `fail_reason` says: its graph break's GB id and explanation, and whether (and at
    which limit) the function hit the recompile limit."""
    ids, explanation, limit = GB_LINK.findall(reason), _EXPLANATION.search(reason), _LIMIT.search(reason)
    return {
        "fail_gb_id": f"GB{ids[0]}" if ids else None,
        "fail_explanation": explanation[1] if explanation else None,
        "hit_recompile_limit": any(marker in reason.lower() for marker in LIMIT_MARKERS),
        "recompile_limit": int(limit[1]) if limit else None,
    }


def _seconds(body: dict[str, Any], seconds_key: str, micros_key: str) -> float | None:
    """A phase timer in seconds; logs of late 2024 carry only its `*_cumulative_compile_time_us` twin."""
    seconds = as_float(body.get(seconds_key))
    return seconds if seconds is not None or seconds_key in body else _micros(body.get(micros_key))


def _micros(value: object) -> float | None:
    micros = as_float(value)
    return micros / 1e6 if micros is not None else None


def _count(body: dict[str, Any], key: str) -> int:
    return as_int(body.get(key)) or 0


def _compile_seconds(body: dict[str, Any]) -> float:
    """`entire_frame_compile_time_s`; logs of a torch 2.6 pre-release carry only `dynamo_cumulative_compile_time_us`."""
    seconds = as_float(body.get("entire_frame_compile_time_s"))
    if "entire_frame_compile_time_s" not in body:
        micros = as_float(body.get("dynamo_cumulative_compile_time_us"))
        seconds = micros / 1e6 if micros is not None else None
    return seconds or 0.0


def parse_backward(record: Record, strings: dict[int, str]) -> BackwardCompilationMetrics | None:
    """The backward's compile: inductor's timers, its kernels' compile and autotuning; its seconds are inductor's
    (torch fills no frame time for it)."""
    body = record.meta.get("bwd_compilation_metrics")
    if not isinstance(body, dict):
        return None
    forward = _metrics(body, record.meta)
    inductor = forward.inductor_compile_s or 0.0
    fields_ = {**vars(forward), "compile_time_s": inductor, "backend_compile_s": inductor}
    return BackwardCompilationMetrics(**fields_)


PARSER = Parser(frozenset({"compilation_metrics"}), needs_payload=False, parse=parse)
BACKWARD_PARSER = Parser(frozenset({"bwd_compilation_metrics"}), needs_payload=False, parse=parse_backward)
