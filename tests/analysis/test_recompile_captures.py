"""Recompile findings on real captures (tests/data/captures, README there says how each was made): the root
cause from every cache entry, recompiles inside one call, grad mode, the KV cache, `torch._dynamo.reset()`
sessions. Offline: each capture is re-read, nothing runs."""

from __future__ import annotations

from dataclasses import replace

import pytest
from support.captures import RECOMPILE_CAPTURES, reread

from torchcompile_doctor.analysis import AnalysisContext
from torchcompile_doctor.analysis.detectors import rules_of
from torchcompile_doctor.analysis.detectors.detector import Derived
from torchcompile_doctor.analysis.detectors.recompiles import RECOMPILE, recompiles
from torchcompile_doctor.analysis.index import AnalysisIndex
from torchcompile_doctor.events.load import load_artifacts
from torchcompile_doctor.model.experiment import as_json
from torchcompile_doctor.model.report import Finding
from torchcompile_doctor.rules import rule

CAPTURES = RECOMPILE_CAPTURES


@pytest.fixture(scope="module")
def report():
    cache: dict[str, object] = {}

    def get(name: str):
        if name not in cache:
            cache[name] = reread(CAPTURES / name)
        return cache[name]

    return get


def _recompiles(report) -> list[Finding]:
    return [f for f in report.findings if f.kind == "recompile"]


def _only(findings: list[Finding], function: str) -> Finding:
    (finding,) = [f for f in findings if f.location and f.location.function == function]
    return finding


def test_counter_is_the_root_cause_not_the_newest_failure(report):
    # torch's newest failure is requires_grad; every entry's failures show `self.calls` growing without bound
    finding = _only(_recompiles(report("pkg_module")), "Block.forward")
    assert finding.code == "TCD204" and finding.reason_class == "module_attribute"
    assert finding.changes[:2] == ("self.calls: 0 → 1 → 2 → 3", "x.requires_grad: False → True")
    assert "`self.calls` grows on every call" in finding.why and "without bound" in finding.why
    assert "`x.requires_grad` only multiplies them" in finding.why
    assert finding.fix.summary.startswith("set `torch._dynamo.config.allow_unspec_int_on_nn_module = True`")
    assert ".detach()" not in finding.fix.summary


def test_limit_finding_names_the_unbounded_cause(report):
    (limit,) = [f for f in report("pkg_module").findings if f.code == "TCD402"]
    assert limit.reason_class == "module_attribute"
    assert "`self.calls` takes a new value on every call" in limit.why
    assert "requires_grad" not in limit.why
    # the CRITICAL finding leads with the root cause's fix (checked on this case), never `.detach()`
    assert "set `torch._dynamo.config.allow_unspec_int_on_nn_module = True`" in limit.fix.summary
    assert ".detach()" not in limit.fix.summary


def test_carried_value_says_what_happened_to_it(report):
    finding = _only(_recompiles(report("pkg_module")), "Block.forward (after line 14)")
    assert finding.code == "TCD216"
    assert finding.changes == ("value carried across the break: 1.0589566230773926 → any value (dynamic from then on)",)


def test_reset_sessions_are_analysed_apart(report):
    reset = report("dynamo_reset_bench")
    assert reset.summary.graphs == 15  # 5 per session; ids restart at 0/0 after each reset
    shapes = [f for f in _recompiles(reset) if f.code == "TCD301"]
    assert sorted(f.title for f in shapes) == [
        f"`Net.forward` recompiles when an input changes shape (session {n} of 3)" for n in (1, 2, 3)
    ]
    assert {f.changes for f in shapes} == {("x.shape[0]: 8 → 16",)}  # no invented 8 → 16 → 8 → 16 thrash
    assert all(f.reason_class == "shape_or_rank" for f in shapes)
    evidence = sorted(c for f in shapes for c in f.evidence.compile_ids)
    assert evidence == ["0/1", "0/1 (session 2)", "0/1 (session 3)"]


def test_grad_mode_says_which_way_and_who_switched_it(report):
    (finding,) = _recompiles(report("grad_mode_eval"))
    assert finding.code == "TCD206"
    assert finding.changes == ("grad mode: enabled → disabled",)
    assert "when called from `estimate_loss` (grad_mode_eval.py:12)" in finding.why
    assert "`model.eval()`" in finding.why and "`.training` guards" in finding.why


@pytest.mark.parametrize(
    ("capture", "function", "inside"),
    [
        ("DbrxModel_eval", "DbrxBlock.forward", "different layers or module instances called from the same line"),
        ("DbrxModel_eval", "DbrxExpertGLU.forward", "different layers or module instances called from the same line"),
        ("BartModel_train", "BartLearnedPositionalEmbedding.forward", "different call sites ("),
        ("BartModel_train", "GradientCheckpointingLayer.__call__", "different call sites ("),
    ],
)
def test_recompiles_inside_one_call(report, capture, function, inside):
    finding = _only(_recompiles(report(capture)), function)
    assert finding.code == "TCD218"
    assert f"within one call of the model, for {inside}" in finding.why
    assert finding.fix.summary.startswith("usually nothing to do")
    assert "pass it as a tensor" not in finding.fix.summary and ".contiguous()" not in finding.fix.summary


def test_bart_type_change_is_parsed_not_quoted_as_a_fragment(report):
    finding = _only(_recompiles(report("BartModel_train")), "BartLearnedPositionalEmbedding.forward")
    assert finding.changes == ("type of input_ids: Tensor → builtin_function_or_method",)


