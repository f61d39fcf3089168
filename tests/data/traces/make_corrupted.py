"""Make the damaged copies in corrupted/ from graph_break_print.log (deterministic; run once, check in).

    cd tests/data/traces && python make_corrupted.py

Each copy has exactly one kind of damage. Insertions go just before the graph-break record
(`dynamo_graph_break_reason` of compile 0/0), so valid records lie on both sides of the damage:
torch_version, dynamo_start 0/0 before; the graph break, both compilation_metrics, dynamo_start 1/0
and both output graphs after.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "graph_break_print.log"
OUT = HERE / "corrupted"

GARBAGE_LINE = b"\x00\xff\xfe\x80 not utf-8 \xc3\x28 garbage \x9f\x92\x96\n"
BROKEN_JSON_LINE = (
    b"V1121 05:39:13.200000 9221 torch/_dynamo/convert_frame.py:303] "
    b'{"dynamo_start": {"stack": [{"line": 5, "name": "fn", "filename": 1}]}, "frame_id": 0, "frame_compile_id": \n'
)
UNKNOWN_PAYLOAD = b'{"future": "payload"}\n{"second": "line"}'
UNKNOWN_KIND_LINES = (
    b"V1121 05:39:13.200000 9221 torch/_dynamo/future.py:1] "
    b'{"brand_new_event": {"detail": 1}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0, "has_payload": "'
    + hashlib.md5(UNKNOWN_PAYLOAD).hexdigest().encode()
    + b'"}\n'
    + b"".join(b"\t" + line + b"\n" for line in UNKNOWN_PAYLOAD.split(b"\n"))
)
STRAY_PAYLOAD_LINE = b"\tGraph break in user code at /nowhere.py:1\n"


def main() -> None:
    lines = SOURCE.read_bytes().splitlines(keepends=True)
    gb = next(i for i, line in enumerate(lines) if b'"name": "dynamo_graph_break_reason"' in line)
    last_metrics = max(i for i, line in enumerate(lines) if line.startswith(b"V") and b'{"compilation_metrics"' in line)

    def insert_before_break(extra: bytes) -> bytes:
        return b"".join(lines[:gb]) + extra + b"".join(lines[gb:])

    # One payload line of the graph-break record altered ("line 7" -> "line 8"): md5 no longer matches.
    altered = list(lines)
    payload_index = next(i for i in range(gb + 1, len(lines)) if b'graph_break_print.py", line 7, in fn' in lines[i])
    altered[payload_index] = altered[payload_index].replace(b"line 7,", b"line 8,")
    # The writer died in the middle of the last compilation_metrics envelope line.
    cut = lines[last_metrics]
    truncated = b"".join(lines[:last_metrics]) + cut[: len(cut) // 2]

    copies = {
        "garbage_binary_line.log": insert_before_break(GARBAGE_LINE),
        "broken_json_envelope.log": insert_before_break(BROKEN_JSON_LINE),
        "md5_mismatch.log": b"".join(altered),
        "truncated_mid_line.log": truncated,
        "unknown_kind.log": insert_before_break(UNKNOWN_KIND_LINES),
        "payload_before_envelope.log": STRAY_PAYLOAD_LINE + b"".join(lines),
    }
    OUT.mkdir(exist_ok=True)
    for name, data in copies.items():
        (OUT / name).write_bytes(data)
        print(f"{name}: {len(data)} bytes")


if __name__ == "__main__":
    main()
