"""Every curated rule, triggered by a small script of its own (tests/rule_cases/tcdNNN_<short>.py).

Each script starts with `# triggers TCDNNN at line L`, optionally followed by `(variable: NAME)` when
the rule's fix names a variable. The test runs the real CLI on the script and checks that a finding
with that code sits at the script's line L (for a break inside a library: its `user_frame` does),
that the fix summary names what the rule's template promises (the user's line, function, variable,
file:line), and, for rules with a transform, that `fix.before`/`fix.after` are built from the user's
own line. Known catalogue or doctor problems are strict xfails, so fixing one makes its test fail
until its entry below is removed.
"""

from __future__ import annotations

import ast
import json
import os
import re
from pathlib import Path

import pytest
from conftest import matches_file

from torchcompile_doctor.rules import load_catalogue

RULE_CASES = Path(__file__).resolve().parent / "rule_cases"
CASES = sorted(p.name for p in RULE_CASES.glob("tcd*.py"))
HEADER = re.compile(r"^# triggers (?P<code>TCD\d{3}) at line (?P<line>\d+)(?: \(variable: (?P<variable>.+)\))?$")
# Fallbacks (any break / any recompile without a curated rule) and inductor perf hints
# (tests/test_inductor.py) have no case of their own.
# TCD214 (measured guard time) only exists under `doctor guards`: tests/test_guards.py covers it.
# Rank divergence (TCD501-TCD505) needs several ranks: tests/test_multirank.py covers it (live under torchrun
# and on the checked-in rank logs in tests/data/traces/multirank/).
NOT_CURATED = {"TCD199", "TCD299", "TCD404", "TCD214", "TCD501", "TCD502", "TCD503", "TCD504", "TCD505"}
# The carried-value rules (a recompile of a value that crossed a graph break): tests/test_detectors.py checks
# them on the recorded item_recompile.log, tests/test_try_fixes.py live on corpus case 04.
NOT_CURATED |= {"TCD216", "TCD217"}
# Compile time (TCD601-TCD604) needs inductor compiling on a cold (or warm) cache, 10-40 s a run on CPU:
# tests/test_compile_time.py checks them on the checked-in inductor captures of sample_models/repeated_blocks.py
# (cold and warm cache) and in one live inductor run.
NOT_CURATED |= {"TCD601", "TCD602", "TCD603", "TCD604"}
# A thread race (guards that fail, then pass when torch re-checks them) depends on timing:
# tests/test_recompile_classify.py checks torch's own text of it.
NOT_CURATED |= {"TCD219"}

# The GPU rules need a GPU (CUDA graphs, TF32, Triton): tests/test_gpu_findings.py checks them on the cases recorded
# on an H100 (tests/data/gpu/), tests/test_gpu_capture.py on torch's own messages; a custom backend's failure
# (TCD408) on tlparse's input (tests/test_tlparse_inputs.py); max-autotune's time (TCD605) on a derived trace.
NOT_CURATED |= {"TCD408", "TCD410", "TCD411", "TCD412", "TCD413", "TCD414", "TCD415", "TCD416", "TCD417", "TCD418"}
NOT_CURATED |= {"TCD419", "TCD420", "TCD605"}

# The script triggers another rule than the one it is written for (or none): the whole case xfails.
WRONG_MATCH: dict[str, str] = {}
# The finding is right but its fix has no before/after (a known gap): that test xfails.
FIX_NOT_BUILT: dict[str, str] = {}


def _rules() -> dict:
    return {rule.code: rule for rule in load_catalogue()}


def _parse_header(name: str) -> dict | None:
    lines = (RULE_CASES / name).read_text(encoding="utf-8").splitlines()
    match = HEADER.match(lines[0]) if lines else None
    return {"code": match["code"], "line": int(match["line"]), "variable": match["variable"]} if match else None


def _header(name: str) -> dict:
    header = _parse_header(name)
    assert header, f"{name}: the first line must read `# triggers TCDNNN at line L [(variable: NAME)]`"
    return header


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


def _marks(name: str, broken: dict) -> list:
    reason = WRONG_MATCH.get(name) or broken.get(name)
    return [pytest.mark.xfail(strict=True, reason=reason)] if reason else []


def _params(names: list[str], broken: dict) -> list:
    return [pytest.param(name, marks=_marks(name, broken), id=name.removesuffix(".py")) for name in names]


@pytest.fixture(scope="session")
def doctor_report(shared_run):
    """The doctor's JSON run on a case, once per test session even across xdist workers."""

    def get(name: str) -> dict:
        run = shared_run("explain", name, "--format", "json", cwd=RULE_CASES)
        return {"returncode": run.returncode, "stdout": run.stdout, "stderr": run.stderr}

    return get


def _finding(name: str, run: dict) -> tuple[dict, dict, list[str]]:
    """(the finding with the case's code at its line, the header, the script's lines)."""
    header = _header(name)
    code, line = header["code"], header["line"]
    expected_exit = 3 if _rules()[code].kind == "target_error" else 0
    assert run["returncode"] == expected_exit, run["stderr"][-3000:]
    findings = json.loads(run["stdout"])["findings"]

    def at(place: dict | None) -> bool:
        return bool(place) and matches_file(place["file"], name) and place["line"] == line

    hits = [f for f in findings if f["code"] == code and at(f["location"])]
    hits += [f for f in findings if f["code"] == code and not at(f["location"]) and at(f["user_frame"])]
    seen = [
        (f["code"], f"{os.path.basename(f['location']['file'])}:{f['location']['line']}", f["gb_id"], f["gb_type"])
        for f in findings
        if f["location"]
    ]
    assert hits, f"no {code} finding at {name}:{line}; the doctor found {seen}"
    lines = (RULE_CASES / name).read_text(encoding="utf-8").splitlines()
    return hits[0], header, lines


