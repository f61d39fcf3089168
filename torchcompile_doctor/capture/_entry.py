"""The file every capture child runs by path: `python .../capture/_entry.py SPEC_JSON` (the target's
process), `python .../capture/_entry.py --spawned SPEC_JSON PROGRAM ...` (a process the target started
with multiprocessing's spawn method).

Run by path, with `PYTHONPATH` left as the user's, so the program's module search path is its own:
Python put this file's folder first on `sys.path`, which is taken off again here, and the doctor's
package is loaded from where this file lies. It never goes on `sys.path`, so it shadows nothing the
program imports, and processes the program starts do not inherit it.
"""

import importlib.util
import os
import sys


def _load_doctor_package() -> None:
    here = os.path.dirname(os.path.realpath(__file__))
    if sys.path and os.path.realpath(sys.path[0] or os.curdir) == here:
        del sys.path[0]
    if "torchcompile_doctor" in sys.modules:
        return
    package_dir = os.path.dirname(here)
    spec = importlib.util.spec_from_file_location(
        "torchcompile_doctor", os.path.join(package_dir, "__init__.py"), submodule_search_locations=[package_dir]
    )
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load the doctor's package from {package_dir}")
    package = importlib.util.module_from_spec(spec)
    sys.modules["torchcompile_doctor"] = package
    spec.loader.exec_module(package)


if __name__ == "__main__":
    _load_doctor_package()
    from torchcompile_doctor.capture._bootstrap import main

    main(sys.argv)
