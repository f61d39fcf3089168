"""A break's two facts, origin (whose code its line is) and category (its cause), and advice that fits both:
the cause rule speaks for library code too (checked on a real transformers capture), torch's deliberate breaks
are info, and the fix text keeps the user's comments and does not break again (run under fullgraph=True)."""

from __future__ import annotations

import json
import textwrap
from dataclasses import replace

import pytest
from support.captures import CAPTURES, TRACES, snapshot_context, trace_root
from support.doctor import doctor_in_process
from support.paths import DATA
from support.rewrites import rewritten

from torchcompile_doctor.analysis.code import CodeMap
from torchcompile_doctor.analysis.detectors import rule_sets
from torchcompile_doctor.analysis.detectors.breaks import BreakFacts
from torchcompile_doctor.analysis.detectors.guard_cost import _user_can_act
from torchcompile_doctor.events.model import Guard
from torchcompile_doctor.gate.verdict import apply_gate
from torchcompile_doctor.model.experiment import as_json
from torchcompile_doctor.model.gate import GateCriteria
from torchcompile_doctor.model.report import Finding, Report, Summary
from torchcompile_doctor.rules import BreakSignature, rule
from torchcompile_doctor.rules.facts import fill
from torchcompile_doctor.rules.fixes import RewriteFacts
from torchcompile_doctor.source_files import read_source_file
from torchcompile_doctor.transforms.line_code import code_only

GENERIC_LIBRARY_FIX = rule("TCD120").fix


@pytest.fixture(scope="module")
def switch_report() -> dict:
    """The checked-in capture of a tiny SwitchTransformers compiled whole (tests/data/captures/README.md)."""
    run = doctor_in_process("report", str(CAPTURES / "hf_switch_tiny"), "--format", "json")
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def _at(report: dict, file_end: str, line: int) -> dict:
    (found,) = [
        f
        for f in report["findings"]
        if f["location"] and f["location"]["file"].endswith(file_end) and f["location"]["line"] == line
    ]
    return found


def test_a_library_break_has_origin_cause_and_the_cause_advice(switch_report):
    # transformers indexes `attention_mask` while it is None under compile: an observed TypeError
    mask = _at(switch_report, "switch_transformers/modeling_switch_transformers.py", 758)
    assert mask["origin"] == "third_party" and mask["category"] == "exception_handling"
    assert "pass `attention_mask` in your call at switch_tiny.py:16 (" in mask["fix"]["summary"]
    assert "`attention_mask=torch.ones_like(ids)`" in mask["fix"]["summary"]
    assert "out = compiled(input_ids=ids, decoder_input_ids=ids)" in mask["fix"]["summary"]
    assert mask["user_frame"]["line"] == 16  # the user's call into the model
    for finding in switch_report["findings"]:
        if finding["kind"] in ("graph_break", "frame_skipped"):
            assert finding["origin"] == "third_party"
            assert finding["category"] != "third_party_library"  # every one of these breaks has a cause rule
            assert GENERIC_LIBRARY_FIX not in finding["fix"]["summary"]
            # no rewrite of a library's line; the user's call line only to pass what it left out
            if finding["fix"]["before"] is not None:
                assert finding["fix"]["before"] == "out = compiled(input_ids=ids, decoder_input_ids=ids)"
                assert finding["fix"]["after"] == (
                    "out = compiled(input_ids=ids, decoder_input_ids=ids, attention_mask=torch.ones_like(ids))"
                )


