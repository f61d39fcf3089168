"""Every rule, from a case of its own: tests/rules/TCDnnn/ holds the case programs of rule TCDnnn (NAME.py), the
capture of each (NAME.capture/, recorded once with `python tests/support/recording.py record
tests/rules/TCDnnn/NAME.py`, which says how in NAME.capture/recording.json) and the finding as the terminal
report renders it (NAME.finding.txt). Nothing runs: each capture is re-read as `doctor report` re-reads it.

A case program starts with `# triggers TCDnnn at line L`, with `(variable: NAME)` when the rule's fix names a
variable; a `# capture: doctor COMMAND OPTIONS` line names another command or more options to record it with.
The test checks that a finding with that code sits at the case's line L (for a break inside a library, its
`user_frame` does), that the fix names what the rule's template promises (the user's line, function, variable,
file:line), that a fix's before/after is built from the user's own line, and that the rendered finding is the
reviewed snapshot (`UPDATE_SNAPSHOTS=1` writes it again: review the diff, then commit it with the change).
"""

from __future__ import annotations

import ast
import dataclasses
import json
import re
from pathlib import Path

import pytest
from support.captures import normalise, recorded_root, reread
from support.ground_truth import matches_file
from support.paths import REPO, RULES
from support.recording import RECORDING
from support.report_schema import check_report_json
from support.snapshots import assert_matches_snapshot

from torchcompile_doctor.model.report import Finding, Report
from torchcompile_doctor.renderers import RenderOptions, render
from torchcompile_doctor.rules import Rule, load_catalogue

CASES = sorted(RULES.glob("TCD*/*.py"))
HEADER = re.compile(r"^# triggers (?P<code>TCD\d{3}) at line (?P<line>\d+)(?: \(variable: (?P<variable>.+)\))?$")
# Codes whose case is not recorded yet; each entry is a debt (test_every_rule_has_a_case keeps it honest).
WITHOUT_A_CASE: set[str] = set()
# Codes that need a GPU, with the test that checks each on the cases recorded on an H100 (tests/data/gpu) or on
# torch's own messages; a custom backend's failure on tlparse's input; max-autotune's time on a derived trace.
COVERED_ELSEWHERE = {
    **dict.fromkeys(
        ("TCD410", "TCD415", "TCD416", "TCD417", "TCD418", "TCD419", "TCD421", "TCD422"),
        "tests/analysis/test_gpu_findings.py",
    ),
    **dict.fromkeys(("TCD411", "TCD412", "TCD413", "TCD414"), "tests/capture/test_gpu_capture.py"),
    "TCD408": "tests/events/test_tlparse_inputs.py",
    "TCD605": "tests/analysis/test_gpu_findings.py",
}
# The case triggers another rule than the one it is written for (or none): the whole case xfails.
WRONG_MATCH: dict[str, str] = {}
# The finding is right but its fix has no before/after (a known gap): that test xfails.
FIX_NOT_BUILT: dict[str, str] = {}


@dataclasses.dataclass(frozen=True)
class Case:
    program: Path
    code: str
    line: int
    variable: str | None

    @property
    def id(self) -> str:
        return f"{self.code}-{self.program.stem}"

    @property
    def lines(self) -> list[str]:
        return self.program.read_text(encoding="utf-8").splitlines()

    @property
    def capture(self) -> Path:
        return self.program.with_suffix(".capture")


def _case(program: Path) -> Case:
    first = program.read_text(encoding="utf-8").splitlines()[:1]
    match = HEADER.match(first[0]) if first else None
    assert match, f"{program}: the first line must read `# triggers TCDNNN at line L [(variable: NAME)]`"
    return Case(program, match["code"], int(match["line"]), match["variable"])


def _rules() -> dict[str, Rule]:
    return {rule.code: rule for rule in load_catalogue()}


def _function_at(source: str, line: int) -> str:
    """The name the doctor gives the function around `line`: `Class.method`, `outer.<locals>.inner`."""
    best = "<module>"

    def visit(node: ast.AST, prefix: str) -> None:
        nonlocal best
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                start = min([child.lineno] + [d.lineno for d in child.decorator_list])
                if isinstance(child, ast.ClassDef):
                    visit(child, f"{name}.")
                elif start <= line <= (child.end_lineno or child.lineno):
                    best = name
                    visit(child, f"{name}.<locals>.")

    visit(ast.parse(source), "")
    return best


def _params(cases: list[Case], broken: dict) -> list:
    def marks(case: Case) -> list:
        reason = WRONG_MATCH.get(case.id) or broken.get(case.id)
        return [pytest.mark.xfail(strict=True, reason=reason)] if reason else []

    return [pytest.param(case, marks=marks(case), id=case.id) for case in cases]


