"""The analysis index: what every detector looks things up in, built once from an EventLog and its
AnalysisContext and never changed after (metrics by compile id, the function a compile belongs to,
callers and call sites, dynamo_start stacks, the code map, the graph-break registry). Lookups only: what is
derived from them for the report (the guards of each compiled function, where the compile time went) `analyze`
builds once and hands to the detectors (detectors/detector.py: Derived)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

from torchcompile_doctor.analysis.code import CodeMap
from torchcompile_doctor.analysis.compiled_modules import with_modules_named
from torchcompile_doctor.analysis.function_defs import Outlines
from torchcompile_doctor.analysis.graph_break_registry import GraphBreakRegistry, load_registry
from torchcompile_doctor.analysis.source_check import CheckedSources, recorded_lines
from torchcompile_doctor.events.guard_terms import GuardTerm
from torchcompile_doctor.events.model import CompilationMetrics, CompileId, EventLog, RunOutcome, StackFrame
from torchcompile_doctor.model.report import Location, SourceLine
from torchcompile_doctor.source_files import InstallDirCheck, SourceReader, has_dist_info, read_source_file

UNKNOWN_FRAME = ("?", 0, "?")  # a compile whose function no record names


@dataclass(frozen=True)
class AnalysisContext:
    target: str
    root: str  # the directory of the user's code
    outcome: RunOutcome = field(default_factory=RunOutcome)
    read_source: SourceReader = read_source_file
    is_install_dir: InstallDirCheck = has_dist_info
    registry: GraphBreakRegistry | None = None
    offline: bool = False  # re-reading kept logs (`doctor report`): the report says which GB registry it used
    # re-reading: a file is used only where its lines still say what the trace recorded (analysis/source_check.py),
    # but for those read_source answers from the capture's source snapshot
    check_sources: bool = False
    snapshot_files: frozenset[str] = frozenset()


def _source_reader(
    log: EventLog, context: AnalysisContext, outlines: Outlines
) -> tuple[SourceReader, Mapping[str, str]]:
    """The context's reader, checked against the trace when re-reading (with what it refused, filled as it reads)."""
    if not context.check_sources:
        return context.read_source, {}
    checked = CheckedSources(context.read_source, recorded_lines(log), context.snapshot_files, outlines)
    return checked, checked.changed


def _code_map(log: EventLog, context: AnalysisContext) -> tuple[CodeMap, Mapping[str, str]]:
    """Whose code each file is, read through the context's reader (and what that reader refused)."""
    roots = log.bootstrap[-1].library_roots if log.bootstrap else ()
    outlines = Outlines()  # each file parsed once, by whichever of the two reads it first
    read_source, changed = _source_reader(log, context, outlines)
    return CodeMap(context.root, roots, read_source, context.is_install_dir, outlines), changed


