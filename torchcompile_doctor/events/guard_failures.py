"""torch's guard-failure text (`recompile_reasons`, and the `Recompiling function` lines of a text log), parsed
once: which cache entry failed, on which guard, from which line of the user's, what kind of change that is (its
reason class), what changed (the variable as the user writes it) and from which value to which. Each Recompile
event carries its texts parsed (`Recompile.guard_failures`); the analysis reads only these fields.

The texts differ between torch releases (2.14 words type guards differently): a new wording is a new pattern
here, tested on the recorded texts of every release (tests/events/test_torch_texts.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass

# "0/3: self.step == 3      # self.step += 1  # dir/script.py:14 in forward (HINT: ...)"
_FAILURE = re.compile(
    r"^(?P<entry>\d+/\d+): (?P<guard>.*?)"
    r"(?:\s{2,}# (?P<source>.*?)\s+# (?P<path>\S+):(?P<line>\d+) in (?P<function>\S+)(?P<note>.*?))?"
    r"(?: \(HINT: (?P<hint>.*)\))?\s*$",
    re.S,
)
# the name may hold quotes and brackets (`tensor 'kwargs['input_ids']' size mismatch`): the last `' <what> mismatch`
_TENSOR_MISMATCH = re.compile(r"tensor '(?P<name>.+)' (?P<what>[a-z_ ]+?) mismatch(?P<rest>.*)$", re.S)
# "expected type of 'input_ids' to be a tensor type, ' but found <class 'builtin_function_or_method'>" (2.11-2.13);
# "expected type of 'factor' to be <class 'torch.Tensor'>, but found <class 'float'>" (2.14 on)
_TENSOR_TYPE = re.compile(
    r"expected type of '(?P<name>.+?)' to be (?:a tensor type,|<class '(?P<old>[^']+)'>,)"
    r".*?found <class '(?P<new>[^']+)'>",
    re.S,
)
# a container's length guard when it was empty (`len(x) == 3` otherwise): `not G['messages']`
_EMPTY = re.compile(r"^not (?P<name>(?:[LG]\['[^']+'\]|[A-Za-z_]\w*)(?:\.\w+|\['[^']+'\]|\[\d+\])*)$")
# an object the entry was guarded on (by a weak reference) was freed, so torch dropped the entry (2.11 on)
_DEALLOCATED = re.compile(r"^Cache line invalidated because (?P<name>.+) got deallocated$", re.S)
_KEY_ERROR = re.compile(r"^KeyError on (?P<name>.+)$", re.S)
# symbolic-shape guards whose source torch could not name end in this comment; the guard before it is parsed
_UNKNOWN_SOURCE = re.compile(r"\s*# \(unknown (?:source|var) .*?please file a bug\)\s*$")
_SIZE_COMPARE = re.compile(r"^(?P<name>.+)\.(?P<what>size|stride)\(\)\[(?P<index>\d+)\] == (?P<value>\d+)$")
# a symbolic-shape guard bounding a size: `2 <= x.size()[0] <= 10`
_SIZE_RANGE = re.compile(r"^(?P<low>-?\d+) <= (?P<name>\S+)\.size\(\)\[(?P<index>\d+)\](?: <= (?P<high>\d+))?$")
# a symbolic-shape guard tying two sizes together: `G['cache'].size()[0] == x.size()[0]  # duck sizing added ...`
_SIZE_EQUALS_SIZE = re.compile(
    r"^(?P<lhs>\S+)\.size\(\)\[(?P<li>\d+)\] == (?P<rhs>\S+)\.size\(\)\[(?P<ri>\d+)\]"
    r"(?:\s+# duck sizing added this equality because these variables had the same size (?P<size>\d+).*)?$",
    re.S,
)
_DICT_CONTAINS = re.compile(r"^(?P<negated>not )?___dict_contains\('(?P<key>[^']+)', (?P<mapping>.+)\)$")
# 2.15's set membership guard: `set.__contains__(L['seen'], 3)` (negated: `not set.__contains__(...)`)
_SET_CONTAINS = re.compile(r"^(?P<negated>not )?set\.__contains__\((?P<set>[^,]+), (?P<item>.+)\)$")
_MODULE_DICT = re.compile(r"\._(?:modules|parameters|buffers)$")
THREAD_RACE = "Unexpected recompilation: runtime guards failed"
_EXPECTED_ACTUAL = re.compile(r"expected (?P<old>\w+\([^)]*\)|[^,]+), actual (?P<new>.+?)\.?$")
_DISPATCH_BACKENDS = ("CPU", "CUDA", "Meta", "XPU", "MPS", "HPU", "XLA", "PrivateUse1", "Lazy")
_INDEX = re.compile(r"at index (?P<index>\d+)")
_COMPARE = re.compile(r"^(?P<lhs>.+?) (?P<op>==|!=|is not|is) (?P<rhs>.+)$")
_NUMBER = re.compile(r"^-?\d+(\.\d*)?([eE][-+]?\d+)?$|^-?(inf|nan)$")
_FILE_LINE = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')
# Guard failures print ATen's scalar type names; users write torch.float32.
_DTYPE_NAMES = {
    "Float": "float32",
    "Double": "float64",
    "Half": "float16",
    "BFloat16": "bfloat16",
    "Long": "int64",
    "Int": "int32",
    "Short": "int16",
    "Char": "int8",
    "Byte": "uint8",
    "Bool": "bool",
    "ComplexFloat": "complex64",
    "ComplexDouble": "complex128",
}


@dataclass(frozen=True)
class GuardFailure:
    """One cache entry's failed guard, as torch wrote it and as the analysis reads it."""

    entry: str  # the cache entry whose guard failed, e.g. "0/3"
    guard: str  # the guard expression or torch's sentence about it
    source: str | None  # the user's source line that introduced the guard
    file: str | None  # absolute, from the user stack trace when present
    line: int | None
    hint: str | None
    reason_class: str
    variable: str  # the thing that changed, in the user's words
    old: str | None  # the value the failing entry was compiled for
    new: str | None  # the value that arrived, when torch says it (or the new entry's guards show it)
    subject: str | None = None  # the tensor or value the guard is on (`kwargs['input_ids']` for its shape)
    dim: int | None = None  # the dimension, for a variable that is one (`x.shape[1]`: 1)

    @property
    def worded_guard(self) -> str:
        """The failed guard in the user's words, without torch's trailing comment: `self.step == 3` (a value carried
        across a graph break, a builtin, a loop's range iterator in words)."""
        return worded_internals(user_variable(self.guard.split("  # ")[0]))

    @property
    def worded_variable(self) -> str:
        """The variable with no Dynamo internal left in it: a value carried across a graph break (`___stack0`,
        `___normalize_range_iter(___stack0)`) in words, a builtin by its name."""
        return worded_internals(self.variable)

    @property
    def pinned_by_equality(self) -> bool:
        """The guard was `variable == old` (a flag failing `== False` is now True)."""
        return self.old is not None and self.guard.endswith(f"== {self.old}")

    @property
    def carried(self) -> bool:
        """The value crossed a graph break (`___stack0`): it reached the resume function as an argument."""
        return is_carried_value(self.variable)


