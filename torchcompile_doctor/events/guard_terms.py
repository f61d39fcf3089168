"""torch's guard expressions (the leaves of `dynamo_cpp_guards_str`), read once into typed terms: what a guard
compares and to which value, which tensor it checks and how, which object or type it pins, whether it ties two
sizes together, what grad mode the global state holds, and the expression in the user's words. The guard-tree
parser attaches one term to each Guard (events/parsers/guards_tree.py); the analysis reads only these fields, never
the expression's text (tests/test_code_shape.py checks that no regex over guard text lives outside events/)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache

from torchcompile_doctor.events.guard_failures import is_carried_value, user_variable, worded_internals

_MODULES = re.compile(r"\._modules\['([^']+)'\]")
_LOCAL = re.compile(r"\b[LG]\['([^']+)'\]")
# torch 2.11 reads a float input made dynamic as `___as_tensor(L['x']).item()`: the user's `x`
_AS_TENSOR = re.compile(r"___as_tensor\((?P<name>[^()]+)\)\.item\(\)")
_READ_BACK = re.compile(r"^___as_tensor\(.+\)\.item\(\)$")
_TENSOR = re.compile(
    r"check_tensor\((?P<name>[^,]+), \w+, DispatchKeySet\([^)]*\), torch\.(?P<dtype>\w+), device=(?P<device>[^,]+), "
    r"requires_grad=(?P<rg>\w+), size=\[(?P<size>[^\]]*)\], stride=\[(?P<stride>[^\]]*)\]"
)
_EQUALS = re.compile(r"^(?P<lhs>.+?) == (?P<rhs>.+)$")
_DICT_CONTAINS = re.compile(r"^(?P<negated>not )?___dict_contains\('(?P<key>[^']+)', (?P<mapping>.+)\)$")
_MODULE_DICT = re.compile(r"\._(?P<what>modules|parameters|buffers)$")
_OBJECT_ID = re.compile(r"___check_obj_id\((.+?), \d+\)")
_TYPE_ID = re.compile(r"___check_type_id\((.+?), \d+\)(?:, type=<class '([^']+)'>)?")
_MARKING = re.compile(r"hasattr\((.+?), '(_dynamo_\w+)'\)")
# the new entry checks only a number's type (or that it is no NaN): Dynamo made it dynamic
_TYPE_ONLY = re.compile(r"(?:isnan|___check_type_id)\((?P<name>[^,)]+)")
_GLOBAL_STATE = re.compile(r"___check_global_state\(\) against (?P<state>\{.*\})")
_TIED = re.compile(r"^(?P<lhs>\S+)\.size\(\)\[(?P<li>\d+)\] == (?P<rhs>\S+)\.size\(\)\[(?P<ri>\d+)\]")
_SHAPE_TERM = re.compile(r"\.(size|stride)\(\)\[\d+\]|\.storage_offset\(\)")
# An identity check (`A is B`): Dynamo's own aliasing guards (two modules' `torch`/`F`, `self.__dict__[...] is ...`).
_IDENTITY = re.compile(r"\sis\s")
# A value the user passes or reads by name: an argument `L['alpha']`, a global `G['CONFIG']` (not Dynamo's
# `___stack0`, `self`, or the `__import_...` aliases it makes for modules).
_USER_VALUE = re.compile(r"\b[LG]\['(?!___|__import_|self'\])\w+'\]")
_SELF_CHECK = re.compile(r"^(?P<value>\S+) == (?P=value)$")  # a value compared with itself: no value pinned
# names torch renumbers per cache entry (__builtins_dict___2) and object ids are not changes between entries
_RENUMBERED = re.compile(r"(__\w+?___)\d+|(?<=, )\d{6,}(?=\))")
_CARRIED = re.compile(r"\b___stack\d+\b")


@dataclass(frozen=True, slots=True)
class TensorCheck:
    """What a TENSOR_MATCH checks of one tensor."""

    name: str  # in the user's words
    dtype: str  # torch's name: float32
    size: tuple[int, ...]
    stride: tuple[int, ...]
    requires_grad: str
    device: str

    @property
    def contiguous(self) -> bool:
        expected = 1
        for dim, step in zip(reversed(self.size), reversed(self.stride), strict=False):
            if dim != 1 and step != expected:
                return False
            expected *= dim
        return True


@dataclass(frozen=True, slots=True)
class Comparison:
    """`lhs == rhs`: a value pinned to what it was at compile time."""

    shown: str  # the compared value as the guard report shows it (self.blocks[3].offset)
    variable: str  # the same as a guard failure names it (its `variable`)
    value: str  # what it was compiled for
    read_back: bool  # 2.11's `x == ___as_tensor(x).item()`: x was made dynamic, no value pinned
    carried: bool  # a value carried across a graph break (`___stack0`)


@dataclass(frozen=True, slots=True)
class TiedSizes:
    """`a.size()[0] == b.size()[1]`: two inputs' dimensions torch tied together (duck sizing)."""

    one: tuple[str, int]  # (input in the user's words, dimension)
    other: tuple[str, int]


@dataclass(frozen=True, slots=True)
class DictKey:
    """`___dict_contains('k', d)`: the entry needs d to have key k (or, negated, not to)."""

    mapping: str  # in the user's words; a module's own, for its children (`self`)
    key: str
    present: bool
    child: str | None = None  # "submodule", "parameter" or "buffer": the mapping is a module's children of that kind

    @property
    def words(self) -> str:
        if self.child:
            return f"{self.mapping} {'has' if self.present else 'has no'} {self.child} `{self.key}`"
        return f"{self.mapping} {'has' if self.present else 'has no'} key '{self.key}'"


