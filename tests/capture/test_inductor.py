"""Where inductor matters: perf hints, and the fidelity of the `--backend eager` fast mode.

These compile C++ on CPU, so there are two of them; the rest of inductor's findings (repeated blocks, phases,
caches: TCD601-604) are checked on recorded inductor captures (tests/rules, tests/data/captures). On an empty cache
the first C++ compile of a process pays for what every later one reuses (about 20 of module_counter's 29 s of
compile on a quiet machine, its other three graphs 1 s each): the perf-hint run needs that empty cache, and the
fast-mode run starts from a copy of the cache it left (measured: module_counter's compile 29 s -> 12 s).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support.captures import SAMPLE_CAPTURES, reread
from support.doctor import DoctorRun, doctor_here
from support.paths import SAMPLES

from torchcompile_doctor.capture_layout import FRESH_INDUCTOR_CACHE
from torchcompile_doctor.renderers import render

pytestmark = [pytest.mark.slow, pytest.mark.inductor]


@pytest.fixture(scope="session")
def perf_hint_run(shared_run) -> DoctorRun:
    """perf_hint_inductor.py on an empty inductor cache, once per session; its capture (and so the cache it
    filled, FRESH_INDUCTOR_CACHE in it) kept."""
    args = ("explain", "perf_hint_inductor.py", "--fresh-inductor-cache", "--format", "json")
    return shared_run(*args, keep_artifacts=True, timeout=600)


def _essentials(report: dict) -> list[tuple]:
    """What a finding says about the user's program, independent of the backend that compiled it."""
    return sorted(
        (
            f["kind"],
            f["code"],
            Path(f["location"]["file"]).name,  # the recorded capture ran in another checkout
            f["location"]["line"],
            f["gb_id"],
            f["category"],
            f["reason_class"],
            f["count"],
            tuple(f["call_sites"]),
            tuple(f["changes"]),
        )
        for f in report["findings"]
        if f["kind"] not in ("perf_hint", "compile_time")  # what inductor itself does and costs
    )


@pytest.mark.parametrize("script", ["module_counter.py"])  # recompiles, a recompile limit near, guards
def test_eager_fast_mode_finds_what_inductor_finds(script, tmp_path, perf_hint_run):
    # the sample compiles with backend="eager" itself: its recorded capture (tests/data/samples) is the eager
    # fast mode, and `--backend inductor` overrides it; in a cache of its own that holds none of its graphs
    assert perf_hint_run.artifacts is not None
    shutil.copytree(perf_hint_run.artifacts / FRESH_INDUCTOR_CACHE, tmp_path / "cache")
    eager = DoctorRun(0, render(reread(SAMPLE_CAPTURES / script.replace(".py", ".capture")), "json"), "")
    inductor = doctor_here(
        "explain",
        script,
        "--backend",
        "inductor",
        "--format",
        "json",
        cwd=SAMPLES,
        timeout=600,
        env={"TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert eager.returncode == inductor.returncode == 0, inductor.stderr[-2000:]
    eager_report, inductor_report = eager.json, inductor.json
    assert eager_report["backend"].startswith("eager") and inductor_report["backend"].startswith("inductor")
    assert _essentials(eager_report) and _essentials(eager_report) == _essentials(inductor_report)
    for key in ("graphs", "graph_breaks", "recompiles", "recompile_limit_hits"):
        assert eager_report["summary"][key] == inductor_report["summary"][key]


def test_perf_hints_on_a_fresh_inductor_cache(perf_hint_run):
    run = perf_hint_run
    assert run.returncode == 0, run.stderr[-2000:]
    report = run.json
    hints = [f for f in report["findings"] if f["kind"] == "perf_hint"]
    messages = {h["evidence"]["torch_text"] for h in hints}
    assert "Using FallbackKernel: torch.ops.aten.topk.default" in messages
    # a fallback kernel has its own rule (TCD420, low); the other hints the generic one (TCD404, info)
    fallback = [h for h in hints if h["evidence"]["torch_text"].startswith("Using FallbackKernel")]
    assert all(h["severity"] == "low" and h["code"] == "TCD420" for h in fallback)
    assert all(h["severity"] == "info" and h["code"] == "TCD404" for h in hints if h not in fallback)
    assert all(h["location"]["function"] == "TwoTowerScorer.forward" for h in hints)
    (topk,) = [h for h in hints if "aten.topk" in h["evidence"]["torch_text"]]
    assert topk["location"]["line"] == 18  # the user's line that calls topk, not the def of forward
    assert report["findings"][-1]["kind"] == "perf_hint"  # kept low in the ranking
    # the compile time of a live inductor run on an empty cache: the C++ compile of its kernels, all of it cold
    data = report["compile_time"]
    assert data["total_s"] > 0 and data["phases"]["cpp_compile"] > 0 and data["run_s"] > data["total_s"]
    assert data["cache"]["fx_graph"]["misses"] >= 1 and data["cache"]["fx_graph"]["hits"] == 0
    assert "TCD603" in {f["code"] for f in report["findings"]}  # every graph compiled from scratch
