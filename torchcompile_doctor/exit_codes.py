"""The doctor's exit codes: each means one thing (ruff's and pytest's habit)."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    """The target ran and, under `doctor check`, the gate passed."""
    GATE_FAILED = 1
    """`doctor check`: findings over the gate (the report says which and why). `doctor fix`: no measured change
    helped (nothing to apply)."""
    USAGE = 2
    """The doctor's own error or bad usage: a one-line message on stderr, no report."""
    TARGET_FAILED = 3
    """The target raised, exited non-zero, crashed or timed out; the report still came out."""
    INTERRUPTED = 130
    """Ctrl-C (or SIGTERM) stopped the run; what was captured up to then was reported."""
