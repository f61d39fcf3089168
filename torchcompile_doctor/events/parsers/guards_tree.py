"""`dynamo_cpp_guards_str`: the C++ guard tree of one cache entry, one leaf guard per line::

    TREE_GUARD_MANAGER:
    +- RootGuardManager
    | +- GLOBAL_STATE: ___check_global_state() against {...}
    | +- GuardManager: source=L['x'], accessed_by=..., type=<class 'torch.Tensor'>, ...
    | | +- TENSOR_MATCH: check_tensor(L['x'], ...)  # return x + 1  # dir/model.py:11 in forward

Managers (CamelCase) are the tree's structure; leaves (UPPER_CASE kinds) are the guards. The one parser of
this text: events/dumps/depyf_dump.py reads the observe hook's `__guard_tree_*` files with it too.
"""

from __future__ import annotations

import functools
import re

from torchcompile_doctor.events.model import Guard, GuardTree
from torchcompile_doctor.events.parsers.base import Parser
from torchcompile_doctor.events.parsers.common import PayloadMemo, compile_id_of, shared_table
from torchcompile_doctor.events.reader import Record

_LEAF = re.compile(r"^(?P<indent>(?:\| )*)\+- (?P<kind>[A-Z][A-Z0-9_]+): (?P<rest>.*)$", re.S)
# Manager lines, the header and torch's trailer (after a blank line): neither a guard nor part of one.
_STRUCTURE = re.compile(r"^(?:\| )*(?:\+- |\| )|^TREE_GUARD_MANAGER:|^Guard latency = ")
# "  # source line  # path:11 in fn", or only "  # path:11 in fn" for torch's own guards
_COMMENT = re.compile(r"\s{2,}# (?:(?P<source>.*?)\s+# )?(?P<where>\S+:\d+) in \S+(?: \(HINT: .*\))?\s*$")
# torch's hint after a guard that names no line (dict and set guards on 2.15: `not ___dict_contains(...) (HINT: ...)`)
_HINT = re.compile(r"\s+\(HINT: .*\)\s*$", re.S)


def leaf_texts(text: str) -> list[str]:
    """The text of each leaf guard: its line, with the lines that continue it (a guard text spanning lines)."""
    leaves: list[str] = []
    open_leaf = False  # the last leaf may still continue: no blank or structure line since
    for line in text.split("\n"):
        if _LEAF.match(line):
            leaves.append(line)
            open_leaf = True
        elif open_leaf and line.strip() and not _STRUCTURE.match(line):
            leaves[-1] += "\n" + line
        else:
            open_leaf = False
    return leaves


def parse_tree(text: str) -> tuple[Guard, ...]:
    """The leaf guards of a C++ guard tree, from TORCH_TRACE or from a dump's `__guard_tree_*` file."""
    return tuple(_guard(leaf) for leaf in leaf_texts(text))


def parse_guard(kind: str, text: str, depth: int = 1) -> Guard:
    """One guard given its kind and its text as a leaf carries it (`expression  # source  # file:line in fn`):
    depyf's full_code checks, which have the same text but no tree around them."""
    return _guard(f"{'| ' * depth}+- {kind}: {text}")


# The cache entries of a frame repeat most of their guard lines: one Guard per distinct line keeps memory
# flat across recompiles (a Guard is frozen, so sharing it is safe).
@functools.lru_cache(maxsize=1 << 14)
def _guard(line: str) -> Guard:
    leaf = _LEAF.match(line)
    if leaf is None:  # parse_guard with a kind that is no guard kind
        raise ValueError(f"not a guard-tree leaf: {line[:80]!r}")
    rest = leaf["rest"]
    comment = _COMMENT.search(rest)
    # a free-text note ("# implicit guard for float input ...") is not part of the expression
    expression = rest[: comment.start()] if comment else _HINT.sub("", rest.split("  # ", 1)[0])
    return Guard(
        kind=leaf["kind"],
        expression=expression.strip(),
        depth=len(leaf["indent"]) // 2,
        source=comment["source"].strip() if comment and comment["source"] else None,
        where=comment["where"] if comment else None,
    )


shared_table(_guard.cache_clear)

# A guard set logged again (the same cache entry's guards on another compile or rank) is one tuple, parsed once.
_TREES = PayloadMemo(parse_tree)


def parse(record: Record, strings: dict[int, str]) -> GuardTree | None:
    if not record.payload or "GuardManager" not in record.payload:
        return None
    return GuardTree(compile_id_of(record.meta), _TREES(record))


PARSER = Parser(frozenset({"dynamo_cpp_guards_str"}), needs_payload=True, parse=parse)