@dataclass(frozen=True)
class AnalysisIndex:
    log: EventLog
    context: AnalysisContext
    code: CodeMap
    registry: GraphBreakRegistry
    metrics_by_id: Mapping[CompileId, CompilationMetrics]
    frame_metrics: Mapping[int, CompilationMetrics]  # per frame id: its first compile that names the function
    starts: Mapping[CompileId, tuple[StackFrame, ...]]  # dynamo_start stacks
    changed_sources: Mapping[str, str]  # files left unread as they changed since the capture: why (filled lazily)
    recompiled_frames: Mapping[int, tuple[str, int, str]]  # a text log without its trace names a frame only here

    @classmethod
    def build(cls, log: EventLog, context: AnalysisContext) -> AnalysisIndex:
        code, changed = _code_map(log, context)
        log = with_modules_named(log, code)  # torch's wrapper of a compiled torch.nn module: the user's module
        metrics_by_id: dict[CompileId, CompilationMetrics] = {}
        frame_metrics: dict[int, CompilationMetrics] = {}
        for metrics in log.metrics:
            if metrics.compile_id is None:
                continue
            metrics_by_id[metrics.compile_id] = metrics
            if metrics.co_name and metrics.compile_id.frame_id not in frame_metrics:
                frame_metrics[metrics.compile_id.frame_id] = metrics
        return cls(
            log=log,
            context=context,
            code=code,
            registry=context.registry or load_registry(),
            metrics_by_id=metrics_by_id,
            frame_metrics=frame_metrics,
            starts={start.compile_id: start.stack for start in log.dynamo_starts},
            changed_sources=changed,
            recompiled_frames={r.compile_id.frame_id: r.frame for r in log.recompiles if r.compile_id and r.frame},
        )

    @cached_property
    def _guards_by_id(self) -> dict[CompileId, tuple[GuardTerm, ...]]:
        return {t.compile_id: tuple(g.term for g in t.guards) for t in self.log.guard_trees if t.compile_id}

    def guard_terms(self, compile_id: CompileId) -> tuple[GuardTerm, ...]:
        """The guards of one cache entry (its `dynamo_cpp_guards_str` tree), read; () when not logged."""
        return self._guards_by_id.get(compile_id, ())

    @cached_property
    def compile_order(self) -> tuple[CompileId, ...]:
        """Every compile id, in the order torch finished them (compilation_metrics order)."""
        return tuple(m.compile_id for m in self.log.metrics if m.compile_id is not None)

    @cached_property
    def compiled_code(self) -> frozenset[tuple[str | None, str]]:
        """(file, co_name) of every compiled function: which stack frames are compiled code."""
        return frozenset((m.co_filename, m.co_name) for m in self.log.metrics if m.co_name)

    @cached_property
    def sessions(self) -> int:
        """How many Dynamo sessions the log holds: 1, plus one per `torch._dynamo.reset()` seen."""
        return 1 + max((s.compile_id.session for s in self.log.dynamo_starts), default=0)

    # -- where things are
    def location(self, file: str, line: int, function: str) -> Location:
        return self.code.location(file, line, function)

    def function_name(self, file: str, co_name: str, line: int) -> str:
        """The name the user knows a compiled function by ("?" frames keep torch's name)."""
        return self.code.user_function_name(file, co_name, line or 0) if file != "?" else co_name

    def raw_line(self, file: str, line: int) -> str | None:
        """The unstripped text of a line (fix transforms keep its indentation)."""
        lines = self.code.lines(file)
        return lines[line - 1].rstrip("\n") if lines and 1 <= line <= len(lines) else None

    def source_line(self, file: str, line: int) -> SourceLine | None:
        """A line with its file and number: where a fix's rewrite stands."""
        text = self.raw_line(file, line)
        lines = self.code.lines(file)
        return SourceLine(text, file, line, "".join(lines or ())) if text is not None else None

    # -- compiles
    def function_of(self, compile_id: CompileId | None) -> CompilationMetrics | None:
        """The metrics record that names the function a compile belongs to."""
        if compile_id is None:
            return None
        metrics = self.metrics_by_id.get(compile_id)
        if metrics is not None and metrics.co_name:
            return metrics
        return self.frame_metrics.get(compile_id.frame_id)

    def frame_key(self, compile_id: CompileId | None) -> tuple[str, int, str]:
        """(file, first line, co_name) of the compiled function, or UNKNOWN_FRAME."""
        metrics = self.function_of(compile_id)
        if metrics is None:
            return self.recompiled_frames.get(compile_id.frame_id, UNKNOWN_FRAME) if compile_id else UNKNOWN_FRAME
        # function_of only returns metrics that name their function (co_name set), whose code object
        # torch logged with it; a missing file or line reads as unknown, not None
        return (metrics.co_filename or "?", metrics.co_firstlineno or 0, metrics.co_name or "?")

    def compile_seconds(self, ids: set[CompileId]) -> float:
        return round(sum(self.metrics_by_id[i].compile_time_s for i in ids if i in self.metrics_by_id), 3)

    def recompiles_of_resume(self, function: str, line: int) -> int:
        """Recompiles of the resume function torch made for the code after a graph break at `line`."""
        name = f"torch_dynamo_resume_in_{function}_at_{line}"
        frames = {m.compile_id.frame_id for m in self.log.metrics if m.compile_id and m.co_name == name}
        return sum(1 for r in self.log.recompiles if r.compile_id and r.compile_id.frame_id in frames)

    # -- callers
    def call_site(self, stack: tuple[StackFrame, ...], file: str, line: int, in_library: bool) -> str | None:
        """The user's line that called into `file:line` (for a library line, the last user frame)."""
        if in_library:
            frame = self.code.last_user_frame(stack)
            return f"{self.code.display(frame.file)}:{frame.line}" if frame else None
        index = next(
            (i for i in range(len(stack) - 1, -1, -1) if stack[i].file == file and stack[i].line == line), None
        )
        if index is None:
            return None
        caller = next((f for f in reversed(stack[:index]) if not self.code.is_library(f.file)), None)
        return f"{self.code.display(caller.file)}:{caller.line}" if caller else None

    def callers(self, file: str, line: int, compile_ids: set[CompileId]) -> list[StackFrame]:
        """The user's lines that called a compiled frame: recorded by the bootstrap for compiled plain
        functions, else from dynamo_start stacks (which leave out a plain function's direct caller)."""
        recorded = [
            StackFrame(c.file, c.line, c.caller)
            for c in self.log.call_sites
            if c.function_file == file and c.function_line == line and not self.code.is_library(c.file)
        ]
        if recorded:
            return recorded
        callers: list[StackFrame] = []
        for compile_id in sorted(compile_ids):
            stack = self.starts.get(compile_id, ())
            frame = self.code.last_user_frame(stack[:-1])
            if frame is not None and frame not in callers:
                callers.append(frame)
        return callers

    def user_files(self) -> set[str]:
        """The user's files the run compiled: every compiled frame and every frame on a dynamo_start stack."""
        files = {frame.file for start in self.log.dynamo_starts for frame in start.stack}
        files |= {m.co_filename for m in self.log.metrics if m.co_filename}
        return {f for f in files if not self.code.is_library(f)}
