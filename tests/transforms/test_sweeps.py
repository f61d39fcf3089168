"""Recompiles a sweep makes by design (a loop over a literal set of distinct functions or models, each compiled
once) told apart from a cause a tensor or a dynamic shape removes; for those alone the recompile limit raised to
the sweep's size, or the caches reset per item: recorded runs (tests/data/sweeps) re-read in-process, and the
transforms on fixture sources."""

from __future__ import annotations

import ast

import pytest
from support.captures import reread
from support.fix_recordings import project_of
from support.paths import DATA

from torchcompile_doctor.fix.candidates import candidates
from torchcompile_doctor.model.edits import AfterTorchImport, InsertBefore
from torchcompile_doctor.patches.edits import edit_source
from torchcompile_doctor.transforms.engine import Built, Dropped
from torchcompile_doctor.transforms.registry import build_named
from torchcompile_doctor.transforms.site import Site, SiteFacts
from torchcompile_doctor.transforms.sweeps import Sweep, finite_length, inherent_sweep, number_sweep

SWEEPS = DATA / "sweeps"

ACTIVATIONS = """\
import torch

ACTS = [torch.relu, torch.tanh, torch.sigmoid]


@torch.compile(backend="eager")
def probe(x, act):
    return act(x).mean()


energies = [probe(x, act) for act in ACTS]
"""
MODELS = """\
import torch

for width in (2, 3, 4):
    model = torch.compile(make(width))
    out = model(x)
"""


def test_a_function_called_with_each_item_of_a_literal_list_of_functions_is_a_sweep():
    sweep = inherent_sweep(ACTIVATIONS, 6, "act", "object_id")
    assert sweep == Sweep(line=11, items=3, over="ACTS", statement=False, compiled_per_item=False)
    assert sweep.words == "the loop at line 11 calls it with each of the 3 items of `ACTS`"
    assert inherent_sweep(ACTIVATIONS, 7, "act.__code__", "object_id") == sweep  # at its `def` line too


def test_a_model_compiled_in_each_iteration_of_a_literal_loop_is_a_sweep():
    sweep = inherent_sweep(MODELS, 4, "fn[0].bias", "shape_or_rank")
    assert sweep == Sweep(line=3, items=3, over="(2, 3, 4)", statement=True, compiled_per_item=True)


def test_a_model_compiled_by_a_helper_called_for_each_item_is_a_sweep_named_in_its_own_file():
    source = "import torch\n\n\ndef build(w):\n    return torch.compile(Net(w))\n\n\n"
    source += "for w in range(2, 12):\n    m = build(w)\n"
    sweep = inherent_sweep(source, 5, "self.a.bias", "shape_or_rank")
    assert sweep == Sweep(line=8, items=10, over="range(2, 12)", statement=True, compiled_per_item=True)
    assert (
        sweep.words_in("train.py")
        == "the loop at train.py:8 compiles a new model for each of the 10 items of `range(2, 12)`"
    )


@pytest.mark.parametrize(
    ("source", "line", "variable", "reason"),
    [
        # a number that changes: a tensor or dynamic=True removes it
        ("import torch\nf = torch.compile(g)\nfor k in range(20):\n    f(x, k)\n", 2, "k", "int_specialization"),
        # an input's shape: mark_dynamic removes it
        ("import torch\nf = torch.compile(g)\nfor n in (1, 2, 3):\n    f(x[:n])\n", 2, "x", "shape_or_rank"),
        # a new object on every call, not the loop's items: made once, it is one entry
        ("import torch\nf = torch.compile(g)\nfor k in range(20):\n    f(x, Act())\n", 2, "act", "object_id"),
        # a loop whose length the code does not say
        ("import torch\nf = torch.compile(g)\nfor a in load():\n    f(x, a)\n", 2, "a", "object_id"),
    ],
)
def test_a_cause_a_tensor_a_dynamic_shape_or_one_object_removes_is_no_sweep(source, line, variable, reason):
    assert inherent_sweep(source, line, variable, reason) is None


def test_how_many_items_a_loop_goes_over_is_read_from_literals_only():
    tree = ast.parse("A = [1, 2, 3]\nB = {'x': 1, 'y': 2}\nC = [1]\nC = [1, 2]\n")

    def length(code: str) -> int | None:
        return finite_length(ast.parse(code, mode="eval").body, tree)

    assert length("range(2, 12)") == 10
    assert length("enumerate(A)") == 3
    assert length("zip(A, range(10))") == 3
    assert length("itertools.product(A, B)") == 6
    assert length("B.items()") == 2
    assert length("C") is None  # bound twice: which one the loop sees is not read from the text
    assert length("range(n)") is None
    assert length("[*A, 4]") is None


