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


# -- torch's guard text is read once, in events/ (#35) ------------------------------------------------
# What a pattern or a literal looks for when it reads torch's guard text: the frame's locals and globals as guards
# name them (L['x'], G['x']), Dynamo's helpers (___check_obj_id, ___stack0, ___as_tensor), the C++ tree's tensor
# check, a size or stride term, a module's children as a guard spells them, the global-state check.
GUARD_TEXT_MARKERS = (
    r"L\[",
    r"G\[",
    r"[LG]\[",
    "L['",
    "G['",
    "___",
    "check_tensor",
    "DispatchKeySet",
    r"size\(\)",
    r"stride\(\)",
    "_modules",
    "isnan",
    "check_global_state",
    r"hasattr\(",
    " == ",
)
_RE_FUNCTIONS = {"compile", "search", "match", "fullmatch", "sub", "subn", "findall", "finditer", "split"}
EVENTS_GUARD_READERS = ("events/guard_failures.py", "events/guard_terms.py")


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring constants (they describe guard text; they do not read it)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def guard_text_readers(path) -> list[str]:
    """`file:line pattern` for each regex (a `re.*` call's literal pattern) or string literal in `path` that looks
    for torch's guard text."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        text = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _RE_FUNCTIONS:
            if isinstance(node.func.value, ast.Name) and node.func.value.id == "re" and node.args:
                first = node.args[0]
                text = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            text = node.value if any(m in node.value for m in ("L['", "G['", "___")) else None
        if text is not None and any(marker in text for marker in GUARD_TEXT_MARKERS):
            found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {text[:60]!r}")
    return sorted(set(found))


def test_no_regex_over_guard_text_outside_events():
    """The analysis (and every layer after events/) reads guard failures and guard trees as typed terms
    (events/guard_failures.py, events/guard_terms.py): a new torch wording is one place to change, not six."""
    outside = [
        hit
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).parts[0] != "events"
        for hit in guard_text_readers(path)
    ]
    assert not outside, outside


def test_the_guard_text_check_finds_the_readers_in_events():
    """The check above would see a reader: it finds the ones events/ holds (every module that reads guard text)."""
    for name in EVENTS_GUARD_READERS:
        assert guard_text_readers(PACKAGE / name), name
