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


# -- impact: the figures that ranked a finding
@dataclass(frozen=True, eq=False)  # eq from Mapping: `impact == {...}` holds as it did for the dict
class BreakImpact(Record):
    occurrences: int
    compiles: int
    recompiles_caused: int
    compile_seconds: float


@dataclass(frozen=True, eq=False)
class FallbackImpact(BreakImpact):
    """A break that made torch skip frames: the break's figures, how many frames now run eagerly and
    how many source lines they hold (what runs without compilation)."""

    frames_skipped: int
    eager_lines: int


@dataclass(frozen=True, eq=False)
class RecompileImpact(Record):
    recompiles: int
    compiles: int
    compile_seconds: float


@dataclass(frozen=True, eq=False)
class LimitImpact(Record):
    limit: int | None


@dataclass(frozen=True, eq=False)
class CompilesImpact(Record):
    compiles: int


@dataclass(frozen=True, eq=False)
class OccurrencesImpact(Record):
    occurrences: int


@dataclass(frozen=True, eq=False)
class DdpSplitImpact(Record):
    compiles: int
    subgraphs: int


@dataclass(frozen=True, eq=False)
class GuardCountImpact(Record):
    guards: int
    torch_guard_count: int | None


@dataclass(frozen=True, eq=False)
class SteadyValuesImpact(Record):
    steady_module_values: int


@dataclass(frozen=True, eq=False)
class GuardOverheadImpact(Record):
    guard_us_per_call: float
    guard_share: float


@dataclass(frozen=True, eq=False)
class RankGroupsImpact(Record):
    rank_groups: int


@dataclass(frozen=True, eq=False)
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


# -- the frames a fallback finding names
@dataclass(frozen=True)
class SkippedFrame:
    """A frame torch fell back to eager on (`compilation_metrics` with a `fail_type`): the function as
    the user writes it (`MBartModel.forward`), its file and the line where it is defined."""

    function: str
    file: str
    line: int

    def as_dict(self) -> dict[str, Any]:
        return {"function": self.function, "file": self.file, "line": self.line}


# -- verification: what --try-fixes measured
@dataclass(frozen=True, eq=False)
class Verification(Record):
    """A fix's measured effect: the run's figures before and after the change (`after` is None, and `error`
    says why, when the re-run could not be made)."""

    change: str  # the change, in words: `torch._dynamo.config.capture_scalar_outputs = True`
    before: dict[str, Any]  # graph breaks, recompiles, graphs, ... of the run as it is
    after: dict[str, Any] | None  # the same figures with the change
    ok: bool  # the target still ran to a successful end
    effect: str  # fixed, improved, mixed, no effect, worse, broke the run, not measured
    error: str | None = None
    _optional = ("error",)


# -- evidence: what the finding was made from
@dataclass(frozen=True, eq=False)
class Evidence(Record):
    """`per_rank` is added when findings of several ranks are merged: each rank's count and compile ids."""

    per_rank: dict[str, dict] | None = field(default=None, kw_only=True)
    _optional = ("per_rank",)

    def _keys(self) -> list[str]:
        keys = super()._keys()
        return [k for k in keys if k != "per_rank"] + (["per_rank"] if "per_rank" in keys else [])


@dataclass(frozen=True, eq=False)
class BreakEvidence(Evidence):
    compile_ids: list[str]
    secondary_gb_ids: list[str]
    hint_class: str | None
    torch_text: str


@dataclass(frozen=True, eq=False)
class RecompileEvidence(Evidence):
    compile_ids: list[str]
    guard_failures: list[str]
    guard_source: dict | None
    hint: str | None


@dataclass(frozen=True, eq=False)
class LimitEvidence(Evidence):
    compile_ids: list[str]
    torch_text: str | None


@dataclass(frozen=True, eq=False)
class FailureEvidence(Evidence):
    compile_ids: list[str]
    fail_type: str | None
    torch_text: str


@dataclass(frozen=True, eq=False)
class PerfHintEvidence(Evidence):
    compile_ids: list[str]
    torch_text: str
    logger: str | None


@dataclass(frozen=True, eq=False)
class DdpSplitEvidence(Evidence):
    compile_ids: list[str]
    subgraphs_per_compile: dict[str, int]


@dataclass(frozen=True, eq=False)
class GuardCountEvidence(Evidence):
    compile_ids: list[str]
    by_kind: dict[str, int]