@dataclass(frozen=True, slots=True)
class GuardTerm:
    """One guard expression, read."""

    readable: str  # the expression in the user's words (L['self']._modules['a'] -> self.a)
    comparable: str  # the readable expression without torch's per-entry renumbering and object ids
    comparison: Comparison | None = None
    tensor: TensorCheck | None = None
    object_id_of: str | None = None  # ___check_obj_id(x, ...): x must be the very object seen
    type_id_of: str | None = None  # ___check_type_id(x, ...): x's type must be unchanged
    type_name: str | None = None  # the type ___check_type_id names, when torch prints it
    marking: tuple[str, str] | None = None  # (tensor, attribute): no `_dynamo_*` dynamic marking on it
    type_only_of: str | None = None  # a number whose type alone is checked (made dynamic), as a failure names it
    global_state: bool = False  # ___check_global_state() with the state it holds
    grad_mode: bool | None = None  # the grad mode that global state holds, when it says
    tied: TiedSizes | None = None
    dict_key: DictKey | None = None
    shape_relation: bool = False  # a symbolic-shape relation (`2 <= x.size()[0]`), the price of a dynamic dim
    identity: bool = False  # an `A is B` check: Dynamo's own aliasing guards
    on_user_value: bool = False  # on a value the user passes or reads by name (an argument, a global)
    self_check: bool = False  # a value compared with itself (2.11's read-back): nothing pinned
    on_local: bool = False  # on one of the frame's locals (its arguments): an implicit guard on the inputs
    on_self: bool = False  # on the module's own attributes (`self.…`)
    carried_names: tuple[str, ...] = ()  # values carried across a graph break it names (`___stack0`), as they read


def _readable(expression: str) -> str:
    """The expression in the user's words: their names, their modules' children, builtins by name, a loop's range
    iterator said as one (a value carried across a graph break keeps torch's name: its frame's reader words it)."""
    text = _MODULES.sub(lambda m: f"[{m.group(1)}]" if m.group(1).isdigit() else f".{m.group(1)}", expression)
    return worded_internals(_LOCAL.sub(r"\1", _AS_TENSOR.sub(r"\g<name>", text)), carried=False)


def _tensor(expression: str) -> TensorCheck | None:
    match = _TENSOR.search(expression)
    if match is None:
        return None
    return TensorCheck(
        name=_readable(match["name"]),
        dtype=match["dtype"],
        size=tuple(int(v) for v in match["size"].split(",") if v.strip().lstrip("-").isdigit()),
        stride=tuple(int(v) for v in match["stride"].split(",") if v.strip().lstrip("-").isdigit()),
        requires_grad=match["rg"],
        device=match["device"],
    )


def _comparison(expression: str) -> Comparison | None:
    equals = _EQUALS.match(expression)
    if equals is None:
        return None
    value = equals["rhs"].strip()
    return Comparison(
        shown=_readable(equals["lhs"]),
        variable=user_variable(equals["lhs"]),
        value=value,
        read_back=bool(_READ_BACK.match(value)),
        carried=is_carried_value(equals["lhs"].strip()),
    )


def _grad_mode(state: str) -> bool | None:
    try:
        read = json.loads(state)
    except json.JSONDecodeError:
        return None
    flag = read.get("grad_mode") if isinstance(read, dict) else None
    return None if flag is None else bool(flag)


def _tied(expression: str) -> TiedSizes | None:
    match = _TIED.match(expression)
    if match is None:
        return None
    return TiedSizes((user_variable(match["lhs"]), int(match["li"])), (user_variable(match["rhs"]), int(match["ri"])))


def _dict_key(readable: str) -> DictKey | None:
    contains = _DICT_CONTAINS.match(readable)
    if contains is None:
        return None
    mapping, present = contains["mapping"].strip(), not contains["negated"]
    module = _MODULE_DICT.search(mapping)
    if module is None:
        return DictKey(mapping, contains["key"], present)
    child = {"modules": "submodule", "parameters": "parameter", "buffers": "buffer"}[module["what"]]
    return DictKey(mapping[: module.start()], contains["key"], present, child)


@lru_cache(maxsize=1 << 14)  # the cache entries of a frame repeat most of their guard texts
def guard_term(expression: str) -> GuardTerm:
    """One guard expression (without torch's trailing comment), read."""
    readable = _readable(expression)
    object_id, type_id = _OBJECT_ID.search(readable), _TYPE_ID.search(readable)
    marking, type_only = _MARKING.search(readable), _TYPE_ONLY.search(expression)
    state = _GLOBAL_STATE.search(expression)
    return GuardTerm(
        readable=readable,
        comparable=_readable(_RENUMBERED.sub(lambda m: f"{m.group(1)}N" if m.group(1) else "<id>", expression)),
        comparison=_comparison(expression),
        tensor=_tensor(expression),
        object_id_of=object_id.group(1) if object_id else None,
        type_id_of=type_id.group(1) if type_id else None,
        type_name=type_id.group(2) if type_id else None,
        marking=(marking.group(1), marking.group(2)) if marking else None,
        type_only_of=user_variable(type_only["name"]) if type_only else None,
        global_state=state is not None,
        grad_mode=_grad_mode(state["state"]) if state else None,
        tied=_tied(expression),
        dict_key=_dict_key(readable),
        shape_relation=bool(_SHAPE_TERM.search(expression)),
        identity=bool(_IDENTITY.search(expression)),
        on_user_value=bool(_USER_VALUE.search(expression)),
        self_check=bool(_SELF_CHECK.match(readable)),
        on_local="L['" in expression,
        on_self=expression.startswith("L['self']"),
        carried_names=tuple(sorted(set(_CARRIED.findall(readable)), key=len, reverse=True)),
    )
