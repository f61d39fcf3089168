"""Make a checked-in capture small: drop the TORCH_TRACE records no test reads (tensor descriptions, the AOT and
inductor graphs and generated code), move the paths of the machine that made it to another root, and write each
kept payload's md5 again (a moved path changes the payload). What stays is a real capture the reader reads
whole: envelopes, metadata and payloads as torch wrote them.

    python tests/data/captures/shrink_capture.py SRC DEST --from /work/wt-x/sample_models --to /work/main/sample_models
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
from pathlib import Path

DROPPED_KINDS = {
    "describe_tensor",
    "describe_storage",
    "aot_inference_graph",
    "aot_forward_graph",
    "aot_backward_graph",
    "aot_joint_graph",
    "inductor_output_code",
    "inductor_post_grad_graph",
}
DROPPED_ARTIFACTS = re.compile(
    r"^(before|after)_|^fx_graph_runnable$|^aot_forward_graph_fw_metadata$|^runtime_wrapper|^inductor_post_grad_graph$"
)
# chromium_event spans the doctor reads (events/parsers/chromium_event.py); the others are torch's timeline
KEPT_SPANS = ("compile_file", "async_compile.wait")
_ENVELOPE = re.compile(r"^([VIWEC]\d{4} [^\]]*\] )(\{.*\})$")


def _kind(meta: dict) -> str:
    for key in meta:
        if key not in ("frame_id", "frame_compile_id", "attempt", "has_payload", "rank", "stack"):
            return f"artifact:{meta['artifact'].get('name')}" if key == "artifact" else key
    return ""


def _records(text: str):
    """(envelope, meta, payload lines) of each record."""
    current = None
    for line in text.split("\n"):
        if line.startswith("\t") and current is not None:
            current[2].append(line[1:])
            continue
        if current is not None:
            yield current
        match = _ENVELOPE.match(line)
        current = (match.group(1), json.loads(match.group(2)), []) if match else None
    if current is not None:
        yield current


def _drop(meta: dict, payload: list[str]) -> bool:
    kind = _kind(meta)
    if kind == "chromium_event":
        return not any(f'"name": "{name}"' in line for line in payload for name in KEPT_SPANS)
    if kind in DROPPED_KINDS:
        return True
    return kind.startswith("artifact:") and bool(DROPPED_ARTIFACTS.search(kind.removeprefix("artifact:")))


def _moved(text: str, old: str, new: str) -> str:
    """The root moved, and torch's shortened form of it too (guard comments name `dir/sample_models/x.py:3`)."""
    short_old = "/".join(Path(old).parts[-2:])
    short_new = "/".join(Path(new).parts[-2:])
    return text.replace(old, new).replace(short_old, short_new)


def shrink_trace(text: str, old: str, new: str) -> str:
    out = []
    for envelope, meta, payload in _records(text):
        if _drop(meta, payload):
            continue
        meta = json.loads(_moved(json.dumps(meta), old, new))
        lines = [_moved(line, old, new) for line in payload]
        if "has_payload" in meta:
            meta["has_payload"] = hashlib.md5("\n".join(lines).encode()).hexdigest()
        out.append(envelope + json.dumps(meta))
        out += ["\t" + line for line in lines]
    return "\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("src", type=Path)
    parser.add_argument("dest", type=Path)
    parser.add_argument("--from", dest="old", required=True)
    parser.add_argument("--to", dest="new", required=True)
    args = parser.parse_args()
    (args.dest / "trace").mkdir(parents=True, exist_ok=True)
    for log in sorted((args.src / "trace").glob("*.log")):
        text = log.read_text(encoding="utf-8")
        (args.dest / "trace" / log.name).write_text(shrink_trace(text, args.old, args.new), encoding="utf-8")
    for name in ("doctor_events.jsonl", "doctor_sources.json"):
        if (args.src / name).is_file():
            (args.dest / name).write_text(_moved((args.src / name).read_text(), args.old, args.new))
    shutil.rmtree(args.dest / "inductor_cache", ignore_errors=True)


if __name__ == "__main__":
    main()
