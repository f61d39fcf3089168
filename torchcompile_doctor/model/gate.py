"""What `doctor check` gates on and what it decided: the criteria, the verdict on each finding, and what the
baseline file says (gate/ decides; this is what the report carries)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

from torchcompile_doctor.model.json import json_field

DEFAULT_FAIL_ON = "low"  # no criterion given: every finding but info fails, as in a linter (baseline the rest)


@dataclass(frozen=True)
class GateCriteria:
    """What fails the gate; every criterion looks only at findings the baseline does not hold."""

    fullgraph: bool = False
    max_graph_breaks: int | None = None
    max_recompiles: int | None = None
    fail_on: str | None = None  # a severity: findings of it or worse fail
    by_default: bool = False  # no criterion was given: findings of preview rules do not fail the gate

    def or_default(self) -> GateCriteria:
        """These criteria, or `--fail-on low` (preview rules left out) when none is given."""
        return self if self != GateCriteria() else GateCriteria(fail_on=DEFAULT_FAIL_ON, by_default=True)

    def describe(self) -> tuple[str, ...]:
        """The criteria as the user would write them on the command line."""
        parts = ["--fullgraph"] if self.fullgraph else []
        if self.max_graph_breaks is not None:
            parts.append(f"--max-graph-breaks {self.max_graph_breaks}")
        if self.max_recompiles is not None:
            parts.append(f"--max-recompiles {self.max_recompiles}")
        if self.fail_on is not None:
            parts.append(f"--fail-on {self.fail_on}")
        return tuple(parts)


@dataclass(frozen=True)
class BaselineUpdate:
    """What `--update-baseline` wrote: entries added, fixed ones pruned, the rest kept."""

    added: int
    pruned: int
    kept: int


@dataclass(frozen=True)
class BaselineSummary:
    """What the gate says about the baseline file for one report (`doctor check --baseline`)."""

    path: str
    torch_release: str  # the release whose section was used (another one's when this torch has none)
    note: str | None = None  # why the section may not fit (it was written for another torch release)
    fixed: tuple[str, ...] = ()  # entries no longer found: "TCD101 s.py in step"
    # set when this run rewrote the file (the key is present only then: schema v1)
    updated: BaselineUpdate | None = field(default=None, metadata=json_field(omit_none=True))
    known: int = 0  # findings the baseline holds (they never fail the gate)
    new: int = 0
    worse: tuple[str, ...] = ()  # known findings that occur more often now: "TCD101 s.py:5: 1 → 2"


class _Fingerprinted(Protocol):
    @property
    def fingerprint(self) -> str: ...


class GateFailure(NamedTuple):
    """A finding that failed the gate, and why."""

    fingerprint: str
    why: str


@dataclass(frozen=True)
class GateResult:
    """What `doctor check` decided: which findings failed the gate and why."""

    passed: bool
    criteria: tuple[str, ...] = ()  # what was checked, as the user wrote it: "--fullgraph", "--max-recompiles 4"
    failures: tuple[GateFailure, ...] = ()
    violations: tuple[str, ...] = ()  # reasons not tied to one finding: "5 recompiles > --max-recompiles 4"
    baseline: BaselineSummary | None = None

    def reason_for(self, finding: _Fingerprinted) -> str | None:
        """Why the finding failed the gate (None: it did not)."""
        return next((failure.why for failure in self.failures if failure.fingerprint == finding.fingerprint), None)
