"""`doctor report` on a job's text log (TORCH_LOGS="+cudagraphs,perf_hints,graph_breaks,recompiles"), alone and
beside the run's trace dir: the seven GPU cases recorded on an H100 (tests/data/gpu/, see its README), and the
shapes job logs take (torchrun's rank prefixes, a cluster logger's timestamps, runs appended to one file, damage).
Everything here reads files: no GPU, no torch.compile."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import pytest
from support.doctor import doctor_in_process
from support.paths import DATA

from torchcompile_doctor import pipeline
from torchcompile_doctor.events.job_logs import is_text_log, load_text_logs
from torchcompile_doctor.events.model import CudagraphRunMode, CudagraphSkipReason, WarningKind
from torchcompile_doctor.events.textlog import read_text_log
from torchcompile_doctor.renderers import FORMATS

GPU = DATA / "gpu"
CASES = sorted(p.name for p in GPU.iterdir() if (p / "truth.log.gz").exists())


def log_of(case: str) -> Path:
    return GPU / case / "truth.log.gz"


def trace_of(case: str) -> Path:
    return GPU / case / "trace"


def processes_of(text: bytes):
    return read_text_log(io.BytesIO(text))


def report(*paths: Path, strict: bool = False):
    (only,) = pipeline.reread_paths(list(paths), pipeline.RereadOptions(strict=strict)).reports
    return only


def codes(found) -> list[str]:
    return [f.code for f in found.findings]


def test_the_seven_cases_are_here():
    assert CASES == [
        "cg_many_sizes",
        "cg_mutated_input",
        "cg_overwritten",
        "cg_pending_backward",
        "gpu_breaks_mix",
        "hf_gpt2_generate",
        "tf32_matmul",
    ]


@pytest.mark.parametrize("case", CASES)
def test_a_text_log_is_told_from_a_trace(case):
    assert is_text_log(log_of(case))
    assert not any(is_text_log(p) for p in trace_of(case).iterdir())


@pytest.mark.parametrize("case", CASES)
def test_every_torch_line_of_a_recorded_log_is_read(case):
    (process,), health = processes_of(gzip.decompress(log_of(case).read_bytes()))
    assert process.rank is None and process.run == 0 and process.pid is not None
    assert (health.bad_lines, health.parse_errors, health.unknown_kinds, health.truncated) == (0, 0, 0, False)
    assert health.records > 0


def test_what_the_cudagraphs_log_of_each_case_holds():
    def events(case):
        (process,), _ = processes_of(gzip.decompress(log_of(case).read_bytes()))
        return process.log

    mutated = events("cg_mutated_input")
    (skip,) = mutated.cudagraph_skips
    assert skip.reason == CudagraphSkipReason.MUTATED_INPUTS and skip.detail == "mutated inputs (1 instances)"
    assert (skip.user_stack[-1].file, skip.user_stack[-1].line) == ("/home/user/gpu-cases/cg_mutated_input.py", 6)
    assert skip.user_stack[-1].code.startswith("acc.add_(x @ w)")
    pending = events("cg_pending_backward")
    runs = {run.mode: run.count for run in pending.cudagraph_runs}
    assert runs == {CudagraphRunMode.WARMUP: 1, CudagraphRunMode.EAGER: 19}
    assert [w.kind for w in pending.torch_warnings] == [
        WarningKind.TF32_DISABLED,
        WarningKind.CUDAGRAPH_PENDING_BACKWARD,
    ]
    sizes = events("cg_many_sizes")
    assert [r.size_key for r in sizes.cudagraph_recordings][:2] == ["(8, 2)", "(9, 2)"]
    assert len(sizes.cudagraph_recordings) == 24 and sizes.cudagraph_size_warnings[0].distinct_sizes == 9
    (overwritten,) = events("cg_overwritten").cudagraph_overwrites
    assert (overwritten.producer.line, overwritten.producer.code) == (6, "return torch.sin(x) * 2")
    assert overwritten.stack[-1].line == 11
    tf32 = events("tf32_matmul")
    assert {op.op for op in tf32.non_cudagraphable_ops} >= {"aten.mm.default", "aten.relu.default"}
    assert all(op.cudagraphs_off for op in tf32.non_cudagraphable_ops)  # no reduce-overhead: nothing to report


def test_graph_breaks_and_recompiles_of_a_log_read_as_the_trace_reads_them():
    from torchcompile_doctor.events.load import load_artifacts

    (process,), _ = processes_of(gzip.decompress(log_of("gpu_breaks_mix").read_bytes()))
    trace = load_artifacts(trace_of("gpu_breaks_mix"))
    from_log = [(b.compile_id, b.file, b.line, b.gb_type, b.gb_id) for b in process.log.graph_breaks]
    assert from_log == [(b.compile_id, b.file, b.line, b.gb_type, b.gb_id) for b in trace.graph_breaks]
    assert [(r.compile_id, r.failures) for r in process.log.recompiles] == [
        (r.compile_id, r.failures) for r in trace.recompiles
    ]
    assert process.log.recompiles[0].frame == (
        "/home/user/gpu-cases/gpu_breaks_mix.py",
        11,
        "torch_dynamo_resume_in_forward_at_11",
    )


def test_a_log_and_its_trace_count_each_break_and_recompile_once():
    alone = report(trace_of("gpu_breaks_mix"))
    both = report(trace_of("gpu_breaks_mix"), log_of("gpu_breaks_mix"))
    assert (both.summary.graph_break_records, both.summary.recompiles) == (2, 3)
    assert (alone.summary.graph_break_records, alone.summary.recompiles) == (2, 3)
    assert codes(alone)[:3] == codes(both)[:3] == ["TCD104", "TCD301", "TCD216"]
    assert both.findings[0].count == alone.findings[0].count == 2


@pytest.mark.parametrize("case", CASES)
def test_the_log_alone_and_with_its_trace_name_the_same_gpu_findings(case):
    gpu = {"TCD410", "TCD415", "TCD416", "TCD417", "TCD418", "TCD419"}
    from_log = set(codes(report(log_of(case)))) & gpu
    from_both = set(codes(report(trace_of(case), log_of(case)))) & gpu
    assert from_log == from_both and from_log


def test_a_log_read_alone_says_what_it_cannot_tell():
    alone = report(log_of("tf32_matmul"))
    assert any("read from a text log only" in note for note in alone.notes)
    assert alone.compile_time is None and alone.target_status == "unknown"
    (tf32,) = alone.findings
    assert "how many of the program's matmuls are float32 is not known" in tf32.why


def test_what_a_text_log_cannot_hold_is_said_not_in_the_log_in_every_format(tmp_path):
    """A text log holds no graph count and no compile time: `not in the log` (JSON: null), never `0 graphs ·
    compile 0.00 s` as if measured; the same log beside its trace measures both."""
    alone = report(log_of("tf32_matmul"))
    assert (alone.summary.graphs, alone.summary.compile_time_s) == (None, None)
    said = {fmt: doctor_in_process("report", str(log_of("tf32_matmul")), "--format", fmt).stdout for fmt in FORMATS}
    assert "graphs not in the log" in said["terminal"] and "compile time not in the log" in said["terminal"]
    assert "| not in the log | 0 | 0 | 0 | 0 | 0 | not in the log |" in said["markdown"]
    assert said["html"].count("not in the log") >= 2
    assert "graphs not in the log" in said["github"]
    summary = json.loads(said["json"])["summary"]
    assert (summary["graphs"], summary["compile_time_s"]) == (None, None)
    for fmt, text in said.items():
        assert "0 graphs" not in text and "compile 0.00 s" not in text, fmt
    both = report(trace_of("tf32_matmul"), log_of("tf32_matmul"))
    assert both.summary.graphs is not None and both.summary.compile_time_s is not None


def test_the_ranks_of_a_text_log_say_not_in_the_log_too(tmp_path):
    job = tmp_path / "job.log"
    job.write_text("".join(f"[rank{rank}]:{line}" for rank in (0, 1) for line in _lines("cg_mutated_input")))
    merged = report(job)
    assert [(row.graphs, row.compile_time_s) for row in merged.rank_table] == [(None, None), (None, None)]
    for fmt in ("terminal", "markdown", "html", "json"):
        run = doctor_in_process("report", str(job), "--format", fmt)
        assert run.returncode == 0 and "0.00 s" not in run.stdout, (fmt, run.stderr[-2000:])


def test_gzipped_and_plain_logs_read_alike(tmp_path):
    plain = tmp_path / "job.log"
    plain.write_bytes(gzip.decompress(log_of("cg_pending_backward").read_bytes()))
    assert codes(report(plain)) == codes(report(log_of("cg_pending_backward")))


def _lines(case: str) -> list[str]:
    return gzip.decompress(log_of(case).read_bytes()).decode().splitlines(keepends=True)


def test_torchrun_rank_prefixes_keep_each_rank_apart_then_merge(tmp_path):
    """Two ranks' lines interleaved as torchrun tees them (`[rank0]:` / `[rank1]:`)."""
    zero = [f"[rank0]:{line}" for line in _lines("cg_mutated_input")]
    one = [f"[rank1]:{line}" for line in _lines("cg_pending_backward")]
    mixed = [line for pair in zip(zero, one, strict=False) for line in pair] + one[len(zero) :]
    job = tmp_path / "job.log"
    job.write_text("W1124 19:56:50.000000 100 torch/distributed/run.py:800] *****\n" + "".join(mixed))
    (run,) = load_text_logs([job])
    assert sorted(run.logs) == [0, 1]  # the launcher's own line is no rank
    merged = report(job)
    by_code = {f.code: f for f in merged.findings}
    assert by_code["TCD410"].ranks == (0,) and by_code["TCD415"].ranks == (1,)
    assert by_code["TCD418"].ranks == (0, 1)
    assert [row.rank for row in merged.rank_table] == [0, 1]


