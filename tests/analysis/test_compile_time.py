"""Compile time as a finding family, on real inductor captures checked in under tests/data: the phases, the
caches, warm-up, the TCD6xx findings, the JSON object, and the compile-time fixes --try-fixes measures.
One live test runs the sample under inductor (marked `inductor`)."""

from __future__ import annotations

import json
import re

import pytest
from support.captures import CAPTURES, SAMPLE_CAPTURES, reread, snapshot_context, trace_root
from support.doctor import doctor_in_process
from support.paths import DATA, SAMPLES

from torchcompile_doctor.analysis import analyze
from torchcompile_doctor.analysis.compile_time_breakdown import cpp_compile_seconds, phases_of
from torchcompile_doctor.events.load import load_artifacts
from torchcompile_doctor.events.model import CompilationMetrics, CompileId, CompileSpan
from torchcompile_doctor.experiments import verify
from torchcompile_doctor.model.compile_time import PHASES
from torchcompile_doctor.model.experiment import CarriedCache, as_json, key
from torchcompile_doctor.renderers._text import summary_line

WARM_TRACE = DATA / "traces" / "repeated_blocks_warm_cache.log"


@pytest.fixture(scope="module")
def cold():
    return reread(CAPTURES / "repeated_blocks")


@pytest.fixture(scope="module")
def warm():
    root = trace_root(WARM_TRACE)
    return analyze(load_artifacts(WARM_TRACE), snapshot_context(WARM_TRACE.parent, f"{root}/repeated_blocks.py", root))


def _codes(report) -> list[str]:
    return [f.code for f in report.findings]


def test_phases_add_up_to_torchs_compile_time(cold):
    data = cold.compile_time
    assert data is not None and len(data.frames) == 1
    (frame,) = data.frames
    assert frame.function == "Encoder.forward" and frame.line == 33
    assert abs(sum(data.phases.values()) - data.total_s) < 1e-6
    assert abs(data.total_s - cold.summary.compile_time_s) < 1e-3
    # on CPU the C++ compile of the kernels is most of it; every phase of a CPU run took time, no Triton, no autotuning
    assert data.kernel_compiler == "cpp" and data.shown == ("dynamo", "aot_autograd", "inductor", "cpp_compile")
    assert all(data.phases[p] > 0 for p in data.shown)
    assert data.phases["triton_compile"] == data.phases["autotune"] == 0.0
    assert data.phases["cpp_compile"] == max(data.phases.values())


def test_share_of_run_warm_up_and_caches(cold):
    data = cold.compile_time
    assert data.run_s is not None and data.total_s < data.run_s
    assert 0 < data.share_of_run < 1
    assert data.late_s == 0.0  # one compile, no recompile
    assert data.last_compile_end_s is not None and data.last_compile_end_s <= data.run_s
    totals = data.cache_totals()
    assert (totals["fx_graph"].hits, totals["fx_graph"].misses) == (0, 1)
    assert (totals["aot_autograd"].hits, totals["aot_autograd"].misses) == (0, 1)


def test_repeated_block_finding_points_at_the_block_and_offers_regional_compilation(cold):
    (finding,) = [f for f in cold.findings if f.code == "TCD601"]
    assert finding.location.function == "Block.forward" and finding.location.line == 22
    assert "16 times" in finding.title and "Encoder.forward" in finding.title
    assert "for block in model.blocks: block.compile()" in finding.fix.summary
    assert as_json(finding.fix.experiment) == {"regional": {"module_list": "blocks", "block": "Block.forward"}}
    assert finding.evidence.module_list == "blocks"
    assert finding.impact.compile_seconds == pytest.approx(cold.compile_time.total_s, abs=1e-3)


def test_cold_cache_and_dominant_phase_findings(cold):
    codes = _codes(cold)
    assert "TCD603" in codes and "TCD602" in codes and "TCD604" not in codes
    (empty,) = [f for f in cold.findings if f.code == "TCD603"]
    assert as_json(empty.fix.experiment) == {"cache_artifacts": {"carry": True}}
    (phase,) = [f for f in cold.findings if f.code == "TCD602"]
    assert phase.title.startswith("C++ compile takes")
    assert "TORCHINDUCTOR_CACHE_DIR" in phase.fix.summary


def test_warm_cache_says_what_a_fresh_machine_pays(warm):
    data = warm.compile_time
    totals = data.cache_totals()
    assert totals["fx_graph"].hits == 1 and totals["aot_autograd"].hits == 1
    assert data.cache.saved_s == pytest.approx(16.082)
    assert data.phases["inductor"] == 0.0  # nothing lowered: the graph came from the cache
    codes = _codes(warm)
    assert "TCD604" in codes and "TCD603" not in codes


def test_json_compile_time_object(cold):
    from torchcompile_doctor.renderers import render

    document = json.loads(render(cold, "json"))["compile_time"]
    assert set(document) >= {"total_s", "phases", "frames", "run_s", "share_of_run", "late_s", "cache"}
    assert set(document["phases"]) == set(PHASES) == set(document["phase_labels"])
    assert document["phase_labels"]["cpp_compile"] == "C++ compile" and document["kernel_compiler"] == "cpp"
    (frame,) = document["frames"]
    assert set(frame) >= {"function", "file", "line", "seconds", "phases", "cache", "compiles"}
    assert frame["cache"]["fx_graph"] == {"hits": 0, "misses": 1, "bypasses": 0}
    assert frame["compiles"][0]["compile_id"] == "0/0"


