"""The advice the catalogue gives as measured (tests/capture/test_advice_measured.py): each case program run plainly
under `TORCH_LOGS=graph_breaks`, with the Python flags its advice names; `record` keeps what torch logged for each
in tests/data/advice/recorded/ (the answer of the pinned torch):

    python tests/support/advice_runs.py record
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: the shared test code is found from tests/
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from support.paths import DATA, RULES

BREAK = "Graph break in user code"
RECORDED = DATA / "advice" / "recorded"
# (the program, the Python flags it runs with): each rule's case, and the same with its advice taken
RUNS = [
    (RULES / "TCD126" / "cudnn_flags.py", ()),
    (DATA / "advice" / "context_outside.py", ()),  # TCD126's advice: the `with` outside the compiled function
    (RULES / "TCD125" / "contextvar.py", ()),
    (RULES / "TCD104" / "item_assert.py", ()),
    (RULES / "TCD104" / "item_assert.py", ("-O",)),  # TCD104's advice for an assert: python -O strips it
]


def torch_log(program: Path, *python_flags: str) -> str:
    """What torch logs on stderr for the program run plainly (it must end well)."""
    env = {**os.environ, "TORCH_LOGS": "graph_breaks"}
    done = subprocess.run([sys.executable, *python_flags, str(program)], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stderr


def recorded_log(program: Path, *python_flags: str) -> Path:
    return RECORDED / f"{program.stem}{''.join(python_flags)}.graph_breaks.txt"


def record() -> None:
    RECORDED.mkdir(exist_ok=True)
    for program, flags in RUNS:
        recorded_log(program, *flags).write_text(torch_log(program, *flags), encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:] != ["record"]:
        raise SystemExit(__doc__)
    record()
