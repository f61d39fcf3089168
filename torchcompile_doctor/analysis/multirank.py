"""Several ranks -> one Report, a post-step over per-rank reports: each rank's EventLog is analysed on its
own (`analyze`), then merged; one rank is reported exactly as `analyze` reports it.

Merging, per finding fingerprint (code + file + function + source text):
- `ranks` lists the ranks it occurred on; `count` and each figure in `impact` are the worst rank's (the
  maximum, not the sum: ranks run side by side, so a break traced 3 times on each of 8 ranks costs every rank
  3 traces, not 24); `evidence.per_rank` keeps each rank's own count and compile ids.
- The summary counts unique findings across ranks (breaks, limit hits, fallbacks) and takes the worst rank's
  figure for the rest (graphs, break records, recompiles, compile failures, compile time); `rank_table` has
  one row per rank.
- Divergence findings of their own (kind `rank_divergence`, TCD5xx, critical): a finding of a kind that a
  `rank_divergence` rule names in `params.of_kinds` (breaks, recompiles, compile failures) on some ranks only;
  ranks whose graph counts or compile-id sequences differ; a rank whose log ends early (its trace file ends
  mid-record, or it left no exit record where other ranks did).

Guards, explain results and the torch version come from the lowest rank.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from torchcompile_doctor.analysis.analyze import AnalysisContext, analyze, report_of
from torchcompile_doctor.analysis.detectors import rules_of
from torchcompile_doctor.analysis.detectors.outcome import TARGET_FAILED, TargetFailedFacts, killed, stopped
from torchcompile_doctor.analysis.index import AnalysisIndex
from torchcompile_doctor.analysis.rank_rules import (
    RANK_DIVERGENCE,
    RANK_GRAPH_DIVERGENCE,
    RANK_LOG_ENDS_EARLY,
    DivergenceFacts,
    EndsEarlyFacts,
    GraphDivergenceFacts,
)
from torchcompile_doctor.analysis.ranking import rank_findings
from torchcompile_doctor.analysis.summary import Measured, summarize
from torchcompile_doctor.analysis.worded_findings import finding_from_rule
from torchcompile_doctor.events.model import CompileId, EventLog, LogHealth, RunOutcome
from torchcompile_doctor.model.findings import (
    DivergenceEvidence,
    DivergenceImpact,
    EndsEarlyEvidence,
    Evidence,
    GraphDivergenceEvidence,
    Impact,
    LauncherEvidence,
    RankEvidence,
    RankGroupsImpact,
    compile_ids_of,
)
from torchcompile_doctor.model.report import Finding, Kind, Location, RankRow, Report, TargetStatus, rank_list
from torchcompile_doctor.rules.catalogue import Rule
from torchcompile_doctor.rules.facts import Facts

MAX_IDS_SHOWN = 6  # compile ids spelled out per rank group in TCD504's text


def ranks_phrase(ranks: Iterable[int]) -> str:
    ranks = sorted(set(ranks))
    return f"rank{'s' if len(ranks) > 1 else ''} {rank_list(ranks)}"


def _rank_context(context: AnalysisContext, log: EventLog) -> AnalysisContext:
    """The launcher's outcome (timeout, Ctrl-C) speaks for a rank only when the rank left no exit record."""
    if log.target_exits:
        return replace(context, outcome=RunOutcome())
    return replace(context, outcome=replace(context.outcome, returncode=None, signal=None))


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _worst_impact(impacts: list[Impact]) -> Impact:
    """Each figure of the worst rank (where every rank has a number for it): the first rank's impact with each
    number the largest of the ranks' (one fingerprint, one finding family: the impacts are of one type)."""
    first = impacts[0]
    worst = {item.name: getattr(first, item.name) for item in fields(first)}
    for impact in impacts[1:]:
        for name, value in worst.items():
            theirs = getattr(impact, name, None)
            if _is_number(theirs) and _is_number(value):
                worst[name] = max(value, theirs)
    return replace(first, **worst)


