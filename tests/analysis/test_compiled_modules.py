"""A compiled torch.nn module is named by the module, never by torch's wrapper of it (`wrap_inline.<locals>.inner`
in torch/_dynamo/external_utils.py): by its class at the user's torch.compile line when the capture recorded that
call (tests/e2e/test_torch_versions.py checks it on every release), else by the name the user's line called it by."""

from __future__ import annotations

import pytest
from support.captures import RECOMPILE_CAPTURES, reread

from torchcompile_doctor.analysis.compiled_modules import call_arguments, called_object, is_torch_wrapper
from torchcompile_doctor.events.guard_failures import passed_name


def test_a_capture_without_the_compile_call_names_the_module_by_the_users_call():
    """grad_mode_eval's capture predates the bootstrap's record of each torch.compile call: the wrapper's first
    compile was reached from `loss = cmodel(torch.randn(4, 8)).pow(2).mean()`."""
    (finding,) = [f for f in reread(RECOMPILE_CAPTURES / "grad_mode_eval").findings if f.kind == "recompile"]
    assert finding.title.startswith("`cmodel` recompiles") and "wrap_inline" not in finding.title
    assert finding.location is not None and (finding.location.display_file, finding.location.line) == (
        "grad_mode_eval.py",
        18,
    )


@pytest.mark.parametrize(
    ("line", "called"),
    [
        ("loss = cmodel(torch.randn(4, 8)).pow(2).mean()", "cmodel"),
        ("y = cm(x)", "cm"),
        ("out = self.model(**batch)", "self.model"),
        ("x = torch.randn(3)", None),
        ("not python (", None),
    ],
)
def test_the_object_a_line_calls(line, called):
    assert called_object(line) == called


def test_the_wrapper_is_recognised_on_any_install():
    assert is_torch_wrapper("/venv/lib/python3.12/site-packages/torch/_dynamo/external_utils.py", "inner")
    assert not is_torch_wrapper("/work/project/external_utils.py", "inner")
    assert not is_torch_wrapper("/venv/lib/python3.12/site-packages/torch/_dynamo/external_utils.py", "forward")


def test_the_wrappers_args_read_as_what_the_users_call_passed():
    passed = call_arguments("    logits = model(tokens, mask=m)")
    assert passed == ["tokens"]
    assert passed_name("args[0].shape[1]", passed) == "tokens.shape[1]"
    assert passed_name("args[1].shape[0]", passed) == "args[1].shape[0]"  # not passed by position: left as is
    assert passed_name("kwargs['mask']", passed) == "kwargs['mask']"
