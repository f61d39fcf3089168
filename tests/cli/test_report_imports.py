"""What `doctor report --format json` loads (issue 36): the command holds every module it imports for its whole run,
so its peak memory starts with them. The report reads a capture and renders it: it loads neither the capture
runner nor `--try-fixes`' trial engine, no page renderer, and libcst only when the report makes a fix's edit.

Each command runs in this process through typer's CliRunner with the doctor's modules imported afresh (and the
guarded third-party packages dropped from `sys.modules` for the time of the call), so an import at the top of any
module on the report's path shows as loaded; everything is put back after."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator

from support.captures import TRACES
from support.doctor import doctor_in_process

PACKAGE = "torchcompile_doctor"
GUARDED_PACKAGES = ("libcst", "jinja2", "rich")  # a page's template, a terminal's colours, a fix's edits
NOT_FOR_A_REPORT = (
    f"{PACKAGE}.capture.runner",  # runs a target
    f"{PACKAGE}.capture.warm",
    f"{PACKAGE}.experiments.runs",  # --try-fixes' runs
    f"{PACKAGE}.fix.trials",  # doctor fix's trial engine
    f"{PACKAGE}.fix.candidates",
    f"{PACKAGE}.renderers.html",
    "jinja2",
    "rich",
)
FIX_EDITS = ("libcst", f"{PACKAGE}.patches.edits")


def _is_fresh(name: str) -> bool:
    return name == PACKAGE or name.startswith(PACKAGE + ".") or name in GUARDED_PACKAGES


@contextlib.contextmanager
def _fresh_modules() -> Iterator[set[str]]:
    """The doctor's modules imported anew inside the block (a top-level import anywhere on the path runs again),
    the guarded packages' top modules dropped; yields the names loaded in the block. Restored after."""
    saved = {name: module for name, module in sys.modules.items() if _is_fresh(name)}
    for name in saved:
        del sys.modules[name]
    loaded: set[str] = set()
    try:
        yield loaded
    finally:
        loaded.update(name for name in sys.modules if _is_fresh(name) or name.partition(".")[0] in GUARDED_PACKAGES)
        for name in [name for name in sys.modules if _is_fresh(name)]:
            del sys.modules[name]
        sys.modules.update(saved)


def _json_report(trace: str) -> tuple[dict, set[str]]:
    with _fresh_modules() as loaded:
        run = doctor_in_process("report", str(TRACES / trace), "--format", "json")
    assert run.returncode in (0, 1), run.stderr
    return json.loads(run.stdout), loaded


def test_the_json_report_loads_no_runner_no_page_and_no_libcst_without_a_fix():
    report, loaded = _json_report("dtype_shape_recompile.log")
    assert report["findings"]  # a real report, read and analysed
    assert not any(finding["fix"] and finding["fix"]["after"] for finding in report["findings"])
    assert f"{PACKAGE}.analysis.analyze" in loaded and f"{PACKAGE}.renderers.json_text" in loaded
    assert not loaded & {*NOT_FOR_A_REPORT, *FIX_EDITS}, sorted(loaded & {*NOT_FOR_A_REPORT, *FIX_EDITS})


def test_a_report_that_makes_a_fix_loads_libcst_for_its_edit_only():
    report, loaded = _json_report("graph_break_print.log")
    assert any(finding["fix"] and finding["fix"]["after"] for finding in report["findings"])  # the edit, made
    assert set(FIX_EDITS) <= loaded
    assert not loaded & set(NOT_FOR_A_REPORT), sorted(loaded & set(NOT_FOR_A_REPORT))
