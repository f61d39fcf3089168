"""`pass_from_caller`: a value the compiled function computes from nothing of the call's (a generator advanced
on the module) computed by each line that calls it and passed in; the edited file as `doctor fix` writes it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from support.captures import reread
from support.paths import DATA

from torchcompile_doctor.events.model import BackendUse, CallSite
from torchcompile_doctor.fix.candidates import candidates
from torchcompile_doctor.model.report import Finding, Fix, Location, Report
from torchcompile_doctor.patches.edits import AddParameter, EditError, edit_source
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
    finding = Finding(
        code="TCD115",
        kind="graph_break",
        severity="high",
        title="A generator or iterator Dynamo cannot follow",
        location=Location(str(path), 6, "Denoiser.forward"),
        fix=Fix("materialize the items first", transforms=("pass_from_caller",)),
        why="",
        fingerprint="generator",
    )
    return replace(reread(DATA / "engine" / "keyword_scale.capture"), findings=(finding,))


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
