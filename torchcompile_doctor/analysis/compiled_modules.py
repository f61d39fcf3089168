"""A compiled torch.nn module named by the module, not by torch's wrapper of it.

`torch.compile(nn.Sequential(...))` (and any module whose forward torch's trace rules skip) compiles torch's own
wrapper, `wrap_inline.<locals>.inner` in torch/_dynamo/external_utils.py, on every release from 2.11 to 2.15: the
compiled frame torch logs is that wrapper. A finding about it belongs to the user's module: its class and the line
that compiled it (the bootstrap records each torch.compile call), or, in a bare trace, the user's line that called
it and the name it was called by."""

from __future__ import annotations

import ast
from dataclasses import replace

from torchcompile_doctor.analysis.code import CodeMap
from torchcompile_doctor.events.guard_failures import passed_name
from torchcompile_doctor.events.model import CompilationMetrics, CompileId, EventLog, Recompile

_WRAPPER_FILE = "/torch/_dynamo/external_utils.py"
_WRAPPER_NAME = "inner"  # wrap_inline.<locals>.inner

_Frame = tuple[str, int, str]  # (file, first line, name), as a compiled frame is keyed


def is_torch_wrapper(file: str | None, co_name: str | None) -> bool:
    return co_name == _WRAPPER_NAME and (file or "").replace("\\", "/").endswith(_WRAPPER_FILE)


def with_modules_named(log: EventLog, code: CodeMap) -> EventLog:
    """The log with each compile of torch's wrapper named by the module it wraps, where that is known."""
    if not any(is_torch_wrapper(m.co_filename, m.co_name) for m in log.metrics):
        return log
    owner = _compiled_module(log) or _called_module(log, code)
    if owner is None:
        return log
    frames = {m.compile_id.frame_id for m in log.metrics if m.compile_id and is_torch_wrapper(m.co_filename, m.co_name)}
    metrics = [_renamed(m, owner) if is_torch_wrapper(m.co_filename, m.co_name) else m for m in log.metrics]
    recompiles = [
        _inputs_named(r, owner, _call_line(log, code, r.compile_id))
        if (r.compile_id and r.compile_id.frame_id in frames) or (r.frame and is_torch_wrapper(r.frame[0], r.frame[2]))
        else r
        for r in log.recompiles
    ]
    return replace(log, metrics=metrics, recompiles=recompiles)


def _inputs_named(record: Recompile, owner: _Frame, call_line: str | None) -> Recompile:
    """The wrapper takes the module's inputs as `*args`: `args[0]` is what the user's call passed first."""
    passed = call_arguments(call_line or "")
    failures = tuple(
        replace(f, variable=passed_name(f.variable, passed), subject=f.subject and passed_name(f.subject, passed))
        for f in record.guard_failures
    )
    return replace(record, frame=owner if record.frame else None, guard_failures=failures)


def _call_line(log: EventLog, code: CodeMap, compile_id: CompileId | None) -> str | None:
    """The user's line whose call reached this compile (its dynamo_start stack), as written."""
    start = next((s for s in log.dynamo_starts if s.compile_id == compile_id), None)
    frame = code.last_user_frame(start.stack[:-1]) if start else None
    lines = code.lines(frame.file) if frame else None
    return lines[frame.line - 1] if frame and lines and 0 < frame.line <= len(lines) else None


def call_arguments(source: str) -> list[str]:
    """The positional arguments of the call of the object the line calls first (`model(x, mask)`: x, mask)."""
    callee = called_object(source)
    try:
        tree = ast.parse(source.strip())
    except (SyntaxError, ValueError):
        return []
    call = next((n for n in ast.walk(tree) if isinstance(n, ast.Call) and ast.unparse(n.func) == callee), None)
    return [ast.unparse(a) for a in call.args if not isinstance(a, ast.Starred)] if call else []


def _renamed(metrics: CompilationMetrics, owner: _Frame) -> CompilationMetrics:
    file, line, name = owner
    return replace(metrics, co_filename=file, co_firstlineno=line, co_name=name)


def _compiled_module(log: EventLog) -> _Frame | None:
    """The module torch.compile was called on (the line of that call, its class): one, or the classes of all."""
    modules = list(
        dict.fromkeys((b.file, b.line, b.compiled) for b in log.backends if b.compiled_kind == "module" and b.file)
    )
    if not modules:
        return None
    file, line, _ = modules[0]
    names = " / ".join(dict.fromkeys(name or "module" for _, _, name in modules))
    return (file or "?", line or 0, names)


def _called_module(log: EventLog, code: CodeMap) -> _Frame | None:
    """Without the bootstrap's record (a bare trace): the user's line that called the wrapper first, and the
    name it called (`y = cm(x)`: `cm`); None where that line cannot be read (the report names the wrapper's
    caller its own way then)."""
    wrapper = {m.compile_id for m in log.metrics if m.compile_id and is_torch_wrapper(m.co_filename, m.co_name)}
    for start in log.dynamo_starts:
        if start.compile_id not in wrapper:
            continue
        frame = code.last_user_frame(start.stack[:-1])
        lines = code.lines(frame.file) if frame else None
        if frame is not None and lines and 0 < frame.line <= len(lines):
            called = called_object(lines[frame.line - 1])
            return (frame.file, frame.line, called) if called else None
    return None


def called_object(source: str) -> str | None:
    """The user's object a line calls first (`loss = cmodel(x).pow(2).mean()`: `cmodel`): of the calls of a plain
    name or attribute, the first in the line but torch's own (`torch.randn`); parsed, never run."""
    try:
        tree = ast.parse(source.strip())
    except (SyntaxError, ValueError):
        return None
    plain = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and not any(isinstance(inner, ast.Call) for inner in ast.walk(node.func))
    ]
    names = [ast.unparse(node.func) for node in sorted(plain, key=lambda node: node.col_offset)]
    return next((name for name in names if not name.startswith("torch.")), None)
