"""The package's import graph, built from its source with ast (nothing imported): no circle, no import back up the
layers, and no import inside a function but the deliberate lazy ones (issue 24).

The layers follow the pipeline (ARCHITECTURE.md): capture -> events -> analysis/rules -> model -> renderers. The
records every stage hands on (the events, the report model, the typed experiment) sit below the stages, so a stage
reads what the one before it produced without importing that stage; the orchestration on top (pipeline, settings,
the CLI, the API, the pytest plugin, the experiments' runs, doctor fix) is the one place the stages meet."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from support.paths import REPO

PACKAGE = "torchcompile_doctor"

# layer -> the modules in it (a module belongs to the layer of its longest listed prefix)
LAYER_OF_PREFIX = {
    "foundation": ("", "errors", "exit_codes", "capture_layout", "torch_releases", "source_files"),
    "records": ("events.model", "events.guard_failures", "events.guard_terms", "model"),
    "events": ("events",),
    "capture": ("capture",),
    "rules": ("rules",),
    "transforms": ("transforms",),
    "analysis": ("analysis", "gate"),
    "renderers": ("renderers",),
    "patches": ("patches",),
    "orchestration": (
        "__main__",
        "pipeline",
        "settings",
        "cli",
        "cli_options",
        "api",
        "pytest_plugin",
        "experiments",
        "fix",
    ),
}

# layer -> the layers it may import besides its own: none of them runs back up the pipeline
MAY_IMPORT = {
    "foundation": set(),
    "records": {"foundation"},
    "events": {"foundation", "records"},
    "capture": {"foundation", "records", "events"},  # the child writes what events/ reads (side channel, dumps)
    "transforms": {"foundation", "records", "patches"},  # a transform's edits, made and parsed to render them
    "rules": {"foundation", "records", "transforms"},  # the catalogue names transforms; their facts are a rule's
    "analysis": {"foundation", "records", "rules", "transforms"},
    "renderers": {"foundation", "records"},  # a renderer reads the report only
    "patches": {"foundation", "records"},  # the edit kinds are records (model/edits.py)
    "orchestration": set(LAYER_OF_PREFIX),
}

# The only modules that import inside a function, and why: each keeps a start-up or a process free of what it
# does not use. Never to dodge a circle.
LAZY_IMPORTERS = {
    PACKAGE: "`import torchcompile_doctor` stays free of the API (diagnose, expect load it on first use)",
    f"{PACKAGE}.cli": "`doctor --help`, `rules`, `rule` load no pipeline, renderer or catalogue they do not use",
    f"{PACKAGE}.pipeline": "a command loads the stages it runs (the CLI's start-up loads none)",
    f"{PACKAGE}.pytest_plugin": "pytest loads the plugin in every run; a test that uses it loads the doctor",
    f"{PACKAGE}.capture.lazy_hooks": "depyf (and its torch) only when a dump is asked for",
    f"{PACKAGE}.transforms.engine": "libcst (patches/edits.py) only when a fix's edit is made, not for every report",
}


@dataclass(frozen=True)
class Import:
    importer: str
    imported: str
    line: int
    in_function: bool
    type_checking: bool


def _modules() -> dict[str, Path]:
    modules = {}
    for path in sorted((REPO / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(REPO).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


MODULES = _modules()


def _resolved(name: str) -> str:
    """The package module an imported name lives in (`pkg.mod.Class` -> `pkg.mod`)."""
    while name not in MODULES:
        name = name.rpartition(".")[0]
    return name


def _targets(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:  # relative: from the importer's package
        parts = module.split(".") if is_package else module.split(".")[:-1]
        base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
    return [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names]


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports_of(module: str, path: Path) -> Iterator[Import]:
    is_package = path.name == "__init__.py"

    def walk(node: ast.AST, in_function: bool, type_checking: bool) -> Iterator[Import]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                for target in _targets(child, module, is_package):
                    if target == PACKAGE or target.startswith(PACKAGE + "."):
                        yield Import(module, _resolved(target), child.lineno, in_function, type_checking)
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                yield from walk(child, True, type_checking)
            elif isinstance(child, ast.If) and _is_type_checking(child):
                for inner in child.body:
                    yield from walk(ast.Module(body=[inner], type_ignores=[]), in_function, True)
                for inner in child.orelse:
                    yield from walk(ast.Module(body=[inner], type_ignores=[]), in_function, type_checking)
            else:
                yield from walk(child, in_function, type_checking)

    yield from walk(ast.parse(path.read_text(encoding="utf-8")), False, False)


@functools.cache
def _all_imports() -> tuple[Import, ...]:
    """Every import of the package's own modules (parsed when a test first asks, not when the suite is collected)."""
    return tuple(found for module, path in MODULES.items() for found in _imports_of(module, path))


# the one import that runs up the layers, on purpose and only when called: the package's `diagnose` and `expect`
DELIBERATE = (PACKAGE, f"{PACKAGE}.api")


def _checked() -> list[Import]:
    """The imports the layering holds to: lazy and TYPE_CHECKING ones included."""
    return [i for i in _all_imports() if (i.importer, i.imported) != DELIBERATE]


def layer_of(module: str) -> str:
    name = module.removeprefix(PACKAGE).removeprefix(".")
    best, best_length = None, -1
    for layer, prefixes in LAYER_OF_PREFIX.items():
        for prefix in prefixes:
            fits = name == prefix or name.startswith(prefix + ".") or (prefix == "" and "." not in name and not name)
            if fits and len(prefix) > best_length:
                best, best_length = layer, len(prefix)
    assert best is not None, f"{module} is in no layer: name its layer in LAYER_OF_PREFIX"
    return best


def _circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_graph_is_read_from_the_source():
    # a sanity check of the reader: known edges are found, each in its place
    edges = {(i.importer, i.imported) for i in _all_imports()}
    assert (f"{PACKAGE}.analysis.analyze", f"{PACKAGE}.analysis.detectors") in edges
    assert (f"{PACKAGE}.renderers.sarif", f"{PACKAGE}.model.report") in edges
    lazy = {(i.importer, i.imported) for i in _all_imports() if i.in_function}
    assert (PACKAGE, f"{PACKAGE}.api") in lazy
    assert layer_of(f"{PACKAGE}.events.model") == "records" and layer_of(f"{PACKAGE}.events.load") == "events"
    assert layer_of(PACKAGE) == "foundation"


def test_every_module_has_a_layer():
    for module in MODULES:
        assert layer_of(module) in MAY_IMPORT


def test_no_import_circle():
    edges: dict[str, set[str]] = {module: set() for module in MODULES}
    for found in _checked():
        if found.imported != found.importer:
            edges[found.importer].add(found.imported)
    assert not _circles(edges)


def test_no_import_back_up_the_layers():
    upward = [
        f"{i.importer}:{i.line} imports {i.imported} ({layer_of(i.importer)} -> {layer_of(i.imported)})"
        for i in _checked()
        if layer_of(i.imported) != layer_of(i.importer) and layer_of(i.imported) not in MAY_IMPORT[layer_of(i.importer)]
    ]
    assert not upward, "\n".join(upward)


def test_imports_inside_functions_are_the_deliberate_lazy_ones():
    lazy = [
        f"{i.importer}:{i.line} imports {i.imported}"
        for i in _all_imports()
        if i.in_function and not i.type_checking and i.importer not in LAZY_IMPORTERS
    ]
    assert not lazy, "\n".join(lazy)
    for importer in LAZY_IMPORTERS:  # each one listed still is one
        assert any(i.importer == importer and i.in_function for i in _all_imports()), importer
