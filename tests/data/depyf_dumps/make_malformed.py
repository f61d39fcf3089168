"""Write the `malformed/` depyf dump (deterministic; see README.md for what each file is for).

`python tests/data/depyf_dumps/make_malformed.py [OUT_DIR]` (default: malformed/ beside this script).
The huge file and the symlinks are made by the tests at run time, not checked in.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# Cut from module_counter/full_code_for_forward_0.py (entry 0), with a Latin-1 byte (0xE9) in one
# comment so the file is not valid UTF-8.
GOOD_FULL_CODE = (
    b"\n# Note: the following variables are used inside the guard function.\n"
    b"___check_obj_id = '''<built-in function check_obj_id>'''\n"
    b"def __guard_0_for_forward(L, G, **___kwargs_ignored):\n"
    b"    __guard_hit = True\n"
    b"    __guard_hit = __guard_hit and torch._functorch.aot_autograd.utils.top_saved_tensors_hooks ids == None"
    b"  # _dynamo/output_graph.py:1135 in init_ambient_guards\n"
    b"    __guard_hit = __guard_hit and L['self'].count == 0"
    b"                                          # self.count += 1  # caf\xe9/module_counter.py:17 in forward\n"
    b"    __guard_hit = __guard_hit and L['self'].training == True"
    b"                                    # if self.training:  # sample_models/module_counter.py:16 in forward\n"
    b"    return __guard_hit\n"
    b"\n"
    b"def __transformed_code_0_for_forward(self, obs):\n"
    b"    return obs\n"
    b"\n"
    b"def transformed_forward(self, obs):\n"
    b'    __local_dict = {"self": self, "obs": obs}\n'
    b"    __global_dict = globals()\n"
    b"    if __guard_0_for_forward(__local_dict, __global_dict):\n"
    b"        return __transformed_code_0_for_forward(self, obs)\n"
    b"    return forward(self, obs)\n"
)

FILES: dict[str, bytes] = {
    "full_code_for_forward_0.py": GOOD_FULL_CODE,
    # Half-written: the process died inside a guard function.
    "full_code_for_halfwritten_0.py": GOOD_FULL_CODE[
        : GOOD_FULL_CODE.index(b"    __guard_hit = __guard_hit and L['self'].training")
    ],
    # A transformed-code file that is not Python.
    "__transformed_code_0_for_broken.py": b"def __transformed_code_0_for_broken(x):\n    return (x +\n",
    # Code that would run on import or exec; reading the dump must not run it.
    "__transformed_code_0_for_pwn.py": b'import os; os.system("touch PWNED")\n',
    "full_code_for_pwn_0.py": (
        b'import os; os.system("touch PWNED")\n'
        b"def __guard_0_for_pwn(L, G, **___kwargs_ignored):\n"
        b"    __guard_hit = True\n"
        b"    __guard_hit = __guard_hit and __import__('os').system('touch PWNED') == 0  # pwn.py:1 in pwn\n"
        b"    return __guard_hit\n"
    ),
    # Looks like a guard function but sits inside a string: not a guard of anything.
    "full_code_for_decoy_0.py": (
        b'DOC = """\ndef __guard_0_for_decoy(L, G, **___kwargs_ignored):\n'
        b'    __guard_hit = True\n    __guard_hit = __guard_hit and L[\'x\'] == 1\n    return __guard_hit\n"""\n'
    ),
    # Not a depyf or doctor file name.
    "notes.txt": b"copied here by hand\n",
}


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "malformed"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    for name, data in FILES.items():
        (out / name).write_bytes(data)


if __name__ == "__main__":
    main()