_LOCAL_NAME = re.compile(r"\bL\['([^']+)'\]")
_GLOBAL_NAME = re.compile(r"\bG\['([^']+)'\]")
_KWARG = re.compile(r"^kwargs\['([A-Za-z_]\w*)'\]")
_CHILD_INDEX = re.compile(r"\._(?:modules|buffers|parameters)\['(\d+)'\]")
_CHILD_NAME = re.compile(r"\._(?:modules|buffers|parameters)\['([A-Za-z_]\w*)'\]")


def user_variable(source: str) -> str:
    """L['x'] -> x, L['self'].step -> self.step, ___stack0 -> a value produced before a graph break."""
    text = source.strip()
    if "['" not in text:  # every rewrite below is of a subscript torch wrote
        return text
    text = _GLOBAL_NAME.sub(_first, _LOCAL_NAME.sub(_first, text)) if "L['" in text or "G['" in text else text
    # a keyword argument of a `(*args, **kwargs)` wrapper by the name its caller passed it as
    text = _KWARG.sub(_first, text) if text.startswith("kwargs[") else text
    # a submodule, buffer or parameter as the user writes it: self._modules['layers']._modules['0'] -> self.layers[0]
    if "._" not in text:
        return text
    return _CHILD_NAME.sub(lambda m: f".{m[1]}", _CHILD_INDEX.sub(lambda m: f"[{m[1]}]", text))


