"""The detectors and the catalogue bind each other: every rule names a registered detector, every detector
has a rule, thresholds are rule params, severities come from the catalogue only, and the analysis of a
recorded trace is the same however often it runs (detectors are pure functions of the index)."""

from __future__ import annotations

import itertools
from dataclasses import asdict, replace

import pytest
import yaml
from support.captures import TRACES as TRACES_DIR
from support.captures import snapshot_context, trace_root
from support.paths import DATA

from torchcompile_doctor.analysis import analyze, ranking
from torchcompile_doctor.analysis.detectors import BINDINGS, DETECTORS, LATER_STEPS, rule_sets, rules_of
from torchcompile_doctor.analysis.detectors.detector import Derived
from torchcompile_doctor.analysis.detectors.guard_cost import GUARD_HEAVY_FRAME
from torchcompile_doctor.analysis.detectors.recompiles import RecompileFacts
from torchcompile_doctor.analysis.index import AnalysisIndex
from torchcompile_doctor.analysis.ranking import rank_findings
from torchcompile_doctor.analysis.worded_findings import finding_from_rule
from torchcompile_doctor.events.load import load_artifacts
from torchcompile_doctor.model.experiment import as_json
from torchcompile_doctor.model.findings import (
    BreakImpact,
    CompileIdsEvidence,
    EvidenceBase,
    FallbackImpact,
    LimitImpact,
    RankEvidence,
)
from torchcompile_doctor.model.json import to_json
from torchcompile_doctor.model.report import Finding, Kind, RankRow
from torchcompile_doctor.rules import (
    CATALOGUE,
    CatalogueError,
    load_catalogue,
    parse_catalogue,
    parse_ranking,
    ranking_params,
    rule,
)
from torchcompile_doctor.rules.binding import bind
from torchcompile_doctor.rules.facts import Facts, fill
from torchcompile_doctor.rules.rule_page import rule_page

RULES = load_catalogue()
TRACES = DATA / "traces"
_ENTRY = "rules:\n- {code: TCD101, name: a, kind: graph_break, severity: high, status: stable, title: t, why: w, fix: f"


DETECTOR_NAMES = {binding.detector for binding in BINDINGS}


def test_every_rule_names_a_registered_detector():
    assert {r.detector for r in RULES} <= DETECTOR_NAMES


@pytest.mark.parametrize("name", sorted(DETECTOR_NAMES))
def test_every_detector_has_a_rule(name):
    assert rule_sets()[name].rules, f"detector {name} reports no rule of the catalogue"


def test_detectors_and_later_steps_are_disjoint():
    assert not {d.name for d in DETECTORS} & {binding.detector for binding in LATER_STEPS}


def _bound(text: str) -> None:
    """The catalogue `text` bound to the detectors, as the analysis loads it."""
    bind(parse_catalogue(text), BINDINGS)


@pytest.mark.parametrize(
    "entry, message",
    [
        (_ENTRY + ", detector: no_such_detector}", "unknown detector no_such_detector"),
        (_ENTRY + "}", "missing detector"),
        (_ENTRY + ", detector: graph_break, params: [1]}", "params must map names to values"),
        (_ENTRY + ", detector: graph_break, cold_severity: low}", "unknown key\\(s\\) cold_severity"),
    ],
)
def test_loading_rejects_a_bad_detector_binding(entry, message):
    with pytest.raises(CatalogueError, match=message):
        _bound(entry)


def _with(code: str, **changes: object) -> str:
    """The catalogue's YAML with rule `code`'s entry changed."""
    document = yaml.safe_load(CATALOGUE.read_text(encoding="utf-8"))
    entry = next(e for e in document["rules"] if e["code"] == code)
    entry.update(changes)
    return yaml.safe_dump(document)


