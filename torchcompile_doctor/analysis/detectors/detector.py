"""What a detector is: its binding to the catalogue (rules/binding.py: how many rules, its parameters, its
facts) and a pure function from what the analysis knows to findings. A detector reads the index (lookups), the
facts `analyze` derives once from it (`Derived`: the guards of each compiled function, where the compile time
went) and the rules it is handed; never raw log text (events/ parsed it)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar, cast

from torchcompile_doctor.analysis.index import AnalysisIndex
from torchcompile_doctor.analysis.training import TrainingRun
from torchcompile_doctor.model.compile_time import CompileTime
from torchcompile_doctor.model.cudagraphs import CudagraphCoverage
from torchcompile_doctor.model.report import CompiledFunctionGuards, Finding
from torchcompile_doctor.rules.binding import Binding, Params, RuleSet

P = TypeVar("P", bound=Params)


@dataclass(frozen=True)
class Derived:
    """What `analyze` builds once from the index, for the detectors and for the report."""

    guard_frames: tuple[CompiledFunctionGuards, ...] = ()  # what each compiled function is guarded on
    compile_time: CompileTime | None = None  # where the compile time went (None: nothing compiled)
    training: TrainingRun | None = None  # what says the run trains (None: nothing does): no `no_grad` advice then
    cudagraphs: CudagraphCoverage | None = None  # the graphs under CUDA graphs (None: CUDA graphs not asked for)


Detect = Callable[[AnalysisIndex, Derived, RuleSet[P]], list[Finding]]


@dataclass(frozen=True)
class Detector(Generic[P]):
    binding: Binding[P]
    detect: Detect[P]

    @property
    def name(self) -> str:
        return self.binding.detector

    def run(self, index: AnalysisIndex, derived: Derived, rule_sets: Mapping[str, RuleSet[Params]]) -> list[Finding]:
        return self.detect(index, derived, cast(RuleSet[P], rule_sets[self.name]))