def test_static_cache_generate_names_prompt_and_cache_lengths(report):
    (finding,) = _recompiles(report("hf_forward"))
    assert finding.reason_class == "shape_or_rank"
    assert finding.changes[0].startswith("input_ids.shape[1]: 7 → 1 → 11 (")
    assert "past_key_values.layers[0].keys.shape[2]: 18 → 22" in finding.changes
    assert "was allocated again with a new length (18 → 22)" in finding.why
    assert "Allocate the KV cache once at a fixed maximum length" in finding.fix.summary


def test_shape_recompile_reached_through_generate_gets_no_rewrite_of_the_users_line(report):
    """`generate()` builds the tensors it passes to the compiled forward: `mark_dynamic` on the user's
    `input_ids` does not reach them (3 recompiles with it, as without), so it is neither advised nor shown
    as a rewrite of the user's `model.generate(...)` line, nor tried by --try-fixes."""
    (finding,) = _recompiles(report("hf_forward"))
    assert finding.user_frame is not None and finding.user_frame.line == 34
    assert finding.fix.before is None and finding.fix.after is None
    assert "mark_dynamic" not in (as_json(finding.fix.experiment) if finding.fix.experiment else {})
    assert finding.fix.summary.startswith("no `torch._dynamo.mark_dynamic` on your own tensors: it does not reach")
    assert "left-padded to a few lengths" in finding.fix.summary and "`pad_to_multiple_of=`" in finding.fix.summary
    assert "or compile with `dynamic=True`" in finding.fix.summary
    assert as_json(finding.fix.experiment) == {"compile": {"dynamic": True}}  # what --try-fixes measures instead
    assert "pass one `max_length=`" in finding.fix.summary  # the static cache's own fix stays
    assert "Your line calls `generate` (transformers/generation/utils.py:2543)" in finding.why


def test_prefill_to_decode_is_told_apart_from_a_new_prompt_length(report):
    """Entries compiled for calls from different lines of `generate` (prefill, then one token per step) are
    expected; the prompt length that changes between calls from the same line is not."""
    (finding,) = _recompiles(report("hf_forward"))
    assert finding.changes[0] == (
        "input_ids.shape[1]: 7 → 1 → 11 (7 → 1, 1 → 11: calls from different lines of the package, expected;"
        " 7 → 11: calls from the same line) (2 of the 3 recompiles)"
    )
    assert "(only between calls from different lines of the package: expected)" in finding.changes[1]
    assert finding.changes[2] == "past_key_values.layers[0].keys.shape[2]: 18 → 22"  # the cache: a real cause
    assert (
        "(transformers/generation/utils.py:3768, transformers/generation/utils.py:2750; in `generate()`: the prompt,"
        " then one token per step)" in finding.why
    )


def test_a_guard_line_in_library_code_is_not_rewritten():
    """The same capture read as if `mypkg` were an installed package: the counter's fix is still named, but
    with no before/after rewrite of a line the user cannot edit."""
    log = load_artifacts(CAPTURES / "pkg_module")
    # the package's folder as the capture recorded it (the recording machine's, read from the log, never from disk)
    layers = next(m.co_filename for m in log.metrics if (m.co_filename or "").endswith("/mypkg/layers.py"))
    package = layers.removesuffix("/layers.py")
    bootstrap = replace(log.bootstrap[-1], library_roots=(*log.bootstrap[-1].library_roots, package))
    log.bootstrap[-1] = bootstrap
    index = AnalysisIndex.build(log, AnalysisContext(target="train.py", root="/nonexistent"))
    (counter,) = [f for f in recompiles(index, Derived(), rules_of(RECOMPILE)) if f.code == "TCD204"]
    assert "allow_unspec_int_on_nn_module" in counter.fix.summary
    assert counter.fix.before is None and counter.fix.after is None


def test_resume_function_change_that_repeats_the_parent_cause_says_so(report):
    carried = [f for f in _recompiles(report("dynamo_reset_bench")) if f.code == "TCD216"]
    assert len(carried) == 3  # one per session: the .item() value is the root cause of the resumed code
    for finding in carried:
        assert finding.changes[1] == ("h.shape[0]: 8 → 16 (as `x.shape[0]` before the break) (1 of the 2 recompiles)")


def test_each_session_has_its_own_fingerprint(report):
    shapes = [f for f in _recompiles(report("dynamo_reset_bench")) if f.code == "TCD301"]
    assert len({f.fingerprint for f in shapes}) == 3


def test_shape_rule_speaks_of_a_package_call_only_when_one_is_known():
    """TCD301 worded for a compiled function reached through a package's call: no rewrite of the user's line,
    on the user's own code too; without such a call the rule keeps its rewrites (mark_dynamic, mark_growing_cache)."""
    shape = rule("TCD301")
    for origin in ("user", "third_party"):
        worded = shape.worded_for(origin, {"library_call": "`generate` (transformers/generation/utils.py:2543)"})
        assert worded.transforms == ()
        assert worded.fix.startswith("no `torch._dynamo.mark_dynamic` on your own tensors")
        assert "not your own tensor" in worded.why  # no calls from different lines known: the plain wording
    assert shape.worded_for("user", {}).transforms == ("mark_dynamic", "mark_growing_cache")