@pytest.mark.parametrize(
    "code, changes, message",
    [
        ("TCD212", {"params": {"min_value_guards": 100, "max_guards": 3}}, "unknown parameter\\(s\\) max_guards"),
        ("TCD212", {"params": {"min_value_guards": "many"}}, "parameter min_value_guards must be int"),
        ("TCD417", {"params": {"min_sizes": 4}}, "missing parameter never_replayed"),
        ("TCD212", {"title": "{function} checks {no_such_fact}"}, "\\{no_such_fact\\} is no fact of detector"),
        (
            "TCD212",
            {"detector": "guard_overhead"},
            "detector guard_heavy_frame takes 1 rule\\(s\\), the catalogue gives 0",
        ),
        (
            "TCD212",
            {"transform": "mark_dynamic"},
            "transform mark_dynamic reads facts detector guard_heavy_frame lacks",
        ),
        ("TCD102", {"experiment": {"config": {"x": ["{nothing}"]}}}, "\\{nothing\\} is no fact"),
    ],
)
def test_binding_refuses_what_no_detector_declares(code, changes, message):
    with pytest.raises(CatalogueError, match=message):
        _bound(_with(code, **changes))


def test_a_detector_reads_its_parameters_typed_with_their_defaults():
    assert rules_of(GUARD_HEAVY_FRAME).params.min_value_guards == 100


def test_one_lookup_by_code():
    assert rule("TCD104").name == "tensor-item"
    with pytest.raises(KeyError):
        rule("TCD999")


def test_thresholds_are_rule_params():
    assert rule("TCD212").params == {"min_value_guards": 100}
    assert rule("TCD214").params == {"min_share": 0.10}
    assert rule("TCD215").params == {"min_pins": 16}
    divergence = rule_sets()["rank_divergence"]
    assert {kind for r in divergence.rules for kind in divergence.params_of(r).of_kinds} == {
        "graph_break",
        "frame_skipped",
        "recompile",
        "recompile_limit",
        "compile_failure",
    }


def test_the_catalogue_says_what_the_old_severity_table_said():
    critical = {Kind.TARGET_ERROR, Kind.RANK_DIVERGENCE, Kind.COMPILE_FAILURE, Kind.RECOMPILE_LIMIT, Kind.FRAME_SKIPPED}
    for entry in RULES:
        if entry.kind in critical:
            assert entry.severity == "critical", entry.code
        if entry.kind == Kind.RECOMPILE:  # banded by cost; info: bounded and paid once (inside one call)
            assert entry.severity == ("info" if entry.params.get("inside_one_call") else "medium"), entry.code


def _costed(code: str, seconds: float, occurrences: int = 1, title: str = "") -> Finding:
    found = finding_from_rule(
        rule(code),
        location=None,
        facts=Facts(),
        impact=BreakImpact(occurrences=occurrences, compiles=occurrences, recompiles_caused=0, compile_seconds=seconds),
    )
    return replace(found, title=title or found.title)


def test_a_costed_finding_is_banded_by_its_share_of_the_compile_time():
    shares = ranking_params()
    total = 10.0
    ranked = rank_findings(
        [_costed("TCD104", total * shares["high_share"]), _costed("TCD104", total * shares["medium_share"])]
        + [_costed("TCD104", total * shares["medium_share"] * 0.9), _costed("TCD403", 0.01)],
        total,
    )
    assert [f.severity for f in ranked] == ["high", "medium", "low", "low"]
    assert [f.code for f in ranked][-1] == "TCD403"  # a fallback costing 0.01 s is not critical


def test_cost_beats_the_catalogue_tier_and_blocking_findings_stay_first():
    """SwitchTransformers: the router's `.nonzero()` (7 records, 1.75 s of 4 s) above a `<dictcomp>` fallback
    (1 record, 0.01 s) whose rule the catalogue calls critical; the recompile limit still leads."""
    limit = finding_from_rule(rule("TCD402"), location=None, facts=Facts(), impact=LimitImpact(limit=8))
    guards = finding_from_rule(rule("TCD212"), location=None, facts=Facts())
    nonzero, dictcomp = _costed("TCD108", 1.75, occurrences=7), _costed("TCD403", 0.01)
    ranked = rank_findings([dictcomp, guards, nonzero, limit], 4.0)
    assert rule("TCD212").severity == "low"  # a measured cost goes first within its band
    assert [(f.code, f.severity) for f in ranked] == [
        ("TCD402", "critical"),
        ("TCD108", "high"),
        ("TCD403", "low"),
        ("TCD212", "low"),
    ]
    assert [f.rank for f in ranked] == [1, 2, 3, 4]