@pytest.mark.parametrize(
    "signature, code",
    [
        # a cause rule fires whoever's code the line is
        (dict(gb_id="GB0170", gb_type="Data-dependent branching", text="", origin="third_party"), "TCD106"),
        (dict(gb_id="GB0291", gb_type="logging.Logger method not supported", text="", origin="third_party"), "TCD102"),
        (dict(gb_id="GB0291", gb_type="logging.Logger method not supported", text="", origin="user"), "TCD103"),
        # the generic library rule only where no cause rule exists
        (dict(gb_id="GB9999", gb_type="Something new", text="", origin="third_party"), "TCD120"),
        (dict(gb_id="GB9999", gb_type="Something new", text="", origin="user"), "TCD199"),
        # the construct around the break decides: a custom autograd.Function, torch's own deliberate breaks
        (
            dict(
                gb_id="GB0007",
                gb_type="Attempted to call function marked as skipped",
                text="Higher Order Operator: autograd.Function\n  Explanation: ...",
                origin="user",
            ),
            "TCD118",
        ),
        (
            dict(gb_id="GB0025", gb_type="Call to `torch._dynamo.graph_break()`", text="", origin="torch"),
            "TCD111",
        ),
        (
            dict(
                gb_id="GB0025",
                gb_type="Call to `torch._dynamo.graph_break()`",
                text="",
                origin="torch",
                owner_file="/venv/site-packages/torch/optim/optimizer.py",
            ),
            "TCD121",
        ),
        (
            dict(
                gb_id="GB0156",
                gb_type="Unsupported method call",
                text="",
                origin="torch",
                owner_file="/venv/site-packages/torch/nn/parallel/distributed.py",
            ),
            "TCD122",
        ),
        (
            dict(
                gb_id="GB0007",
                gb_type="Attempted to call function marked as skipped",
                text="",
                origin="user",
                skipped_origin="third_party",
            ),
            "TCD123",
        ),
    ],
)
def test_rule_for_break(signature, code):
    assert rule_sets()["graph_break"].for_break(BreakSignature(**signature)).code == code


def test_by_design_breaks_are_info_and_never_ask_for_a_custom_op_or_an_issue():
    for code in ("TCD121", "TCD122"):
        by_design = rule(code)
        assert by_design.severity == "info" and by_design.category == "by_design"
        assert "expected" in by_design.why
        text = (by_design.why + by_design.fix).lower()
        assert "custom_op" not in text and "report an issue" not in text


def test_a_library_wording_needs_its_facts():
    exceptions = rule("TCD117")
    facts = BreakFacts(library="transformers", none_argument="attention_mask", exception="TypeError(...)")
    assert "pass `{none_argument}`" in exceptions.worded_for("third_party", facts).fix
    assert "force_eager" in exceptions.worded_for("third_party", replace(facts, none_argument=None)).fix
    assert exceptions.worded_for("user", facts).fix == exceptions.fix  # the user's own line: the cause rule's text


def test_the_logging_experiment_names_the_method_to_ignore():
    facts = BreakFacts(logger_method="warning_once", logger_function_ref="transformers:logging.Logger.warning_once")
    worded = rule("TCD102").worded_for("third_party", facts)
    assert worded.experiment and as_json(worded.experiment) == {
        "config": {"ignore_logging_functions": ["transformers:logging.Logger.warning_once"]}
    }
    assert "ignore_logging_functions.add(logging.Logger.warning_once)" in fill(worded.fix, facts)
    unknown_method = rule("TCD102").worded_for("third_party", BreakFacts())
    assert unknown_method.experiment is None  # the method unknown: nothing to try


def test_origin_of_files(tmp_path):
    installed = tmp_path / "vendor"  # `pip install --target vendor`: a dist-info beside the package
    (installed / "somelib-1.0.dist-info").mkdir(parents=True)
    (installed / "somelib").mkdir()
    user = tmp_path / "project"
    code = CodeMap(str(user), ["/usr/lib/python3.11"], read_source_file)
    assert code.origin(str(user / "train.py")) == "user"
    assert code.origin(str(installed / "somelib" / "core.py")) == "third_party"
    assert code.display(str(installed / "somelib" / "core.py")) == "somelib/core.py"
    assert code.origin("/venv/lib/python3.11/site-packages/torch/optim/optimizer.py") == "torch"
    assert code.origin("/venv/lib/python3.11/site-packages/tqdm/std.py") == "third_party"
    assert code.origin("/usr/lib/python3.11/contextlib.py") is None  # acts for its caller
    assert code.origin("/venv/lib/python3.11/site-packages/torch/_dynamo/polyfills/__init__.py") is None
    assert code.origin(str(tmp_path / "elsewhere" / "helpers.py")) == "user"  # no dist-info: the user's


