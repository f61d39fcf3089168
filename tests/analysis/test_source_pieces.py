"""A source file's outline read piece by piece (analysis/source_pieces.py) is the outline of its whole syntax tree:
on the sources the reports read (the package's own modules, the torch and transformers files recorded captures
name) and on the shapes that put a cut where no statement starts."""

from __future__ import annotations

import ast
import gc
import importlib.util
import textwrap
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest
from support.paths import REPO

from torchcompile_doctor.analysis import function_defs
from torchcompile_doctor.analysis.function_defs import FileOutline, file_outline


def whole_tree_outline(lines: list[str]) -> FileOutline | None:
    """The outline as one ast.parse of the whole file gives it (what file_outline did before it read pieces)."""
    text = "".join(lines) if lines and lines[0].endswith("\n") else "\n".join(lines)
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    scopes, none_defaults = [], []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            end = node.end_lineno or node.lineno
            scopes.append((node.name, start, node.lineno, end))
            if not isinstance(node, ast.ClassDef):
                none_defaults.append((node.lineno, end, function_defs._none_default_parameters(node)))
    nested = function_defs._nested_defs(tree.body, "")
    return FileOutline(tuple(nested), tuple(sorted(scopes)), tuple(sorted(none_defaults)))


def piecewise(lines: list[str]) -> FileOutline | None:
    found = file_outline(lines)
    if found is None:
        return None
    return FileOutline(found.nested, tuple(sorted(found.scopes)), tuple(sorted(found.none_defaults)))


SHAPES = {
    "a def in a module docstring, at column 0": '''
        """Example:
        def not_code(x=None):
            pass
        class NotAClass:
            pass
        """
        import os


        def real(a, b=None):
            return a
        ''',
    "a def in a class attribute's string, at the members' indentation": '''
        class A:
            text = """
            def not_a_member(self):
                pass
        def not_top_level():
            pass
        """

            def member(self, x=None):
                return x
        ''',
    "decorators stacked, one over several lines": """
        @a
        @b(
        c)
        def f(x=None):
            pass


        @dataclass
        class B:
            @property
            @other
            def p(self):
                return 1

            @staticmethod
            def s(y=None):
                return y
        """,
    "module statements right after a class, then an if block with defs at the members' indentation": """
        class A:
            def f(self):
                pass
        A.f = wrap(A.f)
        if FLAG:
            pass
            def g(z=None):
                pass
        else:
            def h():
                pass


        def after():
            pass
        """,
    "a class with no statement before its first member, and one whose members are all in if blocks": """
        class A:
            def f(self):
                return 1
            class Inner:
                def g(self, q=None):
                    def local(r=None):
                        return r
                    return local

        class B:
            if X:
                def f(self):
                    pass
            else:
                def f(self, w=None):
                    pass
        """,
    "brackets and continued lines across a cut": """
        x = (1 +
        2)
        y = compute(a
        @ b)
        z = 1 + \\
        2
        def f():
            pass
        class C(
        Base):
            def m(self):
                pass
        """,
    "a syntax error after many pieces": "\n".join(f"def f{i}():\n    pass\n" for i in range(12)) + "def broken(:\n",
    "a syntax error inside a class's last member": """
        class A:
            def f(self):
                pass
            def g(self:
                pass
        """,
    "async defs, a match statement, try blocks": """
        async def f(x=None):
            match x:
                case 1:
                    def inner(y=None):
                        pass
            try:
                pass
            except E:
                def handler(z=None):
                    pass
            finally:
                def last():
                    pass
        class K:
            async def m(self, k=None):
                pass
        """,
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_the_outline_read_in_pieces_is_the_whole_trees(name):
    text = textwrap.dedent(SHAPES[name]).lstrip("\n")
    lines = text.splitlines(keepends=True)
    expected = whole_tree_outline(lines)
    assert piecewise(lines) == expected
    assert piecewise(text.splitlines()) == expected  # lines without their newlines (a snapshot's, some readers')
    if "syntax error" in name:
        assert expected is None
    else:
        assert expected is not None and expected.nested


def package_dir(name: str) -> Path:
    """Where an installed package's files are (found, not imported)."""
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.origin is not None, name
    return Path(spec.origin).parent


def _sources() -> list[Path]:
    """The package's own modules, and library files the recorded captures' reports read (torch's, transformers')."""
    torch, transformers = package_dir("torch"), package_dir("transformers")
    found = sorted((REPO / "torchcompile_doctor").rglob("*.py"))
    found += [torch / "nn" / "modules" / "module.py", torch / "_dynamo" / "eval_frame.py"]
    found += [transformers / "modeling_utils.py", transformers / "models" / "gpt2" / "modeling_gpt2.py"]
    found += sorted((transformers / "utils").glob("*.py"))
    return found


def test_real_sources_read_in_pieces_give_the_whole_trees_outline():
    sources = _sources()
    assert len(sources) > 100
    for path in sources:
        assert path.is_file(), path
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        assert piecewise(lines) == whole_tree_outline(lines), path


def test_a_big_library_file_is_never_held_as_one_tree():
    """transformers' modeling_utils.py is one 4,000-line class: its whole tree is about 14 MB of objects, the
    biggest of its pieces (one method) under 2 MB."""
    path = package_dir("transformers") / "modeling_utils.py"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)

    def peak_of(work: Callable[[], object]) -> int:
        # what the work adds at its peak, the least of three tries: tracemalloc also counts what another thread
        # of the test session allocates meanwhile (under xdist this test once read 5.3 MB where it takes 1.4 MB)
        peaks = []
        for _ in range(3):
            gc.collect()
            tracemalloc.reset_peak()
            start = tracemalloc.get_traced_memory()[0]
            work()
            peaks.append(tracemalloc.get_traced_memory()[1] - start)
        return min(peaks)

    tracemalloc.start()
    try:
        whole_peak = peak_of(lambda: ast.parse("".join(lines)))
        pieces_peak = peak_of(lambda: file_outline(lines))
    finally:
        tracemalloc.stop()
    outline = file_outline(lines)
    assert outline is not None and any(d.qualified == "PreTrainedModel.from_pretrained" for d in outline.nested)
    assert pieces_peak < whole_peak / 3, (pieces_peak, whole_peak)
