"""The HTML page's CUDA-graph section: the headline, one table row per compiled graph CUDA graphs were asked for
(how it ran, its calls, its partitions), and the skips, re-recordings and re-record limit in words."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from torchcompile_doctor.model.cudagraphs import COVERAGE_WORDS, CudagraphCoverage, GraphCoverage
from torchcompile_doctor.renderers._cudagraph_text import cudagraph_details, cudagraph_headline


@dataclass(frozen=True)
class CudagraphRow:
    compile_id: str
    function: str
    how: str  # how it ran, in words
    covered: bool
    calls: str
    partitions: str


@dataclass(frozen=True)
class CudagraphSection:
    headline: str
    rows: tuple[CudagraphRow, ...]
    details: tuple[str, ...]  # skips, re-recordings, the limit


def cudagraph_section(data: CudagraphCoverage | None, shown: Callable[[str], str]) -> CudagraphSection | None:
    """The section, or None when the run did not ask for CUDA graphs; `shown` makes a text shareable (paths)."""
    if data is None:
        return None
    rows = tuple(
        CudagraphRow(
            compile_id=g.compile_id,
            function=g.function,
            how=COVERAGE_WORDS[GraphCoverage(g.coverage)],
            covered=g.covered,
            calls=", ".join(f"{count} {mode}" for mode, count in g.calls.items()),
            partitions=f"{g.cudagraphable} of {g.partitions}" if g.partitions is not None else "",
        )
        for g in data.graphs
    )
    details = tuple(shown(line) for line in cudagraph_details(data) if not line.startswith("graph "))
    return CudagraphSection(shown(cudagraph_headline(data)), rows, details)
