"""torch's own account of a run: the stderr of `TORCH_LOGS=graph_breaks,recompiles python NAME.py`, kept beside a
recorded capture (`recording.py record --torch-logs`) as the truth its reading is compared with. Read here with
the few patterns a test needs, on purpose apart from the doctor's own parsers (events/textlog.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

# "V1125 18:19:49.640000 6283 torch/_dynamo/symbolic_convert.py:5124] [0/0] [__graph_breaks] TEXT"
_LINE = re.compile(
    r"^[VIWEC]\d{4} [\d:.]+ +\d+ \S+\] (?:\[(?P<compile_id>[^\]]*)\] )?\[__(?P<artifact>\w+)\] ?(?P<text>.*)$"
)
_BREAK = re.compile(
    r"^Graph break (?:\(user stack suppressed due to duplicate graph break\) )?"
    r"in user code at (?P<file>.+):(?P<line>\d+)$"
)
_GB_PAGE = re.compile(r"/gb/gb(?P<number>\d+)\.html")
_RECOMPILING = re.compile(r"^Recompiling function (?P<function>\S+) in (?P<file>.+):(?P<line>\d+)$")
_FAILURE = re.compile(r"^\s*- (?P<entry>\d+/\d+): (?P<guard>.*?)(?:\s{2,}# .*)?$")
_RESUME = re.compile(r"^torch_dynamo_resume_in_(?P<function>\w+?)_at_(?P<line>\d+)$")


@dataclass
class TorchBreak:
    file: str
    line: int
    compile_id: str
    gb_id: str | None = None  # from the break's link to torch's page, when it prints one

    @property
    def file_name(self) -> str:
        return Path(self.file).name


@dataclass
class TorchRecompile:
    function: str  # as torch names it: `torch_dynamo_resume_in_step_at_12` for the code after a break
    file: str
    line: int
    compile_id: str
    guard_failures: list[str] = field(default_factory=list)  # the guard of each cache entry that failed

    @property
    def user_function(self) -> str:
        """The user's function a resumed frame belongs to (`step` for `torch_dynamo_resume_in_step_at_12`)."""
        resume = _RESUME.match(self.function)
        return resume["function"] if resume else self.function


@dataclass
class TorchLog:
    breaks: list[TorchBreak]
    recompiles: list[TorchRecompile]


def read_torch_log(path: Path) -> TorchLog:
    breaks: list[TorchBreak] = []
    recompiles: list[TorchRecompile] = []
    current: TorchBreak | TorchRecompile | None = None
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = _LINE.match(raw)
        if line is None:
            continue
        text, compile_id = line["text"], line["compile_id"] or ""
        started = _BREAK.match(text) if line["artifact"] == "graph_breaks" else _RECOMPILING.match(text)
        if started and line["artifact"] == "graph_breaks":
            current = TorchBreak(started["file"], int(started["line"]), compile_id)
            breaks.append(current)
        elif started:
            current = TorchRecompile(started["function"], started["file"], int(started["line"]), compile_id)
            recompiles.append(current)
        elif isinstance(current, TorchBreak) and (page := _GB_PAGE.search(text)):
            current.gb_id = current.gb_id or f"GB{int(page['number']):04d}"
        elif isinstance(current, TorchRecompile) and (failure := _FAILURE.match(text)):
            current.guard_failures.append(failure["guard"].strip())
    return TorchLog(breaks, recompiles)
