"""The GPU findings on the seven cases recorded on an H100 (tests/data/gpu/): for each, what `doctor report` says
from the text log and from trace + log, at the user's line where torch gives one, with the advice a GPU engineer
would give; each new rule that a recorded case can show fires on one (TCD410 TCD415-TCD419, TCD408 on tlparse's
input, tests/test_tlparse_inputs.py; the skip reasons no case recorded fire on torch's own messages in
tests/test_gpu_capture.py)."""

from __future__ import annotations

import gzip
import json

import pytest
from support.paths import DATA

from torchcompile_doctor import pipeline
from torchcompile_doctor.exit_codes import ExitCode
from torchcompile_doctor.model.report import Report

GPU = DATA / "gpu"
CASES = sorted(p.name for p in GPU.iterdir() if (p / "truth.log.gz").exists())
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
        assert found.compile_time.phases["triton_compile"] == pytest.approx(2.747948 + 0.528125 + 0.352353)
        assert found.torch_version == "2.11.0+cu130"


@pytest.mark.parametrize("case", CASES)
def test_no_finding_stands_in_torchs_own_files(case):
    """torch 2.11 compiles a module through Dynamo's wrapper (torch/_dynamo/external_utils.py); an nn.Sequential's
    forward is torch's too: the findings stand at the user's line that called the compiled module."""
    for found in (report(case, True).findings, report(case, False).findings):
        places = [f.location.file for f in found if f.location is not None]
        assert not [p for p in places if "/site-packages/torch/" in p]


@pytest.mark.parametrize("case", CASES)
def test_compile_phases_named_by_what_ran_on_a_gpu(case):
    """Every kernel of the seven was Triton: the Triton phase holds torch's `triton_compile_time_us` of each compile,
    no C++ phase is shown (none was built), no autotune phase (no case ran max-autotune); the phases still add up
    to torch's compile time, in the terminal and in the JSON."""
    from torchcompile_doctor.renderers import render

    found = report(case, True)
    data = found.compile_time
    assert data.kernel_compiler == "triton"
    assert data.shown == ("dynamo", "aot_autograd", "inductor", "triton_compile")
    assert data.phases["cpp_compile"] == data.phases["autotune"] == 0.0
    assert data.phases["triton_compile"] > 0 and sum(data.phases.values()) == pytest.approx(data.total_s)
    text = render(found, "terminal")
    assert f"Triton kernel compile: {data.phases['triton_compile']:.2f} s" in text and "C++ compile" not in text
    document = json.loads(render(found, "json"))["compile_time"]
    assert document["kernel_compiler"] == "triton"
    assert document["phase_labels"]["triton_compile"] == "Triton kernel compile"
    assert document["phases"]["triton_compile"] == pytest.approx(data.phases["triton_compile"], abs=1e-3)


def test_max_autotune_time_from_torchs_autotune_column(tmp_path):
    """No recorded case ran max-autotune: the cg_many_sizes trace with its compile's `compile_time_autotune_time_us`
    set to 6 of its 10 s (torch's column, filled by select_algorithm's benchmarking, inside inductor's timer) is a
    derived file, read as is."""
    (trace,) = (GPU / "cg_many_sizes" / "trace").iterdir()
    lines = gzip.decompress(trace.read_bytes()).decode().split("\n")
    for number, line in enumerate(lines):
        if '{"compilation_metrics": ' in line and '"co_name": "forward"' in line:
            envelope, _, body = line.partition("] ")
            record = json.loads(body)
            record["compilation_metrics"]["compile_time_autotune_time_us"] = 6_000_000
            # benchmarking is part of inductor's lowering: its timer grows by as much (5.0 s -> 8.2 s of 8.4)
            record["compilation_metrics"]["inductor_compile_time_s"] = 8.2
            lines[number] = f"{envelope}] {json.dumps(record)}"
    (tmp_path / "trace.log").write_text("\n".join(lines))
    (found,) = pipeline.reread(tmp_path).reports
    autotune = finding(found, "TCD605")
    assert autotune.title == "max-autotune benchmarking takes 6.0 s (59%) of compiling `forward`"
    at(autotune, "cg_many_sizes", 9)
    assert "default mode" in autotune.fix.summary and "TORCHINDUCTOR_CACHE_DIR" in autotune.fix.summary
    # a phase of its own, taken from inductor's time, beside the Triton compile (torch's 2.03 s)
    data = found.compile_time
    assert data.phases["autotune"] == pytest.approx(6.0) and "autotune" in data.shown
    assert data.phases["triton_compile"] == pytest.approx(2.0314)
    assert sum(data.phases.values()) == pytest.approx(data.total_s)


