"""EventLog -> Report: build the index, run the detectors, drop suppressed findings (reporting unused
suppressions), rank, summarize, and write the notes. What each finding says is the detectors' business
(analysis/detectors/), what it is called and how severe it is the catalogue's."""

from __future__ import annotations

from typing import Any

from torchcompile_doctor import __version__
from torchcompile_doctor.analysis.compile_time_breakdown import compile_time_breakdown
from torchcompile_doctor.analysis.cudagraph_coverage import cudagraph_coverage
from torchcompile_doctor.analysis.detectors import rules_of, run_detectors
from torchcompile_doctor.analysis.detectors.detector import Derived
from torchcompile_doctor.analysis.detectors.outcome import target_outcome
from torchcompile_doctor.analysis.graph_break_registry import GraphBreakRegistry
from torchcompile_doctor.analysis.guard_frames import guard_frames
from torchcompile_doctor.analysis.index import AnalysisContext, AnalysisIndex
from torchcompile_doctor.analysis.ranking import rank_findings
from torchcompile_doctor.analysis.summary import Measured, summarize
from torchcompile_doctor.analysis.suppressions import UNUSED_SUPPRESSION, suppress
from torchcompile_doctor.analysis.training import training_run
from torchcompile_doctor.events.model import EventLog, ExplainResult, WarningKind
from torchcompile_doctor.model.paths import torch_path
from torchcompile_doctor.model.report import Finding, Kind, Report, RunEnvironment, Summary
from torchcompile_doctor.torch_releases import outside_range_note

__all__ = ["AnalysisContext", "analyze", "recorded_torch_version", "registry_note", "report_of"]


def _backend(log: EventLog) -> str:
    used = sorted({b.used for b in log.backends})
    requested = sorted({b.requested for b in log.backends})
    override = log.bootstrap[-1].backend_override if log.bootstrap else None
    if not used:
        return override or "unknown"
    text = ", ".join(used)
    if override and requested != used:
        text += f" (override of {', '.join(requested)})"
    return text


def _explain_notes(log: EventLog, summary: Summary, findings: list[Finding]) -> tuple[ExplainResult | None, list[str]]:
    if not log.explain:
        return None, []
    result = log.explain[-1]
    if result.error:
        return result, [f"torch._dynamo.explain failed ({result.error}); findings come from the trace."]
    notes = []
    if result.graph_break_count != summary.graph_breaks or result.graph_count != summary.graphs:
        why = []
        if any(f.kind == Kind.FRAME_SKIPPED for f in findings):
            why.append("a frame fell back to eager, and explain reports 0 graphs / -1 breaks for such frames")
        if result.graph_break_count > summary.graph_breaks:
            why.append(
                "explain counts a break each time a frame or resume function is traced; the doctor counts unique sites"
            )
        if summary.recompiles:
            why.append("explain resets Dynamo and traces one call, so it does not see recompiles")
        if any(f.kind == Kind.COMPILE_FAILURE for f in findings):
            why.append("the compile failed under capture")
        if not why:
            why.append("explain traces one call with fresh Dynamo state; the doctor watched the whole run")
        notes.append(
            f"torch._dynamo.explain disagrees: {result.graph_count} graphs, {result.graph_break_count} graph breaks "
            f"(the trace: {summary.graphs} graphs, {summary.graph_breaks} unique breaks) because "
            + "; ".join(why)
            + "."
        )
    return result, notes


def registry_note(registry: GraphBreakRegistry) -> str:
    """Which graph-break registry gave GB ids and explanations: a re-read log may come from another torch."""
    label, _, where = registry.source.partition(" (")
    if label == "installed torch":
        return f"graph-break registry: the installed torch's ({torch_path(where.rstrip(')'))})"
    if label.startswith("bundled torch "):
        release = label.removeprefix("bundled torch ")
        why = registry.chosen_because or "torch is not installed here"
        return f"graph-break registry: torch {release}'s, bundled with torchcompile-doctor ({why})"
    return f"graph-break registry: {registry.source}"


def recorded_torch_version(log: EventLog) -> str | None:
    """The torch that wrote the log: the side channel's, else the trace's torch_version, else a compile's metrics."""
    return (
        (log.bootstrap[-1].torch_version if log.bootstrap else None)
        or (log.torch_versions[-1].version if log.torch_versions else None)
        or next((m.torch_version for m in log.metrics if m.torch_version), None)
    )


_WARNINGS_SHOWN = 5  # torch's other warnings, as notes: at most this many distinct ones


