"""pytest plugin (registered under `pytest11`): gate what torch.compile does inside a test.

    def test_no_breaks(compile_doctor):
        with compile_doctor.expect(max_graph_breaks=0, max_recompiles=1):
            model(x)

    @pytest.mark.compile_doctor(fullgraph=True)
    def test_whole_test_body(): ...

`pytest --doctor-report PATH` writes the findings of every check of the session into one report
(JSON; Markdown when PATH ends in .md). torch is imported only when a check runs.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from torchcompile_doctor.api import Expectation
    from torchcompile_doctor.model.report import Report

_REPORTS = pytest.StashKey[list[Any]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("torchcompile-doctor")
    group.addoption(
        "--doctor-report",
        metavar="PATH",
        default=None,
        help="write the findings of every compile_doctor check in this session to PATH (JSON, or Markdown for .md)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_REPORTS] = []
    config.addinivalue_line(
        "markers",
        "compile_doctor(max_graph_breaks=None, max_recompiles=None, fullgraph=False, fail_on=None): "
        "fail the test when what torch.compile did in it fails these criteria",
    )


class CompileDoctor:
    """What the `compile_doctor` fixture gives a test."""

    def __init__(self, nodeid: str, reports: list[Any]) -> None:
        self._nodeid = nodeid
        self._reports = reports

    @contextlib.contextmanager
    def expect(self, **criteria: Any) -> Iterator[Expectation]:
        """`torchcompile_doctor.expect`, with the report kept for --doctor-report."""
        from torchcompile_doctor import api

        expectation = None
        try:
            with api.expect(**criteria) as expectation:
                yield expectation
        finally:
            if expectation is not None and expectation.report is not None:
                self._reports.append((self._nodeid, expectation.report))

    def diagnose(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Report:
        """`torchcompile_doctor.diagnose`, with the report kept for --doctor-report."""
        from torchcompile_doctor import api

        report = api.diagnose(fn, *args, **kwargs)
        self._reports.append((self._nodeid, report))
        return report


@pytest.fixture
def compile_doctor(request: pytest.FixtureRequest) -> CompileDoctor:
    return CompileDoctor(request.node.nodeid, request.config.stash[_REPORTS])


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    marker = item.get_closest_marker("compile_doctor")
    if marker is None:
        return (yield)
    doctor = CompileDoctor(item.nodeid, item.config.stash[_REPORTS])
    with doctor.expect(**marker.kwargs):
        return (yield)


def pytest_sessionfinish(session: pytest.Session) -> None:
    path = session.config.getoption("--doctor-report")
    reports = session.config.stash.get(_REPORTS, [])
    if not path:
        return
    Path(path).write_text(_session_report(reports, markdown=str(path).endswith(".md")), encoding="utf-8")


def _session_report(reports: list[Any], markdown: bool) -> str:
    if markdown:
        from torchcompile_doctor.renderers.markdown import render

        parts = [f"# torchcompile-doctor: {len(reports)} check(s)\n"]
        parts += [f"\n<!-- {nodeid} -->\n" + render(report).replace("## torchcompile-doctor: ", f"## {nodeid}: ", 1)
                  for nodeid, report in reports]  # fmt: skip
        return "".join(parts)
    from torchcompile_doctor import __version__
    from torchcompile_doctor.model.json import to_json
    from torchcompile_doctor.model.report import SCHEMA_VERSION

    document = {
        "schema_version": SCHEMA_VERSION,
        "tool_version": __version__,
        "checks": [
            {"test": nodeid, "passed": report.gate.passed if report.gate else None, "report": to_json(report)}
            for nodeid, report in reports
        ],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