def _found(case: Case) -> tuple[Report, Finding, dict]:
    """(the re-read report, the finding with the case's code at its line, that finding as JSON)."""
    report = reread(case.capture)
    recorded = json.loads((case.capture / RECORDING).read_text(encoding="utf-8"))
    rule = _rules()[case.code]
    # the run of a case fails where its rule is about a failure: the target's, or a rank that stopped early
    failed = rule.kind == "target_error" or rule.detector == "rank_log_ends_early"
    assert recorded["exit_code"] == (3 if failed else 0)
    assert report.target_succeeded is not failed
    document = json.loads(render(report, "json"))
    check_report_json(document)  # every finding family's keys are the JSON schema's
    findings = document["findings"]

    def at(place: dict | None) -> bool:
        return bool(place) and matches_file(place["file"], case.program.name) and place["line"] == case.line

    indexes = [i for i, f in enumerate(findings) if f["code"] == case.code and at(f["location"])]
    indexes += [i for i, f in enumerate(findings) if f["code"] == case.code and at(f["user_frame"])]
    seen = [
        (f["code"], f["location"] and f"{Path(f['location']['file']).name}:{f['location']['line']}") for f in findings
    ]
    assert indexes, f"no {case.code} finding at {case.program.name}:{case.line}; the doctor found {seen}"
    return report, report.findings[indexes[0]], findings[indexes[0]]


def finding_text(report: Report, finding: Finding) -> str:
    """The finding as the terminal report renders it (its block, without the run's header and footer)."""
    alone = dataclasses.replace(report, findings=(finding,), notes=(), compile_time=None)
    text = render(alone, "terminal", RenderOptions(color=False, width=110, base_dir=recorded_root(report)))
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(r"#\d+ ", line))
    end = next(i for i in range(len(lines) - 1, start, -1) if lines[i].startswith("target:"))
    return normalise("\n".join(lines[start:end]).rstrip() + "\n", recorded_root(report))


ALL_CASES = [_case(program) for program in CASES]


def _package_named(file: str, summary: str) -> str:
    """The folder of the library file that the fix names as the package to change (`transformers`)."""
    return next((f"`{part}`" for part in Path(file).parts if f"`{part}`" in summary), "")


@pytest.mark.parametrize("case", _params(ALL_CASES, {}))
def test_rule_case(case: Case):
    _, _, finding = _found(case)
    rule = _rules()[case.code]
    source = case.lines[case.line - 1].strip()
    function = _function_at("\n".join(case.lines), case.line)
    assert finding["kind"] == rule.kind and finding["rule"] == rule.name

    # where: the user's own line (for a break inside a library, the user's call into it)
    in_case = finding["location"] and matches_file(finding["location"]["file"], case.program.name)
    user_place = finding["location"] if in_case else finding["user_frame"]
    assert user_place["source"] == source
    if user_place is finding["location"]:
        # a comment: the doctor names no function for it; a compiled torch.nn module (no forward of the user's)
        # is named by its class at the torch.compile line (#27)
        if rule.kind != "unused_suppression" and "torch.compile(" not in source:
            # the code after a graph break is torch's resume function, named after the user's: `f (after line N)`
            assert re.fullmatch(rf"{re.escape(function)}( \(after line \d+\))?", finding["location"]["function"])
    else:  # a break inside a library: the location is the library's line, the user's call is user_frame
        assert not matches_file(finding["location"]["file"], case.program.name)

    # the fix names what its template promises, for this case
    summary = finding["fix"]["summary"]
    promised = {
        "{source}": source,
        "{where}": f"{case.program.name}:{case.line}",
        "{function}": function,
        "{variable}": case.variable,
        # a frame skip carries the fix of its break, which names the line (a library's break: the library)
        "{break_fix}": source if in_case else _package_named(finding["location"]["file"], finding["fix"]["summary"]),
    }
    for placeholder, value in promised.items():
        if placeholder in rule.fix:
            assert value, f"{case.program}: the header must give `(variable: NAME)` for {rule.code}'s fix"
            assert value in summary, (placeholder, value, summary)
    assert "{" not in summary.replace("{}", ""), summary  # no template left unfilled

    # any before/after shown is built from a line of the user's program
    before = finding["fix"]["before"]
    if before is not None:
        assert {line.strip() for line in before.splitlines()} - {"..."} <= {text.strip() for text in case.lines}, before
        assert finding["fix"]["after"] and finding["fix"]["after"] != before


@pytest.mark.parametrize("case", _params(ALL_CASES, {}))
def test_rendered_finding_is_the_reviewed_snapshot(case: Case):
    report, finding, _ = _found(case)
    text = finding_text(report, finding)
    assert_matches_snapshot(text, case.program.with_suffix(".finding.txt"))