def test_info_rules_stay_info_and_ties_keep_one_order(monkeypatch):
    by_design = replace(rule("TCD104"), severity="info")  # e.g. a break a library makes on purpose
    monkeypatch.setattr(ranking, "rule", lambda code: by_design if code == "TCD104" else rule(code))
    on_purpose = finding_from_rule(
        by_design,
        location=None,
        facts=Facts(),
        impact=BreakImpact(occurrences=3, compiles=3, recompiles_caused=0, compile_seconds=9.0),
    )
    assert rank_findings([on_purpose], 10.0)[0].severity == "info"
    monkeypatch.undo()
    same_cost = [_costed("TCD104", 1.0, title=f"break {i}") for i in range(5)]
    orders = {tuple(f.title for f in rank_findings(list(p), 4.0)) for p in itertools.permutations(same_cost)}
    assert len(orders) == 1


def test_carried_value_texts_are_catalogue_entries_worded_as_before():
    facts = RecompileFacts(cause="train.py:12", carried="shape")
    scalar, tensor = rule("TCD216"), rule("TCD217")
    assert fill(scalar.why, facts) == (
        "A Python number computed before the graph break at train.py:12 (an `.item()`/`.tolist()` value) is "
        "passed into the resumed code as a constant, so each new value compiles it again."
    )
    assert fill(scalar.fix, facts) == (
        "fix the graph break at train.py:12: keep the value a tensor (no `.item()` inside the compiled code), "
        "or set `torch._dynamo.config.capture_scalar_outputs = True` and measure it (--try-fixes: on some programs "
        "it makes Dynamo fail with `PendingUnbackedSymbolNotFound`, or the break moves to the next line that uses "
        "the value); this recompile then disappears."
    )
    assert scalar.experiment and as_json(scalar.experiment) == {"config": {"capture_scalar_outputs": True}}
    assert tensor.experiment is None
    assert fill(tensor.why, facts) == (
        "A tensor produced before the graph break at train.py:12 enters the resumed code with a different "
        "shape each time (e.g. a data-dependent size), so the resumed code compiles again."
    )
    assert fill(tensor.fix, facts) == (
        "fix the graph break at train.py:12; without it the tensor stays inside one graph "
        "and this recompile disappears."
    )


def test_rule_page_shows_the_detector_and_its_params():
    text = rule_page("TCD212", RULES, with_detector=True)
    assert "Detector: guard_heavy_frame (min_value_guards: 100)" in text
    assert "Detector: graph_break · severity by measured cost: high at 25% of the run's compile time or more, " in (
        rule_page("TCD104", RULES, with_detector=True)
    )
    assert "Detector:" not in rule_page("TCD212", RULES)  # SARIF's rule help stays as it was


@pytest.mark.parametrize("trace", ["item_recompile.log", "frame_skipped_loop.log", "dtype_shape_recompile.log"])
def test_detectors_are_pure_functions_of_the_index(trace):
    log = load_artifacts(TRACES / trace)
    context = snapshot_context(TRACES_DIR, "t.py", trace_root(TRACES_DIR / "item_recompile.log"))
    index = AnalysisIndex.build(log, context)
    sets, derived = rule_sets(), Derived()
    for detector in DETECTORS:
        first = detector.run(index, derived, sets)
        assert detector.run(index, derived, sets) == first, detector.name
        codes = {r.code for r in RULES if r.kind in {x.kind for x in sets[detector.name].rules}}
        assert {f.code for f in first} <= codes, detector.name
    assert to_json(analyze(log, context)) == to_json(analyze(log, context))


def test_rank_row_serialises_its_fields_in_order():
    row = RankRow(
        rank=1,
        graphs=2,
        graph_breaks=1,
        recompiles=0,
        compile_failures=0,
        compile_time_s=0.5,
        ddp_splits=0,
        target_status="ok",
        log="complete",
    )
    assert list(to_json(row)) == [  # type: ignore[arg-type]
        "rank",
        "graphs",
        "graph_breaks",
        "recompiles",
        "compile_failures",
        "compile_time_s",
        "ddp_splits",
        "target_status",
        "log",
    ]
    assert row.rank == 1 and to_json(row)["rank"] == 1  # type: ignore[index,call-overload]


@pytest.mark.parametrize("trace", ["item_recompile.log", "recompile_limit.log", "fullgraph_failure.log"])
def test_impact_and_evidence_are_typed_and_serialise_as_their_json(trace):
    log = load_artifacts(TRACES / trace)
    report = analyze(log, snapshot_context(TRACES_DIR, "t.py", trace_root(TRACES_DIR / "item_recompile.log")))
    assert report.findings
    for finding in report.findings:
        assert isinstance(finding.evidence, EvidenceBase), finding.code
        data = to_json(finding)
        assert isinstance(data, dict)
        assert data["evidence"] == to_json(finding.evidence)
        assert data["impact"] == to_json(finding.impact)


