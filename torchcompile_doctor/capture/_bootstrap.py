"""What a capture child does (started as `python .../capture/_entry.py SPEC_JSON`, see _entry.py).

Runs the target as `__main__`, as `python FILE` or `python -m` would, with TORCH_TRACE already pointed
at the artifacts dir by the parent, and records in the side channel how the target ended. It does not
import torch: the hooks go in when the target imports it (lazy_hooks.py), so settings the target makes
before that import work as in a plain run. Children the target spawns through multiprocessing run here
too (`--spawned`, with a side channel of their own). Whatever the target does (raise, sys.exit, crash),
what was logged before stays on disk for the parent.
"""

from __future__ import annotations

import atexit
import builtins
import contextlib
import gc
import importlib.machinery
import importlib.metadata
import importlib.util
import os
import runpy
import site
import sys
import sysconfig
import traceback
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

from torchcompile_doctor.capture import warm_server
from torchcompile_doctor.capture.child_spec import SPAWNED, ChildSpec, read_spec
from torchcompile_doctor.capture.children import SPAWNED_ARGUMENT, capture_spawned_children
from torchcompile_doctor.capture.environment_watch import EnvironmentWatch
from torchcompile_doctor.capture.guard_timing import CallRecorder, measure
from torchcompile_doctor.capture.hooks import trace_paused
from torchcompile_doctor.capture.lazy_hooks import CaptureHooks, not_honoured, owned_environment
from torchcompile_doctor.capture.stuck_stack import arm as arm_stack_dump
from torchcompile_doctor.capture.target import TargetSpec
from torchcompile_doctor.capture_layout import CaptureFolder, process_side_channel, rank_side_channel
from torchcompile_doctor.events.sidechannel import EventName, SideChannel

USAGE_ERROR_EXIT = 2
# the doctor's package as this process loaded it: its frames are cut from the top of the user's traceback
_DOCTOR_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


class UsageError(Exception):
    """The target cannot be run as given (module not found, function missing, bad inputs)."""


def _library_roots() -> list[str]:
    roots = set(site.getsitepackages() + [site.getusersitepackages()])
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        with contextlib.suppress(KeyError):
            roots.add(sysconfig.get_paths()[key])
    return sorted(os.path.realpath(r) for r in roots if r)


def _stack_of(error: BaseException) -> list[dict[str, Any]]:
    return [
        {"file": f.filename, "line": f.lineno or 0, "function": f.name, "code": (f.line or "").strip()}
        for f in traceback.extract_tb(error.__traceback__)
    ]


def users_traceback(tb: types.TracebackType | None) -> types.TracebackType | None:
    """The traceback from the first frame that is not the doctor's (its entry, bootstrap and runner frames sit
    above the user's code): what a plain run prints starts at the program. `python -m`'s own runpy frames stay,
    as a plain `python -m` shows them."""
    while tb is not None and tb.tb_frame.f_code.co_filename.startswith(_DOCTOR_PACKAGE):
        tb = tb.tb_next
    return tb


def print_users_traceback(error: BaseException) -> None:
    """The uncaught error as the interpreter would print it at the program's top (through `sys.excepthook`, the
    program's own if it set one), without the doctor's frames (the error carries the cut traceback: the
    interpreter's own hook prints the error's, whatever it is given)."""
    error = error.with_traceback(users_traceback(error.__traceback__))
    try:
        sys.excepthook(type(error), error, error.__traceback__)
    except Exception as hook_error:  # as the interpreter does when the program's hook fails: both errors shown
        print("Error in sys.excepthook:", file=sys.stderr)
        sys.__excepthook__(type(hook_error), hook_error, hook_error.__traceback__)
        print("\nOriginal exception was:", file=sys.stderr)
        sys.__excepthook__(type(error), error, error.__traceback__)


