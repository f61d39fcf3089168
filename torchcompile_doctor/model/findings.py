"""The typed impact and evidence of findings, one frozen dataclass per finding family, read through their
attributes. `Impact` and `Evidence` are the unions a Finding holds; their fields, in order, are the report's JSON
keys (model/json.py), so the JSON schema is unchanged.

Readers narrow before they read (`isinstance(finding.evidence, NamesCompiles)` for the compile ids it names), or
read what any finding of any family may carry through one typed view: `impact_figures(finding.impact)`,
`compile_ids_of(finding.evidence)`, `torch_text_of(finding.evidence)`."""

from __future__ import annotations

from dataclasses import dataclass, field

from torchcompile_doctor.events.model import LogHealth
from torchcompile_doctor.model.compile_time import CacheCounts
from torchcompile_doctor.model.json import json_field


# -- impact: the figures that ranked a finding
@dataclass(frozen=True)
class NoImpact:
    """A finding ranked by its severity alone (the JSON's `{}`)."""


@dataclass(frozen=True)
class BreakImpact:
    occurrences: int
    compiles: int
    recompiles_caused: int
    compile_seconds: float


@dataclass(frozen=True)
class FallbackImpact(BreakImpact):
    """A break that made torch skip frames: the break's figures, how many frames now run eagerly and
    how many source lines they hold (what runs without compilation)."""

    frames_skipped: int
    eager_lines: int


@dataclass(frozen=True)
class RecompileImpact:
    recompiles: int
    compiles: int
    compile_seconds: float


@dataclass(frozen=True)
class LimitImpact:
    limit: int | None


@dataclass(frozen=True)
class CompilesImpact:
    compiles: int


@dataclass(frozen=True)
class OccurrencesImpact:
    occurrences: int


@dataclass(frozen=True)
class DdpSplitImpact:
    compiles: int
    subgraphs: int


@dataclass(frozen=True)
class GuardCountImpact:
    guards: int
    torch_guard_count: int | None


@dataclass(frozen=True)
class SteadyValuesImpact:
    steady_module_values: int


@dataclass(frozen=True)
class GuardOverheadImpact:
    guard_us_per_call: float
    guard_share: float


@dataclass(frozen=True)
class RankGroupsImpact:
    rank_groups: int


@dataclass(frozen=True)
class CompileTimeImpact:
    compile_seconds: float  # the compile time the finding is about
    share: float  # of that frame's (or the run's) compile time


@dataclass(frozen=True)
class CacheSavedImpact:
    """Compile time this run did not spend (TCD604): its cache hits loaded the graphs instead."""

    saved_seconds: float  # as torch measured the compiles the hits replaced
    hits: int


@dataclass(frozen=True)
class DivergenceImpact:
    """The diverging finding's own impact (its keys in the JSON), and on how many ranks it occurred."""

    of: Impact = field(metadata=json_field(spread=True))
    ranks_with: int
    ranks_without: int


Impact = (
    NoImpact
    | BreakImpact
    | FallbackImpact
    | RecompileImpact
    | LimitImpact
    | CompilesImpact
    | OccurrencesImpact
    | DdpSplitImpact
    | GuardCountImpact
    | SteadyValuesImpact
    | GuardOverheadImpact
    | RankGroupsImpact
    | CompileTimeImpact
    | CacheSavedImpact
    | DivergenceImpact
)


@dataclass(frozen=True)
class ImpactFigures:
    """The figures an impact may carry, None where its family has none: what ranking, the gate and the
    renderers read of any finding (a divergence's are those of the finding that diverges)."""

    occurrences: int | None = None
    compiles: int | None = None
    recompiles: int | None = None
    recompiles_caused: int | None = None
    compile_seconds: float | None = None  # the compile time the finding accounts for
    eager_lines: int | None = None  # a fallback: the source lines that now run without compilation
    saved_seconds: float | None = None
    hits: int | None = None
    limit: int | None = None