# transforms that build only on a line of their own shape (a function compiled by decorator, a probe, a math
# call, ...): a rule that lists only such transforms need not rewrite every case's line
SHAPED = {
    "move_outside",
    "leave_out_branch_argument",  # these two: the lines that call or compile the model (tests/fix)
    "set_fallback_attribute",
    "compile_called_modules",  # a function compiled by decorator that calls a module of its file
    "compile_network_only",
    "math_to_torch",
    "hoist_to_module",
    "hoist_probe",
    "detach_out_of_place",
    "data_write_no_grad",
    "unwrap_progress",
    "move_after_call",
    "eager_call",
    "eager_call_without_grad",
    "hoist_to_init",
    "guard_helper_call",
    "return_printed",
    "guard_timer",
    "time_at_caller",  # these three: a compiled function of the file timing itself (tests/transforms/test_timing.py)
    "unwrap_timer_block",
    "untimed_helper",
    "interp_to_torch",
    "fresh_tensor_for_resized",
    "compile_region",
    "pass_from_caller",
    "numpy_random_to_torch",
    "numpy_draw_kept_eager",
    "compile_loop_body",
    "compile_forward_loop_body",
    "raise_limit_for_number_sweep",
    "mark_growing_cache",
}


def _transform_cases() -> list[Case]:
    rules = _rules()
    # move_outside needs the lines that call the compiled function (`doctor fix` builds it, the report shows none);
    # the SHAPED ones build only on a line of their shape (tests/transforms cover each)
    return [case for case in ALL_CASES if case.code in rules and set(rules[case.code].transforms) - SHAPED]


# What each transform must do to the user's line: (before, after, the case) -> bool.
TRANSFORM_CHECKS = {
    "guard_is_compiling": lambda b, a, c: a == f"if not torch.compiler.is_compiling():\n    {b}",
    "drop_item": lambda b, a, c: ".item()" in b and ".item()" not in a.split("#")[0],
    "drop_tolist": lambda b, a, c: ".tolist()" in b and ".tolist()" not in a.split("#")[0],
    "branchless_where": lambda b, a, c: "torch.where(" in a and b.startswith("if ") and ".item()" not in a,
    "numpy_to_torch": lambda b, a, c: re.search(r"\bnp\.|\.numpy\(\)", b) and not re.search(r"\bnp\.|\.numpy\(\)", a),
    "cast_at_call_site": lambda b, a, c: f"{c.variable}.to(torch." in a,
    "tensor_argument": lambda b, a, c: f"torch.tensor({c.variable})" in a,
    "op_written_out": lambda b, a, c: re.search(r"torch\.(where|clamp_min)\(", a) and "torch.tensor(" in a,
    "mark_dynamic": lambda b, a, c: f"torch._dynamo.mark_dynamic({c.variable}, " in a and a.endswith(b),
    "tensor_hyperparameter": lambda b, a, c: "optim." in b and "lr=torch.tensor(" in a,
    "eager_call": lambda b, a, c: a != b and "(" in a,
    "eager_call_without_grad": lambda b, a, c: "if torch.is_grad_enabled() else" in a,
    "unwrap_progress": lambda b, a, c: "tqdm(" in b and "tqdm(" not in a,
    "math_to_torch": lambda b, a, c: "math." in b and "torch." in a,
    "hoist_to_module": lambda b, a, c: a.splitlines()[0].strip() in b,  # the statement, now at module level
    "hoist_probe": lambda b, a, c: a.splitlines()[0].split(" = ")[1] in b,  # the probe, now at module level
    "guard_timer": lambda b, a, c: "time" in b and "if not torch.compiler.is_compiling():" in a,
    # the timing moved to the caller: the clock read in the last run of changes, the line that calls the function
    "time_at_caller": lambda b, a, c: "time." in b and "time." in a.split("\n...\n")[-1],
    "unwrap_timer_block": lambda b, a, c: "with " in b and "with " in a.split("\n...\n")[-1],
    "untimed_helper": lambda b, a, c: b.lstrip().startswith("@") and "time." in a.split("\n...\n")[-1],
    "hoist_to_init": lambda b, a, c: a.lstrip().startswith("self."),  # now in `__init__`, bound to attributes
    "detach_out_of_place": lambda b, a, c: ".detach_()" in b and ".detach()" in a,
    "data_write_no_grad": lambda b, a, c: ".data" in b and "torch.no_grad()" in a,
    "compile_network_only": lambda b, a, c: "_network(" in a and "@torch.compile" in a,
    "compile_called_modules": lambda b, a, c: "@torch.compile" in b and "@torch.compile" not in a and "compiled_" in a,
    "module_counter_buffer": lambda b, a, c: f'register_buffer("{(c.variable or "").removeprefix("self.")}"' in a,
    "interp_to_torch": lambda b, a, c: "np.interp(" in b and "torch.searchsorted(" in a,
    "fresh_tensor_for_resized": lambda b, a, c: ".resize_(" in b and ".resize_(" not in a,
    "compile_region": lambda b, a, c: "_compiled(" in a,
    "numpy_random_to_torch": lambda b, a, c: "np.random." in b and "np.random." not in a,
    "numpy_draw_kept_eager": lambda b, a, c: "@torch.compiler.disable" in a,
    "compile_loop_body": lambda b, a, c: "for _ in range(" in b and "_step(" in a,
    "mark_growing_cache": lambda b, a, c: a.endswith(b) and "_cache, " in a,
    "compile_forward_loop_body": lambda b, a, c: "for _ in range(" in b and "self._forward_step(" in a,
}


