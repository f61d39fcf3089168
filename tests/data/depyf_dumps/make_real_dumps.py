"""Make the real depyf dumps under tests/data/depyf_dumps/ with `depyf.prepare_debug` (see README.md).

Run from the repository root: `.venv/bin/python tests/data/depyf_dumps/make_real_dumps.py`.
"""

from __future__ import annotations

import runpy
import shutil
import sys
from pathlib import Path

import depyf

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
SCENARIOS = {
    "module_counter": REPO / "sample_models" / "module_counter.py",
    "graph_break_dtype": HERE / "scripts" / "graph_break_dtype.py",
}


def main() -> None:
    for name in sys.argv[1:] or SCENARIOS:
        out = HERE / name
        shutil.rmtree(out, ignore_errors=True)
        script = SCENARIOS[name]
        sys.argv = [str(script)]
        # prepare_debug writes full_code_for_* on exit, so the compiled modules must still be alive
        # then: run_path keeps the script's globals until it returns.
        with depyf.prepare_debug(str(out)):
            runpy.run_path(str(script), run_name="__main__")


if __name__ == "__main__":
    main()
