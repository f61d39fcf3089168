"""Whether a run trains (analysis/training.py), and that advice to run under `torch.no_grad()` is not given to one
that does (#25): read from recorded captures of real runs."""

from __future__ import annotations

from support.captures import reread, snapshot_context
from support.paths import REPO

from torchcompile_doctor.analysis import AnalysisContext
from torchcompile_doctor.analysis.index import AnalysisIndex
from torchcompile_doctor.analysis.training import training_run
from torchcompile_doctor.events.load import load_artifacts

RULES = REPO / "tests" / "rules"
TRAINING_BLOCKS = RULES / "TCD602" / "training_blocks.capture"  # aot_eager, loss.backward() each step


def _index(log, root: str = "/nonexistent") -> AnalysisIndex:
    return AnalysisIndex.build(log, AnalysisContext(target="program.py", root=root))


def test_a_compiled_backward_says_the_run_trains():
    """The function's class (`Net.forward`) is read from the program as the capture's snapshot keeps it."""
    context = snapshot_context(TRAINING_BLOCKS, target="training_blocks.py", root="/nonexistent")
    found = training_run(AnalysisIndex.build(load_artifacts(TRAINING_BLOCKS), context))
    assert found is not None
    assert found.evidence == "AOT autograd compiled a backward for `Net.forward`"


def test_without_a_compiled_backward_or_a_backward_call_nothing_says_it_trains():
    log = load_artifacts(TRAINING_BLOCKS)
    log.compile_spans = [s for s in log.compile_spans if s.name != "entire_backward_compile"]
    log.dynamo_starts.clear()  # and no user file of the run to read a `.backward()` call in
    log.metrics.clear()
    assert training_run(_index(log)) is None


def test_an_eager_backend_run_trains_by_its_backward_call():
    """backend="eager" compiles no backward: the user's `.backward()` call (ast of their file) says it."""
    capture = RULES / "TCD206" / "grad_mode.capture"
    found = training_run(AnalysisIndex.build(load_artifacts(capture), snapshot_context(capture, "grad_mode.py", "/")))
    assert found is not None  # the file as recorded (its path where it was recorded): the capture's snapshot
    assert found.evidence.startswith("your code calls `.backward()` at ")
    assert found.evidence.endswith("grad_mode.py:16")


def test_the_training_run_is_not_told_to_run_under_no_grad():
    (phase,) = [f for f in reread(TRAINING_BLOCKS).findings if f.code == "TCD602"]
    assert phase.fix is not None
    assert "no_grad" not in phase.fix.summary and "inference_mode" not in phase.fix.summary
    assert "needs the backward" in phase.fix.summary
    (grad_mode,) = [f for f in reread(RULES / "TCD206" / "grad_mode.capture").findings if f.code == "TCD206"]
    assert grad_mode.fix is not None and "call it in one grad mode" not in grad_mode.fix.summary
