"""Compile time as a finding family (TCD6xx): a block compiled many times inside one graph (regional
compilation compiles it once), one phase taking most of the compile time, a run that compiled everything
with an empty cache (what a fresh machine pays at every start), and a warm cache hiding that work.
Figures come from the report's `compile_time` data."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace

from torchcompile_doctor.analysis.code import USER
from torchcompile_doctor.analysis.compiled_frames import frame_view
from torchcompile_doctor.analysis.detectors.detector import Derived, Detector
from torchcompile_doctor.analysis.index import AnalysisIndex
from torchcompile_doctor.analysis.worded_findings import finding_from_rule, unique
from torchcompile_doctor.events.model import CompileId, OutputGraph
from torchcompile_doctor.model.compile_time import CompileRecord, CompileTime, FrameCompileTime
from torchcompile_doctor.model.experiment import CarriedCache, Regional
from torchcompile_doctor.model.findings import (
    CacheEvidence,
    CacheSavedImpact,
    CompilePhaseEvidence,
    CompileTimeImpact,
    RepeatedBlockEvidence,
)
from torchcompile_doctor.model.report import Finding, Location
from torchcompile_doctor.rules.binding import Binding, Params, RuleSet
from torchcompile_doctor.rules.catalogue import Rule
from torchcompile_doctor.rules.facts import Facts, fill
from torchcompile_doctor.transforms.line_code import python_path


@dataclass(frozen=True, kw_only=True)
class RepeatedBlockFacts(Facts):
    block: str | None = None
    repeats: int | None = None
    frame: str | None = None
    frame_where: str | None = None
    seconds: str | None = None
    module_list: str | None = None
    torch_blocks: str | None = None  # the blocks are torch.nn's own: its class path, where the graph names it


@dataclass(frozen=True)
class RepeatedBlockParams(Params):
    min_repeats: int = 4  # copies of the block in one graph
    min_compile_s: float = 1.0  # seconds the compile took


@dataclass(frozen=True, kw_only=True)
class PhaseFacts(Facts):
    phase: str | None = None
    share: str | None = None
    seconds: str | None = None
    total: str | None = None
    frame: str | None = None
    advice: str | None = None
    training: str | None = None  # what says the run trains (the training advice names it)


@dataclass(frozen=True)
class PhaseParams(Params):
    min_compile_s: float = 5.0  # a frame's compile seconds
    min_share: float = 0.5  # of them in one phase
    min_backend_share: float = 0.05  # outside Dynamo (an eager backend compiles in Dynamo only)
    advice: Mapping[str, str] = field(default_factory=dict)  # what controls each phase
    # where the run trains (a backward was compiled or called): the phases whose advice differs (no `no_grad`)
    training_advice: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class ColdCacheFacts(Facts):
    seconds: str | None = None
    graphs: int | None = None


@dataclass(frozen=True)
class ColdCacheParams(Params):
    min_compile_s: float = 5.0


@dataclass(frozen=True, kw_only=True)
class WarmCacheFacts(Facts):
    saved: str | None = None
    seconds: str | None = None
    hits: int | None = None


@dataclass(frozen=True)
class WarmCacheParams(Params):
    min_saved_s: float = 1.0


@dataclass(frozen=True, kw_only=True)
class AutotuneFacts(Facts):
    frame: str | None = None
    seconds: str | None = None
    share: str | None = None


@dataclass(frozen=True)
class AutotuneParams(Params):
    min_autotune_s: float = 5.0
    min_share: float = 0.25  # of the frame's compile time


REPEATED_BLOCK = Binding("repeated_block", RepeatedBlockParams, RepeatedBlockFacts)
COMPILE_PHASE = Binding("compile_phase", PhaseParams, PhaseFacts)
COLD_CACHE = Binding("cold_cache", ColdCacheParams, ColdCacheFacts)
WARM_CACHE = Binding("warm_cache", WarmCacheParams, WarmCacheFacts)
AUTOTUNE_TIME = Binding("autotune_time", AutotuneParams, AutotuneFacts)


def _percent(share: float) -> str:
    return f"{share:.0%}"


def _frame_of(data: CompileTime, index: AnalysisIndex, compile_id: CompileId) -> FrameCompileTime | None:
    file, line, _ = index.frame_key(compile_id)
    return next((f for f in data.frames if (f.file, f.line) == (file, line)), None)


_Repeated = tuple[str, str, list[tuple[int, int]], int]  # (file, function, (line, times) of its lines, repeats)
_Block = tuple[str, int, list[_Repeated]]  # (module list, children, the block's functions)


def _repeated_functions(graph: OutputGraph, frame: FrameCompileTime, index: AnalysisIndex) -> Iterator[_Repeated]:
    """(file, function, lines, repeats) of each function inlined more than once into the graph (not the compiled
    frame's own): its lines grouped, and the count most of them share (a line can be split or fused)."""
    by_function: dict[tuple[str, str], list[tuple[int, int]]] = defaultdict(list)
    for file, line, function, times in graph.inlined:
        by_function[(file, function)].append((line, times))
    for (file, function), lines in by_function.items():
        repeats = Counter(times for _, times in lines).most_common(1)[0][0]
        own = file == frame.file and any(line == frame.line for line, _ in lines)
        if repeats > 1 and not own and "/torch/" not in file:  # torch.nn modules are not the block
            yield file, function, sorted(lines), repeats


def _block_of(graph: OutputGraph, frame: FrameCompileTime, index: AnalysisIndex, min_repeats: int) -> _Block | None:
    """(module list, children, the block's functions) for a module list whose children's code the graph holds
    once per child; the block's own forward first: of the functions repeated once per child, the one with the
    fewest lines (a layer's forward delegates to the attention and MLP code it calls)."""
    for path, children in sorted(graph.module_lists, key=lambda item: -item[1]):
        if children < min_repeats:
            continue
        functions = [f for f in _repeated_functions(graph, frame, index) if f[3] == children]
        if functions:
            return path, children, sorted(functions, key=lambda f: (len(f[2]), f[2][0][0]))
    # torch's own blocks (`nn.TransformerEncoderLayer`) leave no `# File:` lines in the graph: the parameters of
    # every child of a module list among the graph's inputs say that each child was traced into it
    lists = [(path, children) for path, children in graph.module_lists if children >= min_repeats]
    if lists:
        path, children = max(lists, key=lambda item: item[1])
        return path, children, []
    return None


def repeated_blocks(index: AnalysisIndex, derived: Derived, rules: RuleSet[RepeatedBlockParams]) -> list[Finding]:
    """TCD601: one compiled graph holding a copy of the same block for each child of a module list (N
    identical layers traced into one graph): the compile pays for every copy."""
    rule, params = rules.only, rules.params
    data = derived.compile_time
    if data is None:
        return []
    findings = []
    for graph in index.log.output_graphs:
        frame = _frame_of(data, index, graph.compile_id) if graph.compile_id is not None else None
        wanted = str(graph.compile_id)  # (once, not once per compile of the frame)
        compile_ = next((c for c in frame.compiles if c.compile_id == wanted), None) if frame else None
        if frame is None or compile_ is None or compile_.seconds < params.min_compile_s:
            continue
        block = _block_of(graph, frame, index, params.min_repeats)
        if block is not None:
            findings.append(_repeated_block_finding(rule, index, frame, compile_, block))
    return unique(findings)


def _repeated_block_finding(
    rule: Rule, index: AnalysisIndex, frame: FrameCompileTime, compile_: CompileRecord, block: _Block
) -> Finding:
    module_list, repeats, functions = block
    if functions:
        file, function, lines, _ = functions[0]
        first_line = lines[0][0]
        block_name = index.code.user_function_name(file, function, first_line)
        location = index.location(file, first_line, block_name)
    else:  # a block of torch's own: named by where it sits, found at the compiled frame (or the user's call)
        block_name = f"{python_path(module_list)}[i]"
        location = frame_view(index, _key(frame))[0]
    frame_location, frame_name = frame_view(index, _key(frame))
    facts = RepeatedBlockFacts(
        block=block_name,
        repeats=repeats,
        frame=frame_name,
        frame_where=frame_location.where,
        seconds=f"{compile_.seconds:.1f}",
        module_list=python_path(module_list),
        torch_blocks=None if functions else "torch.nn",
    )
    finding = finding_from_rule(
        rule.worded_for(USER, facts),  # torch.nn's own blocks have a wording of their own
        location=location,
        facts=facts,
        count=repeats,
        impact=CompileTimeImpact(compile_seconds=round(compile_.seconds, 3), share=1.0),
        evidence=RepeatedBlockEvidence(
            compile_ids=[compile_.compile_id],
            block_lines=[
                f"{index.code.display(f)}:{line} x{times}" for f, _, lines_, _ in functions for line, times in lines_
            ],
            module_list=module_list,
            phases={k: round(v, 3) for k, v in compile_.phases.items()},
        ),
    )
    if finding.fix is None or not functions:
        # torch.nn's own blocks compiled one by one compile nothing (Dynamo does not trace a built-in module's
        # forward on its own: measured on a speech model, graphs 8 -> 0): regional compilation is for the user's
        return finding
    # measured by --try-fixes: each block compiled on its own instead of the whole model
    experiment = Regional(module_list=module_list, block=block_name)
    return replace(finding, fix=replace(finding.fix, experiment=experiment))


def dominant_phase(index: AnalysisIndex, derived: Derived, rules: RuleSet[PhaseParams]) -> list[Finding]:
    """TCD602: one phase taking most of a frame's compile time, with what controls that phase."""
    rule, params = rules.only, rules.params
    data = derived.compile_time
    if data is None:
        return []
    findings = []
    training = derived.training.evidence if derived.training else None
    advice = {**params.advice, **params.training_advice} if training else dict(params.advice)
    for frame in data.frames:
        if frame.seconds < params.min_compile_s:
            continue
        if 1 - frame.phases["dynamo"] / frame.seconds < params.min_backend_share:
            continue
        phase, seconds = max(frame.phases.items(), key=lambda item: item[1])
        share = seconds / frame.seconds
        # the kernel compile's levers differ: Triton kernels on a GPU, C++ on a CPU; autotuning is TCD605's
        if share < params.min_share or phase not in advice:
            continue
        findings.append(
            finding_from_rule(
                rule,
                location=frame_view(index, _key(frame))[0],
                facts=PhaseFacts(
                    phase=data.labels[phase],
                    share=_percent(share),
                    seconds=f"{seconds:.1f}",
                    total=f"{frame.seconds:.1f}",
                    frame=frame.function,
                    advice=fill(advice[phase], PhaseFacts(training=training)),
                ),
                count=len(frame.compiles),
                impact=CompileTimeImpact(compile_seconds=round(seconds, 3), share=round(share, 3)),
                evidence=CompilePhaseEvidence(
                    compile_ids=[c.compile_id for c in frame.compiles],
                    phases={k: round(v, 3) for k, v in frame.phases.items()},
                ),
            )
        )
    return findings


def _cache_evidence(data: CompileTime) -> CacheEvidence:
    return CacheEvidence(
        compile_ids=[c.compile_id for f in data.frames for c in f.compiles],
        cache=data.cache_totals(),
        saved_s=round(data.cache.saved_s, 3),
        miss_reasons=list(data.cache.miss_reasons),
    )


def _key(frame: FrameCompileTime) -> tuple[str, int, str]:
    return frame.file, frame.line, frame.co_name


def _heaviest(index: AnalysisIndex, data: CompileTime) -> Location | None:
    frame = data.frames[0]
    return frame_view(index, _key(frame))[0] if frame.file != "?" else None


def cold_cache(index: AnalysisIndex, derived: Derived, rules: RuleSet[ColdCacheParams]) -> list[Finding]:
    """TCD603: the run compiled every graph from scratch (no cache hit): what a fresh machine pays at
    every start, and what carrying the cache (save/load_cache_artifacts) saves."""
    rule = rules.only
    data = derived.compile_time
    if data is None or data.total_s < rules.params.min_compile_s:
        return []
    totals = data.cache_totals()
    if totals["fx_graph"].hits or totals["aot_autograd"].hits or not totals["fx_graph"].misses:
        return []
    finding = finding_from_rule(
        rule,
        location=_heaviest(index, data),
        facts=ColdCacheFacts(seconds=f"{data.total_s:.1f}", graphs=totals["fx_graph"].misses),
        identity="run",
        count=totals["fx_graph"].misses,
        impact=CompileTimeImpact(compile_seconds=round(data.total_s, 3), share=1.0),
        evidence=_cache_evidence(data),
    )
    if finding.fix is None:
        return [finding]
    # measured by --try-fixes: a first run saves the artifacts, a second one on an empty cache loads them
    return [replace(finding, fix=replace(finding.fix, experiment=CarriedCache()))]


def warm_cache(index: AnalysisIndex, derived: Derived, rules: RuleSet[WarmCacheParams]) -> list[Finding]:
    """TCD604: cache hits made this run's compile cheaper than a fresh machine's."""
    rule = rules.only
    data = derived.compile_time
    if data is None or data.cache.saved_s < rules.params.min_saved_s:
        return []
    hits = sum(counts.hits for counts in data.cache_totals().values())
    return [
        finding_from_rule(
            rule,
            location=_heaviest(index, data),
            facts=WarmCacheFacts(saved=f"{data.cache.saved_s:.1f}", seconds=f"{data.total_s:.1f}", hits=hits),
            identity="run",
            count=hits,
            impact=CacheSavedImpact(saved_seconds=round(data.cache.saved_s, 3), hits=hits),
            evidence=_cache_evidence(data),
        )
    ]


def autotune_time(index: AnalysisIndex, derived: Derived, rules: RuleSet[AutotuneParams]) -> list[Finding]:
    """TCD605: max-autotune's benchmarking of kernel choices (torch's `compile_time_autotune_time_us`) taking a
    large part of a frame's compile time."""
    rule, params = rules.only, rules.params
    data = derived.compile_time
    if data is None:
        return []
    by_frame: dict[tuple[str, int, str], float] = defaultdict(float)
    for metrics in index.log.metrics:
        if metrics.compile_id is not None and metrics.autotune_s:
            by_frame[index.frame_key(metrics.compile_id)] += metrics.autotune_s
    findings = []
    for frame in data.frames:
        seconds = by_frame.get(_key(frame), 0.0)
        if seconds < params.min_autotune_s or seconds < params.min_share * frame.seconds:
            continue
        location, name = frame_view(index, _key(frame))
        share = seconds / frame.seconds if frame.seconds else 0.0
        findings.append(
            finding_from_rule(
                rule,
                location=location,
                facts=AutotuneFacts(frame=name, seconds=f"{seconds:.1f}", share=_percent(share)),
                count=len(frame.compiles),
                impact=CompileTimeImpact(compile_seconds=round(seconds, 3), share=round(share, 3)),
                evidence=CompilePhaseEvidence(
                    compile_ids=[c.compile_id for c in frame.compiles],
                    phases={k: round(v, 3) for k, v in frame.phases.items()},
                ),
            )
        )
    return findings


REPEATED_BLOCK_DETECTOR = Detector(REPEATED_BLOCK, repeated_blocks)
COMPILE_PHASE_DETECTOR = Detector(COMPILE_PHASE, dominant_phase)
COLD_CACHE_DETECTOR = Detector(COLD_CACHE, cold_cache)
WARM_CACHE_DETECTOR = Detector(WARM_CACHE, warm_cache)
AUTOTUNE_TIME_DETECTOR = Detector(AUTOTUNE_TIME, autotune_time)
