"""The names a file calls a module of its own class by (transforms/module_callers.py), which the timing, growing
and loop fixes share: instances made through methods that return them, and every way a file compiles one."""

from __future__ import annotations

import ast

import pytest

from torchcompile_doctor.transforms.module_callers import (
    calls_by_name,
    compiled_function_names,
    compiled_module_callers,
    instances_of,
    makes_instance,
)


@pytest.mark.parametrize(
    ("code", "made"),
    [
        ("Net()", True),
        ("Net(cfg).eval()", True),
        ("Net().to(device).train(False)", True),
        ("models.Net(4)", False),  # another name than the class's
        ("Net().forward(x)", False),  # a method whose result is no module
        ("Net", False),
        ("make_net().eval()", False),
    ],
)
def test_an_instance_is_the_class_called_and_what_returns_it(code: str, made: bool) -> None:
    assert makes_instance(ast.parse(code, mode="eval").body, "Net") is made


PROGRAM = """\
import torch
from torch import compile


def main():
    local = Net().cuda()
    faster = torch.compile(local, mode="max-autotune")
    return faster(x)


model = Net().eval()
cmodel = torch.compile(model)
fresh = torch.compile(Net())
other = torch.compile(Other())
imported = compile(Net(2).eval())
inplace = Net()
inplace.compile()
g = torch.compile(step)
step = torch.compile(step)
out = cmodel(x) + fresh(x) + other(x) + model(x)
"""


def test_every_way_a_file_compiles_a_module_of_the_class_names_its_callers() -> None:
    tree = ast.parse(PROGRAM)
    assert instances_of(tree, "Net") == {"local", "model", "inplace"}
    assert compiled_module_callers(tree, "Net") == {
        "faster": "local",  # a function's own names too
        "cmodel": "model",  # an instance compiled by name: its attributes are the instance's
        "fresh": "fresh",  # a module made in the call: the compiled wrapper reads its attributes
        "imported": "imported",
        "inplace": "inplace",
    }
    assert compiled_function_names(tree, "step") == {"g", "step"}
    assert [call.lineno for call in calls_by_name(tree, {"cmodel", "model"})] == [20, 20]