def _site(source: str, line: int, **facts: int) -> Site:
    return Site("train.py", source, line, SiteFacts(**facts))  # type: ignore[arg-type]


def test_the_limit_is_raised_to_the_sweep_s_size_where_the_program_starts():
    built = build_named("raise_recompile_limit", _site(ACTIVATIONS, 6, sweep_items=10))
    assert isinstance(built, Built)
    setting = "torch._dynamo.config.recompile_limit = 10  # one compile per item of the sweep is inherent"
    assert built.edits == (AfterTorchImport(setting),)
    assert edit_source(ACTIVATIONS, built.edits).splitlines()[:2] == ["import torch", setting]
    # a program that sets the limit itself: that setting is raised
    own = "import torch\ntorch._dynamo.config.cache_size_limit = 4\n" + ACTIVATIONS.split("\n", 1)[1]
    written = edit_source(own, build_named("raise_recompile_limit", _site(own, 7, sweep_items=10)).edits)  # type: ignore[union-attr]
    assert written.splitlines()[1] == setting and "cache_size_limit" not in written


def test_without_a_sweep_the_limit_is_never_raised():
    dropped = build_named("raise_recompile_limit", _site(ACTIVATIONS, 6))
    assert isinstance(dropped, Dropped)
    assert dropped.reason == "the recompiles are not a sweep's: removing their cause is the fix, not a higher limit"


def test_the_caches_are_reset_at_the_start_of_each_item_of_a_for_loop_only():
    built = build_named("reset_between_items", _site(MODELS, 4, sweep_items=3, sweep_loop=3))
    assert isinstance(built, Built) and built.edits == (InsertBefore(4, "torch.compiler.reset()"),)
    assert built.hunk.after == "torch.compiler.reset()\nmodel = torch.compile(make(width))"
    comprehension = build_named("reset_between_items", _site(ACTIVATIONS, 6, sweep_items=3))
    assert isinstance(comprehension, Dropped) and comprehension.reason == "the recompiles are not a sweep's"


def test_a_recorded_sweep_of_functions_gets_the_limit_raised_and_says_its_recompiles_are_inherent():
    capture = SWEEPS / "activation_sweep.capture"
    report = reread(capture)
    limit = next(f for f in report.findings if f.code == "TCD402")
    assert limit.why.startswith("the loop at line 17 calls it with each of the 10 items of `ACTIVATIONS`")
    assert "the recompiles are inherent" in (limit.fix.summary if limit.fix else "")
    assert limit.fix is not None and limit.fix.experiment is None  # the setting is the rewrite, no hiding experiment
    built, refused = candidates(report, project_of(capture))
    raised = [c for c in built if c.codes == ("TCD402",)]
    assert [c.title for c in raised] == [
        "`torch._dynamo.config.recompile_limit = 10` after `import torch` (activation_sweep.py)"
    ]
    assert not [r for r in refused if "recompile_limit" in r.title]
    # made for a sweep: recompiles that rise as the items past the limit compile are judged compiling more (any
    # other candidate's rising recompiles are worse, fix/judge.py)
    assert [c.inherent_recompiles for c in built] == [c in raised for c in built]


def test_a_recorded_sweep_of_models_gets_the_limit_raised_or_the_caches_reset_per_item():
    capture = SWEEPS / "model_sweep.capture"
    report, program = reread(capture), project_of(capture)
    limit = next(f for f in report.findings if f.code == "TCD402")
    assert limit.why.startswith("the loop at line 6 compiles a new model for each of the 10 items of")
    built, _ = candidates(report, program)
    by_transform = {c.title: c for c in built if c.codes == ("TCD402",)}
    assert len(by_transform) == 2
    reset = next(c for title, c in by_transform.items() if "torch.compiler.reset()" in title)
    (edit,) = reset.edits
    written = edit_source(program.read(edit.path) or "", [edit.edit]).splitlines()
    assert written[6:8] == [
        "    torch.compiler.reset()",
        '    model = torch.compile(nn.Sequential(nn.Linear(3, width), nn.Linear(width, 1)), backend="eager")',
    ]


