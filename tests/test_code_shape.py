"""The package's shape stays readable: no function over 60 lines, no class over 150 (issue 12).
Complexity (McCabe at most 20, radon's grade C) is ruff's C901 in `make lint`."""

from __future__ import annotations

import ast

from support.paths import REPO

PACKAGE = REPO / "torchcompile_doctor"
MAX_FUNCTION_LINES = 60
MAX_CLASS_LINES = 150


def _blocks():
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                yield f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {node.name}", node, lines


def test_no_function_over_60_lines():
    long = [
        f"{where} ({lines} lines)"
        for where, node, lines in _blocks()
        if not isinstance(node, ast.ClassDef) and lines > MAX_FUNCTION_LINES
    ]
    assert not long, long


def test_no_class_over_150_lines():
    long = [
        f"{where} ({lines} lines)"
        for where, node, lines in _blocks()
        if isinstance(node, ast.ClassDef) and lines > MAX_CLASS_LINES
    ]
    assert not long, long


def test_the_shape_check_sees_the_package():
    names = {where.split(" ")[1] for where, _, _ in _blocks()}
    assert {"analyze", "main"} <= names  # a check that found nothing would pass vacuously
