"""The judgement of recompiles (#25): inside one call or not, decided from the guard failures and the calls the
capture counted; each recompile's own cause; the recompile limit; resume functions apart; the fix naming what
the user holds at the call line. Each capture is a small program written for one of these (beside it, with
torch's own `TORCH_LOGS` stderr of a plain run), re-read offline."""

from __future__ import annotations

import pytest
from support.captures import JUDGEMENT_CAPTURES, reread

from torchcompile_doctor.analysis.recompile_causes import causes
from torchcompile_doctor.events.guard_failures import parse_guard_failure
from torchcompile_doctor.model.report import Finding


def _recompile(name: str, function: str) -> Finding:
    found = [
        f
        for f in reread(JUDGEMENT_CAPTURES / name).findings
        if f.kind == "recompile" and f.location and f.location.function == function
    ]
    assert len(found) == 1, [f.title for f in found]
    return found[0]


def _torch_recompiles(name: str) -> int:
    return (JUDGEMENT_CAPTURES / f"{name}.torch_logs.txt").read_text().count("Recompiling function")


def test_a_layer_stack_called_once_is_bounded_inside_the_call_not_told_to_pass_one_type():
    """Layer 0 gets `position_bias=None`, the others the tensor it made: one call, two entries. The old judgement
    needed a first compile after the last recompile, and advised making the calls uniform."""
    finding = _recompile("layer_stack_once", "Layer.forward")
    assert _torch_recompiles("layer_stack_once") == 1
    assert finding.code == "TCD218"
    assert "make the calls uniform" not in finding.fix.summary
    assert "The program calls the compiled `Stack` once, so no second call shows it" in finding.why
    assert "an argument that is None for the first layer and a tensor for the others" in finding.fix.summary


def test_a_second_call_that_compiles_nothing_checks_it():
    finding = _recompile("layer_stack_calls", "Layer.forward")
    assert _torch_recompiles("layer_stack_calls") == 1  # three calls, the one recompile inside the first
    assert finding.code == "TCD218"
    assert "Checked: calls 2 to 3 of the compiled `Stack` compiled nothing, they reused these entries" in finding.why


def test_a_value_new_on_every_call_is_unbounded_even_inside_one_call():
    """A tensor's mean formatted into a note: four layer calls of one model call, four entries; a second call
    would make four more, up to the recompile limit."""
    finding = _recompile("message_per_layer", "Layer.forward")
    assert _torch_recompiles("message_per_layer") == 3
    assert finding.code != "TCD218"
    assert "`note` holds a value made anew on every call" in finding.why
    assert "every later call compiles again" in finding.why and "recompile limit" in finding.why
    assert finding.fix.summary.startswith("keep the per-call value out of what the compiled code guards")


def test_each_recompile_has_its_own_cause_and_the_limit_is_flagged():
    """Seven recompiles: a node count (once), the `reduce` string (three), grad mode (three). Counted over every
    entry's failure, grad mode alone (15 failures) would have been the cause of all seven."""
    finding = _recompile("several_causes", "aggregate")
    assert _torch_recompiles("several_causes") == 7
    assert finding.reason_class != "grad_mode"
    assert finding.changes == (
        "reduce: 'sum' → 'mean' → 'max' → 'min' (3 of the 7 recompiles)",
        "grad mode: enabled → disabled (3 of the 7 recompiles)",
        "x.shape[0]: 4 → 6 (1 of the 7 recompiles)",
    )
    assert "Its 7 recompiles have 3 causes, each read from its own guard failure" in finding.why
    assert finding.title.endswith("(at the recompile limit: 8 entries)")
    assert "as many as torch's recompile limit allows (8 by default)" in finding.why


@pytest.mark.parametrize(
    ("function", "after"),
    [
        (
            "score",
            "values_tensor = torch.stack(values)\n"
            "torch._dynamo.mark_dynamic(values_tensor, 0)\n"
            "print(score(values_tensor, w).item())",
        ),
        ("attend", "torch._dynamo.mark_dynamic(k, 0)\nprint(attend(q, k).shape)"),
    ],
)
def test_the_fix_names_what_the_call_line_passes(function, after):
    """`score` gets `torch.stack(values)` for `values` (the user's `values` is a list: `mark_dynamic` on it
    raises AttributeError), `attend` gets `k` for `key`. Both fixes applied: 0 recompiles (checked)."""
    finding = _recompile("call_line_names", function)
    assert finding.code == "TCD301"
    assert finding.fix.after == after
    assert "mark_dynamic(values," not in finding.fix.summary and "mark_dynamic(key," not in finding.fix.summary