def test_packages_installed_in_a_venv_kept_in_the_project_are_libraries(tmp_path):
    """`python -m venv .venv` in the project: its site-packages are libraries, not the user's code (a re-read from
    the project's folder took transformers' logging call for the user's, TCD103, and built a fix in it)."""
    project = tmp_path / "project"
    code = CodeMap(str(project), (), read_source_file)
    installed = project / ".venv" / "lib" / "python3.11" / "site-packages"
    assert code.origin(str(installed / "transformers" / "modeling_utils.py")) == "third_party"
    assert code.origin(str(installed / "torch" / "optim" / "optimizer.py")) == "torch"
    assert code.origin(str(project / "train.py")) == "user"
    assert code.origin(str(project / "src" / "site_packages_report.py")) == "user"  # a name, not the folder


@pytest.mark.parametrize(
    "line, code",
    [
        ("n = int(h.norm().item())          # graph break (.item())", "n = int(h.norm().item())"),
        ('s = "#" + t  # note', 's = "#" + t'),
        ("x = f('a # b')", "x = f('a # b')"),
        ("# only a comment", ""),
    ],
)
def test_code_only(line, code):
    assert code_only(line) == code


def test_fixes_keep_the_users_comment():
    line = "    scale = y.abs().max().item()      # .item(): a break in the package"
    before, after = rewritten("drop_item", line)
    assert before == "scale = y.abs().max().item()      # .item(): a break in the package"
    assert after.splitlines()[-1] == "scale = y.abs().max()      # .item(): a break in the package"
    _, guarded = rewritten("guard_is_compiling", "log.info('x')  # debug only")
    assert guarded == "if not torch.compiler.is_compiling():\n    log.info('x')  # debug only"
    _, called = rewritten("tensor_argument", "f(x, step)  # step is the step counter", RewriteFacts(variable="step"))
    assert called == "f(x, torch.tensor(step))  # step is the step counter"  # the comment's `step` untouched


@pytest.mark.parametrize(
    "line",
    [
        "n = int(h.norm().item())          # graph break (.item())",
        "acc = correct.sum().item() / mask.sum().item()",
        "s = float(x.abs().max().item())",
    ],
)
def test_the_item_fix_does_not_break_the_graph(line):
    torch = pytest.importorskip("torch")
    _, after = rewritten("drop_item", line)
    assert ".item()" not in code_only(after.splitlines()[-1]) and "int(" not in code_only(after)
    namespace: dict = {"torch": torch}
    body = textwrap.indent(after, "    ")
    exec(f"def step(h, correct, mask, x):\n{body}\n    return h * 2", namespace)  # noqa: S102 - our own text
    torch._dynamo.reset()
    compiled = torch.compile(namespace["step"], backend="eager", fullgraph=True)  # raises on any graph break
    compiled(torch.ones(3), torch.ones(3), torch.ones(3), torch.ones(3))


@pytest.mark.parametrize(
    "line",
    [
        "n = int(h.norm().item())",  # truncated: 2.99... -> 2
        "n = float(h.norm().item())",
        "n = bool(h.sum().item() - 9.0)",
        "n = h.norm().item() / h.sum().item()",
    ],
)
def test_the_item_fix_keeps_the_value_the_conversion_gave(line):
    """What the program computes with the number is what it computes with the tensor kept: `int(...)` truncates, so
    `h.norm().long()`, not `h.norm()`, whose fraction would reach every later sum."""
    torch = pytest.importorskip("torch")
    _, after = rewritten("drop_item", line)
    results = []
    for code in (line, after):
        namespace: dict = {"torch": torch}
        exec(f"def step(h):\n{textwrap.indent(code, '    ')}\n    return h * 0 + n", namespace)  # noqa: S102 - our own text
        results.append(namespace["step"](torch.tensor([1.5, 2.5, 0.5])))  # norm 2.96, sum 4.5
    assert torch.equal(results[0], results[1]), (after, results)


