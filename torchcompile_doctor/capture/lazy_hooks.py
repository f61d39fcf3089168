"""The hooks of one captured process, installed when its program imports torch (capture/torch_import.py),
with the environment the program made, and removed when the program has ended.

Two settings cannot be the program's: `TORCH_TRACE` (the capture is that trace) and, with
`--fresh-inductor-cache`, `TORCHINDUCTOR_CACHE_DIR`. When the program (or the user's shell) set them,
the doctor's value is used and the report says which value was not.
"""

from __future__ import annotations

import contextlib
import os
from types import ModuleType

from torchcompile_doctor.capture.canary import canary_settings
from torchcompile_doctor.capture.child_spec import ChildSpec
from torchcompile_doctor.capture.compile_experiments import persistent_cache
from torchcompile_doctor.capture.guard_timing import CallRecorder
from torchcompile_doctor.capture.hooks import compile_hook, dynamo_config, perf_hint_capture
from torchcompile_doctor.capture.torch_import import TorchImportWatcher, on_torch_import, stop_watching
from torchcompile_doctor.capture.torch_messages import torch_log_capture, warning_capture
from torchcompile_doctor.events.sidechannel import EventName, SideChannel
from torchcompile_doctor.model.experiment import (
    cache_dir,
    compile_kwargs,
    config_settings,
    mark_dynamic,
    regional,
)

WHY_OWNED = {
    "TORCH_TRACE": "the doctor's capture is torch's trace, written to its own directory "
    "(keep it with --artifacts DIR: it is TORCH_TRACE-compatible, `tlparse` reads it)",
    "TORCHINDUCTOR_CACHE_DIR": "--fresh-inductor-cache compiles into an empty cache of its own",
}


def owned_environment(spec: ChildSpec) -> dict[str, str]:
    """The variables the doctor sets for the capture, and their values."""
    owned = {"TORCH_TRACE": spec.trace_dir} if spec.trace_dir else {}
    if spec.inductor_cache:
        owned["TORCHINDUCTOR_CACHE_DIR"] = spec.inductor_cache
    return owned


def not_honoured(name: str, value: str, who: str) -> str:
    return f"{name}={value} set by {who} was not used: {WHY_OWNED[name]}."


def _depyf_dump(dump_dir: str | None, channel: SideChannel) -> contextlib.AbstractContextManager[object]:
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


class CaptureHooks:
    """`watch()` at start; the hooks go in when torch is imported; `close()` takes them out."""

    def __init__(self, spec: ChildSpec, channel: SideChannel, recorder: CallRecorder | None = None) -> None:
        self._spec = spec
        self._channel = channel
        self._recorder = recorder
        self._stack = contextlib.ExitStack()
        self._watcher: TorchImportWatcher | None = None
        self.installed = False

    @property
    def torch_import_error(self) -> BaseException | None:
        return self._watcher.import_error if self._watcher is not None else None

    def watch(self) -> None:
        self._watcher = on_torch_import(self._reclaim_environment, self._install)

    def _reclaim_environment(self) -> None:
        """The program may have set an owned variable before importing torch: the capture needs ours."""
        for name, ours in owned_environment(self._spec).items():
            theirs = os.environ.get(name)
            if theirs != ours:
                os.environ[name] = ours
                if theirs is not None:
                    self._channel.write(EventName.WARNING, message=not_honoured(name, theirs, "the program"))

    def _install(self, torch: ModuleType) -> None:
        spec, channel = self._spec, self._channel
        experiment = spec.experiment
        self.installed = True
        if config_settings(experiment):  # a --try-fixes experiment: its failure is the experiment's result
            self._stack.enter_context(dynamo_config(config_settings(experiment)))
        try:
            self._stack.enter_context(dynamo_config(canary_settings()))  # a canary lane's torch settings
        except ValueError as error:
            channel.write(EventName.WARNING, message=f"canary settings not used: {error}")
        try:
            self._stack.enter_context(
                compile_hook(
                    channel,
                    spec.backend,
                    compile_kwargs(experiment),
                    self._recorder,
                    mark_dynamic(experiment),
                    regional(experiment),
                )
            )
            self._stack.enter_context(persistent_cache(cache_dir(experiment)))
            self._stack.enter_context(perf_hint_capture(channel))
            self._stack.enter_context(torch_log_capture(channel))
            self._stack.enter_context(warning_capture(channel))
            self._stack.enter_context(_depyf_dump(spec.dump_dir, channel))
        except Exception as error:  # a hook that cannot go in must not stop the program importing torch
            channel.write(EventName.WARNING, message=f"capture hooks incomplete ({type(error).__name__}: {error})")

    def close(self) -> None:
        if self._watcher is not None:
            stop_watching(self._watcher)
        self._stack.close()
