"""The reports the HTML page is tested on (tests/renderers/test_html.py and test_html_browser.py): the checked-in
captures, the multi-rank job, and a `stress` report that puts in one page what makes pages overflow, repeat
themselves or leak the machine (long unbreakable names and code lines, absolute paths and addresses in torch's
text, a verified fix with before/after, a repeated explanation, every severity, a failed gate)."""

from __future__ import annotations

import dataclasses

from support.captures import CAPTURES, merged_multirank, recorded_root, reread
from torchcompile_doctor.model.findings import RunFigures, Verification
from torchcompile_doctor.model.gate import GateFailure, GateResult
from torchcompile_doctor.model.report import Fix, Location, Report

CAPTURE_NAMES = sorted(p.name for p in CAPTURES.iterdir() if p.is_dir())


def capture_report(name: str) -> Report:
    """The checked-in capture NAME (tests/data/captures), re-read."""
    return reread(CAPTURES / name)


def multirank_report() -> Report:
    return merged_multirank()


LONG_NAME = "Block" + "VeryLong" * 25 + ".forward"  # 210 characters, no place to wrap but the dot
MACHINE_PATH = "/home/someone/venvs/train/lib/python3.11/site-packages/torch/_dynamo/variables/functions.py"
ELSEWHERE_PATH = "/mnt/scratch/job-1234/checkpoints/model.pt"
ADDRESS = "0x7f3a9c2b1d40"


def _verification() -> Verification:
    before = RunFigures(
        graph_breaks=1, recompiles=8, graphs=9, recompile_limit_hits=1, compile_failures=0, compile_time_s=0.84
    )
    return Verification(
        change="torch._dynamo.config.recompile_limit = 16",
        before=before,
        after=dataclasses.replace(before, recompiles=0, graphs=1, recompile_limit_hits=0, compile_time_s=0.11),
        ok=True,
        effect="fixed",
    )


def stress_report() -> Report:
    """The int_arg_recompile_limit capture (its compile spans, a recompile and a fallback) with findings added
    and changed to stress the page."""
    report = capture_report("int_arg_recompile_limit")
    limit, recompile = report.findings[0], report.findings[1]
    long_line = "    out = " + " + ".join(f"layer_{i}(x_{i})" for i in range(16))
    wide = dataclasses.replace(
        recompile,
        title=f"`{LONG_NAME}` recompiles for each new integer value",
        torch_says=f"guard failed in {MACHINE_PATH}:1234 for <function step at {ADDRESS}> (see {ELSEWHERE_PATH})",
        fix=Fix(
            "pass `step` as a tensor",
            before=long_line + "  # " + "x" * 80,
            after="    out = torch.stack([layer(x) for layer, x in zip(layers, xs)]).sum(0)",
            verified=_verification(),
        ),
        docs_url="https://docs.pytorch.org/docs/stable/torch.compiler_troubleshooting.html",
    )
    location = Location(
        file=MACHINE_PATH, line=88, function=LONG_NAME, source=long_line, display_file="torch/_dynamo/functions.py"
    )
    repeated = dataclasses.replace(limit, rank=3, severity="low", code="TCD299", why=limit.why, location=location)
    info = dataclasses.replace(recompile, rank=4, severity="info", code="TCD404", kind="perf_hint", changes=())
    gate = GateResult(passed=False, criteria=("--fail-on low",), failures=(GateFailure(limit.fingerprint, "critical"),))
    return dataclasses.replace(
        report,
        target=f"{recorded_root(report)}/int_arg_recompile_limit.py",
        findings=(limit, wide, repeated, info),
        notes=(*report.notes, f"a note naming {MACHINE_PATH} and {ADDRESS}"),
        gate=gate,
    )


def named_reports() -> dict[str, Report]:
    """Every report the page tests look at, by name."""
    reports = {name: capture_report(name) for name in CAPTURE_NAMES}
    reports["multirank"] = multirank_report()
    reports["stress"] = stress_report()
    return reports
