"""`doctor fix` given what it cannot run: one line on stderr, exit 2, nothing run."""

from __future__ import annotations

import pytest
from support.doctor import run_doctor


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("fix", "missing.py"), "missing.py"),
        (("fix", "x.py", "--budget", "0"), "--budget 0"),
        (("fix", "x.py", "--format", "html"), "--format html"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, message):
    (tmp_path / "x.py").write_text("print('hi')\n")
    run = run_doctor(*args, cwd=tmp_path, timeout=60)
    assert run.returncode == 2 and message in run.stderr and "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1