def _torch_warnings(index: AnalysisIndex) -> list[str]:
    """Warnings torch's compile stack raised that no rule reads, said as torch said them (first line)."""
    seen: dict[str, int] = {}
    for warning in index.log.torch_warnings:
        if warning.kind == WarningKind.OTHER:
            where = f"{index.code.display(warning.file)}:{warning.line}"
            text = f"{warning.category} at {where}: {warning.message.splitlines()[0][:300]}"
            seen[text] = seen.get(text, 0) + warning.count
    return [
        f"torch warned while compiling ({text})" + (f", {count} times" if count > 1 else "")
        for text, count in list(seen.items())[:_WARNINGS_SHOWN]
    ]


def _notes(
    log: EventLog, index: AnalysisIndex, summary: Summary, ranked: list[Finding], suppressed: list[Any]
) -> tuple[Any, ...]:
    """(explain's result, the report's notes)."""
    explain, notes = _explain_notes(log, summary, ranked)
    cache_hits = sum(1 for e in log.inductor_cache if e.outcome == "hit" and e.cache == "fx_graph")
    if cache_hits and not log.perf_hints:
        notes.append(
            f"inductor loaded {cache_hits} graph(s) from its FX-graph cache and logs no perf hints for those; "
            "rerun with --fresh-inductor-cache to compile them afresh and see the hints."
        )
    notes += [warning.message for warning in log.warnings]
    notes += _torch_warnings(index)
    if suppressed:
        notes.append(f"{len(suppressed)} finding(s) suppressed by `# doctor: ignore[...]` comments.")
    if log.health.problems:
        notes.append(
            f"log health: {log.health.in_words()} (counted and skipped; `doctor report --strict` makes them an error)."
        )
    if index.context.offline:
        notes.append(registry_note(index.registry))
    outside = outside_range_note(recorded_torch_version(log))
    if outside:
        notes.append(outside)
    notes += changed_source_notes(index)
    return explain, notes


def changed_source_notes(index: AnalysisIndex) -> list[str]:
    """One note per file left unread because it changed since the capture (re-reads only); call it once the
    findings are made, as the files are read while they are."""
    return [
        f"source changed since the capture: {index.code.display(file)} ({why}); the report shows no line, "
        "function or context from it."
        for file, why in sorted(index.changed_sources.items())
    ]


def run_environment(log: EventLog, context: AnalysisContext) -> RunEnvironment:
    """The program's folder, the library roots, the Python version and the run's start, from the side channel;
    a bare trace gives its first compile's start."""
    bootstrap = log.bootstrap[-1] if log.bootstrap else None
    started = next((b.wall_time for b in log.bootstrap if b.wall_time is not None), None)
    if started is None:
        starts = [m.start_time_us for m in log.metrics if m.start_time_us]
        started = min(starts) / 1e6 if starts else None
    return RunEnvironment(
        program_dir=context.root,
        library_roots=bootstrap.library_roots if bootstrap else (),
        python_version=bootstrap.python_version if bootstrap else None,
        started_at=started,
    )


def analyze(log: EventLog, context: AnalysisContext) -> Report:
    return report_of(AnalysisIndex.build(log, context))


def report_of(index: AnalysisIndex) -> Report:
    """The report of one process's index (multirank.py keeps each rank's index to place its own findings)."""
    log, context = index.log, index.context
    derived = Derived(
        guard_frames=tuple(guard_frames(index)),
        compile_time=compile_time_breakdown(index),
        training=training_run(index),
        cudagraphs=cudagraph_coverage(index),
    )
    findings, suppressed = suppress(index, run_detectors(index, derived), rules_of(UNUSED_SUPPRESSION))
    measured = Measured.of_log(log, findings)
    ranked = rank_findings(findings, measured.compile_time_s)
    summary = summarize(ranked, measured)
    explain, notes = _notes(log, index, summary, ranked, suppressed)
    outcome = target_outcome(index)
    torch_version = recorded_torch_version(log)
    return Report(
        tool_version=__version__,
        torch_version=torch_version,
        target=context.target,
        backend=_backend(log),
        target_exit_code=outcome.exit_code,
        target_status=outcome.status,
        summary=summary,
        findings=tuple(ranked),
        notes=tuple(notes),
        explain=explain,
        log_health=log.health.snapshot(),
        suppressed=tuple(suppressed),
        guards=derived.guard_frames,
        compile_time=derived.compile_time,
        cudagraphs=derived.cudagraphs,
        environment=run_environment(log, context),
    )