def impact_figures(impact: Impact) -> ImpactFigures:
    """The figures of any impact, read through its family's attributes."""
    if isinstance(impact, DivergenceImpact):
        return impact_figures(impact.of)
    if isinstance(impact, BreakImpact):
        eager_lines = impact.eager_lines if isinstance(impact, FallbackImpact) else None
        return ImpactFigures(
            occurrences=impact.occurrences,
            compiles=impact.compiles,
            recompiles_caused=impact.recompiles_caused,
            compile_seconds=impact.compile_seconds,
            eager_lines=eager_lines,
        )
    if isinstance(impact, RecompileImpact):
        return ImpactFigures(
            compiles=impact.compiles, recompiles=impact.recompiles, compile_seconds=impact.compile_seconds
        )
    if isinstance(impact, (CompilesImpact, DdpSplitImpact)):
        return ImpactFigures(compiles=impact.compiles)
    if isinstance(impact, OccurrencesImpact):
        return ImpactFigures(occurrences=impact.occurrences)
    if isinstance(impact, CompileTimeImpact):
        return ImpactFigures(compile_seconds=impact.compile_seconds)
    if isinstance(impact, CacheSavedImpact):
        return ImpactFigures(saved_seconds=impact.saved_seconds, hits=impact.hits)
    if isinstance(impact, LimitImpact):
        return ImpactFigures(limit=impact.limit)
    return ImpactFigures()


# -- the frames a fallback finding names
@dataclass(frozen=True)
class SkippedFrame:
    """A frame torch fell back to eager on (`compilation_metrics` with a `fail_type`): the function as
    the user writes it (`MBartModel.forward`), its file and the line where it is defined."""

    function: str
    file: str
    line: int


# -- verification: what --try-fixes measured
@dataclass(frozen=True)
class RunFigures:
    """The figures of a run a fix is judged by (its summary's)."""

    graph_breaks: int
    recompiles: int
    graphs: int
    recompile_limit_hits: int
    compile_failures: int
    compile_time_s: float  # rounded to ms
    # ops run in compiled graphs (each compiled frame's largest graph times its calls, summed): a change that
    # lowers it far compiles less
    compiled_ops: int | None = field(default=None, metadata=json_field(omit_none=True))
    # the compiled calls' steady-state time: each compiled function's median call without a compile, times its
    # calls, summed (None: no call ran without compiling)
    steady_state_s: float | None = field(default=None, metadata=json_field(omit_none=True))


@dataclass(frozen=True)
class Verification:
    """A fix's measured effect: the run's figures before and after the change (`after` is None, and `error`
    says why, when the re-run could not be made)."""

    change: str  # the change, in words: `torch._dynamo.config.capture_scalar_outputs = True`
    before: RunFigures  # graph breaks, recompiles, graphs, ... of the run as it is
    after: RunFigures | None  # the same figures with the change
    ok: bool  # the target still ran to a successful end
    effect: str  # an Outcome of model/trial.py: fixed, improved, trade-off, no effect, worse, crashed, ...
    error: str | None = field(default=None, metadata=json_field(omit_none=True))
    detail: str | None = field(default=None, metadata=json_field(omit_none=True))  # what got worse, what differs


# -- evidence: what the finding was made from
@dataclass(frozen=True)
class RankEvidence:
    """One rank's own count and compile ids of a finding merged across ranks."""

    count: int
    compile_ids: list[str]


@dataclass(frozen=True)
class EvidenceBase:
    """`per_rank` is added when findings of several ranks are merged: each rank's count and compile ids."""

    per_rank: dict[str, RankEvidence] | None = field(
        default=None, kw_only=True, metadata=json_field(omit_none=True, last=True)
    )


class NamesCompiles:
    """Evidence that names the compiles the finding was made from."""

    compile_ids: list[str]


class QuotesTorch:
    """Evidence that quotes torch's own text."""

    torch_text: str | None


@dataclass(frozen=True)
class NoEvidence(EvidenceBase):
    """A finding made from nothing to quote (the JSON's `{}`, or only `per_rank`)."""


@dataclass(frozen=True)
class BreakEvidence(EvidenceBase, NamesCompiles, QuotesTorch):
    compile_ids: list[str]
    secondary_gb_ids: list[str]
    hint_class: str | None
    torch_text: str


@dataclass(frozen=True)
class GuardSource:
    """The user's line a failing guard came from."""

    file: str
    line: int | None
    source: str | None