def _merge(items: list[tuple[int, Finding]]) -> Finding:
    _, first = items[0]
    call_sites = list(first.call_sites)
    for _, finding in items[1:]:
        call_sites += [site for site in finding.call_sites if site not in call_sites]
    per_rank = {str(rank): RankEvidence(f.count, list(compile_ids_of(f.evidence))) for rank, f in items}
    return replace(
        first,
        ranks=tuple(rank for rank, _ in items),
        count=max(f.count for _, f in items),
        impact=_worst_impact([f.impact for _, f in items]),
        call_sites=tuple(call_sites),
        evidence=replace(first.evidence, per_rank=per_rank),
    )


def _grouped(per_rank: Mapping[int, tuple[Finding, ...]]) -> list[list[tuple[int, Finding]]]:
    """Findings with the same fingerprint across ranks (the k-th of a fingerprint in one rank with the k-th in
    another, so two findings that share one within a rank stay two)."""
    groups: dict[tuple[str, int], list[tuple[int, Finding]]] = {}
    for rank, findings in per_rank.items():
        seen: dict[str, int] = {}
        for finding in findings:
            index = seen.get(finding.fingerprint, 0)
            seen[finding.fingerprint] = index + 1
            groups.setdefault((finding.fingerprint, index), []).append((rank, finding))
    return list(groups.values())


def _divergence(
    rule: Rule,
    facts: Facts,
    ranks: tuple[int, ...],
    location: Location | None = None,
    identity: str = "",
    *,
    impact: Impact | None = None,
    evidence: Evidence | None = None,
    like: Finding | None = None,
) -> Finding:
    """A finding of the merged report's own (divergence, launcher failure), from its rule; `like`: the finding it
    is about, whose break, reason, user frame and changes it repeats. One about the whole job (`identity`: the
    graphs, a rank, the launcher) keeps that identity as its fingerprint when it is also placed at a function: the
    place can change from run to run, and two ranks can stop in the same function."""
    finding = finding_from_rule(
        rule,
        location=None if identity else location,
        facts=facts,
        identity=identity,
        ranks=ranks,
        impact=impact,
        evidence=evidence,
        gb_id=like.gb_id if like else None,
        gb_type=like.gb_type if like else None,
        category=like.category if like else None,
        origin=like.origin if like else None,
        reason_class=like.reason_class if like else None,
        user_frame=like.user_frame if like else None,
        changes=like.changes if like else (),
    )
    return replace(finding, location=location) if identity else finding


def _ends_early(logs: Mapping[int, EventLog]) -> dict[int, str]:
    """Ranks whose log stops before the run's end, with how it shows."""
    others_finished = any(log.target_exits for log in logs.values())
    early = {}
    for rank, log in logs.items():
        if log.health.truncated:
            early[rank] = "its trace file ends in the middle of a record"
        elif others_finished and not log.target_exits:
            early[rank] = "it left no exit record while other ranks did"
    return early


def _compiles(log: EventLog) -> dict[str, CompileId]:
    """The compile ids a rank went through, in log order (attempts of one compile collapsed), by their text."""
    ids = [start.compile_id for start in log.dynamo_starts if start.compile_id is not None]
    ids += [m.compile_id for m in log.metrics if m.compile_id is not None]
    return {str(compile_id): compile_id for compile_id in ids}


def _compile_sequence(log: EventLog) -> tuple[str, ...]:
    return tuple(_compiles(log))


def _frame_location(index: AnalysisIndex, compile_id: CompileId | None) -> Location | None:
    """Where the function a compile belongs to starts, as the rank's own analysis names it."""
    file, line, co_name = index.frame_key(compile_id)
    return None if file == "?" else index.location(file, line, index.function_name(file, co_name, line))