def _first(match: re.Match[str]) -> str:
    return match[1]


# a guarded value that is made anew on every call: a tensor's value or repr formatted into a string (a float
# with the digits of a computed number), an object's address or id (`id(x)`: 12 digits and more)
_FRESH = re.compile(
    r"^['\"].*(?:tensor\(|\d\.\d{7,})|\b0x[0-9a-fA-F]{6,}\b|object at |(?<![\d.])\d{12,}(?![\d.])", re.S
)
_ARGS = re.compile(r"^args\[(?P<index>\d+)\]")  # a wrapper's `*args`, as a guard names them


def is_fresh_value(value: str) -> bool:
    """A value torch printed that is made anew on every call (a tensor formatted into a string, an address)."""
    return bool(_FRESH.search(value))


def passed_name(variable: str, passed: list[str]) -> str:
    """`args[0].shape[1]` named by what the call passed first (`tokens.shape[1]`), where it passed that many."""
    match = _ARGS.match(variable)
    if match is None or int(match["index"]) >= len(passed):
        return variable
    return passed[int(match["index"])] + variable[match.end() :]


_RANGE_ITERATOR = re.compile(r"___normalize_range_iter\((?P<of>[^()]+)\)")
_CARRIED_ATTRIBUTE = re.compile(r"\b___stack\d+(?P<attribute>(?:\.\w+|\[\d+\])+)")
_CARRIED = re.compile(r"\b___stack\d+\b")
_BUILTIN = re.compile(r"__builtins_dict___(?:\d+|N)\['(?P<name>[^']+)'\]")
# Dynamo's checks by what they check: the object's identity or type (its id is no user's value), an item
_OBJECT_CHECK = re.compile(r"___check_(?P<what>obj|type)_id\((?P<of>[^,()]+(?:\([^()]*\))?), (?:\d+|<id>)\)")
_CONTAINS_CHECK = re.compile(r"___dict_contains\((?P<key>'[^']*'), (?P<of>[^()]+(?:\([^()]*\))?)\)")
_SET_MEMBER_CHECK = re.compile(r"set\.__contains__\((?P<of>[^,()]+), (?P<item>[^()]+)\)")
_HELPER = re.compile(r"\b___(?P<name>[a-z]\w*)\(")  # any other helper of Dynamo's, by its plain name
CARRIED_VALUE = "the value carried across the break"


def worded_internals(text: str, carried: bool = True) -> str:
    """Dynamo's internals in a guard's words said as the user knows them: a loop's range iterator or a value carried
    across a graph break (the resume function's `___stack0`), a builtin (`__builtins_dict___3['len']`: len), an
    identity or type check (`___check_type_id(x, 94…)`: type(x)), any other helper by its plain name. `carried=False`
    words only builtins and range iterators: a guard tree's reader names carried values by their break."""
    if "___normalize_range_iter(" in text:
        text = _RANGE_ITERATOR.sub(_range_words, text)
    if "__builtins_dict___" in text:
        text = _BUILTIN.sub(lambda m: m["name"], text)
    if "set.__contains__(" in text:
        text = _SET_MEMBER_CHECK.sub(r"\g<item> in \g<of>", text)
    if not carried or "___" not in text:  # the rest are Dynamo's `___` names
        return text
    text = _OBJECT_CHECK.sub(lambda m: f"{'id' if m['what'] == 'obj' else 'type'}({m['of']})", text)
    text = _CONTAINS_CHECK.sub(r"\g<key> in \g<of>", text)
    text = _HELPER.sub(r"\g<name>(", text)
    text = _CARRIED_ATTRIBUTE.sub(lambda m: f"{m['attribute'].lstrip('.')} of {CARRIED_VALUE}", text)
    return _CARRIED.sub(CARRIED_VALUE, text)


