"""Calls made only for their effect inside compiled code (print, logging, progress bars, timers, warnings): the
call kept for eager runs and skipped while Dynamo traces."""

from __future__ import annotations

import ast

from torchcompile_doctor.model.edits import Edit, ReplaceExpression, WrapStatement
from torchcompile_doctor.transforms.call_source import imports_torch
from torchcompile_doctor.transforms.line_code import dotted_name, names_bound, names_read
from torchcompile_doctor.transforms.site import Site
from torchcompile_doctor.transforms.statements import is_call_expression, simple_statement

NOT_COMPILING = "not torch.compiler.is_compiling()"


def names_no_torch(site: Site) -> str | None:
    """Why the guard cannot be written in the site's file: it names `torch`, which a file of the user's that does
    not `import torch` leaves unbound (the trial would end in a NameError). None for a line known alone."""
    if site.path and site.tree is not None and not imports_torch(site.source):
        return "the file does not `import torch`, which the guard names"
    return None


def guard_is_compiling(site: Site) -> tuple[Edit, ...] | str:
    """`print(x)` -> `if not torch.compiler.is_compiling():\n    print(x)`: only a call whose value is not used
    (an assignment under the guard would leave its name unbound while compiled)."""
    statement = simple_statement(site)
    if isinstance(statement, str):
        return statement
    if not is_call_expression(statement.node):
        return f"line {site.line} is not a call made for its effect"
    return names_no_torch(site) or (WrapStatement(statement.node.lineno, NOT_COMPILING),)


# progress bars that wrap an iterable and only report on it
_PROGRESS = frozenset({"tqdm", "track", "progress_bar", "alive_it"})


def unwrap_progress(site: Site) -> tuple[Edit, ...] | str:
    """`for block in tqdm(self.blocks, desc="blocks"):` -> `for block in self.blocks:`: the plain iterable, the
    progress bar (which Dynamo does not trace) left out of compiled code."""
    node = site.statement()
    if not isinstance(node, (ast.For, ast.AsyncFor)) or node.lineno != site.line:
        return f"line {site.line} is no `for` loop"
    call = node.iter
    name = dotted_name(call.func) if isinstance(call, ast.Call) else None
    if not isinstance(call, ast.Call) or (name or "").rsplit(".", 1)[-1] not in _PROGRESS or not call.args:
        return f"the loop at line {site.line} iterates no progress bar"
    old = ast.get_source_segment(site.source, call) or ""
    return (ReplaceExpression(node.lineno, old, ast.get_source_segment(site.source, call.args[0]) or ""),)


_CLOCKS = frozenset(
    {"time", "perf_counter", "monotonic", "process_time", "thread_time", "time_ns", "perf_counter_ns", "monotonic_ns"}
    | {"default_timer"}  # timeit's: time.perf_counter by another name
)


def reads_clock(node: ast.AST) -> bool:
    """A clock read (`time.perf_counter()`, `time.time()`, ...) anywhere in the node."""
    return any(
        isinstance(c, ast.Call) and (dotted_name(c.func) or "").rsplit(".", 1)[-1] in _CLOCKS for c in ast.walk(node)
    )


def _timing_block(body: list[ast.stmt], start: ast.stmt, returns: bool = False) -> list[ast.stmt] | None:
    """`start` (`t0 = time.perf_counter()`) and every later statement that reads what the block binds (`elapsed =
    time.perf_counter() - t0`, `self.timings.append(elapsed)`): None when one of them returns (unless `returns`),
    or binds a name the rest of the function reads too."""
    block, names = [start], names_bound(start)
    for statement in body[body.index(start) + 1 :]:
        read = names_read(statement)
        if read & names:
            block.append(statement)
            names |= names_bound(statement)
    rest = [s for s in body if s not in block]
    rest_reads = {n.id for s in rest for n in ast.walk(s) if isinstance(n, ast.Name)}
    if (not returns and any(isinstance(n, ast.Return) for s in block for n in ast.walk(s))) or names & rest_reads:
        return None
    return block


def timing_block(body: list[ast.stmt], line: int, returns: bool = False) -> list[ast.stmt] | None:
    """The timing block among the function body's statements (a clock read bound to a name, and the statements
    that use it) holding the line, or None; one that returns what it measures only where `returns`."""
    starts = [
        s
        for s in body
        if isinstance(s, ast.Assign) and len(names_bound(s)) == 1 and isinstance(s.value, ast.Call) and reads_clock(s)
    ]
    for start in starts:
        block = _timing_block(body, start, returns)
        if block is not None and len(block) > 1 and any(s.lineno <= line <= (s.end_lineno or 0) for s in block):
            return block
    return None


def guard_timer(site: Site) -> tuple[Edit, ...] | str:
    """A clock read in compiled code and the statements that use it (`t0 = time.perf_counter()` ... `self.spent +=
    time.perf_counter() - t0`), each put under `if not torch.compiler.is_compiling():`: the timing runs in eager
    calls only, and nothing the function returns depends on it."""
    function = site.function()
    if function is None:
        return "the line is in no function"
    block = timing_block(function.body, site.line)
    if block is not None:
        return names_no_torch(site) or tuple(WrapStatement(s.lineno, NOT_COMPILING) for s in block)
    return f"line {site.line} is in no timing block whose result only the block itself uses"