def _where_ranks_part(job: _Job, sequences: Mapping[int, tuple[str, ...]]) -> tuple[int, Location | None] | None:
    """(the lowest rank that made it, the function of) the first compile where the ranks' sequences differ."""
    for position in range(max(len(sequence) for sequence in sequences.values())):
        at = {rank: sequence[position] if position < len(sequence) else None for rank, sequence in sequences.items()}
        if len(set(at.values())) > 1:
            rank, compile_id = next((r, at[r]) for r in sorted(at) if at[r] is not None)
            return rank, _frame_location(job.indexes[rank], _compiles(job.logs[rank]).get(compile_id or ""))
    return None


def _sequence_findings(job: _Job) -> list[Finding]:
    """TCD504: graph counts or compile-id sequences that differ between ranks, placed at the first compile where
    they part. A rank that ends early and compiled a prefix of what the others did is TCD505's, not a divergence
    of its own."""
    logs, reports, early = job.logs, job.reports, job.early
    # a rank's own report counts its graphs (only the merged report of text logs says it cannot)
    signatures = {rank: (reports[rank].summary.graphs or 0, _compile_sequence(log)) for rank, log in logs.items()}
    complete = {rank: sig for rank, sig in signatures.items() if rank not in early}
    longest = max((sig[1] for sig in complete.values()), key=len, default=())
    compared = dict(complete)
    for rank in early:
        sequence = signatures[rank][1]
        if sequence != longest[: len(sequence)]:
            compared[rank] = signatures[rank]
    if len(set(compared.values())) <= 1:
        return []
    by_signature: dict[tuple[Any, ...], list[int]] = {}
    for rank, signature in sorted(compared.items()):
        by_signature.setdefault(signature, []).append(rank)
    parted = _where_ranks_part(job, {rank: signature[1] for rank, signature in compared.items()})
    location = parted[1] if parted else None
    texts = _sequence_texts(by_signature)
    return [
        _divergence(
            rules_of(RANK_GRAPH_DIVERGENCE).only,
            GraphDivergenceFacts(detail=texts[0], counts=texts[1], parted=_parted_text(parted)),
            tuple(sorted(compared)),
            location,
            identity="graphs",
            impact=RankGroupsImpact(rank_groups=len(by_signature)),
            evidence=GraphDivergenceEvidence(
                graphs={str(r): signatures[r][0] for r in sorted(compared)},
                compile_ids_by_rank={str(r): list(signatures[r][1]) for r in sorted(compared)},
            ),
        )
    ]


def _sequence_texts(by_signature: Mapping[tuple[int, tuple[str, ...]], list[int]]) -> tuple[str, str]:
    """TCD504's `detail` (each group of ranks: graphs, compiles, their ids) and `counts` (its title's figures)."""
    parts = []
    for (graphs, sequence), ranks in by_signature.items():
        shown = " ".join(sequence[:MAX_IDS_SHOWN]) + (" ..." if len(sequence) > MAX_IDS_SHOWN else "")
        parts.append(f"{ranks_phrase(ranks)}: {graphs} graph(s), {len(sequence)} compile(s) ({shown or 'none'})")
    graph_counts = {graphs for graphs, _ in by_signature}
    if len(graph_counts) > 1:
        counts = ", ".join(f"{ranks_phrase(ranks)}: {graphs}" for (graphs, _), ranks in by_signature.items())
    else:
        counts = f"{graph_counts.pop()} graph(s) on each rank, different compile ids"
    return "; ".join(parts), counts


def _parted_text(parted: tuple[int, Location | None] | None) -> str:
    rank, location = parted or (0, None)
    if location is None:
        return ""
    return f" The first compile that differs is rank {rank}'s of `{location.function}` ({location.where})."


def _health(logs: Mapping[int, EventLog]) -> LogHealth:
    total = LogHealth()
    for log in logs.values():
        total.add(log.health)
    return total


