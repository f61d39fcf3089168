"""The report's guards section made once per distinct guard set (issue 36): a long job logs the same guard sets on many
compiles, and each cache entry's summary (its guards by kind and by line, its pins) was worked out, and kept, once
per compile. Counted as objects, not timed, on a log that repeats recorded traces with new frame ids."""

from __future__ import annotations

from support.repeated_traces import TRACES, repeated_log

from torchcompile_doctor.analysis import AnalysisContext, analyze
from torchcompile_doctor.model.report import GuardEntry


def _entries(copies: int) -> list[GuardEntry]:
    context = AnalysisContext(target="trace.log", root=str(TRACES / "scripts"), offline=True)
    report = analyze(repeated_log(copies), context)
    return [entry for frame in report.guards for entry in frame.entries]


def test_entries_that_repeat_a_guard_set_share_its_summary() -> None:
    one, three = _entries(1), _entries(3)
    assert len(three) == 3 * len(one) > 0
    kinds = [entry.by_kind for entry in three]
    # one dict per distinct guard set, at most as many as one copy has entries
    assert len({id(by_kind) for by_kind in kinds}) <= len(one) < len(kinds)
    assert len({id(entry.by_source_line) for entry in three}) <= len(one)
    # what each entry says of its guard set is what one copy says, copy after copy (each keeps its own compile)
    said = [repr((e.tree_guards, e.by_kind, e.by_source_line, e.pins)) for e in one]
    assert sorted(said * 3) == sorted(repr((e.tree_guards, e.by_kind, e.by_source_line, e.pins)) for e in three)
    assert len({entry.compile_id for entry in three}) == len(three)