def test_a_resume_function_is_kept_apart_from_its_parent():
    """`normalise` and the code after its `print` recompile on the same batch size: two compiled functions, two
    findings. Marking `x` dynamic does not reach the resume function's `y` (checked: it still recompiled once),
    so its own finding names the break, not the parent's fix."""
    parent = _recompile("resume_apart", "normalise")
    resumed = _recompile("resume_apart", "normalise (after line 9)")
    assert _torch_recompiles("resume_apart") == 2
    assert parent.count == 1 and resumed.count == 1
    assert parent.code == "TCD301" and resumed.code == "TCD217"
    assert resumed.changes == ("y.shape[0]: 4 → 6 (as `x.shape[0]` before the break)",)
    assert resumed.fix.summary.startswith("fix the graph break at resume_apart.py:9")


def test_inputs_of_one_length_are_marked_together():
    """An actor-critic update: log-probs, values and returns share the episode's length. `mark_dynamic` on the
    stacked values alone raises ConstraintViolationError (checked, as on the realworld RL program); all three
    marked: 0 recompiles (checked). torch's new entry ties the three lengths; the fix marks all three."""
    finding = _recompile("tied_lengths", "a2c_loss")
    assert _torch_recompiles("tied_lengths") == 1
    assert finding.fix.after == (
        "values_tensor = torch.stack(values)\n"
        "log_probs_tensor = torch.stack(log_probs)\n"
        "returns_tensor = returns_of(rewards)\n"
        "torch._dynamo.mark_dynamic(values_tensor, 0)\n"
        "torch._dynamo.mark_dynamic(log_probs_tensor, 0)\n"
        "torch._dynamo.mark_dynamic(returns_tensor, 0)\n"
        "print(a2c_loss(log_probs_tensor, values_tensor, returns_tensor).item())"
    )
    assert "Mark `log_probs_tensor` and `returns_tensor` too" in finding.fix.summary
    assert "mark_dynamic" not in str(finding.fix.experiment)  # one input marked alone would raise


def test_a_dynamic_size_bounded_to_a_range_is_marked_unbacked_with_what_is_tied_to_it():
    """The program already marks the batch dimension dynamic; a single-request batch falls outside the range
    torch bounded it to (`2 <= tokens.size()[0]`). Advising `mark_dynamic` again would do nothing; torch's own
    hint, unbacked, on `tokens` and the `lengths` tied to it: 0 recompiles (checked)."""
    finding = _recompile("ranged_batch", "Scorer.forward")
    assert _torch_recompiles("ranged_batch") == 1
    assert finding.fix.after == (
        "torch._dynamo.decorators.mark_unbacked(tokens, 0)\n"
        "torch._dynamo.decorators.mark_unbacked(lengths, 0)\n"
        "scores = model(tokens, lengths)"
    )
    assert "is already dynamic, but torch bounded it to a range" in finding.fix.summary
    assert "Mark `lengths` too" in finding.fix.summary


_PAD = " " * 20  # torch pads the guard to a column before its comment
_FRESHNESS = [  # torch 2.13's words for each: a string with an id, one with a tensor's mean, then the dev set's
    ("0/0: key == '140080506078624'" + _PAD + "# return x * 2  # mp/judge/idkey.py:5 in lookup", True),
    ("0/0: note == 'input mean -0.32707861065864563'" + _PAD + "# if 'nan' in note:  # m.py:14 in forward", True),
    ("3/0: reduce == 'mean'" + _PAD + "# if reduce == 'any':  # torch_geometric/utils/_scatter.py:63 in f", False),
    ("0/1: self.calls == 1" + _PAD + "# self.calls += 1  # mypkg/layers.py:12 in forward", False),
    ("3/2: ___stack0 == 31" + _PAD + "# dim_size = int(index.max()) + 1  # utils/_scatter.py:48 in f", False),
    # a number carried across an `.item()` break: new on every call too, but torch makes it dynamic after one
    (
        "1/0: ___stack0 == 1.0589566230773926" + _PAD + "# scale = y.abs().max().item()  # mypkg/layers.py:14 in f",
        False,
    ),
]


@pytest.mark.parametrize(("text", "fresh"), _FRESHNESS)
def test_a_value_made_anew_on_every_call_is_told_from_its_guard(text, fresh):
    failure = parse_guard_failure(text)
    assert failure is not None
    (cause,) = causes([[failure]])
    assert cause.fresh is fresh
    assert cause.unbounded is fresh