def test_merged_evidence_keeps_its_keys_and_puts_per_rank_last():
    evidence = CompileIdsEvidence(compile_ids=["0/0"])
    assert to_json(evidence) == {"compile_ids": ["0/0"]}
    merged = replace(evidence, per_rank={"1": RankEvidence(count=1, compile_ids=["0/0"])})
    assert list(to_json(merged)) == ["compile_ids", "per_rank"] and merged.per_rank["1"].count == 1  # type: ignore
    assert to_json(BreakImpact(occurrences=2, compiles=1, recompiles_caused=0, compile_seconds=0.1)) == {
        "occurrences": 2,
        "compiles": 1,
        "recompiles_caused": 0,
        "compile_seconds": 0.1,
    }


def test_a_recompile_of_a_carried_number_is_worded_by_the_carried_scalar_rule():
    log = load_artifacts(TRACES / "item_recompile.log")
    report = analyze(log, snapshot_context(TRACES_DIR, "t.py", trace_root(TRACES_DIR / "item_recompile.log")))
    carried = [f for f in report.findings if f.changes and "value carried across the break" in f.changes[0]]
    # the carried-scalar rule's own finding, whatever the reason class says about the guard
    assert sorted((f.code, f.reason_class) for f in carried) == [
        ("TCD216", "float_specialization"),
        ("TCD216", "int_specialization"),
    ]
    for finding in carried:
        assert finding.title == fill(rule("TCD216").title, RecompileFacts(function=finding.location.function))
        cause = finding.why.split("graph break at ")[1].split(" (")[0]
        assert finding.why == fill(rule("TCD216").why, RecompileFacts(cause=cause))
        assert finding.fix is not None and finding.fix.summary == fill(rule("TCD216").fix, RecompileFacts(cause=cause))
        assert as_json(finding.fix.experiment) == {"config": {"capture_scalar_outputs": True}}
        assert finding.fix.before is None


_RANKING = "ranking: {high_share: 0.25, medium_share: 0.05, high_eager_lines: 50, medium_eager_lines: 15}\n"


@pytest.mark.parametrize(
    "ranking, message",
    [
        ("", "must set exactly high_share, medium_share, high_eager_lines, medium_eager_lines"),
        ("ranking: {high_share: 0.25, medium_share: 0.05}\n", "must set exactly"),
        (_RANKING.replace("medium_share: 0.05", "medium_share: 2"), "shares must be between 0 and 1"),
        (_RANKING.replace("high_eager_lines: 50", "high_eager_lines: -1"), "must be numbers >= 0"),
        (_RANKING.replace("high_share: 0.25", "high_share: 0.01"), "a medium threshold must not exceed the high one"),
        (_RANKING.replace("high_eager_lines: 50", "high_eager_lines: 5"), "a medium threshold must not exceed"),
    ],
)
def test_loading_rejects_bad_ranking_thresholds(ranking, message):
    with pytest.raises(CatalogueError, match=message):
        parse_ranking(ranking + "rules: []\n")
    assert parse_ranking(_RANKING + "rules: []\n")["high_eager_lines"] == 50


def test_a_fallback_is_banded_by_what_runs_eagerly_too():
    """MBart: the break costs 0.15 s of 2.6 s compiling, but torch skipped `MBartModel.forward`, the model body."""
    limits = ranking_params()
    skip = _costed("TCD403", 0.15)
    break_impact = skip.impact
    assert isinstance(break_impact, BreakImpact)

    def skipping(eager_lines: int) -> FallbackImpact:
        return FallbackImpact(**asdict(break_impact), frames_skipped=1, eager_lines=eager_lines)

    whole_body = replace(skip, impact=skipping(int(limits["high_eager_lines"])))
    a_comprehension = replace(skip, impact=skipping(3))
    ranked = rank_findings([a_comprehension, whole_body], 40.0)
    assert [(f.impact.eager_lines, f.severity) for f in ranked] == [(limits["high_eager_lines"], "high"), (3, "low")]