@pytest.mark.parametrize(
    "stamp",
    ["2026-11-24T19:56:54.304123Z stderr F ", "[2026-11-24 19:56:54,304] ", "2026-11-24 19:56:54.304+00:00 "],
)
def test_a_cluster_loggers_timestamps_are_read_past(tmp_path, stamp):
    job = tmp_path / "job.log"
    job.write_text("".join(stamp + line for line in _lines("cg_mutated_input")))
    assert codes(report(job)) == codes(report(log_of("cg_mutated_input")))


def test_runs_appended_to_one_file_are_reported_one_by_one(tmp_path):
    job = tmp_path / "job.log"
    job.write_text("".join(_lines("cg_mutated_input") + _lines("cg_overwritten") + _lines("cg_many_sizes")))
    reports = pipeline.reread_paths([job]).reports
    assert [r.target.rsplit("(", 1)[1] for r in reports] == ["run 1 of 3)", "run 2 of 3)", "run 3 of 3)"]
    assert "TCD410" in codes(reports[0]) and "TCD416" not in codes(reports[0])
    assert "TCD416" in codes(reports[1]) and reports[1].target_status == "exception"
    assert "TCD417" in codes(reports[2]) and reports[2].target_status == "unknown"
    # the TF32 warning printed before the third run's first record is the third run's
    assert "TCD418" in codes(reports[2]) and "TCD418" not in codes(reports[1])


