"""The layout of a depyf dump directory, shared by every writer and reader of one.

Writers: the observe-only hook (capture/depyf_observe.py), and `depyf.prepare_debug`, which writes the
`full_code_for_*` files and the same `__transformed_code_*` files. Reader: events/dumps/depyf_dump.py.
(`doctor guards TARGET --dump DIR` also copies its capture into the dump: capture_layout.CAPTURE_IN_DUMP.)
"""

from __future__ import annotations

import re

# The observe hook writes this before a JSON object on the first line of each file.
OBSERVE_HEADER = "# torchcompile-doctor observe: "
TRANSFORMED_NAME = "__transformed_code_{index}_for_{function}.py"
DECOMPILE_FAILED_NAME = TRANSFORMED_NAME + ".failed.txt"
GUARD_TREE_NAME = "__guard_tree_{index}_for_{function}.txt"

FULL_CODE = re.compile(r"^full_code_for_(?P<function>.+)_(?P<copy>\d+)\.py$")
TRANSFORMED = re.compile(r"^__transformed_code_(?P<index>\d+)_for_(?P<function>.+)\.py$")
DECOMPILE_FAILED = re.compile(r"^__transformed_code_(?P<index>\d+)_for_(?P<function>.+)\.py\.failed\.txt$")
GUARD_TREE = re.compile(r"^__guard_tree_(?P<index>\d+)_for_(?P<function>.+)\.txt$")
# Part of a depyf dump, not needed for guards: graph code, inductor kernels, pickled bytecode, locks.
NOT_READ = re.compile(
    r"^(__compiled_fn_\d+.*\.py|fx_graph_code_.*\.py|__transformed_code_.*\.py\.\w+_bytecode|.*\.lock)$"
)
