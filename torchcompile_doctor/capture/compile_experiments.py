"""The child's side of the compile-time fixes --try-fixes measures (model/experiment.py names them):
regional compilation (compile each block of a module list instead of the whole model) and a compile cache
that outlives the run (one directory for the inductor cache, kept from one run to the next)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from torchcompile_doctor.model.experiment import Regional


def compile_blocks(model: object, regional: Regional | None, kwargs: dict[str, object]) -> bool:
    """For a regional-compilation experiment: compile each child of `model.<module_list>` in place, with the
    user's torch.compile arguments, as `for block in model.blocks: block.compile()` would. False when the
    model has no such module list (the model is then compiled as the user wrote it)."""
    import torch

    if not regional or not isinstance(model, torch.nn.Module):
        return False
    try:
        blocks = model.get_submodule(regional.module_list)
    except (AttributeError, KeyError):
        return False
    children = list(blocks.children()) if isinstance(blocks, (torch.nn.ModuleList, torch.nn.Sequential)) else []
    if not children:
        return False
    for block in children:
        block.compile(**kwargs)  # nn.Module.compile calls torch.compile (the hook records it)
    return True


@contextlib.contextmanager
def persistent_cache(cache_dir: str | None) -> Iterator[None]:
    """For a cache experiment: compile with the inductor cache in `cache_dir`, a directory that outlives the run
    (what TORCHINDUCTOR_CACHE_DIR on persistent storage gives a fresh machine). Inductor reads the variable
    when it first uses its cache, after this."""
    if not cache_dir:
        yield
        return
    saved = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache_dir
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("TORCHINDUCTOR_CACHE_DIR", None)
        else:
            os.environ["TORCHINDUCTOR_CACHE_DIR"] = saved
