"""Processes the target starts with multiprocessing's spawn method (`torch.multiprocessing.spawn`,
`get_context("spawn")` pools and processes, spawn DataLoader workers) run under the capture too.

multiprocessing builds a spawned child's command line with `multiprocessing.spawn.get_command_line`
(`python [flags] -c PROGRAM --multiprocessing-fork`); in a captured process it names the doctor's entry
file instead of `-c`, and the entry runs PROGRAM as `-c` would, inside the capture. Each such child
writes its own side channel (`doctor_events_pid_<pid>.jsonl`) and its own TORCH_TRACE file (torch opens
one per process). Forked children inherit the hooks as they are; processes started otherwise
(`subprocess`, `torchrun`) are not captured, and the report says so (events/processes.py).
"""

from __future__ import annotations

import sys
from typing import Any

from torchcompile_doctor.capture.child_spec import ChildSpec, write_spec

SPAWNED_ARGUMENT = "--spawned"  # the entry's first argument for a spawned child


def capture_spawned_children(spec: ChildSpec) -> None:
    """From now on, a child spawned by multiprocessing in this process runs under the capture."""
    import multiprocessing.spawn as spawn

    original = spawn.get_command_line
    if getattr(original, "doctor_entry", None):
        return
    entry, child_spec = spec.entry, write_spec(spec.spawned())

    def get_command_line(**kwds: Any) -> list[str]:
        command = original(**kwds)
        if getattr(sys, "frozen", False) or "-c" not in command:
            return command
        at = command.index("-c")
        return [*command[:at], entry, SPAWNED_ARGUMENT, child_spec, *command[at + 1 :]]

    get_command_line.doctor_entry = entry  # type: ignore[attr-defined]
    spawn.get_command_line = get_command_line