@pytest.mark.slow
@pytest.mark.parametrize("name", _params(CASES, {}))
def test_rule_case(name, doctor_report):
    finding, header, lines = _finding(name, doctor_report(name))
    rule = _rules()[header["code"]]
    line = header["line"]
    source = lines[line - 1].strip()
    function = _function_at("\n".join(lines), line)
    assert finding["kind"] == rule.kind and finding["rule"] == rule.name

    # where: the user's own line (for a break inside a library, the user's call into it)
    in_script = finding["location"] and matches_file(finding["location"]["file"], name)
    user_place = finding["location"] if in_script else finding["user_frame"]
    assert user_place["source"] == source
    if user_place is finding["location"]:
        if rule.kind != "unused_suppression":  # a comment: the doctor names no function for it
            assert finding["location"]["function"] == function
    else:  # a break inside a library: the location is the library's line, the user's call is user_frame
        assert not matches_file(finding["location"]["file"], name)

    # the fix names what its template promises, for this script
    summary = finding["fix"]["summary"]
    promised = {
        "{source}": source,
        "{where}": f"{name}:{line}",
        "{function}": function,
        "{variable}": header["variable"],
        "{break_fix}": source,  # a frame skip carries the fix of its break, which names the line
    }
    for placeholder, value in promised.items():
        if placeholder in rule.fix:
            assert value, f"{name}: the header must give `(variable: NAME)` for {rule.code}'s fix"
            assert value in summary, (placeholder, value, summary)
    assert "{" not in summary.replace("{}", ""), summary  # no template left unfilled

    # any before/after shown is built from a line of the user's script
    before = finding["fix"]["before"]
    if before is not None:
        assert before in {text.strip() for text in lines}, before
        assert finding["fix"]["after"] and finding["fix"]["after"] != before


def _transform_cases() -> list[str]:
    """Cases whose rule has a transform (a bad header is reported by test_every_curated_rule_has_a_case)."""
    rules = _rules()
    headers = {name: _parse_header(name) for name in CASES}
    return [name for name, h in headers.items() if h and h["code"] in rules and rules[h["code"]].transform]


# What each transform must do to the user's line: (before, after, the case's header) -> bool.
TRANSFORM_CHECKS = {
    "guard_is_compiling": lambda b, a, h: a == f"if not torch.compiler.is_compiling():\n    {b}",
    "drop_item": lambda b, a, h: ".item()" in b and ".item()" not in a.split("#")[0],
    "drop_tolist": lambda b, a, h: ".tolist()" in b and ".tolist()" not in a.split("#")[0],
    "branchless_where": lambda b, a, h: f"torch.where({b.removeprefix('if ').removesuffix(':')}," in a,
    "move_outside": lambda b, a, h: a.splitlines()[-1] == b,
    "numpy_to_torch": lambda b, a, h: re.search(r"\bnp\.|\.numpy\(\)", b) and not re.search(r"\bnp\.|\.numpy\(\)", a),
    "cast_at_call_site": lambda b, a, h: f"{h['variable']}.to(torch." in a,
    "tensor_argument": lambda b, a, h: f"torch.tensor({h['variable']})" in a,
    "mark_dynamic": lambda b, a, h: f"torch._dynamo.mark_dynamic({h['variable']}, " in a and a.endswith(b),
    "tensor_hyperparameter": lambda b, a, h: "optim." in b and "lr=torch.tensor(" in a,
    "module_counter_buffer": lambda b, a, h: f'register_buffer("{h["variable"].removeprefix("self.")}"' in a,
}


@pytest.mark.slow
@pytest.mark.parametrize("name", _params(_transform_cases(), FIX_NOT_BUILT))
def test_rule_case_fix_rewrites_the_user_line(name, doctor_report):
    finding, header, lines = _finding(name, doctor_report(name))
    rule = _rules()[header["code"]]
    before, after = finding["fix"]["before"], finding["fix"]["after"]
    assert before and after, f"{rule.code} has transform {rule.transform} but the fix has no before/after"
    if rule.kind in ("graph_break", "frame_skipped"):
        assert before == lines[header["line"] - 1].strip()  # the line that breaks, or the user's call
    else:  # recompiles: the user's call (input fixes) or the line the guard came from
        assert before in {text.strip() for text in lines}
        if rule.transform in ("cast_at_call_site", "tensor_argument", "mark_dynamic"):
            assert re.search(rf"\b{re.escape(header['variable'])}\b", before.split("(", 1)[-1]), before
    assert TRANSFORM_CHECKS[rule.transform](before, after, header), (rule.transform, before, after)


def test_every_curated_rule_has_a_case():
    rules = _rules()
    assert NOT_CURATED <= set(rules)
    headers = {name: _header(name) for name in CASES}
    for name, header in headers.items():
        assert name.startswith(header["code"].lower() + "_"), f"{name} triggers {header['code']}"
        assert header["code"] in rules and header["code"] not in NOT_CURATED, name
        lines = (RULE_CASES / name).read_text(encoding="utf-8").splitlines()
        assert 1 < header["line"] <= len(lines) and lines[header["line"] - 1].strip(), name
        if "{variable}" in rules[header["code"]].fix:
            assert header["variable"], f"{name}: give `(variable: NAME)` in the header"
    covered = {header["code"] for header in headers.values()}
    missing = sorted(set(rules) - NOT_CURATED - covered)
    assert not missing, f"rules without a case in tests/rule_cases/: {missing}"
    assert set(WRONG_MATCH) | set(FIX_NOT_BUILT) <= set(CASES)  # no stale xfail entries
    assert set(TRANSFORM_CHECKS) >= {r.transform for r in rules.values() if r.transform}