def test_cpp_compile_spans_pair_and_worker_spans_are_not_counted_twice():
    own = CompileId(0, 0)
    spans = [
        CompileSpan(own, "compile_file", "B", 1_000_000),
        CompileSpan(own, "compile_file", "E", 3_000_000),
        CompileSpan(None, "compile_file", "B", 3_100_000),  # in a worker: inside the wait below
        CompileSpan(own, "async_compile.wait", "B", 3_000_000),
        CompileSpan(None, "compile_file", "E", 3_900_000),
        CompileSpan(own, "async_compile.wait", "E", 4_000_000),
        CompileSpan(own, "compile_file", "B", 5_000_000),  # never ended (a crash): counts nothing
    ]
    assert cpp_compile_seconds(spans) == {own: pytest.approx(3.0)}


def test_phases_of_a_cache_hit_have_no_lowering():
    hit = CompilationMetrics(CompileId(0, 0), "f", "f.py", 1, None, None, None, None, 3.5, None, None, None, None)
    hit = hit.__class__(**{**hit.__dict__, "backend_compile_s": 2.7, "inductor_compile_s": None})
    phases = phases_of(hit, 0.25)
    assert phases == pytest.approx(
        {
            "dynamo": 0.8,
            "aot_autograd": 2.45,
            "inductor": 0.0,
            "triton_compile": 0.0,
            "cpp_compile": 0.25,
            "autotune": 0.0,
        }
    )


def test_a_compile_time_fix_is_judged_by_compile_time(cold, warm):
    """The cache fix is measured between two runs: the first (cold) and the second (warm) are before/after."""
    import dataclasses

    # the warm trace is a bare TORCH_TRACE of a run that ended OK (tests/data/traces/README.md): say so
    second = dataclasses.replace(warm, target_status="ok", target_exit_code=0)
    attached = verify.attach(cold, {key(CarriedCache()): (cold, second)})
    (finding,) = [f for f in attached.findings if f.code == "TCD603"]
    verified = finding.fix.verified
    assert verified.effect == "improved" and verified.ok
    assert verified.before.compile_time_s > verified.after.compile_time_s
    assert "TORCHINDUCTOR_CACHE_DIR" in verified.change
    assert re.search(r"compile 35\.8\d s → 3\.51 s", summary_line(verified))


def test_module_lists_are_found_under_any_root_local():
    from torchcompile_doctor.events.parsers.output_graph import _module_lists, _numbered_child

    assert _numbered_child("l_self_modules_model_modules_layers_modules_3_modules_norm_parameters_weight_") == (
        "model.layers",
        "3",
    )
    assert _numbered_child("l_args_0_modules_blocks_modules_12_parameters_weight_") == ("blocks", "12")
    assert _numbered_child("l_self_modules_head_parameters_weight_") is None
    names = " ".join(f"l_self_modules_h_modules_{i}_modules_attn_parameters_weight_" for i in range(3))
    assert _module_lists(names + " l_x_") == (("h", 3),)


def test_the_regional_experiment_compiles_each_block_in_place():
    """What the child does for `{"regional": ...}`: each child of the module list compiled, the model not."""
    import importlib.util

    import torch

    from torchcompile_doctor.capture.compile_experiments import compile_blocks, persistent_cache
    from torchcompile_doctor.model.experiment import Regional

    spec = importlib.util.spec_from_file_location("repeated_blocks", SAMPLES / "repeated_blocks.py")
    sample = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sample)
    model = sample.Encoder(4).eval()
    x = torch.randn(2, 3, sample.WIDTH)
    expected = model(x)
    assert not compile_blocks(model, Regional("no_such_list", "Block.forward"), {"backend": "eager"})
    assert compile_blocks(model, Regional("blocks", "Block.forward"), {"backend": "eager"})
    assert all(getattr(block, "_compiled_call_impl", None) is not None for block in model.blocks)
    assert getattr(model, "_compiled_call_impl", None) is None
    torch.testing.assert_close(model(x), expected)
    with persistent_cache("/tmp/some-cache"):
        import os

        assert os.environ["TORCHINDUCTOR_CACHE_DIR"] == "/tmp/some-cache"


def test_no_dominant_phase_where_the_backend_did_nothing():
    """Under an eager backend Dynamo is the whole compile: one phase, nothing to compare (TCD602 stays silent)."""
    report = reread(CAPTURES / "int_arg_recompile_limit")  # captured with --backend eager
    assert report.compile_time.phases["inductor"] == 0.0
    assert "TCD602" not in _codes(report)


@pytest.mark.parametrize(
    "script, function, calls, last_compile_call",
    [
        # step 0..11; a compile for each new step until the limit (8): the refused 9th is Dynamo's last work
        ("int_arg_recompile_limit.py", "warmup_sgd_update", 12, 9),
        # a compiled module over lengths 16, 16, 32, 48, 32, 64: new shapes at calls 1, 3, 4 and 6
        ("shape_recompile.py", "SentenceEncoder.forward", 6, 6),
    ],
)
def test_warm_up_is_counted_in_calls(script, function, calls, last_compile_call):
    """The capture counts each compiled function's (or module's) calls and the last one Dynamo compiled in
    (the samples' recorded captures, tests/data/samples)."""
    capture = SAMPLE_CAPTURES / script.replace(".py", ".capture")
    [frame] = [f for f in reread(capture).compile_time.frames if f.function == function]
    assert (frame.calls, frame.last_compile_call) == (calls, last_compile_call)
    terminal = doctor_in_process("report", str(capture), cwd=SAMPLES)
    assert f"`{function}` still compiling at call {last_compile_call} of {calls}" in terminal.stdout