def _notes(reports: Mapping[int, Report], logs: Mapping[int, EventLog]) -> list[str]:
    """Each rank's notes once: as they are when every rank has them, else prefixed with the ranks."""
    having: dict[str, list[int]] = {}
    for rank, report in reports.items():
        for note in report.notes:
            if not note.startswith("log health:"):  # one line for all ranks, below
                having.setdefault(note, []).append(rank)
    notes = []
    for note, ranks in having.items():
        notes.append(note if len(ranks) == len(reports) else f"{ranks_phrase(ranks)}: {note}")
    unhealthy = {rank: log.health.describe() for rank, log in logs.items() if log.health.describe()}
    if unhealthy:
        notes.append(
            "log health: "
            + "; ".join(f"rank {rank}: {what}" for rank, what in unhealthy.items())
            + " (counted and skipped; `doctor report --strict` makes them an error)."
        )
    return notes


def _target_status(reports: Mapping[int, Report], outcome: RunOutcome) -> tuple[TargetStatus, int | None]:
    """How the job ended: stopped from outside, else the first rank that failed, else the launcher's own
    end (a signal, an exit code), else finished when every rank finished."""
    found = stopped(outcome)
    if found is not None:
        return found.status, found.exit_code
    for report in reports.values():
        if report.target_status != TargetStatus.UNKNOWN and not report.target_succeeded:
            return TargetStatus(report.target_status), report.target_exit_code
    found = killed(outcome)
    if found is not None:
        return found.status, found.exit_code
    if outcome.returncode not in (None, 0):
        return TargetStatus.EXIT, outcome.returncode
    statuses = [TargetStatus(report.target_status) for report in reports.values()]
    if all(status.finished for status in statuses):
        return (TargetStatus.SYS_EXIT if TargetStatus.SYS_EXIT in statuses else TargetStatus.OK), 0
    return (TargetStatus.OK, 0) if outcome.returncode == 0 else (TargetStatus.UNKNOWN, None)


def _launcher_failure(
    status: TargetStatus, code: int | None, silent: list[int], ranks: list[int], context: AnalysisContext
) -> Finding:
    """The launcher (torchrun) failed but no rank said why: the ranks that left no exit record are the suspects."""
    who = f"{ranks_phrase(silent)} left no exit record" if silent else "no rank reported a failure"
    message = (
        f"the launcher exited with code {code} ({who}: crashed, or stopped by the launcher)"
        if status == TargetStatus.EXIT
        else f"the launcher was stopped by signal {-(code or 0)} ({who})"
    )
    return _divergence(
        rules_of(TARGET_FAILED).only,
        TargetFailedFacts(message=message, where="the failing rank"),
        tuple(silent or ranks),
        identity="launcher",
        evidence=LauncherEvidence(status=status, exit_code=code, target=context.target),
    )


def _row(rank: int, report: Report, early: Mapping[int, str]) -> RankRow:
    s = report.summary
    return RankRow(
        rank=rank,
        graphs=s.graphs,
        graph_breaks=s.graph_breaks,
        recompiles=s.recompiles,
        compile_failures=s.compile_failures,
        compile_time_s=round(s.compile_time_s, 3) if s.compile_time_s is not None else None,
        ddp_splits=sum(1 for f in report.findings if f.kind == Kind.DDP_SPLIT),
        target_status=report.target_status,
        log="ends early" if rank in early else "complete",
    )


def _unranked_note(unranked: Sequence[str]) -> str:
    return (
        f"{len(unranked)} trace file(s) name no rank (no rank in the file name or the records) and were left out: "
        + ", ".join(unranked[:5])
        + (" ..." if len(unranked) > 5 else "")
    )


def _one_rank(logs: Mapping[int, EventLog], context: AnalysisContext, unranked: Sequence[str]) -> Report:
    """`analyze` of the only rank (or of nothing), its findings marked with that rank."""
    ranks = sorted(logs)
    report = analyze(logs[ranks[0]] if ranks else EventLog(), context)
    if unranked:
        report = replace(report, notes=(*report.notes, _unranked_note(list(unranked))))
    if not ranks or ranks == [0]:
        return report
    only = (ranks[0],)
    return replace(
        report,
        findings=tuple(replace(f, ranks=only) for f in report.findings),
        suppressed=tuple(replace(f, ranks=only) for f in report.suppressed),
    )


