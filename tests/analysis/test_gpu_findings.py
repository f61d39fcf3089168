"""The GPU findings on the seven cases recorded on an H100 (tests/data/gpu/): for each, what `doctor report` says
from the text log and from trace + log, at the user's line where torch gives one, with the advice a GPU engineer
would give; each new rule that a recorded case can show fires on one (TCD410 TCD415-TCD419, TCD408 on tlparse's
input, tests/test_tlparse_inputs.py; the skip reasons no case recorded fire on torch's own messages in
tests/test_gpu_capture.py)."""

from __future__ import annotations

import pytest
from support.paths import DATA

from torchcompile_doctor import pipeline
from torchcompile_doctor.exit_codes import ExitCode
from torchcompile_doctor.model.report import Report

GPU = DATA / "gpu"
CASES = sorted(p.name for p in GPU.iterdir() if p.is_dir())
USER_FILE = "/home/user/gpu-cases/{}.py"


def report(case: str, with_trace: bool) -> Report:
    paths = [GPU / case / "trace"] if with_trace else []
    (only,) = pipeline.reread_paths([*paths, GPU / case / "truth.log.gz"]).reports
    return only


def finding(found: Report, code: str):
    matching = [f for f in found.findings if f.code == code]
    assert matching, f"{code} not in {[f.code for f in found.findings]}"
    return matching[0]


def at(found, case: str, line: int) -> None:
    assert found.location is not None
    assert (found.location.file, found.location.line) == (USER_FILE.format(case), line)


both = pytest.mark.parametrize("with_trace", [False, True], ids=["log", "trace+log"])


@both
def test_cg_mutated_input_cuda_graphs_skipped_at_the_in_place_write(with_trace):
    found = report("cg_mutated_input", with_trace)
    skip = finding(found, "TCD410")
    assert found.findings[0] is skip and skip.severity == "high"
    at(skip, "cg_mutated_input", 6)
    assert "mutated inputs (1 instances)" in skip.why and "reduce-overhead" in skip.why
    assert "torch._dynamo.mark_static_address(acc)" in skip.fix.summary and "return acc + x @ w" in skip.fix.summary
    assert skip.title.endswith("in `accumulate`")


@both
def test_cg_pending_backward_inference_without_no_grad(with_trace):
    found = report("cg_pending_backward", with_trace)
    pending = finding(found, "TCD415")
    assert found.findings[0] is pending
    assert pending.impact.occurrences == 19 and pending.evidence.calls == {"warmup": 1, "eager": 19}
    assert "19 call(s) ran eagerly" in pending.why
    assert "torch.no_grad()" in pending.fix.summary and "torch.inference_mode()" in pending.fix.summary
    assert "cudagraph_mark_step_begin()" in pending.fix.summary
    if with_trace:  # the compiled function is torch's nn.Sequential: the user's line that called it
        at(pending, "cg_pending_backward", 8)
        assert pending.title.endswith("in `serve`")


@both
def test_cg_overwritten_names_the_line_that_read_and_the_line_that_made_the_output(with_trace):
    found = report("cg_overwritten", with_trace)
    assert [f.code for f in found.findings] == ["TCD405", "TCD416"]
    failed, overwritten = found.findings
    at(failed, "cg_overwritten", 11)
    assert "TCD416" in failed.fix.summary and "fix the error" not in failed.fix.summary
    at(overwritten, "cg_overwritten", 11)
    assert overwritten.evidence.produced_at == "…/cg_overwritten.py:6"  # on no root of this re-read: its name
    assert "`return torch.sin(x) * 2`" in overwritten.why
    assert ".clone()" in overwritten.fix.summary and "cudagraph_mark_step_begin()" in overwritten.fix.summary
    assert pipeline.exit_code(pipeline.Run((found,))) == ExitCode.TARGET_FAILED


@both
def test_cg_many_sizes_one_graph_per_size(with_trace):
    found = report("cg_many_sizes", with_trace)
    sizes = finding(found, "TCD417")
    assert sizes.impact.occurrences == 24 and sizes.evidence.sizes[:2] == ["(8, 2)", "(9, 2)"]
    assert "no CUDA graph was ever recorded or replayed" in sizes.why  # each size came once: warm-ups only
    assert "cudagraph_skip_dynamic_graphs = True" in sizes.fix.summary and "pad" in sizes.fix.summary
    attention = finding(found, "TCD419")
    assert "_scaled_dot_product_efficient_attention" in attention.title and "bfloat16" in attention.fix.summary
    if with_trace:
        at(sizes, "cg_many_sizes", 9)


