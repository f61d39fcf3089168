"""The CUDA-graph view in words, for the text formats (terminal, markdown) and the HTML page's section: how many
compiled graphs ran as CUDA graphs, each graph's way, the skips with their op and line, re-recordings and the
re-record limit. Nothing when the run did not ask for CUDA graphs."""

from __future__ import annotations

from torchcompile_doctor.model.cudagraphs import COVERAGE_WORDS, CudagraphCoverage, GraphCoverage


def _calls(calls: dict[str, int]) -> str:
    return ", ".join(f"{count} {mode}" for mode, count in calls.items())


def cudagraph_headline(data: CudagraphCoverage) -> str:
    calls = f"; calls logged: {_calls(data.calls)} (torch logs no replay)" if data.calls else ""
    sizes = f"; {data.sizes_recorded} input sizes recorded" if data.sizes_recorded > 1 else ""
    return (
        f"CUDA graphs: {data.covered} of {len(data.graphs)} compiled graph(s) ran as CUDA graphs "
        f"({data.share:.0%}){calls}{sizes}"
    )


def cudagraph_details(data: CudagraphCoverage) -> list[str]:
    """One line per graph, skip site, re-recording and the limit."""
    lines = []
    for graph in data.graphs:
        name = f" `{graph.function}`" if graph.function else ""
        calls = f" ({_calls(graph.calls)})" if graph.calls else ""
        parts = (
            f", {graph.cudagraphable} of {graph.partitions} partition(s) cudagraphable"
            if graph.partitions is not None and graph.cudagraphable != graph.partitions
            else ""
        )
        lines.append(f"graph {graph.compile_id}{name}: {COVERAGE_WORDS[GraphCoverage(graph.coverage)]}{calls}{parts}")
    for site in data.skips:
        op = f" at op `{site.op}`" if site.op else ""
        at = f" at {site.where}" if site.where else ""
        source = f": `{site.source}`" if site.source else ""
        lines.append(f"skip ({site.reason}): {site.detail}{op}{at}{source}")
    for rerecord in data.rerecordings:
        changed = f"; input `{rerecord.changed_input}`" if rerecord.changed_input else ""
        made = f" made at {rerecord.where}" if rerecord.where else ""
        lines.append(f"re-recorded {rerecord.count} time(s) ({rerecord.function}): {rerecord.cause}{changed}{made}")
    if data.limit_hits:
        limit = f" (={data.rerecord_limit})" if data.rerecord_limit is not None else ""
        lines.append(f"re-record limit{limit} reached {data.limit_hits} time(s): those calls ran without CUDA graphs")
    return lines


def cudagraph_lines(data: CudagraphCoverage | None) -> list[str]:
    if data is None:
        return []
    return [cudagraph_headline(data), *(f"  {line}" for line in cudagraph_details(data))]