def test_the_recompile_finding_of_a_sweep_says_its_recompiles_are_by_design():
    for capture, code, loop in (
        ("activation_sweep", "TCD205", "the loop at line 17 calls it with each of the 10 items of `ACTIVATIONS`"),
        ("model_sweep", "TCD301", "the loop at line 6 compiles a new model for each of the 10 items of"),
    ):
        finding = next(f for f in reread(SWEEPS / f"{capture}.capture").findings if f.code == code)
        assert f"These recompiles are a sweep's: {loop}" in finding.why
        assert finding.fix is not None and finding.fix.summary.startswith(
            "the sweep passes the recompile limit: raise `torch._dynamo.config.recompile_limit` to its size"
        )


# -- a loop over literal numbers: the limit raised only beside the fixes of its cause ------------------------------
MARGINS = """\
import torch

loss_fn = torch.compile(triplet, dynamic=False)


def triplet(a, margin):
    return (a + margin).clamp(min=0).mean()


loss_fn = torch.compile(triplet, dynamic=False)
MARGINS = [0.1, 0.2, -0.5]
results = [loss_fn(a, m) for m in MARGINS]
"""


def test_a_compiled_function_called_with_each_number_of_a_literal_loop_is_a_number_sweep():
    # at the plain `def` compiled by name elsewhere, and at the `torch.compile` call itself
    sweep = Sweep(line=12, items=3, over="MARGINS", statement=False, compiled_per_item=False)
    assert number_sweep(MARGINS, 6) == sweep and number_sweep(MARGINS, 10) == sweep
    depths = "import torch\n\n\n@torch.compile\ndef f(x, n):\n    return x\n\n\nfor n in range(1, 11):\n    f(x, n)\n"
    assert number_sweep(depths, 5) == Sweep(9, 10, "range(1, 11)", True, False)


@pytest.mark.parametrize(
    "loop",
    [
        "results = [loss_fn(a, m) for m in load_margins()]",  # numbers the code does not write out
        "results = [loss_fn(a, 0.5) for m in MARGINS]",  # the loop's number is not passed
        "results = [loss_fn(a, m) for m in (0.1, 'hinge')]",  # not numbers alone
        "results = [triplet(a, m) for m in MARGINS]",  # the eager function, not the compiled one
    ],
)
def test_a_loop_that_does_not_pass_its_literal_numbers_to_the_compiled_code_is_no_number_sweep(loop):
    assert number_sweep(MARGINS.replace("results = [loss_fn(a, m) for m in MARGINS]", loop), 6) is None


def _sweep_candidates(name: str):
    capture = SWEEPS / f"{name}.capture"
    built, _ = candidates(reread(capture), project_of(capture))
    return built


def test_a_recorded_sweep_of_margins_gets_the_limit_raised_only_as_the_tensor_s_alternative():
    built = _sweep_candidates("margin_sweep")
    (raised,) = [c for c in built if c.codes == ("TCD402",)]
    (tensor,) = [c for c in built if c.codes == ("TCD203",)]
    assert raised.title.startswith(
        "`torch._dynamo.config.recompile_limit = 10`: the loop at margin_sweep.py:15 calls it with each of the 10 "
        "items of `margins`"
    )
    assert raised.inherent_recompiles and not tensor.inherent_recompiles
    # one place: the trials keep the one that leaves fewer problems (tests/fix/test_trials.py)
    assert raised.sites == tensor.sites
    assert "torch.tensor(m)" in tensor.title


def test_a_recorded_sweep_of_loop_depths_gets_the_limit_raised_beside_the_loop_s_body_compiled():
    built = _sweep_candidates("depth_sweep")
    assert any(c.codes == ("TCD402",) and c.inherent_recompiles for c in built)
    body = next(c for c in built if "the loop's body compiled" in c.title)
    assert body.sites == next(c for c in built if c.codes == ("TCD402",)).sites


def test_a_range_bound_that_never_hits_the_limit_gets_its_loop_s_body_compiled_and_no_raise():
    built = _sweep_candidates("range_bound")
    assert not [c for c in built if c.inherent_recompiles]
    (body,) = [c for c in built if "the loop's body compiled" in c.title]
    (edit,) = body.edits
    assert "def _integrate_step(x, dt):" in getattr(edit.edit, "code", "")