@dataclass(frozen=True)
class _Job:
    """The ranks of one job, each analysed alone."""

    logs: Mapping[int, EventLog]
    reports: Mapping[int, Report]
    early: Mapping[int, str]  # ranks whose log ends early, with how it shows
    indexes: Mapping[int, AnalysisIndex]  # each rank's, to place a finding at a function it compiled

    @property
    def ranks(self) -> list[int]:
        return sorted(self.logs)

    def finished(self, rank: int) -> set[str]:
        """Compiles the rank finished (compilation_metrics): a rank that finished one got past what happens in it."""
        return {str(m.compile_id) for m in self.logs[rank].metrics if m.compile_id}


def _divergence_rules() -> dict[str, Rule]:
    """Finding kind -> the rule that reports its occurring on some ranks only."""
    rules = rules_of(RANK_DIVERGENCE)
    return {kind: rule for rule in rules.rules for kind in rules.params_of(rule).of_kinds}


def _what_differs(merged: Finding) -> str:
    """The finding in a few words for the divergence title: what changed for a recompile, torch's name of the
    failure for a compile failure (its own title would repeat "Compilation failed"), else its title."""
    if merged.kind == Kind.RECOMPILE and merged.changes:
        return ", ".join(merged.changes)
    if merged.kind == Kind.COMPILE_FAILURE and merged.gb_type:
        return merged.gb_type
    return merged.title


def _some_ranks_only(job: _Job, merged: Finding, rule: Rule) -> Finding | None:
    """The divergence finding for a merged finding missing on some ranks (None: on every rank)."""
    present = merged.ranks
    missing = [rank for rank in job.ranks if rank not in present]
    if not missing:
        return None
    # a rank that ended early may not have reached the compile where it happened elsewhere
    ids = set(compile_ids_of(merged.evidence))
    late = [rank for rank in missing if rank in job.early and not ids & job.finished(rank)]
    facts = DivergenceFacts(
        present=ranks_phrase(present),
        missing=ranks_phrase(missing),
        what=_what_differs(merged),
        code=merged.code,
        early=(
            f" ({ranks_phrase(late)} ended early, so {'it' if len(late) == 1 else 'they'} may just not have "
            "got this far.)"
            if late
            else ""
        ),
    )
    return _divergence(
        rule,
        facts,
        present,
        merged.location,
        like=merged,
        impact=DivergenceImpact(of=merged.impact, ranks_with=len(present), ranks_without=len(missing)),
        evidence=DivergenceEvidence(
            present_on=list(present),
            missing_on=missing,
            finding=merged.fingerprint,
            finding_code=merged.code,
            compile_ids=compile_ids_of(merged.evidence),
        ),
    )


def _merged_findings(job: _Job) -> list[Finding]:
    """Each rank's findings merged across ranks, each followed by its divergence finding when some ranks lack it."""
    divergence_rules = _divergence_rules()
    findings: list[Finding] = []
    for items in _grouped({rank: report.findings for rank, report in job.reports.items()}):
        merged = _merge(items)
        findings.append(merged)
        rule = divergence_rules.get(merged.kind)
        divergence = _some_ranks_only(job, merged, rule) if rule is not None else None
        if divergence is not None:
            findings.append(divergence)
    return findings


