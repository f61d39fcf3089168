"""What torch.compile(fullgraph=True) raises on the check project's known break (tests/data/check/known_break/s.py,
tests/cli/test_check.py): the program with `fullgraph=True` added, run plainly, prints `RAISED NAME FIRST-LINE` of
the error. This is torch's answer alone: `record` keeps the pinned torch's in
tests/data/check/known_break/fullgraph_raised.txt, which the fast test reads (the lanes of other torches run it
live, marked `torch_rerun`):

    python tests/support/fullgraph_probe.py record
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: the shared test code is found from tests/
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from support.paths import DATA

KNOWN_BREAK = DATA / "check" / "known_break" / "s.py"
RECORDED = KNOWN_BREAK.with_name("fullgraph_raised.txt")


def probe(source: str) -> str:
    """The program with fullgraph=True, printing what its first compile raises instead of failing."""
    text = source.replace('backend="eager")', 'backend="eager", fullgraph=True)')
    return text.replace("torch.compile(", "try:\n    torch.compile(", 1).replace(
        "(torch.ones(2))\n",
        "(torch.ones(2))\nexcept Exception as e:\n    print('RAISED', type(e).__name__, str(e).splitlines()[0])\n",
    )


def raised(folder: Path) -> str:
    """The probe of the known break run plainly in `folder` (as s.py, as the capture names it): its RAISED line."""
    script = folder / "s.py"
    script.write_text(probe(KNOWN_BREAK.read_text()))
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=folder, timeout=300)
    [line] = [line for line in run.stdout.splitlines() if line.startswith("RAISED")]
    return line


def recorded() -> str:
    return RECORDED.read_text(encoding="utf-8").strip()


if __name__ == "__main__":
    if sys.argv[1:] != ["record"]:
        raise SystemExit(__doc__)
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        RECORDED.write_text(raised(Path(folder)) + "\n", encoding="utf-8")
