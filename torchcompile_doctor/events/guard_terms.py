"""torch's guard expressions (the leaves of `dynamo_cpp_guards_str`), read once into typed terms: what a guard
compares and to which value, which tensor it checks and how, which object or type it pins, whether it ties two
sizes together, what grad mode the global state holds, and the expression in the user's words. The guard-tree
parser attaches one term to each Guard (events/parsers/guards_tree.py); the analysis reads only these fields, never
the expression's text (tests/test_code_shape.py checks that no regex over guard text lives outside events/)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cached_property, lru_cache

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


def _readable(expression: str) -> str:
    """The expression in the user's words: their names, their modules' children, builtins by name, a loop's range
    iterator said as one (a value carried across a graph break keeps torch's name: its frame's reader words it)."""
    text = expression
    if "._modules[" in text:
        text = _MODULES.sub(lambda m: f"[{m.group(1)}]" if m.group(1).isdigit() else f".{m.group(1)}", text)
    if "___as_tensor(" in text:
        text = _AS_TENSOR.sub(lambda m: m["name"], text)
    if "L['" in text or "G['" in text:
        text = _LOCAL.sub(lambda m: m[1], text)
    return worded_internals(text, carried=False) if "__" in text else text


def _tensor(expression: str) -> TensorCheck | None:
    match = _search(_TENSOR, expression, "check_tensor(")
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
    equals = _EQUALS.match(expression) if " == " in expression else None
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
    match = _TIED.match(expression) if ".size()[" in expression else None
    if match is None:
        return None
    return TiedSizes((user_variable(match["lhs"]), int(match["li"])), (user_variable(match["rhs"]), int(match["ri"])))


def _dict_key(readable: str) -> DictKey | None:
    contains = _DICT_CONTAINS.match(readable) if "___dict_contains(" in readable else None
    if contains is None:
        return None
    mapping, present = contains["mapping"].strip(), not contains["negated"]
    module = _MODULE_DICT.search(mapping)
    if module is None:
        return DictKey(mapping, contains["key"], present)
    child = {"modules": "submodule", "parameters": "parameter", "buffers": "buffer"}[module["what"]]
    return DictKey(mapping[: module.start()], contains["key"], present, child)


def _search(pattern: re.Pattern[str], text: str, *markers: str) -> re.Match[str] | None:
    """`pattern` in `text`, looked for only where the text holds one of its markers (a cheap substring test)."""
    return pattern.search(text) if any(marker in text for marker in markers) else None


@dataclass(frozen=True)
class GuardTerm:
    """One guard expression (without torch's trailing comment), read: each field is worked out the first time a
    reader asks for it, then kept (a big log has tens of thousands of distinct guards; a report reads a few fields of
    most). Each pattern runs only where the text holds its marker."""

    expression: str

    @cached_property
    def readable(self) -> str:
        """The expression in the user's words (L['self']._modules['a'] -> self.a)."""
        return _readable(self.expression)

    @cached_property
    def comparable(self) -> str:
        """The readable expression without torch's per-entry renumbering and object ids."""
        text = self.expression
        if "___" not in text and ", " not in text:
            return self.readable
        renumbered = _RENUMBERED.sub(lambda m: f"{m.group(1)}N" if m.group(1) else "<id>", text)
        return self.readable if renumbered == text else _readable(renumbered)

    @cached_property
    def comparison(self) -> Comparison | None:
        return _comparison(self.expression)

    @cached_property
    def tensor(self) -> TensorCheck | None:
        return _tensor(self.expression)

    @cached_property
    def object_id_of(self) -> str | None:
        """___check_obj_id(x, ...): x must be the very object seen."""
        match = _search(_OBJECT_ID, self.readable, "___check_obj_id(")
        return match.group(1) if match else None

    @cached_property
    def _type_id(self) -> re.Match[str] | None:
        return _search(_TYPE_ID, self.readable, "___check_type_id(")

    @property
    def type_id_of(self) -> str | None:
        """___check_type_id(x, ...): x's type must be unchanged."""
        return self._type_id.group(1) if self._type_id else None

    @property
    def type_name(self) -> str | None:
        """The type ___check_type_id names, when torch prints it."""
        return self._type_id.group(2) if self._type_id else None

    @cached_property
    def marking(self) -> tuple[str, str] | None:
        """(tensor, attribute): no `_dynamo_*` dynamic marking on it."""
        match = _search(_MARKING, self.readable, "hasattr(")
        return (match.group(1), match.group(2)) if match else None

    @cached_property
    def type_only_of(self) -> str | None:
        """A number whose type alone is checked (made dynamic), as a guard failure names it."""
        match = _search(_TYPE_ONLY, self.expression, "isnan(", "___check_type_id(")
        return user_variable(match["name"]) if match else None

    @cached_property
    def _state(self) -> re.Match[str] | None:
        return _search(_GLOBAL_STATE, self.expression, "___check_global_state()")

    @property
    def global_state(self) -> bool:
        """___check_global_state() with the state it holds."""
        return self._state is not None

    @property
    def grad_mode(self) -> bool | None:
        """The grad mode that global state holds, when it says."""
        return _grad_mode(self._state["state"]) if self._state else None

    @cached_property
    def tied(self) -> TiedSizes | None:
        return _tied(self.expression)

    @cached_property
    def dict_key(self) -> DictKey | None:
        return _dict_key(self.readable)

    @cached_property
    def shape_relation(self) -> bool:
        """A symbolic-shape relation (`2 <= x.size()[0]`): the price of a dynamic dimension."""
        return bool(_search(_SHAPE_TERM, self.expression, "size()[", "stride()[", ".storage_offset()"))

    @cached_property
    def identity(self) -> bool:
        """An `A is B` check: Dynamo's own aliasing guards."""
        return bool(_search(_IDENTITY, self.expression, " is "))

    @cached_property
    def on_user_value(self) -> bool:
        """On a value the user passes or reads by name (an argument, a global)."""
        return bool(_search(_USER_VALUE, self.expression, "L['", "G['"))

    @cached_property
    def self_check(self) -> bool:
        """A value compared with itself (2.11's read-back): nothing pinned."""
        return " == " in self.readable and bool(_SELF_CHECK.match(self.readable))

    @property
    def on_local(self) -> bool:
        """On one of the frame's locals (its arguments): an implicit guard on the inputs."""
        return "L['" in self.expression

    @property
    def on_self(self) -> bool:
        """On the module's own attributes (`self.…`)."""
        return self.expression.startswith("L['self']")

    @cached_property
    def carried_names(self) -> tuple[str, ...]:
        """The values carried across a graph break it names (`___stack0`), as they read; longest first."""
        if "___stack" not in self.readable:
            return ()
        return tuple(sorted(set(_CARRIED.findall(self.readable)), key=len, reverse=True))


@lru_cache(maxsize=1 << 14)  # the cache entries of a frame repeat most of their guard texts: one term each
def guard_term(expression: str) -> GuardTerm:
    """One guard expression (without torch's trailing comment), to be read."""
    return GuardTerm(expression)
