"""What a candidate fix writes into the user's code, before it is measured: the setting's code with the imports
its names need, never a setting that only hides a problem."""

from __future__ import annotations

from pathlib import Path

from support.break_findings import break_finding, report_of

from torchcompile_doctor.events.model import BackendUse, CallSite
from torchcompile_doctor.fix.candidates import candidates
from torchcompile_doctor.model.experiment import ConfigSwitch
from torchcompile_doctor.model.report import Finding, Location
from torchcompile_doctor.patches.edits import edit_source
from torchcompile_doctor.transforms.experiment_edits import Program, _config_code, _config_edits


def test_a_function_set_setting_imports_the_package_that_adds_the_function_and_the_name_s_module():
    # transformers adds warning_once to logging.Logger: both are needed before the name can be read
    assert _config_code("ignore_logging_functions", ("transformers:logging.Logger.warning_once",)) == (
        "import transformers\nimport logging\n"
        "torch._dynamo.config.ignore_logging_functions.update({logging.Logger.warning_once})"
    )
    assert _config_code("reorderable_logging_functions", ("print",)) == (
        "torch._dynamo.config.reorderable_logging_functions.update({print})"
    )
    assert _config_code("capture_scalar_outputs", True) == "torch._dynamo.config.capture_scalar_outputs = True"


def test_a_setting_that_hides_the_problem_is_never_written(tmp_path):
    program = Program(root=tmp_path, compile_calls=(), call_sites=(), read=lambda path: None)
    refused = _config_edits(ConfigSwitch((("recompile_limit", 64),)), program)
    assert refused == "`recompile_limit` hides the problem rather than removing it"


RECORDER = """\
import torch


@torch.compile
def step(x, y):
    loss = ((x - y) ** 2).mean()
    record("batch_size", x.shape[0])
    return loss


for batch in batches:
    loss = step(batch, target)
"""


def _recorder_program(tmp_path, source: str) -> tuple[Program, Path]:
    path = tmp_path / "train.py"
    compiled = BackendUse("inductor", "inductor", "step", "function", str(path), 4, None, None, str(path), 4)
    site = CallSite(str(path), 4, "step", str(path), 12, "<module>")
    return Program(tmp_path, (compiled,), (site,), lambda p: source if p == path else None), path


def _effect_finding(path: Path) -> Finding:
    return break_finding(
        "TCD113", "A call Dynamo will not trace into", Location(str(path), 7, "step"), ("move_after_call",)
    )


def test_a_call_made_for_its_effect_is_moved_after_each_call_on_what_the_call_passes(tmp_path):
    program, path = _recorder_program(tmp_path, RECORDER)
    built, _ = candidates(report_of(_effect_finding(path)), program)
    (moved,) = [c for c in built if "moved out of" in c.title]
    by_file = [e.edit for e in moved.edits]
    written = edit_source(RECORDER, by_file)
    assert 'record("batch_size", x.shape[0])' not in written
    assert "    loss = step(batch, target)\n    record('batch_size', batch.shape[0])\n" in written


def test_a_call_reading_a_value_the_function_computes_is_not_moved(tmp_path):
    source = RECORDER.replace('record("batch_size", x.shape[0])', 'record("loss", loss)')
    program, path = _recorder_program(tmp_path, source)
    built, _ = candidates(report_of(_effect_finding(path)), program)
    assert not [c for c in built if "moved out of" in c.title]


HELPER = """\
import json

import torch


def record(name, value):
    metrics.write(json.dumps({"name": name, "value": value}))


@torch.compile
def step(x, y):
    loss = ((x - y) ** 2).mean()
    record("batch_size", x.shape[0])
    return loss


for batch in batches:
    loss = step(batch, target)
"""


def _helper_program(tmp_path) -> tuple[Program, Path]:
    path = tmp_path / "train.py"
    compiled = BackendUse("inductor", "inductor", "step", "function", str(path), 10, None, None, str(path), 10)
    site = CallSite(str(path), 10, "step", str(path), 18, "<module>")
    return Program(tmp_path, (compiled,), (site,), lambda p: HELPER if p == path else None), path


def _helper_finding(path: Path, line: int = 7) -> Finding:
    """A break inside the user's helper `record` (line 7), which the compiled `step` calls for its effect."""
    return break_finding(
        "TCD199",
        "Graph break: Unsupported method call",
        Location("json/encoder.py", 249, "JSONEncoder.iterencode"),
        ("move_after_call", "guard_helper_call"),
        user_frame=Location(str(path), line, "record"),
    )


def test_a_helper_whose_code_breaks_is_followed_to_its_call_in_the_compiled_function(tmp_path):
    program, path = _helper_program(tmp_path)
    built, _ = candidates(report_of(_helper_finding(path)), program)
    moved = next(c for c in built if "moved out of" in c.title)
    written = edit_source(HELPER, [e.edit for e in moved.edits])
    assert "    loss = step(batch, target)\n    record('batch_size', batch.shape[0])\n" in written
    assert '    record("batch_size", x.shape[0])\n    return loss' not in written
    guarded = next(c for c in built if "under `if" in c.title)
    assert (
        edit_source(HELPER, [e.edit for e in guarded.edits]).count(
            '    if not torch.compiler.is_compiling():\n        record("batch_size", x.shape[0])\n'
        )
        == 1
    )


def test_a_line_no_call_of_the_compiled_function_reaches_gives_no_helper_candidate(tmp_path):
    program, path = _helper_program(tmp_path)
    # line 17 (the loop) is in no helper the compiled function calls
    built, _ = candidates(report_of(_helper_finding(path, line=17)), program)
    assert not [c for c in built if "moved out of" in c.title or "under `if" in c.title]


PRINTER = """\
import torch


@torch.compile
def step(x):
    h = x * 2
    print("debug: hidden", tuple(h.shape), sep=" ")
    return h.sum()


for batch in batches:
    loss = step(batch)
"""


def _printer_finding(path: Path) -> Finding:
    return break_finding("TCD101", "`print()` splits the graph", Location(str(path), 7, "step"), ("return_printed",))


def test_a_print_of_values_the_function_computes_is_returned_and_printed_after_the_call(tmp_path):
    program, path = _recorder_program(tmp_path, PRINTER)
    built, _ = candidates(report_of(_printer_finding(path)), program)
    (returned,) = [c for c in built if "printed after its call" in c.title]
    written = edit_source(PRINTER, [e.edit for e in returned.edits])
    assert '    printed = ("debug: hidden", tuple(h.shape),)\n    return h.sum(), printed\n' in written
    assert '    loss, printed = step(batch)\n    print(*printed, sep=" ")\n' in written
    # run as plain Python (the decorator made a no-op): the same lines printed, the same result
    printed_lines: list[str] = []
    for text in (PRINTER, written):
        scope = {"batches": [_Shaped()], "print": lambda *a, **k: printed_lines.append(repr((a, k)))}
        exec(compile(text.replace("@torch.compile\n", "").replace("import torch\n", ""), "t", "exec"), scope)
    assert printed_lines[0] == printed_lines[1]


class _Shaped:
    """A stand-in tensor: `x * 2` keeps it, `.shape` and `.sum()` read it."""

    shape = (4, 16)

    def __mul__(self, other: int) -> _Shaped:
        return self

    def sum(self) -> int:
        return 64


def test_a_print_whose_function_s_result_is_not_assigned_to_one_name_stays(tmp_path):
    source = PRINTER.replace("    loss = step(batch)", "    total += step(batch)")
    program, path = _recorder_program(tmp_path, source)
    built, _ = candidates(report_of(_printer_finding(path)), program)
    assert not [c for c in built if "printed after its call" in c.title]
