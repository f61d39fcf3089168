"""`pass_from_caller`: a value the compiled function computes from nothing of the call's (a generator advanced
on the module) computed by each line that calls it and passed in; the edited file as `doctor fix` writes it."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.break_findings import break_finding, report_of

from torchcompile_doctor.events.model import BackendUse, CallSite
from torchcompile_doctor.fix.candidates import candidates
from torchcompile_doctor.model.report import Location, Report
from torchcompile_doctor.patches.edits import AddParameter, EditError, edit_source
from torchcompile_doctor.transforms.call_source import comprehension_loop
from torchcompile_doctor.transforms.experiment_edits import Program

DENOISER = """\
import torch


class Denoiser(torch.nn.Module):
    def forward(self, x):
        sigma = next(self.levels)
        return self.net(x) / (1.0 + sigma)


model = torch.compile(Denoiser())
outs = [model(x).sum().item() for _ in range(4)]
"""
PASSED_AS_TENSOR = """\
import torch


class Denoiser(torch.nn.Module):
    def forward(self, x, sigma):
        return self.net(x) / (1.0 + sigma)


model = torch.compile(Denoiser())
outs = [model(x, sigma=torch.tensor(next(model.levels))).sum().item() for _ in range(4)]
"""


def _program(tmp_path: Path, source: str) -> tuple[Program, Path]:
    path = tmp_path / "denoise.py"
    compiled = BackendUse("inductor", "inductor", "forward", "module", str(path), 10, None, None, str(path), 5)
    site = CallSite(str(path), 5, "Denoiser.forward", str(path), 11, "<module>", 8, 11, 16)
    return Program(tmp_path, (compiled,), (site,), lambda p: source if p == path else None), path


def _report(path: Path) -> Report:
    """A recorded report (tests/data/engine) holding only the generator's finding: candidates read its findings."""
    where = Location(str(path), 6, "Denoiser.forward")
    return report_of(
        break_finding("TCD115", "A generator or iterator Dynamo cannot follow", where, ("pass_from_caller",))
    )


def test_a_generator_advanced_in_forward_is_advanced_by_the_caller_and_passed_in(tmp_path):
    program, path = _program(tmp_path, DENOISER)
    built, _ = candidates(_report(path), program)
    passed = [c for c in built if "computed by the caller and passed in" in c.title]
    assert len(passed) == 2  # as it is, and as a tensor
    written = {edit_source(DENOISER, [e.edit for e in c.edits]) for c in passed}
    assert PASSED_AS_TENSOR in written
    assert PASSED_AS_TENSOR.replace("torch.tensor(next(model.levels))", "next(model.levels)") in written


def test_a_value_computed_from_the_call_s_own_input_is_not_passed_in(tmp_path):
    source = DENOISER.replace("next(self.levels)", "next(iter(x))")
    program, path = _program(tmp_path, source)
    built, _ = candidates(_report(path), program)
    assert not [c for c in built if "computed by the caller and passed in" in c.title]


def test_a_parameter_is_not_added_after_one_with_a_default():
    with pytest.raises(EditError):
        edit_source("def f(x, scale=1.0):\n    return x * scale\n", [AddParameter(1, "sigma")])


RECORDED = """\
import torch


@torch.compile
def step(x):
    record(x.shape[0])
    return x.sum()


outs = [step(x).item() for x in batches]
"""


def test_a_call_moved_after_a_call_made_in_a_comprehension_runs_after_each_call(tmp_path):
    """The comprehension written as the loop it stands for, the call moved into its body: once per call, in
    the order the comprehension made them (a statement after the comprehension would run once)."""
    path = tmp_path / "loop.py"
    compiled = BackendUse("inductor", "inductor", "step", "function", str(path), 4, None, None, str(path), 4)
    site = CallSite(str(path), 4, "step", str(path), 10, "<module>", 8, 10, 15)
    program = Program(tmp_path, (compiled,), (site,), lambda p: RECORDED if p == path else None)
    where = Location(str(path), 6, "step")
    report = report_of(break_finding("TCD113", "A call Dynamo will not trace into", where, ("move_after_call",)))
    built, _ = candidates(report, program)
    (moved,) = [c for c in built if "moved out of" in c.title]
    written = edit_source(RECORDED, [e.edit for e in moved.edits])
    assert written.endswith("outs = []\nfor x in batches:\n    outs.append(step(x).item())\n    record(x.shape[0])\n")
    assert "    record(x.shape[0])\n    return" not in written


def test_a_comprehension_whose_variable_the_file_uses_elsewhere_is_not_made_a_loop(tmp_path):
    source = RECORDED.replace("for x in batches]", "for x in batches]\nprint(x)")
    path = tmp_path / "loop.py"
    compiled = BackendUse("inductor", "inductor", "step", "function", str(path), 4, None, None, str(path), 4)
    site = CallSite(str(path), 4, "step", str(path), 10, "<module>", 8, 10, 15)
    program = Program(tmp_path, (compiled,), (site,), lambda p: source if p == path else None)
    assert comprehension_loop(source, site) is None
    assert comprehension_loop(RECORDED, site) is not None
    assert program.call_sites == (site,)