@pytest.mark.parametrize(
    "expression, actionable",
    [
        ("not math.isnan(L['alpha'])", True),  # a float argument: pass it as a tensor
        ("G['CONFIG']['scale'] == 2.0", True),
        ("not math.isnan(L['___stack0'])", False),  # a value carried across a graph break
        ("L['self'].__dict__['_modules'] is L['self']._modules", False),
        (
            "G['__import_torch_dot_nn_dot_modules_dot_linear'].F is G['__import_torch_dot_nn'].F",
            False,
        ),
        ("G['torch'] is G['__import_transformers_dot_cache_utils'].torch", False),
    ],
)
def test_python_guard_rule_fires_only_where_the_user_can_act(expression, actionable):
    guard = Guard(kind="LAMBDA_GUARD", expression=expression, depth=1, where="s.py:3")
    assert _user_can_act(guard) is actionable


def _finding(code: str, severity: str) -> Finding:
    return Finding(
        code=code, kind="guard_cost", severity=severity, title="t", location=None, why="w", fix=None, fingerprint=code
    )


def test_preview_rules_do_not_fail_the_default_gate():
    assert rule("TCD213").status == "preview"
    report = Report(
        tool_version="t",
        torch_version=None,
        target="s.py",
        backend="eager",
        target_exit_code=0,
        target_status="ok",
        summary=Summary(),
        findings=(_finding("TCD213", "low"), _finding("TCD104", "high")),
    )
    default = apply_gate(report, GateCriteria().or_default())
    assert [fp for fp, _ in default.gate.failures] == ["TCD104"]
    asked = apply_gate(report, GateCriteria(fail_on="low"))
    assert {fp for fp, _ in asked.gate.failures} == {"TCD213", "TCD104"}


def test_a_compile_failure_carries_the_origin_and_category_of_its_break():
    from torchcompile_doctor.analysis import analyze
    from torchcompile_doctor.events.load import load_artifacts

    log = load_artifacts(DATA / "traces" / "fullgraph_failure.log")
    report = analyze(log, snapshot_context(TRACES, "t.py", trace_root(TRACES / "item_recompile.log")))
    (failure,) = [f for f in report.findings if f.kind == "compile_failure"]
    as_break = rule_sets()["graph_break"].for_break(
        BreakSignature(failure.gb_id, failure.gb_type or "", failure.evidence.torch_text, origin="user")
    )
    assert failure.origin == "user" and failure.category == as_break.category == "print_or_logging"


def test_every_cause_rule_speaks_about_library_code():
    """A cause rule's own text quotes the user's line; on a library's line a wording says what the library does
    and what the user can change from outside."""
    from torchcompile_doctor.rules import load_catalogue

    # the user's call into torch.optim / into a skipped package; a library's logging call is TCD102's
    user_only = {"TCD110", "TCD123", "TCD103"}
    for entry in load_catalogue():
        if entry.kind != "graph_break" or entry.match.fallback or entry.match.origins or entry.code in user_only:
            continue
        assert any("third_party" in w.origins for w in entry.wordings), entry.code
        for wording in (w for w in entry.wordings if "third_party" in w.origins):  # a user-only one quotes the line
            assert "{library}" in wording.why and "{site_where}" in wording.why, entry.code


def test_a_scheduler_wrapped_step_is_explained_not_moved_out():
    optimizer = rule("TCD110")
    facts = BreakFacts(scheduler_wrapped_step="Adam.step")
    worded = optimizer.worded_for("user", facts)
    assert worded.transforms == () and "expected" in worded.fix and "lr=torch.tensor" in worded.fix
    # opt.step() inside a training step
    assert optimizer.worded_for("user", BreakFacts()).transforms == ("move_outside",)
