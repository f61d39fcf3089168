"""A long job's log, made from recorded traces: each one repeated, every copy's frame ids moved past the previous
copy's (as bench/ingest.py builds its big traces), payloads as written (their md5 is in their envelope)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

from torchcompile_doctor.events.load import load_trace
from torchcompile_doctor.events.model import EventLog

TRACES = Path(__file__).resolve().parents[1] / "data" / "traces"
# a function at the recompile limit, recompiles of resume functions, a dtype and a shape recompile, graph breaks
SEEDS = ("recompile_limit.log", "item_recompile.log", "dtype_shape_recompile.log")
_ENVELOPE = re.compile(rb"^[VIWEC]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ [^\]]*\] ")


def repeated_trace(copies: int, seeds: tuple[str, ...] = SEEDS) -> bytes:
    """The seed traces (under tests/data/traces) `copies` times over; interned strings once, as a long job logs
    them."""
    out: list[bytes] = []
    offset = 0
    for copy in range(copies):
        for seed in seeds:
            top = offset
            for line in (TRACES / seed).read_bytes().splitlines(keepends=True):
                match = _ENVELOPE.match(line)
                if match is None:  # a payload line: kept as written (its md5 is in its envelope)
                    out.append(line)
                    continue
                meta: dict[str, Any] = json.loads(line[match.end() :])
                if "str" in meta and copy:
                    continue
                if isinstance(meta.get("frame_id"), int):
                    meta["frame_id"] += offset
                    top = max(top, meta["frame_id"] + 1)
                out.append(line[: match.end()] + json.dumps(meta).encode() + b"\n")
            offset = top
    return b"".join(out)


def repeated_log(copies: int, seeds: tuple[str, ...] = SEEDS) -> EventLog:
    """The events of `repeated_trace(copies, seeds)`."""
    log = EventLog()
    load_trace(io.BytesIO(repeated_trace(copies, seeds)), log)
    return log
