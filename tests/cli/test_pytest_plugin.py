"""The pytest plugin (pytest11 entry point) and the Python API it wraps, run by a real pytest in a
subprocess (pytester), so torch's state in this process is untouched."""

from __future__ import annotations

import json
import sys

import pytest

pytest_plugins = ["pytester"]

TESTS = """
import pytest
import torch


def step(x):
    print("inside")  # a graph break
    return x + 1


@torch.compile(backend="eager", dynamic=False)
def scale(x, n):
    return x * n


def test_clean(compile_doctor):
    with compile_doctor.expect(max_graph_breaks=0, max_recompiles=1):
        scale(torch.ones(2), 2)


def test_breaks(compile_doctor):
    with compile_doctor.expect(max_graph_breaks=0):
        torch.compile(step, backend="eager")(torch.ones(2))


def test_recompiles(compile_doctor):
    with compile_doctor.expect(max_recompiles=1) as expectation:
        for n in range(3, 7):
            scale(torch.ones(2), n)


def log_step(x):
    x = x * 2
    print("logged")  # another break, in a function of its own (Dynamo caches per function)
    return x - 1


@pytest.mark.compile_doctor(fullgraph=True)
def test_marker():
    torch.compile(log_step, backend="eager")(torch.ones(3))


def test_diagnose(compile_doctor):
    report = compile_doctor.diagnose(step, torch.ones(2))
    assert [f.code for f in report.findings] == ["TCD101"]
"""


@pytest.mark.slow
def test_fixture_marker_and_session_report(pytester):
    pytester.makepyfile(test_model=TESTS)
    report_path = pytester.path / "doctor.json"
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--doctor-report", str(report_path))
    result.assert_outcomes(passed=2, failed=3)
    output = result.stdout.str()
    # the failures list the findings, at the user's line, with why they failed and the fix
    assert "torch.compile expectations failed (--max-graph-breaks 0):" in output
    assert "TCD101 test_model.py:6: `print()` splits the graph [one of 1 graph breaks (--max-graph-breaks 0)]" in output
    assert "recompiles > --max-recompiles 1" in output and "TCD202" in output
    assert "a graph break (--fullgraph)" in output  # the marker
    document = json.loads(report_path.read_text())
    checks = {c["test"].split("::")[1]: c for c in document["checks"]}
    assert set(checks) == {"test_clean", "test_breaks", "test_recompiles", "test_marker", "test_diagnose"}
    assert checks["test_clean"]["passed"] is True and checks["test_breaks"]["passed"] is False
    assert checks["test_diagnose"]["passed"] is None  # diagnose reports, it does not gate
    [finding] = checks["test_breaks"]["report"]["findings"]
    assert finding["code"] == "TCD101" and finding["location"]["line"] == 6


@pytest.mark.slow
def test_plugin_is_registered_and_lazy(pytester):
    pytester.makepyfile(test_nothing="def test_nothing(compile_doctor):\n    assert compile_doctor\n")
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-q", "-o", "python_files=test_*.py", "--co", "--doctor-report", "r.md"
    )
    result.assert_outcomes()
    check = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--markers")
    assert "@pytest.mark.compile_doctor(" in check.stdout.str()


@pytest.mark.slow
def test_importing_the_package_does_not_import_torch(pytester):
    probe = pytester.makepyfile(
        probe="import sys, torchcompile_doctor, torchcompile_doctor.pytest_plugin\nprint('torch' in sys.modules)\n"
    )
    result = pytester.run(sys.executable, str(probe))
    assert result.stdout.lines[-1] == "False"
