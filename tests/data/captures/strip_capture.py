"""Strip a kept capture of what the doctor's reader does not use (config blobs in compilation_metrics,
chromium events, tensor descriptions), so that a checked-in capture stays small."""

import json
import re
import sys
from pathlib import Path

DROP = {
    "chromium_event",
    "describe_tensor",
    "describe_source",
    "describe_storage",
    "create_symbol",
    "dynamo_cpp_guards_str",
    "guard_added_fast",
}
CONFIG_KEYS = ("inductor_config", "dynamo_config", "functorch_config")
for log in Path(sys.argv[1], "trace").glob("*.log"):
    out, skipping = [], False
    for line in log.read_text().splitlines(keepends=True):
        if line.startswith("\t"):
            if not skipping:
                out.append(line)
            continue
        kind = re.search(r'\{"(\w+)"', line)
        skipping = bool(kind and kind.group(1) in DROP)
        if skipping:
            continue
        if kind and kind.group(1) == "compilation_metrics":
            start = line.index("{")
            record = json.loads(line[start:])
            for key in CONFIG_KEYS:
                record["compilation_metrics"].pop(key, None)
            line = line[:start] + json.dumps(record) + "\n"
        out.append(line)
    log.write_text("".join(out))