def _range_words(match: re.Match[str]) -> str:
    where = "carried across the break" if _CARRIED.fullmatch(match["of"]) else f"of {match['of']}"
    return f"the loop's range (start, stop, step) {where}"


def is_carried_value(variable: str) -> bool:
    """`___stack0`: a value on the stack at a graph break, passed as an argument to the resume function."""
    return variable.startswith("___stack")


def _classify_comparison(lhs: str, rhs: str) -> str:
    name = lhs.strip()
    if "param_groups[" in name:  # an optimizer's hyperparameter: a number, not an nn.Module attribute
        value = rhs.strip()
        return "int_specialization" if re.fullmatch(r"-?\d+", value) else "float_specialization"
    if re.match(r"^(self|L\['self'\])\.", name) or re.match(r"^L\['self'\]\._modules", name):
        return "module_attribute"
    value = rhs.strip()
    if _NUMBER.match(value):
        return "int_specialization" if re.fullmatch(r"-?\d+", value) else "float_specialization"
    if value in ("True", "False"):
        return "int_specialization" if not name.startswith("___") else "other"
    return "other"


def _first_backend(key_set: str | None) -> str | None:
    """DispatchKeySet(CPU, BackendSelect, ...) -> CPU; AutogradCUDA counts as CUDA."""
    if not key_set:
        return None
    for key in re.findall(r"\w+", key_set):
        for backend in _DISPATCH_BACKENDS:
            if key in (backend, f"Autograd{backend}", f"Sparse{backend}", f"Quantized{backend}"):
                return backend
    return None


def _dtype_name(aten_name: str | None) -> str | None:
    return _DTYPE_NAMES.get(aten_name, aten_name) if aten_name else aten_name


_Classified = tuple[str, str, str | None, str | None]  # (reason_class, variable, old, new)


def classify(guard: str) -> _Classified:
    """(reason_class, variable, old, new) for one guard-failure text."""
    text = _UNKNOWN_SOURCE.sub("", guard.strip())
    tensor = _TENSOR_MISMATCH.search(text)
    if tensor:
        return _classify_tensor(tensor)
    return _classify_torch_sentence(text) or _classify_global_state(text) or _classify_value(text)


def _classify_torch_sentence(text: str) -> _Classified | None:
    """Guard failures torch words as a sentence: a tensor that became another type, a missing key, a
    recompile whose guards passed when torch re-checked them (another thread changed state meanwhile)."""
    typ = _TENSOR_TYPE.search(text)
    if typ:
        old = (typ["old"] or "Tensor").rpartition(".")[2]  # `torch.Tensor` as the user writes it
        return "type_change", f"type of {user_variable(typ['name'])}", old, typ["new"].rpartition(".")[2]
    freed = _DEALLOCATED.match(text)
    if freed:
        return "guarded_object_freed", user_variable(freed["name"]), None, None
    key = _KEY_ERROR.match(text)
    if key:  # the entry was compiled for a module/dict that had this key; this one has not
        return "module_structure", user_variable(key["name"]), "present", "missing"
    if text.startswith(THREAD_RACE):
        return "thread_race", "runtime guards", None, None
    bounds = _SIZE_RANGE.match(text)
    if bounds:  # a dynamic size guarded to a range (0/1 specialization, a comparison in the code)
        name = user_variable(bounds["name"])
        upper = f" and {bounds['high']}" if bounds["high"] else " or more"
        return "shape_or_rank", f"{name}.shape[{bounds['index']}]", f"between {bounds['low']}{upper}", None
    pair = _SIZE_EQUALS_SIZE.match(text)
    if pair:  # the input's size had to equal another tensor's (often a global or a fixed-size buffer)
        sides = [(user_variable(pair["lhs"]), pair["li"]), (user_variable(pair["rhs"]), pair["ri"])]
        sides.sort(key=lambda side: pair["lhs"].startswith("G[") == (side[0] == user_variable(pair["lhs"])))
        (name, index), (other, other_index) = sides
        same = f"{pair['size']} (= {other}.shape[{other_index}])" if pair["size"] else f"= {other}.shape[{other_index}]"
        return "shape_or_rank", f"{name}.shape[{index}]", same, None
    size = _SIZE_COMPARE.match(text)
    if size:
        name = user_variable(size["name"])
        attribute = f"{name}.shape[{size['index']}]" if size["what"] == "size" else f"{name}.stride()[{size['index']}]"
        return ("shape_or_rank" if size["what"] == "size" else "other"), attribute, size["value"], None
    return None