@both
def test_tf32_matmul(with_trace):
    found = report("tf32_matmul", with_trace)
    (tf32,) = found.findings
    assert tf32.code == "TCD418"
    assert 'torch.set_float32_matmul_precision("high")' in tf32.fix.summary
    assert "torch.backends.cuda.matmul.allow_tf32 = True" in tf32.fix.summary
    if with_trace:  # 4 fp32 Linear layers in the graph; nn.Sequential is torch's: the user's calling line
        assert tf32.evidence.fp32_matmuls == 4 and "4 float32 matmul(s)" in tf32.why and "`cm`" in tf32.why
        at(tf32, "tf32_matmul", 8)
    else:
        assert tf32.location is None and tf32.evidence.fp32_matmuls is None


@both
def test_gpu_breaks_mix_break_recompiles_and_hints(with_trace):
    found = report("gpu_breaks_mix", with_trace)
    item = finding(found, "TCD104")
    at(item, "gpu_breaks_mix", 11)
    assert item.severity == "high"  # from the trace its cost; from the log alone the catalogue's severity
    recompile = finding(found, "TCD301")
    at(recompile, "gpu_breaks_mix", 9)
    assert recompile.changes[0].startswith("x.shape[0]: 32 → 48")
    assert finding(found, "TCD216").title.startswith("`forward (after line 11)`")
    assert {"TCD418", "TCD404"} <= {f.code for f in found.findings}


@both
def test_hf_gpt2_generate(with_trace):
    found = report("hf_gpt2_generate", with_trace)
    recompile = finding(found, "TCD301")
    assert "input_ids.shape[1]: 12 → 1" in recompile.changes[0]
    assert finding(found, "TCD419").impact.occurrences == 3
    tf32 = finding(found, "TCD418")
    if with_trace:
        assert tf32.evidence.fp32_matmuls == 63
        assert "Triton kernel compile" in found.compile_time.labels["cpp_compile"]
        assert found.torch_version == "2.11.0+cu130"


@pytest.mark.parametrize("case", CASES)
def test_no_finding_stands_in_torchs_own_files(case):
    """torch 2.11 compiles a module through Dynamo's wrapper (torch/_dynamo/external_utils.py); an nn.Sequential's
    forward is torch's too: the findings stand at the user's line that called the compiled module."""
    for found in (report(case, True).findings, report(case, False).findings):
        places = [f.location.file for f in found if f.location is not None]
        assert not [p for p in places if "/site-packages/torch/" in p]


def test_compile_phase_named_for_triton_on_a_gpu():
    found = report("hf_gpt2_generate", True)
    assert found.compile_time.kernel_compiler == "triton"
    assert found.compile_time.labels["cpp_compile"] == "Triton kernel compile"


def test_max_autotune_time_from_torchs_autotune_column(tmp_path):
    """No recorded case ran max-autotune: the cg_many_sizes trace with its compile's `compile_time_autotune_time_us`
    set to 6 of its 10 s (torch's column, filled by select_algorithm's benchmarking) is a derived file, read as is."""
    import gzip
    import json

    (trace,) = (GPU / "cg_many_sizes" / "trace").iterdir()
    lines = gzip.decompress(trace.read_bytes()).decode().split("\n")
    for number, line in enumerate(lines):
        if '{"compilation_metrics": ' in line and '"co_name": "forward"' in line:
            envelope, _, body = line.partition("] ")
            record = json.loads(body)
            record["compilation_metrics"]["compile_time_autotune_time_us"] = 6_000_000
            lines[number] = f"{envelope}] {json.dumps(record)}"
    (tmp_path / "trace.log").write_text("\n".join(lines))
    (found,) = pipeline.reread(tmp_path).reports
    autotune = finding(found, "TCD605")
    assert autotune.title == "max-autotune benchmarking takes 6.0 s (59%) of compiling `forward`"
    at(autotune, "cg_many_sizes", 9)
    assert "default mode" in autotune.fix.summary and "TORCHINDUCTOR_CACHE_DIR" in autotune.fix.summary