@dataclass(frozen=True)
class RecompileEvidence(EvidenceBase, NamesCompiles):
    compile_ids: list[str]
    guard_failures: list[str]
    guard_source: GuardSource | None
    hint: str | None


@dataclass(frozen=True)
class LimitEvidence(EvidenceBase, NamesCompiles, QuotesTorch):
    compile_ids: list[str]
    torch_text: str | None


@dataclass(frozen=True)
class FailureEvidence(EvidenceBase, NamesCompiles, QuotesTorch):
    compile_ids: list[str]
    fail_type: str | None
    torch_text: str


@dataclass(frozen=True)
class PerfHintEvidence(EvidenceBase, NamesCompiles, QuotesTorch):
    compile_ids: list[str]
    torch_text: str
    logger: str | None


@dataclass(frozen=True)
class DdpSplitEvidence(EvidenceBase, NamesCompiles):
    compile_ids: list[str]
    subgraphs_per_compile: dict[str, int]


@dataclass(frozen=True)
class GuardCountEvidence(EvidenceBase, NamesCompiles):
    compile_ids: list[str]
    by_kind: dict[str, int]


@dataclass(frozen=True)
class SteadyValuesEvidence(EvidenceBase):
    pins: list[str]


@dataclass(frozen=True)
class GuardOverheadFigures:
    """A compiled function's measured time per call (`doctor guards`): as compiled, with guard evaluation
    skipped, and eager."""

    calls: int
    compiled_us: float  # the median of rounds
    skip_guards_us: float | None
    eager_us: float | None
    error: str | None = None
    # how far the rounds lay apart (max - min): a difference within them is noise (None: not recorded)
    compiled_spread_us: float | None = field(default=None, metadata=json_field(omit_none=True))
    skip_guards_spread_us: float | None = field(default=None, metadata=json_field(omit_none=True))
    rounds: int | None = field(default=None, metadata=json_field(omit_none=True))

    @property
    def guard_us(self) -> float:
        """What checking the guards adds to a call: compiled minus guards skipped (0 when not measured)."""
        return self.compiled_us - self.skip_guards_us if self.skip_guards_us is not None else 0.0

    @property
    def noise_us(self) -> float:
        """How far apart the two timings may lie by chance: half their spreads together."""
        return ((self.compiled_spread_us or 0.0) + (self.skip_guards_spread_us or 0.0)) / 2

    @property
    def within_noise(self) -> bool:
        """Guards skipped and with guards differ by no more than the rounds' spread: no guard cost measured (nor
        a faster call with guards, which would be a contradiction)."""
        return self.skip_guards_us is not None and abs(self.guard_us) <= self.noise_us


@dataclass(frozen=True)
class GuardOverheadEvidence(EvidenceBase):
    overhead: GuardOverheadFigures


@dataclass(frozen=True)
class CompileIdsEvidence(EvidenceBase, NamesCompiles):
    compile_ids: list[str]


@dataclass(frozen=True)
class TargetEvidence(EvidenceBase, QuotesTorch):
    status: str
    exit_code: int | None
    exception_type: str | None
    torch_text: str | None


@dataclass(frozen=True)
class CompileCallsEvidence(EvidenceBase):
    """The torch.compile calls of a run that compiled nothing: what each compiled, and what disabled Dynamo."""

    compiled: list[str]
    compiled_kinds: list[str]
    dynamo_disabled_by: str | None
    compiles_traced: int  # compilation_metrics records (frames Dynamo looked at)


@dataclass(frozen=True)
class UnusedSuppressionEvidence(EvidenceBase):
    code: str


@dataclass(frozen=True)
class DivergenceEvidence(EvidenceBase, NamesCompiles):
    present_on: list[int]
    missing_on: list[int]
    finding: str
    finding_code: str
    compile_ids: list[str]


@dataclass(frozen=True)
class GraphDivergenceEvidence(EvidenceBase):
    graphs: dict[str, int]
    compile_ids_by_rank: dict[str, list[str]] = field(metadata=json_field(name="compile_ids"))


@dataclass(frozen=True)
class EndsEarlyEvidence(EvidenceBase):
    rank: int
    how: str
    log_health: LogHealth  # the rank's log, as it was read (a snapshot)


@dataclass(frozen=True)
class LauncherEvidence(EvidenceBase):
    status: str
    exit_code: int | None
    target: str


