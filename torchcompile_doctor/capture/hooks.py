"""In-process hooks the bootstrap installs in the child: each is a context manager that restores
what it changed. They only observe, except the backend override the user asked for."""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import sys
import types
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

from torchcompile_doctor.capture.call_counts import CallCounts
from torchcompile_doctor.capture.compile_experiments import compile_blocks
from torchcompile_doctor.events.sidechannel import EventName, SideChannel
from torchcompile_doctor.model.experiment import FUNCTION_SETS, ConfigValue, KwargValue, MarkDynamic, Regional

# Modules of torch 2.13 that log the `perf_hints` artifact (grep 'getArtifactLogger(__name__, "perf_hints")').
PERF_HINT_MODULES = (
    "torch._dynamo.variables.optimizer",
    "torch._inductor.graph",
    "torch._inductor.codegen.simd",
    "torch._inductor.codegen.triton",
    "torch._inductor.compile_fx",
    "torch._inductor.cudagraph_utils",
)


class Recorder(Protocol):
    """What remembers each compiled callable's calls for guard timing (guard_timing.CallRecorder)."""

    def track(self, compiled: Callable[..., Any], eager: Callable[..., Any], code: types.CodeType) -> Any: ...

    def note(self, record: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None: ...


def _dim_marker(
    function: Callable[..., Any], code: types.CodeType, mark: MarkDynamic | None
) -> Callable[..., Any] | None:
    """For a `mark_dynamic` experiment on this function: mark the named input's dimension dynamic
    before each call, as `torch._dynamo.mark_dynamic(x, dim)` in the user's code would."""
    if not mark or (code.co_filename, code.co_firstlineno) != (mark.file, mark.line):
        return None
    import inspect

    import torch

    signature = inspect.signature(function)

    def mark_inputs(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        try:
            value = signature.bind_partial(*args, **kwargs).arguments.get(mark.variable)
        except TypeError:
            return
        if isinstance(value, torch.Tensor) and value.dim() > mark.dim:
            torch._dynamo.mark_dynamic(value, mark.dim)

    return mark_inputs


class _CallSites:
    """Notes each distinct line of the user's that calls one compiled function or module (torch's own
    dynamo_start stack leaves that frame out, and input fixes such as mark_dynamic belong there)."""

    def __init__(self, channel: SideChannel, code: types.CodeType) -> None:
        import torch

        self.channel, self.code = channel, code
        self.torch_dir = os.path.dirname(torch.__file__) + os.sep  # nn.Module.__call__ sits between
        self.seen: set[tuple[str, int]] = set()

    def note(self, caller: types.FrameType | None) -> None:
        while caller is not None and caller.f_code.co_filename.startswith(self.torch_dir):
            caller = caller.f_back
        if caller is None:
            return
        key = (caller.f_code.co_filename, caller.f_lineno)
        if key in self.seen:
            return
        self.seen.add(key)
        self.channel.write(
            EventName.CALL_SITE,
            function_file=self.code.co_filename,
            function_line=self.code.co_firstlineno,
            function=self.code.co_name,
            file=key[0],
            line=key[1],
            caller=caller.f_code.co_name,
            **_call_position(caller),
        )


def _call_position(frame: types.FrameType) -> dict[str, int | None]:
    """Where in its line the frame's current call is (columns from Python's own positions table), so that the
    call's arguments can be read back from the source: `m(torch.randn(n, 4))` holds two calls."""
    try:
        line, end_line, column, end_column = list(frame.f_code.co_positions())[frame.f_lasti // 2]
    except (IndexError, ValueError):
        return {}
    return {"column": column, "end_line": end_line, "end_column": end_column} if line == frame.f_lineno else {}


def _recording_callers(
    compiled: Callable[..., Any],
    original: Callable[..., Any],
    channel: SideChannel,
    counts: CallCounts,
    recorder: Recorder | None = None,
    mark: MarkDynamic | None = None,
) -> Callable[..., Any]:
    """Wrap a compiled plain function to note the lines that call it and to count its calls."""
    code = getattr(original, "__code__", None)
    if code is None:
        return compiled
    sites = _CallSites(channel, code)
    record = recorder.track(compiled, original, code) if recorder is not None else None
    mark_inputs = _dim_marker(original, code, mark)

    @functools.wraps(compiled)
    def call(*args: Any, **kwargs: Any) -> Any:
        if recorder is not None:
            recorder.note(record, args, kwargs)
        if mark_inputs is not None:
            mark_inputs(args, kwargs)
        sites.note(sys._getframe(1))
        return counts.call(code, lambda: compiled(*args, **kwargs))

    return call


def _backend_name(backend: object) -> str:
    if isinstance(backend, str):
        return backend
    return getattr(backend, "__name__", None) or type(backend).__name__


def compile_call(model: object, caller: types.FrameType) -> dict[str, Any]:
    """What a torch.compile call compiles, from which line, and what disables Dynamo now: the trace records
    none of it, and a run that compiles nothing needs it to say why."""
    import torch

    if isinstance(model, torch.nn.Module):
        kind, name = "module", type(model).__name__
    elif isinstance(model, types.MethodType):
        kind, name = "method", f"{type(model.__self__).__name__}.{model.__func__.__name__}"
    elif isinstance(model, types.FunctionType):
        kind, name = "function", model.__qualname__
    else:
        kind, name = "other", type(model).__name__
    disabled_by = None
    if os.environ.get("TORCHDYNAMO_DISABLE", "") == "1":
        disabled_by = "TORCHDYNAMO_DISABLE=1"
    elif os.environ.get("TORCH_COMPILE_DISABLE", "") == "1":
        disabled_by = "TORCH_COMPILE_DISABLE=1"
    elif torch._dynamo.config.disable:
        disabled_by = "torch._dynamo.config.disable"
    try:  # the compiled function's code, or a module's forward: which function `dynamic=` applies to
        code = getattr(getattr(model, "forward", model), "__code__", None)
    except Exception:  # noqa: BLE001 - an exotic __getattr__ must not break the user's torch.compile call
        code = None
    return {
        "compiled": name,
        "compiled_kind": kind,
        "file": caller.f_code.co_filename,
        "line": caller.f_lineno,
        "dynamo_disabled_by": disabled_by,
        "function_file": getattr(code, "co_filename", None),
        "function_line": getattr(code, "co_firstlineno", None),
    }


def _recording_module_calls(
    compiled: Any, channel: SideChannel, counts: CallCounts, recorder: Recorder | None, mark: MarkDynamic | None
) -> None:
    """Make a compiled module (OptimizedModule) count its calls, note its last arguments (for `doctor guards`,
    which times that call afterwards) or mark an input dynamic (a --try-fixes experiment), by wrapping the
    `forward` torch gave it: its type stays torch's own, so that a compiled function that calls it sees what a
    plain run has (Dynamo inlines the module it wraps and never traces the doctor's code) and it pickles as torch
    made it."""
    code = getattr(getattr(type(compiled._orig_mod), "forward", None), "__code__", None)
    if code is None:  # a forward that is no Python function (a scripted module's): left as torch made it
        return
    sites = _CallSites(channel, code)
    record = recorder.track(compiled, compiled._orig_mod, code) if recorder is not None else None
    mark_inputs = _dim_marker(compiled._orig_mod.forward, code, mark)
    compiled_forward = compiled.forward

    @functools.wraps(compiled_forward)
    def forward(*args: Any, **kwargs: Any) -> Any:
        if recorder is not None:
            recorder.note(record, args, kwargs)
        if mark_inputs is not None:
            mark_inputs(args, kwargs)
        sites.note(sys._getframe(1))
        return counts.call(code, lambda: compiled_forward(*args, **kwargs))

    compiled.forward = forward  # an instance attribute of OptimizedModule, as torch's own is


@contextlib.contextmanager
def compile_hook(
    channel: SideChannel,
    override: str | None,
    forced: dict[str, KwargValue] | None = None,
    recorder: Recorder | None = None,
    mark: MarkDynamic | None = None,
    regional: Regional | None = None,
) -> Iterator[None]:
    """Record every torch.compile call's backend; with `override`, compile with it instead; `forced`
    kwargs (a --try-fixes experiment such as dynamic=True) replace the user's; with a `recorder`
    (guard timing), remember each compiled callable's last call. Every compiled function and module counts
    its calls (written when the hook closes: the warm-up in calls)."""
    import torch

    original = torch.compile
    counts = CallCounts()

    def compile_and_record(model: Any = None, **kwargs: Any) -> Any:
        if model is None:  # `@torch.compile(...)`: recorded once, when the decorator gets the function
            caller = sys._getframe(1)
            return lambda function: compile_with(function, caller, kwargs)
        return compile_with(model, sys._getframe(1), kwargs)

    def compile_with(model: Any, caller: types.FrameType, kwargs: dict[str, Any]) -> Any:
        kwargs = {**kwargs, **(forced or {})}
        requested = _backend_name(kwargs.get("backend", "inductor"))
        if override:
            kwargs["backend"] = override
            if override != "inductor":  # mode/options are inductor settings other backends reject
                kwargs.pop("mode", None)
                kwargs.pop("options", None)
        used = _backend_name(kwargs.get("backend", "inductor"))
        call = compile_call(model, caller)
        channel.write(EventName.BACKEND, requested=requested, used=used, dynamic=kwargs.get("dynamic"), **call)
        if compile_blocks(model, regional, kwargs):  # a regional-compilation experiment
            return model
        compiled = original(model, **kwargs)
        # a bound method (`torch.compile(self.compute_loss)`) is called as a plain function is: its callers noted too
        if isinstance(model, (types.FunctionType, types.MethodType)) and isinstance(compiled, types.FunctionType):
            return _recording_callers(compiled, model, channel, counts, recorder, mark)
        if isinstance(model, torch.nn.Module) and hasattr(compiled, "_orig_mod"):
            _recording_module_calls(compiled, channel, counts, recorder, mark)
        return compiled

    compile_and_record.__wrapped__ = original  # type: ignore[attr-defined]
    compile_and_record.__doc__ = original.__doc__
    torch.compile = compile_and_record
    try:
        yield
    finally:
        torch.compile = original
        counts.write(channel)


class _PerfHintHandler(logging.Handler):
    def __init__(self, channel: SideChannel) -> None:
        super().__init__(level=logging.DEBUG)
        self._channel = channel

    def emit(self, record: logging.LogRecord) -> None:
        try:
            from torch._guards import CompileContext

            compile_id = CompileContext.current_compile_id()
            self._channel.write(
                EventName.PERF_HINT,
                message=record.getMessage(),
                logger=record.name,
                compile_id=str(compile_id) if compile_id is not None else None,
            )
        except Exception:  # a hint we cannot record must never break the user's program
            pass


@contextlib.contextmanager
def perf_hint_capture(channel: SideChannel) -> Iterator[None]:
    """Collect inductor/dynamo perf hints without printing them (unless the user's TORCH_LOGS asks)."""
    user_wants_them = "perf_hints" in os.environ.get("TORCH_LOGS", "")
    handler = _PerfHintHandler(channel)
    changed = []
    for module in PERF_HINT_MODULES:
        logger = logging.getLogger(f"{module}.__perf_hints")
        changed.append((logger, logger.level, logger.propagate))
        logger.setLevel(logging.DEBUG)
        logger.addHandler(handler)
        if not user_wants_them:
            logger.propagate = False
    try:
        yield
    finally:
        for logger, level, propagate in changed:
            logger.removeHandler(handler)
            logger.setLevel(level)
            logger.propagate = propagate


def _resolve(dotted: str) -> Any:
    """`print` or `logging.Logger.info`: a builtin, or an attribute path from an importable module.
    `pkg:logging.Logger.warning_once` names a method that package `pkg` adds to Logger when it is imported."""
    import builtins
    import importlib

    dotted = dotted.rpartition(":")[2]
    if hasattr(builtins, dotted):
        return getattr(builtins, dotted)
    module_name, _, attribute_path = dotted.partition(".")
    value = importlib.import_module(module_name)
    for part in attribute_path.split(".") if attribute_path else ():
        value = getattr(value, part)
    return value


class _FunctionsByName(set[Any]):
    """A set of functions for `ignore_logging_functions`/`reorderable_logging_functions` that also holds
    dotted names, resolved when Dynamo first looks: a method a package adds to Logger (transformers'
    `warning_once`) exists only once the program has imported that package, after the hooks went in."""

    def __init__(self, functions: Iterable[Any], names: Iterable[str]) -> None:
        super().__init__(functions)
        self._pending = list(names)

    def _resolve_pending(self) -> None:
        for name in list(self._pending):
            try:
                self.add(_resolve(name))
            except (ImportError, AttributeError):
                continue  # not there yet: asked again on the next lookup
            self._pending.remove(name)

    def __contains__(self, item: object) -> bool:
        self._resolve_pending()
        return super().__contains__(item)

    def __iter__(self) -> Iterator[Any]:
        self._resolve_pending()
        return super().__iter__()


@contextlib.contextmanager
def dynamo_config(settings: dict[str, ConfigValue] | None) -> Iterator[None]:
    """Set torch._dynamo.config values for a --try-fixes experiment, restored afterwards."""
    import torch._dynamo.config as config

    saved = {}
    for key, value in (settings or {}).items():
        if not hasattr(config, key):
            raise ValueError(f"torch._dynamo.config has no setting {key!r}")
        saved[key] = getattr(config, key)
        if key in FUNCTION_SETS:
            names = value if isinstance(value, tuple) else (str(value),)
            setattr(config, key, _FunctionsByName(saved[key], names))
        else:
            setattr(config, key, list(value) if isinstance(value, tuple) else value)
    try:
        yield
    finally:
        for key, value in saved.items():
            setattr(config, key, value)


@contextlib.contextmanager
def trace_paused() -> Iterator[None]:
    """Keep a second, diagnostic compile (explain) out of the TORCH_TRACE log."""
    from torch._logging._internal import trace_log

    was_disabled = trace_log.disabled
    trace_log.disabled = True
    try:
        yield
    finally:
        trace_log.disabled = was_disabled
