"""Reading the user's code to write a fix at the line they hold: the expression passed for a parameter (found by
the call's exact columns, which the capture records), a `model = torch.compile(...)` statement, how the
torch.compile at a line is spelled. Parsed, never run."""

from __future__ import annotations

from torchcompile_doctor.events.model import CallSite
from torchcompile_doctor.transforms.call_source import (
    argument_expression,
    assigned_name,
    compile_callee,
    compile_statement,
    function_lines,
    helper_call_line,
    is_plain_reference,
    parameter_position,
    renamed,
    step_tail,
)

PROGRAM = """\
import torch


class Net(torch.nn.Module):
    def forward(self, tokens, mask=None):
        return tokens


@torch.compile
def step(values, scale):
    return values * scale


model = torch.compile(Net(), backend="eager")  # the model
for k in range(3):
    out = model(torch.ones(k + 1, 4), mask=k)
    y = step(batch[k], scale=2.0)
"""


def _site(line: int, column: int | None = None, end: int | None = None) -> CallSite:
    return CallSite("f.py", 5, "forward", "f.py", line, "<module>", column, line, end)


def test_the_parameter_s_position_leaves_self_out():
    assert parameter_position(PROGRAM, 5, "tokens") == 0
    assert parameter_position(PROGRAM, 5, "mask") == 1
    assert parameter_position(PROGRAM, 9, "values") == 0  # co_firstlineno of a decorated function: the decorator
    assert parameter_position(PROGRAM, 5, "nothing") is None


def test_the_call_at_the_recorded_columns_gives_the_user_s_expression():
    line = PROGRAM.splitlines()[15]
    start = line.index("model(")
    end = len(line)
    assert argument_expression(PROGRAM, _site(16, start, end), "tokens", 0) == "torch.ones(k + 1, 4)"
    assert argument_expression(PROGRAM, _site(16, start, end), "mask", 1) == "k"  # passed by keyword
    # the inner call on the same line is another call: the columns tell them apart
    inner = line.index("torch.ones(")
    assert argument_expression(PROGRAM, _site(16, inner, inner + len("torch.ones(k + 1, 4)")), "tokens", 0) == "k + 1"


def test_without_columns_only_a_line_with_one_call_is_read():
    assert argument_expression(PROGRAM, _site(17), "values", 0) == "batch[k]"  # `step(...)` is the line's only call
    assert argument_expression(PROGRAM, _site(16), "tokens", 0) is None  # two calls on the line


def test_plain_references_are_safe_to_evaluate_twice():
    assert is_plain_reference("batch[k]") and is_plain_reference("self.cache.keys") and is_plain_reference("x")
    assert not is_plain_reference("torch.ones(k + 1, 4)") and not is_plain_reference("next(it)")


def test_a_compile_statement_is_split_into_what_it_assigns_and_compiles():
    found = compile_statement(PROGRAM, 14)
    assert found is not None
    assert (found.target, found.model, found.keywords) == ("model", "Net()", 'backend="eager"')
    assert compile_statement(PROGRAM, 16) is None


def test_how_torch_compile_is_spelled_at_a_line():
    assert compile_callee(PROGRAM, 9) == "torch.compile"  # a bare decorator
    assert compile_callee(PROGRAM, 14) == "torch.compile"
    assert compile_callee(PROGRAM, 16) is None


def test_a_function_s_lines_include_its_decorator():
    assert function_lines(PROGRAM, 9) == range(9, 12)


STEP = """\
import torch


@torch.compile
def train_step(x, y):
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    loss.backward()
    opt.step()
    opt.zero_grad()
    return loss


def uses_a_local(x):
    loss = model(x).sum()
    scale = 2.0
    loss.backward()
    opt.step(scale)
    return loss


for x, y in batches:
    step_loss = train_step(x, y)
"""


def test_a_step_s_backward_and_optimizer_calls_are_its_tail():
    tail = step_tail(STEP, 4, 8)
    assert tail is not None
    assert (tail.variable, tail.lines, tail.code) == (
        "loss",
        (8, 9, 10),
        ("loss.backward()", "opt.step()", "opt.zero_grad()"),
    )
    assert step_tail(STEP, 4, 9) is None  # the tail starts at the backward call
    assert step_tail(STEP, 14, 17) is None  # `opt.step(scale)` needs a name only the function has


def test_the_tail_is_renamed_to_what_the_caller_assigns():
    assert assigned_name(STEP, 23) == "step_loss"
    assert renamed("loss.backward()", "loss", "step_loss") == "step_loss.backward()"
    assert renamed("opt.step()", "loss", "step_loss") == "opt.step()"


def test_the_call_of_a_helper_reaching_a_line_is_found_in_the_compiled_function():
    source = (
        "def inner(v):\n"  # 1
        "    sink.append(v)\n"  # 2
        "def outer(v):\n"  # 3
        "    inner(v)\n"  # 4
        "class M:\n"  # 5
        "    def forward(self, x):\n"  # 6
        "        y = x + 1\n"  # 7
        "        self.outer(y)\n"  # 8
        "        return y\n"  # 9
    )
    assert helper_call_line(source, 6, 2) == 8  # through `outer` to `inner`
    assert helper_call_line(source, 6, 2, depth=1) is None  # `inner` is not called directly
    assert helper_call_line(source, 6, 9) is None  # a line of the function itself: no helper
