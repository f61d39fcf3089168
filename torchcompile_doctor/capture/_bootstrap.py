"""Child-process entry: `python -m torchcompile_doctor.capture._bootstrap SPEC_JSON`.

Installs the hooks, runs the target as `__main__` (runpy) with TORCH_TRACE already pointed at the
artifacts dir by the parent, and records in the side channel how the target ended. Whatever the
target does (raise, sys.exit, crash), what was logged before stays on disk for the parent.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import runpy
import site
import sys
import sysconfig
import traceback

from torchcompile_doctor.capture.compile_experiments import persistent_cache
from torchcompile_doctor.capture.guard_timing import CallRecorder, measure
from torchcompile_doctor.capture.hooks import compile_hook, dynamo_config, perf_hint_capture, trace_paused
from torchcompile_doctor.events.sidechannel import EventName, SideChannel, rank_file_name

USAGE_ERROR_EXIT = 2


class UsageError(Exception):
    """The target cannot be run as given (module not found, function missing, bad inputs)."""


def _library_roots() -> list[str]:
    roots = set(site.getsitepackages() + [site.getusersitepackages()])
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        with contextlib.suppress(KeyError):
            roots.add(sysconfig.get_paths()[key])
    return sorted(os.path.realpath(r) for r in roots if r)


def _stack_of(error: BaseException) -> list[dict]:
    return [
        {"file": f.filename, "line": f.lineno or 0, "function": f.name, "code": (f.line or "").strip()}
        for f in traceback.extract_tb(error.__traceback__)
    ]


def _load_file_as_module(path: str, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise UsageError(f"cannot load {path} as a module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _attribute(module, dotted: str, path: str):
    value = module
    for part in dotted.split("."):
        if not hasattr(value, part):
            raise UsageError(f"{path} has no function {dotted!r}")
        value = getattr(value, part)
    if not callable(value):
        raise UsageError(f"{path}:{dotted} is not callable (it is a {type(value).__name__})")
    return value


def _run_function(spec: dict, channel: SideChannel) -> None:
    """Compile the function (unless it already is), call it on its example inputs, then explain it."""
    import torch

    sys.path.insert(0, os.path.dirname(spec["path"]))
    module = _load_file_as_module(spec["path"], "__doctor_target__")
    function = _attribute(module, spec["function"], spec["path"])
    inputs_module = (
        module
        if spec["inputs_path"] == spec["path"]
        else _load_file_as_module(spec["inputs_path"], "__doctor_inputs__")
    )
    inputs = _attribute(inputs_module, spec["inputs_function"], spec["inputs_path"])()
    if not isinstance(inputs, tuple):
        raise UsageError(
            f"{spec['inputs_path']}:{spec['inputs_function']} must return a tuple of arguments, "
            f"got {type(inputs).__name__}"
        )
    original = getattr(function, "_torchdynamo_orig_callable", None) or getattr(function, "_orig_mod", None)
    compiled = function if original is not None else torch.compile(function)
    for _ in range(2):  # a second call shows guards that fail on state the first call changed
        compiled(*inputs)
    _record_explain(original or function, inputs, channel)


def _record_explain(function, inputs: tuple, channel: SideChannel) -> None:
    import torch._dynamo

    try:
        with trace_paused():
            result = torch._dynamo.explain(function)(*inputs)
        channel.write(
            EventName.EXPLAIN,
            graph_count=result.graph_count,
            graph_break_count=result.graph_break_count,
            break_reasons=[
                f"{r.user_stack[-1].filename}:{r.user_stack[-1].lineno}: {r.reason}" if r.user_stack else r.reason
                for r in result.break_reasons
            ],
            ops_per_graph=[len(ops) for ops in result.ops_per_graph or []],
        )
    except Exception as error:  # explain is informative; its failure must not hide the real findings
        channel.write(EventName.EXPLAIN, graph_count=0, graph_break_count=0, error=f"{type(error).__name__}: {error}")


def _depyf_dump(dump_dir: str | None, channel: SideChannel):
    """depyf, observe-only, when asked for a dump; if depyf cannot run here, say so and go on."""
    if not dump_dir:
        return contextlib.nullcontext()
    try:
        import depyf  # noqa: F401 - decompiling happens per cache entry; find out now whether it can at all

        from torchcompile_doctor.capture.depyf_observe import observe_into

        return observe_into(dump_dir)
    except Exception as error:
        channel.write(
            EventName.WARNING,
            message=f"depyf dump unavailable ({type(error).__name__}: {error}); "
            "guards come from the TORCH_TRACE guard trees",
        )
        return contextlib.nullcontext()


def _run(spec: dict, channel: SideChannel) -> None:
    kind = spec["kind"]
    if kind == "script":
        sys.argv = [spec["path"], *spec["args"]]
        sys.path.insert(0, os.path.dirname(spec["path"]))
        runpy.run_path(spec["path"], run_name="__main__")
    elif kind == "module":
        sys.argv = [spec["module"], *spec["args"]]
        sys.path.insert(0, spec["cwd"])
        try:
            found = importlib.util.find_spec(spec["module"])
        except (ImportError, ValueError):
            found = None
        if found is None:
            raise UsageError(f"module not found: {spec['module']} (is its package on sys.path / installed?)")
        runpy.run_module(spec["module"], run_name="__main__", alter_sys=True)
    else:
        sys.argv = [spec["path"], *spec["args"]]
        _run_function(spec, channel)


def _open_channel(spec: dict) -> SideChannel:
    side_channel = spec["side_channel"]
    if spec.get("side_channel_per_rank"):  # under torchrun: every rank is a capture child
        side_channel = os.path.join(os.path.dirname(side_channel), rank_file_name(int(os.environ.get("RANK", "0"))))
    return SideChannel(side_channel)


def _record_bootstrap(spec: dict, channel: SideChannel) -> None:
    """Import torch (or end the child with a usage error that says where to install it) and record versions."""
    try:
        import torch
    except ImportError as error:
        channel.write(
            EventName.TARGET_EXIT,
            status="usage_error",
            exit_code=USAGE_ERROR_EXIT,
            message=f"torch cannot be imported in {sys.executable} ({error}); install it into that Python: "
            f"`{sys.executable} -m pip install torch` (`doctor report`, `rules` and `--help` work without it)",
        )
        sys.exit(USAGE_ERROR_EXIT)
    channel.write(
        EventName.BOOTSTRAP,
        torch_version=torch.__version__,
        python_version=sys.version.split()[0],
        target=spec["display"],
        library_roots=_library_roots(),
        backend_override=spec.get("backend"),
        pid=os.getpid(),
    )


def main() -> None:
    import json

    spec = json.loads(sys.argv[1])
    channel = _open_channel(spec)
    _record_bootstrap(spec, channel)
    experiment = spec.get("experiment") or {}
    recorder = CallRecorder() if spec.get("measure_guards") else None
    exit_code = 0
    try:
        with (
            dynamo_config(experiment.get("config")),
            compile_hook(
                channel,
                spec.get("backend"),
                experiment.get("compile"),
                recorder,
                experiment.get("mark_dynamic"),
                experiment.get("regional"),
            ),
            persistent_cache(experiment.get("cache_artifacts")),
            perf_hint_capture(channel),
            _depyf_dump(spec.get("dump_dir"), channel),
        ):
            _run(spec, channel)
            if recorder is not None:
                measure(recorder, channel)
        channel.write(EventName.TARGET_EXIT, status="ok", exit_code=0)
    except UsageError as error:
        exit_code = USAGE_ERROR_EXIT
        channel.write(EventName.TARGET_EXIT, status="usage_error", exit_code=exit_code, message=str(error))
    except SystemExit as error:
        code = error.code
        exit_code = code if isinstance(code, int) else (0 if code is None else 1)
        if not isinstance(code, (int, type(None))):
            print(code, file=sys.stderr)
        channel.write(EventName.TARGET_EXIT, status="sys_exit", exit_code=exit_code, stack=_stack_of(error))
    except BaseException as error:  # the target's own failure: report it, keep what was captured
        exit_code = 1
        traceback.print_exc()
        channel.write(
            EventName.TARGET_EXIT,
            status="exception",
            exit_code=exit_code,
            exception_type=f"{type(error).__module__}.{type(error).__qualname__}".removeprefix("builtins."),
            message=str(error).split("\n\nfrom user code:")[0][:4000],
            stack=_stack_of(error),
        )
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    channel.close()
    sys.exit(exit_code)


if __name__ == "__main__":
    main()
