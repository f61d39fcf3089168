"""TF32 (TCD418): torch warned that TensorFloat32 tensor cores are available and unused, on a program whose graphs
do float32 matmuls on the GPU. With the trace, the finding stands at the compiled function with the most of
them (none: no finding, the warning then concerns matmuls in another dtype); from a text log alone, at the
user's line of a matmul when torch's partition log names one, and it says what the log cannot tell."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from torchcompile_doctor.analysis.compiled_frames import compiled_frame
from torchcompile_doctor.analysis.detectors.detector import Derived, Detector
from torchcompile_doctor.analysis.index import AnalysisIndex
from torchcompile_doctor.analysis.worded_findings import finding_from_rule
from torchcompile_doctor.events.model import CompileId, WarningKind
from torchcompile_doctor.model.findings import OccurrencesImpact, Tf32Evidence
from torchcompile_doctor.model.report import Finding, Location
from torchcompile_doctor.rules.binding import Binding, Params, RuleSet
from torchcompile_doctor.rules.facts import Facts


@dataclass(frozen=True, kw_only=True)
class Tf32Facts(Facts):
    counted: str | None = None  # how many float32 matmuls the graphs hold, as far as the capture tells


TF32_DISABLED = Binding("tf32_disabled", Params, Tf32Facts)

_MATMUL_OPS = ("aten.mm", "aten.addmm", "aten.bmm", "aten.baddbmm", "aten._scaled_dot_product")


def _matmul_line(index: AnalysisIndex) -> Location | None:
    """The user's line of a matmul op that torch's partition log shows (a text log without its trace)."""
    for op in index.log.non_cudagraphable_ops:
        frame = index.code.last_user_frame(op.user_stack)
        if frame is not None and (op.op or "").startswith(_MATMUL_OPS):
            function = index.code.qualified_name(frame.file, frame.function, frame.line)
            return index.location(frame.file, frame.line, function)
    return None


def tf32_disabled(index: AnalysisIndex, derived: Derived, rules: RuleSet[Params]) -> list[Finding]:
    rule = rules.only
    warned = next((w for w in index.log.torch_warnings if w.kind == WarningKind.TF32_DISABLED), None)
    if warned is None:
        return []
    graphs = index.log.output_graphs
    per_compile: dict[CompileId, int] = defaultdict(int)
    for graph in graphs:
        if graph.compile_id is not None:
            per_compile[graph.compile_id] += graph.fp32_gpu_matmuls
    matmuls = sum(per_compile.values()) if graphs else None
    if matmuls == 0:
        return []  # the graphs hold no float32 matmul on the GPU: TF32 would change nothing
    heaviest = sorted(per_compile, key=lambda c: (-per_compile[c], c))
    compiled = compiled_frame(index, heaviest[:1]) if heaviest else None
    location = compiled[0] if compiled else _matmul_line(index)
    if matmuls is None:
        counted = "The log does not show the graphs, so how many of the program's matmuls are float32 is not known"
    else:
        counted = f"The compiled graphs hold {matmuls} float32 matmul(s) on the GPU"
        counted += f", most in `{compiled[1]}`" if compiled else ""
    return [
        finding_from_rule(
            rule,
            location=location,
            facts=Tf32Facts(counted=counted),
            identity="tf32",
            count=matmuls or 1,
            impact=OccurrencesImpact(occurrences=matmuls or 1),
            evidence=Tf32Evidence(
                compile_ids=[str(c) for c in heaviest], fp32_matmuls=matmuls, torch_text=warned.message
            ),
        )
    ]


DETECTOR = Detector(TF32_DISABLED, tf32_disabled)