def test_damage_is_counted_never_fatal(tmp_path):
    lines = _lines("cg_overwritten")
    damaged = b"".join(line.encode() for line in lines[:5])
    damaged += b"\xff\xfe not utf-8 \xc3\x28\n"
    damaged += b"V1124 19:58:47.400000 863 torch/_inductor/x.py:1] [__cudagraphs] ??\n"  # no parser knows it
    damaged += "".join(lines[5:9]).encode()  # the traceback, cut before its exception line
    job = tmp_path / "job.log"
    job.write_bytes(damaged)
    found = report(job)
    health = found.log_health
    assert (health.bad_lines, health.unknown_kinds, health.truncated) == (1, 1, True)
    assert found.target_status == "unknown"  # the exception line never came
    strict = doctor_in_process("report", str(job), "--strict")
    assert strict.returncode == 2 and "--strict: the logs have problems" in strict.stderr


def test_a_trace_and_a_log_of_another_run_are_refused(tmp_path):
    job = tmp_path / "job.log"
    job.write_text("".join(_lines("cg_mutated_input") + _lines("cg_overwritten")))
    run = doctor_in_process("report", str(trace_of("tf32_matmul")), str(job))
    assert run.returncode == 2 and "none of them was made by the process(es)" in run.stderr


def test_a_trace_and_the_log_of_one_other_run_are_refused(tmp_path):
    """The README's promise: a log from another run given beside a trace dir is refused, not silently added
    (each names the process that wrote it); the log of the same run is added."""
    run = doctor_in_process("report", str(trace_of("tf32_matmul")), str(log_of("cg_mutated_input")))
    assert (run.returncode, run.stdout) == (2, "")
    assert "is the log of another run (pid 442), not of the process(es) that wrote" in run.stderr
    assert run.stderr.count("\n") == 1
    other = tmp_path / "job.log"
    other.write_text("epoch 1: loss 0.5\nsaved checkpoint-1.pt\n")  # no torch record at all
    nothing = doctor_in_process("report", str(trace_of("tf32_matmul")), str(other))
    assert nothing.returncode == 2 and nothing.stderr.startswith(f"doctor: error: nothing to read in {other}: ")
    same = doctor_in_process("report", str(trace_of("tf32_matmul")), str(log_of("tf32_matmul")))
    assert same.returncode == 0 and "TCD418" in same.stdout, same.stderr[-2000:]


