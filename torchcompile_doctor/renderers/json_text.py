"""`json.dumps(value, indent=2, ensure_ascii=False)`, the same text, in a fraction of its time: the standard
library encodes an indented document in Python through a generator per nesting level (its C encoder does no
indentation), a third of a big trace's report; here one call per container, the text of each scalar from the
same functions the standard encoder uses."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from json.encoder import encode_basestring  # the C function where there is one, as json.dumps uses it

from torchcompile_doctor.model.json import JSON

_INFINITY = float("inf")
_PARTS_PER_CHUNK = 512  # parts joined and handed on at a time: a chunk of 4096 held 1-2 MB of a big report's guards
_NEWLINES = ["\n" + "  " * depth for depth in range(64)]  # a line break and the indent of each nesting depth


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value == _INFINITY:
        return "Infinity"
    if value == -_INFINITY:
        return "-Infinity"
    return float.__repr__(value)


def _key(key: object) -> str:
    """A key's text, as json.dumps turns a number, a boolean or None into one."""
    if isinstance(key, str):
        return encode_basestring(key)
    if isinstance(key, float):
        return encode_basestring(_float(key))
    if key is True or key is False or key is None:
        return f'"{"true" if key is True else "false" if key is False else "null"}"'
    if isinstance(key, int):
        return encode_basestring(int.__repr__(key))
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


def _scalar(value: object) -> str | None:
    """The text of a value that is no container; None for a list, tuple or dict."""
    if isinstance(value, str):
        return encode_basestring(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, (list, tuple, dict)):
        return None
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def dumps(value: JSON) -> str:
    """The text `json.dumps(value, indent=2, ensure_ascii=False)` gives (a recursion too deep raises as it would)."""
    parts: list[str] = []
    dump(value, parts.append)
    return "".join(parts)


def dump_object(items: Iterable[tuple[str, JSON]], write: Callable[[str], object]) -> None:
    """`dump` of the object of these keys (each once) and values, each value written as it comes and then let go: a
    document made part by part is never whole in memory."""
    writer = _Writer(write)
    writer.object(items, 0)
    writer.finish()


def dump(value: JSON, write: Callable[[str], object]) -> None:
    """`dumps(value)` handed to `write` a few hundred parts at a time: a big report's text (tens of MB, twice that
    while it is joined) is never whole in memory."""
    text = _scalar(value)
    if text is not None:
        write(text)
        return
    writer = _Writer(write)
    writer.container(value, 0)  # type: ignore[arg-type]
    writer.finish()


class _Writer:
    """Parts of the text, handed on a few hundred at a time, joined: a list of every small part (hundreds of
    thousands of them) held three times the text's memory."""

    def __init__(self, write: Callable[[str], object]) -> None:
        self.write = write
        self.parts: list[str] = []
        self.keys: dict[str, str] = {}  # each key's text and separator, made once: a report repeats a few dozen keys

    def flush(self) -> None:
        """Hand on the parts once there are enough of them (after a container: one call per container, not per part)."""
        if len(self.parts) >= _PARTS_PER_CHUNK:
            self.write("".join(self.parts))
            self.parts.clear()

    def finish(self) -> None:
        self.write("".join(self.parts))
        self.parts.clear()

    def container(self, value: list[JSON] | tuple[JSON, ...] | dict[str, JSON], depth: int) -> None:
        put, string = self.parts.append, encode_basestring
        if not value:
            put("{}" if isinstance(value, dict) else "[]")
            return
        if isinstance(value, dict):
            self.object(value.items(), depth)
            return
        inner = _NEWLINES[depth + 1] if depth + 1 < len(_NEWLINES) else "\n" + "  " * (depth + 1)
        between = "," + inner
        lead = "[" + inner
        for item in value:
            text = string(item) if type(item) is str else _scalar(item)
            if text is None:
                put(lead)
                self.container(item, depth + 1)  # type: ignore[arg-type]
            else:
                put(lead + text)
            lead = between
        put(inner[:-2] + "]")
        self.flush()

    def object(self, items: Iterable[tuple[object, JSON]], depth: int) -> None:
        """An object of these keys and values, each written as it comes."""
        put, string, keys = self.parts.append, encode_basestring, self.keys
        inner = _NEWLINES[depth + 1] if depth + 1 < len(_NEWLINES) else "\n" + "  " * (depth + 1)
        between = "," + inner
        lead = "{" + inner
        for key, item in items:
            name = keys.get(key) if type(key) is str else None
            if name is None:
                name = _key(key) + ": "
                if type(key) is str:
                    keys[key] = name
            text = string(item) if type(item) is str else _scalar(item)
            if text is None:
                put(lead + name)
                self.container(item, depth + 1)  # type: ignore[arg-type]
            else:
                put(lead + name + text)
            lead = between
        put("{}" if lead != between else inner[:-2] + "}")
        self.flush()
