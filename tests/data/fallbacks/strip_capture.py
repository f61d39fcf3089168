"""Make a kept capture small enough to check in: `python strip_capture.py SRC DEST [--breaks-only]`.

Copies SRC (a `doctor explain --artifacts` dir) to DEST, leaving out of each TORCH_TRACE log only what no
test reads: `chromium_event` records, `dynamo_error` artifacts (torch's own Python tracebacks), and the
config snapshots and exception traceback inside `compilation_metrics` (inductor/dynamo/functorch configs,
`exception_stack_trace`). `--breaks-only` also leaves out the guard trees, side-effect summaries and
tensor descriptions (a test of breaks and fallbacks reads none of them). Every other record is kept
byte for byte, so the reader sees a real capture.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

ENVELOPE = re.compile(r"^(?P<prefix>[VIWE]\d+ [\d:.]+ \d+ \S+\] )(?P<body>\{.*\})$")
DROPPED_METRICS = ("inductor_config", "dynamo_config", "functorch_config", "exception_stack_trace")


GUARDS_AND_TENSORS = ("dynamo_cpp_guards_str", "describe_tensor", "describe_source", "describe_storage")


def _dropped(meta: dict, breaks_only: bool) -> bool:
    artifact = (meta.get("artifact") or {}).get("name")
    if "chromium_event" in meta or artifact == "dynamo_error":
        return True
    return breaks_only and (artifact == "dynamo_side_effects" or any(kind in meta for kind in GUARDS_AND_TENSORS))


def strip_log(text: str, breaks_only: bool = False) -> str:
    kept: list[str] = []
    skipping = False
    for line in text.split("\n"):
        if line.startswith("\t"):  # a payload line belongs to the envelope before it
            if not skipping:
                kept.append(line)
            continue
        match = ENVELOPE.match(line)
        if match is None:
            kept.append(line)
            skipping = False
            continue
        meta = json.loads(match["body"])
        skipping = _dropped(meta, breaks_only)
        if skipping:
            continue
        metrics = meta.get("compilation_metrics")
        if isinstance(metrics, dict) and any(key in metrics for key in DROPPED_METRICS):
            for key in DROPPED_METRICS:
                metrics.pop(key, None)
            line = match["prefix"] + json.dumps(meta)
        kept.append(line)
    return "\n".join(kept)


def main(source: Path, dest: Path, breaks_only: bool) -> None:
    shutil.copytree(source, dest)
    for log in (dest / "trace").glob("*.log"):
        log.write_text(strip_log(log.read_text(encoding="utf-8"), breaks_only), encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), "--breaks-only" in sys.argv[3:])