def _classify_tensor(tensor: re.Match[str]) -> _Classified:
    """A tensor check that failed: dtype, size, requires_grad, device, dispatch keys, stride."""
    name, what, rest = user_variable(tensor["name"]), tensor["what"].strip(), tensor["rest"]
    values = _EXPECTED_ACTUAL.search(rest.strip())
    old, new = (values["old"].strip(), values["new"].strip()) if values else (None, None)
    index = _INDEX.search(rest)
    if what == "dtype":
        return "dtype", f"{name}.dtype", _dtype_name(old), _dtype_name(new)
    if what in ("size", "rank", "numel"):
        attribute = f"{name}.shape[{index['index']}]" if index and what == "size" else f"{name}.dim()"
        return "shape_or_rank", attribute, old, new
    if what == "requires_grad":
        # torch prints only the expected flag ("expected requires_grad=0"): the new one is its opposite
        flag = re.search(r"requires_grad=(\d)", rest)
        if old is None and flag:
            old, new = str(flag.group(1) == "1"), str(flag.group(1) != "1")
        return "requires_grad", f"{name}.requires_grad", old, new
    if what in ("device", "device index"):
        return "device", f"{name}.device", old, new
    if what == "dispatch key set":  # how a device change (cpu -> meta, cpu -> cuda) reads in torch 2.13
        backends = [_first_backend(v) for v in (old, new)]
        if backends[0] != backends[1]:
            return "device", f"{name}.device", backends[0], backends[1]
        return "other", f"{name}.dispatch_keys", old, new
    if what == "stride" and index:
        return "other", f"{name}.stride()[{index['index']}]", old, new
    return "other", f"{name}.{what.replace(' ', '_')}", old, new


def _classify_global_state(text: str) -> _Classified | None:
    """Grad mode, autocast and other global state, and devices named in words."""
    if "GLOBAL_STATE" in text or "___check_global_state" in text:
        if "grad_mode" in text or "grad mode" in text:
            return "grad_mode", "grad mode", None, None
        return "global_state", text.split(":", 1)[-1].strip() or "global state", None, None
    if "grad_mode" in text or "is_grad_enabled" in text:
        return "grad_mode", "grad mode", None, None
    if "autocast" in text or "___check_torch_function_mode_stack" in text:
        return "global_state", "autocast/global state", None, None
    if "Device index mismatch" in text or "device" in text and "mismatch" in text:
        return "device", "device", None, None
    return None


def _classify_contains(contains: re.Match[str]) -> _Classified:
    """`___dict_contains('k', d)` failed: the entry was compiled for a dict (or a module) with key k, this one
    lacks it (or, negated, the other way round)."""
    was, now = ("missing", "present") if contains["negated"] else ("present", "missing")
    mapping = contains["mapping"].strip()
    if _MODULE_DICT.search(mapping):  # a submodule, parameter or buffer one instance has and another lacks
        owner = user_variable(_MODULE_DICT.sub("", mapping))
        return "module_structure", f"{owner}.{contains['key']}", was, now
    return "dict_or_list_length", f"{user_variable(mapping)}['{contains['key']}']", was, now


