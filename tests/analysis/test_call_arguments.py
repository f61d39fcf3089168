"""What the user's call line passes for a compiled function's parameter (analysis/call_arguments.py), and the
fix code written with it (rules/fixes.py): the lines are real call lines, parsed, never run."""

from __future__ import annotations

import ast

import pytest
from support.rewrites import rewritten

from torchcompile_doctor.analysis.call_arguments import argument_passed, parameters_of, passed_for
from torchcompile_doctor.rules.fixes import RewriteFacts


def _def(source: str) -> ast.FunctionDef:
    node = ast.parse(source).body[0]
    assert isinstance(node, ast.FunctionDef)
    return node


A2C = _def("def a2c_loss(log_probs, values, returns, entropy_coef=0.01):\n    pass")
FORWARD = _def("def forward(self, tokens, lengths):\n    pass")


@pytest.mark.parametrize(
    ("line", "function", "variable", "passed"),
    [
        # the realworld RL program's line: its `values` is a list, the call passes a tensor made from it
        (
            "    loss = a2c_loss(torch.stack(log_probs), torch.stack(values), discounted_returns(rewards))",
            A2C,
            "values",
            "torch.stack(values)",
        ),
        ("out = attend(q, key=k)", _def("def attend(query, key): pass"), "key", "k"),
        ("out = attend(q, k)", _def("def attend(query, key): pass"), "key", "k"),
        # a module called by its variable: `self` is the module, the rest bind in order
        ("        b = compiled(tokens, lengths)", FORWARD, "tokens", "tokens"),
        ("logits = head(model(batch.x), y)", _def("def forward(self, x): pass"), "x", "batch.x"),
        ("out = compiled(**inputs)", FORWARD, "lengths", "inputs['lengths']"),
        ("x = step(x, torch.tensor(i))  # the counter", _def("def step(x, i): pass"), "i", "torch.tensor(i)"),
    ],
)
def test_the_argument_the_line_passes(line, function, variable, passed):
    assert passed_for(line, function, variable) == passed


@pytest.mark.parametrize(
    "line",
    [
        "out = f(*args)",  # which element of args: unknown from the line
        "loss = a2c_loss(",  # the first line of a call over several lines
        "",
    ],
)
def test_a_line_that_cannot_say_gives_nothing(line):
    assert argument_passed(line, "f", ["x", "y"], "y") is None


def test_parameters_leave_out_the_methods_object():
    assert parameters_of(FORWARD) == ["tokens", "lengths"]
    assert parameters_of(A2C) == ["log_probs", "values", "returns", "entropy_coef"]


def test_mark_dynamic_binds_a_value_made_at_the_call_before_marking_it():
    """`mark_dynamic` on the user's list raises AttributeError (checked: `'list' object has no attribute
    '_dynamo_dynamic_indices'`); on the stacked tensor, bound to a name and passed, it removes the recompile
    (checked on tests/data/recompile_judgement/call_line_names.py: 1 recompile of `score` before, 0 after)."""
    line = "    print(score(torch.stack(values), w).item())"
    facts = RewriteFacts(variable="values", passed="torch.stack(values)", dim=0)
    before, after = rewritten("mark_dynamic", line, facts)
    assert before == line.strip()
    assert after == (
        "values_tensor = torch.stack(values)\n"
        "torch._dynamo.mark_dynamic(values_tensor, 0)\n"
        "print(score(values_tensor, w).item())"
    )


def test_mark_dynamic_names_what_the_user_holds():
    _, after = rewritten("mark_dynamic", "y = attend(q, k)", RewriteFacts(variable="key", passed="k", dim=0))
    assert after == "torch._dynamo.mark_dynamic(k, 0)\ny = attend(q, k)"


def test_tensor_argument_wraps_the_passed_expression():
    _, after = rewritten("tensor_argument", "x = step(x, n // 2)", RewriteFacts(variable="i", passed="n // 2"))
    assert after == "x = step(x, torch.tensor(n // 2))"
