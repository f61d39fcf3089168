"""What a candidate fix writes into the user's code, before it is measured: the setting's code with the imports
its names need, never a setting that only hides a problem."""

from __future__ import annotations

from torchcompile_doctor.fix.candidates import Program, _config_code, _config_edits
from torchcompile_doctor.model.experiment import ConfigSwitch


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
