"""Edits on the user's code: made on its syntax tree, so the rest of the file stays as written; anchored at the
innermost statement holding a line; refused, with the line named, where they cannot be made."""

from __future__ import annotations

from dataclasses import replace

import pytest

from torchcompile_doctor.patches.edits import (
    AddKeyword,
    AfterTorchImport,
    BranchToWhere,
    EditError,
    InsertAfter,
    InsertBefore,
    RemoveStatement,
    ReplaceExpression,
    ReplaceStatement,
    WrapStatement,
    edit_source,
)

STEP = """\
import torch
import logging

log = logging.getLogger(__name__)


def step(model, batch):  # the training step
    # compute the loss
    loss = model(batch,
                 labels=batch).loss
    n = loss.item()
    if n > 3:
        log.info("big loss %s", n)
    return loss
"""


def test_every_kind_of_edit_keeps_the_rest_of_the_file_as_written():
    edits = [
        AfterTorchImport("torch._dynamo.config.capture_scalar_outputs = True"),
        InsertBefore(9, "torch._dynamo.mark_dynamic(batch, 1)"),
        AddKeyword(10, "attention_mask", "batch.ne(0)"),  # a line inside the statement anchors it too
        WrapStatement(13, "not torch.compiler.is_compiling()"),
        ReplaceStatement(11, "n = loss.detach()  # a tensor"),
    ]
    assert (
        edit_source(STEP, edits)
        == """\
import torch
torch._dynamo.config.capture_scalar_outputs = True
import logging

log = logging.getLogger(__name__)


def step(model, batch):  # the training step
    # compute the loss
    torch._dynamo.mark_dynamic(batch, 1)
    loss = model(batch,
                 labels=batch, attention_mask=batch.ne(0)).loss
    n = loss.detach()  # a tensor
    if n > 3:
        if not torch.compiler.is_compiling():
            log.info("big loss %s", n)
    return loss
"""
    )


def test_a_compound_statement_is_anchored_by_its_header_and_its_body_by_its_own_lines():
    source = "import torch\n\nfor x in range(3):\n    print(x)\n"
    wrapped = edit_source(source, [WrapStatement(3, "not torch.compiler.is_compiling()")])
    assert (
        wrapped == "import torch\n\nif not torch.compiler.is_compiling():\n    for x in range(3):\n        print(x)\n"
    )
    inner = edit_source(source, [WrapStatement(4, "x")])
    assert inner == "import torch\n\nfor x in range(3):\n    if x:\n        print(x)\n"


def test_a_keyword_the_call_passes_already_is_left_alone_and_a_named_callee_is_found():
    source = "out = model(ids, attention_mask=mask)\ny = torch.compile(model)(ids)\n"
    assert edit_source(source, [AddKeyword(1, "attention_mask", "other")]) == source
    changed = edit_source(source, [AddKeyword(2, "dynamic", "True", callee="torch.compile")])
    assert changed.splitlines()[1] == "y = torch.compile(model, dynamic=True)(ids)"


def test_a_compile_keyword_forced_on_the_call_replaces_the_one_the_user_passes():
    source = "model = torch.compile(net, dynamic=False, backend='eager')\n"
    forced = AddKeyword(1, "dynamic", "True", callee="torch.compile", replace=True)
    assert edit_source(source, [forced]) == "model = torch.compile(net, dynamic=True, backend='eager')\n"
    assert edit_source(source, [replace(forced, replace=False)]) == source  # without `replace`: left as passed


def test_a_setting_after_import_torch_is_made_once():
    once = edit_source(STEP, [AfterTorchImport("torch._dynamo.config.recompile_limit = 16")])
    assert edit_source(once, [AfterTorchImport("torch._dynamo.config.recompile_limit = 16")]) == once
    with pytest.raises(EditError, match="no module-level `import torch`"):
        edit_source("import numpy\n", [AfterTorchImport("torch._dynamo.config.recompile_limit = 16")])


@pytest.mark.parametrize(
    ("edits", "message"),
    [
        ([InsertBefore(99, "x = 1")], "no statement at line 99"),
        ([ReplaceStatement(11, "n = 1"), WrapStatement(11, "True")], "two changes of the statement at line 11"),
        ([AddKeyword(11, "dim", "0", callee="torch.sum")], "no call of torch.sum at line 11"),
    ],
)
def test_an_edit_that_cannot_be_made_is_refused_and_says_where(edits, message):
    with pytest.raises(EditError, match=message):
        edit_source(STEP, edits)


