"""The typed impact and evidence of findings, one frozen dataclass per finding family. Each reads like
the dict it replaced (a Mapping: `finding.impact["recompiles"]`, `.get`, `dict(...)`), and its keys, in
field order, are the report's JSON keys, so the JSON schema is unchanged."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields
from typing import Any


class Record(Mapping[str, Any]):
    """A frozen dataclass read as a mapping of its fields (optional ones left out while None)."""

    _optional: tuple[str, ...] = ()  # fields left out of the mapping while None

    def _keys(self) -> list[str]:
        names = [f.name for f in fields(self)]  # type: ignore[arg-type]
        return [n for n in names if not (n in self._optional and getattr(self, n) is None)]

    def __getitem__(self, key: str) -> Any:
        if key not in self._keys():
            raise KeyError(key)
        return getattr(self, key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys())

    def __len__(self) -> int:
        return len(self._keys())

    def as_dict(self) -> dict[str, Any]:
        return dict(self.items())


def _record(cls):
    """Frozen, compared as a mapping (so `impact == {...}` holds as it did for the dict)."""
    return dataclass(frozen=True, eq=False)(cls)


# -- impact: the figures that ranked a finding
@_record
class BreakImpact(Record):
    occurrences: int
    compiles: int
    recompiles_caused: int
    compile_seconds: float


@_record
class RecompileImpact(Record):
    recompiles: int
    compiles: int
    compile_seconds: float


@_record
class LimitImpact(Record):
    limit: int | None


@_record
class CompilesImpact(Record):
    compiles: int


@_record
class OccurrencesImpact(Record):
    occurrences: int


@_record
class DdpSplitImpact(Record):
    compiles: int
    subgraphs: int


@_record
class GuardCountImpact(Record):
    guards: int
    torch_guard_count: int | None


@_record
class SteadyValuesImpact(Record):
    steady_module_values: int


@_record
class GuardOverheadImpact(Record):
    guard_us_per_call: float
    guard_share: float


@_record
class RankGroupsImpact(Record):
    rank_groups: int


@_record
class DivergenceImpact(Record):
    """The diverging finding's own impact, and on how many ranks it occurred."""

    of: Mapping[str, Any]
    ranks_with: int
    ranks_without: int

    def _keys(self) -> list[str]:
        return [*self.of, "ranks_with", "ranks_without"]

    def __getitem__(self, key: str) -> Any:
        if key in ("ranks_with", "ranks_without"):
            return getattr(self, key)
        return self.of[key]


# -- evidence: what the finding was made from
@_record
class Evidence(Record):
    """`per_rank` is added when findings of several ranks are merged: each rank's count and compile ids."""

    per_rank: dict[str, dict] | None = field(default=None, kw_only=True)
    _optional = ("per_rank",)

    def _keys(self) -> list[str]:
        keys = super()._keys()
        return [k for k in keys if k != "per_rank"] + (["per_rank"] if "per_rank" in keys else [])


@_record
class BreakEvidence(Evidence):
    compile_ids: list[str]
    secondary_gb_ids: list[str]
    hint_class: str | None
    torch_text: str


@_record
class RecompileEvidence(Evidence):
    compile_ids: list[str]
    guard_failures: list[str]
    guard_source: dict | None
    hint: str | None


@_record
class LimitEvidence(Evidence):
    compile_ids: list[str]
    torch_text: str | None


@_record
class FailureEvidence(Evidence):
    compile_ids: list[str]
    fail_type: str | None
    torch_text: str


@_record
class PerfHintEvidence(Evidence):
    compile_ids: list[str]
    torch_text: str
    logger: str | None


@_record
class DdpSplitEvidence(Evidence):
    compile_ids: list[str]
    subgraphs_per_compile: dict[str, int]


@_record
class GuardCountEvidence(Evidence):
    compile_ids: list[str]
    by_kind: dict[str, int]


@_record
class SteadyValuesEvidence(Evidence):
    pins: list[str]


@_record
class GuardOverheadEvidence(Evidence):
    overhead: dict


@_record
class CompileIdsEvidence(Evidence):
    compile_ids: list[str]


@_record
class TargetEvidence(Evidence):
    status: str
    exit_code: int | None
    exception_type: str | None
    torch_text: str | None


@_record
class UnusedSuppressionEvidence(Evidence):
    code: str


@_record
class DivergenceEvidence(Evidence):
    present_on: list[int]
    missing_on: list[int]
    finding: str
    finding_code: str
    compile_ids: list[str]


@_record
class GraphDivergenceEvidence(Evidence):
    graphs: dict[str, int]
    compile_ids: dict[str, list[str]]


@_record
class EndsEarlyEvidence(Evidence):
    rank: int
    how: str
    log_health: dict


@_record
class LauncherEvidence(Evidence):
    status: str
    exit_code: int | None
    target: str
