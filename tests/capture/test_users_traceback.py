"""The user's traceback starts at their code (#34): when the program raises under the doctor, the error is
printed as a plain run prints it, without the doctor's entry, bootstrap and runner frames above the program's.
In-process: the script runs through the bootstrap's own runner, as the capture child runs it (the live run is
tests/cli/test_cli.py::test_target_raises_after_compiling, slow)."""

from __future__ import annotations

import re
import sys
import traceback

import pytest

from torchcompile_doctor.capture import _bootstrap

SCRIPT = "def step(batch):\n    raise ValueError(f'bad batch {batch}')\n\n\nstep(3)\n"
_FRAME = re.compile(r'^  File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<function>\S+)$', re.MULTILINE)


def _raised_through_the_bootstrap(tmp_path) -> BaseException:
    """The error of a script run by the bootstrap's runner, its traceback starting at the runner's frame (the
    child's caller frame, `_run_target`, is the doctor's too)."""
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    saved = sys.modules["__main__"]
    try:
        with pytest.raises(ValueError) as caught:
            _bootstrap._run_file_as_main(str(script))
    finally:
        sys.modules["__main__"] = saved  # the runner makes a fresh __main__, as the child's interpreter does
    error = caught.value
    assert error.__traceback__ is not None
    return error.with_traceback(error.__traceback__.tb_next)  # the test's own frame stands for _run_target's


def test_the_printed_traceback_starts_at_the_users_code(tmp_path, capsys):
    error = _raised_through_the_bootstrap(tmp_path)
    uncut = "".join(traceback.format_exception(error))
    assert "_bootstrap.py" in uncut  # what users saw before: the doctor's frame first

    _bootstrap.print_users_traceback(error)
    printed = capsys.readouterr().err
    frames = [(m["file"], int(m["line"]), m["function"]) for m in _FRAME.finditer(printed)]
    assert frames == [(str(tmp_path / "train.py"), 5, "<module>"), (str(tmp_path / "train.py"), 2, "step")]
    assert printed.startswith("Traceback (most recent call last):\n")
    assert printed.rstrip().endswith("ValueError: bad batch 3")
    assert "torchcompile_doctor" not in printed


def test_the_programs_own_excepthook_gets_the_error(tmp_path, monkeypatch):
    error = _raised_through_the_bootstrap(tmp_path)
    seen: list[tuple[type, BaseException, object]] = []
    monkeypatch.setattr(sys, "excepthook", lambda kind, value, tb: seen.append((kind, value, tb)))
    _bootstrap.print_users_traceback(error)
    ((kind, value, tb),) = seen
    assert kind is ValueError and value is error
    assert tb is not None and tb.tb_frame.f_code.co_filename == str(tmp_path / "train.py")


def test_a_failing_excepthook_of_the_program_is_reported_as_the_interpreter_does(tmp_path, monkeypatch, capsys):
    error = _raised_through_the_bootstrap(tmp_path)

    def broken(kind, value, tb):
        raise RuntimeError("hook broke")

    monkeypatch.setattr(sys, "excepthook", broken)
    _bootstrap.print_users_traceback(error)  # the capture goes on to record how the program ended
    printed = capsys.readouterr().err
    assert printed.startswith("Error in sys.excepthook:\n") and "RuntimeError: hook broke" in printed
    original = printed.split("Original exception was:\n", 1)[1]
    assert original.startswith("Traceback (most recent call last):\n") and "torchcompile_doctor" not in original
    assert original.rstrip().endswith("ValueError: bad batch 3")