def _load_file_as_module(path: str, name: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise UsageError(f"cannot load {path} as a module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _attribute(module: object, dotted: str, path: str) -> Any:
    value = module
    for part in dotted.split("."):
        if not hasattr(value, part):
            raise UsageError(f"{path} has no function {dotted!r}")
        value = getattr(value, part)
    if not callable(value):
        raise UsageError(f"{path}:{dotted} is not callable (it is a {type(value).__name__})")
    return value


def _run_function(target: TargetSpec, channel: SideChannel) -> None:
    """Compile the function (unless it already is), call it on its example inputs, then explain it. torch is
    imported after the names are checked: a wrong name costs no import of torch the target does not make."""
    path, inputs_path = str(target.path), str(target.inputs_path)
    sys.path.insert(0, os.path.dirname(path))
    module = _load_file_as_module(path, "__doctor_target__")
    function = _attribute(module, str(target.function), path)
    inputs_module = module if inputs_path == path else _load_file_as_module(inputs_path, "__doctor_inputs__")
    inputs = _attribute(inputs_module, str(target.inputs_function), inputs_path)()
    if not isinstance(inputs, tuple):
        raise UsageError(
            f"{inputs_path}:{target.inputs_function} must return a tuple of arguments, got {type(inputs).__name__}"
        )
    import torch

    original = getattr(function, "_torchdynamo_orig_callable", None) or getattr(function, "_orig_mod", None)
    compiled = function if original is not None else torch.compile(function)
    for _ in range(2):  # a second call shows guards that fail on state the first call changed
        compiled(*inputs)
    _record_explain(original or function, inputs, channel)


def _record_explain(function: Callable[..., Any], inputs: tuple[Any, ...], channel: SideChannel) -> None:
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


def _first_on_path(directory: str) -> None:
    """What `python script.py` (the script's folder) or `python -m` (the working directory) puts first."""
    if not sys.flags.safe_path:
        sys.path.insert(0, directory)


def _new_main_module() -> types.ModuleType:
    """A fresh `__main__` in sys.modules, as the interpreter starts it, for the program to run in. It stays there,
    so at exit the interpreter tears the program's globals down as in a plain run (runpy's run_path and
    run_module run it in a temporary module and put the doctor's back: its globals were never freed)."""
    main = types.ModuleType("__main__")
    main.__dict__.update(__annotations__={}, __builtins__=builtins)
    sys.modules["__main__"] = main
    return main


def _run_file_as_main(path: str) -> None:
    """`python FILE`: the file's code in the new `__main__`, with the globals the interpreter gives it."""
    main = _new_main_module()
    main.__dict__.update(
        __file__=path, __cached__=None, __loader__=importlib.machinery.SourceFileLoader("__main__", path)
    )
    with open(path, "rb") as file:  # bytes: compile() honours a coding cookie as the interpreter does
        code = compile(file.read(), path, "exec", dont_inherit=True)
    exec(code, main.__dict__)  # noqa: S102 - the user's program, run as `python FILE` runs it


def _run(target: TargetSpec, channel: SideChannel) -> None:
    if target.kind == "script":
        path = str(target.path)
        sys.argv = [path, *target.args]
        _first_on_path(os.path.dirname(path))
        _run_file_as_main(path)
    elif target.kind == "module":
        module = str(target.module)
        sys.argv = [module, *target.args]
        _first_on_path(target.cwd)
        try:
            found = importlib.util.find_spec(module)
        except (ImportError, ValueError):
            found = None
        if found is None:
            raise UsageError(f"module not found: {module} (is its package on sys.path / installed?)")
        _new_main_module()
        # what `python -m` itself calls (not in the typeshed stubs): it runs the module in sys.modules["__main__"]
        runpy._run_module_as_main(module)  # type: ignore[attr-defined]
    else:
        sys.argv = [str(target.path), *target.args]
        _run_function(target, channel)


def _open_channel(spec: ChildSpec) -> SideChannel:
    side_channel = spec.side_channel
    directory = os.path.dirname(side_channel)
    if spec.role == SPAWNED:  # a process the target started: a channel of its own
        side_channel = os.path.join(directory, process_side_channel(os.getpid()))
    elif spec.side_channel_per_rank:  # under torchrun: every rank is a capture child
        side_channel = os.path.join(directory, rank_side_channel(int(os.environ.get("RANK", "0"))))
    return SideChannel(side_channel, follow_forks=True)


def _torch_version() -> str | None:
    """The installed torch's version, read without importing torch (the program imports it, not us)."""
    try:
        return importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return None


def _torch_missing(channel: SideChannel, error: object) -> None:
    channel.write(
        EventName.TARGET_EXIT,
        status="usage_error",
        exit_code=USAGE_ERROR_EXIT,
        message=f"torch cannot be imported in {sys.executable} ({error}); install it into that Python: "
        f"`{sys.executable} -m pip install torch` (`doctor report`, `rules` and `--help` work without it)",
    )


def _record_bootstrap(spec: ChildSpec, channel: SideChannel) -> None:
    """Versions, the target and what this process is; the settings of the user's the capture overrides."""
    if importlib.util.find_spec("torch") is None:
        _torch_missing(channel, "no module named torch")
        sys.exit(USAGE_ERROR_EXIT)
    channel.write(
        EventName.BOOTSTRAP,
        torch_version=_torch_version() or "",
        python_version=sys.version.split()[0],
        target=spec.display,
        library_roots=_library_roots(),
        backend_override=spec.backend,
        pid=os.getpid(),
        parent_pid=os.getppid(),
        role=spec.role,
    )
    overridden = spec.overridden_env if spec.role != SPAWNED else None  # said once, by the target
    for name, value in (overridden or {}).items():
        channel.write(EventName.WARNING, message=not_honoured(name, value, "your environment"))


def _capture_process(spec: ChildSpec, channel: SideChannel, recorder: CallRecorder | None = None) -> CaptureHooks:
    """Hooks armed for torch's first import, children spawned from here captured, the stack dump armed."""
    hooks = CaptureHooks(spec, channel, recorder)
    hooks.watch()
    capture_spawned_children(spec)
    if spec.stack_file and spec.role != SPAWNED:
        arm_stack_dump(spec.stack_file)
    return hooks


def _record_end(error: BaseException, channel: SideChannel, hooks: CaptureHooks) -> int:
    """How the target ended by raising: sys.exit, a usage error, torch failing to import, or its own error."""
    if isinstance(error, SystemExit):
        code = error.code
        exit_code = code if isinstance(code, int) else (0 if code is None else 1)
        if not isinstance(code, (int, type(None))):
            print(code, file=sys.stderr)
        channel.write(EventName.TARGET_EXIT, status="sys_exit", exit_code=exit_code, stack=_stack_of(error))
        return exit_code
    if isinstance(error, UsageError):
        channel.write(EventName.TARGET_EXIT, status="usage_error", exit_code=USAGE_ERROR_EXIT, message=str(error))
        return USAGE_ERROR_EXIT
    if error is hooks.torch_import_error and isinstance(error, ImportError):
        _torch_missing(channel, error)
        return USAGE_ERROR_EXIT
    print_users_traceback(error)
    channel.write(
        EventName.TARGET_EXIT,
        status="exception",
        exit_code=1,
        exception_type=f"{type(error).__module__}.{type(error).__qualname__}".removeprefix("builtins."),
        message=str(error)[:6000],  # torch's `from user code:` frames included: the line Dynamo was tracing
        stack=_stack_of(error),
    )
    return 1


def _collect_then_freeze() -> None:
    """The last thing the process does before the interpreter's own shutdown (registered before the program
    runs, so it comes after every atexit handler of the program's). One collection frees the program's
    garbage, `__del__` and all, as a plain run's last collections would; freezing what is left spares those
    collections, which walk every object torch made once more (a second of CPU per process). The interpreter
    then clears the modules, the program's `__main__` included, and frees what they alone hold, as in a plain
    run. Left unfreed is only what that clearing leaves in a reference cycle: Python does not promise to
    finalize objects still alive at exit."""
    gc.collect()
    gc.freeze()


def run_target(spec: ChildSpec) -> int:
    """Run the target under the capture; the status to exit with (a cold child, or one capture/warm_server.py
    forked). The variables of torch's it set are noted beside the capture."""
    atexit.register(_collect_then_freeze)
    watch = EnvironmentWatch(owned_environment(spec))
    channel = _open_channel(spec)
    _record_bootstrap(spec, channel)
    recorder = CallRecorder() if spec.measure_guards else None
    hooks = _capture_process(spec, channel, recorder)
    exit_code = 0
    try:
        _run(spec.target, channel)
        if recorder is not None and hooks.installed:
            measure(recorder, channel)
        channel.write(EventName.TARGET_EXIT, status="ok", exit_code=0)
    except BaseException as error:  # the target's own end: report it, keep what was captured
        exit_code = _record_end(error, channel, hooks)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        hooks.close()
    channel.close()
    watch.write(CaptureFolder(Path(spec.side_channel).parent).environment_set)
    return exit_code


def _run_spawned(spec: ChildSpec, program: str, argv: list[str]) -> None:
    """A child multiprocessing spawned: PROGRAM runs as `python -c PROGRAM` would, under the capture."""
    atexit.register(_collect_then_freeze)
    sys.argv = ["-c", *argv]
    _first_on_path("")  # `-c` puts the working directory first
    channel = _open_channel(spec)
    _record_bootstrap(spec, channel)
    hooks = _capture_process(spec, channel)
    try:
        exec(compile(program, "<string>", "exec"), {"__name__": "__main__", "__builtins__": builtins})  # noqa: S102
    finally:
        hooks.close()
        channel.close()


def main(argv: list[str]) -> None:
    """`_entry.py SPEC_JSON` runs the target; `_entry.py --spawned SPEC_JSON PROGRAM ARGS` a spawned child;
    `_entry.py --warm` the warm process that forks `doctor fix`'s trials."""
    if argv[1] == SPAWNED_ARGUMENT:
        _run_spawned(read_spec(argv[2]), argv[3], argv[4:])
    elif argv[1] == warm_server.WARM_ARGUMENT:
        request = warm_server.serve()  # returns in a forked child only
        warm_server.as_started(request)
        warm_server.leave(run_target(read_spec(request.spec)))
    else:
        sys.exit(run_target(read_spec(argv[1])))
