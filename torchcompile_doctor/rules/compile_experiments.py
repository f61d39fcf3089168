"""The compile-time fixes --try-fixes measures (capture/compile_experiments.py applies them in the child):
how each is described, which need two runs, and their effect judged by compile time rather than by breaks
and recompiles.

- `regional`: `{"module_list": "blocks", "block": "Block.forward"}`: each child of `model.blocks` compiled
  instead of the whole model.
- `cache_artifacts`: `{"carry": true}`: two runs with one inductor cache directory that outlives them, the
  first on the empty directory, the second on what the first left there; before/after are those two runs (a
  fresh machine without and with a persistent TORCHINDUCTOR_CACHE_DIR).
"""

from __future__ import annotations

from torchcompile_doctor.model.findings import RunFigures

IMPROVED = 0.9  # compile time after / before at most this: the fix helped
WORSE = 1.1


def describe_parts(experiment: dict) -> list[str]:
    parts = []
    regional = experiment.get("regional")
    if regional:
        parts.append(f"`for block in model.{regional['module_list']}: block.compile()` instead of compiling the model")
    if experiment.get("cache_artifacts"):
        parts.append("TORCHINDUCTOR_CACHE_DIR kept from a first run on an empty cache to a second run")
    return parts


def carries_cache(experiment: dict) -> bool:
    """Needs two runs: one that fills the cache directory, one that reads it."""
    return bool(experiment.get("cache_artifacts"))


def cache_step(cache_dir: str) -> dict:
    """What each of the two runs gets: the shared inductor cache directory."""
    return {"cache_artifacts": {"cache_dir": cache_dir}}


def is_compile_time(experiment: dict) -> bool:
    return bool(experiment.get("regional") or experiment.get("cache_artifacts"))


def effect(before: RunFigures, after: RunFigures, ok: bool) -> str:
    """improved / no effect / worse, by compile seconds."""
    if not ok:
        return "broke the run"
    was, now = before.compile_time_s or 0.0, after.compile_time_s or 0.0
    if was and now <= was * IMPROVED:
        return "improved"
    if was and now >= was * WORSE:
        return "worse"
    return "no effect"