def _classify_membership(text: str) -> _Classified | None:
    """A dict's key or (2.15) a set's item the entry was compiled with (or, negated, without)."""
    contains = _DICT_CONTAINS.match(text)
    if contains:
        return _classify_contains(contains)
    member = _SET_CONTAINS.match(text)
    if member:
        was, now = ("missing", "present") if member["negated"] else ("present", "missing")
        return "dict_or_list_length", user_variable(member["set"]), was, now
    return None


def _classify_value(text: str) -> _Classified:
    """A guard on a Python value: an object's identity or type, a container's length, a compared value."""
    obj = re.search(r"___check_obj_id\((?P<name>[^,]+),", text)
    if obj:
        return "object_id", user_variable(obj["name"]), None, None
    typ = re.search(r"___check_type_id\((?P<name>[^,]+),", text)
    if typ:
        return "other", f"type of {user_variable(typ['name'])}", None, None
    empty = _EMPTY.match(text)
    if empty:  # the same length guard as `len(x) == N`, written for an empty container
        return "dict_or_list_length", f"len({user_variable(empty['name'])})", "0", None
    length = re.search(r"len\((?P<name>.+?)\) (?P<op>==|!=|<|>) (?P<value>\d+)", text)
    if length:
        return "dict_or_list_length", f"len({user_variable(length['name'])})", length["value"], None
    membership = _classify_membership(text)
    if membership is not None:
        return membership
    if "dict keys" in text or "___dict_contains" in text or "dict_version" in text:
        return "dict_or_list_length", "dict keys", None, None
    compare = _COMPARE.match(text)
    if compare and compare["op"] in ("is", "is not") and compare["rhs"].strip() == "None":
        # an optional argument: the entry was compiled for it being None (or not), a call passed the other
        was, now = ("None", "not None") if compare["op"] == "is" else ("not None", "None")
        return "other", user_variable(compare["lhs"]), was, now
    if compare:
        reason_class = _classify_comparison(compare["lhs"], compare["rhs"])
        if reason_class != "other" or compare["op"] == "==":
            old = compare["rhs"].strip() if compare["op"] == "==" else None
            return reason_class, user_variable(compare["lhs"]), old, None
    if compare:  # `a is b`, `a != b`: the value compared, whole (its first word may be half a call)
        return "other", user_variable(compare["lhs"]), None, None
    return "other", user_variable(text.split(" ")[0]) if text else "?", None, None


_DIM = re.compile(r"\[(\d+)\]$")
_LENGTH_OF = re.compile(r"^len\((?P<name>.+)\)$")


def parse_guard_failure(text: str) -> GuardFailure | None:
    """One entry's failure (`0/3: guard  # source  # file:line in fn`, maybe a user stack after it); None when
    the text has none of torch's shapes."""
    head, _, tail = text.partition("\nUser stack trace:")
    match = _FAILURE.match(head.strip())
    if match is None:
        return None
    reason_class, variable, old, new = classify(match["guard"])
    tensor = _TENSOR_MISMATCH.search(match["guard"])
    file = line = None
    frames = _FILE_LINE.findall(tail)
    if frames:
        file, line = frames[-1][0], int(frames[-1][1])
    elif match["line"]:
        line = int(match["line"])
    return GuardFailure(
        entry=match["entry"],
        guard=match["guard"].strip(),
        source=(match["source"] or "").strip() or None,
        file=file,
        line=line,
        hint=user_variable(match["hint"]) if match["hint"] else None,  # 2.15's hint names the guard's `L['d']`
        reason_class=reason_class,
        variable=variable,
        old=old,
        new=new,
        subject=user_variable(tensor["name"]) if tensor else _container_of(variable),
        dim=int(dim[1]) if (dim := _DIM.search(variable)) else None,
    )


def _container_of(variable: str) -> str | None:
    """`len(history)` -> history: a length guard is on the container, which is what the user names."""
    length = _LENGTH_OF.match(variable)
    return length["name"] if length else None


def parse_guard_failures(texts: tuple[str, ...]) -> tuple[GuardFailure, ...]:
    """A recompile's texts, one per existing cache entry, parsed (those of no known shape left out)."""
    return tuple(failure for failure in map(parse_guard_failure, texts) if failure is not None)