def test_a_hint_made_of_guard_sources_is_worded_in_its_title():
    """torch's optimizer hint names the gradients by their guard sources (`L['self'].param_groups[0]...`), logged
    with a tuple for a format string: the title says what it means, the evidence keeps torch's text."""
    (found,) = pipeline.reread_paths([GPU / "texts" / "optimizer_grad_copy_hint.log"]).reports
    (hint,) = found.findings
    assert hint.code == "TCD422"
    assert "torch._dynamo.mark_static_address(p.grad)" in hint.fix.summary and "set_to_none=False" in hint.fix.summary
    assert hint.title == (
        "Performance hint: gradient tensors of the optimizer's parameters (2) are copied at every CUDA-graph run"
    )
    assert hint.evidence.torch_text.startswith("Grad tensors [\"L['self'].param_groups[0]['params'][0].grad\"")


@pytest.mark.parametrize("case", CASES)
def test_no_guard_text_and_no_empty_source_in_what_users_read(case):
    """The cases were recorded on another machine: their sources are not here. A line whose text is missing reads
    "source not available here", never `` or a trailing `: `; no title carries guard internals."""
    from torchcompile_doctor.renderers import render

    for with_trace in (False, True):
        found = report(case, with_trace)
        text = render(found, "terminal")
        reached = [line for line in text.splitlines() if "reached from your code at" in line]
        assert "``" not in text and not [line for line in reached if line.rstrip().endswith(":")]
        assert not [f.title for f in found.findings if "L['" in f.title or "___" in f.title]
    if case == "hf_gpt2_generate":
        # recorded on another machine: its file on no root here is shown by its name, not that machine's path
        assert "reached from your code at …/hf_gpt2_generate.py:9: source not available here" in (
            render(report(case, True), "terminal")
        )


def test_a_blank_line_of_code_in_a_template_reads_not_available():
    from torchcompile_doctor.rules.facts import Facts, fill

    said = fill(
        "why: `{source}` at {where} is torch.optim's own code", Facts(where="torch/optim/optimizer.py:80", source="")
    )
    assert said == "why: (source not available here) at torch/optim/optimizer.py:80 is torch.optim's own code"
    assert fill("`{source}`", Facts(source="x = 1")) == "`x = 1`"


# how each case's graphs ran under CUDA graphs (None: the program did not ask for CUDA graphs)
COVERAGE = {
    "cg_mutated_input": ("0/1", {"0/0": "skipped"}),
    "cg_pending_backward": ("0/1", {"0/0": "eager_calls"}),
    "cg_overwritten": ("1/1", {"0/0": "cuda_graph"}),
    "cg_many_sizes": ("0/1", {"0/0": "warmup_only"}),
    "gpu_breaks_mix": None,
    "hf_gpt2_generate": None,
    "tf32_matmul": None,
}


@both
@pytest.mark.parametrize("case", CASES)
def test_cuda_graph_coverage_of_each_case(case, with_trace):
    """Which graphs ran as CUDA graphs, read from torch's cudagraphs log; the three cases that partitioned their
    graphs only because CUDA graphs were off (`partition includes all ops when cudagraphs is disabled`) have none."""
    found = report(case, with_trace)
    expected = COVERAGE[case]
    if expected is None:
        assert found.cudagraphs is None and "TCD421" not in [f.code for f in found.findings]
        return
    share, ways = expected
    data = found.cudagraphs
    assert f"{data.covered}/{len(data.graphs)}" == share
    assert {g.compile_id: g.coverage for g in data.graphs} == ways
    coverage = [f for f in found.findings if f.code == "TCD421"]
    assert len(coverage) == (0 if data.covered == len(data.graphs) else 1)


@both
def test_coverage_names_the_skip_at_the_users_line_with_a_fix_that_works(with_trace):
    found = report("cg_mutated_input", with_trace)
    (site,) = found.cudagraphs.skips
    assert (site.reason, site.detail) == ("mutated_inputs", "mutated inputs (1 instances)")
    assert site.where == "…/cg_mutated_input.py:6" and site.source == "acc.add_(x @ w)"
    coverage = finding(found, "TCD421")
    at(coverage, "cg_mutated_input", 6)
    assert coverage.title.startswith("CUDA graphs cover 0 of 1 compiled graph(s)")
    assert "`mutated inputs (1 instances)` at …/cg_mutated_input.py:6" in coverage.why
    assert "torch._dynamo.mark_static_address(acc)" in coverage.fix.summary
    assert coverage.evidence.coverage == {"0/0": "skipped"}