def _ends_early_findings(job: _Job) -> list[Finding]:
    """TCD505, placed at the function of the last compile the rank's trace records (where it was last seen)."""
    rule = rules_of(RANK_LOG_ENDS_EARLY).only
    findings = []
    for rank, how in job.early.items():
        last = list(_compiles(job.logs[rank]).values())[-1:]
        location = _frame_location(job.indexes[rank], last[0]) if last else None
        seen = (
            f" The last compile its trace records is of `{location.function}` ({location.where})." if location else ""
        )
        findings.append(
            _divergence(
                rule,
                EndsEarlyFacts(rank=rank, how=how, last_seen=seen),
                (rank,),
                location,
                identity=f"rank {rank}",
                evidence=EndsEarlyEvidence(rank=rank, how=how, log_health=job.logs[rank].health.snapshot()),
            )
        )
    return findings


def _job_findings(
    job: _Job, context: AnalysisContext, ranks_diverge: bool
) -> tuple[list[Finding], TargetStatus, int | None]:
    """The merged findings of every rank (or process), the job's status and exit code."""
    logs, reports = job.logs, job.reports
    findings = _merged_findings(job) + _sequence_findings(job) + _ends_early_findings(job)
    if not ranks_diverge:
        findings = [f for f in findings if f.kind != Kind.RANK_DIVERGENCE]
    status, exit_code = _target_status(reports, context.outcome)
    if status in (TargetStatus.EXIT, TargetStatus.SIGNAL) and not any(f.kind == Kind.TARGET_ERROR for f in findings):
        silent = [rank for rank, log in logs.items() if not log.target_exits]
        findings.append(_launcher_failure(status, exit_code, silent, job.ranks, context))
    return findings, status, exit_code


def report_of_ranks(logs: Mapping[int, EventLog], context: AnalysisContext, unranked: Sequence[str] = ()) -> Report:
    """One report for all the ranks of a job; a single rank is reported exactly as `analyze` reports it.
    `unranked`: trace files that could not be given a rank (load_ranks left them out), for a note. Ranks that
    differ get divergence findings of their own (TCD501-505)."""
    return _merged_report(logs, context, unranked, ranks_diverge=True)


def report_of_processes(logs: Mapping[int, EventLog], context: AnalysisContext) -> Report:
    """One report for the processes of one program (events/processes.py) that compiled: merged as ranks are,
    but processes differ by design, so without divergence findings."""
    return _merged_report(logs, context, (), ranks_diverge=False)


def _merged_report(
    logs: Mapping[int, EventLog], context: AnalysisContext, unranked: Sequence[str], ranks_diverge: bool
) -> Report:
    if len(logs) <= 1:
        return _one_rank(logs, context, unranked)
    logs = {rank: logs[rank] for rank in sorted(logs)}
    indexes = {rank: AnalysisIndex.build(log, _rank_context(context, log)) for rank, log in logs.items()}
    reports = {rank: report_of(index) for rank, index in indexes.items()}
    job = _Job(logs, reports, _ends_early(logs), indexes)
    findings, status, exit_code = _job_findings(job, context, ranks_diverge)
    suppressed = [_merge(items) for items in _grouped({r: report.suppressed for r, report in reports.items()})]
    measured = Measured.worst_of(r.summary for r in reports.values())
    ranked = rank_findings(findings, measured.compile_time_s)
    first = reports[job.ranks[0]]
    notes = _notes(reports, logs) + ([_unranked_note(list(unranked))] if unranked else [])
    return Report(
        tool_version=first.tool_version,
        torch_version=next((r.torch_version for r in reports.values() if r.torch_version), None),
        target=context.target,
        backend=" / ".join(dict.fromkeys(report.backend for report in reports.values())),
        target_exit_code=exit_code,
        target_status=status,
        summary=summarize(ranked, measured),
        findings=tuple(ranked),
        notes=tuple(notes),
        explain=first.explain,
        log_health=_health(logs),
        suppressed=tuple(suppressed),
        guards=first.guards,
        rank_table=tuple(_row(rank, reports[rank], job.early) for rank in job.ranks),
        rank_compile_times=tuple((r, t) for r in job.ranks if (t := reports[r].compile_time) is not None),
        environment=first.environment,
    )