@pytest.mark.parametrize("case", _params(_transform_cases(), FIX_NOT_BUILT))
def test_rule_case_fix_rewrites_the_user_line(case: Case):
    _, found, finding = _found(case)
    rule = _rules()[case.code]
    before, after = finding["fix"]["before"], finding["fix"]["after"]
    assert before and after, f"{rule.code} has transforms {rule.transforms} but the fix has no before/after"
    # what the report prints is the edit `doctor fix` writes: a before/after made on the line alone would leave
    # doctor fix nothing to write (TCD220's optimizer line was found so, and doctor fix said "nothing to fix")
    assert found.fix is not None and found.fix.rewrites and found.fix.rewrites[0].edits, f"{rule.code}: no edit"
    assert (found.fix.rewrites[0].before, found.fix.rewrites[0].after) == (before, after)
    # the hunk of the edit: lines of the user's program, the first the line that breaks or the user's call
    assert {line.strip() for line in before.splitlines()} - {"..."} <= {text.strip() for text in case.lines}, before
    if rule.kind in ("graph_break", "frame_skipped"):
        assert before.splitlines()[0] == case.lines[case.line - 1].strip()
    else:  # recompiles: the user's call (input fixes) or the line the guard came from
        if rule.transforms[0] in ("cast_at_call_site", "tensor_argument", "mark_dynamic"):
            assert re.search(rf"\b{re.escape(case.variable or '')}\b", before.split("(", 1)[-1]), before
    names = {*rule.transforms, *(t for w in rule.wordings for t in w.transforms)}  # the one that built
    assert any(TRANSFORM_CHECKS[name](before, after, case) for name in names if name in TRANSFORM_CHECKS), (
        names,
        before,
        after,
    )


def test_every_rule_has_a_case():
    rules = _rules()
    for case in ALL_CASES:
        assert case.program.parent.name == case.code, f"{case.program} triggers {case.code}"
        assert case.code in rules, case.program
        assert 1 < case.line <= len(case.lines) and case.lines[case.line - 1].strip(), case.program
        if "{variable}" in rules[case.code].fix:
            assert case.variable, f"{case.program}: give `(variable: NAME)` in the header"
        assert (case.capture / RECORDING).is_file(), f"record it: python tests/support/recording.py record {case}"
    covered = {case.code for case in ALL_CASES}
    assert not covered & WITHOUT_A_CASE, f"remove from WITHOUT_A_CASE: {sorted(covered & WITHOUT_A_CASE)}"
    missing = sorted(set(rules) - WITHOUT_A_CASE - covered - set(COVERED_ELSEWHERE))
    assert not missing, f"rules without a case in tests/rules/: {missing}"

    assert set(WRONG_MATCH) | set(FIX_NOT_BUILT) <= {case.id for case in ALL_CASES}  # no stale xfail entries
    # built by `doctor fix` from the lines that call the compiled function (tests/fix)
    program_level = {"move_outside", "move_after_call", "guard_helper_call", "return_printed", "pass_from_caller"}
    program_level |= {"leave_out_branch_argument", "set_fallback_attribute", "raise_limit_for_number_sweep"}
    assert set(TRANSFORM_CHECKS) | program_level >= {t for r in rules.values() for t in r.transforms}


@pytest.mark.parametrize(("code", "test"), sorted(COVERED_ELSEWHERE.items()))
def test_a_rule_covered_elsewhere_is_asserted_there(code, test):
    """A code whose case cannot be recorded here (it needs a GPU) is named by the test module that checks it."""
    assert code in _rules() and code not in {case.code for case in ALL_CASES}
    assert f'"{code}"' in (REPO / test).read_text(encoding="utf-8"), (code, test)


def test_no_stray_files_in_the_rule_folders():
    """Each file in a rule's folder belongs to a case: its program, capture or rendered finding."""
    for folder in RULES.glob("TCD*"):
        programs = {p.stem for p in folder.glob("*.py")}
        for entry in folder.iterdir():
            stem = entry.name.split(".", 1)[0]
            assert stem in programs or entry.name == "__pycache__", entry