def test_a_branch_on_a_tensor_becomes_one_torch_where_with_the_return_after_it():
    source = "def f(x):\n    x = x * 2\n    # flip negatives\n    if x.sum() < 0:\n        return -x\n    return x\n"
    assert edit_source(source, [BranchToWhere(4)]) == (
        "def f(x):\n    x = x * 2\n    # flip negatives\n    return torch.where(x.sum() < 0, -x, x)\n"
    )


def test_an_if_else_assignment_and_a_lone_if_assignment_become_torch_where():
    source = (
        "def f(x):\n    if x.mean() > 0:\n        y = x * 2\n    else:\n        y = x / 2\n"
        "    if y.max() > 1:\n        y = y - 1\n    return y\n"
    )
    # both lines as parsed: the first rewrite does not move the second
    assert edit_source(source, [BranchToWhere(2), BranchToWhere(6)]) == (
        "def f(x):\n    y = torch.where(x.mean() > 0, x * 2, x / 2)\n    y = torch.where(y.max() > 1, y - 1, y)\n"
        "    return y\n"
    )


@pytest.mark.parametrize(
    ("source", "line"),
    [
        ("if a:\n    x = 1\nelif b:\n    x = 2\n", 1),  # an elif: more than two values
        ("if a:\n    x = 1\n    y = 2\n", 1),  # two statements in the branch
        ("if a:\n    x = 1\nelse:\n    y = 2\n", 1),  # the branches assign different names
        ("x = 1\n", 1),  # no `if` there
    ],
)
def test_what_is_not_one_choice_between_two_values_is_left_alone(source, line):
    with pytest.raises(EditError):
        edit_source(source, [BranchToWhere(line)])


def test_a_bare_decorator_gets_called_with_the_keyword():
    source = "@torch.compile\ndef f(x):\n    return g(x)\n"
    assert edit_source(source, [AddKeyword(1, "dynamic", "True", "torch.compile")]) == (
        "@torch.compile(dynamic=True)\ndef f(x):\n    return g(x)\n"
    )


def test_statements_move_out_of_a_function_to_after_its_call():
    source = "def f(x):\n    y = g(x)\n    y.backward()\n    return y\n\n\nfor x in xs:\n    out = f(x)\n"
    edits = [RemoveStatement(3), InsertAfter(8, "out.backward()")]
    assert edit_source(source, edits) == (
        "def f(x):\n    y = g(x)\n    return y\n\n\nfor x in xs:\n    out = f(x)\n    out.backward()\n"
    )


def test_a_setting_s_import_is_made_again_where_the_file_imports_it_only_later():
    source = "import torch\nimport transformers\n"
    code = "import transformers\ntorch._dynamo.config.capture_scalar_outputs = True"
    assert edit_source(source, [AfterTorchImport(code)]) == (
        "import torch\nimport transformers\ntorch._dynamo.config.capture_scalar_outputs = True\nimport transformers\n"
    )
    done = edit_source(source, [AfterTorchImport(code)])
    assert edit_source(done, [AfterTorchImport(code)]) == done  # the same setting twice: made once


@pytest.mark.parametrize(
    ("line", "old", "new", "made"),
    [
        # found by the probe pass: a callee made a conditional kept what the call does
        ("y = f(x)\n", "f", "f if torch.is_grad_enabled() else g", "y = (f if torch.is_grad_enabled() else g)(x)\n"),
        ("y = a * s\n", "s", "b + c", "y = a * (b + c)\n"),
        ("y = -s\n", "s", "not t", "y = -(not t)\n"),
        ("y = s.sum()\n", "s", "a, b", "y = (a, b).sum()\n"),
        # as tight as what it replaces, or in the parentheses of what it replaces: written as given
        ("y = a + b * s\n", "b * s", "b * c", "y = a + b * c\n"),
        ("y = (s)\n", "(s)", "b if c else d", "y = (b if c else d)\n"),
        ("y = math.exp(t)\n", "math.exp(t)", "torch.exp(t)", "y = torch.exp(t)\n"),
    ],
)
def test_a_replaced_expression_binds_as_the_one_it_replaces(line, old, new, made):
    changed = edit_source(line, [ReplaceExpression(1, old, new)])
    assert changed == made
    compile(changed, "<edit>", "exec")