@dataclass(frozen=True, eq=False)
class SteadyValuesEvidence(Evidence):
    pins: list[str]


@dataclass(frozen=True, eq=False)
class GuardOverheadEvidence(Evidence):
    overhead: dict


@dataclass(frozen=True, eq=False)
class CompileIdsEvidence(Evidence):
    compile_ids: list[str]


@dataclass(frozen=True, eq=False)
class TargetEvidence(Evidence):
    status: str
    exit_code: int | None
    exception_type: str | None
    torch_text: str | None


@dataclass(frozen=True, eq=False)
class CompileCallsEvidence(Evidence):
    """The torch.compile calls of a run that compiled nothing: what each compiled, and what disabled Dynamo."""

    compiled: list[str]
    compiled_kinds: list[str]
    dynamo_disabled_by: str | None
    compiles_traced: int  # compilation_metrics records (frames Dynamo looked at)


@dataclass(frozen=True, eq=False)
class UnusedSuppressionEvidence(Evidence):
    code: str


@dataclass(frozen=True, eq=False)
class DivergenceEvidence(Evidence):
    present_on: list[int]
    missing_on: list[int]
    finding: str
    finding_code: str
    compile_ids: list[str]


@dataclass(frozen=True, eq=False)
class GraphDivergenceEvidence(Evidence):
    graphs: dict[str, int]
    compile_ids: dict[str, list[str]]


@dataclass(frozen=True, eq=False)
class EndsEarlyEvidence(Evidence):
    rank: int
    how: str
    log_health: dict


@dataclass(frozen=True, eq=False)
class LauncherEvidence(Evidence):
    status: str
    exit_code: int | None
    target: str


# -- compile time (analysis/detectors/compile_time.py)
@dataclass(frozen=True, eq=False)
class CompileTimeImpact(Record):
    compile_seconds: float  # the compile time the finding is about
    share: float  # of that frame's (or the run's) compile time


@dataclass(frozen=True, eq=False)
class CacheSavedImpact(Record):
    """Compile time this run did not spend (TCD604): its cache hits loaded the graphs instead."""

    saved_seconds: float  # as torch measured the compiles the hits replaced
    hits: int


@dataclass(frozen=True, eq=False)
class RepeatedBlockEvidence(Evidence):
    compile_ids: list[str]
    block_lines: list[str]  # "file:line" of the block's lines and how often each was inlined
    module_list: str | None
    phases: dict[str, float]


@dataclass(frozen=True, eq=False)
class CompilePhaseEvidence(Evidence):
    compile_ids: list[str]
    phases: dict[str, float]


@dataclass(frozen=True, eq=False)
class CacheEvidence(Evidence):
    compile_ids: list[str]
    cache: dict[str, dict[str, int]]
    saved_s: float
    miss_reasons: list[str]


# -- the GPU: CUDA graphs, TF32, fallback kernels, autotuning (analysis/detectors/cudagraphs.py, gpu.py)
@dataclass(frozen=True, eq=False)
class CudagraphSkipEvidence(Evidence):
    compile_ids: list[str]
    reason: str  # events.model.CudagraphSkipReason
    torch_text: str  # torch's reason, its stack left out
    ops: list[str]  # for a partition that runs outside CUDA graphs: its ops and their reasons


@dataclass(frozen=True, eq=False)
class CudagraphCallsEvidence(Evidence):
    """Calls of CUDA-graph-managed code that did not replay a graph, per mode (warmup, record, eager, rerecord),
    and what torch said about them."""

    compile_ids: list[str]
    calls: dict[str, int]
    torch_text: str | None


@dataclass(frozen=True, eq=False)
class CudagraphSizesEvidence(Evidence):
    compile_ids: list[str]
    sizes: list[str]  # torch's size keys of the recorded trees, e.g. "(8, 2)"
    calls: dict[str, int]
    torch_text: str | None


@dataclass(frozen=True, eq=False)
class OverwrittenEvidence(Evidence):
    torch_text: str
    produced_at: str | None  # "file:line" of the line that made the output


@dataclass(frozen=True, eq=False)
class Tf32Evidence(Evidence):
    compile_ids: list[str]
    fp32_matmuls: int | None  # float32 matmuls on the GPU in the graphs (None: no graph in what was read)
    torch_text: str