def test_coverage_of_calls_that_ran_eagerly_and_of_sizes_only_warmed_up():
    pending = report("cg_pending_backward", True)
    assert pending.cudagraphs.calls == {"warmup": 1, "eager": 19}
    assert "cudagraph_mark_step_begin()" in finding(pending, "TCD421").fix.summary
    sizes = report("cg_many_sizes", True)
    assert sizes.cudagraphs.sizes_recorded == 24 and sizes.cudagraphs.calls == {"warmup": 24}
    fix = finding(sizes, "TCD421").fix.summary
    assert "torch._dynamo.mark_dynamic(x, dim)" in fix and "pad" in fix


@pytest.mark.parametrize("release", ["2.13", "2.14"])
def test_coverage_of_re_recordings_up_to_the_limit(release):
    """torch's re-recording texts of the release (tests/data/torch_texts/RELEASE, see tests/data/gpu/README.md):
    three re-recordings for a parameter's changed address, then the limit."""
    (found,) = pipeline.reread_paths([DATA / "torch_texts" / release / "cudagraph_rerecord.log"]).reports
    data = found.cudagraphs
    assert [g.coverage for g in data.graphs] == ["rerecord_limit"] and data.covered == 0
    (rerecord,) = data.rerecordings
    assert (rerecord.count, rerecord.cause, rerecord.changed_input) == (
        3,
        "cudagraph managed tensor data pointer changed",
        "primals_1",
    )
    assert rerecord.where == "…/cg_rerecord.py:9"
    assert (data.rerecord_limit, data.limit_hits) == (128, 1)
    coverage = finding(found, "TCD421")
    assert (
        "re-recorded 3 time(s): cudagraph managed tensor data pointer changed (input `primals_1`, made at"
        in coverage.why
    )
    assert "the re-record limit (=128) was reached 1 time(s)" in coverage.why
    assert "static_x.copy_(x)" in coverage.fix.summary and "cudagraph_mark_step_begin()" in coverage.fix.summary
    assert coverage.evidence.rerecordings == 3 and coverage.evidence.rerecord_limit == 128


@pytest.mark.parametrize("fmt", ["terminal", "markdown", "html", "json", "sarif"])
def test_every_format_has_the_cuda_graph_view(fmt):
    from torchcompile_doctor.renderers import render

    found = report("cg_pending_backward", True)
    text = render(found, fmt)
    if fmt == "json":
        document = json.loads(text)["cudagraphs"]
        assert document["covered"] == 0 and document["graphs"][0]["coverage"] == "eager_calls"
        assert document["calls"] == {"warmup": 1, "eager": 19}
    elif fmt == "sarif":
        assert "TCD421" in text and "CUDA graphs cover 0 of 1 compiled graph(s)" in text
    else:
        assert "CUDA graphs: 0 of 1 compiled graph(s) ran as CUDA graphs (0%)" in text
        assert "recorded, but its calls ran eagerly" in text
    if fmt == "html":
        assert '<section id="cudagraphs">' in text


def test_a_backward_compiled_at_its_first_call_counts_with_its_triton_kernels():
    """A training step's backward is compiled by inductor at the first backward call: torch writes it in a
    `bwd_compilation_metrics` record (no frame time), its Triton kernels' seconds in it. They are part of the
    Triton phase (0.19 s and 0.57 s here) and of the compile time, said apart from torch's frame compile time."""
    from torchcompile_doctor.renderers import render

    found = report("gpu_breaks_mix", True)
    data = found.compile_time
    backward = {c.compile_id: c for f in data.frames for c in f.compiles if c.backward}
    assert set(backward) == {"0/0 backward", "1/0 backward"}
    assert backward["0/0 backward"].seconds == pytest.approx(0.702231)
    assert backward["0/0 backward"].phases["triton_compile"] == pytest.approx(0.573109)
    forward_triton = 0.342671 + 0.000571 + 0.000772 + 0.583396 + 0.149931
    assert data.phases["triton_compile"] == pytest.approx(forward_triton + 0.19351 + 0.573109)
    assert data.total_s == pytest.approx(found.summary.compile_time_s + 0.270156 + 0.702231, abs=1e-3)
    assert "(0.97 s of it compiling backward graphs at their first backward)" in render(found, "terminal")