# -- compile time (analysis/detectors/compile_cost.py)
@dataclass(frozen=True)
class RepeatedBlockEvidence(EvidenceBase, NamesCompiles):
    compile_ids: list[str]
    block_lines: list[str]  # "file:line" of the block's lines and how often each was inlined
    module_list: str | None
    phases: dict[str, float]


@dataclass(frozen=True)
class CompilePhaseEvidence(EvidenceBase, NamesCompiles):
    compile_ids: list[str]
    phases: dict[str, float]


@dataclass(frozen=True)
class CacheEvidence(EvidenceBase, NamesCompiles):
    compile_ids: list[str]
    cache: dict[str, CacheCounts]
    saved_s: float
    miss_reasons: list[str]


# -- the GPU: CUDA graphs, TF32, fallback kernels, autotuning (analysis/detectors/cudagraph_use.py, precision.py)
@dataclass(frozen=True)
class CudagraphSkipEvidence(EvidenceBase, NamesCompiles, QuotesTorch):
    compile_ids: list[str]
    reason: str  # events.model.CudagraphSkipReason
    torch_text: str  # torch's reason, its stack left out
    ops: list[str]  # for a partition that runs outside CUDA graphs: its ops and their reasons


@dataclass(frozen=True)
class CudagraphCallsEvidence(EvidenceBase, NamesCompiles, QuotesTorch):
    """Calls of CUDA-graph-managed code that did not replay a graph, per mode (warmup, record, eager, rerecord),
    and what torch said about them."""

    compile_ids: list[str]
    calls: dict[str, int]
    torch_text: str | None


@dataclass(frozen=True)
class CudagraphSizesEvidence(EvidenceBase, NamesCompiles, QuotesTorch):
    compile_ids: list[str]
    sizes: list[str]  # torch's size keys of the recorded trees, e.g. "(8, 2)"
    calls: dict[str, int]
    torch_text: str | None


@dataclass(frozen=True)
class CudagraphCoverageEvidence(EvidenceBase, NamesCompiles):
    """The graphs CUDA graphs were asked for and how each ran (model/cudagraphs.py: the report's `cudagraphs`)."""

    compile_ids: list[str]
    covered: int  # graphs that ran as CUDA graphs
    coverage: dict[str, str]  # compile id -> how it ran (a GraphCoverage)
    calls: dict[str, int]  # logged calls by mode
    rerecordings: int
    rerecord_limit: int | None


@dataclass(frozen=True)
class OverwrittenEvidence(EvidenceBase, QuotesTorch):
    torch_text: str
    produced_at: str | None  # "file:line" of the line that made the output


@dataclass(frozen=True)
class Tf32Evidence(EvidenceBase, NamesCompiles, QuotesTorch):
    compile_ids: list[str]
    fp32_matmuls: int | None  # float32 matmuls on the GPU in the graphs (None: no graph in what was read)
    torch_text: str


Evidence = (
    NoEvidence
    | BreakEvidence
    | RecompileEvidence
    | LimitEvidence
    | FailureEvidence
    | PerfHintEvidence
    | DdpSplitEvidence
    | GuardCountEvidence
    | SteadyValuesEvidence
    | GuardOverheadEvidence
    | CompileIdsEvidence
    | TargetEvidence
    | CompileCallsEvidence
    | UnusedSuppressionEvidence
    | DivergenceEvidence
    | GraphDivergenceEvidence
    | EndsEarlyEvidence
    | LauncherEvidence
    | RepeatedBlockEvidence
    | CompilePhaseEvidence
    | CacheEvidence
    | CudagraphSkipEvidence
    | CudagraphCallsEvidence
    | CudagraphSizesEvidence
    | CudagraphCoverageEvidence
    | OverwrittenEvidence
    | Tf32Evidence
)


def compile_ids_of(evidence: Evidence) -> list[str]:
    """The compile ids a finding's evidence names ([] for evidence that names none)."""
    return evidence.compile_ids if isinstance(evidence, NamesCompiles) else []


def torch_text_of(evidence: Evidence) -> str | None:
    """torch's own text, as the evidence quotes it (None: it quotes none)."""
    return evidence.torch_text if isinstance(evidence, QuotesTorch) else None
