"""gate/verdict.py: which findings fail the gate's criteria, decided in-process on reports re-read from recorded
captures (the same verdict through `doctor check` is tests/cli/test_check.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from support.captures import CAPTURES, reread

from torchcompile_doctor.gate.baseline import known_findings, read_baseline, updated_document, write_baseline
from torchcompile_doctor.gate.verdict import apply_gate, select_findings
from torchcompile_doctor.model.gate import GateCriteria
from torchcompile_doctor.model.report import Kind

HELPER = CAPTURES / "helper_two_callsites"
LIMIT = CAPTURES / "int_arg_recompile_limit"


@pytest.fixture(scope="module")
def breaking():
    report = reread(HELPER)
    assert any(Kind(f.kind).is_break for f in report.findings)
    return report


@pytest.fixture(scope="module")
def recompiling():
    report = reread(LIMIT)
    assert any(f.kind == Kind.RECOMPILE for f in report.findings)
    return report


def test_fullgraph_fails_each_break_and_says_what_torch_would_raise(breaking):
    gated = apply_gate(breaking, GateCriteria(fullgraph=True))
    assert gated.gate is not None and not gated.gate.passed
    breaks = {f.fingerprint for f in breaking.findings if Kind(f.kind).is_break}
    assert breaks <= {failure.fingerprint for failure in gated.gate.failures}
    assert any(note.startswith("torch.compile(fullgraph=True) would raise") for note in gated.notes)
    failing = len(gated.gate.failures)
    assert {f.fingerprint for f in gated.findings[:failing]} == {x.fingerprint for x in gated.gate.failures}
    assert [f.rank for f in gated.findings] == list(range(1, len(gated.findings) + 1))


def test_a_break_limit_counts_breaks_only(breaking):
    breaks = sum(1 for f in breaking.findings if Kind(f.kind).is_break)
    assert apply_gate(breaking, GateCriteria(max_graph_breaks=breaks)).gate.violations == ()
    over = apply_gate(breaking, GateCriteria(max_graph_breaks=breaks - 1))
    assert over.gate.violations == (f"{breaks} graph breaks > --max-graph-breaks {breaks - 1}",)


def test_a_recompile_limit_sums_the_recompiles_of_its_findings(recompiling):
    passed = apply_gate(recompiling, GateCriteria(max_recompiles=10_000))
    assert passed.gate.violations == ()
    failed = apply_gate(recompiling, GateCriteria(max_recompiles=0))
    assert failed.gate.violations and failed.gate.violations[0].endswith("> --max-recompiles 0")


def test_the_baseline_holds_back_what_it_knows(breaking, tmp_path):
    document, _ = updated_document(None, [breaking], tmp_path)
    path = tmp_path / "baseline.json"
    write_baseline(path, document)
    known, summary = known_findings(read_baseline(path), breaking)
    gated = apply_gate(breaking, GateCriteria(fullgraph=True), known, summary)
    assert gated.gate.passed and gated.gate.baseline is not None
    assert (gated.gate.baseline.known, gated.gate.baseline.new) == (len(breaking.findings), 0)
    worse = replace(breaking, findings=tuple(replace(f, count=f.count + 1) for f in breaking.findings))
    noted = apply_gate(worse, GateCriteria(), known, summary)
    assert len(noted.gate.baseline.worse) == len(breaking.findings)
    assert any(note.startswith("worse than the baseline:") for note in noted.notes)


def test_select_and_ignore_choose_findings_by_code_prefix(breaking):
    codes = {f.code for f in breaking.findings}
    first = sorted(codes)[0]
    only = select_findings(breaking, (first,), ())
    assert {f.code for f in only.findings} == {first}
    rest = select_findings(breaking, (), (first,))
    assert first not in {f.code for f in rest.findings}
    assert len(only.findings) + len(rest.findings) == len(breaking.findings)
    assert any("left out by select/ignore" in note for note in rest.notes)
