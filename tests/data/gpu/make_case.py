"""Copy one recorded GPU case of ../shared/gpu-captures into tests/data/gpu/NAME/, small enough to check in:

    python tests/data/gpu/make_case.py /work/shared/gpu-captures/NAME tests/data/gpu/NAME

- `NAME.py`, `truth.log.gz` (the run's stderr under TORCH_LOGS), `truth.rc`: copied as they are.
- `trace/*.log.gz`: the run's TORCH_TRACE with the records the doctor does not read dropped (tensor descriptions,
  the AOT and inductor graphs and generated code, chromium spans other than the kernel compile's, symbolic-shape
  records), the config blobs of compilation_metrics dropped, and the payloads of cache misses (the cache key's
  parts, which the reader skips) replaced by `{}`; every kept payload's md5 written again. What stays reads as
  torch wrote it; the report of the stripped trace equals the full one's (tests/test_gpu_log.py checks that on
  the smallest case).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import shutil
import sys
from pathlib import Path

DROPPED_KINDS = {
    "describe_tensor",
    "describe_storage",
    "describe_source",
    "aot_inference_graph",
    "aot_forward_graph",
    "aot_backward_graph",
    "aot_joint_graph",
    "inductor_output_code",
    "inductor_post_grad_graph",
    "compilation_metrics_runtime",
    "create_symbol",
    "guard_added_fast",
    "symbolic_shape_specialization",
}
DROPPED_ARTIFACTS = re.compile(
    r"^(before|after)_|^fx_graph_runnable$|^aot_forward_graph_fw_metadata$|^runtime_wrapper|^inductor_post_grad_graph$"
    r"|^torch\._functorch\.config$|^dynamo_side_effects$|^triton_kernel_info$"
)
EMPTIED_ARTIFACTS = {"fx_graph_cache_miss", "aotautograd_cache_miss"}
KEPT_SPANS = ("compile_file", "async_compile.wait")  # events/parsers/chromium_event.py
CONFIG_KEYS = ("inductor_config", "dynamo_config", "functorch_config", "compiler_config")
_ENVELOPE = re.compile(r"^([VIWEC]\d{4} [^\]]*\] )(\{.*\})$")


def _kind(meta: dict) -> str:
    for key in meta:
        if key not in ("frame_id", "frame_compile_id", "attempt", "has_payload", "rank", "stack"):
            return f"artifact:{meta['artifact'].get('name')}" if key == "artifact" else key
    return ""


def _records(text: str):
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


def _kept(kind: str, payload: list[str]) -> bool:
    if kind == "chromium_event":
        return any(f'"name": "{name}"' in line for line in payload for name in KEPT_SPANS)
    if kind in DROPPED_KINDS:
        return False
    return not (kind.startswith("artifact:") and DROPPED_ARTIFACTS.search(kind.removeprefix("artifact:")))


def strip_trace(text: str) -> str:
    out = []
    for envelope, meta, payload in _records(text):
        kind = _kind(meta)
        if not _kept(kind, payload):
            continue
        if kind == "compilation_metrics":
            for key in CONFIG_KEYS:
                meta["compilation_metrics"].pop(key, None)
        if kind.removeprefix("artifact:") in EMPTIED_ARTIFACTS:
            payload = ["{}"]
        if "has_payload" in meta:
            meta["has_payload"] = hashlib.md5("\n".join(payload).encode()).hexdigest()
        out.append(envelope + json.dumps(meta))
        out += ["\t" + line for line in payload]
    return "\n".join(out) + "\n"


def main(source: Path, dest: Path) -> None:
    (dest / "trace").mkdir(parents=True, exist_ok=True)
    for name in (f"{source.name}.py", "truth.log.gz", "truth.rc"):
        shutil.copyfile(source / name, dest / name)
    for trace in sorted((source / "trace").glob("*.log.gz")):
        text = gzip.decompress(trace.read_bytes()).decode("utf-8")
        (dest / "trace" / trace.name).write_bytes(gzip.compress(strip_trace(text).encode("utf-8"), mtime=0))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