def test_the_cli_reads_a_trace_dir_beside_its_log():
    run = doctor_in_process("report", str(trace_of("cg_overwritten")), str(log_of("cg_overwritten")))
    assert run.returncode == 3  # the log recorded the uncaught exception: the target failed
    assert "TCD416" in run.stdout and "Triton kernel compile" in run.stdout
    assert "torch 2.11.0+cu130" in run.stdout


RERECORD_TEXTS = DATA / "torch_texts"  # per release: torch's re-recording and re-record limit messages


@pytest.mark.parametrize("release", ["2.13", "2.14"])
def test_rerecordings_and_the_limit_of_a_release(release):
    """Each re-recording's cause, the input whose address changed and the line that made it; the limit's value."""
    (process,), health = processes_of((RERECORD_TEXTS / release / "cudagraph_rerecord.log").read_bytes())
    assert (health.parse_errors, health.unknown_kinds) == (0, 0)
    (rerecord,) = process.log.cudagraph_runs
    assert (rerecord.mode, rerecord.count, rerecord.function) == (CudagraphRunMode.RERECORD, 3, "partition_0")
    assert rerecord.reason == "cudagraph managed tensor data pointer changed" and rerecord.changed_input == "primals_1"
    assert (rerecord.user_stack[-1].line, rerecord.user_stack[-1].code) == (9, "return self.lin(x) * 2")
    (limit,) = process.log.cudagraph_skips
    assert limit.reason == CudagraphSkipReason.RERECORD_LIMIT and limit.rerecord_limit == 128
    assert limit.detail.endswith("due to cudagraph managed tensor data pointer changed") and "\n" not in limit.detail
    assert limit.user_stack[-1].line == 9


def _record(level: str, where: str, text: str) -> bytes:
    prefix = f"{level}1128 04:10:00.000000 7171 torch/_inductor/{where}] [__cudagraphs]"
    return "\n".join(f"{prefix} {line}" for line in text.split("\n")).encode() + b"\n"


def test_the_words_2_15_gives_the_re_record_limit_are_read():
    """torch 2.15's own wordings (its torch/_inductor/cudagraph_trees.py, read from the 2.15.0 wheel of the lane's
    venv and rendered as its logger writes them): a skip at the cudagraph-managed input re-recording threshold, the
    skip at the re-recording limit (unchanged since 2.13), and the new warning that a graph hit
    `cudagraph_dynamic_shape_rerecord_limit` (new shapes run eagerly). Each is read as the re-record limit, with
    its value."""
    text = _record(
        "W",
        "cudagraph_utils.py:405",
        "skipping cudagraph due to function 2 reaching the cudagraph-managed input re-recording threshold (=8) on "
        "cudagraph node 0 for input indices [0, 3].",
    )
    text += _record(
        "W",
        "cudagraph_utils.py:405",
        "skipping cudagraph due to function 2 exceeding max re-recording limit (=50) on cudagraph node 0 due to "
        "cudagraph managed tensor data pointer changed.",
    )
    text += _record(
        "W",
        "cudagraph_trees.py:499",
        "[0/0] forward graph hit cudagraph_dynamic_shape_rerecord_limit=8; already-recorded shapes still replay, "
        "new shapes run eager.",
    )
    (process,), health = processes_of(text)
    assert (health.parse_errors, health.unknown_kinds) == (0, 0)
    threshold, limit, shapes = process.log.cudagraph_skips
    assert {threshold.reason, limit.reason, shapes.reason} == {CudagraphSkipReason.RERECORD_LIMIT}
    assert (threshold.rerecord_limit, limit.rerecord_limit, shapes.rerecord_limit) == (8, 50, 8)
    assert "new shapes run eager" in shapes.detail


def test_a_skip_logged_without_its_compile_belongs_to_the_graph_run_before_it():
    """torch logs `skipping cudagraphs due to mutated inputs` at the graph's first call, with no compile id: it is
    the compile whose cudagraphs records came last. Two recorded logs joined: cg_mutated_input's graph (0/0), then
    cg_overwritten's, renumbered 1/0 (a second compiled function)."""
    mutated = gzip.decompress(log_of("cg_mutated_input").read_bytes()).decode()
    overwritten = gzip.decompress(log_of("cg_overwritten").read_bytes()).decode().replace("[0/0]", "[1/0]")
    overwritten = overwritten.replace(" 863 ", " 442 ")  # one process
    (process,), _ = processes_of((mutated + overwritten).encode())
    (skip,) = process.log.cudagraph_skips
    assert str(skip.compile_id) == "0/0"
    assert sorted(str(r.compile_id) for r in process.log.cudagraph_recordings) == ["0/0", "1/0"]
